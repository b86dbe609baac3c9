"""Claude Code reader: which records the surviving conversation holds, and what became of every other one.

Sessions here are small excerpts of real logs (ids shortened, text trimmed; the line each shape was seen at
is named), written by the test, so they run on every clone. The real sessions are read in place from
../shared: every record of each is accounted for.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inspector.readers import load_trace
from tests.helpers import LABELLED, REAL_TRACES, REPO, require_shared
from tests.test_reader_claude_code import assistant, record, text, user, write

FIXTURES = sorted((REPO / "tests" / "fixtures" / "claude_code").glob("*.jsonl"))
WIDER = REAL_TRACES / "wider"


def readable_sessions() -> list[Path]:
    """Every real Claude Code session: the top-level ones, labelled/ and wider/ (both halves: half B, held out
    until stop 37, is read now, bench/quality.py)."""
    found = sorted(REAL_TRACES.glob("claude_code*.jsonl")) + sorted(LABELLED.glob("claude_code*.jsonl"))
    found += sorted(WIDER.glob("claude_code*.jsonl"))
    return found or [REAL_TRACES / "claude_code*.jsonl"]


def call(call_id: str, name: str = "Bash", **tool_input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": tool_input or {"command": "ls"}}


def result(uuid: str, parent: str, call_id: str, body: str, **fields: Any) -> dict[str, Any]:
    return user(uuid, parent, [{"type": "tool_result", "tool_use_id": call_id, "content": body}], **fields)


def progress(uuid: str, parent: str, call_id: str) -> dict[str, Any]:
    return record(uuid, parent, "progress", toolUseID=call_id, parentToolUseID=call_id,
                  data={"type": "hook_progress", "hookEvent": "PostToolUse"})  # fmt: skip


def queued(operation: str, content: str | None = None) -> dict[str, Any]:
    base: dict[str, Any] = {"type": "queue-operation", "operation": operation, "sessionId": "sess-1",
                            "timestamp": "2026-02-02T11:32:28.125Z"}  # fmt: skip
    return base if content is None else {**base, "content": content}


def transcript(trace: Any) -> list[tuple[str, str]]:
    return [(s.key, s.kind) for s in trace.sources if s.namespace == "transcript"]


def notices(trace: Any, rule: str) -> list[str]:
    return [n.message for n in trace.notices if n.rule == rule]


def fates(trace: Any) -> dict[str, int]:
    return trace.extra["records_by_fate"]


# --- parallel tool calls: every result stays ---------------------------------------------------------


def test_each_result_of_parallel_calls_is_on_the_chain(tmp_path: Path) -> None:
    """entirecli_1e0816ef lines 10-17: two Glob calls streamed as two pieces of one message; each result's
    parent is its own call, the next message continues from the last result, so the spine skips the first."""
    path = write(tmp_path / "parallel.jsonl", [
        user("u1", None, "Find the summarise package."),
        assistant("a1", "u1", [text("I'll start by understanding the layout.")], "msg_q"),
        assistant("a2", "a1", [call("t1", "Glob", pattern="**/summarise/*.go")], "msg_q"),
        assistant("a3", "a2", [call("t2", "Glob", pattern="**/strategy/*.go")], "msg_q"),
        progress("p1", "a3", "t1"),
        result("r1", "a2", "t1", "cmd/entire/cli/summarise/summarise.go"),
        progress("p2", "r1", "t2"),
        result("r2", "a3", "t2", "cmd/entire/cli/strategy/manual_commit.go"),
        assistant("a4", "r2", [text("There's already a `summarise` package.")], "msg_r"),
    ])  # fmt: skip
    trace = load_trace(path)
    assert transcript(trace) == [("u1", "user"), ("a1", "assistant"), ("t1", "tool_call"), ("t2", "tool_call"),
                                 ("r1", "tool_result"), ("r2", "tool_result"), ("a4", "assistant")]  # fmt: skip
    assert trace.source("r1").text == "cmd/entire/cli/summarise/summarise.go"
    assert trace.extra["abandoned_records"] == 0 and not trace.notices
    assert fates(trace) == {"turn": 7, "progress": 2}


def test_a_streamed_piece_off_the_spine_keeps_its_call_and_result(tmp_path: Path) -> None:
    """entirecli_6113e919 lines 7-12: the second Task call's piece hangs off the first piece, its result off
    it, and the next message continues from the first call's result: call and result both off the spine."""
    path = write(tmp_path / "sibling.jsonl", [
        user("u1", None, "Compare git-ai with Entire CLI."),
        assistant("a1", "u1", [text("I'll analyze both codebases.")], "msg_W"),
        assistant("a2", "a1", [call("t1", "Task", description="Explore git-ai")], "msg_W"),
        assistant("a3", "a2", [call("t2", "Task", description="Explore Entire CLI")], "msg_W"),
        result("r2", "a3", "t2", "Entire CLI attributes by checkpoint."),
        result("r1", "a2", "t1", "git-ai attributes by line."),
        assistant("a4", "r1", [text("## Comparison")], "msg_i"),
    ])  # fmt: skip
    trace = load_trace(path)
    keys = [key for key, _ in transcript(trace)]
    assert keys == ["u1", "a1", "t1", "t2", "r2", "r1", "a4"]
    assert not notices(trace, "tool-result-missing")


