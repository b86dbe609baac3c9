"""Reader for Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).

Each line is `{timestamp, type, payload}`. Turns are `response_item` lines; a `compacted` line is a
compaction. Its summary is `payload.message` (local compaction) or the summary user message inside
`payload.replacement_history`. When that history carries an opaque `compaction` item, the model went
on from a server-side summary that is encrypted: the generation exists, its text is unavailable.
Lines are decoded into typed records (`codex_records`) that hold only what this reader reads.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import msgspec
import orjson

from inspector.model import Trace
from inspector.readers.boilerplate import CODEX_SUMMARY_OPENING
from inspector.readers.codex_records import (
    ECHO_EVENTS,
    LINE_TYPES,
    REASONING_EVENTS,
    AgentMessage,
    Call,
    CommandEnd,
    CompactedLine,
    EventLine,
    ItemLine,
    Message,
    Output,
    PatchEnd,
    SessionMeta,
    SessionMetaLine,
    ThreadName,
    TokenCount,
    ToolCallEnd,
    Unknown,
    decode_fast,
    from_dict,
    kind,
)
from inspector.readers.conservation import (
    COMPACTION,
    DUPLICATE,
    EMPTY,
    INSTRUCTIONS,
    METADATA,
    OUTCOME,
    REASONING,
    TOOL_CALL,
    TOOL_RESULT,
    TURN,
    UNKNOWN,
    UNREAD,
    Fate,
)
from inspector.readers.json_lines import JsonLines, head_records
from inspector.readers.timeline import Compaction, TokenWatch
from inspector.readers.transcript import NATIVE_TAG, Transcript
from inspector.readers.values import as_int, as_str, blocks_text, session_stem, tool_arguments

NAME = "codex"

_EXIT_CODE = re.compile(r"(?:Exit code:|Process exited with code)\s*(-?\d+)")
_INJECTED = ("<environment_context", "<user_instructions", "# AGENTS.md instructions", "<permissions",
             "<turn_aborted", "<INSTRUCTIONS>", "<collaboration_mode", "<skill", "<user_shell_command")  # fmt: skip


def sniff(head: bytes) -> bool:
    """Rollout lines: `{timestamp, type, payload}` with a Codex line type."""
    if NATIVE_TAG in head:
        return False
    records = head_records(head)
    for record in records[:16]:
        if {"timestamp", "type", "payload"} <= record.keys() and record["type"] in LINE_TYPES:
            return True
    start = head.lstrip()[:200]
    return not records and start.startswith(b'{"timestamp"') and b'"payload"' in start


class _Reader:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.lines = JsonLines(path, decode_fast)
        self.transcript = Transcript(path, NAME)
        self.session_ids: list[str] = []
        self.title: str | None = None
        self.version: str | None = None
        self.cwd: str | None = None
        self.tokens = TokenWatch()
        self.instructions = 0

    def build(self) -> Trace:
        records = self.transcript.records
        for line, decoded in self.lines:
            record = from_dict(decoded) if type(decoded) is dict else decoded
            shape = type(record)
            fate: Fate
            if shape is ItemLine:
                self.transcript.place = self.lines.offset  # the turns an item makes are found at its line
                fate = self._item(line, record.payload, as_str(record.timestamp))
            elif shape is EventLine:
                fate = self._event(record.payload, as_str(record.timestamp))
            elif shape is CompactedLine:
                self._compacted(line, record.payload, as_str(record.timestamp))
                fate = COMPACTION
            elif shape is SessionMetaLine:
                self._meta(record.payload)
                fate = METADATA
            elif shape is Unknown:
                self.transcript.unknown_types[record.label] += 1
                records.count(UNKNOWN, record.label)
                continue
            else:  # a turn context, a world state: bookkeeping no analysis reads
                fate = UNREAD
            records.count(fate)
        records.lines(self.lines)
        self.transcript.notices[:0] = self.lines.notices
        extra: dict[str, Any] = {
            "lines": self.lines.lines,
            "malformed_lines": self.lines.malformed,
            "session_meta": len(self.session_ids),
            "instruction_messages": self.instructions,
        }
        for name, value in (("version", self.version), ("cwd", self.cwd)):
            if value:
                extra[name] = value
        trace_id = self.session_ids[0] if self.session_ids else session_stem(self.path)
        return self.transcript.build(trace_id, self.title, extra, self.lines.stamps)

    def _meta(self, meta: SessionMeta) -> None:
        session = meta.session_id if meta.id is msgspec.UNSET else meta.id
        if isinstance(session, str):
            self.session_ids.append(session)
        if self.version is None and isinstance(meta.cli_version, str):
            self.version = meta.cli_version
        if self.cwd is None and isinstance(meta.cwd, str):
            self.cwd = meta.cwd

    # -- response items: the turns --------------------------------------------------------------

    def _item(self, line: int, item: Any, timestamp: str | None) -> Fate:
        """A message, a call or an output; other items (reasoning, snapshots) are no turn."""
        if isinstance(item, Message):
            return self._message(_key(item, line), item, timestamp)
        if isinstance(item, AgentMessage):
            text = blocks_text(item.content)
            if not text:
                return EMPTY
            self.transcript.turn(_key(item, line), "user", "agent", text, timestamp, author=item.author)
            return TURN
        if isinstance(item, Call):
            call_id = _call_id(item, _key(item, line))
            name = item.name if isinstance(item.name, str) else kind(item)
            self.transcript.tool_call(call_id, name, tool_arguments(msgspec.structs.asdict(item)), timestamp)
            if kind(item) == "web_search_call":
                self.transcript.no_result(call_id, "a web search writes no output item (its results are in a "
                                          "web_search_end event, which names no call this reader can pair it with)")
            return TOOL_CALL
        if isinstance(item, Output):
            call_id = _call_id(item, None)
            text, failed = _output(item.tools if item.output is msgspec.UNSET else item.output)
            self.transcript.tool_result(call_id, f"{call_id}:output" if call_id else _key(item, line), text,
                                        is_error=failed, timestamp=timestamp)  # fmt: skip
            return TOOL_RESULT
        tag = kind(item)
        if tag == "reasoning":
            return REASONING
        # The opaque compaction item is the compaction its `compacted` line makes a generation.
        return DUPLICATE if tag in ("compaction", "compaction_summary") else UNREAD

    def _message(self, key: str, message: Message, timestamp: str | None) -> Fate:
        role = message.role
        text = blocks_text(message.content)
        if not text:
            return EMPTY
        if role == "assistant":
            self.transcript.turn(key, "assistant", "assistant", text, timestamp)
        elif role == "user":
            if text.startswith(CODEX_SUMMARY_OPENING):
                return DUPLICATE  # the summary put back after a compaction is a generation, not evidence
            injected = text.lstrip().startswith(_INJECTED)
            self.transcript.turn(key, "user", "harness" if injected else "user", text, timestamp)
        else:  # developer / system prompts: the harness's instructions, not the conversation
            self.instructions += 1
            return INSTRUCTIONS
        return TURN

    # -- events: outcomes, files touched, token counts --------------------------------------------

    def _event(self, event: Any, timestamp: str | None) -> Fate:
        """Outcomes, files read and edited, token counts, the title; the other known events echo turns."""
        if isinstance(event, TokenCount):
            self._tokens(event.info)
            return METADATA
        if isinstance(event, ThreadName):
            if isinstance(event.thread_name, str):
                self.title = event.thread_name
            return METADATA
        if not isinstance(event, CommandEnd | PatchEnd | ToolCallEnd):
            tag = kind(event)
            return REASONING if tag in REASONING_EVENTS else DUPLICATE if tag in ECHO_EVENTS else UNREAD
        if isinstance(event, CommandEnd):
            call_id = as_str(event.call_id)
            code = as_int(event.exit_code)
            if call_id and code is not None:
                self.transcript.outcome(call_id, code == 0)
            parsed_cmd = event.parsed_cmd
            for parsed in parsed_cmd if isinstance(parsed_cmd, list) else ():
                if isinstance(parsed, dict) and parsed.get("type") == "read" and isinstance(parsed.get("path"), str):
                    self.transcript.mention("file", parsed["path"], "read", timestamp)
        elif isinstance(event, PatchEnd):
            call_id = as_str(event.call_id)
            if call_id and event.success is False:
                self.transcript.outcome(call_id, False)
            changes = event.changes
            for target in changes if isinstance(changes, dict) else ():
                self.transcript.mention("file", target, "edit", timestamp)
        elif isinstance(event, ToolCallEnd):
            call_id = as_str(event.call_id)
            result = event.result
            failed = isinstance(result, dict) and (
                "Err" in result or (isinstance(result.get("Ok"), dict) and result["Ok"].get("isError") is True)
            )
            if call_id and failed:
                self.transcript.outcome(call_id, False)
        return OUTCOME

    def _tokens(self, info: Any) -> None:
        usage = info.get("last_token_usage") if isinstance(info, dict) else None
        total = as_int(usage.get("total_tokens")) if isinstance(usage, dict) else None
        self.tokens.usage(total)  # 0 or missing is no measurement

    # -- compactions --------------------------------------------------------------------------

    def _compacted(self, line: int, payload: dict[str, Any], timestamp: str | None) -> None:
        message = payload.get("message") if isinstance(payload.get("message"), str) else ""
        history = payload.get("replacement_history")
        history = [item for item in history if isinstance(item, dict)] if isinstance(history, list) else []
        opaque = any(item.get("type") in ("compaction", "compaction_summary") for item in history)
        extra: dict[str, Any] = {k: v for k, v in payload.items() if k not in ("message", "replacement_history")}
        extra["replacement_history_items"] = len(history)
        text: str | None
        if opaque:
            # The history the model continued from holds the encrypted item; any `message` beside it is
            # not what the model saw, so it is kept for reference but not audited as the summary.
            text, reason = None, f"line {line}: the summary is an encrypted compaction item (remote compaction)"
            if message.strip():
                extra["message"] = message
        elif message.strip():
            text, reason = message, None
        else:
            text = _summary_message(history)
            reason = None if text else f"line {line}: compacted record carries no summary text"
            if text:
                extra["summary_source"] = "replacement_history"
        compaction = Compaction(
            text=text,
            line=line,
            tokens_before=self.tokens.last,
            timestamp=timestamp,
            unavailable=reason,
            extra=extra,
        )
        self.transcript.compaction(compaction)
        self.tokens.compacted(compaction)


def _summary_message(history: list[dict[str, Any]]) -> str | None:
    """The summary Codex put back into the history: the prefixed user message, else the last one."""
    users = [blocks_text(item.get("content")) for item in history
             if item.get("type") == "message" and item.get("role") == "user"]  # fmt: skip
    users = [text for text in users if text]
    prefixed = [text for text in users if text.startswith(CODEX_SUMMARY_OPENING)]
    return (prefixed or users or [None])[-1]


def _key(item: Message | AgentMessage | Call | Output, line: int) -> str:
    """An item's own id, else its line: the turn's key."""
    return item.id if isinstance(item.id, str) else f"line:{line}"


def _call_id(item: Call | Output, fallback: str | None) -> str | None:
    for value in (item.call_id, item.id):
        if isinstance(value, str):
            return value
    return fallback


def _output(value: Any) -> tuple[str, bool]:
    """(text, failed) of a tool output: a string (maybe JSON with metadata), an object, or items."""
    if isinstance(value, str):
        stripped = value.lstrip()
        if stripped.startswith("{"):
            try:
                decoded = orjson.loads(stripped)
            except orjson.JSONDecodeError:
                decoded = None
            if isinstance(decoded, dict) and "output" in decoded:
                return _output(decoded)
        exit_code = _EXIT_CODE.match(stripped)
        return value, exit_code is not None and int(exit_code.group(1)) != 0
    if isinstance(value, dict):
        metadata = value.get("metadata")
        code = as_int(metadata.get("exit_code")) if isinstance(metadata, dict) else None
        failed = (code is not None and code != 0) or value.get("success") is False
        inner = value.get("output", value.get("content", value.get("text")))
        text = inner if isinstance(inner, str) else blocks_text(inner) or orjson.dumps(value).decode()
        return text, failed
    if isinstance(value, list):
        return blocks_text(value), False
    return "", False


def read(path: Path) -> Trace:
    return _Reader(path).build()


__all__ = ["read", "sniff"]
