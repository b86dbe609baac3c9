"""Other spellings of a path that the session's shell gave it: a summary may name a file by the path a `mv` gave it,
or in full under a folder a command changed into and printed it from.

An agent that renames a folder (`mv wfc/wfc-tools wfc/wfc_tools`) or moves files into one (`mv run.py bench/`)
wrote and read them under their old paths; the summary, written after, names them under the new ones, and no record
bears those. Each move a run made without failing is kept as (old path, new path, where it ran), so the anchor
index (`anchors.AnchorIndex`) can resolve a path under the new name by the record of it under the old one, and only
at a cut the move came before.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from inspector.model import TRANSCRIPT, SourceRecord
from inspector.places import RecordPlaces
from inspector.shell_runs import Step, parse_steps

_ENTERING = re.compile(r"\bcd\s")
"""A line that may change folder: only these are parsed for their steps."""
_MOVING = re.compile(r"\bmv\s")
"""A line that may move something: only these are parsed for their steps."""
_PATTERN = re.compile(r"[*?\[\]{}$`]")
"""A word the shell would expand (a glob, a variable): what it names is not on the line."""


def moves(records: Sequence[SourceRecord], places: RecordPlaces) -> Iterator[tuple[str, str, int]]:
    """(old path, new path, place) for each path a shell run moved: `mv A B`, `mv A B C/`, `git mv A B`. A run
    the harness marked failed moved nothing it can be trusted to have moved."""
    for record, step in _steps(records, _MOVING):
        words = step.words[2:] if step.words[:2] == ("git", "mv") else step.words[1:] if step.words[0] == "mv" \
            else ()  # fmt: skip
        paths = [w for w in words if not w.startswith("-")]
        if len(paths) < 2 or any(_PATTERN.search(p) for p in paths):
            continue
        place = places.of(record)
        for old in paths[:-1]:
            yield old, paths[-1], place


def entered_folders(records: Sequence[SourceRecord]) -> tuple[str, ...]:
    """The folders, absolute or in the home one, that a shell run changed into (`cd /Users/u/dev/lore && git status`,
    `cd ~/tmp && curl … -o DVC.kt`), in the order first entered. What such a run printed or wrote by a relative path
    (`?? lib/lore-client-base.sh`, `DVC.kt`) is that folder's, and a summary names it in full
    (`/Users/u/dev/lore/lib/lore-client-base.sh`); the anchor index resolves the one by the other, as it does under
    the session's own working folder (`anchors.AnchorIndex`)."""
    found: dict[str, None] = {}
    for _, step in _steps(records, _ENTERING):
        if len(step.words) == 2 and step.words[0] == "cd" and step.words[1].startswith(("/", "~/")) \
                and not _PATTERN.search(step.words[1]):  # fmt: skip
            found.setdefault(step.words[1].rstrip("/") or "/", None)
    return tuple(found)


def _steps(records: Sequence[SourceRecord], marker: re.Pattern[str]) -> Iterator[tuple[SourceRecord, Step]]:
    """Each step of each shell run the harness did not mark failed whose line the `marker` finds: only those lines
    are parsed."""
    for record in records:
        if record.namespace != TRANSCRIPT or record.kind != "tool_result":
            continue
        command = record.extra.get("command")
        if isinstance(command, str) and marker.search(command):
            for step in parse_steps(command):
                yield record, step


__all__ = ["entered_folders", "moves"]
