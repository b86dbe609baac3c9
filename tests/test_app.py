"""AppTest drives every page on the bundled samples, as a user would, without a browser."""

from __future__ import annotations

import json
import os
import sqlite3
from contextlib import closing
from html import unescape

import pytest
from streamlit.testing.v1 import AppTest

from inspector import analyze, load_trace
from inspector.model import finding_id
from inspector.raw_records import pretty_json, record_index
from inspector.render import HIGHLIGHT_CLASSES
from inspector.views import CELL_CHAR_PX, LONG_TEXT_PX, ROW_MARKER_PX, TABLE_PX, finding_rows
from tests.helpers import ONE_OF_EACH, REPO, SAMPLES

APP = str(REPO / "app.py")


def app(**params: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def page(at: AppTest, name: str) -> AppTest:
    return at.switch_page(f"pages/{name}.py").run()


def html_of(at: AppTest) -> str:
    return "".join(str(element.proto.body) for element in at.get("html"))


def test_opening_a_sample_from_the_home_page():
    at = app()
    assert not at.exception
    at.selectbox(key="sample_choice").select("staging_db_constraint.json")
    at.button(key="open_sample").click().run()
    assert not at.exception
    assert at.query_params["trace"] == "sample:staging_db_constraint.json"
    assert [m.value for m in at.metric][:3] == ["native", "4", "FAIL"]
    assert "user-statement-weakened" in html_of(at)


def test_every_page_renders_every_sample():
    for sample in sorted(p.name for p in SAMPLES.glob("*.json")):
        at = app(trace=f"sample:{sample}")
        for name in ("chain", "generation", "manifest", "findings"):
            page(at, name)
            assert not at.exception, (sample, name, at.exception)


def test_switching_pages_keeps_the_open_trace():
    at = app(trace="sample:anchor_decay.json")
    page(at, "chain")
    assert at.get("graphviz_chart")
    page(at, "generation")
    assert at.header[0].value == "S1 · summary"
    assert at.query_params["trace"] == "sample:anchor_decay.json"


def test_selecting_a_generation_with_next_and_previous():
    at = page(app(trace="sample:anchor_decay.json", gen="1"), "generation")
    at.button(key="next_gen").click().run()
    assert at.header[0].value == "S2 · summary" and at.query_params["gen"] == "2"
    at.button(key="prev_gen").click().run()
    assert at.header[0].value == "S1 · summary"


def test_toggling_a_highlight_class_removes_its_marks():
    at = page(app(trace="sample:anchor_decay.json", gen="3"), "generation")
    assert 'class="anchor-unresolved"' in html_of(at)
    shown = [css for css in HIGHLIGHT_CLASSES if css != "anchor-unresolved"]
    at.button_group(key="highlight_classes").set_value(shown).run()
    text = html_of(at)
    assert 'class="anchor-unresolved"' not in text and 'class="elision-orphaned"' in text


def test_following_a_finding_opens_the_generation_at_its_span():
    analysis = analyze(load_trace(SAMPLES / "anchor_decay.json"))
    wanted = next(r for r in finding_rows(analysis) if r["rule"] == "unresolved-anchor")
    at = page(app(trace="sample:anchor_decay.json"), "findings")
    at.selectbox(key="finding_pick").select(wanted["id"])
    at.button(key="open_finding").click().run()
    assert not at.exception
    assert at.header[0].value == "S3 · summary"
    assert 'id="selected"' in html_of(at) and "ledger:3.2" in html_of(at)


def test_findings_filters_narrow_the_table():
    at = page(app(trace="sample:anchor_decay.json"), "findings")
    at.multiselect(key="filter_rule").select("unresolved-anchor").run()
    assert len(at.dataframe[0].value) == 1


def test_deep_link_restores_generation_finding_and_invariant():
    analysis = analyze(load_trace(SAMPLES / "staging_db_constraint.json"))
    finding = next(r for r in finding_rows(analysis) if r["rule"] == "user-statement-weakened")
    at = page(app(trace="sample:staging_db_constraint.json", gen="2", finding=finding["id"]), "generation")
    assert at.header[0].value == "S2 · summary"
    assert "Selected finding" in html_of(at) and 'id="selected"' in html_of(at)

    inv = analysis.facts.invariants[0].invariant.id
    at = page(app(trace="sample:staging_db_constraint.json", inv=inv), "manifest")
    assert at.selectbox(key="inv_pick_0").value == inv
    assert "First weakened or lost in S2" in html_of(at)


def test_manifest_page_shows_the_matrix_and_the_diff():
    at = page(app(trace="sample:five_item_synthetic.json", gen="5"), "manifest")
    assert 'class="ci-matrix"' in html_of(at)
    changes = at.dataframe[0].value
    assert set(changes["change"]) >= {"lost", "changed"}


@pytest.mark.parametrize("ref", ["sample:../../etc/passwd", "nonsense", "sample:missing.json"])
def test_bad_trace_references_show_an_error_not_a_traceback(ref):
    at = app(trace=ref)
    assert not at.exception
    assert 'role="alert"' in html_of(at)


def test_views_without_a_trace_point_home():
    at = page(app(), "generation")
    assert not at.exception and at.info[0].value == "No trace is open yet."


def test_a_path_under_the_traces_folder_opens_and_an_escape_is_refused(tmp_path, monkeypatch):
    (tmp_path / "team").mkdir()
    (tmp_path / "team" / "run.json").write_bytes((SAMPLES / "healthy_chain.json").read_bytes())
    monkeypatch.setenv("INSPECTOR_TRACES_DIR", str(tmp_path))
    at = app()
    at.text_input(key="path_choice").input("team/run.json")
    at.button(key="open_path").click().run()
    assert at.query_params["trace"] == "path:team/run.json"
    assert [m.value for m in at.metric][2] == "PASS"

    at = app(trace="path:../../etc/passwd")
    assert not at.exception and "refused" in html_of(at)


@pytest.mark.parametrize(("ref", "says"), [
    ("path:../outside.json", "../outside.json: refused, it leads outside the traces folder"),
    ("path:/etc/passwd", "/etc/passwd: absolute paths are refused; give a path inside the traces folder"),
    ("upload:../../../outside.json", "../../../outside.json: refused, it leads outside the uploads folder"),
])  # fmt: skip
def test_a_refused_path_is_named_as_given_never_by_the_servers_folders(tmp_path, monkeypatch, ref, says):
    """Issue 28: the message said "leads outside /…/web/traces" and "…/data/uploads" to whoever sent the link."""
    (tmp_path / "web" / "traces").mkdir(parents=True)
    monkeypatch.setenv("INSPECTOR_TRACES_DIR", str(tmp_path / "web" / "traces"))
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path / "data"))
    at = app(trace=ref)
    shown = html_of(at)
    assert not at.exception and says in shown
    assert str(tmp_path) not in shown  # nor any other line of the page: the folder is the server's business


