"""Silent drift: every step looks faithful to its parent while fidelity to the source falls.

One definition, read by the `silent-drift` rule and by the refresh-policy comparison, so the Policies
page marks the generation the findings report, with the same `Config` thresholds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from inspector.config import Config


@dataclass(frozen=True, slots=True)
class Drift:
    """Where the chain first drifted silently, and by how much."""

    generation: int
    """Position in the chain of the state where the fall from the peak reached the threshold."""
    peak: float
    """Highest source→current fidelity before it, since which every step kept parent→child fidelity high."""
    source: float
    local: float | None


def silent_drift(source: Sequence[float | None], local: Sequence[float | None], config: Config) -> Drift | None:
    """The first state whose source fidelity fell `source_fidelity_drop` below its peak while every step
    since the peak kept local fidelity ≥ `high_local_fidelity`; None when the chain never does.

    Reported once: later states of the same fall add nothing a reader needs.
    """
    peak: float | None = None
    quiet = True  # every step since the peak kept parent→child fidelity high
    for k, (to_source, to_parent) in enumerate(zip(source, local, strict=True)):
        if to_source is None:
            continue
        if peak is None or to_source >= peak:
            peak, quiet = to_source, True
            continue
        quiet = quiet and to_parent is not None and to_parent >= config.high_local_fidelity
        if quiet and peak - to_source >= config.source_fidelity_drop - 1e-9:  # 1.0 - 0.8 < 0.2 in floats
            return Drift(k, peak, to_source, to_parent)
    return None


__all__ = ["silent_drift"]
