"""A lexicon behind a look-ahead for its first characters finds what it found without one: the same matches, spans
and order, on real summaries and on generated text built from the characters that could tell them apart."""

from __future__ import annotations

import re
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector import completeness, summary_claims
from inspector.elision import DEFAULT_LEXICON, compile_lexicon
from inspector.guarded_regex import guarded
from inspector.readers.registry import load_trace
from tests.helpers import REAL_TRACES, REPO

GUARDED = {name: value for name, value in vars(summary_claims).items()
           if isinstance(value, re.Pattern) and value.pattern.startswith("(?=[")}  # fmt: skip
GUARDED |= {"elisions": compile_lexicon(DEFAULT_LEXICON), "completeness": completeness.CLAIM}
"""The lexicons read over every sentence of every summary. The last two are written for lower-cased text."""


def unguarded(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """The lexicon as written: the guarded pattern without its look-ahead and the group around the rest."""
    return re.compile(pattern.pattern[pattern.pattern.index("])(?:") + 5 : -1], pattern.flags)


def spans(pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    return [match.span() for match in pattern.finditer(text)]


@cache
def summaries() -> tuple[str, ...]:
    paths = sorted((REPO / "sample_traces").glob("*.json*")) + sorted(REAL_TRACES.glob("*/*.jsonl"))
    return tuple(g.text for path in paths for g in load_trace(path).generations if g.text and g.kind != "raw")


def test_the_claim_lexicons_are_guarded() -> None:
    """The lexicons a summary's every sentence is read by; one opening with a literal is left as `re` reads it."""
    assert {"PASSING", "NOTHING_PENDING", "_NEGATED", "_RESULT_WORDS", "FIXED", "_STATUS_MARK"} <= GUARDED.keys()
    assert all(pattern.pattern.startswith("(?=[") for pattern in GUARDED.values())
    assert summary_claims.NAMED.pattern.startswith("`")
    assert GUARDED["NOTHING_PENDING"].pattern.startswith(r"(?=[\*\-\s")  # the bullet a "- None" line opens with


@pytest.mark.parametrize("name", sorted(GUARDED))
def test_a_guarded_lexicon_finds_what_it_found_in_real_summaries(name: str) -> None:
    pattern = GUARDED[name]
    plain = unguarded(pattern)
    texts = summaries()
    assert texts
    for text in texts:
        text = text.lower() if name in ("elisions", "completeness") else text
        assert spans(pattern, text) == spans(plain, text)
        for line in text.splitlines():  # as sentences and lines are read, from a start inside the text too
            assert spans(pattern, line) == spans(plain, line)


# Letters every lexicon's branches start with, letters that fold to them (the long s, the Kelvin sign, the dotted
# and dotless i), blanks, bullets, digits and punctuation.
_ALPHABET = st.sampled_from(list("aAcCdDfFnNoOpPsStTwWeEiIlLrRuUxX \t\n-*•✅[]`.,0123456789") + ["ſ", "K", "İ", "ı"])
_WORDS = st.sampled_from(["none", "nothing", "no", "pending", "tasks", "remain", "all", "tests", "pass", "passed",
                          "fixed", "resolved", "pushed", "commit", "not", "never", "once", "faster", "2x", "50%",
                          "build", "green", "search", "confirmed", "errors", "without", "done"])  # fmt: skip
_TEXT = st.lists(st.one_of(_WORDS, st.text(_ALPHABET, max_size=3)), max_size=12).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(text=_TEXT)
def test_a_guarded_lexicon_finds_what_it_found_in_generated_text(text: str) -> None:
    for pattern in GUARDED.values():
        assert spans(pattern, text) == spans(unguarded(pattern), text), (pattern.pattern[:40], text)
        assert [m.span() if (m := pattern.match(text, at)) else None for at in range(len(text))] == [
            m.span() if (m := unguarded(pattern).match(text, at)) else None for at in range(len(text))]


def test_what_cannot_be_told_is_left_as_it_is() -> None:
    assert guarded(r"`([^`\s]{4,120})`").pattern == r"`([^`\s]{4,120})`"  # a literal first: `re` searches for it
    assert guarded(r"\b\w+").pattern == r"\b\w+"  # any word character
    assert guarded(r"x*|\by").pattern == r"x*|\by"  # may match empty
    assert guarded(r"(?i)\bnot\b").pattern == r"(?i)\bnot\b"  # global flags cannot follow a look-ahead
    assert guarded(r"\b(?:a|b)?c").pattern == r"(?=[abc])(?:\b(?:a|b)?c)"  # an optional part adds what follows


def test_case_folds_alike_in_the_look_ahead() -> None:
    """Under IGNORECASE the look-ahead's class folds as the pattern's literals do: the Kelvin sign is a `k`."""
    for text in ("K", "ſ", "İ", "ı", "K"):
        pattern = guarded(r"\b(?:k|s|i)\w*", re.IGNORECASE)
        assert spans(pattern, text) == spans(re.compile(r"\b(?:k|s|i)\w*", re.IGNORECASE), text)
