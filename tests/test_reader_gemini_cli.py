"""Gemini CLI reader: a session the real CLI (0.61.0) wrote, two compressions among five resumed runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.analysis import analyze
from inspector.errors import TraceReadError
from inspector.readers import detect_format, gemini_cli, load_trace, readers
from tests.helpers import REPO, read_raises_only_its_error

FIXTURES = Path(__file__).parent / "fixtures"
SESSION = FIXTURES / "gemini_cli" / "session-2026-12-01T01-55-e4477968.jsonl"
LEGACY = FIXTURES / "gemini_cli" / "session-legacy-0.20.2.json"


def records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in SESSION.read_text().splitlines()]


def write(path: Path, lines: list[dict[str, Any] | str]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in lines))
    return path


def user_texts(path: Path) -> list[str]:
    return [s.text for s in load_trace(path).sources if s.kind == "user" and s.authority == "user"]


# --- the fixture ------------------------------------------------------------------------------------


def test_two_compressions_load_as_three_generations_with_their_snapshots() -> None:
    assert detect_format(SESSION) == "gemini-cli"
    trace = load_trace(SESSION)
    assert trace.format == "gemini-cli" and trace.id == "e4477968-7609-4db5-be79-2b5bef72b5a3"
    s0, s1, s2 = trace.generations
    assert [g.extra["line"] for g in (s1, s2)] == [25, 40]
    assert s1.text is not None and s1.text.startswith("<state_snapshot>") and "(snapshot 1)" in s1.text
    assert s2.text is not None and "(snapshot 2)" in s2.text
    assert [(g.tokens_before, g.tokens_after, g.trigger) for g in (s1, s2)] == [(900000, 1000, "auto")] * 2
    assert not trace.notices


def test_resumes_and_kept_tails_add_no_turn_twice() -> None:
    """Every resume rewrites the history and each compression re-lists its kept tail (some under new ids):
    each message is one turn, in the order it was said."""
    trace = load_trace(SESSION)
    said = [s.text.split(":")[0] for s in trace.sources if s.kind == "user" and s.authority == "user"]
    assert said == ["First", "Second", "Third", "Fourth", "Fifth"]
    assert trace.extra["resumes"] == 4 and trace.extra["kept_messages"] == 4
    assert not any("Got it. Thanks" in s.text or "<state_snapshot>" in s.text for s in trace.sources)
    bootstrap = trace.sources[0]
    assert bootstrap.authority == "harness" and bootstrap.text.startswith("<session_context>")
    s1_covers = set(trace.generations[1].covers)
    third = next(s.key for s in trace.sources if s.text.startswith("Third"))
    fourth = next(s.key for s in trace.sources if s.text.startswith("Fourth"))
    assert third in s1_covers and fourth not in s1_covers


def test_tool_call_and_its_result_once() -> None:
    """The result is in the call's record and again as a functionResponse message: one result turn."""
    trace = load_trace(SESSION)
    calls = [s for s in trace.sources if s.kind == "tool_call"]
    results = [s for s in trace.sources if s.kind == "tool_result"]
    assert len(calls) == len(results) == 2
    assert results[0].key == f"{calls[0].key}:result" and results[0].text.startswith("Directory listing for")


def test_check_exits_0_or_1() -> None:
    result = subprocess.run([sys.executable, "-m", "inspector", "check", str(SESSION)], capture_output=True,
                            text=True, cwd=REPO, timeout=120)  # fmt: skip
    assert result.returncode in (0, 1), result.stderr
    assert "[gemini-cli]  3 generations" in result.stdout


def test_a_lost_user_statement_and_a_kept_one() -> None:
    """"Never delete files" is not in either snapshot: lost. "Use argparse, not click" is: no finding."""
    lost = [f for f in analyze(load_trace(SESSION)).findings if f.rule == "user-statement-lost"]
    assert [f.generation for f in lost if "never delete files" in f.message] == [1, 2]
    assert not [f for f in analyze(load_trace(SESSION)).findings if "argparse" in f.message]


# --- record forms the fixture does not show -------------------------------------------------------


def test_rewind_drops_the_message_and_all_after_it(tmp_path: Path) -> None:
    lines = records()[:14]  # up to the second reply
    second = next(r["id"] for r in lines if "Second:" in json.dumps(r.get("content")))
    path = write(tmp_path / "session.jsonl", [*lines, {"$rewindTo": second},
                 {"id": "u9", "timestamp": "t", "type": "user", "content": [{"text": "Second, again: use Go."}]}])
    assert user_texts(path) == ["First: list the build steps. Remember my constraint: never delete files.",
                                "Second, again: use Go."]  # fmt: skip
    assert [e.kind for e in load_trace(path).events] == ["rewind"]


