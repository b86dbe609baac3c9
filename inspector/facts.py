"""Per-trace facts every detector reads: computed once, as plain functions of a loaded trace.

Detectors stay small because the expensive work (resolving anchors, matching invariants in every
generation) happens here once; each rule then only decides what counts as a failure.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from itertools import islice
from typing import Any

from inspector.anchors import Anchor, AnchorIndex, AnchorStatus, ResolvedAnchor, extract_anchors
from inspector.completeness import CompletenessClaim, find_claims
from inspector.config import DEFAULT_CONFIG, Config
from inspector.elision import Elision, anchor_density, find_elisions
from inspector.invariants import (
    PRESERVATION_WEIGHT,
    IndexedText,
    InvariantMatch,
    InvariantStatus,
    best_match,
    match_invariant,
    rank,
)
from inspector.item_matching import ITEM_MATCHERS
from inspector.items import trace_items
from inspector.model import PASTED_ANALYSIS, TRANSCRIPT, Generation, Invariant, SourceQuote, SourceRecord, Trace
from inspector.moves import entered_folders, moves
from inspector.per_state import PerState
from inspector.places import RecordPlaces, extends, first_covered
from inspector.printed_figures import PrintedFigures
from inspector.shell_runs import Failure, ShellRun, log_failures, log_runs
from inspector.summary_claims import Claim, claims_in
from inspector.text import Sentence, sentences

_BLANK = re.compile(r"[^\n]")


def _spans(text: str | None, spans: object) -> tuple[tuple[int, int], ...]:
    """A reader's spans of a generation's text, in order. A native file can carry anything in `extra`: what is
    not an integer pair inside the text is dropped."""
    if text is None or not isinstance(spans, list):
        return ()
    found = []
    for span in spans:
        if isinstance(span, list | tuple) and len(span) == 2 and all(type(p) is int for p in span):
            start, end = max(0, span[0]), min(len(text), span[1])
            if start < end:
                found.append((start, end))
    return tuple(sorted(found))


class GenerationFacts:
    """Facts of one state, each computed on first use.

    The rules read every summary's facts but never the raw S0's (no rule fires on the raw context),
    and S0 is the biggest text of a session log: about a context window of turns. So analysing and
    scanning never pay for S0; a view or a report that shows it does.
    """

    def __init__(self, generation: Generation, index: AnchorIndex | None = None, config: Config | None = None) -> None:
        self.generation = generation
        self._index = index or AnchorIndex(())
        self._config = config or DEFAULT_CONFIG

    @cached_property
    def boilerplate(self) -> tuple[tuple[int, int], ...]:
        """Spans of the harness's fixed text its reader marked (`extra["boilerplate"]`), in order."""
        return _spans(self.generation.text, self.generation.extra.get("boilerplate"))

    @cached_property
    def pasted(self) -> tuple[tuple[int, int], ...]:
        """Spans of text the harness pasted into the summary as it stored it, which its model never wrote: copies of
        the summary's own analysis its reader marked (`inspector.readers.pasted_analysis`), in order."""
        return _spans(self.generation.text, self.generation.extra.get(PASTED_ANALYSIS))

    @cached_property
    def not_analysed(self) -> tuple[tuple[int, int], ...]:
        """The harness's text in the summary: its fixed lines and what it pasted in, in order."""
        return tuple(sorted(self.boilerplate + self.pasted))

    @cached_property
    def analysed_text(self) -> str | None:
        """The text the analyses read: the harness's text blanked to spaces (line breaks kept), so offsets stay
        valid."""
        text = self.generation.text
        for start, end in self.not_analysed:
            text = text[:start] + _BLANK.sub(" ", text[start:end]) + text[end:]  # type: ignore[index]
        return text

    @cached_property
    def printed(self) -> tuple[Anchor, ...]:
        text = self.analysed_text
        return tuple(extract_anchors(text, self._config.anchor_patterns)) if text is not None else ()

    @cached_property
    def anchors(self) -> tuple[ResolvedAnchor, ...]:
        """Each printed key resolved against what the state could have seen: the records before its
        compaction (placed at its index or earlier, `inspector.places`), never those written after it."""
        self._index.prepare(a.key for a in self.printed)  # one pass over the transcript for all its keys
        cut = self.generation.index
        return tuple(self._index.resolve(anchor, cut) for anchor in self.printed)

    @cached_property
    def sentences(self) -> list[Sentence]:
        return sentences(self.analysed_text) if self.analysed_text is not None else []

    def names_a_file(self, anchor: Anchor) -> bool:
        """Whether the key is the stem of a file the log names (`AnchorIndex.names_a_file`)."""
        return self._index.names_a_file(anchor.key)

    def bound_later(self, anchor: Anchor) -> bool:
        """Whether a record after this state's compaction bears the key it could not resolve: the path is real, the
        log shows it only later."""
        return self._index.resolve(anchor).status is not AnchorStatus.UNRESOLVED

    @cached_property
    def indexed(self) -> IndexedText | None:
        """Sentences with their content terms: what invariant matching needs, and dearer than sentences."""
        return IndexedText(self.analysed_text, self.sentences) if self.analysed_text is not None else None

    @cached_property
    def elisions(self) -> tuple[Elision, ...]:
        text = self.analysed_text
        if text is None:
            return ()
        keyed = [a.anchor for a in self.anchors]
        return tuple(find_elisions(text, keyed, self._config.elision_lexicon, self.sentences))

    @cached_property
    def claims(self) -> tuple[CompletenessClaim, ...]:
        return tuple(find_claims(self.analysed_text)) if self.analysed_text is not None else ()

    @cached_property
    def status_claims(self) -> tuple[Claim, ...]:
        """What the summary says happened (statuses, results, brevity, next steps), the harness's text left out."""
        text = self.generation.text
        return tuple(claims_in(text, self.not_analysed)) if text is not None and self.is_summary else ()

    @property
    def density(self) -> float | None:
        if self.generation.text is None:
            return None
        return anchor_density(len(self.anchors), len(self.elisions))

    @property
    def is_summary(self) -> bool:
        return self.generation.kind == "summary"

    def anchors_with(self, status: AnchorStatus) -> list[ResolvedAnchor]:
        return [a for a in self.anchors if a.status is status]

    @property
    def anchor_keys(self) -> set[str]:
        return {a.anchor.key for a in self.anchors}


