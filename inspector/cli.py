"""`compaction-inspector`: the gate CI pipelines call, the rule list, refresh and policy comparison.

Exit codes: 0 no error finding, 1 an error finding, 2 input unreadable (one line on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from inspector import guard as guard_hook
from inspector import guard_install
from inspector.analysis import analyze
from inspector.errors import TraceReadError
from inspector.facts import Config
from inspector.fleet import command as scan_command
from inspector.inert import json_text, terminal_text
from inspector.library import content_hash
from inspector.model import Trace
from inspector.readers import format_names, load_trace
from inspector.readers._io import FILE_SETTING, LINE_SETTING, ReadLimits
from inspector.refresh import refresh_at
from inspector.report import to_json, to_text
from inspector.rules import all_rules

if TYPE_CHECKING:
    from inspector.policies import AdaptiveWeights, PolicyRun

# The review store (SQLAlchemy, Alembic), policies and reports are imported by the commands that use them:
# `check`, `rules`, `scan` and the guard's run never pay for them (tests/test_cli.py asserts it).

EXIT_PASS, EXIT_FAIL, EXIT_UNREADABLE = 0, 1, 2
GUARD_TOKENS = guard_hook.MAX_TOKENS
AGENTS = guard_install.AGENTS


def _density(value: str) -> float:
    number = float(value)
    if not 0.0 <= number <= 1.0:
        raise argparse.ArgumentTypeError("must be between 0 and 1")
    return number


def _megabytes(value: str) -> float:
    number = float(value)
    if not number > 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return number


def _limit_flags() -> argparse.ArgumentParser:
    """The read bounds, on every command that reads traces (they set the same settings as the environment)."""
    flags = argparse.ArgumentParser(add_help=False)
    flags.add_argument("--max-line-mb", type=_megabytes, default=None, metavar="MB",
                       help=f"refuse a trace with a longer line (default {ReadLimits().max_line_bytes >> 20}; "
                            f"also {LINE_SETTING})")  # fmt: skip
    flags.add_argument("--max-file-mb", type=_megabytes, default=None, metavar="MB",
                       help=f"refuse a trace that decompresses to more (default {ReadLimits().max_file_bytes >> 20}; "
                            f"also {FILE_SETTING})")  # fmt: skip
    return flags


def _apply_limits(args: argparse.Namespace) -> None:
    """Flags win over the environment; set there, they also reach the scan's worker processes."""
    for flag, setting in (("max_line_mb", LINE_SETTING), ("max_file_mb", FILE_SETTING)):
        value = getattr(args, flag, None)
        if value is not None:
            os.environ[setting] = f"{value:g}"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="compaction-inspector",
        description="Show what happened to an agent's memory across compactions, and where it broke.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    limits = [_limit_flags()]
    check = commands.add_parser("check", parents=limits, help="analyse traces; exit 1 if any error-severity finding")
    check.add_argument("traces", nargs="+", metavar="TRACE")
    check.add_argument("--format", default="auto", choices=format_names(), help="input format (default: auto)")
    check.add_argument("--json", action="store_true", help="print the machine-readable report")
    check.add_argument(
        "--min-anchor-density", type=_density, default=Config.min_anchor_density, metavar="F",
        help=f"floor for anchor-density-floor (default {Config.min_anchor_density})",
    )  # fmt: skip
    commands.add_parser("rules", help="list every rule with its severity and explanation")

    refresh = commands.add_parser("refresh", parents=limits,
                                  help="rebuild Sk's invariants from source and list the corrections")
    refresh.add_argument("trace", metavar="TRACE")
    refresh.add_argument("--at", type=int, required=True, metavar="K", help="the generation to refresh")
    refresh.add_argument("--format", default="auto", choices=format_names())
    refresh.add_argument("--json", action="store_true")
    refresh.add_argument("--record", action="store_true", help="append the corrections to the corrections ledger")
    refresh.add_argument("--by", default=os.environ.get("USER", "cli"), help="who asked (recorded with --record)")

    policies = commands.add_parser("policies", parents=limits,
                                   help="compare no refresh, every-N and adaptive refresh on a chain")
    policies.add_argument("trace", metavar="TRACE")
    policies.add_argument("--format", default="auto", choices=format_names())
    policies.add_argument("--every", type=int, default=2, metavar="N", help="N for the every-N policy (default 2)")
    policies.add_argument(
        "--weights", default="", metavar="NAME=W,…",
        help="adaptive weights: depth, corrections, authority, volatility, irreversible, threshold",
    )  # fmt: skip
    policies.add_argument("--json", action="store_true")

    annotations = commands.add_parser("annotations", help="export, import and report reviewer annotations")
    annotations.add_argument("--db", default=None, metavar="URL", help="store URL (default: INSPECTOR_DB_URL or the "
                             "SQLite file in the data folder)")  # fmt: skip
    annotation_commands = annotations.add_subparsers(dest="annotations_command", required=True)
    ann_export = annotation_commands.add_parser("export", help="write annotations as JSONL (importable) or CSV")
    ann_export.add_argument("--format", choices=["jsonl", "csv"], default="jsonl")
    ann_export.add_argument("--trace", default=None, metavar="TRACE", help="only this trace file's annotations")
    ann_export.add_argument("-o", "--output", default=None, metavar="FILE", help="default: standard output")
    ann_import = annotation_commands.add_parser("import", help="merge a JSONL export; known entries are skipped")
    ann_import.add_argument("file", metavar="FILE")
    ann_report = annotation_commands.add_parser("report", parents=limits, help="a Markdown review report for one trace")
    ann_report.add_argument("trace", metavar="TRACE")
    ann_report.add_argument("--format", dest="trace_format", default="auto", choices=format_names())
    ann_report.add_argument("-o", "--output", default=None, metavar="FILE")

    report = commands.add_parser("report", parents=limits,
                                 help="a self-contained HTML (or Markdown) report of one trace")
    report.add_argument("trace", metavar="TRACE")
    report.add_argument("-o", "--output", default=None, metavar="FILE", help="default: standard output")
    report.add_argument("--format", dest="report_format", choices=["html", "md"], default="html")
    report.add_argument("--trace-format", default="auto", choices=format_names())
    report.add_argument("--db", default=None, metavar="URL", help="store with annotations and corrections to include")
    report.add_argument("--no-store", action="store_true", help="leave annotations and corrections out")

    scan_command.add_parser(commands, limits)

    guard = commands.add_parser("guard", help="the compaction hook: give the agent back what its new summary lost "
                                "(reads the hook JSON on stdin); install, uninstall or show it")  # fmt: skip
    guard.add_argument("--max-tokens", type=int, default=GUARD_TOKENS, metavar="N",
                       help=f"length cap of what is given back (default {GUARD_TOKENS})")  # fmt: skip
    guard_commands = guard.add_subparsers(dest="guard_command")
    for name, says in (("install", "add the hook to an agent's settings (shows the diff, asks unless --yes)"),
                       ("uninstall", "remove the hook, restoring the settings file as it was"),
                       ("status", "say where the hook is installed")):  # fmt: skip
        action = guard_commands.add_parser(name, help=says)
        scope = action.add_mutually_exclusive_group()
        scope.add_argument("--project", type=Path, default=None, metavar="DIR", help="the project's settings")
        scope.add_argument("--user", action="store_true", help="the user's settings (the default)")
        if name != "status":
            action.add_argument("--agent", choices=AGENTS, default="claude-code")
            action.add_argument("--yes", action="store_true", help="write without asking")

    ledger = commands.add_parser("ledger", help="the corrections ledger")
    ledger_commands = ledger.add_subparsers(dest="ledger_command", required=True)
    export = ledger_commands.add_parser("export", help="write the ledger as JSONL to standard output")
    export.add_argument("--trace", default=None, metavar="HASH", help="only this trace's entries (content hash)")
    return parser


