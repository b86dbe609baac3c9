"""An SQLite database is read through the same bounds as any file: a small hostile one cannot take the memory.

A database's rows need not be what it stores: a generated column is computed on every read, and a column added
with a default gives that default for every older row. A 200 KB `opencode.db` can so give gigabytes. These run
`check` as a user does, in a process of its own, and measure its peak memory over the same command on the
fixture.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import pytest

from inspector.bounded_io import as_megabytes
from inspector.readers import load_trace
from tests.helpers import FIXTURES, REPO

DB = FIXTURES / "opencode" / "opencode.db"
SESSION = "ses_dd0b07380ffeu9V8GWKaonsNse"
MB = 1 << 20
HEADROOM_MB = 300
"""Issue 28: a hostile database stays under this much memory over the process's start."""
SAFETY_CAP = 3 << 30
"""The child's address space: a regression fails the test at this size instead of taking the machine."""


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str
    peak_mb: float
    """The process's peak resident memory (ru_maxrss of that one child)."""


def run_measured(*args: str, timeout: float = 180) -> Run:
    """`compaction-inspector ARGS` in a process of its own, and its peak memory, as the kernel counted it."""
    return run_python("-m", "inspector", *args, timeout=timeout)


def run_python(*args: str, timeout: float = 180) -> Run:
    """`python ARGS` in a process of its own, and its peak memory, as the kernel counted it."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (SAFETY_CAP, SAFETY_CAP))

    with open(os.devnull, "rb") as stdin, _Capture() as out, _Capture() as err:
        child = subprocess.Popen([sys.executable, *args], cwd=REPO, stdin=stdin,
                                 stdout=out.file, stderr=err.file, preexec_fn=cap)  # fmt: skip
        deadline = time.monotonic() + timeout
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                child.kill()
                os.wait4(child.pid, 0)
                child.returncode = -9
                pytest.fail(f"{args} ran past {timeout} s")
            time.sleep(0.02)
        child.returncode = os.waitstatus_to_exitcode(status)
        return Run(child.returncode, out.text(), err.text(), usage.ru_maxrss / 1024)


class _Capture:
    """A temporary file for a child's output: a pipe would block a child that writes much while nobody reads."""

    def __enter__(self) -> _Capture:
        import tempfile

        self.file = tempfile.TemporaryFile()
        return self

    def text(self) -> str:
        self.file.seek(0)
        return self.file.read().decode("utf-8", errors="replace")

    def __exit__(self, *_: object) -> None:
        self.file.close()


def copy_of_fixture(folder: Path, name: str = "opencode.db") -> Path:
    """The fixture's database alone (its empty log and index left behind), out of WAL mode."""
    path = folder / name
    shutil.copy(DB, path)
    with closing(sqlite3.connect(path)) as db:
        db.execute("PRAGMA journal_mode=DELETE")
    return path


def computed_column_bomb(folder: Path, size: int = 450_000_000) -> Path:
    """Issue 28's bomb: `part.data` a VIRTUAL generated column of `hex(zeroblob(450000000))`, 900 MB per row.

    Inserting a row computes the column, so the rows go in under a tiny expression and the schema's text is then
    swapped for the big one (a virtual column stores nothing: the rows fit either)."""
    path = copy_of_fixture(folder)
    columns = "id, message_id, session_id, time_created, time_updated"
    with closing(sqlite3.connect(path)) as db:
        db.executescript(f"""
            CREATE TABLE bomb (`id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL,
              `time_created` integer NOT NULL, `time_updated` integer NOT NULL,
              `data` text AS ('{{"type":"text","text":"' || hex(zeroblob(1)) || '"}}') VIRTUAL);
            INSERT INTO bomb ({columns}) SELECT {columns} FROM part;
            DROP TABLE part;
            ALTER TABLE bomb RENAME TO part;
            CREATE INDEX `part_session_idx` ON `part` (`session_id`);
            PRAGMA writable_schema = ON;
            UPDATE sqlite_master SET sql = replace(sql, 'zeroblob(1)', 'zeroblob({size})') WHERE name = 'part';
        """)  # fmt: skip
        db.commit()
    with closing(sqlite3.connect(path)) as db:  # the new schema, as a reader sees it
        assert f"zeroblob({size})" in db.execute("SELECT sql FROM sqlite_master WHERE name = 'part'").fetchone()[0]
    assert path.stat().st_size < 300 * 1024
    return path


