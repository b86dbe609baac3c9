"""One session file → one row saying how badly its memory broke; the unit of work of a fleet scan.

`scan_file` never raises: a file that cannot be read becomes a row carrying its error, so one bad
log in a folder of thousands costs one row, not the scan. Rows are plain dicts of JSON-able values
so they cross process and cluster boundaries and land in CSV, JSON or Parquet unchanged.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

from inspector.analysis import Analysis, analyze
from inspector.consequences import LOSS_RULES
from inspector.errors import TraceReadError
from inspector.invariants import InvariantStatus
from inspector.model import Severity
from inspector.readers import load_trace

PASS, FAIL, UNREADABLE = "pass", "fail", "unreadable"
COLUMNS = (
    "path", "verdict", "format", "generations", "consequences", "errors", "warnings", "worst_rule",
    "errors_by_rule", "warnings_by_rule", "invariants", "invariants_lost", "anchor_density_first",
    "anchor_density_last", "anchor_density_trend", "title", "error", "size", "mtime_ns", "seconds",
)  # fmt: skip
"""Every row has exactly these keys, in this order (the output files' columns)."""


def scan_file(path: str) -> dict[str, Any]:
    """Load and analyse one file; a row for it whatever happens (never raises)."""
    started = time.perf_counter()
    file = Path(path)
    try:
        stat = file.stat()
        size, mtime_ns = stat.st_size, stat.st_mtime_ns
    except OSError as exc:
        size, mtime_ns = None, None
        return _unreadable(path, f"cannot stat: {exc.strerror or exc}", size, mtime_ns, started)
    try:
        analysis = analyze(load_trace(file))
    except TraceReadError as exc:
        return _unreadable(path, str(exc).replace("\n", " "), size, mtime_ns, started)
    except Exception as exc:  # noqa: BLE001 - one broken file must not end a scan of thousands
        return _unreadable(path, f"analysis failed: {type(exc).__name__}: {exc}", size, mtime_ns, started)
    row = summarise(analysis)
    row.update(path=path, size=size, mtime_ns=mtime_ns, seconds=round(time.perf_counter() - started, 4))
    return row


def summarise(analysis: Analysis) -> dict[str, Any]:
    """The row of an analysed chain (without file facts: path, size, mtime, seconds)."""
    errors = Counter(f.rule for f in analysis.findings if f.severity is Severity.ERROR)
    warnings = Counter(f.rule for f in analysis.findings if f.severity is Severity.WARNING)
    trend = density_trend(analysis)
    return _row(
        verdict=FAIL if errors else PASS,
        format=analysis.trace.format,
        generations=len(analysis.trace.generations),
        consequences=consequences(analysis),
        errors=sum(errors.values()),
        warnings=sum(warnings.values()),
        worst_rule=worst_rule(errors, warnings),
        errors_by_rule=dict(sorted(errors.items())),
        warnings_by_rule=dict(sorted(warnings.items())),
        invariants=len(analysis.facts.invariants),
        invariants_lost=invariants_lost(analysis),
        anchor_density_first=trend[0],
        anchor_density_last=trend[1],
        anchor_density_trend=trend[2],
        title=analysis.trace.title,
    )


def consequences(analysis: Analysis) -> int:
    """Losses the log shows mattered: loss findings followed by a consequence (`inspector.consequences`)."""
    return sum(1 for f in analysis.findings if f.rule in LOSS_RULES and f.consequence is not None)


def worst_rule(errors: Counter[str], warnings: Counter[str]) -> str | None:
    """The most frequent error rule, else the most frequent warning rule (ties: alphabetical)."""
    for counts in (errors, warnings):
        if counts:
            return min(counts, key=lambda rule: (-counts[rule], rule))
    return None


def invariants_lost(analysis: Analysis) -> int:
    """Invariants lost in the last generation whose text is available: what the agent now lacks."""
    readable = [g.generation.index for g in analysis.facts.generations if g.generation.text is not None]
    if not readable:
        return 0
    last = readable[-1]
    return sum(1 for t in analysis.facts.invariants if t.statuses[last] is InvariantStatus.LOST)


def density_trend(analysis: Analysis) -> tuple[float | None, float | None, float | None]:
    """Anchor density of the first and last summary, and its least-squares slope per generation.

    A negative slope is the anchor-decay signature: summaries printing fewer keys and more "as
    noted earlier" as the chain goes on. Generations without a defined density are left out.
    """
    points = [(g.generation.index, g.density) for g in analysis.facts.summaries() if g.density is not None]
    if not points:
        return None, None, None
    first, last = points[0][1], points[-1][1]
    if len(points) < 2:
        return _round(first), _round(last), None
    mean_x = sum(x for x, _ in points) / len(points)
    mean_y = sum(y for _, y in points) / len(points)
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in points) / spread
    return _round(first), _round(last), _round(slope)


def rank_key(row: dict[str, Any]) -> tuple[Any, ...]:
    """Worst first: sessions where a loss had a consequence, most first (compaction actually hurt there); then
    failing chains by errors, then lost invariants, then warnings; unreadable last."""
    order = {FAIL: 0, PASS: 1, UNREADABLE: 2}[row["verdict"]]
    return (-(row.get("consequences") or 0), order, -(row["errors"] or 0), -(row["invariants_lost"] or 0),
            -(row["warnings"] or 0), row["path"])  # fmt: skip


def rank(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(rows, key=rank_key)


def _unreadable(path: str, error: str, size: int | None, mtime_ns: int | None, started: float) -> dict[str, Any]:
    row = _row(verdict=UNREADABLE, error=error, errors_by_rule={}, warnings_by_rule={})
    row.update(path=path, size=size, mtime_ns=mtime_ns, seconds=round(time.perf_counter() - started, 4))
    return row


def _row(**values: Any) -> dict[str, Any]:
    row = dict.fromkeys(COLUMNS)
    row.update(consequences=0, errors=0, warnings=0, invariants_lost=0)
    row.update(values)
    return row


def _round(value: float) -> float:
    return round(value, 4)


__all__ = ["COLUMNS", "FAIL", "PASS", "UNREADABLE", "consequences", "rank", "scan_file", "summarise"]
