"""Anthropic Messages API logs: compaction blocks in responses, the re-sent history read once."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.analysis import analyze
from inspector.readers import anthropic_api, load_trace
from tests.helpers import read_raises_only_its_error
from tests.sniffing import assert_exclusive

LOG = Path(__file__).parent / "fixtures" / "anthropic_api" / "messages.jsonl"
LOST = "Use the Decimal type for amounts, never float."
KEPT = "Never push directly to main; always open a pull request."
EDITS = {"edits": [{"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 50000}}]}


def response(number: int, *content: dict[str, Any]) -> dict[str, Any]:
    return {"id": f"msg_{number}", "type": "message", "role": "assistant", "content": list(content),
            "usage": {"input_tokens": 10, "output_tokens": 5}}  # fmt: skip


def text(words: str) -> dict[str, Any]:
    return {"type": "text", "text": words, "citations": None}


def call(messages: list[dict[str, Any]], answer: dict[str, Any]) -> dict[str, Any]:
    return {"request": {"model": "m", "max_tokens": 10, "context_management": EDITS, "messages": messages},
            "response": answer}  # fmt: skip


def write(path: Path, lines: list[Any]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in lines))
    return path


# --- the fixture: the anthropic SDK's own request bodies and parsed responses (make.py) ------------------


def test_fixture_has_a_readable_and_an_encrypted_compaction() -> None:
    trace = load_trace(LOG)
    assert trace.format == "anthropic-api" and len(trace.generations) == 3
    s1, s2 = trace.generations[1:]
    assert (s1.text or "").startswith("Summary of the work so far: the user is working on ledger-sync.")
    assert s1.trigger == "auto" and s1.tokens_after == 2300 and s1.extra["trigger_tokens"] == 50000
    assert s1.extra["compaction_usage"] == {"input_tokens": 50600, "output_tokens": 320}
    assert s2.text is None and s2.extra["encrypted_content"] is True
    assert [(n.rule, n.generation) for n in trace.notices] == [("summary-unavailable", 2)]
    assert "encrypted_content" in trace.notices[0].message


def test_the_resent_history_is_read_once() -> None:
    trace = load_trace(LOG)
    users = [s.text for s in trace.sources if s.kind == "user"]
    assert len(users) == 6 and len(set(users)) == 6
    assert trace.extra["history_rewrites"] == 0 and trace.extra["calls"] == 9
    # The reply that carried compaction 1 is after it: S1 covers the Decimal request, not the answer to it.
    s1 = trace.generations[1]
    decimal = next(s.key for s in trace.sources if s.text == LOST)
    assert decimal in s1.covers and "msg_005:1" not in s1.covers
    assert trace.source("toolu_02:result").kind == "tool_error"


def test_lost_and_kept_user_statements() -> None:
    findings = analyze(load_trace(LOG)).findings
    lost = [(f.rule, f.generation) for f in findings if LOST in f.message]
    assert lost == [("user-statement-lost", 1)]
    assert not [f for f in findings if KEPT in f.message]


def test_check_exits_with_a_verdict() -> None:
    result = subprocess.run([sys.executable, "-m", "inspector", "check", str(LOG)], capture_output=True, text=True,
                            timeout=120)  # fmt: skip
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr


def test_sniffing_is_exclusive() -> None:
    assert_exclusive("anthropic-api", [LOG])


# --- shapes --------------------------------------------------------------------------------------------


def test_a_client_that_drops_what_precedes_the_compaction(tmp_path: Path) -> None:
    first = {"role": "user", "content": "Ship it on Monday."}
    compacted = response(1, {"type": "compaction", "content": "Ship Monday.", "encrypted_content": None}, text("OK"))
    kept = {"role": "assistant", "content": [{"type": "compaction", "content": "Ship Monday."},
                                             {"type": "text", "text": "OK"}]}  # fmt: skip
    path = write(tmp_path / "log.jsonl", [
        call([first], compacted),
        call([kept, {"role": "user", "content": "Thanks."}], response(2, text("Welcome."))),
    ])  # fmt: skip
    trace = load_trace(path)
    assert [s.text for s in trace.sources if s.namespace == "transcript"] == ["Ship it on Monday.", "OK", "Thanks.",
                                                                               "Welcome."]  # fmt: skip
    assert [g.text for g in trace.generations] == ["user: Ship it on Monday.", "Ship Monday."]
    assert trace.extra["history_rewrites"] == 0


def test_a_failed_compaction_is_an_event_and_bare_responses_are_read(tmp_path: Path) -> None:
    path = write(tmp_path / "log.jsonl", [
        response(1, text("Hello.")),
        response(2, {"type": "compaction", "content": None}, text("Still here.")),
        {"unrelated": True},
    ])  # fmt: skip
    trace = load_trace(path)
    assert len(trace.generations) == 1 and [e.kind for e in trace.events] == ["compaction-failed"]
    assert trace.extra["unknown_types"] == {"(no request or response)": 1}


def test_a_rewritten_history_keeps_only_unseen_messages(tmp_path: Path) -> None:
    path = write(tmp_path / "log.jsonl", [
        call([{"role": "user", "content": "A"}], response(1, text("B"))),
        call([{"role": "user", "content": "edited A"}, {"role": "assistant", "content": "B"},
              {"role": "user", "content": "C"}], response(2, text("D"))),
    ])  # fmt: skip
    trace = load_trace(path)
    assert [s.text for s in trace.sources if s.namespace == "transcript"] == ["A", "B", "edited A", "C", "D"]
    assert trace.extra["history_rewrites"] == 1


# --- bad input -----------------------------------------------------------------------------------------


def test_truncated_and_garbled_copies(tmp_path: Path) -> None:
    data = LOG.read_bytes()
    torn = tmp_path / "torn.jsonl"
    torn.write_bytes(data[: len(data) - 200])
    trace = load_trace(torn)
    assert sorted(n.rule for n in trace.notices) == ["summary-unavailable", "torn-last-line"]
    garbled = tmp_path / "garbled.jsonl"
    lines = data.split(b"\n")
    lines[1] = lines[1][:40]
    garbled.write_bytes(b"\n".join(lines))
    assert "malformed-line" in {n.rule for n in load_trace(garbled).notices}


_leaf = st.none() | st.booleans() | st.integers(-2, 2) | st.sampled_from(["x", "", "compaction", "toolu_1"])
_value = st.recursive(_leaf, lambda c: st.lists(c, max_size=3) | st.dictionaries(
    st.sampled_from(["type", "text", "content", "encrypted_content", "id", "tool_use_id", "input", "is_error",
                     "role", "usage", "iterations", "input_tokens", "edits", "trigger", "value"]), c, max_size=3),
    max_leaves=8)  # fmt: skip
_block = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "tool_use", "tool_result", "compaction", "thinking", "zzz"]) | _value},
    optional={k: _value for k in ("text", "content", "encrypted_content", "id", "tool_use_id", "input", "is_error")},
)
_content = st.lists(_block, max_size=3) | _value
_message = st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant"]) | _value, "content": _content})
_answer = st.fixed_dictionaries({"type": st.just("message"), "role": st.just("assistant"), "content": _content},
                                optional={"id": _value, "usage": _value})  # fmt: skip
_line = st.fixed_dictionaries({}, optional={
    "request": st.fixed_dictionaries({"messages": st.lists(_message, max_size=3)},
                                     optional={"context_management": _value, "compaction": _value}) | _value,
    "response": _answer | _value,
}) | _answer  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(lines=st.lists(_line, max_size=6), tail=st.sampled_from([b"", b"\n", b"\n{torn", b"\n[1]\n"]))
def test_reader_raises_only_trace_read_error(lines: list[dict[str, Any]], tail: bytes) -> None:
    read_raises_only_its_error(anthropic_api.read, lines, tail, "calls.jsonl")
