"""Typed Codex rollout lines: decode only what the reader reads, skip the rest in C.

Most of a rollout is what no turn needs: encrypted reasoning, the base instructions in a session's meta
line, a turn context for every turn, each command's output written again (three times) in its
`exec_command_end` event, rate limits beside every token count. `msgspec` decodes a line straight into
a record: the line's `type` picks the record, the payload's own `type` picks the item or event, and
only the fields the reader reads are declared. Every other field is skipped without being built.

Nothing the reader reports is lost. It reports the line, item and event types it does not know, never
fields, so an undeclared field is skipped exactly as the dict path ignored it. A type the records do
not know, or a payload that is not an object, makes the fast decoder refuse the line; the dict path
then reads it and `from_dict` turns it into the same records, or into the `Unknown` label it is
counted under.
"""

from __future__ import annotations

from typing import Any, Union

import msgspec

from inspector.readers.values import type_of


def kind(record: Any) -> str:
    """The `type` a record was read from (its tag)."""
    return type(record).__struct_config__.tag


# --- payloads ------------------------------------------------------------------------------------
# Records hold decoded JSON only, never a cycle, so the collector need not track them (`gc=False`, inherited).


class Skipped(msgspec.Struct, gc=False):
    """A payload the reader does not read (a turn context, a world state): an object, every field skipped."""


class SessionMeta(msgspec.Struct, gc=False):
    """`session_meta`: who and where (`base_instructions`, `git`, `dynamic_tools` are skipped)."""

    id: Any = msgspec.UNSET
    """UNSET when absent, so `session_id` is read only then (a null `id` is kept as the dict path kept it)."""
    session_id: Any = None
    cli_version: Any = None
    cwd: Any = None


class Item(msgspec.Struct, tag_field="type", gc=False):
    """A `response_item` payload; its `type` is the tag."""


class Message(Item, tag="message"):
    id: Any = None
    role: Any = None
    content: Any = None


class AgentMessage(Item, tag="agent_message"):
    id: Any = None
    author: Any = None
    content: Any = None


class Call(Item):
    """A tool call (one subclass per call type)."""

    id: Any = None
    call_id: Any = None
    name: Any = None
    arguments: Any = None
    input: Any = None
    action: Any = None


class Output(Item):
    """A tool's output (one subclass per output type)."""

    id: Any = None
    call_id: Any = None
    output: Any = msgspec.UNSET
    """UNSET when absent: only then is `tools` the output (a null `output` is an empty one)."""
    tools: Any = None


class Event(msgspec.Struct, tag_field="type", gc=False):
    """An `event_msg` payload; its `type` is the tag."""


class TokenCount(Event, tag="token_count"):
    info: Any = None
    """`rate_limits` beside it is skipped."""


class CommandEnd(Event, tag="exec_command_end"):
    """The command's output (`stdout`, `aggregated_output`, `formatted_output`) repeats the tool output: skipped."""

    call_id: Any = None
    exit_code: Any = None
    parsed_cmd: Any = None


class PatchEnd(Event, tag="patch_apply_end"):
    call_id: Any = None
    success: Any = None
    changes: Any = None


class ToolCallEnd(Event, tag="mcp_tool_call_end"):
    call_id: Any = None
    result: Any = None


class ThreadName(Event, tag="thread_name_updated"):
    thread_name: Any = None


# --- what a rollout may hold, by type --------------------------------------------------------------

CALLS = ("function_call", "custom_tool_call", "local_shell_call", "tool_search_call", "web_search_call",
         "image_generation_call")  # fmt: skip
OUTPUTS = ("function_call_output", "custom_tool_call_output", "local_shell_call_output", "tool_search_output")
IGNORED_ITEMS = ("reasoning", "ghost_snapshot", "compaction", "compaction_summary", "other")
"""Items that are no turn: reasoning (encrypted), snapshots, the opaque compaction item."""
QUIET_EVENTS = tuple(
    """user_message agent_message agent_reasoning agent_reasoning_raw_content agent_reasoning_section_break
    task_started task_complete turn_started turn_complete turn_aborted context_compacted exec_command_begin
    exec_command_output_delta patch_apply_begin mcp_tool_call_begin web_search_begin web_search_end
    view_image_tool_call thread_settings_applied thread_goal_updated sub_agent_activity item_started
    item_completed entered_review_mode exited_review_mode image_generation_begin image_generation_end
    collab_agent_spawn_end collab_waiting_end collab_close_end collab_agent_interaction_end
    guardian_assessment dynamic_tool_call_request dynamic_tool_call_response error warning undo_started
    undo_completed stream_error plan_update background_event turn_diff""".split()
)
"""Events the reader knows and reads nothing from: the turns they echo are read from the response items."""
ECHO_EVENTS = frozenset({"user_message", "agent_message", "context_compacted", "exec_command_begin",
                         "exec_command_output_delta", "patch_apply_begin", "mcp_tool_call_begin", "item_started",
                         "item_completed", "web_search_begin", "view_image_tool_call",
                         "image_generation_begin", "image_generation_end"})  # fmt: skip
