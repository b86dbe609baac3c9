"""An SQLite database, read as any trace file is: read-only, with nothing written beside it, and bounded.

A database is untrusted input that can give more than it stores. A VIRTUAL generated column is computed on every
read (`hex(zeroblob(450000000))` is 900 MB from a 200 KB file), and a column added with a default gives that default
for every older row. So the bounds are those of a file (`ReadLimits`), applied to what the database gives:

- per value: SQLite itself refuses a longer string or blob (`SQLITE_LIMIT_LENGTH`), before allocating it, so a
  computed value never reaches memory. The bound is the per-line one (a value holds one record, as a line does),
  and never more than the database's size on disk: a value it stores is in the file;
- per row: a row is one record, so its values together stay within the per-line bound;
- in total: everything one opening gives (a session's rows, the list of sessions) is at most the bytes the file
  and its log hold on disk, themselves within the per-file bound. An honest database cannot give more than it
  stores; one that does is stopped as its rows stream in, one at a time, never fetched whole;
- a table that computes a column when read is refused before any row is read, as no agent's store has one, and the
  bounds alone would let it spend unbounded time on values it then refuses.

Reading never writes. Opening a database in WAL mode beside its write-ahead log makes SQLite create, or write
into, the `-shm` index next to it, which changes the user's folder, perhaps while the agent writes to it. So:

- no log, or an empty one: nothing is committed outside the file, which is opened `immutable=1`;
- a log and its index (the agent running, or stopped without cleaning up): the index is opened read-only
  (`readonly_shm=1`), and SQLite reads the log through it, or from the log itself when the index is stale;
- a log without its index (a copy of the two files, a crash that lost the index): there is no index to read,
  and SQLite would create one, so the database and its log are copied, within the per-file bound, into a
  private folder, read there, and the copy deleted.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from inspector.bounded_io import ReadLimits, as_megabytes, open_regular, read_limits
from inspector.errors import TraceReadError

_COPY_PIECE = 1 << 20
_VIRTUAL_GENERATED = 2
"""`pragma table_xinfo`'s `hidden` for a VIRTUAL generated column (3 is a STORED one: its values are in the file)."""


def write_ahead_log(path: Path) -> Path:
    """Where SQLite keeps a WAL database's committed rows not yet copied into it."""
    return path.with_name(path.name + "-wal")


def _wal_index(path: Path) -> Path:
    """The log's shared-memory index, which every connection to a WAL database maps and writes."""
    return path.with_name(path.name + "-shm")


