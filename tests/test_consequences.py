"""What happened next: each kind of consequence of a loss, on excerpts cut from real sessions, and the look-alikes
that are not one (the agent quoting the user back, a summary's own words, a prohibition that lapsed)."""

from __future__ import annotations

import json
import subprocess
import sys

from inspector import analyze, load_trace
from inspector.consequences import consequence_of
from inspector.facts import InvariantTrack
from inspector.model import Finding, Invariant, InvariantKind, SourceRecord, Trace
from tests.helpers import LABELLED, needs_shared, session_log

VSLA = LABELLED / "claude_code_1.0.53_vsla_f67ab274.jsonl"
EXTERNALLY_MANAGED = ("error: externally-managed-environment\n\n× This environment is externally managed\n"
                      "╰─> To install Python packages system-wide, try apt install")  # fmt: skip


def user(key: str, text: str) -> SourceRecord:
    return SourceRecord(key, text, namespace="transcript", kind="user", authority="user")


def said(key: str, text: str) -> SourceRecord:
    return SourceRecord(key, text, namespace="transcript", kind="assistant", authority="assistant")


def ran(key: str, command: str, output: str, failed: bool = False, slip: str | None = None) -> SourceRecord:
    extra = {"command": command, "tool": "Bash"} | ({"slip": slip} if slip else {})
    return SourceRecord(key, output, namespace="transcript", kind="tool_error" if failed else "tool_result",
                        authority="tool", extra=extra)  # fmt: skip


def called(key: str, tool: str, text: str) -> SourceRecord:
    return SourceRecord(key, text, namespace="transcript", kind="tool_call", authority="assistant",
                        extra={"tool": tool})  # fmt: skip


def committed(key: str, sha: str, subject: str) -> SourceRecord:
    return ran(key, f"git commit -m '{subject}'", f"[main {sha}] {subject}\n 1 file changed, 3 insertions(+)")


def followed(trace: Trace) -> list[tuple[str, int | None, str, str, str]]:
    """(rule, generation, severity, consequence kind, later record) of every finding with a consequence."""
    found: list[Finding] = [f for f in analyze(trace).findings if f.consequence is not None]
    return [(f.rule, f.generation, f.severity.value, f.consequence.kind.value, f.consequence.key)  # type: ignore[union-attr]
            for f in found]  # fmt: skip


RULE = "never push to main, open a pull request for every change"


def test_a_push_to_the_branch_the_user_forbade_violates_the_dropped_rule() -> None:
    records = [user("u1", RULE), said("a1", "Understood."),
               ran("r1", "git push origin main", "To github.com:o/r.git\n   1a2b3c4..5d6e7f8  main -> main")]
    assert followed(session_log(records, (2, "Worked on the release notes."))) == [
        ("user-statement-lost", 1, "error", "violated", "r1")]
    other_branch = [*records[:2], ran("r1", "git push origin feat/notes", "To github.com:o/r.git")]
    assert followed(session_log(other_branch, (2, "Worked on the release notes."))) == []
    kept = session_log(records, (2, "The user said: never push to main; open a pull request for every change."))
    assert followed(kept) == []  # the summary kept the rule: whatever came next, it was not the summary's loss


def test_a_prohibition_with_a_condition_is_not_violated_by_what_it_waited_for() -> None:
    records = [user("u1", "don't push until the integration tests pass on the staging cluster"),
               ran("r1", "git push origin feat/x", "To github.com:o/r.git")]
    assert followed(session_log(records, (1, "Worked on the integration tests."))) == []


def test_an_edit_of_the_file_the_user_said_not_to_touch_violates_it() -> None:
    records = [user("u1", "do not touch config/production.yaml, it is shared with the billing team"),
               called("c1", "Edit", "file_path: /repo/config/production.yaml\nold_string: a\nnew_string: b")]
    assert followed(session_log(records, (1, "Tuned the retry settings."))) == [
        ("user-statement-lost", 1, "error", "violated", "c1")]
    elsewhere = [records[0], called("c1", "Edit", "file_path: /repo/config/staging.yaml\nnew_string: b")]
    assert followed(session_log(elsewhere, (1, "Tuned the retry settings."))) == []


