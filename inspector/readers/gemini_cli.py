"""Reader for Gemini CLI sessions (`~/.gemini/tmp/<project>/chats/session-<time>-<id>.jsonl`).

The file is append-only (packages/core/src/services/chatRecordingService.ts): a metadata line
`{sessionId, projectHash, startTime, …}` (written again on every resume), message records `{id, type,
content, …}` (a later line with the same id replaces the message), `{"$set": {…}}` metadata updates and
`{"$rewindTo": id}` (that message and all after it are gone). A `$set` holding `messages` replaces the
whole history. A compression writes one: the `<session_context>` bootstrap turn, the summary as a user
message, the model's fixed acknowledgement, then the kept tail. But every `--resume` writes one too,
so a compression is told by a summary/acknowledgement pair not seen before, and the kept tail it
re-lists (with new ids for some turns) is matched by id or content, never read as new turns.

Older builds (0.36 and before) wrote the ConversationRecord as one JSON document, rewritten whole; it loads
as a single record. Those builds never wrote a compression to it (a compressed chat went on appending to the
same file, or a new one), so such a file has one generation and says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from inspector.bounded_io import read_all, read_head
from inspector.errors import TraceReadError
from inspector.model import Severity, Trace
from inspector.readers.boilerplate import GEMINI_ACKNOWLEDGEMENT
from inspector.readers.conservation import (
    COMPACTION,
    DUPLICATE,
    EMPTY,
    EVENT,
    METADATA,
    SUPERSEDED,
    TURN,
    UNKNOWN,
    Fate,
    Reason,
)
from inspector.readers.field_decoder import FieldDecoder
from inspector.readers.json_lines import JsonLines, head_records
from inspector.readers.timeline import Compaction, TokenWatch
from inspector.readers.transcript import NATIVE_TAG, Transcript
from inspector.readers.values import as_int, as_str, dumps, session_stem

NAME = "gemini-cli"

_HARNESS_TEXT = ("<session_context>", "<hook_context>", "<state_snapshot>")
"""User-role text the CLI writes itself: the bootstrap context, hook output, a summary put back."""
_COMMAND_TEXT = ("/", "?")
"""What the CLI handles itself (slash commands, help) and never sends to the model as the user's words."""
_UI_TYPES = frozenset({"info", "error", "warning"})
"""Messages shown in the terminal only; the CLI drops them when it rebuilds the model's history."""
_TERMINAL_ONLY = Reason("terminal only", told=False)
"""A message the CLI shows in the terminal and never sends to the model (info, error, warning)."""
_FAILED = frozenset({"error", "cancelled"})
_LEGACY_NOTICE = (
    "{path}: a Gemini CLI .json session (the builds before the JSONL log, 0.36 and older) does not record "
    "compressions: the summary never reaches this file, so any compression that happened is not in the chain"
)
_MESSAGE = FieldDecoder({
    "id": None, "type": None, "timestamp": None, "content": None, "displayContent": None, "model": None,
    "tokens": None, "$rewindTo": None,
    "toolCalls": [{"id": None, "name": None, "args": None, "status": None, "result": None, "timestamp": None}],
}, "GeminiMessage")  # fmt: skip
"""What a message line is read for: `thoughts`, and a call's `resultDisplay` (a diff of the whole file for an
edit, the output again for a command) and display names, are skipped unbuilt."""


def sniff(head: bytes) -> bool:
    """Gemini CLI records: a `{sessionId, projectHash}` line, `$set`/`$rewindTo`, or a `gemini` message."""
    if NATIVE_TAG in head:
        return False
    records = head_records(head)
    for record in records[:16]:
        if "payload" in record or "uuid" in record:
            return False
        if isinstance(record.get("sessionId"), str) and isinstance(record.get("projectHash"), str):
            return True
        if isinstance(record.get("$set"), dict) or isinstance(record.get("$rewindTo"), str):
            return True
        if isinstance(record.get("id"), str) and record.get("type") == "gemini" and "content" in record:
            return True
    # One (legacy, pretty-printed) document, or a first line longer than the head.
    start = head.lstrip()
    return (not records and start.startswith(b"{") and b'"sessionId"' in start[:2000]
            and b'"projectHash"' in start[:2000] and b'"parentUuid"' not in start)  # fmt: skip


@dataclass(slots=True)
class _Written:
    """A message already on the transcript: what of it was read, so a later rewrite adds only what is new."""

    calls: set[str] = field(default_factory=set)


