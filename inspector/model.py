"""The compaction-chain model every reader produces and every analysis reads.

A trace is the durable evidence (source records) plus the chain of context states S₀…Sₙ built from it.
S₀ is the raw context before the first compaction; Sₖ is the k-th summary, so a trace with n
compactions has n+1 generations. Readers build these objects; analyses never open files.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from itertools import islice
from typing import Any, Protocol, overload


class MentionIndex(Protocol):
    """A transcript's turns, searchable for the keys they print (built by `inspector.mentions.Mentions`).

    Declared here so a trace can hold one without the model importing the search that builds it.
    """

    def __len__(self) -> int: ...

    def containing(self, wanted: Iterable[str]) -> Mapping[str, Mapping[tuple[str, str], int]]:
        """For each needle, every (namespace, key) mention whose key contains it, with the position of the
        first turn that prints it (turns are in log order: where the key first appears)."""
        ...

    def key_at(self, position: int) -> str | None:
        """The record key of the turn at `position` (None when the index was given no keys)."""
        ...

    def records(self) -> list[SourceRecord]:
        """Every mention as a derived source record (for writing the trace out)."""
        ...


TRANSCRIPT = "transcript"
"""The namespace session-log readers give raw turns; the analyses tell turns from other records by it."""
USER_REFUSED, USER_INTERRUPTED = "rejected", "interrupted"
"""The slips (`extra["slip"]` of a tool result) a reader names when the user stopped a call: refused it when asked
to allow it, or interrupted it running. The user's own choice about that call, unlike the harness's refusals."""


class InvariantKind(StrEnum):
    """What an item is, for every trace: the kinds a careful reviewer labels (`quality/GOLD-FORMAT.md`).

    One taxonomy for native traces and session logs. A statement's force (a prohibition, a condition, an
    obligation) is not a kind of its own but read from its words (`inspector.statement_force`); native files
    written with the older, force-named kinds still load (`_missing_`).
    """

    USER_CONSTRAINT = "user-constraint"
    USER_DECISION = "user-decision"
    USER_REQUIREMENT = "user-requirement"
    USER_PREFERENCE = "user-preference"
    CORRECTION = "correction"
    FAILURE = "failure"
    """A failure still unresolved: a crash, a failing build or test, a known counterexample."""
    FAILED_APPROACH = "failed-approach"
    COMPLETED_ACTION = "completed-action"
    SET_ASIDE = "set-aside"
    """Work put aside to be restored (a `git stash` of uncommitted changes), owed until restored."""
    TASK_CRITERION = "task-criterion"
    """An acceptance criterion of the issue the user set the agent on: delegated, not typed."""
    FACT = "fact"
    """A fact a native trace declares (a topic, a value), with no author's force."""

    @classmethod
    def _missing_(cls, value: object) -> InvariantKind | None:
        return cls(LEGACY_KINDS[value]) if isinstance(value, str) and value in LEGACY_KINDS else None


LEGACY_KINDS: dict[str, str] = {
    "prohibition": "user-constraint",
    "precondition": "user-constraint",
    "procedural-rule": "user-requirement",
    "counterexample": "failure",
}
"""Kinds native files were written with when force was a kind, and the kind each is now."""


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class ConsequenceKind(StrEnum):
    """What the agent working from a summary did about an item the summary lost (`inspector.consequences`)."""

    VIOLATED = "violated"
    RESTATED = "restated"
    REASKED = "re-asked"
    RETRIED = "retried"
    REDONE = "redone"


@dataclass(frozen=True, slots=True)
class Consequence:
    """The later end of a loss: the record where the next agent broke, re-asked, retried or redid it, or the user
    said it again, while it worked from the summary of generation `generation`."""

    kind: ConsequenceKind
    key: str
    quote: str
    generation: int
    why: str
    invariant: str | None = None
    """The id of the lost item this followed from: a finding about several items (completed actions) names one."""


