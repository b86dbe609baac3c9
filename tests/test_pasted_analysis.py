"""A copy of a Claude Code summary's own analysis, pasted where the summary held "$`", is found, reported, and not
analysed.

Claude Code stores a summary by `String.prototype.replace` with the summary as the replacement string, so "$`" in
it becomes the text before the match: the "Analysis:" block (anthropics/claude-code#90133). The excerpts are
meow_f29a7049's S1 (outside ../shared, labelled blind: "the whole Analysis section is pasted in twice (once inside
the regex, once inside the `-fuzz=^%s` pattern) instead of the closing `$`", a contradicted claim), whose code lines
are kept here word for word; its analysis and the rest of its summary are shortened.
"""

from __future__ import annotations

import re
from pathlib import Path

from inspector.analysis import analyze
from inspector.model import PASTED_ANALYSIS
from inspector.readers import load_trace
from inspector.readers.pasted_analysis import pasted_analysis_spans
from inspector.refresh import CorrectionType, refresh_at
from inspector.render import highlights
from tests.test_guard_authorship import TYPED, given_back, session

PREAMBLE = ("This session is being continued from a previous conversation that ran out of context. The summary below "
            "covers the earlier portion of the conversation.\n\n")  # fmt: skip
ANALYSIS = ("Let me chronologically analyze the conversation:\n\n1. The user asked to validate the Go version "
            "given to `meow build`.\n2. I added a regular expression and a fuzz test.\n")  # fmt: skip
SUMMARY = ("1. Primary Request and Intent:\n   Validate the Go version in generated go.mod files.\n\n"
           "3. Files and Code Sections:\n"
           "   ```go\n   var validGoVersion = regexp.MustCompile(`^\\d+\\.\\d+(\\.\\d+)?$`)\n   ```\n"
           "    - Fuzz test: `regexp.QuoteMeta(name)` added to `-fuzz=^%s$` pattern\n")  # fmt: skip
"""What the model wrote: both lines end a code span with "$`"."""


def stored(analysis: str, summary: str) -> str:
    """The summary as Claude Code stores it: the analysis block turned into "Analysis:", then "Summary:" put in by a
    replacement string read as one, so that each "$`" in the summary becomes the text before `<summary>`."""
    raw = f"<analysis>\n{analysis}</analysis>\n\n<summary>\n{summary}</summary>"
    raw = re.sub(r"<analysis>\n?([\s\S]*?)</analysis>", lambda m: f"Analysis:\n{m.group(1)}", raw)
    at = raw.index("<summary>")
    formatted = raw[:at] + "Summary:\n" + summary.replace("$`", raw[:at])
    return PREAMBLE + formatted


def _copies(path: Path) -> list[str]:
    trace = load_trace(path)
    text = trace.generations[1].text
    return [text[start:end] for start, end in trace.generations[1].extra.get(PASTED_ANALYSIS, ())]


def test_each_copy_of_the_analysis_the_harness_pasted_is_marked_by_the_reader(tmp_path: Path) -> None:
    text = stored(ANALYSIS, SUMMARY)
    assert text.count("Analysis:\n") == 3  # the block, and a copy for each "$`"
    copies = _copies(session(tmp_path, [], summary=text))
    assert copies == [f"Analysis:\n{ANALYSIS}\n\n"] * 2


def test_the_finding_names_each_line_a_copy_cut_and_what_it_replaced(tmp_path: Path) -> None:
    analysis = analyze(load_trace(session(tmp_path, [], summary=stored(ANALYSIS, SUMMARY))))
    found = [(f.severity.value, f.generation, f.message)
             for f in analysis.findings if f.rule == "summary-text-corrupted"]
    assert found == [("warning", 1, "S1 was corrupted as Claude Code stored it: at 2 places (after “…var "
                      "validGoVersion = regexp.MustCompile(`^\\d+\\.\\d+(\\.\\d+)?”, after “…- Fuzz test: "
                      "`regexp.QuoteMeta(name)` added to `-fuzz=^%s”) a copy of its own analysis (179 characters) "
                      "stands where the summary held “$`”, so the next agent reads the code there without it")]


