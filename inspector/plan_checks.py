"""The checks an approved plan asks to run before its work is called done, each owed until a shell run makes it.

A plan the user approved (`plan_steps.approved_plans`) most often ends with how to verify it ("## Verification: 1.
`npm run lint` passes … 3. `cd apps/desktop/src-tauri && cargo test --features fuse` — Rust tests pass"). That is
the bar the user signed off on, delegated like an issue's acceptance criteria (`inspector.task_spec`) and never the
user's own words. A check no run has made yet is owed: a summary that does not name it lets the next agent call the
plan done without it (fasola_8c36b201's S1–S3 and cipherbox_71b7117f's S1, whose blind labels call the unrun check
lost). A check run in any form is no longer owed: what it printed is the failure lifecycle's
(`shell_runs.failure_items`), not a debt of the plan's.

A check is a command of the plan's verification section that verifies (`shell_runs.VERIFYING`: a test, a lint, a
build, a type check): a server to start ("`bun run dev`"), a request to send by hand ("`curl -I localhost:3000`") or a
program to try has no pass to owe, and a summary need not carry it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import takewhile

from inspector.config import DEFAULT_CONFIG, Config
from inspector.model import TRANSCRIPT, Invariant, InvariantKind, SourceRecord
from inspector.plan_steps import Step, owed_plan_items
from inspector.shell_runs import VERIFYING, parse_steps
from inspector.text import clip, section_end

CHECK_PREFIX = f"{InvariantKind.TASK_CRITERION.value}:check:"
"""How a plan check's item id begins; the id ends with the check's command (`check_of`)."""

_SECTION = re.compile(r"^(?P<level>#{1,6})\s*(?:\d+[.)]\s*)?\**(?:verification|verify|validation|testing|test plan|"
                      r"success criteria|acceptance criteria)\b.*$", re.IGNORECASE | re.MULTILINE)  # fmt: skip
"""The heading of a plan's section on how to verify it, as plan mode writes it ("## Verification", "## Verification
Plan", "## Testing Strategy", "### 5. Testing")."""
_TICKED = re.compile(r"`([^`\n]+)`")
_FENCED = re.compile(r"^\s*```(?:bash|sh|shell|console|zsh)?[ \t]*\n(?P<body>.*?)^\s*```", re.MULTILINE | re.DOTALL)
_COMMAND = re.compile(r"[a-z][\w.+-]*\s")
"""How a command begins: a program's name, then its arguments (a backticked `"pol"`, `#soup` or `/path` is no
command)."""
_SCRIPT_RUNNERS = {"npm": "run", "pnpm": "run", "yarn": "run", "bun": "run"}
"""Package managers that run a project's named script (`npm run lint`, `pnpm lint`): the script is the check, and a
run of what it stands for (`next lint --quiet`) makes it."""
_VARYING = re.compile(r"[/=<>$]")
"""A word a run may spell otherwise than the plan: a path, a setting's value, a placeholder, a variable."""


@dataclass(frozen=True, slots=True)
class Check:
    """A check's command as the plan writes it (`cd apps/desktop/src-tauri && cargo test --features fuse`: parsed
    again, it is the same check) and the words any run of it carries (`defining`)."""

    command: str
    defining: tuple[str, ...]


def _section(plan: str) -> str | None:
    """The plan's verification section, to the next heading of its level or above."""
    heading = _SECTION.search(plan)
    if heading is None:
        return None
    return plan[heading.end() : section_end(plan, heading.end(), len(heading.group("level")))]


