"""Anchors: the keys a summary prints, and whether each resolves from the summary alone.

The first note's test: strip the raw context, keep only the summary, and resolve every anchor it
prints against the store. A key that binds to no record is unresolved; one that binds to records in
two namespaces (two `config.yaml`) is ambiguous, which is worse than a miss.
"""

from __future__ import annotations

import heapq
import re
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from inspector.model import MentionIndex, SourceRecord
from inspector.text import word_end, word_start

_CODE_EXTENSIONS = (
    "py|pyi|ipynb|js|jsx|ts|tsx|mjs|cjs|json|jsonl|yaml|yml|toml|ini|cfg|conf|env|md|rst|txt|csv|tsv|sql|sh|"
    "bash|zsh|ps1|rb|go|rs|java|kt|kts|scala|c|h|cc|cpp|hpp|cs|swift|m|mm|php|pl|lua|r|jl|tex|bib|html|htm|"
    "css|scss|xml|proto|lock|gradle|tf|tfvars|dockerfile|mk|cmake|log|pdf|png|svg|zst|gz|tar|zip|db|sqlite"
)

DEFAULT_PATTERNS: dict[str, str] = {
    # The first note's opaque key: [[ledger:3.2]]
    "bracket": r"\[\[([A-Za-z0-9:_\-/\.#@]+)\]\]",
    "uri": r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,15}://[^\s<>\"'`\])]+[^\s<>\"'`\]).,;:!?]",
    # Paths with a directory part, or bare file names with a known extension.
    "path": (
        r"(?<![\w/.:@-])(?:~|\.{1,2})?(?:/?[\w@.+-]+/)+[\w@+-][\w@.+-]*(?<![.])"
        rf"|(?<![\w/.:@-])[\w@+-][\w@.+-]*\.(?:{_CODE_EXTENSIONS})\b(?![\w/])"
    ),
    "commit": r"\b(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b",
    "ticket": r"\b[A-Z][A-Z0-9]{1,9}-[0-9]{1,6}\b",
}


class AnchorStatus(StrEnum):
    RESOLVED = "resolved"
    UNRESOLVED = "unresolved"
    AMBIGUOUS = "ambiguous"


@dataclass(frozen=True, slots=True)
class Anchor:
    """A key printed in a text, with its span."""

    key: str
    start: int
    end: int
    pattern: str
    """Which pattern found it: bracket, uri, path, commit, ticket, or a configured name."""


@dataclass(frozen=True, slots=True)
class ResolvedAnchor:
    anchor: Anchor
    status: AnchorStatus
    referents: tuple[str, ...]
    """`namespace:key` of every record the anchor binds to."""


def _compile(patterns: Mapping[str, str]) -> list[tuple[str, re.Pattern[str]]]:
    return [(name, re.compile(pattern)) for name, pattern in patterns.items()]


_DEFAULT_COMPILED = _compile(DEFAULT_PATTERNS)
_DEFAULT = dict(_DEFAULT_COMPILED)
_SLASH = re.compile("/")
_DOT_WORD = re.compile(r"\.\w")
_SHORT_TEXT = 200
_HEX_RUN = re.compile(r"\b[0-9a-f]{7,40}\b")


def _matches(name: str, regex: re.Pattern[str], text: str) -> Iterable[re.Match[str]]:
    """`regex.finditer(text)`, with shortcuts for the default patterns that find exactly the same.

    Scanning prose for paths at every position is the slowest part of reading a summary. A path
    always holds `/` or a `.` before its extension, and never whitespace, so only the
    whitespace-delimited tokens holding one are scanned (lookarounds see the same neighbours:
    whitespace, or the ends of the text). A commit
    is a hex run with a digit and a letter: finding runs and checking them is cheaper than two
    lookaheads at every word. URIs and tickets need `://` and `-`.
    """
    if regex is _DEFAULT.get(name):
        if name == "path":
            return _path_matches(regex, text)
        if name == "commit":
            return (m for m in _HEX_RUN.finditer(text) if not m.group().isdigit() and not m.group().isalpha())
        if (name == "uri" and "://" not in text) or (name == "ticket" and "-" not in text):
            return ()
    return regex.finditer(text)


