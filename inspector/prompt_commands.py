"""A prompt command the user ran (`/diff-description`, `/review-diff use a subagent`): a request for one turn's work.

The reader marks the user's record that ran one (`extra["command"]`, the command as typed; for Claude Code, an
invocation the command's own prompt follows). Its words, if any, are mined as any typed statement is; the command
itself asks for its prompt's work even when it has none.

It is owed until the agent's turn that answers it ends. A compaction inside that turn cuts the work short, and the
summary must name the command for the next agent to finish it: summaries that carry one name it ("The `/simplify`
skill was invoked", "`/review-diff use a subagent` — triggered a code review"), and one that does not has lost it
(the user ran /diff-description, the log was compacted before any reply, the summary said "Pending Tasks: None",
and the user had to run it again). A compaction after the turn ended owes it nothing: the work is done.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from inspector.model import TRANSCRIPT, Invariant, InvariantKind, SourceRecord

COMMAND_SUFFIX = "#command"
"""How a command's item id ends (after its record's key): what `item_matching.match_command` is chosen by."""
_MID_TURN = frozenset(("queue", "question-tool", "rejection"))
"""How a user's words reach the agent during its turn (`extra["via"]`): queued while it works, an answer to its
question tool, feedback on a call refused. None of them ends the turn."""


def _prompt(record: SourceRecord) -> bool:
    """A message the user typed that starts a turn of the agent's."""
    return record.kind == "user" and record.authority == "user" and record.extra.get("via") not in _MID_TURN


def command_items(records: Sequence[SourceRecord]) -> Iterator[Invariant]:
    """Each prompt command the user ran, retired where the agent's turn that answers it ends (`_turn_end`)."""
    transcript = [r for r in records if r.namespace == TRANSCRIPT]
    for at, record in enumerate(transcript):
        command = record.extra.get("command") if _prompt(record) else None
        if isinstance(command, str) and command:
            end = _turn_end(transcript, at)
            yield Invariant(f"{InvariantKind.USER_REQUIREMENT.value}:{record.key}{COMMAND_SUFFIX}",
                            InvariantKind.USER_REQUIREMENT, command, record.key,
                            retired_by=end.key if end is not None else None)  # fmt: skip


def _turn_end(transcript: Sequence[SourceRecord], at: int) -> SourceRecord | None:
    """Where the turn answering the prompt at `at` ended: at its last step when that is the agent's text (it replied
    and stopped), else at the user's next message (the user cut in); None when the log ends with a call or its
    result, inside the turn (a guard reading the log at a compaction sees the command in flight)."""
    last: SourceRecord | None = None
    for later in transcript[at + 1 :]:
        if _prompt(later):
            return last if last is not None and last.kind == "assistant" else later
        if later.authority != "harness":  # the command's own prompt, a reminder: no step of the turn
            last = later
    return last if last is not None and last.kind == "assistant" else None


def is_command(item: Invariant | None) -> bool:
    """Is this the request of a prompt command (`command_items`)? Its id says so: it is matched by the command's name
    and given back by the guard as not done."""
    return item is not None and item.id.endswith(COMMAND_SUFFIX)


__all__ = ["COMMAND_SUFFIX", "command_items", "is_command"]
