"""A word's stem, by the Snowball algorithm of its script: what lets 'statuses' meet 'status' in a summary.

The language is chosen per word, from its script, never per sentence: a summary quotes the user's
Portuguese inside an English sentence, and the same word must get the same stem on both sides. So every
Latin-script word takes the English rules (they strip English endings and leave a Portuguese or French
word whole or cut it the same way wherever it appears), a Cyrillic word the Russian and a Greek word
the Greek ones. A word of a script Snowball has no algorithm for (Hangul, Han, kana…) stays as it is.
"""

from __future__ import annotations

import threading
import unicodedata
from functools import lru_cache

import regex
import Stemmer

_SCRIPT_ALGORITHM = regex.compile(r"(?P<english>\p{Latin})|(?P<russian>\p{Cyrillic})|(?P<greek>\p{Greek})")
"""The Snowball algorithm for a word, named by the group its first letter with a script matches."""
_STEMMABLE = regex.compile(r"[\p{L}\p{M}'-]+")
"""A word made of letters (apostrophes and hyphens between): a path, a version or an identifier is not
stemmed ('v1.2', 'node_modules', 'items.py' are looked for as they are written)."""

_STEMMERS = threading.local()
"""One stemmer per algorithm per thread: a Snowball stemmer keeps state between calls (PyStemmer)."""


def _stemmer(algorithm: str) -> Stemmer.Stemmer:
    stemmer = getattr(_STEMMERS, algorithm, None)
    if stemmer is None:
        stemmer = Stemmer.Stemmer(algorithm, 0)  # no cache of its own: `stem` caches every word
        setattr(_STEMMERS, algorithm, stemmer)
    return stemmer


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """The stem of a lower-cased word ('statuses' → 'status', 'released' → 'releas'), or the word itself.

    Snowball reads composed accents, so a decomposed 'não' (an 'a' and a combining tilde) is composed first.
    """
    if word.isascii():
        if not (word.isalpha() or _STEMMABLE.fullmatch(word)):
            return word
        return _stemmer("english").stemWord(word)
    word = unicodedata.normalize("NFC", word)
    script = _SCRIPT_ALGORITHM.search(word) if _STEMMABLE.fullmatch(word) else None
    return _stemmer(script.lastgroup).stemWord(word) if script and script.lastgroup else word


__all__ = ["stem"]
