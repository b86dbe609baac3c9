"""Summaries that say what the log does not: each claim rule on real excerpts, and its true negative.

Summary lines, commands and outputs are quoted from real sessions (../shared/real_traces, the labelled
ones and their gold files, and the public entireio/cli and vsla sessions they come from), cut short.
Each fixture is a session log with one or two compactions: a summary covers the records before its cut.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from inspector import analyze, load_trace
from inspector.detectors.claims import CLAIM_RULES
from inspector.model import Finding, SourceRecord, Trace
from inspector.summary_claims import ClaimKind, claims_in
from tests.helpers import LABELLED, needs_shared, session_log, shared_files

ENTIRECLI = LABELLED / "claude_code_2.x_entirecli_1e0816ef.jsonl"
ATTRIBUTION = LABELLED / "claude_code_2.x_entirecli_6113e919.jsonl"
VSLA = LABELLED / "claude_code_1.0.53_vsla_f67ab274.jsonl"
needs_real = needs_shared(LABELLED)

GO_TEST_FAIL = "FAIL\tentire.io/cli/cmd/entire/cli/summarise [build failed]\nFAIL"
GO_TEST_OK = "ok  \tentire.io/cli/cmd/entire/cli/checkpoint\t0.412s\nok  \tentire.io/cli/cmd/entire/cli/strategy\t3.1s"
PUSHED = "To github.com:entireio/cli.git\n   9b6bd9e..df4989c  soph/ent-96-summaries -> soph/ent-96-summaries"


def user(key: str, text: str) -> SourceRecord:
    return SourceRecord(key, text, namespace="transcript", kind="user", authority="user")


def said(key: str, text: str) -> SourceRecord:
    return SourceRecord(key, text, namespace="transcript", kind="assistant", authority="assistant")


def ran(key: str, command: str, output: str, failed: bool = False) -> SourceRecord:
    return SourceRecord(key, output, namespace="transcript", kind="tool_error" if failed else "tool_result",
                        authority="tool", extra={"command": command, "tool": "Bash"})  # fmt: skip


def called(key: str, tool: str, text: str) -> SourceRecord:
    return SourceRecord(key, text, namespace="transcript", kind="tool_call", authority="assistant",
                        extra={"tool": tool})  # fmt: skip


def returned(key: str, tool: str, text: str) -> SourceRecord:
    return SourceRecord(key, text, namespace="transcript", kind="tool_result", authority="tool", extra={"tool": tool})


session = session_log


def found(trace: Trace, rule: str | None = None) -> list[Finding]:
    return [f for f in analyze(trace).findings if f.rule in ((rule,) if rule else CLAIM_RULES)]


# --- extraction -------------------------------------------------------------------------------------


def test_claims_come_with_their_section_and_span() -> None:
    summary = (
        "4. Errors and fixes:\n"
        "   - **actualHumanRemoved logic bug**: Doesn't handle agent-added lines that human removed\n"
        "     - Fixed by using `pureHumanRemoved` directly\n"
        "7. Pending Tasks:\n"
        "   - Run tests (`mise run test`)\n"
        "9. Optional Next Step:\n"
        "   ```bash\n   cd /Users/soph/Work/entire/devenv/cli && mise run test\n   ```\n"
    )
    claims = claims_in(summary)
    assert [(c.kind, c.section) for c in claims] == [
        (ClaimKind.FIXED, "Errors and fixes"), (ClaimKind.NEXT_STEP, "Pending Tasks"),
        (ClaimKind.NEXT_STEP, "Optional Next Step"),
    ]  # fmt: skip
    assert [summary[c.start : c.end] for c in claims] == [c.text for c in claims]


def test_a_status_that_is_conditional_or_negated_is_not_a_claim() -> None:
    text = "Once the build succeeds we can merge. Tests do not pass yet. The user pushed the fix in #172."
    assert [c.kind for c in claims_in(text)] == [ClaimKind.PUSHED]  # the user's push: judged, then excused


def test_nothing_left_told_as_a_time_or_a_condition_is_not_a_claim() -> None:
    """portcli_bf44fc35 (port-experimental/port-cli, outside ../shared): S1 narrated "After all tasks completed and
    review passed, user selected option 2: Push and create a Pull Request", and it was called a claim that nothing was
    left while a failure was open."""
    for told in ("- After all tasks completed and review passed, user selected option 2: Push and create a PR",
                 "Once all tasks are done we merge.", "If all steps are complete, tag the release."):  # fmt: skip
        assert claims_in(told) == [], told
    for said in ("All tasks completed.", "- All 6 steps completed and committed; user selected option 2"):
        assert [c.kind for c in claims_in(said)] == [ClaimKind.NOTHING_PENDING], said
    # sequant_170a6d5b S2: what is left named right after it, under a todo heading or not
    for left in ('- All items completed except "Run tests and verify all pass" which was in_progress',
                 "## Current Todo Status\n- All items completed except the test run, which is in progress\n"):
        assert ClaimKind.NOTHING_PENDING not in [c.kind for c in claims_in(left)], left


def test_a_status_a_step_sets_out_to_check_is_not_a_claim() -> None:
    """dual_d1c82db5 (outside ../shared, read after its first look): S1's "The next step would be to run `cargo test`
    again to verify all tests pass" was called contradicted, at error, by the failed run before it; the summary says
    the tests are still to be run. pup-mcp_35dd7d02 quotes the user's "Then make sure the tests pass." What a run
    found, after a check, is still a claim."""
    for sought in ("The next step would be to run `cargo test` again to verify all tests pass, then run `cargo clippy` "
                   "and `cargo fmt --check`.", "Then make sure the tests pass."):  # fmt: skip
        assert claims_in(sought) == [], sought
    for found_ in ("Ran the suite: all 35 tests pass.", "Checked it: the build succeeds."):
        assert [c.kind for c in claims_in(found_)] == [ClaimKind.PASSING], found_


def test_a_criterion_is_what_must_hold_not_a_claim_that_it_holds() -> None:
    """sequant_170a6d5b (admarble/sequant, outside ../shared): S1 quotes the issue's criteria, "- Acceptance Criteria:"
    then "- AC-4: All tests pass", and that was called an unsupported claim that tests passed (an error, as S2 carried
    it on). A line with a criterion's label, or under a heading or a list item over criteria, states what must hold,
    unless it says its own status ("AC-4: All tests pass ✅ (1447 passed)")."""
    for wanted in ("3. Context:\n   - Acceptance Criteria:\n     - AC-4: All tests pass\n     - Lint passes\n",
                   "## Requirements\n- The build succeeds on Windows\n", "- R2. All tests pass in CI\n"):  # fmt: skip
        assert claims_in(wanted) == [], wanted
    for held in ("## Acceptance Criteria Status\n- AC-4: All tests pass ✅ (1447 passed)\n",
                 "- Acceptance Criteria:\n  - all tests pass (verified: 54 passed)\n", "- Ran it: all tests pass\n"):
        assert [c.kind for c in claims_in(held)] == [ClaimKind.PASSING], held


# --- claim-contradicted -----------------------------------------------------------------------------


@needs_real
def test_a_crash_listed_under_challenges_solved_is_contradicted_in_s1_and_s2() -> None:
    hits = [f for f in found(load_trace(VSLA), "claim-contradicted") if "malloc" in f.message]
    assert {f.generation for f in hits} == {1, 2}
    assert all(f.severity.value == "error" and f.source is not None for f in hits)


def test_tests_called_passing_whose_last_run_failed() -> None:
    trace = session([
        user("u1", "add summary generation to CondenseSession"),
        ran("r1", "go test ./cmd/entire/cli/summarise", GO_TEST_OK),
        ran("r2", "go test ./cmd/entire/cli/summarise", GO_TEST_FAIL, failed=True),
    ], (3, "Implemented summary generation. `go test` - all tests pass."))  # fmt: skip
    [hit] = found(trace)
    assert (hit.rule, hit.generation, hit.source.key) == ("claim-contradicted", 1, "r2")  # type: ignore[union-attr]
    assert "failed" in hit.message and "build failed" in hit.message


def test_a_failure_fixed_by_a_later_clean_suite_run_is_not_contradicted() -> None:
    """The fix that did work (entireio/cli 1284c080): a chosen test failed, the whole suite then passed."""
    chosen = ('go test -v -race -run "TestShadowStrategy_ListAllSessionStates_CleansUpStaleSessions" '
              "./cmd/entire/cli/strategy/")
    trace = session([
        ran("r1", chosen, "--- FAIL: TestShadowStrategy_ListAllSessionStates_CleansUpStaleSessions (0.01s)\nFAIL",
            failed=True),
        ran("r2", "mise run fmt && mise run lint && mise run test:ci", GO_TEST_OK),
    ], (2, "**Test failures**: `TestShadowStrategy_ListAllSessionStates_CleansUpStaleSessions` failed; "
           "fixed by filtering stale sessions. All tests passed."))  # fmt: skip
    assert found(trace) == []


def test_pushed_is_a_push_claim_only_of_something_git_pushes() -> None:
    """CyberVPN: 'Root navigator key for full-screen routes pushed outside the shell' is a navigator's push."""
    assert claims_in("- Root navigator key for full-screen routes pushed outside the shell") == []
    for said in ("Committed and pushed.", "Pushed df4989c.", "pushed it to soph/ent-96-summaries", "Pushed to origin."):
        assert [c.kind for c in claims_in(said)] == [ClaimKind.PUSHED], said


