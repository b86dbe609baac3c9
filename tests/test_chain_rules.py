from dataclasses import replace

from inspector import analyze
from inspector.config import Config
from inspector.facts import compute_facts
from inspector.model import Invariant, InvariantKind
from tests.helpers import chain, generations_of, record

# --- anchor-set drift -------------------------------------------------------------------------

DRIFT_SOURCES = [
    record("ledger:2.4", "Migration note: schema v7 moves in two phases; phase 1 adds columns."),
    record("ledger:3.1", "Rollback plan: restore the snapshot."),
]
WITH_KEY = "[[ledger:2.4]] Migration note: schema v7 moves in two phases. [[ledger:3.1]] Rollback: restore snapshot."


def test_drift_fires_when_a_key_is_dropped_but_its_referent_is_still_described():
    trace = chain(DRIFT_SOURCES, WITH_KEY, "The earlier migration note: schema v7 moves in two phases. [[ledger:3.1]]")
    assert generations_of(trace, "anchor-set-drift") == [2]


def test_drift_points_at_the_sentence_describing_the_referent_best_and_the_first_of_equals():
    def described(child: str) -> str:
        found = [f for f in analyze(chain(DRIFT_SOURCES, WITH_KEY, child)).findings if f.rule == "anchor-set-drift"]
        return child[found[0].start : found[0].end]

    vague = "Schema v7 migration still pending."
    full = "The migration note says schema v7 moves in two phases."
    assert described(f"{vague} {full} [[ledger:3.1]]") == full
    assert described(f"{full} {full.replace('The', 'A')} [[ledger:3.1]]") == full


def test_drift_points_at_the_child_sentence_that_still_describes_the_referent():
    child = "Rollback is covered by [[ledger:3.1]]. Then the earlier migration note: schema v7 moves in two phases."
    [finding] = [f for f in analyze(chain(DRIFT_SOURCES, WITH_KEY, child)).findings if f.rule == "anchor-set-drift"]
    assert child[finding.start : finding.end] == "Then the earlier migration note: schema v7 moves in two phases."


def test_dropping_a_key_together_with_its_content_is_not_drift():
    assert generations_of(chain(DRIFT_SOURCES, WITH_KEY, "[[ledger:3.1]] Rollback: restore snapshot."),
                          "anchor-set-drift") == []  # fmt: skip


def test_an_idempotent_anchor_set_is_not_drift():
    assert generations_of(chain(DRIFT_SOURCES, WITH_KEY, WITH_KEY), "anchor-set-drift") == []


# --- compaction debt and fidelity --------------------------------------------------------------

FACTS = [record(f"f:{i}", text, kind="fact") for i, text in enumerate(
    ["The API listens on port 8443.", "Logs ship to the audit bucket.", "Reports go out at 12:00.",
     "Cache entries expire after 10 minutes.", "The worker pool has 4 threads."])]  # fmt: skip
ALL = "\n".join(f.text for f in FACTS)


def test_debt_counts_summaries_since_the_last_grounding_and_refresh_resets_it():
    trace = chain(FACTS, ALL, ALL, ALL, ALL, refreshed={3})
    depths = compute_facts(trace).invariants[0].depths
    assert depths == (0, 1, 2, 0, 1)


def test_recompaction_depth_fires_once_per_invariant_past_the_limit():
    trace = chain(FACTS[:1], ALL, ALL, ALL, ALL)
    assert generations_of(trace, "recompaction-depth") == [3]
    assert generations_of(trace, "recompaction-depth", Config(max_unchecked_depth=3)) == [4]
    assert generations_of(chain(FACTS[:1], ALL, ALL, ALL, refreshed={2}), "recompaction-depth") == []


def drop(n: int) -> str:
    """The facts with the last n weakened: topic kept, value or force gone."""
    weakened = ["The API listens on a port.", "Logs ship to a bucket.", "Reports go out daily.",
                "Cache entries expire.", "The worker pool has threads."]  # fmt: skip
    return "\n".join([f.text for f in FACTS[: 5 - n]] + weakened[5 - n :])


def test_fidelity_definitions():
    facts = compute_facts(chain(FACTS, ALL, drop(1), drop(2)))
    # source→current: mean preservation weight (kept 1, weakened 0.5, lost 0) over covered invariants
    assert facts.source_fidelity == (1.0, 1.0, 0.9, 0.8)
    # parent→child: mean of min(1, w_child / w_parent) over what the parent carried
    assert facts.local_fidelity == (None, 1.0, 0.9, 0.9)


def test_silent_drift_fires_when_each_step_is_faithful_but_the_chain_is_not():
    trace = chain(FACTS, ALL, drop(1), drop(2), drop(3))
    assert generations_of(trace, "silent-drift") == [3]  # 1.0 → 0.8 by steps of 0.9 local fidelity


def test_a_visibly_bad_step_is_not_silent_drift():
    lost = "Unrelated text about lunch."
    assert generations_of(chain(FACTS, ALL, lost), "silent-drift") == []


def test_declared_invariants_replace_extraction():
    declared = [Invariant("only", InvariantKind.USER_CONSTRAINT, "Never page the on-call at night.")]
    facts = compute_facts(chain(FACTS, ALL, invariants=declared))
    assert [t.invariant.id for t in facts.invariants] == ["only"]


def test_an_unavailable_summary_is_unknown_not_lost():
    trace = chain(FACTS[:1], ALL, None)
    facts = compute_facts(trace)
    assert facts.invariants[0].statuses[-1].value == "unknown"
    assert generations_of(trace, "invariant-lost") == []
    assert generations_of(trace, "summary-unavailable") == [2]


def test_a_manifest_carries_an_invariant_the_text_dropped():
    trace = chain(FACTS[:1], ALL, "Nothing about ports here.")
    manifest = (Invariant("fact:f:0", InvariantKind.FACT, "The API listens on port 8443.", "f:0"),)
    generations = list(trace.generations)
    generations[2] = replace(generations[2], manifest=manifest)
    trace = replace(trace, generations=tuple(generations))
    assert generations_of(trace, "invariant-lost") == []


# --- confidence inflation ----------------------------------------------------------------------

CONF_SOURCES = [record(f"k:{i}", "x") for i in range(4)]


def test_confidence_inflation_fires_when_claims_rise_as_density_falls():
    trace = chain(CONF_SOURCES, "[[k:0]] [[k:1]] [[k:2]] etc.", "[[k:0]] as noted, etc. Everything is fully preserved.")
    assert generations_of(trace, "confidence-inflation") == [2]


def test_claims_with_steady_density_are_not_inflation():
    trace = chain(CONF_SOURCES, "[[k:0]] [[k:1]].", "[[k:0]] [[k:1]]. All context is preserved.")
    assert generations_of(trace, "confidence-inflation") == []
