"""Work the agent set aside to restore later, and whether it was restored: a `git stash` holding changes.

A stash is not a failure, but it is owed like one: the changes in it are in no commit and in no file of the
working tree, and only a later `git stash pop` or `apply` brings them back. An agent that stashes the user's
uncommitted work to get a rebase or a checkout through, and whose summary then drops the stash (or files it
under "fixed"), leaves the next agent with no way to know those changes exist. So a stash that saved
something is an item, open from the run that made it until a later run restores it (`pop`, `apply`, `branch`)
or lets it go on purpose (`drop`, `clear`).

A `pop` that met a conflict applied the changes and kept the entry, which is then still owed: it is to be dropped
once the conflicts are resolved, and said so, since popping it again would apply the changes twice.

A stash made nothing when git says there was nothing to save, or refused it ("error: …", whatever status a pipe
left); a run whose status failed made one only if its output shows the stash was saved (the line failed in a later
step, as `git stash && git rebase …` does at a conflict). Wrappers that reword git's output (`ok stashed`) keep the
word "stashed".
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from inspector.model import Invariant, InvariantKind
from inspector.shell_runs import STASH_DROPPED, STASH_KEPT_AFTER_CONFLICT, ShellRun, git_arguments
from inspector.text import clip

_SAVES = frozenset(("push", "save"))
"""Subcommands that set changes aside (a bare `git stash`, or one given only options, is `push`)."""
_RESTORES = frozenset(("pop", "apply", "branch", "drop", "clear"))
"""Subcommands that end a stash's being owed: restored, or let go on purpose."""
_SUBCOMMANDS = _SAVES | _RESTORES | {"list", "show", "create", "store"}
"""Every `git stash` subcommand; a first word that is none of them is a message or a path of `push`."""
_NOTHING_SAVED = re.compile(r"no local changes to save|nothing to stash", re.IGNORECASE)
_SAVED = re.compile(r"^Saved working directory|\bstashed\b", re.IGNORECASE | re.MULTILINE)
"""Git's own line for a stash made, and the word a wrapper that rewords it keeps."""


def _stash_verbs(run: ShellRun) -> list[str]:
    """The `git stash` subcommands a line runs, in order (`push` for a bare stash or one given only options)."""
    verbs = []
    for step in run.steps:
        if step.words[0].rsplit("/", 1)[-1] != "git":
            continue
        arguments = git_arguments(step.words)
        if not arguments or arguments[0] != "stash":
            continue
        rest = [w for w in arguments[1:] if not w.startswith("-")]
        verbs.append(rest[0] if rest and rest[0] in _SUBCOMMANDS else "push")
    return verbs


_GIT_ERROR = re.compile(r"^(?:error|fatal): ", re.MULTILINE)
"""Git's own line for a command it refused: 'error: pathspec … did not match', 'fatal: …'."""


def _saved(run: ShellRun) -> bool:
    """The line set changes aside: it ran a stash that found something to save. Git's output decides over the
    status, which a pipe or `|| true` masks: a stash whose output is git refusing it, with no line saying it saved,
    saved nothing (wakil_0062da63: `git stash -- push … 2>&1 | tail -5 || true`, exit 0, 'error: pathspec')."""
    if run.slipped or _NOTHING_SAVED.search(run.output):
        return False
    if _SAVED.search(run.output):
        return True
    return not run.failed and not _GIT_ERROR.search(run.output)


@dataclass(frozen=True, slots=True)
class Stash:
    """Changes set aside by one run, and the run that restored or dropped them (None while owed)."""

    run: ShellRun
    restored_by: str | None = None
    conflicted: bool = False
    """A `pop` brought the changes back with conflicts, and git kept the entry: what is owed is resolving them and
    dropping it, not another pop, which would apply them twice."""

    @property
    def text(self) -> str:
        command = clip(self.run.command.strip(), 120)
        if self.conflicted:
            return (f"git stash: uncommitted changes set aside by `{command}` were popped back with conflicts; they "
                    "are in the working tree and git kept the stash entry")  # fmt: skip
        return f"git stash: uncommitted changes set aside by `{command}`, not popped or applied"


def stashes(runs: Sequence[ShellRun]) -> Iterator[Stash]:
    """Each stash that saved changes, in log order, with what ended it.

    Stashes are a stack and a log rarely names the entry a restore took, so a restore ends the newest open
    stash, the one `pop` takes by default (`clear` ends them all): what the next agent needs is how many
    sets of changes are still aside.
    """
    made: list[Stash] = []
    for run in runs:
        for verb in _stash_verbs(run):
            if verb in _SAVES and _saved(run):
                made.append(Stash(run))
            elif verb in _RESTORES and (not run.status_failed or STASH_DROPPED.search(run.output)):
                open_ones = _owed(made)
                for n in open_ones if verb == "clear" else open_ones[-1:]:
                    made[n] = Stash(made[n].run, run.key)
            elif verb == "pop" and STASH_KEPT_AFTER_CONFLICT.search(run.output):
                for n in _owed(made)[-1:]:
                    made[n] = Stash(made[n].run, conflicted=True)
    yield from made


def _owed(made: list[Stash]) -> list[int]:
    """The positions of the stashes still open, oldest first: a restore ends the newest of them."""
    return [n for n, stash in enumerate(made) if stash.restored_by is None]


def set_aside_items(runs: Sequence[ShellRun]) -> Iterator[Invariant]:
    """Stashes as items: owed until restored or dropped."""
    for stash in stashes(runs):
        yield Invariant(f"{InvariantKind.SET_ASIDE.value}:{stash.run.key}", InvariantKind.SET_ASIDE, stash.text,
                        stash.run.key, retired_by=stash.restored_by)  # fmt: skip


__all__ = ["Stash", "set_aside_items", "stashes"]
