"""Reports to share outside the app: one self-contained HTML file, or Markdown for an issue.

The HTML has its styles inline, no script and no URL to fetch; every string from the trace (and
from reviewers) is escaped by the same render functions the app uses. The Markdown puts trace text
in code spans and backslash-escapes every other field (`inspector.inert`), so nothing in it can
become a link, an image or markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from inspector.analysis import Analysis
from inspector.inert import markdown_code, markdown_text
from inspector.model import finding_id
from inspector.render import (
    STYLE,
    attribute_html,
    finding_targets,
    findings_html,
    highlight_html,
    highlights,
    matrix_html,
    text_html,
)
from inspector.review import annotation_highlights, latest_by_finding, markdown_report
from inspector.views import GuardMark, consequence_links, generation_rows, guard_marks, invariant_matrix

if TYPE_CHECKING:  # the store's records as data: importing it (SQLAlchemy) cost `report --no-store` 0.55 s
    from inspector.store.annotations import Annotation
    from inspector.store.guard_log import GuardInjection
    from inspector.store.ledger import LedgerEntry

_REPORT_STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2rem auto;max-width:1100px;
  color:#111;padding:0 1rem}
h1{font-size:1.5rem}h2{margin-top:2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}
.verdict-fail{color:#b71c1c}.verdict-pass{color:#2e7d32}
.chain{display:flex;flex-wrap:wrap;gap:.4rem;align-items:center}
.node{border:1px solid #999;border-radius:8px;padding:.4rem .6rem;font-size:.8rem;line-height:1.35;min-width:7rem}
.node.err{background:#ffcdd2}.node.warn{background:#fff3e0}.node.ok{background:#e8f5e9}
.node.refreshed,.node.guarded{outline:3px double #1565c0}.node.collapsed{border:3px solid #b71c1c}
.arrow{color:#555}
table.plain{border-collapse:collapse;font-size:.85rem;margin:.5rem 0}
table.plain td,table.plain th{border:1px solid #ddd;padding:3px 6px;vertical-align:top;text-align:left}
details{margin:.6rem 0}summary{cursor:pointer;font-weight:600}
"""


def _e(value: object) -> str:
    return text_html("" if value is None else str(value))


def _table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="plain"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _chain(analysis: Analysis, guard: dict[int, GuardMark]) -> str:
    nodes = []
    for row in generation_rows(analysis):
        mark = guard.get(row["generation"])
        state = "err" if row["errors"] else "warn" if row["warnings"] else "ok"
        density = "-" if row["anchor_density"] is None else f"{row['anchor_density']:.2f}"
        lines = [
            f"<b>S{row['generation']}</b> {_e(row['kind'])}" + (" (refreshed)" if row["refreshed"] else ""),
            f"{_e(row['trigger'] or '')} {_e(row['tokens_before'] or '?')} → {_e(row['tokens_after'] or '?')} tokens",
            f"density {density}",
            f"{row['unresolved_anchors']} unresolved · {row['invariants_lost']} lost",
        ] + (["<b>collapsed</b>"] if row.get("collapsed") else []) + ([f"<b>{_e(mark.label)}</b>"] if mark else [])
        refreshed = (" refreshed" if row["refreshed"] else "") + (" collapsed" if row.get("collapsed") else "")
        refreshed += " guarded" if mark else ""
        nodes.append(f'<div class="node {state}{refreshed}" id="node-S{row["generation"]}">{"<br>".join(lines)}</div>')
    events = "".join(
        f"<li>after S{e.after_generation}: {_e(e.kind)} {_e(e.description)}</li>" for e in analysis.trace.events
    )
    chain = '<span class="arrow">→</span>'.join(nodes)
    return f'<div class="chain">{chain}</div>' + (f"<p>Events:</p><ul>{events}</ul>" if events else "")


def _review(annotation: Annotation | None) -> str:
    """A finding's review as the findings table shows it: label, reviewer and the reviewer's comment."""
    if annotation is None:
        return ""
    comment = annotation.current.comment
    return f"{annotation.label} ({annotation.current.reviewer})" + (f": {comment}" if comment else "")


def _guard_html(injections: Sequence[GuardInjection]) -> str:
    """Each injection: the summary it checked, when, the items given back and the exact text the agent read."""
    parts = []
    for injection in injections:
        rows = [[item.rule, item.kind, item.text, item.source_key, item.said_at] for item in injection.items]
        printed = f'<div class="ci-text">{_e(injection.text)}</div>'
        parts.append(f"<p><b>S{injection.generation}</b> · {_e(injection.created_at)} · "
                     f"{len(injection.items)} items restored</p>"
                     + _table(["rule", "kind", "given back", "record", "said at"], rows)
                     + f"<details><summary>What the agent read</summary>{printed}</details>")  # fmt: skip
    return "".join(parts)


