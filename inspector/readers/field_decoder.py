"""Decoding a JSON object into only the keys a reader reads: every other value is skipped in C, unbuilt.

Log records carry much that no reader reads: tool schemas and system prompts re-sent with every API call,
file diffs beside a tool's result, the raw API call of every model event in an eval log. Decoding them into
dicts builds all of it only to drop it. A `FieldDecoder` is declared with the keys a reader reads, and for a
nested object or list of objects the keys it reads of those; `msgspec` decodes straight into them and skips
the rest. What it returns is a plain dict of the declared keys the JSON holds (a nested object likewise; a
nested value of another type whole, as it is), so a reader reads it with the same code as the full dict, and
gets the same values, provided that it reads only declared keys and never lists a decoded object's keys or
relies on their order.

What does not fit (invalid JSON, a declared list of objects holding something else, nesting past the
recursion limit) makes `decode` return None: the reader then decodes the whole value as before, the exact
path. Two differences from orjson's dict remain, both on input no tool writes: an integer literal outside
the 64-bit range is kept as an int where orjson makes it a float; and a skipped value is checked for JSON
syntax only, so a line whose skipped part orjson refuses (invalid UTF-8 in a string, a number beyond a
double) is read instead of reported as malformed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

Shape = Mapping[str, "Shape | list[Shape] | None"]
"""The keys read of an object: None for a value read whole, a Shape for a nested object read the same way,
`[Shape]` for a list of such objects."""
_SCALAR = str | int | float | bool | None


class FieldDecoder:
    """Decodes JSON objects of one shape into dicts of the keys the shape declares."""

    def __init__(self, shape: Shape, name: str) -> None:
        self.shape = shape
        """The keys read: of the decoded object, and of the nested objects it declares."""
        self._decoder = msgspec.json.Decoder(_struct(shape, name))

    def decode(self, data: bytes | bytearray | memoryview | str) -> dict[str, Any] | None:
        """The object's declared keys that it holds, or None when it needs the exact path (see the module)."""
        try:
            # Back into builtins in C: the fields it holds, by their JSON names, nested structs as dicts.
            return msgspec.to_builtins(self._decoder.decode(data))
        except (msgspec.MsgspecError, RecursionError):
            return None


def _struct(shape: Shape, name: str) -> type:
    """A struct type with one field per declared key, named as in the JSON; any other key is skipped."""
    fields: list[tuple[str, Any, Any]] = []
    for index, inner in enumerate(shape.values()):
        kind: Any = Any
        if isinstance(inner, Mapping):  # an object read for its keys; any other value whole
            kind = _struct(inner, f"{name}_{index}") | list[Any] | _SCALAR
        elif isinstance(inner, list):  # a list of objects read for their keys; any other value whole
            kind = list[_struct(inner[0], f"{name}_{index}")] | dict[str, Any] | _SCALAR
        fields.append((f"f{index}", kind, msgspec.UNSET))  # UNSET: an absent key stays absent
    return msgspec.defstruct(name, fields, rename={f"f{i}": key for i, key in enumerate(shape)}, gc=False)


__all__ = ["FieldDecoder", "Shape"]
