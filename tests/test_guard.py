"""The guard hook on real sessions cut at each compaction, as Claude Code would call it, and when it must stay quiet.

Each labelled session is cut just after each compaction summary (the transcript as it stands when the
SessionStart hook with source "compact" fires); the copies go to a temporary folder.
"""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import pytest

import inspector.guard as guard
from tests.helpers import LABELLED, needs_shared, shared_files

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
    _, capped, _ = run(hook_input(second), tmp_path, max_tokens=120)
    assert len(capped) <= 120 * 4 + 200 and len(entries(capped)) < len(entries(full))
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


def test_a_guard_that_runs_out_of_time_gives_up_quietly(tmp_path, monkeypatch):
    """A stand-in for a pathological transcript: the analysis takes longer than the guard's time limit."""
    transcript = tmp_path / "session.jsonl"
    transcript.write_text('{"hello": "world"}\n')
    monkeypatch.setattr(guard, "TIME_LIMIT", 1)
    monkeypatch.setattr(guard, "restored_items", lambda trace: time.sleep(5))
    monkeypatch.setattr("inspector.readers.load_trace", lambda path: object())
    started = time.monotonic()
    code, context, log = run(hook_input(transcript), tmp_path)
    assert time.monotonic() - started < 3
    assert (code, context, len(log)) == (0, "", 1) and "GuardTimeout" in log[0]


def test_a_bundled_sample_gives_back_its_lost_prohibition_in_the_users_words(tmp_path, monkeypatch):
    """The README's example: what the agent reads after S3 of the staging sample dropped the prohibition."""
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path / "data"))
    sample = Path(__file__).resolve().parents[1] / "sample_traces" / "staging_db_constraint.json"
    code, context, _ = run(hook_input(sample), tmp_path)
    assert code == 0
    assert entries(context) == [
        "- The user said, 2026-11-02 09:00 UTC (prohibition, lost in the summary, record turn:1): “Never run "
        "migrations against the staging database; it is read-only until the release job releases the lock.”"
    ]


@needs_real
def test_the_store_records_what_the_agent_read_under_the_session_id(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("INSPECTOR_DB_URL", raising=False)
    [_, (_, second)] = cuts(LABELLED / "claude_code_2.x_entirecli_1e0816ef.jsonl", tmp_path)
    _, capped, _ = run(hook_input(second), tmp_path, max_tokens=120)
    from inspector.store import open_store

    store = open_store()
    [injection] = store.guard.for_session("1e0816ef-6f89-4f05-b331-dab09bb14485")
    store.close()
    assert (injection.generation, injection.text) == (2, capped)
    assert len(injection.items) == len(entries(capped))  # what the cap left out was not given back
    assert all(item.text in capped for item in injection.items if item.rule != "claim-contradicted")
