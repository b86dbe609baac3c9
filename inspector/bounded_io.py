"""File access for readers: plain or zstd-compressed, streamed, bounded, with readable errors.

Session logs are untrusted input. A 34 KB `.zst` can decompress to a gigabyte on one line, a FIFO
named `x.jsonl` blocks whoever opens it, and a line read whole before it is measured costs its full
size in memory. So every read goes through here: only regular files are opened, decompressed bytes
are counted against a per-file bound, and lines are measured while they are read, in pieces, so a
line past its bound is refused having cost at most the bound. The bounds are settings
(`INSPECTOR_MAX_LINE_MB`, `INSPECTOR_MAX_FILE_MB`; the CLI's `--max-line-mb` / `--max-file-mb`
set them), generous enough for real sessions of hundreds of megabytes. A container's parts go through
here too: a zip member is refused past the per-file bound before it is decompressed whole. An SQLite
database is read through the same bounds, applied to the rows it gives (`bounded_sqlite`).
"""

from __future__ import annotations

import io
import os
import stat
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:  # loads with the first container read, not with every command
    import zipfile

from inspector.errors import TraceReadError

_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
ZIP_MAGIC = b"PK\x03\x04"
SQLITE_MAGIC = b"SQLite format 3\x00"
_ZSTD_METHOD = 93
"""inspect_ai writes `.eval` members zstd-compressed (ZIP method 93), which zipfile reads only from Python 3.14."""
HEAD_BYTES = 64 * 1024
MB = 1 << 20
LINE_PIECE = 1 << 20
"""How much of a line is read at a time: lines shorter than this (nearly all) are read in one call."""

LINE_SETTING, FILE_SETTING = "INSPECTOR_MAX_LINE_MB", "INSPECTOR_MAX_FILE_MB"


@dataclass(frozen=True, slots=True)
class ReadLimits:
    """How much one trace may hold; past either bound the file is refused with one line."""

    max_line_bytes: int = 64 * MB
    """One JSON record: a line, or a database's row and each value in it. Real tool results with whole files or
    images inlined stay well under it."""
    max_file_bytes: int = 4096 * MB
    """Decompressed bytes of one file (a database: with its log): four times the largest real sessions we have
    seen. What a database gives in one reading is bounded by its size on disk, which is within this."""


def read_limits() -> ReadLimits:
    """The bounds in force: the defaults, raised or lowered by the two settings (in MB)."""
    default = ReadLimits()
    return ReadLimits(
        _setting(LINE_SETTING, default.max_line_bytes),
        _setting(FILE_SETTING, default.max_file_bytes),
    )


def _setting(name: str, default: int) -> int:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        megabytes = float(text)
    except ValueError:
        raise TraceReadError(name, f"{text!r} is not a number of megabytes") from None
    if megabytes <= 0:
        raise TraceReadError(name, f"{text!r} must be more than 0 megabytes")
    return int(megabytes * MB)


def as_megabytes(size: int) -> str:
    """A size as the bounds' messages say it: "64 MB", "0.5 MB"."""
    return f"{round(size / MB, 3):g} MB"


def open_regular(path: Path) -> BinaryIO:
    """Open `path` for reading only if it is a regular file: a FIFO or device would block or never end.

    The file is opened without blocking and checked on its descriptor, so a FIFO is refused
    instead of waiting for a writer, and a swap between check and open cannot slip one through.
    """
    return _open_regular(path)[0]


