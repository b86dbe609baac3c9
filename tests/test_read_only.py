"""Reading is read-only: every format, read by `check`, `report`, `scan` and the app, leaves its folder as it was.

An agent's logs are the user's, often still being written. SQLite is the format that writes when read: opening a
database beside its write-ahead log creates (or rewrites) the `-shm` index next to it. So the folder is compared
whole, before and after: every name, every byte, and the times the kernel keeps (a file created and removed
again still changes its folder's time).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile
from contextlib import closing
from pathlib import Path

import pytest

from inspector.readers import detect_format, load_trace, readers
from tests.helpers import FIXTURES, ONE_OF_EACH, REPO
from tests.test_app import app, page

OPENCODE_DB = FIXTURES / "opencode" / "opencode.db"
TITLE_IN_THE_LOG = "A title committed to the write-ahead log only"

Listing = dict[str, tuple[object, ...]]


def listing(folder: Path) -> Listing:
    """Every entry under `folder`: its kind, mode, owner and modification time, and a file's size and bytes (a
    digest). A folder's time changes when a file is created in it, even one removed again. The access time is left
    out (reading sets it), and so is the inode's change time: SQLite run as root gives a log and index it opens to
    the database's owner (`fchown`, here to the owner they have), which changes that time and nothing else."""
    found: Listing = {}
    for entry in sorted(folder.rglob("*")) + [folder]:
        status = entry.lstat()
        common = (stat.S_IFMT(status.st_mode), stat.S_IMODE(status.st_mode), status.st_uid, status.st_gid,
                  status.st_mtime_ns)
        if stat.S_ISREG(status.st_mode):
            common += (status.st_size, hashlib.sha256(entry.read_bytes()).hexdigest())
        found[entry.relative_to(folder).as_posix()] = common
    return found


def wal_database(folder: Path, *, index: bool) -> Path:
    """The fixture as opencode leaves it while it runs: a title committed to the write-ahead log (the database
    file itself still without it), and (`index`) the log's `-shm` index beside it; without, as a copy of the
    two files, or a crash that lost the index, leaves it."""
    live = folder.parent / f"{folder.name}-writer"
    live.mkdir()
    shutil.copy(OPENCODE_DB, live / "opencode.db")
    writer = sqlite3.connect(live / "opencode.db")
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("PRAGMA wal_autocheckpoint=0")
        writer.execute("UPDATE session SET title = ?", (TITLE_IN_THE_LOG,))
        writer.commit()
        folder.mkdir()
        for suffix in ("", "-wal", "-shm") if index else ("", "-wal"):
            shutil.copy2(live / f"opencode.db{suffix}", folder / f"opencode.db{suffix}")
    finally:
        writer.close()
    assert (folder / "opencode.db-wal").stat().st_size > 0
    return folder / "opencode.db"


def _copy(source: Path, folder: Path) -> Path:
    folder.mkdir()
    if source.is_dir():
        return Path(shutil.copytree(source, folder / source.name))
    for beside in source.parent.glob(f"{source.name}*"):  # a database's log and index with it, as the fixture has
        shutil.copy2(beside, folder / beside.name)
    return folder / source.name


FIXTURE_CASES = {
    **{name: path for name, path in ONE_OF_EACH.items()},
    "inspect-ai.json": FIXTURES / "inspect_ai" / "two-samples.json",
    "langchain.updates": FIXTURES / "langchain" / "stream-updates.jsonl",
    "langchain.messages": FIXTURES / "langchain" / "messages-final.json",
    "gemini-cli.legacy": FIXTURES / "gemini_cli" / "session-legacy-0.20.2.json",
    "opencode.export": FIXTURES / "opencode" / "opencode-export.json",
}
"""Every fixture of every registered format; the opencode database with the (empty) log and index it has."""
CASES = [*FIXTURE_CASES, "opencode.wal", "opencode.wal-without-index"]


def case_path(case: str, folder: Path) -> Path:
    if case == "opencode.wal":
        return wal_database(folder, index=True)
    if case == "opencode.wal-without-index":
        return wal_database(folder, index=False)
    return _copy(FIXTURE_CASES[case], folder)


