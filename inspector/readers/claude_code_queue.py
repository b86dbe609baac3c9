"""Messages typed while the agent works: Claude Code's `queue-operation` records, read for what was delivered.

What the logs show (Claude Code 2.x to 2.1.217):

- `enqueue` (with `content`) puts a message in the queue when it is typed.
- `dequeue` takes it as the next prompt once the agent is idle; a plain `user` record with the same text
  follows, and that record is the turn.
- `remove` takes it out mid-turn to send with the next tool result. 2.1.217 writes it down as a
  `queued_command` attachment (same text, the enqueue's timestamp) just before the `remove`, and that
  attachment is the turn. Earlier versions write no attachment and no user record, yet the agent answers
  the message (entirecli_1e0816ef: "were we including the tool responses as well?" enqueued at line 919,
  removed at 922, answered at 938; sequant_bf976109: removed at 1169, in the summary at 1171), so there the
  queue record is the only copy of what the agent received: it becomes the turn, where it was removed.
- Before 2.1.217 neither `remove` nor `dequeue` names its message, and a `remove` need not take the oldest:
  background-task descriptors (a JSON object with a `task_id`) are enqueued when a task starts and removed
  in bulk when the turn ends, never delivered, while messages queued before them stay (sequant_bf976109,
  lines 924-935 and 1667-1680). So a message no record holds is delivered by the first unnamed `remove`
  after it (a `dequeue` always has its user record), descriptors aside. A message removed from the queue and
  never sent (a discarded queue) would be read as delivered: no log seen here has one.
- A slash command is run by the harness, not sent to the agent (its own records say what it did); a
  message that never leaves the queue (the session ended first) was never received. Neither is a turn.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import deque
from dataclasses import dataclass

import orjson

from inspector.readers import claude_code_fates as fate
from inspector.readers.values import blocks_text

TASK_NOTIFICATION = "<task-notification>"
"""Claude Code's wrapper around a background task's report: a queued message a sub-agent wrote, not the user."""


@dataclass(slots=True)
class QueueOp:
    line: int
    offset: int
    operation: str
    content: str | None
    timestamp: str | None


@dataclass(slots=True)
class QueuedTurn:
    """A queued message the agent received and no other record of the log holds."""

    line: int
    """Where it goes in the timeline: the operation that took it out of the queue."""
    source_line: int
    offset: int
    """The enqueue record, which holds the text."""
    text: str
    timestamp: str | None
    authority: str


def queue_op(line: int, offset: int, operation: object, content: object, timestamp: object) -> QueueOp:
    """A queue-operation record's fields as read (anything of the wrong type is None)."""
    text = blocks_text(content) if content is not None else None
    return QueueOp(line, offset, operation if isinstance(operation, str) else "", text or None,
                   timestamp if isinstance(timestamp, str) else None)  # fmt: skip


def deliveries(ops: list[QueueOp], received: list[tuple[int, str]]) -> tuple[list[QueuedTurn], dict[int, str]]:
    """The queued messages that become turns, and the fate of every queue record (by line).

    `received` is (line, text) of every record on the chain that holds a message as the agent got it (a
    user prompt, a `queued_command` attachment), in file order: a queued message one of them holds later
    is that record's turn, never a second one. Of the rest, only a `remove` delivers (a `dequeue` is always
    followed by its user record): one naming the message, or before 2.1.217 the first unnamed one after it."""
    fates = {op.line: fate.QUEUE_BOOKKEEPING for op in ops}
    holding: dict[str, list[int]] = {}  # text -> lines of the records holding it not yet taken, in file order
    for line, said in received:
        holding.setdefault(said, []).append(line)
    waiting: dict[int, QueueOp] = {}  # messages no record holds, by enqueue line, until a remove takes them
    named: dict[str, deque[int]] = {}  # their enqueue lines by text, for a remove that names its message
    turns: list[QueuedTurn] = []
    for op in ops:
        if op.operation == "enqueue" and op.content is not None and _is_message(op.content):
            lines = holding.get(op.content.strip(), [])
            later = bisect_right(lines, op.line)
            if later < len(lines):
                del lines[later]
                fates[op.line] = fate.QUEUE_DELIVERED_AS_RECORD
            else:
                waiting[op.line] = op
                named.setdefault(op.content, deque()).append(op.line)
                fates[op.line] = fate.QUEUE_NOT_DELIVERED
        elif op.operation == "remove" and waiting:
            queued = waiting.pop(_taken(op.content, waiting, named), None)
            if queued is None:
                continue
            text = (queued.content or "").strip()
            fates[queued.line] = fate.QUEUE_BOOKKEEPING
            fates[op.line] = fate.QUEUED_TURN
            authority = "subagent" if text.startswith(TASK_NOTIFICATION) else "user"
            turns.append(QueuedTurn(op.line, queued.line, queued.offset, text, queued.timestamp, authority))
    return turns, fates


def _taken(content: str | None, waiting: dict[int, QueueOp], named: dict[str, deque[int]]) -> int | None:
    """The enqueue line of the message a remove takes: the one it names, else the oldest still waiting."""
    if content is None:
        return next(iter(waiting))
    lines = named.get(content)
    while lines:
        line = lines.popleft()
        if line in waiting:
            return line
    return None


def _is_message(content: str) -> bool:
    """Text sent to the agent: not a slash command (the harness runs it) nor a background task's descriptor."""
    text = content.strip()
    if not text or text.startswith("/"):
        return False
    if text.startswith("{"):
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            return True
        return not (isinstance(value, dict) and "task_id" in value)
    return True


__all__ = ["QueueOp", "QueuedTurn", "deliveries", "queue_op"]
