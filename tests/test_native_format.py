import json
from dataclasses import replace
from pathlib import Path

import pytest

from inspector.errors import TraceReadError
from inspector.readers import detect_format, load_trace, native
from tests.helpers import SAMPLES

SAMPLE_FILES = sorted(SAMPLES.glob("*.json"))


def comparable(trace):
    return replace(trace, path=None)


@pytest.mark.parametrize("sample", SAMPLE_FILES, ids=lambda p: p.stem)
@pytest.mark.parametrize("jsonl", [False, True], ids=["json", "jsonl"])
def test_every_sample_round_trips_through_the_writer(sample, jsonl, tmp_path):
    trace = load_trace(sample)
    out = tmp_path / ("copy.jsonl" if jsonl else "copy.json")
    native.write(trace, out)
    assert detect_format(out) == "native"
    assert comparable(load_trace(out)) == comparable(trace)


def test_every_sample_validates_against_the_shipped_schema():
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(native.schema())
    for sample in SAMPLE_FILES:
        assert list(validator.iter_errors(json.loads(sample.read_text()))) == [], sample.name


def test_unknown_fields_are_kept_through_a_round_trip(tmp_path):
    document = json.loads((SAMPLES / "healthy_chain.json").read_text())
    document["sources"][0]["reviewer"] = "kim"
    document["generations"][1]["model"] = "x-1"
    path = tmp_path / "t.json"
    path.write_text(json.dumps(document))
    trace = load_trace(path)
    assert trace.sources[0].extra == {"reviewer": "kim"}
    again = tmp_path / "again.json"
    native.write(trace, again)
    assert json.loads(again.read_text())["generations"][1]["model"] == "x-1"


def minimal(**changes):
    document = {
        "format": "compaction-trace/1",
        "id": "t",
        "sources": [{"key": "a", "text": "A."}],
        "generations": [{"index": 0, "kind": "raw", "text": "A."}, {"index": 1, "kind": "summary", "text": "[[a]]"}],
    }
    document.update(changes)
    return document


def error_for(tmp_path: Path, content: str | bytes, name: str = "bad.json") -> TraceReadError:
    path = tmp_path / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    with pytest.raises(TraceReadError) as caught:
        load_trace(path)
    assert str(caught.value).startswith(str(path))
    return caught.value


def test_defaults_covers_and_parent(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(minimal()))
    trace = load_trace(path)
    assert trace.generations[1].parent == 0
    assert trace.generations[1].covers == ("a",)
    assert trace.sources[0].namespace == "default"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"generations": []}, "generations"),
        ({"generations": [{"index": 0, "kind": "raw"}, {"index": 2, "kind": "summary"}]}, "missing S1"),
        ({"generations": [{"index": 0, "kind": "summary"}]}, "S0 must have kind 'raw'"),
        ({"sources": [{"key": "a", "text": "x"}, {"key": "a", "text": "y"}]}, "duplicate source key 'a'"),
        ({"sources": [{"key": "a", "text": "x", "supersedes": "zz"}]}, "supersedes unknown key 'zz'"),
        ({"sources": [{"key": "a"}]}, "'text' is a required property"),
        ({"format": "compaction-trace/9"}, "format"),
    ],
)
def test_invalid_documents_name_the_problem(tmp_path, changes, message):
    error = error_for(tmp_path, json.dumps(minimal(**changes)))
    assert message in error.message


def test_json_syntax_errors_carry_the_line(tmp_path):
    error = error_for(tmp_path, '{"format": "compaction-trace/1",\n "id": "t",\n "sources": [,]}')
    assert error.line == 3


def test_jsonl_errors_carry_the_line(tmp_path):
    lines = [
        {"format": "compaction-trace/1", "id": "t"},
        {"record": "source", "key": "a", "text": "A."},
        {"record": "generation", "index": "zero", "kind": "raw"},
    ]
    error = error_for(tmp_path, "\n".join(json.dumps(x) for x in lines), "bad.jsonl")
    assert (error.line, "index: 'zero' is not of type 'integer'") == (3, error.message)


def test_jsonl_unknown_record_type_is_named(tmp_path):
    lines = [{"format": "compaction-trace/1", "id": "t"}, {"record": "mystery"}]
    error = error_for(tmp_path, "\n".join(json.dumps(x) for x in lines), "bad.jsonl")
    assert error.line == 2 and "mystery" in error.message


def test_compressed_native_trace_opens(tmp_path):
    import zstandard

    path = tmp_path / "trace.json.zst"
    path.write_bytes(zstandard.ZstdCompressor().compress((SAMPLES / "healthy_chain.json").read_bytes()))
    assert load_trace(path).id == "healthy-chain"


@pytest.mark.parametrize(
    ("content", "message"),
    [("", "empty file"), ("   \n", "empty file"), (b"\x00\x01\x02binary\xff", "binary"), ("hello", "not a recognised")],
)
def test_unreadable_inputs(tmp_path, content, message):
    assert message in error_for(tmp_path, content).message


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(TraceReadError, match="no such file"):
        load_trace(tmp_path / "nope.json")
    with pytest.raises(TraceReadError, match="directory"):
        load_trace(tmp_path)
