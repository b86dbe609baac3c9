"""The acceptance criteria of the issue the user set the agent on, and whether each summary keeps them.

The issue text is from ../shared/real_traces/wider (the readable half), cut short.
"""

from __future__ import annotations

import json

from inspector.analysis import analyze
from inspector.model import Generation, SourceRecord, Trace
from inspector.shell_runs import shell_runs
from inspector.task_spec import Criterion, criteria, criterion_items

ISSUE = (
    "## Proposal: `sequant merge --check`\n\nA new command that runs AFTER `sequant run`.\n\n"
    "## Acceptance Criteria\n\n"
    "### AC-1: Combined branch testing\n- [ ] Create temp branch merging all feature branches from a run\n"
    "- [ ] Clean up temp branch after check\n\n"
    "### AC-7: Benchmark baseline\n- [ ] Run against historical batch (run b4030aa9: #265, #298)\n"
    "- [ ] Calculate detection rate: `(findings also found by human) / (total human findings)`\n\n"
    "## Test Plan\n\n- [ ] Run `sequant merge --check` immediately after\n"
)


def typed(key: str, text: str) -> SourceRecord:
    return SourceRecord(key=key, text=text, namespace="transcript", kind="user", authority="user")


def fetched(key: str, command: str, output: str) -> SourceRecord:
    return SourceRecord(key=key, text=output, namespace="transcript", kind="tool_result", authority="tool",
                        extra={"command": command})  # fmt: skip


def test_each_sub_heading_under_acceptance_criteria_is_one_criterion_and_the_next_section_is_not() -> None:
    assert criteria(ISSUE) == [
        Criterion("AC-1", "Combined branch testing: Create temp branch merging all feature branches from a run; "
                          "Clean up temp branch after check"),
        Criterion("AC-7", "Benchmark baseline: Run against historical batch (run b4030aa9: #265, #298); Calculate "
                          "detection rate: `(findings also found by human) / (total human findings)`"),
    ]  # fmt: skip
    flat = "## Acceptance criteria\n- [ ] exit code 2 on bad input\n- [x] one line per error\n## Notes\n- [ ] later"
    assert criteria(flat) == [Criterion(None, "exit code 2 on bad input"), Criterion(None, "one line per error")]
    assert criteria("## Problem\n- [ ] something") == []


def test_only_an_issue_a_typed_prompt_names_is_the_task() -> None:
    body = json.dumps({"body": ISSUE, "title": "feat: merge --check"})
    named = [typed("u1", "fullsolve 313"), fetched("t1", "gh issue view 313 --json title,body", body)]
    assert [item.text.split(":")[0] for item in criterion_items(named, shell_runs(named))] == ["#313 AC-1", "#313 AC-7"]
    looked_up = [typed("u1", "fix the flaky test"), fetched("t1", "gh issue view 313 --json title,body", body)]
    assert list(criterion_items(looked_up, shell_runs(looked_up))) == []


def session(*summaries: str) -> Trace:
    records = [typed("u1", "fullsolve 313"), fetched("t1", "gh issue view 313", ISSUE)]
    keys = tuple(r.key for r in records)
    generations = [Generation(0, "raw", "\n".join(r.text for r in records), covers=keys)]
    generations += [Generation(k, "summary", text, parent=k - 1, covers=keys) for k, text in enumerate(summaries, 1)]
    return Trace("fixture", "claude-code", tuple(records), tuple(generations), extra={"meta": {"session_log": True}})


def lost(trace: Trace) -> list[tuple[int | None, str]]:
    return [(f.generation, f.message.split(":")[0]) for f in analyze(trace).findings if f.rule == "task-criterion-lost"]


def test_a_summary_that_names_neither_the_label_nor_what_it_asks_loses_the_criterion() -> None:
    first = "Implemented AC-1: the combined branch test creates a temp branch and cleans it up."
    second = "Reviewed every criterion, AC-1 to 7, against the code; the benchmark is next."
    assert lost(session(first, second)) == [(1, "acceptance criterion “#313 AC-7")]
