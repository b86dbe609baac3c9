"""Source refresh: rebuild the typed invariant set from durable records and record what differed.

The third note's remedy for compaction debt: at a declared trigger, re-read the source records a
state descends from, rebuild its invariants under the same rules the detectors use, compare with
what the state inherited, and record each discrepancy as a correction. Nothing in the chain is
rewritten: the refreshed state S′ₖ is a new branch beside Sₖ.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from enum import StrEnum

from inspector.analysis import Analysis, analyze
from inspector.config import Config
from inspector.facts import InvariantTrack
from inspector.invariants import IndexedText, InvariantStatus, match_invariant, values_in
from inspector.model import PASTED_FOR, Invariant, SourceRecord, Trace
from inspector.statements import statement_kind
from inspector.text import clip, estimate_tokens


class CorrectionType(StrEnum):
    OMITTED = "omitted"
    """The source states it; the state does not carry it at all."""
    WEAKENED = "weakened"
    """The state carries the topic but lost the force (negation, condition, modal, value)."""
    SUPERSEDED = "superseded"
    """The state still carries a value that a later source record corrected."""
    CONTRADICTED = "contradicted"
    """The state gives the item a different value than its source."""
    UNSUPPORTED = "unsupported"
    """The state states a constraint that no source record it covers supports."""
    CORRUPTED = "corrupted"
    """The harness changed the state's text as it stored it: a copy of the summary's own analysis stands where the
    summary held "$`" (`inspector.readers.pasted_analysis`)."""


@dataclass(frozen=True, slots=True)
class Correction:
    """One discrepancy between what Sₖ inherited and what its sources say."""

    type: CorrectionType
    generation: int
    invariant_id: str | None
    kind: str | None
    inherited: str | None
    """The state's wording (None when it carries nothing)."""
    source: str | None
    """The source's wording (None for an unsupported statement)."""
    source_key: str | None
    reason: str = ""


@dataclass(frozen=True, slots=True)
class RefreshResult:
    generation: int
    rebuilt: tuple[Invariant, ...]
    """The typed invariant set rebuilt from the records Sₖ covers: S′ₖ's manifest."""
    corrections: tuple[Correction, ...]
    records_read: int
    tokens_read: int
    """Estimated tokens of the records re-read (`text.estimate_tokens`)."""


def refresh_at(analysis: Analysis, k: int) -> RefreshResult:
    """Compare Sₖ with its sources; one correction per discrepancy, none for a healthy state."""
    facts = analysis.facts
    trace = facts.trace
    generation = facts.generations[k].generation
    covered = set(generation.covers)
    records = [s for s in trace.sources if s.key in covered]
    tracks = [t for t in facts.invariants if t.statuses[k] is not InvariantStatus.NOT_INTRODUCED]
    rebuilt = tuple(t.invariant for t in tracks if t.statuses[k] is not InvariantStatus.RETIRED)
    corrections: list[Correction] = []
    if generation.kind == "summary" and generation.text is not None:
        corrections.extend(_corrupted(facts.generations[k].pasted, generation.text, k))
        superseded = list(_superseded(analysis, k))
        corrected = {c.source_key for c in superseded}
        corrections.extend(superseded)
        for track in tracks:
            if track.invariant.source_key in corrected:
                continue  # its relapse is already recorded as superseded
            correction = _compare(track, k)
            if correction is not None:
                corrections.append(correction)
        corrections.extend(_unsupported(analysis, k, records))
    relevant = {inv.source_key for inv in rebuilt}
    read = [s for s in records if s.key in relevant]
    return RefreshResult(k, rebuilt, tuple(corrections), len(read), sum(estimate_tokens(s.text) for s in read))


def _superseded(analysis: Analysis, k: int) -> Iterator[Correction]:
    """The `superseded-fact-resurfaced` detector's findings at k, as corrections."""
    trace = analysis.trace
    text = trace.generations[k].text or ""
    for finding in analysis.findings_for(k):
        if finding.rule != "superseded-fact-resurfaced":
            continue
        correction = trace.source(finding.evidence["correction"])
        yield Correction(
            CorrectionType.SUPERSEDED, k, f"correction:{correction.key}" if correction else None, "correction",
            text[finding.start : finding.end] if finding.start is not None else None,
            correction.text if correction else None, finding.evidence["correction"], finding.message,
        )  # fmt: skip


