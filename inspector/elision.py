"""Elision and anaphora: phrases that point back at context the summary no longer holds.

"As noted earlier" or "etc." is harmless while the referent is in view; after compaction it is a
pointer with no target unless a stable key stands beside it. Density = anchors / (anchors + elisions).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from inspector.anchors import Anchor
from inspector.config import DEFAULT_CONFIG
from inspector.guarded_regex import guarded
from inspector.text import Sentence, caseless_spans, sentences

DEFAULT_LEXICON: tuple[str, ...] = (
    "as noted earlier", "as noted above", "as noted", "as mentioned earlier", "as mentioned above",
    "as mentioned", "as discussed earlier", "as discussed", "as described above", "as before",
    "as previously stated", "see above", "the above", "above-mentioned", "aforementioned",
    "the earlier", "earlier", "previously", "the previous one", "the former", "the latter",
    "the same as before", "the usual", "etc.", "etc", "and so on", "and so forth", "and related items",
    "and related", "and others", "and the rest", "among others", "various other", "the relevant",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Elision:
    """One elision or anaphora phrase, its span, and whether a key stands in the same sentence."""

    text: str
    start: int
    end: int
    orphaned: bool


@lru_cache(maxsize=64)
def compile_lexicon(lexicon: tuple[str, ...]) -> re.Pattern[str]:
    """One alternation, longest phrase first, so 'as noted earlier' is one match and not two.

    The pattern is for lower-cased text (`find_elisions` matches it with `caseless_spans`).
    """
    phrases = sorted({p.strip().lower() for p in lexicon if p.strip()}, key=len, reverse=True)
    parts = []
    for phrase in phrases:
        body = re.escape(phrase).replace(r"\ ", r"\s+")
        tail = "" if not phrase[-1].isalnum() else r"\b"
        parts.append(rf"\b{body}{tail}")
    return guarded("|".join(parts))


def find_elisions(
    text: str,
    anchors: Sequence[Anchor],
    lexicon: Sequence[str] | None = None,
    spans: Sequence[Sentence] | None = None,
) -> list[Elision]:
    """Every elision phrase in `text`; orphaned when no anchor shares its sentence.

    `spans` are the text's sentences when the caller has already split it.
    """
    regex = compile_lexicon(DEFAULT_LEXICON if lexicon is None else tuple(lexicon))
    spans = sentences(text) if spans is None else spans
    starts = [s.start for s in spans]
    anchor_starts = sorted(a.start for a in anchors)
    found: list[Elision] = []
    for start, end in caseless_spans(regex, text):
        position = bisect_right(starts, start) - 1
        sentence = spans[position] if position >= 0 and start < spans[position].end else None
        lo, hi = (sentence.start, sentence.end) if sentence else (start, end)
        first = bisect_left(anchor_starts, lo)
        keyed = first < len(anchor_starts) and anchor_starts[first] < hi
        listed = _closes_a_list(text[start:end], text[lo:start]) or bool(_REFERENTS_BESIDE.match(text, end, hi))
        found.append(Elision(text[start:end], start, end, orphaned=not (keyed or listed)))
    return found


_REFERENTS_BESIDE = re.compile(r"\s*(?:[\w-]+\s+){0,2}\([^()]*[\d,][^()]*\)")
""""earlier tests (3.1, 4.1, 5.1)": the phrase points at referents printed right after it."""
_LIST_CLOSERS = ("etc", "and so on", "and so forth", "and others", "among others", "and the rest")


def _closes_a_list(phrase: str, before: str) -> bool:
    """"(a, b, etc.)": the referents stand beside the phrase, so nothing is elided from view."""
    if not phrase.lower().rstrip(".").startswith(_LIST_CLOSERS):
        return False
    opened = before.rfind("(")
    items = before[opened + 1 :] if opened > before.rfind(")") else before
    pieces = [p.strip() for p in items.split(",")][:-1][-2:]  # the two entries right before the phrase
    # "a, b, etc.": two short entries at least, neither itself a pointer ("as noted earlier, etc." is no list)
    return len(pieces) == 2 and all(0 < len(p.split()) <= DEFAULT_CONFIG.list_entry_words for p in pieces) and not any(
        compile_lexicon(DEFAULT_LEXICON).search(p.lower()) for p in pieces
    )


def anchor_density(anchor_count: int, elision_count: int) -> float | None:
    """anchors / (anchors + elisions); None when the text has neither (nothing to measure)."""
    total = anchor_count + elision_count
    return anchor_count / total if total else None


__all__ = ["DEFAULT_LEXICON", "Elision", "anchor_density", "compile_lexicon", "find_elisions"]
