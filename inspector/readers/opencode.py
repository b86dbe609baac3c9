"""Reader for opencode sessions: its SQLite store (`~/.local/share/opencode/opencode.db`) and `opencode export`.

Since 1.2 opencode keeps sessions in SQLite: tables `session`, `message` and `part`, each row's `data`
column one JSON object (message ids `msg_…` sort in time order). `opencode export <id>` prints the same
objects as `{info, messages: [{info, parts}]}`. A compaction is three messages: a user message whose part
is `{type: "compaction", auto, overflow}`, an assistant message with `mode: "compaction"` and `summary:
true` whose text part is the summary, and (when automatic) a synthetic "Continue if you have next
steps…" user message. The model goes on from the summary and what follows it. Pruning clears old tool
outputs without a summary: those parts carry `state.time.compacted`.

The database is read through `bounded_sqlite`: nothing is written to it or beside it, and it gives no more
than it stores.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from inspector.bounded_io import is_sqlite, read_all
from inspector.bounded_sqlite import Database, open_database, sql_order, write_ahead_log
from inspector.errors import TraceReadError
from inspector.model import Trace
from inspector.raw_records import Place, Row, Stamps, stamps_of
from inspector.readers.conservation import (
    COMPACTION,
    EMPTY,
    MALFORMED,
    MENTION,
    METADATA,
    REASONING,
    TOOL_CALL,
    TURN,
    UNKNOWN,
    UNREAD,
    Fate,
    Reason,
)
from inspector.readers.field_decoder import FieldDecoder
from inspector.readers.timeline import Compaction, TokenWatch
from inspector.readers.transcript import NATIVE_TAG, Transcript
from inspector.readers.values import as_int, as_str, dumps, type_of
from inspector.tool_names import is_edit_tool

NAME = "opencode"

_TABLES = frozenset({"session", "message", "part"})
_QUIET_PARTS = frozenset({"step-start", "step-finish", "snapshot", "reasoning", "agent", "retry"})
"""Parts that hold no words of the conversation (token counts are read from the message)."""
_ORPHAN = Reason("part of no readable message", told=True)
"""A part whose message row is missing or unreadable: its words, call or file are not in the chain."""
_MARKED_IGNORED = Reason("marked ignored", told=False)
"""A user text part opencode itself marks `ignored` (never sent to the model)."""
_SYNTHETIC = Reason("synthetic text", told=False)
"""An assistant text part opencode wrote itself (`synthetic`), not the model's words."""
_FILE_FIELDS = ("filePath", "file_path", "path")
_PART = FieldDecoder({
    "id": None, "type": None, "text": None, "ignored": None, "synthetic": None, "filename": None, "url": None,
    "files": None, "callID": None, "tool": None,
    "state": {"status": None, "input": None, "output": None, "error": None, "time": None, "metadata": {"exit": None}},
}, "OpencodePart")  # fmt: skip
"""What a part row is read for: of a tool's `metadata` (the whole file before and after an edit, a command's
output again) only the exit code; step and snapshot bookkeeping is skipped unbuilt."""
_MESSAGE = FieldDecoder({"id": None, "role": None, "time": None, "mode": None, "agent": None, "tokens": None,
                         "error": None, "summary": {}}, "OpencodeMessage")  # fmt: skip
"""What a message row is read for. A user message's `summary` is an object of the turn's file diffs (each file
before and after), none of it read; a summary message's is `true`."""

Message = tuple[dict[str, Any], list[dict[str, Any]]]


# --- recognising ------------------------------------------------------------------------------


def sniff(head: bytes) -> bool:
    """An `opencode export` document: `{"info": {…session…}, "messages": [{"info", "parts"}]}`."""
    if NATIVE_TAG in head:
        return False
    start = head.lstrip()[:4096]
    return (start.startswith(b"{") and start[1:].lstrip().startswith(b'"info"') and b'"messages"' in head
            and b'"projectID"' in start and (b'"ses_' in start or b'"slug"' in start))  # fmt: skip


def claims(path: Path) -> bool:
    """An SQLite file with opencode's session, message and part tables (never raises)."""
    try:
        if not is_sqlite(path):
            return False
        with open_database(path) as db:
            names = {row[0] for row in db.rows("SELECT name FROM sqlite_master WHERE type = 'table'")}
        return _TABLES <= names
    except (TraceReadError, OSError):
        return False


