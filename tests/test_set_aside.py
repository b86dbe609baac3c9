"""Changes a `git stash` set aside: owed until popped, applied or dropped, and a summary must not lose them.

The commands and outputs are from ../shared/real_traces/wider (the readable half), cut short; names changed.
"""

from __future__ import annotations

from inspector.analysis import analyze
from inspector.model import Generation, SourceRecord, Trace
from inspector.set_aside import stashes
from inspector.shell_runs import shell_runs


def ran(key: str, command: str, output: str, failed: bool = False) -> SourceRecord:
    return SourceRecord(key=key, text=output, namespace="transcript", kind="tool_error" if failed else "tool_result",
                        authority="tool", extra={"command": command})  # fmt: skip


STASHED_FOR_A_REBASE = ran(
    "r1",
    "git stash 2>&1 && git rebase fork/feature/fix-import 2>&1",
    "Exit code 1\nok stashed\nRebasing (1/1)\rAuto-merging internal/import.go\n"
    "CONFLICT (content): Merge conflict in internal/import.go\nerror: could not apply e415909",
    failed=True,
)
LATER = ran("r2", "git push fork feature/fix-import", "To github.com:fork/cli.git\n   794793e..062cec9")


def owed(*records: SourceRecord) -> list[str]:
    return [s.run.key for s in stashes(shell_runs(records)) if s.restored_by is None]


def session(records: list[SourceRecord], *summaries: str) -> Trace:
    keys = tuple(r.key for r in records)
    generations = [Generation(0, "raw", "\n".join(r.text for r in records), covers=keys)]
    generations += [Generation(k, "summary", text, parent=k - 1, covers=keys) for k, text in enumerate(summaries, 1)]
    return Trace("fixture", "claude-code", tuple(records), tuple(generations), extra={"meta": {"session_log": True}})


def test_a_stash_made_before_a_line_failed_later_is_owed() -> None:
    assert owed(STASHED_FOR_A_REBASE, LATER) == ["r1"]


def test_a_stash_with_nothing_to_save_is_no_stash() -> None:
    nothing = ran("r1", "git stash && git checkout feature/fix-import", "ok (nothing to stash)\nSwitched to branch")
    git_said = ran("r1", "git stash", "No local changes to save")
    assert owed(nothing) == [] and owed(git_said) == []


def test_a_stash_git_refused_is_no_stash_whatever_status_the_pipe_left() -> None:
    """wakil_0062da63 (outside ../shared, MIT): `git stash -- push` takes `push` as a path; git refused it, and the
    pipe and `|| true` left status 0. Nothing was set aside, and the agent committed next."""
    refused = ran("r1", 'cd /p && git stash -- push --keep-index -m "wip-non-schema-changes" 2>&1 | tail -5 || true',
                  "error: pathspec ':(prefix:0)push' did not match any file(s) known to git")  # fmt: skip
    saved = ran("r1", "git stash push -m wip 2>&1 | tail -5 || true",
                "Saved working directory and index state On main: wip")  # fmt: skip
    assert owed(refused) == [] and owed(saved) == ["r1"]


def test_a_pop_apply_or_drop_ends_it_and_a_list_does_not() -> None:
    assert owed(STASHED_FOR_A_REBASE, ran("r2", "git stash list", "stash@{0}: WIP on main: 794793e")) == ["r1"]
    for restore in ("git stash pop", "git stash apply stash@{0}", "git -C repo stash drop"):
        assert owed(STASHED_FOR_A_REBASE, ran("r2", restore, "Dropped refs/stash@{0}")) == []
    same_line = ran("r1", "git stash push -q -- config.js && git stash pop -q && git diff config.js", "")
    assert owed(same_line) == []


def test_a_pop_ends_only_the_newest_and_a_clear_ends_all() -> None:
    second = ran("r2", "git stash push -m wip2", "Saved working directory and index state On main: wip2")
    assert owed(STASHED_FOR_A_REBASE, second, ran("r3", "git stash pop", "")) == ["r1"]
    assert owed(STASHED_FOR_A_REBASE, second, ran("r3", "git stash clear", "")) == []


