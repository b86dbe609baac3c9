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


def summarised(summary: str, records: list[SourceRecord]) -> Trace:
    """The records, and one summary covering them all."""
    keys = tuple(r.key for r in records)
    return Trace("fixture", "claude-code", tuple(records),
                 (Generation(0, "raw", "\n".join(r.text for r in records), covers=keys),
                  Generation(1, "summary", summary, parent=0, covers=keys)),
                 extra={"meta": {"session_log": True}})  # fmt: skip


def lost(summary: str, records: list[SourceRecord] = RECORDS, config: Config | None = None) -> list[str]:
    trace = summarised(summary, records)
    return [f.message for f in analyze(trace, config).findings if f.rule == "completed-actions-lost"]


def test_a_summary_that_drops_some_of_the_actions_says_how_many_of_them() -> None:
    assert lost("Committed 963a806 (loader validation) and pushed it to PR #18.") == [
        "S1 omits 1 of the 2 completed actions before it: 1 commit on feat/permissions-support (bbfd2a9)"]  # fmt: skip
    assert lost("Worked on the permissions import.") == [
        "S1 mentions none of the completed actions before it: 2 commits on feat/permissions-support"
        " (bbfd2a9, 963a806)"]  # fmt: skip
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
        "S1 omits 1 of the 5 completed actions before it: 1 commit on feat/permissions-support (cd6560f)"]  # fmt: skip
    assert lost("Commits 43db013 and 1523bbb are on main.", FIVE) == [
        "S1 omits 3 of the 5 completed actions before it: 3 commits on feat/permissions-support"
        " (c0f0d72, fca5a0e, cd6560f)"]  # fmt: skip


def test_a_trailer_git_printed_on_the_subject_line_is_no_part_of_the_subject() -> None:
    """portcli_8a6e7859: '[feat/permissions-support bbfd2a9] fix(export): include blueprint and action permissions
    in tar output Entire-Checkpoint: f64a59930edd'."""
    output = ("[feat/permissions-support bbfd2a9] fix(export): include blueprint and action permissions in tar output "
              "Entire-Checkpoint: f64a59930edd Co-Authored-By: Claude <noreply@anthropic.com>\n 1 file changed")
    record = SourceRecord("r1", output, namespace="transcript", kind="tool_result", authority="tool",
                          extra={"command": "git commit -m 'fix(export): …'"})  # fmt: skip
    [item] = action_items([record])
    assert item.text == "commit bbfd2a9 fix(export): include blueprint and action permissions in tar output"


def findings_of_two(first: str, second: str) -> list[tuple[str, str]]:
    """S1 covers RECORDS; S2 covers them and a third commit made after S1."""
    records = [*RECORDS, committed("r3", "5d1e0c4", "docs: describe the permissions import")]
    early, every = tuple(r.key for r in RECORDS), tuple(r.key for r in records)
    trace = Trace("fixture", "claude-code", tuple(records),
                  (Generation(0, "raw", "\n".join(r.text for r in records), covers=every),
                   Generation(1, "summary", first, parent=0, covers=early),
                   Generation(2, "summary", second, parent=1, covers=every)),
                  extra={"meta": {"session_log": True}})  # fmt: skip
    return [(f.severity.value, f.message) for f in analyze(trace).findings
            if f.rule == "completed-actions-lost" and f.generation == 2]  # fmt: skip


def test_commits_an_earlier_summary_recorded_are_history_by_the_next():
    """teslamint_da81b1d5 (wider/): S1 named 2d6f7eb and 24c39af, the work moved on, S2 named neither; its reader
    calls them retired. A commit no summary has recorded yet is still owed by the next one."""
    recorded = "Commits bbfd2a9 and 963a806 are on the branch."
    assert findings_of_two(recorded, "Documented the import in 5d1e0c4; next, the release.") == [
        ("info", "S2 no longer names 2 commits on feat/permissions-support"
            " (bbfd2a9, 963a806), which an earlier summary recorded as done")]
    assert findings_of_two(recorded, "Next, the release.") == [  # one commit left out: a note (the next test)
        ("info", "S2 no longer names 2 commits on feat/permissions-support"
            " (bbfd2a9, 963a806), which an earlier summary recorded as done"),
        ("info", "S2 mentions none of the completed actions before it: 1 commit on feat/permissions-support (5d1e0c4)")]
    assert findings_of_two("Read the repository.", "Documented the import in 5d1e0c4.") == [
        ("warning", "S2 omits 2 of the 3 completed actions before it: 2 commits on feat/permissions-support"
            " (bbfd2a9, 963a806)")]