def _corrupted(pasted: tuple[tuple[int, int], ...], text: str, k: int) -> Iterator[Correction]:
    """Each copy the harness pasted into Sₖ, as the line it cut reads stored and as the summary wrote it."""
    for start, end in pasted:
        before = text[text.rfind("\n", 0, start) + 1 : start].lstrip()
        yield Correction(CorrectionType.CORRUPTED, k, None, None, f"{before}{clip(text[start:end], 40)}",
                         f"{before}{PASTED_FOR}", None, f"Claude Code pasted a copy of the summary's analysis "
                         f"({end - start:,} characters) where the summary held “{PASTED_FOR}”")  # fmt: skip


def _compare(track: InvariantTrack, k: int) -> Correction | None:
    invariant, match = track.invariant, track.matches[k]
    base = dict(generation=k, invariant_id=invariant.id, kind=invariant.kind.value, source_key=invariant.source_key)
    if match.status is InvariantStatus.LOST:
        return Correction(CorrectionType.OMITTED, inherited=None, source=invariant.text, reason=match.reason, **base)
    if match.status is InvariantStatus.WEAKENED:
        replaced = _replaced_value(match.matched_text, invariant.text)
        kind = CorrectionType.CONTRADICTED if replaced else CorrectionType.WEAKENED
        return Correction(kind, inherited=match.matched_text, source=invariant.text, reason=match.reason, **base)
    return None


def _replaced_value(wording: str | None, source: str) -> bool:
    """The state names a value of its own where the source's is missing: it says something else, not less.

    Decided from the values themselves, whatever matcher judged the item weakened and however it worded why.
    """
    if wording is None:
        return False
    said, stated = values_in(wording), values_in(source)
    return bool(stated - said) and bool(said - stated)


def _unsupported(analysis: Analysis, k: int, records: list[SourceRecord]) -> list[Correction]:
    """Constraint-like sentences in Sₖ that no covered record supports."""
    indexed = analysis.facts.generations[k].indexed
    if indexed is None:
        return []
    carried = {(m.start, m.end) for t in analysis.facts.invariants if (m := t.matches[k]).start is not None}
    sources = [IndexedText(s.text) for s in records]
    config = analysis.facts.config
    found = []
    for sentence in indexed.sentences:
        if (sentence.start, sentence.end) in carried or statement_kind(sentence.text) is None:
            continue
        supported = any(
            match_invariant(sentence.text, source, config=config).status is not InvariantStatus.LOST
            for source in sources
        )
        if not supported:
            found.append(Correction(CorrectionType.UNSUPPORTED, k, None, None, sentence.text, None, None,
                                    "no covered source record states this"))  # fmt: skip
    return found


def with_refresh(trace: Trace, k: int, result: RefreshResult) -> Trace:
    """The refreshed branch: Sₖ marked refreshed, carrying the rebuilt set as its manifest.

    Later generations keep their observed text; re-analysing this trace shows the debt the refresh
    would have cleared (depth resets at k) without pretending to know what later summaries would say.
    """
    generations = list(trace.generations)
    generations[k] = replace(generations[k], refreshed=True, manifest=result.rebuilt)
    return replace(trace, generations=tuple(generations))


def refresh_and_reanalyse(analysis: Analysis, k: int, config: Config | None = None) -> tuple[RefreshResult, Analysis]:
    """Refresh at Sₖ and analyse the refreshed branch with `config`, else with the thresholds `analysis` used."""
    result = refresh_at(analysis, k)
    return result, analyze(with_refresh(analysis.trace, k, result), config or analysis.facts.config)


__all__ = [
    "Correction", "CorrectionType", "RefreshResult", "refresh_and_reanalyse", "refresh_at", "with_refresh",
]  # fmt: skip
