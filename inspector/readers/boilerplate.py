"""The harness's fixed text around a compaction summary: found by each format's phrases, never analysed.

Claude Code wraps the summary it puts back into the context in lines of its own ("This session is being
continued…", "…read the full transcript at: <path>", "Please continue the conversation…"); Codex opens
it with its summary prefix ("Another language model started to solve this problem…"). Analysing those
lines would report the harness, not the summary: "the earlier portion" as an orphaned anaphora, the
session's own log path as an unresolved anchor. Each pattern is anchored on a distinctive phrase and
runs to the end of its line, so small wording drift between versions still matches and the summary
around it never does.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

Span = tuple[int, int]
"""A stretch of a summary's text, as (start, end) offsets."""

CODEX_SUMMARY_OPENING = "Another language model started to solve this problem"
"""How Codex opens the summary message it puts back into the history after a local compaction."""

INSPECT_SUMMARY_OPENING = "[CONTEXT COMPACTION SUMMARY]"
"""How Inspect AI's CompactionSummary opens the user message that carries a summary."""

GEMINI_ACKNOWLEDGEMENT = "Got it. Thanks for the additional context!"
"""The model turn Gemini CLI writes after its summary (chatCompressionService): how a compression is told
from the history rewrite every resume also writes."""

_TRANSCRIPT_POINTER = re.compile(
    r"^[ \t]*If you need specific details from before\b[^\n]*?read the full transcript at:"
    r"[ \t]*(?P<path>[^\n]*?)[ \t]*$",
    re.MULTILINE,
)
"""Claude Code 2.x: where the session's own log is, for the model to read back (`{path}` ends the line)."""

PATTERNS: dict[str, tuple[tuple[str, re.Pattern[str]], ...]] = {
    "claude-code": (
        # 1.0.x "…The conversation is summarized below:", 2.x "…The summary below covers the earlier portion…"
        (
            "This session is being continued from a previous conversation",
            re.compile(r"^[ \t]*This session is being continued from a previous conversation\b[^\n]*", re.MULTILINE),
        ),
        ("If you need specific details from before", _TRANSCRIPT_POINTER),
        (
            "Recent messages are preserved verbatim.",
            re.compile(r"^[ \t]*Recent messages are preserved verbatim\.[ \t]*$", re.MULTILINE),
        ),
        # "Please continue the conversation from where we left it off…" (1.0.x, 2.0) or "Continue the
        # conversation from where it left off… Resume directly…" (later 2.x). 1.0.x glued it to the summary
        # with its own ".": after a summary that ended in "." that second one is the harness's too.
        (
            "continue the conversation from where",
            re.compile(
                r"(?:(?<=\.)\.\n)?^[ \t]*(?:Please )?continue the conversation from where (?:we|it|you) left"
                r"(?: it)? off\b[^\n]*",
                re.MULTILINE | re.IGNORECASE,
            ),
        ),
    ),
    "codex": (
        # The summary prefix (codex-rs/core/templates/compact/summary_prefix.md), one line ending "…analysis:".
        (
            CODEX_SUMMARY_OPENING,
            re.compile(rf"^[ \t]*{re.escape(CODEX_SUMMARY_OPENING)}\b[^\n]*?(?:your own analysis:|$)", re.MULTILINE),
        ),
        # The older history bridge (compact/history_bridge.md) that quoted the user's messages before it.
        (
            "You were originally given instructions from a user over one or more turns.",
            re.compile(
                r"^[ \t]*You were originally given instructions from a user over one or more turns\.[^\n]*?"
                r"(?:the user messages:|$)",
                re.MULTILINE,
            ),
        ),
    ),
    "inspect-ai": (
        # inspect_ai/model/_compaction/summary.py (0.3.285) wraps the summariser's text in three lines of its own.
        (INSPECT_SUMMARY_OPENING, re.compile(rf"^[ \t]*{re.escape(INSPECT_SUMMARY_OPENING)}[^\n]*", re.MULTILINE)),
        (
            "The following is a summary of work completed on this task so far",
            re.compile(
                r"^[ \t]*The following is a summary of work completed on this task so far\b[^\n]*", re.MULTILINE
            ),
        ),
        (
            "Please continue working on this task from where you left off",
            re.compile(r"^[ \t]*Please continue working on this task from where you left off\b[^\n]*", re.MULTILINE),
        ),
    ),
    "langchain": (
        # SummarizationMiddleware's prefix (langchain/agents/middleware/summarization.py, 1.x).
        (
            "Here is a summary of the conversation to date:",
            re.compile(r"^[ \t]*Here is a summary of the conversation to date:[ \t]*$", re.MULTILINE),
        ),
    ),
}
"""Each format's fixed lines, each as (the phrase every match of it holds, its pattern): the phrase is found first
and the pattern tried on the lines that hold it, which is 10× cheaper than scanning a 20 KB summary with an
unanchored pattern (the "continue the conversation" one's optional ".\n" before the line defeats the anchor)."""


def boilerplate_spans(text: str, format_name: str) -> tuple[Span, ...]:
    """The harness's fixed text in a summary of this format, as (start, end) spans in order."""
    return tuple(sorted(span for phrase, pattern in PATTERNS.get(format_name, ())
                        for span in _matches(text, phrase, pattern)))  # fmt: skip


def _matches(text: str, phrase: str, pattern: re.Pattern[str]) -> Iterator[Span]:
    """`pattern.finditer(text)`'s spans, tried only on the lines that hold `phrase` (case-blind if the pattern
    is). Every match lies on one such line, or begins with the two characters before it (".\n"), so searching
    each of those lines from where the last match ended finds what a scan of the whole text finds."""
    caseless = bool(pattern.flags & re.IGNORECASE)
    haystack, needle = (text.lower(), phrase.lower()) if caseless else (text, phrase)
    if len(haystack) != len(text):  # lower-casing moved the offsets (a few letters lower to two): scan it all
        yield from (match.span() for match in pattern.finditer(text))
        return
    reached, at = 0, haystack.find(needle)
    while at >= 0:
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        match = pattern.search(text, max(start - 2, reached), end)
        if match is not None:
            reached = match.end()
            yield match.span()
        at = haystack.find(needle, end)


def transcript_pointer(text: str) -> str | None:
    """The path a Claude Code summary tells the model to read the full transcript at, if it prints one."""
    match = _TRANSCRIPT_POINTER.search(text)
    return (match.group("path") or None) if match else None


__all__ = ["CODEX_SUMMARY_OPENING", "GEMINI_ACKNOWLEDGEMENT", "INSPECT_SUMMARY_OPENING", "PATTERNS", "Span",
           "boilerplate_spans", "transcript_pointer"]  # fmt: skip