UPLOADABLE = {name: path for name, path in ONE_OF_EACH.items() if path.is_file()}
"""Every format that comes as one file: a plain log, a zip of zstd members, an SQLite database."""


@pytest.mark.parametrize("fmt", sorted(UPLOADABLE))
def test_everything_read_from_an_upload_is_within_the_uploads_own_bounds(tmp_path, monkeypatch, fmt):
    """Issue 28: an upload was read within the command line's 4 GB; the same file from the traces folder still is."""
    import streamlit as st

    from inspector.library import store_upload

    st.cache_resource.clear()  # an analysis of the same bytes, cached by another test, would be served as it is
    source = UPLOADABLE[fmt]
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("INSPECTOR_UPLOAD_MAX_FILE_MB", "0.001")  # 1 KB: smaller than any file here, or its parts
    at = app(trace=str(store_upload(source.read_bytes(), source.name)))
    assert not at.exception and at.metric == [] and (
        "the per-file limit for uploads (INSPECTOR_UPLOAD_MAX_FILE_MB)") in html_of(at)  # fmt: skip
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / source.name).write_bytes(source.read_bytes())
    monkeypatch.setenv("INSPECTOR_TRACES_DIR", str(tmp_path / "traces"))
    at = app(trace=f"path:{source.name}")
    assert not at.exception and [m.value for m in at.metric][0] == fmt


def test_an_upload_whose_analysis_would_pass_the_memory_budget_is_refused(tmp_path, monkeypatch):
    from inspector.library import store_upload

    source = UPLOADABLE["inspect-ai"].with_suffix(".json")  # 267 KB
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("INSPECTOR_CACHE_MB", "0.25")  # analysed at up to 4 bytes a byte: 64 KB of upload
    at = app(trace=str(store_upload(source.read_bytes(), source.name)))
    assert not at.exception and at.metric == []
    assert ("two-samples.json: is larger than 0.062 MB, the largest upload the app's memory budget can analyse "
            "(INSPECTOR_CACHE_MB)") in unescape(html_of(at))  # fmt: skip