def _open_regular(path: Path) -> tuple[BinaryIO, os.stat_result]:
    """The open file and its descriptor's status (what was opened, not what the path names a moment later)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise TraceReadError(str(path), "no such file") from None
    except IsADirectoryError:
        raise TraceReadError(str(path), "is a directory, not a trace file") from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        raise TraceReadError(str(path), f"cannot open: {getattr(exc, 'strerror', None) or exc}") from None
    status = os.fstat(descriptor)
    mode = status.st_mode
    if not stat.S_ISREG(mode):
        os.close(descriptor)
        kind = "a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "a device or socket"
        raise TraceReadError(str(path), f"is {kind}, not a regular trace file")
    os.set_blocking(descriptor, True)
    return os.fdopen(descriptor, "rb"), status


class _Capped(io.RawIOBase):
    """A decompressed stream that refuses to give more than `limit` bytes: the bomb stops here."""

    def __init__(self, inner: BinaryIO, path: Path, limit: int) -> None:
        self._inner, self._path, self._limit, self._given = inner, path, limit, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        count = self._inner.readinto(buffer)  # type: ignore[attr-defined]
        self._given += count or 0
        if self._given > self._limit:
            raise TraceReadError(str(self._path), _too_large(self._limit))
        return count

    def close(self) -> None:
        self._inner.close()
        super().close()


def _too_large(limit: int) -> str:
    return (f"decompresses to more than {as_megabytes(limit)}, the per-file limit "
            f"(raise it with --max-file-mb or {FILE_SETTING})")  # fmt: skip


def open_binary(path: Path, limits: ReadLimits | None = None) -> BinaryIO:
    """Open a trace for streaming reads, transparently decompressing `.zst` files, within the bounds."""
    return _open_binary(path, limits or read_limits())[0]


def _open_binary(path: Path, limits: ReadLimits) -> tuple[BinaryIO, os.stat_result]:
    raw, status = _open_regular(path)
    if raw.read(4) == _ZSTD_MAGIC:
        raw.seek(0)
        import zstandard

        # Every frame, not only the first: `cat a.zst b.zst` is a valid zstd file.
        reader = zstandard.ZstdDecompressor().stream_reader(raw, closefd=True, read_across_frames=True)
        return io.BufferedReader(_Capped(reader, path, limits.max_file_bytes)), status  # type: ignore[arg-type]
    raw.seek(0)
    if status.st_size > limits.max_file_bytes:
        raw.close()
        raise TraceReadError(str(path), f"is larger than {as_megabytes(limits.max_file_bytes)}, the per-file limit "
                                        f"(raise it with --max-file-mb or {FILE_SETTING})")  # fmt: skip
    return raw, status


def bounded_lines(stream: BinaryIO, path: Path, limit: int) -> Iterator[tuple[int, bytes | bytearray]]:
    """(1-based line number, raw line with its newline) from `stream`, refusing a line over `limit` bytes.

    A line is read in pieces of `LINE_PIECE`, so a longer one grows one buffer (linear time) and is
    refused as soon as it passes the bound, never read whole first. Read errors become one
    `TraceReadError` naming the line.
    """
    number = 0
    try:
        while True:
            line: bytes | bytearray = stream.readline(LINE_PIECE)
            if not line:
                return
            number += 1
            if len(line) == LINE_PIECE and not line.endswith(b"\n"):
                line = _rest_of_line(stream, bytearray(line), path, number, limit)
            elif len(line) > limit:
                raise _line_too_long(path, number, limit)
            yield number, line
    except TraceReadError as error:
        if error.line is None and error.path == str(path):
            error.line = number or 1
        raise
    except Exception as exc:  # corrupt zstd frames, I/O errors
        raise TraceReadError(str(path), f"cannot read: {exc}", number + 1) from None


def _rest_of_line(stream: BinaryIO, line: bytearray, path: Path, number: int, limit: int) -> bytearray:
    while not line.endswith(b"\n"):
        if len(line) > limit:
            raise _line_too_long(path, number, limit)
        piece = stream.readline(LINE_PIECE)
        if not piece:
            break
        line += piece
    if len(line) > limit:
        raise _line_too_long(path, number, limit)
    return line


def _line_too_long(path: Path, number: int, limit: int) -> TraceReadError:
    return TraceReadError(str(path), f"line longer than {as_megabytes(limit)}, the per-line limit "
                                     f"(raise it with --max-line-mb or {LINE_SETTING})", number)  # fmt: skip


def read_head(path: Path, size: int = HEAD_BYTES) -> bytes:
    """The first bytes of a (decompressed) file, for format sniffing."""
    with open_binary(path) as stream:
        try:
            return stream.read(size)
        except TraceReadError:
            raise
        except Exception as exc:  # corrupt zstd frames and the like
            raise TraceReadError(str(path), f"cannot read: {exc}") from None


def iter_lines(path: Path) -> Iterator[tuple[int, bytes | bytearray]]:
    """Yield (1-based line number, line without newline); memory stays one (bounded) line deep."""
    limits = read_limits()
    with open_binary(path, limits) as stream:
        for number, line in bounded_lines(stream, path, limits.max_line_bytes):
            yield number, line.rstrip(b"\r\n")


def read_all(path: Path) -> bytes:
    """A whole (single-document) file, within the per-file bound."""
    return read_with_status(path)[0]


def read_with_status(path: Path) -> tuple[bytes, os.stat_result]:
    """A whole file, within the per-file bound, and its status as it was opened: which version was read, with no
    second look at the path (a system call per file, in a folder of thousands)."""
    stream, status = _open_binary(path, read_limits())
    with stream:
        try:
            return stream.read(), status
        except TraceReadError:
            raise
        except Exception as exc:
            raise TraceReadError(str(path), f"cannot read: {exc}") from None


def read_member(path: Path, info: zipfile.ZipInfo, limit: int) -> bytes:
    """A zip member's bytes, refusing one that would decompress past `limit` (a zip bomb)."""
    import zipfile

    if info.file_size > limit:
        raise TraceReadError(str(path), f"{info.filename} is larger than the per-file limit")
    try:
        with open_regular(path) as raw:
            if info.compress_type == _ZSTD_METHOD:
                data = _zstd_member(raw, info, limit)
            else:
                with zipfile.ZipFile(raw) as archive, archive.open(info) as stream:
                    data = stream.read(limit + 1)
    except TraceReadError:
        raise
    except (zipfile.BadZipFile, NotImplementedError, OSError, ValueError, EOFError, RuntimeError) as exc:
        raise TraceReadError(str(path), f"{info.filename}: cannot read ({exc})") from None
    if len(data) > limit:
        raise TraceReadError(str(path), f"{info.filename} decompresses past the per-file limit")
    return data


