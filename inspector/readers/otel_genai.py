"""Reader for OpenTelemetry GenAI traces exported as OTLP JSON: one conversation per `gen_ai.conversation.id`.

An export is `ExportTraceServiceRequest` JSON (`resourceSpans[].scopeSpans[].spans[]`): one request per line, as the
Collector's file exporter writes, or one (pretty-printed) document. Spans of several conversations interleave, so a
file is a container: `FILE#<conversation id>` loads one, the newest by default (a span with no conversation id
belongs to a conversation named after its trace). Under the GenAI semantic conventions an inference span (`chat
<model>`) records the chat history it sent as `gen_ai.input.messages` and the reply as `gen_ai.output.messages`,
`ChatMessage {role, parts}` with parts `text`, `tool_call`, `tool_call_response`, `compaction {id?, content?}`…,
as structured values or JSON strings. Each call re-sends the history, so messages are aligned on what was read
before (`resent_history`) and only new ones become turns. A `compaction` part is a compaction: its `content` is the
summary, or it has none (opaque state: summary-unavailable). A span marked `gen_ai.conversation.compacted = true`
whose history was cut with no compaction part is one too, its summary unknown. The convention sets that flag true
only, and some emitters keep it on every later span, so the flag on a span that continues the history is no new
compaction.
A tool result is a failure when its `execute_tool` span (same `gen_ai.tool.call.id`) has status ERROR.
"""

from __future__ import annotations

import base64
import binascii
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from inspector.bounded_io import read_all, read_head
from inspector.errors import TraceReadError
from inspector.model import Trace
from inspector.readers.conservation import (
    COMPACTION,
    DUPLICATE,
    MALFORMED,
    METADATA,
    OTHER_SESSION,
    OUTCOME,
    TORN,
    TURN,
    UNREAD,
    Fate,
)
from inspector.readers.json_lines import JsonLines, is_json_document
from inspector.readers.resent_history import ResentHistory
from inspector.readers.timeline import Compaction
from inspector.readers.transcript import NATIVE_TAG, Transcript
from inspector.readers.values import as_int, as_str, input_text, type_of

NAME = "otel-genai"

_INFERENCE = frozenset({"chat", "text_completion", "generate_content"})
_UNCOMPARED = frozenset({"finish_reason"})
"""An output message's field that is dropped when the message is sent back as history."""
_IGNORED_PARTS = frozenset({"reasoning", "blob", "file", "uri", "server_tool_call", "server_tool_call_response"})
_ERROR = frozenset({2, "STATUS_CODE_ERROR"})


def sniff(head: bytes) -> bool:
    """An OTLP JSON trace export: an object whose first field is `resourceSpans` (or its proto name)."""
    if NATIVE_TAG in head:
        return False
    start = head.lstrip()[:200]
    return start.startswith(b"{") and (b'"resourceSpans"' in start or b'"resource_spans"' in start)


# -- the export: spans ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Span:
    line: int | None
    span_id: str
    trace_id: str
    name: str
    start: int
    end: int
    attributes: dict[str, Any]
    failed: bool

    @property
    def operation(self) -> str | None:
        return as_str(self.attributes.get("gen_ai.operation.name"))

    @property
    def is_inference(self) -> bool:
        if self.operation is not None:
            return self.operation in _INFERENCE
        return "gen_ai.input.messages" in self.attributes or "gen_ai.output.messages" in self.attributes

    @property
    def conversation(self) -> str:
        return as_str(self.attributes.get("gen_ai.conversation.id")) or f"trace-{self.trace_id}"


