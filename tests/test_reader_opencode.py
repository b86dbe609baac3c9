"""opencode reader: the SQLite store and the export the real opencode 1.18.33 wrote, two compactions each."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.analysis import analyze
from inspector.errors import TraceReadError
from inspector.readers import detect_format, load_trace, opencode, readers
from tests.helpers import REPO, read_raises_only_its_error

FIXTURES = Path(__file__).parent / "fixtures"
DB = FIXTURES / "opencode" / "opencode.db"
EXPORT = FIXTURES / "opencode" / "opencode-export.json"
SESSION = "ses_dd0b07380ffeu9V8GWKaonsNse"


def export() -> dict[str, Any]:
    return json.loads(EXPORT.read_text())


def write_export(path: Path, document: dict[str, Any]) -> Path:
    path.write_text(json.dumps(document, indent=2))
    return path


# --- the fixtures ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", [DB, EXPORT], ids=["sqlite", "export"])
def test_two_compactions_load_as_three_generations_with_their_summaries(path: Path) -> None:
    assert detect_format(path) == "opencode"
    trace = load_trace(path)
    assert trace.format == "opencode" and trace.id == SESSION and trace.title == "Done with that (reply 1)."
    s0, s1, s2 = trace.generations
    assert s1.text is not None and s1.text.startswith("SUMMARY #1: The user is building a small CLI tool.")
    assert s2.text is not None and s2.text.startswith("SUMMARY #2:")
    assert [(g.trigger, g.tokens_before, g.tokens_after) for g in (s1, s2)] == [("auto", 19500, 3000)] * 2
    assert s1.extra["overflow"] is False and s1.extra["summary_message"] == "msg_22f4fb720001p9eVkMkBXYKC3J"
    assert not trace.notices and trace.extra["version"] == "1.18.33"


def test_the_database_and_its_export_give_the_same_trace() -> None:
    db, exported = load_trace(DB), load_trace(EXPORT)
    assert db.sources == exported.sources and db.generations == exported.generations


def test_turns_summaries_and_continue_prompts() -> None:
    trace = load_trace(DB)
    said = [s.text.strip('"').split(":")[0] for s in trace.sources if s.kind == "user" and s.authority == "user"]
    assert said == ["First", "Second", "Third", "Fourth", "Fifth", "Sixth"]
    harness = [s.text for s in trace.sources if s.authority == "harness"]
    assert len(harness) == 2 and all(t.startswith("Continue if you have next steps") for t in harness)
    assert not any(s.text.startswith("SUMMARY #") for s in trace.sources)
    covers = [set(g.covers) for g in trace.generations]
    third = next(s.key for s in trace.sources if "Third:" in s.text)
    fourth = next(s.key for s in trace.sources if "Fourth:" in s.text)
    assert third in covers[1] and fourth not in covers[1] and fourth in covers[2]
    by_key = {(s.namespace, s.key): s for s in trace.sources}
    assert by_key[("transcript", "call_90074289:output")].text == "step-1-output\n"
    assert by_key[("command", "echo step-1-output")].text == "echo step-1-output (succeeded)"


@pytest.mark.parametrize("path", [DB, EXPORT], ids=["sqlite", "export"])
def test_check_exits_0_or_1(path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "inspector", "check", str(path)], capture_output=True,
                            text=True, cwd=REPO, timeout=120)  # fmt: skip
    assert result.returncode in (0, 1), result.stderr
    assert "[opencode]  3 generations" in result.stdout


def test_a_lost_user_statement_and_a_kept_one() -> None:
    """The summaries keep "never delete files" and drop "zeta-cli … Python 3.9"."""
    found = analyze(load_trace(DB)).findings
    lost = [f for f in found if f.rule == "user-statement-lost"]
    assert [f.generation for f in lost if "zeta-cli" in f.message] == [1, 2]
    assert not [f for f in found if "never delete files" in f.message]


def test_reading_never_writes_beside_the_database(tmp_path: Path) -> None:
    copy = tmp_path / "opencode.db"
    shutil.copy(DB, copy)
    before = copy.read_bytes()
    load_trace(copy)
    assert copy.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["opencode.db"]


# --- a database of several sessions -----------------------------------------------------------------------


def two_sessions(tmp_path: Path) -> Path:
    """The fixture plus an older one-message session, inserted the way opencode's rows look."""
    copy = tmp_path / "opencode.db"
    shutil.copy(DB, copy)
    with sqlite3.connect(copy) as db:
        row = db.execute("SELECT * FROM session WHERE id = ?", (SESSION,)).fetchone()
        columns = [c[1] for c in db.execute("PRAGMA table_info(session)")]
        older = dict(zip(columns, row, strict=True)) | {"id": "ses_older", "title": "Older", "time_updated": 1}
        db.execute(f"INSERT INTO session ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
                   [older[c] for c in columns])  # fmt: skip
        db.execute("INSERT INTO message VALUES ('msg_a', 'ses_older', 1, 1, ?)",
                   (json.dumps({"role": "user", "time": {"created": 1}}),))  # fmt: skip
        db.execute("INSERT INTO part VALUES ('prt_a', 'msg_a', 'ses_older', 1, 1, ?)",
                   (json.dumps({"type": "text", "text": "Use tabs."}),))  # fmt: skip
    db.close()
    return copy


