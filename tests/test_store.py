"""The review store on SQLite and on a real PostgreSQL: the same tests, parametrised by URL."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from sqlalchemy import text

from inspector import analyze, load_trace
from inspector.refresh import refresh_at
from inspector.store import GuardInjection, ImportLineError, RestoredItem, Store, Target, open_store, reanchor
from inspector.store.engine import MIGRATIONS, make_engine
from inspector.store.ledger import read_jsonl_ledger
from inspector.store.schema import Base
from tests.helpers import REPO, SAMPLES
from tests.stores import BACKENDS, fresh_store_url


@pytest.fixture(params=BACKENDS)
def url(request, tmp_path):
    with fresh_store_url(request.param, tmp_path) as store_url:
        yield store_url


@pytest.fixture
def store(url):
    opened = Store(url)
    yield opened
    opened.close()


SPAN = Target("span", generation=2, start=0, end=38, quoted_text="Staging database access was discussed.")


def test_add_revise_and_history(store):
    first = store.annotations.add("h", SPAN, "confirmed", "the prohibition is gone", "kim", trace_label="staging")
    revised = store.annotations.revise(first.id, "needs-source", "which record?", "lee")
    assert [(r.number, r.label, r.reviewer) for r in revised.revisions] == [
        (1, "confirmed", "kim"), (2, "needs-source", "lee"),
    ]  # fmt: skip
    assert revised.label == "needs-source" and revised.target == SPAN
    assert [a.id for a in store.annotations.for_trace("h")] == [first.id]
    assert store.annotations.for_trace("other") == []


def test_custom_labels_are_kept_and_empty_ones_refused(store):
    assert store.annotations.add("h", Target("generation", generation=1), "wrong-summary-model", "", "k").label == (
        "wrong-summary-model"
    )
    with pytest.raises(ValueError, match="label"):
        store.annotations.add("h", Target("generation", generation=1), "  ", "", "k")
    with pytest.raises(ValueError, match="target"):
        Target("paragraph")


def test_migrations_are_idempotent_and_the_store_reopens(url):
    Store(url).annotations.add("h", SPAN, "confirmed", "", "kim")
    again = Store(url)  # a restart: migrate() runs again and finds the schema at head
    assert len(again.annotations.all()) == 1
    with again.engine.connect() as connection:
        assert connection.execute(text("SELECT version_num FROM alembic_version")).scalar() == "0004"


def test_export_import_round_trip_and_idempotence(tmp_path, url):
    source = Store(url)
    a = source.annotations.add("h", SPAN, "confirmed", "c1", "kim", trace_label="t")
    source.annotations.revise(a.id, "fixed", "c2", "lee")
    source.annotations.add("h", Target("invariant", invariant_id="prohibition:turn:1#1"), "needs-source", "", "kim")
    exported = source.annotations.export_jsonl()

    empty = Store(f"sqlite:///{tmp_path / 'empty.db'}")
    assert empty.annotations.import_jsonl(exported.splitlines()) == (2, 3)
    assert empty.annotations.all() == source.annotations.all()
    assert empty.annotations.import_jsonl(exported.splitlines()) == (0, 0)  # importing twice adds nothing
    assert len(empty.annotations.all()) == 2


def test_import_of_a_newer_export_merges_only_the_new_revision(tmp_path, url):
    store = Store(url)
    a = store.annotations.add("h", SPAN, "confirmed", "", "kim")
    before = store.annotations.export_jsonl()
    store.annotations.revise(a.id, "fixed", "", "lee")
    other = Store(f"sqlite:///{tmp_path / 'other.db'}")
    other.annotations.import_jsonl(before.splitlines())
    assert other.annotations.import_jsonl(store.annotations.export_jsonl().splitlines()) == (0, 1)
    assert other.annotations.get(a.id).label == "fixed"


def test_a_malformed_line_is_named_and_nothing_imports(tmp_path, store):
    store.annotations.add("h", SPAN, "confirmed", "", "kim")
    store.annotations.add("h", Target("generation", generation=1), "fixed", "", "kim")
    lines = store.annotations.export_jsonl().splitlines()
    other = Store(f"sqlite:///{tmp_path / 'o.db'}")
    for broken, line, words in (([lines[0], b'{"id": "x", "trace_hash": ', lines[1]], 2, "invalid JSON"),
                                ([lines[0], lines[1], b'{"id": "y"}'], 3, "missing required field")):  # fmt: skip
        with pytest.raises(ImportLineError, match=words) as caught:
            other.annotations.import_jsonl(broken)
        assert caught.value.line == line
        assert other.annotations.all() == []  # not even the good lines before it


def _record(line: bytes, **changes: object) -> dict:
    record = json.loads(line)
    record["id"] = "e" * 32
    for path, value in changes.items():
        *parents, key = path.split("__")
        place = record
        for parent in parents:
            place = place[int(parent)] if isinstance(place, list) else place[parent]
        place[key] = value
    return record


BAD_RECORDS = {
    "span start not a number": {"target__start": "x"},
    "generation not a number": {"target__generation": "one"},
    "a list for a text": {"trace_label": ["a", "b"]},
    "a list for a number": {"target__end": [1]},
    "two revisions numbered 1": {"revisions": [
        {"number": 1, "label": "confirmed", "comment": "", "reviewer": "kim", "created_at": "t"},
        {"number": 1, "label": "fixed", "comment": "", "reviewer": "lee", "created_at": "t"}]},
    "revision numbered 0": {"revisions__0__number": 0},
    "a number past 32 bits": {"target__generation": 2**40},
    "a boolean for a number": {"target__start": True},
    "an unknown target kind": {"target__kind": "paragraph"},
    "an unknown field": {"target__colour": "red"},
    "a span ending before it starts": {"target__start": 30, "target__end": 3},
    "a blank label": {"revisions__0__label": "  "},
    "an id longer than its column": {"id": "x" * 33},
    "a label longer than its column": {"revisions__0__label": "l" * 65},
    "a NUL in a text": {"revisions__0__comment": "a\x00b"},
    "no revisions": {"revisions": []},
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(BAD_RECORDS))
def test_a_line_the_schema_refuses_is_named_and_nothing_is_written(tmp_path, url, case):
    source = Store(f"sqlite:///{tmp_path / 'source.db'}")
    source.annotations.add("h", SPAN, "confirmed", "", "kim")
    first, = source.annotations.export_jsonl().splitlines()
    bad = json.dumps(_record(first, **BAD_RECORDS[case])).encode()
    target = Store(url)
    with pytest.raises(ImportLineError) as caught:
        target.annotations.import_jsonl([first, b"", bad])
    assert caught.value.line == 3 and "\n" not in caught.value.message
    assert target.annotations.all() == [] and target.annotations.count() == 0


def test_annotations_import_of_a_bad_file_is_one_line_exit_2_and_writes_nothing(tmp_path, url):
    source = Store(f"sqlite:///{tmp_path / 'source.db'}")
    source.annotations.add("h", SPAN, "confirmed", "", "kim")
    first, = source.annotations.export_jsonl().splitlines()
    for case in ("span start not a number", "generation not a number", "a list for a text",
                 "two revisions numbered 1"):  # fmt: skip
        path = tmp_path / "import.jsonl"
        path.write_bytes(first + b"\n" + json.dumps(_record(first, **BAD_RECORDS[case])).encode() + b"\n")
        done = subprocess.run([sys.executable, "-m", "inspector", "annotations", "--db", url, "import", str(path)],
                              capture_output=True, text=True, cwd=REPO, timeout=120)  # fmt: skip
        assert done.returncode == 2, (case, done.stderr)
        assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith(f"{path}:2: "), (case, done.stderr)
        assert "nothing imported" in done.stderr and done.stdout == ""
        assert Store(url).annotations.count() == 0, case


def test_csv_export_carries_place_and_quoted_text(store):
    store.annotations.add("h", SPAN, "confirmed", "comma, \"quote\"", "kim")
    import csv
    import io

    [row] = list(csv.DictReader(io.StringIO(store.annotations.export_csv())))
    assert (row["generation"], row["start"], row["end"], row["quoted_text"], row["comment"]) == (
        "2", "0", "38", "Staging database access was discussed.", 'comma, "quote"',
    )  # fmt: skip


def test_spans_are_reanchored_by_their_quoted_text():
    assert reanchor(SPAN, "Staging database access was discussed. More.") == (0, 38)
    assert reanchor(SPAN, "New intro. Staging database access was discussed.") == (11, 49)
    assert reanchor(SPAN, "Entirely different text") is None


def test_the_ledger_lives_in_the_store_and_only_appends(store):
    result = refresh_at(analyze(load_trace(SAMPLES / "five_item_synthetic.json")), 5)
    store.ledger.append(result, trace="h1", trace_label="five", trigger="manual", requested_by="kim")
    store.ledger.append(result, trace="h1", trace_label="five", trigger="every 2", requested_by="policy")
    entries = store.ledger.entries("h1")
    assert len(entries) == 8 and [e.trigger for e in entries] == ["manual"] * 4 + ["every 2"] * 4
    public = {name for name in dir(type(store.ledger)) if not name.startswith("_")}
    assert public == {"append", "entries", "export_jsonl"}


def test_a_jsonl_ledger_from_an_older_version_is_adopted_once(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("INSPECTOR_DB_URL", raising=False)
    entry = ('{"id": "e1", "recorded_at": "2026-11-01T00:00:00+00:00", "trace": "h", "trace_label": "t", '
             '"generation": 3, "trigger": "manual", "requested_by": "kim", "correction": {"type": "omitted", '
             '"invariant_id": "p", "kind": "prohibition", "inherited": null, "source": "Never.", "source_key": "k", '
             '"reason": "gone"}}')  # fmt: skip
    (tmp_path / "corrections.jsonl").write_text(entry + "\n" + entry + "\n{torn\n")  # an id twice: adopted once
    assert [e.id for e in open_store().ledger.entries()] == ["e1"]
    assert not (tmp_path / "corrections.jsonl").exists()
    assert [e.id for e in read_jsonl_ledger(tmp_path / "corrections.jsonl.adopted")] == ["e1", "e1"]  # kept as it was
    assert len(open_store().ledger.entries()) == 1


FIRST_OPEN = """
import sys, time
from pathlib import Path
from inspector.cli import main
go = Path(sys.argv[1])
Path(sys.argv[2]).touch()  # loaded
while not go.exists():  # every process loaded and waiting: they open the store at the same moment
    time.sleep(0.001)
