"""Every writer's output is inert, whatever a trace or a reviewer wrote: table-driven, writers × hostile text.

A hostile text goes everywhere the real code paths let it in (title, a constraint the analysis turns
into an invariant, finding and correction wording, annotation label, comment, reviewer, quoted span,
an imported record's fields, a scanned file's name); each writer's output is then checked the way its
reader would meet it: a spreadsheet, a Markdown renderer, a terminal. The checks do not call the
escaping functions they guard.
"""

from __future__ import annotations

import csv
import io
import json
import re
import string
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import pytest

from inspector import analyze, load_trace
from inspector.analysis import Analysis
from inspector.cli import main
from inspector.fleet import COLUMNS, read_rows, scan, write_rows
from inspector.library import content_hash
from inspector.model import finding_id
from inspector.refresh import refresh_at
from inspector.review import markdown_report
from inspector.share import share_report
from inspector.store import GuardInjection, RestoredItem, Store, Target
from inspector.store.ledger import adopt_jsonl_ledger
from tests.helpers import SAMPLES

HOSTILE = {
    "hyperlink": '=HYPERLINK("http://evil/x","click")',
    "plus": "+1",
    "minus": "-2+3",
    "at": "@SUM(A1:A2)",
    "tab-formula": "\t=1",
    "cr-formula": "\r=1",
    "img": "<img src=x onerror=alert(1)>",
    "beacon": "![](http://evil/beacon.png)",
    "js-link": "[x](javascript:alert(1))",
    "heading": "label\n# injected heading",
    "osc-title": "\x1b]2;pwned\x07\x1b[2K\x1b[1A",
    "bidi": "txt\u202egpj.exe",
    "c1-csi": "\x9b2Jcleared",
    "tag-characters": "note\U000e0072\U000e006d hidden",
}

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff"
    "\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)
"""What a terminal (or a Markdown file printed to one) must not receive: C0 but tab and newline, DEL, C1,
bidi controls, invisible characters. Written out here, not imported: a gap in the code's own list must fail."""


def hostile_trace(payload: str, path: Path) -> Path:
    """The staging sample with the payload in its title and inside the constraint that gets weakened, then lost.

    The constraint is declared (a typed record), so it is quoted whole: mined from the user's words, a payload
    such as a markdown heading on a line of its own would be read as a paste, and never reach a finding."""
    document = json.loads((SAMPLES / "staging_db_constraint.json").read_text())
    document["title"] = payload
    constraint = document["sources"][0]
    constraint["kind"], constraint["text"] = "user-constraint", constraint["text"].split(". ", 1)[1]  # the rule alone
    for item in document["sources"] + document["generations"]:
        for never in ("Never run migrations", "never run migrations"):
            item["text"] = item["text"].replace(never, f"{never[:9]} {payload} migrations")
    path.write_text(json.dumps(document))
    return path


