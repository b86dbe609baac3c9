"""Reader for LangChain / LangGraph agents whose `SummarizationMiddleware` compacted the message history.

A summarization is one state update (langchain 1.x, `agents/middleware/summarization.py`):
`[RemoveMessage(id="__remove_all__"), HumanMessage("Here is a summary of the conversation to date:\\n\\n…",
additional_kwargs={"lc_source": "summarization"}), *kept_messages]`. The kept messages are the tail of the
old history, listed again under their old ids: they are not new turns.

LangChain has no session log of its own; what users keep is what its serialisers write:
- a JSONL of `agent.stream(...)` chunks, each `json.dumps(langchain_core.load.dumpd(chunk))`:
  `stream_mode="values"` lines are the whole state `{"messages": [...]}` after each step (the user's input
  included); `stream_mode="updates"` lines are `{node: {"messages": [...]}}`, which never carry the graph's
  input, so a user message appears only when a summarization lists it among the kept ones;
- one JSON document of messages: `messages_to_dict(messages)` (`[{"type": "human", "data": {...}}]`),
  `dumpd(messages)` (lc-serialised objects), or a state dict `{"messages": [...]}`.
Messages are read in either shape (`{"lc": 1, "type": "constructor", "id": [..., "HumanMessage"],
"kwargs": {...}}` or `{"type": "human", "data": {...}}`); a message whose id was already read is the same
message shown again and is skipped, so a values stream (the whole state every step) reads as one history.

LangGraph's SQLite checkpoints are not read: their blobs are msgpack with LangGraph's extension types
(ormsgpack + JsonPlusSerializer), a dependency this package does not take; dump the state instead.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson

from inspector.bounded_io import read_all, read_head
from inspector.errors import TraceReadError
from inspector.model import Trace
from inspector.readers.conservation import (
    COMPACTION,
    DUPLICATE,
    EMPTY,
    INSTRUCTIONS,
    METADATA,
    TOOL_CALL,
    TOOL_RESULT,
    TURN,
    UNKNOWN,
    Fate,
)
from inspector.readers.json_lines import JsonLines, head_records, is_json_document
from inspector.readers.timeline import Compaction, TokenWatch
from inspector.readers.transcript import NATIVE_TAG, Transcript
from inspector.readers.values import as_int, as_str, blocks_text, dumps, session_stem

NAME = "langchain"

REMOVE_ALL = "__remove_all__"
"""`langgraph.graph.message.REMOVE_ALL_MESSAGES`: the id of the RemoveMessage that clears the history."""
SUMMARY_SOURCE = "summarization"
"""`additional_kwargs.lc_source` of the message SummarizationMiddleware puts the summary in."""

_CLASSES = {"HumanMessage": "human", "HumanMessageChunk": "human", "AIMessage": "ai", "AIMessageChunk": "ai",
            "ToolMessage": "tool", "ToolMessageChunk": "tool", "SystemMessage": "system",
            "SystemMessageChunk": "system", "ChatMessage": "chat", "ChatMessageChunk": "chat",
            "FunctionMessage": "function", "FunctionMessageChunk": "function", "RemoveMessage": "remove"}  # fmt: skip
_TYPES = frozenset(_CLASSES.values()) | {"AIMessageChunk", "HumanMessageChunk"}
_DOCUMENT = re.compile(
    rb'^\s*(?:\[\s*\{\s*"type"\s*:\s*"(?:human|ai|tool|system|chat|function|remove)"\s*,\s*"data"\s*:'
    rb'|\[?\s*\{\s*(?:"messages"\s*:\s*\[\s*)?\{\s*"lc"\s*:\s*1\s*,\s*"type"\s*:\s*"constructor"\s*,'
    rb'\s*"id"\s*:\s*\[\s*"langchain(?:_core)?"\s*,\s*"schema"\s*,\s*"messages")'
)


def _message(value: Any) -> tuple[str, dict[str, Any]] | None:
    """(type, fields) of a serialised message in either shape, or None for anything else."""
    if not isinstance(value, dict):
        return None
    if value.get("lc") == 1 and value.get("type") == "constructor":
        ids, kwargs = value.get("id"), value.get("kwargs")
        if not (isinstance(ids, list) and ids and isinstance(ids[-1], str) and isinstance(kwargs, dict)):
            return None
        kind = _CLASSES.get(ids[-1])
        return (kind, kwargs) if kind else None
    data, kind = value.get("data"), value.get("type")
    if isinstance(data, dict) and isinstance(kind, str) and kind in _TYPES:
        return _CLASSES.get(kind, kind), data
    return None


def _messages(value: Any) -> list[Any] | None:
    """The message list of a state or update (`{"messages": [...]}` or one message), if it holds one."""
    if not isinstance(value, dict) or "messages" not in value:
        return None
    messages = value["messages"]
    if isinstance(messages, dict):
        messages = [messages]
    if not isinstance(messages, list) or not any(_message(m) for m in messages):
        return None
    return messages


def _chunks(record: dict[str, Any]) -> list[list[Any]]:
    """The message lists of one stream line: a values chunk is the state, an updates chunk one per node."""
    state = _messages(record)
    if state is not None:
        return [state]
    return [found for update in record.values() if (found := _messages(update)) is not None]


def sniff(head: bytes) -> bool:
    """A JSONL of LangGraph stream chunks holding serialised messages, or one JSON document of messages."""
    if NATIVE_TAG in head:
        return False
    if _DOCUMENT.match(head):
        return True
    return any(_chunks(record) for record in head_records(head)[:32])


class _Reader:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.transcript = Transcript(path, NAME)
        self.seen: set[str] = set()
        self.cleared = False
        self.removed = 0
        self.instructions = 0
        self.summaries = 0
        self.tokens = TokenWatch()
        self.first_item: dict[str, Any] = {}
        """A message's identity → the first timeline item it became (where a kept tail starts)."""
        self.last_compaction = -1

    def build(self) -> Trace:
        extra: dict[str, Any]
        if is_json_document(read_head(self.path)):
            extra = self._document()
        else:
            lines = JsonLines(self.path)
            records = self.transcript.records
            chunks = 0
            for line, record in lines:
                found = _chunks(record)
                if not found:
                    if any(update is not None for update in record.values()):
                        self.transcript.unknown_types["(no messages)"] += 1
                        records.count(UNKNOWN, "(no messages)")
                    else:
                        records.count(EMPTY)  # a node that returned nothing is normal
                    continue
                before = (len(self.transcript.timeline), self.summaries, self.instructions)
                for messages in found:
                    chunks += 1
                    self._read(messages, line)
                records.count(_line_fate(before, (len(self.transcript.timeline), self.summaries, self.instructions)))
            records.lines(lines)
            self.transcript.notices[:0] = lines.notices
            extra = {"lines": lines.lines, "malformed_lines": lines.malformed, "message_lists": chunks}
        extra |= {"summarizations": self.summaries, "system_messages": self.instructions, "removed": self.removed}
        return self.transcript.build(session_stem(self.path).removesuffix(".json"), None, extra)

    def _document(self) -> dict[str, Any]:
        try:
            data = orjson.loads(read_all(self.path))
        except orjson.JSONDecodeError as exc:
            raise TraceReadError(str(self.path), f"invalid JSON ({exc.msg})", getattr(exc, "lineno", None)) from None
        messages = data if isinstance(data, list) else _messages(data)
        if messages is None or not any(_message(m) for m in messages):
            raise TraceReadError(str(self.path), "no LangChain messages in this JSON document")
        records = self.transcript.records
        records.unit = "messages"
        records.met(len(messages))
        for fate in self._read(messages, None):
            records.count(fate, "(not a message)" if fate is UNKNOWN else None)
        return {"messages": len(messages)}

    def _read(self, messages: list[Any], line: int | None) -> list[Fate]:
        """Read a message list; what became of each message (a document's records are its messages)."""
        fates: list[Fate] = []
        for index, value in enumerate(messages):
            found = _message(value)
            if found is None:
                self.transcript.unknown_types["(not a message)"] += 1
                fates.append(UNKNOWN)
                continue
            kind, fields = found
            message_id = as_str(fields.get("id"))
            if kind == "remove":
                if message_id == REMOVE_ALL:
                    self.cleared = True
                    fates.append(COMPACTION)  # the summarization's clearing of the history
                else:
                    self.removed += 1
                    fates.append(METADATA)
                continue
            identity = message_id or _identity(kind, fields)
            if identity in self.seen:
                fates.append(DUPLICATE)  # the same message listed again: a values chunk, or the kept tail of a summary
                continue
            self.seen.add(identity)
            where = f"line {line}" if line is not None else f"message {index + 1}"
            if kind == "human" and _source(fields) == SUMMARY_SOURCE:
                self._summary(blocks_text(fields.get("content")), line, where, fields, messages[index + 1 :])
                fates.append(COMPACTION)
                continue
            start = len(self.transcript.timeline)
            fates.append(self._add(kind, fields, message_id or f"{where.replace(' ', ':')}"))
            if len(self.transcript.timeline) > start:
                self.first_item[identity] = self.transcript.timeline[start]
        return fates

    def _add(self, kind: str, fields: dict[str, Any], key: str) -> Fate:
        text = blocks_text(fields.get("content"))
        if kind == "human":
            self.transcript.turn(key, "user", "user", text)
            return TURN
        if kind == "ai":
            self._tokens(fields)
            if text:
                self.transcript.turn(key, "assistant", "assistant", text)
            calls = fields.get("tool_calls")
            called = False
            for number, call in enumerate(calls if isinstance(calls, list) else ()):
                if isinstance(call, dict):
                    call_id = as_str(call.get("id")) or f"{key}:call:{number}"
                    self.transcript.tool_call(call_id, as_str(call.get("name")) or "tool", call.get("args", {}))
                    called = True
            return TURN if text else TOOL_CALL if called else EMPTY
        if kind == "tool":
            call_id = as_str(fields.get("tool_call_id"))
            self.transcript.tool_result(call_id, key, text, is_error=fields.get("status") == "error")
            return TOOL_RESULT
        if kind == "system":
            self.instructions += 1  # the agent's prompt: the harness's instructions, not the conversation
            return INSTRUCTIONS
        if not text:
            return EMPTY
        self.transcript.turn(key, "user", "harness", text, role=as_str(fields.get("role")) or kind)
        return TURN

    def _summary(self, text: str, line: int | None, where: str, fields: dict[str, Any], after: list[Any]) -> None:
        """The summary, placed before the kept tail that follows it (already read, under the same ids):
        the summary replaced only what came before those messages."""
        self.summaries += 1
        kept = [self.first_item[i] for i in map(_identity_of, after) if i in self.first_item]
        extra: dict[str, Any] = {"message_id": fields.get("id"), "cleared_history": self.cleared,
                                 "kept_messages": sum(1 for m in after if _message(m))}  # fmt: skip
        if line is None:
            extra["where"] = where
        compaction = Compaction(
            text=text or None,
            line=line,
            trigger="auto",
            tokens_before=self.tokens.last,
            unavailable=None if text else f"{where}: the summary message is empty",
            extra=extra,
        )
        timeline = self.transcript.timeline
        before = min((_index(timeline, item) for item in kept), default=None)
        if before is not None and before <= self.last_compaction:
            before = None  # a tail kept across two summaries stays after the first one
        self.transcript.compaction(compaction, before)
        self.last_compaction = _index(timeline, compaction)
        self.cleared = False
        self.tokens.compacted(compaction)

    def _tokens(self, fields: dict[str, Any]) -> None:
        usage = fields.get("usage_metadata")
        tokens = as_int(usage.get("input_tokens")) if isinstance(usage, dict) else None
        self.tokens.usage(tokens)  # 0 or missing is no measurement


