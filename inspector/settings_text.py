"""A JSON settings file edited in place: one entry added or taken out, every other byte as the user wrote it.

A settings file is the user's: its indentation, key order, line endings and escapes are theirs, and a team
reviews a change to it as a diff. Rewriting the whole document from its parsed value (`json.dumps`) changes
every line whose style differs from Python's, so an install shows, and a commit carries, a diff of the whole
file. Here an entry is spliced into, or cut out of, the text itself; the new entry is written in the style of
the entries beside it (their indentation, their line ending).

Positions come from the standard library's own scanner (`JSONDecoder.raw_decode`, which says where a value
ends), stepped through the containers on one path; nothing here parses a string or a number itself. The
caller gives text that `json.loads` accepts and checks the result the same way.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

Path = Sequence[str | int]
"""Keys and indexes from the document's root to a value."""

_DECODER = json.JSONDecoder()
_WHITESPACE = " \t\n\r"
"""JSON's whitespace (RFC 8259): nothing else may sit between tokens."""


@dataclass(frozen=True, slots=True)
class _Entry:
    """One member of an object (from its key) or element of an array, as positions in the text."""

    start: int
    value_start: int
    end: int
    """Just past the value."""


@dataclass(frozen=True, slots=True)
class _Container:
    """An object or array: where its brackets are and where each entry sits, with its key (None in an array)."""

    start: int
    close: int
    """The closing bracket's position."""
    entries: tuple[_Entry, ...]
    keys: tuple[str | None, ...]


def appended(text: str, path: Path, value: Any, key: str | None = None) -> str:
    """`text` with `value` added last to the container at `path` (an object's new member named `key`)."""
    container = _container(text, _value_at(text, path))
    newline = "\r\n" if "\r\n" in text else "\n"
    unit = _indent_unit(text)
    if container.entries:
        last = container.entries[-1]
        if not _starts_line(text, last.start):
            return _insert(text, last.end, ", " + _rendered(value, key, None, "", newline))
        indent = _line_indent(text, last.start)
        between = text[container.entries[-2].end:container.entries[-1].start] if len(container.entries) > 1 else \
            "," + newline + indent  # fmt: skip
        return _insert(text, last.end, between + _rendered(value, key, unit, indent, newline))
    if unit is None:  # an inline file: the new entry inline too
        return text[: container.start + 1] + _rendered(value, key, None, "", newline) + text[container.close:]
    outer = _line_indent(text, container.start)
    inner = outer + unit
    entry = _rendered(value, key, unit, inner, newline)
    return text[: container.start + 1] + newline + inner + entry + newline + outer + text[container.close:]


def removed(text: str, path: Path) -> str:
    """`text` without the entry at `path`, and the separator that went with it; the container's own lines
    stay, so an emptied one closes where it opened ("[]", "{}")."""
    *parent, last = path
    container = _container(text, _value_at(text, parent))
    index = _index(container, last)
    entries = container.entries
    if len(entries) == 1:
        return text[: container.start + 1] + text[container.close:]
    if index > 0:  # from the end of the one before: its comma goes with this entry
        return text[: entries[index - 1].end] + text[entries[index].end:]
    return text[: entries[0].start] + text[entries[1].start:]


def _rendered(value: Any, key: str | None, unit: str | None, indent: str, newline: str) -> str:
    """The entry as the file writes its own: indented by `unit` under `indent`, or on one line (unit None)."""
    body = json.dumps(value, ensure_ascii=False) if unit is None else \
        json.dumps(value, indent=unit, ensure_ascii=False).replace("\n", newline + indent)  # fmt: skip
    return body if key is None else f"{json.dumps(key, ensure_ascii=False)}: {body}"


def _insert(text: str, at: int, addition: str) -> str:
    return text[:at] + addition + text[at:]


def _value_at(text: str, path: Path) -> int:
    """Where the value at `path` starts."""
    at = _skip(text, 0)
    for step in path:
        container = _container(text, at)
        at = container.entries[_index(container, step)].value_start
    return at


def _index(container: _Container, step: str | int) -> int:
    if isinstance(step, int):
        return step
    return container.keys.index(step)  # a key repeated in one object was refused before (guard_install)


def _container(text: str, start: int) -> _Container:
    """The object or array whose bracket is at `start`, entry by entry."""
    opening = text[start]
    if opening not in "{[":
        raise ValueError(f"no object or array at character {start}")
    entries, keys, at = [], [], _skip(text, start + 1)
    closing = "}" if opening == "{" else "]"
    while text[at] != closing:
        entry_start, key = at, None
        if opening == "{":
            key, at = _DECODER.raw_decode(text, at)
            at = _skip(text, at)
            if text[at] != ":":
                raise ValueError(f"expected ':' at character {at}")
            at = _skip(text, at + 1)
        value_start = at
        _, at = _DECODER.raw_decode(text, at)
        entries.append(_Entry(entry_start, value_start, at))
        keys.append(key)
        at = _skip(text, at)
        if text[at] == ",":
            at = _skip(text, at + 1)
    return _Container(start, at, tuple(entries), tuple(keys))


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in _WHITESPACE:
        at += 1
    return at


def _line_start(text: str, at: int) -> int:
    return text.rfind("\n", 0, at) + 1


def _starts_line(text: str, at: int) -> bool:
    return not text[_line_start(text, at):at].strip(" \t")


def _line_indent(text: str, at: int) -> str:
    """The spaces and tabs that open the line `at` is on."""
    start = _line_start(text, at)
    line = text[start:at]
    return line[: len(line) - len(line.lstrip(" \t"))]


def _indent_unit(text: str) -> str | None:
    """One level of the file's indentation, read off the root's first entry; None for a file on one line."""
    root = _container(text, _skip(text, 0))
    if not root.entries:
        return "  "  # an empty file has no style of its own: the agents' own, two spaces
    if not _starts_line(text, root.entries[0].start):
        return None
    unit = _line_indent(text, root.entries[0].start)[len(_line_indent(text, root.start)):]
    return unit or None


__all__ = ["appended", "removed"]
