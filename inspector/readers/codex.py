"""Reader for Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).

Each line is `{timestamp, type, payload}`. Turns are `response_item` lines; a `compacted` line is a
compaction. Its summary is `payload.message` (local compaction) or the summary user message inside
`payload.replacement_history`. When that history carries an opaque `compaction` item, the model went
on from a server-side summary that is encrypted: the generation exists, its text is unavailable.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson

from inspector.model import Trace
from inspector.readers.boilerplate import CODEX_SUMMARY_OPENING
from inspector.readers.json_lines import JsonLines, head_records
from inspector.readers.registry import Reader, register_reader
from inspector.readers.timeline import Compaction, TokenWatch
from inspector.readers.transcript import NATIVE_TAG, Transcript
from inspector.readers.values import as_int, as_str, blocks_text, session_stem, tool_arguments, type_of

NAME = "codex"

_LINE_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted",
                         "world_state", "inter_agent_communication_metadata"})  # fmt: skip
_CALLS = frozenset({"function_call", "custom_tool_call", "local_shell_call", "tool_search_call",
                    "web_search_call", "image_generation_call"})  # fmt: skip
_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output", "local_shell_call_output",
                      "tool_search_output"})  # fmt: skip
_IGNORED_ITEMS = frozenset({"reasoning", "ghost_snapshot", "compaction", "compaction_summary", "other"})
_KNOWN_EVENTS = frozenset(
    """user_message agent_message agent_reasoning agent_reasoning_raw_content agent_reasoning_section_break
    task_started task_complete turn_started turn_complete turn_aborted token_count context_compacted
    exec_command_begin exec_command_end exec_command_output_delta patch_apply_begin patch_apply_end
    mcp_tool_call_begin mcp_tool_call_end web_search_begin web_search_end view_image_tool_call
    thread_settings_applied thread_name_updated thread_goal_updated sub_agent_activity item_started
    item_completed entered_review_mode exited_review_mode image_generation_begin image_generation_end
    collab_agent_spawn_end collab_waiting_end collab_close_end collab_agent_interaction_end
    guardian_assessment dynamic_tool_call_request dynamic_tool_call_response error warning
    undo_started undo_completed stream_error plan_update background_event turn_diff""".split()
)
_EXIT_CODE = re.compile(r"(?:Exit code:|Process exited with code)\s*(-?\d+)")
_INJECTED = ("<environment_context", "<user_instructions", "# AGENTS.md instructions", "<permissions",
             "<turn_aborted", "<INSTRUCTIONS>", "<collaboration_mode", "<skill", "<user_shell_command")  # fmt: skip


def sniff(head: bytes) -> bool:
    """Rollout lines: `{timestamp, type, payload}` with a Codex line type."""
    if NATIVE_TAG in head:
        return False
    records = head_records(head)
    for record in records[:16]:
        if {"timestamp", "type", "payload"} <= record.keys() and record["type"] in _LINE_TYPES:
            return True
    start = head.lstrip()[:200]
    return not records and start.startswith(b'{"timestamp"') and b'"payload"' in start


class _Reader:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.lines = JsonLines(path)
        self.transcript = Transcript(path, NAME)
        self.session_ids: list[str] = []
        self.title: str | None = None
        self.version: str | None = None
        self.cwd: str | None = None
        self.tokens = TokenWatch()
        self.instructions = 0

    def build(self) -> Trace:
        for line, record in self.lines:
            kind = record.get("type")
            payload = record.get("payload")
            timestamp = as_str(record.get("timestamp"))
            if not isinstance(kind, str):
                self.transcript.unknown_types["(no type)"] += 1
            elif kind not in _LINE_TYPES or not isinstance(payload, dict):
                self.transcript.unknown_types[kind if kind not in _LINE_TYPES else f"{kind} (no payload)"] += 1
            elif kind == "response_item":
                self._item(line, payload, timestamp)
            elif kind == "event_msg":
                self._event(payload, timestamp)
            elif kind == "compacted":
                self._compacted(line, payload, timestamp)
            elif kind == "session_meta":
                self._meta(payload)
        self.transcript.notices[:0] = self.lines.notices
        extra: dict[str, Any] = {
            "lines": self.lines.lines,
            "records": self.lines.records,
            "malformed_lines": self.lines.malformed,
            "session_meta": len(self.session_ids),
            "instruction_messages": self.instructions,
        }
        for name, value in (("version", self.version), ("cwd", self.cwd)):
            if value:
                extra[name] = value
        trace_id = self.session_ids[0] if self.session_ids else session_stem(self.path)
        return self.transcript.build(trace_id, self.title, extra)

    def _meta(self, payload: dict[str, Any]) -> None:
        session = payload.get("id", payload.get("session_id"))
        if isinstance(session, str):
            self.session_ids.append(session)
        if self.version is None and isinstance(payload.get("cli_version"), str):
            self.version = payload["cli_version"]
        if self.cwd is None and isinstance(payload.get("cwd"), str):
            self.cwd = payload["cwd"]

    # -- response items: the turns --------------------------------------------------------------

    def _item(self, line: int, payload: dict[str, Any], timestamp: str | None) -> None:
        kind = type_of(payload)
        key = payload.get("id") if isinstance(payload.get("id"), str) else f"line:{line}"
        if kind == "message":
            self._message(key, payload, timestamp)
        elif kind == "agent_message":
            text = blocks_text(payload.get("content"))
            if text:
                self.transcript.turn(key, "user", "agent", text, timestamp, author=payload.get("author"))
        elif kind in _CALLS:
            call_id = _call_id(payload, key)
            name = payload.get("name") if isinstance(payload.get("name"), str) else kind
            self.transcript.tool_call(call_id, name, tool_arguments(payload), timestamp)
        elif kind in _OUTPUTS:
            call_id = _call_id(payload, None)
            text, failed = _output(payload.get("output", payload.get("tools")))
            self.transcript.tool_result(call_id, f"{call_id}:output" if call_id else key, text,
                                        is_error=failed, timestamp=timestamp)  # fmt: skip
        elif kind not in _IGNORED_ITEMS:
            self.transcript.unknown_types[f"response_item {kind}"] += 1

    def _message(self, key: str, payload: dict[str, Any], timestamp: str | None) -> None:
        role = payload.get("role")
        text = blocks_text(payload.get("content"))
        if not text:
            return
        if role == "assistant":
            self.transcript.turn(key, "assistant", "assistant", text, timestamp)
        elif role == "user":
            if text.startswith(CODEX_SUMMARY_OPENING):
                return  # the summary put back after a compaction is a generation, not evidence
            injected = text.lstrip().startswith(_INJECTED)
            self.transcript.turn(key, "user", "harness" if injected else "user", text, timestamp)
        else:  # developer / system prompts: the harness's instructions, not the conversation
            self.instructions += 1

    # -- events: outcomes, files touched, token counts --------------------------------------------

    def _event(self, payload: dict[str, Any], timestamp: str | None) -> None:
        kind = type_of(payload)
        call_id = as_str(payload.get("call_id"))
        if kind == "token_count":
            self._tokens(payload)
        elif kind == "exec_command_end":
            code = as_int(payload.get("exit_code"))
            if call_id and code is not None:
                self.transcript.outcome(call_id, code == 0)
            parsed_cmd = payload.get("parsed_cmd")
            for parsed in parsed_cmd if isinstance(parsed_cmd, list) else ():
                if isinstance(parsed, dict) and parsed.get("type") == "read" and isinstance(parsed.get("path"), str):
                    self.transcript.mention("file", parsed["path"], "read", timestamp)
        elif kind == "patch_apply_end":
            if call_id and payload.get("success") is False:
                self.transcript.outcome(call_id, False)
            changes = payload.get("changes")
            for target in changes if isinstance(changes, dict) else ():
                self.transcript.mention("file", target, "edit", timestamp)
        elif kind == "mcp_tool_call_end":
            result = payload.get("result")
            failed = isinstance(result, dict) and (
                "Err" in result or (isinstance(result.get("Ok"), dict) and result["Ok"].get("isError") is True)
            )
            if call_id and failed:
                self.transcript.outcome(call_id, False)
        elif kind == "thread_name_updated" and isinstance(payload.get("thread_name"), str):
            self.title = payload["thread_name"]
        elif kind not in _KNOWN_EVENTS:
            self.transcript.unknown_types[f"event_msg {kind}"] += 1

    def _tokens(self, payload: dict[str, Any]) -> None:
        info = payload.get("info")
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


def _call_id(payload: dict[str, Any], fallback: str | None) -> str | None:
    for name in ("call_id", "id"):
        if isinstance(payload.get(name), str):
            return payload[name]
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


READER = register_reader(
    Reader(
        name=NAME, description="Codex CLI rollout (JSONL)", sniff=sniff, read=read,
        default_locations=("$CODEX_HOME/sessions", "~/.codex/sessions"),
        tested_on="Codex CLI 0.146 rollouts (a public fixture of real record shapes): turns and compactions exact; "
        "a server-side summary is encrypted in the log (summary-unavailable)",
    )
)  # fmt: skip


__all__ = ["read", "sniff"]
