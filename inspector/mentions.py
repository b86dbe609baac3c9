"""Keys a transcript prints, found on demand instead of extracted from every turn up front.

A summary's anchor resolves when some record carries its key, and a session log's turns are such
records for every path, URI, commit, ticket or `[[key]]` they print. Extracting every anchor from
every turn costs a regex pass over the whole transcript (seconds for a 100 MB session) when the
summaries only print a few hundred keys. So readers keep the turns' texts here, and the anchor
index asks only for the keys summaries print: one multi-literal Hyperscan pass over the texts finds
every occurrence, and anchor extraction runs on just the whitespace-delimited word around each hit.

That is exact, not an approximation: no anchor pattern matches whitespace, and each pattern's
boundary assertions treat whitespace like the ends of the text, so the anchors of a text are the
anchors of its words. A mention that could bind to a printed key contains that key (or the part of
it a resolver compares), so every such word holds a hit.

Each mention keeps the position of the first turn that prints it: a summary's key resolves only against
what came before its compaction (`inspector.places`), and turns are in log order, so the first turn is
the earliest place the key was there to be seen.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence

import hyperscan

from inspector.anchors import HEX_ID, extract_anchors, script_changes
from inspector.model import SourceRecord
from inspector.text import word_end, word_start

NAMESPACES = {"path": "file", "uri": "uri", "commit": "commit", "ticket": "ticket", "bracket": "key"}
"""Store namespace of a mention by the anchor pattern that found it."""

Mention = tuple[str, str]
"""(namespace, key) of a key printed somewhere in the transcript."""

BATCH_CHARS = 4_000_000
"""Texts are scanned in joined batches of about this many characters: few calls, bounded memory."""

_ASCII_SPACE = frozenset(b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f")
"""The bytes `str.isspace` accepts below 0x80: a UTF-8 word can only be cut there without decoding."""
_ASCII_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
"""`\\w` below 0x80: a hit followed by one of these is inside a longer word, without decoding anything."""
_LONE_SURROGATES = "surrogatepass"
"""Readers' JSON never yields a lone surrogate, but a text that holds one must not stop the search."""
_LOOK_BACK = 128
_BYTES_WORD_END = re.compile(rb"[^ \t\n\r\x0b\x0c\x1c-\x1f]*")
_WORD_CHAR = re.compile(r"\w")
_HEX_CHARS = "0123456789abcdef"
_HEX_BYTES = frozenset(_HEX_CHARS.encode())
"""What may follow a short hex id inside the longer id it begins: more hex digits, and nothing else."""


