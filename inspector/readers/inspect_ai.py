"""Reader for Inspect AI eval logs: `.eval` (a zip of `samples/<id>_epoch_<n>.json`) and `.json` logs.

Each sample is one session. Its `messages[]` is the whole history; a summarising compaction appends
a user message with `metadata.summary = true` ("[CONTEXT COMPACTION SUMMARY] …"), which is the summary,
not a turn. Its `events[]` hold a `compaction` event per compaction (`type` summary|edit|trim,
`tokens_before`, `tokens_after`, `metadata.trigger`). An event is placed among the messages after the
last message any earlier event (a model call's input or output, a tool call's result) referred to.
Edit and trim compactions drop or shorten messages without writing a summary: their text is
unavailable. Long texts may be stored once as `attachment://<hash>` in `sample.attachments`.
A log with several samples is a container: `FILE#<id>_epoch_<n>` names one.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import orjson

from inspector.bounded_io import ZIP_MAGIC, is_zip, open_regular, read_all, read_head, read_member
from inspector.errors import TraceReadError
from inspector.model import Trace
from inspector.raw_records import stamps_of
from inspector.readers.boilerplate import INSPECT_SUMMARY_OPENING
from inspector.readers.conservation import (
    COMPACTION,
    DUPLICATE,
    EMPTY,
    INSTRUCTIONS,
    MALFORMED,
    METADATA,
    TOOL_CALL,
    TOOL_RESULT,
    TURN,
    UNKNOWN,
    UNREAD,
    Fate,
)
from inspector.readers.field_decoder import FieldDecoder, Shape
from inspector.readers.timeline import Compaction
from inspector.readers.transcript import Transcript
from inspector.readers.values import as_int, as_str, blocks_text, input_text

NAME = "inspect-ai"
_ATTACHMENT = "attachment://"
_Placed = tuple[dict[str, Any], str | None]
"""A compaction event, and what a summariser call just before it answered (its summary when the sample's
messages lack one)."""
_CONTINUE = "Please proceed to the next step using your best judgement."
"""The react() agent's prompt when the model stops calling tools: the harness speaking, not the user."""
_TEXT_TYPES = ("text", "reasoning")
_EVENT: Shape = {
    "event": None, "type": None, "source": None, "metadata": None, "timestamp": None, "tokens_before": None,
    "tokens_after": None, "message_id": None, "input": [{"id": None}], "input_refs": None,
    "output": {"choices": [{"message": {"id": None, "content": None}}]},
}  # fmt: skip
"""What an event is read for: a model call's input messages for their ids only; its raw API `call`, `tools`
and `config`, a state event's `changes`, a span's bookkeeping are skipped unbuilt."""
_SAMPLE: Shape = {"id": None, "epoch": None, "started_at": None, "messages": None, "attachments": None,
                  "events": [_EVENT], "events_data": {"messages": [{"id": None}]}}  # fmt: skip
"""What a sample is read for (its `input`, `output`, `scores`, `store` and the rest are skipped)."""
_SAMPLE_FIELDS = FieldDecoder(_SAMPLE, "InspectSample")
_LOG_FIELDS = FieldDecoder({"eval": {"packages": None, "task": None}, "samples": [_SAMPLE]}, "InspectLog")
"""A `.json` log, or an `.eval` log's header: the eval's task and version, and the samples."""


# -- recognising --------------------------------------------------------------------------------


def sniff(head: bytes) -> bool:
    """A `.json` log: one object opening with Inspect's `version`, `status` and `eval` header fields."""
    start = head.lstrip()[:400]
    return start.startswith(b"{") and b'"version"' in start and b'"eval"' in head[:4096] and (
        b'"eval_id"' in head or b'"task_id"' in head)  # fmt: skip


def claims(path: Path) -> bool:
    """An `.eval` log: a zip holding `header.json` or `samples/` members. Cheap: the central directory only."""
    try:
        if not is_zip(path):
            return False
        with open_regular(path) as raw, zipfile.ZipFile(raw) as archive:
            return any(n == "header.json" or n.startswith("samples/") for n in archive.namelist())
    except Exception:  # a torn zip, a FIFO, a missing file: not ours, never an error here
        return False


