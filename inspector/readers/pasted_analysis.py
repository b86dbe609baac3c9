"""Copies of a Claude Code summary's own analysis that its harness pasted into the summary as it stored it.

Claude Code turns the model's `<analysis>…</analysis><summary>…</summary>` into "Analysis:\\n…\\n\\nSummary:\\n…"
with `String.prototype.replace`, the summary's text given as the replacement string, unescaped. So JavaScript's
replacement patterns in the summary are read as patterns: "$`" (a dollar sign closing a code span, as in a
regular expression `^v\\d+$` quoted in backticks) becomes the text before the match, which is the whole
"Analysis:" block (anthropics/claude-code#90133). The summary the next agent reads holds a verbatim copy of its
analysis in the middle of a line, and the code there has lost its `$` and its closing backtick.

The copy is the analysis block exactly, from its "Analysis:" line up to the "Summary:" line, so it is found by
string search, with no threshold: a later repeat of that whole block, verbatim, has no other cause (in the real
summaries held here each is a kilobyte or more, beginning mid-line). Each copy stands where "$`" stood. (`$$`
becoming `$` leaves no such trace.)
"""

from __future__ import annotations

import re

from inspector.readers.boilerplate import Span

_FORMATS = frozenset({"claude-code"})
"""Formats whose harness assembles the summary this way."""

_ANALYSIS_HEAD = re.compile(r"^Analysis:[ \t]*\n", re.MULTILINE)
_SUMMARY_HEAD = re.compile(r"^Summary:[ \t]*\n", re.MULTILINE)


def pasted_analysis_spans(text: str, format_name: str) -> tuple[Span, ...]:
    """Where a summary of this format holds copies of its own analysis block, in order."""
    if format_name not in _FORMATS:
        return ()
    head = _ANALYSIS_HEAD.search(text)
    if head is None:
        return ()
    block = _analysis_block(text, head.start())
    if block is None:
        return ()
    start, end = block
    copy = text[start:end]
    spans = []
    at = text.find(copy, end)
    while at >= 0:
        spans.append((at, at + len(copy)))
        at = text.find(copy, at + len(copy))
    return tuple(spans)


def _analysis_block(text: str, start: int) -> Span | None:
    """The analysis block from its head to the "Summary:" line that ends it: the last such line whose block
    appears again later, since a "Summary:" line inside the analysis ends a shorter block than the copies hold."""
    found = None
    for head in _SUMMARY_HEAD.finditer(text, start):
        block = text[start : head.start()]
        if not block[len("Analysis:") :].strip():
            continue
        if text.find(block, head.start()) < 0:
            break
        found = (start, head.start())
    return found


__all__ = ["pasted_analysis_spans"]
