"""Claude Code reader: real session logs, the compaction shapes of 1.0.x and 2.x, and bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.analysis import analyze
from inspector.anchors import AnchorStatus
from inspector.errors import TraceReadError
from inspector.model import Severity
from inspector.readers import claude_code, detect_format, load_trace, native, readers
from inspector.readers.claude_code import sidechain_paths
from tests.helpers import REAL_TRACES, needs_shared, read_raises_only_its_error, require_shared

VSLA = REAL_TRACES / "claude_code_v1.0.53_vsla_0a725fb5.jsonl"
V21 = REAL_TRACES / "claude_code_v2.1_schema_fixture_agent-sessions.jsonl"
STORY = Path(__file__).parent / "fixtures" / "claude_code" / "three_compactions.jsonl"
CODEX_STORY = Path(__file__).parent / "fixtures" / "codex" / "three_compactions.jsonl"


# --- building small sessions --------------------------------------------------------------------


def record(uuid: str, parent: str | None, kind: str, **fields: Any) -> dict[str, Any]:
    base = {"parentUuid": parent, "isSidechain": False, "sessionId": "sess-1", "version": "2.0.31",
            "type": kind, "uuid": uuid, "timestamp": f"2025-11-04T10:00:{len(uuid):02d}.000Z"}  # fmt: skip
    return {**base, **fields}


def user(uuid: str, parent: str | None, content: Any, **fields: Any) -> dict[str, Any]:
    return record(uuid, parent, "user", message={"role": "user", "content": content}, **fields)


def assistant(uuid: str, parent: str | None, blocks: list[dict[str, Any]], message_id: str | None = None,
              **fields: Any) -> dict[str, Any]:  # fmt: skip
    message = {"id": message_id or f"msg-{uuid}", "role": "assistant", "content": blocks}
    return record(uuid, parent, "assistant", message=message, **fields)


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def write(path: Path, records: list[dict[str, Any] | str], *, newline_at_end: bool = True) -> Path:
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    path.write_text("\n".join(lines) + ("\n" if newline_at_end else ""))
    return path


def texts(trace: Any, kind: str) -> list[str]:
    return [s.text for s in trace.sources if s.kind == kind]


def resolved(trace: Any) -> list[list[tuple[str, str, tuple[str, ...]]]]:
    """Every anchor of every generation with its status and referents: what resolution shows a user."""
    return [[(a.anchor.key, a.status.value, a.referents) for a in g.anchors] for g in analyze(trace).facts.generations]


# --- real logs ------------------------------------------------------------------------------------


def test_readers_register_after_native() -> None:
    names = [r.name for r in readers()]
    assert names.index("native") < names.index("claude-code")


@needs_shared(VSLA)
def test_real_legacy_session_has_one_compaction() -> None:
    assert detect_format(VSLA) == "claude-code"
    trace = load_trace(VSLA)
    assert trace.format == "claude-code"
    assert trace.id == "0a725fb5-6378-432a-9e84-9f3f49d4043d"
    assert [g.kind for g in trace.generations] == ["raw", "summary"]
    s0, s1 = trace.generations
    assert s1.text is not None and s1.text.startswith("This session is being continued")
    assert s1.parent == 0 and s1.extra["line"] == 451
    assert s0.text and s0.text.startswith("user: verify the current paper is compiling")
    # S1 is responsible for exactly what S0 held: every record before the summary.
    assert s1.covers == s0.covers and len(s1.covers) > 100
    assert trace.notices == ()


@needs_shared(VSLA)
def test_real_legacy_sidechain_root_is_not_a_compaction() -> None:
    trace = load_trace(VSLA)
    lines = VSLA.read_text().splitlines()
    sidechain_root = json.loads(lines[478])
    assert sidechain_root["parentUuid"] is None and sidechain_root["isSidechain"] is True
    keys = {s.key for s in trace.sources}
    assert sidechain_root["uuid"] not in keys
    assert trace.extra["sidechain_records"] == 42
    assert all(g.extra.get("line") != 479 for g in trace.generations)
    # Streamed pieces of one API message are one assistant record.
    message_ids = [json.loads(line)["message"].get("id") for line in lines if '"type":"assistant"' in line]
    assert len([s for s in trace.sources if s.kind == "assistant"]) < len(message_ids)


@needs_shared(VSLA)
def test_real_legacy_session_maps_tools_and_files() -> None:
    trace = load_trace(VSLA)
    assert texts(trace, "tool_error"), "failed tool calls become tool_error records"
    assert all(s.authority == "tool" for s in trace.sources if s.kind in ("tool_result", "tool_error"))
    assert any(s.key == "/home/kenth56/vsla/docs/papers/src/sections/gradients.tex" and "edit" in s.text
               for s in trace.sources if s.namespace == "file")  # fmt: skip
    user_keys = [s.key for s in trace.sources if s.kind == "user"]
    assert len(user_keys) == len(set(user_keys))


@needs_shared(V21)
def test_real_2x_fixture_has_two_boundaries() -> None:
    trace = load_trace(V21)
    assert len(trace.generations) == 3
    s1, s2 = trace.generations[1:]
    assert s1.text == "Summary of prior context."
    assert (s1.trigger, s1.tokens_before) == ("auto", 120000)
    assert s2.text is None
    unavailable = [n for n in trace.notices if n.rule == "summary-unavailable"]
    assert [(n.generation, n.severity) for n in unavailable] == [(2, Severity.INFO)]
    assert "line 51" in s2.extra["unavailable_reason"]
    assert trace.title == "Stage0 small fixture"
    # Drift is counted, not fatal.
    assert trace.extra["unknown_types"]["frame-link"] == 1
    assert trace.extra["unknown_fields"]["turnCompanion"] == 1


# --- a 2.x session with three compactions ---------------------------------------------------------


def test_three_compactions_map_onto_the_model() -> None:
    trace = load_trace(STORY)
    assert trace.format == "claude-code" and trace.title == "Billing release 4.2"
    assert [g.kind for g in trace.generations] == ["raw", "summary", "summary", "summary"]
    assert [(g.trigger, g.tokens_before, g.tokens_after) for g in trace.generations[1:]] == [
        ("auto", 155000, 9200), ("auto", 161000, 10400), ("manual", 158500, 8900)]  # fmt: skip
    assert trace.invariants is None
    prohibition = next(s for s in trace.sources if "Never run migrations" in s.text)
    assert (prohibition.kind, prohibition.authority, prohibition.namespace) == ("user", "user", "transcript")
    s1, s2, s3 = (g.text or "" for g in trace.generations[1:])
    assert "Never run migrations against the staging database" in s1
    assert "Staging database access" in s2 and "Never" not in s2
    assert "staging" not in s3.lower()


def test_covers_are_cumulative_and_stop_at_each_boundary() -> None:
    trace = load_trace(STORY)
    s0, s1, s2, s3 = trace.generations
    assert s0.covers == s1.covers
    assert set(s1.covers) < set(s2.covers) < set(s3.covers)
    keys = {s.key for s in trace.sources}
    assert set(s3.covers) <= keys
    assert "u01" in s1.covers and "u05" not in s1.covers and "u05" in s2.covers
    assert "u11" not in s3.covers  # after the last boundary: live context, not yet summarised
    assert "/srv/billing/config/migrations.yaml" in s1.covers  # derived records are covered too


def test_tools_become_calls_results_errors_and_derived_records() -> None:
    trace = load_trace(STORY)
    by_key = {(s.namespace, s.key): s for s in trace.sources}
    assert by_key[("transcript", "toolu_02")].kind == "tool_call"
    assert by_key[("transcript", "u07")].kind == "tool_error"
    assert by_key[("transcript", "u07")].text.startswith("Bash failed: pytest tests/test_fees.py -q")
    assert by_key[("file", "/srv/billing/config/migrations.yaml")].text == "read /srv/billing/config/migrations.yaml"
    assert by_key[("file", "/srv/billing/src/fees.py")].text == "edit /srv/billing/src/fees.py"
    commit = by_key[("command", "git commit -am 'Fix invoice rounding'")]
    assert commit.kind == "completed-action" and commit.text.endswith("(succeeded)")
    assert by_key[("command", "pytest tests/test_fees.py -q")].kind == "command"
    # A key a turn only prints (no tool touched it) is no record, but a summary printing it resolves.
    assert ("commit", "3f9c2ab") not in by_key
    s1 = analyze(trace).facts.generations[1]
    assert [(a.anchor.key, a.status, a.referents) for a in s1.anchors if a.anchor.key == "3f9c2ab"] == [
        ("3f9c2ab", AnchorStatus.RESOLVED, ("commit:3f9c2ab",))]  # fmt: skip
    pairs = [(s.namespace, s.key) for s in trace.sources]
    assert len(pairs) == len(set(pairs))


def test_sidechain_thinking_and_microcompaction_are_not_sources() -> None:
    trace = load_trace(STORY)
    keys = {s.key for s in trace.sources}
    assert not {"sc1", "sc2", "b1", "s1", "m1"} & keys
    assert "a01" not in keys  # a thinking-only piece of msg_01
    assert [(e.kind, e.after_generation) for e in trace.events] == [("microcompaction", 1)]
    assert "tokensSaved=21000" in trace.events[0].description
    assert trace.extra["sidechain_records"] == 2


def test_s0_renders_the_raw_context() -> None:
    s0 = load_trace(STORY).generations[0].text or ""
    assert s0.startswith("user: We are preparing release 4.2")
    assert "\ntool_call Read: /srv/billing/config/migrations.yaml\n" in s0
    assert "\ntool_call Bash: git commit -am 'Fix invoice rounding'\n" in s0
    assert "late-fee" not in s0  # that came after the first compaction


@pytest.mark.parametrize("source", [STORY, VSLA, V21], ids=["story", "vsla", "v2.1"])
def test_trace_round_trips_through_the_native_format(tmp_path: Path, source: Path) -> None:
    require_shared(source)
    trace = load_trace(source)
    copy = tmp_path / f"{source.stem}.json"
    native.write(trace, copy)
    again = load_trace(copy)
    assert again.format == "native"
    assert again.sources[: len(trace.sources)] == trace.sources and again.generations == trace.generations
    assert resolved(again) == resolved(trace)  # printed-only keys are written out, so they still resolve


def test_analysis_sees_weakened_lost_and_unresolved() -> None:
    findings = analyze(load_trace(STORY)).findings
    rules = {(f.rule, f.generation) for f in findings}
    assert ("user-statement-weakened", 2) in rules  # the user's "never" is paraphrased away in S2
    assert ("user-statement-lost", 3) in rules
    unresolved = [f for f in findings if f.rule == "unresolved-anchor"]
    assert [f.generation for f in unresolved] == [3]
    assert "/srv/billing/src/ledger_sync.py" in unresolved[0].message


# --- DAG shapes -----------------------------------------------------------------------------------


def test_rewind_keeps_only_the_surviving_branch(tmp_path: Path) -> None:
    path = write(tmp_path / "rewind.jsonl", [
        user("u1", None, "Rename the config loader."),
        assistant("a1", "u1", [text("Renaming it in loader.py.")]),
        user("u2", "a1", "Also delete the old tests."),           # abandoned: the user rewound to a1
        assistant("a2", "u2", [text("Deleting tests/old/.")]),     # abandoned
        user("u3", "a1", "Keep the old tests; only rename."),      # the branch that survived
        assistant("a3", "u3", [text("Only renaming.")]),
    ])  # fmt: skip
    trace = load_trace(path)
    assert [s.key for s in trace.sources if s.namespace == "transcript"] == ["u1", "a1", "u3", "a3"]
    assert trace.extra["abandoned_records"] == 2
    assert "Deleting" not in (trace.generations[0].text or "")


def test_rewind_before_a_compaction_and_branch_after_it(tmp_path: Path) -> None:
    path = write(tmp_path / "branches.jsonl", [
        user("u1", None, "Start."),
        assistant("a1", "u1", [text("Started.")]),
        user("x1", "a1", "Abandoned request."),
        user("u2", "a1", "Real request."),
        assistant("a2", "u2", [text("Done.")]),
        record("b1", None, "system", subtype="compact_boundary", logicalParentUuid="a2",
               compactMetadata={"trigger": "manual", "preTokens": 5000}),
        user("s1", "b1", "Summary: started, then did the real request.", isCompactSummary=True),
        user("u3", "s1", "Next."),
        user("x2", "s1", "Abandoned after compaction."),
        user("u4", "u3", "Last."),
    ])  # fmt: skip
    trace = load_trace(path)
    keys = [s.key for s in trace.sources if s.namespace == "transcript"]
    assert keys == ["u1", "a1", "u2", "a2", "u3", "u4"]
    assert trace.extra["abandoned_records"] == 2
    assert trace.generations[1].covers == ("u1", "a1", "u2", "a2")
    assert trace.generations[1].trigger == "manual"


def test_legacy_summary_root_continues_the_chain(tmp_path: Path) -> None:
    path = write(tmp_path / "legacy.jsonl", [
        user("u1", None, "Port the parser."),
        assistant("a1", "u1", [text("Ported.")]),
        user("s1", None, "This session is being continued: the parser was ported.", isCompactSummary=True),
        assistant("a2", "s1", [text("Continuing.")]),
    ])  # fmt: skip
    trace = load_trace(path)
    assert len(trace.generations) == 2
    assert [s.key for s in trace.sources if s.namespace == "transcript"] == ["u1", "a1", "a2"]
    assert trace.generations[1].covers == ("u1", "a1")


def test_s0_glimpses_long_tool_output_without_half_a_path(tmp_path: Path) -> None:
    """A cut inside a word would print a key no record has: an unresolved anchor where nothing was lost."""
    output = "x " * 240 + "see /srv/app/api/models_12.py and OPS-4711 " + "y " * 300
    call = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "grep -rn models ."}}
    path = write(tmp_path / "long.jsonl", [
        user("u1", None, "Find the models."),
        assistant("a1", "u1", [call]),
        user("r1", "a1", [{"type": "tool_result", "tool_use_id": "toolu_1", "content": output}]),
    ])  # fmt: skip
    analysis = analyze(load_trace(path))
    s0 = analysis.facts.generations[0]
    shown = (s0.generation.text or "").split("tool_result: ", 1)[1]
    assert shown.endswith("…") and len(shown) <= 500
    assert shown[:-1].split()[-1] in output.split()  # the last word shown is a whole word of the output
    assert not s0.anchors_with(AnchorStatus.UNRESOLVED)


def test_streamed_pieces_of_one_message_are_one_record(tmp_path: Path) -> None:
    call = {"type": "tool_use", "id": "toolu_9", "name": "Read", "input": {"file_path": "/repo/app.py"}}
    path = write(tmp_path / "stream.jsonl", [
        user("u1", None, "Look at app.py."),
        assistant("p1", "u1", [{"type": "thinking", "thinking": "hmm", "signature": "x"}], "msg_A"),
        assistant("p2", "p1", [text("Reading app.py first.")], "msg_A"),
        assistant("p3", "p2", [text("Reading app.py first."), call], "msg_A"),  # repeats the text block
        user("r1", "p3", [{"type": "tool_result", "tool_use_id": "toolu_9", "content": "print('hi')"}]),
    ])  # fmt: skip
    trace = load_trace(path)
    assistants = [s for s in trace.sources if s.kind == "assistant"]
    assert [(s.key, s.text) for s in assistants] == [("p2", "Reading app.py first.")]
    assert [s.key for s in trace.sources if s.kind == "tool_call"] == ["toolu_9"]
    assert trace.source("r1") is not None and trace.source("r1").kind == "tool_result"


def test_a_path_the_exporter_redacted_is_no_evidence_against_the_summary_that_names_it(tmp_path: Path) -> None:
    """zodiacid_8f51d2b8 (zodiacid/zodiacid.com, outside ../shared): Entire exported the log with the Read calls' paths
    replaced by `REDACTED.json` and `REDACTED.md`; S1, written from what the agent read, names the files, and each
    was warned as a dead pointer. The reader marks a call whose path was redacted (`model.REDACTED_PATH`), and a
    summary's unresolved path of a kind redacted before it is a note; one of another kind is still a warning."""
    calls = [{"type": "tool_use", "id": f"toolu_{n}", "name": "Read", "input": {"file_path": path}}
             for n, path in enumerate(("REDACTED.json", "/home/me/.REDACTED.md"))]  # fmt: skip
    path = write(tmp_path / "redacted.jsonl", [
        user("u1", None, "Validate the reports against the posts."),
        assistant("a1", "u1", [text("Reading the report data."), calls[0]]),
        user("r1", "a1", [{"type": "tool_result", "tool_use_id": "toolu_0", "content": '{"report_id": "N_20"}'}]),
        assistant("a2", "r1", [calls[1]]),
        user("r2", "a2", [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "# Natal report"}]),
        record("b1", None, "system", subtype="compact_boundary", logicalParentUuid="r2"),
        user("s1", "b1", "Summary:\n- Read reports/N_20/report_data.json and reports/N_20/report_en.md.\n"
                         "- Next: update reports/N_20/chart.svg.", isCompactSummary=True),
    ])  # fmt: skip
    trace = load_trace(path)
    assert [s.extra.get("redacted_path") for s in trace.sources if s.kind == "tool_call"] == [".json", ".md"]
    found = {f.evidence["key"]: f.severity for f in analyze(trace).findings if f.rule == "unresolved-anchor"}
    assert found == {"reports/N_20/report_data.json": Severity.INFO, "reports/N_20/report_en.md": Severity.INFO,
                     "reports/N_20/chart.svg": Severity.WARNING}  # fmt: skip