def test_the_newest_session_loads_and_names_the_others(tmp_path: Path) -> None:
    path = two_sessions(tmp_path)
    assert opencode.sessions(path) == [SESSION, "ses_older"]
    trace = load_trace(path)
    assert trace.id == SESSION
    assert [(n.rule, f"{path.name}#ses_older" in n.message) for n in trace.notices] == [("several-sessions", True)]
    assert [f.rule for f in analyze(trace).findings if f.rule == "several-sessions"] == ["several-sessions"]
    older = load_trace(f"{path}#ses_older")
    assert older.id == "ses_older" and [s.text for s in older.sources] == ["Use tabs."]
    with pytest.raises(TraceReadError, match="no such session"):
        load_trace(f"{path}#ses_missing")


# --- what the fixtures do not show ----------------------------------------------------------------------


def test_pruned_tool_outputs_become_a_microcompaction_event(tmp_path: Path) -> None:
    document = export()
    tool = next(p for m in document["messages"] for p in m["parts"] if p["type"] == "tool")
    tool["state"]["time"]["compacted"] = tool["state"]["time"]["end"] + 5
    trace = load_trace(write_export(tmp_path / "export.json", document))
    assert trace.extra["pruned_tool_outputs"] == 1
    assert [e.kind for e in trace.events] == ["microcompaction"] and trace.events[0].after_generation == 0
    assert trace.source(f"{tool['callID']}:output").extra["pruned_at"]


def test_a_summary_message_without_text_is_unavailable(tmp_path: Path) -> None:
    document = export()
    summary = next(m for m in document["messages"] if m["info"].get("summary") is True)
    summary["parts"] = [p for p in summary["parts"] if p["type"] != "text"]
    summary["info"]["error"] = {"name": "MessageAbortedError", "data": {"message": "aborted"}}
    trace = load_trace(write_export(tmp_path / "export.json", document))
    assert trace.generations[1].text is None
    assert [(n.rule, n.generation) for n in trace.notices] == [("summary-unavailable", 1)]
    assert "MessageAbortedError: aborted" in trace.notices[0].message


def test_failed_tool_and_nonzero_exit_are_failures(tmp_path: Path) -> None:
    document = export()
    tools = [p for m in document["messages"] for p in m["parts"] if p["type"] == "tool"]
    tools[0]["state"] = {"status": "error", "input": {"command": "make"}, "error": "boom", "time": {"start": 1}}
    tools[1]["state"]["metadata"]["exit"] = 2
    trace = load_trace(write_export(tmp_path / "export.json", document))
    assert trace.source(f"{tools[0]['callID']}:output").kind == "tool_error"
    assert trace.source(f"{tools[1]['callID']}:output").kind == "tool_error"