def test_legacy_json_document_loads_and_says_compressions_are_not_in_it() -> None:
    """0.20.2 rewrote one pretty-printed document; its two compressions (runs 3 and 4) left no trace in it."""
    assert detect_format(LEGACY) == "gemini-cli"
    trace = load_trace(LEGACY)
    assert trace.id == "fcbc0759-0b84-4079-b9e6-9ffed3ea8b36" and trace.extra["legacy_json"] is True
    assert len(trace.generations) == 1
    said = [s.text.split(":")[0] for s in trace.sources if s.kind == "user" and s.authority == "user"]
    assert said == ["First", "Second", "Third", "Fourth", "Fifth"]
    assert [s.kind for s in trace.sources].count("tool_result") == 2  # results only inside the calls here
    assert [(n.rule, n.severity.value) for n in trace.notices] == [("compactions-not-recorded", "info")]
    assert [f.rule for f in analyze(trace).findings] == ["compactions-not-recorded"]


def test_ui_messages_and_slash_commands_are_not_user_statements(tmp_path: Path) -> None:
    path = write(tmp_path / "session.jsonl", [
        records()[0],
        {"id": "a", "timestamp": "t", "type": "user", "content": [{"text": "/compress"}]},
        {"id": "b", "timestamp": "t", "type": "info", "content": "Chat history compressed."},
        {"id": "c", "timestamp": "t", "type": "user", "content": [{"text": "Keep it short."}],
         "displayContent": [{"text": "Keep it short."}]},
    ])  # fmt: skip
    trace = load_trace(path)
    assert [(s.authority, s.text) for s in trace.sources] == [("harness", "/compress"), ("user", "Keep it short.")]
    assert trace.extra["ui_messages"] == 1


# --- what each field of a record says, on the fixture's own records ----------------------------------------


def typed(text: str, message_id: str = "u-typed") -> dict[str, Any]:
    """A user message as the CLI writes one (the fixture's "First…" line, with other words)."""
    first = records()[2]
    return {**first, "id": message_id, "content": [{"text": text}]}


def test_a_compression_after_compress_is_manual_and_the_next_one_auto(tmp_path: Path) -> None:
    """The fixture's first compression (line 25), with the user's /compress just before it: S1 was asked for,
    S2 (line 40, no /compress since) was the CLI's own. The last thing the user typed decides, not the first."""
    lines = records()
    path = write(tmp_path / "session.jsonl", [*lines[:24], typed("/compress"), *lines[24:]])
    trace = load_trace(path)
    assert [g.trigger for g in trace.generations[1:]] == ["manual", "auto"]
    assert [(s.authority, s.text) for s in trace.sources if s.text == "/compress"] == [("harness", "/compress")]


def test_a_compress_the_cli_did_not_act_on_leaves_the_next_compression_auto(tmp_path: Path) -> None:
    """/compress typed before "Third…" (too little to compress: no history rewrite follows it), then the user
    went on; the compression at line 25 came from the token limit, after the user's later words."""
    lines = records()
    path = write(tmp_path / "session.jsonl", [*lines[:18], typed("/compress"), *lines[18:]])
    assert [g.trigger for g in load_trace(path).generations[1:]] == ["auto", "auto"]


def test_a_cancelled_call_is_a_failure_and_a_successful_one_is_not(tmp_path: Path) -> None:
    lines = records()
    call = lines[22]["toolCalls"][0]
    assert call["status"] == "success"
    assert load_trace(SESSION).source(f"{call['id']}:result").kind == "tool_result"  # type: ignore[union-attr]
    for status in ("cancelled", "error"):
        changed = [*lines[:22], {**lines[22], "toolCalls": [{**call, "status": status}]}, *lines[23:]]
        result = load_trace(write(tmp_path / f"{status}.jsonl", changed)).source(f"{call['id']}:result")
        assert result is not None and result.kind == "tool_error", status


