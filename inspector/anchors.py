"""Anchors: the keys a summary prints, and whether each resolves from the summary alone.

The first note's test: strip the raw context, keep only the summary, and resolve every anchor it
prints against the store. A key that binds to no record is unresolved; one that binds to records in
two namespaces (two `config.yaml`) is ambiguous, which is worse than a miss. "The store" is what the
summary could have seen: the records before its compaction (`inspector.places`), not the whole log.
"""

from __future__ import annotations

import heapq
import re
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from itertools import pairwise

import regex as unicode_regex

from inspector.model import MentionIndex, SourceRecord
from inspector.places import AFTER_EVERY_CUT, OUTSIDE_THE_LOG, RecordPlaces
from inspector.text import word_end, word_start

_CODE_EXTENSIONS = (
    "py|pyi|ipynb|js|jsx|ts|tsx|mjs|cjs|json|jsonl|yaml|yml|toml|ini|cfg|conf|env|md|rst|txt|csv|tsv|sql|sh|"
    "bash|zsh|ps1|rb|go|rs|java|kt|kts|scala|c|h|cc|cpp|hpp|cs|swift|m|mm|php|pl|lua|r|jl|tex|bib|html|htm|"
    "css|scss|xml|proto|lock|gradle|tf|tfvars|dockerfile|mk|cmake|log|pdf|png|svg|zst|gz|tar|zip|db|sqlite"
)

_PATH_START = r"(?:(?<![\w/.:@-])(?!@[^/])|(?<=@)(?<![\w/.:@-]@)(?!/))"
"""Where a path may start: not inside a word or another path, and not at a word's opening `@` but after it, unless a
`/` follows it: `@/lib/types` is a project's import alias, not the root folder's `lib`."""

DEFAULT_PATTERNS: dict[str, str] = {
    # The first note's opaque key: [[ledger:3.2]]
    "bracket": r"\[\[([A-Za-z0-9:_\-/\.#@]+)\]\]",
    # A URI ends before a character no URI holds unescaped (RFC 3986): `|` closes it in a markdown table's cell
    # ("`http://terminology.hl7.org/CodeSystem/usage-context-type|age`"), `\` in an escaped string.
    "uri": r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,15}://[^\s<>\"'`\])|\\]+[^\s<>\"'`\]).,;:!?|\\]",
    # Paths with a directory part, or bare file names with a known extension. An `@` that opens a word is Claude
    # Code's reference to a file ("@.planning/ROADMAP.md", "@src/app.ts"), not part of its path (`_PATH_START`).
    "path": (
        rf"{_PATH_START}(?:~|\.{{1,2}})?(?:/?[\w@.+-]+/)+[\w@+-][\w@.+-]*(?<![.])"
        rf"|{_PATH_START}[\w@+-][\w@.+-]*\.(?:{_CODE_EXTENSIONS})\b(?![\w/]|-\w)"
    ),
    "commit": r"\b(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b",
    "ticket": r"\b[A-Z][A-Z0-9]{1,9}-[0-9]{1,6}\b",
}


WHOLE_LOG = AFTER_EVERY_CUT
"""The cut that sees every record, those after the last compaction too: resolution against the whole store."""


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
    if len(text) < _SHORT_TEXT:  # a word or a line: setting up two scans would cost more than one
        return regex.finditer(text) if "/" in text or _DOT_WORD.search(text) else ()
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
    text = text if text.isascii() else _unglued(text)
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
            if name == "path" and (not _plausible_path(_rooted(key, text, start)) or _ASSIGNED.match(text, end)):
                continue  # no file: no path evidence, or the target of an assignment in code (`_ASSIGNED`)
            if _TEMPLATE.search(key) or text.startswith("/", end) and _TEMPLATE.match(text, end + 1):
                continue  # a pattern: a placeholder in it, or right after it (`/api/v1/releases/{id}`)
            taken.append((start, end))
            found.append(Anchor(key=key, start=start, end=end, pattern=name))
        taken.sort()
    found.sort(key=lambda a: a.start)
    return found