def test_boundary_without_summary_still_makes_a_generation(tmp_path: Path) -> None:
    path = write(tmp_path / "bare.jsonl", [
        user("u1", None, "Hello."),
        record("b1", None, "system", subtype="compact_boundary", logicalParentUuid="u1"),
        user("u2", "b1", "After."),
    ])  # fmt: skip
    trace = load_trace(path)
    assert [g.text for g in trace.generations[1:]] == [None]
    assert [(n.rule, n.generation) for n in trace.notices] == [("summary-unavailable", 1)]


# --- bad and drifting input -------------------------------------------------------------------------


def test_malformed_middle_line_is_skipped_with_a_notice(tmp_path: Path) -> None:
    path = write(tmp_path / "broken.jsonl", [
        user("u1", None, "First."),
        assistant("a1", "u1", [text("One.")]),
        '{"parentUuid": "a1", "type": "user", "uuid": "u2", "message": {"role": "user", "conte',
        user("u3", "u2", "Third, whose parent was on the broken line."),
        assistant("a3", "u3", [text("Three.")]),
    ])  # fmt: skip
    trace = load_trace(path)
    assert [s.key for s in trace.sources if s.namespace == "transcript"] == ["u1", "a1", "u3", "a3"]
    [notice] = trace.notices
    assert notice.rule == "malformed-line" and notice.severity is Severity.WARNING
    assert notice.generation is None and notice.message.startswith(f"{path}:3: ")