def _zstd_member(raw: IO[bytes], info: zipfile.ZipInfo, limit: int) -> bytes:
    """Decompress a zstd member by hand: its local header gives where the compressed bytes start."""
    import zstandard

    raw.seek(info.header_offset)
    local = raw.read(30)
    if len(local) < 30 or local[:4] != ZIP_MAGIC:
        raise ValueError("bad local file header")
    name_length, extra_length = struct.unpack("<HH", local[26:30])
    raw.seek(info.header_offset + 30 + name_length + extra_length)
    compressed = raw.read(info.compress_size)
    reader = zstandard.ZstdDecompressor().stream_reader(compressed, read_across_frames=True)
    try:
        return reader.read(limit + 1)  # one byte past the bound: the caller refuses what reaches it
    except zstandard.ZstdError as exc:
        raise ValueError(f"zstd: {exc}") from None


def is_zip(path: Path) -> bool:
    """Does the file start as a zip does? Never raises: a folder, a FIFO, a torn or missing file is no zip.
    Both the reader of a zip container and the registry, before it loads that reader, ask this."""
    try:
        return not path.is_dir() and read_head(path, len(ZIP_MAGIC)) == ZIP_MAGIC
    except Exception:
        return False


def is_sqlite(path: Path) -> bool:
    """Does the regular file start as an SQLite database does (its raw bytes, never decompressed)? Never raises."""
    try:
        if not path.is_file():
            return False
        with open_regular(path) as stream:
            return stream.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except Exception:
        return False


__all__ = ["FILE_SETTING", "LINE_SETTING", "MB", "SQLITE_MAGIC", "ZIP_MAGIC", "ReadLimits", "as_megabytes",
           "bounded_lines", "is_sqlite", "is_zip", "iter_lines", "open_binary", "open_regular", "read_all", "read_head",
           "read_limits", "read_member", "read_with_status"]  # fmt: skip