def test_pieces_threaded_through_progress_records_are_kept(tmp_path: Path) -> None:
    """sequant_bf976109 lines 10-25: four Bash calls of one message; the second piece's parent is a progress
    record of the first call, off the spine, and the spine runs through the first result and the fourth piece."""
    path = write(tmp_path / "threaded.jsonl", [
        user("u1", None, "Start /fullsolve for issue #313."),
        assistant("a1", "u1", [call("t1", command="gh issue view 313")], "msg_e"),
        progress("p1", "a1", "t1"),
        assistant("a2", "p1", [call("t2", command='git branch -a | grep -i "313"')], "msg_e"),
        assistant("a3", "a2", [call("t3", command="git worktree list")], "msg_e"),
        progress("p2", "a3", "t1"),
        result("r1", "a1", "t1", "feat(run): batch-level QA"),
        progress("p3", "r1", "t2"),
        assistant("a4", "p3", [call("t4", command="ls docs/issues")], "msg_e"),
        progress("p4", "a4", "t2"),
        result("r2", "a2", "t2", "remotes/origin/feature/313-feat-run"),
        result("r3", "a3", "t3", "/repo  main"),
        result("r4", "a4", "t4", "313.md"),
        assistant("a5", "r4", [text("No existing work found for #313.")], "msg_m"),
    ])  # fmt: skip
    trace = load_trace(path)
    assert [key for key, _ in transcript(trace)] == ["u1", "t1", "t2", "t3", "r1", "t4", "r2", "r3", "r4", "a5"]
    assert trace.source("r2").extra["command"] == 'git branch -a | grep -i "313"'


def test_a_rewind_still_drops_the_branch_the_user_left_with_its_calls(tmp_path: Path) -> None:
    path = write(tmp_path / "rewind.jsonl", [
        user("u1", None, "Run the tests."),
        assistant("a1", "u1", [call("t1", command="pytest")], "msg_1"),
        result("r1", "a1", "t1", "3 failed"),
        user("u2", "r1", "Delete the failing tests."),                    # left: the user rewound to r1
        assistant("a2", "u2", [call("t2", command="rm tests/test_x.py")], "msg_2"),
        result("r2", "a2", "t2", ""),
        record("f2", "r2", "attachment", attachment={"type": "edited_text_file", "filename": "tests/test_x.py"}),
        user("u3", "r1", "Fix the failing tests; never delete them."),    # the branch that went on
        assistant("a3", "u3", [text("Fixing them.")], "msg_3"),
    ])  # fmt: skip
    trace = load_trace(path)
    assert [key for key, _ in transcript(trace)] == ["u1", "t1", "r1", "u3", "a3"]
    assert not [s for s in trace.sources if s.namespace == "file"]  # the left branch's edit is not the session's
    assert trace.extra["abandoned_records"] == 4 and fates(trace)["superseded_branch"] == 4
    [said] = notices(trace, "branch-set-aside")
    assert said.startswith("4 records on 1 branch the session left")


