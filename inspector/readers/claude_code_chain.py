"""Which Claude Code records the surviving conversation holds, and what became of every other one.

A Claude Code log is a DAG through uuid/parentUuid, but its branches are not all choices the user made.
The spine (followed back from the last main record) holds one record per step; beside it hang records the
conversation holds just as much: each result of a turn's parallel tool calls has its own call as parent,
and the pieces of one streamed message each a piece before it, so only the last of them is on the spine.
A branch the user left (a rewind to an earlier prompt, a session resumed from an earlier point) starts
with a new prompt or a new message instead; never with a tool result, which is written under its call however
late it comes (a command moved to the background returns when it ends, after the turns said meanwhile), so the
spine goes on from a result to the record written just before it. So a record off the spine is kept when it
descends from a kept record without starting such a branch; the rest is set aside under a name and counted.

A record written again under a uuid the log already holds (Claude Code re-appends history on a second
`/compact` in one process, anthropics/claude-code#92089; on a resume; on a VS Code reopen) is a copy: it is
not a node, and a parent pointer naming a copy means the record written just before the copies began.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Any

from inspector.readers import claude_code_fates as fate
from inspector.readers.claude_code_records import Record
from inspector.readers.values import as_str, type_of


@dataclass(slots=True)
class Node:
    """A record that takes part in the uuid DAG; `data` is kept only where it becomes a turn."""

    line: int
    offset: int
    """Where its line starts in the file: its turns' record, shown as written."""
    uuid: str
    parent: str | None
    has_parent_field: bool
    logical: str | None
    sidechain: bool
    type: str
    data: Record | None


@dataclass(slots=True)
class Survival:
    """The surviving chain (node indices in file order) and the count of every node set aside, by fate."""

    chain: list[int]
    subagent: bool
    set_aside: dict[int, str] = field(default_factory=dict)
    """Every node off the chain, by index: sidechain, superseded, unreached or progress."""
    branches: int = 0
    """Branches the conversation left: records off the chain whose parent is on it."""
    chain_gaps: int = 0
    begins_mid_session: bool = False
    """The earliest record the chain reaches names a parent the file does not hold (or, a compaction's root, a
    logical parent): the log is a slice of a longer session whose start is in another file (a session continued
    after a compaction, an Entire checkpoint's transcript from the checkpoint on)."""


