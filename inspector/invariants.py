"""Invariants: find an item, word for word and force for force, in a generation.

Items are mined once for every trace (`inspector.items`); this module matches the ones a trace declares
(`Invariant.declared`), each word of which its author chose, and holds the sentence index every matcher
searches. The second note's failure is a constraint kept in S₁, paraphrased in S₂, gone in S₃. Matching is
deterministic so a reviewer can see why: the best sentence by shared content terms (rapidfuzz absorbs
inflections), then a check that the invariant's force survived: its negation, its strong modal, its
condition ("until…"), its values. Topic kept but force lost is *weakened*, the dangerous middle state.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property, lru_cache
from itertools import chain

from rapidfuzz import fuzz, process

from inspector.config import DEFAULT_CONFIG, Config
from inspector.languages import language_of
from inspector.statement_force import NEGATING
from inspector.text import Sentence, content_terms, normalise, sentence_terms, sentences, stem, words


class InvariantStatus(StrEnum):
    VERBATIM = "verbatim"
    PARAPHRASED = "paraphrased"
    WEAKENED = "weakened"
    LOST = "lost"
    NOT_INTRODUCED = "not-yet-introduced"
    UNKNOWN = "unknown"
    """The generation's text is unavailable (e.g. an encrypted summary)."""
    RETIRED = "retired"
    """Superseded by a later record this generation covers: no longer owed."""


PRESERVATION_WEIGHT: dict[InvariantStatus, float] = {
    InvariantStatus.VERBATIM: 1.0,
    InvariantStatus.PARAPHRASED: 1.0,
    InvariantStatus.WEAKENED: 0.5,
    InvariantStatus.LOST: 0.0,
}
"""How much of an invariant's meaning a status keeps; the fidelity measures are built on it."""

PRESENT = frozenset({InvariantStatus.VERBATIM, InvariantStatus.PARAPHRASED, InvariantStatus.WEAKENED})
"""Statuses in which a state still carries the item: weakened too, since its topic is there to be checked."""

# --- values ------------------------------------------------------------------------------


def values_in(text: str) -> set[str]:
    """The values a text states (`_VALUE`), lower-cased: what 'value lost', 'contradicted' and a superseded value
    coming back compare."""
    return {value.lower() for value in _VALUE.findall(text)}


# --- matching ------------------------------------------------------------------------------

_FORCE_MARKERS: dict[str, frozenset[str]] = {
    "negation": NEGATING,
    "strong modal": frozenset("must always required require requires shall only mandatory".split()),
    "condition": frozenset("until unless before after if while except once".split()),
    "failure mark": frozenset(
        "fail fails failed failing failure error errors broken unresolved counterexample counter-example".split()
    ),
    "completion mark": frozenset("already completed done finished merged deployed released applied".split()),
}
_FORCE_STEMS = frozenset(stem(m) for group in _FORCE_MARKERS.values() for m in group)
_WEAK_MODALS = frozenset("should may might could consider prefer ideally try probably optionally perhaps".split())
_VALUE = re.compile(r"\b(?:[\w.:/-]*\d[\w.:/-]*|[A-Z][A-Z0-9]*_[A-Z0-9_]+)\b")
"""A value: a token with a digit (8443, v3, 2026-12-01, pg15) or an upper-case identifier with an underscore
(DATABASE_URL). Not emphasis or acronyms (NEVER, API), nor quoting: summaries recase and requote freely."""


@dataclass(frozen=True, slots=True)
class InvariantMatch:
    """Where and how well an invariant survives in one generation."""

    status: InvariantStatus
    start: int | None = None
    end: int | None = None
    matched_text: str | None = None
    reason: str = ""


class IndexedText:
    """A generation's text split into sentences with an inverted term index, built once, reused."""

    def __init__(self, text: str, spans: list[Sentence] | None = None) -> None:
        """`spans` are the text's sentences when the caller has already split it."""
        self.text = text
        self.sentences: list[Sentence] = sentences(text) if spans is None else spans
        self.terms: list[frozenset[str]] = [sentence_terms(s.text) for s in self.sentences]
        self.index: dict[str, list[int]] = defaultdict(list)
        for position, terms in enumerate(self.terms):
            for term in terms:
                self.index[term].append(position)

    @cached_property
    def language(self) -> str | None:
        """The language the text is written in (`languages.language_of`), told once per text."""
        return language_of(self.text)

    @cached_property
    def vocabulary(self) -> list[str]:
        # Sorted: the index's key order follows set iteration (PYTHONHASHSEED) and extractOne keeps the first tie.
        return sorted(self.index)

    @cached_property
    def _starts(self) -> list[int]:
        return [s.start for s in self.sentences]

    def sentence_at(self, offset: int) -> int | None:
        """Position of the sentence containing a character offset."""
        position = bisect_right(self._starts, offset) - 1
        return position if position >= 0 and offset < self.sentences[position].end else None

    def shared_terms(self, terms: Iterable[str]) -> dict[int, int]:
        """For every sentence sharing a term with `terms`, how many it shares, in sentence order.

        Callers break ties by this order (a stable sort, `max`, a strict `>`); built by iterating a set, it
        would follow PYTHONHASHSEED and flip an item between weakened and lost from one run to the next.
        """
        return dict(sorted(self.overlaps(terms).items()))

    def overlaps(self, terms: Iterable[str]) -> Counter[int]:
        """`shared_terms` unordered, for callers that break ties themselves: counted in C, not sorted."""
        index = self.index
        return Counter(chain.from_iterable(index.get(term, ()) for term in set(terms)))

    @cached_property
    def lowered(self) -> str:
        return self.text.lower()


@lru_cache(maxsize=8192)
def _topic_terms(invariant_text: str) -> frozenset[str]:
    """What an item is about, without its force words: the same for every generation it is matched in."""
    return frozenset(content_terms(invariant_text) - _FORCE_STEMS)


