"""OpenTelemetry GenAI traces: OTLP JSON of inference spans, the chain rebuilt per conversation id."""

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
from inspector.readers import detect_format, load_trace, otel_genai
from tests.helpers import read_raises_only_its_error
from tests.sniffing import assert_exclusive

EXPORT = Path(__file__).parent / "fixtures" / "otel_genai" / "traces.jsonl"
LEDGER, NOTES = "conv_8f2c41d7e3a94b6e", "conv_1a9e05b3c8d24f71"
LOST = "Amounts must be parsed with the Decimal type, never float."
KEPT = "Never push directly to main; always open a pull request."


def attribute(key: str, value: Any) -> dict[str, Any]:
    kind = {bool: "boolValue", int: "intValue", str: "stringValue"}[type(value)]
    return {"key": key, "value": {kind: str(value) if kind == "intValue" else value}}


def chat(span_id: str, start: int, inputs: list[Any], outputs: list[Any], conversation: str = "c1",
         compacted: bool = False) -> dict[str, Any]:  # fmt: skip
    attributes = [attribute("gen_ai.operation.name", "chat"), attribute("gen_ai.conversation.id", conversation),
                  attribute("gen_ai.input.messages", json.dumps(inputs)),
                  attribute("gen_ai.output.messages", json.dumps(outputs))]  # fmt: skip
    if compacted:
        attributes.append(attribute("gen_ai.conversation.compacted", True))
    return {"traceId": "4bf92f3577b34da6a3ce929d0e0e4736", "spanId": span_id, "name": "chat m",
            "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + 1), "attributes": attributes}  # fmt: skip


def request(*spans: dict[str, Any]) -> dict[str, Any]:
    return {"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {"name": "t"}, "spans": list(spans)}]}]}


def message(role: str, *parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": role, "parts": list(parts)}


def text(words: str) -> dict[str, Any]:
    return {"type": "text", "content": words}


def write(path: Path, *requests: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in requests))
    return path


# --- the fixture: opentelemetry-sdk spans through the OTLP encoder (make.py) --------------------------------


def test_a_readable_and_an_opaque_compaction() -> None:
    trace = load_trace(EXPORT)
    assert trace.format == "otel-genai" and trace.id == LEDGER and len(trace.generations) == 3
    s1, s2 = trace.generations[1:]
    assert (s1.text or "").startswith("Summary of the conversation so far: the user is fixing the CSV importer")
    assert s1.extra["part_id"] == "cmp_01" and (s1.tokens_before, s1.tokens_after) == (3665, 900)
    assert s2.text is None and s2.extra["part_id"] == "cmp_02"
    assert [(n.rule, n.generation) for n in trace.notices if n.rule == "summary-unavailable"] == [
        ("summary-unavailable", 2)]  # fmt: skip
    assert "no content" in s2.extra["unavailable_reason"]


def test_every_message_is_read_once_and_the_kept_tail_not_again() -> None:
    trace = load_trace(EXPORT)
    users = [s.text for s in trace.sources if s.kind == "user"]
    assert len(users) == 6 and len(set(users)) == 6 and users[-1] == "What is left to do?"
    assert trace.extra["history_rewrites"] == 0 and trace.extra["inference_spans"] == 8
    # The failed test run is a tool error: its execute_tool span has status ERROR.
    assert trace.source("call_01:result").kind == "tool_error" and trace.source("call_02:result").kind == "tool_result"
    lost = next(s.key for s in trace.sources if s.text == LOST)
    assert lost in trace.generations[1].covers
    euros = next(s.key for s in trace.sources if s.text == "The monthly report must be in euros.")
    assert euros not in trace.generations[1].covers and euros in trace.generations[2].covers


def test_the_export_is_a_container_of_conversations() -> None:
    assert otel_genai.sessions(EXPORT) == [LEDGER, NOTES]
    trace = load_trace(EXPORT)
    assert trace.title == f"ledger-agent · {LEDGER}" and trace.extra["other_conversations"] == 1
    [notice] = [n for n in trace.notices if n.rule == "several-sessions"]
    assert "2 sessions" in notice.message and f"{EXPORT.name}#{NOTES}" in notice.message
    notes = load_trace(f"{EXPORT}#{NOTES}")
    assert len(notes.generations) == 1 and [s.text for s in notes.sources if s.kind == "user"] == [
        "Draft the release notes for ledger-sync 2.3; keep them under 200 words.",
        "Mention that Python 3.9 is no longer supported."]  # fmt: skip
    with pytest.raises(TraceReadError, match="no conversation 'nope'"):
        load_trace(f"{EXPORT}#nope")


def test_lost_and_kept_user_statements() -> None:
    findings = analyze(load_trace(EXPORT)).findings
    assert [(f.rule, f.generation) for f in findings if LOST in f.message] == [("user-statement-lost", 1)]
    assert not [f for f in findings if KEPT in f.message]


def test_check_exits_with_a_verdict() -> None:
    result = subprocess.run([sys.executable, "-m", "inspector", "check", str(EXPORT)], capture_output=True, text=True,
                            timeout=120)  # fmt: skip
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr


def test_one_pretty_printed_document_reads_like_the_lines(tmp_path: Path) -> None:
    requests = [json.loads(line) for line in EXPORT.read_text().splitlines()]
    merged = {"resourceSpans": [r for request in requests for r in request["resourceSpans"]]}
    document = tmp_path / "export.json"
    document.write_text(json.dumps(merged, indent=2))
    assert detect_format(document) == "otel-genai"
    lines, whole = load_trace(EXPORT), load_trace(document)
    assert [s.text for s in whole.sources] == [s.text for s in lines.sources]
    assert [g.text for g in whole.generations] == [g.text for g in lines.generations]


def test_sniffing_is_exclusive() -> None:
    assert_exclusive("otel-genai", [EXPORT])


# --- shapes --------------------------------------------------------------------------------------------------


def test_structured_messages_hex_ids_and_a_flag_only_compaction(tmp_path: Path) -> None:
    first = message("user", text("Ship on Monday."))
    reply = message("assistant", text("OK."))
    later = message("user", text("Deploy now."))
    structured = {"key": "gen_ai.input.messages", "value": {"arrayValue": {"values": [{"kvlistValue": {"values": [
        {"key": "role", "value": {"stringValue": "user"}},
        {"key": "parts", "value": {"arrayValue": {"values": [{"kvlistValue": {"values": [
            {"key": "type", "value": {"stringValue": "text"}},
            {"key": "content", "value": {"stringValue": "Ship on Monday."}}]}}]}}}]}}]}}}  # fmt: skip
    span1 = chat("00f067aa0ba902b7", 10, [], [reply])
    span1["attributes"][2] = structured
    # The second call's history was cut (no "Ship on Monday."), the span flagged compacted, no compaction part.
    span2 = chat("00f067aa0ba902b8", 20, [later], [message("assistant", text("Deploying."))],
                 compacted=True)  # fmt: skip
    span3 = chat("00f067aa0ba902b9", 30, [later, message("assistant", text("Deploying.")), first], [],
                 compacted=True)  # fmt: skip
    # Still flagged, the history cut again: a second compaction.
    span4 = chat("00f067aa0ba902ba", 40, [message("user", text("Done?"))], [], compacted=True)
    trace = load_trace(write(tmp_path / "t.jsonl", request(span1, span2, span3, span4)))
    assert [s.text for s in trace.sources] == ["Ship on Monday.", "OK.", "Deploy now.", "Deploying.",
                                               "Ship on Monday.", "Done?"]  # fmt: skip
    assert [g.text for g in trace.generations[1:]] == [None, None]  # span 3 continues the history: no compaction
    assert "no compaction part" in trace.generations[1].extra["unavailable_reason"]
    assert [g.extra["span"] for g in trace.generations[1:]] == ["00f067aa0ba902b8", "00f067aa0ba902ba"]
    assert trace.extra["history_rewrites"] == 0
    assert trace.sources[0].key.startswith("00f067aa0ba902b7:in0")


def test_an_edited_history_without_the_flag_is_no_compaction(tmp_path: Path) -> None:
    span1 = chat("b1", 10, [message("user", text("A"))], [message("assistant", text("B"))])
    span2 = chat("b2", 20, [message("user", text("edited A")), message("user", text("C"))], [])
    trace = load_trace(write(tmp_path / "t.jsonl", request(span1, span2)))
    assert len(trace.generations) == 1 and trace.extra["history_rewrites"] == 1
    assert [s.text for s in trace.sources] == ["A", "B", "edited A", "C"]


def test_a_compaction_part_in_a_reply_and_spans_without_a_conversation_id(tmp_path: Path) -> None:
    compacted = message("assistant", {"type": "compaction", "content": "Ship Monday."}, text("OK"))
    span1 = chat("a1", 10, [message("user", text("Ship it on Monday."))], [compacted])
    span2 = chat("a2", 20, [compacted, message("user", text("Thanks."))], [message("assistant", text("Welcome."))])
    for span in (span1, span2):
        span["attributes"] = [a for a in span["attributes"] if a["key"] != "gen_ai.conversation.id"]
    trace = load_trace(write(tmp_path / "t.jsonl", request(span1), request(span2)))
    assert trace.id == "trace-4bf92f3577b34da6a3ce929d0e0e4736"
    assert [g.text for g in trace.generations] == ["user: Ship it on Monday.", "Ship Monday."]
    assert [s.text for s in trace.sources] == ["Ship it on Monday.", "OK", "Thanks.", "Welcome."]


def test_an_export_without_inference_spans(tmp_path: Path) -> None:
    span = {"traceId": "ab", "spanId": "cd", "name": "GET /", "attributes": [attribute("http.method", "GET")]}
    with pytest.raises(TraceReadError, match="no GenAI inference spans"):
        load_trace(write(tmp_path / "t.jsonl", request(span)))


# --- bad input -----------------------------------------------------------------------------------------------


def test_truncated_and_garbled_copies(tmp_path: Path) -> None:
    data = EXPORT.read_bytes()
    torn = tmp_path / "torn.jsonl"
    torn.write_bytes(data[: len(data) - 500])
    assert "torn-last-line" in {n.rule for n in load_trace(torn).notices}
    garbled = tmp_path / "garbled.jsonl"
    lines = data.split(b"\n")
    lines[2] = lines[2][:300]
    garbled.write_bytes(b"\n".join(lines))
    assert "malformed-line" in {n.rule for n in load_trace(garbled).notices}
    half = tmp_path / "half.json"
    half.write_text(json.dumps(json.loads(data.split(b"\n")[0]), indent=2)[:2000])
    with pytest.raises(TraceReadError, match="invalid JSON"):
        load_trace(half)


_leaf = st.none() | st.booleans() | st.integers(-2, 2) | st.sampled_from(["x", "", "compaction", "call_1", "chat"])
_value = st.recursive(_leaf, lambda c: st.lists(c, max_size=3) | st.dictionaries(
    st.sampled_from(["type", "content", "id", "name", "arguments", "response", "role", "parts", "stringValue",
                     "intValue", "arrayValue", "kvlistValue", "values", "key", "value"]), c, max_size=3),
    max_leaves=8)  # fmt: skip
_part = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "tool_call", "tool_call_response", "compaction", "reasoning", "zzz"]) | _value},
    optional={k: _value for k in ("content", "id", "name", "arguments", "response")},
)
_message = st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "tool", "system"]) | _value,
                                  "parts": st.lists(_part, max_size=3) | _value})  # fmt: skip
