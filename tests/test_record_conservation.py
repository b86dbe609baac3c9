"""No record dropped (issue 27): every reader accounts for every record of every fixture it is given.

Each session under tests/fixtures/<format>/ (and the real Codex rollout in ../shared, read in place) is read by its
reader, and the counts the trace carries (`extra["records"]`) must add up to the records the file holds, counted
here independently from the file itself in the format's own unit: lines of a JSONL log, files in an OpenHands
conversation folder, rows of opencode's tables, a sample's messages and events, OTLP spans. And every tool call in the
trace has its result, or the tool-result-missing notice counts it.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import zipfile
from collections import Counter
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from inspector.analysis import analyze
from inspector.bounded_io import read_member
from inspector.errors import TraceReadError
from inspector.model import Trace
from inspector.readers import detect_format, load_trace, readers
from inspector.readers.conservation import DUPLICATE, NOTICE, RECORDS, TURN, UNACCOUNTED, UNKNOWN, RecordTally
from inspector.readers.transcript import RESULT_MISSING
from tests.helpers import FIXTURES, REAL_TRACES, require_shared

REAL_CODEX = REAL_TRACES / "codex_v0.146_schema_fixture_agent-sessions.jsonl"
ADOPTING: dict[str, str] = {}
"""Readers whose counts are still to come: their test is expected to fail until they report them."""


# -- the records of a file, counted from the file itself -----------------------------------------------------


def lines(path: Path, session: str | None = None) -> int:
    """Non-blank lines: a JSONL log's records (a blank line is none)."""
    return sum(1 for line in path.read_bytes().splitlines() if line.strip())


def document(path: Path) -> Any:
    return json.loads(path.read_bytes())


def gemini(path: Path, session: str | None) -> int:
    return lines(path) if path.suffix == ".jsonl" else len(document(path)["messages"])


def langchain(path: Path, session: str | None) -> int:
    if path.suffix == ".jsonl":
        return lines(path)
    data = document(path)
    return len(data if isinstance(data, list) else data["messages"])


def native(path: Path, session: str | None) -> int:
    if path.suffix == ".jsonl":
        return lines(path) - 1  # the header is the trace's own fields, no element
    data = document(path)
    return sum(len(data.get(name) or ()) for name in ("sources", "generations", "invariants", "events"))


def openhands(path: Path, session: str | None) -> int:
    """The event files and base_state.json, the conversation's id and title."""
    return len(list((path / "events").glob("event-*.json"))) + (path / "base_state.json").exists()


def opencode(path: Path, session: str | None) -> int:
    if path.suffix != ".db":
        data = document(path)
        return len(data["messages"]) + sum(len(m["parts"]) for m in data["messages"])
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        return sum(db.execute(f"SELECT count(*) FROM {table} WHERE session_id = ?", (session,)).fetchone()[0]
                   for table in ("message", "part"))  # fmt: skip


def inspect_ai(path: Path, session: str | None) -> int:
    if path.suffix == ".eval":  # its members are zstd, which zipfile cannot open: the bounded reader's decompression
        with zipfile.ZipFile(path) as archive:
            info = archive.getinfo(f"samples/{session}.json")
        sample = json.loads(read_member(path, info))
    else:
        sample = next(s for s in document(path)["samples"] if f"{s['id']}_epoch_{s['epoch']}" == session)
    return len(sample["messages"]) + len(sample["events"])


def otel_spans(path: Path, session: str | None) -> int:
    requests = [json.loads(line) for line in path.read_bytes().splitlines() if line.strip()]
    return sum(len(scope["spans"]) for request in requests for resource in request["resourceSpans"]
               for scope in resource["scopeSpans"])  # fmt: skip


COUNTERS: dict[str, Callable[[Path, str | None], int]] = {
    "native": native, "claude-code": lines, "codex": lines, "openhands": openhands, "inspect-ai": inspect_ai,
    "langchain": langchain, "anthropic-api": lines, "openai-responses": lines, "gemini-cli": gemini,
    "opencode": opencode, "otel-genai": otel_spans,
}  # fmt: skip


def test_every_registered_reader_has_a_counter() -> None:
    assert sorted(COUNTERS) == sorted(r.name for r in readers())


# -- every session of every fixture -------------------------------------------------------------------------


def sessions() -> list[Any]:
    """(format, path, session) for every session in tests/fixtures/<format>/, each session of a container apart."""
    found = []
    for folder in sorted(p for p in FIXTURES.iterdir() if p.is_dir()):
        for path in sorted(folder.iterdir()):
            if path.suffix in (".py", ".sh", ".md"):
                continue
            try:
                name = detect_format(path)
            except TraceReadError:
                continue  # a tool's config beside its fixture
            reader = next(r for r in readers() if r.name == name)
            ids = reader.sessions(path) if reader.sessions is not None else []
            for session in ids or [None]:
                marks = [pytest.mark.xfail(strict=True, reason=ADOPTING[name])] if name in ADOPTING else []
                label = f"{folder.name}/{path.name}" + (f"#{session}" if len(ids) > 1 else "")
                found.append(pytest.param(name, path, session if ids else None, id=label, marks=marks))
    return found


