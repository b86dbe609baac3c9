"""Invariant rules: a constraint weakened or lost, a corrected value back, debt left unpaid."""

from __future__ import annotations

from collections.abc import Iterator

from inspector.facts import InvariantTrack, TraceFacts
from inspector.invariants import PRESENT, InvariantStatus, values_in
from inspector.model import Severity, SourceQuote, SourceRecord
from inspector.rule_registry import Hit, rule
from inspector.text import clip, content_terms, quoted, quoted_name, sentences

_NO_RUN = (InvariantStatus.NOT_INTRODUCED, InvariantStatus.UNKNOWN, InvariantStatus.RETIRED)
"""Statuses that neither end nor start a run of one status."""


def _transitions(track: InvariantTrack, target: InvariantStatus, focus: int | None = None) -> Iterator[int]:
    """Generations where the invariant enters `target` from any other known status, or on arrival (at the
    `focus` alone, when there is one).

    Any: a lost item that comes back weakened is reported weakened there (LOST → WEAKENED), as is a kept one
    that weakens. Unknown, not-yet-introduced and retired states are skipped: they neither end nor start a run.
    """
    if focus is not None:
        if track.statuses[focus] is target and track.status_before(focus, _NO_RUN) is not target:
            yield focus
        return
    previous: InvariantStatus | None = None
    for k, status in enumerate(track.statuses):
        if status in _NO_RUN:
            continue
        if status is target and previous is not target:
            yield k
        previous = status


def _declared(facts: TraceFacts) -> list[InvariantTrack]:
    """The items a trace declares (its own list, typed records, a manifest): matched word for word, and reported
    by these rules; mined items have rules of their kind (`inspector.detectors.items`)."""
    return [t for t in facts.invariants if t.invariant.declared]


def _stating(record: SourceRecord, values: set[str]) -> SourceQuote:
    """The correction's sentence that gives the new value: what a reviewer checks the relapse against."""
    stating = next((s.text for s in sentences(record.text) if values_in(s.text) & values), record.text)
    return SourceQuote(record.key, clip(stating, 300))


def _describe(track: InvariantTrack) -> str:
    """A declared item by its kind and words; a kind named for the user ("user-requirement") without "user-":
    the trace declared it, and who said it is the trace's to say."""
    item = track.invariant
    kind = item.kind.value.removeprefix("user-") if item.declared else item.kind.value
    return f"{kind} {quoted(item.text, 90)}"


@rule(
    "invariant-weakened",
    Severity.ERROR,
    "An invariant's topic survives but its force does not: negation, strong modal, condition or value lost.",
)
def invariant_weakened(facts: TraceFacts) -> Iterator[Hit]:
    for track in _declared(facts):
        for k in _transitions(track, InvariantStatus.WEAKENED, facts.focus):
            if facts.generations[k].is_summary:
                match = track.matches[k]
                yield Hit(
                    k,
                    f"{_describe(track)} weakened ({match.reason})",
                    match.start,
                    match.end,
                    {"invariant": track.invariant.id, "reason": match.reason, "wording": match.matched_text},
                    source=track.source_quote,
                )


@rule("invariant-lost", Severity.ERROR, "An invariant whose source this state covers appears nowhere in it.")
def invariant_lost(facts: TraceFacts) -> Iterator[Hit]:
    for track in _declared(facts):
        for k in _transitions(track, InvariantStatus.LOST, facts.focus):
            if facts.generations[k].is_summary:
                yield Hit(k, f"{_describe(track)} is gone", evidence={"invariant": track.invariant.id},
                          source=track.source_quote)


@rule(
    "superseded-fact-resurfaced",
    Severity.ERROR,
    "A value that a later source record corrected reappears in a state that covers the correction.",
)
def superseded_fact_resurfaced(facts: TraceFacts) -> Iterator[Hit]:
    records = {s.key: s for s in facts.trace.sources}
    for correction in facts.trace.sources:
        old = records.get(correction.supersedes or "")
        if old is None:
            continue
        # A correction often repeats the old value ("250, not 500"), so stale = the old record's values
        # and fresh = what only the correction says; a sentence with stale and no fresh value is a relapse.
        fresh = values_in(correction.text) - values_in(old.text)
        stale = values_in(old.text) - fresh
        topic = content_terms(old.text) & content_terms(correction.text)
        if not stale or not fresh:
            continue
        for generation in facts.judged():
            if correction.key not in generation.generation.covers or generation.indexed is None:
                continue
            for position, sentence in enumerate(generation.indexed.sentences):
                found = values_in(sentence.text)
                on_topic = not topic or topic & generation.indexed.terms[position]
                if found & stale and not found & fresh and on_topic:
                    value = sorted(found & stale)[0]
                    yield Hit(
                        generation.generation.index,
                        f"superseded value {quoted_name(value)} from {quoted_name(old.key)} is back; "
                        f"{quoted_name(correction.key)} corrected it",
                        sentence.start,
                        sentence.end,
                        {"superseded": old.key, "correction": correction.key, "value": value},
                        source=_stating(correction, fresh),
                    )
                    break


@rule(
    "recompaction-depth",
    Severity.WARNING,
    "An invariant has been inherited through more summaries than allowed without a check against its source.",
    session_severity=Severity.INFO,
)
def recompaction_depth(facts: TraceFacts) -> Iterator[Hit]:
    limit = facts.config.max_unchecked_depth
    if facts.session_log:
        yield from _session_debt(facts, limit)
        return
    for track in facts.invariants:
        for k, depth in enumerate(track.depths):
            if depth is not None and depth > limit and track.statuses[k] in PRESENT:
                yield Hit(
                    k,
                    f"{_describe(track)} is {depth} summaries from its source (limit {limit})",
                    track.matches[k].start,
                    track.matches[k].end,
                    {"invariant": track.invariant.id, "depth": depth},
                    source=track.source_quote,
                )
                break


def _session_debt(facts: TraceFacts, limit: int) -> Iterator[Hit]:
    """On a session log, debt is advice: one note per summary, listing the items past the limit."""
    for generation in facts.judged():
        k = generation.generation.index
        deep = [t for t in facts.invariants if (t.depths[k] or 0) > limit and t.statuses[k] in PRESENT]
        if deep:
            yield Hit(
                k,
                f"{len(deep)} items are more than {limit} summaries from their source; a refresh would re-check them",
                evidence={"invariants": [t.invariant.id for t in deep]},
            )


__all__: list[str] = []  # importing this module registers its rules; they are reached through the registry