def test_unknown_types_and_fields_are_counted_not_fatal(tmp_path: Path) -> None:
    path = write(tmp_path / "drift.jsonl", [
        user("u1", None, "Hi.", brandNewField={"x": 1}),
        {"type": "hologram", "sessionId": "sess-1", "payloadish": 1},
        {"type": "hologram", "sessionId": "sess-1"},
        assistant("a1", "u1", [text("Hello."), {"type": "server_tool_use", "id": "s1", "name": "web"}]),
        [1, 2, 3],
    ])  # fmt: skip
    trace = load_trace(path, format="claude-code")
    assert trace.extra["unknown_types"]["hologram"] == 2
    assert trace.extra["unknown_fields"] == {"brandNewField": 1}
    assert trace.source("u1").extra["fields"] == {"brandNewField": {"x": 1}}
    assert [n.rule for n in trace.notices] == ["malformed-line", "records-set-aside"]
    assert trace.notices[1].message.endswith("2 of 5 lines are not in the chain: 2 unknown type")


@pytest.mark.parametrize("session", [STORY, VSLA], ids=["story", "vsla"])
def test_typed_and_exact_decoding_read_the_same_session(tmp_path: Path, session: Path) -> None:
    """Known lines take the typed decoder, lines with a field it does not know the exact dict path: a
    session read either way must give the same turns, summaries and counts."""
    require_shared(session)
    records = [json.loads(line) for line in session.read_text().splitlines() if line.strip()]
    drifted = write(tmp_path / "drifted.jsonl", [{**r, "laterField": 1} for r in records])
    typed, exact = load_trace(session, format="claude-code"), load_trace(drifted, format="claude-code")

    def shape(trace: Any) -> list[tuple[Any, ...]]:
        turns = [(s.key, s.kind, s.authority, s.text, s.timestamp) for s in trace.sources]
        return turns + [(g.index, g.text, g.covers, g.extra.get("trigger")) for g in trace.generations]

    assert shape(exact) == shape(typed)
    assert len(typed.sources) > 20
    per_file = ("unknown_fields", "unknown_types", "raw_records")  # the two files' own: where lines start
    counted = {k: v for k, v in exact.extra.items() if k not in per_file}
    assert counted == {k: v for k, v in typed.extra.items() if k not in per_file}
    assert list(exact.extra["unknown_fields"]) == ["laterField"]
    assert "unknown_fields" not in typed.extra or typed.extra["unknown_fields"] == {}
    assert all(s.extra.get("fields") in (None, {"laterField": 1}) for s in exact.sources)