_messages = st.lists(_message, max_size=3).map(json.dumps) | _value
_attribute = st.fixed_dictionaries({
    "key": st.sampled_from(["gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.operation.name",
                            "gen_ai.conversation.id", "gen_ai.conversation.compacted", "gen_ai.tool.call.id",
                            "gen_ai.usage.input_tokens"]) | _value,
    "value": st.fixed_dictionaries({}, optional={"stringValue": _messages | _value, "boolValue": _value,
                                                 "intValue": _value, "arrayValue": _value, "kvlistValue": _value}),
})  # fmt: skip
_span = st.fixed_dictionaries({"attributes": st.lists(_attribute, max_size=5) | _value}, optional={
    k: _value | st.sampled_from(["AAAAAAAAEAI=", "1795597201200000000", "00f067aa0ba902b7"])
    for k in ("spanId", "traceId", "startTimeUnixNano", "endTimeUnixNano", "status", "name")})  # fmt: skip
_request = st.fixed_dictionaries({"resourceSpans": st.lists(st.fixed_dictionaries({"scopeSpans": st.lists(
    st.fixed_dictionaries({"spans": st.lists(_span, max_size=3) | _value}), max_size=2) | _value}), max_size=2)
    | _value})  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(lines=st.lists(_request | _value, max_size=4), tail=st.sampled_from([b"", b"\n", b"\n{torn", b"\n[1]\n"]))
def test_reader_raises_only_trace_read_error(lines: list[Any], tail: bytes) -> None:
    read_raises_only_its_error(otel_genai.read, lines, tail, "export.jsonl")