def test_the_copies_are_not_analysed_and_the_text_pane_marks_them(tmp_path: Path) -> None:
    analysis = analyze(load_trace(session(tmp_path, [], summary=stored(ANALYSIS, SUMMARY))))
    facts = analysis.facts.generations[1]
    read = facts.analysed_text
    assert read is not None and read.count("I added a regular expression") == 1  # where the model wrote it, once
    marks = [(m.start, m.end) for m in highlights(analysis, 1) if m.css_class == "pasted-analysis"]
    assert marks == list(facts.pasted) and len(marks) == 2


def test_a_refresh_records_each_copy_as_a_correction_with_the_line_as_the_summary_wrote_it(tmp_path: Path) -> None:
    analysis = analyze(load_trace(session(tmp_path, [], summary=stored(ANALYSIS, SUMMARY))))
    corrupted = [c for c in refresh_at(analysis, 1).corrections if c.type is CorrectionType.CORRUPTED]
    assert [c.source for c in corrupted] == ["var validGoVersion = regexp.MustCompile(`^\\d+\\.\\d+(\\.\\d+)?$`",
                                             "- Fuzz test: `regexp.QuoteMeta(name)` added to `-fuzz=^%s$`"]
    assert all(c.inherited.endswith("Analysis:\nLet me chronologically analyz…") for c in corrupted)  # type: ignore[union-attr]


def test_a_summary_with_no_dollar_backtick_has_no_copy(tmp_path: Path) -> None:
    """Quoting part of the analysis, or a whole summary without "$`", is the model's own text."""
    summary = SUMMARY.replace("$`", "`") + f"   Quoted: {ANALYSIS.splitlines()[2]}\n"
    path = session(tmp_path, [], summary=stored(ANALYSIS, summary))
    assert _copies(path) == []
    assert [f for f in analyze(load_trace(path)).findings if f.rule == "summary-text-corrupted"] == []


def test_a_summary_line_inside_the_analysis_does_not_cut_the_copy_short() -> None:
    """The block ends at the "Summary:" line that the copies end before, not at one the analysis itself holds."""
    analysis = f"{ANALYSIS}Summary:\nwhat the user wants, in short.\n"
    text = stored(analysis, SUMMARY)
    assert [text[start:end] for start, end in pasted_analysis_spans(text, "claude-code")] == [
        f"Analysis:\n{analysis}\n\n"] * 2  # fmt: skip


def test_only_claude_codes_summaries_are_read_for_copies() -> None:
    assert pasted_analysis_spans(stored(ANALYSIS, SUMMARY), "codex") == ()


def test_the_guard_tells_the_resuming_agent_where_to_read_dollar_backtick(tmp_path: Path, monkeypatch) -> None:
    """The agent resumes from the corrupted text: the guard says where "$`" stood, even when nothing else was lost."""
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path / "data"))
    kept = stored(ANALYSIS, f"0. The user said: {TYPED}\n{SUMMARY}")
    assert given_back(session(tmp_path, [], summary=kept), tmp_path) == (
        "Compaction Inspector checked the summary you resumed from (S1) against the session log: it was corrupted as "
        "Claude Code stored it. Where it held “$`” (after “…var validGoVersion = regexp.MustCompile(`^\\d+\\.\\d+"
        "(\\.\\d+)?”, after “…- Fuzz test: `regexp.QuoteMeta(name)` added to `-fuzz=^%s”), Claude Code pasted in a "
        "copy of the summary's own analysis: read “$`” there, and the copy as no part of the summary.")


def test_the_guard_says_it_before_what_the_summary_lost(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path / "data"))
    back = given_back(session(tmp_path, [], summary=stored(ANALYSIS, SUMMARY)), tmp_path).splitlines()
    assert back[0].startswith("Compaction Inspector checked the summary you resumed from (S1) against the session "
                              "log: it dropped or weakened what was said and was corrupted as Claude Code stored it. "
                              "Where it held “$`”")  # fmt: skip
    assert back[0].endswith("and the copy as no part of the summary. From the log, verbatim:")
    lost = f"- The user said, 2026-11-20 10:00 UTC (constraint, lost in the summary, record u1): “{TYPED}”"
    assert back[1:] == [lost]