def _path_matches(regex: re.Pattern[str], text: str) -> Iterable[re.Match[str]]:
    """Paths, scanned for only in the tokens that could hold one.

    A path has a directory part (`/`) or a `.` before its extension. A sentence's closing `word.`
    has neither, so prose is not scanned word by word. Both are searched as literals, which `re`
    skips to in C; one pattern for both would be tried at every character.
    """
    if len(text) < _SHORT_TEXT:
        return regex.finditer(text)  # a word or a line: setting up two scans would cost more
    return _long_path_matches(regex, text)


def _long_path_matches(regex: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    candidates = heapq.merge((m.start() for m in _SLASH.finditer(text)), (m.start() for m in _DOT_WORD.finditer(text)))
    scanned = 0
    for position in candidates:
        if position < scanned:
            continue  # this token was already scanned
        scanned = word_end(text, position)
        yield from regex.finditer(text, word_start(text, position), scanned)


def extract_anchors(text: str, patterns: Mapping[str, str] | None = None) -> list[Anchor]:
    """Every key printed in `text`, in order; earlier patterns win overlapping spans.

    `[[key]]` is taken first so that a path or hash inside brackets is one anchor, not two.
    """
    compiled = _DEFAULT_COMPILED if patterns is None else _compile(patterns)
    taken: list[tuple[int, int]] = []  # sorted, non-overlapping spans already claimed
    found: list[Anchor] = []
    for name, regex in compiled:
        claimed = list(taken)
        starts = [start for start, _ in claimed]
        for match in _matches(name, regex, text):
            start, end = match.span()
            if _overlaps(claimed, starts, start, end):
                continue
            key = match.group(1) if regex.groups else match.group(0)
            if name == "path" and not _plausible_path(key):
                continue
            taken.append((start, end))
            found.append(Anchor(key=key, start=start, end=end, pattern=name))
        taken.sort()
    found.sort(key=lambda a: a.start)
    return found


def _overlaps(claimed: list[tuple[int, int]], starts: list[int], start: int, end: int) -> bool:
    """Does [start, end) overlap a claimed span? Claimed spans are disjoint and sorted: look at two."""
    position = bisect_right(starts, start)
    return (position > 0 and claimed[position - 1][1] > start) or (
        position < len(claimed) and claimed[position][0] < end
    )


def _plausible_path(key: str) -> bool:
    """Reject prose that looks like a path ('and/or', 'read/write', '1/2')."""
    if "." in key.rsplit("/", 1)[-1] or key.startswith(("/", "~/", "./", "../")):
        return not key.replace("/", "").replace(".", "").isdigit()
    return key.count("/") >= 2 and any(c.isalpha() for c in key)


class AnchorIndex:
    """The source store as a resolver sees it: keys, namespace-qualified keys, and path suffixes.

    `mentions` (a session log's turns) count as records too — `namespace:key` for every key a turn
    prints — but are looked up only for the keys asked about; `prepare` batches those look-ups.
    """

    def __init__(self, sources: Iterable[SourceRecord], mentions: MentionIndex | None = None) -> None:
        self._by_key: dict[str, set[str]] = defaultdict(set)
        self._by_basename: dict[str, set[str]] = defaultdict(set)
        self._mentions = mentions
        self._mentioned: dict[str, Mapping[tuple[str, str], int]] = {}
        self._resolved: dict[str, tuple[AnchorStatus, tuple[str, ...]]] = {}
        self._sorted_keys: list[str] | None = None
        for record in sources:
            referent = f"{record.namespace}:{record.key}"
            self._by_key[record.key].add(referent)
            self._by_key[referent].add(referent)
            if "/" in record.key:
                self._by_basename[_basename(record.key)].add(record.key)

    def prepare(self, keys: Iterable[str]) -> None:
        """Find the mentions of all these keys in one pass over the transcript."""
        if self._mentions is not None:
            self._mentioned.update(self._mentions.containing({needle(key) for key in keys}))

    def referents(self, key: str) -> set[str]:
        """Records `key` binds to: exact key, `namespace:key`, or a path ending in `/key`."""
        mentioned = self._mentions_for(key)
        exact = set(self._by_key.get(key, ()))
        exact.update(f"{ns}:{k}" for ns, k in mentioned if k == key or f"{ns}:{k}" == key)
        if exact:
            return exact
        bound: set[str] = set()
        candidate = key.lstrip("./~")
        basename = candidate.rstrip("/").rsplit("/", 1)[-1]
        fulls = set(self._by_basename.get(basename, ()))
        fulls.update(k for _, k in mentioned if "/" in k and _basename(k) == basename)
        for full in fulls:
            if full.endswith("/" + candidate) or full == candidate:
                bound |= self._by_key.get(full, set())
                bound.update(f"{ns}:{k}" for ns, k in mentioned if k == full or f"{ns}:{k}" == full)
        return bound

    def _is_folder_of_known_path(self, key: str) -> bool:
        """A folder is there when a path under it is: `/usr/local/cuda-12.6` of `/usr/local/cuda-12.6/bin/nvcc`."""
        if "/" not in key:
            return False
        folder = key.rstrip("/") + "/"
        return self._has_key_starting(folder) or any(
            k.startswith(folder) or f"/{folder}" in k for _, k in self._mentions_for(key)
        )

    def _has_key_starting(self, prefix: str) -> bool:
        """Does a record's key start with `prefix`? Keys sharing a prefix sit together in sorted order, so
        one bisection answers what a scan of every key did: for each unresolved key of 200 summaries over
        a 100 MB session, that scan was 4.9 million `startswith` calls."""
        if self._sorted_keys is None:
            self._sorted_keys = sorted(self._by_key)
        keys = self._sorted_keys
        position = bisect_left(keys, prefix)
        return position < len(keys) and keys[position].startswith(prefix)

    def _mentions_for(self, key: str) -> Mapping[tuple[str, str], int]:
        """Mentions that may bind to `key`: every one whose key contains its needle."""
        if self._mentions is None:
            return {}
        if needle(key) not in self._mentioned:
            self.prepare([key])
        return self._mentioned[needle(key)]

    def resolve(self, anchor: Anchor) -> ResolvedAnchor:
        """The anchor's status; worked out once per key (a chain prints the same keys again and again)."""
        known = self._resolved.get(anchor.key)
        if known is None:
            bound = self.referents(anchor.key)
            if not bound and self._is_folder_of_known_path(anchor.key):
                status, bound = AnchorStatus.RESOLVED, {f"folder:{anchor.key}"}
            elif not bound:
                status = AnchorStatus.UNRESOLVED
            elif len(_distinct_targets(bound)) > 1:
                status = AnchorStatus.AMBIGUOUS
            else:
                status = AnchorStatus.RESOLVED
            known = self._resolved[anchor.key] = (status, tuple(sorted(bound)))
        return ResolvedAnchor(anchor, *known)


@lru_cache(maxsize=1 << 16)
def needle(key: str) -> str:
    """A substring of every mention key that could bind to `key` (see `AnchorIndex.referents`).

    A mention binds when its key equals `key`, when `namespace:mention` equals it, or when it is a
    path ending in `/candidate` (candidate: `key` without leading `./~`). Each of those keys ends
    with `candidate` or with the part after the first colon; both are suffixes of `key`, so every
    binding mention ends with the shorter of the two.
    """
    suffixes = [key.lstrip("./~"), key.split(":", 1)[1] if ":" in key else key]
    return min((s for s in suffixes if s), key=len, default=key)


def _basename(key: str) -> str:
    return key.rstrip("/").rsplit("/", 1)[-1]


_ONE_WORKSPACE = frozenset({"file", "command", "transcript"})
"""A session log's namespaces all name one machine: a path run as a command and read as a file is one path."""


def _distinct_targets(referents: set[str]) -> list[tuple[str, str]]:
    """Two spellings of one path (`src/a.py`, `/home/u/src/a.py`) are one target, not a collision."""
    parsed = sorted(
        ((("workspace" if ns in _ONE_WORKSPACE else ns), k) for ns, k in (r.split(":", 1) for r in referents)),
        key=lambda p: -len(p[1]),
    )
    kept: list[tuple[str, str]] = []
    for namespace, key in parsed:
        if not any(namespace == ns and full.endswith("/" + key.lstrip("./~")) for ns, full in kept):
            kept.append((namespace, key))
    return kept


def resolve_in_isolation(
    text: str, index: AnchorIndex, patterns: Mapping[str, str] | None = None
) -> list[ResolvedAnchor]:
    """Resolve every anchor the text prints, using nothing but the text and the store."""
    return [index.resolve(anchor) for anchor in extract_anchors(text, patterns)]


__all__ = ["Anchor", "AnchorIndex", "AnchorStatus", "DEFAULT_PATTERNS", "ResolvedAnchor",
           "extract_anchors", "resolve_in_isolation"]  # fmt: skip
