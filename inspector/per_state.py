"""A value per state of the chain, each worked out the first time it is read.

A full check reads every item in every state, so its tracks are built whole. The guard judges one summary (the
newest): it reads an item's match there, in the state before it ("still lost") and, for commits and pull requests,
in the earlier ones. Matching an item in the 300 other summaries of a long session would be most of its time, so a
focused analysis reads tracks through this sequence, which matches a state only when asked and keeps the answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar, overload

T = TypeVar("T")

_UNREAD = object()
"""A state's slot before its value is worked out (None is a value: a depth where the item is absent)."""


class PerState(Sequence[T]):
    """`length` values, value `k` being `compute(k)` the first time it is read."""

    __slots__ = ("_compute", "_values")

    def __init__(self, length: int, compute: Callable[[int], T]) -> None:
        self._compute = compute
        self._values: list[object] = [_UNREAD] * length

    def __len__(self) -> int:
        return len(self._values)

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[T, ...]: ...

    def __getitem__(self, index: int | slice) -> T | tuple[T, ...]:
        if isinstance(index, slice):
            return tuple(self[k] for k in range(*index.indices(len(self._values))))
        if index < 0:
            index += len(self._values)
        if not 0 <= index < len(self._values):
            raise IndexError(index)
        value = self._values[index]
        if value is _UNREAD:
            value = self._values[index] = self._compute(index)
        return value  # type: ignore[return-value]

    def __iter__(self) -> Iterator[T]:
        return (self[k] for k in range(len(self._values)))

    def read(self, index: int) -> bool:
        """Whether state `index`'s value has been worked out (what a test of the focus counts)."""
        return self._values[index] is not _UNREAD


__all__ = ["PerState"]
