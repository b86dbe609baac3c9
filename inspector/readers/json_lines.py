"""Streaming a JSONL session log: one record at a time, bad lines as notices, never exceptions."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

from inspector.bounded_io import bounded_lines, open_binary, read_limits
from inspector.errors import TraceReadError
from inspector.model import Finding, Severity
from inspector.raw_records import Stamps, stamps_of

MAX_LINE_NOTICES = 20
"""A garbage file must not turn into a million notices; the rest are counted in one."""


class JsonLines:
    """Stream a JSONL log as (line number, object); bad lines become notices, never exceptions.

    Memory stays one line deep. A torn last line (no newline, invalid JSON) is what a session still
    being written looks like, so it gets its own milder notice. A file with no record at all raises.
    Where each line starts is counted as it goes (`offset`), so a reader can note where a turn's record
    is and show it later as written (`inspector.raw_records`).
    """

    def __init__(self, path: Path, fast: Callable[[bytes | bytearray], Any] | None = None) -> None:
        """`fast` decodes a line straight into the reader's own type, or returns None to have it read here
        as a dict (and reported if it is not an object): typed readers skip what they never read."""
        self.path = path
        self.fast = fast
        self.notices: list[Finding] = []
        self.records = 0
        self.malformed = 0
        self.blank = 0
        """Lines holding only whitespace: no record, and nothing wrong."""
        self.torn = 0
        """A last line cut mid-record (0 or 1): every line is a record, blank, malformed or torn."""
        self.lines = 0
        self.offset = 0
        """Where the line last yielded starts, in bytes of the (decompressed) file."""
        self.stamps: Stamps | None = None
        """The file as it was when reading began: the offsets hold for this version of it."""
        self.end = 0
        """Where the last line read ends, in bytes: where a reading resumed from here starts."""
        self.resumable = False
        """The file was read to its end, plain and with its last line finished: a later reading may start at
        `end` (`claude_code_resume`)."""
        self.line_notices: list[Finding] = []
        """The notices of single lines, without the count of those left unlisted: what a resumed reading adds to."""
        self._start = (0, 0)

    def resume(self, offset: int, lines: int, records: int, malformed: int, blank: int,
               notices: list[tuple[str, str]]) -> None:  # fmt: skip
        """Start at byte `offset`, after `lines` lines an earlier reading counted as these (`claude_code_resume`)."""
        self._start = (offset, lines)
        self.records, self.malformed, self.blank = records, malformed, blank
        self.notices = [Finding(rule, Severity.WARNING, None, message) for rule, message in notices]

    def __iter__(self) -> Iterator[tuple[int, Any]]:
        """(line number, record): a dict, or what `fast` made of the line."""
        start, before = self._start
        number = before
        limits = read_limits()
        fast = self.fast
        self.stamps = stamps_of(self.path)
        with open_binary(self.path, limits) as stream:
            plain = isinstance(getattr(stream, "raw", None), io.FileIO)  # not read through a decompressor
            if start:
                if not plain:
                    raise TraceReadError(str(self.path), "a compressed log cannot be read from a point in it")
                stream.seek(start)
            finished = True
            try:
                for number, raw in bounded_lines(stream, self.path, limits, before):  # noqa: B007
                    finished = raw.endswith(b"\n")
                    self.offset = start
                    start += len(raw)
                    if fast is not None and (typed := fast(raw)) is not None:
                        self.records += 1
                        yield number, typed
                        continue
                    try:
                        data = orjson.loads(raw)  # surrounding whitespace is fine; no copy to strip it
                    except orjson.JSONDecodeError as exc:
                        line = raw.strip()
                        if number == 1 and line.startswith(b"\xef\xbb\xbf"):
                            line = line[3:].lstrip()
                        if not line:
                            self.blank += 1
                            continue
                        try:
                            data = orjson.loads(line)
                        except orjson.JSONDecodeError:
                            self._bad(number, f"invalid JSON ({exc.msg})", torn=not raw.endswith(b"\n"))
                            continue
                    if type(data) is not dict:
                        self._bad(number, f"a JSON {type(data).__name__}, not an object", torn=False)
                        continue
                    self.records += 1
                    yield number, data
            except TraceReadError:
                raise
            except Exception as exc:  # corrupt zstd frames, I/O errors
                raise TraceReadError(str(self.path), f"cannot read: {exc}", number + 1) from None
        self.lines = number
        self.end = start
        self.resumable = plain and finished and not self.torn
        self.line_notices = list(self.notices)
        if self.malformed > MAX_LINE_NOTICES:
            hidden = self.malformed - MAX_LINE_NOTICES
            self._notice("malformed-line", f"{self.path}: {hidden} more malformed lines not listed")
        if self.records == 0:
            if self.malformed == 0:
                raise TraceReadError(str(self.path), "empty file")
            first = self.notices[0].message.split(": ", 1)[-1] if self.notices else "unreadable"
            raise TraceReadError(str(self.path), f"no JSON record in {self.malformed} non-empty lines ({first})")

    def _bad(self, number: int, why: str, *, torn: bool) -> None:
        if torn:
            self.torn += 1
            self._notice("torn-last-line", f"{self.path}:{number}: last line is incomplete ({why}); ignored")
            return
        self.malformed += 1
        if self.malformed <= MAX_LINE_NOTICES:
            self._notice("malformed-line", f"{self.path}:{number}: {why}; line skipped")

    def _notice(self, rule: str, message: str) -> None:
        self.notices.append(Finding(rule=rule, severity=Severity.WARNING, generation=None, message=message))


def head_records(head: bytes, limit: int = 64) -> list[dict[str, Any]]:
    """The complete JSON objects among the first lines of a sniffing head (the last line may be cut)."""
    found: list[dict[str, Any]] = []
    for piece in head.split(b"\n")[:limit]:
        piece = piece.strip()
        if not piece.startswith(b"{"):
            continue
        try:
            data = orjson.loads(piece)
        except orjson.JSONDecodeError:
            continue
        if isinstance(data, dict):
            found.append(data)
    return found


def is_json_document(head: bytes) -> bool:
    """One JSON document (a list, or an object spread over several lines), not a line per record."""
    start = head.lstrip()
    if start.startswith(b"["):
        return True
    first, newline, _ = start.partition(b"\n")
    # A pretty-printed document opens with a line that is not a whole object; a JSONL line too long for
    # the head is cut before its newline, and is still a line of its own.
    return start.startswith(b"{") and bool(newline) and not first.rstrip().endswith(b"}")


__all__ = ["JsonLines", "head_records", "is_json_document"]
