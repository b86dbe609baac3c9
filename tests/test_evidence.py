"""A finding's evidence: the log's quote beside the summary's sentence, escaped, with missing sides said plainly."""

from __future__ import annotations

import json
from typing import Any

import pytest

from inspector import analyze, load_trace
from inspector.model import Finding, Severity, SourceQuote
from inspector.render import evidence_html
from inspector.rules import Hit, Rule, register_rule, unregister_rule
from inspector.views import finding_rows, finding_rows_with_source
from tests.helpers import SAMPLES, MarkupCollector
from tests.test_app import app, html_of, page

HOSTILE = "<script>alert(1)</script> \"q\" & 'a'"
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt; &quot;q&quot; &amp; &#x27;a&#x27;"
GRID = '<div class="ci-evidence" style="display:grid;grid-template-columns:1fr 1fr;gap:0.8rem">'


def finding(
    rule: str = "invariant-weakened", generation: int | None = 2, start: int | None = 5, **evidence: Any
) -> Finding:
    return Finding(rule, Severity.ERROR, generation, "m", start, None if start is None else start + 3, **evidence)


def test_both_sides_are_escaped_and_side_by_side():
    assert evidence_html(finding(excerpt=HOSTILE, source=SourceQuote('turn:"4"<b>', HOSTILE))) == (
        f"{GRID}"
        '<div><p class="ci-caption"><strong>What the log says (record <code>turn:&quot;4&quot;&lt;b&gt;</code>)'
        f'</strong></p><div class="ci-text ci-quote">{ESCAPED}</div></div>'
        '<div><p class="ci-caption"><strong>What the summary says (S2)</strong></p>'
        f'<div class="ci-text ci-quote">{ESCAPED}</div></div>'
        "</div>"
    )


def test_hostile_text_builds_no_element_of_its_own():
    markup = MarkupCollector(evidence_html(finding(excerpt=HOSTILE, source=SourceQuote(HOSTILE, HOSTILE))))
    assert markup.tags == {"div", "p", "strong", "code"}
    assert markup.attributes == {"class", "style"}
    assert "".join(markup.text).count("<script>alert(1)</script>") == 3  # key, quote and excerpt: shown as text


def test_a_lost_statement_says_the_summary_says_nothing():
    lost = finding("statement-lost", start=None, source=SourceQuote("turn:7", "no remove this again"))
    html = evidence_html(lost)
    assert "record <code>turn:7</code>" in html and "no remove this again" in html
    assert '(S2)</strong></p><p class="ci-caption"><em>the summary says nothing about it' in html
    assert "says nothing about it" in evidence_html(finding("invariant-lost", start=None))


def test_missing_source_and_missing_sentence_are_said_plainly():
    html = evidence_html(finding(excerpt="Staging access was discussed."))
    assert '<strong>What the log says</strong></p><p class="ci-caption"><em>no source record</em>' in html
    assert "Staging access was discussed." in html
    drift = evidence_html(finding("silent-drift", start=None))
    assert "says nothing" not in drift and "points at no sentence of the summary" in drift
    assert "(S" not in evidence_html(finding("malformed-line", generation=None, start=None))
    assert "not about a summary" in evidence_html(finding("malformed-line", generation=None, start=None))


def test_a_long_quote_is_clipped():
    html = evidence_html(finding(excerpt="x" * 5000, source=SourceQuote("k", "y" * 5000)))
    assert "x" * 999 + "…" in html and "x" * 1000 not in html and "y" * 1000 not in html


@pytest.fixture
def quoting_rule():  # type: ignore[no-untyped-def]
    """Registers the test's own rule (as a plug-in would) for one test, whose quote it is given."""

    def register(quote: str) -> None:
        register_rule(Rule("test-quoted", Severity.WARNING, "test", _quoting(quote)))

    yield register
    unregister_rule("test-quoted")


def test_the_findings_table_gains_the_source_key_and_a_clipped_quote(quoting_rule):
    quoting_rule("q" * 300)
    analysis = analyze(load_trace(SAMPLES / "staging_db_constraint.json"))
    rows = finding_rows_with_source(analysis)
    assert [{k: v for k, v in r.items() if not k.startswith("source ")} for r in rows] == finding_rows(analysis)
    quoted = next(r for r in rows if r["rule"] == "test-quoted")
    assert quoted["source key"] == "turn:1" and quoted["source quote"] == "q" * 79 + "…"
    assert next(r for r in rows if r["rule"] == "user-statement-lost")["source key"] == "turn:1"


