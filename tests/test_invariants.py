import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.facts import first_covered
from inspector.invariants import IndexedText, InvariantStatus, match_invariant
from inspector.items import declared_items, trace_items
from inspector.model import Generation, InvariantKind
from inspector.statements import user_items
from tests.helpers import chain, findings, generations_of, record

RULE = "Never run migrations against the staging database; it is read-only until the release job releases the lock."


def kinds(text: str, **fields: object) -> list[InvariantKind]:
    return [i.kind for i in trace_items([record("r", text, **fields)])]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Never touch staging.", [InvariantKind.USER_CONSTRAINT]),
        ("Don't push to main.", [InvariantKind.USER_CONSTRAINT]),
        ("Actually, the billing service reads the replica, not the primary.", [InvariantKind.CORRECTION]),
        ("You must rotate the keys every 90 days.", [InvariantKind.USER_REQUIREMENT]),
        ("We refactored the parser and it reads nicely.", []),
    ],
)
def test_a_native_traces_user_words_are_mined_as_a_session_logs_are(text, expected):
    """One miner for every trace: a native record the user wrote is read by `statements`, as a typed prompt is."""
    native = record("r", text, authority="user", kind="user", namespace="transcript")
    assert kinds(text, authority="user", kind="user", namespace="transcript") == expected
    assert [i.kind for i in user_items(native)] == expected


def test_assistant_text_and_tool_output_are_not_mined():
    assert kinds("Never mind, I will retry.", authority="assistant", kind="assistant") == []
    assert kinds("Never use this flag.", kind="tool_result", authority="tool") == []


def test_typed_records_tool_errors_and_supersession_are_declared_items():
    found = declared_items(
        [
            record("a", "Batch size is 500.", kind="fact"),
            record("b", "Batch size is 250, not 500.", supersedes="a"),
            record("c", "Traceback ...\nValueError: bad", kind="tool_error"),
        ]
    )
    assert [(i.kind, i.source_key, i.declared) for i in found] == [
        (InvariantKind.FACT, "a", True),
        (InvariantKind.CORRECTION, "b", True),
        (InvariantKind.FAILURE, "c", True),
    ]
    assert found[2].text == "Traceback ..."


def test_an_agents_log_declares_nothing():
    """A failed call in a session log is a run for `shell_runs` to judge (slip, retry, fix), not a stated failure."""
    error = record("c", "Exit code 1\nError: File has not been read yet.", kind="tool_error", namespace="transcript")
    assert [i.kind for i in trace_items([error])] == [InvariantKind.FAILURE]
    assert trace_items([error], declares=False) == []


def test_native_files_written_with_the_force_named_kinds_still_load():
    assert InvariantKind("prohibition") is InvariantKind.USER_CONSTRAINT
    assert InvariantKind("precondition") is InvariantKind.USER_CONSTRAINT
    assert InvariantKind("procedural-rule") is InvariantKind.USER_REQUIREMENT
    assert InvariantKind("counterexample") is InvariantKind.FAILURE
    with pytest.raises(ValueError):
        InvariantKind("note")


def status(text: str, invariant: str = RULE) -> InvariantStatus:
    return match_invariant(invariant, IndexedText(text)).status


def test_statuses_verbatim_paraphrased_weakened_lost():
    assert status("Constraint: " + RULE.lower()) is InvariantStatus.VERBATIM
    assert (
        status("The staging database is read-only until the release job releases the lock, so migrations must never "
               "run against it.")
        is InvariantStatus.PARAPHRASED
    )  # fmt: skip
    assert status("Staging database access was discussed.") is InvariantStatus.WEAKENED
    assert status("The staging database is read-only; never run migrations against it.") is InvariantStatus.WEAKENED
    assert status("We migrated production tables and updated docs.") is InvariantStatus.LOST


def test_weakened_names_what_was_lost_and_the_span():
    match = match_invariant("You must rotate keys every 90 days.", IndexedText("Intro. Keys should rotate often."))
    assert match.status is InvariantStatus.WEAKENED
    assert "modal downgraded" in match.reason and "value 90 missing" in match.reason
    assert (match.start, match.end) == (7, 32)


def test_best_sentence_wins_when_one_keeps_the_force():
    text = "Pushed the fix to a feature branch. Reminder: never push to the main branch."
    assert status(text, "Never push to the main branch.") is InvariantStatus.VERBATIM


SOURCES = [record("u:1", RULE, kind="prohibition")]
"""A declared item (a typed record, here of a kind older native files use): matched word for word and force
for force, so a summary that keeps its topic and drops its "never" weakens it."""
KEPT = "Constraint: " + RULE
SOFT = "Staging database access was discussed."
GONE = "Next: apply the migration to production."


def test_invariant_weakened_then_lost_fire_at_the_transition_only():
    trace = chain(SOURCES, KEPT, SOFT, SOFT, GONE, GONE)
    assert generations_of(trace, "invariant-weakened") == [2]
    assert generations_of(trace, "invariant-lost") == [4]


