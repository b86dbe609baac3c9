"""The app shows claims: a claim finding's sentence is marked in the text, its log evidence sits beside it,
and a collapsed summary says so on its chain node. Fixtures are the session logs of tests/test_claims.py."""

from __future__ import annotations

import pytest

from inspector import analyze
from inspector.analysis import Analysis
from inspector.model import Finding, Severity, Trace, finding_id
from inspector.readers import native
from inspector.render import (
    HIGHLIGHT_CLASSES,
    HIGHLIGHT_LABELS,
    Highlight,
    chain_dot,
    evidence_html,
    findings_html,
    highlight_html,
    highlights,
    legend_html,
)
from tests.helpers import MarkupCollector
from tests.test_app import app, html_of, page
from tests.test_claims import GO_TEST_OK, called, ran, session, user

HOSTILE_FAIL = "FAIL\tentire.io/cli/cmd/entire/cli/summarise <img src=x onerror=alert(2)> [build failed]\nFAIL"
HOSTILE_CLAIM = "`go test` <script>alert(1)</script> - all tests pass."
SUMMARY = f"Implemented summary generation. {HOSTILE_CLAIM}"
ASKS = ["Never push to main without review.", "we should not store the summary in the shadow branch",
        "Don't touch the staging database.", "I prefer small focused commits.",
        "never change the checkpoint metadata format"]  # fmt: skip


def contradicted_trace() -> Trace:
    """tests called passing whose last run failed: a claim-contradicted finding quoting record r2."""
    return session([
        user("u1", "add summary generation to CondenseSession"),
        ran("r1", "go test ./cmd/entire/cli/summarise", GO_TEST_OK),
        ran("r2", "go test ./cmd/entire/cli/summarise", HOSTILE_FAIL, failed=True),
    ], (3, SUMMARY))  # fmt: skip


@pytest.fixture(scope="module")
def contradicted() -> Analysis:
    return analyze(contradicted_trace())


def claim_finding(analysis: Analysis, rule: str) -> Finding:
    [finding] = [f for f in analysis.findings if f.rule == rule]
    return finding


def test_a_claim_finding_marks_its_sentence_with_the_message_as_tooltip(contradicted):
    finding = claim_finding(contradicted, "claim-contradicted")
    marks = [m for m in highlights(contradicted, 1) if m.css_class == "claim-status"]
    assert marks == [Highlight(finding.start, finding.end, "claim-status", finding.message)]  # type: ignore[arg-type]
    assert SUMMARY[finding.start : finding.end] == HOSTILE_CLAIM
    assert highlight_html(SUMMARY, marks) == (
        '<div class="ci-text">Implemented summary generation. <mark class="claim-status" title="S1 says “`go test` '
        "&lt;script&gt;alert(1)&lt;/script&gt; - all tests pass.”, but the last check before it, `go test "
        "./cmd/entire/cli/summarise`, failed: FAIL\tentire.io/cli/cmd/entire/cli/summarise "
        '&lt;img src=x onerror=alert(2)&gt; [build failed]">'
        "`go test` &lt;script&gt;alert(1)&lt;/script&gt; - all tests pass.</mark></div>"
    )


def test_a_status_claim_is_marked_only_when_a_claim_rule_found_it():
    """The same words with a clean last run are a claim the log supports: nothing to mark."""
    clean = analyze(session([ran("r1", "go test ./cmd/entire/cli/summarise", GO_TEST_OK)], (1, SUMMARY)))
    assert [m for m in highlights(clean, 1) if m.css_class == "claim-status"] == []


def test_the_claim_sentence_stays_text_in_the_mark_the_findings_and_the_evidence(contradicted):
    finding = claim_finding(contradicted, "claim-contradicted")
    markup = MarkupCollector(
        highlight_html(SUMMARY, highlights(contradicted, 1)) + findings_html(contradicted, 1) + evidence_html(finding)
    )
    assert markup.tags <= {"div", "mark", "a", "ol", "li", "span", "code", "p", "strong"}, markup.tags
    assert markup.attributes <= {"class", "title", "id", "href", "style"}, markup.attributes
    shown = "".join(markup.text)
    assert shown.count("<script>alert(1)</script>") == 3  # text, finding message, excerpt
    # the claim finding, its log line, the evidence quote, and the open failure (its line is the first line)
    assert shown.count("<img src=x onerror=alert(2)>") == 4


def test_the_legend_and_the_toggles_list_the_status_claim_class(contradicted):
    assert '<mark class="claim-status">status claim the log contradicts or does not support</mark>' in legend_html()
    assert HIGHLIGHT_LABELS["claim-status"] == "status claims"
    others = [css for css in HIGHLIGHT_LABELS if css != "claim-status"]
    assert "claim-status" not in highlight_html(SUMMARY, highlights(contradicted, 1), others)
    assert "claim-status" not in legend_html(others)


