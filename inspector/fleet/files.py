"""What a scan reads and writes: the session files under a folder, the result table, its cache.

Session logs live in deep trees (`~/.claude/projects/<dir>/<id>.jsonl`, `~/.codex/sessions/Y/M/D/
rollout-*.jsonl`), so a folder is walked recursively for every file a reader might accept; other
files are counted, not analysed. The cache sits beside the output and maps a file's absolute path
to its last row, which is reused while the file's size and mtime are unchanged and the inspector
that made it is the same version.
"""

from __future__ import annotations

import csv
import io
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import orjson

from inspector.bounded_io import read_limits
from inspector.fleet.summary import COLUMNS
from inspector.inert import csv_cell, from_csv_cell
from inspector.readers import readers
from inspector.rules import all_rules

TRACE_SUFFIXES = (".json", ".jsonl", ".json.zst", ".jsonl.zst")
"""Names every text-log reader reads; readers of containers add their own (`Reader.suffixes`)."""
CACHE_SUFFIX = ".cache.json"
_JSON_COLUMNS = ("errors_by_rule", "warnings_by_rule")
"""Columns holding a {rule: count} mapping: JSON text in CSV and Parquet, objects in JSON."""


LINK_OUT = "link leaving the folder"
NOT_REGULAR = "FIFO, device or socket"


@dataclass(frozen=True, slots=True)
class Candidates:
    """What a walk found: the session files to analyse, and what it passed over, counted."""

    paths: list[Path]
    others: int
    """Files not named like a session log (README.md…)."""
    refused: dict[str, int] = field(default_factory=dict)
    """Session-named entries never opened, by reason: a symlink out of the folder would read a file the
    folder's owner did not put there; a FIFO blocks its reader forever."""


def candidates(roots: Iterable[str | Path], skip: Iterable[Path] = ()) -> Candidates:
    """Trace-like files under each root (or the root itself when it is a file), and what was passed over.

    Only regular files inside the root are kept: links are followed only while they stay inside it.
    """
    skipped = {p.resolve() for p in skip}
    found: dict[Path, None] = {}
    others = 0
    refused: dict[str, int] = {}
    for root in map(Path, roots):
        if root.is_file() or not root.exists():
            found.setdefault(root.resolve())  # a missing path still gets a row saying so
            continue
        inside = root.resolve()
        suffixes = trace_suffixes()
        if is_session_folder(root):
            found.setdefault(inside)
            continue
        for folder, dirs, files in os.walk(root):
            for name in dirs:
                if name.startswith(".") or not os.path.islink(Path(folder) / name):
                    continue
                if not (Path(folder) / name).resolve().is_relative_to(inside):
                    refused[LINK_OUT] = refused.get(LINK_OUT, 0) + 1
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            sessions = [d for d in dirs if is_session_folder(Path(folder) / d)]
            for name in sessions:  # a session stored as a folder of event files: one trace, not walked into
                path = (Path(folder) / name).resolve()
                if path.is_relative_to(inside) and path not in skipped:
                    found.setdefault(path)
            dirs[:] = [d for d in dirs if d not in sessions]
            for name in sorted(files):
                if name.endswith(CACHE_SUFFIX):
                    continue
                if not name.endswith(suffixes):
                    others += 1
                    continue
                path = (Path(folder) / name).resolve()
                if path in skipped:
                    continue
                reason = _refusal(path, inside)
                if reason:
                    refused[reason] = refused.get(reason, 0) + 1
                else:
                    found.setdefault(path)
    return Candidates(list(found), others, dict(sorted(refused.items())))


def trace_suffixes() -> tuple[str, ...]:
    """File name endings a scan reads: the text logs', and those of every registered container reader."""
    return TRACE_SUFFIXES + tuple(s for r in readers() for s in r.suffixes if s not in TRACE_SUFFIXES)


def is_session_folder(path: Path) -> bool:
    """A folder that a reader takes as one session (OpenHands keeps a conversation as event files)."""
    if path.is_symlink() or not path.is_dir():
        return False
    return any(r.claims is not None and r.claims(path) for r in readers())


def _refusal(path: Path, inside: Path) -> str | None:
    """Why a session-named entry (already resolved) is not read, or None when it is a file to read."""
    if not path.is_relative_to(inside):
        return LINK_OUT
    try:
        mode = path.stat().st_mode
    except OSError:
        return None  # a dangling link inside the folder: its row says the file is missing
    return None if stat.S_ISREG(mode) else NOT_REGULAR


def cache_path(out: Path) -> Path:
    return out.with_name(out.name + CACHE_SUFFIX)


