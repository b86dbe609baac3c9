"""A turn's record, read back where its reader found it: exactly as stored, or a reason; never another record."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
import zstandard

from inspector.analysis import analyze
from inspector.bounded_sqlite import write_ahead_log
from inspector.model import TRANSCRIPT, Trace
from inspector.raw_records import Located, Row, pretty_json, raw_record, read_record, record_index, stamps_of
from inspector.readers import load_trace, native
from inspector.report import to_json
from tests.helpers import REPO, SAMPLES

FIXTURES = REPO / "tests" / "fixtures"
SESSIONS = {
    "claude-code": FIXTURES / "claude_code" / "three_compactions.jsonl",
    "codex": FIXTURES / "codex" / "three_compactions.jsonl",
    "anthropic-api": FIXTURES / "anthropic_api" / "messages.jsonl",
    "openai-responses": FIXTURES / "openai_responses" / "responses.jsonl",
}


def lines_by_offset(data: bytes) -> dict[int, str]:
    """Every line of a file by where it starts, read here without the inspector."""
    found, start = {}, 0
    for line in data.splitlines(keepends=True):
        found[start] = line.rstrip(b"\r\n").decode()
        start += len(line)
    return found


def turn_keys(trace: Trace) -> set[str]:
    return {s.key for s in trace.sources if s.namespace == TRANSCRIPT}


@pytest.mark.parametrize("name", sorted(SESSIONS))
def test_every_turn_reads_back_its_own_line_exactly(name: str) -> None:
    path = SESSIONS[name]
    trace = load_trace(path, format=name)
    index = record_index(trace)
    assert index is not None and set(index.places) == turn_keys(trace)
    written = lines_by_offset(path.read_bytes())
    for key, offset in index.places.items():
        assert raw_record(trace, key).text == written[offset], key


def test_the_line_is_the_turns_own_record() -> None:
    """Not merely some line: the record the turn was read from (its uuid, its call id)."""
    claude = load_trace(SESSIONS["claude-code"])
    for key in turn_keys(claude):  # a message's uuid, or the id of a tool call in it
        record = json.loads(raw_record(claude, key).text or "")
        blocks = record["message"]["content"] if isinstance(record["message"]["content"], list) else []
        assert key.split("#")[0] in (record["uuid"], *(b.get("id") for b in blocks)), key
    codex = load_trace(SESSIONS["codex"])
    output = json.loads(raw_record(codex, "call_2:output").text or "")
    assert output["payload"]["type"] == "function_call_output" and output["payload"]["call_id"] == "call_2"


def test_a_compressed_log_is_read_up_to_the_line(tmp_path: Path) -> None:
    packed = tmp_path / "rollout.jsonl.zst"
    packed.write_bytes(zstandard.ZstdCompressor().compress(SESSIONS["codex"].read_bytes()))
    trace, plain = load_trace(packed), load_trace(SESSIONS["codex"])
    assert record_index(trace).places == record_index(plain).places  # type: ignore[union-attr]
    for key in turn_keys(plain):
        assert raw_record(trace, key) == raw_record(plain, key)


@pytest.mark.parametrize("change", ["append", "rewrite", "delete", "replace"])
def test_a_changed_file_shows_no_line(tmp_path: Path, change: str) -> None:
    path = tmp_path / "session.jsonl"
    shutil.copy(SESSIONS["claude-code"], path)
    trace = load_trace(path)
    assert raw_record(trace, "u01").text is not None
    data = path.read_bytes()
    if change == "append":
        path.write_bytes(data + data.splitlines(keepends=True)[0])
    elif change == "rewrite":  # same size, other content: a line that no longer starts where it did
        path.write_bytes(b"\n" + data[:-1])
    elif change == "delete":
        path.unlink()
    else:  # another file put in its place, its times set back to the old one's
        status = path.stat()
        other = tmp_path / "other.jsonl"
        other.write_bytes(data)
        os.replace(other, path)
        os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))
    found = raw_record(trace, "u01")
    assert found.text is None
    assert ("no longer there" if change == "delete" else "changed since it was read") in (found.reason or "")


def line_at(path: Path, offset: int) -> Located:
    return Located(str(path), stamps_of(path), offset)


def test_an_offset_inside_a_line_or_past_the_end_gives_a_reason(tmp_path: Path) -> None:
    path = SESSIONS["codex"]
    size = path.stat().st_size
    assert read_record(line_at(path, 5)).reason == f"byte 5 of {path.name} does not start a line"
    assert "ends before" in (read_record(line_at(path, size)).reason or "")
    packed = tmp_path / "rollout.jsonl.zst"
    packed.write_bytes(zstandard.ZstdCompressor().compress(path.read_bytes()))
    assert "does not start a line" in (read_record(line_at(packed, 5)).reason or "")
    assert "does not start a line" in (read_record(line_at(packed, 10**9)).reason or "")


def test_a_line_past_the_line_bound_is_refused_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "session.jsonl"
    shutil.copy(SESSIONS["claude-code"], path)
    trace = load_trace(path)
    monkeypatch.setenv("INSPECTOR_MAX_LINE_MB", "0.0001")  # about 100 bytes
    found = raw_record(trace, "u01")
    assert found.text is None and "per-line limit" in (found.reason or "")


def test_records_with_no_line_of_their_own_say_why() -> None:
    codex = load_trace(SESSIONS["codex"])
    assert "derived record" in (raw_record(codex, "src/checkout.py").reason or "")
    sample = load_trace(SAMPLES / "healthy_chain.json")
    assert record_index(sample) is None
    assert raw_record(sample, sample.sources[0].key).reason == "the native reader keeps no record positions"


def test_line_positions_stay_out_of_reports_and_native_copies() -> None:
    """Where lines start is for display on this machine: `check --json` and a native copy never carry it."""
    for path in SESSIONS.values():
        trace = load_trace(path)
        assert record_index(trace) is not None
        for written in (json.dumps(to_json(analyze(trace))), native.dumps(trace).decode()):
            assert "raw_records" not in written and "offset" not in written


def test_pretty_json_indents_and_keeps_what_it_cannot_parse() -> None:
    assert pretty_json('{"a":[1,{"b":"<script>"}],"n":123456789012345678901234567890}') == (
        '{\n  "a": [\n    1,\n    {\n      "b": "<script>"\n    }\n  ],\n  "n": 123456789012345678901234567890\n}'
    )
    assert pretty_json("{torn") == "{torn"


def test_a_gemini_turn_reads_back_the_message_line_it_came_from_and_a_relisted_one_has_none() -> None:
    """Gemini CLI writes each message on its own line (rewritten as it grows) and re-lists history inside a
    `$set` line. A turn shows the last line that wrote its message; a turn known only from a re-listed
    history (the bootstrap context) shows none rather than the whole history line."""
    path = FIXTURES / "gemini_cli" / "session-2026-12-01T01-55-e4477968.jsonl"
    trace = load_trace(path)
    index = record_index(trace)
    assert index is not None
    written = lines_by_offset(path.read_bytes())
    shown = {key: json.loads(raw_record(trace, key).text or "") for key in index.places}
    for key, record in shown.items():
        assert raw_record(trace, key).text == written[index.places[key]]
        calls = [call.get("id") for call in record.get("toolCalls", [])]
        assert key.removesuffix(":result") in (record["id"], *calls), key
    unshown = turn_keys(trace) - set(shown)
    assert len(unshown) == 1 and all(raw_record(trace, key).text is None for key in unshown)
    assert not any("$set" in json.loads(line) for line in (written[o] for o in index.places.values()))


# -- readers that are not line files ------------------------------------------------------------------------

OPENHANDS = FIXTURES / "openhands" / "conversation"


def test_every_openhands_turn_reads_back_its_own_event_file_exactly() -> None:
    """An event file is the record: shown byte for byte, and it is the turn's (its id, or its call's)."""
    trace = load_trace(OPENHANDS)
    index = record_index(trace)
    assert index is not None and set(index.places) == turn_keys(trace)
    files = {path.name: path for path in (OPENHANDS / "events").glob("event-*.json")}
    for key in index.places:
        located = index.locate(key)
        assert located is not None and located.exact
        name = located.describe().removesuffix(", as written")
        text = raw_record(trace, key).text
        assert text == files[name].read_text(), key
        event = json.loads(text)
        assert key in (event["id"], event.get("tool_call_id"), f"{event['id']}:thought", f"{event['id']}:reason")
        assert name.endswith(f"-{event['id']}.json")


@pytest.mark.parametrize("change", ["rewrite", "delete", "replace"])
def test_a_changed_event_file_shows_no_record_and_the_others_still_show(tmp_path: Path, change: str) -> None:
    """Each event file is its own version: a conversation that goes on (a new event) changes no record."""
    folder = tmp_path / "conversation"
    shutil.copytree(OPENHANDS, folder)
    trace = load_trace(folder)
    index = record_index(trace)
    assert index is not None
    first, *others = sorted(index.places)
    path = Path(index.places[first].path)  # type: ignore[union-attr]
    data = path.read_bytes()
    if change == "rewrite":  # same size, other bytes
        path.write_bytes(data.replace(b'"id"', b'"ID"', 1))
    elif change == "delete":
        path.unlink()
    else:
        status = path.stat()
        (tmp_path / "other.json").write_bytes(data)
        os.replace(tmp_path / "other.json", path)
        os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))
    (folder / "events" / "event-99999-ffffffff-ffff-ffff-ffff-ffffffffffff.json").write_text('{"kind": "PauseEvent"}')
    found = raw_record(trace, first)
    assert found.text is None
    assert ("no longer there" if change == "delete" else "changed since it was read") in (found.reason or "")
    unchanged = [key for key in others if index.places[key] != index.places[first]]
    assert unchanged and all(raw_record(trace, key).text is not None for key in unchanged)


INSPECT_LOGS = [FIXTURES / "inspect_ai" / "two-samples.eval", FIXTURES / "inspect_ai" / "two-samples.json"]
INSPECT_SAMPLES = ["summary_epoch_1", "trim_epoch_1"]


def at_pointer(document: object, pointer: str) -> object:
    """The value a JSON pointer names, found here without the inspector (the fixtures' keys hold no / or ~)."""
    for token in pointer.split("/")[1:]:
        document = document[int(token)] if isinstance(document, list) else document[token]  # type: ignore[index]
    return document


@pytest.mark.parametrize("sample", INSPECT_SAMPLES)
@pytest.mark.parametrize("log", INSPECT_LOGS, ids=["eval", "json"])
def test_every_inspect_turn_reads_back_its_own_message_or_tool_call(log: Path, sample: str) -> None:
    """A message (or a tool call in one) is a value of the sample: written again from the parsed JSON, and
    it is the turn's own (its id is the turn's key)."""
    trace = load_trace(f"{log}#{sample}")
    index = record_index(trace)
    assert index is not None and set(index.places) == turn_keys(trace)
    document = json.loads(log.read_text()) if log.suffix == ".json" else None
    for key, pointer in index.places.items():
        located = index.locate(key)
        assert located is not None and not located.exact and isinstance(pointer, str)
        record = json.loads(raw_record(trace, key).text or "")
        assert record["id"] == key.split("#")[0], key
        assert pointer.rsplit("/", 2)[-2] in ("messages", "tool_calls")
        if document is not None:
            assert record == at_pointer(document, pointer)
    members = {located.member for key in index.places if (located := index.locate(key)) is not None}
    assert members == ({f"samples/{sample}.json"} if log.suffix == ".eval" else {None})  # a zip's sample: a member


@pytest.mark.parametrize("log", INSPECT_LOGS, ids=["eval", "json"])
def test_a_changed_eval_log_shows_no_record(tmp_path: Path, log: Path) -> None:
    path = tmp_path / log.name
    shutil.copy(log, path)
    trace = load_trace(path)
    key = next(iter(record_index(trace).places))  # type: ignore[union-attr]
    assert raw_record(trace, key).text is not None
    path.write_bytes(path.read_bytes())  # the same bytes, written again: another version all the same
    os.utime(path, ns=(1, 1))
    found = raw_record(trace, key)
    assert found.text is None and "changed since it was read" in (found.reason or "")


def test_an_inspect_turn_reads_its_own_record_past_a_skipped_message_and_beside_another_call(tmp_path: Path) -> None:
    """Pointers count the sample's list as stored (a non-object in it too), and each call of a message is its own."""
    log = json.loads(INSPECT_LOGS[1].read_text())
    messages = log["samples"][0]["messages"]
    caller = next(m for m in messages if m.get("tool_calls"))
    caller["tool_calls"].append({**caller["tool_calls"][0], "id": "call_second"})
    messages.insert(0, "not a message")
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log))
    trace = load_trace(f"{path}#{log['samples'][0]['id']}_epoch_1")
    index = record_index(trace)
    assert index is not None and "call_second" in index.places
    for key in index.places:
        assert json.loads(raw_record(trace, key).text or "")["id"] == key.split("#")[0], key