@dataclass(frozen=True, slots=True)
class InvariantTrack:
    """One invariant across the chain: how it survives and how long since it met its source."""

    invariant: Invariant
    matches: Sequence[InvariantMatch]
    """The item's match in each state: a tuple, or a `PerState` in a focused analysis (`focused_track`)."""
    depths: Sequence[int | None]
    """Compaction debt per generation: lossy steps since last checked against source (None: absent)."""
    statuses: Sequence[InvariantStatus] = field(init=False, repr=False, compare=False)
    """The matches' statuses, kept: fidelity reads one per item per generation, 200 × 200 × items."""

    def __post_init__(self) -> None:
        matches = self.matches
        statuses = (PerState(len(matches), lambda k: matches[k].status) if isinstance(matches, PerState)
                    else tuple(m.status for m in matches))  # fmt: skip
        object.__setattr__(self, "statuses", statuses)

    def status_before(self, k: int, skipped: Collection[InvariantStatus]) -> InvariantStatus | None:
        """The item's status in the nearest state before `k` whose status is not one of `skipped` (None: none is):
        what a rule judging state `k` alone compares it with, as its walk through every state would."""
        return next((s for j in range(k - 1, -1, -1) if (s := self.statuses[j]) not in skipped), None)

    @property
    def source_quote(self) -> SourceQuote | None:
        """The record the item was said in and its whole sentence: the evidence every finding about this
        item carries, so a reviewer checks it against the log (None for a declared item with no source)."""
        key = self.invariant.source_key
        return SourceQuote(key, self.invariant.quote or self.invariant.text) if key else None


def invariant_universe(trace: Trace, config: Config = DEFAULT_CONFIG) -> list[Invariant]:
    """The trace's own list of items where it has one, else its items mined (`items.trace_items`); plus the
    items only a compactor's manifest names."""
    if trace.invariants is not None:
        universe = [replace(inv, declared=True) for inv in trace.invariants]
    else:
        universe = trace_items(trace.sources, declares=not trace.is_session_log, config=config)
    known = {inv.id for inv in universe}
    for generation in trace.generations:
        for item in generation.manifest or ():
            if item.id not in known:
                universe.append(replace(item, declared=True))
                known.add(item.id)
    return universe


def new_keys(state: Generation, parent: Generation) -> list[str]:
    """Keys a state covers that its parent did not: the span of the log its compaction summarised."""
    if extends(state.covers, parent.covers):
        return list(islice(state.covers, len(parent.covers), None))
    before = set(parent.covers)
    return [key for key in state.covers if key not in before]


