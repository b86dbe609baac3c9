"""`compaction-inspector scan`: the fleet scan's command line (registered by `inspector.cli`).

The scan itself (readers, analysis, worker pools) is imported when the command runs, not when the parser
is built: every other command builds this parser too.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.cli_io import BadInput, output_file
from inspector.cli_options import ENGINE_NAMES, count
from inspector.cli_otel import add_destination, export_scanned
from inspector.inert import terminal_text
from inspector.text import counted

if TYPE_CHECKING:
    from inspector.fleet import ScanResult

SHOWN = 20
"""Rows printed to the terminal; the output file has them all."""


def add_parser(commands: Any, parents: Sequence[argparse.ArgumentParser] = ()) -> None:
    parser = commands.add_parser("scan", parents=list(parents),
                                 help="rank a folder of sessions by how badly their memory broke")
    parser.add_argument("dirs", nargs="*", metavar="DIR", help="folders (walked recursively) or files")
    parser.add_argument("--defaults", action="store_true",
                        help="also every agent's usual session folder on this machine (~/.claude/projects, "
                             "~/.codex/sessions, ~/.gemini/tmp, opencode's database, ./logs of Inspect)")  # fmt: skip
    parser.add_argument("--out", type=output_file, default=None, metavar="FILE",
                        help="write every row to FILE.parquet, .csv or .json (a cache is kept beside it)")  # fmt: skip
    parser.add_argument("--workers", type=count, default=os.cpu_count() or 1, metavar="N",
                        help="parallel analyses (default: one per core)")  # fmt: skip
    parser.add_argument("--engine", choices=ENGINE_NAMES, default="local", metavar="ENGINE",
                        help="where the analyses run: %(choices)s (local processes or a Dask cluster)")
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="Dask scheduler, e.g. tcp://10.0.0.5:8786 (default: a local cluster)")  # fmt: skip
    parser.add_argument("--no-cache", action="store_true", help="analyse every file even if unchanged")
    add_destination(parser, endpoint="--otel-endpoint", output=("--otel-out",), required=False)


def run(args: argparse.Namespace) -> int:
    """Exit 0 whatever the sessions show (a scan reports, `check` gates); 2 for unusable arguments, among
    them a folder or file that is not there (a typo, not a session that failed to read)."""
    from inspector.fleet import UNREADABLE, cache_path, scan, write_rows
    from inspector.readers.registry import default_locations

    out: Path | None = args.out
    if out is not None and out.suffix.lower() not in (".parquet", ".csv", ".json"):
        raise BadInput(f"{out}: --out must end in .parquet, .csv or .json")
    if args.scheduler and args.engine != "dask":
        raise BadInput("--scheduler needs --engine dask")
    for given in args.dirs:
        if not os.path.lexists(given):
            raise BadInput(f"{given}: no such file or folder")
    roots = list(args.dirs)
    if args.defaults:
        found = default_locations()
        for name, path in found:
            print(f"scanning {name}'s sessions: {terminal_text(str(path))}", file=sys.stderr)
        if not found:
            print("no agent's usual session folder exists on this machine", file=sys.stderr)
        roots += [str(path) for _, path in found if str(path) not in roots]
    elif not roots:
        raise BadInput("give at least one DIR (a folder or file), or --defaults for every agent's usual session folder")
    cache = cache_path(out) if out is not None and not args.no_cache else None
    with _progress_bar() as bar:

        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.n = done
            bar.refresh()

        result = scan(roots, workers=args.workers, engine=args.engine, scheduler=args.scheduler,
                      cache=cache, skip=[p for p in (out, cache) if p is not None], progress=progress)  # fmt: skip
    if out is not None:
        write_rows(result.rows, out)
    print(table(result.rows[:SHOWN]))
    print(summary_line(result, out))
    if args.otel_endpoint or args.otel_output:  # every readable session, worst first, as the table ranks them
        export_scanned([r["path"] for r in result.rows if r["verdict"] != UNREADABLE], args)
    return 0


def _progress_bar() -> Any:
    from tqdm import tqdm

    return tqdm(total=0, unit="file", desc="scanning", file=sys.stderr, disable=None, leave=False)


def table(rows: list[dict[str, Any]]) -> str:
    """The worst rows as aligned text: verdict, losses with a consequence, counts, worst rule, path (or the read
    error)."""
    lines = [f"{'verdict':<11}{'consequences':>13}{'errors':>7}{'warn':>6}{'lost':>6}{'gens':>6}  "
             f"{'worst rule':<28}path"]
    for row in rows:
        where = row["path"] + (f"  ({row['error']})" if row["error"] else "")
        lines.append(
            f"{row['verdict']:<11}{row['consequences'] or 0:>13}{row['errors']:>7}{row['warnings']:>6}"
            f"{row['invariants_lost']:>6}"
            f"{row['generations'] if row['generations'] is not None else '-':>6}  {row['worst_rule'] or '-':<28}{where}"
        )
    # A scanned folder names its own files and a read error may quote them: spelled, one line each.
    return "\n".join(terminal_text(line) for line in lines)


def summary_line(result: ScanResult, out: Path | None) -> str:
    from inspector.fleet.views import refused_line

    counts = result.counts
    parts = [f"{counted(len(result.rows), 'file')}: {counts.get('fail', 0)} fail, {counts.get('pass', 0)} pass, "
             f"{counts.get('unreadable', 0)} unreadable"]  # fmt: skip
    if result.cached:
        parts.append(f"{result.cached} unchanged since the last scan")
    if result.other_files:
        parts.append(f"{counted(result.other_files, 'other file')} skipped")
    if result.refused:
        parts.append(refused_line(result.refused))
    if len(result.rows) > SHOWN:
        parts.append(f"worst {SHOWN} shown")
    if out is not None:
        parts.append(f"all rows in {out}")
    return "; ".join(parts)


__all__ = ["add_parser", "run"]
