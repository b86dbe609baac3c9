"""Decoding only the keys a reader reads: the same values as the whole dict, or None for the exact path."""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.errors import TraceReadError
from inspector.model import Trace
from inspector.readers import load_trace
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


# -- every reader that decodes this way reads the same trace on either path ---------------------------------

FIXTURES = Path(__file__).parent / "fixtures"
TYPED = {
    "gemini-cli": "gemini_cli/session-2026-12-01T01-55-e4477968.jsonl",
    "anthropic-api": "anthropic_api/messages.jsonl",
    "openai-responses": "openai_responses/responses.jsonl",
    "inspect-ai": "inspect_ai/two-samples.json",
    "opencode": "opencode/opencode.db",
}
"""Each reader that decodes with a FieldDecoder, and a fixture of its format."""
TARGETS = [*TYPED.values(), "inspect_ai/two-samples.json#trim_epoch_1", "inspect_ai/two-samples.eval",
           "inspect_ai/two-samples.eval#trim_epoch_1", "opencode/opencode.db#ses_dd0b07380ffeu9V8GWKaonsNse"]
"""Those fixtures, the other sessions of the containers among them, and the other forms of a format."""


def everything(trace: Trace) -> str:
    """The whole trace as text: turns, generations, events, notices, extras, and the mentions' records."""
    return repr(trace) + repr(trace.mentions.records() if trace.mentions is not None else None)


def both_ways(target: str | Path, monkeypatch: pytest.MonkeyPatch, reader: str = "auto") -> tuple[str, str, int]:
    """The trace read as it is (typed wherever the objects fit), and read with every object decoded whole;
    and how many objects took the typed path. A read that fails gives its error on either path."""
    decode = FieldDecoder.decode
    typed_objects = 0

    def counting(self: FieldDecoder, data: Any) -> dict[str, Any] | None:
        nonlocal typed_objects
        found = decode(self, data)
        typed_objects += found is not None
        return found

    def read() -> str:
        try:
            return everything(load_trace(target, format=reader))
        except TraceReadError as error:
            return f"error: {error}"

    with monkeypatch.context() as patched:
        patched.setattr(FieldDecoder, "decode", counting)
        typed = read()
        patched.setattr(FieldDecoder, "decode", lambda self, data: None)  # every object the exact way
        return typed, read(), typed_objects


@pytest.mark.parametrize("target", TARGETS)
def test_typed_and_exact_decoding_read_the_same_fixture(target: str, monkeypatch: pytest.MonkeyPatch) -> None:
    typed, exact, typed_objects = both_ways(f"{FIXTURES / target}", monkeypatch)
    assert typed_objects > 0  # the typed path is the one taken
    assert typed == exact
    assert not typed.startswith("error")


class Declared(dict[str, Any]):
    """A typed object that notes every key the reader reads and its shape does not declare, and every listing
    of its keys: what the typed path would get wrong, as the reader reads it, whatever the values."""

    def __init__(self, value: dict[str, Any], shape: Shape, where: str, misread: list[str]) -> None:
        super().__init__(value)
        self.shape, self.where, self.misread = shape, where, misread
        for key, inner in shape.items():
            nested = value.get(key)
            if isinstance(inner, dict) and isinstance(nested, dict):
                self[key] = Declared(nested, inner, f"{where}.{key}", misread)
            elif isinstance(inner, list) and isinstance(nested, list):
                self[key] = [Declared(v, inner[0], f"{where}.{key}[]", misread) for v in nested]

    def _read(self, key: Any) -> None:
        if key not in self.shape:
            self.misread.append(f"{self.where}.{key}")

    def get(self, key: Any, default: Any = None) -> Any:
        self._read(key)
        return super().get(key, default)

    def __getitem__(self, key: Any) -> Any:
        self._read(key)
        return super().__getitem__(key)

    def __contains__(self, key: Any) -> bool:
        self._read(key)
        return super().__contains__(key)

    def __iter__(self) -> Any:
        self.misread.append(f"{self.where}: its keys listed")
        return super().__iter__()

    def keys(self) -> Any:
        self.misread.append(f"{self.where}: its keys listed")
        return super().keys()

    def items(self) -> Any:
        self.misread.append(f"{self.where}: its keys listed")
        return super().items()