def introduced_at(
    invariant: Invariant, trace: Trace, first_cover: Mapping[str, int], source_keys: frozenset[str]
) -> int | None:
    """First generation responsible for the invariant: the one that first covers its source record."""
    if invariant.source_key is not None and invariant.source_key in source_keys:
        return first_cover.get(invariant.source_key)
    if trace.invariants is not None and any(invariant.id == declared.id for declared in trace.invariants):
        return 0
    return next(
        (g.index for g in trace.generations if any(_same_item(m, invariant) for m in g.manifest or ())), None
    )


def retired_at(invariant: Invariant, successors: dict[str, list[str]], first_cover: Mapping[str, int]) -> int | None:
    """First generation that covers a record superseding or retiring the item: it is no longer owed."""
    later = [*successors.get(invariant.source_key or "", []), *([invariant.retired_by] if invariant.retired_by else [])]
    return min((first_cover[key] for key in later if key in first_cover), default=None)


def track_invariant(
    invariant: Invariant,
    facts: Sequence[GenerationFacts],
    start: int | None,
    retired: int | None = None,
) -> InvariantTrack:
    """The item in every state."""
    matches: list[InvariantMatch] = []
    depths: list[int | None] = []
    for generation_facts in facts:
        if retired is not None and generation_facts.generation.index >= retired:
            matches.append(_RETIRED)
            depths.append(None)
            continue
        match = _match_in_generation(invariant, generation_facts, start)
        matches.append(match)
        generation = generation_facts.generation
        parent_depth = depths[generation.parent] if generation.parent is not None else None
        depths.append(next_depth(parent_depth, match.status, generation.kind == "raw" or generation.refreshed))
    return InvariantTrack(invariant, tuple(matches), tuple(depths))


def focused_track(
    invariant: Invariant,
    facts: Sequence[GenerationFacts],
    start: int | None,
    retired: int | None = None,
) -> InvariantTrack:
    """The item in every state as `track_invariant` finds it, each state matched only when a rule reads it: what
    an analysis judging one summary pays for (`compute_facts(focus=…)`)."""

    def match_at(k: int) -> InvariantMatch:
        if retired is not None and facts[k].generation.index >= retired:
            return _RETIRED
        return _match_in_generation(invariant, facts[k], start)

    matches = PerState(len(facts), match_at)

    def depth_at(k: int) -> int | None:
        """`track_invariant`'s depth, its unread ancestors worked out from the top down (a chain of 364 summaries
        would otherwise recurse 364 deep)."""
        unread, parent = [], facts[k].generation.parent
        while parent is not None and not depths.read(parent):
            unread.append(parent)
            parent = facts[parent].generation.parent
        for ancestor in reversed(unread):
            depths[ancestor]
        generation = facts[k].generation
        if retired is not None and generation.index >= retired:
            return None
        parent_depth = depths[generation.parent] if generation.parent is not None else None
        return next_depth(parent_depth, matches[k].status, generation.kind == "raw" or generation.refreshed)

    depths: PerState[int | None] = PerState(len(facts), depth_at)
    return InvariantTrack(invariant, matches, depths)


_RETIRED = InvariantMatch(InvariantStatus.RETIRED, reason="superseded by a later record")
_NOT_INTRODUCED = InvariantMatch(InvariantStatus.NOT_INTRODUCED)
"""Shared: matches are immutable, and half of a long session's (item, state) pairs are this one."""


def _match_in_generation(invariant: Invariant, facts: GenerationFacts, start: int | None) -> InvariantMatch:
    """How a state carries the item: a mined one by its kind's matcher (`item_matching.ITEM_MATCHERS`, by topic),
    a declared one word for word and force for force, in the text or in the state's manifest."""
    generation = facts.generation
    if start is None or generation.index < start:
        return _NOT_INTRODUCED
    if generation.kind == "raw":
        # The raw context is the source itself: the item is there by construction. Where it sits is
        # only needed to show it (`shown_match`), and searching S0 for every item costs a check dearly.
        return InvariantMatch(InvariantStatus.VERBATIM)
    config = facts._config
    matcher = None if invariant.declared else ITEM_MATCHERS.get(invariant.kind)
    if matcher is not None and facts.indexed is not None:
        return matcher(invariant, facts.indexed, config)
    in_text = match_invariant(invariant.text, facts.indexed, config=config) if facts.indexed else None
    manifest = [IndexedText(m.text) for m in generation.manifest or () if _same_item(m, invariant)]
    in_manifest = best_match([invariant.text], manifest, config=config) if manifest else None
    if in_manifest is not None and (in_text is None or rank(in_manifest) > rank(in_text)):
        return InvariantMatch(in_manifest.status, reason="carried by the compactor's manifest")
    return in_text or InvariantMatch(InvariantStatus.UNKNOWN, reason="summary text unavailable")


