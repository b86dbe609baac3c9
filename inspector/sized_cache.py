"""A least-recently-used cache bounded by the memory its values hold, not by how many there are.

The app keeps analyses of the traces people open. A count bound (eight analyses) holds 40 MB for
small traces and 4 GB for large ones, and the large ones were never let go. `cachetools.LRUCache`
with a `getsizeof` is that bound, and `cachetools.cached` with a condition makes two callers of one
missing key wait for one `make`. What is left here is what the library does not do: a weight given
with each value rather than computed from it, the newest value kept however heavy (the library
refuses a value larger than the whole cache, but someone is looking at it), and the memory of
dropped values handed back to the system; plus the budget and the weight estimate.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os
import threading
from collections.abc import Callable, Hashable
from typing import Any, Generic, NamedTuple, TypeVar

from cachetools import LRUCache, cached

from inspector.model import Trace

V = TypeVar("V")
MB = 1 << 20
BUDGET_SETTING = "INSPECTOR_CACHE_MB"
TRACE_OVERHEAD = 4
"""Bytes held per character of trace text once loaded and analysed (records, sentences, indexes):
measured 3.7 on the 100 MB benchmark session (many small records) and 1.0 on two 50 MB lines; the
larger, so the budget is an upper bound rather than a hope."""


def trace_weight(trace: Trace) -> int:
    """Estimated bytes an analysed trace holds: its text (records and generations) times the overhead."""
    characters = sum(len(record.text) for record in trace.sources)
    characters += sum(len(generation.text or "") for generation in trace.generations)
    return characters * TRACE_OVERHEAD


def default_budget() -> int:
    """`INSPECTOR_CACHE_MB`, else a quarter of this machine's memory (2 GB when it cannot be read)."""
    configured = os.environ.get(BUDGET_SETTING, "").strip()
    if configured:
        try:
            return max(1, int(float(configured) * MB))
        except ValueError:
            pass  # a typo in a setting must not take the app down; the default applies
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 4
    except (ValueError, OSError, AttributeError):
        return 2048 * MB


class _Weighed(NamedTuple):
    """A value with the weight its maker gave it (the library weighs what it holds, so it holds both)."""

    value: Any
    weight: int


class _Evicting(LRUCache[Hashable, _Weighed]):
    """Counts what it drops, so the memory can be released once the lock is let go."""

    def __init__(self, budget: int) -> None:
        # An entry heavier than the whole budget counts as all of it: it drops every other and stays.
        super().__init__(budget, getsizeof=lambda entry: min(entry.weight, budget))
        self.dropped = 0

    def popitem(self) -> tuple[Hashable, _Weighed]:
        self.dropped += 1
        return super().popitem()


class SizedCache(Generic[V]):
    """Values by key, least recently used first out once their weights pass `budget` bytes. Thread-safe.

    Two callers asking for the same missing key wait for one `make`, not run two: on a shared
    server, two people opening the same 500 MB session should not parse it twice.
    """

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self._values = _Evicting(budget)
        self._lock = threading.Condition()

        def weighed(key: Hashable, make: Callable[[], V], weigh: Callable[[V], int]) -> _Weighed:
            value = make()
            return _Weighed(value, weigh(value))

        self._make = cached(self._values, key=lambda key, *_: key, condition=self._lock)(weighed)

    def get(self, key: Hashable) -> V | None:
        with self._lock:
            entry = self._values.get(key)
        return None if entry is None else entry.value  # type: ignore[no-any-return]

    def get_or_make(self, key: Hashable, make: Callable[[], V], weigh: Callable[[V], int]) -> V:
        """The cached value, or `make()` weighed by `weigh` and kept (evicting others to fit)."""
        value: V = self._make(key, make, weigh).value
        with self._lock:
            dropped, self._values.dropped = self._values.dropped, 0
        if dropped:
            _release_memory()
        return value

    @property
    def weight(self) -> int:
        """Bytes held against the budget (a value heavier than the budget counts as the budget)."""
        with self._lock:
            return int(self._values.currsize)

    def __len__(self) -> int:
        with self._lock:
            return len(self._values)

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._values


def _release_memory() -> None:
    """Collect what eviction freed and let glibc return it: freed memory otherwise stays with the process."""
    gc.collect()
    name = ctypes.util.find_library("c")
    if name:
        try:
            ctypes.CDLL(name).malloc_trim(0)
        except (OSError, AttributeError):  # not glibc (musl, macOS): the collection is what we can do
            pass


__all__ = ["BUDGET_SETTING", "TRACE_OVERHEAD", "SizedCache", "default_budget", "trace_weight"]