def test_pushed_in_a_summary_but_only_after_the_compaction() -> None:
    records = [
        ran("r1", "git commit -am 'Add per-file attribution'", "[soph/ent-96 df4989c] Add per-file attribution"),
        said("a1", "Committed. I'll push next."),
        ran("r2", "git push", PUSHED),
    ]
    [hit] = found(session(records, (2, "Committed and pushed.")))
    assert (hit.rule, hit.source.key) == ("claim-contradicted", "r2")  # type: ignore[union-attr]
    assert found(session(records, (3, "Committed and pushed."))) == []  # the push came before this one


# --- claim-unsupported ------------------------------------------------------------------------------


@needs_real
def test_a_fix_never_built_or_tested_is_unsupported_as_a_note() -> None:
    """Most fixes no check ran after are edits that did what they said (11 of 15 against blind labels): a note."""
    hits = found(load_trace(ATTRIBUTION), "claim-unsupported")
    assert [(f.generation, f.severity.value) for f in hits] == [(3, "info")]
    assert "pureHumanRemoved" in hits[0].message and "manual_commit_attribution.go" in hits[0].message


def test_an_unchecked_fix_a_later_summary_carries_on_is_an_error() -> None:
    """A fix no check ran after, in one summary, is a note; built on by the next, an error. First read in
    changelogue_0c3c112a (extra19) S3's "Changed chart area from fixed `height: …` to `flex-1`", carried on by S5:
    that sentence's "fixed" is the height's, not a repair (the test below), and the class stands on a fix claimed in
    so many words."""
    claim = "Fixed the chart area by changing it to `flex-1` with a minimum height."
    records = [ran("r1", "npm test", "Tests: 40 passed"),
               called("e2", "Edit", "file_path: /p/web/app/page.tsx\nold_string: h-32\nnew_string: flex-1 min-h-32")]
    [alone] = found(session(records, (2, claim)))
    assert (alone.rule, alone.severity.value) == ("claim-unsupported", "info")
    first, *_ = found(session(records, (2, claim), (2, f"Done so far: {claim}")))
    assert (first.generation, first.severity.value, "S2 carries it on" in first.message) == (1, "error", True)


def test_tests_a_sub_agent_reported_passing_are_no_unsupported_claim() -> None:
    """raven_b8cbf483 (fresh73, labelled blind: S1 faithful, read after its score): "Task 6 … was just completed by a
    subagent. … The 4 tests pass and `go build ./...` is clean." The sub-agent ran them in a log of its own and its
    report said "All 4 tests pass"; the main log holds no test run, and the claim was an error in a faithful summary.
    A report that says nothing passed is no support."""
    claim = "8. Current Work:\n   The subagent created 5 files. The 4 tests pass and `go build ./...` is clean."
    report = returned("a1", "Agent", "DONE\n\nCreated the audit consumer package with 5 files.\nAll 4 tests pass, "
                                      "`go vet` clean.")  # fmt: skip
    assert [f for f in found(session([report], (1, claim))) if f.rule == "claim-unsupported"] == []
    silent = returned("a1", "Agent", "DONE\n\nCreated the audit consumer package with 5 files.")
    [hit] = [f for f in found(session([silent], (1, claim))) if f.rule == "claim-unsupported"]
    assert "no test, build or lint ran before it" in hit.message


def test_fixed_meaning_constant_claims_no_fix() -> None:
    """changelogue_0c3c112a, relabelled blind in fresh set 34: S3's account of an edit, "Changed chart area from fixed
    `height`…", read as a fix no check ran after and, carried on by S4, an error in a summary its labels call free of
    errors; the summary says on the next line that the change broke the chart. "Fixed" before a measure, after an
    article or a preposition, or as half of a compound, says constant: S5's "overflows the fixed height",
    changelogue_4a3e93f5's "First tried fixed-width label (`w-28`)", tuicraft's "fixed-capacity circular buffer"."""
    constant = ('- **Edit 2**: Changed chart area from fixed `height: "120px"` to `flex-1` with `minHeight: "120px"`',
                "- Made the feed scrollable with `overflow-y-auto` so content that overflows the fixed height shows",
                "- **User feedback on DetailRow**: First tried fixed-width label (`w-28`), user said values go right",
                "- `RingBuffer<T>` — fixed-capacity circular buffer (1000 events) with `writePos`")  # fmt: skip
    for line in constant:
        assert claims_in(line) == [], line
    repaired = ("- Fixed height calculation in `layout.ts`", "- The crash in `parse.py` is fixed",
                "- Switched to a fixed `seed` and fixed `flaky_test.py`")  # fmt: skip
    for line in repaired:
        assert [c.kind for c in claims_in(line)] == [ClaimKind.FIXED], line
    records = [ran("r1", "npm test", "Tests: 40 passed"),
               called("e2", "Edit", "file_path: /p/web/chart.tsx\nold_string: h-32\nnew_string: flex-1 min-h-32")]
    assert found(session(records, (2, f"Work so far:\n{constant[0]}"), (2, f"Done so far:\n{constant[0]}"))) == []


def test_an_edit_to_a_document_that_names_the_fix_is_not_the_fix() -> None:
    """sequant_f9389dae (wider/) line 311: after the tests, the agent wrote the new `checks` parameter into
    docs/reference/merge-command.md; S1's "Fixed by adding `checks` parameter" was judged by that edit. No
    check reads a reference page, so a document's edit is not the one a fix claim is about; a code edit is."""
    def edit(key: str, path: str) -> SourceRecord:
        return called(key, "Edit", f"file_path: {path}\nold_string: x\nnew_string: accepts an optional `checks` list")

    claim = "Fixed by adding `checks` parameter."
    tested = [ran("r1", "npm test", "Tests: 40 passed")]
    assert found(session([*tested, edit("e2", "/p/docs/reference/merge-command.md")], (2, claim))) == []
    [hit] = found(session([*tested, edit("e2", "/p/src/lib/merge-check/verdict.ts")], (2, claim)))
    assert hit.rule == "claim-unsupported" and "verdict.ts" in hit.message


def test_a_web_search_that_returned_nothing_confirmed_nothing() -> None:
    asked = called("c1", "WebSearch", "query: onnxruntime-genai repository microsoft")
    summary = "A web search confirmed the correct repository is microsoft/onnxruntime-genai."
    [hit] = found(session([user("u1", "which repo has the genai runtime?"), asked], (2, summary)))
    assert hit.rule == "claim-unsupported" and "no web search" in hit.message
    answered = returned("r1", "WebSearch", "Web search results: github.com/microsoft/onnxruntime-genai — ...")
    assert found(session([user("u1", "which repo?"), asked, answered], (3, summary))) == []


def test_a_fetch_tool_that_returned_nothing_confirmed_nothing() -> None:
    """portcli: 'The `WebFetch` tool confirmed:' over a WebFetch call the compaction cut off before its result."""
    fetch = called("c1", "WebFetch", "url: https://docs.port.io/api-reference/update-a-blueprints-permissions")
    summary = "5. Problem Solving:\n   - The `WebFetch` tool confirmed:\n     - HTTP Method: PATCH\n"
    [hit] = found(session([user("u1", "This is the API https://docs.port.io/api-reference"), fetch], (2, summary)))
    assert hit.rule == "claim-unsupported" and "no web search or fetch returned a result" in hit.message


def test_figures_no_output_printed_and_a_later_summary_carries_on_are_an_error() -> None:
    claim = "The new layout gives 2-5x speedups and 50-80% memory savings."
    records = [
        user("u1", "benchmark the new tensor layout"),
        ran("r1", "python3 bench/run_full_benchmark.py --sizes 64,128", "size 64: 1.2 ms\nsize 128: 4.9 ms"),
        said("a1", "The benchmark finished."),
        user("u2", "write it up"),
    ]
    [first, carried] = found(session(records, (3, claim), (4, f"Results so far: {claim}")))
    assert (first.rule, first.generation, first.severity.value) == ("claim-unsupported", 1, "error")
    assert "2-5x" in first.message and "50-80%" in first.message and "S2 carries it on" in first.message
    assert (carried.generation, carried.severity.value) == (2, "warning")


