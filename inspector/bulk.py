"""Bulk work on a whole trace: reading a session log, analysing it."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    """Hold the cyclic garbage collector while a trace is read or analysed.

    A session log becomes hundreds of thousands of small dicts and lists, all alive until the trace
    is built and none in a cycle; an analysis adds more of the same. Every full collection those
    allocations trigger walks all of them again: about 0.5 s of a 1.2 s read of a 105 MB Claude Code
    session. Reference counting still frees everything, and the collector runs again as soon as the
    work ends (if it was on before). The switch is process-wide, so concurrent reads (app sessions
    are threads) can only delay a collection, never leave it off.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


__all__ = ["paused_gc"]
