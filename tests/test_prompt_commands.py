"""A prompt command the user ran is owed until the agent's turn answering it ends (`inspector.prompt_commands`).

The shape is a real session's (Claude Code 2.1.63): the user ran `/diff-description` with no words after it, Claude
Code wrote the command's prompt as a meta record, and the log was compacted before the agent answered. The summary
said "Pending Tasks: None", and the user had to run the command again.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import inspector.guard as guard
from inspector.analysis import analyze
from inspector.invariants import IndexedText, InvariantStatus
from inspector.item_matching import match_command
from inspector.model import Invariant, InvariantKind
from inspector.prompt_commands import COMMAND_SUFFIX
from inspector.readers.registry import load_trace
from tests.test_guard_authorship import call, compacted, result, user
from tests.test_guard_precompact import said, typed

INVOKED = "<command-message>diff-description</command-message>\n<command-name>/diff-description</command-name>"
PROMPT = "# Diff Description\n\nReview the complete diff and produce a concise numbered list of changes."
ASKED = "Summary:\n1. Primary Request: fix the failing registry test in the forester program (fixed).\n"
LOST = ASKED + "7. Pending Tasks:\n   - None. All tasks from the plan have been completed."
KEPT = ASKED + "8. Current Work:\n   The user ran `/diff-description`; I had not yet produced the list."


def _log(folder: Path, turn: list[dict[str, Any]], summary: str | None, *, command: str = INVOKED,
         expanded: bool = True) -> Path:  # fmt: skip
    """The user asks for a fix, the agent makes it, the user runs `command` (its prompt as a meta record when
    `expanded`), then `turn` (ending with uuid "t"), then a compaction with `summary` (none: the log as PreCompact
    reads it)."""
    records = [
        typed("u1", None, "Fix the failing registry test in the forester program."),
        said("Fixed: the test now signs with the governance authority.", "a1", "u1"),
        user("c1", "a1", command),
        *([user("c2", "c1", [{"type": "text", "text": PROMPT}], isMeta=True)] if expanded else []),
        *turn,
    ]
    if summary is not None:
        records += compacted("t", summary)
    path = folder / "guarded.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


IN_FLIGHT = [call("d1", "c2", "Bash", {"command": "git diff main...HEAD --stat"}),
             result("t", "d1", "3 files changed", {"stdout": "3 files changed", "stderr": ""})]  # fmt: skip
"""The agent was reading the diff when the compaction came: its turn had not ended."""
ANSWERED = [*IN_FLIGHT[:1], result("r1", "d1", "3 files changed", {"stdout": "3 files changed", "stderr": ""}),
            said("1. Registry checks protocol authority\n2. Tests sign with it", "t", "r1")]  # fmt: skip
"""The agent read the diff and answered: its turn ended before the compaction."""


def lost(path: Path) -> list[str]:
    return [f.message for f in analyze(load_trace(path)).findings if f.rule == "user-statement-lost"]


def hook(path: Path, folder: Path, event: str) -> str:
    fields = {"trigger": "auto", "custom_instructions": ""} if event == guard.BEFORE else {"source": "compact"}
    request = {"session_id": "guarded", "transcript_path": str(path), "cwd": str(folder), "hook_event_name": event,
               **fields}  # fmt: skip
    out = io.StringIO()
    assert guard.run_hook(io.StringIO(json.dumps(request)), out, log=folder / "guard.log") == 0
    printed = out.getvalue()
    if event == guard.BEFORE or not printed:
        return printed
    return json.loads(printed)["hookSpecificOutput"]["additionalContext"]


def test_a_command_the_compaction_cut_short_is_lost_from_a_summary_that_does_not_name_it(tmp_path):
    assert lost(_log(tmp_path, IN_FLIGHT, LOST)) == [
        "the user's requirement “/diff-description” (a command: the compaction came before the agent's turn "
        "answering it ended) is gone from S1"]


def test_a_summary_that_names_the_command_keeps_it(tmp_path):
    assert lost(_log(tmp_path, IN_FLIGHT, KEPT)) == []


def test_a_command_whose_turn_ended_before_the_compaction_is_owed_nothing(tmp_path):
    assert lost(_log(tmp_path, ANSWERED, LOST)) == []


def test_a_command_the_harness_ran_itself_asks_the_agent_nothing(tmp_path):
    model = "<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args/>"
    stdout = user("t", "c1", "<local-command-stdout>Set model to opus</local-command-stdout>")
    assert lost(_log(tmp_path, [stdout], LOST, command=model, expanded=False)) == []


def test_the_guard_names_the_command_in_flight_and_gives_it_back_when_the_summary_lost_it(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path / "data"))
    line_of = "(command, the agent's turn answering it not ended{}, record c1): “/diff-description”"
    before = hook(_log(tmp_path, IN_FLIGHT, None), tmp_path, guard.BEFORE)
    assert line_of.format("") in before, before
    after = hook(_log(tmp_path, IN_FLIGHT, LOST), tmp_path, guard.AFTER)
    assert line_of.format(", lost in the summary") in after, after
    assert hook(_log(tmp_path, IN_FLIGHT, KEPT), tmp_path, guard.AFTER) == ""


def test_the_guard_is_quiet_about_a_command_the_agent_had_answered(tmp_path, monkeypatch):
    """Claude Code compacts as the user sends the next message, after the agent's reply: the log the guard reads then
    ends with that reply, and the command is done."""
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path / "data"))
    assert "/diff-description" not in hook(_log(tmp_path, ANSWERED, None), tmp_path, guard.BEFORE)
    assert hook(_log(tmp_path, ANSWERED, LOST), tmp_path, guard.AFTER) == ""


def test_a_plugins_command_is_named_with_or_without_the_plugins_name() -> None:
    def status(command: str, summary: str) -> InvariantStatus:
        return match_command(Invariant(f"x{COMMAND_SUFFIX}", InvariantKind.USER_REQUIREMENT, command),
                             IndexedText(summary)).status  # fmt: skip

    assert status("/superpowers:brainstorming design it", "8. Current Work: the brainstorming skill") is (
        InvariantStatus.VERBATIM)
    work = "/compound-engineering:workflows:work"
    assert status(work, "ran `/workflows:work` on the plan") is InvariantStatus.VERBATIM
    assert status(work, "work continues on the plan") is InvariantStatus.LOST
