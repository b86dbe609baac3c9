"""No record dropped: every record a reader meets is in the trace, or in a named, counted set.

A reader that skips what it does not map hides evidence: the item a summary lost may sit in the very line
the reader passed over. So each record of a log (the format's own unit: a JSONL line, an event file, a
database row, a span) gets exactly one fate as it is read. It is *read* (it became a turn, a tool call or
result, a compaction, a mention, or bookkeeping the reader uses) or *set aside* for a named reason (a
duplicate, a superseded write, reasoning skipped on purpose, a type the reader does not know). The counts
must add up to the records the log holds, so a record no branch of the reader accounted for shows up as
`unaccounted` rather than vanishing. Every format puts them in the trace in one shape,
`Trace.extra["records"]`, and the reasons a user should hear of become one notice (`records-set-aside`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspector.model import Finding, Severity

RECORDS = "records"
"""The key of `Trace.extra` the counts are kept under."""
NOTICE = "records-set-aside"

# -- what became of a record that is in the trace ---------------------------------------------------------

TURN = "turn"
TOOL_CALL = "tool call"
TOOL_RESULT = "tool result"
OUTCOME = "tool outcome"
"""A side record saying how a call ended (an exit-code event), read onto the call."""
COMPACTION = "compaction"
MENTION = "mention"
"""A file or key the log names outside any turn (an attachment, a patch event)."""
EVENT = "event"
"""A chain event (a rewind, a pruning, a condensation request)."""
METADATA = "metadata"
"""Bookkeeping the reader reads: the session's id, title or version, token counts, a history rewrite."""


@dataclass(frozen=True, slots=True)
class Reason:
    """Why a record is not in the trace."""

    name: str
    told: bool
    """Named in the notice. A record set aside by design (a duplicate, reasoning) is only counted; malformed
    and torn lines have notices of their own, naming each line."""


MALFORMED = Reason("malformed", told=False)
TORN = Reason("torn last line", told=False)
UNKNOWN = Reason("unknown type", told=True)
"""A type the reader does not know: whatever it holds is not in the chain."""
UNACCOUNTED = Reason("unaccounted", told=True)
"""Records the reader met but gave no fate (a reader bug; the test of every fixture fails on it)."""
DUPLICATE = Reason("duplicate", told=False)
"""The same message again: a re-sent history, an event echoing a turn, a kept tail listed again."""
SUPERSEDED = Reason("superseded", told=False)
"""Replaced by a later write of the same record, or dropped by a rewind the user made."""
REASONING = Reason("reasoning", told=False)
"""The model's reasoning or thinking, skipped on purpose (often encrypted; never said to the user)."""
INSTRUCTIONS = Reason("system prompt", told=False)
"""The harness's instructions to the model (counted in the trace's extra), not the conversation."""
EMPTY = Reason("empty", told=False)
"""A record of a known type with nothing to read in it (no text, no call)."""
UNREAD = Reason("not read", told=False)
"""Bookkeeping of a known type the analyses have no use for (a turn context, a status event, step markers)."""
OTHER_SESSION = Reason("other session", told=False)
"""A record of another session in the same file (the several-sessions notice names them)."""
NOT_REGULAR = Reason("not a regular file", told=True)
"""A file of a folder trace that is a symbolic link (it may lead out of the folder, to a file its owner never put
there), a FIFO (opening it blocks), a device or a folder: never opened, and said, since what it holds is missing."""


Fate = str | Reason
"""What became of one record: read as a fate above, or set aside for a reason."""


class RecordTally:
    """The fates of a log's records, counted as they are read (no second pass over the file)."""

    def __init__(self, unit: str = "lines") -> None:
        self.unit = unit
        """What a record is in this format, plural: "lines", "event files", "rows", "spans"."""
        self.total = 0
        self.read: Counter[str] = Counter()
        self.set_aside: Counter[str] = Counter()
        self._reasons: dict[str, Reason] = {}
        self._labels: dict[str, Counter[str]] = {}
        self.active = False
        """The reader counts its records (one that does not yet leaves no counts in the trace)."""

    def met(self, count: int = 1) -> None:
        """Records found in the log (before any fate): what the fates must add up to."""
        self.total += count
        self.active = True

    def read_as(self, fate: str, count: int = 1) -> None:
        self.active = True
        if count > 0:
            self.read[fate] += count

    def aside(self, reason: Reason, count: int = 1, label: str | None = None) -> None:
        """`label` names what was set aside (an unknown record's type) in the notice."""
        if count <= 0:
            return
        self.active = True
        self.set_aside[reason.name] += count
        self._reasons[reason.name] = reason
        if label is not None:
            self._labels.setdefault(reason.name, Counter())[label] += count

    def count(self, fate: Fate, label: str | None = None, times: int = 1) -> None:
        """A record's fate (`times` records'): read as `fate` (a string), or set aside for a `Reason`."""
        if fate.__class__ is str:  # the common case, kept cheap: a count per record of a big log
            self.read[fate] += times  # type: ignore[index]
            self.active = True
        else:
            self.aside(fate, times, label)  # type: ignore[arg-type]

    def lines(self, lines: Any) -> None:
        """A JSONL log's lines (`JsonLines`, once read): each non-blank line a record, the ones that were not
        JSON objects set aside; the records it yielded get their fates from the reader."""
        self.met(lines.records + lines.malformed + lines.torn)
        self.aside(MALFORMED, lines.malformed)
        self.aside(TORN, lines.torn)

    @property
    def unaccounted(self) -> int:
        """Records met and given no fate (negative: fates given twice)."""
        return self.total - sum(self.read.values()) - sum(self.set_aside.values())

    def as_extra(self) -> dict[str, Any]:
        """The shared shape: `{"unit", "total", "read": {fate: n}, "set_aside": {reason: n}}`."""
        set_aside = dict(sorted(self.set_aside.items()))
        if self.unaccounted:
            set_aside[UNACCOUNTED.name] = self.unaccounted
        return {"unit": self.unit, "total": self.total, "read": dict(sorted(self.read.items())),
                "set_aside": set_aside}  # fmt: skip

    def notice(self, path: Path) -> Finding | None:
        """One info notice naming, with their numbers, the records set aside that a user should know of."""
        told = [(name, count) for name, count in sorted(self.set_aside.items()) if self._reasons[name].told]
        if self.unaccounted:
            told.append((UNACCOUNTED.name, self.unaccounted))
        if not told:
            return None
        parts = []
        for name, count in told:
            labels = self._labels.get(name)
            named = ""
            if labels:
                shown = [f"{label} ×{n}" if n > 1 else label for label, n in labels.most_common(3)]
                named = f" ({', '.join(shown)}{', …' if len(labels) > 3 else ''})"
            parts.append(f"{count} {name}{named}")
        aside = sum(count for _, count in told)
        message = (f"{path.name}: {aside} of {self.total} {self.unit} are not in the chain: "
                   f"{'; '.join(parts)}")  # fmt: skip
        return Finding(rule=NOTICE, severity=Severity.INFO, generation=None, message=message)


__all__ = ["COMPACTION", "DUPLICATE", "EMPTY", "EVENT", "Fate", "INSTRUCTIONS", "MALFORMED", "MENTION", "METADATA",
           "NOTICE", "NOT_REGULAR", "OTHER_SESSION", "OUTCOME", "REASONING", "RECORDS", "Reason", "RecordTally",
           "SUPERSEDED", "TOOL_CALL", "TOOL_RESULT", "TORN", "TURN", "UNACCOUNTED", "UNKNOWN", "UNREAD"]  # fmt: skip
