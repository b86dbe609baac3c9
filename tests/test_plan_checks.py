"""A check an approved plan's verification section asks to run is owed until a shell run makes it; a summary that
does not name it while it is owed loses it.

Excerpts from sessions outside ../shared, labelled blind: fasola_8c36b201 (its plan's "## Verification Plan" asks
"1. `npm run lint` passes"; no run linted before S1, S2 or S3, and its labels call the check lost in each) and
cipherbox_71b7117f (its "## Verification" asks "3. `cd apps/desktop/src-tauri && cargo test --features fuse` — Rust
tests pass"; the agent ran `cargo build` there and never `cargo test`: lost in S1, by its labels). The plan also
asks things no run owes: vault_b9bb7dcd's build check leaves its device as a placeholder (`id=<device>`) that the
run fills in, and apollo_d97ae08b's and changelogue_3d82bc8a's sections ask a request by hand and a dev server.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inspector.analysis import analyze
from inspector.plan_checks import check_of, checks
from inspector.readers import load_trace
from tests.test_guard_authorship import call, given_back, line, result, user
from tests.test_plan_steps import _session as planned_session

PLAN = """# Plan: Switch File IPNS Keys from Deterministic HKDF to Random

## Steps
1. Update `packages/crypto/src/file/types.ts` with the optional field

## Verification

1. `pnpm --filter @cipherbox/crypto test` — crypto package tests pass (new + existing)
2. `cd apps/desktop/src-tauri && cargo test --features fuse` — Rust tests pass
3. Build: `xcodebuild build -scheme Vault -destination 'id=<device>'`
4. Security headers: `curl -I localhost:3000` confirms headers present
5. `bun run dev` and open the Context tab

## Files Modified

| `apps/web/src/services/folder.service.ts` | Store encrypted key, run `npm run lint` after |
"""
SUMMARY = ("Summary:\n1. Primary Request: switch file IPNS keys to random ones.\n\nPending Tasks:\n"
           "- Open the pull request")  # fmt: skip


def _ran(uuid: str, parent: str, command: str, *, failed: bool = False) -> list[dict[str, Any]]:
    """The agent running a shell command, and the harness's result."""
    body = "Exit code 1\nerror: test failed" if failed else "ok"
    return [call(uuid, parent, "Bash", {"command": command}),
            result(f"{uuid}r", uuid, body, {"stdout": body, "stderr": "", "interrupted": False}, is_error=failed)]


CRYPTO_TESTED = _ran("r1", "p0", "pnpm --filter @cipherbox/crypto test 2>&1 | tail -20")
BUILT = [*CRYPTO_TESTED, *_ran("r2", "r1r", "xcodebuild build -project /Users/u/vault/Vault.xcodeproj -scheme Vault "
                                            "-destination 'platform=iOS,id=00008120-000E75A63CC8401E' -quiet")]
"""The crypto tests and the build run, each in the form a session gave it; `cargo test` never."""


def _session(folder: Path, summary: str, work: list[dict[str, Any]]) -> Path:
    """The approved plan handed to the agent (uuid "p0"), the `work` after it, a compaction and its `summary`."""
    head = [user("p0", None, f"Implement the following plan:\n\n{PLAN}", planContent=PLAN, promptSource="typed")]
    return planned_session(folder, summary, work, head=head)


def _lost(path: Path) -> list[tuple[str, str]]:
    return [(f.severity.value, f.message) for f in analyze(load_trace(path)).findings
            if f.rule == "task-criterion-lost"]  # fmt: skip


def test_a_check_no_run_made_is_lost_from_a_summary_that_does_not_name_it(tmp_path: Path) -> None:
    assert _lost(_session(tmp_path, SUMMARY, BUILT)) == [
        ("warning", "the check `cd apps/desktop/src-tauri && cargo test --features fuse` of the plan the user "
                    "approved, which no run has made yet, is not in S1")]  # fmt: skip


def test_the_guard_gives_the_unrun_check_back_with_the_plan_line(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path / "data"))
    back = given_back(_session(tmp_path, SUMMARY, BUILT), tmp_path)
    assert "a check of the plan the user approved; no run has made `cd apps/desktop/src-tauri && cargo test" in back
    assert "Rust tests pass" in back and "crypto package tests pass" not in back


@pytest.mark.parametrize(("named", "lost"), [("~/.claude/plans/zazzy-bouncing-sonnet.md", 0),
                                              ("docs/plans/zazzy-bouncing-sonnet-notes.md", 1)])