_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
"""Chinese, Japanese and Korean script, by range. The two patterns of it below are compiled by the `regex` module,
which matches such classes as `re` does: `re` builds a table of every character in their 50,000-wide ranges, 12 ms
of every process's start for the two (measured), `regex` 2 ms."""
_GLUED_CJK = unicode_regex.compile(rf"(?<=[A-Za-z0-9])[{_CJK}]+|[{_CJK}]+(?=[A-Za-z0-9])")
"""A run of Chinese, Japanese or Korean script touching a Latin letter or digit: those scripts put no space between
words, so a path written in a sentence of them ends where the script changes ("`default.nix`にして", "はmodules/")."""


_SCRIPT_CHANGE = unicode_regex.compile(rf"[A-Za-z0-9](?=[{_CJK}])|[{_CJK}](?=[A-Za-z0-9])")
"""The last character before such a change of script (the edge of a run `_GLUED_CJK` blanks)."""


def script_changes(text: str, at: int) -> bool:
    """Whether a Latin letter or digit and one of those scripts meet at `at`: where a key ends, as at a space."""
    return 0 < at < len(text) and _SCRIPT_CHANGE.match(text, at - 1) is not None


def _unglued(text: str) -> str:
    """`text` with each run of those scripts that touches a Latin letter or digit blanked, one space per character
    (every offset stays): a key ends where the script changes, as at a space. A name in the script between a
    path's separators is kept (`docs/仕様書.md`)."""
    return _GLUED_CJK.sub(lambda run: " " * len(run.group()), text)


def _overlaps(claimed: list[tuple[int, int]], starts: list[int], start: int, end: int) -> bool:
    """Does [start, end) overlap a claimed span? Claimed spans are disjoint and sorted: look at two."""
    position = bisect_right(starts, start)
    return (position > 0 and claimed[position - 1][1] > start) or (
        position < len(claimed) and claimed[position][0] < end
    )


_ASSIGNED = re.compile(r"=(?!=)")
"""What follows an assignment's target written with no space (`marker pos/rotation.y=atan2(dir.x,dir.z)`): a
summary that quotes code names a variable there, not a file. A path is written after `=` (`--out=report.json`), not
before it, and a comparison (`==`) may hold one."""
_TEMPLATE = re.compile(r"\{[^{}/]*\}|<[A-Za-z_][\w-]*>|\$\{?[A-Z_][A-Z0-9_]*\}?")
"""A placeholder: `https://api.{dd_site}/v1`, `logs/<run-id>.json`, `$HOME/.cache`. A key with one names a
family of keys, written as a pattern; no record is its referent, so it is no anchor to resolve."""


_SOURCE_ROOTS = frozenset("src lib libs pkg cmd internal packages apps crates vendor node_modules".split())
"""Folders a project's code lives under by convention in most ecosystems: a key starting with one is a
path even with no extension ("src/parser/lexer")."""


_VERSION = re.compile(r"v?\d+(?:\.(?:\d+|x|\*))*", re.IGNORECASE)
_FILE_NAME = re.compile(r"[\w-]+\.[A-Za-z]{1,6}")
"""A file's name with its extension of letters: a path's folders rarely have one, so a key whose every part does is
a list ("AGENTS.md/CLAUDE.md"). A module path's parts end in a version ("gopkg.in/yaml.v3") and stay a path."""


_LISTED_FILE = re.compile(rf"[\w-]+\.(?:{_CODE_EXTENSIONS})")
"""A file's name with a known extension: a folder is never named so, so two of them in a row are a list."""
_RANGE = re.compile(r"\w\.\.\.?\w")
"""Two or three dots between names: git's range of revisions, which no path part holds."""


_BRANDED = frozenset(
    "Node.js Next.js Nuxt.js Vue.js React.js Three.js Express.js D3.js Chart.js Ember.js Backbone.js Alpine.js "
    "Moment.js Day.js Pixi.js Babylon.js Phaser.js Knockout.js Meteor.js Solid.js Nest.js Electron.js Highlight.js "
    "Video.js Leaflet.js Paper.js Anime.js Mermaid.js Plotly.js Tone.js Matter.js p5.js TensorFlow.js Brain.js "
    "Immutable.js Handlebars.js Underscore.js Require.js".split())