class _Export:
    """A file's GenAI spans, by conversation, each conversation's inference spans in time order."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.notices: list[Any] = []
        self.spans = 0
        self.lines: dict[str, Any] = {}
        self.conversations: dict[str, list[_Span]] = {}
        self.failed_calls: set[str] = set()
        self.agents: dict[str, str] = {}
        """A conversation's agent name, from any of its spans (instrumentations put it on `invoke_agent`)."""
        self.unknown = 0
        self.side: Counter[Fate] = Counter()
        """What became of the spans that are no inference call (every conversation's: they are read for all)."""
        self.malformed = 0
        """Spans (or whole requests and lines) that are not JSON objects: each one record set aside."""
        self.torn = 0
        for line, request in self._requests():
            if request is None:
                self.malformed += 1
                continue
            for span in _spans(request, line, self):
                self.spans += 1
                self._add(span)
        if not self.conversations:
            raise TraceReadError(str(path), "no GenAI inference spans (gen_ai.operation.name chat or the "
                                 "gen_ai.input.messages attribute) in this trace export")  # fmt: skip
        for spans in self.conversations.values():
            spans.sort(key=lambda s: (s.start, s.end))
        self.order = sorted(self.conversations, key=lambda c: self.conversations[c][0].start, reverse=True)

    def _requests(self) -> Iterator[tuple[int | None, dict[str, Any] | None]]:
        """Each export request (None for one that is not an object: its spans cannot be counted)."""
        if is_json_document(read_head(self.path)):
            try:
                data = orjson.loads(read_all(self.path))
            except orjson.JSONDecodeError as exc:
                line = getattr(exc, "lineno", None)
                raise TraceReadError(str(self.path), f"invalid JSON ({exc.msg})", line) from None
            for request in data if isinstance(data, list) else [data]:
                yield None, request if isinstance(request, dict) else None
            return
        lines = JsonLines(self.path)
        yield from lines
        self.notices = lines.notices
        self.malformed += lines.malformed  # a line that is no JSON object: one record, whatever spans it held
        self.torn = lines.torn
        self.lines = {"lines": lines.lines, "malformed_lines": lines.malformed}

    def _add(self, span: _Span) -> None:
        call_id = as_str(span.attributes.get("gen_ai.tool.call.id"))
        if span.operation == "execute_tool" and call_id and span.failed:
            self.failed_calls.add(call_id.strip())
        agent = as_str(span.attributes.get("gen_ai.agent.name"))
        if agent:
            self.agents.setdefault(span.conversation, agent)
        if span.is_inference:
            self.conversations.setdefault(span.conversation, []).append(span)
        else:  # read for how a call ended or whose agent a conversation is; any other span is not read
            self.side[OUTCOME if span.operation == "execute_tool" and call_id else METADATA if agent else UNREAD] += 1

    def conversation(self, session: str) -> list[_Span]:
        if session not in self.conversations:
            known = ", ".join(self.order[:5]) + (" …" if len(self.order) > 5 else "")
            raise TraceReadError(str(self.path), f"no conversation {session!r} in this export (it holds: {known})")
        return self.conversations[session]


def _spans(request: dict[str, Any], line: int | None, export: _Export) -> Iterator[_Span]:
    for resource in _list(request, "resourceSpans", "resource_spans"):
        for scope in _list(resource, "scopeSpans", "scope_spans"):
            listed = _field(scope, "spans", "spans")
            spans = _list(scope, "spans", "spans")
            export.malformed += len(listed) - len(spans) if isinstance(listed, list) else 0  # a span that is no object
            for span in spans:
                attributes = {a.get("key"): _value(a.get("value")) for a in _list(span, "attributes", "attributes")
                              if isinstance(a.get("key"), str)}  # fmt: skip
                status = span.get("status")
                code = status.get("code") if isinstance(status, dict) else None
                yield _Span(line, _hex(_field(span, "spanId", "span_id")), _hex(_field(span, "traceId", "trace_id")),
                            as_str(span.get("name")) or "",
                            _nanos(_field(span, "startTimeUnixNano", "start_time_unix_nano")),
                            _nanos(_field(span, "endTimeUnixNano", "end_time_unix_nano")), attributes,
                            code in _ERROR)  # fmt: skip


def _field(data: dict[str, Any], camel: str, snake: str) -> Any:
    """OTLP/JSON spells fields in lowerCamelCase; protobuf's own JSON printer may keep the proto names."""
    return data[camel] if camel in data else data.get(snake)


def _list(data: Any, camel: str, snake: str) -> list[dict[str, Any]]:
    value = _field(data, camel, snake) if isinstance(data, dict) else None
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _value(value: Any, depth: int = 0) -> Any:
    """An OTLP AnyValue as a Python value: `{"stringValue": "x"}` → "x", arrays and key-value lists nested."""
    if not isinstance(value, dict) or depth > 32:
        return None
    for camel, snake in (("stringValue", "string_value"), ("boolValue", "bool_value"), ("doubleValue", "double_value")):
        found = _field(value, camel, snake)
        if found is not None:
            return found
    integer = _field(value, "intValue", "int_value")
    if integer is not None:  # int64 is a JSON string in OTLP/JSON
        return int(integer) if isinstance(integer, str) and integer.lstrip("-").isdigit() else as_int(integer)
    array = _field(value, "arrayValue", "array_value")
    if isinstance(array, dict):
        return [_value(v, depth + 1) for v in _list(array, "values", "values")]
    pairs = _field(value, "kvlistValue", "kvlist_value")
    if isinstance(pairs, dict):
        return {p["key"]: _value(p.get("value"), depth + 1) for p in _list(pairs, "values", "values")
                if isinstance(p.get("key"), str)}  # fmt: skip
    return None


