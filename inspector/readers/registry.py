"""Format readers as registry entries, so the CLI, the app and outside plug-ins share one list.

Built-in readers register exactly as a third-party one would: `register_reader(Reader(...))`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from importlib import import_module
from pathlib import Path
from typing import Any

from inspector.bounded_io import read_head
from inspector.bulk import paused_gc
from inspector.errors import TraceReadError
from inspector.model import Finding, Severity, Trace


@dataclass(frozen=True, slots=True)
class Reader:
    """One trace format: how to recognise it from the first bytes and how to load it."""

    name: str
    description: str
    sniff: Callable[[bytes], bool]
    """Given up to the first 64 KiB of the (decompressed) file, say whether it is this format."""
    read: Callable[[Path], Trace]
    """Load the whole file; raise only `TraceReadError`."""
    claims: Callable[[Path], bool] | None = None
    """For a format that is not a text file to sniff (a folder of event files, an SQLite database, a zip):
    say from the path itself whether it is this format. Asked before any head is read."""
    sessions: Callable[[Path], list[str]] | None = None
    """For a container of several sessions (a database, an eval log): their ids, newest first. `read`
    loads the newest and says how many others there are; `FILE#ID` names one (`split_session`)."""
    read_session: Callable[[Path, str], Trace] | None = None
    """A container's one session by id; raise `TraceReadError` for an id it does not hold."""
    suffixes: tuple[str, ...] = ()
    """File name endings a fleet scan should read besides the JSON/JSONL ones (".db", ".eval")."""
    default_locations: tuple[str, ...] = ()
    """Where the tool keeps its sessions unless told otherwise (`~` and `$VAR` expanded): `scan --defaults`
    reads the ones that exist on this machine."""
    tested_on: str = ""
    """The tool versions this reader was checked against, and what is exact or inferred (the README's table)."""
    read_resuming: Callable[[Path, bytes | None], tuple[Trace, Callable[[], bytes | None]]] | None = None
    """For a log that only grows: load it, reading on from where a kept state of an earlier reading stopped when
    the state is this log's; return the trace and what gives the state to resume from next (`load_resuming`)."""


_READERS: dict[str, Reader] = {}


def register_reader(reader: Reader) -> Reader:
    """Add a reader; later registrations win sniffing ties only if registered first."""
    if reader.name in _READERS:
        raise ValueError(f"a reader named {reader.name!r} is already registered")
    _READERS[reader.name] = reader
    return reader


@dataclass(frozen=True, slots=True)
class Deferred:
    """`module.name`, imported on its first call: a command loads the readers it meets, not all eleven.

    Detection asks the readers in order, so a Claude Code log loads the native and Claude Code readers and
    no other. `when`, for a `claims`, is a cheap condition the claim cannot hold without (a folder, a file's
    magic bytes): a path that fails it is refused without loading the reader.
    """

    module: str
    name: str
    when: Callable[[Path], bool] | None = None

    def __call__(self, *args: Any) -> Any:
        if self.when is not None and not self.when(*args):
            return False
        return self.resolve()(*args)

    def resolve(self) -> Callable[..., Any]:
        """The function itself (importing its module)."""
        return getattr(import_module(self.module), self.name)  # type: ignore[no-any-return]


def readers() -> list[Reader]:
    return list(_READERS.values())


def format_names() -> list[str]:
    return ["auto", *_READERS]


def detect_format(path: Path) -> str:
    """Name the registered format whose sniffer accepts the file's first records."""
    for reader in _READERS.values():
        if reader.claims is not None and reader.claims(path):
            return reader.name
    if path.is_dir():
        raise TraceReadError(str(path), "a directory, not a trace file (no reader takes it as a session folder)")
    head = read_head(path)
    if not head.strip():
        raise TraceReadError(str(path), "empty file")
    for reader in _READERS.values():
        if _sniffs(reader, head):
            return reader.name
    if b"\x00" in head:
        raise TraceReadError(str(path), "binary data, not a trace file")
    raise TraceReadError(
        str(path), f"not a recognised trace format (known: {', '.join(_READERS)})", 1
    )


def _sniffs(reader: Reader, head: bytes) -> bool:
    """The reader's sniffer on a head; one that trips over odd input (a list where it expects a string) has
    not recognised the file, and the next reader is asked rather than a traceback shown."""
    try:
        return bool(reader.sniff(head))
    except (ValueError, TypeError, KeyError, AttributeError, IndexError, RecursionError):
        return False


def default_locations() -> list[tuple[str, Path]]:
    """(format, existing path) for every reader's usual session folder or file on this machine, in registry
    order; a `$VAR` that is not set leaves its location out rather than guess."""
    found: list[tuple[str, Path]] = []
    for reader in _READERS.values():
        for location in reader.default_locations:
            expanded = os.path.expanduser(os.path.expandvars(location))
            if "$" in expanded:
                continue
            path = Path(expanded)
            if path.exists() and (reader.name, path) not in found:
                found.append((reader.name, path))
    return found


def split_session(path: str | Path) -> tuple[Path, str | None]:
    """`FILE#ID` → (FILE, ID) when FILE exists and FILE#ID does not: one session of a container."""
    text = str(path)
    base, sep, session = text.rpartition("#")
    if sep and session and not Path(text).exists() and Path(base).exists():
        return Path(base), session
    return Path(text), None


