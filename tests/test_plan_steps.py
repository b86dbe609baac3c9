"""A step of a plan the user approved that makes a function or a file by name is owed until an edit writes that name;
a summary that drops it while saying nothing is left is contradicted.

Excerpts from sessions outside ../shared, labelled blind: cipherbox_71b7117f (the plan handed over with `planContent`
asks "Add `migrateFilePointers()` helper: …"; no edit wrote it, and S1's pending section says "None. All 6 steps
completed and committed": an error in its labels) and apollo_5744817a (its step 12d, "**New file**:
`apps/web/tests/editor/extract-citations.test.ts`", never created; S1 says in its account "I implemented the entire
Phase 4 plan step by step" beside a pending task: a warning in its labels).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inspector.analysis import analyze
from inspector.plan_steps import steps
from inspector.readers import load_trace
from tests.test_guard_authorship import call, given_back, line, result, user

PLAN = """# Plan: Switch File IPNS Keys from Deterministic HKDF to Random

## Steps
1. Add `generateFileIpnsKeypair()` in the crypto package: a random Ed25519 keypair per file
2. Add `migrateFilePointers()` helper: for each FilePointer without `ipnsPrivateKeyEncrypted`, derive via HKDF + \
wrap with ECIES + add field
3. **New file**: `apps/web/tests/editor/extract-citations.test.ts`
4. Update the README to describe `deriveFileIpnsName()` and its callers
"""
DONE_PENDING = ("Pending Tasks:\n- None. All 3 steps completed and committed. The implementation is ready for PR "
                "creation.")
DONE_IN_PROSE = ("Summary:\n1. I implemented the entire plan step by step.\n\nPending Tasks:\n"
                 "- Write the completion report into docs/REPORT.md")  # fmt: skip


def _wrote(uuid: str, parent: str, path: str, content: str) -> list[dict[str, Any]]:
    """The agent writing a file, and the harness's result."""
    return [call(uuid, parent, "Write", {"file_path": path, "content": content}),
            result(f"{uuid}r", uuid, "File created successfully", {"type": "create"})]  # fmt: skip


WORK = [*_wrote("w1", "p0", "packages/crypto/src/file/keys.ts", "export function generateFileIpnsKeypair() {}"),
        *_wrote("w2", "w1r", "apps/web/tests/editor/extract-citations.test.ts", "test('one key', () => {})")]
"""Steps 1 and 3 written; step 2's `migrateFilePointers` never."""


def _session(folder: Path, summary: str, work: list[dict[str, Any]] = WORK, *, head: list[dict[str, Any]] | None = None
             ) -> Path:  # fmt: skip
    """The approved plan handed to the agent (`head`, by default the harness's `planContent` record, uuid "p0"), the
    `work` after it, a compaction and its `summary`."""
    head = head if head is not None else [
        user("p0", None, f"Implement the following plan:\n\n{PLAN}", planContent=PLAN, promptSource="typed")]
    last = work[-1]["uuid"] if work else head[-1]["uuid"]
    records = [*head, *work,
               line("b1", None, "system", subtype="compact_boundary", logicalParentUuid=last,
                    compactMetadata={"trigger": "auto", "preTokens": 160000}),
               user("s1", "b1", summary, isCompactSummary=True)]  # fmt: skip
    path = folder / "planned.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _steps_lost(path: Path) -> list[tuple[str, str]]:
    return [(f.severity.value, f.message) for f in analyze(load_trace(path)).findings
            if f.rule == "task-criterion-lost"]  # fmt: skip


def test_a_step_no_edit_made_is_an_error_where_the_summary_says_nothing_is_left(tmp_path: Path) -> None:
    [(severity, message)] = _steps_lost(_session(tmp_path, DONE_PENDING))
    assert severity == "error"
    assert "`migrateFilePointers` no edit has written yet, is not in S1" in message
    assert message.endswith("which says “- None. All 3 steps completed and committed. The implementation is ready "
                            "for PR creation.”")  # fmt: skip


def test_the_guard_gives_the_unwritten_step_back_after_the_compaction(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path / "data"))
    back = given_back(_session(tmp_path, DONE_PENDING), tmp_path)
    assert ("(a step of the plan the user approved; no edit has written `migrateFilePointers`, lost in the summary"
            in back)  # fmt: skip
    assert "“Add `migrateFilePointers()` helper: for each FilePointer without `ipnsPrivateKeyEncrypted`" in back
    assert "extract-citations" not in back and "generateFileIpnsKeypair" not in back  # written: nothing owed


