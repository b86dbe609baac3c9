"""Work the user chose from the agent's numbered list: each chosen entry is owed until the log shows it addressed.

"give me the list again" → a table of fourteen review comments → "skip 5, 7, 8 and do the rest": the user typed
eleven requirements in seven words. Their own words are one statement (`inspector.statements`); what each entry
asks is the agent's text, so, like an issue's acceptance criteria (`inspector.task_spec`), an entry is delegated
work (`TASK_CRITERION`), never the user's words.

An entry is only tracked when it carries an identifier a tool call would name when acting on it (a review
comment's id, a ticket's number: `Config.entry_id_digits`), and only in a list the session is seen acting on by
those identifiers (a later tool call names a chosen entry's): then an entry whose identifier no tool call has named
yet is still owed, and a summary that drops it lets the next agent take the list as done (entirecli_70d782f7's S1:
'Completed addressing all low severity PR feedback items', with entry 13 never fixed nor answered). The first tool
call that names an entry's identifier retires it, and the user's choice itself is retired once every entry it chose
is: nothing of it is owed any more.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from inspector.config import DEFAULT_CONFIG, Config
from inspector.model import TRANSCRIPT, Invariant, InvariantKind, SourceRecord
from inspector.presence import topic_terms
from inspector.text import clip

ENTRY_PREFIX = f"{InvariantKind.TASK_CRITERION.value}:entry:"
"""How a chosen entry's item id begins: the matcher and the detector's wording tell it from an issue's criterion."""

_TABLE_ROW = re.compile(r"^\s*\|\s*[*_]*#?(?P<number>\d{1,3})[*_]*\s*\|(?P<rest>.+?)\|?\s*$", re.MULTILINE)
_NUMBERED = re.compile(r"^\s*(?:[-*]\s+)?[*_]*#?(?P<number>\d{1,3})[*_]*[.)][*_]*\s+(?P<rest>\S.*)$", re.MULTILINE)
"""An entry of the agent's list: a table row whose first cell is its number ("| 13 | 2734900785 | explain.go:1119 |
…"), or a numbered line ("13. …", "- **13)** …")."""

_DO = r"(?:do|fix|address|handle|tackle|implement|work on|go (?:through|ahead with)|proceed with|take care of)"
_ONE = r"#?\d{1,3}(?!\d)(?:\s*(?:-|–|to|through)\s*#?\d{1,3}(?!\d))?"
_NUMBERS = rf"(?<!\d){_ONE}(?:\s*(?:,|and|&|or|\s)\s*{_ONE})*"
_LEAVING = r"\b(?:skip|except|excluding|not|leave out|leave|ignore|drop|but)\s+"
_EXCLUDED = re.compile(rf"{_LEAVING}(?:items?\s+|#)?(?P<numbers>{_NUMBERS})", re.IGNORECASE)
_EXCLUDED_ID = re.compile(rf"{_LEAVING}#?(?P<id>\d+)\b", re.IGNORECASE)
_INCLUDED = re.compile(rf"\b{_DO}\s+(?:items?\s+|numbers?\s+)?(?P<numbers>{_NUMBERS})", re.IGNORECASE)
_THE_REST = re.compile(rf"\b{_DO}\b[^.?!\n]{{0,20}}?\b(?:the rest|all|everything|the others|the remaining)\b",
                       re.IGNORECASE)  # fmt: skip
"""A reply that chooses entries by number: "do 1, 3 and 4", "fix 2-5", "skip 5, 7, 8 and do the rest", "do all
except 6". Numbers after an exclusion word leave entries out; "the rest"/"all" after a verb of doing takes every
entry the reply does not leave out."""
_NUMBER = re.compile(r"#?(\d{1,3})(?:\s*(?:-|–|to|through)\s*#?(\d{1,3}))?")
_MARKUP = re.compile(r"[`*_|]+")


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry of the agent's list: its number, its text as written, and the identifiers in it."""

    number: int
    text: str
    ids: tuple[str, ...]


def list_entries(turn: str, config: Config = DEFAULT_CONFIG) -> dict[int, Entry]:
    """The numbered entries of an agent's turn, by number (the first entry of each number: a list's own rows come
    before the notes that cite them)."""
    ids = _ids(config)
    found: dict[int, Entry] = {}
    for pattern in (_TABLE_ROW, _NUMBERED):
        for match in pattern.finditer(turn):
            number, rest = int(match.group("number")), match.group("rest")
            if number not in found:
                text = clip(" ".join(_MARKUP.sub(" ", rest).split()), config.criterion_chars)
                found[number] = Entry(number, text, tuple(dict.fromkeys(ids.findall(rest))))
    return found


