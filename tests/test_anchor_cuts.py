"""A summary's keys resolve against what came before its compaction, never against records written after it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspector.analysis import analyze
from inspector.anchors import AnchorIndex, AnchorStatus, extract_anchors
from inspector.model import Generation, Trace
from inspector.places import RecordPlaces
from inspector.readers import load_trace, native
from tests.helpers import record
from tests.test_reader_claude_code import assistant, text, user, write
from tests.test_reader_claude_code import record as log_record


def session(tmp_path: Path, *steps: str | tuple[str, str]) -> Trace:
    """A Claude Code 2.x log: each step a user's message, or ("summary", text) for a compaction with that summary."""
    records: list[dict[str, Any]] = []
    parent: str | None = None
    for number, step in enumerate(steps, start=1):
        if isinstance(step, tuple):
            boundary = f"b{number}"
            records.append(log_record(boundary, None, "system", subtype="compact_boundary", logicalParentUuid=parent,
                                      compactMetadata={"trigger": "auto", "preTokens": 150000}))  # fmt: skip
            records.append(user(f"s{number}", boundary, step[1], isCompactSummary=True))
            parent = f"s{number}"
        else:
            records.append(user(f"u{number}", parent, step))
            records.append(assistant(f"a{number}", f"u{number}", [text("On it.")]))
            parent = f"a{number}"
    return load_trace(write(tmp_path / "session.jsonl", records))


def statuses(trace: Trace, key: str) -> list[tuple[int, str, tuple[str, ...]]]:
    """(generation, status, referents) of the key wherever a state prints it."""
    return [(g.generation.index, a.status.value, a.referents)
            for g in analyze(trace).facts.generations for a in g.anchors if a.anchor.key == key]  # fmt: skip


def test_a_key_only_a_later_record_prints_is_unresolved_before_it_and_resolved_once_covered(tmp_path: Path) -> None:
    trace = session(
        tmp_path,
        "Fix the rounding of invoice totals.",
        ("summary", "Rounding fixed. Next: the late fee in src/fees/late.py."),
        "Now open src/fees/late.py and add the late fee.",
        ("summary", "Late fee added in src/fees/late.py."),
        "Thanks.",
    )
    assert statuses(trace, "src/fees/late.py") == [
        (1, "unresolved", ()),  # the only turn printing it came after S1's compaction
        (2, "resolved", ("file:src/fees/late.py",)),  # S2 covers that turn
    ]


def test_ambiguity_that_arises_only_after_the_cut_is_no_ambiguity_before_it(tmp_path: Path) -> None:
    trace = session(
        tmp_path,
        "Limits live in deploy/config.yaml.",
        ("summary", "Limits are in config.yaml."),
        "The staging limits are in ops/config.yaml too.",
        ("summary", "Limits are in config.yaml."),
        "Go on.",
    )
    assert statuses(trace, "config.yaml") == [
        (1, "resolved", ("file:deploy/config.yaml",)),
        (2, "ambiguous", ("file:deploy/config.yaml", "file:ops/config.yaml")),
    ]


def test_a_key_a_summary_inherits_is_not_resolved_by_the_summary_that_printed_it(tmp_path: Path) -> None:
    trace = session(
        tmp_path,
        "Clean up the job runner.",
        ("summary", "Runner cleaned; helpers moved to src/ghost/helpers.py."),
        "Keep going.",
        ("summary", "Helpers are in src/ghost/helpers.py."),
        "Done?",
    )
    assert [status for _, status, _ in statuses(trace, "src/ghost/helpers.py")] == ["unresolved", "unresolved"]


def test_a_folder_resolves_only_once_a_path_under_it_came_before_the_cut(tmp_path: Path) -> None:
    trace = session(
        tmp_path,
        "Start the service.",
        ("summary", "Service code lives under /srv/billing/api."),
        "The handler is /srv/billing/api/handlers.py.",
        ("summary", "Service code lives under /srv/billing/api."),
        "Go on.",
    )
    assert statuses(trace, "/srv/billing/api") == [
        (1, "unresolved", ()),
        (2, "resolved", ("folder:/srv/billing/api",)),
    ]


