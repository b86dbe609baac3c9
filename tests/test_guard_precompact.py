"""The guard before a compaction: Claude Code's `PreCompact` hook, run as the harness runs it.

Each transcript is the log as it stands when Claude Code fires `PreCompact` (nothing of the coming compaction
in it yet), fed to the installed `compaction-inspector guard` with the hook's input on stdin in Claude Code's
shape. Its plain stdout is what Claude Code adds to the compaction's custom instructions: the user's own words
that still stand, for the summary to keep.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import FIXTURES, LABELLED, needs_shared
from tests.test_guard import SCRIPT, guard_env
from tests.test_guard_authorship import CASES, PLANTED, TYPED, call, line, result, user

HEAD = "Compaction Inspector read this session's log: what follows still stands"


def pre_compact_input(transcript: Path, trigger: str = "auto") -> str:
    """What Claude Code sends a PreCompact hook on stdin (its `PreCompact` hook input: the common fields, the
    trigger and the user's own instructions for a manual /compact)."""
    return json.dumps({"session_id": "guarded", "transcript_path": str(transcript), "cwd": str(transcript.parent),
                       "permission_mode": "default", "hook_event_name": "PreCompact", "trigger": trigger,
                       "custom_instructions": ""})  # fmt: skip


def guarded(stdin: str, tmp_path: Path, *options: str) -> tuple[int, str, list[str]]:
    """(exit status, its stdout, the guard log's lines) of the guard run as the harness runs it."""
    done = subprocess.run([str(SCRIPT), "guard", *options], input=stdin, capture_output=True, text=True,
                          env=guard_env(tmp_path), cwd=tmp_path, timeout=60)  # fmt: skip
    assert done.stderr == "", done.stderr
    log = tmp_path / "data" / "guard.log"
    return done.returncode, done.stdout, log.read_text().splitlines() if log.exists() else []


def said(text: str, uuid: str = "a1", parent: str = "u1") -> dict[str, Any]:
    return line(uuid, parent, "assistant", message={"id": f"msg_{uuid}", "role": "assistant",
                                                    "content": [{"type": "text", "text": text}]})  # fmt: skip


def typed(uuid: str, parent: str | None, text: str, **fields: Any) -> dict[str, Any]:
    return user(uuid, parent, text, origin={"kind": "human"}, promptSource="typed", **fields)


def before_compaction(folder: Path, records: list[dict[str, Any]]) -> Path:
    """A Claude Code log as it stands when PreCompact fires: the records so far, no boundary, no summary."""
    path = folder / "session.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def entries(stdout: str) -> list[str]:
    return [entry for entry in stdout.splitlines() if entry.startswith("- ")]


def test_the_users_typed_constraint_is_listed_as_plain_text_for_the_compactor(tmp_path):
    transcript = before_compaction(tmp_path, [typed("u1", None, TYPED), said("Understood.")])
    code, stdout, log = guarded(pre_compact_input(transcript), tmp_path)
    assert (code, log) == (0, [])
    assert stdout.startswith(HEAD) and not stdout.lstrip().startswith("{")  # text, not a SessionStart JSON
    assert entries(stdout) == [f"- The user said, 2026-11-20 10:00 UTC (constraint, record u1): “{TYPED}”"]


@pytest.mark.parametrize("case", ["Bash output forging a question-tool answer", "a sub-agent's task notification",
                                  "a system reminder", "hook output", "a fenced paste"])  # fmt: skip
def test_a_constraint_only_someone_else_wrote_is_not_listed(case, tmp_path):
    """The same instructions the guard never gives back after a compaction are never put into the compactor's
    instructions before one: a tool's result, a sub-agent's report, a reminder, hook output, a paste."""
    transcript = before_compaction(tmp_path, [typed("u1", None, TYPED), said("Understood."), *CASES[case],
                                              said("Done for now.", "a9", "m")])  # fmt: skip
    code, stdout, _ = guarded(pre_compact_input(transcript), tmp_path)
    assert code == 0 and "evil.example" not in stdout and PLANTED not in stdout, stdout
    assert TYPED in stdout


def test_a_failure_still_open_is_listed_in_the_logs_words_and_a_fixed_one_is_not(tmp_path):
    failing = "Exit code 1\nFAILED tests/test_billing.py::test_refund - AssertionError: 3 != 4"
    broke = [call("c1", "a1", "Bash", {"command": "pytest tests/test_billing.py"}),
             result("r1", "c1", failing, f"Error: {failing}", is_error=True),
             said("The refund test fails.", "a2", "r1")]
    records = [typed("u1", None, "Run the billing tests."), said("Running them."), *broke]
    code, stdout, _ = guarded(pre_compact_input(before_compaction(tmp_path, records)), tmp_path)
    assert code == 0 and any(entry.startswith("- The log says, 2026-11-20 10:00 UTC (") and ", record r1)" in entry
                             and "test_refund" in entry for entry in entries(stdout)), stdout  # fmt: skip
    passing = "1 passed in 0.12s"
    fixed = [call("c2", "a2", "Bash", {"command": "pytest tests/test_billing.py"}),
             result("r2", "c2", passing, {"stdout": passing, "stderr": "", "interrupted": False})]
    code, stdout, _ = guarded(pre_compact_input(before_compaction(tmp_path, records + fixed)), tmp_path)
    assert code == 0 and "test_refund" not in stdout, stdout


def test_nothing_is_printed_when_nothing_stands(tmp_path):
    transcript = before_compaction(tmp_path, [typed("u1", None, "What does the parser module do?"),
                                              said("It reads the session logs.")])  # fmt: skip
    assert guarded(pre_compact_input(transcript, "manual"), tmp_path) == (0, "", [])


def test_the_users_last_question_with_no_answer_yet_is_listed(tmp_path):
    """The compaction comes while the agent is still looking: the summary is asked to keep the question open."""
    transcript = before_compaction(tmp_path, [typed("u1", None, "What does the parser module do?")])
    code, stdout, _ = guarded(pre_compact_input(transcript, "manual"), tmp_path)
    assert code == 0 and stdout.startswith(HEAD), stdout
    assert entries(stdout) == ["- The user said, 2026-11-20 10:00 UTC (question, asked last before the compaction and "
                               "not answered, record u1): “What does the parser module do?”"], stdout  # fmt: skip


def test_a_decision_is_listed_with_the_option_it_picked(tmp_path):
    offered = ("Two ways to fix the import cycle:\n\n**A. Delete the unused `GetSummariseOptions()`**\n"
               "**B. Move the options to a shared package**\n\nWhich do you prefer?")
    transcript = before_compaction(tmp_path, [typed("u1", None, "Fix the import cycle in the summarise package."),
                                              said(offered), typed("u2", "a1", "yes, let's go with A")])  # fmt: skip
    code, stdout, _ = guarded(pre_compact_input(transcript), tmp_path)
    assert code == 0
    [decision] = [entry for entry in entries(stdout) if "go with A" in entry]
    assert decision.endswith("“yes, let's go with A” (in reply to “option A: Delete the unused "
                             "`GetSummariseOptions()`”)"), decision  # fmt: skip


def test_a_decision_done_since_is_not_listed(tmp_path):
    """'documented in README' is done once README.md is edited to say it: the summary need not carry it."""
    ask = typed("u1", None, "Let's document the flag in README, note that it is claude-only for now.")
    edit = call("c1", "a1", "Edit", {"file_path": "/repo/README.md", "old_string": "## Flags\n",
                                     "new_string": "## Flags\n\n`--summarise` is claude-only for now.\n"})  # fmt: skip
    done = result("r1", "c1", "The file /repo/README.md has been updated.", {"filePath": "/repo/README.md"})
    before = [ask, said("I will document it.")]
    code, listed, _ = guarded(pre_compact_input(before_compaction(tmp_path, before)), tmp_path)
    assert code == 0 and "document the flag in README" in listed  # standing until the edit
    after = [*before, edit, done, said("Documented.", "a2", "r1"), typed("u2", "a2", "Never commit to main.")]
    code, listed, _ = guarded(pre_compact_input(before_compaction(tmp_path, after)), tmp_path)
    assert code == 0 and "Never commit to main." in listed and "README" not in listed, listed


def test_a_superseded_decision_is_not_listed(tmp_path):
    """A record that supersedes another retires it (docs/trace-format.md, `supersedes`): only the correction
    stands. The guard reads whatever format the hook names."""
    sources = [
        {"key": "turn:1", "namespace": "transcript", "kind": "user-decision", "authority": "user",
         "timestamp": "2026-11-20T10:00:00Z", "text": "Deploy with the blue-green script on Friday."},
        {"key": "turn:2", "namespace": "transcript", "kind": "assistant", "authority": "assistant",
         "timestamp": "2026-11-20T10:01:00Z", "text": "Understood."},
        {"key": "turn:3", "namespace": "transcript", "kind": "user", "authority": "user", "supersedes": "turn:1",
         "timestamp": "2026-11-20T10:05:00Z", "text": "Deploy with the canary script on Thursday instead."},
    ]  # fmt: skip
    trace = {"format": "compaction-trace/1", "id": "superseded", "sources": sources,
             "generations": [{"index": 0, "kind": "raw", "text": "\n".join(s["text"] for s in sources)}]}
    transcript = tmp_path / "superseded.json"
    transcript.write_text(json.dumps(trace))
    code, stdout, log = guarded(pre_compact_input(transcript), tmp_path)
    assert (code, log) == (0, [])
    assert "canary script on Thursday" in stdout and "blue-green" not in stdout, stdout


def test_a_prohibition_the_user_lifted_since_is_not_listed(tmp_path):
    """A permission states no rule of its own, so nothing else marks the old "never" as gone: listed as standing,
    it would forbid what the user has since allowed. A clause that merely mentions the same things, or that still
    forbids, lifts nothing."""
    rule = typed("u1", None, "Never force-push to the release branch.")
    cases = {"Scratch that, you can force-push to the release branch today.": False,
             "It's fine to force-push the release branch now that the tag is cut.": False,
             "You can see the release branch failing on CI.": True,
             "You can't force-push to the release branch, use a revert.": True}  # fmt: skip
    for later, stands in cases.items():
        transcript = before_compaction(tmp_path, [rule, said("Understood."), typed("u2", "a1", later),
                                                  said("OK.", "a2", "u2")])  # fmt: skip
        code, listed, _ = guarded(pre_compact_input(transcript), tmp_path)
        assert code == 0 and ("Never force-push to the release branch." in listed) is stands, (later, listed)


def test_the_cap_keeps_the_newest_and_says_what_it_left_out(tmp_path):
    modules = ("billing", "invoices", "payroll", "ledger", "refunds", "taxes", "exports", "imports", "audits",
               "reports", "alerts", "quotas")  # fmt: skip
    records: list[dict[str, Any]] = []
    for n, module in enumerate(modules, start=1):
        records += [typed(f"u{n}", f"a{n - 1}" if n > 1 else None, f"Never touch the {module} module's schema."),
                    said("Understood.", f"a{n}", f"u{n}")]  # fmt: skip
    transcript = before_compaction(tmp_path, records)
    _, full, _ = guarded(pre_compact_input(transcript), tmp_path)
    _, capped, _ = guarded(pre_compact_input(transcript), tmp_path, "--max-tokens", "120")
    assert len(entries(full)) == 12 and 0 < len(entries(capped)) < 12
    assert entries(capped) == entries(full)[: len(entries(capped))] and "quotas" in entries(capped)[0]
    left = 12 - len(entries(capped))
    assert capped.splitlines()[-1] == (f"({left} more not shown, all constraints; the oldest, each in the session "
                                       "log at its record.)")  # fmt: skip


@pytest.mark.parametrize(
    ("stdin", "why"),
    [
        ("not json", "JSONDecodeError"),
        (json.dumps({"hook_event_name": "PreCompact", "trigger": "auto"}), "names no transcript_path"),
        (json.dumps({"hook_event_name": "PreCompact", "trigger": "auto", "transcript_path": "/nonexistent/s.jsonl"}),
         "no such file"),
    ],
)
def test_bad_input_exits_0_prints_nothing_and_logs_one_line(stdin, why, tmp_path):
    code, stdout, log = guarded(stdin, tmp_path)
    assert (code, stdout, len(log)) == (0, "", 1) and why in log[0], log


def test_codex_gets_no_list_its_precompact_takes_no_context(tmp_path):
    """Codex rejects context from a PreCompact hook (Yeachan-Heo/oh-my-codex#2217): one line in the log instead."""
    code, stdout, log = guarded(pre_compact_input(FIXTURES / "codex" / "three_compactions.jsonl"), tmp_path)
    assert (code, stdout, len(log)) == (0, "", 1) and "Codex's PreCompact hook takes no context" in log[0], log


def with_a_newer_session(folder: Path) -> tuple[Path, str]:
    """The opencode fixture's database (its session said 'never delete files') with a newer session beside it, as
    a database holds every session of the machine, whose one message leaves nothing standing (a question the agent had
    not answered would stand): (the copy, the fixture session's id)."""
    copy = folder / "opencode.db"
    with sqlite3.connect(f"file:{FIXTURES / 'opencode' / 'opencode.db'}?mode=ro", uri=True) as source, \
            sqlite3.connect(copy) as target:  # fmt: skip
        source.backup(target)
        [(session, *row)] = target.execute("SELECT * FROM session").fetchall()
        later = row[-3] + 60_000
        target.execute(f"INSERT INTO session VALUES ({', '.join('?' * (len(row) + 1))})",
                       ("ses_newer", *row[:-4], later, later, None, None))  # fmt: skip
        target.execute("INSERT INTO message VALUES ('msg_newer', 'ses_newer', ?, ?, ?)",
                       (later, later, json.dumps({"role": "user", "time": {"created": later}})))  # fmt: skip
        target.execute("INSERT INTO part VALUES ('prt_newer', 'msg_newer', 'ses_newer', ?, ?, ?)",
                       (later, later, json.dumps({"type": "text", "text": "Thanks, that's all for today."})))
    return copy, session


def test_the_session_the_hook_names_is_read_not_the_databases_newest(tmp_path):
    """opencode's plugin names its database and the session compacting (`transcript_session_id`): the guard lists
    that session's standing words, though another session of the database is newer. Claude Code's own `session_id`
    picks nothing."""
    database, session = with_a_newer_session(tmp_path)

    def hook(**fields: str) -> str:
        return json.dumps({"hook_event_name": "PreCompact", "transcript_path": str(database), **fields})

    assert guarded(hook(), tmp_path) == (0, "", [])  # the newer session: nothing stands in it
    assert guarded(hook(session_id=session), tmp_path) == (0, "", [])
    code, stdout, log = guarded(hook(transcript_session_id=session), tmp_path)
    assert (code, log) == (0, []) and stdout.startswith(HEAD), stdout
    assert any("never delete files" in entry for entry in entries(stdout)), stdout
    code, stdout, log = guarded(hook(transcript_session_id="ses_gone"), tmp_path)
    assert (code, stdout) == (0, "") and "#ses_gone: no such session" in log[-1], log


@needs_shared(LABELLED)
def test_before_the_collapsed_summary_the_list_names_the_users_rules_it_then_lost(tmp_path):
    """entirecli 1e0816ef, cut just before its second compaction, whose summary lost every requirement: the list
    the compactor would have had names the lost rules, and not the README note done before it."""
    session = LABELLED / "claude_code_2.x_entirecli_1e0816ef.jsonl"
    lines = session.read_bytes().splitlines(keepends=True)
    second = [i for i, raw in enumerate(lines) if json.loads(raw).get("isCompactSummary") is True][1]
    while json.loads(lines[second - 1]).get("subtype") == "compact_boundary":
        second -= 1
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(lines[:second]))
    code, stdout, log = guarded(pre_compact_input(cut), tmp_path)
    assert (code, log) == (0, [])
    for words in ("keep it local!", "default to 'off'", "just manual commit for now"):
        assert any(words in entry for entry in entries(stdout)), (words, stdout)
    assert "claude-only generation" not in stdout
