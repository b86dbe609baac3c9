"""A function's last answer, given again when it is asked about the very same objects.

Some questions about a whole log are asked from two places in one run. The guard's cheap reading and its full
check both mine what the user said (`items`); the items and the claims' evidence both read the log's shell runs
and their failures (`shell_runs.log_runs`, `shell_runs.log_failures`). On a 100 MB log each answer costs a tenth
of a second or more.

The same objects means the very objects (`is`), never equal ones: a trace's records are one tuple for as long as
the trace lives, and a list equal to it is another question. One answer is kept: that of the last log asked
about, which its asker still holds (a check, a guard's child, the app's cache, which keeps its newest trace
whatever its size), so keeping it holds no log nobody else does. An answer must not be changed by whoever gets
it: the functions kept this way return tuples.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from functools import wraps
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


def for_the_same(function: Callable[P, R]) -> Callable[P, R]:
    """`function`, answering from its last answer when every argument is the very object it was last asked about.
    Positional arguments only. The arguments and the answer are kept together, read and replaced as one, so a
    thread reading while another replaces them gets one answer or the other, never one's arguments with the
    other's answer."""
    last: list[tuple[tuple[object, ...], R]] = []

    @wraps(function)
    def answer(*args: P.args, **kwargs: P.kwargs) -> R:
        if kwargs:
            raise TypeError(f"{function.__name__} takes positional arguments only")
        entry = last[0] if last else None
        if entry is not None and len(entry[0]) == len(args) and all(map(operator.is_, entry[0], args)):
            return entry[1]
        found = function(*args)
        last[:] = [(args, found)]
        return found

    return answer


__all__ = ["for_the_same"]
