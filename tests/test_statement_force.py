"""A user's rule binds the next agent; a wish is weighed: the severity of a lost statement follows which it is.

The statements are from ../shared/real_traces (labelled sessions and the readable half of wider/).
"""

from __future__ import annotations

import pytest

from inspector.analysis import analyze
from inspector.model import Generation, InvariantKind, SourceRecord, Trace
from inspector.statement_force import binding, forbidding, standing
from inspector.statements import statement_kind


@pytest.mark.parametrize(
    "rule",
    [
        "must be controlled by configuration, default to 'off'",
        "intentional - keep it local!",
        "Do NOT add `Co-Authored-By` lines to any commits in this repository",
        "never touch the staging database",
        "ensure we log",
        "the prod bucket is readonly",
        "staging is off limits",
    ],
)
def test_a_prohibition_an_obligation_or_an_order_to_leave_it_be_binds(rule: str) -> None:
    assert binding(rule)


@pytest.mark.parametrize(
    "wish",
    [
        "let's avoid code duplication",
        "I think B, nested in strategy options - it leaves us space to further customise later on.",
        "it would be good to note the load, but not bring all the contents in.",
        "please use the british spelling :)",
        "we keep it in the cache between runs",
        "Don't open upstream PR for now.",  # flutterdocker_aba9151e (outside set): its reader weighs it a warning
        "never rebase this branch for the time being",
        # cli_0cf3db51 (entireio/cli, outside ../shared): the user doubts a cause the agent gave, forbidding nothing
        "I don't think the reviewer would have been making commits.",
        "I do not believe we need a migration for this",
    ],
)
def test_a_suggestion_a_hedged_rule_or_a_report_does_not(wish: str) -> None:
    assert not binding(wish)


@pytest.mark.parametrize("told", [
    "Auto is DNS only i never changed it",  # taskai_b74e2201 (outside ../shared): a fact corrected, read as a rule
    "I've never seen this error before",
    "it never worked on staging",
    "we had never run the migration there",
    "you never actually asked for the logs",
])  # fmt: skip
def test_never_telling_the_past_forbids_nothing(told: str) -> None:
    assert forbidding(told) is None
    assert statement_kind(told) is None


@pytest.mark.parametrize("rule", [
    "never touch the staging database", "we never push to main", "never proceed without asking",
    "Never embed secrets in the image", "NEVER use rm -rf", "these scripts were never meant to run on prod",
])  # fmt: skip
def test_never_before_a_verbs_base_form_still_forbids(rule: str) -> None:
    assert forbidding(rule) is not None
    assert statement_kind(rule) is InvariantKind.USER_CONSTRAINT


@pytest.mark.parametrize("doubt", [
    "I don't think the reviewer would have been making commits.",  # cli_0cf3db51 (fresh79): a correction, then left
    "we also use migrations in staging, so I dont think that we need to avoid migrations based on dev",  # cipherbox
    "Wait I don't think that this is going to work since you're simply repeating the same command",  # docalign
])  # fmt: skip
def test_a_doubt_disputes_what_the_agent_holds_and_forbids_nothing(doubt: str) -> None:
    """Its "don't" is the belief's: no prohibition to keep standing after it is carried, lift or break, and what it
    doubts ("we need to avoid migrations") is no rule of the user's. A correction: it disputes the agent."""
    assert forbidding(doubt) is None and not standing(doubt)
    assert statement_kind(doubt) is InvariantKind.CORRECTION


def test_a_doubt_that_says_what_should_not_be_done_still_forbids() -> None:
    assert forbidding("I don't think we should push to main yet") is not None
    assert forbidding("I don't think it matters, but never touch staging") is not None


def test_a_correction_binds_unless_hedged() -> None:
    assert binding("no remove this again, the risk someone assumes it's a stable link is to big", correction=True)
    assert not binding("actually maybe let's test this first", correction=True)


def typed(key: str, text: str) -> SourceRecord:
    return SourceRecord(key=key, text=text, namespace="transcript", kind="user", authority="user")


def test_a_lost_rule_is_an_error_and_a_lost_wish_a_warning() -> None:
    records = [typed("u1", "the plans folder is intentional - keep it local!"),
               typed("u2", "let's avoid duplicating the transcript scoping code")]  # fmt: skip
    keys = tuple(r.key for r in records)
    trace = Trace("fixture", "claude-code", tuple(records),
                  (Generation(0, "raw", "\n".join(r.text for r in records), covers=keys),
                   Generation(1, "summary", "Implemented the summariser in Go.", parent=0, covers=keys)),
                  extra={"meta": {"session_log": True}})  # fmt: skip
    lost = {f.source.key: f.severity.value for f in analyze(trace).findings  # type: ignore[union-attr]
            if f.rule == "user-statement-lost"}  # fmt: skip
    assert lost == {"u1": "error", "u2": "warning"}


def test_a_weakened_rule_held_only_for_now_is_a_warning() -> None:
    """A prohibition a summary keeps without its force is weighed as a lost one is: provisional, a warning."""
    def weakened(rule: str) -> list[str]:
        record = typed("u1", rule)
        trace = Trace("fixture", "claude-code", (record,),
                      (Generation(0, "raw", rule, covers=("u1",)),
                       Generation(1, "summary", "Open an upstream PR to Renovate for the docs typo.", parent=0,
                                  covers=("u1",))),
                      extra={"meta": {"session_log": True}})  # fmt: skip
        return [f.severity.value for f in analyze(trace).findings if f.rule == "user-statement-weakened"]

    assert weakened("Don't open an upstream PR to Renovate for the docs typo.") == ["error"]
    assert weakened("Don't open an upstream PR to Renovate for the docs typo for now.") == ["warning"]
