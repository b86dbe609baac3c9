"""An analysis focused on one state: the same findings there as a full analysis, for the cost of that state.

The guard judges only the newest summary (`guard_check.restored_items`), so it analyses with a focus on it and runs
only the rules whose findings it gives back. These tests hold both halves of that bargain: nothing found differs
(every state of every pinned session, every rule), and the other summaries are not worked on.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.analysis import analyze
from inspector.guard_check import guard_rules, restored_items
from inspector.model import SourceRecord, Trace
from inspector.per_state import PerState
from inspector.readers import load_trace
from inspector.statements import USER_KINDS
from tests.helpers import ONE_OF_EACH, REAL_TRACES, SAMPLES, needs_shared, session_log, shared_files

PINNED_REAL = shared_files(REAL_TRACES, "*/*.jsonl")
"""The real sessions of ../shared (labelled and wider)."""


def long_session(summaries: int) -> Trace:
    """A session log of `summaries` compactions: the user's rules said early, a failure, a commit, and summaries
    that in turn keep the rules, drop one, and weaken the other."""
    records = [
        SourceRecord("u1", "Never touch the staging database; only the local one.", namespace="transcript",
                     kind="user", authority="user"),
        SourceRecord("u2", "Don't push to main without a review.", namespace="transcript", kind="user",
                     authority="user"),
        SourceRecord("r1", "FAILED tests/test_api.py::test_login - AssertionError", namespace="transcript",
                     kind="tool_error", authority="tool",
                     extra={"command": "pytest tests/test_api.py", "tool": "Bash"}),
        SourceRecord("r2", "[main 1a2b3c4] Add login view\n 1 file changed", namespace="transcript",
                     kind="tool_result", authority="tool",
                     extra={"command": "git commit -m 'Add login view'", "tool": "Bash"}),
    ]  # fmt: skip
    kept = ("Never touch the staging database; only the local one. Don't push to main without a review. "
            "Commit 1a2b3c4 added the login view; tests/test_api.py::test_login still fails.")  # fmt: skip
    dropped = "Commit 1a2b3c4 added the login view. The failing test in tests/test_api.py is fixed."
    weakened = "Touching the staging database is fine when careful. Don't push to main without a review."
    texts = [(kept, dropped, weakened)[k % 3] for k in range(summaries)]
    return session_log(records, *((len(records), text) for text in texts))


def every_state_alike(trace: Trace) -> None:
    full = analyze(trace)
    for k in range(len(trace.generations)):
        focused = analyze(trace, focus=k).findings
        assert focused == tuple(f for f in full.findings if f.generation == k), f"{trace.id} S{k}"


@pytest.mark.parametrize("path", [*ONE_OF_EACH.values(), *sorted(SAMPLES.glob("*.json"))], ids=lambda p: p.name)
def test_a_focused_analysis_finds_at_its_state_what_a_full_one_does(path: Path) -> None:
    every_state_alike(load_trace(path))


@needs_shared(REAL_TRACES)
@pytest.mark.parametrize("path", PINNED_REAL, ids=lambda p: p.name)
def test_a_focused_analysis_of_a_real_session_finds_what_a_full_one_does(path: Path) -> None:
    every_state_alike(load_trace(path))


def test_a_long_chain_focused_on_any_summary_finds_what_a_full_analysis_does() -> None:
    trace = long_session(9)
    full = analyze(trace)
    assert {f.rule for f in full.findings} >= {"user-statement-lost", "user-statement-weakened"}
    every_state_alike(trace)


def test_the_guard_reads_only_the_newest_summary_and_the_state_before_it() -> None:
    """What the guard's rules read of a long chain: the users' items in the newest summary and in the one before
    ("still lost"), in no other; and only the newest summary's claims. (Commits and pull requests are matched in
    every summary: one an earlier summary recorded is settled, `completed-actions-lost`.)"""
    trace = long_session(12)
    newest = len(trace.generations) - 1
    facts = analyze(trace, rules=guard_rules(), focus=newest).facts
    claimed = [g.generation.index for g in facts.generations if "status_claims" in vars(g)]
    assert claimed == [newest]
    for track in facts.invariants:
        if track.invariant.kind in USER_KINDS:
            assert isinstance(track.matches, PerState)
            assert [k for k in range(len(trace.generations)) if track.matches.read(k)] in ([newest],
                                                                                         [newest - 1, newest])
    assert restored_items(trace)[1], "the newest summary weakened a rule: the guard gives it back"


def test_per_state_values_are_worked_out_once_each_and_read_like_a_tuple() -> None:
    calls: list[int] = []
    values = PerState(5, lambda k: calls.append(k) or k * k)
    assert values[3] == 9 and values[-1] == 16 and values[3] == 9
    assert calls == [3, 4]
    assert values[1:4] == (1, 4, 9) and list(values) == [0, 1, 4, 9, 16] and len(values) == 5
    assert sorted(calls) == [0, 1, 2, 3, 4]
    with pytest.raises(IndexError):
        values[5]
