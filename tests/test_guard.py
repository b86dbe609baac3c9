"""The guard hook on real sessions cut at each compaction, as Claude Code would call it, and when it must stay quiet.

Each labelled session is cut just after each compaction summary (the transcript as it stands when the
SessionStart hook with source "compact" fires); the copies go to a temporary folder.
"""

from __future__ import annotations

import io
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import zstandard

import inspector.guard as guard
import inspector.guard_check as guard_check
from inspector.model import SourceRecord
from tests.helpers import LABELLED, needs_shared, session_log, shared_files

needs_real = needs_shared(LABELLED)
RESTORABLE = ("user-constraint", "user-decision", "user-requirement", "user-preference", "correction")
"""Gold kinds the guard gives back in the user's words; an unresolved failure comes back as a contradicted claim."""


def cuts(session: Path, folder: Path) -> list[tuple[int, Path]]:
    """(k, the transcript cut just after its k-th compaction summary) for each compaction."""
    lines = session.read_bytes().splitlines(keepends=True)
    summaries = [i for i, line in enumerate(lines) if json.loads(line).get("isCompactSummary") is True]
    copies = []
    for k, index in enumerate(summaries, start=1):
        cut = folder / f"{session.stem}.S{k}.jsonl"
        cut.write_bytes(b"".join(lines[: index + 1]))
        copies.append((k, cut))
    return copies


def hook_input(transcript: Path, source: str = "compact") -> str:
    """What Claude Code sends a SessionStart hook on stdin."""
    return json.dumps({"session_id": "6113e919-0000-4000-8000-000000000000", "transcript_path": str(transcript),
                       "cwd": "/Users/soph/Work/entire/devenv/cli", "hook_event_name": "SessionStart",
                       "source": source})  # fmt: skip


def run(stdin: str, tmp_path: Path, **options: int) -> tuple[int, str, list[str]]:
    """(exit code, what the agent would read, the guard log's lines)."""
    out, log = io.StringIO(), tmp_path / "guard.log"
    code = guard.run_hook(io.StringIO(stdin), out, log=log, **options)
    printed = out.getvalue()
    context = json.loads(printed)["hookSpecificOutput"]["additionalContext"] if printed else ""
    return code, context, log.read_text().splitlines() if log.exists() else []


def entries(context: str) -> list[str]:
    return [line for line in context.splitlines() if line.startswith("- ")]


def matches(entry: str, item: dict) -> bool:
    return any(keyword.lower() in entry.lower() for keyword in item["keywords"])


@needs_real
@pytest.mark.parametrize("session", shared_files(LABELLED, "*.jsonl"), ids=lambda p: p.name[:34])
def test_the_manifest_gives_back_what_the_gold_says_was_lost_and_nothing_kept(session, tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path / "data"))
    gold = json.loads(session.with_name(session.stem + ".gold.json").read_text())
    for k, cut in cuts(session, tmp_path):
        code, context, log = run(hook_input(cut), tmp_path)
        assert code == 0 and log == [], log
        status = {item["id"]: item["status"].get(str(k)) for item in gold["items"]}
        owed = [item for item in gold["items"] if item["severity"] == "error"
                and status[item["id"]] in ("lost", "weakened")
                and (item["kind"] in RESTORABLE or item["kind"] == "unresolved-failure")]  # fmt: skip
        given = entries(context)
        missing = [item["id"] for item in owed if not any(matches(entry, item) for entry in given)]
        assert missing == [], (k, missing, context)
        settled = [item for item in gold["items"] if status[item["id"]] in ("kept", "retired")]
        for entry in given:
            about = [item for item in gold["items"] if matches(entry, item)]
            assert not about or any(item not in settled for item in about), (k, entry)


@needs_real
def test_the_collapsed_summary_gets_back_at_least_three_of_its_four_errors(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path / "data"))
    session = LABELLED / "claude_code_2.x_entirecli_1e0816ef.jsonl"
    gold = json.loads(session.with_name(session.stem + ".gold.json").read_text())
    [_, (_, second)] = cuts(session, tmp_path)
    _, context, _ = run(hook_input(second), tmp_path)
    errors = [item for item in gold["items"] if item["severity"] == "error" and item["status"]["2"] == "lost"]
    assert len(errors) == 4
    assert sum(any(matches(entry, item) for entry in entries(context)) for item in errors) >= 3
    assert "keep it local" in context and "(constraint, lost in the summary, record " in context


