"""Table-shaped views of an analysis for the app and reports: plain rows, no UI library.

Pages turn these rows into dataframes and charts; keeping the shaping here means it is tested once
and the pages hold no analysis logic.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from inspector.analysis import Analysis
from inspector.anchors import AnchorStatus
from inspector.facts import InvariantTrack
from inspector.guard_pending import AFTER, BEFORE
from inspector.inert import visible
from inspector.invariants import PRESENT, PRESERVATION_WEIGHT, InvariantStatus
from inspector.model import Finding, finding_id
from inspector.refresh import Correction
from inspector.text import clip

if TYPE_CHECKING:  # the store's records as data: importing it (SQLAlchemy) cost `report --no-store` 0.55 s
    from inspector.store.annotations import Annotation
    from inspector.store.guard_log import GuardInjection, RestoredItem


def generation_rows(analysis: Analysis) -> list[dict[str, Any]]:
    """One row per generation: what the chain view shows on each node and charts across the chain."""
    facts = analysis.facts
    rows = []
    for g in facts.generations:
        k = g.generation.index
        present = [t for t in facts.invariants if t.statuses[k] in PRESENT]
        depths = [d for t in facts.invariants if (d := t.depths[k]) is not None]
        rows.append(
            {
                "generation": k,
                "label": g.generation.label,
                "kind": g.generation.kind,
                "trigger": g.generation.trigger,
                "tokens_before": g.generation.tokens_before,
                "tokens_after": g.generation.tokens_after,
                "refreshed": g.generation.refreshed,
                "text_available": g.generation.text is not None,
                "anchor_density": g.density,
                "anchors": len(g.anchors),
                "unresolved_anchors": len(g.anchors_with(AnchorStatus.UNRESOLVED)),
                "ambiguous_anchors": len(g.anchors_with(AnchorStatus.AMBIGUOUS)),
                "elisions": len(g.elisions),
                "orphaned_elisions": sum(1 for e in g.elisions if e.orphaned),
                "claims": len(g.claims),
                "invariants_present": len(present),
                "invariants_lost": sum(1 for t in facts.invariants if t.statuses[k] is InvariantStatus.LOST),
                "invariants_weakened": sum(
                    1 for t in facts.invariants if t.statuses[k] is InvariantStatus.WEAKENED
                ),
                "source_fidelity": facts.source_fidelity[k],
                "local_fidelity": facts.local_fidelity[k],
                "max_depth": max(depths, default=None),
                "mean_depth": sum(depths) / len(depths) if depths else None,
                "errors": sum(1 for f in analysis.findings_for(k) if f.severity.value == "error"),
                "warnings": sum(1 for f in analysis.findings_for(k) if f.severity.value == "warning"),
                "collapsed": any(f.rule == "summary-collapse" for f in analysis.findings_for(k)),
            }
        )
    return rows


@dataclass(frozen=True, slots=True)
class ChainChart:
    """One line chart across the chain: long-form points, or the sentence shown when there are none."""

    points: list[dict[str, Any]]
    """(generation, measure, value) rows; generations where a measure is undefined are left out."""
    nothing_to_chart: str
    """What an empty chart would have meant, said in words instead of drawn as bare axes."""


_CHAIN_CHARTS: dict[str, tuple[dict[str, str], str]] = {
    "debt": (
        {"max_depth": "deepest invariant", "mean_depth": "mean"},
        "Nothing to chart: compaction debt counts how many summaries an invariant has passed through since it "
        "was last read from source, and no generation of this trace carries an invariant.",
    ),
    "density": (
        {"anchor_density": "anchor density"},
        "Nothing to chart: anchor density is anchors ÷ (anchors + vague references) in a generation's text, "
        "and no generation of this trace has text with either.",
    ),
    "fidelity": (
        {"local_fidelity": "parent→child", "source_fidelity": "source→current"},
        "Nothing to chart: fidelity is the share of invariants a generation keeps (of its parent's, and of "
        "the source's), and no generation of this trace carries an invariant to keep.",
    ),
}
"""The chain view's line charts: generation_rows columns (with the legend's name for each) and their empty case."""


def chain_chart(rows: Iterable[dict[str, Any]], chart: str) -> ChainChart:
    """Points of one chain chart ("debt", "density" or "fidelity") from `generation_rows`."""
    measures, nothing = _CHAIN_CHARTS[chart]
    points = [
        {"generation": row["generation"], "measure": name, "value": row[column]}
        for row in rows
        for column, name in measures.items()
        if row[column] is not None
    ]
    return ChainChart(points, nothing)


def survival_by_kind(analysis: Analysis) -> list[dict[str, Any]]:
    """Long-form rows (generation, kind, status, count) for the invariant-survival chart."""
    counts: dict[tuple[int, str, str], int] = {}
    for track in analysis.facts.invariants:
        for k, status in enumerate(track.statuses):
            key = (k, track.invariant.kind.value, status.value)
            counts[key] = counts.get(key, 0) + 1
    return [
        {"generation": k, "kind": kind, "status": status, "count": n} for (k, kind, status), n in sorted(counts.items())
    ]


def _shown(text: str | None) -> str | None:
    return visible(text) if text is not None else None


def finding_rows(analysis: Analysis) -> list[dict[str, Any]]:
    return [
        {
            "id": finding_id(f),
            "generation": f.generation,
            "severity": f.severity.value,
            "rule": f.rule,
            "message": visible(f.message),
            "start": f.start,
            "end": f.end,
        }
        for f in analysis.findings
    ]


def find_finding(analysis: Analysis, wanted: str) -> Finding | None:
    return next((f for f in analysis.findings if finding_id(f) == wanted), None)


def invariant_matrix(analysis: Analysis) -> list[dict[str, Any]]:
    """Invariants × generations: one row per invariant, one `S<k>` column per generation."""
    rows = []
    for track in analysis.facts.invariants:
        invariant = track.invariant
        row: dict[str, Any] = {"id": invariant.id, "kind": invariant.kind.value, "text": visible(invariant.text)}
        for k, status in enumerate(track.statuses):
            row[f"S{k}"] = status.value
        rows.append(row)
    return rows


@dataclass(frozen=True, slots=True)
class ManifestChange:
    invariant_id: str
    kind: str
    text: str
    change: str
    """added, kept, changed, lost or retired."""
    before: str | None
    after: str


def manifest_diff(analysis: Analysis, k: int) -> list[ManifestChange]:
    """What Sₖ's effective manifest did relative to its parent's: added, kept, changed, lost, retired."""
    generation = analysis.facts.generations[k].generation
    parent = generation.parent
    changes = []
    for track in analysis.facts.invariants:
        after = track.statuses[k]
        before = track.statuses[parent] if parent is not None else None
        change = _change(before, after)
        if change is not None:
            changes.append(
                ManifestChange(
                    track.invariant.id,
                    track.invariant.kind.value,
                    visible(track.invariant.text),
                    change,
                    before.value if before else None,
                    after.value,
                )
            )
    return changes


def _change(before: InvariantStatus | None, after: InvariantStatus) -> str | None:
    if after is InvariantStatus.RETIRED:
        return None if before is InvariantStatus.RETIRED else "retired"
    if after is InvariantStatus.NOT_INTRODUCED or after is InvariantStatus.UNKNOWN:
        return None
    was_present = before in PRESENT
    if after is InvariantStatus.LOST:
        return "lost" if was_present else None
    if not was_present:
        return "added"
    return "kept" if PRESERVATION_WEIGHT[after] >= PRESERVATION_WEIGHT[before] else "changed"  # type: ignore[index]


@dataclass(frozen=True, slots=True)
class LineageStep:
    generation: int
    status: str
    wording: str | None
    reason: str
    depth: int | None
    first_break: bool
    """True at the generation where the invariant was first weakened or lost."""


def lineage(track: InvariantTrack) -> list[LineageStep]:
    """An invariant's wording in every generation, with the first weakening or loss marked."""
    first_break = next(
        (k for k, s in enumerate(track.statuses) if s in (InvariantStatus.WEAKENED, InvariantStatus.LOST)), None
    )
    return [
        LineageStep(k, m.status.value, m.matched_text, m.reason, track.depths[k], k == first_break)
        for k, m in enumerate(track.matches)
    ]


