"""OpenAI Responses API logs: opaque compaction items, automatic and on demand, the re-sent history read once."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.analysis import analyze
from inspector.readers import load_trace, openai_responses
from tests.helpers import read_raises_only_its_error
from tests.sniffing import assert_exclusive

LOG = Path(__file__).parent / "fixtures" / "openai_responses" / "responses.jsonl"
NEVER = "Never run migrations against production; staging only."


def response(number: int, *output: dict[str, Any], kind: str = "response") -> dict[str, Any]:
    return {"id": f"resp_{number}", "object": kind, "output": list(output)}


def said(role: str, words: str) -> dict[str, Any]:
    part = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": part, "text": words, "annotations": None}]}


def write(path: Path, lines: list[Any]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in lines))
    return path


# --- the fixture: the openai SDK's own request bodies and parsed responses (make.py) --------------------


def test_fixture_has_two_opaque_compactions() -> None:
    trace = load_trace(LOG)
    assert trace.format == "openai-responses" and len(trace.generations) == 3
    s1, s2 = trace.generations[1:]
    assert s1.text is None and s1.trigger == "auto" and s1.extra["compact_threshold"] == 40000
    assert s2.text is None and s2.trigger == "manual" and s2.tokens_before == 15600
    assert s2.extra["kept_user_messages"] == 4
    assert [(n.rule, n.generation) for n in trace.notices] == [("summary-unavailable", 1), ("summary-unavailable", 2)]
    assert all("encrypted compaction item" in n.message for n in trace.notices)


def test_the_resent_history_and_the_compacted_output_are_read_once() -> None:
    trace = load_trace(LOG)
    users = [s.text for s in trace.sources if s.kind == "user"]
    assert users[0] == "This is the invoicing service. " + NEVER and users[-1] == "What is left?"
    assert len(users) == len(set(users)) == 5
    assert trace.extra["history_rewrites"] == 0 and trace.extra["calls"] == 9
    frozen = next(s.key for s in trace.sources if s.text.startswith("Deploys are frozen"))
    assert frozen in trace.generations[1].covers and "msg_05" not in trace.generations[1].covers


def test_opaque_summaries_lose_nothing_the_log_can_show() -> None:
    """The summary is encrypted: no user statement is reported lost or kept, each is unknown from S1 on."""
    analysis = analyze(load_trace(LOG))
    assert not [f for f in analysis.findings if f.rule.startswith("user-statement")]
    never = next(t for t in analysis.facts.invariants if NEVER in t.invariant.text)
    assert [s.value for s in never.statuses] == ["verbatim", "unknown", "unknown"]


def test_check_exits_with_a_verdict() -> None:
    result = subprocess.run([sys.executable, "-m", "inspector", "check", str(LOG)], capture_output=True, text=True,
                            timeout=120)  # fmt: skip
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr


def test_sniffing_is_exclusive() -> None:
    assert_exclusive("openai-responses", [LOG])


# --- shapes --------------------------------------------------------------------------------------------


def test_string_input_tool_calls_and_a_compaction_trigger(tmp_path: Path) -> None:
    call = {"type": "function_call", "call_id": "c1", "name": "shell", "arguments": '{"command": "make"}'}
    path = write(tmp_path / "log.jsonl", [
        {"request": {"model": "m", "input": "Build it."}, "response": response(1, call)},
        {"request": {"model": "m", "input": [{"role": "user", "content": "Build it."}, call,
                                             {"type": "function_call_output", "call_id": "c1", "output": "ok"},
                                             {"type": "compaction_trigger"}]},
         "response": response(2, {"type": "compaction", "encrypted_content": "x"}, said("assistant", "Done."))},
    ])  # fmt: skip
    trace = load_trace(path)
    assert [s.text for s in trace.sources if s.namespace == "transcript"] == ["Build it.", "command: make", "ok",
                                                                               "Done."]  # fmt: skip
    assert len(trace.generations) == 2 and trace.generations[1].trigger is None
    assert [e.kind for e in trace.events] == ["compaction-requested"]


def test_bare_responses_and_lines_of_neither(tmp_path: Path) -> None:
    path = write(tmp_path / "log.jsonl", [response(1, said("assistant", "Hi.")), {"x": 1},
                                          response(2, {"type": "telepathy"})])  # fmt: skip
    trace = load_trace(path)
    assert trace.extra["unknown_types"] == {"(no request or response)": 1, "item telepathy": 1}


# --- bad input -----------------------------------------------------------------------------------------


def test_truncated_and_garbled_copies(tmp_path: Path) -> None:
    data = LOG.read_bytes()
    torn = tmp_path / "torn.jsonl"
    torn.write_bytes(data[: len(data) - 300])
    assert "torn-last-line" in {n.rule for n in load_trace(torn).notices}
    garbled = tmp_path / "garbled.jsonl"
    lines = data.split(b"\n")
    lines[2] = b"{" + lines[2][30:]
    garbled.write_bytes(b"\n".join(lines))
    assert "malformed-line" in {n.rule for n in load_trace(garbled).notices}


_leaf = st.none() | st.booleans() | st.integers(-2, 2) | st.sampled_from(["x", "", "compaction", "c1", "{}"])
_value = st.recursive(_leaf, lambda c: st.lists(c, max_size=3) | st.dictionaries(
    st.sampled_from(["type", "text", "content", "encrypted_content", "id", "call_id", "arguments", "output",
                     "role", "usage", "input_tokens", "compact_threshold", "status", "name"]), c, max_size=3),
    max_leaves=8)  # fmt: skip
_item = st.fixed_dictionaries(
    {"type": st.sampled_from(["message", "function_call", "function_call_output", "compaction",
                              "compaction_trigger", "reasoning", "zzz"]) | _value},
    optional={k: _value for k in ("role", "content", "encrypted_content", "id", "call_id", "arguments", "output",
                                  "status", "name")},
)  # fmt: skip
_answer = st.fixed_dictionaries(
    {"object": st.sampled_from(["response", "response.compaction"]), "output": st.lists(_item, max_size=4)},
    optional={"id": _value, "usage": _value, "model": _value},
)
_line = st.fixed_dictionaries({}, optional={
    "request": st.fixed_dictionaries({"input": st.lists(_item, max_size=4) | _value},
                                     optional={"context_management": _value}) | _value,
    "response": _answer | _value,
}) | _answer  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(lines=st.lists(_line, max_size=6), tail=st.sampled_from([b"", b"\n", b"\n{torn", b"\n[1]\n"]))
def test_reader_raises_only_trace_read_error(lines: list[dict[str, Any]], tail: bytes) -> None:
    read_raises_only_its_error(openai_responses.read, lines, tail, "calls.jsonl")