def test_an_agent_teams_messages_are_another_agents_turns(tmp_path: Path) -> None:
    """An agent team's messages come as user records with no origin field (Claude Code 2.1.42, cybervpn_8ed0e767 in
    fresh set 34): the lead's task assignment in a teammate's session, a teammate's idle notice in the lead's. Read
    as the person's, they counted among the user's messages a summary is judged by; the person's own words beside
    them stay theirs."""
    lead = ('<teammate-message teammate_id="team-lead">\n{"type":"task_assignment","taskId":"17","subject":"UI-6: '
            'Add i18n strings"}\n</teammate-message>')
    idle = '<teammate-message teammate_id="ui-dev" color="yellow">\n{"type":"idle_notification"}\n</teammate-message>'
    trace = load_trace(write(tmp_path / "team.jsonl", [
        user("u1", None, lead), assistant("a1", "u1", [text("On it.")]),
        user("u2", "a1", idle), user("u3", "u2", "Keep the old keys."),
    ]))  # fmt: skip
    assert [(s.key, s.authority) for s in trace.sources if s.kind == "user"] == [
        ("u1", "subagent"), ("u2", "subagent"), ("u3", "user")]


def test_a_failed_tool_result_is_read_from_tool_use_result_on_both_paths(tmp_path: Path) -> None:
    """`toolUseResult` is skipped unbuilt on the typed path; its error flag must still mark the result."""
    lines = [
        user("u1", None, "Run it."),
        assistant("a1", "u1", [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "make"}}]),
        user("r1", "a1", [{"type": "tool_result", "tool_use_id": "t1", "content": "boom"}],
             toolUseResult="Error: make failed"),
        assistant("a2", "r1", [{"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "ls"}}]),
        user("r2", "a2", [{"type": "tool_result", "tool_use_id": "t2", "content": "ok"}],
             toolUseResult={"stdout": "ok", "is_error": False}),
        assistant("a3", "r2", [{"type": "tool_use", "id": "t3", "name": "Bash", "input": {"command": "rm x"}}]),
        user("r3", "a3", [{"type": "tool_result", "tool_use_id": "t3", "content": "denied"}],
             toolUseResult={"stderr": "denied", "is_error": True}),
    ]  # fmt: skip
    for extra in ({}, {"laterField": 1}):
        path = write(tmp_path / f"t{len(extra)}.jsonl", [{**r, **extra} for r in lines])
        kinds = {s.key: s.kind for s in load_trace(path, format="claude-code").sources}
        assert (kinds["r1"], kinds["r2"], kinds["r3"]) == ("tool_error", "tool_result", "tool_error")


def test_torn_last_line_loads_with_a_warning(tmp_path: Path) -> None:
    path = write(tmp_path / "live.jsonl", [
        user("u1", None, "Still typing?"),
        assistant("a1", "u1", [text("Working.")]),
        '{"parentUuid": "a1", "type": "assistant", "uuid": "a2", "message": {"content": [{"type": "te',
    ], newline_at_end=False)  # fmt: skip
    trace = load_trace(path)
    assert [s.key for s in trace.sources if s.namespace == "transcript"] == ["u1", "a1"]
    assert [(n.rule, n.severity) for n in trace.notices] == [("torn-last-line", Severity.WARNING)]
    assert ":3:" in trace.notices[0].message


@pytest.mark.parametrize("content", [b"", b"\n\n  \n", b"\x00\x01\xff\xfe garbage \x00\n\x89PNG\r\n"])
def test_empty_and_binary_files_raise_trace_read_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "session.jsonl"
    path.write_bytes(content)
    for format_name in ("auto", "claude-code"):
        with pytest.raises(TraceReadError) as caught:
            load_trace(path, format=format_name)
        assert caught.value.path == str(path)


def test_lines_that_are_all_invalid_raise(tmp_path: Path) -> None:
    path = tmp_path / "junk.jsonl"
    path.write_text("not json\n{still not\n")
    with pytest.raises(TraceReadError, match="no JSON record"):
        load_trace(path, format="claude-code")


def test_zstd_compressed_session_loads(tmp_path: Path) -> None:
    packed = tmp_path / "three_compactions.jsonl.zst"
    packed.write_bytes(zstandard.ZstdCompressor().compress(STORY.read_bytes()))
    assert detect_format(packed) == "claude-code"
    trace = load_trace(packed)
    plain = load_trace(STORY)
    assert trace.generations == plain.generations and trace.sources == plain.sources


def test_sniff_rejects_native_and_codex() -> None:
    assert claude_code.sniff(STORY.read_bytes()[:65536])
    assert not claude_code.sniff(b'{"format": "compaction-trace/1", "id": "x", "sources": [], "generations": []}')
    codex_head = CODEX_STORY.read_bytes()[:65536]
    assert not claude_code.sniff(codex_head)
    # A first record longer than the head is recognised by its keys.
    long_first = b'{"parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"content":"' + b"x" * 70000
    assert claude_code.sniff(long_first[:65536])


# --- sub-agent logs ----------------------------------------------------------------------------------


def test_sidechain_paths_lists_this_sessions_agents(tmp_path: Path) -> None:
    session = write(tmp_path / "sess-1.jsonl", [user("u1", None, "Delegate the search.")])
    mine = write(tmp_path / "agent-aa11.jsonl", [
        user("c1", None, "Search the repo for TODOs.", isSidechain=True, agentId="aa11"),
        assistant("c2", "c1", [text("Found 3 TODOs in src/app.py.")], isSidechain=True, agentId="aa11"),
    ])  # fmt: skip
    other = user("o1", None, "Other session.", isSidechain=True)
    write(tmp_path / "agent-bb22.jsonl", [{**other, "sessionId": "sess-2"}])
    nested_dir = tmp_path / "sess-1" / "subagents"
    nested_dir.mkdir(parents=True)
    nested = write(nested_dir / "agent-cc33.jsonl", [user("n1", None, "Nested agent.", isSidechain=True)])
    assert sidechain_paths(session) == [nested, mine]
    agent = load_trace(mine)
    assert agent.format == "claude-code" and agent.extra["subagent"] is True
    assert [s.key for s in agent.sources if s.namespace == "transcript"] == ["c1", "c2"]
    assert agent.id == "sess-1/agent-aa11"


# --- arbitrary records of the right shape: the reader itself raises nothing but TraceReadError ---------

_leaf = st.none() | st.booleans() | st.integers(-2, 2) | st.sampled_from(["u1", "u2", "a1", "t1", "", "Error: x"])
_value = st.recursive(_leaf, lambda c: st.lists(c, max_size=3) | st.dictionaries(
    st.sampled_from(["type", "text", "id", "content", "input", "name", "tool_use_id", "is_error", "file_path"]),
    c, max_size=3), max_leaves=8)  # fmt: skip
_block = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "tool_use", "tool_result", "thinking", "image"]) | _value},
    optional={"text": _value, "id": _value, "input": _value, "name": _value, "content": _value,
              "tool_use_id": _value, "is_error": _value},
)  # fmt: skip
_attachment = st.fixed_dictionaries(
    {"type": st.sampled_from(["queued_command", "edited_text_file", "file"]) | _value},
    optional={"prompt": _value, "commandMode": _value, "origin": _value, "filename": _value},
)  # fmt: skip
_record = st.fixed_dictionaries(
    {"type": st.sampled_from(["user", "assistant", "system", "summary", "attachment", "progress", "queue-operation",
                              "x"]) | _value},
    optional={"uuid": st.sampled_from(["u1", "u2", "a1", None, 3]), "parentUuid": st.sampled_from(["u1", "a1", None]),
              "logicalParentUuid": _value, "isSidechain": _value, "isCompactSummary": _value,
              "subtype": st.sampled_from(["compact_boundary", "microcompact_boundary"]) | _value,
              "compactMetadata": _value, "toolUseResult": _value, "attachment": _attachment | _value,
              "sessionId": _value, "operation": st.sampled_from(["enqueue", "dequeue", "remove"]) | _value,
              "content": _value, "timestamp": st.sampled_from(["t1", "t2"]) | _value,
              "message": st.fixed_dictionaries({}, optional={"id": _value, "content": st.lists(_block, max_size=3)})
              | _value},
)  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(records=st.lists(_record, max_size=6), tail=st.sampled_from([b"", b"\n", b"\n{torn", b"\n[1]\n"]))
def test_reader_raises_only_trace_read_error(records: list[dict[str, Any]], tail: bytes) -> None:
    read_raises_only_its_error(claude_code.read, records, tail, "session.jsonl")


