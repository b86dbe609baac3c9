"""Inspect AI reader: one eval log, written by inspect_ai 0.3.285 as .eval (zstd zip) and .json, two samples."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path
from tempfile import TemporaryDirectory

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.analysis import analyze
from inspector.errors import TraceReadError
from inspector.readers import detect_format, inspect_ai, load_trace, readers

FIXTURES = Path(__file__).parent / "fixtures"
EVAL = FIXTURES / "inspect_ai" / "two-samples.eval"
JSON = FIXTURES / "inspect_ai" / "two-samples.json"
FRENCH = "The final report must be written in French."


@pytest.mark.parametrize("log", [EVAL, JSON])
def test_summary_sample_has_six_summaries_with_tokens(log: Path) -> None:
    assert detect_format(log) == "inspect-ai"
    trace = load_trace(f"{log}#summary_epoch_1")
    assert trace.id == "summary_epoch_1" and len(trace.generations) == 7
    summaries = trace.generations[1:]
    assert all(g.text and g.text.startswith("[CONTEXT COMPACTION SUMMARY]") for g in summaries)
    assert [g.text.count(f"Summary #{g.index}:") for g in summaries] == [1] * 6  # type: ignore[union-attr]
    assert [(g.tokens_before, g.tokens_after) for g in summaries[:2]] == [(692, 290), (1111, 457)]
    assert {g.trigger for g in summaries} == {"threshold"}
    assert len(summaries[0].extra["boilerplate"]) == 3  # Inspect's own three lines around the summary
    # The summary messages are generations, not turns; the French requirement is placed before S2.
    assert not any(s.text.startswith("[CONTEXT COMPACTION SUMMARY]") for s in trace.sources)
    french = next(s for s in trace.sources if s.text == FRENCH)
    assert french.authority == "user"
    assert french.key not in set(trace.generations[1].covers) and french.key in set(trace.generations[2].covers)


@pytest.mark.parametrize("log", [EVAL, JSON])
def test_trim_compactions_have_no_summary(log: Path) -> None:
    trace = load_trace(f"{log}#trim_epoch_1")
    assert [g.text for g in trace.generations[1:]] == [None, None]
    assert [(n.rule, n.generation) for n in trace.notices] == [("summary-unavailable", 1), ("summary-unavailable", 2)]
    assert "trim compaction" in trace.notices[0].message
    assert [g.extra["line"] for g in trace.generations[1:]] == [8, 12]


def test_a_log_of_several_samples_is_a_container() -> None:
    assert inspect_ai.sessions(EVAL) == inspect_ai.sessions(JSON) == ["trim_epoch_1", "summary_epoch_1"]
    trace = load_trace(EVAL)
    assert trace.id == "trim_epoch_1"
    [notice] = [n for n in trace.notices if n.rule == "several-sessions"]
    assert "2 sessions" in notice.message and f"{EVAL.name}#summary_epoch_1" in notice.message
    with pytest.raises(TraceReadError, match="no sample 'nope'"):
        load_trace(f"{EVAL}#nope")


def test_the_lost_statement_and_the_kept_one() -> None:
    findings = analyze(load_trace(f"{EVAL}#summary_epoch_1")).findings
    lost = [f for f in findings if f.rule == "user-statement-lost"]
    assert [f.generation for f in lost] == [2, 3, 4, 5, 6] and all(FRENCH in f.message for f in lost)
    assert not any("libbar" in f.message for f in findings if f.severity.value != "info")


@pytest.mark.parametrize("log", [EVAL, JSON])
def test_check_exits_zero_or_one(log: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "inspector", "check", f"{log}#summary_epoch_1"],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    assert "Traceback" not in done.stderr


def test_truncated_and_garbled_logs_raise_one_line(tmp_path: Path) -> None:
    cut = tmp_path / "cut.eval"
    cut.write_bytes(EVAL.read_bytes()[:5000])
    assert not inspect_ai.claims(cut)  # no central directory: not recognisably ours
    with pytest.raises(TraceReadError):
        inspect_ai.read(cut)
    half = tmp_path / "half.json"
    half.write_bytes(JSON.read_bytes()[:3000])
    assert detect_format(half) == "inspect-ai"
    with pytest.raises(TraceReadError, match="not a JSON eval log"):
        load_trace(half)
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({"version": 2, "status": "started", "eval": {"eval_id": "x", "task_id": "y"}}))
    with pytest.raises(TraceReadError, match="no samples"):
        load_trace(empty)


def test_a_member_past_the_file_bound_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECTOR_MAX_FILE_MB", "0.01")  # the summary sample is ~100 KB decompressed
    with pytest.raises(TraceReadError, match="per-file limit"):
        inspect_ai.read_session(EVAL, "summary_epoch_1")


def test_claims_and_sniff_take_no_other_format_and_others_leave_these() -> None:
    others = [FIXTURES / "claude_code" / "three_compactions.jsonl", FIXTURES / "codex" / "three_compactions.jsonl",
              FIXTURES / "openhands" / "conversation"]  # fmt: skip
    for other in others:
        assert not inspect_ai.claims(other)
        if other.is_file():
            assert not inspect_ai.sniff(other.read_bytes()[:65536])
    head = JSON.read_bytes()[:65536]
    for reader in readers():
        if reader.name != "inspect-ai":
            assert not reader.sniff(head) and not reader.sniff(EVAL.read_bytes()[:65536])
            assert reader.claims is None or not (reader.claims(EVAL) or reader.claims(JSON))


def test_a_zip_that_is_not_an_eval_log(tmp_path: Path) -> None:
    other = tmp_path / "other.eval"
    with zipfile.ZipFile(other, "w") as archive:
        archive.writestr("readme.txt", "hello")
    assert not inspect_ai.claims(other)


_leaf = st.none() | st.booleans() | st.integers(-2, 2) | st.sampled_from(["user", "tool", "", "attachment://h"])
_value = st.recursive(_leaf, lambda c: st.lists(c, max_size=3) | st.dictionaries(
    st.sampled_from(["role", "content", "id", "metadata", "summary", "tool_calls", "function", "type", "text",
                     "event", "input", "output", "choices", "message"]), c, max_size=3), max_leaves=8)  # fmt: skip
_message = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "tool", "system"]) | _value},
    optional={"id": st.sampled_from(["a", "b", "c"]) | _value, "content": _value, "metadata": _value,
              "tool_calls": _value, "tool_call_id": _value, "error": _value, "source": _value},
)  # fmt: skip
_event = st.fixed_dictionaries(
    {"event": st.sampled_from(["model", "tool", "compaction", "span_begin"]) | _value},
    optional={"type": st.sampled_from(["summary", "edit", "trim"]) | _value, "input": _value, "output": _value,
              "input_refs": _value, "message_id": _value, "tokens_before": _value, "metadata": _value},
)  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(messages=st.lists(_message | _value, max_size=5), events=st.lists(_event | _value, max_size=5),
       attachments=_value, events_data=_value)  # fmt: skip
def test_reader_raises_only_trace_read_error(messages: list, events: list, attachments: object,
                                            events_data: object) -> None:  # fmt: skip
    log = {"version": 2, "eval": {"eval_id": "e", "task_id": "t"},
           "samples": [{"id": 1, "epoch": 1, "messages": messages, "events": events, "attachments": attachments,
                        "events_data": events_data}]}  # fmt: skip
    with TemporaryDirectory() as folder:
        path = Path(folder) / "log.json"
        path.write_text(json.dumps(log))
        try:
            inspect_ai.read(path)
        except TraceReadError as error:
            assert str(error).startswith(str(path)) and "\n" not in error.message
