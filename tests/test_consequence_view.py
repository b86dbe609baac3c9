"""What happened next, as the app shows it: each consequence a link from the summary that lost the item to the
later record, in the chain view's list and graph and beside its finding in the generation view."""

from __future__ import annotations

import subprocess
import sys

import pytest

from inspector import analyze, library, load_trace
from inspector.render import chain_dot, consequences_html, evidence_html, findings_html, real_consequence_html
from inspector.views import consequence_links, first_consequence
from tests.helpers import FIXTURES, LABELLED, REPO, MarkupCollector, needs_shared, session_log
from tests.test_app import app, html_of, page
from tests.test_consequences import RULE, ran, said, user

PUSHED = FIXTURES / "native" / "lost_rule_then_pushed.json"
"""S1 drops "Never push to main, …" and the next agent runs `git push origin main` (tests/fixtures/native/)."""
VSLA = LABELLED / "claude_code_1.0.53_vsla_f67ab274.jsonl"


@pytest.fixture(scope="module")
def pushed():
    return analyze(load_trace(PUSHED))


def text_of(markup: str) -> str:
    return "".join(MarkupCollector(markup).text)


def test_the_fixture_is_what_its_script_writes(tmp_path):
    script = FIXTURES / "native" / "make_consequence.py"
    copy = tmp_path / script.name
    copy.write_text(script.read_text())  # written beside the copy, so the committed file is left as it is
    subprocess.run([sys.executable, str(copy)], check=True, cwd=REPO, env={"PYTHONPATH": str(REPO)})
    assert (tmp_path / PUSHED.name).read_bytes() == PUSHED.read_bytes()


def test_a_consequence_is_a_row_from_the_summary_that_lost_the_item_to_the_later_record(pushed):
    [link] = consequence_links(pushed)
    assert link.line == ("S1 lost “Never push to main, open a pull request for every change.” → record turn-6: "
                         "violated, the agent ran `git push origin main`, which the user said not to do")  # fmt: skip
    assert (link.position, link.quote, link.rule) == (6, "git push origin main", "user-statement-lost")


def test_the_chain_view_lists_each_consequence_and_draws_it_as_an_edge(pushed):
    shown = text_of(consequences_html(consequence_links(pushed)))
    assert shown.startswith("S1 lost “Never push to main, open a pull request for every change.” → record turn-6 "
                            "(#6 in the log): violated the agent ran `git push origin main`")  # fmt: skip
    dot = chain_dot(pushed)
    assert 'C0 [label="record turn-6\\n#6 in the log"' in dot
    assert 'S1 -> C0 [color="#b71c1c", fontcolor="#b71c1c", style=bold, label="violated"]' in dot
    healthy = analyze(load_trace(REPO / "sample_traces" / "healthy_chain.json"))
    assert consequence_links(healthy) == [] and " C0 " not in chain_dot(healthy)


def test_the_generation_view_says_what_happened_next_beside_the_finding(pushed):
    listed = text_of(findings_html(pushed, 1))
    assert "is gone from S1then violated at record turn-6 (#6 in the log): the agent ran `git push origin main`" in (
        listed)  # fmt: skip
    [finding] = [f for f in pushed.findings if f.consequence is not None]
    evidence = text_of(evidence_html(finding))
    assert "What happened next (record turn-6): violated the agent ran `git push origin main`" in evidence
    assert evidence.endswith("git push origin main")
    assert "then" not in text_of(findings_html(pushed, 0))