@dataclass
class Case:
    """One hostile text and what the writers need, each built on first use."""

    payload: str
    folder: Path
    capsys: Any

    @cached_property
    def trace(self) -> Path:
        return hostile_trace(self.payload, self.folder / "trace.json")

    @cached_property
    def analysis(self) -> Analysis:
        return analyze(load_trace(self.trace))

    @cached_property
    def digest(self) -> str:
        return content_hash(self.trace)

    @cached_property
    def store(self) -> Store:
        """Reviews, corrections and a guard injection carrying the payload in every text field, as each way in
        allows."""
        store = Store(f"sqlite:///{self.folder / 'store.db'}")
        hostile = self.payload
        finding = self.analysis.findings[0]
        target = Target("finding", finding_id=finding_id(finding), rule=finding.rule, generation=finding.generation,
                        start=finding.start, end=finding.end)  # fmt: skip
        store.annotations.add(self.digest, target, hostile, hostile, hostile, trace_label=hostile)
        span = Target("span", generation=1, start=0, end=len(hostile), quoted_text=hostile)
        store.annotations.add(self.digest, span, hostile, hostile, hostile, trace_label=hostile)
        # An imported record is checked against its schema: the payload reaches its text fields, never a number.
        record = json.loads(store.annotations.export_jsonl(self.digest).splitlines()[-1])
        record["id"] = "imported"
        record["target"] = {"kind": "invariant", "invariant_id": hostile, "quoted_text": hostile}
        assert store.annotations.import_jsonl([json.dumps(record).encode()]) == (1, 1)
        store.ledger.append(refresh_at(self.analysis, 3), trace=self.digest, trace_label=hostile, trigger="manual",
                            requested_by=hostile)  # fmt: skip
        # An older version's JSONL ledger is adopted as it is: its type and generation may be anything.
        old = self.folder / "corrections.jsonl"
        entry = {"id": "adopted", "recorded_at": "2026-01-01T00:00:00+00:00", "trace": self.digest,
                 "trace_label": hostile, "generation": hostile, "trigger": "manual", "requested_by": hostile,
                 "correction": {"type": hostile, "source": hostile, "reason": hostile}}  # fmt: skip
        old.write_text(json.dumps(entry) + "\n")
        assert adopt_jsonl_ledger(store.ledger, old) == 1
        # What the guard recorded: its items quote the user, and the user may have written anything.
        item = RestoredItem(hostile, hostile, hostile, hostile, hostile)
        store.guard.record(GuardInjection(self.analysis.trace.id, 3, self.digest, hostile, (item,), hostile))
        return store

    def cli(self, *argv: str) -> str:
        """Run the command in this process; what reached the terminal, stdout and stderr."""
        self.capsys.readouterr()
        main(list(argv))
        captured = self.capsys.readouterr()
        return captured.out + captured.err

    @cached_property
    def scanned(self) -> tuple[str, str]:
        """(terminal output, CSV) of a scan of a folder whose one session is named by the payload."""
        sessions = self.folder / "sessions"
        sessions.mkdir()
        hostile_trace(self.payload, sessions / (self.payload.replace("/", "_") + ".json"))
        out = self.folder / "fleet.csv"
        return self.cli("scan", str(sessions), "--workers", "1", "--out", str(out)), out.read_bytes().decode()

    def import_errors(self) -> str:
        """`annotations import` of a record whose target has an unknown field named by the payload."""
        record = json.loads(self.store.annotations.export_jsonl(self.digest).splitlines()[0])
        record["id"] = "unknown-field"
        record["target"][self.payload] = 1
        path = self.folder / "import.jsonl"
        path.write_text(json.dumps(record) + "\n")
        return self.cli("annotations", "--db", f"sqlite:///{self.folder / 'other.db'}", "import", str(path))

    def ledger_jsonl(self) -> str:
        """`ledger export`: the JSONL lines, checked to read back to the very values recorded."""
        buffer = io.BytesIO()
        self.store.ledger.export_jsonl(buffer, self.digest)
        lines = buffer.getvalue().decode()
        assert any(json.loads(line)["requested_by"] == self.payload for line in lines.splitlines())
        return lines

    def unreadable(self) -> str:
        """`check` of an empty file named by the payload: the error line names the file."""
        path = self.folder / (self.payload.replace("/", "_") + ".json")
        path.write_bytes(b"")
        return self.cli("check", str(path))


# --- what each reader would meet ---------------------------------------------------------------


def csv_inert(output: tuple[str, set[str]], payload: str, quotes: bool) -> None:
    """No cell starts a formula, but a number (a negative one) in a numeric column; the payload is in some cell."""
    text, numeric = output
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    assert rows
    for row in rows:
        for column, cell in row.items():
            if cell.startswith(FORMULA_START):
                assert column in numeric and re.fullmatch(r"-?[0-9.e+-]+", cell), (column, cell)
    assert not quotes or any(payload in cell for row in rows for cell in row.values())


def live_markdown(line: str) -> str:
    """What of a Markdown line a renderer would interpret: code spans and backslash escapes taken out.

    A code span opens with a run of n backticks and closes at the next run of exactly n (CommonMark);
    an unclosed run is literal backticks.
    """
    live: list[str] = []
    i = 0
    while i < len(line):
        if line[i] == "\\" and i + 1 < len(line) and line[i + 1] in string.punctuation:
            i += 2
            continue
        if line[i] == "`":
            fence = re.match("`+", line[i:]).group()  # type: ignore[union-attr]
            close = re.compile(f"(?<!`){fence}(?!`)").search(line, i + len(fence))
            if close:
                i = close.end()
                continue
            live.append(fence)
            i += len(fence)
            continue
        live.append(line[i])
        i += 1
    return "".join(live)


def _table_blocks(lines: list[str]) -> list[list[str]]:
    blocks: list[list[str]] = []
    for previous, line in zip(["", *lines], lines, strict=False):
        if line.startswith("|"):
            if not previous.startswith("|"):
                blocks.append([])
            blocks[-1].append(line)
    return blocks


def markdown_inert(output: str, payload: str, quotes: bool) -> None:
    """No control or hidden character; no line the payload started; no table row with an extra cell; nothing
    outside code spans and escapes that makes a tag, an entity, a link, an image or an autolink."""
    assert not UNSAFE.search(output), UNSAFE.findall(output)
    lines = output.splitlines()
    _no_forged_line(lines, payload)
    for block in _table_blocks(lines):
        assert len({len(re.findall(r"(?<!\\)\|", row)) for row in block}) == 1, block
    for line in lines:
        live = live_markdown(line)
        assert not set("<>[]&") & set(live), (line, live)
        assert not re.search(r"javascript:|https?:|www\.", live, re.IGNORECASE), (line, live)
    _reached(output, payload, quotes)


