"""The line a turn was read from, found again by its byte offset: what the model never needed, for display.

Readers keep only what the analyses read (a turn's text, its tool, its outcome); the rest of the record,
a tool's full result or the token usage, stays in the file. A JSONL reader notes where each turn's line
starts (`LineIndex`, in `Trace.extra[RAW_LINES]`, which no report writes), so the line can be read back
alone, on demand, through the same bounded file access as the reader: the file is first checked to be
the one that was read (size, modification time, inode), and a changed or missing file gives a reason,
never another line. A compressed log cannot be seeked, so it is decompressed up to the line.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from inspector.bounded_io import bounded_lines, open_binary, read_limits
from inspector.errors import TraceReadError
from inspector.model import Trace

RAW_LINES = "raw_lines"
"""The `Trace.extra` key of a trace's `LineIndex` (native export and reports write no such key)."""

_SKIP_PIECE = 1 << 20


@dataclass(frozen=True, slots=True)
class FileStamp:
    """Which version of a file was read: taken before reading, so a change during the read shows too."""

    size: int
    mtime_ns: int
    inode: int

    @classmethod
    def of(cls, path: str | Path) -> FileStamp | None:
        """The file's stamp now, or None when it cannot be looked at."""
        try:
            status = os.stat(path)
        except (OSError, ValueError):
            return None
        return cls(status.st_size, status.st_mtime_ns, status.st_ino)


@dataclass(frozen=True, slots=True)
class LineIndex:
    """Where each turn's line starts in the log it was read from (decompressed bytes), and which file that was."""

    path: str
    stamp: FileStamp
    offsets: Mapping[str, int] = field(repr=False)
    """Turn key → byte offset of the start of its line."""


@dataclass(frozen=True, slots=True)
class RawLine:
    """A record's line as written (without its line end), or why it cannot be shown."""

    text: str | None
    reason: str | None = None


def line_index(trace: Trace) -> LineIndex | None:
    """The trace's index of turn lines; None for a format read without one (a document, a database)."""
    index = trace.extra.get(RAW_LINES)
    return index if isinstance(index, LineIndex) else None


def raw_line(trace: Trace, key: str) -> RawLine:
    """The line the record `key` was read from, read alone from the file, or why it cannot be."""
    index = line_index(trace)
    if index is None:
        return RawLine(None, f"the {trace.format} reader keeps no line positions")
    offset = index.offsets.get(key)
    if offset is None:
        return RawLine(None, f"{key} was not read from a line of its own (a derived record)")
    return read_line(index.path, index.stamp, offset)


def read_line(path: str, stamp: FileStamp, offset: int) -> RawLine:
    """The line starting at `offset` of the file, if the file is still the one `stamp` describes."""
    now = FileStamp.of(path)
    if now is None:
        return RawLine(None, f"{Path(path).name} is no longer there")
    if now != stamp:
        return RawLine(None, f"{Path(path).name} changed since it was read; reload the trace to see its records")
    limits = read_limits()
    try:
        with open_binary(Path(path), limits) as stream:
            if offset and not _after_line_end(stream, offset):
                return RawLine(None, f"byte {offset} of {Path(path).name} does not start a line")
            found = next(bounded_lines(stream, Path(path), limits.max_line_bytes), None)
    except TraceReadError as error:
        return RawLine(None, str(error))
    if found is None:
        return RawLine(None, f"{Path(path).name} ends before byte {offset}")
    return RawLine(bytes(found[1]).rstrip(b"\r\n").decode("utf-8", errors="replace"))


def _after_line_end(stream: BinaryIO, offset: int) -> bool:
    """Move to `offset`, checking the byte before it ends a line (a plain file seeks; a compressed one is read)."""
    if stream.seekable():
        stream.seek(offset - 1)
    else:
        remaining = offset - 1
        while remaining:
            piece = stream.read(min(remaining, _SKIP_PIECE))
            if not piece:
                return False
            remaining -= len(piece)
    return stream.read(1) == b"\n"


def pretty_json(text: str) -> str:
    """A JSON line indented for reading (the standard parser keeps big integers whole); the text as it is
    when it is not JSON."""
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except (ValueError, RecursionError):
        return text


__all__ = ["FileStamp", "LineIndex", "RAW_LINES", "RawLine", "line_index", "pretty_json", "raw_line", "read_line"]