# --- what each field of a record says, on the export's own records -------------------------------------------


def compaction_parts(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for m in document["messages"] for p in m["parts"] if p["type"] == "compaction"]


def test_the_trigger_is_the_compaction_parts_auto_field(tmp_path: Path) -> None:
    """`auto: false` is a /compact the user ran (manual); a part that does not say is no trigger at all."""
    document = export()
    first, second = compaction_parts(document)
    assert (first["auto"], second["auto"]) == (True, True)
    first["auto"] = False
    del second["auto"]
    trace = load_trace(write_export(tmp_path / "export.json", document))
    assert [g.trigger for g in trace.generations[1:]] == ["manual", None]
    second["auto"] = "yes"  # not a boolean: not read as one
    assert load_trace(write_export(tmp_path / "export.json", document)).generations[2].trigger is None


def test_a_summary_without_its_request_takes_no_trigger_from_the_one_before(tmp_path: Path) -> None:
    document = export()
    document["messages"] = [m for m in document["messages"]
                            if not any(p is compaction_parts(document)[1] for p in m["parts"])]  # fmt: skip
    trace = load_trace(write_export(tmp_path / "export.json", document))
    assert [g.trigger for g in trace.generations[1:]] == ["auto", None]


def test_any_nonzero_exit_is_a_failure(tmp_path: Path) -> None:
    document = export()
    tools = [p for m in document["messages"] for p in m["parts"] if p["type"] == "tool"]
    assert [t["state"]["metadata"]["exit"] for t in tools] == [0] * len(tools)
    for code, kind in ((1, "tool_error"), (-1, "tool_error"), (0, "tool_result")):
        tools[0]["state"]["metadata"]["exit"] = code
        trace = load_trace(write_export(tmp_path / "export.json", document))
        assert trace.source(f"{tools[0]['callID']}:output").kind == kind, code  # type: ignore[union-attr]


def test_the_prompt_size_counts_cached_input_read_and_written(tmp_path: Path) -> None:
    """The 19500-token prompt before each compaction, as a provider with prompt caching splits it."""
    document = export()
    overflowing = [m["info"] for m in document["messages"] if m["info"].get("tokens", {}).get("input") == 19500]
    assert len(overflowing) == 2
    for info in overflowing:
        info["tokens"]["input"], info["tokens"]["cache"] = 500, {"read": 18000, "write": 1000}
    trace = load_trace(write_export(tmp_path / "export.json", document))
    assert [g.tokens_before for g in trace.generations[1:]] == [19500, 19500]


def test_a_text_part_opencode_marks_ignored_is_no_turn(tmp_path: Path) -> None:
    document = export()
    fourth = next(p for m in document["messages"] for p in m["parts"] if "Fourth:" in (p.get("text") or ""))
    fourth["ignored"] = True
    trace = load_trace(write_export(tmp_path / "export.json", document))
    assert not [s for s in trace.sources if "Fourth:" in s.text]
    assert trace.extra["records"]["set_aside"]["marked ignored"] == 1


# --- bad input ------------------------------------------------------------------------------------------