def default_value_bomb(folder: Path, rows: int = 2500, text_bytes: int = 150_000) -> Path:
    """A database whose `part.data` was added with a 150 KB default after its rows were written: every one of the
    2,500 rows reads as that default (375 MB of text), though the file stores it once. Nothing here is computed."""
    path = copy_of_fixture(folder)
    part = json.dumps({"type": "text", "text": "x" * text_bytes})
    with closing(sqlite3.connect(path)) as db:
        [message] = db.execute("""SELECT id FROM message WHERE session_id = ? AND data LIKE '%"role":"assistant"%'
                                  ORDER BY id LIMIT 1""", (SESSION,)).fetchone()  # fmt: skip
        db.executescript("""
            CREATE TABLE bomb (`id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL,
              `time_created` integer NOT NULL, `time_updated` integer NOT NULL);
            DROP TABLE part;
            ALTER TABLE bomb RENAME TO part;
            CREATE INDEX `part_session_idx` ON `part` (`session_id`);
        """)
        db.executemany("INSERT INTO part VALUES (?, ?, ?, 1, 1)",
                       [(f"prt_{n:05d}", message, SESSION) for n in range(rows)])  # fmt: skip
        db.execute(f"ALTER TABLE part ADD COLUMN `data` text NOT NULL DEFAULT '{part}'")
        db.commit()
        db.execute("VACUUM")
    assert path.stat().st_size < 1024 * 1024
    return path


def assert_refused_in_bounded_memory(bomb: Path, baseline: Run) -> Run:
    run = run_measured("check", str(bomb))
    assert run.returncode == 2, (run.returncode, run.stderr[-2000:])
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(str(bomb)) and "Traceback" not in run.stderr, run.stderr[-2000:]
    assert run.peak_mb - baseline.peak_mb < HEADROOM_MB, (run.peak_mb, baseline.peak_mb)
    return run


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """`check` on the tiny valid database: what the process costs before any hostile row."""
    run = run_measured("check", str(copy_of_fixture(tmp_path_factory.mktemp("baseline"))))
    assert run.returncode in (0, 1), run.stderr
    return run


def test_generated_columns_need_sqlite_3_31() -> None:
    assert sqlite3.sqlite_version_info >= (3, 31, 0), sqlite3.sqlite_version


def test_a_generated_column_bomb_is_refused_in_one_line_within_the_memory_bound(
        tmp_path: Path, baseline: Run) -> None:  # fmt: skip
    """Issue 28 item 1: this 200 KB database took `check` to 10 GB; it is refused before any row is computed."""
    run = assert_refused_in_bounded_memory(computed_column_bomb(tmp_path), baseline)
    assert "generated column" in run.stderr and "part.data" in run.stderr


def test_a_default_repeated_on_every_row_is_refused_in_one_line_within_the_memory_bound(
        tmp_path: Path, baseline: Run) -> None:  # fmt: skip
    """Rows that give far more than the file stores are stopped as they stream in, not after all are fetched."""
    run = assert_refused_in_bounded_memory(default_value_bomb(tmp_path), baseline)
    assert "holds on disk" in run.stderr