def test_a_result_written_late_under_its_call_leaves_no_branch(tmp_path: Path) -> None:
    """docalign_d2807ac8 (fresh65, labelled blind) lines 275-405: a command the agent ran went on in the background;
    the user interrupted, said "Don't launch it anymore; you get blocked and get stopped with no visible result.", and
    the conversation went on. Nine minutes later the command's result was written under its call, and the next turn
    under that result, so following parents back from the end skipped everything said meanwhile: 89 records, the
    user's words among them, set aside as a branch the session left, though S2 quotes them. A result is never a turn
    a branch starts with: the turn before it is the one written before it."""
    path = write(tmp_path / "late.jsonl", [
        user("u1", None, "Run the extraction on the docs."),
        assistant("a1", "u1", [call("t1", command="for f in docs/*.md; do docalign extract $f; done")], "msg_1"),
        user("i1", "a1", [text("[Request interrupted by user]")]),
        user("u2", "i1", "Don't launch it anymore; you get blocked and get stopped with no visible result."),
        assistant("a2", "u2", [text("Good call. Let me investigate the extract command instead.")], "msg_2"),
        result("r1", "a1", "t1", "Command running in background with ID: bf5399b."),  # written late, under its call
        user("n1", "r1", "<task-notification><task-id>bf5399b</task-id><status>completed</status></task-notification>"),
        assistant("a3", "n1", [text("The background extraction finished.")], "msg_3"),
    ])  # fmt: skip
    trace = load_trace(path)
    assert [key for key, _ in transcript(trace)] == ["u1", "t1", "i1", "u2", "a2", "r1", "n1", "a3"]
    assert notices(trace, "branch-set-aside") == []


def test_a_message_interrupted_and_resumed_from_before_it_is_superseded(tmp_path: Path) -> None:
    """entirecli_1e0816ef lines 1070-1080: a thinking-only message cut off by /exit; the resumed session
    answers from the result before it, with a new message."""
    path = write(tmp_path / "resumed.jsonl", [
        user("u1", None, "Has that skill filtering been applied?"),
        assistant("a1", "u1", [call("t1", "Grep", pattern="skill")], "msg_j"),
        result("r1", "a1", "t1", "explain.go:42"),
        assistant("a2", "r1", [text("It uses the summarise package, so yes.")], "msg_N"),  # cut off
        user("u2", "a2", "<command-name>/exit</command-name>"),
        assistant("a3", "r1", [text("No response requested.")], "msg_7"),
    ])  # fmt: skip
    trace = load_trace(path)
    assert [key for key, _ in transcript(trace)] == ["u1", "t1", "r1", "a3"]
    assert fates(trace)["superseded_branch"] == 2


def test_a_result_answering_no_call_of_the_chain_is_no_part_of_it(tmp_path: Path) -> None:
    path = write(tmp_path / "stray.jsonl", [
        user("u1", None, "List the files."),
        assistant("a1", "u1", [call("t1")], "msg_1"),
        result("r1", "a1", "t1", "a.py"),
        result("rx", "a1", "t9", "a call this conversation never made"),
        assistant("a2", "r1", [text("One file.")], "msg_2"),
    ])  # fmt: skip
    trace = load_trace(path)
    assert trace.source("rx") is None and fates(trace)["superseded_branch"] == 1


def test_a_record_without_a_sidechain_flag_is_on_the_main_chain(tmp_path: Path) -> None:
    records = [user("u1", None, "Hello."), assistant("a1", "u1", [text("Hi.")]), user("u2", "a1", "Bye.")]
    path = write(tmp_path / "unflagged.jsonl", [{k: v for k, v in r.items() if k != "isSidechain"} for r in records])
    trace = load_trace(path)
    assert [key for key, _ in transcript(trace)] == ["u1", "a1", "u2"]
    assert trace.extra["subagent"] is False and trace.extra["sidechain_records"] == 0


def test_only_true_marks_a_sidechain_record(tmp_path: Path) -> None:
    """A drifted log may write anything there: a string "false" or a 1 is not a sub-agent's record."""
    path = write(tmp_path / "drifted.jsonl", [
        user("u1", None, "Hello.", isSidechain="false"), assistant("a1", "u1", [text("Hi.")], isSidechain=1),
        user("s1", "a1", "Search the repo.", isSidechain=True),
    ])  # fmt: skip
    trace = load_trace(path)
    assert [key for key, _ in transcript(trace)] == ["u1", "a1"] and trace.extra["sidechain_records"] == 1