def _hex(value: Any) -> str:
    """A trace or span id: hex in OTLP/JSON, base64 when protobuf's JSON printer wrote the bytes field."""
    text = as_str(value) or ""
    if len(text) in (16, 32) and all(c in "0123456789abcdefABCDEF" for c in text):
        return text.lower()
    try:
        return base64.b64decode(text, validate=True).hex() or "?"
    except (binascii.Error, ValueError):
        return text or "?"


def _nanos(value: Any) -> int:
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return as_int(value) or 0


def _timestamp(nanos: int) -> str | None:
    if nanos <= 0:
        return None
    try:
        return datetime.fromtimestamp(nanos / 1e9, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    except (OverflowError, OSError, ValueError):
        return None


# -- one conversation: the session ----------------------------------------------------------------


class _Conversation:
    def __init__(self, path: Path, export: _Export, session: str) -> None:
        self.path = path
        self.export = export
        self.session = session
        self.transcript = Transcript(path, NAME, unit="spans")
        self.history = ResentHistory(_UNCOMPARED)
        self.instructions = 0
        self.previous_tokens: int | None = None
        self.models: dict[str, None] = {}

    def build(self) -> Trace:
        spans = self.export.conversation(self.session)
        records, timeline = self.transcript.records, self.transcript.timeline
        export = self.export
        records.met(export.spans + export.malformed + export.torn)
        for span in spans:
            before = len(timeline)
            self._span(span)
            made = timeline[before:]
            records.count(COMPACTION if any(isinstance(i, Compaction) for i in made) else TURN if made else DUPLICATE)
        for fate, count in export.side.items():
            records.count(fate, times=count)
        records.aside(OTHER_SESSION, sum(len(s) for c, s in export.conversations.items() if c != self.session))
        records.aside(MALFORMED, export.malformed)
        records.aside(TORN, export.torn)
        self.transcript.notices[:0] = self.export.notices
        extra: dict[str, Any] = {**self.export.lines, "conversation": self.session, "spans": self.export.spans,
                                 "inference_spans": len(spans), "history_rewrites": self.history.rewrites,
                                 "instruction_messages": self.instructions}  # fmt: skip
        if self.models:
            extra["model"] = ", ".join(self.models)
        others = [c for c in self.export.order if c != self.session]
        if others:
            extra["other_conversations"] = len(others)
        agent = self.export.agents.get(self.session)
        title = f"{agent} · {self.session}" if agent else self.session
        return self.transcript.build(self.session, title, extra)

    def _span(self, span: _Span) -> None:
        attributes = span.attributes
        model = as_str(attributes.get("gen_ai.response.model")) or as_str(attributes.get("gen_ai.request.model"))
        if model:
            self.models.setdefault(model)
        inputs = self._messages(span, "gen_ai.input.messages")
        sent = [self.history.fingerprint(m) for m in inputs]
        known = set(self.history.read)
        compacting = any(_has_compaction(m) and p not in known for m, p in zip(inputs, sent, strict=True))
        flagged = attributes.get("gen_ai.conversation.compacted") is True
        if compacting:
            fresh = self.history.unseen(inputs)
        else:
            rewrites = self.history.rewrites
            fresh = self.history.fresh(inputs)
            if flagged and self.history.rewrites > rewrites:
                self.history.rewrites = rewrites  # not an edited history: a compaction that left no part
                self._compaction(span, None, "input", f"span {span.span_id} is marked gen_ai.conversation."
                                 "compacted and its history was cut, but it carries no compaction part")  # fmt: skip
                compacting = True
        when = _timestamp(span.start)
        for index in fresh:
            self._message(span, inputs[index], f"{span.span_id}:in{index}", "input", when)
        if compacting:
            self.history.replace(inputs)
        else:
            for index in fresh:
                self.history.add(inputs[index])
        outputs = self._messages(span, "gen_ai.output.messages")
        if outputs:  # each output message is a choice; the first is the one the history goes on with
            self._message(span, outputs[0], f"{span.span_id}:out", "output", _timestamp(span.end))
            self.history.add(outputs[0])
            if len(outputs) > 1:
                self.transcript.unknown_types["(other choices)"] += len(outputs) - 1
        used = [as_int(attributes.get(k)) for k in ("gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens")]
        self.previous_tokens = sum(u for u in used if u) or self.previous_tokens

    def _messages(self, span: _Span, name: str) -> list[dict[str, Any]]:
        value = span.attributes.get(name)
        if isinstance(value, str):
            try:
                value = orjson.loads(value)
            except orjson.JSONDecodeError:
                self.transcript.unknown_types[f"{name} (not JSON)"] += 1
                return []
        return [m for m in value if isinstance(m, dict)] if isinstance(value, list) else []

    def _message(self, span: _Span, message: dict[str, Any], key: str, where: str, when: str | None) -> None:
        role = as_str(message.get("role")) or "?"
        parts = message.get("parts")
        if role == "system":
            self.instructions += 1
            return
        for number, part in enumerate(parts if isinstance(parts, list) else ()):
            kind = type_of(part)
            part_key = f"{key}:{number}"
            if kind == "text":
                self._text(role, part_key, as_str(part.get("content")) or "", when)
            elif kind == "tool_call":
                call_id = (as_str(part.get("id")) or "").strip() or part_key
                name = as_str(part.get("name")) or "tool"
                self.transcript.tool_call(call_id, name, _arguments(part.get("arguments")), when)
            elif kind == "tool_call_response":
                call_id = (as_str(part.get("id")) or "").strip() or None
                response = part.get("response", part.get("result"))
                self.transcript.tool_result(call_id, f"{call_id}:result" if call_id else part_key,
                                            input_text(response) if response is not None else "",
                                            is_error=call_id in self.export.failed_calls, timestamp=when)  # fmt: skip
            elif kind == "compaction":
                content = as_str(part.get("content"))
                self._compaction(span, content or None, where, None if content else (
                    f"span {span.span_id}: the compaction part carries no content (opaque compacted state)"),
                    as_str(part.get("id")))  # fmt: skip
            elif kind is not None and kind not in _IGNORED_PARTS:
                self.transcript.unknown_types[f"part {kind}"] += 1

    def _text(self, role: str, key: str, text: str, when: str | None) -> None:
        if not text:
            return
        if role == "assistant":
            self.transcript.turn(key, "assistant", "assistant", text, when)
        elif role == "user":
            self.transcript.turn(key, "user", "user", text, when)
        elif role == "tool":
            self.transcript.tool_result(None, key, text, is_error=False, timestamp=when)
        else:
            self.transcript.unknown_types[f"role {role}"] += 1

    def _compaction(self, span: _Span, text: str | None, where: str, unavailable: str | None,
                    part_id: str | None = None) -> None:  # fmt: skip
        extra: dict[str, Any] = {"span": span.span_id, "in": where}
        if part_id:
            extra["part_id"] = part_id
        after = as_int(span.attributes.get("gen_ai.usage.input_tokens")) if where == "input" else None
        self.transcript.compaction(Compaction(
            text=text, line=span.line, tokens_before=self.previous_tokens, tokens_after=after,
            timestamp=_timestamp(span.start), unavailable=unavailable, extra=extra,
        ))  # fmt: skip


def _has_compaction(message: dict[str, Any]) -> bool:
    parts = message.get("parts")
    return isinstance(parts, list) and any(type_of(p) == "compaction" for p in parts)


def _arguments(value: Any) -> Any:
    """Tool arguments as data: a JSON string (allowed on spans) decoded, anything else as given."""
    if isinstance(value, str):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return value
    return {} if value is None else value


# -- entry points ---------------------------------------------------------------------------------


def sessions(path: Path) -> list[str]:
    return list(_Export(path).order)


def read_session(path: Path, session: str) -> Trace:
    return _Conversation(path, _Export(path), session).build()


def read(path: Path) -> Trace:
    export = _Export(path)
    return _Conversation(path, export, export.order[0]).build()  # the registry names the others


__all__ = ["read", "read_session", "sessions", "sniff"]
