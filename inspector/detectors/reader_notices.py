"""Problems a reader met while loading (skipped lines, a torn tail), surfaced as findings."""

from __future__ import annotations

from collections.abc import Iterator

from inspector.facts import TraceFacts
from inspector.model import Severity
from inspector.rule_registry import Check, Hit, rule


def _passthrough(rule_id: str) -> Check:
    def check(facts: TraceFacts) -> Iterator[Hit]:
        for notice in facts.trace.notices:
            if notice.rule == rule_id:
                yield Hit(notice.generation, notice.message, notice.start, notice.end, dict(notice.evidence))

    return check


_NOTICES: dict[str, tuple[Severity, str]] = {
    "malformed-line": (Severity.WARNING, "A line of the log could not be parsed; the rest was loaded."),
    "torn-last-line": (Severity.WARNING, "The log ends mid-record (still being written?); the rest was loaded."),
    "several-sessions": (Severity.INFO, "The file holds several sessions; the newest was loaded (FILE#ID: another)."),
    "compactions-not-recorded": (Severity.INFO, "This log format does not record compactions; any are missing."),
    "branch-set-aside": (Severity.INFO, "Records of branches the session left (a rewind, an earlier resume point) "
                                        "are not in the trace; the conversation that went on is."),
    "records-repeated": (Severity.INFO, "The log writes some records twice under one uuid; each was read once."),
    "records-set-aside": (Severity.INFO, "Records of the log are not in the chain (a type the reader does not know, a "
                          "link or special file in a folder trace, never opened); "
                          "what they held is missing, not absent."),
    "tool-result-missing": (Severity.INFO, "A tool call has no result in the log; its outcome is unknown, not a "
                            "success."),
}

for _rule_id, (_severity, _explanation) in _NOTICES.items():
    rule(_rule_id, _severity, _explanation)(_passthrough(_rule_id))


__all__: list[str] = []  # importing this module registers its rules; they are reached through the registry
