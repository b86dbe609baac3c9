"""Commits and pull requests a summary drops: one finding per summary, saying how many of them it dropped.

The commits are from ../shared/real_traces/wider (portcli_8a6e7859, the readable half), cut short.
"""

from __future__ import annotations

from inspector.actions import action_items
from inspector.analysis import analyze
from inspector.model import Generation, SourceRecord, Trace


def committed(key: str, sha: str, subject: str) -> SourceRecord:
    return SourceRecord(key, f"[feat/permissions-support {sha}] {subject}\n 2 files changed, 40 insertions(+)",
                        namespace="transcript", kind="tool_result", authority="tool",
                        extra={"command": f"git commit -m '{subject}'"})  # fmt: skip


RECORDS = [committed("r1", "bbfd2a9", "fix: writeTar closes the archive"),
           committed("r2", "963a806", "fix: loader validates --include")]  # fmt: skip


def lost(summary: str) -> list[str]:
    keys = tuple(r.key for r in RECORDS)
    trace = Trace("fixture", "claude-code", tuple(RECORDS),
                  (Generation(0, "raw", "\n".join(r.text for r in RECORDS), covers=keys),
                   Generation(1, "summary", summary, parent=0, covers=keys)),
                  extra={"meta": {"session_log": True}})  # fmt: skip
    return [f.message for f in analyze(trace).findings if f.rule == "completed-actions-lost"]


def test_a_summary_that_drops_some_of_the_actions_says_how_many_of_them() -> None:
    assert lost("Committed 963a806 (loader validation) and pushed it to PR #18.") == [
        "S1 omits 1 of the 2 completed actions before it: 1 commit (bbfd2a9)"]  # fmt: skip
    assert lost("Worked on the permissions import.") == [
        "S1 mentions none of the completed actions before it: 2 commits (bbfd2a9, 963a806)"]  # fmt: skip
    assert lost("Commits bbfd2a9 and 963a806 are on the branch.") == []


def test_a_trailer_git_printed_on_the_subject_line_is_no_part_of_the_subject() -> None:
    """portcli_8a6e7859: '[feat/permissions-support bbfd2a9] fix(export): include blueprint and action permissions
    in tar output Entire-Checkpoint: f64a59930edd'."""
    output = ("[feat/permissions-support bbfd2a9] fix(export): include blueprint and action permissions in tar output "
              "Entire-Checkpoint: f64a59930edd Co-Authored-By: Claude <noreply@anthropic.com>\n 1 file changed")
    record = SourceRecord("r1", output, namespace="transcript", kind="tool_result", authority="tool",
                          extra={"command": "git commit -m 'fix(export): …'"})  # fmt: skip
    [item] = action_items([record])
    assert item.text == "commit bbfd2a9 fix(export): include blueprint and action permissions in tar output"