@needs_real
def test_nothing_is_printed_when_nothing_was_lost(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path / "data"))
    [(_, first), *_] = cuts(LABELLED / "claude_code_2.x_entirecli_1e0816ef.jsonl", tmp_path)
    assert run(hook_input(first), tmp_path) == (0, "", [])


@needs_real
def test_the_cap_keeps_the_newest_and_says_how_many_more(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path / "data"))
    [_, (_, second)] = cuts(LABELLED / "claude_code_2.x_entirecli_1e0816ef.jsonl", tmp_path)
    _, full, _ = run(hook_input(second), tmp_path)
    _, capped, _ = run(hook_input(second), tmp_path, max_tokens=150)
    assert len(capped) <= 150 * 4 + 200 and len(entries(capped)) < len(entries(full))
    assert entries(capped) == entries(full)[: len(entries(capped))]  # newest first, cut from the end
    assert f"({len(entries(full)) - len(entries(capped))} more not shown" in capped


@pytest.mark.parametrize(
    ("stdin", "why"),
    [
        ("not json", "JSONDecodeError"),
        (json.dumps({"source": "compact"}), "names no transcript_path"),
        (json.dumps({"source": "compact", "transcript_path": "/nonexistent/session.jsonl"}), "no such file"),
    ],
)
def test_any_failure_exits_0_prints_nothing_and_logs_one_line(tmp_path, stdin, why):
    code, context, log = run(stdin, tmp_path)
    assert (code, context, len(log)) == (0, "", 1)
    assert why in log[0]


def test_an_unknown_format_is_logged_not_raised(tmp_path):
    transcript = tmp_path / "notes.jsonl"
    transcript.write_text('{"hello": "world"}\n')
    code, context, log = run(hook_input(transcript), tmp_path)
    assert (code, context, len(log)) == (0, "", 1) and "not a recognised trace format" in log[0]


def test_a_start_that_is_not_a_compaction_is_left_alone(tmp_path):
    assert run(hook_input(tmp_path / "missing.jsonl", source="startup"), tmp_path) == (0, "", [])


def test_a_bundled_sample_gives_back_its_lost_prohibition_in_the_users_words(tmp_path, monkeypatch):
    """The README's example: what the agent reads after S3 of the staging sample dropped the prohibition."""
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path / "data"))
    sample = Path(__file__).resolve().parents[1] / "sample_traces" / "staging_db_constraint.json"
    code, context, _ = run(hook_input(sample), tmp_path)
    assert code == 0
    assert entries(context) == [
        "- The user said, 2026-11-02 09:00 UTC (constraint, lost in the summary, record turn:1): “Never run "
        "migrations against the staging database; it is read-only until the release job releases the lock.”"
    ]


