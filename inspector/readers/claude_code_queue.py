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
  after it, descriptors aside; a `dequeue` takes the head of the queue as the next prompt, whose record follows
  unless an interrupt dropped it. A message removed from the queue and never sent (a discarded queue) would be read
  as delivered: no log seen here has one.
- A message queued again with the same text before a record holds it, or while its first copy still waits, was
  dropped the first time: Claude Code queues a background task's report again after an interrupt dropped its dequeue
  (joyusai_b62c46a7 lines 314 and 343, dequeued at 344-345, interrupted at 346, queued again at 429-430 and removed
  at 443-444). Left waiting, the first copies would be taken by the next removes in place of the messages they
  deliver.
- `popAll` (content: what it took) empties the queue back into the prompt: the user takes their messages back, to
  edit them ("is this legic?" popped and "is this legit?" queued, lightprotocol_23ba8c9b lines 2039-2041) or to send
  them as what they typed on refusing a call ("wait, let's discuss first", cli_4b3ddf27 lines 70-73). None of them is
  delivered from the queue: what the user sends is its own record, or a message queued again. Left waiting, a
  popped message would be taken by the next unnamed `remove` in place of the one it delivers (cli_4b3ddf27: the
  remove at line 375 gave "wait, let's discuss first" and lost "oh, please don't amend commits", which the agent
  answered).
- A slash command is run by the harness, not sent to the agent (its own records say what it did); a
  message that never leaves the queue (the session ended first) was never received. Neither is a turn. A command
  leaves the queue by the `dequeue` or `remove` right after its `enqueue` (`/model`, `/exit` and `/effort` are
  removed at once): that `remove` delivers no message.
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
    is that record's turn, never a second one. Of the rest, only a `remove` delivers: one naming the message, or
    before 2.1.217 the first unnamed one after it. A `dequeue` takes the message at the head of the queue as the next
    prompt, whose record follows; one that no record holds was dropped (an interrupt came first)."""
    fates = {op.line: fate.QUEUE_BOOKKEEPING for op in ops}
    holding: dict[str, list[int]] = {}  # text -> lines of the records holding it not yet taken, in file order
    for line, said in received:
        holding.setdefault(said, []).append(line)
    waiting: dict[int, QueueOp] = {}  # messages no record holds, by enqueue line, until a remove takes them
    named: dict[str, deque[int]] = {}  # their enqueue lines by text, for a remove that names its message
    queue: dict[int, str] = {}  # every message and command still in the queue, in the order queued: line -> text
    copies: dict[str, list[int]] = {}  # text -> lines of its enqueues, in file order
    for op in ops:
        if op.operation == "enqueue" and op.content is not None:
            copies.setdefault(op.content.strip(), []).append(op.line)
    turns: list[QueuedTurn] = []
    before: QueueOp | None = None  # the queue operation before this one
    for op in ops:
        command = before if _command(before) else None  # a command enqueued just before this op
        before = op
        if op.operation == "enqueue" and op.content is not None and _is_message(op.content):
            text = op.content.strip()
            lines = holding.get(_held_as(text, holding), [])
            later = bisect_right(lines, op.line)
            if later < len(lines) and _queued_again(copies[text], op.line, lines[later]):
                fates[op.line] = fate.QUEUE_NOT_DELIVERED  # dropped, and queued again before its record came
                continue
            queue[op.line] = op.content
            if later < len(lines):
                del lines[later]
                fates[op.line] = fate.QUEUE_DELIVERED_AS_RECORD
                continue
            for again in named.pop(op.content, ()):  # queued again: the earlier copy was dropped, not sent
                waiting.pop(again, None)
                queue.pop(again, None)
            waiting[op.line] = op
            named.setdefault(op.content, deque()).append(op.line)
            fates[op.line] = fate.QUEUE_NOT_DELIVERED
        elif op.operation == "enqueue" and _command(op):
            queue[op.line] = op.content or ""
        elif op.operation == "dequeue" and queue:
            head = next(iter(queue))  # the prompt at the head of the queue: its record follows, unless none came
            del queue[head]
            waiting.pop(head, None)
        elif op.operation == "popAll":
            for line in [line for line, text in queue.items() if _popped(text, op.content)]:
                del queue[line]
                if waiting.pop(line, None) is not None:
                    fates[line] = fate.QUEUE_TAKEN_BACK
        elif op.operation == "remove" and command is not None and op.content in (None, command.content):
            queue.pop(command.line, None)  # the command queued just before: the harness ran it
        elif op.operation == "remove" and op.content is not None and (held := _held(queue, waiting, op.content)):
            del queue[held]  # a message it names that a record holds (2.1.217's `queued_command` attachment)
        elif op.operation == "remove" and waiting:
            queued = waiting.pop(_taken(op.content, waiting, named), None)
            if queued is None:
                continue
            queue.pop(queued.line, None)
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


def _queued_again(lines: list[int], line: int, record: int) -> bool:
    """Was the message queued at `line` queued again before the record holding it (at `record`)? Then the record is
    the later copy's turn (lightprotocol_15dc2f98: a task's report queued at 609, again at 682, its record at 692)."""
    after = bisect_right(lines, line)
    return after < len(lines) and lines[after] < record


def _held_as(text: str, holding: dict[str, list[int]]) -> str:
    """The text a record holds a queued message as: the same, or for a background task's report the same with the line
    the harness appends to its record ("Full transcript available at: …"; lightprotocol_15dc2f98 line 692, queued at
    682)."""
    if text in holding or not text.startswith(TASK_NOTIFICATION):
        return text
    return next((said for said in holding if said.startswith(text)), text)


def _held(queue: dict[int, str], waiting: dict[int, QueueOp], content: str) -> int | None:
    """The oldest message in the queue with this text that a record holds (not waiting), if any."""
    return next((line for line, text in queue.items() if text == content and line not in waiting), None)


def _popped(queued: str, taken: str | None) -> bool:
    """Did a `popAll` that took `taken` back take this waiting message? One it names, or any when it names none. A
    message it does not name was not in the queue any more: delivered by a `remove` that the log's bookkeeping gave
    to another (joyusai_b62c46a7: "write to memory I need to restart", answered at once, still waiting here when a
    later popAll took back only "/spec-kitty.review")."""
    return taken is None or queued.strip() in taken


def _command(op: QueueOp | None) -> str | None:
    """The slash command `op` enqueued, if it enqueued one: a `remove` right after it runs that command (`/model`,
    `/exit`, `/omc-setup`: the harness takes it at once), and delivers no message waiting in the queue
    (joyusai_b62c46a7 lines 1038-1039, where the message queued next, "write to memory I need to restart", is the
    one the next remove delivers)."""
    if op is None or op.operation != "enqueue" or op.content is None:
        return None
    text = op.content.strip()
    return op.content if text.startswith("/") else None


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
