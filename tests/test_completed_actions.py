"""Commits and pull requests a summary drops: one finding per summary, saying how many of them it dropped.

The commits are from ../shared/real_traces/wider (portcli_8a6e7859, the readable half), cut short.
"""

from __future__ import annotations

from dataclasses import replace

from inspector.actions import action_items
from inspector.analysis import analyze
from inspector.config import DEFAULT_CONFIG, Config
from inspector.model import Generation, SourceRecord, Trace


def committed(key: str, sha: str, subject: str) -> SourceRecord:
    return SourceRecord(key, f"[feat/permissions-support {sha}] {subject}\n 2 files changed, 40 insertions(+)",
                        namespace="transcript", kind="tool_result", authority="tool",
                        extra={"command": f"git commit -m '{subject}'"})  # fmt: skip


RECORDS = [committed("r1", "bbfd2a9", "fix: writeTar closes the archive"),
           committed("r2", "963a806", "fix: loader validates --include")]  # fmt: skip


def lost(summary: str, records: list[SourceRecord] = RECORDS, config: Config | None = None) -> list[str]:
    keys = tuple(r.key for r in records)
    trace = Trace("fixture", "claude-code", tuple(records),
                  (Generation(0, "raw", "\n".join(r.text for r in records), covers=keys),
                   Generation(1, "summary", summary, parent=0, covers=keys)),
                  extra={"meta": {"session_log": True}})  # fmt: skip
    return [f.message for f in analyze(trace, config).findings if f.rule == "completed-actions-lost"]


def test_a_summary_that_drops_some_of_the_actions_says_how_many_of_them() -> None:
    assert lost("Committed 963a806 (loader validation) and pushed it to PR #18.") == [
        "S1 omits 1 of the 2 completed actions before it: 1 commit (bbfd2a9)"]  # fmt: skip
    assert lost("Worked on the permissions import.") == [
        "S1 mentions none of the completed actions before it: 2 commits (bbfd2a9, 963a806)"]  # fmt: skip
    assert lost("Commits bbfd2a9 and 963a806 are on the branch.") == []


FIVE = [committed("c1", "43db013", "fix: add missing CSS variables"), committed("c2", "c0f0d72", "fix: blue scheme"),
        committed("c3", "fca5a0e", "fix: buffer streamed responses"),
        committed("c4", "cd6560f", "debug: add logging for header detection"),
        committed("c5", "1523bbb", "fix: hints for the latest data")]  # fmt: skip
"""safecast-map-MCP (labelled blind): five commits before the compaction, the summary naming all but the debug one."""


def test_a_summary_that_names_most_of_the_actions_has_kept_the_series() -> None:
    summary = "Commits 43db013, c0f0d72, fca5a0e and 1523bbb fixed the chat UI and the data hints."
    assert lost(summary, FIVE) == []
    assert lost(summary, FIVE, replace(DEFAULT_CONFIG, actions_kept_share=0.9)) == [
        "S1 omits 1 of the 5 completed actions before it: 1 commit (cd6560f)"]  # fmt: skip
    assert lost("Commits 43db013 and 1523bbb are on main.", FIVE) == [
        "S1 omits 3 of the 5 completed actions before it: 3 commits (c0f0d72, fca5a0e, cd6560f)"]  # fmt: skip


def test_a_trailer_git_printed_on_the_subject_line_is_no_part_of_the_subject() -> None:
    """portcli_8a6e7859: '[feat/permissions-support bbfd2a9] fix(export): include blueprint and action permissions
    in tar output Entire-Checkpoint: f64a59930edd'."""
    output = ("[feat/permissions-support bbfd2a9] fix(export): include blueprint and action permissions in tar output "
              "Entire-Checkpoint: f64a59930edd Co-Authored-By: Claude <noreply@anthropic.com>\n 1 file changed")
    record = SourceRecord("r1", output, namespace="transcript", kind="tool_result", authority="tool",
                          extra={"command": "git commit -m 'fix(export): …'"})  # fmt: skip
    [item] = action_items([record])
    assert item.text == "commit bbfd2a9 fix(export): include blueprint and action permissions in tar output"
