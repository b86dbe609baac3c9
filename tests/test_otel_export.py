"""`export-otel -o FILE`: OTLP JSON that the inspector's own OTel reader loads back as the same chain, every finding
an evaluation-result event on the span of the summary it is about (tests/test_phoenix.py sends the same to a real
receiver)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from inspector import analyze, load_trace
from inspector.cli import main
from inspector.model import Trace
from inspector.otel_export import EVALUATION_EVENT, explanation
from inspector.readers import otel_genai
from tests.helpers import ONE_OF_EACH, SAMPLES

CHAINS = [SAMPLES / "anchor_decay.json", SAMPLES / "staging_db_constraint.json", ONE_OF_EACH["claude-code"],
          ONE_OF_EACH["codex"], ONE_OF_EACH["otel-genai"], ONE_OF_EACH["openai-responses"]]  # fmt: skip
"""Summaries with text and without (the OTel fixture's S2, the Responses API's encrypted ones), tokens known and
not, on a native file and on session logs."""


def chain(trace: Trace) -> list[tuple[Any, ...]]:
    """What a compaction is, as the chain shows it: its summary and the context's size before and after."""
    return [(g.index, g.kind, g.text, g.tokens_before, g.tokens_after) for g in trace.generations[1:]]


def exported(tmp_path: Path, *traces: Path) -> Path:
    out = tmp_path / "findings.otlp.jsonl"
    assert main(["export-otel", *map(str, traces), "-o", str(out)]) == 0
    return out