def test_instruction_files_the_harness_loads_resolve_without_a_record(tmp_path: Path) -> None:
    """portcli: 'Source (base) CLIENT_ID … from MEMORY.md' names the auto-memory file Claude Code put in the
    context before the first turn; no record shows it, and it is no unresolved anchor. A file the agent never
    saw still is."""
    path = write(tmp_path / "memory.jsonl", [
        user("u1", None, "Migrate the blueprints to the new org."),
        assistant("a1", "u1", [text("Migrating.")]),
        record("b1", None, "system", subtype="compact_boundary", logicalParentUuid="a1",
               compactMetadata={"trigger": "auto", "preTokens": 5000}),
        user("s1", "b1", "Summary: the client ids come from MEMORY.md and the rules from CLAUDE.md; the export "
             "goes to exports/blueprints_2026.json.", isCompactSummary=True),
    ])  # fmt: skip
    unresolved = [f.message for f in analyze(load_trace(path)).findings if f.rule == "unresolved-anchor"]
    assert len(unresolved) == 1 and "exports/blueprints_2026.json" in unresolved[0]


def _snapshot(message: str, *files: str) -> dict[str, Any]:
    """A `file-history-snapshot` record as Claude Code 2.x writes one after the agent changes a file."""
    backups = {name: {"backupFileName": None, "version": 1, "backupTime": "2026-02-12T16:25:22.067Z"} for name in files}
    return {"type": "file-history-snapshot", "messageId": message, "isSnapshotUpdate": True,
            "snapshot": {"messageId": "u1", "trackedFileBackups": backups, "timestamp": "2026-02-12T16:19:49.962Z"}}