def test_the_command_the_user_stopped_run_again_violates_what_they_said_on_stopping_it() -> None:
    """vsla_f67ab274 (labelled/) lines 408-411 and 677: the user stopped `pip install cupy-cuda12x
    --break-system-packages`, typed "Lets do the system package approach please", S2 dropped it, and the next
    agent ran the same command."""
    stop = "[Request interrupted by user for tool use]"
    records = [
        called("c1", "Bash", "command: pip install cupy-cuda12x --break-system-packages"),
        ran("r1", "pip install cupy-cuda12x --break-system-packages", stop, failed=True, slip="interrupted"),
        user("u1", "Lets do the system package approach please"),
        said("a1", "Searching apt for the CuPy package."),
        ran("r2", "pip install cupy-cuda12x --break-system-packages", "Collecting cupy-cuda12x"),
    ]
    assert ("user-statement-lost", 1, "error", "violated", "r2") in followed(
        session_log(records, (4, "Install and test CuPy (low priority).")))
    typed_later = [records[0], ran("r1", "pip install cupy-cuda12x", "ok"), *records[2:]]
    assert followed(session_log(typed_later, (4, "Install and test CuPy (low priority)."))) == []  # nothing stopped


def test_the_user_saying_it_again_after_the_compaction_is_a_restatement() -> None:
    records = [user("u1", "keep the plan files local, never commit them to the repository"),
               said("a1", "Writing the plan to docs/plans/summary.md."),
               user("u2", "I told you: keep the plan files local and never commit them to the repository!")]
    assert followed(session_log(records, (2, "Wrote the summary plan."))) == [
        ("user-statement-lost", 1, "error", "restated", "u2")]


def test_the_same_words_after_the_compaction_from_anyone_but_the_user_are_no_restatement() -> None:
    """The agent quoting the user's message back, and a summary of a summary carrying it, are not the user
    saying it again."""
    rule = "keep the plan files local, never commit them to the repository"
    quoted_back = [user("u1", rule), said("a1", "Working on the plan."),
                   said("a2", f'You said earlier: "{rule}". I will keep that.')]
    assert followed(session_log(quoted_back, (2, "Worked on the plan."))) == []
    relayed = [user("u1", rule), said("a1", "Working on the plan."),
               SourceRecord("n1", f"<task-notification>The reviewer agent says: {rule}</task-notification>",
                            namespace="transcript", kind="user", authority="user")]
    assert followed(session_log(relayed, (2, "Worked on the plan."))) == []
    resummarised = session_log([user("u1", rule), said("a1", "Working on the plan."), said("a2", "Done.")],
                               (2, "Worked on the plan."), (3, f"Earlier the user asked: {rule}."))
    assert followed(resummarised) == []


def test_a_new_question_on_the_same_topic_and_the_same_words_about_another_thing_are_no_restatement() -> None:
    """entirecli_1e0816ef line 131 ("we should be summarising the checkpoint scope I think, not the entire transcript
    log") and line 1127, after S2, a new question in the same words; portcli_e9e702ed asks for a review of pull
    request 70, then of 71. A question that reminds is still one."""
    scope = "we should be summarising the checkpoint scope I think, not the entire transcript log for a checkpoint."
    asked = [user("u1", scope), said("a1", "Summarising the checkpoint."),
             user("u2", "Both sessions contributed to this checkpoint; do we just throw all the transcripts into the "
                        "summariser for the checkpoint scope?")]  # fmt: skip
    assert followed(session_log(asked, (2, "Worked on the summariser."))) == []
    reminded = [*asked[:2], user("u2", "Didn't I say we should be summarising the checkpoint scope, not the entire "
                                       "transcript log, for a checkpoint?")]  # fmt: skip
    assert followed(session_log(reminded, (2, "Worked on the summariser."))) == [
        ("user-statement-lost", 1, "error", "restated", "u2")]  # fmt: skip
    review = "Never merge https://github.com/port-experimental/port-cli/pull/70 before the tests pass."
    other = [user("u1", review), said("a1", "Reviewing."),
             user("u2", review.replace("pull/70", "pull/71"))]  # fmt: skip
    assert followed(session_log(other, (2, "Reviewed the pull request."))) == []
    same = [*other[:2], user("u2", review)]
    assert [f[3] for f in followed(session_log(same, (2, "Reviewed the pull request.")))] == ["restated"]


def test_the_question_tool_asking_what_the_user_answered_is_re_asked() -> None:
    """entirecli_1e0816ef's shape: the agent offers options by label, the user picks one ("let's go with B"),
    the summary drops it, and the next agent puts the same choice to the user through its question tool."""
    offered = ("Where should the setting live?\nA. A top-level `summarize` key in settings.json\n"
               "B. Nested in the strategy options, beside the other strategy settings")
    asked_again = ("questions: Where should the summarize setting live? options: A top-level summarize key in "
                   "settings.json | Nested in the strategy options, beside the other strategy settings")
    records = [said("a1", offered), user("u1", "let's go with B"), said("a2", "Wiring it up."),
               called("q2", "AskUserQuestion", asked_again)]
    assert followed(session_log(records, (3, "Wiring up the summarize setting."))) == [
        ("user-statement-lost", 1, "error", "re-asked", "q2")]
    elsewhere = [*records[:3], called("q2", "AskUserQuestion", "questions: Which model should summaries use?")]
    assert followed(session_log(elsewhere, (3, "Wiring up the summarize setting."))) == []


