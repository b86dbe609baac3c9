"""The one error type readers raise, so callers can print `file:line: message` and exit cleanly."""

from __future__ import annotations


class TraceReadError(Exception):
    """A trace file could not be read or is invalid; carries where, for a one-line report."""

    def __init__(self, path: str, message: str, line: int | None = None) -> None:
        self.path = path
        self.line = line
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}: {self.message}"


__all__ = ["TraceReadError"]
