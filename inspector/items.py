"""Items: what the next agent must still know at a compaction, centred on what the user said.

An item is one thing a careful reviewer says must survive every summary that covers it:

- a user's constraint, decision, requirement, preference or correction, mined from the user's own
  words only: typed prompts, answers given through a question tool, the feedback typed when
  rejecting a tool call. Pasted documents, logs, code, slash commands and shell-mode output are not
  statements, and a question is not a commitment;
- a failure still unresolved when the summary was written: a crash, or a build, test or install
  command whose failure nothing later retired (`inspector.shell_runs`);
- a completed action with its identity: a commit's sha, a pull request's number, a push.

Each item keeps the key of its record and the sentence there that states it, so a finding can quote
the log. Mining is by fixed rules over the log in order: the same log always gives the same items.

A trace may also state items itself (`declared_items`): a record typed as an item's kind, a record that
supersedes another (a correction), a tool's error; these are matched word for word (`Invariant.declared`).
Native traces and session logs go through the one miner (`trace_items`): what differs between them is what
their records hold, and that only a native trace declares items.

Each kind is mined where its concept lives: what the user said in `inspector.statements`, failures in
`inspector.shell_runs`, stashes in `inspector.set_aside`, task criteria in `inspector.task_spec` (an issue's) and
`inspector.list_selection` (the entries the user chose from a list), actions in `inspector.actions`. This module
gathers them into one list per session; whether a summary carries one is `inspector.presence`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence

from inspector.actions import action_items, done_by_commits, done_by_edits
from inspector.config import DEFAULT_CONFIG, Config
from inspector.last_answer import for_the_same
from inspector.lead_rules import lead_rule_items
from inspector.lifted import lifted
from inspector.list_selection import chosen_entries
from inspector.model import TRANSCRIPT, Invariant, InvariantKind, SourceRecord
from inspector.plan_checks import plan_check_items
from inspector.plan_steps import plan_step_items
from inspector.presence import item_terms_text, topic_terms
from inspector.prompt_commands import command_items, is_command
from inspector.set_aside import set_aside_items
from inspector.shell_runs import failure_items, log_runs
from inspector.statements import last_question, user_items
from inspector.task_spec import criterion_items
from inspector.text import clip


def _squash(text: str, limit: int) -> str:
    return clip(" ".join(text.split()), limit)


def declared_items(records: Iterable[SourceRecord]) -> list[Invariant]:
    """The items a trace states in its own records, by fixed rules: a record typed as an item's kind is that
    item, one that supersedes another is a correction of it, a tool error is a failure (its first line)."""
    found = []
    for record in records:
        if record.supersedes is not None:
            kind, text = InvariantKind.CORRECTION, _squash(record.text, 400)  # shown whole, up to a paragraph
        elif record.kind == "tool_error":
            first = next((line for line in record.text.splitlines() if line.strip()), record.text)
            kind, text = InvariantKind.FAILURE, _squash(first, 200)  # a line of an error, as a failure shows one
        else:
            try:
                kind, text = InvariantKind(record.kind), _squash(record.text, 400)
            except ValueError:
                continue
        found.append(Invariant(f"{kind.value}:{record.key}", kind, text, record.key, declared=True))
    return found


def trace_items(records: Iterable[SourceRecord], *, declares: bool = True, config: Config = DEFAULT_CONFIG
                ) -> list[Invariant]:  # fmt: skip
    """Every item of a trace, in record order: what the user said and what the runs left owed, and, in a trace
    that `declares` (a native trace, not an agent's log), the items its records state; the same wording twice
    (a command that failed four times) is one item, the first.

    An agent's log declares nothing: its reader's records are what happened, so a failed tool call there is
    a run whose failure `inspector.shell_runs` judges (a slip, a retry, a fix), never a failure as stated.
    """
    records = tuple(records)  # the trace's own tuple, unchanged: `_said` knows it again
    order = _log_order(records)
    declared = declared_items(records) if declares else []
    return _first_of_each(declared + _mined(records, order, config), order)


def session_items(records: Iterable[SourceRecord], *, config: Config = DEFAULT_CONFIG) -> list[Invariant]:
    """Every item of a session log, in log order; the same wording twice is one item, the first."""
    records = tuple(records)
    order = _log_order(records)
    return _first_of_each(_mined(records, order, config), order)


def _log_order(records: Sequence[SourceRecord]) -> dict[str, int]:
    return {record.key: position for position, record in enumerate(records)}


def standing_said(records: Iterable[SourceRecord], *, config: Config = DEFAULT_CONFIG) -> list[Invariant]:
    """What the user said that a cheap reading of the log shows still standing, in log order: each item once, without
    those the log shows done (an edit, a commit), lifted by the user, or superseded by a later record. No shell line is
    parsed (the runs' failures, stashes and the task's issue are left out) and no summary read: it is what the guard
    gives back when its full check is cut short, ready in a fraction of that check's time."""
    records = tuple(records)
    order = _log_order(records)
    found, _ = _said(records, config)
    superseded = {record.supersedes for record in records if record.supersedes is not None}
    return [item for item in _first_of_each(found, order)
            if item.retired_by is None and item.source_key not in superseded]  # fmt: skip


def _said(records: tuple[SourceRecord, ...], config: Config) -> tuple[list[Invariant], list[Invariant]]:
    """What the user said, each item retired where the log shows it done or the user lifted it, and the actions done
    (commits and pull requests), which retire the items they do. The guard mines one log twice, for its cheap reading
    (`standing_said`) and its full check (`trace_items`): the second time is the first's answer (`for_the_same`)."""
    found, actions = _said_in(records, config)
    return list(found), list(actions)


@for_the_same
def _said_in(records: tuple[SourceRecord, ...], config: Config) -> tuple[tuple[Invariant, ...], tuple[Invariant, ...]]:
    order = _log_order(records)
    found: list[Invariant] = []
    # The agent's last turn before a user statement, read for its question only when a statement follows:
    # most agent turns are followed by tool calls, and splitting each into sentences was most of this pass.
    before: str | None = None
    shown: deque[str] = deque()  # the agent's latest turns, `Config.quoted_back_window` characters of them at least:
    held = 0  # what a user may copy to answer them, joined only when a user speaks
    for record in records:
        if record.namespace != TRANSCRIPT:
            continue
        if record.kind == "assistant":
            before = record.text
            shown.append(record.text)
            held += len(record.text)
            while held - len(shown[0]) >= config.quoted_back_window:
                held -= len(shown.popleft())
        elif record.kind == "user" and record.authority == "user":
            asked = last_question(before, config=config) if before is not None else None
            latest = "\n".join(shown)[-config.quoted_back_window :]
            found.extend(user_items(record, asked, before, shown=latest, config=config))
            before = None
    actions = list(action_items(records))
    found = list(done_by_commits(list(done_by_edits(found, records, order)), actions, order))
    # A command's own request ends with its turn (`prompt_commands`), neither done by an edit nor lifted.
    return (*lifted(found, records, order, config), *command_items(records)), tuple(actions)


def _mined(records: tuple[SourceRecord, ...], order: dict[str, int], config: Config) -> list[Invariant]:
    """What the user said and what the runs left owed, in no order and with repeats: each public miner sorts and
    de-duplicates once, over everything it gathers."""
    found, actions = _said(records, config)
    entries, found = chosen_entries(records, found, config)
    found.extend(entries)
    runs = log_runs(records)  # read once: failures, stashes and the task's issue are all in them
    found.extend(failure_items(runs))
    found.extend(set_aside_items(runs))
    found.extend(criterion_items(records, runs))
    found.extend(lead_rule_items(records, config))
    found.extend(plan_step_items(records, config))
    found.extend(plan_check_items(records, config))
    found.extend(actions)
    return found


def _first_of_each(found: list[Invariant], order: dict[str, int]) -> list[Invariant]:
    """The items in log order, each wording once: the same topic twice is one item, the first. A command run twice is
    two requests, each owed for its own turn."""
    found = sorted(found, key=lambda item: order.get(item.source_key or "", 0))
    seen: set[str] = set()
    unique = []
    for item in found:
        wording = item.id if is_command(item) else " ".join(sorted(topic_terms(item_terms_text(item)))) or item.text
        if wording not in seen:
            seen.add(wording)
            unique.append(item)
    return unique


__all__ = ["declared_items", "session_items", "standing_said", "trace_items"]