OPENCODE_DB = FIXTURES / "opencode" / "opencode.db"
OPENCODE_EXPORT = FIXTURES / "opencode" / "opencode-export.json"


def opencode_record_id(record: dict[str, object], key: str) -> bool:
    """A part's or message's record is the turn's own: a user part by its id, an assistant turn by its message's,
    a tool call and its result by the call's id."""
    return key.split("#")[0] in (record.get("id"), record.get("callID"), f"{record.get('callID')}:output")


def test_every_opencode_turn_reads_back_its_own_row_exactly() -> None:
    """A database row's data column is the record, as stored; the row is the turn's (found here by SQL)."""
    trace = load_trace(OPENCODE_DB)
    index = record_index(trace)
    assert index is not None and set(index.places) == turn_keys(trace)
    with sqlite3.connect(f"file:{OPENCODE_DB}?mode=ro&immutable=1", uri=True) as db:
        for key, row in index.places.items():
            assert isinstance(row, Row) and row.table in ("message", "part"), key
            [(stored,)] = db.execute(f"SELECT data FROM {row.table} WHERE id = ?", (row.key,)).fetchall()
            text = raw_record(trace, key).text
            assert text == stored, key
            record = {"id": row.key, **json.loads(text or "")}  # the id is the row's column, not in its data
            assert opencode_record_id(record, key), key
    db.close()