def test_figures_an_output_printed_are_supported() -> None:
    """vsla: 'benchmarks showing 2.46× to 173× speedups' after outputs that printed them (rounded or not)."""
    output = "Vector add 1024: GPU 0.41 ms, CPU 1.01 ms, speedup 2.46x\nVector add 1M: speedup 172.9x"
    records = [ran("r1", "./gpu_head_to_head --op add", output)]
    summary = "Successfully ran GPU vs CPU vector addition benchmarks showing 2.46× to 173× speedups"
    assert found(session(records, (1, summary))) == []


# --- summary-collapse -------------------------------------------------------------------------------


@needs_real
def test_one_question_one_search_over_sixteen_user_messages_is_a_collapse() -> None:
    """16 with the message queued while the agent worked (line 919), which it answered (line 938)."""
    hits = found(load_trace(ENTIRECLI), "summary-collapse")
    assert [(f.generation, f.severity.value) for f in hits] == [(2, "error"), (2, "error")]
    assert "very short" in hits[0].message and "16 user messages" in hits[0].message
    assert "No errors encountered" in hits[1].message and "build failed" in hits[1].message


def test_a_short_session_that_really_was_short_is_not_a_collapse() -> None:
    records = [user("u1", "what does `entire explain` print for a session with no checkpoints?"),
               returned("r1", "Grep", "cmd/entire/cli/explain.go:88: // no checkpoints yet"),
               said("a1", "It prints 'No checkpoints yet'.")]  # fmt: skip
    summary = "The conversation was very short - just one question, one search, and then exit. No errors encountered."
    assert found(session(records, (3, summary))) == []


def test_a_summary_carrying_almost_none_of_what_the_user_asked_is_a_collapse() -> None:
    asks = ["Never push to main without review.", "we should not store the summary in the shadow branch",
            "Don't touch the staging database.",
            "I prefer small focused commits.",
            "never change the checkpoint metadata format"]  # fmt: skip
    records = [user(f"u{n}", ask) for n, ask in enumerate(asks)]
    faithful = " ".join(asks)
    assert found(session(records, (5, faithful))) == []
    [hit] = found(session(records, (5, faithful), (5, "Worked on the explain command.")))
    assert (hit.rule, hit.generation) == ("summary-collapse", 2)
    assert "carries 0 of the 5 statements" in hit.message


def test_requests_and_answers_a_summary_carried_then_dropped_are_no_collapse() -> None:
    """osabio_ddb216ba (fresh63, labelled blind: S2 faithful, read after its score): S1 carried the requests on where
    the thinking block goes and the answers to the question tool; S2, written after the work they asked for, keeps two
    of the eight, and was called a collapse at error. A writer most often drops a request it had because it was done;
    what binds beyond its step, or came since, is what a collapse loses."""
    asks = ["thinking should be below the user message", "i want it to be between user and asssistant message.",
            "Single changeset — replace everything at once, let's go with that.",
            "let's keep onboarding flow — adapt it to useChat metadata.",
            "make sure text input + file upload is enough to start, add mentions/commands later."]  # fmt: skip
    records = [user(f"u{n}", ask) for n, ask in enumerate(asks)]
    dropped = session(records, (5, " ".join(asks)), (5, "Migrated the chat to useChat; single changeset."))
    assert "summary-collapse" not in {f.rule for f in found(dropped)}
    binding = ["Never push to main without review.", "Don't touch the staging database.",
               "never change the checkpoint metadata format", "I prefer small focused commits.",
               "we should not store the summary in the shadow branch"]  # fmt: skip
    records = [user(f"u{n}", ask) for n, ask in enumerate(binding)]
    [hit] = [f for f in found(session(records, (5, " ".join(binding)), (5, "Migrated the chat to useChat.")))
             if f.rule == "summary-collapse"]  # fmt: skip
    assert "carries 0 of the 5 statements of the user that bind" in hit.message


def test_statements_an_earlier_summary_already_lost_are_no_collapse_of_the_next() -> None:
    """flutterdocker_aba9151e (outside set): S3 "carries 8 of the 27 statements" counted what S1 and S2 had
    already dropped, each its own finding; its reader calls S3 faithful. A collapse is what one summary loses at
    once: the statements its parent still carried, and those said since."""
    asks = ["Never push to main without review.", "we should not store the summary in the shadow branch",
            "Don't touch the staging database.",
            "I prefer small focused commits.",
            "never change the checkpoint metadata format"]  # fmt: skip
    records = [user(f"u{n}", ask) for n, ask in enumerate(asks)]
    [hit] = [f for f in found(session(records, (5, "Worked on the explain command."),
                                      (5, "Still on the explain command."))) if f.rule == "summary-collapse"]
    assert hit.generation == 1  # S2 lost nothing S1 still carried


# --- stale-next-step --------------------------------------------------------------------------------


def test_a_next_step_that_already_ran_cleanly_is_stale() -> None:
    records = [
        called("c1", "Edit", "file_path: cmd/entire/cli/checkpoint/checkpoint.go\nold_string: a\nnew_string: b"),
        ran("r1", "cd /Users/soph/Work/entire/devenv/cli && mise run test 2>&1 | tail -10", GO_TEST_OK),
    ]
    summary = "7. Pending Tasks:\n   - Run tests (`mise run test`)\n"
    [hit] = found(session(records, (2, summary)))
    assert (hit.rule, hit.source.key) == ("stale-next-step", "r1")  # type: ignore[union-attr]
    assert summary[hit.start : hit.end] == "- Run tests (`mise run test`)"


def test_a_next_step_after_an_edit_since_its_last_run_is_not_stale() -> None:
    records = [
        ran("r1", "mise run test", GO_TEST_OK),
        called("c1", "Edit", "file_path: cmd/entire/cli/strategy/manual_commit_attribution.go\nnew_string: x"),
    ]
    assert found(session(records, (2, "7. Pending Tasks:\n   - Run tests (`mise run test`)\n"))) == []


def test_a_run_that_chose_some_tests_does_not_finish_a_step_that_runs_them_all() -> None:
    """lightprotocol_15dc2f98 (fresh62, labelled blind: S1 faithful, read after its score) leaves "Run all harnesses
    together: `cargo kani -p sdk-types-kani --tests -Z stubbing -Z function-contracts`"; the last clean run proved one
    harness (`--harness`), and was called the step already done. A run of them all does finish it, and a step that
    chooses the same harness is finished by that run."""
    one = ran("r1", "cargo kani -p sdk-types-kani --tests --harness verify_modify_input_account_contract -Z stubbing "
                    "-Z function-contracts 2>&1 | tail -30", "VERIFICATION:- SUCCESSFUL\nComplete - 1 verified")
    step = ("7. Pending Tasks:\n   - Run all harnesses together: `cargo kani -p sdk-types-kani --tests -Z stubbing -Z "
            "function-contracts`\n")
    assert found(session([one], (1, step))) == []
    everything = ran("r2", "cargo kani -p sdk-types-kani --tests -Z stubbing -Z function-contracts",
                     "Complete - 9 successfully verified harnesses, 0 failures, 9 total.")
    assert [f.rule for f in found(session([everything, one], (2, step)))] == ["stale-next-step"]
    chosen = step.replace("--tests -Z", "--tests --harness verify_modify_input_account_contract -Z")
    assert [f.rule for f in found(session([one], (1, chosen)))] == ["stale-next-step"]


def test_a_run_that_left_tests_out_does_not_finish_a_step_that_runs_them_all() -> None:
    """zerotoship_ce8b29a3 (fresh67, labelled blind: S2 faithful, read after its score) leaves "Run full test suite
    (`npx vitest run`) to confirm all 1406+ tests pass"; the last clean run, `npx vitest run
    --exclude='tests/scheduler/**'`, left out the tests of the file an agent was still changing, and was called the
    step already done. A runner's own flag for leaving tests out makes a choice of tests as a name filter does."""
    some = ran("r1", "npx vitest run --exclude='tests/scheduler/**' 2>&1 | tail -10",
               " Test Files  52 passed (52)\n      Tests  1310 passed (1310)")
    step = "7. Pending Tasks:\n   2. Run full test suite (`npx vitest run`) to confirm all 1406+ tests pass\n"
    assert found(session([some], (1, step))) == []
    every = ran("r2", "npx vitest run 2>&1 | tail -10", " Test Files  55 passed (55)\n      Tests  1406 passed (1406)")
    assert [f.rule for f in found(session([every], (1, step)))] == ["stale-next-step"]