def chosen(reply: str, entries: dict[int, Entry], config: Config = DEFAULT_CONFIG) -> list[Entry]:
    """The entries a short reply chooses, in order; none when it chooses by no number, or names one the list lacks
    (then its numbers are about something else: "do it in 2 steps")."""
    if len(reply) > config.choice_chars or not entries:
        return []
    left_out = {n for match in _EXCLUDED.finditer(reply) for n in _numbers(match.group("numbers"))}
    left_out |= {entry.number for match in _EXCLUDED_ID.finditer(reply) for entry in entries.values()
                 if match.group("id") in entry.ids}  # "fix them all, skip 2738999818": an entry left out by its id
    taken = {n for match in _INCLUDED.finditer(reply) for n in _numbers(match.group("numbers"))} - left_out
    if _THE_REST.search(reply):
        taken |= set(entries) - left_out
    named = left_out | taken
    if not taken or not named <= set(entries):
        return []
    return [entries[n] for n in sorted(taken)]


def _numbers(group: str) -> set[int]:
    found: set[int] = set()
    for start, end in _NUMBER.findall(group):
        first, last = int(start), int(end or start)
        found.update(range(first, last + 1) if 0 <= last - first <= 50 else (first,))
    return found


def chosen_entries(records: Sequence[SourceRecord], items: list[Invariant], config: Config = DEFAULT_CONFIG
                   ) -> tuple[list[Invariant], list[Invariant]]:  # fmt: skip
    """The entries each typed reply chose, as owed items, and `items` with each choice the log shows fully carried out
    retired (a user's statement from the reply's record, retired by the call that addressed its last entry)."""
    owed: list[Invariant] = []
    finished: dict[str, str] = {}
    order = {record.key: position for position, record in enumerate(records)}
    turn: SourceRecord | None = None
    for position, record in enumerate(records):
        if record.namespace != TRANSCRIPT:
            continue
        if record.kind == "assistant":
            turn = record
        elif record.kind == "user" and record.authority == "user":
            short = len(record.text) <= config.choice_chars  # a longer reply chooses nothing: its list is not read
            listed = list_entries(turn.text, config) if short and turn is not None else {}
            picked = chosen(record.text, listed, config)
            entries = _tracked(picked, listed, records, position, turn, record)
            owed.extend(entries)
            if entries and len(entries) == len(picked) and all(entry.retired_by for entry in entries):
                finished[record.key] = max((e.retired_by for e in entries if e.retired_by), key=order.__getitem__)
            turn = None
    retired = [replace(item, retired_by=finished[item.source_key])
               if item.source_key in finished and not item.retired_by and item.kind.value.startswith("user-") else item
               for item in items]  # fmt: skip
    return owed, retired


def _tracked(picked: list[Entry], listed: dict[int, Entry], records: Sequence[SourceRecord], position: int,
             turn: SourceRecord | None, reply: SourceRecord) -> list[Invariant]:  # fmt: skip
    """The chosen entries with identifiers, each retired by the first later tool call naming one, when the session
    acts on the list by identifiers at all (some later call names a chosen entry's)."""
    if turn is None or not picked:
        return []
    calls = [r for r in records[position + 1 :] if r.namespace == TRANSCRIPT and r.kind == "tool_call"]
    items = []
    for entry in picked:
        if not entry.ids:
            continue
        done = next((call.key for call in calls if any(i in call.text for i in entry.ids)), None)
        items.append(Invariant(f"{ENTRY_PREFIX}{reply.key}#{entry.number}", InvariantKind.TASK_CRITERION,
                               f"entry {entry.number} of the list the user chose from (“{clip(reply.text, 80)}”): "
                               f"{entry.text}", turn.key, retired_by=done, quote=entry.text,
                               distinct=_distinct(entry, listed)))  # fmt: skip
    return items if any(item.retired_by for item in items) else []


def _distinct(entry: Entry, listed: dict[int, Entry]) -> str | None:
    """The words of an entry whose terms no other entry of its list has, or None when every word is shared."""
    others = set().union(*(topic_terms(e.text) for n, e in listed.items() if n != entry.number))
    words = [word for word in entry.text.split() if topic_terms(word) and not topic_terms(word) & others]
    return " ".join(words) or None


def entry_ids(item: Invariant, config: Config = DEFAULT_CONFIG) -> list[str]:
    """The identifiers of a chosen entry's item (from its text as the agent wrote it)."""
    return _ids(config).findall(item.quote or "")


def _ids(config: Config) -> re.Pattern[str]:
    """An identifier an entry carries: a number of `Config.entry_id_digits` digits or more."""
    return re.compile(rf"(?<!\d)\d{{{config.entry_id_digits},}}(?!\d)")


__all__ = ["ENTRY_PREFIX", "Entry", "chosen", "chosen_entries", "entry_ids", "list_entries"]
