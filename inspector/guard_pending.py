"""What the guard printed, waiting for the review store: one small JSON file per run in the data folder.

The guard answers a compaction hook while the agent waits, and opening the store (SQLAlchemy, Alembic, the
migrations, perhaps a PostgreSQL server) was 0.3 s of a 0.7 s run on a 4 MB session. So the hook writes what it
printed here, in a millisecond and with the standard library alone, and the store takes the files in the next time
its guard log is read (`GuardLog.for_session`): the app shows every run, and the agent never waited for a database.

A file is written whole or not at all (a temporary name, then a rename), named so that names sort in the order the
runs were made, and taken in idempotently: its name is kept with the rows, so a file seen again after a crash
between the commit and its removal is removed, not recorded twice.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from inspector.data_folder import GUARD_PENDING, data_dir

AFTER, BEFORE = "SessionStart", "PreCompact"
"""The two hook events the guard answers, as each run records which (`GuardInjection.event`): after a compaction (its
source `compact`) and before one (`inspector.guard` says what each agent takes from either)."""
FOLDER = GUARD_PENDING
SUFFIX = ".json"
MAX_FILE = 4 << 20
"""Bytes read of one waiting file: the guard writes a few KB (its text is capped at `guard.MAX_TOKENS` tokens), so a
bigger file is none of its own and is left where it is, unread."""


def pending_folder() -> Path:
    return data_dir() / FOLDER


def write_pending(injection: dict[str, Any], folder: Path | None = None) -> Path:
    """Leave one run's injection for the store, with the fields `store.guard_log.GuardInjection` has: `session_id`,
    `generation`, `content_hash`, `created_at`, `text`, `event` and `items`, a list of objects with `rule`, `kind`,
    `text`, `source_key` and `said_at`."""
    folder = folder or pending_folder()
    folder.mkdir(parents=True, exist_ok=True)
    name = f"{time.time_ns():020d}-{os.getpid()}-{secrets.token_hex(4)}"
    partial = folder / f".{name}.partial"
    partial.write_text(json.dumps(injection, ensure_ascii=False), encoding="utf-8")
    target = folder / f"{name}{SUFFIX}"
    os.replace(partial, target)
    return target


def waiting(folder: Path | None = None) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each waiting injection as (its file's name, its fields), oldest first. A file that is not one the guard wrote
    whole (too big, not JSON, not an object) is skipped and left in place: nothing here is removed unread."""
    folder = folder or pending_folder()
    try:
        names = sorted(entry.name for entry in os.scandir(folder) if entry.name.endswith(SUFFIX)
                       and not entry.name.startswith(".") and entry.is_file(follow_symlinks=False))  # fmt: skip
    except OSError:
        return  # no folder: nothing waits
    for name in names:
        try:
            with (folder / name).open("rb") as source:
                raw = source.read(MAX_FILE + 1)
            fields = json.loads(raw) if len(raw) <= MAX_FILE else None
        except (OSError, ValueError):
            continue
        if isinstance(fields, dict):
            yield name, fields


def taken(name: str, folder: Path | None = None) -> None:
    """The store holds this file's injection now: remove the file (already gone is fine)."""
    try:
        os.unlink((folder or pending_folder()) / name)
    except FileNotFoundError:
        pass


__all__ = ["AFTER", "BEFORE", "FOLDER", "pending_folder", "taken", "waiting", "write_pending"]
