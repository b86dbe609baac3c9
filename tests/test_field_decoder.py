"""Decoding only the keys a reader reads: the same values as the whole dict, or None for the exact path."""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.readers.field_decoder import FieldDecoder, Shape

CALL: Shape = {"id": None, "args": None}
SHAPE: Shape = {"id": None, "$set": None, "meta": {"kind": None}, "calls": [CALL]}
DECODER = FieldDecoder(SHAPE, "Test")


def restricted(value: Any, shape: Shape) -> Any:
    """What the decoder must give: the declared keys of the whole dict, nested objects restricted likewise."""
    found = {}
    for key, inner in shape.items():
        if key not in value:
            continue
        found[key] = value[key]
        if isinstance(inner, dict) and isinstance(value[key], dict):
            found[key] = restricted(value[key], inner)
        elif isinstance(inner, list) and isinstance(value[key], list):
            found[key] = [restricted(v, inner[0]) for v in value[key]]
    return found


def fits(value: Any, shape: Shape) -> bool:
    """Whether every declared list of objects holds only objects (any other value is taken whole)."""
    for key, inner in shape.items():
        nested = value.get(key)
        if isinstance(inner, dict) and isinstance(nested, dict) and not fits(nested, inner):
            return False
        if isinstance(inner, list) and isinstance(nested, list) and not all(
            isinstance(v, dict) and fits(v, inner[0]) for v in nested
        ):
            return False
    return True


scalars = st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats(allow_nan=False,
          allow_infinity=False) | st.text(max_size=8)  # fmt: skip
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.sampled_from(["id", "kind", "args", "x"]), inner, max_size=3),
                      max_leaves=12)  # fmt: skip
keys = st.sampled_from(["id", "$set", "meta", "calls", "other", "kind"])
calls = st.lists(st.dictionaries(st.sampled_from(["id", "args", "x"]), values, max_size=3), max_size=3)
records = st.dictionaries(keys, values | calls | st.dictionaries(st.sampled_from(["kind", "x"]), values), max_size=6)


@settings(max_examples=500, deadline=None)
@given(records)
def test_a_decoded_object_is_the_whole_dict_restricted_to_the_declared_keys(record: dict[str, Any]) -> None:
    decoded = DECODER.decode(orjson.dumps(record))
    if fits(record, SHAPE):
        assert decoded == restricted(record, SHAPE)
    else:
        assert decoded is None


def test_skipped_values_are_never_built_and_absent_keys_stay_absent() -> None:
    line = b'{"other": {"huge": [1, 2, 3]}, "id": "m1", "calls": [{"id": "c1", "display": "x"}], "meta": null}'
    assert DECODER.decode(line) == {"id": "m1", "calls": [{"id": "c1"}], "meta": None}
    assert DECODER.decode(b'{"$set": {"a": 1}}') == {"$set": {"a": 1}}


def test_a_nested_value_of_another_type_is_taken_whole() -> None:
    assert DECODER.decode(b'{"meta": [1, {"x": 2}], "calls": {"id": 3, "x": 4}}') == {
        "meta": [1, {"x": 2}], "calls": {"id": 3, "x": 4}}  # fmt: skip
    assert DECODER.decode(b'{"meta": "text", "calls": 1.5}') == {"meta": "text", "calls": 1.5}


def test_what_does_not_fit_takes_the_exact_path() -> None:
    for line in (b'{"calls": [1]}', b'{"calls": [{"id": 1}, null]}', b'[1, 2]', b"not json", b"", b'{"id": "torn'):
        assert DECODER.decode(line) is None, line


def test_nesting_past_the_recursion_limit_is_left_to_the_exact_path() -> None:
    deep = b'{"id": "x", "args": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    assert DECODER.decode(deep) is None
