"""`compaction-inspector export-otel`, and `scan`'s export: findings sent where a team already watches its agents.

The OpenTelemetry SDK, the readers and the analysis are imported when an export runs, never when the parser is
built: every other command builds this parser too.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.cli_io import BadInput, output_file
from inspector.cli_options import FORMAT_NAMES
from inspector.config import Config
from inspector.errors import TraceReadError
from inspector.inert import terminal_text
from inspector.text import counted

if TYPE_CHECKING:
    from inspector.analysis import Analysis


def endpoint_url(value: str) -> str:
    """An OTLP/HTTP receiver: http(s) and a host, its traces path added when only the base URL is given."""
    from inspector.otel_export import traces_endpoint

    scheme, _, rest = value.partition("://")
    if scheme not in ("http", "https") or not rest.split("/", 1)[0]:
        raise argparse.ArgumentTypeError(f"{value!r} is not an http:// or https:// URL of an OTLP receiver")
    return traces_endpoint(value)


def header(value: str) -> tuple[str, str]:
    name, equals, content = value.partition("=")
    if not equals or not name.strip():
        raise argparse.ArgumentTypeError(f"{value!r} is not NAME=VALUE (e.g. Authorization=Basic …)")
    return name.strip(), content.strip()


def add_destination(parser: argparse.ArgumentParser, *, endpoint: str, output: Sequence[str],
                    required: bool) -> None:  # fmt: skip
    """Where the spans go: an OTLP/HTTP receiver or an OTLP JSON file (one of the two)."""
    where = parser.add_mutually_exclusive_group(required=required)
    where.add_argument(endpoint, dest="otel_endpoint", type=endpoint_url, default=None, metavar="URL",
                       help="OTLP/HTTP receiver, e.g. http://localhost:6006 (Phoenix): /v1/traces is added unless "
                            "the URL ends in it")  # fmt: skip
    where.add_argument(*output, dest="otel_output", type=output_file, default=None, metavar="FILE",
                       help="write OTLP JSON instead (one ExportTraceServiceRequest a line, as the Collector's "
                            "file exporter writes; the otel-genai reader loads it back)")  # fmt: skip
    parser.add_argument("--otel-header", dest="otel_headers", type=header, action="append", default=None,
                        metavar="NAME=VALUE", help="HTTP header for the receiver, repeatable (default: "
                        "OTEL_EXPORTER_OTLP_HEADERS, as the SDK reads it)")  # fmt: skip


def add_parser(commands: Any, parents: Sequence[argparse.ArgumentParser] = ()) -> None:
    parser = commands.add_parser("export-otel", parents=list(parents),
                                 help="send each compaction and its findings as OpenTelemetry GenAI spans "
                                      "(OTLP/HTTP) or write them as OTLP JSON")  # fmt: skip
    parser.add_argument("traces", nargs="+", metavar="TRACE", help="trace files (any format the inspector reads)")
    add_destination(parser, endpoint="--endpoint", output=("-o", "--output"), required=True)
    parser.add_argument("--input-format", default="auto", choices=FORMAT_NAMES, metavar="FORMAT",
                        help="the traces' format: %(choices)s (default auto: detected from each file)")


def run(args: argparse.Namespace) -> int:
    """Exit 0 once exported, whatever the findings (the gate is `check`); 2 if any trace is unreadable, and then
    nothing is sent: a dashboard missing a session it was given should not look complete."""
    from inspector.readers import load_trace

    traces, unreadable = [], False
    for path in args.traces:
        try:
            traces.append(load_trace(path, args.input_format))
        except TraceReadError as error:  # the message may quote the file: spelled, one line
            print(terminal_text(str(error).replace("\n", " ")), file=sys.stderr)
            unreadable = True
    if unreadable:
        print("nothing exported: a trace above could not be read", file=sys.stderr)
        return 2
    from inspector.analysis import analyze

    export((analyze(t) for t in traces), args)
    return 0


def export(analyses: Iterable[Analysis], args: argparse.Namespace) -> None:
    """Build the spans and send or write them; one closing line on stderr (stdout stays free for a pipe)."""
    from inspector.otel_export import ExportError, build_spans, send, write_file

    spans, summary = build_spans(analyses)
    output: Path | None = args.otel_output
    if output is not None:
        try:
            write_file(spans, output)
        except OSError as error:
            raise BadInput(f"{output}: cannot write: {error.strerror or error}") from None
        where = str(output)
    else:
        headers = dict(args.otel_headers) if args.otel_headers else None
        try:
            send(spans, args.otel_endpoint, Config.otlp_timeout_seconds, headers)
        except ExportError as error:
            raise BadInput(str(error)) from None
        where = args.otel_endpoint
    print(f"exported {counted(summary.traces, 'session')}, {counted(summary.compactions, 'compaction')}, "
          f"{counted(summary.findings, 'finding')} as OpenTelemetry spans to {terminal_text(where)}",
          file=sys.stderr)  # fmt: skip


def export_scanned(paths: Iterable[str], args: argparse.Namespace) -> None:
    """`scan --otel-endpoint/--otel-out`: the fleet's readable sessions, each analysed again in this process (a
    scan's rows hold counts, not findings; the export costs a second analysis of each exported session)."""
    from inspector.analysis import analyze
    from inspector.readers import load_trace

    def analyses() -> Iterable[Analysis]:
        for path in paths:
            try:
                yield analyze(load_trace(path))
            except TraceReadError:  # changed since the scan read it: its row already says what the scan saw
                continue

    export(analyses(), args)


__all__ = ["add_destination", "add_parser", "export", "export_scanned", "run"]
