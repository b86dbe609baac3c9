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

Whoever reads for someone less trusted (the app, for an anonymous upload) sets smaller bounds for the reads it
makes, `with reading_within(limits):`, and every reader, which asks `read_limits()`, reads within them: the
bounds reach every format without passing through each reader's signature.
"""

from __future__ import annotations

import errno
import io
import os
import stat
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:  # loads with the first container read, not with every command
    import zipfile

from inspector.env_settings import positive_setting
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
EXPANSION_SETTING = "INSPECTOR_MAX_EXPANSION"
MAX_FOLDER_FILES = 1_000_000
"""More files than any folder trace holds: past it a folder is refused, not listed into memory."""


@dataclass(frozen=True, slots=True)
class ReadLimits:
    """How much one trace may hold; past either bound the file is refused with one line."""

    max_line_bytes: int = 64 * MB
    """One JSON record: a line, or a database's row and each value in it. Real tool results with whole files or
    images inlined stay well under it."""
    max_file_bytes: int = 4096 * MB
    """Decompressed bytes of one file (a database: with its log): four times the largest real sessions we have
    seen. What a database gives in one reading is bounded by its size on disk, which is within this."""
    expansion_ratio: int = 1_000
    """How many times its compressed size a document read whole (a `.zst` JSON file, an archive's member) may
    decompress to, past `expansion_floor_bytes`. A real 3.8 MB Claude Code log compresses 12x (zstd -19) and the
    same log repeated fifty times 550x; runs of one byte, what a bomb is made of, 30,000x. A document is parsed
    whole, so what it decompresses to is held: a 135 KB member must not be allowed to become gigabytes in memory
    merely because the per-file bound is trusted-user sized."""
    expansion_floor_bytes: int = 64 * MB
    """A document may always decompress to this much, however small its compressed form: a tiny, very
    repetitive session is no threat at this size."""
    line_bound: str = f"the per-line limit (raise it with --max-line-mb or {LINE_SETTING})"
    """How a refusal names the per-line bound and what raises it: whoever set the bounds knows."""
    file_bound: str = f"the per-file limit (raise it with --max-file-mb or {FILE_SETTING})"
    """How a refusal names the per-file bound and what raises it."""


_IN_FORCE: ContextVar[ReadLimits | None] = ContextVar("read_limits_in_force", default=None)
"""Bounds set for the reads of one task (a thread of the app serving an upload), over the settings."""


def read_limits() -> ReadLimits:
    """The bounds in force: those `reading_within` set, else the defaults raised or lowered by the two settings."""
    return _IN_FORCE.get() or settings_limits()


def settings_limits() -> ReadLimits:
    """The defaults, raised or lowered by the settings (two in MB, the expansion a ratio): a trusted user's bounds."""
    default = ReadLimits()
    return ReadLimits(
        max_line_bytes=megabytes_setting(LINE_SETTING, default.max_line_bytes),
        max_file_bytes=megabytes_setting(FILE_SETTING, default.max_file_bytes),
        expansion_ratio=_ratio_setting(EXPANSION_SETTING, default.expansion_ratio),
    )


def _ratio_setting(name: str, default: int) -> int:
    """A whole ratio set by the environment variable `name`; `TraceReadError` naming it if it is none."""
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    if not text.isdigit() or int(text) < 1:
        raise TraceReadError(name, f"{text!r} is not a whole number of times (1 or more)")
    return int(text)


@contextmanager
def reading_within(limits: ReadLimits) -> Iterator[ReadLimits]:
    """Every read in this block (this thread or task only) is within `limits`: one place sets the bounds of all the
    files a trace is read from, whichever reader reads them."""
    token = _IN_FORCE.set(limits)
    try:
        yield limits
    finally:
        _IN_FORCE.reset(token)


def megabytes_setting(name: str, default: int) -> int:
    """A bound set in MB by the environment variable `name`, in bytes; `TraceReadError` naming it if it is no size."""
    try:
        megabytes = positive_setting(name, "megabytes")
    except ValueError as error:
        raise TraceReadError(name, str(error)) from None
    return default if megabytes is None else int(megabytes * MB)


def as_megabytes(size: int) -> str:
    """A size as the bounds' messages say it: "64 MB", "0.5 MB"."""
    return f"{round(size / MB, 3):g} MB"


def open_regular(path: Path, *, follow_links: bool = True) -> BinaryIO:
    """Open `path` for reading only if it is a regular file: a FIFO or device would block or never end.

    The file is opened without blocking and checked on its descriptor, so a FIFO is refused
    instead of waiting for a writer, and a swap between check and open cannot slip one through.
    `follow_links=False` refuses a symbolic link as the last part of the path (a file of a folder trace,
    where a planted link would read a file from outside the folder).
    """
    return _open_regular(path, follow_links)[0]


def _open_regular(path: Path, follow_links: bool = True) -> tuple[BinaryIO, os.stat_result]:
    """The open file and its descriptor's status (what was opened, not what the path names a moment later)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow_links:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        descriptor = os.open(path, flags)
    except FileNotFoundError:
        raise TraceReadError(str(path), "no such file") from None
    except IsADirectoryError:
        raise TraceReadError(str(path), "is a directory, not a trace file") from None
    except OSError as exc:
        if not follow_links and exc.errno == errno.ELOOP:  # what O_NOFOLLOW says of a link
            raise TraceReadError(str(path), "is a symbolic link, not followed") from None
        raise TraceReadError(str(path), f"cannot open: {exc.strerror or exc}") from None
    except ValueError as exc:  # a NUL in the path
        raise TraceReadError(str(path), f"cannot open: {exc}") from None
    status = os.fstat(descriptor)
    mode = status.st_mode
    if not stat.S_ISREG(mode):
        os.close(descriptor)
        kind = "a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "a device or socket"
        raise TraceReadError(str(path), f"is {kind}, not a regular trace file")
    os.set_blocking(descriptor, True)
    return os.fdopen(descriptor, "rb"), status


class _Capped(io.RawIOBase):
    """A decompressed stream that refuses to give more than the per-file bound: the bomb stops here."""

    def __init__(self, inner: BinaryIO, path: Path, limits: ReadLimits) -> None:
        self._inner, self._path, self._limits, self._given = inner, path, limits, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        count = self._inner.readinto(buffer)  # type: ignore[attr-defined]
        self._given += count or 0
        if self._given > self._limits.max_file_bytes:
            raise TraceReadError(str(self._path), _too_large(self._limits))
        return count

    def close(self) -> None:
        self._inner.close()
        super().close()


def _too_large(limits: ReadLimits) -> str:
    return f"decompresses to more than {as_megabytes(limits.max_file_bytes)}, {limits.file_bound}"


def document_bound(limits: ReadLimits, compressed: int) -> int:
    """How much a document of `compressed` bytes may decompress to: the per-file bound, or less for a document
    that would expand past `expansion_ratio` times its size (a compression bomb)."""
    return min(limits.max_file_bytes, max(limits.expansion_floor_bytes, compressed * limits.expansion_ratio))


def _expanded(limits: ReadLimits, compressed: int) -> str:
    return (f"decompresses to more than {limits.expansion_ratio} times its {as_megabytes(compressed)} "
            f"(a compression bomb; raise the ratio with {EXPANSION_SETTING})")


def open_binary(path: Path, limits: ReadLimits | None = None) -> BinaryIO:
    """Open a trace for streaming reads, transparently decompressing `.zst` files, within the bounds."""
    return _open_binary(path, limits or read_limits())[0]


def _open_binary(path: Path, limits: ReadLimits, follow_links: bool = True) -> tuple[BinaryIO, os.stat_result]:
    raw, status = _open_regular(path, follow_links)
    if raw.read(4) == _ZSTD_MAGIC:
        raw.seek(0)
        import zstandard

        # Every frame, not only the first: `cat a.zst b.zst` is a valid zstd file.
        reader = zstandard.ZstdDecompressor().stream_reader(raw, closefd=True, read_across_frames=True)
        return io.BufferedReader(_Capped(reader, path, limits)), status  # type: ignore[arg-type]
    raw.seek(0)
    if status.st_size > limits.max_file_bytes:
        raw.close()
        raise TraceReadError(str(path), f"is larger than {as_megabytes(limits.max_file_bytes)}, {limits.file_bound}")
    return raw, status


def _count_through(stream: IO[bytes], limit: int) -> int:
    """Read `stream` in pieces, keeping none, to its end or just past `limit`: how many bytes it gave.

    A whole document is decompressed twice: first counted here, so a bomb costs time up to the bound and one piece
    of memory, never the bound itself; then read, once it is known to fit."""
    total = 0
    while total <= limit and (piece := stream.read(LINE_PIECE)):
        total += len(piece)
    return total


def bounded_lines(stream: BinaryIO, path: Path, limits: ReadLimits, before: int = 0
                  ) -> Iterator[tuple[int, bytes | bytearray]]:  # fmt: skip
    """(1-based line number, raw line with its newline) from `stream`, refusing a line over the per-line bound;
    `before` lines were read before the stream's position.

    A line is read in pieces of `LINE_PIECE`, so a longer one grows one buffer (linear time) and is
    refused as soon as it passes the bound, never read whole first. Read errors become one
    `TraceReadError` naming the line.
    """
    number, limit = before, limits.max_line_bytes
    try:
        while True:
            line: bytes | bytearray = stream.readline(LINE_PIECE)
            if not line:
                return
            number += 1
            if len(line) == LINE_PIECE and not line.endswith(b"\n"):
                line = _rest_of_line(stream, bytearray(line), path, number, limits)
            elif len(line) > limit:
                raise _line_too_long(path, number, limits)
            yield number, line
    except TraceReadError as error:
        if error.line is None and error.path == str(path):
            error.line = number or 1
        raise
    except Exception as exc:  # corrupt zstd frames, I/O errors
        raise TraceReadError(str(path), f"cannot read: {exc}", number + 1) from None


def _rest_of_line(stream: BinaryIO, line: bytearray, path: Path, number: int, limits: ReadLimits) -> bytearray:
    while not line.endswith(b"\n"):
        if len(line) > limits.max_line_bytes:
            raise _line_too_long(path, number, limits)
        piece = stream.readline(LINE_PIECE)
        if not piece:
            break
        line += piece
    if len(line) > limits.max_line_bytes:
        raise _line_too_long(path, number, limits)
    return line


def _line_too_long(path: Path, number: int, limits: ReadLimits) -> TraceReadError:
    return TraceReadError(str(path), f"line longer than {as_megabytes(limits.max_line_bytes)}, {limits.line_bound}",
                          number)  # fmt: skip


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
        for number, line in bounded_lines(stream, path, limits):
            yield number, line.rstrip(b"\r\n")


def read_all(path: Path, *, follow_links: bool = True) -> bytes:
    """A whole (single-document) file, within the per-file bound (`follow_links` as `open_regular`)."""
    return read_with_status(path, follow_links=follow_links)[0]


def raw_chunks(path: Path, *, follow_links: bool = True, size: int = 1 << 20) -> Iterator[bytes]:
    """A regular file's bytes as stored (never decompressed), in pieces, refused past the per-file bound: what a
    hash of the file reads. `follow_links` as `open_regular`."""
    limits = read_limits()
    limit = limits.max_file_bytes
    with open_regular(path, follow_links=follow_links) as stream:
        given = 0
        try:
            for chunk in iter(lambda: stream.read(size), b""):
                given += len(chunk)  # counted as read: the file may grow after it was opened
                if given > limit:
                    raise TraceReadError(str(path), f"is larger than {as_megabytes(limit)}, {limits.file_bound}")
                yield chunk
        except OSError as exc:
            raise TraceReadError(str(path), f"cannot read: {exc.strerror or exc}") from None


def read_with_status(path: Path, *, follow_links: bool = True) -> tuple[bytes, os.stat_result]:
    """A whole file, within the per-file bound, and its status as it was opened: which version was read, with no
    second look at the path (a system call per file, in a folder of thousands). A compressed file is counted through
    before it is read (`_count_through`). `follow_links` as `open_regular`."""
    limits = read_limits()
    try:
        stream, status = _open_binary(path, limits, follow_links)
        with stream:
            if not isinstance(getattr(stream, "raw", None), _Capped):  # a plain file, its size checked on opening
                return stream.read(), status
            bound = document_bound(limits, status.st_size)
            if _count_through(stream, bound) > bound:  # the capped stream refuses past the per-file bound itself
                raise TraceReadError(str(path), _expanded(limits, status.st_size))
        stream, status = _open_binary(path, limits, follow_links)  # it fits: read it (a file rewritten since is capped)
        with stream:
            return stream.read(), status
    except TraceReadError:
        raise
    except Exception as exc:
        raise TraceReadError(str(path), f"cannot read: {exc}") from None


def read_member(path: Path, info: zipfile.ZipInfo, limits: ReadLimits | None = None) -> bytes:
    """A zip member's bytes, refusing one that would decompress past the per-file bound (a zip bomb).

    zipfile stops a member at the size the zip declares (and checks its CRC), so a declared size within the bound
    is all a deflated member can give. A zstd member is decompressed here, where only the decompressed bytes
    can say its size: it is counted through first (`_count_through`), then read."""
    import zipfile

    limits = limits or read_limits()
    limit = limits.max_file_bytes
    if info.file_size > limit:
        raise TraceReadError(str(path), f"{info.filename} is larger than {as_megabytes(limit)}, {limits.file_bound}")
    expansion = document_bound(limits, info.compress_size)
    if info.file_size > expansion:
        raise TraceReadError(str(path), f"{info.filename} {_expanded(limits, info.compress_size)}")
    try:
        with open_regular(path) as raw:
            if info.compress_type == _ZSTD_METHOD:  # its declared size may lie: only decompressing tells
                data = _zstd_member(raw, info, expansion)  # None: past the bound
            else:
                with zipfile.ZipFile(raw) as archive, archive.open(info) as stream:
                    data = stream.read(limit + 1)
    except TraceReadError:
        raise
    except (zipfile.BadZipFile, NotImplementedError, OSError, ValueError, EOFError, RuntimeError) as exc:
        raise TraceReadError(str(path), f"{info.filename}: cannot read ({exc})") from None
    if data is None and expansion < limit:
        raise TraceReadError(str(path), f"{info.filename} {_expanded(limits, info.compress_size)}")
    if data is None or len(data) > limit:
        raise TraceReadError(str(path), f"{info.filename} {_too_large(limits)}")
    return data


def _zstd_member(raw: IO[bytes], info: zipfile.ZipInfo, limit: int) -> bytes | None:
    """Decompress a zstd member by hand: its local header gives where the compressed bytes start. None when it
    decompresses past `limit`, found having held none of it."""
    import zstandard

    raw.seek(info.header_offset)
    local = raw.read(30)
    if len(local) < 30 or local[:4] != ZIP_MAGIC:
        raise ValueError("bad local file header")
    name_length, extra_length = struct.unpack("<HH", local[26:30])
    raw.seek(info.header_offset + 30 + name_length + extra_length)
    compressed = raw.read(info.compress_size)
    decompressor = zstandard.ZstdDecompressor()
    try:
        size = _count_through(decompressor.stream_reader(compressed, read_across_frames=True), limit)
        if size > limit:
            return None
        return decompressor.stream_reader(compressed, read_across_frames=True).read(size)  # type: ignore[no-any-return]
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


__all__ = ["EXPANSION_SETTING", "FILE_SETTING", "LINE_SETTING", "MAX_FOLDER_FILES", "MB", "SQLITE_MAGIC",
           "ZIP_MAGIC", "ReadLimits", "as_megabytes", "bounded_lines", "is_sqlite", "is_zip", "iter_lines",
           "megabytes_setting", "open_binary", "open_regular", "positive_setting", "raw_chunks", "read_all",
           "read_head", "read_limits", "read_member", "read_with_status", "reading_within",
           "settings_limits"]  # fmt: skip
