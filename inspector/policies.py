"""Refresh policies compared on one chain: none, every N compactions, and adaptive.

Model (stated so the numbers can be judged): a refresh at Sₖ rebuilds every invariant Sₖ covers
from its source record and re-injects them as a typed sidecar that later states carry, so an
invariant is intact from its last refresh on even where the prose lost it; invariants introduced
after the last refresh depend on the prose alone. Cost is what a refresh re-reads: the source
records behind the rebuilt invariants and their tokens (`text.estimate_tokens`). Nothing is tuned to make
one policy win; the report is whatever the chain gives.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from inspector.analysis import Analysis
from inspector.drift import silent_drift
from inspector.facts import InvariantTrack, fidelity_to_parent, fidelity_to_source, next_depth
from inspector.invariants import PRESENT, InvariantStatus
from inspector.model import InvariantKind, SourceRecord
from inspector.text import estimate_tokens

_BROKEN = (InvariantStatus.WEAKENED, InvariantStatus.LOST)
_HIGH_AUTHORITY_KINDS = {InvariantKind.USER_CONSTRAINT, InvariantKind.USER_REQUIREMENT, InvariantKind.CORRECTION}
"""What someone with the authority to bind the agent stated: its constraints, requirements and corrections."""
_IRREVERSIBLE_KINDS = {InvariantKind.USER_CONSTRAINT, InvariantKind.COMPLETED_ACTION}
"""Items whose loss leads to what cannot be undone: a forbidden act done, a finished act done twice."""


@dataclass(frozen=True)
class AdaptiveWeights:
    """Weights of the third note's refresh signals; refresh when the weighted sum reaches `threshold`."""

    depth: float = 1.0
    """Max generation depth of a carried invariant, as a multiple of the allowed depth."""
    corrections: float = 1.0
    """Share of corrections not carried intact (or relapsed)."""
    authority: float = 1.0
    """Share of user/system constraints (prohibitions, preconditions, rules) weakened or lost."""
    volatility: float = 1.0
    """Share of carried invariants from volatile sources not checked since they arrived."""
    irreversible: float = 1.0
    """1 when a prohibition or completed action is weakened or lost: an irreversible act may follow."""
    threshold: float = 1.0


@dataclass(frozen=True, slots=True)
class PolicyStep:
    generation: int
    refreshed: bool
    records_read: int
    tokens_read: int
    local_fidelity: float | None
    source_fidelity: float | None
    silent_drift: bool
    """The state where this run drifts silently (`inspector.drift`, the `silent-drift` rule's definition)."""
    score: float | None = None
    signals: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PolicyRun:
    policy: str
    steps: tuple[PolicyStep, ...]

    @property
    def refreshes(self) -> int:
        return sum(s.refreshed for s in self.steps)

    @property
    def records_read(self) -> int:
        return sum(s.records_read for s in self.steps)

    @property
    def tokens_read(self) -> int:
        return sum(s.tokens_read for s in self.steps)

    @property
    def mean_source_fidelity(self) -> float | None:
        values = [s.source_fidelity for s in self.steps if s.source_fidelity is not None]
        return sum(values) / len(values) if values else None

    @property
    def drift(self) -> float | None:
        """Mean shortfall of source→current fidelity: the quantity refresh is meant to reduce."""
        mean = self.mean_source_fidelity
        return None if mean is None else 1.0 - mean


Decide = Callable[[int, dict[str, float]], tuple[bool, float | None]]


def never() -> tuple[str, Decide]:
    return "no refresh", lambda k, signals: (False, None)


def every(n: int) -> tuple[str, Decide]:
    if n < 1:
        raise ValueError("every-N needs N ≥ 1")
    return f"every {n}", lambda k, signals: (k % n == 0, None)


def adaptive(weights: AdaptiveWeights = AdaptiveWeights()) -> tuple[str, Decide]:
    def decide(k: int, signals: dict[str, float]) -> tuple[bool, float]:
        score = sum(getattr(weights, name) * value for name, value in signals.items())
        return score >= weights.threshold, score

    return "adaptive", decide