def test_a_record_of_several_results_takes_the_error_flag_only_from_its_blocks(tmp_path: Path) -> None:
    """`toolUseResult` describes one call: on a record answering two, only each block's own flag counts."""
    path = write(tmp_path / "two.jsonl", [
        user("u1", None, "Build and list."),
        assistant("a1", "u1", [call("t1", command="make"), call("t2", command="ls")]),
        user("r1", "a1", [{"type": "tool_result", "tool_use_id": "t1", "content": "boom", "is_error": True},
                          {"type": "tool_result", "tool_use_id": "t2", "content": "Makefile"}],
             toolUseResult="Error: make failed"),
    ])  # fmt: skip
    kinds = [s.kind for s in load_trace(path).sources if s.namespace == "transcript"]
    assert kinds == ["user", "tool_call", "tool_call", "tool_error", "tool_result"]


# --- copies: a record written again under its uuid --------------------------------------------------------


def test_history_re_appended_by_a_second_compact_is_read_once(tmp_path: Path) -> None:
    """anthropics/claude-code#92089: a second /compact in one process first re-appends the history before the
    first boundary, uuids, parents and timestamps kept; the turn's stop-hook row then names the last copy as
    its parent, and the new boundary that row."""
    history = [
        user("u1", None, "Port the parser."),
        assistant("a1", "u1", [text("Ported.")]),
    ]
    path = write(tmp_path / "recompact.jsonl", [
        *history,
        record("b1", None, "system", subtype="compact_boundary", logicalParentUuid="a1",
               compactMetadata={"trigger": "manual", "preTokens": 90000}),
        user("s1", "b1", "Summary: the parser was ported.", isCompactSummary=True),
        user("u2", "s1", "Now port the lexer."),
        assistant("a2", "u2", [call("t2", command="make lexer")]),
        result("r2", "a2", "t2", "ok"),
        assistant("a3", "r2", [text("Lexer ported.")]),
        *history,                                                           # the copies
        record("h1", "a1", "system", subtype="stop_hook_summary"),          # follows a3, names the last copy
        record("b2", None, "system", subtype="compact_boundary", logicalParentUuid="h1",
               compactMetadata={"trigger": "manual", "preTokens": 80000}),
        user("s2", "b2", "Summary: parser and lexer ported.", isCompactSummary=True),
        user("u3", "s2", "Port the printer."),
    ])  # fmt: skip
    trace = load_trace(path)
    assert [key for key, _ in transcript(trace)] == ["u1", "a1", "u2", "t2", "r2", "a3", "u3"]
    s1, s2 = trace.generations[1:]
    assert s1.covers == ("u1", "a1") and s2.covers[-1] == "a3"
    assert trace.extra["duplicate_records"] == 2 and trace.extra["abandoned_records"] == 0
    [said] = notices(trace, "records-repeated")
    assert said.startswith("2 records written again under a uuid the log already holds")


def test_a_replayed_compaction_is_counted_once(tmp_path: Path) -> None:
    """On a resume Claude Code replays the segment after the last boundary: boundary, summary and later
    records, uuids and timestamps kept."""
    after = [
        record("b1", None, "system", subtype="compact_boundary", logicalParentUuid="a1"),
        user("s1", "b1", "Summary: the parser was ported.", isCompactSummary=True),
        user("u2", "s1", "Port the lexer."),
    ]
    path = write(tmp_path / "replay.jsonl", [
        user("u1", None, "Port the parser."), assistant("a1", "u1", [text("Ported.")]),
        *after, *after, assistant("a2", "u2", [text("Lexer ported.")]),
    ])  # fmt: skip
    trace = load_trace(path)
    assert len(trace.generations) == 2
    assert [key for key, _ in transcript(trace)] == ["u1", "a1", "u2", "a2"]
    assert fates(trace)["duplicate_uuid"] == 3


def test_another_kind_of_record_under_a_seen_uuid_is_no_copy(tmp_path: Path) -> None:
    """A trimmed fixture gives every record one placeholder uuid (the 2.1 schema fixture, line 42 on):
    a record of another type or subtype under it is a record of its own, not a copy (lines 48 and 51: an
    api_error, then a compact_boundary)."""
    path = write(tmp_path / "placeholder.jsonl", [
        user("[trimmed]", None, "Hello."),
        record("[trimmed]", "[trimmed]", "system", subtype="api_error"),
        record("[trimmed]", "[trimmed]", "system", subtype="compact_boundary", logicalParentUuid="[trimmed]"),
        assistant("[trimmed]", "[trimmed]", [text("Continuing.")]),
    ])  # fmt: skip
    trace = load_trace(path)
    assert len(trace.generations) == 2 and "duplicate_uuid" not in fates(trace)


