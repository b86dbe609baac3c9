"""A fleet scan over sessions of every agent the inspector reads, and over each agent's usual folder.

One folder holds one session of each format (a file, an SQLite database, a zip, a folder of events): the
scan must rank them all in one table, each read by its own reader and none unreadable.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from inspector.fleet import scan
from inspector.readers import Deferred, readers
from tests.helpers import ONE_OF_EACH


def one_of_each(folder: Path) -> Path:
    for name, source in ONE_OF_EACH.items():
        target = folder / name / source.name
        target.parent.mkdir(parents=True)
        (shutil.copytree if source.is_dir() else shutil.copy)(source, target)
    return folder


def test_every_reader_has_a_session_in_the_folder() -> None:
    assert sorted(ONE_OF_EACH) == sorted(r.name for r in readers())


def test_a_scan_of_one_session_of_every_format_ranks_them_in_one_table(tmp_path: Path) -> None:
    result = scan([one_of_each(tmp_path)], workers=1)
    assert sorted(row["format"] for row in result.rows) == sorted(ONE_OF_EACH)
    assert all(row["verdict"] in ("pass", "fail") and row["error"] is None for row in result.rows), result.rows
    assert {row["verdict"] for row in result.rows} == {"fail", "pass"}  # ranked: worst first
    order = [row["verdict"] for row in result.rows]
    assert order == sorted(order, key=lambda verdict: verdict != "fail")


def run_scan(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME",
                                                            "XDG_DATA_HOME", "INSPECT_LOG_DIR")}  # fmt: skip
    return subprocess.run([sys.executable, "-m", "inspector", "scan", *args, "--workers", "1"], cwd=home,
                          env={**env, "HOME": str(home)}, capture_output=True, text=True, timeout=120)  # fmt: skip


def test_scan_defaults_reads_each_agents_usual_folder(tmp_path: Path) -> None:
    usual = {
        "claude-code": tmp_path / ".claude" / "projects" / "-srv-app",
        "codex": tmp_path / ".codex" / "sessions" / "2026" / "11" / "30",
        "gemini-cli": tmp_path / ".gemini" / "tmp" / "app" / "chats",
        "opencode": tmp_path / ".local" / "share" / "opencode",
        "inspect-ai": tmp_path / "logs",
    }
    for name, folder in usual.items():
        folder.mkdir(parents=True)
        shutil.copy(ONE_OF_EACH[name], folder)
    done = run_scan("--defaults", home=tmp_path)
    assert done.returncode == 0, done.stderr
    for name in usual:
        assert f"scanning {name}'s sessions: " in done.stderr
    assert "5 files: " in done.stdout and "0 unreadable" in done.stdout


def test_scan_with_no_folder_says_how_to_name_one(tmp_path: Path) -> None:
    done = run_scan(home=tmp_path)
    assert done.returncode == 2 and "--defaults" in done.stderr and "Traceback" not in done.stderr


def test_every_catalogued_reader_function_is_in_its_module() -> None:
    """Readers load on first use: a function renamed in its module would otherwise fail only when a file
    of that format turns up."""
    for reader in readers():
        for field in ("sniff", "read", "claims", "sessions", "read_session"):
            function = getattr(reader, field)
            if isinstance(function, Deferred):
                assert callable(function.resolve()), (reader.name, field)


def test_a_containers_cheap_gate_never_changes_what_its_claim_answers(tmp_path: Path) -> None:
    """A folder or container reader is asked only past a cheap check (a folder, zip or SQLite magic bytes),
    which must never refuse a path its own `claims` takes."""
    (tmp_path / "empty.db").write_bytes(b"")
    (tmp_path / "text.eval").write_text("not a zip")
    (tmp_path / "folder").mkdir()
    paths = [*ONE_OF_EACH.values(), *tmp_path.iterdir(), tmp_path / "missing.db"]
    for reader in readers():
        if isinstance(reader.claims, Deferred):
            claims = reader.claims.resolve()
            assert [reader.claims(p) for p in paths] == [claims(p) for p in paths], reader.name
    assert sum(bool(r.claims(p)) for r in readers() if r.claims for p in paths) == 3  # the three containers
