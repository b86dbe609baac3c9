"""Fleet scan: rank a folder of sessions by how badly their memory broke.

`scan` walks folders for session files, reuses cached rows for unchanged files, analyses the rest
on an engine (this machine's cores or a Dask cluster), and returns one row per file, worst first.
The CLI (`compaction-inspector scan`) and the app's Sessions page both call it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspector.fleet.engines import ENGINES, run_dask, run_local
from inspector.fleet.files import (
    cache_path,
    candidates,
    fresh,
    load_cache,
    read_rows,
    save_cache,
    write_rows,
)
from inspector.fleet.summary import COLUMNS, FAIL, PASS, UNREADABLE, rank, scan_file, summarise

Progress = Callable[[int, int], None]
"""Called with (files done, files in total) as rows arrive."""


@dataclass(frozen=True)
class ScanResult:
    rows: list[dict[str, Any]]
    """One per file, worst first."""
    cached: int
    """Rows reused from the cache (file unchanged since the last scan)."""
    other_files: int
    """Files under the folders that are not session logs by name (README.md…), not analysed."""
    counts: dict[str, int] = field(default_factory=dict)
    """Rows per verdict: fail, pass, unreadable."""
    refused: dict[str, int] = field(default_factory=dict)
    """Session-named entries never opened, by reason (links leaving the folder, FIFOs and devices)."""


def scan(
    roots: Iterable[str | Path],
    *,
    workers: int = 1,
    engine: str = "local",
    scheduler: str | None = None,
    cache: Path | None = None,
    skip: Iterable[Path] = (),
    progress: Progress | None = None,
) -> ScanResult:
    """Analyse every session file under `roots`; cached rows for files whose size and mtime held."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r} (known: {', '.join(ENGINES)})")
    found = candidates(roots, skip)
    paths = found.paths
    known = load_cache(cache) if cache is not None else {}
    reused = [known[str(p)] for p in paths if fresh(known.get(str(p)), p)]
    todo = [str(p) for p in paths if not fresh(known.get(str(p)), p)]
    rows = list(reused)
    if progress is not None:
        progress(len(rows), len(paths))
    try:
        for row in _run(todo, workers, engine, scheduler):
            rows.append(row)
            if progress is not None:
                progress(len(rows), len(paths))
    finally:  # an interrupted scan keeps the rows it has: the next run starts from them
        if cache is not None:
            save_cache(cache, rows)
    counts = {verdict: sum(1 for r in rows if r["verdict"] == verdict) for verdict in (FAIL, PASS, UNREADABLE)}
    return ScanResult(rank(rows), len(reused), found.others, counts, found.refused)


def _run(paths: list[str], workers: int, engine: str, scheduler: str | None) -> Iterator[dict[str, Any]]:
    if not paths:
        return iter(())
    if engine == "dask":
        return run_dask(paths, scheduler, workers)
    return run_local(paths, workers)


def findings_by_rule(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Long-form (rule, severity, findings, sessions) over a scan, for the chart of findings by rule."""
    totals: dict[tuple[str, str], list[int]] = {}
    for row in rows:
        for severity, column in (("error", "errors_by_rule"), ("warning", "warnings_by_rule")):
            for rule, count in (row.get(column) or {}).items():
                entry = totals.setdefault((rule, severity), [0, 0])
                entry[0] += count
                entry[1] += 1
    ordered = sorted(totals.items(), key=lambda item: (-item[1][0], item[0]))
    return [{"rule": rule, "severity": severity, "findings": n, "sessions": s}
            for (rule, severity), (n, s) in ordered]  # fmt: skip


__all__ = [
    "COLUMNS", "ENGINES", "FAIL", "PASS", "UNREADABLE", "ScanResult", "cache_path", "findings_by_rule", "rank",
    "read_rows", "scan", "scan_file", "summarise", "write_rows",
]  # fmt: skip