class _Reader:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.transcript = Transcript(path, NAME)
        self.pending: dict[str, tuple[int | None, dict[str, Any], bool]] = {}
        """Messages since the last compaction, by id in first-written order; the latest write wins. With each,
        where its own line starts (None for one re-listed inside a history rewrite: no line is its own), and
        whether it is a record of its own (its line, or a message of the legacy document), counted when it leaves:
        onto the transcript, replaced by a later write, or rewound."""
        self.lines: JsonLines | None = None
        self.written: dict[str, _Written] = {}
        self.fingerprints: set[Any] = set()
        """Content identity of every message read, to know a kept-tail copy under a new id."""
        self.summaries: set[str] = set()
        self.results: set[str] = set()
        """Call ids whose result is on the transcript (the result is written twice: in the call, as a reply)."""
        self.session_id: str | None = None
        self.title: str | None = None
        self.meta: dict[str, Any] = {}
        self.tokens = TokenWatch()
        self.counts: dict[str, int] = {"resumes": 0, "rewinds": 0, "ui_messages": 0, "history_rewrites": 0,
                                       "kept_messages": 0, "late_updates": 0}  # fmt: skip

    # -- records -------------------------------------------------------------------------------

    def build(self) -> Trace:
        lines: JsonLines | None = None
        records = self.transcript.records
        if _is_document(self.path):
            self._legacy(_document(self.path))
            notices, extra = [], {"lines": 1, "malformed_lines": 0, "legacy_json": True}
        else:
            lines = self.lines = JsonLines(self.path, _message_line)
            for line, record in lines:
                fate = self._record(line, record)
                if fate is not None:
                    records.count(fate, _shape(record) if fate is UNKNOWN else None)
            records.lines(lines)
            notices = lines.notices
            extra = {"lines": lines.lines, "malformed_lines": lines.malformed}
        self._flush()
        if lines is None and not self.summaries:
            self.transcript.notice("compactions-not-recorded", Severity.INFO, _LEGACY_NOTICE.format(path=self.path))
        self.transcript.notices[:0] = notices
        extra.update(self.counts)
        extra.update({k: v for k, v in self.meta.items() if isinstance(v, str) and k != "summary"})
        stamps = lines.stamps if lines is not None else None
        return self.transcript.build(self.session_id or session_stem(self.path), self.title, extra, stamps)

    def _legacy(self, document: dict[str, Any]) -> None:
        """The legacy document: its records are its messages (anything else in it is the session's metadata)."""
        records = self.transcript.records
        records.unit = "messages"
        messages = document.get("messages")
        if not (isinstance(document.get("sessionId"), str) and isinstance(document.get("projectHash"), str)):
            records.unit = "documents"  # no session: the document is one record, of a type not known
            records.met()
            self.transcript.unknown_types[_shape(document)] += 1
            records.count(UNKNOWN, _shape(document))
            return
        records.met(len(messages) if isinstance(messages, list) else 0)
        self._metadata(document)
        if isinstance(messages, list):
            self._history(1, messages, counted=True)

    def _record(self, line: int, record: dict[str, Any]) -> Fate | None:
        """One line; what became of it, or None when that is known only later (a message waiting to be flushed)."""
        if isinstance(record.get("$rewindTo"), str):
            self._rewind(record["$rewindTo"], as_str(record.get("timestamp")))
            return EVENT
        if isinstance(record.get("id"), str):
            return self._message(line, record, own_line=True, counted=True)
        if isinstance(record.get("$set"), dict):
            update = record["$set"]
            self._metadata(update)
            if not isinstance(update.get("messages"), list):
                return METADATA
            return self._history(line, update["messages"], counted=False)
        if isinstance(record.get("sessionId"), str) and isinstance(record.get("projectHash"), str):
            self.counts["resumes"] += self.session_id is not None
            self._metadata(record)
            if isinstance(record.get("messages"), list):  # a partial legacy document on a line of its own
                self._history(line, record["messages"], counted=False)
            return METADATA
        self.transcript.unknown_types[_shape(record)] += 1
        return UNKNOWN

    def _metadata(self, values: dict[str, Any]) -> None:
        if self.session_id is None and isinstance(values.get("sessionId"), str):
            self.session_id = values["sessionId"]
        if isinstance(values.get("summary"), str) and values["summary"].strip():
            self.title = values["summary"]
        for name in ("projectHash", "startTime", "kind"):
            if name not in self.meta and isinstance(values.get(name), str):
                self.meta[name] = values[name]

    def _message(self, line: int, record: dict[str, Any], own_line: bool = False,
                 counted: bool = False) -> Fate | None:  # fmt: skip
        """A message record; its fate now, or None while it waits in `pending` (`counted`: a record of its own)."""
        message_id, kind = record["id"], as_str(record.get("type"))
        if kind == "gemini":
            self._tokens(record)
        if kind in _UI_TYPES:
            self.counts["ui_messages"] += 1
            return _TERMINAL_ONLY
        if kind not in ("user", "gemini"):
            self.transcript.unknown_types[f"message {kind}"] += 1
            if counted and self.lines is None:  # a legacy document's message: its label, as a line's is its shape
                self.transcript.records.aside(UNKNOWN, label=f"message {kind}")
                return None
            return UNKNOWN
        self.fingerprints.add(_fingerprint(record))
        offset = self.lines.offset if own_line and self.lines is not None else None
        if message_id in self.written:  # rewritten after a compaction put it on the transcript
            self.transcript.place = offset
            gained = self._late_update(record)
            self.transcript.place = None
            return TURN if gained else DUPLICATE
        replaced = self.pending.get(message_id)
        if replaced is not None and replaced[2]:
            self.transcript.records.count(SUPERSEDED)  # the earlier write of this message: the latest wins
        self.pending[message_id] = (offset, record, counted)
        return None

    def _rewind(self, message_id: str, timestamp: str | None) -> None:
        """Drop that message and every later one, as the CLI does when the user rewinds."""
        self.counts["rewinds"] += 1
        ids = list(self.pending)
        cut = ids.index(message_id) if message_id in ids else (0 if message_id not in self.written else len(ids))
        for dropped in ids[cut:]:
            if self.pending[dropped][2]:
                self.transcript.records.count(SUPERSEDED)
            del self.pending[dropped]
        self.transcript.event("rewind", f"rewound to before message {message_id}; {len(ids) - cut} dropped",
                              timestamp)  # fmt: skip

    def _tokens(self, record: dict[str, Any]) -> None:
        tokens = record.get("tokens")
        prompt = as_int(tokens.get("input")) if isinstance(tokens, dict) else None
        self.tokens.usage(prompt)  # 0 or missing is no measurement

    # -- a whole history written at once: a resume, or a compression ----------------------------

    def _history(self, line: int, messages: list[Any], *, counted: bool) -> Fate:
        """A whole history written at once. Its line is one record (`counted` False): a compaction if it holds a
        new summary, turns if it lists messages never read, else a duplicate of what was read. The legacy
        document's messages are each a record (`counted`), given their fates here."""
        self.counts["history_rewrites"] += 1
        tally = self.transcript.records
        records = [m for m in messages if isinstance(m, dict) and isinstance(m.get("id"), str)]
        if counted:
            tally.aside(UNKNOWN, len(messages) - len(records), "(message without an id)")
        summary_at = _summary_index(records)
        pair = records[summary_at : summary_at + 2] if summary_at is not None else []
        for known in pair:  # the summary and its acknowledgement are never turns
            self.fingerprints.add(_fingerprint(known))
        read: set[int] = set()
        compacted = bool(pair) and pair[0]["id"] not in self.summaries
        if compacted:
            self.summaries.add(pair[0]["id"])
            for record in records[:summary_at]:  # the bootstrap context, if this history is the first the file shows
                if record["id"] not in self.pending and record["id"] not in self.written \
                        and _fingerprint(record) not in self.fingerprints:  # fmt: skip
                    self._listed_message(line, record, counted)
                    read.add(id(record))
            self._compaction(line, pair[0])
        if counted and pair:  # the summary and the model's fixed acknowledgement
            if compacted:
                tally.read_as(COMPACTION, len(pair))
            else:
                tally.aside(DUPLICATE, len(pair))  # a summary read before, listed again
        new = False
        for record in records:
            if id(record) in read or any(record is known for known in pair):
                continue
            message_id = record["id"]
            known = message_id in self.pending or message_id in self.written
            if not known and _fingerprint(record) in self.fingerprints:  # a kept message re-listed under a new id
                self.counts["kept_messages"] += 1
                self.written.setdefault(message_id, _Written())
                known = True
            if not known:
                self._listed_message(line, record, counted)
                new = True
            elif counted:
                tally.count(DUPLICATE)
        return COMPACTION if compacted else TURN if new else DUPLICATE

    def _listed_message(self, line: int, record: dict[str, Any], counted: bool) -> None:
        """A message a history lists that was never read: read now (a record of its own when `counted`)."""
        fate = self._message(line, record, counted=counted)
        if fate is not None and counted:
            self.transcript.records.count(fate)

    def _compaction(self, line: int, summary: dict[str, Any]) -> None:
        last_user = next((r for _, r, _ in reversed(self.pending.values()) if r.get("type") == "user"), None)
        manual = last_user is not None and _text(last_user.get("content")).strip().startswith("/compress")
        self._flush()
        text = _text(summary.get("content")).strip()
        compaction = Compaction(
            text=text or None,
            line=line,
            trigger="manual" if manual else "auto",
            tokens_before=self.tokens.last,
            timestamp=as_str(summary.get("timestamp")),
            unavailable=None if text else f"line {line}: the summary message is empty",
            extra={"summary_id": summary["id"]},
        )
        self.transcript.compaction(compaction)
        self.tokens.compacted(compaction)

    # -- messages onto the transcript -----------------------------------------------------------

    def _flush(self) -> None:
        timeline = self.transcript.timeline
        for message_id, (offset, record, counted) in self.pending.items():
            self.transcript.place = offset
            written = self.written.setdefault(message_id, _Written())
            before = len(timeline)
            if record.get("type") == "user":
                self._user(message_id, record)
            else:
                self._gemini(message_id, record, written)
            if counted:  # nothing new: a reply whose result was read in its call, or a message with no words
                self.transcript.records.count(TURN if len(timeline) > before else DUPLICATE if _answers(record)
                                              else EMPTY)  # fmt: skip
        self.pending.clear()
        self.transcript.place = None

    def _late_update(self, record: dict[str, Any]) -> bool:
        """A message rewritten after it went on the transcript: only calls it gained are new (True if any)."""
        if record.get("type") != "gemini":
            return False
        written = self.written[record["id"]]
        before = len(written.calls)
        self._calls(record["id"], record, written)
        gained = len(written.calls) > before
        self.counts["late_updates"] += gained
        return gained

    def _user(self, message_id: str, record: dict[str, Any]) -> None:
        content = record.get("content")
        timestamp = as_str(record.get("timestamp"))
        shown = record.get("displayContent")
        text = _text(shown if shown is not None and _text(shown).strip() else content)
        if text.strip():
            stripped = text.lstrip()
            harness = stripped.startswith(_HARNESS_TEXT) or stripped.startswith(_COMMAND_TEXT)
            self.transcript.turn(message_id, "user", "harness" if harness else "user", text, timestamp)
        for part in _parts(content):
            response = part.get("functionResponse")
            if isinstance(response, dict):
                call_id = as_str(response.get("id")) or as_str(response.get("name"))
                if call_id and call_id in self.results:
                    continue
                self._result(call_id, message_id, response, failed=False, timestamp=timestamp)

    def _gemini(self, message_id: str, record: dict[str, Any], written: _Written) -> None:
        text = _text(record.get("content"))
        timestamp = as_str(record.get("timestamp"))
        if text.strip():
            self.transcript.turn(message_id, "assistant", "assistant", text, timestamp, model=record.get("model"))
        self._calls(message_id, record, written)

    def _calls(self, message_id: str, record: dict[str, Any], written: _Written) -> None:
        timestamp = as_str(record.get("timestamp"))
        calls = record.get("toolCalls")
        for call in calls if isinstance(calls, list) else ():
            if not isinstance(call, dict):
                continue
            call_id = as_str(call.get("id")) or f"{message_id}:{len(written.calls)}"
            if call_id in written.calls:
                continue
            written.calls.add(call_id)
            name = as_str(call.get("name")) or "tool"
            self.transcript.tool_call(call_id, name, call.get("args"), as_str(call.get("timestamp")) or timestamp)
            failed = as_str(call.get("status")) in _FAILED
            responses = [p["functionResponse"] for p in _parts(call.get("result"))
                         if isinstance(p.get("functionResponse"), dict)]  # fmt: skip
            if responses:
                self._result(call_id, call_id, responses[0], failed=failed, timestamp=timestamp)
            elif failed:
                self.transcript.outcome(call_id, False)
        for part in _parts(record.get("content")):  # a history-only message holds calls as parts
            call = part.get("functionCall")
            if isinstance(call, dict):
                call_id = as_str(call.get("id")) or f"{message_id}:{len(written.calls)}"
                if call_id not in written.calls:
                    written.calls.add(call_id)
                    self.transcript.tool_call(call_id, as_str(call.get("name")) or "tool", call.get("args"), timestamp)

    def _result(self, call_id: str | None, key: str, response: dict[str, Any], *, failed: bool,
                timestamp: str | None) -> None:  # fmt: skip
        body = response.get("response")
        error = isinstance(body, dict) and "error" in body and "output" not in body
        text = _response_text(body)
        if call_id:
            self.results.add(call_id)
        self.transcript.tool_result(call_id, f"{key}:result", text, is_error=failed or error, timestamp=timestamp)