"""Quiet events that say again what a response item or a compacted line says."""
REASONING_EVENTS = frozenset({"agent_reasoning", "agent_reasoning_raw_content", "agent_reasoning_section_break"})


def _tagged(base: type, tags: tuple[str, ...]) -> list[type]:
    """One record type per tag, all read as `base` (msgspec gives a struct type one tag)."""
    return [msgspec.defstruct(f"{base.__name__}_{tag}", [], bases=(base,), tag=tag) for tag in tags]


_ITEMS = [Message, AgentMessage, *_tagged(Call, CALLS), *_tagged(Output, OUTPUTS), *_tagged(Item, IGNORED_ITEMS)]
_EVENTS = [TokenCount, CommandEnd, PatchEnd, ToolCallEnd, ThreadName, *_tagged(Event, QUIET_EVENTS)]


# --- lines -----------------------------------------------------------------------------------------


class Line(msgspec.Struct, tag_field="type", kw_only=True, gc=False):
    """A rollout line: `{timestamp, type, payload}`, the line's `type` the tag."""

    timestamp: Any = None


class SessionMetaLine(Line, tag="session_meta", kw_only=True):
    payload: SessionMeta


class ItemLine(Line, tag="response_item", kw_only=True):
    payload: Union[tuple(_ITEMS)]  # type: ignore[valid-type]  # noqa: UP007


class EventLine(Line, tag="event_msg", kw_only=True):
    payload: Union[tuple(_EVENTS)]  # type: ignore[valid-type]  # noqa: UP007


class CompactedLine(Line, tag="compacted", kw_only=True):
    payload: dict[str, Any]
    """Every field of a compaction is kept (the generation's extra), so the payload is read whole."""


class QuietLine(Line, kw_only=True):
    """A line the reader reads nothing from (one subclass per type); its payload must still be an object."""

    payload: Skipped


QUIET_LINES = ("turn_context", "world_state", "inter_agent_communication_metadata")
_LINES = [SessionMetaLine, ItemLine, EventLine, CompactedLine, *_tagged(QuietLine, QUIET_LINES)]
LINE_TYPES = frozenset(line.__struct_config__.tag for line in _LINES)


class Unknown(msgspec.Struct, gc=False):
    """A line of a type the reader does not know: the label it is counted under."""

    label: str


_LINE = Union[tuple(_LINES)]  # type: ignore[valid-type]  # noqa: UP007
_DECODER = msgspec.json.Decoder(_LINE)


def decode_fast(raw: bytes | bytearray) -> Any:
    """The line as a `Line` record, or None when it needs the exact path: a type the records do not know,
    a payload that is not an object, invalid JSON, or nesting deeper than the decoder recurses (the dict path
    then reports it as a malformed line)."""
    try:
        return _DECODER.decode(raw)
    except (msgspec.MsgspecError, RecursionError):
        return None


def from_dict(data: dict[str, Any]) -> Line | Unknown:
    """The same record from a line decoded as a dict, or the label its unknown type is counted under."""
    try:
        return msgspec.convert(data, _LINE)
    except msgspec.ValidationError:
        return Unknown(unknown_label(data))


def unknown_label(data: dict[str, Any]) -> str:
    """What a line the records refuse is counted as: its type, with the item or event type inside it."""
    line_type, payload = data.get("type"), data.get("payload")
    if not isinstance(line_type, str):
        return "(no type)"
    if line_type not in LINE_TYPES:
        return line_type
    if not isinstance(payload, dict):
        return f"{line_type} (no payload)"
    return f"{line_type} {type_of(payload)}"


__all__ = ["AgentMessage", "Call", "CommandEnd", "CompactedLine", "ECHO_EVENTS", "EventLine", "ItemLine", "LINE_TYPES",
           "Line", "Message", "Output", "PatchEnd", "REASONING_EVENTS", "SessionMeta", "SessionMetaLine", "ThreadName",
           "TokenCount", "ToolCallEnd", "Unknown", "decode_fast", "from_dict", "kind", "unknown_label"]  # fmt: skip