# --- the database --------------------------------------------------------------------------------


def sessions(path: Path) -> list[str]:
    """Session ids in the database, most recently updated first; none for an export (one session)."""
    if not claims(path):
        return []
    with _database(path) as db:
        return _session_ids(db)


def _session_ids(db: Database) -> list[str]:
    # Sorted here, not by SQL: a sort in SQLite holds every row before giving the first, past the bounds' reach.
    found = [(sql_order(updated), row_id) for row_id, updated in db.rows("SELECT id, time_updated FROM session")
             if isinstance(row_id, str)]  # fmt: skip
    return [row_id for _, row_id in sorted(found, reverse=True)]


def read(path: Path) -> Trace:
    if not claims(path):  # an export document
        return _read_export(path)
    with _database(path) as db:
        ids = _session_ids(db)
        if not ids:
            raise TraceReadError(str(path), "an opencode database with no session in it")
    return _read_session(path, ids[0]).build()  # the registry names the others


def read_session(path: Path, session_id: str) -> Trace:
    return _read_session(path, session_id).build()


def _read_session(path: Path, session_id: str) -> _Reader:
    stamps = stamps_of(path, write_ahead_log(path))  # before reading; the log holds committed rows too
    with _database(path) as db:
        session = next(db.named_rows("SELECT * FROM session WHERE id = ?", (session_id,)), None)
        if session is None:
            raise TraceReadError(str(path), f"#{session_id}: no such session in this opencode database")
        # Rows stream in within the bounds, each decoded as it comes, and are put in order here, by id (opencode's
        # sort in time), as the SQL `ORDER BY` did: a sort in SQLite holds every row before it gives the first.
        rows = sorted(((sql_order(message_id), message_id, _decoded(data, _MESSAGE)) for message_id, data
                       in db.rows("SELECT id, data FROM message WHERE session_id = ?", (session_id,))),
                      key=lambda row: row[0])  # fmt: skip
        part_rows = sorted(((sql_order(message_id), sql_order(part_id), part_id, message_id, _part(data))
                            for part_id, message_id, data
                            in db.rows("SELECT id, message_id, data FROM part WHERE session_id = ?", (session_id,))),
                           key=lambda row: row[:2])  # fmt: skip
    parts: dict[str, list[dict[str, Any]]] = {}
    by_id = True  # each row is found again by the id its message or part has (its data names none of its own)
    bad_parts = 0
    for _, _, part_id, message_id, part in part_rows:
        if part is None:
            bad_parts += 1
            continue
        by_id &= part.setdefault("id", part_id) == part_id  # the row's id, as `opencode export` adds it
        parts.setdefault(message_id, []).append(part)
    reader = _Reader(path, session_id, stamps, database=True)
    records = reader.transcript.records
    records.unit = "rows"
    records.met(len(rows) + len(part_rows))
    records.aside(MALFORMED, bad_parts)
    reader.bad_rows = bad_parts
    reader.title = as_str(session.get("title"))
    reader.extra.update({"version": as_str(session.get("version")), "directory": as_str(session.get("directory")),
                         "source": "sqlite"})  # fmt: skip
    messages: list[Message] = []
    for _, message_id, info in rows:
        if info is None:
            reader.bad_rows += 1
            records.count(MALFORMED)
            continue
        by_id &= info.setdefault("id", message_id) == message_id
        messages.append((info, parts.pop(message_id, [])))
    if not by_id:  # a data column naming another id: no record positions rather than a wrong row
        reader.stamps = None
    records.aside(_ORPHAN, sum(len(orphans) for orphans in parts.values()))  # of a bad or missing message row
    reader.messages(messages)
    return reader


def _part(data: Any) -> dict[str, Any] | None:
    """A part row's object: the fields a part is read for, or a compaction part whole (its fields are listed)."""
    part = _decoded(data, _PART)
    return _decoded(data, None) if part is not None and part.get("type") == "compaction" else part


@contextmanager
def _database(path: Path) -> Iterator[Database]:
    """The database, bounded, and refused if the tables read compute a column when read."""
    with open_database(path) as db:
        db.refuse_computed(sorted(_TABLES))
        yield db