# --- queued messages ----------------------------------------------------------------------------------------


def test_a_dequeued_message_is_its_user_record_once(tmp_path: Path) -> None:
    """ohmyposh_d3cfdfe7 lines 355-358: enqueue, dequeue, then the prompt's own user record."""
    path = write(tmp_path / "dequeued.jsonl", [
        user("u1", None, "Fix the website."), assistant("a1", "u1", [text("Phase 0 shipped.")]),
        queued("enqueue", "go ahead with phase 1"), queued("dequeue"),
        user("u2", "a1", "go ahead with phase 1"),
    ])  # fmt: skip
    trace = load_trace(path)
    assert [s.text for s in trace.sources if s.kind == "user"] == ["Fix the website.", "go ahead with phase 1"]
    assert fates(trace)["queue_delivered_as_record"] == 1 and fates(trace)["queue_bookkeeping"] == 1


def test_a_message_sent_with_a_tool_result_is_its_attachment_once(tmp_path: Path) -> None:
    """ohmyposh_d3cfdfe7 lines 238-248 (2.1.217): enqueue, the tool result, a queued_command attachment holding
    the message, then the remove naming it; a background task's report comes the same way."""
    notification = "<task-notification>\n<task-id>ab2b3b6a8a3d07c85</task-id>\n<status>completed</status>"
    path = write(tmp_path / "attached.jsonl", [
        user("u1", None, "Render the prompt as SVG."),
        assistant("a1", "u1", [call("t1", command="npm run build")]),
        queued("enqueue", "how does the SVG handle the font?"),
        result("r1", "a1", "t1", "built"),
        record("q1", "r1", "attachment", attachment={
            "type": "queued_command", "prompt": "how does the SVG handle the font?", "commandMode": "prompt",
            "origin": {"kind": "human"}}),
        queued("remove", "how does the SVG handle the font?"),
        queued("enqueue", notification),
        record("q2", "q1", "attachment", attachment={
            "type": "queued_command", "prompt": notification, "commandMode": "task-notification"}),
        queued("remove", notification),
        assistant("a2", "q2", [text("Good question: it embeds the glyphs.")]),
    ])  # fmt: skip
    trace = load_trace(path)
    said = [(s.key, s.authority, s.text) for s in trace.sources if s.kind == "user"]
    assert said == [("u1", "user", "Render the prompt as SVG."), ("q1", "user", "how does the SVG handle the font?"),
                    ("q2", "subagent", notification)]  # fmt: skip
    assert trace.source("q1").extra["via"] == "queue"
    assert fates(trace)["queued_message"] == 2 and fates(trace)["queue_delivered_as_record"] == 2


def test_a_message_removed_mid_turn_with_no_other_record_becomes_a_user_turn(tmp_path: Path) -> None:
    """entirecli_1e0816ef lines 919-938: before 2.1.217 the remove names nothing and no record holds the
    message, yet the agent answers it ("To answer your question - no, ...")."""
    path = write(tmp_path / "removed.jsonl", [
        user("u1", None, "Check the condensed transcript."),
        assistant("a1", "u1", [call("t1", command="go test ./...")]),
        queued("enqueue", "were we including the tool responses as well?"),
        queued("remove"),
        result("r1", "a1", "t1", "ok"),
        assistant("a2", "r1", [text("To answer your question - no, we're not.")]),
    ])  # fmt: skip
    trace = load_trace(path)
    assert [(key, kind) for key, kind in transcript(trace)] == [
        ("u1", "user"), ("t1", "tool_call"), ("queued:3", "user"), ("r1", "tool_result"), ("a2", "assistant")]
    turn = trace.source("queued:3")
    assert (turn.authority, turn.text, turn.extra["via"]) == ("user", "were we including the tool responses as well?",
                                                              "queue")  # fmt: skip