def test_a_path_typed_before_a_compaction_and_read_after_it_resolves_in_the_log_and_in_its_native_copy(
    tmp_path: Path,
) -> None:
    """The Read call after S1's compaction makes the path a record only S2 covers; the user printed it before."""
    read = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "src/fees/late.py"}}
    path = write(tmp_path / "typed.jsonl", [
        user("u1", None, "The bug is in src/fees/late.py."),
        assistant("a1", "u1", [text("Noted.")]),
        log_record("b1", None, "system", subtype="compact_boundary", logicalParentUuid="a1"),
        user("s1", "b1", "The bug is in src/fees/late.py.", isCompactSummary=True),
        assistant("a2", "s1", [read]),
        user("r2", "a2", [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "def fee(): ..."}]),
    ])  # fmt: skip
    trace = load_trace(path)
    copy = tmp_path / "copy.json"
    native.write(trace, copy)
    for loaded in (trace, load_trace(copy)):
        assert statuses(loaded, "src/fees/late.py") == [(0, "resolved", ("file:src/fees/late.py",)),
                                                       (1, "resolved", ("file:src/fees/late.py",))]  # fmt: skip


# --- native traces: what a state covers, and what a store declares outside the log ----------------------


def chain_with_covers(sources: list[Any], *states: tuple[str, tuple[str, ...]], session_log: bool = False) -> Trace:
    generations = [Generation(i, "raw" if i == 0 else "summary", text, parent=i - 1 if i else None, covers=covers)
                   for i, (text, covers) in enumerate(states)]  # fmt: skip
    return Trace(id="t", format="native", sources=tuple(sources), generations=tuple(generations),
                 extra={"meta": {"session_log": True}} if session_log else {})  # fmt: skip


LEDGER = [record("turn:1", "Plan the release.", namespace="transcript"), record("ledger:1", "Rollback plan."),
          record("ledger:2", "Retry cap is 3.")]  # fmt: skip


def test_s0_resolves_against_what_s0_covers() -> None:
    trace = chain_with_covers(
        LEDGER,
        ("raw: see [[ledger:1]] and [[ledger:2]]", ("turn:1", "ledger:1")),
        ("See [[ledger:1]] and [[ledger:2]].", ("turn:1", "ledger:1", "ledger:2")),
    )
    assert [statuses(trace, key) for key in ("ledger:1", "ledger:2")] == [
        [(0, "resolved", ("default:ledger:1",)), (1, "resolved", ("default:ledger:1",))],
        [(0, "unresolved", ()), (1, "resolved", ("default:ledger:2",))],
    ]


def test_a_store_record_no_state_covers_is_seen_by_every_state_unless_the_trace_is_a_session_log() -> None:
    states = (("raw", ("turn:1",)), ("Cap in [[ledger:2]].", ("turn:1",)))
    assert statuses(chain_with_covers(LEDGER, *states), "ledger:2") == [(1, "resolved", ("default:ledger:2",))]
    assert statuses(chain_with_covers(LEDGER, *states, session_log=True), "ledger:2") == [(1, "unresolved", ())]


def test_a_turn_no_state_covers_comes_after_every_compaction() -> None:
    sources = [*LEDGER, record("turn:2", "Use [[ledger:9]].", namespace="transcript")]
    index = AnchorIndex(sources, places=RecordPlaces({"turn:1": 0}, session_log=False))
    [anchor] = extract_anchors("[[turn:2]]")
    assert [index.resolve(anchor, cut).status for cut in (0, 1, None)] == [
        AnchorStatus.UNRESOLVED, AnchorStatus.UNRESOLVED, AnchorStatus.RESOLVED]  # fmt: skip


