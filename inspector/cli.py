"""`compaction-inspector`: the gate CI pipelines call, and the rule list.

Exit codes: 0 no error finding, 1 an error finding, 2 input unreadable (one line on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import orjson

from inspector.analysis import analyze
from inspector.errors import TraceReadError
from inspector.facts import Config
from inspector.readers import format_names, load_trace
from inspector.report import to_json, to_text
from inspector.rules import all_rules

EXIT_PASS, EXIT_FAIL, EXIT_UNREADABLE = 0, 1, 2


def _density(value: str) -> float:
    number = float(value)
    if not 0.0 <= number <= 1.0:
        raise argparse.ArgumentTypeError("must be between 0 and 1")
    return number


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="compaction-inspector",
        description="Show what happened to an agent's memory across compactions, and where it broke.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("check", help="analyse traces; exit 1 if any error-severity finding")
    check.add_argument("traces", nargs="+", metavar="TRACE")
    check.add_argument("--format", default="auto", choices=format_names(), help="input format (default: auto)")
    check.add_argument("--json", action="store_true", help="print the machine-readable report")
    check.add_argument(
        "--min-anchor-density", type=_density, default=Config.min_anchor_density, metavar="F",
        help=f"floor for anchor-density-floor (default {Config.min_anchor_density})",
    )  # fmt: skip
    commands.add_parser("rules", help="list every rule with its severity and explanation")
    return parser


def _check(args: argparse.Namespace) -> int:
    config = Config(min_anchor_density=args.min_anchor_density)
    worst = EXIT_PASS
    for path in args.traces:
        try:
            trace = load_trace(path, args.format)
        except TraceReadError as error:
            print(str(error).replace("\n", " "), file=sys.stderr)
            worst = EXIT_UNREADABLE
            continue
        analysis = analyze(trace, config)
        if args.json:
            option = orjson.OPT_INDENT_2 if len(args.traces) == 1 else 0
            sys.stdout.write(orjson.dumps(to_json(analysis), option=option).decode() + "\n")
        else:
            print(to_text(analysis))
        if analysis.verdict == "fail":
            worst = max(worst, EXIT_FAIL)
    return worst


def _rules() -> int:
    entries = all_rules()
    width = max(len(r.id) for r in entries)
    for entry in entries:
        print(f"{entry.id:<{width}}  {entry.severity.value:<7}  {entry.explanation}")
    return EXIT_PASS


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _check(args) if args.command == "check" else _rules()
    except BrokenPipeError:  # `check … | head` is ordinary use
        return EXIT_PASS


if __name__ == "__main__":
    sys.exit(main())