class Author(StrEnum):
    """Who wrote a span of a record's text. Only `USER` spans are what the user said."""

    USER = "user"
    """Typed by the person: a prompt, a question-tool answer, words typed when rejecting a tool call."""
    USER_PASTE = "user-paste"
    """Put in the user's message by the user but written elsewhere: a log, stack trace, document, code."""
    HARNESS = "harness"
    """Injected by the agent's tool or a wrapper: reminders, hook output, command tags, instructions."""
    TOOL = "tool"
    """A tool's output."""
    SUBAGENT = "subagent"
    """A sub-agent's report, delivered into the conversation."""
    AGENT = "agent"
    """The agent itself: its messages and tool calls."""
    SUMMARY = "summary"
    """A compaction's summary."""


_AUTHORS = {"user": Author.USER, "assistant": Author.AGENT, "agent": Author.AGENT, "tool": Author.TOOL,
            "harness": Author.HARNESS, "system": Author.HARNESS, "subagent": Author.SUBAGENT,
            "user-paste": Author.USER_PASTE, "summary": Author.SUMMARY}  # fmt: skip
"""A reader's `authority` as an author; anything else (a store's own labels) is nobody's words: harness."""


def author_of(authority: str | None) -> Author:
    """The author a reader's `authority` label names."""
    return _AUTHORS.get(authority or "", Author.HARNESS)


@dataclass(frozen=True, slots=True)
class AuthoredSpan:
    """A stretch of a record's text, `start` to `end`, and who wrote it."""

    start: int
    end: int
    author: Author


@dataclass(frozen=True, slots=True)
class SourceRecord:
    """One piece of durable evidence: a ledger entry, a raw turn, a tool result, a file."""

    key: str
    """Stable identifier an anchor can print, e.g. ``ledger:3.2`` or a file path."""
    text: str
    namespace: str = "default"
    """Store partition; the same key in two namespaces is a collision when printed bare."""
    kind: str = "note"
    """Free-form record kind; an `InvariantKind` value makes the whole record that invariant."""
    timestamp: str | None = None
    supersedes: str | None = None
    """Key of an earlier record this one corrects."""
    authority: str | None = None
    """Who stated it (user, system, tool…): used to weigh refresh urgency."""
    volatility: str | None = None
    """How likely the underlying fact is to change (stable, volatile…)."""
    extra: dict[str, Any] = field(default_factory=dict, compare=False)
    """Fields a reader kept but the model does not interpret (never dropped)."""

    @property
    def author(self) -> Author:
        """Who wrote the record, as its reader decided from the format's own fields (`authority`); the spans
        inside a user's record are `inspector.authorship.spans_of`."""
        return author_of(self.authority)


@dataclass(frozen=True, slots=True)
class Invariant:
    """A typed item whose loss changes what the agent may or must do."""

    id: str
    kind: InvariantKind
    text: str
    source_key: str | None = None
    """Record the invariant was extracted from (None for a declared one with no source)."""
    retired_by: str | None = None
    """Key of a later record that makes the item no longer owed (a fix, a later success, a redirect)."""
    replaces: str | None = None
    """For a correction: the superseded wording it replaces ("X, not Y" → Y)."""
    quote: str | None = None
    """The whole sentence of the source record that states it, when `text` is only part of it."""
    context: str | None = None
    """The question a short answer replies to ("A. is fine" ← "How should failures be handled?")."""
    asked: str | None = None
    """The question-tool question an answer that says enough alone replies to (so no `context`): a summary may keep
    such an answer in part, beside the question's topic ("localStorage persistence" for "Browser localStorage
    only.", asked "Should the cart persist data, and if so, how?")."""
    label: str | None = None
    """The short label the question tool showed that question under ("Finding 5", "Auth method"), when it had one: a
    summary may list the answer by it alone ("Finding 5: Skip")."""
    reference: str | None = None
    """The file that holds the item, which a summary may point to instead of repeating it: the approved plan's file
    (`.claude/plans/<slug>.md`), for the checks its verification section asks to run."""
    branch: str | None = None
    """For a commit: the branch git printed it on (`[feat/x 1a2b3c4] subject`), which a finding names with it: where
    the work is, for the next agent to push, rebase or open a pull request from."""
    distinct: str | None = None
    """For an entry of a list (`inspector.list_selection`), the words of it no other entry of the list has: the
    entries of one list share the words of their one file or feature, so these are what tell a summary's passage
    about this entry from one about its neighbour."""
    declared: bool = False
    """Stated by the trace itself (its own list, a typed record, a compactor's manifest), not mined from what
    someone said: its author chose each word, so it is matched word for word and force for force
    (`inspector.invariants.match_invariant`), where a mined statement is matched by its topic."""


