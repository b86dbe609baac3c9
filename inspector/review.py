"""The review workflow over an analysis: which findings are reviewed, the queue, inline marks, report.

Plain functions of (analysis, annotations) so the pages stay thin and the CLI can write the same
Markdown report the app offers.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from inspector.analysis import Analysis
from inspector.inert import markdown_code, markdown_text
from inspector.model import Finding, finding_id
from inspector.render import Highlight

if TYPE_CHECKING:  # the store's records as data: importing the store (SQLAlchemy) cost `report --no-store` 0.55 s
    from inspector.store.annotations import Annotation

_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


def latest_by_finding(annotations: Iterable[Annotation]) -> dict[str, Annotation]:
    """The most recently revised annotation of each finding."""
    latest: dict[str, Annotation] = {}
    for annotation in annotations:
        key = annotation.target.finding_id
        if key and (key not in latest or annotation.current.created_at > latest[key].current.created_at):
            latest[key] = annotation
    return latest


@dataclass(frozen=True, slots=True)
class Queue:
    findings: tuple[Finding, ...]
    """Every finding the filters keep, in review order."""
    reviewed: frozenset[str]
    """Ids of those that carry an annotation."""

    @property
    def next(self) -> Finding | None:
        return next((f for f in self.findings if finding_id(f) not in self.reviewed), None)

    @property
    def progress(self) -> str:
        done = sum(1 for f in self.findings if finding_id(f) in self.reviewed)
        return f"{done} of {len(self.findings)} reviewed"


def review_queue(
    analysis: Analysis,
    annotations: Iterable[Annotation],
    rules: Sequence[str] = (),
    severities: Sequence[str] = (),
) -> Queue:
    """Findings in order (generation, then severity), filtered; annotated ones count as reviewed."""
    kept = [
        f for f in analysis.findings
        if (not rules or f.rule in rules) and (not severities or f.severity.value in severities)
    ]  # fmt: skip
    kept.sort(key=lambda f: (f.generation if f.generation is not None else -1, _SEVERITY_ORDER[f.severity.value]))
    ids = {finding_id(f) for f in kept}
    return Queue(tuple(kept), frozenset(set(latest_by_finding(annotations)) & ids))


def annotation_highlights(analysis: Analysis, annotations: Iterable[Annotation], generation: int) -> list[Highlight]:
    """Marks for the annotations that point into a generation's text (spans, and findings with spans)."""
    annotations = tuple(annotations)
    if not annotations:  # a report with no reviews: every generation's findings were keyed for nothing
        return []
    text = analysis.trace.generations[generation].text or ""
    spans = {finding_id(f): (f.start, f.end) for f in analysis.findings_for(generation) if f.start is not None}
    marks = []
    for annotation in annotations:
        target = annotation.target
        where: tuple[int, int] | None = None
        if target.kind == "span" and target.generation == generation:
            from inspector.store.annotations import reanchor  # here: a report without one never loads the store

            where = reanchor(target, text)
        elif target.kind == "finding" and target.finding_id in spans:
            where = spans[target.finding_id]  # type: ignore[assignment]
        if where is not None:
            why = f"{annotation.label} by {annotation.current.reviewer}: {annotation.current.comment}".rstrip(": ")
            marks.append(Highlight(where[0], where[1], "annotated", why))
    return marks


def markdown_report(analysis: Analysis, annotations: Sequence[Annotation]) -> str:
    """A review report for one trace, ready to paste into an issue: verdict, findings, reviews."""
    trace = analysis.trace
    by_finding = latest_by_finding(annotations)
    lines = [
        f"# Review: {markdown_text(trace.title or trace.id)}",  # prose, escaped: a heading, not code
        "",
        f"- format: {trace.format}; generations: {len(trace.generations)}; verdict: **{analysis.verdict.upper()}**",
        f"- {review_queue(analysis, annotations).progress}",
        "",
        "| generation | severity | rule | finding | review |",
        "| --- | --- | --- | --- | --- |",
    ]
    for finding in analysis.findings:
        annotation = by_finding.get(finding_id(finding))
        review = (f"{markdown_text(annotation.label)} ({markdown_code(annotation.current.reviewer)}): "
                  f"{markdown_code(annotation.current.comment) if annotation.current.comment else ''}"
                  if annotation else "unreviewed")  # fmt: skip
        where = f"S{finding.generation}" if finding.generation is not None else "-"
        cells = [where, finding.severity.value, f"`{finding.rule}`", markdown_code(finding.message), review]
        # GitHub tables split on '|' even inside code spans; an escaped pipe stays in its cell.
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    others = [a for a in annotations if a.target.kind != "finding"]
    if others:
        lines += ["", "## Other annotations", ""]
        for a in others:
            generation = markdown_text(str(a.target.generation))  # an imported record's is not checked
            places = {"span": f"S{generation} span", "generation": f"S{generation}",
                      "invariant": f"invariant {markdown_code(a.target.invariant_id or '')}"}  # fmt: skip
            place = places.get(a.target.kind, a.target.kind)
            quote = f" — {markdown_code(a.target.quoted_text)}" if a.target.quoted_text else ""
            lines.append(f"- {place}{quote}: **{markdown_text(a.label)}** by {markdown_code(a.current.reviewer)}"
                         + (f": {markdown_code(a.current.comment)}" if a.current.comment else ""))  # fmt: skip
    return "\n".join(lines) + "\n"


__all__ = ["annotation_highlights", "latest_by_finding", "markdown_report", "review_queue"]