# --- values -------------------------------------------------------------------------------------


def _parts(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, dict):
        return [content]
    return [p for p in content if isinstance(p, dict)] if isinstance(content, list) else []


def _text(content: Any) -> str:
    """A PartListUnion's text: a string, a part, or a list of them; thought parts are not said."""
    if isinstance(content, str):
        return content
    pieces = [p if isinstance(p, str) else p.get("text") for p in (content if isinstance(content, list) else [content])
              if isinstance(p, str) or (isinstance(p, dict) and p.get("thought") is not True)]  # fmt: skip
    return "\n".join(p for p in pieces if isinstance(p, str) and p)


def _response_text(body: Any) -> str:
    if isinstance(body, dict):
        for name in ("output", "error", "llmContent", "content"):
            if isinstance(body.get(name), str):
                return body[name]
    return body if isinstance(body, str) else dumps(body)


def _fingerprint(record: dict[str, Any]) -> Any:
    """What a message says, whatever its id: the same words, calls and replies are the same message.

    A call is the same whether the record lists it in `toolCalls` or a history holds it as a part."""
    listed = record.get("toolCalls")
    calls = {f"functionCall:{c.get('id') or c.get('name')}" for c in listed if isinstance(c, dict)} if isinstance(
        listed, list) else set()  # fmt: skip
    for part in _parts(record.get("content")):
        for name in ("functionCall", "functionResponse"):
            if isinstance(part.get(name), dict):
                calls.add(f"{name}:{part[name].get('id') or part[name].get('name')}")
    return as_str(record.get("type")), _text(record.get("content")).strip(), tuple(sorted(calls))