def test_a_file_the_snapshot_names_resolves_where_the_exporter_redacted_the_call(tmp_path: Path) -> None:
    """cybervpn (Entire export): the Write call's path was redacted to 'REDACTED.md', and the summary's
    'Created AGENT_TEAM_PHASE9_PROMPT.md' resolved to nothing, though the file-history snapshot after the write
    names the file. A snapshot of a branch the user rewound away from names edits the conversation went back
    on: its file is still unresolved."""
    path = write(tmp_path / "redacted.jsonl", [
        user("u1", None, "Create a phase 9 prompt like the phase 8 one."),
        assistant("a1", "u1", [{"type": "tool_use", "id": "t1", "name": "Write",
                                "input": {"file_path": "REDACTED.md", "content": "# Phase 9"}}]),
        user("r1", "a1", [{"type": "tool_result", "tool_use_id": "t1", "content": "File created"}]),
        _snapshot("a1", "AGENT_TEAM_PHASE9_PROMPT.md"),
        user("x1", "r1", "Also draft a phase 10 prompt."),  # abandoned: the user rewound to r1
        assistant("x2", "x1", [text("Drafting.")]),
        _snapshot("x2", "AGENT_TEAM_PHASE10_PROMPT.md"),
        user("u2", "r1", "Thanks, that's enough."),
        assistant("a2", "u2", [text("Done.")]),
        record("b1", None, "system", subtype="compact_boundary", logicalParentUuid="a2",
               compactMetadata={"trigger": "auto", "preTokens": 5000}),
        user("s1", "b1", "Summary: created AGENT_TEAM_PHASE9_PROMPT.md; AGENT_TEAM_PHASE10_PROMPT.md was not kept.",
             isCompactSummary=True),
    ])  # fmt: skip
    trace = load_trace(path)
    unresolved = [f.message for f in analyze(trace).findings if f.rule == "unresolved-anchor"]
    assert len(unresolved) == 1 and "AGENT_TEAM_PHASE10_PROMPT.md" in unresolved[0], unresolved
    assert ("AGENT_TEAM_PHASE9_PROMPT.md", "resolved", ("file:AGENT_TEAM_PHASE9_PROMPT.md",)) in resolved(trace)[1]
    assert trace.extra["records_by_fate"]["file_history_snapshot"] == 2  # each still counted as what it is


