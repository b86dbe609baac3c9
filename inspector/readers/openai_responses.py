"""Reader for logs of OpenAI Responses API calls, whose compactions are opaque.

A user who logs calls writes one JSONL line per call as the `openai` SDK serialises it: `{"request": <the
create() body>, "response": response.model_dump(mode="json")}` (a bare response per line is read too). Context
is compacted two ways, both leaving a `compaction` item that carries only `encrypted_content`: automatically,
when the request's `context_management=[{"type": "compaction", "compact_threshold": N}]` is crossed (the
response's `output` holds the item), or on demand, `POST /v1/responses/compact` (a `CompactedResponse`,
`object: "response.compaction"`, whose output is the user's messages again and one compaction item, which
the client then sends as its history). The summary is never readable: each compaction is a generation whose
text is unavailable, as with Codex's remote compactions.

A stateless client re-sends its whole history each call, so items are aligned on what was read before
(`resent_history`) and only new ones become turns; the user messages a compaction lists again are not new.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspector.model import Trace
from inspector.readers.call_log import CallLog, call_fields, sniff_calls
from inspector.readers.timeline import Compaction
from inspector.readers.values import as_int, as_str, blocks_text, tool_arguments, type_of

NAME = "openai-responses"

_RESPONSES = frozenset({"response", "response.compaction"})
_CALLS = frozenset({"function_call", "custom_tool_call", "local_shell_call", "shell_call", "apply_patch_call",
                    "computer_call", "mcp_call", "file_search_call", "web_search_call", "code_interpreter_call",
                    "image_generation_call", "tool_search_call"})  # fmt: skip
_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output", "local_shell_call_output",
                      "shell_call_output", "apply_patch_call_output", "computer_call_output",
                      "tool_search_output"})  # fmt: skip
_IGNORED = frozenset({"reasoning", "item_reference", "mcp_list_tools", "mcp_approval_request",
                      "mcp_approval_response", "additional_tools", "program", "program_output"})  # fmt: skip
_UNCOMPARED = frozenset({"id", "status", "annotations", "logprobs", "phase", "created_by"})
"""Fields a response writes (or writes as null) that the same item sent back may lack."""
_TEXT_TYPES = frozenset({"input_text", "output_text", "text"})
_FIELDS = call_fields({"input": None, "model": None, "context_management": None},
                      {"object": None, "output": None, "model": None, "id": None, "usage": None}, "ResponsesCall")
"""What is read of a call: the `instructions` and `tools` a request sends and its response repeats are skipped."""


def _response(value: Any) -> dict[str, Any] | None:
    kind = value.get("object") if isinstance(value, dict) else None
    if isinstance(kind, str) and kind in _RESPONSES and isinstance(value.get("output"), list):
        return value
    return None


def _request(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) and "input" in value else None


def sniff(head: bytes) -> bool:
    """Call logs whose responses are Responses API objects (or whose requests ask for compaction)."""
    return sniff_calls(head, _request, _response, lambda r: "context_management" in r and "messages" not in r)


class _Reader(CallLog):
    def __init__(self, path: Path) -> None:
        super().__init__(path, NAME, _UNCOMPARED, _request, _response, _FIELDS)
        self.instructions = 0

    def build(self) -> Trace:
        for line, request, response in self.each_call():
            if request is not None:
                items = _items(request.get("input"))
                for index in self.history.fresh([_sent(item) for item in items]):
                    self._item(line, items[index], f"line{line}:i{index}", request, None)
            if response is not None:
                self.model = as_str(response.get("model")) or self.model
                items = [item for item in response["output"] if isinstance(item, dict)]
                sent = [_sent(item) for item in items]
                # A compacted response lists the user's messages again: only what was never read is new, and
                # its output is the history the client sends from now on.
                fresh = self.history.unseen(sent) if _compacted(response) else range(len(items))
                for index in fresh:
                    self._item(line, items[index], f"{as_str(response.get('id')) or f'line{line}'}:o{index}",
                               request, response)  # fmt: skip
                if _compacted(response):
                    self.history.replace(sent)
        return self.finish(instruction_messages=self.instructions)

    def _item(self, line: int, item: dict[str, Any], key: str, request: dict[str, Any] | None,
              response: dict[str, Any] | None) -> None:  # fmt: skip
        self.history.add(_sent(item))
        key = as_str(item.get("id")) or key
        kind = type_of(item) or ("message" if "role" in item else None)
        if kind == "message":
            role = item.get("role")
            text = blocks_text(item.get("content"), _TEXT_TYPES)
            if not text:
                return
            if role == "assistant":
                self.transcript.turn(key, "assistant", "assistant", text)
            elif role == "user":
                self.transcript.turn(key, "user", "user", text)
            else:  # system / developer: the harness's instructions, not the conversation
                self.instructions += 1
        elif kind in _CALLS:
            call_id = as_str(item.get("call_id")) or key
            self.transcript.tool_call(call_id, as_str(item.get("name")) or kind, tool_arguments(item))
        elif kind in _OUTPUTS:
            call_id = as_str(item.get("call_id"))
            output = item.get("output")
            text = output if isinstance(output, str) else blocks_text(output, _TEXT_TYPES)
            failed = item.get("status") == "failed" or (isinstance(output, dict) and output.get("success") is False)
            self.transcript.tool_result(call_id, f"{call_id}:output" if call_id else key, text, is_error=failed)
        elif kind == "compaction":
            self._compaction(line, item, request, response)
        elif kind == "compaction_trigger":
            self.transcript.event("compaction-requested", f"line {line}: a compaction_trigger input item")
        elif kind not in _IGNORED:
            self.transcript.unknown_types[f"item {kind}"] += 1

    def _compaction(self, line: int, item: dict[str, Any], request: dict[str, Any] | None,
                    response: dict[str, Any] | None) -> None:  # fmt: skip
        extra: dict[str, Any] = {"item_id": item.get("id"), "in": "response" if response else "request"}
        trigger: str | None = None
        tokens_before: int | None = None
        if response is not None and _compacted(response):
            trigger = "manual"  # POST /v1/responses/compact: its input is the conversation it compacted
            usage = response.get("usage")
            tokens_before = as_int(usage.get("input_tokens")) if isinstance(usage, dict) else None
            extra["kept_user_messages"] = sum(1 for i in response["output"]
                                              if isinstance(i, dict) and i.get("role") == "user")  # fmt: skip
        elif response is not None and request is not None:
            threshold = _threshold(request)
            trigger = "auto" if threshold is not None else None
            if threshold is not None:
                extra["compact_threshold"] = threshold
        self.transcript.compaction(Compaction(
            text=None,
            line=line,
            trigger=trigger,
            tokens_before=tokens_before,
            unavailable=f"line {line}: the summary is an encrypted compaction item (Responses API compaction)",
            extra=extra,
        ))  # fmt: skip


def _compacted(response: dict[str, Any]) -> bool:
    return response.get("object") == "response.compaction"


def _threshold(request: dict[str, Any]) -> int | None:
    entries = request.get("context_management")
    for entry in entries if isinstance(entries, list) else ():
        if type_of(entry) == "compaction":
            return as_int(entry.get("compact_threshold")) or 0
    return None


def _items(value: Any) -> list[dict[str, Any]]:
    """A request's input: a string is one user message."""
    if isinstance(value, str):
        return [{"role": "user", "content": value}]
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _sent(item: dict[str, Any]) -> dict[str, Any]:
    """An item as the client sends it back: a message's string content as one text part, every text part's
    type alike (the user's `input_text` is the same words when a compaction lists them again)."""
    content = item.get("content")
    if "role" in item or type_of(item) == "message":
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        elif isinstance(content, list):
            content = [{**part, "type": "text"} if type_of(part) in _TEXT_TYPES else part for part in content]
        return {**item, "type": "message", "content": content}
    return item


def read(path: Path) -> Trace:
    return _Reader(path).build()


__all__ = ["read", "sniff"]