"""Libraries and runtimes whose name is written with a `.js` suffix, as their makers write it: "a React/Next.js
frontend" names a framework, not a file, and no record holds it as one. Only in this spelling: `next.js` or
`src/Chart.js` may be a file."""


def _rooted(key: str, text: str, start: int) -> str:
    """The key as evidence of a path: a `/` right after a closing bracket joins on to what the bracket closed, and is
    no root ("SignalSpire(beamTex)/GardenPod/GravSkid" is a list; "app/(site)/about/page.tsx" still has its
    extension)."""
    return key[1:] if key.startswith("/") and start and text[start - 1] in ")]}" else key


def _plausible_path(key: str) -> bool:
    """A path only with path evidence: an extension, a leading `/`, `~/`, `./` or `../`, an `_` or a digit in
    a name, or a conventional source root. Prose joins words with slashes too: 'and/or', 'read/write',
    'Given/When/Then', 'tests/lint/typecheck', 'shell/terminal/editor'."""
    parts = key.split("/")
    if parts[-1] in _BRANDED and all(part[:1].isupper() and part.isalpha() for part in parts[:-1]):
        return False  # a framework's name, alone or after another's: "Next.js", "React/Next.js"
    if all(_VERSION.fullmatch(part) for part in parts):
        return False  # versions joined by slashes: "18.x/20.x/22.x", "3.11/3.12"
    if len(parts) > 1 and all(_FILE_NAME.fullmatch(part) for part in parts):
        return False  # file names joined by slashes: "droneBayView.js/archiveView.js", a list, not a path
    if any(_LISTED_FILE.fullmatch(a) and _LISTED_FILE.fullmatch(b) for a, b in pairwise(parts)):
        return False  # two of them in a row, after a word too: "sitemap/llms.txt/feed.xml"
    if _RANGE.search(key):
        return False  # a git range: "origin/main...branch", "v1.2..release/2.0"
    if "." in key.rsplit("/", 1)[-1] or key.startswith(("/", "~/", "./", "../")):
        return not key.replace("/", "").replace(".", "").isdigit()
    if key.count("/") < 2 or not any(c.isalpha() for c in key):
        return False
    return any(c == "_" or c.isdigit() for c in key) or key.split("/", 1)[0] in _SOURCE_ROOTS


def weakly_a_path(key: str) -> bool:
    """A path only by an `_` or a digit in a name: no extension, no leading `/` or `.`, no source root. Words
    of a list are joined so too ('thinking/text/tool_use', 'metric/monitor/time_slice'), so such a key that
    resolves to nothing may be no path at all. Or one whose last name ends in a code's qualified name, not an
    extension (`_MEMBER`): Go's 'internal/fsroot.Root.StagedWrite', two calls joined, 'os.MkdirAll/os.WriteFile'."""
    head, last = key.split("/", 1)[0], key.rsplit("/", 1)[-1]
    if "." in last and _MEMBER.fullmatch(last.rsplit(".", 1)[-1]):
        return True
    return "/" in key and "." not in last and not key.startswith(("/", "~/", "./", "../")) and head not in _SOURCE_ROOTS


_MEMBER = re.compile(r"[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*")
"""A name in camel case with a hump (`StagedWrite`, `MkdirAll`), after a dot: a type's or a package's member, as Go,
Java and C# write one. A file's extension is lower case or one word (`.md`, `.R`, `.PNG`, `.Dockerfile`)."""


@dataclass(slots=True)
class _Tier:
    """The records one key binds to in one way (exactly, or as a path suffix), earliest place first: the
    ones before a cut are a prefix, found by bisection, and each prefix's outcome is worked out once."""

    places: list[int]
    referents: list[str]
    outcomes: dict[int, tuple[AnchorStatus, tuple[str, ...]]] = field(default_factory=dict)

    @classmethod
    def of(cls, placed: Mapping[str, int]) -> _Tier:
        if len(placed) == 1:  # most keys bind to one record
            [(referent, place)] = placed.items()
            return cls([place], [referent])
        ordered = sorted((place, referent) for referent, place in placed.items())
        return cls([place for place, _ in ordered], [referent for _, referent in ordered])

    def seen(self, cut: int) -> int:
        """How many of the referents lie before the cut (placed at or before it)."""
        return bisect_right(self.places, cut)