def correction_rows(corrections: Iterable[Correction]) -> list[dict[str, Any]]:
    return [
        {"type": c.type.value, "invariant": c.invariant_id, "kind": c.kind, "inherited": _shown(c.inherited),
         "source": _shown(c.source), "source key": c.source_key, "why": visible(c.reason)}
        for c in corrections
    ]  # fmt: skip


def debt_comparison(original: Analysis, refreshed: Analysis) -> list[dict[str, Any]]:
    """Per generation, max compaction debt and findings with and without the refresh."""
    before, after = generation_rows(original), generation_rows(refreshed)
    return [
        {"generation": a["generation"], "max depth (chain)": a["max_depth"], "max depth (refreshed)": b["max_depth"],
         "findings (chain)": a["errors"] + a["warnings"], "findings (refreshed)": b["errors"] + b["warnings"]}
        for a, b in zip(before, after, strict=True)
    ]  # fmt: skip


def annotation_rows(annotations: Iterable[Annotation]) -> list[dict[str, Any]]:
    return [
        {"label": visible(a.label), "target": a.target.kind, "generation": a.target.generation,
         "quoted": _shown(a.target.quoted_text), "finding": a.target.finding_id, "invariant": a.target.invariant_id,
         "comment": visible(a.current.comment), "reviewer": visible(a.current.reviewer),
         "revisions": len(a.revisions), "updated": a.current.created_at}
        for a in annotations
    ]  # fmt: skip


