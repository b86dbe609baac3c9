"""Shell lines parsed by earlier processes, kept so that the next one does not parse them again.

bashlex is pure Python: on a real 4 MB Claude Code session its parse of the 263 lines that need the grammar is
most of the analysis. A session is read again and again: the guard at each of its compactions reads the
whole log, a user checks it, opens it in the app, scans the fleet. Every line parsed at the first compaction
is parsed again at the second. So the steps of each line the grammar parsed are kept in an SQLite file in the
cache folder (`shell_grammar.cache_folder`), keyed by a digest of the line, and looked up before parsing: a
later process parses only the lines it has not seen, which at a later compaction are the ones run since.

The kept steps are the grammar's (before `shell_runs` unwraps them), and the file's name carries bashlex's
version, Python's and a digest of the code that turns bashlex's tree into steps: another parser's steps are
never read. Anything wrong with the file (missing, locked, damaged, read-only, not ours) costs time, never a
parse: the line is parsed as if nothing were kept. Values are JSON checked for their shape, never pickle: a
file in a cache folder must not be able to run code.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import CodeType
from typing import Any

from inspector.shell_grammar import cache_folder, installed_bashlex

RawStep = tuple[tuple[str, ...], str, bool]
"""A step as the grammar gave it: its words, how it follows the step before, whether a later stage reads it."""

MAX_KEPT = 20_000
"""Lines kept at most, the least recently used dropped past it: a real 4 MB session has about 300 lines that
need the grammar, so this holds the lines of some sixty such sessions, a few MB on disk."""
MAX_STEP_CHARS = 4_000
"""Lines whose steps are longer (a heredoc's body, a script on the line) are not kept: they are rare, and keeping
them would let a few sessions fill the file with text."""
_TIMEOUT = 0.2
"""Seconds to wait for another process's write: past it the lines are parsed, which takes about as long."""
_AFTER = frozenset(("", ";", "&&", "||", "|"))


def _code_digest(code: CodeType, into: Any) -> None:
    """Feed a function's compiled code, nested code included, into a digest: it changes when the code does."""
    into.update(code.co_code)
    into.update(repr(code.co_names).encode())
    for constant in code.co_consts:
        if isinstance(constant, CodeType):
            _code_digest(constant, into)
        else:
            into.update(repr(constant).encode())


def file_name(parser_code: Sequence[Callable[..., object]]) -> str:
    """The file's name for this parser: the bashlex installed (`installed_bashlex`), Python's version, and a digest
    of the code that makes steps."""
    digest = hashlib.sha256()
    for function in parser_code:
        _code_digest(function.__code__, digest)
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    return f"shell-steps-bashlex-{installed_bashlex()}-py{python}-{digest.hexdigest()[:16]}.sqlite3"


def _key(command: str) -> str:
    return hashlib.blake2b(command.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _steps_of(text: str) -> tuple[RawStep, ...] | None:
    """Kept steps back from JSON, or None if the value is not a list of steps (a damaged or foreign file)."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if not isinstance(value, list):
        return None
    steps: list[RawStep] = []
    for item in value:
        if not (isinstance(item, list) and len(item) == 3):
            return None
        words, after, piped_on = item
        if not (isinstance(words, list) and all(isinstance(w, str) for w in words) and after in _AFTER
                and isinstance(piped_on, bool)):  # fmt: skip
            return None
        steps.append((tuple(words), after, piped_on))
    return tuple(steps)


class KeptParses:
    """The kept steps of one parser (`file_name`), opened on first use; `save` writes what this process added.

    One per process, shared by its threads (the app analyses in several): each call holds a lock, so the file is
    used from one thread at a time and what this process added is never written while another thread adds to it."""

    def __init__(self, parser_code: Sequence[Callable[..., object]], folder: Path | None = None) -> None:
        self._parser_code = parser_code
        self._folder = folder
        self._connection: sqlite3.Connection | None = None
        self._opened = False
        self._added: dict[str, str] = {}
        self._used: set[str] = set()
        self._lock = threading.Lock()

    def get(self, command: str) -> tuple[RawStep, ...] | None:
        """The steps kept for this line, or None when none are (or the file cannot be read)."""
        with self._lock:
            return self._get(command)

    def put(self, command: str, steps: Sequence[RawStep]) -> None:
        """Keep a line's steps for later processes (written by `save`); too long a line is not kept."""
        if sum(len(w) for words, _, _ in steps for w in words) > MAX_STEP_CHARS:
            return
        value = json.dumps([[list(words), after, piped_on] for words, after, piped_on in steps])
        with self._lock:
            self._added[_key(command)] = value

    def save(self) -> None:
        """Write the lines this process parsed, mark the ones it read as used, and drop the least recently used
        past `MAX_KEPT`: one transaction, or nothing if another process holds the file."""
        with self._lock:
            self._save()

    def _open(self) -> sqlite3.Connection | None:
        if not self._opened:
            self._opened = True
            folder = self._folder or cache_folder()
            try:
                folder.mkdir(parents=True, exist_ok=True)
                path = folder / file_name(self._parser_code)
                os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))  # the user's own commands: theirs alone
                connection = sqlite3.connect(path, timeout=_TIMEOUT, isolation_level=None, check_same_thread=False)
                connection.execute("CREATE TABLE IF NOT EXISTS steps (key TEXT PRIMARY KEY, steps TEXT NOT NULL, "
                                   "used REAL NOT NULL)")  # fmt: skip
                self._connection = connection
            except (OSError, sqlite3.Error):
                self._connection = None
        return self._connection

    def _get(self, command: str) -> tuple[RawStep, ...] | None:
        connection = self._open()
        if connection is None:
            return None
        key = _key(command)
        try:
            row = connection.execute("SELECT steps FROM steps WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error:
            return None
        steps = _steps_of(row[0]) if row and isinstance(row[0], str) else None
        if steps is not None:
            self._used.add(key)
        return steps

    def _save(self) -> None:
        if not self._added and not self._used:
            return
        connection = self._open()
        if connection is None:
            return
        now = time.time()
        try:
            with connection:
                connection.execute("BEGIN IMMEDIATE")
                connection.executemany("INSERT OR REPLACE INTO steps (key, steps, used) VALUES (?, ?, ?)",
                                       [(key, steps, now) for key, steps in self._added.items()])  # fmt: skip
                connection.executemany("UPDATE steps SET used = ? WHERE key = ?", [(now, key) for key in self._used])
                if self._added:
                    connection.execute("DELETE FROM steps WHERE key IN (SELECT key FROM steps ORDER BY used DESC "
                                       "LIMIT -1 OFFSET ?)", (MAX_KEPT,))  # fmt: skip
        except sqlite3.Error:
            pass  # another process's write, a full disk, a read-only folder: the next process parses them again
        self._added.clear()
        self._used.clear()


__all__ = ["MAX_KEPT", "MAX_STEP_CHARS", "KeptParses", "RawStep", "file_name"]
