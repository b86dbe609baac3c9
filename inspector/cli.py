"""`compaction-inspector`: the gate CI pipelines call, the rule list, refresh and policy comparison.

Exit codes: 0 no error finding, 1 an error finding, 2 bad input on any command: a trace unreadable, an
option value, an output folder, the store's URL (one line on stderr naming it, no traceback; `BadInput`).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from inspector import cli_otel as otel_command
from inspector import cli_scan as scan_command
from inspector.bounded_io import FILE_SETTING, LINE_SETTING, ReadLimits
from inspector.cli_io import (
    BadInput,
    existing_folder,
    open_store,
    output_file,
    shown_url,
    trace_hash,
    trace_ref,
    write_output,
)
from inspector.cli_options import Parser, add_formats, add_json_flag, count, density, megabytes, summary_index
from inspector.config import Config
from inspector.data_folder import default_store_is_empty
from inspector.errors import TraceReadError
from inspector.guard_options import AGENTS, MAX_TOKENS
from inspector.inert import inert_json_pieces, terminal_text
from inspector.model import Trace
from inspector.rules import all_rules
from inspector.text import counted

if TYPE_CHECKING:
    from inspector.analysis import Analysis
    from inspector.policies import AdaptiveWeights, PolicyRun
    from inspector.store import Annotations

# The review store (SQLAlchemy, Alembic), policies and reports are imported by the commands that use them:
# `check`, `rules`, `scan` and the guard's run never pay for them (tests/test_cli.py asserts it). The readers
# and the analysis load when a command reads a trace: `rules` and `--help` need neither.

EXIT_PASS, EXIT_FAIL, EXIT_UNREADABLE = 0, 1, 2


def _limit_flags() -> argparse.ArgumentParser:
    """The read bounds, on every command that reads traces (they set the same settings as the environment)."""
    flags = Parser(add_help=False)
    flags.add_argument("--max-line-mb", type=megabytes, default=None, metavar="MB",
                       help=f"refuse a trace with a longer line or database row "
                            f"(default {ReadLimits().max_line_bytes >> 20}; also {LINE_SETTING})")  # fmt: skip
    flags.add_argument("--max-file-mb", type=megabytes, default=None, metavar="MB",
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
    parser = Parser(
        prog="compaction-inspector",
        description="Show what happened to an agent's memory across compactions, and where it broke.",
        epilog="Exit status: 0 no error finding, 1 an error finding, 2 bad input (one line on stderr).",
    )
    parser.add_argument("--version", action=_Version, help="print the version and exit")
    commands = parser.add_subparsers(dest="command", required=True)
    limits = [_limit_flags()]
    check = commands.add_parser("check", parents=limits, help="analyse traces; exit 1 if any error-severity finding")
    check.add_argument("traces", nargs="+", metavar="TRACE", help="trace files (native, Claude Code or Codex)")
    add_formats(check, ("text", "json"), "report format: a readable text, or the machine-readable JSON")
    add_json_flag(check)
    check.add_argument(
        "--min-anchor-density", type=density, default=Config.min_anchor_density, metavar="F",
        help=f"floor for anchor-density-floor, 0 to 1 (default {Config.min_anchor_density})",
    )  # fmt: skip
    commands.add_parser("rules", help="list every rule with its severity and explanation")

    refresh = commands.add_parser("refresh", parents=limits,
                                  help="rebuild Sk's invariants from source and list the corrections")
    refresh.add_argument("trace", metavar="TRACE", help="the trace file")
    refresh.add_argument("--at", type=summary_index, required=True, metavar="K",
                         help="the summary to refresh: S1 or later")  # fmt: skip
    add_formats(refresh, ("text", "json"), "how to print the corrections")
    add_json_flag(refresh)
    refresh.add_argument("--record", action="store_true", help="append the corrections to the corrections ledger")
    refresh.add_argument("--by", default=os.environ.get("USER", "cli"), metavar="NAME",
                         help="who asked, recorded with --record (default: $USER)")  # fmt: skip

    policies = commands.add_parser("policies", parents=limits,
                                   help="compare no refresh, every-N and adaptive refresh on a chain")
    policies.add_argument("trace", metavar="TRACE", help="the trace file")
    add_formats(policies, ("text", "json"), "how to print the comparison")
    add_json_flag(policies)
    policies.add_argument("--every", type=count, default=2, metavar="N", help="N for the every-N policy (default 2)")
    policies.add_argument(
        "--weights", type=_weights, default=None, metavar="NAME=W,…",
        help=f"adaptive weights, e.g. depth=1,threshold=2 (names: {', '.join(_WEIGHT_NAMES)})",
    )  # fmt: skip

    annotations = commands.add_parser("annotations", help="export, import and report reviewer annotations")
    annotations.add_argument("--db", default=None, metavar="URL", help="store URL (default: INSPECTOR_DB_URL or the "
                             "SQLite file in the data folder)")  # fmt: skip
    annotation_commands = annotations.add_subparsers(dest="action", required=True)
    ann_export = annotation_commands.add_parser("export", help="write annotations as JSONL (importable) or CSV")
    ann_export.add_argument("--format", choices=["jsonl", "csv"], default="jsonl",
                            help="jsonl (what import reads) or csv (default jsonl)")  # fmt: skip
    ann_export.add_argument("--trace", type=trace_ref, default=None, metavar="TRACE",
                            help="only this trace's annotations: its file, or its content hash")  # fmt: skip
    ann_export.add_argument("-o", "--output", type=output_file, default=None, metavar="FILE",
                            help="default: standard output")  # fmt: skip
    ann_import = annotation_commands.add_parser("import", help="merge a JSONL export; known entries are skipped")
    ann_import.add_argument("file", metavar="FILE", help="a file written by annotations export (JSONL)")
    ann_report = annotation_commands.add_parser("report", parents=limits, help="a Markdown review report for one trace")
    ann_report.add_argument("trace", metavar="TRACE", help="the trace file")
    add_formats(ann_report, ("md",), "report format: Markdown")
    ann_report.add_argument("-o", "--output", type=output_file, default=None, metavar="FILE",
                            help="default: standard output")  # fmt: skip

    report = commands.add_parser("report", parents=limits,
                                 help="a self-contained HTML (or Markdown) report of one trace")
    report.add_argument("trace", metavar="TRACE", help="the trace file")
    report.add_argument("-o", "--output", type=output_file, default=None, metavar="FILE",
                        help="default: standard output")  # fmt: skip
    add_formats(report, ("html", "md"), "report format: one self-contained HTML file, or Markdown",
                old_input_option="--trace-format")  # fmt: skip
    report.add_argument("--db", default=None, metavar="URL", help="store with annotations and corrections to include")
    report.add_argument("--no-store", action="store_true", help="leave annotations and corrections out")

    scan_command.add_parser(commands, limits)
    otel_command.add_parser(commands, limits)

    guard = commands.add_parser("guard", help="the compaction hook: give the agent back what its new summary lost "
                                "(reads the hook JSON on stdin); install, uninstall or show it")  # fmt: skip
    guard.add_argument("--max-tokens", type=count, default=MAX_TOKENS, metavar="N",
                       help=f"length cap of what is given back (default {MAX_TOKENS}); the agent's own limit on a "
                       "hook's context holds whatever it is")  # fmt: skip
    guard_commands = guard.add_subparsers(dest="action", metavar="{install,uninstall,status}")
    for name, says in (("install", "add the hook to an agent's settings, or opencode's plugin (shows the diff, asks "
                                   "unless --yes)"),
                       ("uninstall", "remove the hook, restoring the settings file as it was"),
                       ("status", "say where the hook is installed")):  # fmt: skip
        action = guard_commands.add_parser(name, help=says)
        scope = action.add_mutually_exclusive_group()
        scope.add_argument("--project", type=existing_folder, default=None, metavar="DIR",
                           help="the project's settings")  # fmt: skip
        scope.add_argument("--user", action="store_true", help="the user's settings (the default)")
        if name != "status":
            action.add_argument("--agent", choices=AGENTS, default="claude-code",
                                help="whose settings (default claude-code)")  # fmt: skip
            action.add_argument("--yes", action="store_true", help="write without asking")

    ledger = commands.add_parser("ledger", help="the corrections ledger")
    ledger_commands = ledger.add_subparsers(dest="action", required=True)
    export = ledger_commands.add_parser("export", help="write the ledger as JSONL to standard output")
    export.add_argument("--trace", type=trace_ref, default=None, metavar="TRACE",
                        help="only this trace's entries: its file, or its content hash")  # fmt: skip
    for group in (commands, annotation_commands, ledger_commands):
        # What argparse shows in the usage line, set by hand so a missing command is named by its choices
        # ("required: {export,import,report}"), not by the internal dest.
        group.metavar = "{" + ",".join(group.choices) + "}"
    return parser


class _Version(argparse.Action):
    """`--version`, read from the installed package only when asked (the gate's start-up stays lean)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)  # type: ignore[arg-type]

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            number = version("compaction-inspector")
        except PackageNotFoundError:  # run from a source tree that was never installed
            number = "(not installed)"
        print(f"compaction-inspector {number}")
        parser.exit()


def _check(args: argparse.Namespace) -> int:
    from inspector.report import to_json, to_text

    config = Config(min_anchor_density=args.min_anchor_density)
    worst = EXIT_PASS
    for path in args.traces:
        trace = _load(path, args.input_format)
        if trace is None:
            worst = EXIT_UNREADABLE
            continue
        analysis = _analyze(trace, config)
        if args.format == "json":
            option = (orjson.OPT_INDENT_2 if len(args.traces) == 1 else 0) | orjson.OPT_APPEND_NEWLINE
            write_output(None, inert_json_pieces(orjson.dumps(to_json(analysis), option=option)))
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


def _analyze(trace: Trace, config: Config | None = None) -> Analysis:
    from inspector.analysis import analyze

    return analyze(trace, config)


def _load(path: str, fmt: str) -> Trace | None:
    from inspector.readers import load_trace

    try:
        return load_trace(path, fmt)
    except TraceReadError as error:  # the message may quote the file: spelled
        print(terminal_text(str(error).replace("\n", " ")), file=sys.stderr)
        return None


def _refresh(args: argparse.Namespace) -> int:
    trace = _load(args.trace, args.input_format)
    if trace is None:
        return EXIT_UNREADABLE
    last = len(trace.generations) - 1
    if args.at > last:
        summaries = f"its summaries are S1..S{last}" if last >= 1 else "it has no summary"
        raise BadInput(f"{args.trace}: --at {args.at} is not a generation of this trace ({summaries})")
    from inspector.refresh import refresh_at

    result = refresh_at(_analyze(trace), args.at)
    if args.record:
        store = open_store(None)
        store.ledger.append(result, trace=trace_hash(args.trace), trace_label=trace.title or trace.id,
                            trigger="cli", requested_by=args.by)  # fmt: skip
        said = sys.stderr if args.format == "json" else sys.stdout  # standard output stays one JSON document
        print(f"recorded {counted(len(result.corrections), 'correction')} for S{args.at} by {args.by} in the "
              f"corrections ledger ({shown_url(store.url)})", file=said)  # fmt: skip
    if args.format == "json":
        payload = {
            "trace": args.trace, "generation": args.at, "records_read": result.records_read,
            "tokens_read": result.tokens_read, "corrections": [asdict(c) for c in result.corrections],
        }  # fmt: skip
        option = orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE
        write_output(None, inert_json_pieces(orjson.dumps(payload, option=option)))
    else:
        print(f"refresh at S{args.at}: re-read {counted(result.records_read, 'record')} (~{result.tokens_read} "
              f"tokens), {counted(len(result.corrections), 'correction')}")  # fmt: skip
        for c in result.corrections:  # wordings, ids and keys are the trace's: spelled, one line each
            print(terminal_text(f"  {c.type.value:<12} {c.invariant_id or '-'}: {c.reason}"))
            print(terminal_text(f"      inherited: {c.inherited or '(nothing)'}"))
            print(terminal_text(f"      source:    {c.source or '(no source record)'}  [{c.source_key or '-'}]"))
    return EXIT_PASS


_WEIGHT_NAMES = ("depth", "corrections", "authority", "volatility", "irreversible", "threshold")
"""`AdaptiveWeights`' fields, named here so the parser need not import the policies to show its help."""


def _weights(text: str) -> AdaptiveWeights:
    from inspector.policies import AdaptiveWeights

    values: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, value = part.partition("=")
        if name not in AdaptiveWeights.__dataclass_fields__:
            raise argparse.ArgumentTypeError(f"unknown name {name!r} (names: {', '.join(_WEIGHT_NAMES)})")
        try:
            values[name] = float(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} needs a number, as in {name}=2, not {value!r}") from None
    return AdaptiveWeights(**values)


def _policies(args: argparse.Namespace) -> int:
    trace = _load(args.trace, args.input_format)
    if trace is None:
        return EXIT_UNREADABLE
    from inspector.policies import AdaptiveWeights, compare

    runs = compare(_analyze(trace), args.every, args.weights or AdaptiveWeights())
    if args.format == "json":
        sys.stdout.write(orjson.dumps([_run_dict(r) for r in runs], option=orjson.OPT_INDENT_2).decode() + "\n")
        return EXIT_PASS
    columns = f"{'refreshes':>10}{'records':>9}{'tokens':>9}{'mean src fid':>14}{'drift':>8}"
    print(f"{'policy':<12}{columns}  silent drift at")
    for run in runs:
        marks = ", ".join(f"S{s.generation}" for s in run.steps if s.silent_drift) or "-"
        print(f"{run.policy:<12}{run.refreshes:>10}{run.records_read:>9}{run.tokens_read:>9}"
              f"{_fmt(run.mean_source_fidelity):>14}{_fmt(run.drift):>8}  {marks}")  # fmt: skip
    print()
    # Each policy's block is 2 + 3×8 characters wide; the silent-drift mark sits after its source column.
    print(("gen " + "".join(f"  {r.policy:>24} " for r in runs)).rstrip())
    print(("    " + "".join(f"  {'refresh':>8}{'local':>8}{'source':>8} " for _ in runs)).rstrip())
    for k in range(len(trace.generations)):
        cells = []
        for run in runs:
            step = run.steps[k]
            refreshed = "yes" if step.refreshed else "-"
            mark = "*" if step.silent_drift else " "
            cells.append(f"  {refreshed:>8}{_fmt(step.local_fidelity):>8}{_fmt(step.source_fidelity):>8}{mark}")
        print((f"S{k:<3}" + "".join(cells)).rstrip())
    print("\n* silent drift: every step since the peak kept local fidelity high while source fidelity fell")
    return EXIT_PASS


def _run_dict(run: PolicyRun) -> dict[str, object]:
    return {"policy": run.policy, "refreshes": run.refreshes, "records_read": run.records_read,
            "tokens_read": run.tokens_read, "mean_source_fidelity": run.mean_source_fidelity, "drift": run.drift,
            "steps": [asdict(s) for s in run.steps]}  # fmt: skip


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _annotations(args: argparse.Namespace) -> int:
    if args.action == "report":  # the trace first: a typo in its name should not wait on the store
        trace = _load(args.trace, args.input_format)
        if trace is None:
            return EXIT_UNREADABLE
    store = open_store(args.db)
    annotations = store.annotations
    if args.action == "export":
        data = annotations.export_jsonl(args.trace) if args.format == "jsonl" else annotations.export_csv(args.trace)
        if not (annotations.for_trace(args.trace) if args.trace else annotations.count()):
            # Said on stderr: standard output (or the file) still gets the empty export a script expects.
            which = "for this trace " if args.trace else ""
            print(f"no annotations {which}in the review store ({shown_url(store.url)})", file=sys.stderr)
        write_output(args.output, data if isinstance(data, bytes) else data.encode())
        return EXIT_PASS
    if args.action == "import":
        return _import_annotations(Path(args.file), annotations)
    from inspector.review import markdown_report

    report = markdown_report(_analyze(trace), annotations.for_trace(trace_hash(args.trace)))
    write_output(args.output, report.encode())
    return EXIT_PASS


def _import_annotations(path: Path, annotations: Annotations) -> int:
    """All or nothing: the first bad line is the one line said (exit 2) and nothing is written; a file with no
    annotation at all (an empty one too) is the wrong file."""
    from sqlalchemy.exc import SQLAlchemyError

    from inspector.bounded_io import iter_lines
    from inspector.store import ImportLineError

    read = lines = 0

    def counting() -> Iterator[bytes]:
        nonlocal read, lines
        for _number, line in iter_lines(path):  # bounded, and a FIFO is refused, not waited on
            lines += 1
            read += bool(line.strip())
            yield line

    try:
        added, revisions = annotations.import_jsonl(counting())
    except TraceReadError as error:  # missing, a FIFO, past the read bounds
        where = f"{path}:{error.line}" if error.line is not None else str(path)
        raise BadInput(terminal_text(f"{where}: cannot read: {error.message}; nothing imported")) from None
    except ImportLineError as error:  # the message may quote the line (a key name): spelled
        raise BadInput(terminal_text(f"{path}:{error.line}: not an annotations export line ({error.message}); "
                                     "nothing imported")) from None  # fmt: skip
    except SQLAlchemyError as error:
        raise BadInput(f"{path}: the review store refused the import ({type(error).__name__}); nothing "
                       "imported") from None
    if not read:
        why = "it holds only blank lines" if lines else "the file is empty"
        raise BadInput(f"{path}: not an annotations export (the JSONL `annotations export` writes): {why}")
    print(f"{path}: added {counted(added, 'annotation')} and {counted(revisions, 'revision')}")
    return EXIT_PASS


def _report(args: argparse.Namespace) -> int:
    trace = _load(args.trace, args.input_format)
    if trace is None:
        return EXIT_UNREADABLE
    from inspector.share import share_report_pieces

    empty = args.db is None and default_store_is_empty()  # nothing to show: the store is not loaded, nor created
    store = None if args.no_store or empty else open_store(args.db)
    digest = trace_hash(args.trace) if store is not None else ""  # the store's key: no store, nothing to look up
    pieces = share_report_pieces(_analyze(trace), store, digest, args.format)
    write_output(args.output, (piece.encode() for piece in pieces))  # encoded as written: never whole, as bytes
    return EXIT_PASS


def _ledger(args: argparse.Namespace) -> int:
    open_store(None).ledger.export_jsonl(sys.stdout.buffer, args.trace)
    return EXIT_PASS


def _guard(args: argparse.Namespace) -> int:
    """The hook run (no subcommand: never fails the session), or installing it."""
    if args.action is None:
        from inspector.guard import run_hook  # the hook: only `guard` itself runs it

        return run_hook(sys.stdin, sys.stdout, max_tokens=args.max_tokens)
    from inspector import guard_install  # the installer: only `guard install|uninstall|status` need it

    if args.action == "status":
        return guard_install.status(sys.stdout, args.project)

    def confirm(question: str) -> bool:
        return input(f"{question} [y/N] ").strip().lower() in ("y", "yes")

    act = guard_install.install if args.action == "install" else guard_install.uninstall
    return act(args.agent, args.project, yes=args.yes, confirm=confirm, out=sys.stdout)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    _apply_limits(args)
    handlers = {
        "check": _check, "refresh": _refresh, "policies": _policies, "ledger": _ledger, "annotations": _annotations,
        "report": _report, "scan": scan_command.run, "guard": _guard, "export-otel": otel_command.run,
    }  # fmt: skip
    try:
        return handlers[args.command](args) if args.command in handlers else _rules()
    except BadInput as error:
        print(error, file=sys.stderr)
        return EXIT_UNREADABLE
    except BrokenPipeError:  # `check … | head` is ordinary use
        return EXIT_PASS


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["build_parser", "main"]