def html_report(
    analysis: Analysis,
    annotations: Sequence[Annotation] = (),
    corrections: Sequence[LedgerEntry] = (),
    guard: Sequence[GuardInjection] = (),
) -> str:
    """One self-contained HTML page: chain, verdict, findings, every generation, manifest, reviews, the guard's
    injections (oldest first, as `GuardLog.for_session` gives them)."""
    return "".join(html_report_pieces(analysis, annotations, corrections, guard))


def html_report_pieces(
    analysis: Analysis,
    annotations: Sequence[Annotation] = (),
    corrections: Sequence[LedgerEntry] = (),
    guard: Sequence[GuardInjection] = (),
) -> list[str]:
    """`html_report`'s page in the pieces it is built from, in order: a writer that encodes and writes them one by
    one holds the page once, in these pieces, never joined nor as bytes (a summary-heavy session's is tens of
    megabytes)."""
    trace = analysis.trace
    title = trace.title or trace.id
    by_finding = latest_by_finding(annotations)
    finding_table = _table(
        ["generation", "severity", "rule", "finding", "review"],
        [
            [f"S{f.generation}" if f.generation is not None else "-", f.severity.value, f.rule, f.message,
             _review(by_finding.get(finding_id(f))) if by_finding else ""]  # no review: no id to look up
            for f in analysis.findings
        ],
    )  # fmt: skip
    generations: list[str] = []  # pieces of the page, not joined here: each join of a long session's is a copy of it
    links = consequence_links(analysis)
    for k, generation in enumerate(trace.generations):
        text = generation.text
        body = (
            highlight_html(text, highlights(analysis, k) + annotation_highlights(analysis, annotations, k),
                           targets=finding_targets(analysis, k))  # fmt: skip
            if text is not None
            else "<p><i>Text unavailable.</i></p>"
        )
        generations += (f'<details{" open" if k else ""} id="S{k}"><summary>S{k} · {_e(generation.kind)} · '
                        f"{len(analysis.findings_for(k))} findings</summary>", body, findings_html(analysis, k, links),
                        "</details>")  # fmt: skip
    other = [a for a in annotations if a.target.kind != "finding"]
    sections = [
        f"<h1>Compaction report: {_e(title)}</h1>",
        f"<p>{_e(trace.format)} · {len(trace.generations)} generations · verdict "
        f'<b class="verdict-{analysis.verdict}">{analysis.verdict.upper()}</b> · {len(analysis.findings)} findings</p>',
        "<h2>Chain</h2>", _chain(analysis, guard_marks(analysis, guard)),
        "<h2>Findings</h2>", finding_table,
        "<h2>Generations</h2>", *generations,
        "<h2>Manifest</h2>",
        matrix_html(invariant_matrix(analysis), len(trace.generations)) if analysis.facts.invariants
        else "<p>No invariants.</p>",
    ]  # fmt: skip
    if other:
        sections += ["<h2>Other annotations</h2>", _table(
            ["target", "generation", "quoted", "invariant", "label", "reviewer", "comment"],
            [[a.target.kind, a.target.generation, a.target.quoted_text, a.target.invariant_id, a.label,
              a.current.reviewer, a.current.comment] for a in other])]  # fmt: skip
    if corrections:
        fields = ("type", "invariant_id", "inherited", "source")
        rows = [[c.recorded_at, f"S{c.generation}", *(c.correction.get(f) for f in fields), c.requested_by]
                for c in corrections]  # fmt: skip
        sections += ["<h2>Corrections recorded by source refresh</h2>", _table(
            ["recorded", "generation", "type", "invariant", "inherited", "source", "requested by"], rows)]  # fmt: skip
    if guard:
        sections += ["<h2>Guard</h2>", "<p>What the guard gave back to the agent right after a compaction.</p>",
                     _guard_html(guard)]  # fmt: skip
    head = (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        # No script, no fetch: a CSP that forbids both, for readers that honour it.
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
        f"<title>{attribute_html(title)}</title><style>{STYLE}{_REPORT_STYLE}</style></head><body>"
    )
    return [head, *sections, "</body></html>\n"]