def test_every_opencode_export_turn_reads_back_its_own_value() -> None:
    trace = load_trace(OPENCODE_EXPORT)
    index = record_index(trace)
    assert index is not None and set(index.places) == turn_keys(trace)
    document = json.loads(OPENCODE_EXPORT.read_text())
    for key, pointer in index.places.items():
        assert isinstance(pointer, str) and not index.locate(key).exact  # type: ignore[union-attr]
        record = json.loads(raw_record(trace, key).text or "")
        assert record == at_pointer(document, pointer) and opencode_record_id(record, key), key


def test_an_opencode_source_whose_records_cannot_be_found_again_exactly_keeps_no_positions(tmp_path: Path) -> None:
    """An export entry the reader skips moves every later one off its index, and a row whose data names an id of
    its own (opencode writes none) is not found by the id the reader gave it: no record is shown rather than
    another one."""
    document = json.loads(OPENCODE_EXPORT.read_text())
    document["messages"][-1]["parts"].insert(0, "not a part")
    export = tmp_path / "export.json"
    export.write_text(json.dumps(document))
    database = tmp_path / "opencode.db"
    shutil.copy(OPENCODE_DB, database)
    with closing(sqlite3.connect(database)) as db:
        db.execute("""UPDATE part SET data = json_set(data, '$.id', 'prt_other')
                      WHERE id = (SELECT min(id) FROM part WHERE data LIKE '%"type":"text"%')""")
        db.commit()
    for path in (export, database):
        trace = load_trace(path)
        assert record_index(trace) is None and len(turn_keys(trace)) > 10, path.name
        assert raw_record(trace, next(iter(turn_keys(trace)))).reason == "the opencode reader keeps no record positions"


