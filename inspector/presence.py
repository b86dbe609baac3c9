"""Presence: whether a summary still carries an item, and whether it calls an open failure fixed.

A summary rarely keeps a user's words verbatim, so an item is looked for by what it is about, not by its
wording: presence is the best share of the item's topic terms one passage carries (fuzzy-mapped, so a near
spelling counts), and whether one of its two-word phrases is there word for word. Words that would match
anything (`GENERIC_TERMS`) are never the evidence. A failure's passage is also read for whether it presents
the failure as fixed, in its own clause or under a heading that says so: a summary that calls an open
failure fixed misleads the next agent more than one that drops it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from inspector.config import DEFAULT_CONFIG, Config
from inspector.invariants import IndexedText, fuzzy_terms
from inspector.languages import same_language
from inspector.model import Invariant
from inspector.summary_claims import named_subjects, says_fixed, steps_heading
from inspector.text import content_terms, stem, words

GENERIC_TERMS = frozenset(
    stem(word)
    for word in """ok okay yes yeah yep nope please think let lets now fine good great thing things something stuff
    want like really maybe probably sure also just actually use using used make get go going need one way bit lot
    well still even right know see look sorta kind sort basically much many new old add added work working done
    want wanted prefer approach keep simple option""".split()
)
"""Words that say nothing about what an item is about: never the evidence that it survived (stemmed, as the
terms they are taken from are)."""


def topic_terms(text: str) -> frozenset[str]:
    """What an item is about: its content terms without words that would match anything."""
    return frozenset(t for t in content_terms(text) if t not in GENERIC_TERMS and not t.isdigit())


def item_terms_text(item: Invariant, summarised: str | None = None) -> str:
    """The words an item is looked for by: its own, and the question it answers, unless the question is in another
    language than the summary's (`summarised`, its `languages.language_of`). The agent asked in the user's
    language ("次にどのようなイニシアチブのエピックスペックを作成しますか？"), the summary was written in English,
    and the question's words, none of which that summary can hold, would only thin the share of the answer's
    ("epic 5")."""
    return f"{item.text} {item.context}" if item.context and same_language(item.context, summarised) else item.text


_STILL_OPEN = re.compile(
    r"\b(?:still|not (?:yet )?(?:fixed|resolved|solved|addressed)|unresolved|unfixed|unaddressed|outstanding|deferred|"
    r"to be (?:fixed|addressed|resolved)|remains?|pending|open|todo|known issue|"
    r"investigat\w*|blocked|fails?|failing|crash(?:es|ing)?|in progress|in the middle of)\b",
    re.IGNORECASE,
)
_SAID_OPEN = re.compile(r"\b(?:(?:fix|work) in progress|in the middle of fixing|not (?:yet )?(?:fixed|resolved)|"
                        r"still (?:fails|failing|broken|open|unresolved)|unresolved)\b", re.IGNORECASE)  # fmt: skip
"""What says outright that a failure is still open, whatever else the line says of a fix ("Fix in progress: change
`condenseAndUpdateState` …", "I was in the middle of fixing the integration test failure")."""
_COUNT = r"\b\d[\d,]*\s+(?:\w+\s+){0,2}"
_FAILED = r"(?<!fixed )(?<!fixes )(?<!fix )\b[1-9][\d,]*\s+(?:\w+\s+){0,2}fail(?:ed|ing)\b"
_FAILURES_TALLIED = re.compile(rf"{_COUNT}pass(?:ed|ing)\b[^\n]{{0,60}}?{_FAILED}|"
                               rf"{_FAILED}[^\n]{{0,60}}?{_COUNT}pass(?:ed|ing)\b", re.IGNORECASE)  # fmt: skip
"""A run's tally that counts failures beside passes, either way round ("1447 tests passed, 1 failed", "Test Files 1
failed | 54 passed"): sequant_170a6d5b's S2 told its one failure so, and "passed" read as the failure fixed."""
_HEADING = re.compile(r"^\s*(?:#{1,6}\s+|\d+\.\s+|\*\*)?(?P<title>[^\n]{3,80}?)(?:\*\*)?:?\s*$")


@dataclass(frozen=True, slots=True)
class Presence:
    """Where and how much of an item one summary carries."""

    coverage: float
    """Best share of the item's topic terms in one passage (a sentence and the next)."""
    phrase: bool
    """One of the item's two-word phrases appears verbatim."""
    start: int | None = None
    end: int | None = None
    passage: str | None = None


def _phrases(text: str) -> list[str]:
    """The item's two-word phrases whose words both say something: looked for verbatim in a summary."""
    tokens = words(text)
    pairs = [f"{a} {b}" for a, b in zip(tokens, tokens[1:], strict=False)]
    return [p for p in pairs if all(content_terms(w) - GENERIC_TERMS for w in p.split())]


def presence(item_text: str, indexed: IndexedText, *, config: Config = DEFAULT_CONFIG) -> Presence:
    """How much of an item a summary carries: the best passage by shared topic terms (fuzzy-mapped)."""
    terms = topic_terms(item_text)
    phrase = any(p in indexed.lowered for p in _phrases(item_text))
    if not terms:
        return Presence(0.0, phrase)
    mapped = fuzzy_terms(set(terms), indexed, config=config)
    wanted = set(mapped.values())
    best: Presence = Presence(0.0, phrase)
    for position in indexed.shared_terms(wanted):
        window = indexed.terms[position] | (indexed.terms[position + 1] if position + 1 < len(indexed.terms) else set())
        shared = sum(1 for term in terms if mapped.get(term) in window)
        coverage = shared / len(terms)
        if coverage > best.coverage and shared >= min(config.min_terms, len(terms)):
            sentence = indexed.sentences[position]
            best = Presence(coverage, phrase, sentence.start, sentence.end, sentence.text)
    return best


_CLAUSE = re.compile(r"[;,]|[.!?:]\s|\s[-–—]\s|\b(?:but|while|whereas|however|although)\b", re.IGNORECASE)
"""Where a line turns from one failure to another: "the first is fixed; the second is still pending"."""


def described_as_fixed(text: str, start: int, passage: str, item_text: str = "") -> bool:
    """Does the summary present this passage as a fix: in its own words, or under a "fixed/solved" heading?

    A passage that calls one thing fixed and another still open ("the first is fixed, the second is pending")
    is read by its clause that carries most of the item's terms: that clause says what became of the item, and
    a clause that says neither leaves the item's status unsaid, which is no fix.
    """
    heading = _heading_above(text, start)
    if steps_heading(heading):
        return False  # a line of what is left to do ("Run `task ci` to verify full CI passes") tells no outcome
    if _FAILURES_TALLIED.search(passage):
        return False  # "1447 tests passed, 1 failed": a run's tally that still counts failures fixed nothing
    fixed, still_open = says_fixed(passage), _STILL_OPEN.search(passage)
    if still_open and not fixed:
        return False
    if fixed and not still_open:
        return True
    if fixed and still_open:
        terms = topic_terms(item_text)
        clause = max(_CLAUSE.split(passage), key=lambda c: len(terms & topic_terms(c)))
        return says_fixed(clause) and not _STILL_OPEN.search(clause)
    return heading is not None and says_fixed(heading)


def told_open(text: str, names: frozenset[str]) -> bool:
    """Does a line of the summary that names what failed (one of `names`, its programs, tests and files by stem:
    `shell_runs.failure_subjects`) say outright that it is still open (`_SAID_OPEN`)? Then the summary does not
    present it as fixed, whatever another of its lines says: cli_9e2434f3's S1 told the failing integration test
    "failed. The issue: after Bug 3 fix …" in its account of the work, and "Fix in progress" under "Errors and fixes",
    and the first line's "fix" of another bug read as this one fixed."""
    return any(subjects & names for subjects in _told_open_subjects(text))


@lru_cache(maxsize=8)
def _told_open_subjects(text: str) -> tuple[frozenset[str], ...]:
    """What each line of a summary that says a failure is still open names: read once per summary, where each of its
    passing claims asks (243 times over 109 summaries of 22 KB, 5% of a report of them, line by line each time). The
    bound holds the summaries a rule walks at once: one, and its parent."""
    return tuple(named_subjects(line) for line in text.splitlines() if _SAID_OPEN.search(line))


def _heading_above(text: str, start: int) -> str | None:
    """The title of the nearest heading above `start` (a line ending in a colon, a markdown heading, a bold or numbered
    line), past the list items between; None when none is within 40 lines."""
    for line in reversed(text[:start].splitlines()[-40:]):
        stripped = line.strip()
        if not stripped or stripped.startswith(("-", "*", "•")) and not stripped.startswith("**"):
            continue
        heading = _HEADING.match(stripped)
        if heading and (stripped.endswith(":") or stripped.startswith(("#", "**")) or stripped[0].isdigit()):
            return heading.group("title")
    return None


__all__ = ["GENERIC_TERMS", "Presence", "described_as_fixed", "item_terms_text", "presence", "told_open", "topic_terms"]
