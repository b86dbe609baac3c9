"""The guided story for demos: one prohibition's life through a real chain, step by step.

Each step names the view to show, the generation, and the span to outline, all computed from the
analysis of the bundled sample, so the story shows what the tool actually finds (not screenshots)
and stays true if the detectors change.
"""

from __future__ import annotations

from dataclasses import dataclass

from inspector.analysis import Analysis
from inspector.facts import InvariantTrack
from inspector.invariants import InvariantStatus
from inspector.model import Finding, InvariantKind, finding_id
from inspector.statement_force import forbidding
from inspector.text import content_terms

SAMPLE = "staging_db_constraint.json"


@dataclass(frozen=True, slots=True)
class Step:
    title: str
    narration: str
    view: str
    """generation, manifest, refresh or review: which real view the step shows."""
    generation: int | None = None
    focus: tuple[int, int] | None = None
    """The span of that generation's text to outline."""
    finding: str | None = None
    """Id of the finding the step is about."""
    next_act: bool = False
    """The step about what the agent did once the rule was gone: the page quotes a real session's consequence
    beside the sample's (`views.first_consequence`), when one is at hand."""


def followed(analysis: Analysis) -> InvariantTrack:
    """The user's first constraint that forbids: the rule the story follows."""
    constraint = InvariantKind.USER_CONSTRAINT
    return next(t for t in analysis.facts.invariants
                if t.invariant.kind is constraint and forbidding(t.invariant.text))  # fmt: skip


def _first(track: InvariantTrack, status: InvariantStatus) -> int:
    return next(k for k, s in enumerate(track.statuses) if s is status and k > 0)


def _finding(analysis: Analysis, rules: tuple[str, ...], generation: int) -> Finding:
    """The finding at that generation by one of the rules: a mined statement's, or a declared item's."""
    return next(f for f in analysis.findings if f.rule in rules and f.generation == generation)


def _proposal(analysis: Analysis, track: InvariantTrack, k: int) -> tuple[int, int] | None:
    """The sentence of Sₖ closest in topic to the lost prohibition: where the agent plans the act."""
    indexed = analysis.facts.generations[k].indexed
    if indexed is None:
        return None
    counts = indexed.shared_terms(content_terms(track.invariant.text))
    if not counts:
        return None
    best = max(counts, key=lambda position: counts[position])
    sentence = indexed.sentences[best]
    return sentence.start, sentence.end


def story(analysis: Analysis) -> list[Step]:
    """Six steps: kept, paraphrased, gone, the prohibited act proposed, refreshed, confirmed."""
    track = followed(analysis)
    rule = track.invariant.text
    kept = next(k for k, s in enumerate(track.statuses) if k > 0 and s in (InvariantStatus.VERBATIM,
                                                                            InvariantStatus.PARAPHRASED))  # fmt: skip
    weakened = _first(track, InvariantStatus.WEAKENED)
    lost = _first(track, InvariantStatus.LOST)
    weak_finding = _finding(analysis, ("user-statement-weakened", "invariant-weakened"), weakened)
    lost_finding = _finding(analysis, ("user-statement-lost", "invariant-lost"), lost)
    paraphrase = (track.matches[weakened].matched_text or "").rstrip(".")
    span = lambda k: (track.matches[k].start, track.matches[k].end) if track.matches[k].start is not None else None  # noqa: E731
    return [
        Step(f"S{kept}: the constraint survives the first compaction",
             f"The user said: “{rule}” The first summary keeps it word for word — highlighted as a kept invariant.",
             "generation", kept, span(kept)),
        Step(f"S{weakened}: paraphrased into a topic",
             f"Re-compacting the summary turned the rule into “{paraphrase}”. The topic "
             f"survives; the force does not ({track.matches[weakened].reason}). Each step still reads fine.",
             "generation", weakened, span(weakened), finding_id(weak_finding)),
        Step(f"S{lost}: gone",
             "One more compaction and the constraint is not there at all. The manifest shows its whole lineage, "
             "with the generation where it first broke marked.", "manifest", lost, None, finding_id(lost_finding)),
        Step(f"S{lost}: the agent proposes the prohibited action",
             "With the rule gone, the plan now includes exactly what the user forbade.",
             "generation", lost, _proposal(analysis, track, lost), finding_id(lost_finding), next_act=True),
        Step("A source refresh restores the constraint",
             f"Re-reading the durable records behind S{lost} rebuilds the typed invariant set and records the "
             "discrepancy as a correction — appended, never rewriting history. The chain gains a refreshed "
             f"branch S′{lost}.", "refresh", lost, None, finding_id(lost_finding)),
        Step("A reviewer confirms it",
             "The reviewer confirms the finding. The annotation is stored with the trace's content hash, so it "
             "comes back whenever this session is opened again.", "review", lost, None, finding_id(lost_finding)),
    ]  # fmt: skip


__all__ = ["SAMPLE", "followed", "story"]
