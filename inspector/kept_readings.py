"""Where the guard's last reading of each session log stopped, kept between its runs so the next reads on from there.

The guard reads a session's log at every compaction, and a Claude Code log only grows: at the tenth compaction of a
100 MB session it would parse again the 90 MB it parsed at the ninth. The reader can hand back the state its pass
over the lines reached (`claude_code_resume`); this keeps that state, one file per log, in the cache folder
(`data_folder.cache_folder`, under `readings/`): it is derived from the log and rebuilt by a full reading if it
is lost, so it is cache, not the user's data. Whether a kept state is certainly its log's the reader decides;
this only files it under a digest of the log's path.

Bounded: a log under `KEPT_FROM_BYTES` is not kept (reading it whole costs less than keeping it), and past
`MAX_KEPT` files the least recently written go. Anything wrong with the folder or a file (missing, unwritable,
not ours, cut short by the guard's clock) costs a full reading, never a different one.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from collections.abc import Callable
from pathlib import Path

from inspector.data_folder import cache_folder
from inspector.model import Trace
from inspector.readers import load_resuming, load_trace

KEPT_FROM_BYTES = 16 * 1024 * 1024
"""Logs smaller than this are read whole each time: a real 4 MB session's pass over its lines takes 0.03 s, less
than keeping its state would cost to write and read back; past 16 MB the pass passes 0.1 s."""
MAX_KEPT = 8
"""States kept at most, the least recently written dropped past it: the sessions one user works in at a time. A
state holds about two thirds of its log's bytes (the turns' records), so eight of 100 MB logs are about 0.5 GB."""
MAX_STATE_BYTES = 512 * 1024 * 1024
"""A state file larger than this is not read back: no reading of a log within the read bounds makes one."""
_STALE_SECONDS = 600
"""A half-written state older than this was left by a guard its clock stopped: removed by the next one."""
_SUFFIX = ".msgpack"


def folder() -> Path:
    return cache_folder() / "readings"


def state_name(log: Path) -> str:
    """The name of the file a log's state is kept in: a digest of the log's full path."""
    name = hashlib.blake2b(str(log.resolve()).encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    return f"{name}{_SUFFIX}"


def _file(log: Path, where: Path) -> Path:
    return where / state_name(log)


def load(log: Path, session: str | None = None, where: Path | None = None
         ) -> tuple[Trace, Callable[[], bytes | None] | None]:  # fmt: skip
    """The log as `load_trace` reads it, read on from its kept state where there is one; and what gives the state
    its reading reached, for `keep` (None for a log not worth keeping, or a session named inside a container)."""
    try:
        large = session is None and log.stat().st_size >= KEPT_FROM_BYTES
    except (OSError, ValueError):
        large = False  # the reader names what is wrong with the path
    if not large:
        return load_trace(log, session=session), None
    return load_resuming(log, kept(log, where))


def kept(log: Path, where: Path | None = None) -> bytes | None:
    """The state kept for this log, or None (none kept, too small a log to keep one, or it cannot be read)."""
    try:
        if log.stat().st_size < KEPT_FROM_BYTES:
            return None
        path = _file(log, where or folder())
        if path.stat().st_size > MAX_STATE_BYTES:
            return None
        return path.read_bytes()
    except (OSError, ValueError):
        return None


def keep(log: Path, reached: Callable[[], bytes | None] | None, where: Path | None = None) -> None:
    """Keep the state a reading of this log reached (`load`), replacing the one before it, and drop the oldest past
    `MAX_KEPT`. Written whole or not at all: a guard stopped mid-write leaves a temporary file, never a cut state."""
    try:
        state = reached() if reached is not None else None
    except MemoryError:
        return  # the guard's memory limit: its output is printed, and the next reading is a whole one
    if state is None or len(state) > MAX_STATE_BYTES:
        return
    where = where or folder()
    try:
        path = _file(log, where)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        where.mkdir(parents=True, exist_ok=True)
    except (OSError, ValueError):
        return
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # the user's words: theirs
        with os.fdopen(descriptor, "wb") as out:
            out.write(state)
        os.replace(temporary, path)
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            os.unlink(temporary)  # a full disk, a folder gone: no half-written file is left behind
        return
    _drop_oldest(where)


def keep_detached(log: Path, reached: Callable[[], bytes | None] | None, where: Path | None = None) -> None:
    """`keep`, in a copy of this process that nobody waits for: encoding and writing a 100 MB log's state takes
    about 0.3 s, which the guard's hook (and the agent behind it) would otherwise wait out at every compaction. The
    copy holds none of this process's pipes (the hook reads its output to the end) and ends when the file is
    written; where there is no `fork`, the state is kept here."""
    if reached is None:
        return
    fork = getattr(os, "fork", None)
    if fork is None:
        keep(log, reached, where)
        return
    try:
        if fork():
            return
    except OSError:
        return  # no process to spare: the next reading is a whole one
    try:
        quiet = os.open(os.devnull, os.O_RDWR)
        for stream in (0, 1, 2):
            os.dup2(quiet, stream)
        keep(log, reached, where)
    finally:
        os._exit(0)


def _drop_oldest(where: Path) -> None:
    try:
        entries = list(os.scandir(where))
    except OSError:
        return
    now = time.time()
    states = []
    for entry in entries:
        with contextlib.suppress(OSError):
            if entry.name.endswith(".tmp") and now - entry.stat().st_mtime > _STALE_SECONDS:
                os.unlink(entry.path)
            elif entry.name.endswith(_SUFFIX):
                states.append((entry.stat().st_mtime, entry.path))
    for _, path in sorted(states, reverse=True)[MAX_KEPT:]:
        with contextlib.suppress(OSError):
            os.unlink(path)


__all__ = ["KEPT_FROM_BYTES", "MAX_KEPT", "MAX_STATE_BYTES", "folder", "keep", "keep_detached", "kept", "load",
           "state_name"]