def spans(path: Path) -> list[dict[str, Any]]:
    found = []
    for line in path.read_bytes().splitlines():
        for resource in orjson.loads(line)["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                found += scope["spans"]
    return found


def attributes(item: dict[str, Any]) -> dict[str, Any]:
    return {a["key"]: otel_genai._value(a["value"]) for a in item.get("attributes", [])}


@pytest.mark.parametrize("path", CHAINS, ids=lambda p: p.name)
def test_the_otel_reader_loads_the_export_back_as_the_same_chain(tmp_path, path):
    original = load_trace(path)
    back = load_trace(exported(tmp_path, path), "otel-genai")
    assert back.id == original.id
    assert chain(back) == chain(original)
    assert len(chain(original)) >= 2


def test_a_fleet_in_one_file_loads_back_one_conversation_each(tmp_path):
    out = exported(tmp_path, *CHAINS[:4])
    assert len(out.read_bytes().splitlines()) == 4  # a request per session, as it is sent
    for path in CHAINS[:4]:
        original = load_trace(path)
        assert chain(load_trace(f"{out}#{original.id}")) == chain(original)


def events_by_place(path: Path) -> list[tuple[Any, dict[str, Any]]]:
    """Each evaluation event of the file with the generation of the span it is on (None: the root span)."""
    got = []
    for span in spans(path):
        where = attributes(span).get("compaction_inspector.generation")
        for event in span.get("events", []):
            assert event["name"] == EVALUATION_EVENT
            got.append((where, attributes(event)))
    return got


def findings_by_place(path: Path) -> list[tuple[Any, dict[str, Any]]]:
    analysis = analyze(load_trace(path))
    summaries = {g.index for g in analysis.trace.generations if g.index >= 1}
    expected = []
    for finding in analysis.findings:
        event = {"gen_ai.evaluation.name": finding.rule, "gen_ai.evaluation.score.label": finding.severity.value,
                 "gen_ai.evaluation.explanation": explanation(finding)}  # fmt: skip
        if finding.generation is not None:
            event["compaction_inspector.generation"] = finding.generation
        expected.append((finding.generation if finding.generation in summaries else None, event))
    return expected


def _key(pair: tuple[Any, dict[str, Any]]) -> bytes:
    return orjson.dumps(pair, option=orjson.OPT_SORT_KEYS)


@pytest.mark.parametrize("path", CHAINS, ids=lambda p: p.name)
def test_every_finding_is_an_evaluation_event_on_the_span_of_its_summary(tmp_path, path):
    got, expected = events_by_place(exported(tmp_path, path)), findings_by_place(path)
    assert sorted(got, key=_key) == sorted(expected, key=_key)
    assert expected


def test_a_finding_about_no_summary_is_on_the_root_span(tmp_path):
    path = ONE_OF_EACH["otel-genai"]
    on_root = [event for where, event in events_by_place(exported(tmp_path, path)) if where is None]
    assert [e["gen_ai.evaluation.name"] for e in on_root] == [
        event["gen_ai.evaluation.name"] for where, event in findings_by_place(path) if where is None] != []


def test_the_explanation_is_the_message_then_the_evidence_as_json():
    finding = next(f for f in analyze(load_trace(SAMPLES / "anchor_decay.json")).findings if f.evidence)
    message, evidence = explanation(finding).split("\nevidence: ")
    assert message == finding.message and orjson.loads(evidence) == orjson.loads(orjson.dumps(finding.evidence))


def test_a_compaction_span_carries_the_conventions_attributes(tmp_path):
    path = SAMPLES / "anchor_decay.json"
    trace = load_trace(path)
    found = spans(exported(tmp_path, path))
    compacted = [attributes(s) for s in found if attributes(s).get("gen_ai.conversation.compacted") is True]
    assert [a["compaction_inspector.generation"] for a in compacted] == [1, 2, 3]
    for span, generation in zip(compacted, trace.generations[1:], strict=True):
        assert span["gen_ai.conversation.id"] == trace.id
        assert span["gen_ai.operation.name"] == "chat"
        assert span["gen_ai.usage.input_tokens"] == generation.tokens_after
        messages = orjson.loads(span["gen_ai.input.messages"])
        assert messages == [{"role": "assistant", "parts": [{"type": "compaction", "id": f"S{generation.index}",
                                                              "content": generation.text}]}]  # fmt: skip
    before = [attributes(s)["gen_ai.usage.input_tokens"] for s in found
              if attributes(s).get("gen_ai.operation.name") == "chat" and "gen_ai.conversation.compacted" not in
              attributes(s)]  # fmt: skip
    assert before == [g.tokens_before for g in trace.generations[1:]]
    roots = [s for s in found if "parentSpanId" not in s or not s["parentSpanId"]]
    assert len(roots) == 1 and all(s["traceId"] == roots[0]["traceId"] for s in found)


def test_the_file_is_otlp_json_as_the_specification_spells_it(tmp_path):
    """Hex ids and integer enums (OTLP/JSON), not protobuf's own JSON mapping (base64 bytes, enum names)."""
    found = spans(exported(tmp_path, SAMPLES / "anchor_decay.json"))
    for span in found:
        assert len(span["traceId"]) == 32 and int(span["traceId"], 16)
        assert len(span["spanId"]) == 16 and int(span["spanId"], 16)
        assert isinstance(span["kind"], int)
        assert span["startTimeUnixNano"].isdigit()
    starts = [int(s["startTimeUnixNano"]) for s in found if attributes(s).get("gen_ai.operation.name") == "chat"]
    assert starts == sorted(starts) and len(set(starts)) == len(starts)  # readers order a conversation's calls so


def test_scan_exports_every_readable_session_of_the_fleet(tmp_path, capsys):
    out = tmp_path / "fleet.otlp.jsonl"
    assert main(["scan", str(SAMPLES), "--workers", "1", "--otel-out", str(out)]) == 0
    sessions = sorted(p for p in SAMPLES.glob("*.json"))
    conversations = set(otel_genai.sessions(out))
    assert conversations == {load_trace(p).id for p in sessions if chain(load_trace(p))}
    assert f"exported {len(sessions)} sessions" in capsys.readouterr().err


def test_an_unreadable_trace_is_one_line_exit_2_and_nothing_written(tmp_path, capsys):
    bad = tmp_path / "notes.txt"
    bad.write_text("not a trace\n")
    out = tmp_path / "out.jsonl"
    assert main(["export-otel", str(SAMPLES / "anchor_decay.json"), str(bad), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0].startswith(f"{bad}:") and "Traceback" not in "".join(err) and len(err) == 2
    assert not out.exists()


def test_an_endpoint_that_is_no_http_url_is_refused_by_the_parser(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["export-otel", str(SAMPLES / "anchor_decay.json"), "--endpoint", "localhost:6006"])
    assert exit_.value.code == 2
    assert "'localhost:6006' is not an http:// or https:// URL" in capsys.readouterr().err


def test_a_destination_is_required_and_only_one(capsys):
    for extra in ([], ["--endpoint", "http://127.0.0.1:6006", "-o", "x.jsonl"]):
        with pytest.raises(SystemExit) as exit_:
            main(["export-otel", str(SAMPLES / "anchor_decay.json"), *extra])
        assert exit_.value.code == 2


def test_a_receiver_s_base_url_gets_the_traces_path_as_the_sdk_gives_it():
    from inspector.otel_export import traces_endpoint

    assert traces_endpoint("http://localhost:6006") == "http://localhost:6006/v1/traces"
    assert traces_endpoint("https://cloud.langfuse.com/api/public/otel/") == (
        "https://cloud.langfuse.com/api/public/otel/v1/traces")
    assert traces_endpoint("http://collector:4318/v1/traces") == "http://collector:4318/v1/traces"


def test_the_provider_and_model_are_said_where_the_log_says_them(tmp_path):
    calls = [attributes(s) for s in spans(exported(tmp_path, ONE_OF_EACH["openai-responses"]))
             if attributes(s).get("gen_ai.operation.name") == "chat"]  # fmt: skip
    assert calls
    assert all(c["gen_ai.provider.name"] == "openai" and c["gen_ai.request.model"] == "gpt-5.5" for c in calls)
    native = [attributes(s) for s in spans(exported(tmp_path, SAMPLES / "anchor_decay.json"))]
    assert not any("gen_ai.provider.name" in a for a in native)  # a native trace does not say: not guessed