def _defining(words: tuple[str, ...]) -> tuple[str, ...]:
    """The words every run of a check carries: the program and the words that name what it does, up to its first
    option or a word a run may spell otherwise (`_VARYING`: `go build -o changelogue ./cmd/server` is made by `go
    build -o /dev/null ./cmd/server`, `cargo test --features fuse` by a `cargo test`), without a package manager's way
    of running a script (`pnpm run lint` → `lint`). A check whose first word after the manager is an option (`pnpm
    --filter @app/crypto test`) is carried by the manager and its words that are neither options nor varying."""
    head = list(words)
    if head and head[0] in _SCRIPT_RUNNERS:
        head = head[2:] if len(head) > 1 and head[1] == _SCRIPT_RUNNERS[head[0]] else head[1:]
    plain = [not word.startswith(("-", ".", "~")) and not _VARYING.search(word) for word in head]
    lead = tuple(word for word, _ in takewhile(lambda pair: pair[1], zip(head, plain, strict=True)))
    return lead or (words[0], *(word for word, keep in zip(head, plain, strict=True) if keep))


def check_of(command: str) -> Check | None:
    """The check a command of a verification section is (its last step verifies, after any change of folder), or
    None when it verifies nothing (`shell_runs.VERIFYING`)."""
    if not _COMMAND.match(command):
        return None
    steps = [step for step in parse_steps(command) if step.words[0] != "cd"]
    if not steps:
        return None
    words = steps[-1].words
    defining = _defining(words)
    if not VERIFYING.search(" ".join(defining)):
        return None
    return Check(command, defining)


def checks(plan: str) -> list[tuple[Check, str]]:
    """The checks of a plan's verification section, in order, each once, with the line of the section that asks
    it (a fenced block's line is its own)."""
    section = _section(plan)
    if section is None:
        return []
    found: dict[str, tuple[Check, str]] = {}
    for line in section.splitlines():
        for command in _TICKED.findall(line):
            check = check_of(command.strip())
            if check is not None:
                found.setdefault(check.command, (check, line.strip()))
    for block in _FENCED.finditer(section):
        for line in block.group("body").splitlines():
            check = check_of(line.strip()) if not line.strip().endswith("\\") else None
            if check is not None:
                found.setdefault(check.command, (check, line.strip()))
    return list(found.values())


def runs_check(record: SourceRecord, check: Check, seen: dict[str, list[set[str]]] | None = None) -> bool:
    """Is this record a shell run that makes the check: a step of its command carrying every defining word (`go
    test ./...` makes `go test ./internal/api/... -run TestList`; `npx next lint --quiet` makes `pnpm lint`)? `seen`
    keeps each record's steps, as words, for the next check asked of it."""
    if record.namespace != TRANSCRIPT or record.kind not in ("tool_result", "tool_error"):
        return False
    command = record.extra.get("command")
    if not isinstance(command, str) or record.extra.get("slip"):
        return False
    steps = seen.get(record.key) if seen is not None else None
    if steps is None:
        steps = [set(step.words) for step in parse_steps(command)]
        if seen is not None:
            seen[record.key] = steps
    wanted = set(check.defining)
    return any(wanted <= words for words in steps)


def plan_check_items(records: Sequence[SourceRecord], config: Config = DEFAULT_CONFIG) -> list[Invariant]:
    """Each check of an approved plan, owed from the plan on until a run makes it (`plan_steps.owed_plan_items`)."""
    seen: dict[str, list[set[str]]] = {}

    def owed(plan: str) -> dict[str, Step]:
        return {check.command: Step(check.command, clip(line, config.criterion_chars)) for check, line in checks(plan)}

    def made_by(step: Step) -> Callable[[SourceRecord], bool]:
        check = check_of(step.name)  # a step is named by its check's command (`checks`): read again once per step
        return partial(runs_check, check=check, seen=seen) if check is not None else lambda _: False

    return owed_plan_items(records, owed, made_by, CHECK_PREFIX)


def check_named(item_id: str) -> Check | None:
    """The check an item of this module stands for, from its id."""
    if not item_id.startswith(CHECK_PREFIX):
        return None
    _, _, command = item_id[len(CHECK_PREFIX) :].partition("#")  # a plan's key has no "#"; a command may
    return check_of(command)


__all__ = ["CHECK_PREFIX", "Check", "check_named", "check_of", "checks", "plan_check_items", "runs_check"]