def test_a_step_that_waits_for_something_new_is_not_finished_by_a_run_before_it() -> None:
    """dotfiles_8e0afadf (fresh69, labelled blind: S1 faithful, read after its score) leaves "Possibly reply to/resolve
    further bot review comments if new actionable ones appear (following the same protocol: reply via `gh api` …)",
    and a clean `gh api` call that fetched a job's logs was called that step already done. What the step would act on
    has not come yet, wherever the summary says so; the same step with nothing to wait for is still finished by it."""
    logs = ran("r1", 'gh api "repos/shunkakinoki/dotfiles/actions/jobs/1/logs" 2>&1 | tail -60', "##[group]Run nix")
    step = ("7. Pending Tasks:\n   - Possibly reply to/resolve further bot review comments if new actionable ones "
            "appear (following the same protocol: reply via `gh api` with a signature).\n")
    assert found(session([logs], (1, step))) == []
    now = step.replace("further bot review comments if new actionable ones appear", "the bot review comments")
    assert [f.rule for f in found(session([logs], (1, now)))] == ["stale-next-step"]


def test_a_pending_task_that_calls_its_own_work_done_is_not_its_command_to_run() -> None:
    """teslamint_da81b1d5 (wider/) S2: "Task 3 (implementation complete, commit blocked): `ec decision
    verify-docs` gate" named the feature it built; what was left was the commit, so its clean run was no
    finished step. A step that only names its command still is one."""
    records = [ran("r1", "uv run ec decision verify-docs 2>&1", "All decisions documented.")]
    done = "Pending Tasks:\n- **Task 3 (implementation complete, commit blocked)**: `ec decision verify-docs` gate\n"
    assert found(session(records, (1, done))) == []
    again = "Pending Tasks:\n- Run `uv run ec decision verify-docs` to confirm the docs\n"
    [hit] = found(session(records, (1, again)))
    assert (hit.rule, hit.source.key) == ("stale-next-step", "r1")  # type: ignore[union-attr]


def test_a_step_to_run_after_work_still_to_come_is_not_stale() -> None:
    """changelogue_98d5c0a9 (extra24, labelled blind) S1: "Run `npx tsc --noEmit` after the form dialog translation
    round to verify TypeScript compilation": tsc had run clean, but the translation round it waits for was still to
    do, and the step with it; it was called stale, a false alarm by its labels. Whether the work it waits on is done,
    the tool cannot tell, so a step tied to it (after, once, until) is never called done."""
    records = [ran("r1", "npx tsc --noEmit 2>&1 | head -20", "")]
    for waiting in ("after the form dialog translation round", "once the tests are done", "until the build is green"):
        assert found(session(records, (1, f"Pending Tasks:\n- Run `npx tsc --noEmit` {waiting}\n"))) == [], waiting
    [hit] = found(session(records, (1, "Pending Tasks:\n- Run `npx tsc --noEmit` to confirm it compiles\n")))
    assert hit.rule == "stale-next-step"


def test_a_step_whose_check_leads_into_work_still_to_do_is_not_stale() -> None:
    """tuicraft_ee2467ef55 (unlabelled) S1: "**Final**: Run `mise ci` to verify, then open PR": `mise ci` had run
    clean with nothing edited since, but the pull request it leads into was opened only after the compaction, so the
    step was not done; it was called stale. A step with work after its command (then, before) is not done by the
    command's run."""
    records = [ran("r1", "mise ci 2>&1 | tail -20", "812 pass\n0 fail\nAll matched files use Prettier code style!")]
    for leading in ("Run `mise ci` to verify, then open PR", "Run `mise ci` before opening the PR"):
        assert found(session(records, (1, f"Pending Tasks:\n- **Final**: {leading}\n"))) == [], leading
    [hit] = found(session(records, (1, "Pending Tasks:\n- **Final**: Run `mise ci` to verify\n")))
    assert hit.rule == "stale-next-step"


def test_a_step_is_not_done_until_the_command_it_names_after_then_has_run() -> None:
    """portcli_bf44fc35 (port-experimental/port-cli, outside ../shared) S1: "Next action: `git push -u origin
    feat/api-command-coverage` from the worktree, then `gh pr create` …": the push had run clean, the pull request
    was opened only after the compaction, and the step was called one already run. Once both have run, it is."""
    push = ran("r1", "git -C .worktrees/feat push -u origin feat/api 2>&1",
               "To github.com:o/r.git\n * [new branch]      feat/api -> feat/api")  # fmt: skip
    step = "Pending Tasks:\n- Next action: `git push -u origin feat/api` from the worktree, then `gh pr create`\n"
    assert found(session([push], (1, step))) == []
    opened = ran("r2", 'gh pr create --title "feat: api" --body "x"', "https://github.com/o/r/pull/12")
    [hit] = found(session([push, opened], (2, step)))
    assert hit.rule == "stale-next-step"


REFUSED = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file "
           "edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell "
           "you how to proceed.")


def refused(key: str, command: str) -> SourceRecord:
    """A call the user refused, as Claude Code's reader records it: an error whose slip is the user's refusal."""
    return SourceRecord(key, f"Bash failed: {command} {REFUSED}", namespace="transcript", kind="tool_error",
                        authority="tool", extra={"command": command, "tool": "Bash", "slip": "rejected"})  # fmt: skip


def test_a_next_step_that_makes_a_call_the_user_refused_goes_against_the_user() -> None:
    """ovid_cad3cdc9 (fresh76, labelled blind, read after its score): the user refused the agent's `git push`, and S1
    still leaves "Push updated commits to PR #18" to do; the agent that read S1 pushed and was refused again, and S2
    leaves "Commit and push the `src-tauri/src/lib.rs` change". Its labels call both steps contradicted, errors.
    Refused once with nothing after it is a warning (the user may mean "not yet"); twice, an error."""
    committed = ran("r1", 'git add src/lib/x.ts && git commit -m "test: add unit tests"',
                    "[editor 4493357] test: add unit tests for collectMatches")
    step = "7. Pending Tasks:\n   - Push updated commits to PR #18\n"
    once = session([committed, refused("r2", "git push 2>&1"), user("u1", "the left marker appears too early")],
                   (3, step))
    [hit] = found(once, "refused-next-step")
    assert (hit.generation, hit.severity.value, hit.source.key) == (1, "warning", "r2")  # type: ignore[union-attr]
    assert hit.message.endswith("but the user refused the agent's `git push 2>&1` and nothing ran it since")
    again = session([committed, refused("r2", "git push 2>&1"), user("u1", "the left marker appears too early"),
                     refused("r3", "git push 2>&1")], (3, step))
    [hit] = found(again, "refused-next-step")
    assert hit.severity.value == "error"
    assert "after S1 the agent made it again and the user refused it" in hit.message
    both = "7. Pending Tasks:\n   - Commit and push the `src-tauri/src/lib.rs` change adding `insert-table`\n"
    [hit] = found(session([committed, refused("r2", "git push 2>&1"), refused("r3", "git push 2>&1")], (3, both)),
                  "refused-next-step")
    assert hit.severity.value == "error" and "refused the agent's `git push 2>&1` twice" in hit.message


def test_a_refused_call_the_user_let_run_or_asked_for_since_is_no_refusal_of_the_step() -> None:
    """The refusal is the user's last word only while nothing since speaks of the call: a later push ran (cli_1284c080,
    unlabelled: the user refused `git push`, then had it run), or the user asked for it again. A step that commits is
    not refused by a refused push, nor a step that waits for something."""
    step = "7. Pending Tasks:\n   - Push updated commits to PR #18\n"
    no = refused("r2", "git push 2>&1")
    assert found(session([no, ran("r3", "git push", PUSHED)], (2, step)), "refused-next-step") == []
    assert found(session([no, user("u1", "ok, push it now")], (2, step)), "refused-next-step") == []
    again = session([no, user("u1", "don't push until I review it")], (2, step))
    assert [f.rule for f in found(again, "refused-next-step")] == ["refused-next-step"]  # refused once more
    assert found(session([no], (1, "7. Pending Tasks:\n   - Commit the lib.rs change\n")), "refused-next-step") == []
    assert found(session([no], (1, "7. Pending Tasks:\n   - Push once CI is green\n")), "refused-next-step") == []