_NO_TIER = _Tier([], [])


class AnchorIndex:
    """The source store as a resolver sees it: keys, namespace-qualified keys, and path suffixes.

    `mentions` (a session log's turns) count as records too — `namespace:key` for every key a turn
    prints — but are looked up only for the keys asked about; `prepare` batches those look-ups.

    Every record and mention has a place among the compactions (`inspector.places`; without `places`,
    all lie before every cut), and a key resolves at a cut against only what lies before it, exactly
    as an index of those records alone would. What a key binds to over the whole log is found once per
    key, sorted by place, so each state's answer is a bisection, not a new search.
    """

    def __init__(self, sources: Iterable[SourceRecord], mentions: MentionIndex | None = None,
                 places: RecordPlaces | None = None, given: Iterable[str] = (),
                 moved: Iterable[tuple[str, str, int]] = (), working: str | None = None,
                 entered: Iterable[str] = ()) -> None:  # fmt: skip
        """`given`: keys every state knows with no record (`Trace.harness_loaded`), placed before every cut.
        `moved`: (old path, new path, place) of each path the session's shell moved (`inspector.moves`).
        `working`: the folder the agent worked in (`Trace.working_folder`), where the paths it printed bare lie.
        `entered`: folders a shell run changed into (`moves.entered_folders`), where the paths it printed lie."""
        self._moved = tuple(moved)
        self._working = working.rstrip("/") if working and working.startswith("/") else None
        self._folders_worked_in = tuple(dict.fromkeys([*([self._working] if self._working else []), *entered]))
        given = tuple(given)
        self._given_paths = tuple(key for key in given if "/" in key)
        """Harness-given files under a folder (plan mode's `.claude/plans/…`): known in any spelling of the folder
        they sit in, since the log never says where the user's home is."""
        self._by_key: dict[str, dict[str, int]] = defaultdict(dict)
        self._by_basename: dict[str, set[str]] = defaultdict(set)
        self._mentions = mentions
        self._places = places
        self._mentioned: dict[str, dict[tuple[str, str], int]] = {}
        self._exact: dict[str, _Tier] = {}
        self._suffix: dict[str, _Tier] = {}
        self._folders: dict[str, int | None] = {}
        self._key_places: dict[str, int] = {}
        """The earliest place of any record under each key of `_by_key`: when a folder's paths are known."""
        self._sorted_keys: tuple[list[str], list[int]] | None = None
        place_of = places.of if places is not None else None
        by_key, key_places = self._by_key, self._key_places
        for record in sources:
            place = place_of(record) if place_of is not None else OUTSIDE_THE_LOG
            referent = f"{record.namespace}:{record.key}"
            for key in (record.key, referent):  # inlined `_keep_earliest`: this loop sees every record
                bound = by_key[key]
                if bound.get(referent, WHOLE_LOG) >= place:
                    bound[referent] = place
                if key_places.get(key, WHOLE_LOG) >= place:
                    key_places[key] = place
            if "/" in record.key:
                self._by_basename[_basename(record.key)].add(record.key)
        for key in given:  # the file itself, known before the first turn: one referent with any read of it
            referent = f"file:{key}"
            for name in (key, referent):
                by_key[name][referent] = OUTSIDE_THE_LOG
                key_places[name] = OUTSIDE_THE_LOG

    def prepare(self, keys: Iterable[str]) -> None:
        """Find the mentions of all these keys in one pass over the transcript, each placed by its first turn."""
        if self._mentions is None:
            return
        keys = set(keys)
        keys.update([*(relative for key in keys for relative in self._relative_forms(key)),
                     *filter(None, map(_sentence_cased, keys)), *filter(None, map(_module_specifier, keys))])
        wanted = {needle(key) for key in keys} - self._mentioned.keys()
        for found, mentions in self._mentions.containing(wanted).items():
            self._mentioned[found] = {mention: self._turn_place(position) for mention, position in mentions.items()}

    def _turn_place(self, position: int) -> int:
        key = self._mentions.key_at(position) if self._mentions is not None else None
        return self._places.of_log_key(key) if self._places is not None and key is not None else OUTSIDE_THE_LOG

    def referents(self, key: str, cut: int | None = None) -> set[str]:
        """Records `key` binds to before the cut (None: in the whole log): those whose key is `key` or whose
        `namespace:key` is, else those whose path ends in `/key`."""
        tier, seen = self._tier_before(key, WHOLE_LOG if cut is None else cut)
        return set(tier.referents[:seen])

    def _tier_before(self, key: str, cut: int) -> tuple[_Tier, int]:
        """The records `key` binds to before the cut, and how many: exact ones where any, else path suffixes."""
        tier = self._exact_tier(key)
        seen = tier.seen(cut)
        if not seen:
            tier = self._suffix_tier(key)
            seen = tier.seen(cut)
        return tier, seen

    def _exact_tier(self, key: str) -> _Tier:
        tier = self._exact.get(key)
        if tier is None:
            placed = dict(self._by_key.get(key, {}))
            for longer in self._keys_abbreviated_by(key):
                for referent, place in self._by_key[longer].items():
                    _keep_earliest(placed, referent, place)
            for (namespace, mentioned), place in self._mentions_for(key).items():
                referent = f"{namespace}:{mentioned}"
                if mentioned == key or referent == key or abbreviates(key, mentioned):
                    _keep_earliest(placed, referent, place)
            tier = self._exact[key] = _Tier.of(placed) if placed else _NO_TIER
        return tier

    def _suffix_tier(self, key: str) -> _Tier:
        """Paths ending in `/key`: what `key` binds to before a cut where nothing bears it exactly."""
        tier = self._suffix.get(key)
        if tier is None:
            named = self._named(key)
            candidate = _bare_path(key)
            basename = _basename(candidate)
            fulls = set(self._by_basename.get(basename, ()))
            fulls.update(k for k in named if "/" in k and _basename(k) == basename)
            placed: dict[str, int] = {}
            for full in fulls:
                if full.endswith("/" + candidate) or full == candidate:
                    for referent, place in (*self._by_key.get(full, {}).items(), *named.get(full, {}).items()):
                        _keep_earliest(placed, referent, place)
            tier = self._suffix[key] = _Tier.of(placed) if placed else _NO_TIER
        return tier

    def _keys_abbreviated_by(self, key: str) -> list[str]:
        """Record keys that are longer hex ids `key` is the head of (`abbreviates`), found by bisection."""
        if not HEX_ID.fullmatch(key):
            return []
        keys, _ = self._sorted()
        low = bisect_left(keys, key)
        high = bisect_left(keys, key[:-1] + chr(ord(key[-1]) + 1))
        return [k for k in keys[low:high] if abbreviates(key, k)]

    def _sorted(self) -> tuple[list[str], list[int]]:
        """Every record key in sorted order, with its earliest place: prefixes sit together, found by bisection."""
        if self._sorted_keys is None:
            keys = sorted(self._key_places)
            self._sorted_keys = (keys, list(map(self._key_places.__getitem__, keys)))
        return self._sorted_keys

    def _named(self, key: str) -> dict[str, dict[str, int]]:
        """The mentions that may bind to `key`, by the keys they answer to: their own and `namespace:key`."""
        named: dict[str, dict[str, int]] = defaultdict(dict)
        for (namespace, mentioned), place in self._mentions_for(key).items():
            referent = f"{namespace}:{mentioned}"
            _keep_earliest(named[mentioned], referent, place)
            _keep_earliest(named[referent], referent, place)
        return named

    def _folder_place(self, key: str) -> int | None:
        """Where a path under `key` is first known, if any: a folder is there when a path under it is
        (`/usr/local/cuda-12.6` of `/usr/local/cuda-12.6/bin/nvcc`). A folder in the home one is there in any
        spelling of the home folder, as a file in it is (`_suffix_tier`): `~/.claude/skills` of
        `/Users/u/.claude/skills/x`."""
        if key in self._folders:
            return self._folders[key]
        found: int | None = None
        if "/" in key:
            folder = key.rstrip("/") + "/"
            inside = folder[1:] if folder.startswith("~/") else f"/{folder}"
            places = [p for (_, k), p in self._mentions_for(key).items() if k.startswith(folder) or inside in k]
            stored = self._earliest_key_starting(folder)
            found = min([*places, *([stored] if stored is not None else [])], default=None)
        self._folders[key] = found
        return found

    def _earliest_key_starting(self, folder: str) -> int | None:
        """The earliest place of a record whose key starts with `folder` (which ends in `/`), if any.

        Keys sharing a prefix sit together in sorted order, so two bisections find them all, where a
        scan of every key for each unresolved key of 200 summaries over a 100 MB session was 4.9 million
        `startswith` calls; every key past them sorts at or after the prefix with `/` raised to `0`.
        """
        keys, places = self._sorted()
        low, high = bisect_left(keys, folder), bisect_left(keys, folder[:-1] + "0")
        return min(places[low:high]) if low < high else None

    def _mentions_for(self, key: str) -> dict[tuple[str, str], int]:
        """Mentions that may bind to `key` (every one whose key contains its needle), with their places."""
        if self._mentions is None:
            return {}
        if needle(key) not in self._mentioned:
            self.prepare([key])
        return self._mentioned[needle(key)]

    def names_a_file(self, key: str) -> bool:
        """Whether the log bears a path whose last name is `key` with an extension after it: a summary names the
        file by its stem (`7c5d99d5f45ed7` of `articles/7c5d99d5f45ed7.md`, a slug the tool that made it chose)."""
        return any(path.rsplit("/", 1)[-1].split(".", 1)[0] == key and "." in path.rsplit("/", 1)[-1]
                   for _, path in self._mentions_for(key))  # fmt: skip

    def resolve(self, anchor: Anchor, cut: int | None = None) -> ResolvedAnchor:
        """The anchor's status against the records before the cut (a state's index; None: the whole log).

        Judged among those records only: a key whose one record comes later is unresolved, and one that
        binds to a second place only later is not ambiguous yet.
        """
        limit = WHOLE_LOG if cut is None else cut
        tier, seen = self._tier_before(anchor.key, limit)
        if seen:
            return ResolvedAnchor(anchor, *_outcome(tier, seen))
        folder = self._folder_place(anchor.key)
        if folder is not None and folder <= limit:
            return ResolvedAnchor(anchor, AnchorStatus.RESOLVED, (f"folder:{anchor.key}",))
        for before in self._moved_from(anchor.key, limit):
            tier, seen = self._tier_before(before, limit)
            if seen:
                return ResolvedAnchor(anchor, *_outcome(tier, seen))
        for relative in self._relative_forms(anchor.key):
            tier = self._exact_tier(relative)
            seen = tier.seen(limit)
            if seen:
                return ResolvedAnchor(anchor, *_outcome(tier, seen))
        bare = _bare_path(anchor.key)
        given = next((key for key in self._given_paths if bare == key or bare.endswith(f"/{key}")), None)
        if given is not None:
            return ResolvedAnchor(anchor, AnchorStatus.RESOLVED, (f"file:{given}",))
        for spelling in filter(None, (_sentence_cased(anchor.key), _module_specifier(anchor.key))):
            tier, seen = self._tier_before(spelling, limit)
            if seen:
                return ResolvedAnchor(anchor, *_outcome(tier, seen))
        return ResolvedAnchor(anchor, AnchorStatus.UNRESOLVED, ())

    def _relative_forms(self, key: str) -> Iterator[str]:
        """The paths a full spelling of `key` has from the working folder and from each folder a run changed into
        (`_in_folder`): what a command run there printed. A path from the working folder is spelled in full from it
        first: raven_a4aae4ac's `.worktrees/pr209/.github/workflows/go.yml` is the `.github/workflows/go.yml` of a
        `sed -i` run after `cd …/raven/.worktrees/pr209`."""
        if not key.startswith(("/", "~/")):
            if self._working is None or key.startswith("../"):
                return
            key = f"{self._working}/{key.removeprefix('./')}"
        for folder in self._folders_worked_in:
            relative = _in_folder(key, folder)
            if relative is not None:
                yield relative

    def _moved_from(self, key: str, cut: int) -> Iterator[str]:
        """The paths `key` had before a move that came before the cut: `wfc/wfc_tools/x.py` was `wfc/wfc-tools/x.py`
        after `mv wfc/wfc-tools wfc/wfc_tools` (a rename), and `bench/run.py` was `run.py` after `mv run.py bench/`
        (a move into a folder); which of the two a `mv` did, the line does not say, so both are asked."""
        path = key.removeprefix("./")
        for old, new, place in self._moved:
            rest = _under(path, new.removeprefix("./").rstrip("/")) if place <= cut else None
            if rest is None:
                continue
            old = old.removeprefix("./").rstrip("/")
            yield old + rest
            name = _basename(old)
            if rest == f"/{name}" or rest.startswith(f"/{name}/"):
                yield old + rest[len(name) + 1 :]


