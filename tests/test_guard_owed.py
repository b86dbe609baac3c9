"""What the guard gives back after a compaction besides the user's rules: in the log's words, what the summary dropped
of the work itself (the criteria of the task the user set, work set aside and never restored, the commits and pull
requests made), while other open failures stay in the inspector; and nothing at all when the summary dropped only
wishes and asides. Most cases are a real session cut just after its compaction, as the hook sees it.
"""

from __future__ import annotations

from pathlib import Path

import inspector.guard_check as guard_check
from inspector.model import SourceRecord
from tests.helpers import LABELLED, REAL_TRACES, needs_shared, session_log
from tests.test_guard import cuts, entries, hook_input, run

WIDER = REAL_TRACES / "wider"
PORTCLI = WIDER / "claude_code_2.1.148_portcli_e9e702ed.jsonl"
SEQUANT = WIDER / "claude_code_2.1.50_sequant_bf976109.jsonl"
ENTIRECLI = LABELLED / "claude_code_2.x_entirecli_1e0816ef.jsonl"
VSLA = LABELLED / "claude_code_1.0.53_vsla_f67ab274.jsonl"
REVIEW = WIDER / "claude_code_2.1.20_entirecli_70d782f7.jsonl"


def given_back(session: Path, k: int, tmp_path: Path, monkeypatch) -> str:
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path / "data"))
    cut = dict(cuts(session, tmp_path))[k]
    code, context, log = run(hook_input(cut), tmp_path)
    assert code == 0 and log == [], log
    return context


@needs_shared(PORTCLI)
def test_work_set_aside_that_the_summary_dropped_is_given_back(tmp_path, monkeypatch):
    """portcli_e9e702ed: `git stash && git rebase …` set the user's changes aside; nothing popped them, S1 said so
    weakly and S2 not at all (gold: stash-never-popped, an error). The agent is told the work exists."""
    context = given_back(PORTCLI, 2, tmp_path, monkeypatch)
    [line] = [entry for entry in entries(context) if "git stash" in entry]
    assert line.startswith("- The log says, ") and "(set-aside, lost in the summary, record " in line
    assert "not popped or applied" in line
    assert "dropped what the log shows done or owed" in context.splitlines()[0]


@needs_shared(SEQUANT)
def test_a_criterion_of_the_users_task_that_the_summary_dropped_is_given_back(tmp_path, monkeypatch):
    """sequant_bf976109: the issue the user set the agent on has seven acceptance criteria; S1 names none of AC-7's
    benchmark against batch b4030aa9 (gold: ac7-benchmark-detection-rate, lost, an error)."""
    context = given_back(SEQUANT, 1, tmp_path, monkeypatch)
    [line] = [entry for entry in entries(context) if "AC-7" in entry]
    assert "(task-criterion, lost in the summary, record " in line and "b4030aa9" in line


@needs_shared(REVIEW)
def test_an_entry_the_user_chose_and_the_summary_dropped_comes_back_with_its_choice(tmp_path, monkeypatch):
    """entirecli_70d782f7: "skip 5, 7, 8 and do the rest" chose eleven review comments; the agent answered ten by id,
    and S1 called them all addressed (gold: item-13-temp-grouping-unaddressed, an error). The next agent replied
    "Won't fix" to it (line 582) until the user stepped in (line 604); the guard gives it back, with the choice."""
    context = given_back(REVIEW, 1, tmp_path, monkeypatch)
    [line] = entries(context)
    assert line.startswith("- The log says, ") and "(task-criterion, lost in the summary, record " in line
    assert "entry 13 of the list the user chose from (“skip 5, 7, 8 and do the rest”): 2734900785" in line


@needs_shared(ENTIRECLI)
def test_the_commits_a_summary_dropped_come_back_as_one_counted_line_after_the_users_words(tmp_path, monkeypatch):
    """entirecli_1e0816ef's S2 names none of the six commits and the pull request made before it (gold:
    implementation-committed, an error): given back once, after everything the user said, so the cap cuts it first,
    with the branch its commits are on (where the work is)."""
    context = given_back(ENTIRECLI, 2, tmp_path, monkeypatch)
    lines = entries(context)
    [line] = [entry for entry in lines if "commit f6e9332" in entry]
    assert "(6 commits on alex/ent-96-auto-summaries and 1 pull request, lost in the summary, record " in line
    assert "pull request #133 opened" in line
    assert lines.index(line) == len(lines) - 1 and all(entry.startswith("- The user said") for entry in lines[:-1])


@needs_shared(VSLA)
def test_an_open_failure_the_summary_dropped_stays_in_the_inspector(tmp_path, monkeypatch):
    """vsla_f67ab274's S1 drops a crash of `run_full_benchmark.py` that nothing later fixed (a warning in `check`):
    run again, it shows itself, so the guard does not spend the agent's context on it."""
    context = given_back(VSLA, 1, tmp_path, monkeypatch)
    assert context and "AttributeError" not in context