def test_every_fixture_folder_has_a_session() -> None:
    folders = {p.name for p in FIXTURES.iterdir() if p.is_dir()}
    assert {param.id.split("/")[0] for param in sessions()} == folders


def check_conserved(name: str, path: Path, session: str | None) -> Trace:
    trace = load_trace(f"{path}#{session}" if session else path)
    assert trace.format == name
    records = trace.extra[RECORDS]
    assert records["total"] == COUNTERS[name](path, session), "the reader met another number of records"
    assert UNACCOUNTED.name not in records["set_aside"], f"records no branch of the reader counted: {records}"
    assert sum(records["read"].values()) + sum(records["set_aside"].values()) == records["total"]
    assert records["read"], "a session with nothing read"
    told = [n for n in trace.notices if n.rule == NOTICE]
    assert len(told) <= 1
    every_result_or_a_notice(trace)
    return trace


def every_result_or_a_notice(trace: Trace) -> None:
    """Each tool call has its result, or the one notice counts the calls without (and names the first). A log
    may reuse a call id (its keys then get a #n suffix): each result answers the next call of its id."""
    answers = Counter(s.extra.get("call_id") for s in trace.sources if s.kind in ("tool_result", "tool_error"))
    missing = []
    for call in (s.key for s in trace.sources if s.kind == "tool_call"):
        call_id = re.sub(r"#\d+$", "", call)
        if answers[call_id]:
            answers[call_id] -= 1
        else:
            missing.append(call)
    notices = [n.message for n in trace.notices if n.rule == RESULT_MISSING]
    if not missing:
        assert notices == []
        return
    [message] = notices
    assert message.startswith(f"{len(missing)} tool call"), message
    assert f"{missing[0]} (" in message


@pytest.mark.parametrize(("name", "path", "session"), sessions())
def test_every_record_of_a_fixture_is_accounted_for(name: str, path: Path, session: str | None) -> None:
    check_conserved(name, path, session)


def test_every_record_of_the_real_codex_rollout_is_accounted_for() -> None:
    require_shared(REAL_CODEX)
    check_conserved("codex", REAL_CODEX, None)


# -- what the user is told ----------------------------------------------------------------------------------


def rollout(path: Path, records: list[dict[str, Any] | str]) -> Path:
    """A Codex rollout of the named lines (a name below, a raw line as text, or a line as a dict)."""
    def line(kind: str, payload: Any) -> dict[str, Any]:
        return {"timestamp": "2025-10-02T08:00:00.000Z", "type": kind, "payload": payload}

    def message(role: str, text: str) -> dict[str, Any]:
        content = [{"type": "input_text", "text": text}]
        return line("response_item", {"type": "message", "role": role, "content": content})

    shaped = {"meta": line("session_meta", {"id": "s", "cwd": "/repo"}), "user": message("user", "Run the tests."),
              "assistant": message("assistant", "Done."),
              "call": line("response_item", {"type": "function_call", "name": "shell", "call_id": "c1",
                                             "arguments": json.dumps({"command": ["make", "test"]})}),
              "exit": line("event_msg", {"type": "exec_command_end", "call_id": "c1", "exit_code": 0}),
              "telepathy": line("telepathy", {"x": 1}), "meld": line("event_msg", {"type": "mind_meld"}),
              "reasoning": line("response_item", {"type": "reasoning", "encrypted_content": "gAAA"})}  # fmt: skip
    def written(record: dict[str, Any] | str) -> str:
        if isinstance(record, dict):
            return json.dumps(record)
        return json.dumps(shaped[record]) if record in shaped else record

    path.write_text("".join(written(r) + "\n" for r in records))
    return path


def test_records_of_unknown_types_are_told_with_their_numbers(tmp_path: Path) -> None:
    path = rollout(tmp_path / "rollout.jsonl", ["meta", "user", "telepathy", "telepathy", "meld", "reasoning",
                                                "{oops", "assistant"])  # fmt: skip
    trace = load_trace(path)
    assert trace.extra[RECORDS] == {"unit": "lines", "total": 8, "read": {"metadata": 1, "turn": 2},
                                    "set_aside": {"malformed": 1, "reasoning": 1, "unknown type": 3}}  # fmt: skip
    [told] = [n for n in trace.notices if n.rule == NOTICE]
    assert told.message == ("rollout.jsonl: 3 of 8 lines are not in the chain: "
                            "3 unknown type (telepathy ×2, event_msg mind_meld)")  # fmt: skip
    assert told.severity.value == "info"
    # The report carries it as a finding, like every reader notice.
    [finding] = [f for f in analyze(trace).findings if f.rule == NOTICE]
    assert finding.message == told.message and finding.severity.value == "info"


