"""Small text utilities shared by the detectors and the reports: sentences, content words, normalisation, counts."""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

import regex

from inspector.config import MAX_SENTENCE_CHARS
from inspector.stemming import stem

_SENTENCE_END = re.compile(r"[.!?\n。！？](?:(?<=\n)\s*|(?<=[。！？])\s*|\s+(?=\S))")
"""A sentence ends at a line break, or at terminal punctuation followed by more text; the gap is what
follows the punctuation (a line break is part of its gap). Chinese and Japanese full stops, exclamation and
question marks end one with no space after them, as those languages write them. Written to start with one
character class, which `re` scans for in C: 3× faster on prose and 5× on text without a break than a
look-behind."""
_NON_SPACE = re.compile(r"\S*")
WORD = regex.compile(r"[\p{L}\p{N}](?:[\w'./-]*[\p{L}\p{N}\p{M}])?")
"""A word: starts with a letter or digit of any script and ends with one or with the mark on one (`v1.2`,
`it's` and a path are one word each). The `regex` module reads Unicode's classes: a combining mark is part
of its word, so 'हिन्दी' and a decomposed 'não' are one word each (`re` breaks them at every mark), and an
emoji's variation selector or joiner, marks on no letter, are not a word."""
_ASCII_WORD = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9_'./-]*[A-Za-z0-9])?")
"""`WORD` on ASCII text, where its classes are these: `re` scans it twice as fast (the property test in
tests/test_text.py holds the two equal)."""
_CJK_RUN = regex.compile(r"[\p{scx=Han}\p{scx=Hangul}\p{scx=Hiragana}\p{scx=Katakana}]+")
"""Han, Hangul and kana: scripts written without spaces between words (Chinese, Japanese) or with particles
fused to them (Korean 데이터베이스를, 데이터베이스는), and with no Snowball stemmer."""

HEADING = re.compile(r"^(?P<level>#{1,6})\s+(?P<title>\S.*?)\s*$", re.MULTILINE)
"""A markdown ATX heading, `# Title` to `###### Title`: its hashes (`level`, one to six) and its title. What a
pasted document has and a typed prompt does not (`authorship`), and what ends a section (`section_end`)."""


LIST_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s")
"""A line that opens a list item: a bullet or a number, after its indent."""


def enclosing_item(text: str, start: int) -> str:
    """The head line of the list item that holds the line at `start` as one of its indented lines (a continuation
    or a nested item), or "" when no line before it is indented less, or the nearest that is opens no item. A summary
    says "All 9 tests PASS." under "- `session/phase_test.go`: 9 tests for `ApplyCommonActions`": the sentence's
    subject is its item's."""
    starts, heads = _enclosing_items(text)
    return heads[bisect_right(starts, start) - 1]


def enclosing_block(text: str, start: int) -> str:
    """The list item that holds the line at `start` as one of its indented lines, whole: its head line and every line
    under it ("- Error 3: Stack overflow in some registry tests" with its "Symptom:", "Root cause:" and "Fix:" lines),
    or "" when no item holds that line (`enclosing_item`)."""
    head = enclosing_item(text, start)
    return _block_from(text, text.rfind(head + "\n", 0, start)) if head else ""


def item_block(text: str, start: int) -> str:
    """The list item the line at `start` opens, whole (that line and every line under it), or "" when the line opens
    no item (`LIST_ITEM`)."""
    at = text.rfind("\n", 0, start) + 1
    end = text.find("\n", at)
    return _block_from(text, at) if LIST_ITEM.match(text[at:] if end == -1 else text[at:end]) else ""


def _block_from(text: str, at: int) -> str:
    """The line at `at` and every line after it indented more, up to the first that is not."""
    end = text.find("\n", at)
    head = text[at:] if end == -1 else text[at:end]
    indent = len(head) - len(head.lstrip())
    block = [head]
    for line in ([] if end == -1 else text[end + 1 :].split("\n")):
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        block.append(line)
    return "\n".join(block)


@lru_cache(maxsize=8)
def _enclosing_items(text: str) -> tuple[list[int], list[str]]:
    """Where each line of `text` starts, and its enclosing item (`enclosing_item`), in one pass: the nearest line
    before it indented less is the top of a stack of lines of rising indent. Kept for the few texts in hand: a
    summary's claims ask it line after line (a string's hash is kept with it, so asking again costs no reading)."""
    starts: list[int] = []
    heads: list[str] = []
    above: list[tuple[int, str]] = []  # earlier lines of rising indent, each the latest at its indent
    position = 0
    for line in text.split("\n"):
        starts.append(position)
        position += len(line) + 1
        if not line.strip():
            heads.append("")
            continue
        indent = len(line) - len(line.lstrip())
        while above and above[-1][0] >= indent:
            above.pop()
        heads.append(above[-1][1] if above and LIST_ITEM.match(above[-1][1]) else "")
        above.append((indent, line))
    return starts, heads