_HOME = re.compile(r"/Users/[^/]+|/home/[^/]+|/root(?=/|$)|[A-Za-z]:/Users/[^/]+")
"""A home folder by convention (macOS, Linux, root's, Windows's with forward slashes), at the head of a path."""


def _sentence_cased(key: str) -> str | None:
    """A file's name a sentence or a list item opened with, and so capitalised ("- Keep-list.json in
    `.development/housekeeping/keep-list.json` persists …"): the name as the log writes it, its first letter small.
    None for a path under a folder or a name whose second letter is a capital too (`README.md`), which is how it is
    written."""
    if "/" in key or not key[:1].isupper() or not key[1:2].islower():
        return None
    return key[0].lower() + key[1:]


_SCRIPT_MODULE = re.compile(r"(?<=[\w-])\.(?:ts|tsx|mts|cts|js|jsx|mjs|cjs)$")
"""The extension a JavaScript or TypeScript import leaves out: `import … from '../hooks/useRecipeForm'` is
`useRecipeForm.ts`."""


def _module_specifier(key: str) -> str | None:
    """A script file's name as an import names it, without its extension: a summary's `useRecipeForm.ts` is the
    `../hooks/useRecipeForm` of the log's imports, which no record names with the extension. None for other files."""
    found = _SCRIPT_MODULE.search(key)
    return key[: found.start()] if found else None