# -- reading the log ----------------------------------------------------------------------------


class _Log:
    """One log's samples, by session id (`<id>_epoch_<n>`), read lazily from a zip or all at once from JSON."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.stamps = stamps_of(path)  # before reading: a log rewritten since shows as changed
        self.where: dict[str, tuple[str | None, str]] = {}
        """Session → the zip member holding its sample (None: the file) and the sample's JSON pointer in it."""
        self.version: str | None = None
        self.task: str | None = None
        self.zip_members: dict[str, zipfile.ZipInfo] = {}
        self.samples: dict[str, dict[str, Any]] = {}
        self.order: list[str] = []
        if read_head(path, len(ZIP_MAGIC)) == ZIP_MAGIC:
            self._open_zip()
        else:
            self._open_json()

    def _open_json(self) -> None:
        data = read_all(self.path)
        log = _LOG_FIELDS.decode(data)
        if log is None:
            try:
                log = orjson.loads(data)
            except orjson.JSONDecodeError as exc:
                raise TraceReadError(str(self.path), f"not a JSON eval log ({exc})") from None
        if not isinstance(log, dict):
            raise TraceReadError(str(self.path), "not an Inspect eval log (not a JSON object)")
        self._header(log)
        samples = log.get("samples")
        for position, sample in enumerate(samples if isinstance(samples, list) else ()):
            if isinstance(sample, dict):
                session = _session_id(sample.get("id"), sample.get("epoch"))
                if session not in self.samples:
                    self.samples[session] = sample
                    self.where[session] = (None, f"/samples/{position}")
        self.order = _newest_first([(k, v) for k, v in self.samples.items()])

    def _open_zip(self) -> None:
        try:
            with open_regular(self.path) as raw, zipfile.ZipFile(raw) as archive:
                infos = archive.infolist()
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
            raise TraceReadError(str(self.path), f"not a readable .eval zip ({exc})") from None
        names = {info.filename: info for info in infos}
        header = self._member_json(names["header.json"], _LOG_FIELDS) if "header.json" in names else None
        if isinstance(header, dict):
            self._header(header)
        for info in infos:
            name = info.filename
            if name.startswith("samples/") and name.endswith(".json"):
                session = name.removeprefix("samples/").removesuffix(".json")
                self.zip_members[session] = info
                self.where[session] = (name, "")
        summaries = self._member_json(names["summaries.json"]) if "summaries.json" in names else None
        listed = [(_session_id(s.get("id"), s.get("epoch")), s) for s in summaries if isinstance(s, dict)] if (
            isinstance(summaries, list)) else []  # fmt: skip
        known = [(k, s) for k, s in listed if k in self.zip_members]
        self.order = _newest_first(known)
        self.order += [k for k in reversed(self.zip_members) if k not in self.order]

    def _header(self, log: dict[str, Any]) -> None:
        evaluation = log.get("eval") if isinstance(log.get("eval"), dict) else {}
        packages = evaluation.get("packages")
        self.version = as_str(packages.get("inspect_ai")) if isinstance(packages, dict) else None
        self.task = as_str(evaluation.get("task"))

    def _member_json(self, info: zipfile.ZipInfo, fields: FieldDecoder | None = None) -> Any:
        """A member's JSON: an object as the keys `fields` declares, when they fit, else whole."""
        data = self._member(info)
        found = fields.decode(data) if fields is not None else None
        if found is not None:
            return found
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            raise TraceReadError(str(self.path), f"{info.filename}: not JSON ({exc})") from None

    def _member(self, info: zipfile.ZipInfo) -> bytes:
        return read_member(self.path, info)

    def sample(self, session: str) -> dict[str, Any]:
        if session in self.samples:
            return self.samples[session]
        info = self.zip_members.get(session)
        if info is None:
            known = ", ".join(self.order[:5]) + (" …" if len(self.order) > 5 else "")
            raise TraceReadError(str(self.path), f"no sample {session!r} in this log (it holds: {known or 'none'})")
        sample = self._member_json(info, _SAMPLE_FIELDS)
        if not isinstance(sample, dict):
            raise TraceReadError(str(self.path), f"{info.filename}: not a sample object")
        return sample