sys.exit(main(["ledger", "export"]))
"""


def _old_ledger(path, count: int) -> set[str]:
    """An older version's corrections.jsonl of `count` entries; their ids."""
    ids = [f"old{i:04d}" for i in range(count)]
    path.write_text("".join(json.dumps({
        "id": i, "recorded_at": f"2026-11-01T00:00:{n % 60:02d}+00:00", "trace": "h", "trace_label": "t",
        "generation": 1, "trigger": "manual", "requested_by": "kim", "correction": {
            "type": "omitted", "invariant_id": "p", "kind": "prohibition", "inherited": None, "source": "Never.",
            "source_key": "k", "reason": "gone"}}) + "\n" for n, i in enumerate(ids)))  # fmt: skip
    return set(ids)


def _open_at(url: str, barrier, results) -> None:  # type: ignore[no-untyped-def]
    barrier.wait()
    try:
        Store(url).ledger.entries()
        results.put("ok")
    except Exception as error:  # noqa: BLE001 - the test reports whatever a process met
        results.put(repr(error))


def test_processes_creating_a_new_sqlite_store_at_once_all_open_it(tmp_path):
    """Switching a new file to WAL is a race SQLite's losers hear at once as "database is locked", without waiting
    (CI's four ledger exports on a fresh data folder failed so); six processes, twenty fresh files."""
    context = multiprocessing.get_context("fork")
    failed = []
    for round_ in range(20):
        url = f"sqlite:///{tmp_path / f'store-{round_}.db'}"
        barrier, results = context.Barrier(6), context.Queue()
        processes = [context.Process(target=_open_at, args=(url, barrier, results)) for _ in range(6)]
        for process in processes:
            process.start()
        outcomes = [results.get(timeout=120) for _ in processes]
        for process in processes:
            process.join()
        failed += [f"round {round_}: {o}" for o in outcomes if o != "ok"]
    assert failed == []