def test_a_kept_invariant_fires_nothing():
    trace = chain(SOURCES, KEPT, KEPT)
    assert generations_of(trace, "invariant-weakened") == generations_of(trace, "invariant-lost") == []


def test_an_invariant_not_yet_covered_is_not_lost():
    from dataclasses import replace

    trace = chain(SOURCES + [record("u:2", "Always tag releases.", kind="user-requirement")], KEPT, KEPT)
    generations = list(trace.generations)
    generations[:2] = [replace(g, covers=("u:1",)) for g in generations[:2]]
    trace = replace(trace, generations=tuple(generations))
    assert generations_of(trace, "invariant-lost") == [2]  # introduced at S2, missing there


def test_a_lost_invariant_that_comes_back_weakened_is_reported_weakened_there():
    never = "Never deploy on Fridays before 18:00."
    trace = chain([record("r", never, kind="user-constraint")], never, "Lunch was at noon.",
                  "Deploy on Fridays before 18:00.")  # fmt: skip
    assert generations_of(trace, "invariant-lost") == [2]
    assert generations_of(trace, "invariant-weakened") == [3]  # LOST → WEAKENED is a transition too


def test_superseded_fact_resurfaced_fires_only_when_the_old_value_returns():
    sources = [
        record("a", "The batch size is 500 records.", kind="fact"),
        record("b", "Correction: the batch size is 250 records, not 500.", supersedes="a"),
    ]
    assert generations_of(chain(sources, "Batch size: 250 records, not 500.", "Batch size is 500 records."),
                          "superseded-fact-resurfaced") == [2]  # fmt: skip
    assert generations_of(chain(sources, "The batch size is 250 records."), "superseded-fact-resurfaced") == []


def test_a_value_is_one_idea_for_weakening_and_for_a_superseded_value():
    """'v3' is a value when a summary drops it from a rule and when a corrected version comes back."""
    rule = [record("r", "Pin the client to API v3 before each release.", kind="procedural-rule")]
    dropped = chain(rule, "Pin the client to the API before each release.")
    assert [m for g, m in findings(dropped, "invariant-weakened") if g == 1] == [
        "requirement “Pin the client to API v3 before each release.” weakened (value v3 missing)"
    ]
    versions = [record("a", "The client uses API v2.", kind="fact"),
                record("b", "Correction: the client uses API v3.", supersedes="a")]  # fmt: skip
    assert generations_of(chain(versions, "The client uses API v3.", "The client uses API v2."),
                          "superseded-fact-resurfaced") == [2]  # fmt: skip


def test_a_superseded_value_in_a_state_that_does_not_cover_the_correction_is_no_relapse():
    """Before the correction is in the log, 500 is simply the value: only a state that covers it can relapse."""
    from dataclasses import replace

    sources = [
        record("a", "The batch size is 500 records.", kind="fact"),
        record("b", "Correction: the batch size is 250 records, not 500.", supersedes="a"),
    ]
    trace = chain(sources, "The batch size is 500 records.", "The batch size is 500 records.")
    generations = list(trace.generations)
    generations[:2] = [replace(g, covers=("a",)) for g in generations[:2]]  # S0 and S1 predate the correction
    assert generations_of(replace(trace, generations=tuple(generations)), "superseded-fact-resurfaced") == [2]


def test_a_superseded_fact_is_retired_not_lost():
    sources = [
        record("a", "The batch size is 500 records.", kind="fact"),
        record("b", "Correction: the batch size is 250 records, not 500.", supersedes="a"),
    ]
    trace = chain(sources, "Correction: the batch size is 250 records, not 500.")
    from inspector.facts import compute_facts

    statuses = {t.invariant.source_key: t.statuses for t in compute_facts(trace).invariants}
    assert statuses["a"] == (InvariantStatus.RETIRED, InvariantStatus.RETIRED)
    assert generations_of(trace, "invariant-lost") == []


def test_harness_injected_text_is_not_mined_and_repeats_collapse():
    assert kinds("Caveat: DO NOT respond to these messages.", authority="harness", kind="user") == []
    failures = trace_items([record(f"e{i}", "Bash failed: make paper\nexit 2", kind="tool_error")
                            for i in range(4)])  # fmt: skip
    assert [(i.kind, i.source_key) for i in failures] == [(InvariantKind.FAILURE, "e0")]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from("abcdefgh"), unique=True, max_size=8), max_size=6), st.booleans())
def test_the_first_state_covering_each_key_is_found_for_cumulative_and_arbitrary_covers(covers, cumulative):
    """Introduction and retirement read one key→state map; it must agree with scanning every state."""
    if cumulative:
        covers = [sum(covers[: i + 1], []) for i in range(len(covers))]
        covers = [list(dict.fromkeys(keys)) for keys in covers]
    states = [Generation(i, "summary", "", covers=tuple(keys)) for i, keys in enumerate(covers)]
    expected = {key: next(i for i, keys in enumerate(covers) if key in keys) for keys in covers for key in keys}
    assert first_covered(states) == expected