class Mentions:
    """The texts of a transcript's turns, searchable for the keys they print.

    Results are cached per needle, so re-analysing the same trace (a refresh branch) does not search
    again. Texts are held by reference: the turns' own strings, not a copy. `turn_keys` are the turns'
    record keys, by position: where a mention was printed, for the compaction cut.
    """

    def __init__(self, texts: Sequence[str], timestamps: Sequence[str | None] = (),
                 turn_keys: Sequence[str] = ()) -> None:  # fmt: skip
        self._texts = texts
        self._timestamps = timestamps
        self._turn_keys = turn_keys
        self._found: dict[str, dict[Mention, int]] = {}
        self._words: dict[str, list[Mention]] = {}
        """The mentions each word a search hit holds, kept for the next search: the summaries' keys and the raw
        log's are sought in separate passes, which hit many of the same words."""

    def __len__(self) -> int:
        return len(self._texts)

    def key_at(self, position: int) -> str | None:
        """The record key of the turn at `position`, if the reader gave keys."""
        return _at(self._turn_keys, position)

    def containing(self, wanted: Iterable[str]) -> dict[str, dict[Mention, int]]:
        """For each needle, every mention whose key contains it, with the position of the first turn
        printing it (one pass for all new needles)."""
        wanted = set(wanted)
        missing = [n for n in wanted if n not in self._found]
        if missing:
            self._search(missing)
        return {n: self._found[n] for n in wanted}

    def _search(self, missing: list[str]) -> None:
        """One Hyperscan pass over the texts for all needles, then anchor extraction on each hit's word.

        The texts are scanned as UTF-8 in joined batches (a newline between texts, so no word spans
        two of them); a hit's word is cut at ASCII whitespace in bytes, decoded, and trimmed at any
        other whitespace in text, so the words are exactly those the string search would see.
        Hits are taken in text order (batches in order, each batch's hits by end), so a mention's first
        position is its first turn, and a repeated stretch skipped is a later one.
        """
        needles = [n.encode("utf-8", _LONE_SURROGATES) for n in missing]
        heads = [bool(HEX_ID.fullmatch(n)) for n in missing]  # a short hex id also binds to the longer one it begins
        database = hyperscan.Database()
        database.compile(expressions=needles, ids=list(range(len(needles))), elements=len(needles),
                         flags=0, literal=True)  # fmt: skip
        found: dict[str, dict[Mention, int]] = {n: {} for n in missing}
        words = self._words
        repeated: set[tuple[bytes, int, int]] = set()
        for batch, first, starts in _batches(self._texts):
            hits: list[tuple[int, int]] = []
            database.scan(batch, match_event_handler=_collect, context=hits)
            hits.sort(key=_end)
            size = len(batch)
            for which, end in hits:
                if end < size and batch[end] in _ASCII_WORD and not (heads[which] and batch[end] in _HEX_BYTES):
                    continue  # mid-word (OPS-7 in OPS-712): every anchor key ends before a non-word character
                needle = missing[which]
                start = _word_start(batch, end - len(needles[which]))
                stretch_end = _BYTES_WORD_END.match(batch, end).end()
                seen = (batch[start:stretch_end], end - start, which)
                if seen in repeated:
                    continue  # the same needle at the same place in the same stretch: nothing new
                repeated.add(seen)
                chunk = seen[0].decode("utf-8", _LONE_SURROGATES)
                # The hit's end as a character offset in `chunk`.
                at = len(batch[start:end].decode("utf-8", _LONE_SURROGATES))
                if (at < len(chunk) and _WORD_CHAR.match(chunk, at) and not (heads[which] and chunk[at] in _HEX_CHARS)
                        and not script_changes(chunk, at)):
                    continue  # every anchor key ends before a non-word character or a change of script; mid-word
                word = chunk[word_start(chunk, at - len(needle)) : word_end(chunk, at)]
                mentions = words.get(word)
                if mentions is None:
                    mentions = words[word] = _mentions_in(word)
                position = first + bisect_right(starts, start) - 1
                earliest = found[needle]
                for mention in mentions:
                    if needle in mention[1] and mention not in earliest:
                        earliest[mention] = position
        self._found.update(found)

    def records(self) -> list[SourceRecord]:
        """Every mention as the derived record an eager reader would have made (for export).

        This is the full extraction the lazy lookup avoids; only writing a trace out needs it.
        """
        first: dict[Mention, tuple[str | None, str | None]] = {}
        for position, text in enumerate(self._texts):
            for anchor in extract_anchors(text):
                mention = (NAMESPACES.get(anchor.pattern, anchor.pattern), anchor.key)
                if mention not in first:
                    first[mention] = (_at(self._timestamps, position), _at(self._turn_keys, position))
        records = []
        for (namespace, key), (timestamp, turn) in first.items():
            extra: dict[str, object] = {"actions": ["mentioned"]}
            if turn:
                extra["first_seen"] = turn
            records.append(SourceRecord(key=key, text=f"mentioned {key}", namespace=namespace, kind=namespace,
                                        timestamp=timestamp, authority="tool", extra=extra))  # fmt: skip
        return records


def _collect(which: int, start: int, end: int, flags: int, hits: list[tuple[int, int]]) -> None:
    hits.append((which, end))


def _end(hit: tuple[int, int]) -> int:
    return hit[1]


def _batches(texts: Sequence[str], size: int = BATCH_CHARS) -> Iterator[tuple[bytes, int, list[int]]]:
    """The texts encoded and joined by newlines, about `size` characters at a time (bounded memory), with
    the position of the batch's first text and the byte offset where each of its texts starts."""
    batch: list[bytes] = []
    starts: list[int] = []
    first = held = offset = 0
    for position, text in enumerate(texts):
        encoded = text.encode("utf-8", _LONE_SURROGATES)
        batch.append(encoded)
        starts.append(offset)
        offset += len(encoded) + 1
        held += len(text) + 1
        if held >= size:
            yield b"\n".join(batch), first, starts
            batch, starts, held, offset, first = [], [], 0, 0, position + 1
    if batch:
        yield b"\n".join(batch), first, starts


def _word_start(data: bytes, position: int) -> int:
    """Start of the ASCII-whitespace-delimited stretch holding `position`.

    Words are short, so a reversed window of the bytes before it usually holds the whole run: one
    regex match in C, rather than a Python step per byte, on every one of tens of thousands of hits.
    """
    window = data[max(0, position - _LOOK_BACK) : position][::-1]
    run = _BYTES_WORD_END.match(window).end()
    if run < len(window) or position <= _LOOK_BACK:
        return position - run
    while position > 0 and data[position - 1] not in _ASCII_SPACE:
        position -= 1
    return position


def _mentions_in(word: str) -> list[Mention]:
    return [(NAMESPACES.get(a.pattern, a.pattern), a.key) for a in extract_anchors(word)]


def _at(values: Sequence[str | None], position: int) -> str | None:
    return values[position] if position < len(values) else None


__all__ = ["BATCH_CHARS", "Mentions"]