@pytest.mark.parametrize("change", ["row", "log"])
def test_a_changed_opencode_database_shows_no_record(tmp_path: Path, change: str) -> None:
    """The database is checked with its write-ahead log: a row committed to the log (the database file itself
    untouched, as while opencode runs) changes the source as much as a rewrite does."""
    path = tmp_path / "opencode.db"
    shutil.copy(OPENCODE_DB, path)
    trace = load_trace(path)
    key = next(iter(record_index(trace).places))  # type: ignore[union-attr]
    row = record_index(trace).places[key]  # type: ignore[union-attr]
    assert isinstance(row, Row) and raw_record(trace, key).text is not None
    db = sqlite3.connect(path)  # opencode's database is in WAL mode: a change goes to its log while this is open
    try:
        if change == "log":
            db.execute("PRAGMA journal_mode=WAL")
            trace = load_trace(path)
            assert raw_record(trace, key).text is not None
            before = path.stat()
            db.execute("UPDATE part SET data = '{}' WHERE id = ?", (row.key,))
            db.commit()
            assert (path.stat().st_mtime_ns, path.stat().st_size) == (before.st_mtime_ns, before.st_size)
        else:  # into the file itself: closing the connection folds the log in and removes it
            db.execute("UPDATE part SET data = data || ' ' WHERE id = ?", (row.key,))
            db.commit()
            db.close()
            assert not write_ahead_log(path).exists()
        found = raw_record(trace, key)
    finally:
        db.close()
    assert found.text is None and "changed since it was read" in (found.reason or "")