def _user(key: str, text: str) -> SourceRecord:
    return SourceRecord(key, text, namespace="transcript", kind="user", authority="user")


ASIDES = [_user("u1", "I like the proposal wiring."),
          SourceRecord("a1", "Done with the research file.", namespace="transcript", kind="assistant",
                       authority="assistant"),
          _user("u2", "Let's worry about 21 later on.")]  # fmt: skip
"""Words a user typed in a real session outside ../shared (a public flutter-docker-image session, read blind as
faithful at each compaction): a preference and a deferral, both dropped by a later summary."""


def test_a_summary_that_dropped_only_asides_is_not_interrupted_and_one_that_dropped_a_rule_gets_them_all_back():
    summary = "Designed the Java 17 extraction; the proposal is drafted."
    assert guard_check.restored_items(session_log(ASIDES, (3, summary))) == (1, [])
    rule = _user("u3", "Never open an upstream PR.")
    _, restored = guard_check.restored_items(session_log([*ASIDES, rule], (4, summary)))
    assert sorted(r.text for r in restored) == ["I like the proposal wiring.", "Let's worry about 21 later on.",
                                                "Never open an upstream PR."]  # fmt: skip


def test_words_typed_on_stopping_a_call_are_serious_enough_to_speak_for() -> None:
    """vsla_f67ab274 lines 408-411: the user stopped `pip install cupy-cuda12x --break-system-packages` and typed
    "Lets do the system package approach please"; the agent that resumed without it ran the stopped command again
    (line 677). A decision alone would be an aside; typed on stopping a call it is a veto, and comes back."""
    stopped = [SourceRecord("c1", "command: pip install cupy-cuda12x --break-system-packages", namespace="transcript",
                            kind="tool_call", authority="assistant", extra={"tool": "Bash"}),
               SourceRecord("r1", "[Request interrupted by user for tool use]", namespace="transcript",
                            kind="tool_error", authority="tool",
                            extra={"command": "pip install cupy-cuda12x --break-system-packages", "tool": "Bash",
                                   "slip": "interrupted"}),
               _user("u1", "Lets do the system package approach please")]  # fmt: skip
    _, restored = guard_check.restored_items(session_log(stopped, (3, "Install and test CuPy (low priority).")))
    assert [(r.text, r.context) for r in restored] == [
        ("Lets do the system package approach please",
         "the agent's `pip install cupy-cuda12x --break-system-packages`, which the user stopped")]  # fmt: skip
    plain = [_user("u1", "Lets do the system package approach please")]
    assert guard_check.restored_items(session_log(plain, (1, "Install and test CuPy (low priority)."))) == (1, [])


def test_a_step_that_makes_a_call_the_user_refused_is_given_back() -> None:
    """ovid_cad3cdc9 (fresh76, labelled blind): the user refused the agent's `git push`, and S1 still left "Push
    updated commits to PR #18" to do; the agent that resumed from it pushed and was refused again, and S2 still said
    "Commit and push …" (its labels: contradicted, errors both). The refusal is the user's veto of that call, given
    back as the words typed on stopping one are: after one refusal (a warning in `check`) and after two (an error).
    A step the user asked for again since is not refused."""
    def refused(key: str) -> SourceRecord:
        return SourceRecord(key, "Bash failed: git push 2>&1 The user doesn't want to proceed with this tool use.",
                            namespace="transcript", kind="tool_error", authority="tool",
                            extra={"command": "git push 2>&1", "tool": "Bash", "slip": "rejected"})  # fmt: skip

    summary = "7. Pending Tasks:\n   - Commit and push the `src-tauri/src/lib.rs` change adding `insert-table`\n"
    _, restored = guard_check.restored_items(session_log([refused("r1"), _user("u1", "I have pushed."),
                                                          refused("r2")], (3, summary)))  # fmt: skip
    [line] = [r for r in restored if r.rule == "refused-next-step"]
    assert line.kind == "claim" and "the user refused the agent's `git push 2>&1` twice" in line.text
    text, _ = guard_check.manifest(session_log([refused("r1")], (1, summary)), 1, restored)
    assert "states what the log contradicts" in text.splitlines()[0] and "`git push 2>&1` twice" in text
    _, once = guard_check.restored_items(session_log([refused("r1")], (1, summary)))
    assert [r.text for r in once] == ["S1 leaves “- Commit and push the `src-tauri/src/lib.rs` change adding "
                                      "`insert-table`” to do, but the user refused the agent's `git push 2>&1` and "
                                      "nothing ran it since"]  # fmt: skip
    asked = session_log([refused("r1"), _user("u1", "ok, push it now")], (2, summary))
    assert guard_check.restored_items(asked) == (1, [])