def severities(summary: str, records: list[SourceRecord]) -> list[str]:
    trace = summarised(summary, records)
    return [f.severity.value for f in analyze(trace).findings if f.rule == "completed-actions-lost"]


def test_one_commit_left_out_is_a_note_and_two_or_a_pull_request_a_warning() -> None:
    """medgemma_a1a154b0 (extra25, labelled blind): S1 names the plan's rewrite still to commit and leaves out
    eae70dd, the plan's first commit; its reader calls S1 faithful, as do the readers of intent-layer_cd627ce2 S3 and
    wfc_e2e7a891 S1, each leaving out one commit. Two commits left out (dual_b54b5261 S2) were a loss."""
    plan = [committed("r1", "eae70dd", "chore: add performance plan for test limits"),
            committed("r2", "3b1f9c2", "perf: limit grounding tests to a few criteria")]  # fmt: skip
    assert severities("Committed 3b1f9c2 (test limits); PERF_PLAN.md rewritten, not yet committed.", plan) == ["info"]
    assert severities("PERF_PLAN.md rewritten, not yet committed.", plan) == ["warning"]
    opened = SourceRecord("r3", "https://github.com/o/r/pull/12", namespace="transcript", kind="tool_result",
                          authority="tool", extra={"command": "gh pr create --title 'perf: test limits'"})  # fmt: skip
    assert severities("PERF_PLAN.md rewritten.", [opened]) == ["warning"]


def test_a_merged_pull_request_stands_for_the_commits_before_it() -> None:
    """sequant_f9389dae (wider/) line 995: `gh pr merge 324 --squash --delete-branch` (it prints nothing) after
    commits 0e53ffb and 923a067; S1 named the squash merge and neither sha, and its reader calls it faithful.
    The merge is the action a summary must keep; a failed merge retires nothing."""
    def merge(key: str, failed: bool = False) -> SourceRecord:
        return SourceRecord(key, "merge conflict" if failed else "", namespace="transcript",
                            kind="tool_error" if failed else "tool_result", authority="tool",
                            extra={"command": "gh pr merge 324 --squash --delete-branch 2>&1"})  # fmt: skip

    merged = [*RECORDS, merge("r3")]
    assert [(i.text, i.retired_by) for i in action_items(merged)] == [
        ("pull request #324 merged", None), ("commit bbfd2a9 fix: writeTar closes the archive", "r3"),
        ("commit 963a806 fix: loader validates --include", "r3")]  # fmt: skip
    assert lost("PR #324 squash-merged to main (merge commit 79fadb8).", merged) == []
    assert lost("Worked on the permissions import.", merged) == [
        "S1 mentions none of the completed actions before it: pull request #324 merged"]  # fmt: skip
    assert lost("PR #324 squash-merged to main.", [*RECORDS, merge("r3", failed=True)]) == [
        "S1 mentions none of the completed actions before it: 2 commits on feat/permissions-support"
        " (bbfd2a9, 963a806)"]  # fmt: skip



def test_a_pull_request_set_to_merge_is_not_called_merged() -> None:
    """raven_a4aae4ac (fresh73) line 227: `gh pr merge 210 --auto --squash` asks GitHub to merge once the checks
    pass, and the PR was still open (the next merge of it failed: "not mergeable: the base branch policy prohibits
    the merge"); the finding told the reader it had merged. Its commits are still the pull request's, as for a
    merge."""
    queued = SourceRecord("r3", "", namespace="transcript", kind="tool_result", authority="tool",
                          extra={"command": "gh pr merge 210 --auto --squash 2>&1"})  # fmt: skip
    assert [(i.text, i.retired_by) for i in action_items([*RECORDS, queued])] == [
        ("pull request #210 set to merge once its checks pass", None),
        ("commit bbfd2a9 fix: writeTar closes the archive", "r3"),
        ("commit 963a806 fix: loader validates --include", "r3")]  # fmt: skip
    assert lost("Worked on the permissions import.", [*RECORDS, queued]) == [
        "S1 mentions none of the completed actions before it: pull request #210 set to merge once its checks pass"]

def user_said(key: str, text: str) -> SourceRecord:
    return SourceRecord(key, text, namespace="transcript", kind="user", authority="user")


MEDIUMS = [user_said("u1", "let's do the mediums first."),
           committed("r1", "c2b0273", "fix(explain): address medium severity PR feedback"),
           user_said("u2", "skip 5, 7, 8 and do the rest")]  # fmt: skip
"""entirecli_70d782f7 (wider/) lines 23, 91 and 174: an ordering request, the commit that carried it out, and a
selection of what comes next."""