def _decoded(data: Any, fields: FieldDecoder | None) -> dict[str, Any] | None:
    """A row's object: the keys `fields` declares, or (without them, or when they do not fit) the whole of it."""
    if isinstance(data, bytes | str):
        found = fields.decode(data) if fields is not None else None
        if found is not None:
            return found
        try:
            value = orjson.loads(data)
        except orjson.JSONDecodeError:
            return None
        return value if isinstance(value, dict) else None
    return None


# --- the export document ------------------------------------------------------------------------


def _read_export(path: Path) -> Trace:
    stamps = stamps_of(path)
    try:
        document = orjson.loads(read_all(path))
    except orjson.JSONDecodeError as exc:
        raise TraceReadError(str(path), f"not valid JSON ({exc.msg})") from None
    if not isinstance(document, dict) or not isinstance(document.get("messages"), list):
        raise TraceReadError(str(path), "not an opencode export: no `messages` list")
    info = document.get("info") if isinstance(document.get("info"), dict) else {}
    reader = _Reader(path, as_str(info.get("id")) or path.stem, stamps, database=False)
    records = reader.transcript.records
    records.unit = "messages and parts"
    reader.title = as_str(info.get("title"))
    reader.extra.update({"version": as_str(info.get("version")), "directory": as_str(info.get("directory")),
                         "source": "export"})  # fmt: skip
    messages: list[Message] = []
    for entry in document["messages"]:
        message = entry.get("info") if isinstance(entry, dict) else None
        parts = entry.get("parts") if isinstance(entry, dict) else None
        records.met(1 + (len(parts) if isinstance(parts, list) else 0))
        if not isinstance(message, dict):
            reader.bad_rows += 1
            reader.stamps = None  # the messages after it are no longer at their index: no record positions
            records.count(MALFORMED)
            records.aside(_ORPHAN, len(parts) if isinstance(parts, list) else 0)
            continue
        kept = [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []
        if isinstance(parts, list) and len(kept) < len(parts):
            reader.stamps = None
            records.aside(MALFORMED, len(parts) - len(kept))
        messages.append((message, kept))
    reader.messages(messages)
    return reader.build()


# --- messages onto the transcript ------------------------------------------------------------------


class _Reader:
    def __init__(self, path: Path, session_id: str, stamps: Stamps, *, database: bool) -> None:
        self.path = path
        self.session_id = session_id
        self.stamps: Stamps | None = stamps
        """The database (and its log) or the export as reading began: the places hold for this version. None when
        a record could not be found again exactly (then no turn shows one)."""
        self.database = database
        """Records are rows of the database, or values of the export."""
        self.title: str | None = None
        self.extra: dict[str, Any] = {}
        self.transcript = Transcript(path, NAME)
        self.bad_rows = 0
        self.pruned = 0
        self.requested: dict[str, Any] | None = None
        """The compaction part of the user message that asked for the summary now awaited."""
        self.tokens = TokenWatch()

    def build(self) -> Trace:
        extra = {k: v for k, v in self.extra.items() if v is not None}
        extra.update({"bad_rows": self.bad_rows, "pruned_tool_outputs": self.pruned})
        return self.transcript.build(self.session_id, self.title, extra, self.stamps)

    def messages(self, messages: Sequence[Message]) -> None:
        prunes = sorted({t for _, parts in messages for t in _pruned_times(parts)})
        for position, (info, parts) in enumerate(messages):
            created = _time(info, "created")
            while prunes and created is not None and prunes[0] <= created:
                self._prune_event(prunes.pop(0))
            role = info.get("role")
            if role == "user":
                self._user(position, info, parts)
            elif role == "assistant":
                self._assistant(position, info, parts)
            else:
                self.transcript.unknown_types[f"message role {role}"] += 1
                self.transcript.records.aside(UNKNOWN, 1 + len(parts), f"message role {role}")  # and its parts
        for moment in prunes:
            self._prune_event(moment)
        if self.requested is not None:
            self.transcript.event("compaction-requested", "a compaction was asked for; no summary message followed")

    def _prune_event(self, moment: int) -> None:
        self.transcript.event("microcompaction", "old tool outputs pruned (state.time.compacted)", _iso(moment))

    def _place(self, position: int, record: dict[str, Any], index: int | None = None) -> Place:
        """Where `record` is stored, message `position`'s info or (`index`) its part, made only for a turn: a row of
        the database, by the id the reader gave it from the row; a value of the export, by where it was read."""
        if self.database:
            return Row("message" if index is None else "part", record["id"])
        return f"/messages/{position}/info" if index is None else f"/messages/{position}/parts/{index}"

    def _user(self, position: int, info: dict[str, Any], parts: list[dict[str, Any]]) -> None:
        message_id = as_str(info.get("id")) or "user"
        timestamp = _iso(_time(info, "created"))
        records = self.transcript.records
        records.count(METADATA)  # the message's row: its time and agent; the words are its parts
        for index, part in enumerate(parts):
            kind = type_of(part)
            fate = self._user_part(position, message_id, timestamp, index, kind, part)
            records.count(fate, f"user part {kind}" if fate is UNKNOWN else None)

    def _user_part(self, position: int, message_id: str, timestamp: str | None, index: int, kind: str | None,
                   part: dict[str, Any]) -> Fate:  # fmt: skip
        key = as_str(part.get("id")) or f"{message_id}:{index}"
        if kind == "text":
            if not (isinstance(part.get("text"), str) and part["text"].strip()):
                return EMPTY
            if part.get("ignored") is True:
                return _MARKED_IGNORED
            authority = "harness" if part.get("synthetic") is True else "user"
            self.transcript.place = self._place(position, part, index)
            self.transcript.turn(key, "user", authority, part["text"], timestamp, message=message_id)
            return TURN
        if kind == "compaction":
            self.requested = {k: v for k, v in part.items() if k in ("auto", "overflow", "tail_start_id",
                                                                     "anchor_id")}  # fmt: skip
            return COMPACTION
        if kind == "file":
            target = as_str(part.get("filename")) or as_str(part.get("url"))
            if not target:
                return EMPTY
            self.transcript.mention("file", target.removeprefix("file://"), "read", timestamp)
            return MENTION
        if kind in _QUIET_PARTS:
            return _quiet(kind)
        self.transcript.unknown_types[f"user part {kind}"] += 1
        return UNKNOWN

    def _assistant(self, position: int, info: dict[str, Any], parts: list[dict[str, Any]]) -> None:
        message_id = as_str(info.get("id")) or "assistant"
        timestamp = _iso(_time(info, "created"))
        records = self.transcript.records
        if info.get("summary") is True or info.get("mode") == "compaction" or info.get("agent") == "compaction":
            self._summary(info, parts, timestamp)
            records.count(COMPACTION)
            for part in parts:  # the summary is its text parts
                kind = type_of(part)
                records.count(COMPACTION if kind == "text" else _quiet(kind) if kind in _QUIET_PARTS else UNREAD)
            return
        self._tokens(info)
        texts = [p["text"] for p in parts if p.get("type") == "text" and isinstance(p.get("text"), str)
                 and p["text"].strip() and p.get("synthetic") is not True]  # fmt: skip
        if texts:  # its record is the message's (model, tokens, cost); the words are in its text parts
            self.transcript.place = self._place(position, info)
            self.transcript.turn(message_id, "assistant", "assistant", "\n\n".join(texts), timestamp)
        records.count(TURN if texts else METADATA)  # the message's row: the turn's record, or its token counts
        for index, part in enumerate(parts):
            kind = type_of(part)
            fate: Fate
            if kind == "tool":
                self.transcript.place = self._place(position, part, index)  # the call and its result: one part
                self._tool(message_id, part, timestamp)
                fate = TOOL_CALL
            elif kind == "text":
                text = part.get("text")
                fate = _SYNTHETIC if part.get("synthetic") is True else TURN if (
                    isinstance(text, str) and text.strip()) else EMPTY  # fmt: skip
            elif kind == "patch":
                files = part.get("files") if isinstance(part.get("files"), list) else []
                for target in files:
                    if isinstance(target, str):
                        self.transcript.mention("file", target, "edit", timestamp)
                fate = MENTION if files else EMPTY
            elif kind in _QUIET_PARTS:
                fate = _quiet(kind)
            elif kind == "file":
                fate = UNREAD  # a file the model attached to its reply: not read
            else:
                self.transcript.unknown_types[f"assistant part {kind}"] += 1
                fate = UNKNOWN
            records.count(fate, f"assistant part {kind}" if fate is UNKNOWN else None)
        error = info.get("error")
        if isinstance(error, dict) and not texts:
            self.transcript.event("error", _error_text(error), timestamp)

    def _tool(self, message_id: str, part: dict[str, Any], timestamp: str | None) -> None:
        state = part.get("state") if isinstance(part.get("state"), dict) else {}
        call_id = as_str(part.get("callID")) or as_str(part.get("id")) or f"{message_id}:tool"
        name = as_str(part.get("tool")) or "tool"
        tool_input = state.get("input") if state.get("input") is not None else {}
        times = state.get("time") if isinstance(state.get("time"), dict) else {}
        self.transcript.tool_call(call_id, name, tool_input, _iso(as_int(times.get("start"))) or timestamp)
        if isinstance(tool_input, dict):
            target = next((tool_input[f] for f in _FILE_FIELDS if isinstance(tool_input.get(f), str)), None)
            if target:
                self.transcript.mention("file", target, "edit" if is_edit_tool(name) else "read", timestamp)
        status = state.get("status")
        if status not in ("completed", "error"):
            self.transcript.no_result(call_id, f"its state is {status!r}: the log holds no result (yet)")
            return
        pruned = as_int(times.get("compacted"))
        self.pruned += pruned is not None
        if status == "error":
            text = as_str(state.get("error")) or dumps(state.get("error"))
        else:
            text = as_str(state.get("output")) or ""
        metadata = state.get("metadata") if isinstance(state.get("metadata"), dict) else {}
        exit_code = as_int(metadata.get("exit"))
        failed = status == "error" or (exit_code is not None and exit_code != 0)
        self.transcript.tool_result(call_id, f"{call_id}:output", text, is_error=failed,
                                    timestamp=_iso(as_int(times.get("end"))) or timestamp,
                                    pruned_at=_iso(pruned))  # fmt: skip

    def _summary(self, info: dict[str, Any], parts: list[dict[str, Any]], timestamp: str | None) -> None:
        text = "\n\n".join(p["text"] for p in parts if p.get("type") == "text" and isinstance(p.get("text"), str)
                           and p["text"].strip())  # fmt: skip
        requested = self.requested or {}
        self.requested = None
        error = info.get("error")
        reason = None
        if not text:
            why = _error_text(error) if isinstance(error, dict) else "it has no text part"
            reason = f"summary message {info.get('id')}: {why}"
        extra = {k: v for k, v in requested.items() if k in ("overflow", "tail_start_id", "anchor_id")}
        extra["summary_message"] = info.get("id")
        auto = requested.get("auto")
        compaction = Compaction(
            text=text or None,
            trigger="auto" if auto is True else "manual" if auto is False else None,
            tokens_before=self.tokens.last,
            timestamp=timestamp,
            unavailable=reason,
            extra=extra,
        )
        self.transcript.compaction(compaction)
        self.tokens.compacted(compaction)

    def _tokens(self, info: dict[str, Any]) -> None:
        """The prompt size of an assistant turn: fresh input plus cached input."""
        tokens = info.get("tokens")
        if not isinstance(tokens, dict):
            return
        cache = tokens.get("cache") if isinstance(tokens.get("cache"), dict) else {}
        prompt = sum(as_int(v) or 0 for v in (tokens.get("input"), cache.get("read"), cache.get("write")))
        self.tokens.usage(prompt)  # 0 or missing is no measurement


def _quiet(kind: str) -> Fate:
    """A part with no words of the conversation: the model's reasoning, or step and snapshot bookkeeping."""
    return REASONING if kind == "reasoning" else UNREAD


def _pruned_times(parts: list[dict[str, Any]]) -> list[int]:
    found = []
    for part in parts:
        state = part.get("state") if part.get("type") == "tool" else None
        times = state.get("time") if isinstance(state, dict) else None
        moment = as_int(times.get("compacted")) if isinstance(times, dict) else None
        if moment is not None:
            found.append(moment)
    return found


def _time(info: dict[str, Any], name: str) -> int | None:
    times = info.get("time")
    return as_int(times.get(name)) if isinstance(times, dict) else None


def _iso(milliseconds: int | None) -> str | None:
    if milliseconds is None:
        return None
    try:
        moment = datetime.fromtimestamp(milliseconds / 1000, UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _error_text(error: dict[str, Any]) -> str:
    data = error.get("data") if isinstance(error.get("data"), dict) else {}
    message = as_str(data.get("message")) or as_str(error.get("message"))
    name = as_str(error.get("name")) or "error"
    return f"{name}: {message}" if message else name


__all__ = ["claims", "read", "read_session", "sessions", "sniff"]
