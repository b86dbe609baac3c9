"""Each reader, called directly, raises nothing but its own error type on arbitrary input.

Directly, not through `load_trace`: its safety net turns a reader's ValueError, KeyError… into a
`TraceReadError`, which would hide the very bug these tests look for.
"""

import json
from pathlib import Path
from tempfile import TemporaryDirectory

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.errors import TraceReadError
from inspector.readers import detect_format, readers
from inspector.readers.values import brief

HEADER = b'{"format": "compaction-trace/1", "id": "t"}\n'
READERS = {reader.name: reader for reader in readers()}


def read_or_error(data: bytes, name: str) -> None:
    with TemporaryDirectory() as folder:
        path = Path(folder) / "trace.jsonl"
        path.write_bytes(data)
        try:
            READERS[name].read(path)
        except TraceReadError as error:
            assert str(error).startswith(str(path))
            assert "\n" not in error.message


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=2048), name=st.sampled_from(sorted(READERS)))
def test_arbitrary_bytes(data, name):
    read_or_error(data, name)


@settings(max_examples=100, deadline=None)
@given(data=st.binary(max_size=2048))
def test_detection_of_arbitrary_bytes_names_a_format_or_raises_its_error(data):
    with TemporaryDirectory() as folder:
        path = Path(folder) / "trace.jsonl"
        path.write_bytes(data)
        try:
            assert detect_format(path) in READERS
        except TraceReadError as error:
            assert str(error).startswith(str(path))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(records=st.lists(json_values, max_size=6), name=st.sampled_from(sorted(READERS)))
def test_well_formed_json_of_the_wrong_shape(records, name):
    read_or_error(HEADER + "\n".join(json.dumps(r) for r in records).encode(), name)


@settings(max_examples=200, deadline=None)
@given(
    key=st.text(min_size=1, max_size=10),
    index=st.integers(-3, 3),
    kind=st.sampled_from(["raw", "summary", "other"]),
    supersedes=st.none() | st.text(max_size=5),
)
def test_near_valid_native_records(key, index, kind, supersedes):
    lines = [
        {"record": "source", "key": key, "text": "t", "supersedes": supersedes},
        {"record": "generation", "index": index, "kind": kind, "text": "[[x]]"},
    ]
    read_or_error(HEADER + "\n".join(json.dumps(line) for line in lines).encode(), "native")


@settings(max_examples=300, deadline=None)
@given(
    text=st.lists(st.sampled_from(["word", "x", " ", "  ", "\n", "\t", "\u00a0", "é", "longerword"]), max_size=400)
    .map("".join),
    limit=st.integers(1, 60),
)
def test_a_glimpse_of_a_long_text_is_the_collapsed_text_cut_between_words(text, limit):
    """S0 shows tool output as `brief`: collapsing only its head must not change what is shown."""
    whole = " ".join(text.split())
    if len(text) <= limit:
        expected = text
    elif len(whole) <= limit:
        expected = whole
    else:
        cut = whole[: limit - 1]
        if whole[limit - 1] != " " and " " in cut:
            cut = cut[: cut.rfind(" ")]
        expected = cut.rstrip() + "…"
    shown = brief(text, limit)
    assert shown == expected
    assert len(shown) <= max(limit, len(text) if len(text) <= limit else 0)