SOURCE_QUOTE_CHARS = 80
"""A table cell shows this much of a source quote; the full quote is in the finding's evidence block."""


def finding_rows_with_source(analysis: Analysis) -> list[dict[str, Any]]:
    """`finding_rows` plus the log record each finding is about and its quote, clipped for a table cell."""
    return [
        row
        | {
            "source key": f.source.key if f.source is not None else None,
            "source quote": visible(clip(f.source.quote, SOURCE_QUOTE_CHARS)) if f.source is not None else None,
        }
        for row, f in zip(finding_rows(analysis), analysis.findings, strict=True)
    ]


# --- what happened next -----------------------------------------------------------------------------

LOST_ITEM_CHARS = 160
"""A consequence row quotes this much of the lost item; the finding's message and evidence have the rest."""


@dataclass(frozen=True, slots=True)
class ConsequenceLink:
    """One consequence as the chain and generation views show it: from the summary that lost an item to the later
    record where the next agent broke, retried or redid it, or the user said it again. Text fields are the
    trace's own: `render` escapes them and marks their hidden characters, `line` spells them."""

    generation: int
    """The summary that lost (or weakened) the item, which the agent worked from."""
    finding: str
    """The loss finding's id (`model.finding_id`)."""
    rule: str
    lost: str
    """The lost item in the log's words, clipped to `LOST_ITEM_CHARS`."""
    kind: str
    """violated, restated, re-asked, retried or redone."""
    record: str
    """The later record's key."""
    position: int | None
    """That record's place in the log (1 = the first record), when the log has it."""
    quote: str
    why: str

    @property
    def line(self) -> str:
        """'S2 lost “…” → record K: violated, the agent ran …': the link in one line of text."""
        return visible(f"S{self.generation} lost “{self.lost}” → record {self.record}: {self.kind}, {self.why}")


def consequence_links(analysis: Analysis) -> list[ConsequenceLink]:
    """Every loss finding with a consequence, in the findings' order (`inspector.consequences`)."""
    facts = analysis.facts
    tracks = {t.invariant.id: t for t in facts.invariants}
    links = []
    for f in analysis.findings:
        then = f.consequence
        if then is None:
            continue
        track = tracks.get(then.invariant or "")
        lost = track.invariant.text if track is not None else f.message
        position = facts.log_positions.get(then.key)
        links.append(ConsequenceLink(
            then.generation, finding_id(f), f.rule, clip(lost, LOST_ITEM_CHARS), then.kind.value, then.key,
            position + 1 if position is not None else None, then.quote, then.why,
        ))  # fmt: skip
    return links


def consequence_link(links: Iterable[ConsequenceLink], finding: Finding) -> ConsequenceLink | None:
    """The link of one finding, for the generation view's list and evidence."""
    wanted = finding_id(finding)
    return next((link for link in links if link.finding == wanted), None)


def first_consequence(sessions: Iterable[tuple[str, Callable[[], Analysis]]]) -> tuple[str, ConsequenceLink] | None:
    """The first consequence of the first session (name, its analysis, made only when reached) that has one: the
    guided story's example from a real session, with the session's name for its provenance."""
    for name, analysed in sessions:
        links = consequence_links(analysed())
        if links:
            return name, links[0]
    return None


# --- the guard ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GuardMark:
    """What the guard gave back at one summary, the refresh that was performed there, not simulated; or, for the
    hook `BEFORE`, the list it gave the compactor that wrote the summary."""

    generation: int
    injections: tuple[GuardInjection, ...]
    """Every run of the guard at this summary, oldest first (normally one)."""
    event: str = AFTER

    @property
    def latest(self) -> GuardInjection:
        """The last run: a repeated run re-checked the same summary, and this is what the agent read last."""
        return self.injections[-1]

    @property
    def items(self) -> tuple[RestoredItem, ...]:
        return self.latest.items

    @property
    def label(self) -> str:
        n = len(self.items)
        if self.event == BEFORE:
            return f"before S{self.generation}, the guard asked the compactor to keep {n} item{'' if n == 1 else 's'}"
        return f"guard restored {n} item{'' if n == 1 else 's'} at S{self.generation}"


def guard_marks(analysis: Analysis, injections: Iterable[GuardInjection], event: str = AFTER) -> dict[int, GuardMark]:
    """The guard's injections on this trace at one of its hooks, by the generation each checked (`AFTER`) or was
    about to be written (`BEFORE`).

    An injection belongs to the trace whose id is its session id (the transcript grows after the guard
    ran, so its content hash does not match); one that names a generation this chain does not have
    (the file was cut short, or another trace shares the id) marks nothing. Generations without a mark
    keep the simulated source refresh.
    """
    count = len(analysis.trace.generations)
    by_generation: dict[int, list[GuardInjection]] = {}
    for injection in injections:
        if injection.event == event and injection.session_id == analysis.trace.id and 0 < injection.generation < count:
            by_generation.setdefault(injection.generation, []).append(injection)
    return {k: GuardMark(k, tuple(found), event) for k, found in sorted(by_generation.items())}