def test_a_consequences_text_is_escaped_and_its_hidden_characters_marked():
    hostile = "git push origin main # <img src=x onerror=alert(1)>\u202e"
    rule = f"{RULE} <b>said</b> twice"
    trace = session_log([user("u1", rule), said("a1", "Understood."), ran("r<i>1</i>", hostile, "main -> main")],
                        (2, "Worked on the release notes."))  # fmt: skip
    analysis = analyze(trace)
    for markup in (consequences_html(consequence_links(analysis)), findings_html(analysis, 1)):
        parsed = MarkupCollector(markup)
        assert not {"img", "i"} & parsed.tags and "onerror" not in parsed.attributes
        assert all(t in "".join(parsed.text) for t in ("<img src=x onerror=alert(1)>", "r<i>1</i>")), parsed.text
        assert 'class="ci-hidden"' in markup and "\u202e" not in markup
    listed = "".join(MarkupCollector(consequences_html(consequence_links(analysis))).text)
    assert "<b>said</b>" in listed  # the rule's words as text beside our own <b>S1</b>
    dot = chain_dot(analysis)
    assert "C0 [label=" in dot and "\u202e" not in dot and "<img" not in dot


@needs_shared(VSLA)
def test_the_real_sessions_two_consequences_are_both_at_s2():
    links = consequence_links(analyze(load_trace(VSLA)))
    assert [(link.generation, link.kind, link.lost) for link in links] == [
        (2, "violated", "Lets do the system package approach please"),
        (2, "retried", "pip install cupy-cuda12x: error: externally-managed-environment"),
    ]
    assert [link.quote for link in links] == [
        "pip install cupy-cuda12x --break-system-packages",
        "pip install cupy-cuda12x: error: externally-managed-environment",
    ]
    assert all(link.position is not None and link.record for link in links)


def test_the_chain_page_lists_what_happened_next(monkeypatch, tmp_path):
    monkeypatch.setenv("INSPECTOR_TRACES_DIR", str(PUSHED.parent))
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path))
    at = page(app(trace=f"path:{PUSHED.name}"), "chain")
    assert not at.exception
    assert "What happened next" in [h.value for h in at.subheader]
    assert "→ record <code>turn-6</code>" in html_of(at)
    sample = page(app(trace="sample:staging_db_constraint.json"), "chain")
    assert "What happened next" not in [h.value for h in sample.subheader]



# --- the guided story (issue 30, item 4): a real session's consequence, quoted with its provenance ---------------


def story_at_step_4(monkeypatch, tmp_path):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path))
    at = page(app(), "story")
    for _ in range(3):
        at.button(key="story_next").click().run()
    assert not at.exception and at.query_params["step"] == "4"
    return at


def test_the_first_session_with_a_consequence_gives_the_example_and_no_later_one_is_read(pushed):
    healthy = analyze(load_trace(REPO / "sample_traces" / "healthy_chain.json"))

    def unread() -> None:
        raise AssertionError("read past the first session with a consequence")

    name, link = first_consequence([("healthy", lambda: healthy), ("pushed", lambda: pushed), ("later", unread)])
    assert name == "pushed" and link.record == "turn-6"
    assert first_consequence([("healthy", lambda: healthy)]) is None
    quoted = text_of(real_consequence_html(name, link))
    assert quoted.startswith("In a real session (pushed), S1 lost “Never push to main, open a pull request for "
                             "every change.”; at record turn-6 (#6 in the log), working from that summary: "
                             "violated")  # fmt: skip


@needs_shared(VSLA)
def test_the_story_quotes_a_real_sessions_consequence_with_its_file_and_record(monkeypatch, tmp_path):
    shown = html_of(story_at_step_4(monkeypatch, tmp_path))
    assert f"<b>In a real session</b> (<code>{VSLA.name}</code>), S2 lost “Lets do the system package approach " in (
        shown)  # fmt: skip
    assert "; at record <code>1969631e-dff4-4b5b-867b-fc4b89d17530</code>" in shown
    assert "pip install cupy-cuda12x --break-system-packages" in shown


def test_without_shared_the_story_says_the_samples_plan_is_the_example(monkeypatch, tmp_path):
    monkeypatch.setattr(library, "REAL_SESSIONS", tmp_path / "absent")
    shown = html_of(story_at_step_4(monkeypatch, tmp_path))
    assert "No real session is at hand" in shown and "In a real session" not in shown
