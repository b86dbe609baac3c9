"""The steps of a plan the user approved that make something by name, each owed until an edit writes that name.

In plan mode the agent writes a plan and the user approves it ("Implement the following plan: …", or the answer to
ExitPlanMode): every step is work the user signed off on, delegated like an issue's acceptance criteria
(`inspector.task_spec`) and never the user's own words. Most steps leave no trace a reader can check, but a step that
makes a thing by name does: "Add `migrateFilePointers()` helper", "**New file**:
`apps/web/tests/editor/extract-citations.test.ts`". Until an edit or a shell command names that thing, it was not
made, and a summary that does not name it lets the next agent take the plan as done (cipherbox_71b7117f's S1: "All 6
steps completed" of a plan whose `migrateFilePointers()` no edit wrote; apollo_5744817a's S1 and S2: "implemented all
12 steps", its step 12d's test file never created).

A sub-agent that may write files retires every step still owed when it starts: what it wrote is in a log of its own,
which the main log may not hold. A plan put to the user and rejected asks nothing, and a later approved plan that no
longer has a step replaces it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import islice

from inspector.config import DEFAULT_CONFIG, Config
from inspector.model import TRANSCRIPT, Invariant, InvariantKind, SourceRecord
from inspector.text import clip
from inspector.tool_names import is_edit_tool, is_plan_tool, may_write_through_agent

PLAN_PREFIX = f"{InvariantKind.TASK_CRITERION.value}:plan:"
"""How a plan step's item id begins; the id ends with the name the step makes (`made_name`)."""

_OPENING = re.compile(r"^\s*(?:[-+>]|#+|\d+[.)])\s+|\*+|\|")
"""A line's list marker, heading marks, bold and table rules: what the step's line is read without (an identifier's
underscores are kept)."""
_AGENT_TYPE = re.compile(r"^subagent_type: *(\S+)", re.MULTILINE)
"""A sub-agent call's type, as the readers render a call's input (`readers.values.input_text`)."""


def _making(reach: int) -> re.Pattern[str]:
    """A verb of making, then within `reach` characters a backticked function (`name()`) or file (`dir/name.ext`)."""
    return re.compile(rf"\b(?:new file|create|add|introduce|implement|write)\b[^\n`]{{0,{reach}}}`(?:(?P<function>"
                      rf"[A-Za-z_][\w.]*)\(\)|(?P<path>[\w./-]+\.[A-Za-z]{{1,5}}))`", re.IGNORECASE)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Step:
    """What a plan owes by name and the plan's line that asks it: a step that makes `name` (as the plan writes it:
    `store.load()`, `tests/x.test.ts`), or a check to run (`inspector.plan_checks`)."""

    name: str
    line: str


def handle(name: str) -> str:
    """What an edit that makes a step's thing, or a summary that keeps it, names: a function's own name (`load` of
    `store.load()`), a file's name without its folders (a summary says `extract-citations.test.ts`)."""
    return name[:-2].rsplit(".", 1)[-1] if name.endswith("()") else name.rsplit("/", 1)[-1]


def steps(plan: str, config: Config = DEFAULT_CONFIG) -> list[Step]:
    """The steps of a plan's text that make something by name, in order, each name once."""
    found: dict[str, Step] = {}
    for match in _making(config.plan_step_reach).finditer(plan):
        name = match.group("function") or match.group("path")
        head = plan.rfind("\n", 0, match.start()) + 1
        end = plan.find("\n", match.end())
        line = " ".join(_OPENING.sub(" ", plan[head : end if end >= 0 else len(plan)].replace("**", "")).split())
        found.setdefault(name, Step(name if match.group("path") else f"{name}()", clip(line, config.criterion_chars)))
    return list(found.values())


def made_name(item: Invariant) -> str:
    """The name a plan step's item is owed until made, and kept by (from its id): `handle` of what the step makes."""
    return handle(item.id.rsplit("#", 1)[-1])


def approved_plans(records: Sequence[SourceRecord]) -> Iterator[tuple[int, SourceRecord]]:
    """Each record holding a plan the user approved, with its position: the record that hands the agent an approved
    plan (`extra["plan"]`), and a plan put to the user whose result is no error."""
    handed = [(n, r) for n, r in enumerate(records) if r.namespace == TRANSCRIPT and (
        r.extra.get("plan") == "approved" or r.kind == "tool_call" and is_plan_tool(r.extra.get("tool")))]
    if not handed:
        return  # most logs: no pass over their results
    asked = {r.key for _, r in handed if r.kind == "tool_call"}
    approved = {r.extra.get("call_id") for r in records
                if r.kind == "tool_result" and r.extra.get("call_id") in asked}  # fmt: skip
    yield from ((n, r) for n, r in handed if r.kind != "tool_call" or r.key in approved)


def _makes(record: SourceRecord, name: str) -> bool:
    """Does this record write `name`: an edit whose input names it, or a shell command that does?"""
    if record.kind == "tool_call" and is_edit_tool(record.extra.get("tool")):
        return name in record.text
    command = record.extra.get("command") if record.kind in ("tool_result", "tool_error") else None
    return isinstance(command, str) and name in command


def _writing_agent(record: SourceRecord) -> bool:
    """Does this record start a sub-agent that may write files (`tool_names.may_write_through_agent`)?"""
    if record.kind != "tool_call":
        return False
    agent = _AGENT_TYPE.search(record.text)
    return may_write_through_agent(record.extra.get("tool"), agent.group(1) if agent else None)


def plan_step_items(records: Sequence[SourceRecord], config: Config = DEFAULT_CONFIG) -> list[Invariant]:
    """Each step of an approved plan that makes something by name, owed until a record writes the name."""
    return owed_plan_items(records, lambda plan: {step.name: step for step in steps(plan, config)},
                           lambda step: partial(_makes, name=handle(step.name)), PLAN_PREFIX)  # fmt: skip


def owed_plan_items(records: Sequence[SourceRecord], owed: Callable[[str], dict[str, Step]],
                    made_by: Callable[[Step], Callable[[SourceRecord], bool]], prefix: str
                    ) -> list[Invariant]:  # fmt: skip
    """What each approved plan owes (`owed` of its text: a step's name, a check's command), owed from the plan on and
    retired by the first later record that makes it (`made_by` the step: a test of a record, worked out once per
    step), by a sub-agent that may have, or by a later approved plan that no longer owes it (the user approved that
    plan in its place); a name two plans owe is one item, the first plan's. Each item's id is `prefix`, the plan's
    key, `#` and the name."""
    plans = [(position, plan, owed(plan.text)) for position, plan in approved_plans(records)]
    items: dict[str, Invariant] = {}
    for n, (position, plan, owed_here) in enumerate(plans):
        for step in owed_here.values():
            if step.name in items:
                continue
            replaced = next((later for later, _, kept in plans[n + 1 :] if step.name not in kept), len(records))
            made = made_by(step)
            done = next((r.key for r in islice(records, position + 1, replaced)
                         if r.namespace == TRANSCRIPT and (made(r) or _writing_agent(r))),
                        records[replaced].key if replaced < len(records) else None)  # fmt: skip
            plan_file = plan.extra.get("plan_file")
            items[step.name] = Invariant(f"{prefix}{plan.key}#{step.name}", InvariantKind.TASK_CRITERION,
                                         step.line, plan.key, retired_by=done, quote=step.line,
                                         reference=plan_file if isinstance(plan_file, str) else None)  # fmt: skip
    return list(items.values())


__all__ = ["PLAN_PREFIX", "Step", "approved_plans", "handle", "made_name", "owed_plan_items", "plan_step_items",
           "steps"]