@pytest.mark.parametrize("target", TARGETS)
def test_a_reader_reads_only_the_keys_its_decoder_declares(target: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The typed path is exact only while the reader reads declared keys and never lists them: each key read
    is checked here, on every path the fixture takes, not only where its value happens to matter."""
    decode = FieldDecoder.decode
    misread: list[str] = []

    def declared(self: FieldDecoder, data: Any) -> dict[str, Any] | None:
        found = decode(self, data)
        return None if found is None else Declared(found, self.shape, "", misread)

    monkeypatch.setattr(FieldDecoder, "decode", declared)
    load_trace(FIXTURES / target)
    assert sorted(set(misread)) == []


SWAPS: list[Any] = [None, "other", 7, 2.5, True, [], [1], {}, {"x": 1}, [{"x": 1}], [{"id": "m1"}, 3]]
"""Values of every kind a drifting log may put where another was expected."""


def drifted(value: Any, rng: random.Random) -> Any:
    """The object with a few of its values (one in twenty, at most three) swapped for a value of another kind,
    or a string for another string."""
    rate = min(0.05, 3 / parts(value))

    def swapped(value: Any, root: bool = False) -> Any:
        if not root and rng.random() < rate:
            return value + "~" if isinstance(value, str) and rng.random() < 0.5 else rng.choice(SWAPS)
        if isinstance(value, dict):
            return {k: swapped(v) for k, v in value.items()}
        if isinstance(value, list):
            return [swapped(v) for v in value]
        return value

    return swapped(value, root=True)


def parts(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + sum(parts(v) for v in value.values())
    if isinstance(value, list):
        return 1 + sum(parts(v) for v in value)
    return 1


def drifted_copy(reader: str, folder: Path, change: Callable[[Any], Any]) -> Path:
    """The reader's fixture with each of its JSON objects (lines, rows, the document) passed through `change`."""
    source = FIXTURES / TYPED[reader]
    path = folder / source.name
    if reader == "opencode":
        shutil.copy(source, path)
        with closing(sqlite3.connect(path)) as db:
            for table in ("message", "part"):
                for row_id, data in db.execute(f"SELECT id, data FROM {table}").fetchall():  # noqa: S608
                    db.execute(f"UPDATE {table} SET data = ? WHERE id = ?",  # noqa: S608
                               (json.dumps(change(json.loads(data))), row_id))  # fmt: skip
            db.commit()
    elif source.suffix == ".jsonl":
        lines = [json.loads(line) for line in source.read_text().splitlines() if line.strip()]
        path.write_text("".join(json.dumps(change(line)) + "\n" for line in lines))
    else:
        path.write_text(json.dumps(change(json.loads(source.read_text()))))
    return path


@pytest.mark.parametrize("reader", sorted(TYPED))
@pytest.mark.parametrize("seed", range(12))
def test_typed_and_exact_decoding_read_the_same_drifted_log(reader: str, seed: int, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """Values of unexpected kinds where the typed decoder declares objects or lists, strings that differ
    where the fixture repeats one: whatever the typed path does with them, the exact path does too."""
    rng = random.Random(seed)
    path = drifted_copy(reader, tmp_path, lambda value: drifted(value, rng))
    typed, exact, _ = both_ways(path, monkeypatch, reader)
    assert typed == exact


def test_a_bare_response_per_line_reads_the_same_either_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for reader in ("anthropic-api", "openai-responses"):
        path = drifted_copy(reader, tmp_path, lambda line: line.get("response", line))
        typed, exact, typed_objects = both_ways(path, monkeypatch, reader)
        assert (typed == exact, typed_objects > 0, "error" in typed) == (True, True, False)


def test_a_message_shown_otherwise_reads_the_same_either_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Gemini CLI's `displayContent` (what the terminal showed of a user message) is read on both paths."""

    def shown(line: dict[str, Any]) -> dict[str, Any]:
        return {**line, "displayContent": f"shown: {line['content']}"} if line.get("type") == "user" else line

    path = drifted_copy("gemini-cli", tmp_path, shown)
    typed, exact, _ = both_ways(path, monkeypatch)
    assert typed == exact
    assert "shown: " in typed