def test_a_message_taken_back_from_the_queue_is_not_what_a_later_remove_delivers(tmp_path: Path) -> None:
    """cli_4b3ddf27 lines 70-375: "wait, let's discuss first" was queued, taken back (`popAll`) and typed on refusing
    the edit; later "oh, please don't amend commits" was queued and removed mid-turn with no record of it, and the agent
    answered "Got it - I won't amend commits going forward". The remove delivers the message still in the queue."""
    path = write(tmp_path / "popped.jsonl", [
        user("u1", None, "Fix the conflict error."),
        assistant("a1", "u1", [call("t1", "Edit", file_path="/repo/hooks.go")]),
        queued("enqueue", "wait, let's discuss first"), queued("popAll", "wait, let's discuss first"),
        result("r1", "a1", "t1", "The user doesn't want to proceed with this tool use. To tell you how to proceed, the "
               "user said:\nwait, let's discuss first"),
        assistant("a2", "r1", [call("t2", command="git commit --amend --no-edit")]),
        queued("enqueue", "oh, please don't amend commits - it messes with the entire workflows"), queued("remove"),
        result("r2", "a2", "t2", "[main 1a2b3c4] fix"),
        assistant("a3", "r2", [text("Got it - I won't amend commits going forward.")]),
    ])  # fmt: skip
    trace = load_trace(path)
    queued_turns = [s.text for s in trace.sources if s.extra.get("via") == "queue"]
    assert queued_turns == ["oh, please don't amend commits - it messes with the entire workflows"]
    assert fates(trace)["queue_taken_back"] == 1 and "queue_not_delivered" not in fates(trace)


def test_a_remove_right_after_a_command_runs_the_command_and_delivers_no_message(tmp_path: Path) -> None:
    """joyusai_b62c46a7 lines 1038-1069: `/omc-setup` queued and removed at once (the harness ran it), then "write to
    memory I need to restart" queued and removed, and the agent wrote its memory file. A report queued earlier and
    taken from the head of the queue by a dequeue whose prompt an interrupt dropped (lines 314-346) is no message the
    removes deliver either."""
    report = "<task-notification>\n<task-id>bjvswqhmt</task-id>\n<status>completed</status>\n</task-notification>"
    path = write(tmp_path / "command.jsonl", [
        user("u1", None, "Set up OMC."),
        queued("enqueue", report), queued("dequeue"),
        user("i1", "u1", [{"type": "text", "text": "[Request interrupted by user]"}]),
        assistant("a1", "i1", [call("t1", command="cat ~/.claude/.omc-config.json")]),
        queued("enqueue", "/omc-setup"), queued("remove"),
        queued("enqueue", "write to memory I need to restart"), queued("remove"),
        result("r1", "a1", "t1", "ALREADY_CONFIGURED=true"),
        assistant("a2", "r1", [call("t2", "Write", file_path="/memory/restart.md")]),
    ])  # fmt: skip
    trace = load_trace(path)
    assert [s.text for s in trace.sources if s.extra.get("via") == "queue"] == ["write to memory I need to restart"]
    path = write(tmp_path / "waiting.jsonl", [
        user("u1", None, "Fix the parser."),
        assistant("a1", "u1", [call("t1", command="go test ./...")]),
        queued("enqueue", "also run the linter"), queued("enqueue", "/model"), queued("remove"),
        result("r1", "a1", "t1", "ok"),
        assistant("a2", "r1", [call("t2", command="golangci-lint run")]),
        queued("remove"),
        result("r2", "a2", "t2", "0 issues"),
    ])  # fmt: skip
    keys = [key for key, _ in transcript(load_trace(path))]
    assert keys.index("r1") < keys.index("queued:3") < keys.index("r2")  # delivered by the second remove


def test_a_message_queued_again_before_its_record_is_the_later_copy_s(tmp_path: Path) -> None:
    """lightprotocol_15dc2f98: a task's report queued at line 609, queued again at 682 and held by the record at 692;
    "no I dont like that we should use contracts", queued at 694, is what the remove at 756 delivers."""
    report = "<task-notification>\n<task-id>bac7f59</task-id>\n<status>completed</status>\n</task-notification>"
    path = write(tmp_path / "again.jsonl", [
        user("u1", None, "Run the Kani harnesses."),
        queued("enqueue", report),
        assistant("a1", "u1", [text("Waiting on the harness.")]),
        queued("enqueue", report), queued("dequeue"),
        user("u2", "a1", report),
        assistant("a2", "u2", [call("t1", "Task", description="Study reference kani patterns")]),
        queued("enqueue", "no I dont like that we should use contracts"), queued("remove"),
        result("r1", "a2", "t1", "patterns studied"),
    ])  # fmt: skip
    trace = load_trace(path)
    assert [s.text for s in trace.sources if s.extra.get("via") == "queue"] == [
        "no I dont like that we should use contracts"]


