"""The acceptance criteria of the issue the user set the agent on: requirements the user delegated, not typed.

"fullsolve 313", "work on #313": the user names an issue, the agent fetches it (`gh issue view 313`), and the
issue's acceptance criteria are what the work must meet. No person typed them in the chat, so they are never
the user's statements; but a summary that drops one lets the next agent call the task done without it. Only
an issue a typed prompt names counts: an issue the agent looked up on its own is reference, not the task.

A criterion is an entry under an "Acceptance criteria" heading: a sub-heading with its own checklist ("### AC-7:
Benchmark baseline" and its "- [ ]" lines), or one checklist line. It is known by its label when it has one
("AC-7"): a summary that names the label keeps it (`item_matching.match_criterion`), even one that names it
without any of what it asks ("AC-7 benchmark was informal"). That keeps only its name, a weakening this does not
judge: which of a criterion's words the next agent needs is a reader's call (sequant_bf976109's gold calls its S2
"weakened" for the human-QA comparison it dropped).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from inspector.config import DEFAULT_CONFIG
from inspector.model import TRANSCRIPT, Invariant, InvariantKind, SourceRecord
from inspector.shell_runs import ShellRun
from inspector.text import HEADING, clip, section_end

_FETCH = re.compile(r"\bgh\s+(?:issue\s+view\s+(?:\S*/issues/)?#?(?P<view>\d+)|api\s+\S*/issues/(?P<api>\d+)\b)")
"""A fetch of one issue: `gh issue view 313`, `gh issue view https://…/issues/313`, `gh api repos/o/r/issues/313`."""
_CRITERIA_HEADING = re.compile(r"^(?P<level>#{1,6})\s*\**acceptance criteria\b.*$|^\**acceptance criteria\**:?\s*$",
                               re.IGNORECASE | re.MULTILINE)  # fmt: skip
_CHECK_ITEM = re.compile(r"^\s*[-*]\s+\[[ xX]\]\s+(?P<text>.+?)\s*$", re.MULTILINE)
CRITERION_LABEL = re.compile(r"^\**(?P<label>[A-Z]{1,4}-?\d{1,3})\**\s*[:.)–—-]\s*(?P<title>.*)$")
"""A criterion's label at the head of its title: "AC-7: Benchmark baseline", "R2. Exit codes"."""
LABELLED = re.compile(r"^#\d+ (?P<label>(?P<prefix>[A-Z]{1,4})-?(?P<number>\d{1,3})): ")
"""How an item's text begins when its criterion has a label: "#313 AC-7: …"."""


@dataclass(frozen=True, slots=True)
class Criterion:
    """One acceptance criterion: its label (None for an unlabelled checklist line) and what it asks."""

    label: str | None
    text: str


def _issue_body(output: str) -> str:
    """The issue's text as `gh` printed it: plain, or the `body` field of `--json`."""
    stripped = output.lstrip()
    if stripped.startswith("{"):
        try:
            value = json.loads(stripped)
        except ValueError:
            return output
        body = value.get("body") if isinstance(value, dict) else None
        return body if isinstance(body, str) else output
    return output


def criteria(body: str) -> list[Criterion]:
    """The acceptance criteria an issue's text lists, in order; none when it has no such section."""
    heading = _CRITERIA_HEADING.search(body)
    if heading is None:
        return []
    level = len(heading.group("level") or "#")
    section = body[heading.end() : section_end(body, heading.end(), level)]
    subs = [h for h in HEADING.finditer(section) if len(h.group("level")) > level]
    if not subs:
        most = DEFAULT_CONFIG.criterion_chars
        return [Criterion(None, clip(item.group("text"), most)) for item in _CHECK_ITEM.finditer(section)]
    found = []
    for number, sub in enumerate(subs):
        part = section[sub.end() : subs[number + 1].start() if number + 1 < len(subs) else len(section)]
        title = sub.group("title").strip("* ")
        labelled = CRITERION_LABEL.match(title)
        label, title = (labelled.group("label"), labelled.group("title")) if labelled else (None, title)
        lines = "; ".join(item.group("text") for item in _CHECK_ITEM.finditer(part))
        found.append(Criterion(label, clip(f"{title}: {lines}" if lines else title, DEFAULT_CONFIG.criterion_chars)))
    return found


def _named_by_user(number: str, typed: Sequence[str]) -> bool:
    pattern = re.compile(rf"(?<![\w.#/-])#?{number}(?![\w.])")
    return any(pattern.search(text) for text in typed)


def task_issues(records: Sequence[SourceRecord], runs: Sequence[ShellRun]) -> Iterator[tuple[ShellRun, str]]:
    """Each fetch of an issue a typed prompt before it named, with the issue's number, once per issue; `runs`
    are the log's shell runs (`shell_runs.shell_runs`)."""
    typed: list[str] = []
    by_key = {run.key: run for run in runs}
    seen: set[str] = set()
    for record in records:
        if record.namespace != TRANSCRIPT:
            continue
        if record.kind == "user" and record.authority == "user":
            typed.append(record.text)
        run = by_key.get(record.key)
        if run is None or not run.clean:
            continue
        fetched = _FETCH.search(run.command)
        number = fetched and (fetched.group("view") or fetched.group("api"))
        if number and number not in seen and _named_by_user(number, typed):
            seen.add(number)
            yield run, number


def criterion_items(records: Sequence[SourceRecord], runs: Sequence[ShellRun]) -> Iterator[Invariant]:
    """The acceptance criteria of each issue the user set the agent on, as items owed to every summary."""
    for run, number in task_issues(records, runs):
        for position, criterion in enumerate(criteria(_issue_body(run.output))):
            name = criterion.label or f"criterion {position + 1}"
            yield Invariant(f"{InvariantKind.TASK_CRITERION.value}:{run.key}#{position}", InvariantKind.TASK_CRITERION,
                            f"#{number} {name}: {criterion.text}", run.key)  # fmt: skip


__all__ = ["CRITERION_LABEL", "LABELLED", "Criterion", "criteria", "criterion_items", "task_issues"]
