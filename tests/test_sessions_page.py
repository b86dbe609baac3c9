"""The Sessions page, driven with AppTest: a scanned folder, worst first, and opening a session."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.views import CELL_CHAR_PX
from tests.helpers import SAMPLES
from tests.test_app import app, html_of, page


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    sessions = tmp_path / "sessions"
    (sessions / "team").mkdir(parents=True)
    for name in ("healthy_chain.json", "anchor_decay.json", "staging_db_constraint.json"):
        (sessions / "team" / name).write_bytes((SAMPLES / name).read_bytes())
    (sessions / "torn.jsonl").write_bytes(b'{"not": "a trace"')
    monkeypatch.setenv("INSPECTOR_TRACES_DIR", str(sessions))
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path / "data"))
    return sessions


def test_sessions_are_listed_worst_first_with_a_chart_by_rule(folder):
    at = page(app(), "sessions")
    assert not at.exception
    table = at.dataframe[0].value
    assert list(table["session"])[-2:] == ["team/healthy_chain.json", "torn.jsonl"]
    assert list(table["verdict"]) == ["fail", "fail", "pass", "unreadable"]
    assert list(table["agent"]) == ["native", "native", "native", "—"]  # which agent wrote each log
    assert table["errors"].iloc[0] >= table["errors"].iloc[1]
    assert [m.value for m in at.metric] == ["4", "2", "1", "1"]
    assert at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")


def test_filters_narrow_the_table(folder):
    at = page(app(), "sessions")
    at.multiselect(key="filter_verdict").select("pass").run()
    assert list(at.dataframe[0].value["session"]) == ["team/healthy_chain.json"]
    at.multiselect(key="filter_verdict").unselect("pass").run()
    at.text_input(key="filter_session_text").input("anchor").run()
    assert list(at.dataframe[0].value["session"]) == ["team/anchor_decay.json"]


def test_opening_a_session_shows_it_in_the_inspector(folder):
    at = page(app(), "sessions")
    target = str(folder / "team" / "anchor_decay.json")
    at.selectbox(key="session_pick").select(target)
    at.button(key="open_session").click().run()
    assert not at.exception
    assert at.query_params["trace"] == "path:team/anchor_decay.json"
    assert at.get("graphviz_chart")  # the chain view of that session


def test_without_a_traces_folder_the_bundled_samples_are_scanned(tmp_path, monkeypatch):
    monkeypatch.delenv("INSPECTOR_TRACES_DIR", raising=False)
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path))
    at = page(app(), "sessions")
    assert not at.exception
    assert set(at.dataframe[0].value["session"]) == {p.name for p in SAMPLES.glob("*.json")}
    assert "INSPECTOR_TRACES_DIR" in html_of(at)


def test_links_out_of_the_folder_and_fifos_are_counted_not_listed(folder, tmp_path):
    import os

    outside = tmp_path / "outside.json"
    outside.write_bytes((SAMPLES / "healthy_chain.json").read_bytes())
    (folder / "leak.json").symlink_to(outside)
    os.mkfifo(folder / "hang.jsonl")
    at = page(app(), "sessions")
    assert not at.exception
    assert "leak.json" not in list(at.dataframe[0].value["session"])
    assert "2 never opened: 1 FIFO, device or socket; 1 link leaving the folder" in html_of(at)


def test_a_session_without_a_finding_has_a_dash_for_its_worst_rule_and_no_column_is_cut(folder):
    at = page(app(), "sessions")
    table = at.dataframe[0].value
    assert list(table["worst rule"])[-2:] == ["—", "—"]  # passing and unreadable: no rule, not "None"
    widths = {name: config.get("width") for name, config in json.loads(at.dataframe[0].proto.columns).items()}
    assert widths["worst rule"] >= len("user-statement-lost") * CELL_CHAR_PX  # a rule name is never cut
    assert widths["session"] >= len("team/staging_db_constraint.json") * CELL_CHAR_PX
    assert at.dataframe[0].proto.placeholder == "—"


def test_the_sessions_and_ledger_pages_name_no_server_folder(folder, tmp_path):
    """Issue 28: they showed the traces folder's and the review store's absolute paths to whoever reached the app."""
    for name in ("sessions", "ledger"):
        at = page(app(), name)
        assert not at.exception and str(tmp_path) not in html_of(at), name
    sessions = page(app(), "sessions")
    assert [str(tmp_path) in str(v) for v in sessions.dataframe[0].value.to_numpy().ravel()].count(True) == 0
    assert "(sqlite: inspector.db)" in html_of(page(app(), "ledger"))  # what it is, not where


def test_a_session_where_a_loss_had_a_consequence_tops_the_table_with_its_count(folder):
    fixture = Path(__file__).parent / "fixtures" / "native" / "lost_rule_then_pushed.json"
    (folder / "team" / fixture.name).write_bytes(fixture.read_bytes())
    at = page(app(), "sessions")
    assert not at.exception
    table = at.dataframe[0].value
    assert list(table.columns[:5]) == ["rank", "session", "agent", "verdict", "consequences"]
    assert (table["session"].iloc[0], table["consequences"].iloc[0]) == ("team/lost_rule_then_pushed.json", 1)
    assert list(table["consequences"].iloc[1:]) == [0, 0, 0, 0]
    assert "a lost item had a consequence" in html_of(at)