def terminal_inert(output: str, payload: str, quotes: bool) -> None:
    """No escape sequence, control or hidden character, and no line the payload started."""
    assert not UNSAFE.search(output), UNSAFE.findall(output)
    _no_forged_line(output.splitlines(), payload)
    _reached(output, payload, quotes)


def _no_forged_line(lines: list[str], payload: str) -> None:
    if "\n" in payload:
        forged = payload.split("\n", 1)[1]
        assert not any(line.lstrip().startswith(forged) for line in lines), forged


def _reached(output: str, payload: str, quotes: bool) -> None:
    """Inert because escaped, not because the payload never got there."""
    if quotes:
        assert all(word in output for word in re.findall("[A-Za-z]{3,}", payload)), payload


# --- the writers ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Writer:
    name: str
    check: Callable[[Any, str, bool], None]
    write: Callable[[Case], Any]
    quotes: bool = True
    """False for a writer that prints no trace or reviewer text today (still checked, in case it starts)."""


SCAN_NUMBERS = {"generations", "errors", "warnings", "invariants", "invariants_lost", "anchor_density_first",
                "anchor_density_last", "anchor_density_trend", "size", "mtime_ns", "seconds"}  # fmt: skip

WRITERS = [
    Writer("annotations-csv", csv_inert,
           lambda c: (c.store.annotations.export_csv(c.digest), {"generation", "start", "end", "revisions"})),
    Writer("scan-csv", csv_inert, lambda c: (c.scanned[1], SCAN_NUMBERS)),
    Writer("review-markdown", markdown_inert,
           lambda c: markdown_report(c.analysis, c.store.annotations.for_trace(c.digest))),
    Writer("share-markdown", markdown_inert, lambda c: share_report(c.analysis, c.store, c.digest, "md")),
    Writer("check-text", terminal_inert, lambda c: c.cli("check", str(c.trace))),
    Writer("check-json", terminal_inert, lambda c: c.cli("check", "--json", str(c.trace))),
    Writer("check-unreadable", terminal_inert, lambda c: c.unreadable()),
    Writer("refresh-text", terminal_inert, lambda c: c.cli("refresh", str(c.trace), "--at", "3")),
    Writer("refresh-json", terminal_inert, lambda c: c.cli("refresh", str(c.trace), "--at", "3", "--json")),
    Writer("policies-text", terminal_inert, lambda c: c.cli("policies", str(c.trace)), quotes=False),
    Writer("scan-text", terminal_inert, lambda c: c.scanned[0]),
    Writer("annotations-import", terminal_inert, lambda c: c.import_errors()),
    Writer("annotations-jsonl", terminal_inert, lambda c: c.store.annotations.export_jsonl(c.digest).decode()),
    Writer("ledger-jsonl", terminal_inert, lambda c: c.ledger_jsonl()),
]  # fmt: skip


@pytest.mark.parametrize("payload", list(HOSTILE.values()), ids=list(HOSTILE))
@pytest.mark.parametrize("writer", WRITERS, ids=[w.name for w in WRITERS])
def test_writer_output_is_inert(writer: Writer, payload: str, tmp_path: Path, capsys: Any) -> None:
    writer.check(writer.write(Case(payload, tmp_path, capsys)), payload, writer.quotes)


def test_scan_csv_round_trip_is_lossless_with_hostile_titles(tmp_path: Path) -> None:
    """Titles that need the escape, titles that look like it already, and numbers that must stay numbers."""
    titles = [*HOSTILE.values(), "'=1", "''@x", "'-", "'tis", "'", "plain"]
    folder = tmp_path / "sessions"
    folder.mkdir()
    for number, title in enumerate(titles):
        hostile_trace(title, folder / f"t{number}.json")
    (folder / "decay.json").write_bytes((SAMPLES / "anchor_decay.json").read_bytes())
    rows = scan([folder]).rows
    out = tmp_path / "fleet.csv"
    write_rows(rows, out)
    assert read_rows(out) == rows
    written = list(csv.DictReader(out.open(newline="")))
    assert list(written[0]) == list(COLUMNS)
    by_title = {row["title"] for row in written}
    escaped = ("'=HYPERLINK(", "'+1", "'-2+3", "'@SUM(", "'\t=1", "'\r=1", "''=1", "'''@x", "''-")
    assert all(any(title.startswith(start) for title in by_title) for start in escaped), by_title
    assert {"'tis", "'", "plain", "txt\u202egpj.exe"} <= by_title  # nothing to escape: written as they are
    assert any(row["anchor_density_trend"].startswith("-") for row in written)  # a negative number, not escaped