def load_trace(path: str | Path, format: str = "auto", *, session: str | None = None) -> Trace:
    """Load any supported trace; the only exception that escapes is `TraceReadError`.

    `FILE#ID`, or `session=ID`, loads session ID of a container format (a database or eval log holding several)."""
    path, named = split_session(path) if session is None else (Path(path), session)
    return _load(path, format, named)


def load_resuming(path: str | Path, kept: bytes | None) -> tuple[Trace, Callable[[], bytes | None]]:
    """`load_trace(path)`, read on from where `kept` (a state an earlier call gave) stopped when its format can
    resume and the state is this log's; and what gives the state to resume from next (None where there is none),
    encoded when asked."""
    reached: list[Callable[[], bytes | None]] = [_no_state]

    def read(reader: Reader, file: Path) -> Trace:
        if reader.read_resuming is None:
            return _with_other_sessions(reader.read(file), reader, file)
        trace, reached[0] = reader.read_resuming(file, kept)
        return trace

    return _load(Path(path), "auto", None, read), reached[0]


def _no_state() -> None:
    return None


def _load(path: Path, format: str, session: str | None,
          read: Callable[[Reader, Path], Trace] | None = None) -> Trace:  # fmt: skip
    name = detect_format(path) if format == "auto" else format
    reader = _READERS.get(name)
    if reader is None:
        raise TraceReadError(str(path), f"unknown format {name!r} (known: {', '.join(_READERS)})")
    if format != "auto":
        _refuse_another_format(path, reader)
    if session is not None and reader.read_session is None:
        raise TraceReadError(str(path), f"#{session}: {_a(name)} {name} file holds one session, not several")
    try:
        with paused_gc():
            if session is not None:
                return reader.read_session(path, session)  # type: ignore[misc]
            if read is not None:
                return read(reader, path)
            return _with_other_sessions(reader.read(path), reader, path)
    except TraceReadError as error:
        raise error if format == "auto" else _named_wrongly(path, name, error) from None
    except RecursionError:
        raise TraceReadError(str(path), "nesting too deep to read") from None
    except (ValueError, TypeError, KeyError, AttributeError, IndexError, OverflowError) as exc:
        # A reader bug on odd input must still surface as one line naming the file.
        raise TraceReadError(str(path), f"unreadable {name} trace: {exc}") from None


def _with_other_sessions(trace: Trace, reader: Reader, path: Path) -> Trace:
    """A container loads its newest session; say so, and how to load another (one notice, for every reader)."""
    ids = reader.sessions(path) if reader.sessions is not None else []
    if len(ids) < 2:
        return trace
    others = f" (others: {', '.join(ids[2:5])}{' …' if len(ids) > 5 else ''})" if len(ids) > 2 else ""
    # The file's name, not its path: a report must read the same wherever the file was checked out.
    message = (f"{path.name} holds {len(ids)} sessions; the newest, {ids[0]}, was loaded. "
               f"Load another as FILE#ID, e.g. {path.name}#{ids[1]}{others}")  # fmt: skip
    return replace(trace, notices=(*trace.notices, Finding("several-sessions", Severity.INFO, None, message)))


def _recognises(reader: Reader, path: Path) -> bool:
    """The reader's own test of the file, as detection asks it: `claims` on the path, `sniff` on the head."""
    if reader.claims is not None and reader.claims(path):
        return True
    try:
        return not path.is_dir() and _sniffs(reader, read_head(path))
    except (TraceReadError, OSError):  # unreadable: the reader itself says why, naming the file
        return False


def _refuse_another_format(path: Path, reader: Reader) -> None:
    """A format given by hand that the file does not fit, when detection names another: refuse it, naming the
    other. A reader given a file that is not its format often reads nothing and reports a clean chain (a Claude
    Code log read as a Codex rollout "passes" with one generation), so a reader's own errors cannot be relied
    on. A file no reader recognises is left to the one named: a user may force it on a head no sniffer knows."""
    if _recognises(reader, path):
        return
    try:
        actual = detect_format(path)
    except TraceReadError:
        return
    if actual != reader.name:
        raise _looks_like(path, reader.name, actual)


def _named_wrongly(path: Path, name: str, error: TraceReadError) -> TraceReadError:
    """A format given by hand that fails on a file another reader recognises too (and is asked first): say what
    the file is, since the reader's own complaint ("no JSON record in 91 lines") describes the wrong format."""
    try:
        actual = detect_format(path)
    except TraceReadError:
        return error
    return error if actual == name else _looks_like(path, name, actual)


def _looks_like(path: Path, name: str, actual: str) -> TraceReadError:
    wrong, right = _READERS[name].description, _READERS[actual].description
    return TraceReadError(
        str(path), f"not {_a(wrong)} {wrong}; it looks like {_a(actual)} {actual} trace, {right}, "
        "which auto-detection reads",
    )  # fmt: skip


def _a(word: str) -> str:
    """The article a reader would say before a format's name ("an opencode trace", "a Codex CLI rollout")."""
    return "an" if word[:1].lower() in ("a", "e", "i", "o") else "a"


__all__ = ["Deferred", "Reader", "default_locations", "detect_format", "format_names", "load_resuming", "load_trace",
           "readers", "register_reader"]  # fmt: skip