@lru_cache(maxsize=8192)
def _markers(text: str) -> tuple[dict[str, bool], frozenset[str]]:
    """Force markers present and values printed (cached: items and sentences recur across generations)."""
    tokens = set(words(text)) | {p for p in ("do not", "must not") if p in text.lower()}
    present = {name: bool(tokens & markers) for name, markers in _FORCE_MARKERS.items()}
    return present, frozenset(values_in(text))


def fuzzy_terms(terms: set[str], indexed: IndexedText, *, config: Config = DEFAULT_CONFIG) -> dict[str, str]:
    """Map each invariant term to the generation's term it stands for (exact stem, else rapidfuzz at or above
    `config.fuzzy_term_score`)."""
    mapped: dict[str, str] = {}
    for term in terms:
        if term in indexed.index:
            mapped[term] = term
        elif len(term) >= config.fuzzy_min_length:
            hit = process.extractOne(term, indexed.vocabulary, scorer=fuzz.ratio, score_cutoff=config.fuzzy_term_score)
            if hit is not None:
                mapped[term] = hit[0]
    return mapped


@lru_cache(maxsize=8192)
def _verbatim_pattern(invariant_text: str) -> re.Pattern[str] | None:
    """The item's words in order, any punctuation or spacing between: compiled once per item.

    Each item is searched for in every generation; `re`'s own cache holds 512 patterns, fewer than
    a long session's items, so without this every search compiled its pattern again.
    """
    tokens = [re.escape(w) for w in re.findall(r"\w+", invariant_text.lower())]
    return re.compile(r"\W+".join(tokens)) if tokens else None


def _verbatim(invariant_text: str, indexed: IndexedText) -> tuple[int, int] | None:
    pattern = _verbatim_pattern(invariant_text)
    found = pattern.search(indexed.lowered) if pattern is not None else None
    return found.span() if found else None


_NO_SENTENCE = InvariantMatch(InvariantStatus.LOST, reason="no sentence carries its terms")
"""Shared (matches are immutable): most items are absent from most states of a long session."""


def match_invariant(invariant_text: str, indexed: IndexedText, *, config: Config = DEFAULT_CONFIG) -> InvariantMatch:
    """Classify how `invariant_text` survives in an indexed generation text."""
    span = _verbatim(invariant_text, indexed)
    if span is not None:
        return InvariantMatch(InvariantStatus.VERBATIM, span[0], span[1], indexed.text[span[0] : span[1]])

    terms, (inv_markers, inv_values) = _topic_terms(invariant_text), _markers(invariant_text)
    if not terms:
        return InvariantMatch(InvariantStatus.LOST, reason="nothing to match on")
    hits = indexed.shared_terms(fuzzy_terms(terms, indexed, config=config).values())

    best: InvariantMatch | None = None
    for position, shared in sorted(hits.items(), key=lambda item: -item[1])[: config.topic_candidates]:
        sentence = indexed.sentences[position]
        coverage = shared / len(terms)
        focus = shared / max(1, len(indexed.terms[position]))
        off_topic = coverage < config.lost_coverage and focus < config.sentence_focus
        if shared < min(config.min_terms, len(terms)) or off_topic:
            continue
        candidate = _judge(invariant_text, sentence, coverage, inv_markers, inv_values, config)
        if best is None or rank(candidate) > rank(best):
            best = candidate
    return best or _NO_SENTENCE


def rank(match: InvariantMatch) -> int:
    return {InvariantStatus.VERBATIM: 3, InvariantStatus.PARAPHRASED: 2, InvariantStatus.WEAKENED: 1}.get(
        match.status, 0
    )


def _judge(
    invariant_text: str,
    sentence: Sentence,
    coverage: float,
    inv_markers: dict[str, bool],
    inv_values: set[str],
    config: Config,
) -> InvariantMatch:
    sent_markers, sent_values = _markers(sentence.text)
    lost = [name for name, present in inv_markers.items() if present and not sent_markers[name]]
    missing_values = sorted(inv_values - sent_values)
    weak_modal = inv_markers["strong modal"] and bool(set(words(sentence.text)) & _WEAK_MODALS)
    reasons = [f"{name} lost" for name in lost]
    if missing_values:
        reasons.append(f"value {', '.join(missing_values)} missing")
    if weak_modal:
        reasons.append("modal downgraded")
    where = dict(start=sentence.start, end=sentence.end, matched_text=sentence.text)
    if reasons:
        return InvariantMatch(InvariantStatus.WEAKENED, reason="; ".join(reasons), **where)
    if coverage < config.kept_coverage:
        return InvariantMatch(InvariantStatus.WEAKENED, reason=f"only {coverage:.0%} of its terms kept", **where)
    if fuzz.ratio(normalise(invariant_text), normalise(sentence.text)) >= config.verbatim_ratio:
        return InvariantMatch(InvariantStatus.VERBATIM, **where)
    return InvariantMatch(InvariantStatus.PARAPHRASED, reason=f"{coverage:.0%} of its terms kept", **where)


def best_match(
    texts: Sequence[str], indexed: Sequence[IndexedText], *, config: Config = DEFAULT_CONFIG
) -> InvariantMatch:
    """The strongest survival among several wordings (e.g. the text and a manifest entry)."""
    matches = [match_invariant(text, target, config=config) for text in texts for target in indexed]
    return max(matches, key=rank, default=InvariantMatch(InvariantStatus.LOST))


__all__ = ["IndexedText", "InvariantMatch", "InvariantStatus", "PRESENT", "PRESERVATION_WEIGHT",
           "best_match", "fuzzy_terms", "match_invariant", "rank", "values_in"]  # fmt: skip
