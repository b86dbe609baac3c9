"""Where the user's data lives (uploads, the review store, the guard's log and what it has yet to record), and the
cache of what is derived from it.

A module of its own, with nothing but the standard library, because the guard's hook process needs the folder
and must start in milliseconds: `library`, which also names it, loads the trace model."""

from __future__ import annotations

import os
from pathlib import Path


def data_dir() -> Path:
    """The user's data folder for uploads and the review store (`INSPECTOR_DATA_DIR` overrides)."""
    configured = os.environ.get("INSPECTOR_DATA_DIR")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "compaction-inspector"


CACHE_SETTING = "INSPECTOR_CACHE_DIR"
"""The cache folder, when set; else `$XDG_CACHE_HOME/compaction-inspector`."""


def cache_folder() -> Path:
    """Where derived state is kept between runs (`kept_readings`): rebuilt from the logs if lost, so not the data
    folder, which holds what only the user can give back."""
    override = os.environ.get(CACHE_SETTING)
    if override:
        return Path(override).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "compaction-inspector"


STORE_FILE = "inspector.db"
"""The default review store's SQLite file in the data folder (`store.engine.database_url`)."""
OLD_LEDGER = "corrections.jsonl"
"""The corrections ledger older versions kept as JSONL, taken into the default store when it opens."""
GUARD_PENDING = "guard-pending"
"""The guard's runs waiting for the store (`inspector.guard_pending`), taken in when its log is read."""


def default_store_is_empty() -> bool:
    """Would the default review store hold nothing: no `INSPECTOR_DB_URL`, and no store file, old ledger or waiting
    guard run in the data folder? Then a report has no reviews, corrections or guard runs to show, and need not
    load the store (SQLAlchemy and Alembic, 0.2 s of a report of a 4 MB session) nor create its file."""
    if os.environ.get("INSPECTOR_DB_URL"):
        return False
    folder = data_dir()
    pending = folder / GUARD_PENDING
    return not (folder / STORE_FILE).exists() and not (folder / OLD_LEDGER).exists() and not (
        pending.is_dir() and any(pending.iterdir()))


__all__ = ["CACHE_SETTING", "GUARD_PENDING", "OLD_LEDGER", "STORE_FILE", "cache_folder", "data_dir",
           "default_store_is_empty"]