def test_a_one_megabyte_generation_is_shown_a_part_at_a_time(tmp_path, monkeypatch):
    import json

    document = json.loads((SAMPLES / "healthy_chain.json").read_text())
    line = "Filler sentence about the export job and [[ops:2]] as noted earlier. "
    document["generations"][2]["text"] = line * (1_000_000 // len(line))
    (tmp_path / "big.json").write_text(json.dumps(document))
    monkeypatch.setenv("INSPECTOR_TRACES_DIR", str(tmp_path))
    at = page(app(trace="path:big.json", gen="2"), "generation")
    assert not at.exception
    part = at.number_input(key="part_2")
    assert part.value == 1 and "of 25" in part.label
    assert len(html_of(at)) < 400_000  # one 40,000-character part with its marks, not the megabyte
    part.set_value(25).run()
    assert not at.exception
    at.toggle(key="diff_2").set_value(True).run()
    diff_part = at.number_input(key="diff_part_2")
    assert diff_part.value == 1 and len(html_of(at)) < 800_000


def test_refresh_from_source_records_corrections_and_draws_the_branch(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path))
    at = page(app(trace="sample:five_item_synthetic.json", gen="5"), "generation")
    at.text_input(key="reviewer").input("kim").run()
    at.button(key="refresh_button").click().run()
    assert not at.exception
    assert at.query_params["refresh"] == "5"
    corrections = at.dataframe[0].value
    assert sorted(corrections["type"]) == ["omitted", "superseded", "weakened", "weakened"]

    page(at, "chain")
    assert "S′5 refreshed" in at.get("graphviz_chart")[0].proto.spec
    debt = at.dataframe[0].value
    assert debt["max depth (refreshed)"].iloc[5] == 0 and debt["max depth (chain)"].iloc[5] == 5

    page(at, "ledger")
    ledger = at.dataframe[0].value
    assert len(ledger) == 4 and set(ledger["requested_by"]) == {"kim"}
    # a new app process (restart) reads the same ledger
    again = page(app(trace="sample:five_item_synthetic.json"), "ledger")
    assert len(again.dataframe[0].value) == 4


def test_refresh_of_a_healthy_generation_has_nothing_to_correct(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path))
    at = page(app(trace="sample:healthy_chain.json", gen="2"), "generation")
    at.button(key="refresh_button").click().run()
    assert not at.exception and "Nothing to correct" in at.success[0].value


def test_policy_page_compares_three_policies_and_reacts_to_settings():
    at = page(app(trace="sample:five_item_synthetic.json"), "policies")
    assert not at.exception
    summary = at.dataframe[0].value
    assert list(summary["policy"]) == ["no refresh", "every 2", "adaptive"]
    assert summary["silent drift at"].iloc[0] == "S4"  # where the silent-drift finding is, and only there
    at.number_input(key="policy_n").set_value(1).run()
    summary = at.dataframe[0].value
    assert list(summary["policy"])[1] == "every 1" and summary["refreshes"].iloc[1] == 5


def test_review_queue_walks_findings_and_survives_a_restart(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path))
    at = page(app(trace="sample:staging_db_constraint.json"), "review")
    assert at.get("progress")[0].proto.text == "0 of 2 reviewed"
    at.text_input(key="reviewer").input("kim").run()
    at.selectbox(key="label_queue").select("confirmed")
    at.text_input(key="comment_queue").input("the constraint is gone")
    at.button[0].click().run()
    assert not at.exception and at.get("progress")[0].proto.text == "1 of 2 reviewed"

    restarted = page(app(trace="sample:staging_db_constraint.json"), "review")  # a new app process
    assert restarted.get("progress")[0].proto.text == "1 of 2 reviewed"
    findings = page(app(trace="sample:staging_db_constraint.json"), "findings")
    assert "confirmed" in list(findings.dataframe[0].value["review"])


def test_annotating_a_span_on_the_generation_view_marks_it_inline(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path))
    at = page(app(trace="sample:anchor_decay.json", gen="3"), "generation")
    at.text_input(key="span_quote_3").input("fully preserved").run()
    at.selectbox(key="label_span_3").select("confirmed")
    submit = next(b for b in at.button if b.key and "annotate_span_3" in b.key)
    submit.click().run()
    assert not at.exception
    assert 'class="annotated claim"' in html_of(at) or 'class="claim annotated"' in html_of(at)
    assert at.dataframe[-1].value["quoted"].iloc[0] == "fully preserved"


def test_annotating_an_invariant_from_the_lineage(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path))
    at = page(app(trace="sample:five_item_synthetic.json"), "manifest")
    at.selectbox(key="label_invariant").select("needs-source")
    next(b for b in at.button if b.key and "annotate_invariant" in b.key).click().run()
    assert not at.exception
    assert at.dataframe[-1].value["label"].iloc[0] == "needs-source"


