"""Reader for logs of Anthropic Messages API calls with server-side compaction.

The API keeps no session; a user who logs calls writes one JSONL line per call, as the `anthropic` SDK
serialises it: `{"request": <the create() body>, "response": response.model_dump(mode="json")}` (a bare
response `{"type": "message", "role": "assistant", "content": [...]}` per line is read too). With
`context_management.edits[{"type": "compact_20260112", ...}]` (or a `compaction` request) the API summarises
the conversation and the response's content opens with a `compaction` block: `content` is the summary,
`encrypted_content` opaque state to send back. A block with only `encrypted_content` is a compaction whose
summary the log cannot show (summary-unavailable); one with neither is a failed compaction, which the API
treats as a no-op (an event, no generation).

Each request re-sends the whole history (or, after a compaction, may start from the compaction block), so a
message already read is not read again: a request's messages are aligned on what was read before, and only
the rest are new turns (`resent_history`). Messages have no ids; they are compared by role and content.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspector.model import Trace
from inspector.readers.call_log import CallLog, call_fields, sniff_calls
from inspector.readers.timeline import Compaction
from inspector.readers.values import as_int, as_str, blocks_text, type_of

NAME = "anthropic-api"

_UNCOMPARED = frozenset({"citations", "cache_control"})
"""Block fields the SDK adds to a response but drops when the block is sent back."""
_FIELDS = call_fields({"messages": None, "model": None, "context_management": None, "compaction": None},
                      {"type": None, "role": None, "content": None, "id": None, "usage": None}, "AnthropicCall")
"""What is read of a call: a request's `system` and `tools`, re-sent with every call, are skipped."""
_IGNORED_BLOCKS = frozenset({"thinking", "redacted_thinking", "server_tool_use", "web_search_tool_result",
                             "code_execution_tool_result", "mcp_tool_use", "mcp_tool_result", "container_upload",
                             "tool_addition", "tool_removal"})  # fmt: skip


def _response(value: Any) -> dict[str, Any] | None:
    """An Anthropic Message: `type: "message"`, `role: "assistant"`, a content list."""
    if isinstance(value, dict) and value.get("type") == "message" and value.get("role") == "assistant":
        return value if isinstance(value.get("content"), list) else None
    return None


def _request(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) and isinstance(value.get("messages"), list) else None


def sniff(head: bytes) -> bool:
    """Call logs whose responses are Anthropic Messages (or whose requests ask for context management)."""
    return sniff_calls(head, _request, _response, lambda r: "context_management" in r or "compaction" in r)