def simulate(analysis: Analysis, policy: tuple[str, Decide]) -> PolicyRun:
    """Run the chain under one policy; see the module docstring for the model."""
    name, decide = policy
    facts = analysis.facts
    tracks = facts.invariants
    sources = {s.key: s for s in facts.trace.sources}
    limit = max(1, facts.config.max_unchecked_depth)
    sidecar: set[int] = set()  # positions of invariants the last refresh re-injected
    depths: list[int | None] = [None] * len(tracks)
    previous: list[InvariantStatus] | None = None
    steps: list[PolicyStep] = []
    for generation_facts in facts.generations:
        generation = generation_facts.generation
        k = generation.index
        observed = [t.statuses[k] for t in tracks]
        effective = [_carried(status, i in sidecar) for i, status in enumerate(observed)]
        grounded = generation.kind == "raw" or generation.refreshed
        tentative = [next_depth(d, s, grounded) for d, s in zip(depths, effective, strict=True)]
        signals = _signals(tracks, effective, tentative, k, sources, limit, analysis)
        refresh, score = (False, None) if generation.kind == "raw" else decide(k, signals)
        records = tokens = 0
        if refresh:
            covered = [i for i, s in enumerate(observed) if s not in (InvariantStatus.NOT_INTRODUCED,
                                                                       InvariantStatus.RETIRED)]  # fmt: skip
            sidecar = set(covered)
            effective = [InvariantStatus.VERBATIM if i in sidecar else s for i, s in enumerate(observed)]
            tentative = [0 if i in sidecar else d for i, d in enumerate(tentative)]
            keys = {tracks[i].invariant.source_key for i in covered} - {None}
            records = len(keys)
            tokens = sum(estimate_tokens(sources[key].text) for key in keys if key in sources)
        depths = tentative
        local = fidelity_to_parent(previous, effective) if previous is not None else None
        steps.append(PolicyStep(k, refresh, records, tokens, local, fidelity_to_source(effective), False, score,
                                signals))  # fmt: skip
        previous = effective
    drift = silent_drift([s.source_fidelity for s in steps], [s.local_fidelity for s in steps], facts.config)
    if drift is not None:
        steps[drift.generation] = replace(steps[drift.generation], silent_drift=True)
    return PolicyRun(name, tuple(steps))


def _carried(status: InvariantStatus, in_sidecar: bool) -> InvariantStatus:
    return InvariantStatus.VERBATIM if in_sidecar and status in (*_BROKEN, InvariantStatus.UNKNOWN) else status


def _signals(
    tracks: Sequence[InvariantTrack],
    effective: Sequence[InvariantStatus],
    depths: Sequence[int | None],
    k: int,
    sources: Mapping[str, SourceRecord],
    limit: int,
    analysis: Analysis,
) -> dict[str, float]:
    """The adaptive policy's five signals at Sₖ (see `AdaptiveWeights` for each one's meaning)."""
    introduced = [i for i, s in enumerate(effective) if s not in (InvariantStatus.NOT_INTRODUCED,
                                                                  InvariantStatus.RETIRED)]  # fmt: skip

    def share(members: Sequence[int], broken: Callable[[int], bool]) -> float:
        return sum(1 for i in members if broken(i)) / len(members) if members else 0.0

    corrections = [i for i in introduced if tracks[i].invariant.kind is InvariantKind.CORRECTION]
    relapsed = any(f.rule == "superseded-fact-resurfaced" for f in analysis.findings_for(k))
    authority = [i for i in introduced if tracks[i].invariant.kind in _HIGH_AUTHORITY_KINDS
                 or _authority(tracks[i], sources) in ("user", "system")]  # fmt: skip
    volatile = [i for i in introduced if _volatility(tracks[i], sources) == "volatile"]
    present_depths = [d for d, s in zip(depths, effective, strict=True) if d is not None and s in PRESENT]
    return {
        "depth": max(present_depths, default=0) / limit,
        "corrections": 1.0 if relapsed else share(corrections, lambda i: effective[i] in _BROKEN),
        "authority": share(authority, lambda i: effective[i] in _BROKEN),
        "volatility": share(volatile, lambda i: effective[i] in PRESENT and (depths[i] or 0) >= 1),
        "irreversible": float(any(tracks[i].invariant.kind in _IRREVERSIBLE_KINDS and effective[i] in _BROKEN
                                  for i in introduced)),  # fmt: skip
    }


def _authority(track: InvariantTrack, sources: Mapping[str, SourceRecord]) -> str | None:
    record = sources.get(track.invariant.source_key or "")
    return record.authority if record else None


def _volatility(track: InvariantTrack, sources: Mapping[str, SourceRecord]) -> str | None:
    record = sources.get(track.invariant.source_key or "")
    return record.volatility if record else None


def compare(analysis: Analysis, n: int = 2, weights: AdaptiveWeights = AdaptiveWeights()) -> list[PolicyRun]:
    return [simulate(analysis, policy) for policy in (never(), every(n), adaptive(weights))]


__all__ = ["AdaptiveWeights", "PolicyRun", "adaptive", "compare", "every", "never", "simulate"]
