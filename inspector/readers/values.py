"""Reading values out of drifting log records: typed when they have the expected type, else nothing.

Agents change their log formats without notice, so a reader never trusts a field's type: these
helpers return None (or "") for a value of the wrong kind instead of raising.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson

BRIEF_CHARS = 500
"""How much of a tool result or input the S0 rendering shows: enough to recognise it, not to drown in it."""


def type_of(data: Any) -> str | None:
    """The `type` of a record or block when it is a string; drifted logs put anything there."""
    kind = data.get("type") if isinstance(data, dict) else None
    return kind if isinstance(kind, str) else None


def as_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def as_str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def blocks_text(content: Any, text_types: Iterable[str] = ("text", "input_text", "output_text")) -> str:
    """Readable text of a message content: a string, or a list of typed blocks (images as markers)."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return ""
    wanted = set(text_types)
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict):
            kind = type_of(block)
            if kind in wanted and isinstance(block.get("text"), str):
                parts.append(block["text"])
            elif kind in ("image", "input_image", "image_url"):
                parts.append("[image]")
    return "\n".join(p for p in parts if p)


def input_text(value: Any) -> str:
    """Tool input as text: string fields raw (so paths and commands stay greppable), the rest as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "\n".join(f"{k}: {v if isinstance(v, str) else dumps(v)}" for k, v in value.items())
    return dumps(value)


def session_stem(path: Path) -> str:
    """A log's name without `.jsonl` / `.jsonl.zst`: Claude Code and Codex name files by session."""
    name = path.name
    for suffix in (".zst", ".jsonl"):
        name = name.removesuffix(suffix)
    return name


def brief(text: str, limit: int = BRIEF_CHARS) -> str:
    """A glimpse of a long text: whitespace collapsed, at most `limit` characters, cut between words.

    Cutting inside a word would print half a path or ticket in S0 (`/srv/app/ap…`): an anchor no
    record has, reported unresolved in the raw context, where nothing was lost.
    """
    if len(text) <= limit:
        return text
    # Collapsing only a head twice the limit gives the same first `limit` characters whenever that
    # head still collapses to more than `limit` (a cut last word is a prefix of the real one), and
    # spares splitting a whole file's contents for a glimpse of it.
    head = " ".join(text[: 2 * limit].split())
    if len(head) <= limit:
        head = " ".join(text.split())
        if len(head) <= limit:
            return head
    cut = head[: limit - 1]
    if head[limit - 1] != " " and " " in cut:
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip() + "…"


def dumps(value: Any) -> str:
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return str(value)



def tool_arguments(item: dict[str, Any]) -> Any:
    """A tool call's arguments as data, as OpenAI-style logs (Codex, the Responses API) write them:
    JSON-encoded `arguments` decoded, freeform `input` or `action` as given."""
    for name in ("arguments", "input", "action"):
        value = item.get(name)
        if isinstance(value, str):
            try:
                return orjson.loads(value)
            except orjson.JSONDecodeError:
                return value
        if value is not None:
            return value
    return {}

__all__ = ["as_int", "as_str", "blocks_text", "brief", "dumps", "input_text", "session_stem", "tool_arguments",
           "type_of"]  # fmt: skip