class Dag:
    """The nodes of one log in file order, with the copies written after them."""

    def __init__(self) -> None:
        self.nodes: list[Node] = []
        self.by_uuid: dict[str, list[int]] = {}
        self._written: set[tuple[str, str, str | None, str | None]] = set()
        self._copies: dict[str, list[int]] = {}
        self._main: list[int] = []

    def add(self, node: Node, subtype: Any, timestamp: Any) -> bool:
        """Add a record, or count it as a copy (False) when a record of its uuid, type, subtype and timestamp
        came before.

        Every report of these copies (#92089, resume replays, VS Code reopens) has them keep the uuid, type and
        timestamp; a record of another kind under a seen uuid is a collision (a trimmed fixture's placeholder
        uuid), not a copy, and stays a node of its own."""
        written = (node.uuid, node.type, as_str(subtype), as_str(timestamp))
        if written in self._written:
            self._copies.setdefault(node.uuid, []).append(len(self.nodes))
            return False
        self._written.add(written)
        self.by_uuid.setdefault(node.uuid, []).append(len(self.nodes))
        self.nodes.append(node)
        return True

    @property
    def copies(self) -> int:
        return sum(len(c) for c in self._copies.values())

    @property
    def written(self) -> set[tuple[str, str, str | None, str | None]]:
        """What tells each node's record from a copy of it (`add`): uuid, type, subtype, timestamp."""
        return self._written

    @property
    def copies_of(self) -> dict[str, list[int]]:
        """Where each uuid was written again: the node count when each copy came."""
        return self._copies

    def restore(self, nodes: list[Node], written: list[tuple[str, str, str | None, str | None]],
                copies: dict[str, list[int]]) -> None:  # fmt: skip
        """The DAG as `add` had left it after `nodes` (a reading resumed, `claude_code_resume`)."""
        self.nodes = nodes
        self.by_uuid = {}
        for index, node in enumerate(nodes):
            self.by_uuid.setdefault(node.uuid, []).append(index)
        self._written = {tuple(w) for w in written}  # type: ignore[misc]
        self._copies = copies

    # -- the chain ----------------------------------------------------------------------------------

    def survive(self, anchors: set[int]) -> Survival:
        """The records the conversation that went on holds: the spine, and what hangs off it in the same turns."""
        main = [i for i, node in enumerate(self.nodes) if not node.sidechain]
        subagent = not main and bool(self.nodes)
        if subagent:  # a sub-agent's own log: every record is on its sidechain
            main = list(range(len(self.nodes)))
        self._main = main
        survival = Survival([], subagent)
        spine = self._spine(main, anchors, survival)
        kept = self._attach(spine, subagent, survival)
        survival.chain = sorted(kept)
        return survival

    def _spine(self, main: list[int], anchors: set[int], survival: Survival) -> set[int]:
        """The branch that ends at the last main record, followed back across compaction roots."""
        on_main = set(main)
        anchor_list = sorted(anchors)
        visited: set[int] = set()
        current = main[-1] if main else None
        while current is not None and current not in visited:
            visited.add(current)
            node = self.nodes[current]
            following = self.resolve(node.parent, current)
            if following is None and node.logical is not None:
                following = self.resolve(node.logical, current)
            if following is not None and _results_only(node):
                written_before = _before(main, current)
                if written_before is not None and written_before > following:
                    following = written_before  # a result written late: the conversation went on meanwhile
            broken = following is None and (
                node.parent is not None or node.logical is not None or not node.has_parent_field
            )
            if following is not None and (following in visited or following not in on_main):
                following, broken = None, True
            if following is None:
                if current in anchors or broken:
                    following = _before(main, current)
                    if broken and current not in anchors and following is not None:
                        survival.chain_gaps += 1
                    survival.begins_mid_session = broken and following is None
                else:  # a plain root: this branch starts here, unless a compaction came before it
                    following = _before(anchor_list, current)
            current = following
        return visited

    def _attach(self, spine: set[int], subagent: bool, survival: Survival) -> set[int]:
        """The spine and every record hanging off a kept one without starting a branch of its own.

        Kept: the other pieces of a kept streamed message (same `message.id`); a user record of tool results
        answering only kept calls; an attachment, a system record or a progress record (the harness's, never
        a branch the user chose; progress records in between are how Claude Code threads parallel calls).
        Anything else hanging off a kept record (a new prompt, a new message) starts a branch the conversation
        left: it and all below it are superseded; a record no kept record leads to is unreached."""
        kept = set(spine)
        calls: set[str] = set()
        messages: set[str] = set()
        for i in spine:
            _note_kept(self.nodes[i], calls, messages)
        branch: dict[int, str] = {}
        for i, node in enumerate(self.nodes):
            if i in kept:
                continue
            if node.sidechain and not subagent:
                survival.set_aside[i] = fate.SIDECHAIN
                continue
            parent = self.resolve(node.parent, i)
            if parent in kept and _hangs_on(node, calls, messages):
                kept.add(i)
                _note_kept(node, calls, messages)
                continue
            if parent in kept:
                survival.branches += node.type != "progress"
            on = fate.SUPERSEDED if parent in kept or branch.get(parent) == fate.SUPERSEDED else fate.UNREACHED  # type: ignore[arg-type]
            branch[i] = on
            survival.set_aside[i] = fate.PROGRESS if node.type == "progress" else on
        return kept

    def resolve(self, uuid: str | None, before: int) -> int | None:
        """The record a parent pointer names: the latest with this uuid written before the child (logs are
        append-only); when that latest one was a copy, the main record written just before the copy (#92089:
        the record a row follows, where the copies put the last copied row's uuid)."""
        if uuid is None:
            return None
        candidates = self.by_uuid.get(uuid)
        if not candidates:
            return None
        position = bisect_left(candidates, before)
        found = candidates[position - 1] if position else None
        copies = self._copies.get(uuid)
        if copies:
            at = bisect_left(copies, before + 1)  # a copy at k was written after node k - 1, before node k
            copy = copies[at - 1] if at else None
            if copy is not None and (found is None or copy > found):
                return _before(self._main, copy) if self._main else found
        return found


def _note_kept(node: Node, calls: set[str], messages: set[str]) -> None:
    if node.type != "assistant" or node.data is None or node.data.message is None:
        return
    message = node.data.message
    if isinstance(message.id, str):
        messages.add(message.id)
    content = message.content
    for block in content if isinstance(content, list) else ():
        if type_of(block) == "tool_use" and isinstance(block.get("id"), str):
            calls.add(block["id"])


def _hangs_on(node: Node, calls: set[str], messages: set[str]) -> bool:
    """Does this record belong to the turn of the kept record it hangs off (not a branch of its own)?"""
    if node.type in ("attachment", "system", "progress"):
        return True
    message = node.data.message if node.data is not None else None
    if message is None:
        return False
    if node.type == "assistant":
        return isinstance(message.id, str) and message.id in messages
    if node.type != "user" or not isinstance(message.content, list):
        return False
    answered = [block.get("tool_use_id") for block in message.content if type_of(block) == "tool_result"]
    return bool(answered) and all(isinstance(call, str) and call in calls for call in answered)


def _results_only(node: Node) -> bool:
    """Is this a user record that only returns tool results: never a turn a branch starts with? A result is written
    under its call, however late; a command moved to the background returns its result when it ends, after the
    turns the conversation went on with meanwhile."""
    message = node.data.message if node.data is not None else None
    content = message.content if message is not None else None
    return (node.type == "user" and isinstance(content, list) and bool(content)
            and all(type_of(block) == "tool_result" for block in content))  # fmt: skip


def _before(ordered: list[int], index: int) -> int | None:
    position = bisect_left(ordered, index)
    return ordered[position - 1] if position else None


__all__ = ["Dag", "Node", "Survival"]