def test_only_a_refused_git_operation_that_records_work_in_the_folder_the_step_names_is_refused() -> None:
    """meow_f29a7049 (fresh70, labelled blind): the user refused `cd …/documents && git add … && git commit …` in
    another repository, and S1's "Commit and push the ST1005 fix … to the `fix/security-vulnerabilities` branch" is of
    the session's own; lightprotocol_3926665a (fresh62): a long CI run the user refused is to be run again, which goes
    against nothing. Staging (`git add`) records nothing, so "add" in a step is not it either."""
    other = refused("r1", 'cd /Users/me/projects/documents && git add articles/a.md && git commit -m "docs: terms"')
    step = "7. Pending Tasks:\n   - Commit and push the ST1005 fix to the `fix/security-vulnerabilities` branch\n"
    trace = session([other], (1, step))
    trace = replace(trace, extra={**trace.extra, "cwd": "/Users/me/go/src/github.com/me/meow"})
    assert found(trace, "refused-next-step") == []
    there = session([other], (1, "7. Pending Tasks:\n   - Commit the term changes in the documents repo\n"))
    assert [f.rule for f in found(there, "refused-next-step")] == ["refused-next-step"]
    here = refused("r1", 'git add articles/a.md && git commit -m "docs: terms"')
    assert found(session([here], (1, "7. Pending Tasks:\n   - Add the articles to the index\n")),
                 "refused-next-step") == []  # fmt: skip
    suite = refused("r1", "just program-tests::ci-account-compression-and-registry 2>&1 | tail -20")
    rerun = "7. Pending Tasks:\n   - Re-run `just program-tests::ci-account-compression-and-registry`\n"
    assert found(session([suite], (1, rerun)), "refused-next-step") == []


def test_a_run_of_one_file_does_not_finish_a_step_that_asks_for_its_whole_folder() -> None:
    """sandcastle_ad79e67c (fresh41, labelled blind: S1 faithful) S1: "Verify the full test suite passes: `bin/rails
    test test/controllers/api/` all 8 files together": each file had run clean alone, and run together they hung, so
    the step was what was left. A clean run of one of its files was called a finished step. A run of the folder, or
    of a folder above it, or of the whole suite still finishes it."""
    one = ran("r1", "bin/rails test test/controllers/api/sandboxes_controller_test.rb", "12 runs, 0 failures")
    step = "Pending Tasks:\n- Verify the full test suite passes: `bin/rails test test/controllers/api/`\n"
    assert found(session([one], (1, step))) == []
    for wider in ("bin/rails test test/controllers/api/", "bin/rails test test/", "bin/rails test"):
        [hit] = found(session([ran("r1", wider, "68 runs, 0 failures")], (1, step)))
        assert hit.rule == "stale-next-step", wider


@needs_real
@pytest.mark.parametrize("path", shared_files(LABELLED, "*.jsonl"), ids=lambda p: p.name[:32])
def test_no_stale_step_in_the_labelled_sessions(path) -> None:
    """The gold files list no stale task: a stale-next-step finding there would be a false one."""
    assert found(load_trace(path), "stale-next-step") == []


def test_a_search_claim_the_next_agent_repeats_is_an_error() -> None:
    """The gold pattern: 'from the summary, a web search confirmed…' in the next agent's first turn."""
    asked = called("c1", "WebSearch", "query: onnxruntime-genai repository microsoft")
    summary = "A web search confirmed the correct repository is microsoft/onnxruntime-genai."
    repeat = said("a2", "From the summary, a web search confirmed the repository is microsoft/onnxruntime-genai.")
    [hit] = found(session([user("u1", "which repo?"), asked, repeat], (2, summary)))
    assert (hit.rule, hit.severity.value, hit.source.key) == ("claim-unsupported", "error", "a2")  # type: ignore[union-attr]
    assert "the next agent repeats it" in hit.message


# --- a claim is judged by evidence about its own subject ---------------------------------------------

PERMISSIONS_404 = "Error: import failed: 404 Route not found: PUT /v1/blueprints/svc/permissions"


def test_a_line_that_leaves_the_failure_pending_does_not_present_it_as_fixed() -> None:
    """port-cli: 'Three of four fixed; HTTP verb fix pending' under Errors and fixes, with the verb still wrong."""
    records = [user("u1", "import the blueprints into the org"),
               ran("r1", "./bp-cli import --config org.yaml", PERMISSIONS_404, failed=True)]  # fmt: skip
    pending = ("4. Errors and fixes:\n   - **Live import failed with 404 Route not found on blueprint permissions**: "
               "three of four fixed; the HTTP verb fix for permissions is pending\n")
    assert found(session(records, (2, pending)), "claim-contradicted") == []
    fixed = "4. Errors and fixes:\n   - **Live import failed with 404 Route not found on blueprint permissions**\n"
    [hit] = found(session(records, (2, fixed)), "claim-contradicted")  # the heading alone still calls it fixed
    assert "404 Route not found" in hit.message


def test_a_line_of_what_is_left_to_do_does_not_present_the_failure_as_fixed() -> None:
    """hetznerblack_6f42db94 (fresh set 38): `task ci` had failed, and S1's pending tasks say to run it "to verify full
    CI passes": the goal of a step still to take, not its outcome. Under a heading of what was done, it is one."""
    records = [ran("r1", "task ci", "task: Failed to run task \"ci\": task: Failed to run task \"fmt\": exit status 1",
                   failed=True)]  # fmt: skip
    line = "   - Run `task ci` to verify full CI passes (fmt + lint + test + build)\n"
    assert found(session(records, (1, f"7. Pending Tasks:\n{line}")), "claim-contradicted") == []
    [hit] = found(session(records, (1, f"5. Problem Solving:\n{line}")), "claim-contradicted")
    assert hit.source.key == "r1"  # type: ignore[union-attr]


def contradicting_go_test(line: str) -> list[str | None]:
    """The records a `claim-contradicted` finding cites against `line`, said in S1 of a log whose one run, of
    `go test ./cmd/entire/cli/summarise`, failed."""
    records = [ran("r1", "go test ./cmd/entire/cli/summarise", GO_TEST_FAIL, failed=True)]
    return [hit.source.key if hit.source else None for hit in found(session(records, (1, line)), "claim-contradicted")]


def test_a_failure_another_line_says_is_still_being_fixed_is_not_presented_as_fixed() -> None:
    """cli_9e2434f3 (entireio/cli, outside ../shared): S1 told its failing integration test "10. Integration test `X`
    failed. The issue: after Bug 3 fix (…)" in its account of the work, and "Fix in progress: …" under "Errors and
    fixes"; the first line's "fix" of another bug read as this failure fixed, twice an error."""
    records = [ran("r1", "go test ./integration_test/ -run TestShadow_CondenseTwice 2>&1 | tail -40",
                   "=== RUN   TestShadow_CondenseTwice\n--- FAIL: TestShadow_CondenseTwice (6.84s)\nFAIL")]  # fmt: skip
    told = ("1. Chronology:\n   10. Integration test `TestShadow_CondenseTwice` failed. The issue: after the Bug 3 "
            "fix the checkpoint id persists.\n\n2. Errors and fixes:\n   - **`TestShadow_CondenseTwice` failure:** "
            "the checkpoint id is reused. Fix in progress: clear it after condensation.\n")  # fmt: skip
    assert found(session(records, (1, told)), "claim-contradicted") == []
    fixed = told.replace("Fix in progress: clear", "Fixed: cleared")
    [hit] = found(session(records, (1, fixed)), "claim-contradicted")
    assert hit.source.key == "r1"  # type: ignore[union-attr]


def test_a_tally_that_still_counts_a_failure_does_not_present_it_as_fixed() -> None:
    """sequant_170a6d5b (admarble/sequant, outside ../shared): `npm test` failed one file ("Test Files 1 failed | 54
    passed (55)", a timeout) and S2's "Test Results" told it so, "1447 tests passed, 1 failed (timeout on pre-existing
    flaky test)"; its "passed" read as the failure fixed, an error."""
    output = (" FAIL  src/lib/state.test.ts > discovers worktrees\nError: Test timed out in 5000ms.\n"
              " Test Files  1 failed | 54 passed (55)")
    records = [ran("r1", "npm test 2>&1 | tail -100", output, failed=True)]
    told = "5. **Test Results**:\n   - `npm test`: 1447 test files passed, 1 failed (a flaky timeout)\n"
    assert found(session(records, (1, told)), "claim-contradicted") == []
    fixed = "5. **Test Results**:\n   - `npm test`: all 55 test files passed, 0 failed (the timeout is fixed)\n"
    [hit] = found(session(records, (1, fixed)), "claim-contradicted")
    assert hit.source.key == "r1"  # type: ignore[union-attr]


def test_a_failure_told_beside_a_fixed_measure_is_not_presented_as_fixed() -> None:
    """The line names the failure and a height held constant ("a fixed height", as `says_fixed` reads it): it tells of
    no repair, and the failure still open is not a claim the log contradicts. Told as fixed, it is."""
    constant = "- **Test build failed in `cmd/entire/cli/summarise`** since the panel got a fixed height\n"
    assert contradicting_go_test(constant) == []
    repaired = "- **Test build failed in `cmd/entire/cli/summarise`**: fixed, the panel got its height\n"
    assert contradicting_go_test(repaired) == ["r1"]


