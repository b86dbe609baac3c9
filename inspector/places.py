"""Where each record sits among a trace's compactions: the first state that covers it.

Covers are cumulative (`Generation.covers`), so one map from each key to the first state covering it
says what every state is responsible for, without a set per state.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice

from inspector.model import Generation, KeyPrefix


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


__all__ = ["extends", "first_covered"]
