"""The guard never goes silent for want of time: when its full check is cut short by the time limit, the agent gets
what a cheap reading of the log already showed (the user's own words that still stand), headed by a line saying the
check was cut short; and what it printed reaches the review store without the hook waiting for a database.

The guard runs as the harness runs it, a process fed the hook's JSON. The session is built so that its full check
costs several times its cheap reading (many failing shell runs whose lives the check follows, one constraint the
user typed), and the time limit is set between the two; how long each takes depends on the machine, so the test
looks for a limit and a session size where the check is cut short and the cheap reading is not, then asserts what
the agent reads there.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from inspector.guard_pending import waiting
from inspector.store import Store
from tests.test_guard import SCRIPT, guard_env, hook_input
from tests.test_guard_authorship import call, line, result, user
from tests.test_guard_precompact import pre_compact_input, said, typed

CONSTRAINT = "Never push to the main branch without a review."
CUT_SHORT = "gave back what it had read of the log, its check cut short"


def heavy_session(folder: Path, runs: int, *, before: bool = False) -> Path:
    """The user's constraint, then `runs` shell commands that fail, each its own way, then three compactions whose
    summaries (20 KB each, dense with files, figures and claims of passing tests) the check weighs; cut just after
    the last summary (SessionStart), or `before` one more compaction (PreCompact). The full check parses every
    shell line and follows each failure's life (`shell_runs`); the cheap reading parses none, so the runs make the
    check heavy both before a compaction, where no summary is weighed, and after it."""
    rng = random.Random(5)
    records = [typed("u1", None, CONSTRAINT), said("Understood.", "a1", "u1")]
    parent = "a1"
    for k in range(runs):
        command = (f"cd src/pkg_{k % 31} && for f in *.py; do python -m pytest \"$f\" -k 'case_{k}' | tee log_{k}.txt; "
                   f"done && git add -A")  # fmt: skip
        records += [call(f"c{k}", parent, "Bash", {"command": command}),
                    result(f"o{k}", f"c{k}", f"FAILED tests/test_{k}.py::case_{k} - AssertionError\nExit code 1",
                           {"stdout": "", "stderr": "", "interrupted": False}, is_error=True)]  # fmt: skip
        parent = f"o{k}"
    summaries = 3
    for k in range(summaries):
        parts, size = [], 0
        while size < 20 * 1024:
            i = rng.randint(0, 10**6)
            part = (f"Fixed the failing test in src/pkg_{i % 97}/module_{i}.py and all {i % 300} tests pass, pushed "
                    f"commit {i:07x} to origin, confirmed the deploy works and is {i % 9}x faster; ")  # fmt: skip
            parts.append(part)
            size += len(part)
        records += [line(f"b{k}", None, "system", subtype="compact_boundary", content="Conversation compacted",
                         logicalParentUuid=parent, compactMetadata={"trigger": "auto", "preTokens": 160_000}),
                    user(f"s{k}", f"b{k}", "".join(parts), isCompactSummary=True)]  # fmt: skip
        if k < summaries - 1 or before:
            records += [typed(f"t{k}", f"s{k}", f"Carry on with step {k}, please."), said("On it.", f"r{k}", f"t{k}")]
            parent = f"r{k}"
    path = folder / "session.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def cut_short_run(tmp_path: Path, before: bool) -> tuple[str, list[str]]:
    """(what the guard printed, its log) at the first session size and time limit where its check was cut short."""
    for runs in (1000, 4000, 16000):
        transcript = heavy_session(tmp_path, runs, before=before)
        stdin = pre_compact_input(transcript) if before else hook_input(transcript)
        for seconds in ("0.5", "1", "2", "4", "8"):
            done = subprocess.run([str(SCRIPT), "guard"], input=stdin, capture_output=True, text=True,
                                  env=guard_env(tmp_path, INSPECTOR_GUARD_SECONDS=seconds), cwd=tmp_path,
                                  timeout=60)  # fmt: skip
            assert (done.returncode, done.stderr) == (0, "")
            log_file = tmp_path / "data" / "guard.log"
            log = log_file.read_text().splitlines() if log_file.exists() else []
            log_file.unlink(missing_ok=True)
            if any(CUT_SHORT in entry for entry in log):
                return done.stdout, log
            shutil.rmtree(tmp_path / "data" / "guard-pending", ignore_errors=True)  # a check that finished: not this
            if not any("stopped its check" in entry for entry in log):
                break  # the full check finished within this limit: a heavier session is needed
    pytest.fail("the guard's check was never cut short with the cheap reading done: the session is too light")


@pytest.mark.parametrize("before", [False, True], ids=["after the compaction", "before it"])
def test_a_check_cut_short_by_the_time_limit_gives_back_the_users_words_and_says_so(before, tmp_path, monkeypatch):
    printed, log = cut_short_run(tmp_path, before)
    context = printed.removesuffix("\n") if before else json.loads(printed)["hookSpecificOutput"]["additionalContext"]
    head, *lines = context.splitlines()
    assert head.startswith("Compaction Inspector ran out of time (") and "still standing" in head, head
    assert f"“{CONSTRAINT}”" in context and lines[-1].startswith("- The user said"), context
    assert not any("lost in the summary" in entry for entry in lines)  # nothing was judged: nothing is called lost
    assert any("stopped its check after" in entry for entry in log), log
    # What was printed is in the review store: the hook left it waiting, and the store took it in when read.
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path / "data"))
    (injection,) = Store(f"sqlite:///{tmp_path / 'store.db'}").guard.for_session("guarded")
    assert injection.text == context and injection.event == ("PreCompact" if before else "SessionStart")
    assert CONSTRAINT in [item.text for item in injection.items]
    assert list(waiting()) == []  # taken in, and its file removed