def _in_folder(key: str, folder: str) -> str | None:
    """The path a full spelling of `key` has from `folder`, as a command run there prints it: a summary's
    `~/dev/duet/.claude-plugin/plugin.json` is `.claude-plugin/plugin.json` of `git diff` run in `/Users/u/dev/duet`.
    Only an absolute or home path is placed so; which folder a relative key lies under, it does not say. The log never
    names the home folder, so `~/` stands for the head of the folder that is one by convention (`/Users/u`,
    `/home/u`, `/root`): `~/dev/duet` is `/Users/u/dev/duet`, and `~/duet` is not, though that folder's name ends the
    path too."""
    if key.startswith(f"{folder}/"):
        return key[len(folder) + 1 :] or None
    home = _HOME.match(folder)
    if not key.startswith("~/") or home is None:
        return None
    inside = folder[home.end() :]  # "/dev/duet"
    if not key.startswith(f"~{inside}/"):
        return None
    return key[len(inside) + 2 :] or None


def _outcome(tier: _Tier, seen: int) -> tuple[AnchorStatus, tuple[str, ...]]:
    """What the first `seen` records of a tier make of a key: resolved, or ambiguous between distinct targets;
    worked out once per count."""
    known = tier.outcomes.get(seen)
    if known is None:
        bound = tier.referents[:seen]
        status = AnchorStatus.AMBIGUOUS if len(_distinct_targets(bound)) > 1 else AnchorStatus.RESOLVED
        known = tier.outcomes[seen] = (status, tuple(sorted(bound)))
    return known


