"""File access for readers: plain or zstd-compressed, streamed, with readable errors."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from inspector.errors import TraceReadError

_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
HEAD_BYTES = 64 * 1024


def open_binary(path: Path) -> BinaryIO:
    """Open a trace for streaming reads, transparently decompressing `.zst` files."""
    try:
        raw = path.open("rb")
    except FileNotFoundError:
        raise TraceReadError(str(path), "no such file") from None
    except IsADirectoryError:
        raise TraceReadError(str(path), "is a directory, not a trace file") from None
    except OSError as exc:
        raise TraceReadError(str(path), f"cannot open: {exc.strerror or exc}") from None
    if raw.read(4) == _ZSTD_MAGIC:
        raw.seek(0)
        import zstandard

        reader = zstandard.ZstdDecompressor().stream_reader(raw, closefd=True)
        return io.BufferedReader(reader)  # type: ignore[arg-type]
    raw.seek(0)
    return raw


def read_head(path: Path, size: int = HEAD_BYTES) -> bytes:
    """The first bytes of a (decompressed) file, for format sniffing."""
    with open_binary(path) as stream:
        try:
            return stream.read(size)
        except Exception as exc:  # corrupt zstd frames and the like
            raise TraceReadError(str(path), f"cannot read: {exc}") from None


def iter_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """Yield (1-based line number, line bytes without newline); memory stays one line deep."""
    with open_binary(path) as stream:
        number = 0
        try:
            for number, line in enumerate(stream, start=1):  # noqa: B007
                yield number, line.rstrip(b"\r\n")
        except TraceReadError:
            raise
        except Exception as exc:
            raise TraceReadError(str(path), f"cannot read: {exc}", number + 1) from None


def read_all(path: Path) -> bytes:
    with open_binary(path) as stream:
        try:
            return stream.read()
        except Exception as exc:
            raise TraceReadError(str(path), f"cannot read: {exc}") from None