@needs_real
def test_the_store_records_what_the_agent_read_under_the_session_id(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("INSPECTOR_DB_URL", raising=False)
    [_, (_, second)] = cuts(LABELLED / "claude_code_2.x_entirecli_1e0816ef.jsonl", tmp_path)
    _, capped, _ = run(hook_input(second), tmp_path, max_tokens=120)
    from inspector.library import content_hash
    from inspector.store import open_store

    store = open_store()
    [injection] = store.guard.for_session("1e0816ef-6f89-4f05-b331-dab09bb14485")
    store.close()
    assert (injection.generation, injection.text) == (2, capped)
    assert injection.content_hash == content_hash(second)  # hashed beside the reading: the log it read
    assert len(injection.items) == len(entries(capped))  # what the cap left out was not given back
    assert all(item.text in capped for item in injection.items if item.rule != "claim-contradicted")


# The limits: a hostile session costs the agent's session nothing (issue 28, item 9)

SCRIPT = Path(sys.executable).with_name("compaction-inspector")
"""The console script `guard install` writes into the settings file: the guard is tested as the harness runs it."""
MEMORY_BOMB = """'{"type":"text","text":"' || hex(zeroblob(450000000)) || '"}'"""
"""issue 28's part.data: 227 KB on disk, a 900 MB string for whoever reads the row (10 GB through `check`)."""

_TREE = r"""
import json, os, resource, subprocess, sys, time
from pathlib import Path


def tree(pid):
    found, todo = [], [pid]
    while todo:
        found.append(todo.pop())
        try:
            for task in os.listdir(f"/proc/{found[-1]}/task"):
                todo += [int(c) for c in Path(f"/proc/{found[-1]}/task/{task}/children").read_text().split()]
        except OSError:
            pass
    return found


def rss(pid):
    try:
        return int(Path(f"/proc/{pid}/status").read_text().split("VmRSS:")[1].split()[0])
    except (OSError, IndexError):
        return 0


request = sys.stdin.buffer.read()
started = time.monotonic()
guard = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
guard.stdin.write(request)
guard.stdin.close()
peak = 0
while guard.poll() is None:
    peak = max(peak, sum(rss(p) for p in tree(guard.pid)))
    time.sleep(0.01)
seconds = time.monotonic() - started
largest = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"code": guard.returncode, "stdout": guard.stdout.read().decode(),
                  "stderr": guard.stderr.read().decode(), "seconds": seconds, "tree_kb": peak, "max_kb": largest}))
"""
"""Runs a command and reports its exit, output, wall time, the peak of its process tree's summed VmRSS (polled
every 10 ms) and the exact peak RSS of its largest process (ru_maxrss of the waited-for children). A fresh
interpreter of its own, so no peak of the test process is inherited into the figures."""


def measured(command: list[str], stdin: str, env: dict[str, str], timeout: float = 180) -> dict:
    result = subprocess.run([sys.executable, "-c", _TREE, *command], input=stdin, capture_output=True, text=True,
                            env=env, timeout=timeout)  # fmt: skip
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def opencode_database(path: Path, part_data: str) -> Path:
    """An opencode.db the reader takes (its session, message and part tables), whose two parts' data is
    `part_data`, a generated column: computed each time a row is read, never stored. The column is added
    after the rows (an insert would compute it), so building the bomb costs nothing."""
    with sqlite3.connect(path) as db:
        db.executescript(f"""
            CREATE TABLE session (id TEXT PRIMARY KEY, title TEXT, version TEXT, directory TEXT, time_updated INTEGER);
            CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, data TEXT);
            CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT);
            INSERT INTO session VALUES ('ses_bomb', 'bomb', '1.18.33', '/tmp', 1);
            INSERT INTO message VALUES ('msg_1', 'ses_bomb', '{{"role":"user","time":{{"created":1}}}}');
            INSERT INTO part VALUES ('prt_1', 'msg_1', 'ses_bomb'), ('prt_2', 'msg_1', 'ses_bomb');
            ALTER TABLE part ADD COLUMN data TEXT AS ({part_data}) VIRTUAL;
        """)  # fmt: skip
    db.close()
    return path


def big_line_transcript(path: Path, megabytes: int = 60) -> Path:
    """A Claude Code transcript of a few KB (zstd) whose first prompt is `megabytes` MB, within the per-line bound:
    analysing it costs far more memory than its file's size allows the guard."""
    prompt = "Never touch staging. " * ((megabytes << 20) // 21)
    records = [{"parentUuid": None, "isSidechain": False, "type": "user", "sessionId": "s", "uuid": "u1", "cwd": "/x",
                "timestamp": "2025-01-01T00:00:00Z", "version": "2.0.1",
                "message": {"role": "user", "content": prompt}},
               {"parentUuid": "u1", "isSidechain": False, "type": "system", "subtype": "compact_boundary",
                "sessionId": "s", "uuid": "b1", "timestamp": "2025-01-01T00:01:00Z", "version": "2.0.1",
                "content": "Conversation compacted", "compactMetadata": {"trigger": "auto", "preTokens": 1000}},
               {"parentUuid": "b1", "isSidechain": False, "type": "user", "isCompactSummary": True, "sessionId": "s",
                "uuid": "s1", "timestamp": "2025-01-01T00:01:01Z", "version": "2.0.1",
                "message": {"role": "user", "content": "Summary: the user asked for things."}}]  # fmt: skip
    data = "".join(json.dumps(record) + "\n" for record in records).encode()
    path.write_bytes(zstandard.ZstdCompressor(level=19).compress(data))
    return path


def guard_env(tmp_path: Path, **settings: str) -> dict[str, str]:
    return {**os.environ, "INSPECTOR_DATA_DIR": str(tmp_path / "data"), **settings}


def started_kb(env: dict[str, str]) -> int:
    """What a bare interpreter's start costs, measured the same way: the figures are 'over start'."""
    return measured([sys.executable, "-c", "pass"], "", env)["max_kb"]


def assert_quiet(run: dict, tmp_path: Path) -> str:
    """The session went on: exit 0, nothing for the agent, nothing on stderr; one line in the data folder's log."""
    log = tmp_path / "data" / "guard.log"
    lines = log.read_text().splitlines() if log.exists() else []
    assert (run["code"], run["stdout"], run["stderr"], len(lines)) == (0, "", "", 1), (run, lines)
    return lines[0]


def test_an_sqlite_memory_bomb_stays_under_300_mb_and_the_session_goes_on(tmp_path):
    """Issue 28's database through the hook: 9.3 GB and 30 s inside the user's agent session before."""
    bomb = opencode_database(tmp_path / "opencode.db", MEMORY_BOMB)
    env = guard_env(tmp_path)
    run = measured([str(SCRIPT), "guard"], hook_input(bomb), env)
    start = started_kb(env)
    line = assert_quiet(run, tmp_path)
    assert run["tree_kb"] - start < 300 * 1024 and run["max_kb"] - start < 300 * 1024, (run, start)
    assert run["seconds"] < 8 + 2, run
    assert "TraceReadError" in line and "generated column" in line, line


def test_an_archive_bomb_stays_under_300_mb_and_the_session_goes_on(tmp_path):
    """The guard reads whatever format the hook names: a 132 KB .eval whose member holds 4 GB is refused by the
    reader's expansion bound, quietly, in flat memory."""
    from tests.test_hostile_input import eval_bomb

    env = guard_env(tmp_path)
    run = measured([str(SCRIPT), "guard"], hook_input(eval_bomb(tmp_path / "bomb.eval", gigabytes=4)), env)
    start = started_kb(env)
    line = assert_quiet(run, tmp_path)
    assert run["tree_kb"] - start < 300 * 1024 and run["max_kb"] - start < 300 * 1024, (run, start)
    assert "TraceReadError" in line and "compression bomb" in line, line


def test_a_check_that_outgrows_the_memory_limit_is_stopped_and_the_session_goes_on(tmp_path):
    """What no reader's bound catches (a 6 KB transcript whose one prompt is 60 MB, within the per-line bound)
    the guard's own memory limit does: the child fails, the session goes on."""
    env = guard_env(tmp_path)
    run = measured([str(SCRIPT), "guard"], hook_input(big_line_transcript(tmp_path / "big.jsonl.zst")), env)
    start = started_kb(env)
    line = assert_quiet(run, tmp_path)
    assert run["tree_kb"] - start < 300 * 1024 and run["max_kb"] - start < 300 * 1024, (run, start)
    assert line.split(" ", 1)[1].startswith("MemoryError: its check needed more than its memory limit"), line


def test_a_check_past_the_time_limit_is_stopped_wherever_it_is(tmp_path):
    """SIGALRM's handler runs between bytecodes, so inside one C call (sqlite3's fetchall on a computed column, a
    regex over a 60 MB prompt) the old limit waited half a minute. The child is killed at the wall clock instead,
    wherever it is; the time is a setting (the default, 8 s, is under the hook's 10)."""
    big = big_line_transcript(tmp_path / "big.jsonl.zst")  # its check takes about 2 s with memory to spare
    env = guard_env(tmp_path, INSPECTOR_GUARD_SECONDS="0.5", INSPECTOR_GUARD_MB="4000")
    run = measured([str(SCRIPT), "guard"], hook_input(big), env)
    line = assert_quiet(run, tmp_path)
    assert run["seconds"] < 0.5 + 1.5, run
    assert "stopped its check after 0.5 s (the time limit, INSPECTOR_GUARD_SECONDS)" in line, line


def test_a_folder_named_inspector_in_the_project_is_not_run_as_the_guard(tmp_path):
    """The harness runs the hook in the project, perhaps someone else's repository: the child the guard starts
    must import the installed package, not `./inspector` (`python -c` puts the current folder on sys.path)."""
    project = tmp_path / "project"
    (project / "inspector").mkdir(parents=True)
    marker = tmp_path / "ran"
    (project / "inspector" / "__init__.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    sample = Path(__file__).resolve().parents[1] / "sample_traces" / "staging_db_constraint.json"
    result = subprocess.run([str(SCRIPT), "guard"], input=hook_input(sample), capture_output=True, text=True,
                            cwd=project, env=guard_env(tmp_path), timeout=60)  # fmt: skip
    assert result.returncode == 0 and "Never run migrations" in result.stdout, result
    assert not marker.exists()


def test_an_unusable_limit_setting_is_logged_and_its_default_used(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("INSPECTOR_GUARD_SECONDS", "soon")
    sample = Path(__file__).resolve().parents[1] / "sample_traces" / "staging_db_constraint.json"
    code, context, log = run(hook_input(sample), tmp_path)
    assert code == 0 and "Never run migrations" in context
    assert log and len(log) == 1 and "INSPECTOR_GUARD_SECONDS='soon' is not a positive number; used 8" in log[0]


def _said(key: str, text: str, kind: str = "user") -> SourceRecord:
    return SourceRecord(key, text, namespace="transcript", kind=kind, authority="assistant" if kind == "assistant"
                        else "user")  # fmt: skip


def test_a_reply_comes_back_with_the_option_it_picked_and_a_request_does_not_come_back() -> None:
    """entirecli: 'yes, let's go with A' means nothing without what A was; 'create a draft PR please' may be done
    already, and the agent given it back would open a second one."""
    offered = ("**Options:**\n\n| Option | Pros | Cons |\n|--------|------|------|\n"
               "| **A. Delete unused `GetSummariseOptions()`** | Removes dead code | |\n"
               "| **B. Move to shared package** | Single source of truth | |\n\nWant me to proceed with Option A?")
    records = [_said("a1", offered, "assistant"), _said("u1", "yes, let's go with A"),
               _said("u2", "create a draft PR please"), _said("u3", "please use the british spelling :)"),
               _said("u4", "intentional - never commit docs/plans!")]  # the rule that makes the guard speak
    trace = session_log(records, (5, "Worked on the summarise configuration."))
    newest, restored = guard_check.restored_items(trace)
    text, _ = guard_check.manifest(trace, newest, restored)
    assert "“yes, let's go with A” (in reply to “option A: Delete unused `GetSummariseOptions()`”)" in text
    assert "british spelling" in text and "draft PR" not in text


def test_a_weakened_rule_comes_back_with_what_the_summary_says_instead() -> None:
    """The bundled staging sample's rule, carried by a summary as a wish: the agent reads both, the user's words and
    the summary's, and can tell which one binds."""
    records = [_said("u1", "Never run migrations against the staging database.")]
    summary = "Set up the schema. Migrations against the staging database are best avoided where possible. Tests pass."
    trace = session_log(records, (1, summary))
    newest, restored = guard_check.restored_items(trace)
    text, _ = guard_check.manifest(trace, newest, restored)
    assert ("(constraint, weakened in the summary, record u1): “Never run migrations against the staging database.”; "
            "the summary says instead: “Migrations against the staging database are best avoided where possible.”"
            ) in text  # fmt: skip
    upcoming, _ = guard_check.manifest(trace, newest, restored, upcoming=True)
    assert "says instead" not in upcoming  # before a compaction there is no summary to quote


ATA_QUESTION = "do we support ata decompression in this workflow?"


def test_the_users_unanswered_question_comes_back_after_a_summary_that_says_nothing_is_left() -> None:
    """lightprotocol_3ad45457 (outside ../shared): the user asked, a research sub-agent's report reached the agent,
    and the compaction came before any word of it reached the user; S2 says nothing is pending and the question
    answered, and the next agent closed with "All planned work is complete"."""
    records = [_said("a1", "All 9 tests pass.", "assistant"), _said("u1", f"ok thanks. {ATA_QUESTION}"),
               SourceRecord("c1", "Research ATA decompression support", namespace="transcript", kind="tool_call",
                            authority="assistant", extra={"tool": "Task"})]  # fmt: skip
    nothing_left = ("7. Pending Tasks:\n   - No explicitly pending tasks. The ATA question was answered "
                    "informationally.\n")
    trace = session_log(records, (3, nothing_left))
    newest, restored = guard_check.restored_items(trace)
    text, _ = guard_check.manifest(trace, newest, restored)
    assert (f"(question, asked last before the compaction and not answered, lost in the summary, record u1): "
            f"“{ATA_QUESTION}”; the summary says instead: “- No explicitly pending tasks.") in text  # fmt: skip
    upcoming, _ = guard_check.manifest(trace, *guard_check.standing_items(session_log(records)), upcoming=True)
    assert f"(question, asked last before the compaction and not answered, record u1): “{ATA_QUESTION}”" in upcoming


def test_a_question_the_summary_keeps_pending_or_the_agent_answered_is_not_given_back() -> None:
    asked = [_said("u1", ATA_QUESTION)]
    kept = "7. Pending Tasks:\n   - Answer the user's question on ATA decompression support (research came back).\n"
    assert guard_check.restored_items(session_log(asked, (1, kept)))[1] == []
    answered = [*asked, _said("a1", "No: only program-owned PDAs decompress here.", "assistant")]
    assert guard_check.restored_items(session_log(answered, (2, "7. Pending Tasks:\n   - None.\n")))[1] == []
    assert guard_check.standing_items(session_log(answered))[1] == []