def _under(path: str, folder: str) -> str | None:
    """What of `path` lies past `folder` ("" when it is the folder itself), compared at a path boundary and whichever
    of the two is the longer spelling (`wfc/x` under `/repo/wfc`); None when the path is not under it."""
    if not folder:
        return None
    ends = [i for i, c in enumerate(path) if c == "/" and i] + [len(path)]
    for end in ends:
        head = path[:end]
        if head == folder or head.endswith(f"/{folder}") or folder.endswith(f"/{head}"):
            return path[end:]
    return None


HEX_ID = re.compile(r"[0-9a-f]{7,}")
"""A hex id as summaries and logs print them: a sha, a checksum, an image id (seven digits or more)."""


def abbreviates(short: str, full: str) -> bool:
    """`short` is the head of a longer hex id the log printed: a commit's short sha (`ea5ee39` of
    `ea5ee3964bef…`), a checksum or an image id cut to its first characters, as summaries write them."""
    return len(full) > len(short) and full.startswith(short) and bool(HEX_ID.fullmatch(short)) and bool(
        HEX_ID.fullmatch(full))


def _keep_earliest(placed: dict[str, int], referent: str, place: int) -> None:
    """Keep a referent's earliest place: a key printed twice was there from the first time."""
    known = placed.get(referent)
    if known is None or place < known:
        placed[referent] = place


