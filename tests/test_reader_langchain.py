"""LangChain reader: SummarizationMiddleware's history rewrite, from stream chunks and message dumps."""

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
from inspector.readers import langchain, load_trace
from tests.helpers import read_raises_only_its_error
from tests.sniffing import assert_exclusive

HERE = Path(__file__).parent / "fixtures" / "langchain"
VALUES, UPDATES, FINAL = HERE / "stream-values.jsonl", HERE / "stream-updates.jsonl", HERE / "messages-final.json"
PREFIX = "Here is a summary of the conversation to date:\n\n"
LOST = "Second: the project is called zeta-cli and it must support Python 3.9."
KEPT = "Remember my constraint: never delete files."


def lc(cls: str, **kwargs: Any) -> dict[str, Any]:
    """A message as `langchain_core.load.dumpd` writes it."""
    return {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", cls], "kwargs": kwargs}


def summary(text: str, message_id: str) -> dict[str, Any]:
    return lc("HumanMessage", content=PREFIX + text if text else "", additional_kwargs={"lc_source": "summarization"},
              type="human", id=message_id)  # fmt: skip


def write(path: Path, lines: list[Any]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in lines))
    return path


# --- the fixtures, written by langchain's own create_agent + SummarizationMiddleware (make.py) ---------


def test_values_stream_has_four_summaries() -> None:
    trace = load_trace(VALUES)
    assert trace.format == "langchain" and len(trace.generations) == 5
    assert [g.text for g in trace.generations[1:]] == [
        f"{PREFIX}SUMMARY #{k}: user builds zeta-cli; constraint: never delete files; use argparse."
        for k in range(1, 5)
    ]
    assert [g.extra["line"] for g in trace.generations[1:]] == [10, 15, 20, 25]
    assert all(g.extra["boilerplate"] == [[0, 46]] for g in trace.generations[1:])
    users = [s.text for s in trace.sources if s.kind == "user"]
    assert len(users) == 6 and users[0].startswith("First:") and users[-1].startswith("Sixth:")
    assert not trace.notices


def test_the_kept_tail_comes_after_the_summary_that_kept_it() -> None:
    trace = load_trace(VALUES)
    s1 = trace.generations[1]
    third = next(s.key for s in trace.sources if s.text.startswith("Third:"))
    second = next(s.key for s in trace.sources if s.text.startswith("Second:"))
    # Summary 1 replaced First…Second; the tail it kept (step 2's call and result, Third) is still verbatim.
    assert second in s1.covers and third not in s1.covers and "call_2" not in s1.covers
    assert third in trace.generations[2].covers
    assert s1.extra["kept_messages"] == 4 and s1.extra["cleared_history"] is False  # values: no RemoveMessage


def test_updates_stream_sees_only_what_the_nodes_wrote() -> None:
    trace = load_trace(UPDATES)
    assert len(trace.generations) == 5
    assert all(g.extra["cleared_history"] is True for g in trace.generations[1:])  # RemoveMessage(__remove_all__)
    # The graph input is no update: First and Second never appear, Third only when summary 1 re-lists it.
    users = [s.text.split(":")[0] for s in trace.sources if s.kind == "user"]
    assert users == ["Third", "Fourth", "Fifth", "Sixth"]
    assert trace.extra["unknown_types"] == {}


def test_a_final_message_list_holds_only_the_last_summary() -> None:
    trace = load_trace(FINAL)
    assert len(trace.generations) == 2 and (trace.generations[1].text or "").startswith(PREFIX + "SUMMARY #4")
    assert trace.id == "messages-final"


def test_lost_and_kept_user_statements() -> None:
    findings = analyze(load_trace(VALUES)).findings
    lost = [f for f in findings if f.rule == "user-statement-lost"]
    assert [f.generation for f in lost] == [1, 2, 3, 4] and all(LOST in f.message for f in lost)
    assert not [f for f in findings if KEPT in f.message]


@pytest.mark.parametrize("path", [VALUES, UPDATES, FINAL])
def test_check_exits_with_a_verdict(path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "inspector", "check", str(path)], capture_output=True,
                            text=True, timeout=120)  # fmt: skip
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr


def test_sniffing_is_exclusive() -> None:
    assert_exclusive("langchain", [VALUES, UPDATES, FINAL])


# --- shapes -----------------------------------------------------------------------------------------


