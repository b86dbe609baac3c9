"""The record a turn was read from, found again where the reader read it: what the model never needed, for display.

Readers keep only what the analyses read (a turn's text, its tool, its outcome); the rest of the record,
a tool's full result or the token usage, stays in the log. A reader notes where each turn's record is (a
`Place`), and the trace keeps them in a `RecordIndex` (`Trace.extra[RAW_RECORDS]`, which no report or native
copy writes), so one record can be read back alone, on demand, through the same bounded file access as the
reader. A place is one of four kinds:

- a byte offset in a line file (JSONL): the line, as written;
- a file of its own in a folder (an OpenHands event): the file, as written;
- a row of an SQLite database, by table and `id` (opencode): its JSON `data` column, as stored;
- a value in a JSON document, by JSON pointer: the file itself, or a member of the zip the file is (an
  Inspect AI sample, an opencode export). A document stores no record boundaries, so the value is found in
  the parsed document and written again (`exact` is False, and the page says so).

The two kinds a reader notes for every turn of a long session are bare values, the cheapest to keep: a
line's offset is an int, a value's JSON pointer a str (the document it points into is the index's).

The files a record is read from are first checked to be the ones that were read (size, modification time,
inode; a database's write-ahead log with it), before and after reading: a changed or missing file gives a
reason, never another record.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from inspector.bounded_io import (
    bounded_lines,
    open_binary,
    open_regular,
    read_all,
    read_limits,
    read_member,
)
from inspector.errors import TraceReadError
from inspector.model import Trace

RAW_RECORDS = "raw_records"
"""The `Trace.extra` key of a trace's `RecordIndex` (native export and reports write no such key)."""

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


Stamps = tuple[tuple[str, FileStamp | None], ...]
"""Files records are read from, each as reading found it (None: it was not there, as a database's log may not be)."""


def stamps_of(*paths: str | Path) -> Stamps:
    """The files' stamps now: take them before reading."""
    return tuple((str(path), FileStamp.of(path)) for path in paths)


@dataclass(frozen=True, slots=True)
class Row:
    """A row of an SQLite database: its JSON `data` column, as stored."""

    table: str
    key: str
    """The row's `id` (its primary key)."""


@dataclass(frozen=True, slots=True)
class OwnFile:
    """A file holding the one record (an event file of a folder), as written, and the version of it that was read
    (its stamp's fields, kept here: one object per event of a folder of thousands, not two)."""

    path: str
    size: int
    mtime_ns: int
    inode: int

    @classmethod
    def read(cls, path: str, status: os.stat_result) -> OwnFile:
        """The file as its status (taken as it was opened for reading) describes it."""
        return cls(path, status.st_size, status.st_mtime_ns, status.st_ino)

    @property
    def stamp(self) -> FileStamp:
        return FileStamp(self.size, self.mtime_ns, self.inode)


Place = int | str | Row | OwnFile
"""Where a turn's record is. An int is the byte offset where its line starts in a line file (of the
decompressed bytes); a str is the RFC 6901 JSON pointer of a value in the index's document
(`/messages/3/tool_calls/0`)."""


@dataclass(frozen=True, slots=True)
class Located:
    """One record's place with what reading it needs: small, hashable, compared by value (a page caches on it)."""

    path: str
    """The file the index was read from (for an `OwnFile`, its folder)."""
    stamps: Stamps
    place: Place
    member: str | None = None
    """The zip member a JSON pointer points into; None when the file is the document."""

    @property
    def files(self) -> Stamps:
        """The files the record is read from, as they were read: while they are unchanged, so is the record."""
        place = self.place
        return self.stamps + ((place.path, place.stamp),) if isinstance(place, OwnFile) else self.stamps

    @property
    def exact(self) -> bool:
        """Read as stored; False for a value in a document, which is written again."""
        return not isinstance(self.place, str)

    def describe(self) -> str:
        """Where the record is, in words, for a caption."""
        name, place = Path(self.path).name, self.place
        if isinstance(place, str):
            within = f"{self.member} in {name}" if self.member else name
            return f"the value at {place or '/'} of {within}, written again from the parsed JSON"
        if isinstance(place, Row):
            return f"the data column of row {place.key} of table {place.table} in {name}"
        if isinstance(place, OwnFile):
            return f"{Path(place.path).name}, as written"
        return f"the line at byte {place:,} of {name}, as written"


@dataclass(frozen=True, slots=True)
class RecordIndex:
    """Where each turn's record is in the source it was read from, and which version of it that was."""

    path: str
    """The file (or folder) the trace was read from."""
    stamps: Stamps
    """The files the places point into, as reading found them (empty when each place carries its own)."""
    places: Mapping[str, Place] = field(repr=False)
    """Turn key → where its record is."""
    member: str | None = None
    """The zip member the JSON pointers point into; None when the file is the document."""

    def locate(self, key: str) -> Located | None:
        place = self.places.get(key)
        return None if place is None else Located(self.path, self.stamps, place, self.member)


@dataclass(frozen=True, slots=True)
class RawRecord:
    """A record as stored (a document's value: written again), or why it cannot be shown."""

    text: str | None
    reason: str | None = None


def record_index(trace: Trace) -> RecordIndex | None:
    """The trace's index of turn records; None for a format read without one (a native trace)."""
    index = trace.extra.get(RAW_RECORDS)
    return index if isinstance(index, RecordIndex) else None


def raw_record(trace: Trace, key: str) -> RawRecord:
    """The record `key` was read from, read alone from its source, or why it cannot be."""
    index = record_index(trace)
    if index is None:
        return RawRecord(None, f"the {trace.format} reader keeps no record positions")
    located = index.locate(key)
    if located is None:
        return RawRecord(None, f"{key} was not read from a record of its own (a derived record)")
    return read_record(located)