def _relayed(uuid: str, parent: str, call: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """A `progress` record as Claude Code 2.x relays a sub-agent's assistant message into the main log."""
    message = {"type": "assistant", "uuid": f"sub-{uuid}", "timestamp": "2026-03-04T14:15:40.655Z",
               "message": {"role": "assistant", "content": [{"type": "tool_use", "id": f"st-{uuid}", **call}]}}
    return record(uuid, parent, "progress", data={"message": message, "normalizedMessages": [],
                                                   "type": "agent_progress", "prompt": "Explore the frontend.",
                                                   "agentId": "ab97ee2"},
                  toolUseID=f"agent_msg_{uuid}", parentToolUseID="t1", **fields)  # fmt: skip


def test_what_a_sub_agent_read_and_the_pull_request_the_harness_linked_resolve(tmp_path: Path) -> None:
    """changelogue_5db57fef (Entire export, main log only): an Explore sub-agent read `components/ui/card.tsx`, and
    the main log holds its calls only in the `agent_progress` records relaying them; wfc_e2e7a891: the summary names
    the pull request a `pr-link` record links the session to, before any command's output printed its address.
    Both resolved to nothing. A sub-agent call relayed on a branch the user rewound away from is still unresolved,
    and so is a file no record names."""
    card = "/Users/pc/web3/ReleaseBeacon/web/components/ui/card.tsx"
    pull = "https://github.com/sam-fakhreddine/wfc/pull/28"
    path = write(tmp_path / "relayed.jsonl", [
        user("u1", None, "Study the design system, then open the pull request."),
        assistant("a1", "u1", [{"type": "tool_use", "id": "t1", "name": "Task",
                                "input": {"description": "Explore", "prompt": "Explore the frontend."}}]),
        _relayed("p1", "a1", {"name": "Read", "input": {"file_path": card}}),
        _relayed("p2", "a1", {"name": "Edit", "input": {"file_path": "/tmp/x/notes.md", "old_string": "a",
                                                         "new_string": "b"}}),  # fmt: skip
        user("r1", "a1", [{"type": "tool_result", "tool_use_id": "t1", "content": "Cards use rounded-xl borders."}]),
        {"type": "pr-link", "sessionId": "sess-1", "prNumber": 28, "prUrl": pull,
         "prRepository": "sam-fakhreddine/wfc", "timestamp": "2026-03-04T14:20:00.000Z"},
        user("x1", "r1", "Also look at the badge."),  # abandoned: the user rewound to r1
        assistant("x2", "x1", [{"type": "tool_use", "id": "t2", "name": "Task", "input": {"prompt": "Badge."}}]),
        _relayed("p3", "x2", {"name": "Read", "input": {"file_path": "/Users/pc/web3/ui/badge.tsx"}}),
        user("u2", "r1", "Thanks."),
        assistant("a2", "u2", [text("Done.")]),
        record("b1", None, "system", subtype="compact_boundary", logicalParentUuid="a2",
               compactMetadata={"trigger": "auto", "preTokens": 5000}),
        user("s1", "b1", f"Summary: the design system lives in {card}; PR opened at {pull}. The badge is "
             "/Users/pc/web3/ui/badge.tsx and the tokens are in web/styles/tokens.css.", isCompactSummary=True),
    ])  # fmt: skip
    trace = load_trace(path)
    unresolved = sorted(f.message for f in analyze(trace).findings if f.rule == "unresolved-anchor")
    assert len(unresolved) == 2 and "badge.tsx" in unresolved[0] and "tokens.css" in unresolved[1], unresolved
    assert not any(source.author == "user" and "notes.md" in source.text for source in trace.sources)
    assert trace.extra["records_by_fate"]["progress"] == 3  # each still counted as what it is


def test_plan_modes_plan_file_resolves_in_any_spelling_of_the_home_folder(tmp_path: Path) -> None:
    """apollo: the summary's 'Write the Phase 2 plan to /Users/devs/.claude/plans/snazzy-frolicking-iverson.md' named
    the plan file plan mode gives the agent, named for the session's slug in a reminder the log does not keep. Another
    session's plan file, and a slug that is no slug, resolve to nothing."""
    def session(slug: str) -> Path:
        return write(tmp_path / f"{len(slug)}.jsonl", [
            user("u1", None, "Plan phase 2.", slug=slug),
            assistant("a1", "u1", [text("Reading the mitigation plan.")], slug=slug),
            record("b1", None, "system", subtype="compact_boundary", logicalParentUuid="a1",
                   compactMetadata={"trigger": "auto", "preTokens": 5000}),
            user("s1", "b1", "Summary: write the plan to /Users/devs/.claude/plans/snazzy-frolicking-iverson.md "
                 "(also ~/.claude/plans/snazzy-frolicking-iverson.md), not /Users/devs/.claude/plans/old-plan.md.",
                 isCompactSummary=True),
        ])  # fmt: skip

    unresolved = [f.message for f in analyze(load_trace(session("snazzy-frolicking-iverson"))).findings
                  if f.rule == "unresolved-anchor"]  # fmt: skip
    assert len(unresolved) == 1 and "old-plan.md" in unresolved[0], unresolved
    given = load_trace(session("snazzy-frolicking-iverson")).harness_loaded
    assert ".claude/plans/snazzy-frolicking-iverson.md" in given
    assert not any("plans" in name for name in load_trace(session("x/../../.ssh/id")).harness_loaded)  # no slug
