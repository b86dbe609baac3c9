"""Codex reader: the real rollout fixture, every way a compacted line carries (or hides) its summary."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.analysis import analyze
from inspector.errors import TraceReadError
from inspector.model import Severity, Trace
from inspector.readers import codex, codex_records, detect_format, load_trace, native
from inspector.report import to_json
from tests.helpers import REAL_TRACES, needs_shared, read_raises_only_its_error, require_shared

REAL_CODEX = REAL_TRACES / "codex_v0.146_schema_fixture_agent-sessions.jsonl"
STORY = Path(__file__).parent / "fixtures" / "codex" / "three_compactions.jsonl"
CLAUDE_STORY = Path(__file__).parent / "fixtures" / "claude_code" / "three_compactions.jsonl"
PREFIX = "Another language model started to solve this problem"


def line(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": "2025-10-02T08:00:00.000Z", "type": kind, "payload": payload}


def message(role: str, text: str) -> dict[str, Any]:
    block = "output_text" if role == "assistant" else "input_text"
    return line("response_item", {"type": "message", "role": role, "content": [{"type": block, "text": text}]})


def write(path: Path, records: list[dict[str, Any] | str]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return path


def meta(session: str = "rollout-1") -> dict[str, Any]:
    return line("session_meta", {"id": session, "cwd": "/repo", "cli_version": "0.46.0"})


# --- the real fixture -------------------------------------------------------------------------------


@needs_shared(REAL_CODEX)
def test_real_rollout_has_six_compactions_five_unavailable() -> None:
    assert detect_format(REAL_CODEX) == "codex"
    trace = load_trace(REAL_CODEX)
    assert trace.format == "codex" and trace.id == "019fc8be-3658-7ca3-9e29-000000000000"
    assert len(trace.generations) == 7
    unavailable = [n for n in trace.notices if n.rule == "summary-unavailable"]
    assert len(unavailable) == 5
    assert all(n.severity is Severity.INFO for n in unavailable)
    assert [n.generation for n in unavailable] == [2, 3, 4, 5, 6]
    assert [g.extra["line"] for g in trace.generations[1:]] == [26, 47, 69, 81, 89, 111]
    # Line 26: empty message, no encrypted item; its summary is the user message in the new history.
    s1 = trace.generations[1]
    assert s1.text is not None and s1.text.startswith("[trimmed for fixture]")
    assert s1.extra["summary_source"] == "replacement_history"
    assert s1.tokens_before == 16422
    assert [g.text for g in trace.generations[2:]] == [None] * 5
    assert all("encrypted" in g.extra["unavailable_reason"] for g in trace.generations[2:])


@needs_shared(REAL_CODEX)
def test_real_rollout_counts_drift_without_failing() -> None:
    trace = load_trace(REAL_CODEX)
    assert trace.extra["session_meta"] == 7
    assert trace.extra["malformed_lines"] == 0
    assert not [n for n in trace.notices if n.severity is Severity.WARNING]
    assert trace.invariants is None


# --- compaction shapes ------------------------------------------------------------------------------


def test_three_compaction_shapes() -> None:
    trace = load_trace(STORY)
    assert trace.title == "Checkout discount fix"
    s0, s1, s2, s3 = trace.generations
    assert s1.text is not None and s1.text.startswith("Task: fix the checkout total in src/checkout.py.")
    assert "summary_source" not in s1.extra  # payload.message
    assert s2.text is not None and s2.text.startswith(PREFIX) and "The checkout fix is committed." in s2.text
    assert s2.extra["summary_source"] == "replacement_history"
    assert s3.text is None and s3.extra["window_id"] == "w-3"
    assert [(n.rule, n.generation) for n in trace.notices] == [("summary-unavailable", 3)]
    assert "encrypted" in trace.notices[0].message


def test_token_counts_come_from_the_nearest_token_count_events() -> None:
    trace = load_trace(STORY)
    assert [(g.tokens_before, g.tokens_after) for g in trace.generations[1:]] == [
        (182_000, 12_000), (150_000, 9_000), (140_000, 7_000)]  # fmt: skip


def test_turns_tools_and_derived_records() -> None:
    trace = load_trace(STORY)
    users = [(s.authority, s.text[:22]) for s in trace.sources if s.kind == "user"]
    assert users[0] == ("harness", "<environment_context>\n")  # injected by the harness
    assert ("user", "Fix the checkout total") in users
    assert not any("You are Codex." in s.text for s in trace.sources)  # developer prompt: not a turn
    assert not any(s.text.startswith(PREFIX) for s in trace.sources)
    by_key = {(s.namespace, s.key): s for s in trace.sources}
    assert by_key[("transcript", "call_2:output")].kind == "tool_error"
    assert by_key[("transcript", "call_1:output")].kind == "tool_result"
    assert by_key[("file", "src/checkout.py")].text == "read src/checkout.py; edit src/checkout.py"
    commit = by_key[("command", "git commit -am 'Apply discounts in checkout total'")]
    assert commit.kind == "completed-action" and commit.text.endswith("(succeeded)")
    assert by_key[("command", "pytest tests/test_checkout.py -q")].text.endswith("(failed)")
    s0 = trace.generations[0].text or ""
    assert "\ntool_call shell: pytest tests/test_checkout.py -q\n" in s0 and "CHANGELOG" not in s0


def test_covers_grow_with_each_compaction() -> None:
    trace = load_trace(STORY)
    covers = [set(g.covers) for g in trace.generations]
    assert covers[0] == covers[1] and covers[1] < covers[2] < covers[3]
    assert "call_4" in covers[2] and "call_4" not in covers[1]


def test_compacted_without_any_summary_is_unavailable(tmp_path: Path) -> None:
    path = write(tmp_path / "rollout.jsonl", [
        meta(), message("user", "Hi."),
        line("compacted", {"message": "", "replacement_history": []}),
        line("compacted", {"message": "Plain summary."}),
    ])  # fmt: skip
    trace = load_trace(path)
    assert [g.text for g in trace.generations] == ["user: Hi.", None, "Plain summary."]
    assert [(n.rule, n.generation) for n in trace.notices] == [("summary-unavailable", 1)]
    assert "no summary text" in trace.notices[0].message


def test_exit_codes_in_plain_text_output(tmp_path: Path) -> None:
    path = write(tmp_path / "rollout.jsonl", [
        meta(),
        line("response_item", {"type": "function_call", "name": "shell", "call_id": "c1",
                               "arguments": json.dumps({"command": ["bash", "-lc", "make deploy"]})}),
        line("response_item", {"type": "function_call_output", "call_id": "c1",
                               "output": "Exit code: 2\nWall time: 0.4 seconds\nOutput:\nmake: *** [deploy] Error 2"}),
    ])  # fmt: skip
    trace = load_trace(path)
    assert trace.source("c1:output").kind == "tool_error"
    deploy = next(s for s in trace.sources if s.namespace == "command")
    assert deploy.kind == "command" and deploy.text == "make deploy (failed)"  # a failed deploy is not done


# --- how a command's failure is read, field by field ---------------------------------------------------


def story_lines(keep: Any = lambda record: True) -> list[dict[str, Any]]:
    return [r for r in map(json.loads, STORY.read_text().splitlines()) if keep(r)]


def test_the_exit_code_in_a_json_output_alone_says_a_command_failed(tmp_path: Path) -> None:
    """A rollout whose exec_command_end events are not in it (older Codex wrote none): the output's own
    metadata.exit_code is then all that says the test run failed, and the commits succeeded."""
    no_events = story_lines(lambda r: r["payload"].get("type") != "exec_command_end")
    trace = load_trace(write(tmp_path / "rollout.jsonl", no_events))  # type: ignore[arg-type]
    kinds = {s.key: s.kind for s in trace.sources if s.key.endswith(":output")}
    assert kinds == {"call_1:output": "tool_result", "call_2:output": "tool_error", "call_3:output": "tool_result",
                     "call_4:output": "tool_result"}  # fmt: skip
    assert trace.source("call_1:output").text.startswith("def total(items):")  # the JSON's `output`, not the JSON


def test_the_exit_code_event_alone_says_a_command_failed(tmp_path: Path) -> None:
    """The other way round: the outputs' metadata gone, exec_command_end's exit_code decides."""
    def plain(record: dict[str, Any]) -> dict[str, Any]:
        payload = record["payload"]
        if payload.get("type") == "function_call_output":
            payload["output"] = json.loads(payload["output"])["output"]
        return record

    trace = load_trace(write(tmp_path / "rollout.jsonl", [plain(r) for r in story_lines()]))
    assert trace.source("call_2:output").kind == "tool_error" and trace.source("call_1:output").kind == "tool_result"


@pytest.mark.parametrize(("output", "failed"), [
    ("Exit code: 2\nWall time: 0.4 seconds\nOutput:\nboom", True),
    ("Exit code: -1\nOutput:\nkilled", True),  # a negative code (a signal, a timeout) is no success
    ("Exit code: 0\nOutput:\nok", False),
    ("Process exited with code 1\nOutput:\nboom", True),  # the unified exec tool's wording
    ("Process exited with code 0\nOutput:\nok", False),
    ("The exit code: 1 is quoted here, not reported", False),  # only an output that opens with it
    (json.dumps({"output": "boom", "metadata": {"exit_code": -9}}), True),
    (json.dumps({"output": "ok", "metadata": {"exit_code": 0}}), False),
    (json.dumps({"output": "refused", "success": False}), True),
    (json.dumps({"output": "no metadata"}), False),
], ids=["exit-2", "exit-minus-1", "exit-0", "process-1", "process-0", "quoted", "json-minus-9", "json-0",
        "json-success-false", "json-no-metadata"])  # fmt: skip
def test_each_way_an_output_reports_its_exit_code(tmp_path: Path, output: str, failed: bool) -> None:
    path = write(tmp_path / "rollout.jsonl", [
        meta(), message("user", "Run it."),
        line("response_item", {"type": "function_call", "name": "shell", "call_id": "c1",
                               "arguments": json.dumps({"command": ["make"]})}),
        line("response_item", {"type": "function_call_output", "call_id": "c1", "output": output}),
    ])  # fmt: skip
    result = load_trace(path).source("c1:output")
    assert result is not None and result.kind == ("tool_error" if failed else "tool_result")
    if output.startswith("{"):  # the JSON's own `output` is the text
        assert result.text.endswith(json.loads(output)["output"])


def test_the_older_compaction_summary_item_is_opaque_too(tmp_path: Path) -> None:
    """Codex named the encrypted item `compaction_summary` before `compaction`: either hides the summary."""
    def renamed(record: dict[str, Any]) -> dict[str, Any]:
        for item in record["payload"].get("replacement_history") or ():
            if item.get("type") == "compaction":
                item["type"] = "compaction_summary"
        return record

    trace = load_trace(write(tmp_path / "rollout.jsonl", [renamed(r) for r in story_lines()]))
    assert [g.text is None for g in trace.generations] == [False, False, False, True]
    assert [(n.rule, n.generation) for n in trace.notices] == [("summary-unavailable", 3)]


# --- typed and exact decoding -----------------------------------------------------------------------


def exact(path: Path) -> Trace:
    """The trace read with the typed decoder refusing every line: each one takes the exact dict path."""
    with mock.patch.object(codex, "decode_fast", lambda raw: None):
        return codex.read(path)


def everything(trace: Trace) -> tuple[Any, ...]:
    """All a trace holds, the fields equality leaves out (`extra`) included."""
    return (trace.id, trace.title, trace.sources, [s.extra for s in trace.sources], trace.generations,
            [g.extra for g in trace.generations], trace.events, trace.notices, trace.extra)  # fmt: skip


@pytest.mark.parametrize("session", [STORY, REAL_CODEX], ids=["story", "real"])
def test_typed_and_exact_decoding_read_the_same_session(session: Path) -> None:
    """Every line of these sessions takes the typed decoder; read again with each line on the exact dict path,
    the turns, summaries, notices and counts must be the same."""
    require_shared(session)
    lines = [raw for raw in session.read_bytes().splitlines(keepends=True) if raw.strip()]
    assert all(codex_records.decode_fast(raw) is not None for raw in lines)
    typed = codex.read(session)
    assert len(typed.sources) > 10
    assert everything(exact(session)) == everything(typed)


def test_outcomes_tokens_and_ids_are_read_on_both_paths(tmp_path: Path) -> None:
    """What the typed records declare is all the reader reads: exit codes, failures, token counts, ids."""
    call = lambda i: line("response_item", {"type": "function_call", "name": "shell", "call_id": f"c{i}",  # noqa: E731
                                            "arguments": json.dumps({"command": ["make", str(i)]})})  # fmt: skip
    path = write(tmp_path / "rollout.jsonl", [
        line("session_meta", {"session_id": "s-1", "cwd": "/repo", "cli_version": "0.46.0",
                              "base_instructions": {"text": "long"}}),
        line("session_meta", {"id": None, "session_id": "s-2"}),  # a null id is no id: `session_id` is not read
        message("user", "Build it."),
        call(1), line("response_item", {"type": "function_call_output", "call_id": "c1", "output": "built"}),
        line("event_msg", {"type": "exec_command_end", "call_id": "c1", "exit_code": 2, "stdout": "boom",
                           "parsed_cmd": [{"type": "read", "path": "src/a.py"}]}),
        call(2), line("response_item", {"type": "custom_tool_call_output", "call_id": "c2", "output": None,
                                        "tools": ["not", "the", "output"]}),
        line("event_msg", {"type": "patch_apply_end", "call_id": "c2", "success": False,
                           "changes": {"src/b.py": {"add": {}}}}),
        call(3), line("response_item", {"type": "tool_search_output", "call_id": "c3", "tools": "listed"}),
        line("event_msg", {"type": "mcp_tool_call_end", "call_id": "c3", "result": {"Ok": {"isError": True}}}),
        call(4), line("event_msg", {"type": "exec_command_end", "call_id": "c4", "stdout": "no exit code"}),
        line("response_item", {"type": "reasoning", "summary": [], "encrypted_content": "gAAAA"}),
        line("event_msg", {"type": "token_count", "info": {"last_token_usage": {"total_tokens": 5000}},
                           "rate_limits": {"primary": {"used_percent": 1.0}}}),
        line("compacted", {"message": "Summary.", "window_id": "w-1"}),
        line("event_msg", {"type": "token_count", "info": {"last_token_usage": {"total_tokens": 700}}}),
        line("event_msg", {"type": "thread_name_updated", "thread_name": "Build"}),
        line("turn_context", {"cwd": "/repo", "user_instructions": "long"}),
    ])  # fmt: skip
    typed = codex.read(path)
    assert everything(exact(path)) == everything(typed)
    by_key = {s.key: s for s in typed.sources}
    assert (typed.id, typed.title, typed.extra["session_meta"]) == ("s-1", "Build", 1)
    assert [by_key[f"c{i}:output"].kind for i in (1, 2, 3)] == ["tool_error"] * 3
    assert by_key["c2:output"].text == "shell failed: make 2\n"  # a null `output` is an empty one, not `tools`
    assert by_key["c3:output"].text == "shell failed: make 3\nlisted"
    assert by_key["src/a.py"].text == "read src/a.py" and by_key["src/b.py"].text == "edit src/b.py"
    assert by_key["make 4"].text == "make 4 (no result)"  # no exit code: the event says nothing of how it ended
    assert [(g.tokens_before, g.tokens_after) for g in typed.generations[1:]] == [(5000, 700)]
    assert typed.generations[1].extra["window_id"] == "w-1"


def test_unknown_and_odd_lines_are_counted_alike_on_both_paths(tmp_path: Path) -> None:
    """The typed decoder refuses what it does not know; the exact path names it as the reader always has."""
    path = write(tmp_path / "rollout.jsonl", [
        meta(), message("user", "One."),
        line("telepathy", {"x": 1}), line("event_msg", {"type": "mind_meld"}),
        line("response_item", {"type": "hologram"}), line("response_item", {"role": "user"}),
        line("turn_context", [1]), {"type": "event_msg", "payload": None}, {"type": 7, "payload": {}},
        {"type": "world_state"}, "[1, 2]", "{oops",
        # Known types with values of odd types: read (and ignored where odd), never counted as unknown.
        line("event_msg", {"type": "token_count", "info": [1]}), line("session_meta", {"id": 5, "cwd": ["/"]}),
        line("event_msg", {"type": "exec_command_end", "call_id": 3, "exit_code": "1", "parsed_cmd": "cat"}),
        line("response_item", {"type": "function_call_output", "call_id": None, "output": {"text": 1}}),
        line("compacted", {"message": 5, "replacement_history": {"type": "message"}}),
        message("assistant", "Two."),
    ])  # fmt: skip
    typed = codex.read(path)
    assert everything(exact(path)) == everything(typed)
    assert [s.text for s in typed.sources] == ["One.", '{"text":1}', "Two."]
    assert typed.extra["unknown_types"] == {
        "telepathy": 1, "event_msg mind_meld": 1, "response_item hologram": 1, "response_item None": 1,
        "turn_context (no payload)": 1, "event_msg (no payload)": 1, "(no type)": 1, "world_state (no payload)": 1,
    }  # fmt: skip
    assert [n.rule for n in typed.notices] == ["malformed-line", "malformed-line", "summary-unavailable",
                                               "records-set-aside"]  # fmt: skip
    assert typed.notices[-1].message == (
        "rollout.jsonl: 8 of 18 lines are not in the chain: 8 unknown type (telepathy, event_msg mind_meld, "
        "response_item hologram, …)")  # fmt: skip


# --- bad input ---------------------------------------------------------------------------------------


def test_malformed_line_and_unknown_types(tmp_path: Path) -> None:
    path = write(tmp_path / "rollout.jsonl", [
        meta(), message("user", "One."), "{oops", line("telepathy", {"x": 1}),
        line("event_msg", {"type": "mind_meld"}), message("assistant", "Two."),
    ])  # fmt: skip
    trace = load_trace(path)
    assert [s.text for s in trace.sources if s.namespace == "transcript"] == ["One.", "Two."]
    assert [(n.rule, n.message.startswith(f"{path}:3:")) for n in trace.notices] == [
        ("malformed-line", True), ("records-set-aside", False)]  # fmt: skip
    assert trace.extra["unknown_types"] == {"telepathy": 1, "event_msg mind_meld": 1}
    assert trace.notices[1].message == "rollout.jsonl: 2 of 6 lines are not in the chain: 2 unknown type (telepathy, " \
        "event_msg mind_meld)"


def test_zstd_rollout_loads(tmp_path: Path) -> None:
    packed = tmp_path / "rollout-2025-10-02.jsonl.zst"
    packed.write_bytes(zstandard.ZstdCompressor().compress(STORY.read_bytes()))
    trace = load_trace(packed)
    assert trace.format == "codex" and trace.generations == load_trace(STORY).generations


def test_empty_rollout_raises(tmp_path: Path) -> None:
    path = tmp_path / "rollout.jsonl"
    path.write_text("")
    with pytest.raises(TraceReadError, match="empty"):
        load_trace(path, format="codex")


def test_sniff_accepts_only_rollouts() -> None:
    assert codex.sniff(STORY.read_bytes())
    assert not codex.sniff(CLAUDE_STORY.read_bytes()[:65536])
    assert not codex.sniff(b'{"format":"compaction-trace/1","id":"x"}\n')


@pytest.mark.parametrize("source", [STORY, REAL_CODEX], ids=["story", "real"])
def test_round_trips_through_native(tmp_path: Path, source: Path) -> None:
    require_shared(source)
    trace = load_trace(source)
    copy = tmp_path / f"{source.stem}.jsonl"
    native.write(trace, copy)
    again = load_trace(copy)
    assert again.sources[: len(trace.sources)] == trace.sources and again.generations == trace.generations
    assert to_json(analyze(again))["generations"] == to_json(analyze(trace))["generations"]


# --- arbitrary payloads of the right shape: the reader itself raises nothing but TraceReadError --------

_leaf = st.none() | st.booleans() | st.integers(-2, 2) | st.sampled_from(["c1", "", "Exit code: 3", '{"output": 1}'])
_value = st.recursive(_leaf, lambda c: st.lists(c, max_size=3) | st.dictionaries(
    st.sampled_from(["type", "text", "role", "content", "output", "metadata", "exit_code", "total_tokens",
                     "last_token_usage", "encrypted_content", "command"]), c, max_size=3), max_leaves=8)  # fmt: skip
_payload = st.fixed_dictionaries(
    {"type": st.sampled_from(["message", "function_call", "function_call_output", "custom_tool_call",
                              "token_count", "exec_command_end", "patch_apply_end", "mcp_tool_call_end",
                              "agent_message", "zzz"]) | _value},
    optional={"role": st.sampled_from(["user", "assistant", "developer"]) | _value, "content": _value,
              "call_id": _value, "name": _value, "arguments": _value, "input": _value, "output": _value,
              "info": _value, "exit_code": _value, "parsed_cmd": _value, "changes": _value, "result": _value,
              "message": _value, "replacement_history": st.lists(_value, max_size=3) | _value},
)  # fmt: skip
_line = st.fixed_dictionaries(
    {"type": st.sampled_from(["session_meta", "response_item", "event_msg", "compacted"]) | _value,
     "payload": _payload | _value},
    optional={"timestamp": _value},
)  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(lines=st.lists(_line, max_size=6), tail=st.sampled_from([b"", b"\n", b"\n{torn", b"\n[1]\n"]))
def test_reader_raises_only_trace_read_error(lines: list[dict[str, Any]], tail: bytes) -> None:
    read_raises_only_its_error(codex.read, lines, tail, "rollout.jsonl")


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(lines=st.lists(_line, min_size=1, max_size=6))
def test_typed_and_exact_decoding_agree_on_any_payload(tmp_path_factory: pytest.TempPathFactory,
                                                      lines: list[dict[str, Any]]) -> None:  # fmt: skip
    """Whatever types a line's fields hold, the typed records read it as the exact dict path does."""
    path = write(tmp_path_factory.mktemp("typed") / "rollout.jsonl", lines)  # type: ignore[arg-type]
    try:
        typed = everything(codex.read(path))
    except TraceReadError as error:
        typed = str(error)
    try:
        assert everything(exact(path)) == typed
    except TraceReadError as error:
        assert str(error) == typed