def test_the_guided_story_walks_to_a_reviewer_confirmation(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path))
    at = page(app(), "story")
    titles = []
    for _ in range(6):
        assert not at.exception
        titles.append(at.subheader[0].value)
        if at.query_params["step"] != "6":
            at.button(key="story_next").click().run()
    assert titles[0].startswith("S1") and titles[-1] == "A reviewer confirms it"
    at.button(key="story_back").click().run()
    assert at.query_params["step"] == "5" and at.get("graphviz_chart")
    assert list(at.dataframe[0].value["type"]) == ["omitted"]
    at.button(key="story_next").click().run()
    at.button(key="story_confirm").click().run()
    assert "Reviewed: confirmed" in html_of(at)
    review = page(app(trace="sample:staging_db_constraint.json"), "review")
    assert review.get("progress")[0].proto.text == "1 of 2 reviewed"


def test_home_offers_the_report_downloads(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path))
    at = app(trace="sample:anchor_decay.json")
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == ["Report (HTML)", "Report (Markdown)"]


@pytest.mark.parametrize(
    ("name", "says"),
    [("sub", "is a folder, not a trace file"), ("a\x00b.jsonl", "not a usable path (embedded null byte)"),
     ("y" * 5000, "cannot open (File name too long)"), ("hang.jsonl", "not a regular file")],
)  # fmt: skip
def test_a_bad_traces_folder_path_shows_one_error_line(tmp_path, monkeypatch, name, says):
    import os

    monkeypatch.setenv("INSPECTOR_TRACES_DIR", str(tmp_path))
    (tmp_path / "sub").mkdir()
    os.mkfifo(tmp_path / "hang.jsonl")
    at = app(trace=f"path:{name}")
    assert not at.exception
    errors = [e for e in at.get("html") if 'role="alert"' in str(e.proto.body)]
    assert len(errors) == 1 and says in str(errors[0].proto.body)
    assert "\n" not in str(errors[0].proto.body)


def test_the_upload_box_is_labelled_from_the_reader_registry():
    from inspector.library import upload_help, upload_label

    [uploader] = app().run().get("file_uploader")
    assert uploader.proto.label == upload_label() and uploader.proto.help == upload_help()


def test_a_pasted_sample_link_shows_that_sample_in_the_picker():
    at = app(trace="sample:staging_db_constraint.json")
    assert at.selectbox(key="sample_choice").value == "staging_db_constraint.json"
    at.selectbox(key="sample_choice").select("healthy_chain.json").run()  # picked, not yet opened: it stays
    assert at.selectbox(key="sample_choice").value == "healthy_chain.json"
    assert at.query_params["trace"] == "sample:staging_db_constraint.json"



def test_the_findings_table_fits_the_main_area_with_rule_names_whole_and_messages_wrapped():
    at = page(app(trace="sample:five_item_synthetic.json"), "findings")
    table = at.dataframe[0]
    shown = list(table.proto.column_order)
    widths = {name: config.get("width") for name, config in json.loads(table.proto.columns).items() if name in shown}
    assert shown == ["generation", "severity", "rule", "message", "review"]  # the id and the record: in the picker
    assert sum(widths.values()) + ROW_MARKER_PX <= TABLE_PX  # cut off on the right when it was wider
    assert widths["rule"] >= max(map(len, table.value["rule"])) * CELL_CHAR_PX  # a rule name is never cut
    assert widths["message"] < LONG_TEXT_PX and table.proto.row_height > 64  # narrowed, so wrapped (4rem: Streamlit)
    assert "superseded-fact-resurfaced: " in " ".join(at.selectbox(key="finding_pick").options)  # named, not by id


def _opened(tmp_path, monkeypatch, name: str, data: str, **params: str) -> AppTest:
    """A session log written under the traces folder, opened."""
    (tmp_path / name).write_text(data)
    monkeypatch.setenv("INSPECTOR_TRACES_DIR", str(tmp_path))
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path / "data"))
    return app(trace=f"path:{name}", **params)


def test_an_invariants_source_record_shows_its_raw_line(tmp_path, monkeypatch):
    """The manifest's source record opens onto the log line it was read from, with what the turn left out."""
    data = (REPO / "tests" / "fixtures" / "claude_code" / "three_compactions.jsonl").read_text()
    at = page(_opened(tmp_path, monkeypatch, "cc.jsonl", data), "manifest")
    assert not at.exception
    [expander] = at.expander
    assert expander.label == "Raw record, as written in the log"
    line = next(raw for raw in data.splitlines() if '"uuid":"u01"' in raw)
    assert [c.value for c in expander.code] == [pretty_json(line)]
    assert expander.code[0].language == "json" and '"userType": "external"' in expander.code[0].value