def test_a_summary_naming_the_plans_file_keeps_its_checks(tmp_path: Path, named: str, lost: int) -> None:
    """hypergraph_a560566f (fresh40, labelled blind: S1 faithful) is mid-way through a plan the user approved in plan
    mode, and S1 sends the next agent to it ("the approved plan at …/.claude/plans/zazzy-bouncing-sonnet.md") with its
    remaining steps; the plan's two pytest checks, not yet due, were warned of as lost. Plan mode writes the plan to a
    file named for the session's slug: a summary naming that file keeps what the plan asks to run. Another file's
    name keeps nothing."""
    asked = [user("u0", None, "Plan the switch to random IPNS keys.", origin={"kind": "human"},
                  slug="zazzy-bouncing-sonnet"),
             call("x1", "u0", "ExitPlanMode", {"plan": PLAN}),
             result("p0", "x1", "User has approved your plan. You can now start coding.", {"plan": PLAN})]  # fmt: skip
    summary = f"{SUMMARY}\n- Continue with step 2 of the approved plan at {named}"
    assert len(_lost(planned_session(tmp_path, summary, BUILT, head=asked))) == lost


def test_a_run_in_another_form_makes_the_check_and_so_does_a_failed_one(tmp_path: Path) -> None:
    """`cargo test` with no features run from the folder by its full path; then a failing run: its failure is
    what the next agent must know, through the failure lifecycle, not an unrun check."""
    tested = [*BUILT, *_ran("r3", "r2r", "cd /Users/u/cipher-box/apps/desktop/src-tauri && cargo test 2>&1")]
    assert _lost(_session(tmp_path, SUMMARY, tested)) == []
    failing = [*BUILT, *_ran("r3", "r2r", "cargo test --features fuse", failed=True)]
    assert _lost(_session(tmp_path, SUMMARY, failing)) == []


@pytest.mark.parametrize("named", ["Run `cargo test --features fuse` before the PR",
                                   "- cargo test still to run in apps/desktop/src-tauri"])
def test_a_summary_naming_the_check_keeps_it(tmp_path: Path, named: str) -> None:
    assert _lost(_session(tmp_path, f"{SUMMARY}\n{named}", BUILT)) == []


def test_a_run_before_the_plan_makes_nothing_it_asks(tmp_path: Path) -> None:
    """The checks are owed from the plan on: the crypto tests run before the plan was approved do not count."""
    before = [user("p0", None, "Run the crypto tests.", origin={"kind": "human"}, promptSource="typed"),
              *_ran("r1", "p0", "pnpm --filter @cipherbox/crypto test")]
    head = [*before, user("p1", "r1r", f"Implement the following plan:\n\n{PLAN}", planContent=PLAN)]
    records = [*head, *_ran("r2", "p1", "cargo test --features fuse"),
               line("b1", None, "system", subtype="compact_boundary", logicalParentUuid="r2r"),
               user("s1", "b1", SUMMARY, isCompactSummary=True)]  # fmt: skip
    path = tmp_path / "before.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    lost = " ".join(message for _, message in _lost(path))
    assert "`pnpm --filter @cipherbox/crypto test`" in lost and "`xcodebuild build" in lost and "cargo" not in lost


def test_only_commands_of_the_verification_section_that_verify_are_checks() -> None:
    """The request by hand, the dev server and the lint named under another heading ask no pass."""
    assert [check.command for check, _ in checks(PLAN)] == [
        "pnpm --filter @cipherbox/crypto test", "cd apps/desktop/src-tauri && cargo test --features fuse",
        "xcodebuild build -scheme Vault -destination 'id=<device>'"]  # fmt: skip


@pytest.mark.parametrize(("command", "defining"), [
    ("npm run lint", ("lint",)), ("pnpm lint", ("lint",)), ("npx tsc --noEmit", ("tsc",)),
    ("go build -o changelogue ./cmd/server", ("go", "build")), ("mise run test:ci", ("mise", "run", "test:ci")),
    ("go test ./internal/api/... -run TestListAll", ("go", "test")),
    ("pnpm --filter @app/crypto test", ("pnpm", "test")),
])  # fmt: skip
def test_what_every_run_of_a_check_carries(command: str, defining: tuple[str, ...]) -> None:
    check = check_of(command)
    assert check is not None and check.defining == defining