def shown_match(track: InvariantTrack, facts: GenerationFacts) -> InvariantMatch:
    """The track's match in this state with its span: found on demand in the raw context."""
    match = track.matches[facts.generation.index]
    if facts.generation.kind != "raw" or match.start is not None or match.status is not InvariantStatus.VERBATIM:
        return match
    indexed = facts.indexed
    found = match_invariant(track.invariant.text, indexed, config=facts._config) if indexed is not None else None
    if found is None or found.start is None:
        return match
    return InvariantMatch(InvariantStatus.VERBATIM, found.start, found.end, found.matched_text)


def _same_item(item: Invariant, invariant: Invariant) -> bool:
    return item.id == invariant.id or (item.source_key is not None and item.source_key == invariant.source_key)


def next_depth(parent_depth: int | None, status: InvariantStatus, grounded: bool) -> int | None:
    """Generation depth since the item was last grounded (raw and refreshed states are), given its parent's.

    None where the state does not hold the item; an unknown status (text unavailable) keeps counting, since
    nothing checked the item there. The refresh-policy simulation steps depths with this same function.
    """
    if status in (InvariantStatus.NOT_INTRODUCED, InvariantStatus.LOST, InvariantStatus.RETIRED):
        return None
    if grounded:
        return 0
    return 1 if parent_depth is None else parent_depth + 1


def _weight(status: InvariantStatus) -> float | None:
    return PRESERVATION_WEIGHT.get(status)


def fidelity_to_source(statuses: Sequence[InvariantStatus]) -> float | None:
    """Source→current: mean preservation weight over the invariants a state covers (statuses at k)."""
    weights = [w for status in statuses if (w := _weight(status)) is not None]
    return sum(weights) / len(weights) if weights else None


def fidelity_to_parent(parent: Sequence[InvariantStatus], child: Sequence[InvariantStatus]) -> float | None:
    """Parent→child: over what the parent carried (w > 0), the mean of min(1, w_child / w_parent)."""
    ratios = []
    for before_status, after_status in zip(parent, child, strict=True):
        before, after = _weight(before_status), _weight(after_status)
        if before and after is not None:
            ratios.append(min(1.0, after / before))
    return sum(ratios) / len(ratios) if ratios else None


def source_fidelity(tracks: Sequence[InvariantTrack], k: int) -> float | None:
    return fidelity_to_source([t.statuses[k] for t in tracks])


def local_fidelity(tracks: Sequence[InvariantTrack], k: int, parent: int | None) -> float | None:
    if parent is None:
        return None
    return fidelity_to_parent([t.statuses[parent] for t in tracks], [t.statuses[k] for t in tracks])