def _quoting(quote: str):  # type: ignore[no-untyped-def]
    """A check that states what turn:1 says about S2, with no span: a lost statement as coming detectors report it."""
    return lambda facts: [Hit(2, "the user's statement is gone", source=SourceQuote("turn:1", quote))]


def test_findings_page_shows_the_picked_findings_source_quote(tmp_path, monkeypatch, quoting_rule):
    # A trace of its own: the app caches analyses by content hash, and this one must include the test rule.
    document = json.loads((SAMPLES / "staging_db_constraint.json").read_text())
    document["title"] = "evidence test"
    (tmp_path / "quoted.json").write_text(json.dumps(document))
    monkeypatch.setenv("INSPECTOR_TRACES_DIR", str(tmp_path))
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path / "data"))
    quoting_rule(HOSTILE)

    at = page(app(trace="path:quoted.json"), "findings")
    assert not at.exception
    table = at.dataframe[0].value
    assert list(table.columns) == ["generation", "severity", "rule", "message", "source key", "source quote",
                                   "review", "id"]  # fmt: skip
    wanted = table[table["rule"] == "test-quoted"].iloc[0]
    assert wanted["source key"] == "turn:1" and wanted["source quote"] == HOSTILE
    at.selectbox(key="finding_pick").select(wanted["id"]).run()
    shown = html_of(at)
    assert "What the log says (record <code>turn:1</code>)" in shown and ESCAPED in shown
    assert "<script>alert(1)</script>" not in shown
    assert "What the summary says (S2)" in shown and "the summary says nothing about it" in shown


ITEM_RULES = ("invariant-weakened", "invariant-lost", "user-statement-weakened", "user-statement-lost",
              "recompaction-depth", "superseded-fact-resurfaced")  # fmt: skip


@pytest.mark.parametrize("sample", sorted(p.name for p in SAMPLES.glob("*.json")))
def test_every_item_finding_on_a_sample_names_the_record_its_item_came_from(sample):
    """The manifest knows where each item was said; a finding about it must show that record, not "none"."""
    analysis = analyze(load_trace(SAMPLES / sample))
    items = {track.invariant.id: track.invariant for track in analysis.facts.invariants}
    about_items = [f for f in analysis.findings if f.rule in ITEM_RULES]
    for found in about_items:
        assert found.source is not None, f"{found.rule} at S{found.generation} has no source: {found.message}"
        if "invariant" in found.evidence:
            item = items[found.evidence["invariant"]]
            assert found.source.key == item.source_key and found.source.quote in (item.quote, item.text)
        else:  # a relapse names the correction it ignores, and the sentence there with the new value
            assert found.source.key == found.evidence["correction"] and found.source.quote


def test_a_relapse_quotes_the_corrections_sentence_with_the_new_value():
    analysis = analyze(load_trace(SAMPLES / "five_item_synthetic.json"))
    relapse = next(f for f in analysis.findings if f.rule == "superseded-fact-resurfaced")
    stating = "Correction: the ingest batch size is 250 records, not 500; 500 overflowed worker memory."
    assert relapse.source == SourceQuote("src:correction-batch", stating)


@pytest.mark.parametrize("view", ["findings", "generation"])
def test_an_invariant_weakened_finding_shows_the_summary_sentence_beside_its_source(view):
    analysis = analyze(load_trace(SAMPLES / "staging_db_constraint.json"))
    weakened = next(f for f in analysis.findings if f.rule == "user-statement-weakened")
    assert weakened.excerpt is not None and weakened.source is not None and weakened.source.key == "turn:1"
    wanted = next(r["id"] for r in finding_rows(analysis) if r["rule"] == "user-statement-weakened")
    at = app(trace="sample:staging_db_constraint.json", gen="2", finding=wanted)
    if view == "findings":
        at = page(at, "findings")
        at.selectbox(key="finding_pick").select(wanted).run()
    else:
        at = page(at, "generation")
    assert not at.exception
    shown = html_of(at)
    assert 'class="ci-evidence"' in shown and "What the summary says (S2)" in shown
    assert f'<div class="ci-text ci-quote">{weakened.excerpt}</div>' in shown  # the excerpt holds nothing to escape
    assert "What the log says (record <code>turn:1</code>)" in shown and "no source record" not in shown
    assert f'<div class="ci-text ci-quote">{weakened.source.quote}</div>' in shown