def test_what_the_user_typed_is_read_rather_than_what_the_cli_expanded(tmp_path: Path) -> None:
    """An @file reference: `content` holds the file the CLI read in, `displayContent` the words typed."""
    lines = records()
    third = lines[18]
    expanded = {**third, "content": [{"text": "Third: add a --verbose flag to @cli.py."},
                                     {"text": "--- cli.py ---\nimport click\n"}],
                "displayContent": [{"text": "Third: add a --verbose flag to @cli.py."}]}  # fmt: skip
    trace = load_trace(write(tmp_path / "session.jsonl", [*lines[:18], expanded, *lines[19:]]))
    assert [s.text for s in trace.sources if s.key == third["id"]] == ["Third: add a --verbose flag to @cli.py."]
    blank = {**expanded, "displayContent": [{"text": "  "}]}  # nothing shown: the content is what was said
    trace = load_trace(write(tmp_path / "blank.jsonl", [*lines[:18], blank, *lines[19:]]))
    assert trace.source(third["id"]).text.endswith("import click\n")  # type: ignore[union-attr]


# --- bad input ------------------------------------------------------------------------------------------


def test_truncated_copy_loads_with_a_torn_last_line(tmp_path: Path) -> None:
    data = SESSION.read_bytes()
    cut = data[: data.index(b"\n", len(data) // 2) + 40]
    path = tmp_path / "session-torn.jsonl"
    path.write_bytes(cut)
    trace = load_trace(path)
    assert [n.rule for n in trace.notices] == ["torn-last-line"]
    assert len(trace.generations) == 2


def test_garbled_copy_raises_one_line_or_loads_with_notices(tmp_path: Path) -> None:
    path = tmp_path / "session-garbled.jsonl"
    path.write_bytes(bytes(b ^ 0x5A for b in SESSION.read_bytes()))
    with pytest.raises(TraceReadError) as error:
        load_trace(path, format="gemini-cli")
    assert "\n" not in str(error.value) and str(error.value).startswith(str(path))
    damaged = tmp_path / "session-damaged.jsonl"
    lines = SESSION.read_bytes().splitlines(keepends=True)
    halved = [line[: len(line) // 2] + b"\n" if i % 5 == 3 else line for i, line in enumerate(lines)]
    damaged.write_bytes(b"".join(halved))
    trace = load_trace(damaged)
    assert {n.rule for n in trace.notices} == {"malformed-line"}


_leaf = st.none() | st.booleans() | st.integers(-2, 2) | st.sampled_from(
    ["m1", "", "user", "gemini", "Got it. Thanks for the additional context!", "error", "<session_context>"])
_value = st.recursive(_leaf, lambda c: st.lists(c, max_size=3) | st.dictionaries(
    st.sampled_from(["id", "type", "text", "content", "toolCalls", "functionCall", "functionResponse", "response",
                     "output", "result", "status", "args", "name", "tokens", "input", "thought"]), c, max_size=3),
    max_leaves=8)  # fmt: skip
_message = st.fixed_dictionaries(
    {"id": st.sampled_from(["m1", "m2", "m3"]) | _value, "type": st.sampled_from(["user", "gemini", "info"]) | _value},
    optional={"content": _value, "toolCalls": _value, "tokens": _value, "displayContent": _value},
)  # fmt: skip
_record = st.one_of(
    _message,
    st.fixed_dictionaries({"$set": st.fixed_dictionaries({}, optional={"messages": st.lists(_message, max_size=4)
                                                          | _value, "summary": _value})}),
    st.fixed_dictionaries({"$rewindTo": st.sampled_from(["m1", "m2", "m9"]) | _value}),
    st.fixed_dictionaries({"sessionId": st.just("s"), "projectHash": st.just("p")}, optional={"messages": _value}),
)  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(lines=st.lists(_record, max_size=6), tail=st.sampled_from([b"", b"\n", b"\n{torn", b"\n[1]\n"]))
def test_reader_raises_only_trace_read_error(lines: list[dict[str, Any]], tail: bytes) -> None:
    read_raises_only_its_error(gemini_cli.read, lines, tail, "session.jsonl")


# --- recognition ----------------------------------------------------------------------------------------


def detected(path: Path) -> str | None:
    """The format auto-detection names, or None for a file beside a fixture that is no trace (a tool's config)."""
    try:
        return detect_format(path)
    except TraceReadError:
        return None


def test_sniff_takes_gemini_sessions_only() -> None:
    others = [p for p in FIXTURES.glob("*/*") if p.suffix in (".jsonl", ".json", ".db") and p.parent != SESSION.parent]
    assert len(others) >= 2
    assert all(not gemini_cli.sniff(p.read_bytes()[:65536]) for p in others)
    assert all(detected(p) != "gemini-cli" for p in others)
    others_accepting = [r.name for r in readers() if r.name != "gemini-cli"
                        and (r.sniff(SESSION.read_bytes()[:65536]) or (r.claims is not None and r.claims(SESSION)))]
    assert others_accepting == []