def test_a_queued_message_delivered_before_a_compaction_is_in_what_it_covers(tmp_path: Path) -> None:
    """sequant_bf976109 lines 1165-1171: removed, then an auto-compaction whose summary quotes it."""
    path = write(tmp_path / "covered.jsonl", [
        user("u1", None, "Fix all gaps."),
        assistant("a1", "u1", [call("t1", "Edit", file_path="/repo/src/batch.ts")]),
        queued("enqueue", "use sub agents or agent teams if needed"),
        result("r1", "a1", "t1", "edited"),
        queued("remove"),
        record("b1", None, "system", subtype="compact_boundary", logicalParentUuid="r1"),
        user("s1", "b1", "Summary: the user asked to use sub agents or agent teams if needed.", isCompactSummary=True),
    ])  # fmt: skip
    trace = load_trace(path)
    assert "queued:3" in trace.generations[1].covers


def test_background_task_descriptors_and_commands_are_no_turns(tmp_path: Path) -> None:
    """sequant_bf976109 lines 1219-1689: descriptors enqueued as tasks start and removed in bulk as the turn
    ends; the task's report is dequeued as a prompt of its own. ctxeval_c8946606 line 4: a queued /model."""
    descriptor = json.dumps({"task_id": "adb61b72045379212", "tool_use_id": "toolu_012V",
                             "description": "Gap 1: overlap classification", "task_type": "local_agent"})  # fmt: skip
    report = "<task-notification>\n<task-id>adb61b72045379212</task-id>\n<status>completed</status>"
    path = write(tmp_path / "descriptors.jsonl", [
        user("u1", None, "Fix all gaps."),
        queued("enqueue", descriptor), queued("enqueue", "/model"), queued("remove"),
        assistant("a1", "u1", [text("Three agents are on it.")]),
        queued("enqueue", report), queued("remove"), queued("dequeue"),
        user("u2", "a1", report),
    ])  # fmt: skip
    trace = load_trace(path)
    assert [s.key for s in trace.sources if s.kind == "user"] == ["u1", "u2"]
    assert fates(trace)["queue_delivered_as_record"] == 1 and fates(trace)["queue_bookkeeping"] == 5


def test_a_message_that_never_left_the_queue_was_not_received(tmp_path: Path) -> None:
    """ohmyposh_d3cfdfe7 line 346: enqueued, then neither dequeued nor removed, nor in any record."""
    path = write(tmp_path / "stuck.jsonl", [
        user("u1", None, "Ship phase 0."), queued("enqueue", "also update the changelog"),
        assistant("a1", "u1", [text("Phase 0 shipped.")]),
    ])  # fmt: skip
    trace = load_trace(path)
    assert [s.key for s in trace.sources if s.kind == "user"] == ["u1"]
    assert fates(trace)["queue_not_delivered"] == 1


def test_a_dequeued_message_whose_record_never_came_is_no_turn(tmp_path: Path) -> None:
    """A dequeue is followed by the prompt's own record; when the log ends first, nothing shows it was sent."""
    path = write(tmp_path / "ended.jsonl", [
        user("u1", None, "Ship phase 0."), assistant("a1", "u1", [text("Phase 0 shipped.")]),
        queued("enqueue", "go ahead with phase 1"), queued("dequeue"),
    ])  # fmt: skip
    trace = load_trace(path)
    assert [s.key for s in trace.sources if s.kind == "user"] == ["u1"]
    assert fates(trace)["queue_not_delivered"] == 1


def test_a_message_said_before_and_queued_again_is_two_turns(tmp_path: Path) -> None:
    path = write(tmp_path / "twice.jsonl", [
        user("u1", None, "run the tests"),
        assistant("a1", "u1", [call("t1", command="pytest")]),
        queued("enqueue", "run the tests"), queued("remove"),
        result("r1", "a1", "t1", "ok"),
    ])  # fmt: skip
    assert [s.text for s in load_trace(path).sources if s.kind == "user"] == ["run the tests", "run the tests"]