def test_a_changed_opencode_export_shows_no_record(tmp_path: Path) -> None:
    path = tmp_path / "export.json"
    shutil.copy(OPENCODE_EXPORT, path)
    trace = load_trace(path)
    key = next(iter(record_index(trace).places))  # type: ignore[union-attr]
    path.write_text(path.read_text().replace('"text"', '"TEXT"', 1))
    found = raw_record(trace, key)
    assert found.text is None and "changed since it was read" in (found.reason or "")


@pytest.mark.parametrize("path", [OPENHANDS, INSPECT_LOGS[0], INSPECT_LOGS[1], OPENCODE_DB, OPENCODE_EXPORT],
                         ids=["event file", "eval member", "json log", "database row", "export"])  # fmt: skip
def test_a_record_past_the_line_bound_is_refused(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One record, whatever holds it, is bounded like one line; the document around a value like one file."""
    trace = load_trace(path)
    key = max(record_index(trace).places, key=lambda k: len(raw_record(trace, k).text or ""))  # type: ignore[union-attr]
    monkeypatch.setenv("INSPECTOR_MAX_LINE_MB", "0.0001")  # about 100 bytes
    found = raw_record(trace, key)
    assert found.text is None and "per-line limit" in (found.reason or "")
    if path != OPENHANDS:  # an event file is the one record: the line bound is its bound
        monkeypatch.setenv("INSPECTOR_MAX_LINE_MB", "64")
        monkeypatch.setenv("INSPECTOR_MAX_FILE_MB", "0.001")  # about 1 KB: the log, a member or the database
        found = raw_record(trace, key)
        assert found.text is None and "per-file limit" in (found.reason or "")


def test_a_place_that_names_nothing_gives_a_reason_not_another_record() -> None:
    stamps = stamps_of(OPENCODE_DB, write_ahead_log(OPENCODE_DB))
    for place, reason in [(Row("part", "prt_none"), "has no row prt_none in table part"),
                          (Row('part" WHERE 1 --', "x"), "is not a table name"),
                          (Row("nothing", "x"), "cannot read row x")]:  # fmt: skip
        assert reason in (read_record(Located(str(OPENCODE_DB), stamps, place)).reason or ""), place
    for path, member, pointer in [(OPENCODE_EXPORT, None, "/messages/999/info"), (INSPECT_LOGS[1], None, "/samples/x"),
                                  (INSPECT_LOGS[0], "samples/none.json", "/messages/0"),
                                  (INSPECT_LOGS[0], "samples/summary_epoch_1.json", "/messages/01")]:  # fmt: skip
        found = read_record(Located(str(path), stamps_of(path), pointer, member))
        assert found.text is None and ("has no" in (found.reason or "")), (path, member, pointer)