def _check(args: argparse.Namespace) -> int:
    config = Config(min_anchor_density=args.min_anchor_density)
    worst = EXIT_PASS
    for path in args.traces:
        trace = _load(path, args.format)
        if trace is None:
            worst = EXIT_UNREADABLE
            continue
        analysis = analyze(trace, config)
        if args.json:
            option = orjson.OPT_INDENT_2 if len(args.traces) == 1 else 0
            sys.stdout.write(json_text(orjson.dumps(to_json(analysis), option=option).decode()) + "\n")
        else:
            print(to_text(analysis))
        if analysis.verdict == "fail":
            worst = max(worst, EXIT_FAIL)
    return worst


def _rules() -> int:
    entries = all_rules()
    width = max(len(r.id) for r in entries)
    for entry in entries:
        on_logs = f"(on session logs: {entry.session_severity.value}) " if entry.session_severity else ""
        print(f"{entry.id:<{width}}  {entry.severity.value:<7}  {on_logs}{entry.explanation}")
    return EXIT_PASS


def _load(path: str, fmt: str) -> Trace | None:
    try:
        return load_trace(path, fmt)
    except TraceReadError as error:  # the message may quote the file: spelled
        print(terminal_text(str(error).replace("\n", " ")), file=sys.stderr)
        return None