@pytest.mark.parametrize(("command", "output", "line", "severity"), [
    ("pre-commit install -f", "Exit code 1\n[ERROR] Cowardly refusing to install hooks with `core.hooksPath` set.",
     "- **Pre-commit hooks in migration mode**: `pre-commit install -f` failed due to `core.hooksPath`. Fixed by "
     "using `git commit --no-verify`.", "warning"),
    ("./tests/vsla_tests", "malloc(): invalid size (unsorted)\nAborted (core dumped)",
     "- **malloc(): invalid size error in GPU tests**: Isolated to test_gpu_tensor_memory, fixed by skipping it",
     "error"),
])  # fmt: skip
def test_a_failed_operation_called_fixed_is_a_warning_and_a_failed_check_an_error(
        command: str, output: str, line: str, severity: str) -> None:  # fmt: skip
    """repiq_43511c41's S1 (blind labels: faithful) tells the hook install that failed and the way the agent got
    round it: an operation is most often got round, not run again. vsla_f67ab274's S1 calls its test crash handled by
    skipping the test (labelled an error): no later run of the tests confirms any fix."""
    records = [ran("r1", command, output, failed=True)]
    [hit] = found(session(records, (1, f"4. Errors and fixes:\n{line}\n")), "claim-contradicted")
    assert (hit.severity.value, hit.source.key) == (severity, "r1")  # type: ignore[union-attr]


def test_a_fix_of_another_file_does_not_present_this_failure_as_fixed() -> None:
    other = "4. Errors and fixes:\n   - **Test build failed in `checkpoint_test.go`**: fixed by adding the import\n"
    assert contradicting_go_test(other) == []
    same = "4. Errors and fixes:\n   - **Test build failed in `cmd/entire/cli/summarise`**: fixed by an import\n"
    assert contradicting_go_test(same) == ["r1"]


def test_tests_called_passing_are_judged_by_the_last_run_of_those_tests() -> None:
    """A later failed run of other tests says nothing of the tests the claim names."""
    records = [ran("r1", "go test ./cmd/entire/cli/checkpoint", GO_TEST_OK),
               ran("r2", "go test ./cmd/entire/cli/summarise", GO_TEST_FAIL, failed=True)]  # fmt: skip
    named = "`go test ./cmd/entire/cli/checkpoint` - all tests pass."
    assert found(session(records, (2, named)), "claim-contradicted") == []
    [hit] = found(session(records, (2, "All tests pass.")), "claim-contradicted")
    assert hit.source.key == "r2"  # type: ignore[union-attr]


def test_tests_called_passing_under_a_list_item_are_about_what_the_item_names() -> None:
    """cli_1a289c77 (entireio/cli, outside ../shared): S1 lists "- `cmd/entire/cli/session/phase_test.go` — 9 tests
    for `ApplyCommonActions`", then, indented under it, "All 9 tests PASS."; they had passed. The last test run
    before the compaction, of another package, had failed, and the claim was called contradicted by it. A claim
    naming nothing is about what its list item names; one at a section's top level is still about the whole run."""
    records = [ran("r1", "go test ./cmd/entire/cli/checkpoint -run TestCondense", GO_TEST_OK),
               ran("r2", "go test ./cmd/entire/cli/summarise", GO_TEST_FAIL, failed=True)]  # fmt: skip
    item = ("Files:\n   - **`cmd/entire/cli/checkpoint/condense_test.go`** — MODIFIED, 9 tests:\n"
            "     - `TestCondense_Empty`\n     - `TestCondense_Merges`\n     All 9 tests PASS.\n")  # fmt: skip
    assert found(session(records, (2, item)), "claim-contradicted") == []
    [hit] = found(session(records, (2, "Files:\n   - condense_test.go, 9 tests\n\nAll 9 tests PASS.\n")),
                  "claim-contradicted")  # fmt: skip
    assert hit.source.key == "r2"  # type: ignore[union-attr]
    package = "Files:\n   - `cmd/entire/cli/checkpoint/`: 9 new tests\n     All 9 tests PASS.\n"
    assert found(session(records, (2, package)), "claim-contradicted") == []
    failing = [*records, ran("r3", "go test ./cmd/entire/cli/checkpoint -run TestCondense", GO_TEST_FAIL, failed=True)]
    [hit] = found(session(failing, (3, package)), "claim-contradicted")
    assert hit.source.key == "r3"  # type: ignore[union-attr]


def test_tests_called_passing_beside_a_line_telling_the_failure_open_are_about_the_rest() -> None:
    """cli_9e2434f3 (entireio/cli, outside ../shared): S1's numbered account says "All three new tests passed.", and
    its next item that the integration test run after them failed; its current work says the agent was "in the
    middle of fixing" that test. The claim, naming nothing, was called contradicted by that failure (an error). A
    summary that tells the failing check open in a line of its own does not claim it passed; a summary that does
    not still does."""
    records = [ran("r1", "go test ./cmd/app/hooks -run TestHooks", GO_TEST_OK),
               ran("r2", 'go test ./cmd/app/integration_test/ -run "TestShadow_TwoCommits"',
                   "--- FAIL: TestShadow_TwoCommits (7.11s)\nFAIL", failed=True)]  # fmt: skip
    told = ("4. Wrote three failing tests in `hooks_test.go`.\n\n9. All three new tests passed. fmt and lint passed "
            "clean.\n\n10. Integration test `TestShadow_TwoCommits` failed: the pending id persists.\n\n"
            "Current Work:\n   I was in the middle of fixing the integration test failure `TestShadow_TwoCommits`.\n")
    assert found(session(records, (2, told)), "claim-contradicted") == []
    silent = "4. Wrote three failing tests in `hooks_test.go`.\n\n9. All three new tests passed.\n"
    [hit] = found(session(records, (2, silent)), "claim-contradicted")
    assert hit.source.key == "r2"  # type: ignore[union-attr]


def test_tests_called_passing_are_judged_by_a_run_of_tests_not_by_a_commit_that_names_them() -> None:
    """A commit whose message says "fix all tests" after the failed run is no run of the tests (its prose names them):
    the failed run is still the last one the claim stands on."""
    records = [ran("r1", "go test ./cmd/entire/cli/summarise", GO_TEST_FAIL, failed=True),
               ran("r2", 'git commit -m "Fix all tests and build the package"', "[main 1a2b3c4] Fix")]  # fmt: skip
    [hit] = found(session(records, (2, "All tests pass.")), "claim-contradicted")
    assert hit.source.key == "r1"  # type: ignore[union-attr]


def test_tests_called_passing_are_not_judged_by_a_failed_build() -> None:
    records = [ran("r1", "go test ./cmd/entire/cli/checkpoint", GO_TEST_OK),
               ran("r2", "go build ./cmd/entire/cli/summarise", "cmd/entire/cli/summarise/summarise.go:41:2: "
                   "undefined: condensed\nerror: build failed", failed=True)]  # fmt: skip
    assert found(session(records, (2, "All tests pass.")), "claim-contradicted") == []
    [hit] = found(session(records, (2, "The build succeeds.")), "claim-contradicted")
    assert hit.source.key == "r2"  # type: ignore[union-attr]


def test_no_errors_in_a_named_step_is_not_contradicted_by_a_failure_of_another() -> None:
    records = [user("u1", "has skill filtering been applied to explain?"),
               ran("r1", "go test ./cmd/entire/cli/summarise", GO_TEST_FAIL, failed=True),
               returned("r2", "Read", "cmd/entire/cli/explain.go: func explainSession(...)")]  # fmt: skip
    first = "The user asked whether skill filtering applies to explain."
    named = "4. Errors and fixes:\n   - No errors encountered while reading `explain.go`\n"
    assert found(session(records, (1, first), (3, named)), "summary-collapse") == []
    whole = "4. Errors and fixes:\n   - No errors encountered\n"
    [hit] = found(session(records, (1, first), (3, whole)), "summary-collapse")
    assert (hit.generation, "build failed" in hit.message) == (2, True)


def test_a_figure_needs_its_unit_and_both_bounds_of_its_range() -> None:
    """A paper's own '3-5×' and a bare '50' in setup.py supported '2-5x speedups, 50-80% savings'."""
    records = [returned("r1", "Read", "Prior work reports 3-5× speedups on sparse inputs."),
               returned("r2", "Read", "setup(name='tensorlib', version='0.1', max_workers=50, ratio=80)")]  # fmt: skip
    [hit] = found(session(records, (2, "The new layout gives 2-5x speedups and 50-80% memory savings.")))
    assert hit.rule == "claim-unsupported"
    assert hit.evidence["why"] == "no output or message before it printed 2-5x, 50-80%"