def test_a_remove_naming_a_message_takes_that_one(tmp_path: Path) -> None:
    path = write(tmp_path / "named.jsonl", [
        user("u1", None, "Build it."),
        assistant("a1", "u1", [call("t1", command="make")]),
        queued("enqueue", "first thought"), queued("enqueue", "second thought"), queued("remove", "second thought"),
        result("r1", "a1", "t1", "ok"),
    ])  # fmt: skip
    said = [s.text for s in load_trace(path).sources if s.kind == "user"]
    assert said == ["Build it.", "second thought"]


# --- every record accounted for ---------------------------------------------------------------------------


def results_in(path: Path) -> set[str]:
    """The call ids the log's main records (not a sub-agent's) answer."""
    found: set[str] = set()
    for line in path.read_text().splitlines():
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            continue
        message = data.get("message") if isinstance(data, dict) and data.get("isSidechain") is not True else None
        content = message.get("content") if isinstance(message, dict) else None
        found |= {b.get("tool_use_id") for b in content or () if isinstance(b, dict) and b.get("type") == "tool_result"}
    return found


def accounted(path: Path) -> None:
    """Every line is under one fate, and every tool call has its result or a notice naming it, truly: the log
    holds no result for a call the notice names."""
    trace = load_trace(path)
    lines = path.read_bytes().count(b"\n") + (not path.read_bytes().endswith(b"\n"))
    assert sum(fates(trace).values()) == lines == trace.extra["lines"]
    answered = {s.extra.get("call_id") for s in trace.sources if s.kind in ("tool_result", "tool_error")}
    calls = [s.key.split("#")[0] for s in trace.sources if s.kind == "tool_call"]  # a key made unique: `id#n`
    missing = [key for key in calls if key not in answered]
    said = " ".join(notices(trace, "tool-result-missing"))
    assert all(f" {key}" in said for key in missing), (missing, said)
    assert not set(missing) & results_in(path)


@pytest.mark.parametrize("path", FIXTURES, ids=[p.name for p in FIXTURES])
def test_every_record_of_a_fixture_is_accounted_for(path: Path) -> None:
    accounted(path)


@pytest.mark.parametrize("path", readable_sessions(), ids=lambda p: p.name)
def test_every_record_of_a_real_session_is_accounted_for(path: Path) -> None:
    require_shared(path)
    accounted(path)


def test_every_line_of_a_damaged_session_is_accounted_for(tmp_path: Path) -> None:
    path = write(tmp_path / "damaged.jsonl", [
        user("u1", None, "Run it."), "", "{not json", [1, 2],
        assistant("a1", "u1", [call("t1", command="make")]),
        {"type": "hologram", "sessionId": "sess-1"}, {"type": "summary", "summary": "Run it", "leafUuid": "a1"},
        {"type": "file-history-snapshot", "messageId": "m", "snapshot": {}},
        '{"parentUuid": "a1", "type": "user", "uuid": "r1", "mess',
    ], newline_at_end=False)  # fmt: skip
    trace = load_trace(path, format="claude-code")
    assert fates(trace) == {"blank_line": 1, "file_history_snapshot": 1, "malformed_line": 2, "metadata": 1,
                            "torn_line": 1, "turn": 2, "unknown_type": 1}  # fmt: skip
    [said] = notices(trace, "tool-result-missing")
    assert said == "1 tool call has no result in the log: t1 (Bash): the log ends before its result"


def test_a_call_cut_off_by_a_compaction_says_so(tmp_path: Path) -> None:
    """entirecli_1e0816ef lines 308-311: a Grep call, then the boundary of an auto-compaction, no result."""
    path = write(tmp_path / "cut.jsonl", [
        user("u1", None, "Find GetSummariseOptions."),
        assistant("a1", "u1", [call("t1", "Grep", pattern="GetSummariseOptions")]),
        record("b1", None, "system", subtype="compact_boundary", logicalParentUuid="a1"),
        user("s1", "b1", "Summary: searching for GetSummariseOptions.", isCompactSummary=True),
        assistant("a2", "s1", [text("I'll investigate GetSummariseOptions.")]),
    ])  # fmt: skip
    [said] = notices(load_trace(path), "tool-result-missing")
    assert said.endswith("1 tool call has no result in the log: t1 (Grep): a compaction came next, with no result "
                         "logged for it: the summary may report one the log does not hold")