def _line_fate(before: tuple[int, int, int], after: tuple[int, int, int]) -> Fate:
    """What a stream line became, from (timeline items, summaries, system prompts) before and after reading it:
    a summarization, new turns, the agent's prompt, or only messages read before (a values chunk's whole state)."""
    if after[1] > before[1]:
        return COMPACTION
    if after[0] > before[0]:
        return TURN
    return INSTRUCTIONS if after[2] > before[2] else DUPLICATE


def _index(timeline: list[Any], item: Any) -> int:
    """Where this very item is (not an equal one: two turns may say the same thing)."""
    return next(i for i, other in enumerate(timeline) if other is item)


def _source(fields: dict[str, Any]) -> Any:
    extra = fields.get("additional_kwargs")
    return extra.get("lc_source") if isinstance(extra, dict) else None


def _identity_of(value: Any) -> str | None:
    found = _message(value)
    if found is None:
        return None
    return as_str(found[1].get("id")) or _identity(*found)


def _identity(kind: str, fields: dict[str, Any]) -> str:
    """A message without an id is known by what it says (a values stream repeats it every step)."""
    return f"{kind}:{dumps([fields.get('content'), fields.get('tool_calls'), fields.get('tool_call_id')])}"


def read(path: Path) -> Trace:
    return _Reader(path).build()


__all__ = ["read", "sniff"]
