"""Claim rules for session logs: summaries that say what the log does not.

A summary's claims (`GenerationFacts.status_claims`) are checked against the records it covers and,
where only what came next can judge them, the records after its compaction (`inspector.claim_evidence`).
A contradiction is an error: the next agent builds on something the log shows is false. An unsupported
claim is a warning, and an error once a later summary carries it on, since by then an agent has built
on it. A stale step is a warning: the next agent repeats work already done.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TypeVar

from inspector.actions import edited_path
from inspector.claim_evidence import (
    Split,
    commit_made,
    finished_step,
    last_verifying_run,
    pushes,
    refused_step,
    searched,
    span_counts,
    split_at,
    still_open,
    unbaselined,
    unchecked_edit,
    unprinted_figures,
)
from inspector.config import Config
from inspector.detectors.items import FAILURES, STANDING, collapse, owed, session_tracks, still
from inspector.facts import GenerationFacts, TraceFacts, new_keys
from inspector.invariants import InvariantStatus
from inspector.model import InvariantKind, Severity, SourceQuote, SourceRecord
from inspector.presence import told_open, topic_terms
from inspector.rule_registry import Hit, rule
from inspector.shell_runs import VERIFYING, failure_line, failure_subjects
from inspector.statements import USER_KINDS
from inspector.summary_claims import FAILURE_WORDS, Claim, ClaimKind, failure_names, named_subjects, nothing_left
from inspector.text import clip, enclosing_block, enclosing_item, item_block, quoted, sentences

_Found = TypeVar("_Found")

CLAIM_RULES = ("claim-contradicted", "claim-unsupported", "summary-collapse", "stale-next-step", "refused-next-step")
"""The rules of this module: the app marks their spans as status claims."""


def _claiming(facts: TraceFacts, *kinds: ClaimKind) -> Iterator[tuple[GenerationFacts, list[Claim]]]:
    """Summaries of a session log with claims of these kinds, and those claims."""
    if not facts.session_log:
        return
    for generation in facts.judged():
        claims = [c for c in generation.status_claims if c.kind in kinds]
        if claims:
            yield generation, claims


def _evidence(claim: Claim, why: str) -> dict[str, object]:
    """Every claim finding's evidence: the claim's kind and sentence, and what the log shows or lacks."""
    return {"claim": claim.kind.value, "text": claim.text, "why": why}


def _checked_the_work(facts: TraceFacts, key: str | None) -> bool:
    """Was the run of this key a check of the work (`shell_runs.VERIFYING`)? Asked only of a failure a summary
    calls fixed, which most summaries hold none of."""
    run = facts.run_of(key)
    return run is not None and VERIFYING.search(run.ran) is not None


def _said(claim: Claim) -> str:
    return quoted(claim.text, 140)


def _record_quote(key: str, quote: str) -> SourceQuote:
    return SourceQuote(key, clip(quote, 300))


@rule(
    "claim-contradicted",
    Severity.ERROR,
    "A summary states something the log before its compaction shows is false: a failure called fixed that no "
    "later run got past, tests called passing whose last run failed, a push that happened only later. A failed "
    "operation called fixed (an install, a git command, not a test, build or lint) is a warning: an agent most often "
    "gets round one another way, which leaves no later run of it.",
)
def claim_contradicted(facts: TraceFacts) -> Iterator[Hit]:
    """A fix of a failed check (`shell_runs.VERIFYING`) that no later run of it confirms is an error: the next agent
    trusts a result nobody saw (vsla_f67ab274's `./tests/vsla_tests` crash, called handled by skipping the test). A
    failed operation is most often got round rather than run again (repiq_43511c41's S1: "`pre-commit install -f`
    failed due to `core.hooksPath`. Fixed by using `git commit --no-verify`"; sequant_bf976109's `tsx bin/cli.ts
    merge`, whose labels call its claim a warning), so no later success of it is weaker evidence: a warning.

    A passing claim that names nothing is about the whole run, unless the summary itself tells the failing check as
    open in a line of its own (`presence.told_open`): cli_9e2434f3's S1 says "All three new tests passed." and, in
    the next item, that the integration test run after them failed, with its fix in progress."""
    for track in session_tracks(facts, FAILURES):
        stash = track.invariant.kind is InvariantKind.SET_ASIDE
        why = "nothing later popped or applied it" if stash else "no later run of it succeeded"
        for k, _ in still(track, InvariantStatus.WEAKENED, facts.focus):
            operation = not stash and not _checked_the_work(facts, track.invariant.source_key)
            match = track.matches[k]
            yield Hit(
                k,
                f"{facts.generations[k].generation.label} presents {quoted(track.invariant.text, 140)} as fixed; "
                f"{why}",
                match.start,
                match.end,
                {"claim": "fixed", "why": why, "invariant": track.invariant.id, "reason": match.reason},
                source=track.source_quote,
                severity=Severity.WARNING if operation else None,
            )
    for generation, claims in _claiming(facts, ClaimKind.PASSING, ClaimKind.PUSHED):
        split = split_at(facts, generation.generation)
        label, text = generation.generation.label, generation.generation.text or ""
        for claim in claims:
            if claim.kind is ClaimKind.PASSING:
                named = named_subjects(claim.text) or named_subjects(enclosing_item(text, claim.start))
                run = last_verifying_run(split, claim.text, named)
                if run is None or not run.broke or not still_open(run, split):
                    continue
                line = failure_line(run)
                if not named and told_open(text, failure_subjects(f"{run.ran} {line}")):
                    continue  # the summary tells that failure open in a line of its own: this claim is of the rest
                said = f"the last check before it, `{clip(run.command, 80)}`, failed: {line}"
                source = _record_quote(run.key, line)
            else:
                later = pushes(split.runs_after)
                if pushes(split.runs, claim.text) or not later:
                    continue
                sha = commit_made(claim.text, split.runs)
                since = f" after {sha}" if sha else ""
                said = f"no push ran{since} before it; `{clip(later[0].command, 80)}` ran after it"
                source = _record_quote(later[0].key, later[0].command)
            yield Hit(generation.generation.index, f"{label} says {_said(claim)}, but {said}", claim.start,
                      claim.end, _evidence(claim, said), source=source)  # fmt: skip


@rule(
    "claim-unsupported",
    Severity.WARNING,
    "A summary states a verification or a result no record before its compaction supports: a search that "
    "returned nothing, tests never run, a figure no output printed, nothing left to do while a failure is open "
    "or a stash unrestored, a failure called pre-existing that no run showed failing without the session's changes; "
    "a fix no check ran after is a note. An error once a later summary carries it on or the "
    "next agent repeats it.",
)
def claim_unsupported(facts: TraceFacts) -> Iterator[Hit]:
    summaries = facts.summaries()
    for generation, claims in _claiming(facts, ClaimKind.FIXED, ClaimKind.PASSING, ClaimKind.VERIFIED,
                                        ClaimKind.RESULT, ClaimKind.PUSHED):  # fmt: skip
        split = split_at(facts, generation.generation)
        label = generation.generation.label
        later = [g for g in summaries if g.generation.index > generation.generation.index]
        for claim in claims:
            why, carried_by = _unsupported(claim, split, facts.config), claim.text
            if why is None:
                continue
            if claim.kind is ClaimKind.RESULT:
                carried_by = " ".join(unprinted_figures(claim.text, split))
            carried = next((g.generation.label for g in later if _carries(g, claim, carried_by, facts.config)), None)
            # A fix or a test claim the next agent checks for itself (it runs the tests); a figure or a search
            # result it cannot, so restating one is building on it.
            restatable = claim.kind in (ClaimKind.RESULT, ClaimKind.VERIFIED)
            repeated = _repeated(claim, carried_by, split, facts.config) if carried is None and restatable else None
            message = f"{label} says {_said(claim)}, but {why}"
            if carried:
                message += f"; {carried} carries it on"
            elif repeated:
                message += "; the next agent repeats it"
            acted = {"carried_by": carried} if carried else {"repeated_in": repeated.key} if repeated else {}
            yield Hit(generation.generation.index, message, claim.start, claim.end,
                      _evidence(claim, why) | acted,
                      severity=Severity.ERROR if acted else _unacted_severity(claim),
                      source=_record_quote(repeated.key, repeated.text) if repeated else None)  # fmt: skip
    yield from _nothing_pending(facts)
    yield from _pre_existing(facts)


def _pre_existing(facts: TraceFacts) -> Iterator[Hit]:
    """A failure a summary calls pre-existing that nothing before its compaction showed failing without the session's
    changes (`claim_evidence.unbaselined`): one finding per failure, at the first summary that says so (a later one
    repeats what was judged there). The failure is what the claim names, else what the list item it sits in names
    (lightprotocol_23ba8c9b's "Root cause: Pre-existing deep call stack in complex test scenarios", under "Error 3:
    Stack overflow in some registry tests" and its "Symptom:" line naming the two tests). A warning, as the blind
    labels weigh it (lightprotocol_a3ba6276's three, and sequant_bf976109's "Pre-existing test timeout in
    `state-utils.test.ts` is unrelated to changes"): the next agent can run the failing test on the base itself, but a
    summary that says it need not leaves it a failure of its own work it will not look at."""
    said: set[str] = set()
    for generation, claims in _claiming(facts, ClaimKind.PRE_EXISTING):
        split, text = split_at(facts, generation.generation), generation.generation.text or ""
        for claim in claims:
            if not FAILURE_WORDS.search(f"{claim.text}\n{enclosing_item(text, claim.start)}"):
                continue  # old tests, an old commit: nothing failing is called old
            names = (failure_names(claim.text) or failure_names(item_block(text, claim.start))
                     or failure_names(enclosing_block(text, claim.start)))
            found = unbaselined(names, split) if names else None
            if found is None or found[0] in said:
                continue
            name, key, line = found
            said.add(name)
            why = (f"no run before it shows `{name}` failing without the session's changes: it first failed after the "
                   "session's first edit, and no run set the changes aside (a stash, another branch)")
            yield Hit(generation.generation.index, f"{generation.generation.label} says {_said(claim)}, but {why}",
                      claim.start, claim.end, _evidence(claim, why), source=_record_quote(key, line))  # fmt: skip


def _unacted_severity(claim: Claim) -> Severity | None:
    """An unsupported claim's severity while no later summary carries it and the next agent does not repeat it: the
    rule's warning, but a note for a fix no check ran after. Agents fix a link, a type or a style and move on without
    a test, and a careful reader calls most such fixes done: against the blind labels of ../shared and 17 fresh sets,
    4 of the 15 fixes reported so are losses (27%), the rest edits that did what they said. A warning wrong three
    times in four cries wolf; the note keeps it in the report, and a fix a later summary carries on is an error."""
    return Severity.INFO if claim.kind is ClaimKind.FIXED else None


def _nothing_pending(facts: TraceFacts) -> Iterator[Hit]:
    """A summary that says nothing is left to do while a failure is still open or a stash still holds changes:
    one finding per summary, naming the first of what is still owed."""
    tracks = session_tracks(facts, FAILURES)
    for generation, claims in _claiming(facts, ClaimKind.NOTHING_PENDING):
        k = generation.generation.index
        still_owed = [t for t in tracks if t.statuses[k] in STANDING]
        claim = nothing_left(claims)
        if not still_owed or claim is None:
            continue
        first = still_owed[0]
        more = f" and {len(still_owed) - 1} more" if len(still_owed) > 1 else ""
        why = f"{owed(first)}{more} is still owed at it"
        yield Hit(k, f"{generation.generation.label} says {_said(claim)}, but {why}", claim.start, claim.end,
                  _evidence(claim, why) | {"invariants": [t.invariant.id for t in still_owed]},
                  source=first.source_quote)  # fmt: skip


def _repeated(claim: Claim, words: str, split: Split, config: Config) -> SourceRecord | None:
    """The first of the next agent's turns after the compaction that restates the claim, if any."""
    turns = [r for r in split.after if r.kind == "assistant"][: config.repeat_window]
    if claim.kind is ClaimKind.RESULT:
        return next((t for t in turns if all(figure in t.text for figure in words.split())), None)
    wanted = topic_terms(words)
    if len(wanted) < config.restated_min_terms:
        return None
    return next((t for t in turns if any(len(wanted & topic_terms(s.text)) >= config.restated_share * len(wanted)
                                         for s in sentences(t.text))), None)  # fmt: skip


def _unsupported(claim: Claim, split: Split, config: Config) -> str | None:
    """Why nothing before the compaction supports the claim, or None when something does (or might)."""
    if claim.kind is ClaimKind.PASSING:
        if last_verifying_run(split) is not None or split.reported_passing is not None:
            return None
        return "no test, build or lint ran before it"
    if claim.kind is ClaimKind.FIXED:
        edit = unchecked_edit(claim.text, split)
        path = edited_path(edit.text) if edit is not None else None
        where = f" ({clip(path, 100)})" if path else ""
        return f"no test, build or lint ran after the edit that made it{where}" if edit is not None else None
    if claim.kind is ClaimKind.VERIFIED:
        web = "web" in claim.text.lower()
        if not web:
            return None
        if not searched(split):
            return "no web search or fetch returned a result before it"
        share = config.search_names_share
        return None if searched(split, claim.text, share) else "no web search or fetch result before it names that"
    if claim.kind is ClaimKind.RESULT:
        missing = unprinted_figures(claim.text, split)
        return f"no output or message before it printed {', '.join(missing)}" if missing else None
    lowered = claim.text.lower()
    if pushes(split.runs, claim.text) or pushes(split.runs_after) or "user" in lowered or " you " in f" {lowered} ":
        return None  # a push later is a contradiction (above); the user's own push is not the agent's to show
    sha = commit_made(claim.text, split.runs)
    return f"no git push ran after {sha} before it" if sha else "no git push ran before it"


def _carries(later: GenerationFacts, claim: Claim, words: str, config: Config) -> bool:
    """Does a later summary restate the claim: its figures, or most of its topic terms in one sentence?"""
    indexed = later.indexed
    if indexed is None:
        return False
    if claim.kind is ClaimKind.RESULT:
        return all(figure in indexed.text for figure in words.split())
    wanted = topic_terms(words)
    return len(wanted) >= config.restated_min_terms and any(
        len(wanted & terms) >= config.restated_share * len(wanted) for terms in indexed.terms)  # fmt: skip


@rule(
    "summary-collapse",
    Severity.ERROR,
    "A summary covers a long span of the log but calls it short or free of errors, or carries almost none of "
    "the user's statements in it: the next agent starts from a fraction of the session.",
)
def summary_collapse(facts: TraceFacts) -> Iterator[Hit]:
    if not facts.session_log:
        return
    user_tracks = session_tracks(facts, USER_KINDS)
    for generation in facts.judged():
        state = generation.generation
        if state.parent is None:
            continue
        parent_state = facts.trace.generations[state.parent]
        claims = [c for c in generation.status_claims if c.kind in (ClaimKind.BRIEF, ClaimKind.NO_ERRORS)]
        reported = False
        if claims:  # the span is counted only for a summary that makes a claim about it
            positions, sources = facts.log_positions, facts.trace.sources
            span_records = [sources[positions[key]] for key in new_keys(state, parent_state) if key in positions]
            for claim in claims:
                span = span_counts(span_records, named_subjects(claim.text))
                if claim.kind is ClaimKind.BRIEF and span.user_messages >= facts.config.brief_limit:
                    said = f"{span.user_messages} user messages"
                elif claim.kind is ClaimKind.NO_ERRORS and span.failed_runs:
                    said = f"{span.failed_runs} failed runs, the first {quoted(span.first_failure or '', 120)}"
                else:
                    continue
                reported = True
                yield Hit(state.index,
                          f"{state.label} says {_said(claim)}, but the log it covers since {parent_state.label} "
                          f"holds {said}", claim.start, claim.end,
                          _evidence(claim, f"the log it covers holds {said}"))  # fmt: skip
        if not reported:  # one collapse is enough: the claim names it better than a count
            yield from _items_collapse(user_tracks, state.index, state.parent, state.label, facts.config)


def _items_collapse(tracks: list, k: int, parent: int, label: str, config: Config) -> Iterator[Hit]:
    """The summary carries under `collapse_kept` of the user statements owed at it (`collapse`)."""
    collapsed = collapse(tracks, k, parent, config)
    if collapsed is None:
        return
    standing, kept = collapsed
    lost = next(t for t in standing if t.statuses[k] is InvariantStatus.LOST)
    yield Hit(k, f"{label} carries {len(kept)} of the {len(standing)} statements of the user that bind beyond their "
                 "step or came since its parent: the session collapsed into a summary that no longer holds what was "
                 "asked",
              evidence={"claim": "items", "why": f"it carries {len(kept)} of {len(standing)} owed statements",
                        "owed": len(standing), "kept": len(kept)}, source=lost.source_quote)  # fmt: skip


@rule(
    "stale-next-step",
    Severity.WARNING,
    "A summary's pending task or next step names a command that already ran cleanly before the compaction, "
    "with nothing edited since: the next agent repeats finished work as if it were still to do.",
)
def stale_next_step(facts: TraceFacts) -> Iterator[Hit]:
    for generation, claim, run in _next_steps(facts, finished_step):
        yield Hit(generation.generation.index,
                  f"{generation.generation.label} leaves {_said(claim)} to do, but `{clip(run.command, 80)}` "
                  "already ran cleanly before the compaction, with no edit after it",
                  claim.start, claim.end, _evidence(claim, "its command already ran cleanly") | {"run": run.key},
                  source=_record_quote(run.key, run.command))  # fmt: skip


def _next_steps(facts: TraceFacts, ask: Callable[[str, Split], _Found | None]
                ) -> Iterator[tuple[GenerationFacts, Claim, _Found]]:  # fmt: skip
    """Each summary's pending task or next step with what `ask` finds of it in the log, a step it finds nothing of
    left out; each summary cut once, and only once it has a step."""
    for generation, claims in _claiming(facts, ClaimKind.NEXT_STEP):
        split: Split | None = None
        for claim in claims:
            split = split or split_at(facts, generation.generation)
            found = ask(claim.text, split)
            if found is not None:
                yield generation, claim, found


@rule(
    "refused-next-step",
    Severity.WARNING,
    "A summary's pending task or next step makes a call the user refused the last time the agent made it before the "
    "compaction (a push, a commit), with no word of the user's since asking for it again: the next agent makes it "
    "again against the user's choice. An error once the user has refused it twice.",
)
def refused_next_step(facts: TraceFacts) -> Iterator[Hit]:
    """The summary may even tell the refusal and still list the call as owed (ovid_cad3cdc9's S1: "approve push...
    but then rejected the push tool use", then "Push updated commits to PR #18" under its pending tasks); the agent
    that read it pushed and was refused again. Twice refused (`Config.refusals_for_error`) is an error."""
    for generation, claim, (run, before, after) in _next_steps(facts, refused_step):
        label = generation.generation.label
        said = (f"the user refused the agent's `{clip(run.command, 80)}`{_times(before)} and nothing ran it since"
                + (f"; after {label} the agent made it again and the user refused it{_times(after)}" if after
                   else ""))  # fmt: skip
        yield Hit(generation.generation.index, f"{label} leaves {_said(claim)} to do, but {said}", claim.start,
                  claim.end, _evidence(claim, said) | {"run": run.key, "refusals": before + after},
                  source=_record_quote(run.key, run.command),
                  severity=Severity.ERROR if before + after >= facts.config.refusals_for_error else None)


def _times(count: int) -> str:
    return "" if count == 1 else " twice" if count == 2 else f" {count} times"


__all__ = ["CLAIM_RULES"]