def markdown_full_report(
    analysis: Analysis,
    annotations: Sequence[Annotation] = (),
    corrections: Sequence[LedgerEntry] = (),
    guard: Sequence[GuardInjection] = (),
) -> str:
    """The review report plus the chain and manifest tables and the guard's injections, for pasting into an issue."""
    lines = [markdown_report(analysis, annotations).rstrip(), "", "## Chain", "",
             "| generation | kind | tokens | anchor density | unresolved | invariants lost |",
             "| --- | --- | --- | --- | --- | --- |"]  # fmt: skip
    marks = guard_marks(analysis, guard)
    for row in generation_rows(analysis):
        density = "-" if row["anchor_density"] is None else f"{row['anchor_density']:.2f}"
        kind = markdown_text(row["kind"]) + (" (refreshed)" if row["refreshed"] else "")
        if row["generation"] in marks:
            kind += f" ({marks[row['generation']].label})"
        lines.append(f"| S{row['generation']} | {kind} | "
                     f"{row['tokens_before'] or '?'} → {row['tokens_after'] or '?'} | {density} | "
                     f"{row['unresolved_anchors']} | {row['invariants_lost']} |")  # fmt: skip
    matrix = invariant_matrix(analysis)
    if matrix:
        count = len(analysis.trace.generations)
        lines += ["", "## Manifest", "", "| invariant | kind | " + " | ".join(f"S{k}" for k in range(count)) + " |",
                  "| --- | --- | " + " | ".join("---" for _ in range(count)) + " |"]  # fmt: skip
        for row in matrix:
            cells = [markdown_code(row["text"]).replace("|", "\\|"), row["kind"],
                     *(row[f"S{k}"] for k in range(count))]  # fmt: skip
            lines.append("| " + " | ".join(cells) + " |")
    if corrections:
        lines += ["", "## Corrections recorded by source refresh", ""]
        for c in corrections:
            wording = c.correction.get("source") or c.correction.get("inherited") or ""
            # An adopted JSONL ledger's entries are not checked: its type and generation may be anything.
            kind, generation = markdown_text(str(c.correction.get("type"))), markdown_text(str(c.generation))
            lines.append(f"- S{generation} **{kind}** {markdown_code(wording)}")
    if guard:
        lines += ["", "## Guard", "", "What the guard gave back to the agent right after a compaction.", ""]
        for injection in guard:
            lines.append(f"- S{injection.generation} at {markdown_text(injection.created_at)}: "
                         f"{len(injection.items)} items restored")  # fmt: skip
            for item in injection.items:
                record = f" (record {markdown_code(item.source_key)})" if item.source_key else ""
                said = f" said {markdown_text(item.said_at)}" if item.said_at else ""
                lines.append(f"  - **{markdown_text(item.rule)}** {markdown_text(item.kind)}{said}{record}: "
                             f"{markdown_code(item.text)}")  # fmt: skip
    return "\n".join(lines) + "\n"


class _Annotations(Protocol):
    def for_trace(self, trace_hash: str) -> list[Annotation]: ...


class _Ledger(Protocol):
    def entries(self, trace: str | None = None) -> list[LedgerEntry]: ...


class _GuardLog(Protocol):
    def for_session(self, session_id: str) -> list[GuardInjection]: ...


class ReviewRecords(Protocol):
    """What a report reads of a review store: `inspector.store.Store` is one; a test may pass its own.
    Typed by what is read, not by the class, so the report does not depend on how records are kept."""

    @property
    def annotations(self) -> _Annotations: ...

    @property
    def ledger(self) -> _Ledger: ...

    @property
    def guard(self) -> _GuardLog: ...


def share_report(analysis: Analysis, store: ReviewRecords | None, digest: str, fmt: str = "html") -> str:
    """The report with the reviews, corrections and guard injections a store holds for this trace (none without
    a store). Reviews and corrections are keyed by the content hash; the guard's by the trace's (session) id."""
    return "".join(share_report_pieces(analysis, store, digest, fmt))


def share_report_pieces(analysis: Analysis, store: ReviewRecords | None, digest: str, fmt: str = "html") -> list[str]:
    """`share_report` in pieces, in order (`html_report_pieces` says why)."""
    annotations = store.annotations.for_trace(digest) if store is not None else []
    corrections = store.ledger.entries(digest) if store is not None else []
    guard = store.guard.for_session(analysis.trace.id) if store is not None else []
    if fmt == "html":
        return html_report_pieces(analysis, annotations, corrections, guard)
    return [markdown_full_report(analysis, annotations, corrections, guard)]


__all__ = ["html_report", "html_report_pieces", "markdown_full_report", "share_report", "share_report_pieces"]
