"""The `check` report: a JSON document with a fixed top-level shape, and a readable text form."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inspector.analysis import Analysis
from inspector.authorship import author_at
from inspector.consequences import LOSS_RULES
from inspector.inert import terminal_text
from inspector.model import Consequence, ConsequenceKind, Severity, SourceQuote, SourceRecord
from inspector.text import clip, counted


def to_json(analysis: Analysis) -> dict[str, Any]:
    """Exactly: trace, format, generations, invariants, findings, verdict (documented in the README)."""
    facts = analysis.facts
    trace = facts.trace
    return {
        "trace": trace.path or trace.id,
        "format": trace.format,
        "generations": [
            {
                "index": g.generation.index,
                "kind": g.generation.kind,
                "anchor_density": g.density,
                "anchors": [
                    {"key": a.anchor.key, "status": str(a.status), "start": a.anchor.start, "end": a.anchor.end}
                    for a in g.anchors
                ],
                "anaphora": [
                    {"text": e.text, "start": e.start, "end": e.end, "orphaned": e.orphaned} for e in g.elisions
                ],
                "source_fidelity": facts.source_fidelity[g.generation.index],
                "local_fidelity": facts.local_fidelity[g.generation.index],
            }
            for g in facts.generations
        ],
        "invariants": [
            {
                "id": t.invariant.id,
                "kind": str(t.invariant.kind),
                "text": t.invariant.text,
                "source": t.invariant.source_key,
                "statuses": [str(s) for s in t.statuses],
                "depths": list(t.depths),
            }
            for t in facts.invariants
        ],
        "findings": [
            {
                "rule": f.rule,
                "severity": str(f.severity),
                "generation": f.generation,
                "message": f.message,
                "start": f.start,
                "end": f.end,
                "excerpt": f.excerpt,
                "source": _source(f.source, trace.sources, facts.log_positions) if f.source is not None else None,
                "consequence": _consequence(f.consequence, trace.sources, facts.log_positions),
            }
            for f in analysis.findings
        ],
        "verdict": analysis.verdict,
    }


def _consequence(then: Consequence | None, records: Sequence[SourceRecord],
                 positions: dict[str, int]) -> dict[str, Any] | None:  # fmt: skip
    """What happened next, as `check --json` gives it: the kind, the later record and its words, and the summary
    the agent worked from (the loss's generation), beside the finding's `source`, the earlier end."""
    if then is None:
        return None
    later = _source(SourceQuote(then.key, then.quote), records, positions)
    # Who acted: the user, saying it again, or the agent (a run's record is its tool result, whose author is the tool).
    later["author"] = "user" if then.kind is ConsequenceKind.RESTATED else "agent"
    return {"kind": str(then.kind), "generation": then.generation, "why": then.why, **later}


def _source(source: SourceQuote, records: Sequence[SourceRecord], positions: dict[str, int]) -> dict[str, Any]:
    """The record a finding is about, the sentence there, and who wrote that sentence (`inspector.authorship`):
    a reviewer sees at once whether "the user said" is the user's."""
    record = records[positions[source.key]] if source.key in positions else None
    author = None
    if record is not None and record.authority is not None:  # a store's record may name no author: say none
        found = record.text.find(source.quote)
        author = str(author_at(record, found) if found != -1 else record.author)
    return {"key": source.key, "quote": source.quote, "author": author}


_MARK = {
    "verbatim": "=", "paraphrased": "~", "weakened": "!", "lost": "x", "not-yet-introduced": ".", "unknown": "?",
    "retired": "-",
}  # fmt: skip


def to_text(analysis: Analysis, max_findings: int = 50) -> str:
    """A terminal report: chain summary, invariant matrix, findings, verdict; no control or hidden character."""
    facts = analysis.facts
    trace = facts.trace
    lines = [f"{trace.path or trace.id}  [{trace.format}]  {counted(len(facts.generations), 'generation')}", ""]
    header = ("gen", "kind", "density", "anchors (unresolved/ambiguous)", "anaphora (orphaned)", "fidelity src/local")
    rows = []
    for g in facts.generations:
        k = g.generation.index
        unresolved = sum(1 for a in g.anchors if a.status.value == "unresolved")
        ambiguous = sum(1 for a in g.anchors if a.status.value == "ambiguous")
        orphaned = sum(1 for e in g.elisions if e.orphaned)
        rows.append((
            f"S{k}", g.generation.kind, "-" if g.density is None else f"{g.density:.2f}",
            f"{len(g.anchors)} ({unresolved}/{ambiguous})", f"{len(g.elisions)} ({orphaned})",
            f"{_fmt(facts.source_fidelity[k])}/{_fmt(facts.local_fidelity[k])}"
            + ("" if g.generation.text is not None else "  (text unavailable)"),
        ))  # fmt: skip
    lines.extend(_columns(header, rows))
    if facts.invariants:
        lines.append("")
        lines.append("invariants  (= verbatim  ~ paraphrased  ! weakened  x lost  . not yet  ? unknown  - retired)")
        for track in facts.invariants[:40]:
            marks = "".join(_MARK[s.value] for s in track.statuses)
            text = clip(track.invariant.text, 70)
            lines.append(f"  {marks}  {track.invariant.kind}: {text}")
        if len(facts.invariants) > 40:
            lines.append(f"  … and {len(facts.invariants) - 40} more")
    lines.append("")
    counts = {s: sum(1 for f in analysis.findings if f.severity is s) for s in Severity}
    lines.append(f"findings: {counted(counts[Severity.ERROR], 'error')}, "
                 f"{counted(counts[Severity.WARNING], 'warning')}, {counts[Severity.INFO]} info")  # fmt: skip
    lost = [f for f in analysis.findings if f.rule in LOSS_RULES]
    if lost:
        followed = sum(1 for f in lost if f.consequence is not None)
        lines.append(f"consequences: {followed} of {counted(len(lost), 'loss', 'losses')} followed by one in the log")
    for finding in analysis.findings[:max_findings]:
        where = f"S{finding.generation}" if finding.generation is not None else "--"
        lines.append(f"  {where:<4} {finding.severity.value:<7} {finding.rule}: {finding.message}")
        if finding.consequence is not None:
            then = finding.consequence
            lines.append(f"{'':<15}then ({then.kind}): {then.why}, at record {then.key}: {clip(then.quote, 120)}")
    if len(analysis.findings) > max_findings:
        lines.append(f"  … and {len(analysis.findings) - max_findings} more (use --json for all)")
    lines.append("")
    lines.append(f"verdict: {analysis.verdict.upper()}")
    # Titles, paths, invariant texts and messages come from the trace: spelled, one line each.
    return "\n".join(terminal_text(line) for line in lines)


def _columns(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    """Each column as wide as its widest cell or header, so every value starts under its header."""
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=True)]
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
            for row in (header, *rows)]  # fmt: skip


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


__all__ = ["to_json", "to_text"]
