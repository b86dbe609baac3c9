"""The figures a session log printed with a unit ('21.3x', '50%', '3-5×'), read once per log.

A summary's result claim ('2.46× faster', '50-80% savings') is supported only by a figure a tool printed before its
compaction (`claim_evidence.unprinted_figures`). Looking each of a summary's figures up by scanning every earlier
record for its digits cost figures × log: 110 real-sized summaries of a 30 MB session took over 18 minutes, most of
it finding '3' in every line. So the log's numbers that carry a unit are indexed once, by their integer part, with
the record each sits in, and a figure is looked up among those before the cut.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

import hyperscan

from inspector.model import TRANSCRIPT, SourceRecord

_WITH_UNIT = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)(?=(?:\s*(?:[-–]|to)\s*\d+(?:\.\d+)?)?\s{0,7}([x×%]))")
"""A whole number (not the tail of another: '1.2.3' holds one, 1.2) followed, within eight characters and after any
spaces, by a unit, or by a range's upper bound ('-5', ' to 5') and then one: '21.3x', '3-5×' (3 and 5), '50 %'. The
look-ahead keeps the bound for the scan, so both bounds of a range are numbers of their own."""
TIMES, PERCENT = "x", "%"
_MAY_HOLD = rb"[0-9][0-9.]*(?:[\t\n\x0b\x0c\r \x1c-\x1f]*(?:-|to)[\t\n\x0b\x0c\r \x1c-\x1f]*[0-9][0-9.]*)?" \
    rb"[\t\n\x0b\x0c\r \x1c-\x1f]{0,7}(?:x|%)"
r"""Every ASCII text `_WITH_UNIT` finds a number in, and more (Python's `\d` and `\s` on ASCII, spelled out): the
prefilter one Hyperscan pass runs over each record, so that Python's regex, which tries each of a code listing's many
digits in turn (1.4 s on a 30 MB session), reads only the records that can hold a figure. Other text (an en dash, a
'×', another script) is read by the regex itself: its digits and spaces are Unicode's."""


class PrintedFigures:
    """Every whole number of the log's transcript records followed by a unit (within eight characters, after a range's
    upper bound if it is one), by (unit, integer part as written): (its record's place in the log, its value)."""

    def __init__(self, sources: Sequence[SourceRecord]) -> None:
        self._index: dict[tuple[str, str], list[tuple[int, float]]] = defaultdict(list)
        for position, record in enumerate(sources):
            if record.namespace == TRANSCRIPT and record.text:
                self._add(position, record.text)

    def _add(self, position: int, text: str) -> None:
        if not _may_hold(text):
            return
        for match in _WITH_UNIT.finditer(text):
            number = match.group(1)
            unit = PERCENT if match.group(2) == "%" else TIMES
            self._index[unit, number.split(".")[0]].append((position, float(number)))

    def printed(self, number: str, unit: str, cut: int) -> bool:
        """Whether a record at or before the log position `cut` printed `number` with `unit` (x, × or %), equal once
        rounded or cut to the number's precision: '21' is printed by '21.3x', '26' by '26.52x'."""
        value = float(number)
        decimals = len(number.split(".")[1]) if "." in number else 0
        tolerance = 0.5 * 10**-decimals
        step = 10**-decimals
        kind = TIMES if unit in "x×" else PERCENT
        # The integer parts a number rounding or cut to `value` can have: '173' is printed as 172.9 or 173.4, and
        # '26' as 26.52 by a summary that drops the decimals.
        heads = {str(int(value - tolerance)), str(int(value + tolerance)), str(int(value + step - 1e-9))}
        return any(position <= cut and (abs(printed - value) <= tolerance + 1e-9 or value <= printed < value + step)
                   for head in heads for position, printed in self._index.get((kind, head), ()))  # fmt: skip


_DATABASE: list[hyperscan.Database] = []


def _may_hold(text: str) -> bool:
    if not text.isascii():
        return True
    if not _DATABASE:
        database = hyperscan.Database()
        database.compile(expressions=[_MAY_HOLD], ids=[0], elements=1, flags=[hyperscan.HS_FLAG_SINGLEMATCH])
        _DATABASE.append(database)
    try:
        _DATABASE[0].scan(text.encode("ascii"), match_event_handler=_stop_at_first)
    except hyperscan.ScanTerminated:  # the handler stopped the scan at a hit
        return True
    return False


def _stop_at_first(which: int, start: int, end: int, flags: int, context: object) -> bool:
    return True  # a true result stops the scan


__all__ = ["PrintedFigures"]