def read_record(located: Located) -> RawRecord:
    """The record at `located`, if every file it is read from is still the version that was read; else why not."""
    place, stamps = located.place, located.files
    changed = _changed(stamps)
    if changed is not None:
        return RawRecord(None, changed)
    try:
        if isinstance(place, str):
            found = _read_value(Path(located.path), located.member, place)
        elif isinstance(place, Row):
            found = _read_row(Path(located.path), place)
        elif isinstance(place, OwnFile):
            found = _read_file(Path(place.path))
        else:
            found = _read_line(Path(located.path), place)
    except TraceReadError as error:  # named by the file's name: a shared app's folders are nobody's business
        line = f":{error.line}" if error.line is not None else ""
        return RawRecord(None, f"{Path(error.path).name}{line}: {error.message}")
    except OSError as error:
        return RawRecord(None, f"cannot read: {error.strerror or error}")
    changed = _changed(stamps)  # a file rewritten while it was read: what was read may be the new one
    return found if changed is None else RawRecord(None, changed)


def _changed(stamps: Stamps) -> str | None:
    for path, stamp in stamps:
        now = FileStamp.of(path)
        if now != stamp:
            if now is None:
                return f"{Path(path).name} is no longer there"
            return f"{Path(path).name} changed since it was read; reload the trace to see its records"
    return None


# -- the four kinds -------------------------------------------------------------------------------------


def _read_line(path: Path, offset: int) -> RawRecord:
    """The line starting at `offset` of the file."""
    limits = read_limits()
    with open_binary(path, limits) as stream:
        if offset and not _after_line_end(stream, offset):
            return RawRecord(None, f"byte {offset} of {path.name} does not start a line")
        found = next(bounded_lines(stream, path, limits), None)
    if found is None:
        return RawRecord(None, f"{path.name} ends before byte {offset}")
    return RawRecord(bytes(found[1]).rstrip(b"\r\n").decode("utf-8", errors="replace"))


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


def _read_file(path: Path) -> RawRecord:
    """A record's own file, whole, within the per-line bound (it is one record)."""
    limits = read_limits()
    with open_regular(path) as stream:
        data = stream.read(limits.max_line_bytes + 1)
    if len(data) > limits.max_line_bytes:
        return RawRecord(None, f"{path.name} is longer than {limits.line_bound}")
    return RawRecord(data.decode("utf-8", errors="replace"))


def _read_row(path: Path, row: Row) -> RawRecord:
    """The `data` column of the row of `row.table` whose `id` is `row.key`: that row or none, never another. Read
    as the reader read it: through the database's bounds, with nothing written beside it."""
    from inspector.bounded_sqlite import open_database  # SQLite loads only when a row is asked for

    if not row.table.isidentifier():  # a name, never SQL: it is put in the statement
        return RawRecord(None, f"{row.table!r} is not a table name")
    try:
        with open_database(path) as db:
            db.refuse_computed((row.table,))
            found = next(db.rows(f'SELECT data FROM "{row.table}" WHERE id = ?', (row.key,)), None)
    except TraceReadError as error:
        return RawRecord(None, f"{path.name}: cannot read row {row.key} ({error.message})")
    if found is None:
        return RawRecord(None, f"{path.name} has no row {row.key} in table {row.table}")
    data = found[0]
    if data is None:
        return RawRecord(None, f"row {row.key} has no data")
    return RawRecord(data.decode("utf-8", errors="replace") if isinstance(data, bytes) else str(data))


def _read_value(path: Path, member: str | None, pointer: str) -> RawRecord:
    """The value at `pointer` in the document (the file, or its zip `member`), written again as compact JSON.

    The standard parser, not orjson: it keeps big integers whole and reads what the reader read."""
    limits = read_limits()
    if member is None:
        data = read_all(path)
    else:
        import zipfile

        try:
            with open_regular(path) as raw, zipfile.ZipFile(raw) as archive:
                info = archive.getinfo(member)
        except KeyError:
            return RawRecord(None, f"{path.name} has no member {member}")
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
            return RawRecord(None, f"{path.name}: not a readable zip ({exc})")
        data = read_member(path, info, limits)
    try:
        value = _at_pointer(json.loads(data), pointer)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        return RawRecord(None, f"{member or path.name} is not JSON ({exc})")
    except LookupError:
        return RawRecord(None, f"{member or path.name} has no value at {pointer}")
    text = json.dumps(value, ensure_ascii=False)
    if len(text) > limits.max_line_bytes:
        return RawRecord(None, f"the value at {pointer} is longer than {limits.line_bound}")
    return RawRecord(text)


def _at_pointer(document: Any, pointer: str) -> Any:
    """The value an RFC 6901 pointer names; LookupError when there is none."""
    value = document
    for token in pointer.split("/")[1:] if pointer else ():
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(value, list):
            if not token.isdigit() or (token.startswith("0") and token != "0"):
                raise LookupError(token)
            value = value[int(token)]
        elif isinstance(value, dict):
            value = value[token]
        else:
            raise LookupError(token)
    return value


def pretty_json(text: str) -> str:
    """A JSON record indented for reading (the standard parser keeps big integers whole); the text as it is
    when it is not JSON."""
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except (ValueError, RecursionError):
        return text


__all__ = ["FileStamp", "Located", "OwnFile", "Place", "RAW_RECORDS", "RawRecord", "RecordIndex", "Row",
           "Stamps", "pretty_json", "raw_record", "read_record", "record_index", "stamps_of"]  # fmt: skip