class KeyPrefix(Sequence[str]):
    """The first `size` keys of one shared key order: a state's covers, without a copy per state.

    Covers are cumulative, so a session log's states are prefixes of one order of its records. As
    tuples, 200 compactions of a 100 MB session held every key about 100 times (tens of MB); as
    views they share one tuple and one position map, and membership is a dict look-up. Equal to any
    sequence of the same keys in the same order, tuples included.
    """

    __slots__ = ("_keys", "_positions", "_size")

    def __init__(self, keys: tuple[str, ...], size: int, positions: dict[str, int] | None = None) -> None:
        self._keys = keys
        self._size = max(0, min(size, len(keys)))
        self._positions = positions if positions is not None else {k: i for i, k in reversed(list(enumerate(keys)))}

    def prefix(self, size: int) -> KeyPrefix:
        """The first `size` of these keys, sharing the same order."""
        return KeyPrefix(self._keys, min(size, self._size), self._positions)

    def starts_with(self, other: Sequence[str]) -> bool:
        """Are `other`'s keys the first of these? (Free for a prefix of the same order.)"""
        if isinstance(other, KeyPrefix) and other._keys is self._keys:
            return other._size <= self._size
        return len(other) <= self._size and self._keys[: len(other)] == tuple(other)

    def __len__(self) -> int:
        return self._size

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[str, ...]: ...
    def __getitem__(self, index: int | slice) -> str | tuple[str, ...]:
        if isinstance(index, slice):
            return self._keys[: self._size][index]
        if not -self._size <= index < self._size:
            raise IndexError("KeyPrefix index out of range")
        return self._keys[index % self._size]

    def __iter__(self) -> Iterator[str]:
        return islice(self._keys, self._size)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._positions.get(key, self._size) < self._size

    def __eq__(self, other: object) -> bool:
        if isinstance(other, KeyPrefix) and other._keys is self._keys:
            return other._size == self._size
        if isinstance(other, Sequence) and not isinstance(other, str):
            return len(other) == self._size and self.starts_with(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"KeyPrefix({self._size} of {len(self._keys)} keys)"


@dataclass(frozen=True, slots=True)
class Generation:
    """One context state in the chain: S₀ (raw) or a summary Sₖ."""

    index: int
    kind: str
    """``raw`` for S₀, ``summary`` for S₁…Sₙ."""
    text: str | None
    """None when the summary exists but its text is unavailable (e.g. encrypted)."""
    parent: int | None = None
    covers: Sequence[str] = ()
    """Keys of every source record this state is responsible for (cumulative over the chain): a
    tuple, or a `KeyPrefix` of one shared order where a reader builds many states."""
    tokens_before: int | None = None
    tokens_after: int | None = None
    trigger: str | None = None
    """``auto`` or ``manual`` when the log says."""
    manifest: tuple[Invariant, ...] | None = None
    """The compactor's own invariant manifest, if it emitted one alongside the summary."""
    refreshed: bool = False
    """True when this state was rebuilt from source records rather than from its parent."""
    timestamp: str | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def label(self) -> str:
        return f"S{self.index}"


@dataclass(frozen=True, slots=True)
class ChainEvent:
    """Something that happened on the chain without making a generation (micro-compaction…)."""

    kind: str
    after_generation: int
    """The event happened while this generation was the current state."""
    description: str = ""
    timestamp: str | None = None


REDACTED_PATH = "redacted_path"
"""A tool call record's `extra` key: the suffix of the path in its input that the log's exporter replaced with a
placeholder (`.json` for Entire's `REDACTED.json`). Its reader knows the placeholder; a summary, written from the
context the agent had, names the path the log no longer shows."""

PASTED_ANALYSIS = "pasted_analysis"
"""A summary generation's `extra` key: the [start, end] spans of text its harness pasted into it as it stored it, in
place of `PASTED_FOR` (Claude Code's copies of the summary's own analysis, `inspector.readers.pasted_analysis`)."""
PASTED_FOR = "$`"
"""What each pasted span stands in place of in the summary its model wrote."""

BEGINS_MID_SESSION = "begins_mid_session"
"""A trace's `extra` key: True when its reader found the log to be a slice of a longer session
(`Trace.begins_mid_session`)."""


@dataclass(frozen=True, slots=True)
class Trace:
    """A loaded compaction chain: what readers return and analyses consume."""

    id: str
    format: str
    sources: tuple[SourceRecord, ...]
    generations: tuple[Generation, ...]
    invariants: tuple[Invariant, ...] | None = None
    """Declared invariants; None means 'extract them from the source records'."""
    events: tuple[ChainEvent, ...] = ()
    title: str | None = None
    path: str | None = None
    notices: tuple[Finding, ...] = ()
    """Findings the reader itself raised (unavailable summaries, skipped lines…)."""
    extra: dict[str, Any] = field(default_factory=dict, compare=False)
    mentions: MentionIndex | None = field(default=None, compare=False, repr=False)
    """Keys the transcript's turns print, looked up on demand (session logs); None: only `sources`."""

    def source(self, key: str) -> SourceRecord | None:
        return next((s for s in self.sources if s.key == key), None)

    @property
    def harness_loaded(self) -> tuple[str, ...]:
        """Files the harness put in the agent's context without a record (its reader names them): known to every
        state, as if read before the first turn."""
        names = self.extra.get("harness_loaded")
        return tuple(n for n in names if isinstance(n, str) and n) if isinstance(names, list) else ()

    @property
    def working_folder(self) -> str | None:
        """The folder the agent worked in, as its reader found it (a session log's `cwd`): where the paths its
        commands printed bare lie."""
        folder = self.extra.get("cwd")
        return folder if isinstance(folder, str) and folder else None

    @property
    def begins_mid_session(self) -> bool:
        """The log holds no start of its session (its reader's `BEGINS_MID_SESSION`): what came before its first
        record, and what its first summary summarised, is in another file, where a key no record here binds may
        live."""
        return self.extra.get(BEGINS_MID_SESSION) is True

    @property
    def is_session_log(self) -> bool:
        """Read from an agent's own session log (or a native copy of one), not a curated native trace."""
        meta = self.extra.get("meta")
        return self.mentions is not None or (isinstance(meta, dict) and meta.get("session_log") is True)


@dataclass(frozen=True, slots=True)
class Finding:
    """One failure signal at one place in the chain."""

    rule: str
    severity: Severity
    generation: int | None
    message: str
    start: int | None = None
    """Character span in the generation's text, when the finding points at text."""
    end: int | None = None
    evidence: dict[str, Any] = field(default_factory=dict, compare=False)
    excerpt: str | None = field(default=None, compare=False)
    """The summary sentence at the finding's span (None when the finding points at no text)."""
    source: SourceQuote | None = field(default=None, compare=False)
    """The record the finding is about and the sentence there that states it: what a reviewer checks."""
    consequence: Consequence | None = field(default=None, compare=False)
    """What happened next because of this loss (`inspector.consequences`), when the log after it shows it."""


@dataclass(frozen=True, slots=True)
class SourceQuote:
    """Evidence from the log: a record's key and the one sentence of it that matters (not the record)."""

    key: str
    quote: str


@lru_cache(maxsize=1 << 17)
def finding_id(finding: Finding) -> str:
    """A stable id for a finding: same rule, place and message → same id across loads and versions.

    Kept per finding for the process (findings are frozen, and equal ones share the id's every input): a report
    asks for each of its findings' ids four times, its table, its list, its link targets and its reviews, which
    was 290,000 digests for 72,000 findings. The bound is a large session's findings."""
    basis = f"{finding.rule}|{finding.generation}|{finding.start}|{finding.end}|{finding.message}"
    return hashlib.sha1(basis.encode()).hexdigest()[:12]


__all__ = ["BEGINS_MID_SESSION", "PASTED_ANALYSIS", "PASTED_FOR", "REDACTED_PATH", "TRANSCRIPT", "USER_INTERRUPTED",
           "USER_REFUSED", "Author", "AuthoredSpan", "ChainEvent", "Consequence", "ConsequenceKind", "Finding",
           "Generation", "Invariant", "InvariantKind", "KeyPrefix", "MentionIndex", "Severity", "SourceQuote",
           "SourceRecord", "Trace", "author_of", "finding_id"]  # fmt: skip