def test_the_cases_cover_every_registered_format() -> None:
    assert {detect_format(path) for path in FIXTURE_CASES.values()} == {reader.name for reader in readers()}


def inspector(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "inspector", *args], capture_output=True, text=True, cwd=REPO,
                          env=env, timeout=180)  # fmt: skip


@pytest.mark.parametrize("case", CASES)
def test_check_report_and_scan_leave_the_folder_as_it_was(tmp_path: Path, case: str) -> None:
    folder = tmp_path / "traces"
    path = case_path(case, folder)
    scratch = tmp_path / "tmp"  # where a private copy of a database goes, while it is read
    scratch.mkdir()
    env = {**os.environ, "INSPECTOR_DATA_DIR": str(tmp_path / "data"), "TMPDIR": str(scratch)}
    before = listing(folder)
    checked = inspector("check", str(path), env=env)
    assert checked.returncode in (0, 1) and f"[{detect_format(path)}]" in checked.stdout, checked.stderr[-2000:]
    inspector("report", str(path), env=env)  # what it prints is not the point (an OpenHands folder: issue 28 item 4)
    scanned = inspector("scan", str(folder), env=env)
    assert scanned.returncode in (0, 1) and "0 unreadable" in scanned.stdout, scanned.stderr[-2000:]
    assert listing(folder) == before
    assert list(scratch.iterdir()) == []  # and no copy is left behind


@pytest.mark.parametrize("index", [True, False], ids=["with-index", "without-index"])
def test_a_database_with_a_write_ahead_log_is_read_with_the_log_and_left_as_it_was(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, index: bool) -> None:  # fmt: skip
    """The log's committed rows are read (an immutable open would miss them), and neither loading it nor the app's
    pages on it (the chain, a record read back from its row, the folder's session list) write beside it."""
    folder = tmp_path / "traces"
    path = wal_database(folder, index=index)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))  # where a private copy goes, in this process and the scan's workers
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    before = listing(folder)
    assert load_trace(path).title == TITLE_IN_THE_LOG
    assert listing(folder) == before
    monkeypatch.setenv("INSPECTOR_TRACES_DIR", str(folder))
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path / "data"))
    at = app(trace="path:opencode.db")
    assert not at.exception
    for name in ("chain", "manifest"):
        assert not page(at, name).exception
    [expander] = at.expander  # the manifest's first record, read back from its row
    assert expander.code and expander.code[0].value.startswith("{"), [h.proto.body for h in expander.children.values()]
    assert not page(app(), "sessions").exception
    assert listing(folder) == before
    assert list(scratch.iterdir()) == []


def test_the_fixture_database_is_read_beside_its_own_log_and_index_untouched() -> None:
    """The repository's own fixture has an (empty) `-wal` and a `-shm`: the tests that read it must not write."""
    before = listing(OPENCODE_DB.parent)
    with closing(sqlite3.connect(f"file:{OPENCODE_DB}?mode=ro&immutable=1", uri=True)) as db:
        assert db.execute("SELECT count(*) FROM part").fetchone() == (52,)
    load_trace(OPENCODE_DB)
    assert listing(OPENCODE_DB.parent) == before


def test_a_database_with_another_log_is_another_trace(tmp_path: Path) -> None:
    """The store and the app's analyses are keyed by content hash: a database whose write-ahead log holds other
    committed rows must not be taken for the one analysed before (the app showed the fixture's records for it,
    then refused to read them back, "opencode.db-wal changed since it was read")."""
    from inspector.library import content_hash

    plain = tmp_path / "plain"
    plain.mkdir()
    shutil.copy(OPENCODE_DB, plain / "opencode.db")
    shutil.copy(OPENCODE_DB.with_name("opencode.db-wal"), plain / "opencode.db-wal")
    live = wal_database(tmp_path / "live", index=False)
    assert (plain / "opencode.db").read_bytes() == live.read_bytes()
    assert content_hash(plain / "opencode.db") != content_hash(live)
    (plain / "opencode.db-wal").write_bytes(live.with_name("opencode.db-wal").read_bytes())
    assert content_hash(plain / "opencode.db") == content_hash(live)