@pytest.mark.parametrize("backend", BACKENDS)
def test_four_processes_opening_a_store_with_a_ledger_to_adopt_all_succeed_and_adopt_it_once(tmp_path, backend):
    for round_ in range(5):
        data = tmp_path / f"round{round_}"
        data.mkdir()
        ids = _old_ledger(data / "corrections.jsonl", 300)
        with fresh_store_url(backend, data) as url:
            env = {k: v for k, v in os.environ.items() if k != "INSPECTOR_DB_URL"} | {"INSPECTOR_DATA_DIR": str(data)}
            if backend == "postgresql":
                env["INSPECTOR_DB_URL"] = url
            go, ready = data / "go", [data / f"ready{n}" for n in range(4)]
            processes = [subprocess.Popen([sys.executable, "-c", FIRST_OPEN, str(go), str(loaded)],
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO, env=env)
                         for loaded in ready]  # fmt: skip
            deadline = time.monotonic() + 120
            while not all(r.exists() for r in ready) and time.monotonic() < deadline:
                time.sleep(0.05)
            go.touch()
            results = [(*process.communicate(timeout=120), process.returncode) for process in processes]
            for out, err, code in results:
                assert code == 0 and err == "", f"round {round_}: {err}"
                exported = [json.loads(line)["id"] for line in out.splitlines()]
                assert sorted(exported) == sorted(ids), f"round {round_}: each process exports every entry once"
            store = Store(url if backend == "postgresql" else f"sqlite:///{data / 'inspector.db'}")
            assert sorted(e.id for e in store.ledger.entries()) == sorted(ids)  # each correction once
            store.close()
            assert not (data / "corrections.jsonl").exists() and (data / "corrections.jsonl.adopted").exists()