class _Reader(CallLog):
    def __init__(self, path: Path) -> None:
        super().__init__(path, NAME, _UNCOMPARED, _request, _response, _FIELDS)

    def build(self) -> Trace:
        for line, request, response in self.each_call():
            if request is not None:
                self._request(line, request)
            if response is not None:
                self._message(line, "assistant", response.get("content"), as_str(response.get("id")),
                              request, response)  # fmt: skip
        return self.finish()

    def _request(self, line: int, request: dict[str, Any]) -> None:
        messages = [m for m in request["messages"] if isinstance(m, dict)]
        for index in self.history.fresh([_sent(m.get("role"), m.get("content")) for m in messages]):
            message = messages[index]
            role = as_str(message.get("role")) or "user"
            self._message(line, role, message.get("content"), f"line{line}:m{index}", request, None)

    def _message(self, line: int, role: str, content: Any, key: str | None, request: dict[str, Any] | None,
                 response: dict[str, Any] | None) -> None:  # fmt: skip
        self.history.add(_sent(role, content))
        key = key or f"line{line}"
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        for number, block in enumerate(content if isinstance(content, list) else ()):
            kind = type_of(block)
            if kind is None:
                continue
            block_key = f"{key}:{number}"
            if kind == "compaction":
                self._compaction(line, block, request, response)
            elif kind in ("text", "image", "document"):
                text = blocks_text([block]) or f"[{kind}]"
                if role == "assistant":
                    self.transcript.turn(block_key, "assistant", "assistant", text)
                else:
                    self.transcript.turn(block_key, "user", "user", text)
            elif kind == "tool_use":
                call_id = as_str(block.get("id")) or block_key
                self.transcript.tool_call(call_id, as_str(block.get("name")) or "tool", block.get("input", {}))
            elif kind == "tool_result":
                call_id = as_str(block.get("tool_use_id"))
                failed = block.get("is_error") is True
                self.transcript.tool_result(call_id, f"{call_id}:result" if call_id else block_key,
                                            blocks_text(block.get("content")), is_error=failed)  # fmt: skip
            elif kind not in _IGNORED_BLOCKS:
                self.transcript.unknown_types[f"block {kind}"] += 1

    def _compaction(self, line: int, block: dict[str, Any], request: dict[str, Any] | None,
                    response: dict[str, Any] | None) -> None:  # fmt: skip
        summary = block.get("content") if isinstance(block.get("content"), str) else None
        encrypted = isinstance(block.get("encrypted_content"), str) and bool(block["encrypted_content"])
        if not summary and not encrypted:
            self.transcript.event("compaction-failed", f"line {line}: a compaction block with no summary "
                                  "(the API treats it as a no-op)")  # fmt: skip
            return
        extra: dict[str, Any] = {"encrypted_content": encrypted, "in": "response" if response else "request"}
        trigger = None
        if request is not None:
            trigger, threshold = _trigger(request)
            if threshold is not None:
                extra["trigger_tokens"] = threshold
        tokens_after = None
        if response is not None:
            used, tokens_after = _iteration_usage(response)
            if used is not None:
                extra["compaction_usage"] = used
        self.transcript.compaction(Compaction(
            text=summary or None,
            line=line,
            trigger=trigger,
            tokens_after=tokens_after,
            unavailable=None if summary else f"line {line}: the compaction block carries only encrypted_content",
            extra=extra,
        ))  # fmt: skip


def _trigger(request: dict[str, Any]) -> tuple[str | None, int | None]:
    """"auto" for a compact_* context-management edit (with its input-token threshold), "manual" for a
    request that asks for a compaction outright."""
    if isinstance(request.get("compaction"), dict):
        return "manual", None
    management = request.get("context_management")
    edits = management.get("edits") if isinstance(management, dict) else None
    for edit in edits if isinstance(edits, list) else ():
        kind = type_of(edit)
        if kind and kind.startswith("compact"):
            trigger = edit.get("trigger")
            return "auto", as_int(trigger.get("value")) if isinstance(trigger, dict) else None
    return None, None


def _iteration_usage(response: dict[str, Any]) -> tuple[dict[str, int] | None, int | None]:
    """The compaction's own usage, and the input tokens of the first sampling after it (the new context).

    A compaction entry's tokens are those of the summarising call, not the size of what was compacted."""
    usage = response.get("usage")
    iterations = usage.get("iterations") if isinstance(usage, dict) else None
    used: dict[str, int] | None = None
    for entry in iterations if isinstance(iterations, list) else ():
        if type_of(entry) == "compaction" and used is None:
            used = {k: v for k in ("input_tokens", "output_tokens") if (v := as_int(entry.get(k))) is not None}
        elif type_of(entry) == "message" and used is not None:
            parts = [as_int(entry.get(k)) for k in ("input_tokens", "cache_creation_input_tokens",
                                                    "cache_read_input_tokens")]  # fmt: skip
            return used, sum(p for p in parts if p) or None
    return used, None


def _sent(role: Any, content: Any) -> list[Any]:
    """A message as it is sent back: a string content is one text block."""
    return [role, [{"type": "text", "text": content}] if isinstance(content, str) else content]


def read(path: Path) -> Trace:
    return _Reader(path).build()


__all__ = ["read", "sniff"]