CELL_CHAR_PX = 8
"""A generous width of one character in the app's tables (14 px Source Sans): a column sized by it is not cut."""
CELL_PADDING_PX = 28
LONG_TEXT_PX = 440
"""The widest a text column is drawn; a longer value wraps onto the lines of a taller row instead."""
TABLE_PX = 800
"""The width every table is laid out to fit: the main area at 1280 px with the sidebar open is 820 px. Streamlit
grows the columns to fill a wider one."""
ROW_MARKER_PX = 34
"""The checkbox column Streamlit adds to a table whose rows can be selected."""
NARROWEST_TEXT_PX = 160
"""No text column is narrowed below this to make a table fit; one that is wraps its text instead."""
LINE_PX = 20
ROW_PADDING_PX = 12
"""A table row is LINE_PX per line of text plus this: three lines in 72 px (Streamlit wraps only above 64)."""
MOST_LINES = 6
"""The tallest a row grows: a longer value is cut there (a cell shows its whole value when opened)."""


@dataclass(frozen=True, slots=True)
class TableLayout:
    """How wide to draw each column of a table so that it fits `TABLE_PX` and its values can be read, and how
    tall its rows must be for the text that had to wrap."""

    widths: dict[str, int]
    wraps: bool
    """Some text is wider than its column: rows are `row_height` tall so it wraps."""
    row_height: int | None = None


def _cell_text(value: object) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def table_layout(columns: dict[str, list[object]], room_px: int = TABLE_PX) -> TableLayout:
    """Widths for a table's shown columns (header → values, a missing value None) within `room_px`.

    Each column is as wide as its longest value or header, a text column at most LONG_TEXT_PX. When they add up
    to more than the room, the widest columns of prose give way first (cut to one width, never below
    NARROWEST_TEXT_PX) and rows grow to wrap what no longer fits; names are never narrowed. A table with more
    columns of names and numbers than that can make room for keeps its widths and scrolls sideways.
    """
    needed, text, prose = {}, set(), set()
    for header, values in columns.items():
        shown = [_cell_text(v) for v in values if v is not None]
        needed[header] = max([len(header), *map(len, shown)]) * CELL_CHAR_PX + CELL_PADDING_PX
        if all(isinstance(v, str) for v in values if v is not None):
            text.add(header)
            if any(" " in v for v in shown):
                prose.add(header)
    widths = {h: min(n, LONG_TEXT_PX) if h in text else n for h, n in needed.items()}
    # A cell wraps only between words, so only prose gives way: a name without a space (a rule, a file) would be
    # cut. A table that would not fit even then keeps its widths and scrolls, rather than cramp its prose too.
    excess = sum(widths.values()) - room_px
    narrowable = {h: w for h, w in widths.items() if h in prose and w > NARROWEST_TEXT_PX}
    if 0 < excess <= sum(w - NARROWEST_TEXT_PX for w in narrowable.values()):
        widths |= _narrowed(narrowable, excess)
    lines = max([-(-(needed[h] - CELL_PADDING_PX) // (widths[h] - CELL_PADDING_PX)) for h in text] or [1])
    if lines <= 1:
        return TableLayout(widths, False)
    return TableLayout(widths, True, max(3, min(lines, MOST_LINES)) * LINE_PX + ROW_PADDING_PX)


def _narrowed(widths: dict[str, int], excess: int) -> dict[str, int]:
    """The widest columns cut down to one level, as far as it takes to give up `excess` px."""
    level = max(widths.values())
    while sum(max(0, w - level) for w in widths.values()) < excess:
        level -= 1
    return {h: min(w, level) for h, w in widths.items()}


__all__ = ["AFTER", "BEFORE", "CELL_CHAR_PX", "CELL_PADDING_PX", "ChainChart", "ConsequenceLink", "GuardMark",
           "LINE_PX",
           "LONG_TEXT_PX", "LOST_ITEM_CHARS", "MOST_LINES", "NARROWEST_TEXT_PX", "ROW_MARKER_PX", "ROW_PADDING_PX",
           "TABLE_PX", "annotation_rows", "chain_chart", "consequence_link", "consequence_links", "correction_rows",
           "debt_comparison", "find_finding", "finding_rows", "finding_rows_with_source", "first_consequence",
           "generation_rows", "guard_marks", "invariant_matrix", "lineage", "manifest_diff", "survival_by_kind",
           "table_layout"]  # fmt: skip