def lost_statements(summary: str, records: list[SourceRecord]) -> list[str]:
    trace = summarised(summary, records)
    return [f.source.quote for f in analyze(trace).findings if f.rule == "user-statement-lost" and f.source]


def test_a_request_that_orders_the_work_is_done_once_a_commit_carries_it_out() -> None:
    """S2 said "Medium severity fixes were done (commit c2b0273)", not which came first: nothing was lost. The
    selection after it orders nothing and stays owed; so does the same ordering before any commit names it."""
    summary = "Medium severity fixes were done (commit c2b0273). Working through PR #112 feedback."
    assert lost_statements(summary, MEDIUMS) == ["skip 5, 7, 8 and do the rest"]
    unrelated = [MEDIUMS[0], committed("r1", "c2b0273", "docs: describe the explain command"), MEDIUMS[2]]
    assert lost_statements(summary, unrelated) == ["let's do the mediums first.", "skip 5, 7, 8 and do the rest"]
    before = [MEDIUMS[1], MEDIUMS[0], MEDIUMS[2]]
    assert lost_statements(summary, before) == ["let's do the mediums first.", "skip 5, 7, 8 and do the rest"]


BROADCAST = [committed("b1", "c56ef6e", "feat: Add server broadcast and notification parsers"),
             committed("b2", "89f886a", "feat: Handle server broadcast and notification packets"),
             committed("b3", "d64bec3", "fix: Address review feedback on server broadcasts")]  # fmt: skip
"""tuicraft_04fd0b5b (fresh30, labelled blind): S1 tells the feature's commits by what they did ("Task 1: Added
`origin` to ChatMessage, wrote parseServerBroadcast and parseNotification") and names only the last by its sha; its
labels call each feature commit weakened: the next agent cannot tell which commits hold the work."""


def unnamed(summary: str, records: list[SourceRecord] = BROADCAST) -> list[tuple[str, str]]:
    trace = summarised(summary, records)
    return [(f.severity.value, f.message) for f in analyze(trace).findings if f.rule == "completed-actions-unnamed"]


def test_commits_a_summary_tells_by_subject_alone_are_named_by_sha() -> None:
    told = ("Added server broadcast and notification parsers, and the handlers that handle the server broadcast and "
            "notification packets. Fixed all four review items in commit d64bec3.")  # fmt: skip
    assert unnamed(told) == [("warning", "S1 tells 2 commits on feat/permissions-support"
        " (c56ef6e, 89f886a) by subject alone, without the sha")]
    assert unnamed(told.replace("packets.", "packets (89f886a).")) == []  # most named by sha: the series is
    assert unnamed(told.replace("packets.", "packets (89f886a)."), BROADCAST[:2]) == [  # one left of two: a note
        ("info", "S1 tells 1 commit on feat/permissions-support (c56ef6e) by subject alone, without the sha")]
    assert unnamed("Commits c56ef6e, 89f886a and d64bec3: the server broadcast parsers and handlers.") == []
    assert unnamed("Worked on chat.") == []  # dropped, not told: completed-actions-lost says so


def test_commits_told_by_subject_beside_the_pull_request_that_holds_them_are_a_note() -> None:
    """lockcodemanager_7c955a97 (fresh63) and repiq_43511c41 (fresh61), labelled blind: S1 tells five and ten commits by
    what they did and names the pull requests the session opened (#899 and #900; #5, #7 and #8), and their labels
    call nothing lost for it: the next agent lists the commits from the pull request."""
    told = ("Added server broadcast and notification parsers, and the handlers that handle the server broadcast and "
            "notification packets. Fixed all four review items in commit d64bec3.")  # fmt: skip
    opened = SourceRecord("p1", "https://github.com/tvararu/tuicraft/pull/58\n", namespace="transcript",
                          kind="tool_result", authority="tool", extra={"command": "gh pr create --fill"})  # fmt: skip
    assert unnamed(told, [*BROADCAST, opened]) == [("warning", "S1 tells 2 commits on feat/permissions-support"
        " (c56ef6e, 89f886a) by subject "
                                                               "alone, without the sha")]  # fmt: skip
    assert unnamed(f"{told} Opened PR #58.", [*BROADCAST, opened]) == [
        ("info", "S1 tells 2 commits on feat/permissions-support (c56ef6e, 89f886a) by subject alone, without the sha")]