def test_truncated_and_garbled_copies_raise_one_line(tmp_path: Path) -> None:
    cases = {"cut.db": DB.read_bytes()[:20000], "garbled.db": DB.read_bytes()[:100] + bytes(range(256)) * 400,
             "cut.json": EXPORT.read_bytes()[: len(EXPORT.read_bytes()) // 2]}  # fmt: skip
    for name, data in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        try:
            trace = load_trace(path)
        except TraceReadError as error:
            assert str(error).startswith(str(path)) and "\n" not in str(error)
        else:
            assert trace.format == "opencode"


def test_broken_rows_are_counted_not_fatal(tmp_path: Path) -> None:
    copy = tmp_path / "opencode.db"
    shutil.copy(DB, copy)
    with sqlite3.connect(copy) as db:
        first = db.execute("SELECT id FROM message ORDER BY id LIMIT 1").fetchone()[0]
        db.execute("UPDATE message SET data = '{oops' WHERE id = ?", (first,))
        second = db.execute("SELECT id FROM message ORDER BY id LIMIT 1 OFFSET 1").fetchone()[0]
        db.execute("UPDATE part SET data = '[1]' WHERE message_id = ?", (second,))
    db.close()
    trace = load_trace(copy)
    assert trace.extra["bad_rows"] == 1 + 3 and len(trace.generations) == 3  # a message, and the next one's parts


_leaf = st.none() | st.booleans() | st.integers(-2, 2) | st.sampled_from(
    ["user", "assistant", "text", "tool", "compaction", "completed", "error", "", "x"])
_value = st.recursive(_leaf, lambda c: st.lists(c, max_size=3) | st.dictionaries(
    st.sampled_from(["role", "type", "text", "summary", "mode", "state", "status", "input", "output", "time",
                     "compacted", "created", "tokens", "cache", "error", "metadata", "exit", "files", "synthetic"]),
    c, max_size=3), max_leaves=8)  # fmt: skip
_message = st.fixed_dictionaries({"info": _value, "parts": st.lists(_value, max_size=3) | _value})


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(messages=st.lists(_message, max_size=5) | _value, info=_value)
def test_export_reader_raises_only_trace_read_error(messages: Any, info: Any) -> None:
    read_raises_only_its_error(opencode.read, [{"info": info, "messages": messages}], b"", "export.json")


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(rows=st.lists(st.tuples(_value, st.lists(_value, max_size=3)), max_size=4))
def test_database_reader_raises_only_trace_read_error(tmp_path_factory: pytest.TempPathFactory,
                                                      rows: list[tuple[Any, list[Any]]]) -> None:  # fmt: skip
    path = tmp_path_factory.mktemp("db") / "opencode.db"
    shutil.copy(DB, path)
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM part")
        db.execute("DELETE FROM message")
        for index, (info, parts) in enumerate(rows):
            db.execute("INSERT INTO message VALUES (?, ?, 1, 1, ?)", (f"msg_{index}", SESSION, json.dumps(info)))
            for number, part in enumerate(parts):
                db.execute("INSERT INTO part VALUES (?, ?, ?, 1, 1, ?)",
                           (f"prt_{index}_{number}", f"msg_{index}", SESSION, json.dumps(part)))  # fmt: skip
    db.close()
    try:
        opencode.read(path)
    except TraceReadError:
        pass


# --- recognition ----------------------------------------------------------------------------------------


def detected(path: Path) -> str | None:
    """The format auto-detection names, or None for a file beside a fixture that is no trace (a tool's config)."""
    try:
        return detect_format(path)
    except TraceReadError:
        return None


def test_only_opencode_files_are_taken() -> None:
    others = [p for p in FIXTURES.glob("*/*") if p.suffix in (".jsonl", ".json", ".db") and p.parent != DB.parent]
    assert len(others) >= 2
    assert all(not opencode.sniff(p.read_bytes()[:65536]) and not opencode.claims(p) for p in others)
    assert all(detected(p) != "opencode" for p in others)
    for path in (DB, EXPORT):
        head = path.read_bytes()[:65536]
        taken = [r.name for r in readers() if r.name != "opencode"
                 and (r.sniff(head) or (r.claims is not None and r.claims(path)))]  # fmt: skip
        assert taken == []
    assert opencode.claims(DB) and not opencode.claims(EXPORT) and opencode.sniff(EXPORT.read_bytes()[:65536])


def test_another_sqlite_database_is_not_claimed(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE message (id TEXT, data TEXT)")
    db.close()
    assert not opencode.claims(path) and not opencode.claims(tmp_path) and not opencode.claims(tmp_path / "none.db")