def _summary_index(records: list[dict[str, Any]]) -> int | None:
    """Where a history holds a compression's summary: a user message the model acknowledges with the CLI's
    fixed words (chatCompressionService builds [summary, acknowledgement, …kept])."""
    for index in range(len(records) - 1):
        first, second = records[index], records[index + 1]
        if first.get("type") == "user" and second.get("type") == "gemini" \
                and _text(second.get("content")).strip() == GEMINI_ACKNOWLEDGEMENT:  # fmt: skip
            return index
    return None


def _message_line(raw: bytes | bytearray) -> dict[str, Any] | None:
    """A message line as the keys a message is read for (and `$rewindTo`, read first); any other line
    (metadata, `$set`, an unknown record, whose keys are listed) is decoded whole."""
    record = _MESSAGE.decode(raw)
    return record if record is not None and isinstance(record.get("id"), str) else None


def _answers(record: dict[str, Any]) -> bool:
    """A user message that holds function responses (the CLI writes each result in its call too)."""
    return any(isinstance(part.get("functionResponse"), dict) for part in _parts(record.get("content")))


def _shape(record: dict[str, Any]) -> str:
    keys = sorted(k for k in record if isinstance(k, str))[:3]
    return "record {" + ", ".join(keys) + "}"


def _is_document(path: Path) -> bool:
    """The legacy `.json` checkpoint: one document, pretty-printed (`JSON.stringify(record, null, 2)`)."""
    return read_head(path, 64).lstrip(b"\xef\xbb\xbf \t\r\n").startswith((b"{\n", b"{\r\n"))


def _document(path: Path) -> dict[str, Any]:
    try:
        data = orjson.loads(read_all(path))
    except orjson.JSONDecodeError as exc:
        raise TraceReadError(str(path), f"not valid JSON ({exc.msg})", getattr(exc, "lineno", None)) from None
    if not isinstance(data, dict):
        raise TraceReadError(str(path), f"a JSON {type(data).__name__}, not a Gemini CLI session")
    return data


def read(path: Path) -> Trace:
    return _Reader(path).build()


__all__ = ["read", "sniff"]