def test_the_claims_evidence_is_the_log_record_beside_the_claim_sentence(contradicted):
    finding = claim_finding(contradicted, "claim-contradicted")
    evidence = evidence_html(finding)
    assert "What the log says (record <code>r2</code>)" in evidence and "[build failed]" in evidence
    assert 'What the summary says (S1)</strong></p><div class="ci-text ci-quote">`go test` &lt;script&gt;' in evidence
    listed = findings_html(contradicted, 1)
    assert ('</a><p class="ci-caption">log, record <code>r2</code>: “FAIL\tentire.io/cli/cmd/entire/cli/summarise '
            "&lt;img src=x onerror=alert(2)&gt; [build failed]”</p></li>") in listed  # fmt: skip


def test_an_unsupported_claim_says_what_the_log_lacks():
    asked = called("c1", "WebSearch", "query: onnxruntime-genai repository microsoft")
    summary = "A web search confirmed the correct repository is microsoft/onnxruntime-genai."
    analysis = analyze(session([user("u1", "which repo has the genai runtime?"), asked], (2, summary)))
    finding = claim_finding(analysis, "claim-unsupported")
    evidence = evidence_html(finding)
    assert "no source record" not in evidence
    lacks = "no record supports it: no web search or fetch returned a result before it"
    assert f'<strong>What the log says</strong></p><p class="ci-caption"><em>{lacks}</em>' in evidence
    assert f'<p class="ci-caption">log: {lacks}</p>' in findings_html(analysis, 1)


def collapsed_trace() -> Trace:
    """S1 carries every user statement; S2, written over the same span, carries none: a collapse."""
    records = [user(f"u{n}", ask) for n, ask in enumerate(ASKS)]
    return session(records, (5, " ".join(ASKS)), (5, "Worked on the explain command."))


def node(dot: str, k: int) -> str:
    return next(line for line in dot.splitlines() if line.strip().startswith(f"S{k} ["))


def test_the_chain_marks_a_collapsed_summary_on_its_node_and_not_a_healthy_one():
    analysis = analyze(collapsed_trace())
    assert [f.generation for f in analysis.findings if f.rule == "summary-collapse"] == [2]
    dot = chain_dot(analysis)
    assert node(dot, 2).endswith(
        '\\ncollapsed", fillcolor="#ffcdd2", color="#b71c1c", penwidth=3, fontcolor="#b71c1c"];'
    )
    assert "collapsed" not in node(dot, 1) and "penwidth" not in node(dot, 1)
    assert "collapsed" not in chain_dot(analyze(contradicted_trace()))


def test_the_shared_report_marks_the_collapsed_node_too():
    from inspector.share import html_report

    report = html_report(analyze(collapsed_trace()))
    assert '<div class="node err collapsed" id="node-S2">' in report and "<b>collapsed</b>" in report
    assert 'id="node-S1"' in report and '"node ok collapsed" id="node-S1"' not in report


def test_the_generation_page_shows_the_claim_mark_and_its_evidence(tmp_path, monkeypatch):
    trace = contradicted_trace()
    native.write(trace, tmp_path / "claims.json")
    monkeypatch.setenv("INSPECTOR_TRACES_DIR", str(tmp_path))
    finding = claim_finding(analyze(trace), "claim-contradicted")

    at = page(app(trace="path:claims.json", gen="1"), "generation")
    assert not at.exception
    shown = html_of(at)
    assert '<mark class="claim-status" title="S1 says “`go test` &lt;script&gt;alert(1)&lt;/script&gt;' in shown
    assert "<script>alert(1)" not in shown and "<img src=x" not in shown
    assert "log, record <code>r2</code>: “FAIL" in shown  # beside the text, without selecting anything
    others = [css for css in HIGHLIGHT_CLASSES if css != "claim-status"]
    at.button_group(key="highlight_classes").set_value(others).run()
    assert 'class="claim-status"' not in html_of(at)

    at = page(app(trace="path:claims.json", gen="1", finding=finding_id(finding)), "generation")
    shown = html_of(at)
    assert "What the log says (record <code>r2</code>)" in shown and 'id="selected"' in shown
    assert '<div class="ci-text ci-quote">`go test` &lt;script&gt;alert(1)&lt;/script&gt; - all tests pass.' in shown


def test_the_chain_page_draws_the_collapse(tmp_path, monkeypatch):
    native.write(collapsed_trace(), tmp_path / "collapse.json")
    monkeypatch.setenv("INSPECTOR_TRACES_DIR", str(tmp_path))
    at = page(app(trace="path:collapse.json"), "chain")
    assert not at.exception
    assert "\\ncollapsed" in at.get("graphviz_chart")[0].proto.spec


def test_what_the_log_lacks_is_escaped_with_hidden_characters_spelled():
    said = Finding("claim-unsupported", Severity.WARNING, 1, "S1 says “done”, but no test ran before it",
                   evidence={"why": "no run printed “<b>done</b>\u202e”"})
    evidence = evidence_html(said)
    assert "&lt;b&gt;done&lt;/b&gt;" in evidence and "<b>" not in evidence
    assert '<span class="ci-hidden" title="hidden character U+202E' in evidence and "\u202e" not in evidence