def inspector_fingerprint() -> str:
    """Rows made by another version, rule set, row shape or read bounds are stale even when the file did not
    change.

    The bounds count: a file refused as too large must be read again once they are raised; the columns do too,
    since a row cached before a column existed would show it empty.
    """
    try:
        release = version("compaction-inspector")
    except PackageNotFoundError:
        release = "dev"
    limits = read_limits()
    return (f"{release}|{','.join(r.id for r in all_rules())}|{','.join(COLUMNS)}|{limits.max_line_bytes}"
            f"|{limits.max_file_bytes}")  # fmt: skip


def load_cache(path: Path) -> dict[str, dict[str, Any]]:
    """Rows by absolute path; an unreadable or foreign cache is an empty one (it is only a cache)."""
    try:
        data = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}
    if not isinstance(data, dict) or data.get("fingerprint") != inspector_fingerprint():
        return {}
    rows = data.get("rows")
    return rows if isinstance(rows, dict) else {}


def save_cache(path: Path, rows: Iterable[dict[str, Any]]) -> None:
    document = {"fingerprint": inspector_fingerprint(), "rows": {row["path"]: row for row in rows}}
    _atomic_write(path, orjson.dumps(document))


def fresh(row: dict[str, Any] | None, path: Path) -> bool:
    """Is a cached row still this file's? Same size and modification time."""
    if row is None:
        return False
    try:
        stat = path.stat()
    except OSError:
        return False
    return row.get("size") == stat.st_size and row.get("mtime_ns") == stat.st_mtime_ns


# --- the result table ------------------------------------------------------------------------


def write_rows(rows: list[dict[str, Any]], out: Path) -> None:
    """Write the table as .parquet, .csv or .json, chosen by the file name."""
    suffix = out.suffix.lower()
    if suffix == ".json":
        _atomic_write(out, orjson.dumps(rows, option=orjson.OPT_INDENT_2))
    elif suffix == ".csv":
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows({column: csv_cell(value) for column, value in _flat(row).items()} for row in rows)
        _atomic_write(out, buffer.getvalue().encode())
    elif suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.Table.from_pylist([_flat(row) for row in rows], schema=_arrow_schema(pa))
        temporary = out.with_name(out.name + ".tmp")
        pq.write_table(table, temporary)
        temporary.replace(out)
    else:
        raise ValueError(f"{out}: the output must end in .parquet, .csv or .json")


def read_rows(path: Path) -> list[dict[str, Any]]:
    """Read a table `write_rows` wrote (any of the three formats) back into rows."""
    suffix = path.suffix.lower()
    if suffix == ".json":
        return [_full(row) for row in orjson.loads(path.read_bytes())]
    if suffix == ".csv":
        with path.open(newline="") as stream:
            return [_full(_typed(row)) for row in csv.DictReader(stream)]
    if suffix == ".parquet":
        import pyarrow.parquet as pq

        return [_full(row) for row in pq.read_table(path).to_pylist()]
    raise ValueError(f"{path}: not a .parquet, .csv or .json scan result")


def _flat(row: dict[str, Any]) -> dict[str, Any]:
    flat = {column: row.get(column) for column in COLUMNS}
    for column in _JSON_COLUMNS:
        flat[column] = orjson.dumps(row.get(column) or {}).decode()
    return flat


def _full(row: dict[str, Any]) -> dict[str, Any]:
    full = {column: row.get(column) for column in COLUMNS}
    for column in _JSON_COLUMNS:
        value = full[column]
        full[column] = orjson.loads(value) if isinstance(value, str) else dict(value or {})
    return full


_INTEGERS = {"generations", "consequences", "errors", "warnings", "invariants", "invariants_lost", "size", "mtime_ns"}
_FLOATS = {"anchor_density_first", "anchor_density_last", "anchor_density_trend", "seconds"}


def _typed(row: dict[str, str]) -> dict[str, Any]:
    """CSV holds text: give numbers back their type, empty cells back None, text its formula escape back."""
    typed: dict[str, Any] = {}
    for column, value in row.items():
        if value == "":
            typed[column] = None
        elif column in _INTEGERS:
            typed[column] = int(value)
        elif column in _FLOATS:
            typed[column] = float(value)
        else:
            typed[column] = from_csv_cell(value)
    return typed


def _arrow_schema(pa: Any) -> Any:
    def kind(column: str) -> Any:
        return pa.int64() if column in _INTEGERS else pa.float64() if column in _FLOATS else pa.string()

    return pa.schema([(column, kind(column)) for column in COLUMNS])


def _atomic_write(path: Path, data: bytes) -> None:
    """Write beside the target and rename, so an interrupted scan never leaves half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_bytes(data)
    temporary.replace(path)


__all__ = ["LINK_OUT", "NOT_REGULAR", "cache_path", "candidates", "fresh", "load_cache", "read_rows",
           "save_cache", "write_rows"]  # fmt: skip