def _refresh(args: argparse.Namespace) -> int:
    trace = _load(args.trace, args.format)
    if trace is None:
        return EXIT_UNREADABLE
    if not 0 <= args.at < len(trace.generations):
        print(f"{args.trace}: --at {args.at} is not a generation (0..{len(trace.generations) - 1})", file=sys.stderr)
        return EXIT_UNREADABLE
    result = refresh_at(analyze(trace), args.at)
    if args.record:
        from inspector.ledger import default_ledger

        default_ledger().append(result, trace=content_hash(Path(args.trace)), trace_label=trace.title or trace.id,
                                trigger="cli", requested_by=args.by)  # fmt: skip
    if args.json:
        payload = {
            "trace": args.trace, "generation": args.at, "records_read": result.records_read,
            "tokens_read": result.tokens_read, "corrections": [asdict(c) for c in result.corrections],
        }  # fmt: skip
        sys.stdout.write(json_text(orjson.dumps(payload, option=orjson.OPT_INDENT_2).decode()) + "\n")
    else:
        print(f"refresh at S{args.at}: re-read {result.records_read} records (~{result.tokens_read} tokens), "
              f"{len(result.corrections)} corrections")  # fmt: skip
        for c in result.corrections:  # wordings, ids and keys are the trace's: spelled, one line each
            print(terminal_text(f"  {c.type.value:<12} {c.invariant_id or '-'}: {c.reason}"))
            print(terminal_text(f"      inherited: {c.inherited or '(nothing)'}"))
            print(terminal_text(f"      source:    {c.source or '(no source record)'}  [{c.source_key or '-'}]"))
    return EXIT_PASS


def _weights(text: str) -> AdaptiveWeights:
    from inspector.policies import AdaptiveWeights

    values: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, value = part.partition("=")
        if name not in AdaptiveWeights.__dataclass_fields__:
            raise SystemExit(f"--weights: unknown name {name!r}")
        try:
            values[name] = float(value)
        except ValueError:
            raise SystemExit(f"--weights: {name} needs a number, not {value!r}") from None
    return AdaptiveWeights(**values)


def _policies(args: argparse.Namespace) -> int:
    trace = _load(args.trace, args.format)
    if trace is None:
        return EXIT_UNREADABLE
    if args.every < 1:
        print("--every needs N ≥ 1", file=sys.stderr)
        return EXIT_UNREADABLE
    from inspector.policies import compare

    runs = compare(analyze(trace), args.every, _weights(args.weights))
    if args.json:
        sys.stdout.write(orjson.dumps([_run_dict(r) for r in runs], option=orjson.OPT_INDENT_2).decode() + "\n")
        return EXIT_PASS
    columns = f"{'refreshes':>10}{'records':>9}{'tokens':>9}{'mean src fid':>14}{'drift':>8}"
    print(f"{'policy':<12}{columns}  silent drift at")
    for run in runs:
        marks = ", ".join(f"S{s.generation}" for s in run.steps if s.silent_drift) or "-"
        print(f"{run.policy:<12}{run.refreshes:>10}{run.records_read:>9}{run.tokens_read:>9}"
              f"{_fmt(run.mean_source_fidelity):>14}{_fmt(run.drift):>8}  {marks}")  # fmt: skip
    print()
    print("gen " + "".join(f"  {r.policy:^24}" for r in runs))
    print("    " + "".join(f"  {'refresh':>8}{'local':>8}{'source':>8}" for _ in runs))
    for k in range(len(trace.generations)):
        cells = []
        for run in runs:
            step = run.steps[k]
            refreshed = "yes" if step.refreshed else "-"
            mark = "*" if step.silent_drift else " "
            cells.append(f"  {refreshed:>8}{_fmt(step.local_fidelity):>8}{_fmt(step.source_fidelity):>7}{mark}")
        print(f"S{k:<3}" + "".join(cells))
    print("\n* silent drift: every step since the peak kept local fidelity high while source fidelity fell")
    return EXIT_PASS