def test_a_range_printed_whole_or_a_figure_cut_to_its_integer_is_printed() -> None:
    """vsla: '21-26× speedup' after a table printing 21× and 26.52×; a tool printing the range itself."""
    output = "Signal 1024: FFT 139us vs Direct 2918us = 21x speedup\nTotal elements: 15000\n  Speedup: 26.52x"
    summary = "- Ran CPU benchmarks showing excellent FFT convolution performance (21-26× speedup)"
    assert found(session([ran("r1", "./bench/fft_bench", output)], (1, summary))) == []
    ranged = [ran("r1", "./bench/fft_bench --summary", "FFT convolution: 21-26x speedup over direct")]
    assert found(session(ranged, (1, summary))) == []


def test_a_push_claim_needs_a_push_after_the_commit_it_names() -> None:
    """entireio/cli: a push, then a second commit; the summary calls the second one pushed."""
    records = [
        ran("r1", "git commit -am 'Add per-file attribution'", "[soph/ent-96 df4989c] Add per-file attribution"),
        ran("r2", "git push", PUSHED),
        ran("r3", "git commit -am 'Log summary errors'", "[soph/ent-96 7c21e0a] Log summary errors"),
    ]
    claim = "Committed 7c21e0a (summary error logging) and pushed it to soph/ent-96-summaries."
    [hit] = found(session(records, (3, claim)))
    assert (hit.rule, hit.evidence["why"]) == ("claim-unsupported", "no git push ran after 7c21e0a before it")
    [late] = found(session([*records, ran("r4", "git push", PUSHED)], (3, claim)))
    assert (late.rule, late.source.key) == ("claim-contradicted", "r4")  # type: ignore[union-attr]
    assert found(session([*records, ran("r4", "git push", PUSHED)], (4, claim))) == []
    assert found(session(records, (3, "Committed df4989c and pushed it."))) == []  # r2 pushed that one
    quiet = [ran("r1", "git commit -qam 'Add per-file attribution'", ""), ran("r2", "git push", PUSHED)]
    assert found(session(quiet, (2, "Pushed df4989c to soph/ent-96-summaries."))) == []  # only the push printed it


def test_a_push_through_a_helper_is_known_by_git_s_report() -> None:
    """wfc_e2e7a891 (outside ../shared, labelled blind) line 413: `bash scripts/housekeeping-git.sh push` printed git's
    "To https://github.com/… / * [new branch] … -> …", and S1's "pushed via helper, created PR #26" was called
    contradicted by a later `git push`. git's own report says a push ran, whatever command ran it; a rejected
    ref pushed nothing."""
    report = ("[entire] Pushing session logs to origin...\nremote: \nTo https://github.com/sam-fakhreddine/wfc.git\n"
              " * [new branch]      claude/add-helper-scripts -> claude/add-helper-scripts\n")  # fmt: skip
    claim = "- Committed successfully, pushed via helper, created PR #26"
    later = ran("r3", "git push origin claude/add-helper-scripts", PUSHED)
    helper = [ran("r1", "bash scripts/housekeeping-git.sh commit 'chore: add helper scripts'", "committed"),
              ran("r2", "bash scripts/housekeeping-git.sh push", report), later]  # fmt: skip
    assert found(session(helper, (2, claim))) == []
    rejected = report.replace(" * [new branch]  ", " ! [rejected]    ")
    refused = [*helper[:1], ran("r2", "bash scripts/housekeeping-git.sh push", rejected), later]
    [hit] = found(session(refused, (2, claim)))
    assert (hit.rule, hit.source.key) == ("claim-contradicted", "r3")  # type: ignore[union-attr]


def test_a_sha_of_digits_only_is_the_commit_a_push_claim_names_when_it_says_commit() -> None:
    """entirecli_70d782f7 (wider/) lines 341-343: `git commit` printed "[alex/ent-109 3696270] …" after the
    session's one push, and S1 said "The commit `3696270` was pushed"; the next agent found the branch one
    commit ahead and pushed at line 384. A sha with no letter is a commit where the claim calls it one."""
    records = [
        ran("r1", "git push", PUSHED),
        ran("r2", "git commit -m 'fix(explain): address low severity PR feedback'",
            "[alex/ent-109 3696270] fix(explain): address low severity PR feedback"),
    ]
    claim = "The commit `3696270` was pushed with message:"
    [hit] = found(session(records, (2, claim)))
    assert (hit.rule, hit.evidence["why"]) == ("claim-unsupported", "no git push ran after 3696270 before it")
    assert found(session(records, (2, "Pushed 3696270 lines of the fixture."))) == []  # a number, not a commit


def test_a_search_confirmed_only_what_a_result_names() -> None:
    """The search claim of the tests above, its result naming another project than the one confirmed."""
    asked = called("c1", "WebSearch", "query: onnxruntime-genai repository microsoft")
    other = returned("r1", "WebSearch", "Web search results: github.com/microsoft/onnxruntime — ONNX Runtime ...")
    summary = "A web search confirmed the correct repository is microsoft/onnxruntime-genai."
    [hit] = found(session([user("u1", "which repo has the genai runtime?"), asked, other], (3, summary)))
    assert hit.evidence["why"] == "no web search or fetch result before it names that"
    prose = "A web search confirmed that the runtime supports streaming generation on mobile devices."
    streaming = returned("r1", "WebSearch", "onnxruntime-genai: streaming generation supported; mobile devices: "
                         "Android and iOS")  # fmt: skip
    assert found(session([user("u1", "does it stream?"), asked, streaming], (3, prose))) == []
    assert found(session([user("u1", "does it stream?"), asked, other], (3, prose)), "claim-unsupported")


def test_a_search_that_came_back_empty_is_not_a_finished_step() -> None:
    """entireio/cli: the pending step is a code search that ran, and found nothing; it is still to do."""
    search = "gh search code 'BuildCondensedTranscript' --repo entireio/cli"
    empty = SourceRecord("r1", "(Bash completed with no output)", namespace="transcript", kind="tool_result",
                         authority="tool", extra={"command": search, "tool": "Bash"})  # fmt: skip
    no_match = SourceRecord("r1", "no pull requests match your search in entireio/cli", namespace="transcript",
                            kind="tool_result", authority="tool",
                            extra={"command": "gh pr list --search 'summaries'", "tool": "Bash",
                                   "exit_meaning": "No matches found"})  # fmt: skip
    step = f"7. Pending Tasks:\n   - Find the other callers (`{search}`)\n"
    assert found(session([empty], (1, step))) == []
    assert found(session([no_match], (1, "7. Pending Tasks:\n   - `gh pr list --search 'summaries'`\n"))) == []
    hits = found(session([ran("r1", search, "cmd/entire/cli/explain.go: BuildCondensedTranscript(...)")], (1, step)))
    assert [h.rule for h in hits] == ["stale-next-step"]


def test_tests_called_passing_after_the_failing_test_file_was_removed_are_not_contradicted() -> None:
    """A failure retired before the compaction (the user had the failing test deleted) contradicts nothing."""
    records = [ran("r1", "pytest tests/test_legacy_export.py", "FAILED tests/test_legacy_export.py::test_csv - "
                   "KeyError: 'legacy'\n1 failed, 3 passed", failed=True),
               user("u1", "that exporter is gone, delete its test"),
               ran("r2", "rm tests/test_legacy_export.py", "")]  # fmt: skip
    removed = "Removed the legacy exporter's test; all tests pass."
    assert found(session(records, (3, removed)), "claim-contradicted") == []
    [hit] = found(session(records, (1, "All tests pass.")), "claim-contradicted")
    assert hit.source.key == "r1"  # type: ignore[union-attr]


@pytest.mark.parametrize("status", ["not yet addressed", "outstanding, awaiting the API docs",
                                    "deferred to the next PR", "to be fixed once the docs confirm the verb"])
def test_an_errors_and_fixes_line_that_says_the_failure_is_open_does_not_present_it_as_fixed(status: str) -> None:
    records = [ran("r1", "./bp-cli import --config org.yaml", PERMISSIONS_404, failed=True)]
    title = "**Live import failed with 404 Route not found on blueprint permissions**"
    line = f"4. Errors and fixes:\n   - {title}: {status}\n"
    assert found(session(records, (1, line)), "claim-contradicted") == []


# --- nothing left to do ------------------------------------------------------------------------------

STASHED = ran("r1", "git stash 2>&1 && git rebase fork/feature/fix-import 2>&1",
              "Exit code 1\nok stashed\nRebasing (1/1)\nCONFLICT (content): Merge conflict in import.go", failed=True)
NOTHING_LEFT = ("7. Pending Tasks:\n   - No explicitly pending tasks remain. The review and fixes have been completed "
                "and pushed to the PR.\n")  # fmt: skip


