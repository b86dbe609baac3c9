"""Where the user's data lives: uploads, the review store, the guard's log and what it has yet to record.

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


__all__ = ["data_dir"]
