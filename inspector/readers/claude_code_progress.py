"""The files a sub-agent's calls name, from the `agent_progress` records that relay its messages in the main log.

Claude Code 2.x writes a sub-agent's messages to a log of its own (`sidechain_paths`) and relays each one into the
main log as a `progress` record (`data.type` "agent_progress", `data.message` the sub-agent's user or assistant
record). A log exporter may keep only the main log (Entire's checkpoints hold `full.jsonl`), and the sub-agent's
report to the agent names the files it read without its calls: the relayed calls are then the log's only record that
those files were read, and a summary naming one names what the session saw.

Only the calls' file fields are decoded (`tool_names.PATH_FIELDS`); results, text and every other field are skipped
in C, never built. Nothing here is a turn: a sub-agent's words are never the user's, nor the agent's.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec

from inspector.tool_names import PATH_FIELDS, is_edit_tool


class _Input(msgspec.Struct, gc=False):
    file_path: Any = None
    notebook_path: Any = None
    path: Any = None
    filename: Any = None


class _Block(msgspec.Struct, gc=False):
    type: Any = None
    name: Any = None
    input: _Input | None = None


class _Message(msgspec.Struct, gc=False):
    content: list[_Block] | str | None = None


class _Record(msgspec.Struct, gc=False):
    message: _Message | None = None


class _Payload(msgspec.Struct, gc=False):
    type: Any = None
    message: _Record | None = None


_PAYLOAD = msgspec.json.Decoder(_Payload)
_RELAYED = "agent_progress"


def subagent_files(record: Any) -> Iterator[tuple[str, str]]:
    """(path, "read" or "edit") for each file a relayed sub-agent call names; nothing for any other record, or for a
    payload of another shape (a record read by the exact path holds no raw payload: none are taken from it)."""
    raw = getattr(record, "data", None)
    if not isinstance(raw, msgspec.Raw):
        return
    try:
        payload = _PAYLOAD.decode(raw)
    except (msgspec.MsgspecError, RecursionError):
        return
    if payload.type != _RELAYED or payload.message is None or payload.message.message is None:
        return
    content = payload.message.message.content
    for block in content if isinstance(content, list) else ():
        if block.type != "tool_use" or block.input is None:
            continue
        action = "edit" if is_edit_tool(block.name if isinstance(block.name, str) else None) else "read"
        for name in PATH_FIELDS:
            value = getattr(block.input, name)
            if isinstance(value, str) and value.strip() and "\n" not in value:
                yield value.strip(), action


__all__ = ["subagent_files"]