def test_commits_an_earlier_summary_told_are_not_told_again() -> None:
    told = "Added server broadcast and notification parsers and handled the server broadcast and notification packets."
    keys = tuple(r.key for r in BROADCAST)
    trace = Trace("fixture", "claude-code", tuple(BROADCAST),
                  (Generation(0, "raw", "\n".join(r.text for r in BROADCAST), covers=keys),
                   Generation(1, "summary", told, parent=0, covers=keys),
                   Generation(2, "summary", told, parent=1, covers=keys)),
                  extra={"meta": {"session_log": True}})  # fmt: skip
    assert [f.generation for f in analyze(trace).findings if f.rule == "completed-actions-unnamed"] == [1]


def test_commits_are_listed_by_the_branch_git_made_them_on() -> None:
    """cli_4b3ddf27 (fresh80, labelled blind): S1 names neither the commits nor the branch they are on,
    `alex/fix-worktree-shadow-branch-collision`, which its labels call lost; the finding says where the work is."""
    records = [replace(committed("r1", "3f91520", "init"), text="[main (root-commit) 3f91520] init\n 1 file changed"),
               replace(committed("r2", "48e7f29", "feat(paths): add GetWorktreeID"),
                       text="[alex/fix-worktree-shadow-branch-collision 48e7f29] feat(paths): add GetWorktreeID")]
    assert [a.branch for a in action_items(records)] == ["main", "alex/fix-worktree-shadow-branch-collision"]
    assert lost("Worked on worktree-specific shadow branches.", records) == [
        "S1 mentions none of the completed actions before it: 1 commit on main (3f91520) and 1 commit on "
        "alex/fix-worktree-shadow-branch-collision (48e7f29)"]  # fmt: skip


def test_a_commit_made_with_no_branch_checked_out_is_a_commit() -> None:
    """raven_a4aae4ac (fresh73): `[detached HEAD 1bb90e8] chore: add ChartDB schema diagram and JSON export`, made in
    a worktree at a pull request's head, is the commit its labels track; it was read as none."""
    record = replace(committed("r1", "1bb90e8", "chore: add ChartDB schema diagram and JSON export"),
                     text="[detached HEAD 1bb90e8] chore: add ChartDB schema diagram and JSON export\n 2 files changed")
    [action] = action_items([record])
    assert (action.text, action.branch) == ("commit 1bb90e8 chore: add ChartDB schema diagram and JSON export", None)


QUIET = ("cd D:/oh-my-posh && git add website/docusaurus.config.js && git commit -q -F - <<'EOF'\n"
         "fix(website): remove brittle selectors and fail on broken links\n\ncustom.css targeted generated CSS.\nEOF\n"
         "git add website/static/_redirects && git commit -q -m 'fix(website): keep the OAuth callback page out of "
         "search'\ngit log --oneline -3")  # fmt: skip
"""ohmyposh_6c0a282a (fresh81): two quiet commits, then the log that shows them (its labels track all seven of its
commits made so)."""


def test_a_quiet_commit_is_read_from_the_log_the_same_command_prints() -> None:
    """`git commit -q` prints nothing; the `git log --oneline` after it prints each commit the command made (its subject
    is the message the command gave) above the older ones, which are not this command's."""
    record = replace(committed("r1", "0", "x"), extra={"command": QUIET},
                     text="81ecfd88 fix(website): keep the OAuth callback page out of search\n"
                          "47c3efb0 fix(website): remove brittle selectors and fail on broken links\n"
                          "95ddb6ed fix(website): land on a hub page and index the segments")  # fmt: skip
    assert [(a.text, a.branch) for a in action_items([record])] == [
        ("commit 47c3efb0 fix(website): remove brittle selectors and fail on broken links", None),
        ("commit 81ecfd88 fix(website): keep the OAuth callback page out of search", None)]  # fmt: skip


def test_a_decorated_log_names_the_branch_of_the_quiet_commit() -> None:
    record = replace(committed("r1", "0", "x"), extra={"command": "git commit -qm 'docs: reconcile MILESTONE' && "
                                                                  "git log --oneline --decorate -2"},
                     text="6aba881 (HEAD -> next, origin/next) docs: reconcile MILESTONE\nc47aff3 docs: grill nodes")
    made = [(a.text, a.branch) for a in action_items([record])]
    assert made == [("commit 6aba881 docs: reconcile MILESTONE", "next")]


def test_a_log_with_no_commit_of_the_commands_own_is_no_commit() -> None:
    """A commit that failed quietly (nothing to commit) leaves the log showing older commits only."""
    record = replace(committed("r1", "0", "x"), extra={"command": "git commit -qm 'docs: add the roadmap'; git log "
                                                                  "--oneline -2"},
                     text="c47aff3 docs: grill nodes\nb852cec fix: the loader")
    assert list(action_items([record])) == []
