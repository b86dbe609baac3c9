"""Where a reading of a growing Claude Code log stopped, so that the next one reads only what was appended.

The guard reads the whole log at every compaction, yet a Claude Code log only grows: a rewind, a resume or a
second `/compact` appends, never rewrites. The pass over the lines (`claude_code._Reader.parse`) keeps what the
rest of the reading needs of them: the uuid DAG with each turn's record, the compaction points, the queue, the
harness's touched keys, the counts. That state after the last complete line is a `ReadState`, with where the line
ended; put back into a fresh reader, it reads from that byte on (`claude_code.read_resuming`). What is
built from the state (the chain, the turns, the trace) is built again in full, as it depends on every record.

A state is taken up only when it is certainly this log's:
- written by this very code (`code_digest`: of the source of every module the pass runs): any change to
  how lines are read makes the old state unreadable, never misread;
- for this file (its device and inode), no shorter than where the state stopped, and with the same last
  `FINGERPRINT_BYTES` before that point: a log replaced, truncated or rewritten near its end is read whole.
A rewrite of bytes further back, keeping the length, is not seen: the log is append-only by its writer's
design, and reading only what was appended means not reading the rest.

No state is written for a log whose last line has no line break (a line being written: it is read now, and
must be read again in full next time) or that is compressed. The state is msgpack decoded into these types, and
anything that does not decode is no state: a file in a cache folder must not be able to run code.
"""

from __future__ import annotations

import hashlib
import os
import sys
from functools import cache
from pathlib import Path
from typing import Any

import msgspec

from inspector.readers.claude_code_chain import Node
from inspector.readers.claude_code_queue import QueueOp
from inspector.readers.claude_code_records import Record

FINGERPRINT_BYTES = 4096
"""Bytes before the point a state stopped that must be unchanged for it to be taken up: the last line or lines,
where a log rewritten or cut short and grown again would differ."""

_MODULES = ("inspector.readers.claude_code", "inspector.readers.claude_code_records",
            "inspector.readers.claude_code_chain", "inspector.readers.claude_code_queue",
            "inspector.readers.claude_code_progress", "inspector.readers.claude_code_fates",
            "inspector.readers.json_lines", "inspector.readers.values", "inspector.bounded_io",
            "inspector.readers.transcript", __name__)  # fmt: skip
"""Every module whose code decides what the pass over the lines keeps."""


class TouchedState(msgspec.Struct, array_like=True):
    line: int
    namespace: str
    name: str
    action: str
    message: str | None
    timestamp: str | None


class PointState(msgspec.Struct, array_like=True):
    line: int
    kind: str
    record: Record
    node: int
    """The node's index in the DAG, or -1 for a point that is no node."""


class ReadState(msgspec.Struct, forbid_unknown_fields=True):
    """The pass over a log's lines, up to `offset`, as `capture` takes it."""

    code: str
    device: int
    inode: int
    offset: int
    fingerprint: str
    lines: int
    records: int
    malformed: int
    blank: int
    notices: list[tuple[str, str]]
    nodes: list[Node]
    written: list[tuple[str, str, str | None, str | None]]
    copies: dict[str, list[int]]
    points: list[PointState]
    queue: list[QueueOp]
    touched: list[TouchedState]
    fates: dict[str, int]
    unknown_types: dict[str, int]
    unknown_fields: dict[str, int]
    counts: dict[str, int]
    titles: dict[str, str]
    session_id: str | None
    agent_id: str | None
    version: str | None
    cwd: str | None
    slug: str | None
    main_seen: bool


_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(ReadState)


@cache
def code_digest() -> str:
    """A digest of the source of every module the pass runs (`_MODULES`), or "" when one has no source to read.
    Once per process: the code that runs is the code loaded, whatever the files say later, and a resumed reading
    asks twice (the kept state's, then the new one's)."""
    digest = hashlib.blake2b(digest_size=16)
    for name in _MODULES:
        module = sys.modules.get(name)
        origin = getattr(module, "__file__", None)
        try:
            digest.update(Path(origin).read_bytes() if origin else b"")
        except OSError:
            return ""
        if not origin:
            return ""
    return digest.hexdigest()


def fingerprint(stream: Any, offset: int) -> str:
    """BLAKE2b of the `FINGERPRINT_BYTES` before `offset` in an open binary file."""
    start = max(0, offset - FINGERPRINT_BYTES)
    stream.seek(start)
    return hashlib.blake2b(stream.read(offset - start), digest_size=16).hexdigest()


def encoded(state: ReadState) -> bytes | None:
    """The state as kept, or None when one of its values is none msgpack can hold."""
    try:
        return _ENCODER.encode(state)
    except (msgspec.EncodeError, OverflowError, TypeError):
        return None


def stamp(path: Path, offset: int) -> tuple[str, int, int, str] | None:
    """(code, device, inode, fingerprint) a state of this log read to `offset` carries; None if the log cannot
    be resumed (its file unreadable, or this code's source not there to digest)."""
    code = code_digest()
    if not code:
        return None
    try:
        status = os.stat(path)
        with open(path, "rb") as stream:
            return code, status.st_dev, status.st_ino, fingerprint(stream, offset)
    except OSError:
        return None


def decoded(blob: bytes, path: Path) -> ReadState | None:
    """The kept state, when it is certainly this log's (the module's docstring), else None."""
    try:
        state = _DECODER.decode(blob)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None
    if not state.code or state.code != code_digest():
        return None
    if any(not -1 <= p.node < len(state.nodes) for p in state.points):
        return None
    try:
        status = os.stat(path)
        if (status.st_dev, status.st_ino) != (state.device, state.inode) or status.st_size < state.offset:
            return None
        with open(path, "rb") as stream:
            return state if fingerprint(stream, state.offset) == state.fingerprint else None
    except OSError:
        return None


__all__ = ["FINGERPRINT_BYTES", "PointState", "ReadState", "TouchedState", "code_digest", "decoded", "encoded",
           "fingerprint", "stamp"]