def test_nothing_left_to_do_is_a_claim_in_a_pending_section_and_in_prose() -> None:
    kinds = [c.kind for c in claims_in(NOTHING_LEFT + "8. Current Work:\n   All tasks are complete.\n")]
    assert kinds == [ClaimKind.NOTHING_PENDING, ClaimKind.NOTHING_PENDING]
    assert [c.kind for c in claims_in("7. Pending Tasks:\n   - None\n")] == [ClaimKind.NOTHING_PENDING]
    assert claims_in("None of the tests failed after the rebase.") == []


def test_nothing_left_to_do_while_a_stash_still_holds_changes_is_unsupported() -> None:
    [hit] = found(session([user("u1", "rebase onto the fork"), STASHED], (2, NOTHING_LEFT)), "claim-unsupported")
    assert (hit.generation, hit.severity.value, hit.source.key) == (1, "warning", "r1")  # type: ignore[union-attr]
    assert "No explicitly pending tasks remain" in hit.message and "git stash" in hit.message
    popped = ran("r2", "git stash pop", "On branch feature/fix-import\nDropped refs/stash@{0}")
    assert found(session([user("u1", "rebase onto the fork"), STASHED, popped], (3, NOTHING_LEFT)),
                 "claim-unsupported") == []  # fmt: skip


# --- a failure called pre-existing ------------------------------------------------------------------------

OVERFLOW = ("running 31 tests\n\nthread 'test_register_and_update_forester_pda' has overflowed its stack\n"
            "fatal runtime error: stack overflow")  # fmt: skip
REGISTRY_EDIT = ("file_path: /Users/dev/light-protocol/programs/registry/src/lib.rs\nold_string: let config = x;\n"
                 "new_string: if ctx.accounts.authority.key() != ctx.accounts.protocol_config_pda.authority {")
PRE_EXISTING_CLAIM = ("- **`test_register_and_update_forester_pda` stack overflow**: Pre-existing issue. The test "
                      "function is 1300+ lines, causing stack overflow with default thread stack size.")


def pre_existing(*records: SourceRecord, claim: str = PRE_EXISTING_CLAIM) -> list[Finding]:
    return [f for f in found(session(list(records), (len(records), claim)), "claim-unsupported")
            if "set the changes aside" in f.message]


def test_a_failure_first_seen_after_the_session_changed_the_code_is_not_shown_pre_existing() -> None:
    """lightprotocol_a3ba6276 (fresh60, labelled blind: unsupported, warning): the agent edited the registry, the test
    then overflowed its stack, and its only check on the unchanged code, `git stash && cargo test-sbf …`, was denied;
    S1 still calls the overflow "Pre-existing issue"."""
    denied = ran("r3", "git stash && RUST_BACKTRACE=1 cargo test-sbf -p registry-test 2>&1 | tail -20",
                 "Permission to use Bash with command git stash && RUST_BACKTRACE=1 cargo test-sbf -p registry-test "
                 "2>&1 has been denied.", failed=True)  # fmt: skip
    [hit] = pre_existing(called("e1", "Edit", REGISTRY_EDIT),
                         ran("r2", "cargo test-sbf -p registry-test -- --test-threads=1 2>&1 | tail -40", OVERFLOW),
                         denied)  # fmt: skip
    assert (hit.generation, hit.severity.value) == (1, "warning")
    assert "`test_register_and_update_forester_pda`" in hit.message and "Pre-existing" in hit.message
    assert hit.evidence["claim"] == ClaimKind.PRE_EXISTING.value


def test_a_failure_seen_before_any_edit_or_with_the_changes_set_aside_is_shown_pre_existing() -> None:
    """sequant_f9389dae (wider/, its labels: not an issue) saw the timeout in the suite before its first edit; a run
    with the changes stashed, or on main, shows the same; and the user's own word that it is flaky is theirs to give."""
    failing = ran("r2", "cargo test-sbf -p registry-test 2>&1 | tail -40", OVERFLOW)
    edit = called("e1", "Edit", REGISTRY_EDIT)
    assert pre_existing(edit, failing)
    assert not pre_existing(failing, edit)
    stashed = ran("r3", "git stash && cargo test-sbf -p registry-test 2>&1 | tail -40",
                  "Saved working directory and index state WIP on main: 09f2967 chore\n" + OVERFLOW)  # fmt: skip
    assert not pre_existing(edit, failing, stashed)
    assert not pre_existing(edit, failing, ran("r3", "git checkout main", "Switched to branch 'main'"))
    on_main = ran("r3", "git checkout main && cargo test-sbf -p registry-test",
                  f"Switched to branch 'main'\n{OVERFLOW}", failed=True)  # it fails on main too: what shows it old
    assert not pre_existing(edit, failing, on_main)
    refused = ran("r3", "git checkout main", "error: pathspec 'main' did not match", failed=True)
    assert pre_existing(edit, failing, refused)
    assert pre_existing(edit, failing, ran("r3", "git checkout -b fix/registry", "Switched to a new branch"))
    assert not pre_existing(edit, failing, user("u3", "that overflow is flaky, it happens on main too"))


def test_a_pre_existing_thing_that_is_not_a_failure_is_not_called_unsupported() -> None:
    """monodreams_469e58d2's S1: "test suite (26 pre-existing + 1 new = 27 tests pass)"; cipherbox_71b7117f's "plus 1
    pre-existing docs commit": old tests and a commit, nothing failing called old, though the test's name failed."""
    failing = ran("r2", "cargo test-sbf -p registry-test 2>&1 | tail -40", OVERFLOW)
    edit = called("e1", "Edit", REGISTRY_EDIT)
    for claim in ("- test suite (26 pre-existing + 1 new = 27 tests pass), `test_register_and_update_forester_pda` new",
                  "The branch holds `test_register_and_update_forester_pda` and 1 pre-existing docs commit."):
        assert ClaimKind.PRE_EXISTING in {c.kind for c in claims_in(claim)}
        assert not pre_existing(edit, failing, claim=claim)


def test_a_pre_existing_root_cause_is_of_the_failure_its_error_item_names() -> None:
    """lightprotocol_23ba8c9b (fresh62, labelled blind: unsupported, read after its score): under "Error 3: Stack
    overflow in some registry tests", whose "Symptom:" line names the tests without backticks, S1 says "Root cause:
    Pre-existing deep call stack in complex test scenarios"; the tests first overflowed after the session's edits."""
    claim = ("   - Error 3: Stack overflow in some registry tests\n"
             "     - Symptom: test_custom_forester_batched and test_register_and_update_forester_pda had stack "
             "overflow\n"
             "     - Root cause: Pre-existing deep call stack in complex test scenarios\n"
             "     - Fix: Used RUST_MIN_STACK=16777216 environment variable when running tests with larger stack\n")
    failing = ran("r2", "cargo test-sbf -p registry-test 2>&1 | tail -40", OVERFLOW)
    [hit] = pre_existing(called("e1", "Edit", REGISTRY_EDIT), failing, claim=claim)
    assert "Root cause: Pre-existing" in hit.message and "`test_register_and_update_forester_pda`" in hit.message
    assert not pre_existing(called("e1", "Edit", REGISTRY_EDIT), failing,
                            claim=claim.replace("Error 3: Stack overflow in", "Note 3: Deep calls in"))


def test_a_pre_existing_claim_is_of_its_own_item_before_the_section_it_sits_in() -> None:
    """dsa110flits_76f60b7a (fresh68, labelled blind: S1 faithful, read after its score): under "4. Errors and fixes:",
    the item "**ruff B905 (zip without strict=)** on my new `__call__` zip: fixed … Separate pre-existing B905 at :247
    (kernel) left out-of-scope." names no failure in its sentence, and the names of the whole section were read in its
    place: the interpreter's path, `/Users/…/flits/bin/python`, printed on a failing line of another item's runs, was
    called the failure shown old. The claim's own item is read first; only an item that names nothing (a "Root cause:"
    line) is of the item above it."""
    python = "/Users/jakobfaber/.conda/envs/flits/bin/python"
    claim = ("4. Errors and fixes:\n"
             "   - **ruff B905 (zip without strict=)** on my new `__call__` zip: fixed by adding `strict=True`. "
             "Separate pre-existing B905 at :247 (kernel) left out-of-scope.\n"
             f"   - **Background run deaths:** `conda run` killed the run; `{python}` printed nothing.\n")
    died = ran("r2", f"{python} -m pytest tests/ 2>&1 | tail -5", f"{python}: error: the run was killed")
    edit = called("e1", "Edit", "file_path: scattering/scat_analysis/burstfit_joint.py\nnew_string: strict=True")
    assert not pre_existing(edit, died, claim=claim)
    failed = ran("r3", f"{python} -m pytest tests/ 2>&1 | tail -5", "FAILED tests/test_kernel.py::test_kernel_zip")
    assert pre_existing(edit, died, failed, claim=claim.replace("`__call__` zip", "`test_kernel_zip` zip"))