def _run_dict(run: PolicyRun) -> dict[str, object]:
    return {"policy": run.policy, "refreshes": run.refreshes, "records_read": run.records_read,
            "tokens_read": run.tokens_read, "mean_source_fidelity": run.mean_source_fidelity, "drift": run.drift,
            "steps": [asdict(s) for s in run.steps]}  # fmt: skip


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _write(output: str | None, data: bytes) -> None:
    if output is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        Path(output).write_bytes(data)


def _annotations(args: argparse.Namespace) -> int:
    from inspector.store import open_store

    store = open_store(args.db)
    annotations = store.annotations
    if args.annotations_command == "export":
        if args.trace is not None and not Path(args.trace).is_file():
            print(f"{args.trace}: no such file", file=sys.stderr)
            return EXIT_UNREADABLE
        digest = content_hash(Path(args.trace)) if args.trace else None
        data = annotations.export_jsonl(digest) if args.format == "jsonl" else annotations.export_csv(digest).encode()
        _write(args.output, data)
        return EXIT_PASS
    if args.annotations_command == "import":
        path = Path(args.file)
        try:
            with path.open("rb") as stream:
                added, revisions, errors = annotations.import_jsonl(stream)
        except OSError as error:
            print(f"{path}: cannot read: {error.strerror or error}", file=sys.stderr)
            return EXIT_UNREADABLE
        for error in errors:  # a message may quote the line (a key name): spelled
            print(terminal_text(f"{path}:{error.line}: {error.message}"), file=sys.stderr)
        print(f"{path}: added {added} annotations and {revisions} revisions; {len(errors)} lines skipped")
        return EXIT_FAIL if errors else EXIT_PASS
    trace = _load(args.trace, args.trace_format)
    if trace is None:
        return EXIT_UNREADABLE
    from inspector.review import markdown_report

    report = markdown_report(analyze(trace), annotations.for_trace(content_hash(Path(args.trace))))
    _write(args.output, report.encode())
    return EXIT_PASS


def _report(args: argparse.Namespace) -> int:
    trace = _load(args.trace, args.trace_format)
    if trace is None:
        return EXIT_UNREADABLE
    from inspector.share import share_report
    from inspector.store import open_store

    store = None if args.no_store else open_store(args.db)
    text = share_report(analyze(trace), store, content_hash(Path(args.trace)), args.report_format)
    _write(args.output, text.encode())
    return EXIT_PASS


def _ledger(args: argparse.Namespace) -> int:
    from inspector.ledger import default_ledger

    default_ledger().export_jsonl(sys.stdout.buffer, args.trace)
    return EXIT_PASS


def _guard(args: argparse.Namespace) -> int:
    """The hook run (no subcommand: never fails the session), or installing it."""
    if args.guard_command is None:
        if args.max_tokens < 1:
            print("--max-tokens needs N ≥ 1", file=sys.stderr)
            return EXIT_UNREADABLE
        return guard_hook.run_hook(sys.stdin, sys.stdout, max_tokens=args.max_tokens)
    if args.guard_command == "status":
        return guard_install.status(sys.stdout, args.project)

    def confirm(question: str) -> bool:
        return input(f"{question} [y/N] ").strip().lower() in ("y", "yes")

    act = guard_install.install if args.guard_command == "install" else guard_install.uninstall
    return act(args.agent, args.project, yes=args.yes, confirm=confirm, out=sys.stdout)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    _apply_limits(args)
    handlers = {
        "check": _check, "refresh": _refresh, "policies": _policies, "ledger": _ledger, "annotations": _annotations,
        "report": _report, "scan": scan_command.run, "guard": _guard,
    }  # fmt: skip
    try:
        return handlers[args.command](args) if args.command in handlers else _rules()
    except BrokenPipeError:  # `check … | head` is ordinary use
        return EXIT_PASS


if __name__ == "__main__":
    sys.exit(main())