def test_a_findings_evidence_shows_its_raw_line_escaped(tmp_path, monkeypatch):
    """A record's raw line is a code block: hostile text in it is text, never markup."""
    data = (REPO / "tests" / "fixtures" / "codex" / "three_compactions.jsonl").read_text()
    hostile = data.replace("FAILED tests/test_checkout.py", "FAILED <img src=x onerror=alert(1)>")
    assert hostile != data
    at = page(_opened(tmp_path, monkeypatch, "rollout.jsonl", hostile), "findings")
    wanted = next(f for f in analyze(load_trace(tmp_path / "rollout.jsonl")).findings if f.rule == "open-failure-lost")
    at.selectbox(key="finding_pick").select(finding_id(wanted)).run()
    assert not at.exception
    [expander] = at.expander
    record = json.loads(expander.code[0].value)
    assert record["payload"]["call_id"] == "call_2" and "<img src=x" in record["payload"]["output"]
    assert "<img" not in html_of(at)  # the evidence quote beside it is escaped too: never a tag


def test_an_opencode_database_source_record_shows_its_row_as_stored(tmp_path, monkeypatch):
    """A database row is shown as stored (its data column), and the caption names the row."""
    (tmp_path / "opencode.db").write_bytes((REPO / "tests" / "fixtures" / "opencode" / "opencode.db").read_bytes())
    monkeypatch.setenv("INSPECTOR_TRACES_DIR", str(tmp_path))
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path / "data"))
    at = page(app(trace="path:opencode.db"), "manifest")
    assert not at.exception
    [expander] = at.expander
    assert expander.label == "Raw record, as written in the log"
    trace = load_trace(tmp_path / "opencode.db")
    key = analyze(trace).facts.invariants[0].invariant.source_key
    row = record_index(trace).places[key]  # type: ignore[union-attr]
    with closing(sqlite3.connect(f"file:{tmp_path / 'opencode.db'}?mode=ro", uri=True)) as db:
        [(stored,)] = db.execute("SELECT data FROM part WHERE id = ?", (row.key,)).fetchall()  # type: ignore[union-attr]
    assert [c.value for c in expander.code] == [pretty_json(stored)]
    assert f"the data column of row {row.key} of table part in opencode.db" in html_of(at)  # type: ignore[union-attr]


def test_an_inspect_log_source_record_shows_its_message_written_again_and_says_so(tmp_path, monkeypatch):
    """A message inside an eval sample has no bytes of its own: it is written again from the parsed log, and the
    label and caption say so. Hostile text in it stays text."""
    log = json.loads((REPO / "tests" / "fixtures" / "inspect_ai" / "two-samples.json").read_text())
    log["samples"] = [s for s in log["samples"] if s["id"] == "summary"]
    data = json.dumps(log).replace("Never modify libbar", "Never modify <img src=x onerror=alert(1)>")
    at = page(_opened(tmp_path, monkeypatch, "log.json", data), "manifest")
    assert not at.exception
    [expander] = at.expander
    assert expander.label == "Raw record, re-serialised from the log"
    trace = load_trace(tmp_path / "log.json")
    key = analyze(trace).facts.invariants[0].invariant.source_key
    pointer = record_index(trace).places[key]  # type: ignore[union-attr]
    assert pointer == f"/samples/0/messages/{[m['id'] for m in log['samples'][0]['messages']].index(key)}"
    message = next(m for m in json.loads(data)["samples"][0]["messages"] if m["id"] == key)
    assert [json.loads(c.value) for c in expander.code] == [message] and "<img src=x" in expander.code[0].value
    assert f"the value at {pointer} of log.json, written again from the parsed JSON" in html_of(at)
    assert "<img" not in html_of(at)


def test_a_raw_record_shown_before_its_file_changed_is_not_shown_from_the_cache_after(tmp_path, monkeypatch):
    """The same bytes written again keep the trace (its analysis is cached by content) but not the record: the
    file is no longer the version read, so the expander says why instead of what it showed before."""
    data = (REPO / "tests" / "fixtures" / "claude_code" / "three_compactions.jsonl").read_text() + "\n"
    at = page(_opened(tmp_path, monkeypatch, "cc.jsonl", data), "manifest")  # bytes of its own: parsed from here
    assert not at.exception and at.expander[0].code
    os.utime(tmp_path / "cc.jsonl", ns=(1, 1))
    at.run()
    [expander] = at.expander
    assert not expander.code and "changed since it was read" in html_of(at)


def test_a_native_trace_has_no_raw_record_to_show():
    at = page(app(trace="sample:five_item_synthetic.json"), "manifest")
    assert not at.exception and not at.expander
