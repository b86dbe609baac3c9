"""Chain rules: drift that each step hides, confidence that rises as anchors decay, missing text."""

from __future__ import annotations

from collections.abc import Iterator

from inspector.drift import silent_drift as find_silent_drift
from inspector.facts import TraceFacts
from inspector.model import Severity
from inspector.rule_registry import Hit, rule


@rule(
    "silent-drift",
    Severity.WARNING,
    "Every step looks faithful to its parent while fidelity to the source falls: drift only the chain shows.",
    session_severity=Severity.INFO,
)
def silent_drift(facts: TraceFacts) -> Iterator[Hit]:
    config = facts.config
    drift = find_silent_drift(facts.source_fidelity, facts.local_fidelity, config)
    if drift is not None:
        yield Hit(
            drift.generation,
            f"source→current fidelity fell from {drift.peak:.2f} to {drift.source:.2f} while every step kept "
            f"parent→child fidelity ≥ {config.high_local_fidelity:.2f}",
            evidence={"source_fidelity": drift.source, "peak": drift.peak, "local_fidelity": drift.local},
        )


@rule(
    "confidence-inflation",
    Severity.WARNING,
    "A summary claims more completeness than its parent while its anchor density falls.",
    session_severity=Severity.INFO,
)
def confidence_inflation(facts: TraceFacts) -> Iterator[Hit]:
    previous = None
    for generation in facts.summaries():
        if generation.density is None:
            continue
        if (
            previous is not None
            and len(generation.claims) > len(previous.claims)
            and generation.density < (previous.density or 0.0)
        ):
            claim = generation.claims[0]
            yield Hit(
                generation.generation.index,
                f"{len(generation.claims)} completeness claims (was {len(previous.claims)}) while anchor density "
                f"fell {previous.density:.2f} → {generation.density:.2f}",
                claim.start,
                claim.end,
                {"claims": [c.text for c in generation.claims]},
            )
        previous = generation


@rule("summary-unavailable", Severity.INFO, "A compaction happened but its summary text is not in the log.")
def summary_unavailable(facts: TraceFacts) -> Iterator[Hit]:
    """One finding per summary with no text: the reader's own notice where it raised one (it read the log and
    knows why), else the reason the trace records (`unavailable_reason`, as a native file may carry it)."""
    noticed = {n.generation: n for n in facts.trace.notices if n.rule == "summary-unavailable"}
    for generation in facts.judged():
        if generation.generation.text is not None:
            continue
        k = generation.generation.index
        notice = noticed.get(k)
        if notice is not None:
            yield Hit(k, notice.message, notice.start, notice.end, dict(notice.evidence))
        else:
            reason = generation.generation.extra.get("unavailable_reason", "no summary text in the log")
            yield Hit(k, f"{generation.generation.label}: {reason}")


__all__: list[str] = []  # importing this module registers its rules; they are reached through the registry
