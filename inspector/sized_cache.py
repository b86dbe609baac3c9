"""A least-recently-used cache bounded by the memory its values hold, not by how many there are.

The app keeps analyses of the traces people open. A count bound (eight analyses) holds 40 MB for
small traces and 4 GB for large ones, and the large ones were never let go. Here each value is
weighed when it is made, and the least recently used are dropped until the total fits the budget;
the newest is always kept, however heavy, since someone is looking at it. Dropped values are
collected and the allocator asked to hand the memory back to the system.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

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


class SizedCache(Generic[V]):
    """Values by key, least recently used first out once their weights pass `budget` bytes. Thread-safe.

    Two callers asking for the same missing key wait for one `make`, not run two: on a shared
    server, two people opening the same 500 MB session should not parse it twice.
    """

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self._values: OrderedDict[Hashable, tuple[V, int]] = OrderedDict()
        self._lock = threading.Lock()
        self._making: dict[Hashable, threading.Lock] = {}

    def get(self, key: Hashable) -> V | None:
        with self._lock:
            entry = self._values.get(key)
            if entry is None:
                return None
            self._values.move_to_end(key)
            return entry[0]

    def get_or_make(self, key: Hashable, make: Callable[[], V], weigh: Callable[[V], int]) -> V:
        """The cached value, or `make()` weighed by `weigh` and kept (evicting others to fit)."""
        found = self.get(key)
        if found is not None:
            return found
        with self._lock:
            making = self._making.setdefault(key, threading.Lock())
        try:
            with making:
                found = self.get(key)
                if found is not None:
                    return found
                value = make()
                self._put(key, value, weigh(value))
                return value
        finally:
            with self._lock:
                self._making.pop(key, None)

    @property
    def weight(self) -> int:
        with self._lock:
            return sum(weight for _, weight in self._values.values())

    def __len__(self) -> int:
        with self._lock:
            return len(self._values)

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._values

    def _put(self, key: Hashable, value: V, weight: int) -> None:
        with self._lock:
            self._values[key] = (value, weight)
            self._values.move_to_end(key)
            total = sum(w for _, w in self._values.values())
            dropped = 0
            while total > self.budget and len(self._values) > 1:
                _, (_, freed) = self._values.popitem(last=False)
                total -= freed
                dropped += 1
        if dropped:
            _release_memory()


def _release_memory() -> None:
    """Collect what eviction freed and let glibc return it: freed memory otherwise stays with the process."""
    gc.collect()
    name = ctypes.util.find_library("c")
    if name:
        try:
            ctypes.CDLL(name).malloc_trim(0)
        except (OSError, AttributeError):  # not glibc (musl, macOS): the collection is what we can do
            pass


__all__ = ["SizedCache", "default_budget", "trace_weight"]