def _session_id(sample_id: Any, epoch: Any) -> str:
    return f"{sample_id if isinstance(sample_id, (str, int)) else '?'}_epoch_{as_int(epoch) or 1}"


def _newest_first(samples: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """Sessions by start time, newest first; a sample without one keeps its place after those with."""
    order = list(dict.fromkeys(k for k, _ in samples))
    started = {k: as_str(s.get("started_at")) or "" for k, s in samples}
    return sorted(reversed(order), key=lambda k: started.get(k, ""), reverse=True)


# -- one sample: the session --------------------------------------------------------------------


class _Sample:
    def __init__(self, path: Path, log: _Log, session: str, sample: dict[str, Any]) -> None:
        self.path = path
        self.log = log
        self.session = session
        self.sample = sample
        attachments = sample.get("attachments")
        self.attachments: dict[str, Any] = attachments if isinstance(attachments, dict) else {}
        self.transcript = Transcript(path, NAME, unit="messages and events")
        self.instructions = 0
        self.member, self.pointer = log.where.get(session, (None, None))
        """Where the sample is (its zip member, or the file; its JSON pointer there): a message's record is in it."""

    def build(self) -> Trace:
        place = self.pointer  # the sample's JSON pointer: each message's is below it
        raw = self.sample.get("messages")
        messages = [m for m in raw if isinstance(m, dict)] if isinstance(raw, list) else []
        positions = [i for i, m in enumerate(raw) if isinstance(m, dict)] if isinstance(raw, list) else []
        records = self.transcript.records
        records.met(len(raw) if isinstance(raw, list) else 0)
        records.aside(MALFORMED, len(raw) - len(messages) if isinstance(raw, list) else 0)  # not a message object
        placed = self._placed_compactions(messages)
        used: set[int] = set()
        for index, message in enumerate(messages):
            for event, summarizer_output in placed.get(index, ()):
                self._compaction(event, summarizer_output, messages, index, used)
            if index in used:
                records.count(COMPACTION)  # the summary message of a compaction event
            else:
                place_at = None if place is None else f"{place}/messages/{positions[index]}"
                fate = self._message(index, message, place_at)
                records.count(fate, f"message {message.get('role')}" if fate is UNKNOWN else None)
        for event, summarizer_output in placed.get(len(messages), ()):
            self._compaction(event, summarizer_output, messages, len(messages), used)
        extra: dict[str, Any] = {"sample": self.session, "messages": len(messages),
                                 "system_messages": self.instructions}  # fmt: skip
        for name, value in (("version", self.log.version), ("task", self.log.task)):
            if value:
                extra[name] = value
        others = [s for s in self.log.order if s != self.session]
        if others:
            extra["other_samples"] = len(others)
        title = f"{self.log.task} · {self.session}" if self.log.task else self.session
        return self.transcript.build(self.session, title, extra, self.log.stamps, self.member)

    # The compactions' places among the messages ------------------------------------------------

    def _placed_compactions(self, messages: list[dict[str, Any]]) -> dict[int, list[_Placed]]:
        """Each compaction event, at the index of the first message after everything seen before it."""
        position = {m["id"]: i for i, m in enumerate(messages) if isinstance(m.get("id"), str)}
        raw = self.sample.get("events")
        events = [e for e in raw if isinstance(e, dict)] if isinstance(raw, list) else []
        records = self.transcript.records
        records.met(len(raw) if isinstance(raw, list) else 0)
        records.aside(MALFORMED, len(raw) - len(events) if isinstance(raw, list) else 0)
        seen = -1
        placed: dict[int, list[_Placed]] = {}
        summarizer_output: str | None = None
        # What each event is to the trace: a compaction; a model call, or a tool event naming its message, read for
        # the message ids that place the compactions; a tool event naming none only echoes its tool message; any
        # other (the sample's state, spans, scores) is bookkeeping, not read. Counted once, after the walk.
        read = {"model": 0, "tool": 0, "echo": 0, "compaction": 0}
        for event in events:
            kind = event.get("event")
            if kind == "model":
                read["model"] += 1
                refs = [m.get("id") for m in self._model_input(event) if isinstance(m, dict)]
                output = _output_message(event)
                refs.append(output.get("id"))
                hits = [position[r] for r in refs if isinstance(r, str) and r in position]
                if hits:
                    seen = max(seen, *hits)
                    summarizer_output = None
                else:  # a call on none of the sample's messages' ids: a summariser's
                    summarizer_output = self._text(output.get("content"))
            elif kind == "tool":
                if isinstance(event.get("message_id"), str):
                    read["tool"] += 1
                    seen = max(seen, position.get(event["message_id"], seen))
                else:
                    read["echo"] += 1
            elif kind == "compaction":
                read["compaction"] += 1
                placed.setdefault(seen + 1, []).append((event, summarizer_output))
                summarizer_output = None
        records.read_as(METADATA, read["model"] + read["tool"])
        records.read_as(COMPACTION, read["compaction"])
        records.aside(DUPLICATE, read["echo"])
        records.aside(UNREAD, len(events) - sum(read.values()))
        if not position and placed:  # no ids to place by: pair summaries in order, the rest at the end
            return self._placed_by_summaries(messages, [e for p in sorted(placed) for e in placed[p]])
        return placed

    def _model_input(self, event: dict[str, Any]) -> list[Any]:
        """A model call's input: inline, or (.eval logs) `input_refs` ranges into `events_data.messages`."""
        inline = event.get("input")
        if isinstance(inline, list) and inline:
            return inline
        refs = event.get("input_refs")
        data = self.sample.get("events_data")
        pool = data.get("messages") if isinstance(data, dict) else None
        if not isinstance(refs, list) or not isinstance(pool, list):
            return []
        found: list[Any] = []
        for ref in refs:
            if isinstance(ref, list) and len(ref) == 2 and all(as_int(n) is not None for n in ref):
                found.extend(pool[max(ref[0], 0) : max(ref[1], 0)])
        return found

    def _placed_by_summaries(self, messages: list[dict[str, Any]],
                             events: list[_Placed]) -> dict[int, list[_Placed]]:  # fmt: skip
        summaries = iter(i for i, m in enumerate(messages) if _is_summary(m))
        placed: dict[int, list[_Placed]] = {}
        for event in events:
            at = next(summaries, len(messages)) if event[0].get("type") == "summary" else len(messages)
            placed.setdefault(at, []).append(event)
        return placed

    # Turns ----------------------------------------------------------------------------------------

    def _message(self, index: int, message: dict[str, Any], place: str | None) -> Fate:
        """`place`: the message's JSON pointer in the document, when it has one."""
        self.transcript.place = place
        role = message.get("role")
        key = as_str(message.get("id")) or f"message:{index}"
        if _is_summary(message):
            # A summary with no compaction event: the log lost the event, the summary is still one.
            self.transcript.compaction(Compaction(self._text(message.get("content")), line=index,
                                                  extra={"message_id": key, "compaction_event": False}))  # fmt: skip
            return COMPACTION
        text = self._text(message.get("content"))
        if role == "system":
            self.instructions += 1
            return INSTRUCTIONS
        if role == "user":
            if not text:
                return EMPTY
            harness = message.get("source") not in (None, "input") or text.lstrip().startswith(_CONTINUE)
            self.transcript.turn(key, "user", "harness" if harness else "user", text,
                                 source=as_str(message.get("source")))  # fmt: skip
            return TURN
        if role == "assistant":
            if text:
                self.transcript.turn(key, "assistant", "assistant", text, model=as_str(message.get("model")))
            calls = message.get("tool_calls")
            called = False
            for n, call in enumerate(calls if isinstance(calls, list) else ()):
                if isinstance(call, dict):
                    call_id = as_str(call.get("id")) or f"{key}:call:{n}"
                    tool = as_str(call.get("function")) or "tool"
                    self.transcript.place = None if place is None else f"{place}/tool_calls/{n}"
                    self.transcript.tool_call(call_id, tool, self._resolve(call.get("arguments", {})))
                    called = True
            return TURN if text else TOOL_CALL if called else EMPTY
        if role == "tool":
            error = message.get("error")
            failed = isinstance(error, dict) or (error is not None and error is not False)
            if isinstance(error, dict) and not text:
                text = input_text(error)
            self.transcript.tool_result(as_str(message.get("tool_call_id")), key, text, is_error=failed)
            return TOOL_RESULT
        self.transcript.unknown_types[f"message {role}"] += 1
        return UNKNOWN

    def _compaction(self, event: dict[str, Any], summarizer_output: str | None, messages: list[dict[str, Any]],
                    index: int, used: set[int]) -> None:  # fmt: skip
        kind = as_str(event.get("type")) or "?"
        metadata = event.get("metadata") if isinstance(event.get("metadata"), dict) else {}
        extra: dict[str, Any] = {"type": kind, "source": as_str(event.get("source")),
                                 "strategy": as_str(metadata.get("strategy")),
                                 "messages_before": as_int(metadata.get("messages_before")),
                                 "messages_after": as_int(metadata.get("messages_after"))}  # fmt: skip
        extra = {k: v for k, v in extra.items() if v is not None}
        text: str | None = None
        reason: str | None = None
        if kind == "summary":
            at = next((i for i in range(index, len(messages)) if i not in used and _is_summary(messages[i])), None)
            if at is not None and at <= index + 1:
                used.add(at)
                text = self._text(messages[at].get("content")) or None
                extra["message_id"] = as_str(messages[at].get("id"))
            if text is None and summarizer_output:
                text, extra["summary_source"] = summarizer_output, "summarizer model call"
            if text is None:
                reason = "summary compaction whose summary message is not in the sample's messages"
        else:
            reason = f"a {kind} compaction removes or shortens messages without writing a summary"
        trigger = as_str(metadata.get("trigger"))
        self.transcript.compaction(Compaction(
            text=text, line=index, trigger=trigger, tokens_before=as_int(event.get("tokens_before")),
            tokens_after=as_int(event.get("tokens_after")), timestamp=as_str(event.get("timestamp")),
            unavailable=reason, extra={k: v for k, v in extra.items() if v is not None},
        ))  # fmt: skip

    def _text(self, content: Any) -> str:
        return blocks_text(self._resolve(content), _TEXT_TYPES)

    def _resolve(self, value: Any, depth: int = 0) -> Any:
        """`attachment://<hash>` strings replaced by the text the sample's attachments hold for them."""
        if isinstance(value, str):
            if value.startswith(_ATTACHMENT):
                stored = self.attachments.get(value.removeprefix(_ATTACHMENT))
                return stored if isinstance(stored, str) else value
            return value
        if depth > 20:
            return value
        if isinstance(value, list):
            return [self._resolve(v, depth + 1) for v in value]
        if isinstance(value, dict):
            resolved = {k: self._resolve(v, depth + 1) for k, v in value.items()}
            if resolved.get("type") == "reasoning" and isinstance(resolved.get("reasoning"), str):
                resolved.setdefault("text", resolved["reasoning"])
            return resolved
        return value


def _is_summary(message: dict[str, Any]) -> bool:
    metadata = message.get("metadata")
    if isinstance(metadata, dict) and "summary" in metadata:
        return True
    content = message.get("content")
    return message.get("role") == "user" and isinstance(content, str) and content.startswith(INSPECT_SUMMARY_OPENING)


def _output_message(event: dict[str, Any]) -> dict[str, Any]:
    output = event.get("output")
    choices = output.get("choices") if isinstance(output, dict) else None
    first = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
    message = first.get("message")
    return message if isinstance(message, dict) else {}


# -- entry points ---------------------------------------------------------------------------------


def sessions(path: Path) -> list[str]:
    return list(_Log(path).order)


def read_session(path: Path, session: str) -> Trace:
    log = _Log(path)
    return _Sample(path, log, session, log.sample(session)).build()


def read(path: Path) -> Trace:
    log = _Log(path)
    if not log.order:
        raise TraceReadError(str(path), "the eval log holds no samples (a header-only log)")
    return _Sample(path, log, log.order[0], log.sample(log.order[0])).build()  # the registry names the others


__all__ = ["claims", "read", "read_session", "sessions", "sniff"]
