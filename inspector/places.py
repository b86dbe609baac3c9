"""Where each record sits among a trace's compactions: what a summary could have seen when it was written.

Sₖ was written at its compaction from what came before it; a record written after that is no referent
of a key Sₖ prints. Covers say what came before, and they are cumulative (`Generation.covers`), so a
record's *place* is the first state that covers it, and Sₖ sees every record placed at k or earlier:
`place <= k` is "before Sₖ's compaction" (S₀ sees what S₀ covers).

A record that names the record its key was first seen in (`extra["first_seen"]`: the turn that first
printed it, as the native writer keeps for a session log's printed keys) sits there if that is earlier.
A record placed by neither is placed by what it is:

* in a session log, and for a transcript turn anywhere, it is the log's own, after every compaction
  (the live context no summary has covered yet): `AFTER_EVERY_CUT`;
* otherwise it is what a curated store declares outside the log (a ledger entry, a file): it does not
  belong to the log's time, so every state sees it: `OUTSIDE_THE_LOG`.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from itertools import islice

from inspector.model import TRANSCRIPT, Generation, KeyPrefix, SourceRecord

OUTSIDE_THE_LOG = -1
"""The place of a store's record that no state covers and the log did not write: before every cut."""
AFTER_EVERY_CUT = sys.maxsize
"""The place of a log record no state covers yet: after the last compaction, seen by no summary."""


def first_covered(generations: Sequence[Generation]) -> dict[str, int]:
    """For every key a state covers, the position of the first state that covers it.

    One map for the chain rather than one set per state: covers are cumulative, so a set per state
    held every key once per generation (tens of MB for a long session). Where a state's keys start
    with its parent's, only the new ones are read.
    """
    first: dict[str, int] = {}
    previous: Sequence[str] = ()
    for position, generation in enumerate(generations):
        keys = generation.covers
        start = len(previous) if extends(keys, previous) else 0
        for key in islice(keys, start, None):
            first.setdefault(key, position)
        previous = keys
    return first


def extends(keys: Sequence[str], previous: Sequence[str]) -> bool:
    """Do `keys` start with `previous`? (Free for two prefixes of one `KeyPrefix` order.)"""
    if isinstance(keys, KeyPrefix):
        return keys.starts_with(previous)
    return tuple(keys[: len(previous)]) == tuple(previous)


class RecordPlaces:
    """Each record's place (see the module docstring), from the chain's first-cover map."""

    def __init__(self, first_cover: Mapping[str, int], *, session_log: bool) -> None:
        """`session_log`: the trace is an agent's log (or a native copy of one), which declares nothing
        outside itself, so a record no state covers is after every cut."""
        self._first = first_cover
        self._session_log = session_log

    def of_log_key(self, key: str) -> int:
        """The place of a record of the log itself (a turn): the first state covering it, else after every cut."""
        return self._first.get(key, AFTER_EVERY_CUT)

    def of(self, record: SourceRecord) -> int:
        """The first state covering the record or the one it was first seen in; else by what it is."""
        place = self._first.get(record.key)
        seen_in = record.extra.get("first_seen") if record.extra else None
        if isinstance(seen_in, str) and seen_in in self._first:
            seen = self._first[seen_in]
            return seen if place is None else min(place, seen)
        if place is not None:
            return place
        if self._session_log or record.namespace == TRANSCRIPT or isinstance(seen_in, str):
            return AFTER_EVERY_CUT
        return OUTSIDE_THE_LOG


__all__ = ["AFTER_EVERY_CUT", "OUTSIDE_THE_LOG", "RecordPlaces", "extends", "first_covered"]