@lru_cache(maxsize=1 << 16)
def needle(key: str) -> str:
    """A substring of every mention key that could bind to `key` (see `AnchorIndex.referents`).

    A mention binds when its key equals `key`, when `namespace:mention` equals it, or when it is a
    path ending in `/candidate` (candidate: `key` without leading `./~`). Each of those keys ends
    with `candidate` or with the part after the first colon; both are suffixes of `key`, so every
    binding mention ends with the shorter of the two.
    """
    suffixes = [_bare_path(key), key.split(":", 1)[1] if ":" in key else key]
    return min((s for s in suffixes if s), key=len, default=key)


_PLACING = re.compile(r"^(?:~/|\.{1,3}/|…/|/)+")
"""What only places a path (a leading `~/`, `./`, `../`, `/`, or the `.../` of folders left out), not part of any
longer spelling's tail."""


def _bare_path(key: str) -> str:
    """A path without what only places it: what every longer spelling of the same file ends with. A dot-folder
    keeps its dot: `~/.claude/settings.json` is `.claude/settings.json`, which `/home/u/.claude/settings.json`
    ends with; stripping every leading dot and slash made it `claude/settings.json`, which no spelling ends with."""
    return _PLACING.sub("", key)


def _basename(key: str) -> str:
    return key.rstrip("/").rsplit("/", 1)[-1]


_ONE_WORKSPACE = frozenset({"file", "command", "transcript"})
"""A session log's namespaces all name one machine: a path run as a command and read as a file is one path."""


def _distinct_targets(referents: Iterable[str]) -> list[tuple[str, str]]:
    """Two spellings of one path (`src/a.py`, `/home/u/src/a.py`) are one target, not a collision; so are a hex id
    and its head (`10ed3d3`, `10ed3d3170ca…`)."""
    parsed = sorted(
        ((("workspace" if ns in _ONE_WORKSPACE else ns), k) for ns, k in (r.split(":", 1) for r in referents)),
        key=lambda p: -len(p[1]),
    )
    kept: list[tuple[str, str]] = []
    for namespace, key in parsed:
        if not any(namespace == ns and (full.endswith("/" + _bare_path(key)) or abbreviates(key, full))
                   for ns, full in kept):  # fmt: skip
            kept.append((namespace, key))
    return kept


def resolve_in_isolation(
    text: str, index: AnchorIndex, patterns: Mapping[str, str] | None = None, cut: int | None = None
) -> list[ResolvedAnchor]:
    """Resolve every anchor the text prints, using nothing but the text and the store before the cut
    (the state's index; None: the whole store)."""
    return [index.resolve(anchor, cut) for anchor in extract_anchors(text, patterns)]


__all__ = ["HEX_ID", "Anchor", "AnchorIndex", "AnchorStatus", "DEFAULT_PATTERNS", "ResolvedAnchor", "abbreviates",
           "extract_anchors", "resolve_in_isolation", "script_changes", "weakly_a_path"]  # fmt: skip