def test_a_summary_that_files_the_stash_as_a_fix_and_each_that_drops_it_are_reported() -> None:
    first = (
        "4. Errors and fixes:\n"
        "   - **Unstaged changes blocking rebase**: `git stash` used before rebasing to handle uncommitted local "
        "changes (skills files on `cursor/skills-sync` branch)\n"
    )
    second = "1. Primary Request:\n   - Address the review findings of PR #71\n"
    report = analyze(session([STASHED_FOR_A_REBASE, LATER], first, second, second))
    hits = [(f.rule, f.generation, "still" in f.message) for f in report.findings if "git stash" in f.message]
    assert hits == [("claim-contradicted", 1, False), ("open-failure-lost", 2, False), ("open-failure-lost", 3, True)]


def test_a_summary_that_says_the_stash_is_still_there_keeps_it() -> None:
    kept = ("6. Pending:\n   - The user's uncommitted changes are still in `git stash` (stash@{0}); pop them after "
            "the push\n")
    report = analyze(session([STASHED_FOR_A_REBASE, LATER], kept))
    assert [f.rule for f in report.findings if "git stash" in f.message] == []


def test_a_restored_stash_is_owed_by_no_summary() -> None:
    report = analyze(session([STASHED_FOR_A_REBASE, ran("r2", "git stash pop", "")], "Rebased onto the fork."))
    assert [f.rule for f in report.findings if "git stash" in f.message] == []


def test_a_pop_that_met_a_conflict_is_owed_as_applied_with_its_entry_kept() -> None:
    """vault_433a2bb4 (outside ../shared, labelled blind): `git stash && git pull --rebase && git stash pop` met a
    conflict at the pop. Git applied the changes, conflict markers and all, and kept the entry; the labels call the
    entry left behind a loss of S1. Told the changes were "not popped", the next agent would pop them twice."""
    popped = ran("r1", "git stash && git pull --rebase && git stash pop",
                 "Exit code 1\nSaved working directory and index state WIP on main: 2a24ee04 Migrate\nUpdating "
                 "2a24ee04..d9234021\nFast-forward\nCONFLICT (content): Merge conflict in Tests/SharingTests.swift\n"
                 "The stash entry is kept in case you need it again.", failed=True)  # fmt: skip
    [stash] = stashes(shell_runs([popped]))
    assert stash.restored_by is None
    assert stash.text.endswith("were popped back with conflicts; they are in the working tree and git kept the "
                               "stash entry")  # fmt: skip
    dropped = ran("r2", "git stash drop", "Dropped refs/stash@{0} (4c1e0a1)")
    assert owed(popped, dropped) == []
    unrelated = ran("r1", "git stash && git checkout main && git stash pop",
                    "Saved working directory and index state WIP on fix\nerror: Your local changes would be "
                    "overwritten by checkout", failed=True)  # fmt: skip
    assert "not popped or applied" in next(iter(stashes(shell_runs([unrelated])))).text


def test_a_pop_git_reports_dropped_ended_the_stash_whatever_a_later_step_left() -> None:
    """vault_8337e0ef (outside ../shared, labelled blind): `git stash && git pull --rebase && git stash pop && git
    push` failed at the push (its upstream's name did not match), after git printed "Dropped refs/stash@{0}": the
    stash was popped, and calling it still set aside was a false alarm. Git's output decides over the status, as it
    does for a stash made (`_saved`)."""
    line = ran("r1", "git stash && git pull --rebase && git stash pop && git push",
               "Exit code 128\nSaved working directory and index state WIP on wt: 765535f1 Fix\nCurrent branch wt "
               "is up to date.\nDropped refs/stash@{0} (5dc9cfa25e39fafac0f39f1881564650a3ac5d5d)\nfatal: The "
               "upstream branch of your current branch does not match", failed=True)  # fmt: skip
    assert owed(line) == []
    refused = ran("r1", "git stash && git pull --rebase && git stash pop && git push",
                  "Exit code 1\nSaved working directory and index state WIP on wt: 765535f1 Fix\nerror: cannot pull "
                  "with rebase: You have unstaged changes.", failed=True)  # fmt: skip
    assert owed(refused) == ["r1"]  # the pull stopped the line before the pop