# --- the guard's log ---------------------------------------------------------------------------------


def injection(session_id: str, k: int, created_at: str, *items: RestoredItem, text: str = "") -> GuardInjection:
    return GuardInjection(session_id, k, f"hash-{k}", created_at, items, text or f"printed {k}")


LOST = RestoredItem("user-statement-lost", "user-constraint", "Never run migrations on staging.\n\u202etxt `x`",
                    "turn:4", "2026-11-01T09:30:00Z")  # fmt: skip
CLAIM = RestoredItem("claim-contradicted", "claim", "The summary says the tests pass; the last run failed.", None, None)


def test_guard_injections_round_trip_by_session_oldest_first(store):
    later = injection("session-a", 3, "2026-11-02T10:00:00+00:00", CLAIM)
    first = injection("session-a", 1, "2026-11-01T10:00:00+00:00", LOST, CLAIM, text="The user said:\n- “Never…”")
    same_second = injection("session-a", 2, "2026-11-01T10:00:00+00:00")
    store.guard.record(later)  # recorded out of order: read back by time, then by recording order
    store.guard.record(first)
    store.guard.record(same_second)
    store.guard.record(injection("session-b", 1, "2026-11-01T00:00:00+00:00", LOST))
    assert store.guard.for_session("session-a") == [first, same_second, later]
    assert store.guard.for_session("session-a")[0].items == (LOST, CLAIM)  # the items' order, None fields kept
    assert [i.generation for i in store.guard.for_session("session-b")] == [1]
    assert store.guard.for_session("unknown") == []
    public = {name for name in dir(type(store.guard)) if not name.startswith("_")}
    assert public == {"record", "for_session", "take_pending"}  # append-only: no update or delete


@pytest.mark.parametrize(("session_id", "k"), [("", 1), ("s", -1), ("s", "3"), ("s", True)])
def test_an_injection_without_a_session_or_a_generation_is_refused(store, session_id, k):
    with pytest.raises(ValueError, match="guard injection"):
        store.guard.record(GuardInjection(session_id, k, "h", "2026-11-01T00:00:00+00:00", (LOST,), "printed"))
    assert store.guard.for_session(session_id) == []


def test_guard_injections_survive_a_reopen(url):
    Store(url).guard.record(injection("s", 2, "2026-11-01T00:00:00+00:00", LOST, CLAIM))
    assert Store(url).guard.for_session("s")[0].items == (LOST, CLAIM)


