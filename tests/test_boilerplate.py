"""The harness's fixed text around a summary is marked by its reader, never analysed, and shown dimmed."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from inspector import analyze, load_trace
from inspector.facts import GenerationFacts
from inspector.model import Generation, Trace
from inspector.readers import native
from inspector.readers.boilerplate import boilerplate_spans, transcript_pointer
from inspector.render import STYLE, highlight_html, highlights
from tests.helpers import LABELLED, REPO, needs_shared

ENTIRECLI = LABELLED / "claude_code_2.x_entirecli_1e0816ef.jsonl"
VSLA = LABELLED / "claude_code_1.0.53_vsla_f67ab274.jsonl"
CODEX_FIXTURE = REPO / "tests" / "fixtures" / "codex" / "three_compactions.jsonl"
needs_real = needs_shared(LABELLED)

# Excerpts of the labelled sessions (entirecli_1e0816ef S1, vsla_f67ab274 S1): the harness's lines verbatim,
# the summary between them cut short.
HEAD_2X = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The summary below covers the earlier portion of the conversation."
)
POINTER_PATH = (
    "/Users/alex/.claude/projects/-Users-alex-workspace-cli--worktrees-alex-test-explain-checkpoint-boundaries/"
    "1e0816ef-6f89-4f05-b331-dab09bb14485.jsonl"
)
POINTER = (
    "If you need specific details from before compaction (like exact code snippets, error messages, or content "
    f"you generated), read the full transcript at: {POINTER_PATH}"
)
TAIL = (
    "Please continue the conversation from where we left it off without asking the user any further questions. "
    "Continue with the last task that you were asked to work on."
)
SUMMARY_2X = (
    f"{HEAD_2X}\n\nAnalysis:\nLet me analyze the conversation chronologically:\n\n"
    "1. **Initial Request**: User provided a brainstorm topic about auto-generating checkpoint summaries.\n\n"
    f"{POINTER}\n{TAIL}"
)
HEAD_1X = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The conversation is summarized below:"
)
SUMMARY_1X = (
    f"{HEAD_1X}\nAnalysis:\nLet me chronologically analyze the conversation to capture all essential details:\n"
    '   This directly addresses the user\'s request for "a complete CPU & GPU comparison" that the user '
    'emphasized as "most important"..\n'
    f"{TAIL}"
)


def pieces(text: str, spans: tuple[tuple[int, int], ...]) -> list[str]:
    return [text[start:end] for start, end in spans]


def test_claude_code_2x_head_transcript_pointer_and_tail_are_boilerplate():
    spans = boilerplate_spans(SUMMARY_2X, "claude-code")
    assert pieces(SUMMARY_2X, spans) == [HEAD_2X, POINTER, TAIL]
    assert transcript_pointer(SUMMARY_2X) == POINTER_PATH


def test_claude_code_1x_head_and_tail_take_the_harness_period_glued_to_the_summary():
    spans = boilerplate_spans(SUMMARY_1X, "claude-code")
    assert pieces(SUMMARY_1X, spans) == [HEAD_1X, f".\n{TAIL}"]
    assert SUMMARY_1X[: spans[1][0]].endswith('"most important".')  # the summary keeps its own period
    assert transcript_pointer(SUMMARY_1X) is None


def test_later_claude_code_wording_still_matches():
    later = (
        f"{HEAD_2X}\n\nSummary:\n1. Fix the login bug.\n\n{POINTER.replace('compaction', 'exiting plan mode')}\n\n"
        "Recent messages are preserved verbatim.\n"
        "Continue the conversation from where it left off without asking the user any further questions. Resume "
        "directly — do not acknowledge the summary, do not recap what was happening, do not preface with \"I'll "
        'continue" or similar. Pick up the last task as if the break never happened.'
    )
    found = pieces(later, boilerplate_spans(later, "claude-code"))
    assert len(found) == 4 and found[0] == HEAD_2X and found[2] == "Recent messages are preserved verbatim."
    assert found[3].startswith("Continue the conversation") and found[3].endswith("never happened.")
    assert "1. Fix the login bug." not in "".join(found)


def test_codex_summary_prefix_is_boilerplate_despite_drift_and_the_summary_is_not():
    prefix = (
        "Another language model started to solve this problem and produced a summary of its thinking process. You "
        "also have access to the state of the tools that were used by that language model. Use this to build on the "
        "work that has already been done and avoid duplicating work. Here is the summary produced by the other "
        "language model, use the information in this summary to  assist with your own analysis:"
    )  # one release of summary_prefix.md has the double space
    text = f"{prefix}\nTask: fix the checkout total. Next: update the changelog in CHANGELOG.md."
    assert pieces(text, boilerplate_spans(text, "codex")) == [prefix]


def test_phrases_inside_the_summary_or_under_another_format_are_not_boilerplate():
    prose = "The user asked me to continue the conversation from where we left off without asking questions."
    assert boilerplate_spans(prose, "claude-code") == ()
    assert boilerplate_spans(SUMMARY_2X, "codex") == ()
    assert boilerplate_spans(SUMMARY_2X, "native") == ()


def test_codex_reader_marks_the_prefix_of_a_summary_from_the_replacement_history():
    trace = load_trace(CODEX_FIXTURE)
    summary = trace.generations[2]
    assert summary.text is not None
    (span,) = summary.extra["boilerplate"]
    assert summary.text[span[0] : span[1]].startswith("Another language model started to solve this problem")
    assert summary.text[span[1] :] == "\nTask: fix the checkout total. The checkout fix is committed. " + (
        "Next: update the changelog in CHANGELOG.md."
    )
    assert "boilerplate" not in trace.generations[1].extra  # a local summary without the prefix


@needs_real
def test_claude_code_reader_stores_spans_and_the_transcript_pointer_on_every_summary():
    trace = load_trace(ENTIRECLI)
    for generation in trace.generations[1:]:
        assert generation.text is not None
        spans = generation.extra["boilerplate"]
        assert pieces(generation.text, tuple(map(tuple, spans)))[:2] == [HEAD_2X, POINTER]
        assert generation.extra["transcript_pointer"] == POINTER_PATH
    legacy = load_trace(VSLA)
    assert [len(g.extra["boilerplate"]) for g in legacy.generations[1:]] == [2, 2]
    assert all("transcript_pointer" not in g.extra for g in legacy.generations)


@needs_real
def test_check_json_of_a_real_session_reports_nothing_inside_the_boilerplate():
    result = subprocess.run(
        [sys.executable, "-m", "inspector", "check", "--json", str(ENTIRECLI)],
        capture_output=True, text=True, cwd=REPO, timeout=300,
    )  # fmt: skip
    report = json.loads(result.stdout)
    trace = load_trace(ENTIRECLI)
    for generation, shown in zip(trace.generations[1:], report["generations"][1:], strict=True):
        spans = generation.extra["boilerplate"]
        inside = [
            item
            for item in shown["anchors"] + shown["anaphora"]
            if any(start <= item["start"] < end for start, end in spans)
        ]
        assert inside == []
        assert POINTER_PATH not in [a["key"] for a in shown["anchors"]]
        assert "the earlier" not in [a["text"] for a in shown["anaphora"]]
    for finding in report["findings"]:
        if finding["generation"] is not None and finding["start"] is not None:
            spans = trace.generations[finding["generation"]].extra.get("boilerplate", [])
            assert not any(start <= finding["start"] < end for start, end in spans), finding


@needs_real
def test_no_claim_or_invariant_match_lands_in_the_boilerplate_of_a_real_session():
    analysis = analyze(load_trace(VSLA))
    for facts in analysis.facts.summaries():
        spans = facts.boilerplate
        assert spans and facts.analysed_text is not None
        assert len(facts.analysed_text) == len(facts.generation.text or "")
        assert all(not facts.analysed_text[start:end].strip() for start, end in spans)
        starts = [c.start for c in facts.claims]
        starts += [
            m.start for t in analysis.facts.invariants if (m := t.matches[facts.generation.index]).start is not None
        ]
        assert not any(start <= s < end for s in starts for start, end in spans)


def test_spans_survive_the_native_round_trip(tmp_path):
    trace = load_trace(CODEX_FIXTURE)
    path = tmp_path / "trace.json"
    native.write(trace, path)
    again = load_trace(path)
    assert [g.extra.get("boilerplate") for g in again.generations] == [
        g.extra.get("boilerplate") for g in trace.generations
    ]
    assert GenerationFacts(again.generations[2]).analysed_text == GenerationFacts(trace.generations[2]).analysed_text


def test_no_anchor_elision_claim_or_sentence_is_read_inside_a_span():
    said = "Everything is preserved in src/app.py, as noted earlier."
    text = f"{HEAD_2X}\n{said}\n{said}"
    facts = GenerationFacts(Generation(1, "summary", text, extra={"boilerplate": [[0, len(HEAD_2X) + 1 + len(said)]]}))
    outside = text.rindex(said)
    assert [a.start for a in facts.printed] == [outside + said.index("src/app.py")]
    assert [c.start for c in facts.claims] == [outside]
    assert [e.text for e in facts.elisions] == ["as noted earlier"]
    assert all(e.start > outside for e in facts.elisions)
    assert [s.text for s in facts.sentences] == [said]
    assert facts.indexed is not None and [s.start for s in facts.indexed.sentences] == [outside]


def test_spans_a_native_file_gets_wrong_are_dropped_and_offsets_never_move():
    text = "Boiler line.\nSee src/app.py now."
    generation = Generation(1, "summary", text, extra={"boilerplate": [[0, 12], [5, "x"], [40, 50], [-3, 2], 7]})
    facts = GenerationFacts(generation)
    assert facts.boilerplate == ((0, 2), (0, 12))
    assert facts.analysed_text == " " * 12 + "\nSee src/app.py now."
    assert [(a.key, a.start) for a in facts.printed] == [("src/app.py", text.index("src/app.py"))]


def test_boilerplate_is_dimmed_and_escaped_like_all_trace_text():
    text = "<script>alert(1)</script> harness\nKeep src/app.py."
    trace = Trace(
        id="t", format="native", sources=(),
        generations=(Generation(0, "raw", "", covers=()), Generation(1, "summary", text, parent=0,
                                                                     extra={"boilerplate": [[0, 33]]})),
    )  # fmt: skip
    html = highlight_html(text, highlights(analyze(trace), 1))
    assert (
        '<mark class="boilerplate" title="harness boilerplate: not analysed">'
        "&lt;script&gt;alert(1)&lt;/script&gt; harness</mark>"
    ) in html
    assert "<script>" not in html
    assert ".ci-text mark.boilerplate{opacity:" in STYLE


def _scanned(text: str, format_name: str) -> tuple[tuple[int, int], ...]:
    """What a scan of the whole text with every pattern of the format finds: what the phrase-first search keeps."""
    from inspector.readers.boilerplate import PATTERNS

    return tuple(sorted(m.span() for _, pattern in PATTERNS[format_name] for m in pattern.finditer(text)))


EDGES = {
    "1.0.x tail glued after a summary ending in '.'": SUMMARY_1X,
    "2.x head, pointer and tail": SUMMARY_2X,
    "the tail shouted, twice in a row": f"Done.\n{TAIL.upper()}\n{TAIL.upper()}..\n{TAIL}",
    "the phrase mid-line is no line of the harness": f"We said: {TAIL}\n  {HEAD_2X}",
    "a letter that lower-cases to two moves every offset": f"{'İ' * 300}\n{TAIL}\nİ {HEAD_2X}\n{TAIL}",
    "the phrase at the very start and end": f"{TAIL}\n\n{HEAD_1X}",
    "no phrase at all": "Summary: the tests pass.\n",
}


@pytest.mark.parametrize("text", EDGES.values(), ids=EDGES.keys())
def test_finding_each_phrase_first_finds_what_scanning_the_whole_summary_finds(text):
    assert boilerplate_spans(text, "claude-code") == _scanned(text, "claude-code")


@needs_real
def test_finding_each_phrase_first_finds_what_scanning_finds_in_every_real_summary():
    summaries = [g.text for path in sorted(LABELLED.parent.glob("*/*.jsonl")) for g in load_trace(path).generations
                 if g.kind == "summary"]  # fmt: skip
    assert len(summaries) > 10
    for text in summaries:
        assert boilerplate_spans(text, "claude-code") == _scanned(text, "claude-code")