def test_records_set_aside_by_design_are_counted_not_told(tmp_path: Path) -> None:
    """Reasoning, a malformed line (which has its own notice) and the like: no records-set-aside notice."""
    trace = load_trace(rollout(tmp_path / "rollout.jsonl", ["meta", "user", "reasoning", "{oops", "assistant"]))
    assert trace.extra[RECORDS]["set_aside"] == {"malformed": 1, "reasoning": 1}
    assert [n.rule for n in trace.notices] == ["malformed-line"]


def test_a_record_no_branch_counted_is_unaccounted_and_told() -> None:
    tally = RecordTally("lines")
    tally.met(5)
    tally.count(TURN)
    tally.count(DUPLICATE)
    tally.count(UNKNOWN, "hologram")
    assert tally.as_extra() == {"unit": "lines", "total": 5, "read": {"turn": 1},
                                "set_aside": {"duplicate": 1, "unknown type": 1, "unaccounted": 2}}  # fmt: skip
    notice = tally.notice(Path("/somewhere/log.jsonl"))
    assert notice is not None
    assert notice.message == "log.jsonl: 3 of 5 lines are not in the chain: 1 unknown type (hologram); 2 unaccounted"


def test_parts_of_an_unreadable_message_are_told(tmp_path: Path) -> None:
    copy = tmp_path / "opencode.db"
    shutil.copy(FIXTURES / "opencode" / "opencode.db", copy)
    with closing(sqlite3.connect(copy)) as db, db:
        first = db.execute("SELECT id FROM message ORDER BY id LIMIT 1").fetchone()[0]
        parts = db.execute("SELECT count(*) FROM part WHERE message_id = ?", (first,)).fetchone()[0]
        db.execute("UPDATE message SET data = '{oops' WHERE id = ?", (first,))
    trace = load_trace(copy)
    records = trace.extra[RECORDS]
    assert records["set_aside"]["malformed"] == 1 and records["set_aside"]["part of no readable message"] == parts
    [told] = [n for n in trace.notices if n.rule == NOTICE]
    assert told.message == f"opencode.db: {parts} of 76 rows are not in the chain: {parts} part of no readable message"


# -- tool calls without a result ------------------------------------------------------------------------------


def test_a_call_the_log_ends_before_is_said(tmp_path: Path) -> None:
    trace = load_trace(rollout(tmp_path / "rollout.jsonl", ["meta", "user", "call"]))
    [missing] = [n.message for n in trace.notices if n.rule == RESULT_MISSING]
    assert missing == "1 tool call has no result in the log: c1 (shell): the log ends before its result"


def test_a_call_with_only_its_exit_status_or_nothing_is_said(tmp_path: Path) -> None:
    trace = load_trace(rollout(tmp_path / "rollout.jsonl", ["meta", "user", "call", "exit", "assistant"]))
    [missing] = [n.message for n in trace.notices if n.rule == RESULT_MISSING]
    assert missing == "1 tool call has no result in the log: c1 (shell): its outcome is recorded, its output is not"
    trace = load_trace(rollout(tmp_path / "rollout.jsonl", ["meta", "user", "call", "assistant"]))
    [missing] = [n.message for n in trace.notices if n.rule == RESULT_MISSING]
    assert missing == "1 tool call has no result in the log: c1 (shell): no result recorded"
    [finding] = [f for f in analyze(trace).findings if f.rule == RESULT_MISSING]
    assert finding.severity.value == "info"


def test_a_call_still_running_says_so(tmp_path: Path) -> None:
    document = json.loads((FIXTURES / "opencode" / "opencode-export.json").read_text())
    tool = next(p for m in document["messages"] for p in m["parts"] if p["type"] == "tool")
    tool["state"] = {"status": "running", "input": {"command": "make"}, "time": {"start": 1}}
    path = tmp_path / "export.json"
    path.write_text(json.dumps(document))
    [missing] = [n.message for n in load_trace(path).notices if n.rule == RESULT_MISSING]
    assert missing == (f"1 tool call has no result in the log: {tool['callID']} (bash): its state is 'running': "
                       "the log holds no result (yet)")  # fmt: skip


def test_many_calls_without_a_result_are_counted_and_the_first_named(tmp_path: Path) -> None:
    calls = [{"timestamp": "t", "type": "response_item", "payload": {"type": "function_call", "name": "shell",
              "call_id": f"c{i}", "arguments": "{}"}} for i in range(5)]  # fmt: skip
    trace = load_trace(rollout(tmp_path / "rollout.jsonl", ["meta", "user", *calls, "assistant"]))
    [missing] = [n.message for n in trace.notices if n.rule == RESULT_MISSING]
    assert missing == ("5 tool calls have no result in the log: c0 (shell): no result recorded; c1 (shell): no "
                       "result recorded; c2 (shell): no result recorded; … and 2 more")  # fmt: skip
