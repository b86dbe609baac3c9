"""Numbers the environment sets: a read bound, the guard's limits.

Its own module, with the standard library alone: the guard's hook process reads its limits here and must start in
milliseconds, before anything that reads a trace is imported."""

from __future__ import annotations

import os


def positive_setting(name: str, unit: str = "") -> float | None:
    """The positive, finite number the environment variable `name` holds; None when it is unset or blank;
    `ValueError` saying why when it holds something else ("inf" and "nan" are numbers to `float`, not bounds).
    Each caller says it in its own way: a read bound refuses the run, the guard logs it and goes on."""
    text = os.environ.get(name, "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number{f' of {unit}' if unit else ''}") from None
    if not 0 < value < float("inf"):
        raise ValueError(f"{text!r} must be more than 0{f' {unit}' if unit else ''} and finite")
    return value


__all__ = ["positive_setting"]
