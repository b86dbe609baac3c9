"""`export-otel --endpoint` against a real Arize Phoenix: every finding arrives on the right span with its fields,
read back through Phoenix's own client; and a picture of them in Phoenix's UI.

Phoenix runs as its own server process (`python -m phoenix.server.main serve`), on free loopback ports with its
SQLite store in a temporary folder, and is taken as ready when its `/healthz` answers; the spans are read once
Phoenix has stored as many as were sent (it writes what it receives in batches).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from inspector import analyze, load_trace
from inspector.analysis import Analysis
from inspector.cli import main
from inspector.otel_export import EVALUATION_EVENT, GENERATION, ROOT_SPAN, build_spans, explanation
from tests.browser import CHROMIUM, CHROMIUM_ARGS, free_port, require_chromium, running_server, save_screenshot
from tests.helpers import LABELLED, ONE_OF_EACH, SAMPLES, require_shared

STARTUP_S = 240
"""Phoenix's first start creates its database (migrations) and loads its app: about 25 s here on two cores; the
margin is for a loaded CI machine. A server that dies fails the test at once with its log."""
ARRIVAL_S = 60
"""How long the spans may take to be stored once sent: Phoenix inserts what it receives in batches, every second."""


def require_phoenix() -> None:
    """Phoenix comes with the test extra, so `make test` and CI have it: there a missing one fails; a developer who
    installed less is told what to install."""
    if importlib.util.find_spec("phoenix.server") is not None:
        return
    if os.environ.get("CI"):
        pytest.fail("arize-phoenix is missing: the test extra installs it (make test)")
    pytest.skip("arize-phoenix not installed (pip install -e '.[test]')")


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory) -> Iterator[str]:
    require_phoenix()
    folder = tmp_path_factory.mktemp("phoenix")
    port = grpc = free_port()
    while grpc == port:  # a port just closed may be handed out again
        grpc = free_port()
    env = {**os.environ, "PHOENIX_WORKING_DIR": str(folder), "PHOENIX_PORT": str(port), "PHOENIX_GRPC_PORT": str(grpc),
           "PHOENIX_HOST": "127.0.0.1", "PHOENIX_TELEMETRY_ENABLED": "false"}  # fmt: skip
    env.pop("PHOENIX_COLLECTOR_ENDPOINT", None)
    url = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "phoenix.server.main", "serve"]
    with running_server(command, url, folder / "phoenix.log", env, health="/healthz", within=STARTUP_S):
        yield url


def sessions() -> list[Path]:
    """The labelled real sessions (../shared, beside the clone in CI) and the samples and fixtures of the repo."""
    labelled = sorted(LABELLED.glob("*.jsonl")) if LABELLED.exists() else []
    return [*labelled, SAMPLES / "anchor_decay.json", SAMPLES / "staging_db_constraint.json",
            ONE_OF_EACH["otel-genai"], ONE_OF_EACH["codex"]]  # fmt: skip


def stored_spans(url: str, expected: int) -> list[dict[str, Any]]:
    """Every span of the default project once Phoenix has stored `expected` of them (a condition, not a wait)."""
    from phoenix.client import Client

    client = Client(base_url=url)
    deadline = time.monotonic() + ARRIVAL_S
    while True:
        spans = client.spans.get_spans(project_identifier="default", limit=expected + 100, timeout=30)
        if len(spans) >= expected or time.monotonic() > deadline:
            return spans
        time.sleep(0.5)


def expected_events(analysis: Analysis) -> Counter[tuple[Any, ...]]:
    """(the generation of the span it is on, or None for the root; rule, severity, explanation, generation)."""
    summaries = {g.index for g in analysis.trace.generations if g.index >= 1}
    return Counter((f.generation if f.generation in summaries else None, f.rule, f.severity.value, explanation(f),
                    f.generation) for f in analysis.findings)  # fmt: skip


def arrived_events(spans: list[dict[str, Any]]) -> Counter[tuple[Any, ...]]:
    got: Counter[tuple[Any, ...]] = Counter()
    for span in spans:
        on = None if span["name"] == ROOT_SPAN else span["attributes"].get(GENERATION)
        for event in span.get("events") or []:
            assert event["name"] == EVALUATION_EVENT
            fields = event["attributes"]
            got[(on, fields["gen_ai.evaluation.name"], fields["gen_ai.evaluation.score.label"],
                 fields["gen_ai.evaluation.explanation"], fields.get(GENERATION))] += 1  # fmt: skip
    return got


@pytest.fixture(scope="module")
def exported(phoenix) -> tuple[str, list[Analysis], list[dict[str, Any]]]:
    """The sessions' findings sent to Phoenix by the command, and what Phoenix stored."""
    if os.environ.get("CI"):
        require_shared(LABELLED)
    paths = sessions()
    assert main(["export-otel", *map(str, paths), "--endpoint", phoenix]) == 0
    analyses = [analyze(load_trace(p)) for p in paths]
    sent = len(build_spans(analyses)[0])
    return phoenix, analyses, stored_spans(phoenix, sent)


