"""Scan rows shaped for the Sessions page: display columns and filters, with no UI library."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Any

from inspector.inert import visible
from inspector.library import inside_folder

NO_RULE = "—"
"""The worst rule of a session with no finding (passing) or no analysis (unreadable): a dash, not "None"."""


def session_rows(rows: Iterable[dict[str, Any]], base: Path | None = None) -> list[dict[str, Any]]:
    """One display row per session, in the given (worst-first) order; `session` is relative to `base`, `agent`
    the format its log was read as (claude-code, gemini-cli, …: the agent that wrote it)."""
    shown = []
    for rank, row in enumerate(rows, start=1):
        path = Path(row["path"])
        name = path.relative_to(base).as_posix() if base is not None and path.is_relative_to(base) else str(path)
        rules = sorted({*(row.get("errors_by_rule") or {}), *(row.get("warnings_by_rule") or {})})
        shown.append({
            "rank": rank, "session": visible(name), "agent": row["format"] or NO_RULE, "verdict": row["verdict"],
            "consequences": row.get("consequences") or 0, "errors": row["errors"],
            "warnings": row["warnings"], "invariants lost": row["invariants_lost"],
            "worst rule": row["worst_rule"] or NO_RULE,
            "generations": row["generations"],
            "density trend": row["anchor_density_trend"], "rules": ", ".join(rules),
            "error": visible(_named(row["error"] or "", base)) or None, "path": row["path"],
        })  # fmt: skip
    return shown


def _named(error: str, base: Path | None) -> str:
    """A session's error naming its file by its path in the scanned folder, as the `session` column does."""
    return error if base is None else inside_folder(error, base, "the scanned folder")


def filter_sessions(
    rows: Iterable[dict[str, Any]], verdicts: Collection[str] = (), rules: Collection[str] = (), text: str = ""
) -> list[dict[str, Any]]:
    """Display rows with one of `verdicts`, any of `rules` among their findings, and `text` in the name."""
    wanted_rules = set(rules)
    needle = text.strip().lower()
    return [
        row for row in rows
        if (not verdicts or row["verdict"] in verdicts)
        and (not wanted_rules or wanted_rules & set(filter(None, row["rules"].split(", "))))
        and (not needle or needle in row["session"].lower())
    ]  # fmt: skip


def rules_seen(rows: Iterable[dict[str, Any]]) -> list[str]:
    return sorted({rule for row in rows for rule in filter(None, row["rules"].split(", "))})


def refused_line(refused: dict[str, int]) -> str:
    """'3 never opened: 2 links leaving the folder, 1 FIFO, device or socket', for the CLI and the page."""
    plural = {"link leaving the folder": "links leaving the folder",
              "FIFO, device or socket": "FIFOs, devices or sockets"}
    parts = [f"{n} {why if n == 1 else plural.get(why, why)}" for why, n in refused.items()]
    return f"{sum(refused.values())} never opened: " + "; ".join(parts)


__all__ = ["filter_sessions", "refused_line", "rules_seen", "session_rows"]