class Database:
    """An open database whose rows are counted as they are read, against the bounds its size and `ReadLimits` set."""

    def __init__(self, path: Path, connection: sqlite3.Connection, stored: int, limits: ReadLimits) -> None:
        self.path = path
        self._connection = connection
        self.stored = stored
        """Bytes of the database file and its log on disk: the most an honest opening gives."""
        self._limits = limits
        self._value_limit = max(1, min(limits.max_line_bytes, stored))
        connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, self._value_limit)
        self._given = 0

    def rows(self, sql: str, args: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
        """The rows of a query, one at a time, each counted before it is given. Every failure, a bound or SQLite's
        own, is one `TraceReadError` naming the file."""
        return self._counted(self._execute(sql, args))

    def named_rows(self, sql: str, args: tuple[Any, ...] = ()) -> Iterator[dict[str, Any]]:
        """`rows`, each as a dict by column name (columns vary between versions of a tool's schema)."""
        cursor = self._execute(sql, args)
        columns = [column[0] for column in cursor.description or ()]
        return (dict(zip(columns, row, strict=False)) for row in self._counted(cursor))

    def _execute(self, sql: str, args: tuple[Any, ...]) -> sqlite3.Cursor:
        try:
            return self._connection.execute(sql, args)  # steps to the first row: it is computed here
        except sqlite3.Error as exc:
            raise self._error(exc) from None

    def _counted(self, cursor: sqlite3.Cursor) -> Iterator[tuple[Any, ...]]:
        try:
            for row in cursor:
                self._count(row)
                yield row
        except sqlite3.Error as exc:
            raise self._error(exc) from None

    def refuse_computed(self, tables: Iterable[str]) -> None:
        """Refuse a database whose `tables` compute a column on every read (a VIRTUAL generated column)."""
        for table in tables:
            found = self.rows("SELECT name FROM pragma_table_xinfo(?) WHERE hidden = ?", (table, _VIRTUAL_GENERATED))
            for (column,) in found:
                why = "a generated column, computed on every read rather than stored: no agent's store has one"
                raise TraceReadError(str(self.path), f"{table}.{column} is {why}")

    def _count(self, row: tuple[Any, ...]) -> None:
        size = sum(len(value) if isinstance(value, str | bytes) else 1 for value in row)
        limit = self._limits.max_line_bytes
        if size > limit:
            raise TraceReadError(str(self.path), f"a row longer than {as_megabytes(limit)}, "
                                                 f"{self._limits.line_bound}")
        self._given += size
        if self._given > self.stored:
            raise TraceReadError(str(self.path), f"gives more than the {as_megabytes(self.stored)} it holds on disk: "
                                                 "its rows are not what it stores (a default or computed value "
                                                 "repeated on every row)")  # fmt: skip

    def _error(self, exc: sqlite3.Error) -> TraceReadError:
        if getattr(exc, "sqlite_errorcode", None) != sqlite3.SQLITE_TOOBIG:
            return TraceReadError(str(self.path), f"unreadable database: {exc}")
        if self._value_limit < self._limits.max_line_bytes:  # the file's size was the tighter bound
            on_disk = as_megabytes(self.stored)
            why = f"a value longer than the {on_disk} the database holds on disk: computed, not stored"
        else:
            why = f"a value longer than {as_megabytes(self._value_limit)}, {self._limits.line_bound}"
        return TraceReadError(str(self.path), why)


@contextmanager
def open_database(path: Path, limits: ReadLimits | None = None) -> Iterator[Database]:
    """`path` read-only and bounded (see the module's docstring), closed (and any private copy deleted) on exit.
    Raises `TraceReadError` naming the file."""
    limits = limits or read_limits()
    wal = write_ahead_log(path)
    stored = _regular_size(path) + (log := _regular_size(wal, missing=0))
    if stored > limits.max_file_bytes:
        raise _too_large(path, limits)
    folder = None
    try:
        if not log:
            target, options = path, "mode=ro&immutable=1"
        elif _wal_index(path).exists():
            target, options = path, "mode=ro&readonly_shm=1"
        else:
            folder = _private_folder(path)
            target, options = _copy_with_log(path, folder, limits), "mode=ro"
        try:
            connection = sqlite3.connect(f"file:{quote(str(target.resolve()))}?{options}", uri=True)
        except sqlite3.Error as exc:
            raise TraceReadError(str(path), f"cannot open the database: {exc}") from None
        try:
            yield Database(path, connection, stored, limits)
        finally:
            connection.close()
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


def sql_order(value: Any) -> tuple[int, Any]:
    """A sort key giving SQLite's own order of values (NULL, numbers, text, blobs), for rows a reader sorts itself:
    an `ORDER BY` makes SQLite hold every row, each computed, before it gives the first."""
    if value is None:
        return (0, 0)
    if isinstance(value, int | float):
        return (1, value)
    return (2, value) if isinstance(value, str) else (3, bytes(value))


def _regular_size(path: Path, missing: int | None = None) -> int:
    """The size of a regular file; `missing` when there is none (a log need not exist), else a `TraceReadError`."""
    try:
        status = os.stat(path)
    except FileNotFoundError:
        if missing is not None:
            return missing
        raise TraceReadError(str(path), "no such file") from None
    except (OSError, ValueError) as exc:
        raise TraceReadError(str(path), f"cannot open: {getattr(exc, 'strerror', None) or exc}") from None
    if not stat.S_ISREG(status.st_mode):
        raise TraceReadError(str(path), "is not a regular file")
    return status.st_size


def _too_large(path: Path, limits: ReadLimits) -> TraceReadError:
    return TraceReadError(str(path), f"is larger than {as_megabytes(limits.max_file_bytes)} with its log, "
                                     f"{limits.file_bound}")


def _private_folder(path: Path) -> Path:
    """A new folder only this process can read, for a copy of the database (deleted once it is read)."""
    try:
        return Path(tempfile.mkdtemp(prefix="compaction-inspector-db-"))
    except OSError as exc:
        raise TraceReadError(str(path), f"cannot make a folder to copy it into: {exc.strerror or exc}") from None


def _copy_with_log(path: Path, folder: Path, limits: ReadLimits) -> Path:
    """The database and its log, copied into `folder` under their own names (SQLite finds a log by its name), each
    through the bounded open a trace file gets: regular files only, no more than the per-file bound in all."""
    budget = limits.max_file_bytes
    for source in (path, write_ahead_log(path)):
        try:
            with open_regular(source) as stream, open(folder / source.name, "wb") as copy:
                while piece := stream.read(min(_COPY_PIECE, budget + 1)):
                    budget -= len(piece)
                    if budget < 0:  # grown since it was measured
                        raise _too_large(path, limits)
                    copy.write(piece)
        except OSError as exc:  # the temporary folder's disk full, say
            raise TraceReadError(str(path), f"cannot copy it and its log to read them: {exc.strerror or exc}") from None
    return folder / path.name


__all__ = ["Database", "open_database", "sql_order", "write_ahead_log"]