def test_every_finding_arrives_on_its_compaction_s_span_with_its_fields(exported):
    _, analyses, spans = exported
    assert len(analyses) >= 4
    roots = {s["attributes"]["gen_ai.conversation.id"]: s for s in spans if s["name"] == ROOT_SPAN}
    assert set(roots) == {a.trace.id for a in analyses}
    for analysis in analyses:
        trace_id = roots[analysis.trace.id]["context"]["trace_id"]
        mine = [s for s in spans if s["context"]["trace_id"] == trace_id]
        assert arrived_events(mine) == expected_events(analysis), analysis.trace.path
        compacted = sorted((s for s in mine if s["attributes"].get("gen_ai.conversation.compacted") is True),
                           key=lambda s: s["start_time"])  # Phoenix lists the newest first
        summaries = analysis.trace.generations[1:]
        assert [s["attributes"][GENERATION] for s in compacted] == [g.index for g in summaries]
        for span, generation in zip(compacted, summaries, strict=True):
            assert span["attributes"]["gen_ai.conversation.id"] == analysis.trace.id
            assert span["attributes"].get("gen_ai.usage.input_tokens") == generation.tokens_after
            assert span["parent_id"] == roots[analysis.trace.id]["context"]["span_id"]
    assert sum(len(a.findings) for a in analyses) > 0


def test_a_receiver_that_refuses_the_spans_is_one_line_exit_2(exported, capsys):
    url = exported[0]
    assert main(["export-otel", str(SAMPLES / "anchor_decay.json"), "--endpoint", f"{url}/no-such/v1/traces"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"{url}/no-such/v1/traces: the OTLP receiver did not accept the spans (not reachable, or it "
                   "answered with an error)"]  # fmt: skip


def test_phoenix_shows_the_findings_on_the_compaction_span(exported):
    """The README's picture: the anchor-decay sample's trace in Phoenix, its second summary's span selected."""
    require_chromium()
    from playwright.sync_api import sync_playwright

    url, analyses, spans = exported
    root = next(s for s in spans if s["name"] == ROOT_SPAN and s["attributes"]["gen_ai.conversation.id"]
                == "anchor-decay")  # fmt: skip
    span = next(s for s in spans if s["context"]["trace_id"] == root["context"]["trace_id"]
                and s["attributes"].get(GENERATION) == 2)  # fmt: skip
    from phoenix.client import Client

    project = Client(base_url=url).projects.get(project_name="default")["id"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1500, "height": 1000})
        page.goto(f"{url}/projects/{project}/traces/{root['context']['trace_id']}"
                  f"?selectedSpanNodeId={span['id']}")  # fmt: skip
        page.get_by_role("tab", name="Events").click()
        page.get_by_text(EVALUATION_EVENT).first.click(timeout=60_000)  # opened: its attributes show
        page.get_by_text("gen_ai.evaluation.explanation").first.wait_for(timeout=60_000)
        save_screenshot(page, "phoenix")
        browser.close()