def test_a_summary_that_says_so_in_its_account_beside_steps_left_gets_a_warning(tmp_path: Path) -> None:
    [(severity, message)] = _steps_lost(_session(tmp_path, DONE_IN_PROSE))
    assert (severity, message.endswith("which says “I implemented the entire plan step by step.”")) == (
        "warning", True)


def test_a_summary_naming_what_is_still_to_write_keeps_the_step(tmp_path: Path) -> None:
    kept = DONE_IN_PROSE + "\n- migrateFilePointers() is not written yet: the lazy migration is still to do"
    assert _steps_lost(_session(tmp_path, kept)) == []


def test_a_file_the_step_makes_is_known_by_its_own_name(tmp_path: Path) -> None:
    """Written by a shell command, not an edit; then not written at all."""
    by_shell = [call("w1", "p0", "Bash", {"command": "touch apps/web/tests/editor/extract-citations.test.ts"}),
                result("w1r", "w1", "", {"stdout": "", "stderr": "", "interrupted": False}),
                *_wrote("w2", "w1r", "packages/crypto/src/file/keys.ts",
                        "export function generateFileIpnsKeypair() {}\nexport function migrateFilePointers() {}")]
    assert _steps_lost(_session(tmp_path, DONE_PENDING, by_shell)) == []
    unwritten = WORK[:2] + _wrote("w2", "w1r", "packages/crypto/src/file/migrate.ts",
                                  "export function migrateFilePointers() {}")  # fmt: skip
    [(severity, message)] = _steps_lost(_session(tmp_path, DONE_PENDING, unwritten))
    assert severity == "error" and "`extract-citations.test.ts` no edit has written yet" in message


@pytest.mark.parametrize(("agent", "lost"), [("general-purpose", 0), ("Explore", 1)])
def test_a_sub_agent_that_may_write_leaves_nothing_known_owed(tmp_path: Path, agent: str, lost: int) -> None:
    """A sub-agent's edits are in a log of its own: one that may write may have made the step. Explore cannot."""
    task = [call("t1", "w2r", "Task", {"description": "Finish the plan", "prompt": "Do the rest of the plan.",
                                       "subagent_type": agent}),
            result("t1r", "t1", "Done.", {"status": "completed"})]  # fmt: skip
    assert len(_steps_lost(_session(tmp_path, DONE_PENDING, [*WORK, *task]))) == lost


@pytest.mark.parametrize(("rejected", "lost"), [(True, 0), (False, 1)])
def test_a_plan_put_to_the_user_asks_only_once_approved(tmp_path: Path, rejected: bool, lost: int) -> None:
    asked = [user("u0", None, "Plan the switch to random IPNS keys.", origin={"kind": "human"}),
             call("x1", "u0", "ExitPlanMode", {"plan": PLAN}),
             result("p0", "x1", "The user doesn't want to proceed with this tool use." if rejected else
                    "User has approved your plan. You can now start coding.", {"plan": PLAN},
                    is_error=rejected)]  # fmt: skip
    assert len(_steps_lost(_session(tmp_path, DONE_PENDING, head=asked))) == lost


def test_only_a_verb_of_making_next_to_the_name_makes_a_step() -> None:
    """Step 4 updates the README about `deriveFileIpnsName()`: the function exists, the step makes nothing by name."""
    assert [s.name for s in steps(PLAN)] == ["generateFileIpnsKeypair()", "migrateFilePointers()",
                                             "apps/web/tests/editor/extract-citations.test.ts"]  # fmt: skip


def test_a_later_approved_plan_without_the_step_replaces_it(tmp_path: Path) -> None:
    """The user approved a second plan in place of the first: a step only the first had is no longer asked."""
    revised = PLAN.replace("2. Add `migrateFilePointers()` helper", "2. Keep the HKDF derivation for old files")
    replan = [call("x2", "w2r", "ExitPlanMode", {"plan": revised}),
              result("x2r", "x2", "User has approved your plan. You can now start coding.", {"plan": revised})]
    assert _steps_lost(_session(tmp_path, DONE_PENDING, [*WORK, *replan])) == []
    kept = [call("x2", "w2r", "ExitPlanMode", {"plan": PLAN}),
            result("x2r", "x2", "User has approved your plan. You can now start coding.", {"plan": PLAN})]
    assert len(_steps_lost(_session(tmp_path, DONE_PENDING, [*WORK, *kept]))) == 1
