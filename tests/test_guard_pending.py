"""What the guard printed waits in the data folder as one file per run, and the review store takes each in exactly
once when its guard log is read, on SQLite and on PostgreSQL: the hook never waits for the database, and nothing it
printed is lost or recorded twice."""

from __future__ import annotations

import shutil

import pytest

from inspector.guard_pending import pending_folder, waiting, write_pending
from inspector.store import Store
from tests.stores import BACKENDS, fresh_store_url


@pytest.fixture(params=BACKENDS)
def store(request, tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path / "data"))
    with fresh_store_url(request.param, tmp_path) as url:
        opened = Store(url)
        yield opened
        opened.close()


def fields(session: str = "s1", text: str = "Compaction Inspector checked the summary …") -> dict[str, object]:
    return {"session_id": session, "generation": 2, "content_hash": "ab" * 16,
            "created_at": "2026-12-03T12:00:00+00:00",
            "items": [{"rule": "user-statement-lost", "kind": "user-constraint", "text": "Never touch staging.",
                       "source_key": "u1", "said_at": "2026-12-03T11:00:00Z"}],
            "text": text, "event": "SessionStart"}  # fmt: skip


def test_a_waiting_run_is_taken_in_once_and_its_file_removed(store):
    path = write_pending(fields())
    (injection,) = store.guard.for_session("s1")
    assert (injection.generation, injection.text, injection.event) == (2, fields()["text"], "SessionStart")
    assert [(i.rule, i.kind, i.text, i.source_key) for i in injection.items] == [
        ("user-statement-lost", "user-constraint", "Never touch staging.", "u1")]
    assert not path.exists() and list(waiting()) == []
    assert len(store.guard.for_session("s1")) == 1  # read again: nothing new


def test_a_file_seen_again_after_its_rows_were_committed_is_not_recorded_twice(store, tmp_path):
    """A reader that ended between the commit and the file's removal leaves the file: the next one removes it."""
    path = write_pending(fields())
    kept = tmp_path / "kept.json"
    shutil.copy(path, kept)
    store.guard.for_session("s1")
    shutil.copy(kept, path)  # as if it had never been removed
    assert len(store.guard.for_session("s1")) == 1 and not path.exists()


def test_runs_are_taken_in_in_the_order_they_were_made(store):
    for n in range(3):
        write_pending(fields(text=f"run {n}"))
    assert [i.text for i in store.guard.for_session("s1")] == ["run 0", "run 1", "run 2"]


@pytest.mark.parametrize("content", [b"{not json", b"[1, 2]", b'{"session_id": 3}'],
                         ids=["not JSON", "a list", "not an injection"])  # fmt: skip
def test_a_file_that_is_no_injection_is_left_in_place_and_the_rest_taken_in(content, store):
    write_pending(fields())
    odd = pending_folder() / "00000000000000000000-1-odd.json"
    odd.write_bytes(content)
    assert len(store.guard.for_session("s1")) == 1
    assert odd.read_bytes() == content  # nothing removed unread