def test_a_store_from_before_the_guard_log_is_migrated_and_keeps_its_rows(url):
    engine = make_engine(url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0001")  # the store as the previous release left it
        connection.execute(text("INSERT INTO annotation (id, trace_hash, trace_label, target, created_at, created_by) "
                                "VALUES ('old', 'h', '', 'generation', 'then', 'kim')"))  # fmt: skip
        connection.execute(text("INSERT INTO annotation_revision (annotation_id, number, label, comment, reviewer, "
                                "created_at) VALUES ('old', 1, 'confirmed', '', 'kim', 'then')"))  # fmt: skip
    engine.dispose()
    store = Store(url)
    assert [a.id for a in store.annotations.all()] == ["old"]
    store.guard.record(injection("s", 1, "2026-11-01T00:00:00+00:00", LOST))
    assert len(store.guard.for_session("s")) == 1


def test_a_store_whose_guard_log_has_items_is_migrated_to_the_waiting_files_origin_and_keeps_them(url):
    """Revision 0004 adds a column beside rows that items point at: copying the table to add a unique constraint
    (SQLite's batch mode) dropped `guard_injection` under its items' foreign keys and failed on every such store."""
    engine = make_engine(url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0003")  # the store as the previous release left it, with one injection and its item
        connection.execute(text("INSERT INTO guard_injection (session_id, generation, content_hash, created_at, text, "
                                "event) VALUES ('s', 1, 'h', '2026-11-01T00:00:00+00:00', 'printed', 'SessionStart')"))
        connection.execute(text("INSERT INTO guard_item (injection_id, position, rule, kind, text) SELECT id, 0, "
                                "'user-statement-lost', 'user-constraint', 'Never touch staging.' "
                                "FROM guard_injection"))  # fmt: skip
    engine.dispose()
    store = Store(url)
    (kept,) = store.guard.for_session("s")
    assert (kept.text, [i.text for i in kept.items]) == ("printed", ["Never touch staging."])


def test_the_migrations_build_the_tables_the_store_declares(store):
    with store.engine.connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []


# --- concurrency and crashes -----------------------------------------------------------------------


def _writer(url: str, name: str, n: int) -> None:
    store = Store(url)
    for i in range(n):
        store.annotations.add("h", Target("generation", generation=i % 5), "confirmed", f"{name}-{i}", name)


def test_two_processes_writing_500_each_lose_nothing(url):
    Store(url).close()  # migrate once up front, as the app does on start
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_writer, args=(url, name, 500)) for name in ("a", "b")]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(300)
        assert worker.exitcode == 0
    comments = {a.current.comment for a in Store(url).annotations.all()}
    assert len(comments) == 1000


KILLED_WRITER = """
import sys, time
from sqlalchemy import text
from inspector.store import Store, Target
store = Store(sys.argv[1])
for i in range(20):
    store.annotations.add("h", Target("generation", generation=i), "confirmed", f"committed-{i}", "w")
print("committed", flush=True)
with store.engine.begin() as connection:  # a transaction that never commits
    connection.execute(text("INSERT INTO annotation (id, trace_hash, trace_label, target, created_at, created_by) "
                            "VALUES ('doomed', 'h', '', 'generation', 'now', 'w')"))
    print("in-transaction", flush=True)
    time.sleep(60)
"""


def test_a_writer_killed_mid_transaction_leaves_committed_rows_and_a_readable_store(url):
    Store(url).close()
    process = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, url], stdout=subprocess.PIPE, text=True,
                               cwd=REPO)  # fmt: skip
    try:
        assert process.stdout.readline().strip() == "committed"
        assert process.stdout.readline().strip() == "in-transaction"
        os.kill(process.pid, signal.SIGKILL)
        process.wait(30)
    finally:
        if process.poll() is None:
            process.kill()
    time.sleep(0.5)
    store = Store(url)
    comments = sorted(a.current.comment for a in store.annotations.all())
    assert comments == sorted(f"committed-{i}" for i in range(20))
    assert store.annotations.get("doomed") is None
    store.annotations.add("h", SPAN, "confirmed", "after the crash", "kim")  # still writable
    assert len(store.annotations.all()) == 21