def honest_big_session(folder: Path, output_mb: int = 24, extra_parts: int = 5000) -> Path:
    """The fixture with one tool output of 24 MB and 5,000 more small parts, every byte stored: a big real session."""
    path = copy_of_fixture(folder)
    with closing(sqlite3.connect(path)) as db:
        [(part_id, data)] = db.execute("""SELECT id, data FROM part WHERE session_id = ? AND data LIKE '%"tool"%'
                                          AND data LIKE '%"completed"%' ORDER BY id LIMIT 1""", (SESSION,))  # fmt: skip
        tool = json.loads(data)
        tool["state"]["output"] = "big-output-line\n" * (output_mb * MB // 16)
        db.execute("UPDATE part SET data = ? WHERE id = ?", (json.dumps(tool), part_id))
        [(message,)] = db.execute("SELECT message_id FROM part WHERE id = ?", (part_id,))
        db.executemany("INSERT INTO part VALUES (?, ?, ?, 1, 1, ?)",
                       [(f"prt_zz{n:05d}", message, SESSION, json.dumps({"type": "step-start"}))
                        for n in range(extra_parts)])  # fmt: skip
        db.commit()
    return path


def test_a_big_honest_database_still_reads_and_a_lower_bound_refuses_it(tmp_path: Path) -> None:
    """What a database stores, it may give: a 24 MB tool output and thousands of parts read whole. Its values
    are bounded as a line is (`--max-line-mb`), so below that bound the same file is refused in one line."""
    path = honest_big_session(tmp_path)
    trace = load_trace(path)
    outputs = [s.text for s in trace.sources if s.text.startswith("big-output-line\n")]
    assert [len(text) for text in outputs] == [24 * MB]
    assert trace.extra["records"]["total"] == 24 + 52 + 5000, trace.extra["records"]
    run = run_measured("check", str(path))
    assert run.returncode in (0, 1), run.stderr[-2000:]
    refused = run_measured("check", "--max-line-mb", "16", str(path))
    assert refused.returncode == 2, refused.stderr[-2000:]
    [line] = refused.stderr.splitlines()
    assert line.startswith(str(path)) and "--max-line-mb" in line and "16 MB" in line


def test_a_row_whose_values_together_pass_the_line_bound_is_refused(tmp_path: Path) -> None:
    """A row is one record, as a line is: two values of 0.6 MB make a row past a 1 MB bound, each within it."""
    path = copy_of_fixture(tmp_path)
    with closing(sqlite3.connect(path)) as db:
        db.execute("UPDATE session SET title = ?, directory = ?", ("t" * 600_000, "/" + "d" * 600_000))
        db.commit()
    assert run_measured("check", "--max-line-mb", "2", str(path)).returncode in (0, 1)
    refused = run_measured("check", "--max-line-mb", "1", str(path))
    assert refused.returncode == 2, refused.stderr[-2000:]
    assert refused.stderr.splitlines() == [f"{path}: a row longer than 1 MB, the per-line limit "
                                           "(raise it with --max-line-mb or INSPECTOR_MAX_LINE_MB)"]  # fmt: skip


_READ_TABLE_G = """
import sys
from pathlib import Path
from inspector.bounded_sqlite import open_database
from inspector.errors import TraceReadError
try:
    with open_database(Path(sys.argv[1])) as db:
        print(sum(len(data) for (data,) in db.rows("SELECT data FROM g")))
except TraceReadError as error:
    print(error)
"""


def test_sqlite_itself_refuses_a_computed_value_past_the_files_size_before_making_it(tmp_path: Path) -> None:
    """Past the check the readers make for generated columns, the per-value bound still holds: SQLite refuses the
    900 MB value (`SQLITE_LIMIT_LENGTH`, never above the file's size) before allocating it."""
    paths = {}
    for size in (1, 450_000_000):
        path = paths[size] = tmp_path / f"g{size}.db"
        with closing(sqlite3.connect(path)) as db:
            db.executescript("""CREATE TABLE g (id INTEGER PRIMARY KEY, data TEXT AS (hex(zeroblob(1))) VIRTUAL);
                                INSERT INTO g (id) VALUES (1), (2), (3);
                                PRAGMA writable_schema = ON;""")  # fmt: skip
            db.execute("UPDATE sqlite_master SET sql = replace(sql, 'zeroblob(1)', ?) WHERE name = 'g'",
                       (f"zeroblob({size})",))  # fmt: skip
            db.commit()
    small, bomb = (run_python("-c", _READ_TABLE_G, str(paths[size])) for size in (1, 450_000_000))
    assert small.stdout.split() == ["6"], small.stderr[-2000:]
    on_disk = as_megabytes(paths[450_000_000].stat().st_size)
    assert bomb.stdout.strip() == f"{paths[450_000_000]}: a value longer than the {on_disk} the database holds on " \
                                  "disk: computed, not stored", bomb.stderr[-2000:]
    assert bomb.peak_mb - small.peak_mb < HEADROOM_MB, (bomb.peak_mb, small.peak_mb)