@dataclass(frozen=True)
class TraceFacts:
    """Everything the detectors read about one trace."""

    trace: Trace
    config: Config
    generations: tuple[GenerationFacts, ...]
    invariants: tuple[InvariantTrack, ...]
    session_log: bool = False
    """Items were mined from an agent's session log (not declared): the log is the whole store of evidence
    only for what happened in the session, so a key it never names may still exist on disk."""
    focus: int | None = None
    """The one state rules report on (the guard's newest summary), or None for every state. Rules read what they
    need of the others, and only that is worked out (`focused_track`, `GenerationFacts`' cached facts)."""

    @cached_property
    def source_fidelity(self) -> tuple[float | None, ...]:
        return tuple(source_fidelity(self.invariants, k) for k in range(len(self.generations)))

    @cached_property
    def local_fidelity(self) -> tuple[float | None, ...]:
        return tuple(
            local_fidelity(self.invariants, g.generation.index, g.generation.parent) for g in self.generations
        )

    def summaries(self) -> list[GenerationFacts]:
        return [g for g in self.generations if g.is_summary]

    def judged(self) -> list[GenerationFacts]:
        """The summaries rules report on: every one, or the focus alone (none when the focus is no summary)."""
        if self.focus is None:
            return self.summaries()
        return [g for g in self.generations[self.focus : self.focus + 1] if g.is_summary]

    @cached_property
    def shell_runs(self) -> tuple[ShellRun, ...]:
        """Every shell run of the log with its outcome, read once, as the items read them: each summary's cut
        slices it."""
        return log_runs(self.trace.sources)

    @cached_property
    def run_failures(self) -> tuple[Failure, ...]:
        """Every failure of the log's runs and what retired it, read once, as the items read them: each summary's
        cut takes the ones before it (`shell_runs.failures_before`)."""
        return log_failures(self.shell_runs)

    @cached_property
    def run_places(self) -> tuple[int, ...] | None:
        """Each shell run's place in the log (`log_positions`), when they are in log order as a reader gives them:
        a summary's cut then finds the first run after it by bisection, not by reading every run before it (364
        summaries over a 100 MB log's runs). None when they are out of that order (a run with no place, -1, after
        one with a place)."""
        positions = self.log_positions
        places = tuple(positions.get(run.key, -1) for run in self.shell_runs)
        return places if all(a <= b for a, b in zip(places, places[1:], strict=False)) else None

    @cached_property
    def _runs_by_key(self) -> dict[str, ShellRun]:
        found: dict[str, ShellRun] = {}
        for run in self.shell_runs:
            found.setdefault(run.key, run)
        return found

    def run_of(self, key: str | None) -> ShellRun | None:
        """The shell run a tool result recorded, by the result's key (None: that record is no run)."""
        return self._runs_by_key.get(key) if key is not None else None

    @cached_property
    def log_cuts(self) -> dict[int, Any]:
        """Each summary's cut of the log (`claim_evidence.split_at`), made once for every rule that asks."""
        return {}

    @cached_property
    def printed_figures(self) -> PrintedFigures:
        """The log's figures with their units, read once for every summary's result claims."""
        return PrintedFigures(self.trace.sources)

    @cached_property
    def transcript(self) -> tuple[list[SourceRecord], list[int]]:
        """The log's transcript records in order, and for each place in the log how many of them lie before it: a
        summary's cut is then two slices (`claim_evidence.split_at`), not a pass over the log per summary."""
        records: list[SourceRecord] = []
        before: list[int] = []
        for record in self.trace.sources:
            before.append(len(records))
            if record.namespace == TRANSCRIPT:
                records.append(record)
        before.append(len(records))
        return records, before

    @cached_property
    def log_positions(self) -> dict[str, int]:
        """Each source key's place in the log: where a compaction cuts it (`claim_evidence.split_at`)."""
        return {record.key: position for position, record in enumerate(self.trace.sources)}

    def excerpt(self, generation: int | None, offset: int | None) -> str | None:
        """The sentence of a generation's text holding `offset`: what a finding's span points into."""
        if generation is None or offset is None or not 0 <= generation < len(self.generations):
            return None
        indexed = self.generations[generation].indexed
        position = indexed.sentence_at(offset) if indexed is not None else None
        return indexed.sentences[position].text if position is not None else None


def compute_facts(trace: Trace, config: Config | None = None, focus: int | None = None) -> TraceFacts:
    """The facts rules read; with a `focus`, those of that state and what its rules read of the others, each
    worked out when first read (the findings at the focus are the same as a full analysis's)."""
    config = config or DEFAULT_CONFIG
    first_cover = first_covered(trace.generations)
    places = RecordPlaces(first_cover, session_log=trace.is_session_log)
    index = AnchorIndex(trace.sources, trace.mentions, places, trace.harness_loaded, moves(trace.sources, places),
                        trace.working_folder, entered_folders(trace.sources))
    generations = tuple(GenerationFacts(g, index, config) for g in trace.generations)
    # One pass over the transcript for every key the summaries print (S0's keys, only when shown).
    index.prepare(a.key for g in generations if g.is_summary and (focus is None or g.generation.index == focus)
                  for a in g.printed)  # fmt: skip
    source_keys = frozenset(s.key for s in trace.sources)
    successors: dict[str, list[str]] = {}
    for record in trace.sources:
        if record.supersedes is not None:
            successors.setdefault(record.supersedes, []).append(record.key)
    track = track_invariant if focus is None else focused_track
    tracks = tuple(
        track(
            inv,
            generations,
            introduced_at(inv, trace, first_cover, source_keys),
            retired_at(inv, successors, first_cover),
        )
        for inv in invariant_universe(trace, config)
    )
    return TraceFacts(trace, config, generations, tracks, session_log=trace.is_session_log, focus=focus)


__all__ = ["GenerationFacts", "InvariantTrack", "TraceFacts", "compute_facts",
           "fidelity_to_parent", "fidelity_to_source", "first_covered", "focused_track", "new_keys", "next_depth",
           "shown_match"]  # fmt: skip