def test_a_short_hex_id_binds_to_the_longer_one_the_log_printed(tmp_path: Path) -> None:
    """safecast-map-MCP: `md5sum` printed `ea5ee3964bef2dcbb0e0d14c81b84ed7  /root/…/safecast-mcp`, and the
    summary compared checksums as `ea5ee39`: the head of an id the log printed is no dead pointer."""
    trace = session(
        tmp_path,
        "The server answers oddly: ea5ee3964bef2dcbb0e0d14c81b84ed7  /root/server/mcp is what md5sum says there.",
        ("summary", "The server binary (ea5ee39) differs from the local build; 50052e5 was never printed."),
        "Deploy again.",
    )
    assert statuses(trace, "ea5ee39") == [(1, "resolved", ("commit:ea5ee3964bef2dcbb0e0d14c81b84ed7",))]
    assert statuses(trace, "50052e5") == [(1, "unresolved", ())]


def test_a_short_sha_and_the_full_sha_it_begins_are_one_commit_not_two(tmp_path: Path) -> None:
    """port-cli: `git log` printed 10ed3d3 and `git rev-parse` 10ed3d3170ca…: one commit in two spellings."""
    trace = session(
        tmp_path,
        "Pushed 10ed3d3 (fix: import) — rev-parse says 10ed3d3170ca29836d4ec3cfbce0ca1b0ad5d701.",
        ("summary", "Commit 10ed3d3 is on the branch."),
        "Next.",
    )
    in_summary = [(g, status, len(referents)) for g, status, referents in statuses(trace, "10ed3d3") if g > 0]
    assert in_summary == [(1, "resolved", 2)]
    other = session(tmp_path, "The build id is 10ed3d3g1.", ("summary", "See 10ed3d3."), "Go.")
    assert statuses(other, "10ed3d3") == [(1, "unresolved", ())]  # a word going on past the hex is another id


def unresolved_at(path: Path) -> dict[str, str]:
    return {f.evidence["key"]: f.severity.value for f in analyze(load_trace(path)).findings
            if f.rule == "unresolved-anchor"}  # fmt: skip


def test_a_log_that_holds_no_start_of_its_session_reports_its_unbound_keys_as_notes(tmp_path: Path) -> None:
    """cli_0cf3db51 (fresh33, labelled blind: S1 not faithful for other reasons) is an Entire checkpoint's transcript
    from the checkpoint on: its first record's parent is in no line of the file, and S1, which summarised the
    session before the file too, was warned that `ENT-112` (the ticket its branch is named for) and a test file
    resolve to nothing. ohmyposh_030df228 opens on a compaction whose logical parent is in another file. In both the
    session's start is elsewhere; a log that holds it is judged as ever."""
    summary = "Continue ENT-112: fix cmd/entire/cli/auto_commit_test.go after reading src/fees/late.py."
    steps = [user("u1", "p0", "Read src/fees/late.py again."), assistant("a1", "u1", [text("Done.")]),
             log_record("b1", None, "system", subtype="compact_boundary", logicalParentUuid="a1"),
             user("s1", "b1", summary, isCompactSummary=True)]  # fmt: skip
    notes = {"ENT-112": "info", "cmd/entire/cli/auto_commit_test.go": "info"}
    assert unresolved_at(write(tmp_path / "slice.jsonl", steps)) == notes
    continued = [log_record("b0", None, "system", subtype="compact_boundary", logicalParentUuid="gone"),
                 user("s0", "b0", summary, isCompactSummary=True), user("u2", "s0", "go on")]  # fmt: skip
    assert unresolved_at(write(tmp_path / "continued.jsonl", continued)) == {
        **notes, "src/fees/late.py": "info"}  # fmt: skip
    whole = [user("u1", None, "Read src/fees/late.py again."), *steps[1:]]
    assert unresolved_at(write(tmp_path / "whole.jsonl", whole)) == {
        "ENT-112": "warning", "cmd/entire/cli/auto_commit_test.go": "warning"}  # fmt: skip