def test_messages_to_dict_shape_and_tool_errors(tmp_path: Path) -> None:
    messages = [
        {"type": "system", "data": {"content": "You are terse.", "id": "s"}},
        {"type": "human", "data": {"content": "Deploy, but never on Fridays.", "id": "h1"}},
        {"type": "ai", "data": {"content": "", "id": "a1", "tool_calls": [
            {"name": "shell", "args": {"command": "make deploy"}, "id": "c1", "type": "tool_call"}]}},
        {"type": "tool", "data": {"content": "boom", "id": "t1", "tool_call_id": "c1", "status": "error"}},
        {"type": "human", "data": {"content": PREFIX + "Deploy failed.", "id": "sum",
                                   "additional_kwargs": {"lc_source": "summarization"}}},
    ]  # fmt: skip
    path = tmp_path / "dump.json"
    path.write_text(json.dumps(messages, indent=2))
    trace = load_trace(path)
    assert trace.format == "langchain" and [g.text for g in trace.generations[1:]] == [PREFIX + "Deploy failed."]
    assert trace.source("t1").kind == "tool_error" and trace.extra["system_messages"] == 1
    assert trace.generations[1].extra["where"] == "message 5"


def test_a_summary_without_text_is_unavailable(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", [
        {"messages": [lc("HumanMessage", content="Hi.", id="h1")]},
        {"mw": {"messages": [lc("RemoveMessage", id="__remove_all__", content=""), summary("", "x")]}},
    ])  # fmt: skip
    trace = load_trace(path)
    assert [g.text for g in trace.generations] == ["user: Hi.", None]
    assert [(n.rule, n.generation) for n in trace.notices] == [("summary-unavailable", 1)]


# --- bad input ---------------------------------------------------------------------------------------


def test_truncated_and_garbled_copies(tmp_path: Path) -> None:
    data = VALUES.read_bytes()
    torn = tmp_path / "torn.jsonl"
    torn.write_bytes(data[: len(data) - 500])
    trace = load_trace(torn)
    assert [n.rule for n in trace.notices] == ["torn-last-line"] and len(trace.generations) == 5
    garbled = tmp_path / "garbled.jsonl"
    garbled.write_bytes(data.replace(b'"kwargs"', b'"kwargs', 3))
    assert {n.rule for n in load_trace(garbled).notices} == {"malformed-line"}
    cut = tmp_path / "cut.json"
    cut.write_bytes(FINAL.read_bytes()[:700])
    with pytest.raises(TraceReadError, match="invalid JSON"):
        load_trace(cut)


_leaf = st.none() | st.booleans() | st.integers(-2, 2) | st.sampled_from(["x", "", "__remove_all__", "summarization"])
_value = st.recursive(_leaf, lambda c: st.lists(c, max_size=3) | st.dictionaries(
    st.sampled_from(["type", "content", "id", "tool_calls", "tool_call_id", "status", "additional_kwargs",
                     "lc_source", "usage_metadata", "input_tokens", "args", "name", "text"]), c, max_size=3),
    max_leaves=8)  # fmt: skip
_CLASSES = ("HumanMessage", "AIMessage", "ToolMessage", "RemoveMessage", "SystemMessage", "Zap")
_FIELDS = ("content", "id", "tool_calls", "tool_call_id", "status", "additional_kwargs", "usage_metadata")
_message = st.fixed_dictionaries({
    "lc": st.just(1) | _value, "type": st.just("constructor") | _value,
    "id": st.sampled_from([["langchain", "schema", "messages", c] for c in _CLASSES]) | _value,
    "kwargs": st.fixed_dictionaries({}, optional={k: _value for k in _FIELDS}) | _value,
}) | st.fixed_dictionaries({"type": st.sampled_from(["human", "ai", "tool"]) | _value, "data": _value})  # fmt: skip
_update = st.none() | st.fixed_dictionaries({"messages": st.lists(_message, max_size=4)})
_chunk = st.fixed_dictionaries({"messages": st.lists(_message, max_size=4) | _message | _value}) | st.dictionaries(
    st.sampled_from(["model", "tools", "mw"]), _update, max_size=2)  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(lines=st.lists(_chunk, max_size=6), tail=st.sampled_from([b"", b"\n", b"\n{torn", b"\n[1]\n"]))
def test_reader_raises_only_trace_read_error(lines: list[dict[str, Any]], tail: bytes) -> None:
    read_raises_only_its_error(langchain.read, lines, tail, "stream.jsonl")


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(messages=st.lists(_message | _value, max_size=6))
def test_documents_raise_only_trace_read_error(messages: list[Any]) -> None:
    read_raises_only_its_error(langchain.read, [messages], b"", "dump.json")