def test_a_failure_the_summary_dropped_tried_again_and_failing_the_same_way_is_retried() -> None:
    """vsla_f67ab274 lines 405-406 and 672-673: pip install of cupy failed (PEP 668), S2 dropped it, and the next
    agent ran it again and got the same error."""
    records = [ran("r1", "pip install cupy-cuda12x", EXTERNALLY_MANAGED, failed=True),
               said("a1", "Next, the benchmarks."),
               ran("r2", "pip install cupy-cuda12x", EXTERNALLY_MANAGED, failed=True)]
    assert followed(session_log(records, (2, "Ran the benchmarks."))) == [
        ("open-failure-lost", 1, "error", "retried", "r2")]
    other = [*records[:2], ran("r2", "pip install cupy-cuda12x", "ERROR: No matching distribution found", failed=True)]
    assert followed(session_log(other, (2, "Ran the benchmarks."))) == []


def test_the_same_slip_made_again_after_the_compaction_is_retried() -> None:
    """vsla_f67ab274 lines 518 and 602: `./benchmark.sh --quick` from the wrong folder, before S2 and again right
    after it (gold: benchmark-sh-cwd, weakened in S2). A slip is no item `check` mines, so the loss is the gold's;
    the consequence is the same mistake twice. A run of it that works, or a slip of another kind, is none."""
    missing = "/bin/bash: line 1: ./benchmark.sh: No such file or directory"
    records = [ran("r1", "./benchmark.sh --quick", missing, failed=True), said("a1", "Moving the bench files."),
               ran("r2", "./benchmark.sh --quick", missing, failed=True)]  # fmt: skip
    trace = session_log(records, (2, "Moved the bench files; next: ./benchmark.sh --quick."))
    facts = analyze(trace).facts
    slip = InvariantTrack(Invariant("gold:benchmark-sh-cwd", InvariantKind.FAILED_APPROACH,
                                    "./benchmark.sh: No such file or directory", "r1"), (), ())  # fmt: skip
    assert [(c.kind.value, c.key) for c in [consequence_of(facts, slip, 1)] if c] == [("retried", "r2")]
    worked = [*records[:2], ran("r2", "./benchmark.sh --quick", "Starting VSLA Comprehensive Benchmark Suite")]
    assert consequence_of(analyze(session_log(worked, (2, "Moved."))).facts, slip, 1) is None


def test_a_commit_of_the_same_change_again_is_redone() -> None:
    records = [committed("r1", "bbfd2a9", "fix: writeTar closes the archive"), said("a1", "Next, the loader."),
               committed("r2", "c41e0f7", "fix: writeTar closes the archive")]
    assert followed(session_log(records, (2, "Worked on the loader."))) == [
        ("completed-actions-lost", 1, "error", "redone", "r2")]
    another = [*records[:2], committed("r2", "c41e0f7", "fix: loader validates --include")]
    assert followed(session_log(another, (2, "Worked on the loader."))) == []


def test_what_the_next_agent_did_after_a_later_compaction_is_that_summarys_not_this_ones() -> None:
    records = [user("u1", RULE), said("a1", "Understood."), said("a2", "Releasing."),
               ran("r1", "git push origin main", "To github.com:o/r.git")]
    trace = session_log(records, (2, "Worked on the notes."), (3, "The user said never push to main; open a PR."))
    assert followed(trace) == []  # S2 kept the rule; the push came while the agent worked from S2


@needs_shared(LABELLED)
def test_check_json_gives_both_ends_of_each_consequence_on_a_real_session() -> None:
    out = subprocess.run([sys.executable, "-m", "inspector", "check", "--json", str(VSLA)], capture_output=True,
                         text=True, check=False).stdout  # fmt: skip
    followed_by = [(f["rule"], f["generation"], f["severity"], f["consequence"]["kind"], f["consequence"]["author"])
                   for f in json.loads(out)["findings"] if f["consequence"]]  # fmt: skip
    assert followed_by == [("user-statement-lost", 2, "error", "violated", "agent"),
                           ("open-failure-lost", 2, "error", "retried", "agent")]
    text = subprocess.run([sys.executable, "-m", "inspector", "check", str(VSLA)], capture_output=True, text=True,
                          check=False).stdout  # fmt: skip
    assert "consequences: 2 of 3 losses followed by one in the log" in text
    assert "then (violated): the agent ran `pip install cupy-cuda12x --break-system-packages` again" in text
    assert load_trace(VSLA).path is not None