def section_end(text: str, start: int, level: int) -> int:
    """Where the section whose body starts at `start`, under a heading of `level` hashes, ends: at the next heading
    of its level or above, else at the end of the text (an issue's acceptance criteria, a plan's verification)."""
    return next((h.start() for h in HEADING.finditer(text, start) if len(h.group("level")) <= level), len(text))

STOPWORDS = frozenset(
    """a an the and or but of to in on at by for from with as is are was were be been being it its this that
    these those there their they them we our you your he she his her i me my so than then too very can
    will would should could may might must shall do does did done has have had not no never any all some
    each every into onto over under about after before until unless only if when while which who whom
    what where why how also just more most such same other own again further once here both few
    discuss discussed discussion mention mentioned note noted said talked covered regarding topic user agent
    assistant next""".split()
)
"""Function words plus the meta-verbs summaries use to talk *about* a topic without stating it."""

def estimate_tokens(text: str) -> int:
    """Tokens a text costs to re-read, estimated as characters / 4 (at least one): what refresh costs are in."""
    return max(1, len(text) // 4)


_BRACKET_ANCHOR = re.compile(r"\[\[[^\]]*\]\]")


@dataclass(frozen=True, slots=True)
class Sentence:
    start: int
    end: int
    text: str


def sentences(text: str) -> list[Sentence]:
    """Split text into sentence-like spans with offsets (line breaks and terminal punctuation), none longer than
    `MAX_SENTENCE_CHARS`."""
    spans: list[Sentence] = []
    position = 0
    for match in _SENTENCE_END.finditer(text):
        end = match.start() if text[match.start()] == "\n" else match.start() + 1
        _append(spans, text, position, end)
        position = match.end()
    _append(spans, text, position, len(text))
    return spans


def _append(spans: list[Sentence], text: str, start: int, end: int) -> None:
    while end - start > MAX_SENTENCE_CHARS:  # a run-on line: cut at its last space within the bound
        cut = text.rfind(" ", start + 1, start + MAX_SENTENCE_CHARS)
        cut = cut if cut > start else start + MAX_SENTENCE_CHARS
        _append(spans, text, start, cut)
        start = cut
    chunk = text[start:end]
    stripped = chunk.strip()
    if stripped:
        offset = start + chunk.index(stripped[0])
        spans.append(Sentence(offset, offset + len(stripped), stripped))


def word_start(text: str, position: int) -> int:
    """Start of the whitespace-delimited word holding `position` (words are short: scan back)."""
    while position > 0 and not text[position - 1].isspace():
        position -= 1
    return position


def word_end(text: str, position: int) -> int:
    """End of the whitespace-delimited word holding `position`."""
    return _NON_SPACE.match(text, position).end()  # type: ignore[union-attr]  # `\S*` always matches


def caseless_spans(lowered_pattern: re.Pattern[str], text: str) -> Iterator[tuple[int, int]]:
    """Spans in `text` of a pattern written for lower-case text, matched regardless of case.

    Scanning lower-cased text is about 2.5× faster than `re.IGNORECASE`. A few characters lower-case
    to two ('İ'), which would shift offsets; such a text is scanned with `re.IGNORECASE` instead.
    """
    lowered = text.lower()
    if len(lowered) != len(text):
        return (m.span() for m in re.compile(lowered_pattern.pattern, re.IGNORECASE).finditer(text))
    return (m.span() for m in lowered_pattern.finditer(lowered))


def words(text: str) -> list[str]:
    """Lower-cased words (a word starts and ends with a letter or digit)."""
    if text.isascii():  # lower-casing first is then the same, and one call instead of one per word
        return _ASCII_WORD.findall(text.lower())
    return [w.lower() for w in WORD.findall(text)]


def content_terms(text: str) -> set[str]:
    """Stemmed non-stopword terms: what a sentence is about, ignoring how it is phrased and its `[[keys]]`.

    A contraction is its words: "don't" and "can't" are "do not" and "can not", function words all; "that's"
    is "that is", "we'll" "we will" (`_CLITIC`). Kept whole, they were terms of their own, and a summary that
    says "do not" or nothing of the kind missed them.
    """
    # Each pattern only where its first characters are: most sentences hold no `[[key]]`, most words no apostrophe.
    bare = _BRACKET_ANCHOR.sub(" ", text) if "[[" in text else text
    found = [_CLITIC.sub("", part) if "'" in part else part for w in words(bare) if not w.endswith("n't")
             for part in (w.split("/") if "/" in w and _JOINED_WORDS.fullmatch(w) else (w,))]  # fmt: skip
    found += [named.group(1) for w in found if "." in w and (named := _FILE_WORD.fullmatch(w))]
    if text.isascii():
        return {stem(w) for w in found if w not in STOPWORDS and len(w) > 1}
    return {term for w in found if w not in STOPWORDS for term in _word_terms(w)}


_JOINED_WORDS = re.compile(r"[^\W\d_]{2,}(?:/[^\W\d_]{2,})+")
"""Words joined by slashes: alternatives or a list ("Placeholder/mock checkout.", "tests/lint/typecheck"), each word a
term, as anchors read them (prose without path evidence). A path with a dot, a digit or an underscore stays one
term; one of letters alone (`/etc/hosts`, whose root is no part of a word) is its words, in a summary as in the log,
so the two still meet."""
_FILE_WORD = re.compile(r"([a-z]{3,})\.[a-z]{1,5}")
"""A file's name that is a word with an extension (`CONTEXT.md`, `README.md`, `package.json`): the word is a term
too, as those who asked for the file say it ("create context", "update the readme")."""


@lru_cache(maxsize=1 << 15)
def sentence_terms(sentence: str) -> frozenset[str]:
    """`content_terms` of one sentence, kept for the next time it is read: a summary inherits much of its parent's
    wording (a quarter of the sentences of the real chains in ../shared stand in an earlier summary too, half of a
    long generated one's), so a chain's sentences are stemmed once. A sentence is at most `MAX_SENTENCE_CHARS`, which
    bounds what is kept."""
    return frozenset(content_terms(sentence))


_CLITIC = re.compile(r"'(?:s|re|ll|ve|d|m)\Z")
"""An English contraction's second word ("that's", "we'll", "I'd"), a function word: cut, the first one is looked at."""


@lru_cache(maxsize=1 << 16)
def _word_terms(word: str) -> tuple[str, ...]:
    """The terms of one word: its stem, or for Han, Hangul and kana the character pairs of each run.

    Pairs are what search engines index such text by (Lucene's CJK bigrams): a run has no spaces to split
    at, and a Korean word's particle ('를', '는') changes with its role, so whole runs would match only
    when quoted. A pair shared is evidence; a lone character is not, as a one-letter word is not. A word
    that mixes scripts ('db는') is split where the run starts: 'db' is stemmed as any Latin word.
    """
    word = unicodedata.normalize("NFC", word)  # Hangul typed on some systems arrives as separate letters
    if not _CJK_RUN.search(word):
        return (stem(word),) if len(word) > 1 else ()
    terms: list[str] = []
    for piece in _CJK_RUN.splititer(word):  # what lies around the runs: Latin, digits, a path
        terms += [stem(w) for w in WORD.findall(piece) if w not in STOPWORDS and len(w) > 1]
    for run in _CJK_RUN.findall(word):
        terms += [run[i : i + 2] for i in range(len(run) - 1)]
    return tuple(terms)


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """'1 finding', '2 findings': every count the command line prints is read by a person."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def clip(text: str, limit: int) -> str:
    """At most `limit` characters, the last an ellipsis when something was cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def quoted(text: str, limit: int | None = None, marks: str = "“”") -> str:
    """Trace text inside a finding's message, as every rule quotes it: between `marks`, each run of whitespace (a
    line break, a tab) one space, clipped to `limit`. A message is one line of text for a reader; Python's repr,
    which some rules used, wrote a line break as a literal backslash-n and doubled every backslash."""
    flat = " ".join(text.split())
    return f"{marks[0]}{flat if limit is None else clip(flat, limit)}{marks[1]}"


def quoted_name(text: str) -> str:
    """A key, value or phrase a message names: `quoted`, in the straight quotes repr gave it, so for ordinary text
    the message, and the finding id hashed from it that reviews attach to, stay what they were."""
    return quoted(text, marks="''")


def normalise(text: str) -> str:
    return " ".join(words(text))


__all__ = ["HEADING", "LIST_ITEM", "Sentence", "WORD", "caseless_spans", "clip", "content_terms", "counted",
           "enclosing_block", "enclosing_item", "estimate_tokens", "item_block", "normalise", "quoted", "quoted_name",
           "section_end", "sentence_terms", "sentences", "stem", "word_end", "word_start", "words"]  # fmt: skip
