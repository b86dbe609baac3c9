"""Reader for Claude Code session logs (`~/.claude/projects/<dir>/<session>.jsonl`).

Records form a DAG through uuid/parentUuid: a rewind forks it, sub-agents run on sidechains, and each
compaction restarts it (2.x: a `compact_boundary` with `logicalParentUuid`, then an `isCompactSummary`
user record; 1.0.x: only the summary record, with `parentUuid: null`). The conversation that survived
is the branch ending at the last main-chain record, followed back across those compaction roots, with
what hangs off it in the same turns (`claude_code_chain`); messages typed while the agent worked come
from the queue records (`claude_code_queue`). Every line ends up under one fate (`claude_code_fates`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from inspector.bounded_io import read_head
from inspector.errors import TraceReadError
from inspector.model import BEGINS_MID_SESSION, REDACTED_PATH, USER_INTERRUPTED, USER_REFUSED, Severity, Trace
from inspector.readers import claude_code_fates as fate
from inspector.readers.claude_code_background import BackgroundRuns
from inspector.readers.claude_code_chain import Dag, Node, Survival
from inspector.readers.claude_code_progress import subagent_files
from inspector.readers.claude_code_queue import QueuedTurn, QueueOp, deliveries, queue_op
from inspector.readers.claude_code_records import (
    Record,
    decode_fast,
    from_dict,
    has_parent_field,
    parent_uuid,
    slim,
)
from inspector.readers.claude_code_resume import PointState, ReadState, TouchedState, encoded, stamp
from inspector.readers.claude_code_resume import decoded as kept_state
from inspector.readers.json_lines import JsonLines, head_records
from inspector.readers.timeline import Compaction, Turn
from inspector.readers.transcript import NATIVE_TAG, Transcript
from inspector.readers.values import as_int, as_str, blocks_text, session_stem, type_of
from inspector.text import counted
from inspector.tool_names import is_plan_tool, is_question_tool

NAME = "claude-code"

_DAG_TYPES = frozenset({"user", "assistant", "system", "attachment", "progress"})
_KNOWN_TYPES = _DAG_TYPES | {
    "summary", "file-history-snapshot", "queue-operation", "custom-title", "ai-title", "last-prompt",
    "agent-name", "permission-mode", "mode", "pr-link", "worktree-state", "tag",
}  # fmt: skip
_TITLE_FIELDS = {"custom-title": "customTitle", "ai-title": "aiTitle", "summary": "summary"}
_SYSTEM_TEXT = ("<local-command-stdout>", "<local-command-stderr>", "<system-reminder>", "Caveat: ")
_NOTIFICATION = "<task-notification>"
"""How the harness opens a background agent's report; it then appends a line of its own ("Full transcript
available at: …") to the same record, which no person typed either."""
_TEAMMATE = "<teammate-message "
"""How an agent team's message opens (Claude Code 2.1.32 on): a teammate's report or idle notice in the lead's
session, the lead's task assignment and briefing in a teammate's, each in a user record with no origin. Another
agent wrote it, never the person."""
_BOUNDARIES = ("compact_boundary", "microcompact_boundary")

_COMPACTED_AFTER = ("a compaction came next, with no result logged for it: the summary may report one the log does not "
                    "hold")
"""What a call the compaction came straight after tells a reviewer. life_9457d5a1, medgemma_7d735052 and pupmcp_311dfedb
(fresh sets, labelled blind) each end their pre-compaction log on such a call, and each summary reports what it
returned (pupmcp's "76 passed, 2 failed", which only the result could tell and the next run bore out). Two logs show
the call finished 74 and 90 s before the compaction (a PostToolUse hook, an MCP "completed" record): Claude Code
compacted with the result in context and never logged it, so a summary's account of it is no fabrication for want
of a result here."""
_IDLE = {"attachment": fate.ATTACHMENT, "system": fate.SYSTEM, "progress": fate.PROGRESS, "user": fate.NO_CONTENT,
         "assistant": fate.NO_CONTENT}  # fmt: skip
"""The fate of a chain record of each type that gave the trace nothing."""
HARNESS_LOADED = ("CLAUDE.md", "CLAUDE.local.md", "MEMORY.md")
"""Files Claude Code puts in the agent's context itself, before the first turn and with no record of it: the
project's and the user's instructions, and the auto-memory index. A summary naming one names what the agent
was given, so it resolves (`Trace.harness_loaded`); a log records only nested ones it loads later
(`nested_memory` attachments)."""
PLAN_FILE = ".claude/plans/{slug}.md"
"""The plan file plan mode has the agent write, in the user's home, named for the session's `slug`: the harness
names it to the agent in a reminder the log does not keep, so a summary naming it resolves as harness-given."""
_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
"""A slug as Claude Code makes one: lower-case words joined by hyphens, nothing that would leave the folder."""
_ATTACHMENT_FILES = {"edited_text_file": "edit", "file": "read", "compact_file_reference": "read",
                     "nested_memory": "read", "edited_image_file": "edit"}  # fmt: skip


@dataclass(slots=True)
class _Message:
    """Pieces of one streamed assistant message (shared `message.id`) merged into one turn."""

    turn: Turn | None = None
    seen: set[Any] = field(default_factory=set)


@dataclass(frozen=True, slots=True)
class _Touched:
    """A key the harness's own records show the session touched, outside any turn of the conversation.

    A file a `file-history-snapshot` record names: Claude Code backs a file up before the agent first changes it, so
    the name is evidence the agent edited the file even where the tool call's path is not (a log exporter such as
    Entire redacts some paths to `REDACTED.md`, and leaves the snapshot's keys). A file a sub-agent's call read or
    edited, which the main log holds only in the `agent_progress` records that relay the sub-agent's messages
    (`claude_code_progress`): its report to the agent may name the file without the call. A pull request the
    harness linked the session to (a `pr-link` record)."""

    line: int
    namespace: str
    name: str
    action: str
    message: str | None
    """The record it belongs to (a snapshot's message, a sub-agent's call): it counts only when that record is on
    the conversation; None for what belongs to the session (a linked pull request)."""
    timestamp: str | None


def _backed_up(line: int, record: Record) -> list[_Touched]:
    """The files one snapshot record names."""
    fields = record.fields or {}
    snapshot = fields.get("snapshot")
    tracked = snapshot.get("trackedFileBackups") if isinstance(snapshot, dict) else None
    if not isinstance(tracked, dict):
        return []
    message = as_str(fields.get("messageId"))
    stamp = as_str(snapshot.get("timestamp"))
    return [_Touched(line, "file", name.strip(), "edit", message, stamp) for name in tracked
            if isinstance(name, str) and name.strip() and "\n" not in name]  # fmt: skip


def _linked(line: int, record: Record) -> list[_Touched]:
    """The pull request a `pr-link` record links the session to, by its address: a summary naming it names what the
    harness recorded, whether or not a command's output in the log printed it."""
    url = (record.fields or {}).get("prUrl")
    if not isinstance(url, str) or not url.strip() or "\n" in url:
        return []
    return [_Touched(line, "uri", url.strip(), "link", None, as_str(record.timestamp))]


def _first_touches(touched: list[_Touched], on_chain: set[str]) -> list[_Touched]:
    """Each key at the first record on the conversation that names it: a snapshot repeats every file tracked so
    far, and one of a branch the session left (a rewind) names edits the conversation went back on."""
    seen: set[tuple[str, str, str]] = set()
    first = []
    for touch in touched:
        key = (touch.namespace, touch.name, touch.action)
        if (touch.message is None or touch.message in on_chain) and key not in seen:
            seen.add(key)
            first.append(touch)
    return first


# --- sniffing ---------------------------------------------------------------------------------


def sniff(head: bytes) -> bool:
    """Claude Code records: uuid/parentUuid/sessionId at top level, never a `payload` wrapper."""
    if NATIVE_TAG in head:
        return False
    records = head_records(head)
    for record in records:
        kind = record.get("type")
        if not isinstance(kind, str) or "payload" in record:
            return False
        if kind in _DAG_TYPES and "uuid" in record and ("parentUuid" in record or "sessionId" in record):
            return True
        if (kind == "summary" and "leafUuid" in record) or (kind == "file-history-snapshot" and "snapshot" in record):
            return True
        if "sessionId" in record and kind in _KNOWN_TYPES:
            return True
    # A first line longer than the head: judge by the keys Claude Code writes first.
    return not records and head.lstrip().startswith(b"{") and b'"parentUuid"' in head and b'"sessionId"' in head


# --- reading ----------------------------------------------------------------------------------


class _Reader:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.lines = JsonLines(path, decode_fast)
        self.transcript = Transcript(path, NAME)
        self.background = BackgroundRuns()
        self.dag = Dag()
        self.points: list[tuple[int, str, Record, Node | None]] = []
        self.queue: list[QueueOp] = []
        self.fates: Counter[str] = Counter()
        """Records by what became of them; a node's fate is known only once the chain is."""
        self.point_fates: dict[int, str] = {}
        self.session_id: str | None = None
        self.agent_id: str | None = None
        self.titles: dict[str, str] = {}
        self.version: str | None = None
        self.cwd: str | None = None
        self.slug: str | None = None
        self.unknown_fields: Counter[str] = Counter()
        self.counts: Counter[str] = Counter()
        self.messages: dict[str, _Message] = {}
        self.main_seen = False
        self.touched: list[_Touched] = []
        """Keys the harness's records show touched outside the conversation's turns (`_Touched`)."""

    # -- pass over the file: keep the DAG skeleton and what main-chain turns need ---------------

    def parse(self) -> None:
        for line, decoded in self.lines:
            record = from_dict(decoded) if type(decoded) is dict else decoded
            kind = record.type
            if not isinstance(kind, str):
                self.transcript.unknown_types["(no type)"] += 1
                self.fates[fate.UNKNOWN_TYPE] += 1
                continue
            if kind not in _KNOWN_TYPES:
                self.transcript.unknown_types[kind] += 1
            self._note_meta(kind, record)
            sidechain = record.isSidechain is True
            subtype = record.subtype
            uuid = record.uuid
            summary = kind == "user" and record.isCompactSummary is True
            if not isinstance(uuid, str):
                if kind == "queue-operation":
                    self.queue.append(queue_op(line, self.lines.offset, record.operation, record.content,
                                               record.timestamp))  # fmt: skip
                elif summary:
                    self.points.append((line, "summary", record, None))
                elif kind == "system" and subtype in _BOUNDARIES and not sidechain:
                    self.points.append((line, subtype, record, None))
                else:
                    if kind == "file-history-snapshot":
                        self.touched.extend(_backed_up(line, record))
                    elif kind == "pr-link":
                        self.touched.extend(_linked(line, record))
                    self.fates[_fate_of_kind(kind)] += 1
                continue
            parent = parent_uuid(record)
            logical = record.logicalParentUuid
            node = Node(
                line=line,
                offset=self.lines.offset,
                uuid=uuid,
                parent=parent if isinstance(parent, str) else None,
                has_parent_field=has_parent_field(record),
                logical=logical if isinstance(logical, str) else None,
                sidechain=sidechain,
                type=kind,
                data=None,
            )
            if not self.dag.add(node, subtype, record.timestamp):
                self.fates[fate.DUPLICATE] += 1  # a copy: its original is read, and its own compaction counted once
                self._count_unknown(record)  # drift is drift wherever the log writes it
                continue
            if kind == "system" and subtype in _BOUNDARIES and not sidechain:
                self.points.append((line, subtype, record, None))
            if not sidechain and not self.main_seen:
                self._forget_sidechains()
            # A sub-agent's own log is all sidechain: keep those turns until a main record shows up.
            if kind in _DAG_TYPES and (not sidechain or summary or not self.main_seen):
                node.data = self._slim(record)
            if summary:
                self.points.append((line, "summary", record, node))
            if kind == "progress" and isinstance(parent, str):
                self.touched.extend(_Touched(line, "file", path, action, parent, as_str(record.timestamp))
                                    for path, action in subagent_files(record))  # fmt: skip
            if sidechain:
                self.counts["sidechain_records"] += 1

    def reached(self) -> ReadState | None:
        """The pass over the lines as a state to resume from (`claude_code_resume`), taken right after `parse`:
        `assemble` reads the DAG's nodes and records and changes none of them, and the counts it adds to are
        copied here. None when the log cannot be resumed: compressed, or its last line unfinished."""
        lines = self.lines
        marks = stamp(self.path, lines.end) if lines.resumable else None
        if marks is None:
            return None
        code, device, inode, mark = marks
        dag = self.dag
        index_of = {id(node): i for i, node in enumerate(dag.nodes)}
        points = [PointState(line, kind, record if type(record) is Record else slim(record),
                             index_of[id(node)] if node is not None else -1)
                  for line, kind, record, node in self.points]  # fmt: skip
        return ReadState(
            code=code, device=device, inode=inode, offset=lines.end, fingerprint=mark, lines=lines.lines,
            records=lines.records, malformed=lines.malformed, blank=lines.blank,
            notices=[(n.rule, n.message) for n in lines.line_notices], nodes=dag.nodes, written=list(dag.written),
            copies=dag.copies_of, points=points, queue=self.queue,
            touched=[TouchedState(t.line, t.namespace, t.name, t.action, t.message, t.timestamp) for t in self.touched],
            fates=dict(self.fates), unknown_types=dict(self.transcript.unknown_types),
            unknown_fields=dict(self.unknown_fields), counts=dict(self.counts), titles=self.titles,
            session_id=self.session_id, agent_id=self.agent_id, version=self.version, cwd=self.cwd, slug=self.slug,
            main_seen=self.main_seen)  # fmt: skip

    def resume(self, state: ReadState) -> None:
        """Take up a kept pass over this log's lines (`reached`), to read on from where it stopped."""
        nodes = state.nodes
        self.lines.resume(state.offset, state.lines, state.records, state.malformed, state.blank, state.notices)
        self.dag.restore(nodes, state.written, state.copies)
        self.points = [(p.line, p.kind, p.record, nodes[p.node] if p.node >= 0 else None) for p in state.points]
        self.queue = state.queue
        self.touched = [_Touched(t.line, t.namespace, t.name, t.action, t.message, t.timestamp) for t in state.touched]
        self.fates = Counter(state.fates)
        self.transcript.unknown_types = Counter(state.unknown_types)
        self.unknown_fields, self.counts = Counter(state.unknown_fields), Counter(state.counts)
        self.titles, self.session_id, self.agent_id = state.titles, state.session_id, state.agent_id
        self.version, self.cwd, self.slug, self.main_seen = state.version, state.cwd, state.slug, state.main_seen

    def _forget_sidechains(self) -> None:
        self.main_seen = True
        for node in self.dag.nodes:
            if node.sidechain and node.data is not None and node.data.isCompactSummary is not True:
                node.data = None

    def _note_meta(self, kind: str, record: Record) -> None:
        version = record.version
        if isinstance(version, str):
            self.version = version
        if self.session_id is None and isinstance(record.sessionId, str):
            self.session_id = record.sessionId
        if self.agent_id is None and isinstance(record.agentId, str):
            self.agent_id = record.agentId
        if self.cwd is None and isinstance(record.cwd, str):
            self.cwd = record.cwd
        if self.slug is None and isinstance(record.slug, str) and _SLUG.fullmatch(record.slug):
            self.slug = record.slug
        title_field = _TITLE_FIELDS.get(kind)
        fields = record.fields if type(record) is Record else None  # a fast record has no unknown field
        title = fields.get(title_field) if title_field is not None and fields else None
        if isinstance(title, str):
            self.titles[kind] = title

    def _slim(self, record: Record) -> Record:
        """What a turn needs: the fast record copied off its line, thinking blocks (large signatures) gone;
        unknown fields of turns counted, and kept with the turn."""
        kept = record if type(record) is Record else slim(record)
        message = kept.message
        if message is not None and isinstance(message.content, list):  # thinking is not a turn
            message.content = [b for b in message.content if type_of(b) not in ("thinking", "redacted_thinking")]
        if kept.fields and not self._count_unknown(kept):
            kept.fields = None
        return kept

    def _count_unknown(self, record: Record) -> bool:
        """Count a conversation record's unknown fields (a fast record has none); whether it is one."""
        if record.type not in ("user", "assistant", "system"):
            return False
        if type(record) is Record and record.fields:
            self.unknown_fields.update(list(record.fields))
        return True

    # -- compactions: boundaries paired with the summary that follows them ----------------------

    def compactions(self) -> tuple[list[tuple[int, Compaction]], set[int], list[tuple[int, str, str | None]]]:
        found: list[tuple[int, Compaction]] = []
        anchors: set[int] = set()
        micro: list[tuple[int, str, str | None]] = []
        pending: Compaction | None = None
        nodes = self.dag.nodes
        index_of = {id(node): i for i, node in enumerate(nodes)}
        for line, kind, record, node in sorted(self.points, key=lambda p: p[0]):
            self.point_fates[line] = fate.COMPACTION if kind in _BOUNDARIES else fate.SUMMARY
            if kind == "microcompact_boundary":
                micro.append((line, _micro_description(record), as_str(record.timestamp)))
            elif kind == "compact_boundary":
                pending = _boundary(line, record)
                found.append((line, pending))
                uuid = record.uuid
                if isinstance(uuid, str):
                    anchors.update(i for i in self.dag.by_uuid.get(uuid, ()) if nodes[i].line == line)
            elif pending is not None and pending.text is None:
                pending.text = _summary_text(record) or None
                pending.unavailable = None if pending.text else f"the summary record at line {line} is empty"
                pending.extra["summary_line"] = line
                pending = None
            elif record.isSidechain is not True and parent_uuid(record) is None:
                # Claude Code 1.0.x: no boundary, the summary itself is the compaction root.
                text = _summary_text(record)
                compaction = Compaction(text or None, line, timestamp=as_str(record.timestamp))
                compaction.unavailable = None if text else f"the summary record at line {line} is empty"
                found.append((line, compaction))
                if node is not None:
                    anchors.add(index_of[id(node)])
            else:
                self.counts["unpaired_summaries"] += 1
                self.point_fates[line] = fate.UNPAIRED_SUMMARY
            if not isinstance(record.uuid, str):  # no node of the DAG, so no later pass gives it its fate
                self.fates[self.point_fates[line]] += 1
        return found, anchors, micro

    # -- turns ------------------------------------------------------------------------------------

    def build(self) -> Trace:
        self.parse()
        return self.assemble()

    def assemble(self) -> Trace:
        """The trace from the pass over the lines: the chain, its turns in log order, what became of every record."""
        found, anchors, micro = self.compactions()
        survival = self.dag.survive(anchors)
        nodes = self.dag.nodes
        queued, queue_fates = deliveries(self.queue, self._received(survival.chain))
        self.fates.update(queue_fates.values())
        timeline: list[tuple[int, int, Any]] = [(nodes[i].line, 1, nodes[i]) for i in survival.chain]
        timeline += [(line, 0, compaction) for line, compaction in found]
        timeline += [(line, 2, event) for line, *event in micro]
        timeline += [(turn.line, 1, turn) for turn in queued]
        if self.touched:  # the chain's ids are gathered only for a log that holds such records
            on_chain = {nodes[i].uuid for i in survival.chain}
            timeline += [(touch.line, 1, touch) for touch in _first_touches(self.touched, on_chain)]
        for _, _, item in sorted(timeline, key=lambda entry: (entry[0], entry[1])):
            if isinstance(item, Compaction):
                self.transcript.compaction(item)
            elif isinstance(item, Node):
                self.transcript.place = item.offset
                mapped = self._map(item)
                self.fates[self._fate_of(item, mapped or _IDLE.get(item.type) or _fate_of_kind(item.type))] += 1
            elif isinstance(item, _Touched):
                self.transcript.mention(item.namespace, item.name, item.action, item.timestamp)
            elif isinstance(item, QueuedTurn):
                self.transcript.place = item.offset
                self._user_turn(f"queued:{item.source_line}", item.authority, item.text, item.timestamp, via="queue")
            else:
                description, timestamp = item
                self.transcript.event("microcompaction", description, timestamp)
        for index, aside in survival.set_aside.items():
            self.fates[self._fate_of(nodes[index], aside)] += 1
        self.transcript.notices[:0] = self.lines.notices
        self._notices(survival)
        title = self.titles.get("custom-title") or self.titles.get("ai-title") or self.titles.get("summary")
        trace_id = self.session_id or session_stem(self.path)
        if survival.subagent and self.agent_id:
            trace_id = f"{trace_id}/agent-{self.agent_id}"
        lines = self.lines
        by_fate = {**self.fates, fate.MALFORMED: lines.malformed, fate.TORN: lines.torn, fate.BLANK: lines.blank}
        fate.tally(self.transcript.records, lines, self.fates)
        extra: dict[str, Any] = {
            "lines": lines.lines,
            "malformed_lines": lines.malformed,
            "sidechain_records": self.counts["sidechain_records"],
            "abandoned_records": self.fates[fate.SUPERSEDED] + self.fates[fate.UNREACHED],
            "duplicate_records": self.fates[fate.DUPLICATE],
            "chain_gaps": survival.chain_gaps,
            "unpaired_summaries": self.counts["unpaired_summaries"],
            "records_by_fate": {name: n for name, n in sorted(by_fate.items()) if n},
            "unknown_fields": dict(self.unknown_fields),
            "subagent": survival.subagent,
            "harness_loaded": [*HARNESS_LOADED, *([PLAN_FILE.format(slug=self.slug)] if self.slug else [])],
        }
        if survival.begins_mid_session:
            extra[BEGINS_MID_SESSION] = True
        for name, value in (("version", self.version), ("cwd", self.cwd), ("agent_id", self.agent_id)):
            if value:
                extra[name] = value
        return self.transcript.build(trace_id, title, extra, self.lines.stamps)

    def _received(self, chain: list[int]) -> list[tuple[int, str]]:
        """(line, text) of each chain record holding a message as the agent got it: what a queued one may be."""
        received: list[tuple[int, str]] = []
        for i in chain:
            node = self.dag.nodes[i]
            data = node.data
            if data is None or data.isCompactSummary is True:
                continue
            if node.type == "user" and data.message is not None:
                text = _prompt_text(data.message.content)
            elif node.type == "attachment" and type_of(data.attachment) == "queued_command":
                text = blocks_text(data.attachment.get("prompt"))
            else:
                continue
            if text.strip():
                received.append((node.line, text.strip()))
        return received

    def _fate_of(self, node: Node, otherwise: str) -> str:
        """A node's fate: a compaction's record or one of an unknown type wherever it is, else `otherwise`."""
        return self.point_fates.get(node.line) or _unknown(node.type) or otherwise

    def _notices(self, survival: Survival) -> None:
        """Say what was set aside that a reader of the trace should know: branches the session left, records
        written twice, calls whose result the log does not hold."""
        superseded, unreached, copies = (self.fates[name] for name in (fate.SUPERSEDED, fate.UNREACHED, fate.DUPLICATE))
        if superseded or unreached:
            parts = [f"{counted(superseded, 'record')} on {counted(survival.branches, 'branch', 'branches')} the "
                     "session left (a prompt edited or rewound to, a session resumed from an earlier point)"]
            parts += [f"{counted(unreached, 'record')} no record of the surviving conversation leads to"]
            said = " and ".join(part for part, n in zip(parts, (superseded, unreached), strict=True) if n)
            self.transcript.notice("branch-set-aside", Severity.INFO,
                                   f"{said}: not in the trace, which holds the conversation that went on")
        if copies:
            self.transcript.notice("records-repeated", Severity.INFO,
                                   f"{counted(copies, 'record')} written again under a uuid the log already holds "
                                   "(Claude Code re-appends history on a resume or a second /compact): each read once")
        for call, following in self.transcript.unanswered_calls():  # the shared tool-result-missing notice says
            self.transcript.no_result(call.call_id or "", "the log ends before its result" if following is None else
                                      _COMPACTED_AFTER if isinstance(following, Compaction) else
                                      "the conversation went on without its result")  # fmt: skip

    def _map(self, node: Node) -> str | None:
        """Add a chain record's turns; what it became (None: nothing)."""
        data = node.data
        if data is None or data.isCompactSummary is True:
            return None
        if node.type == "user":
            return fate.TURN if self._user(node, data) else None
        if node.type == "assistant":
            return fate.TURN if self._assistant(node, data) else None
        if node.type != "attachment" or not isinstance(data.attachment, dict):
            return None
        attachment = data.attachment
        kind = type_of(attachment)
        if kind == "queued_command":  # a message typed while the agent worked, sent with a tool result
            text = blocks_text(attachment.get("prompt")).strip()
            if not text:
                return None
            mode = attachment.get("commandMode")  # "prompt" typed, "task-notification" a background agent's
            by = _origin_author(attachment.get("origin")) or _ORIGIN_AUTHORS.get(mode or "prompt", "harness")
            self._user_turn(node.uuid, by, text, data.timestamp, via="queue")
            return fate.QUEUED_TURN
        if kind in _ATTACHMENT_FILES:
            target = attachment.get("filename") or attachment.get("path")
            if isinstance(target, str) and target.strip():
                self.transcript.mention("file", target, _ATTACHMENT_FILES[kind], data.timestamp)
                return fate.MENTION
        return None

    def _user_turn(self, key: str, by: str, text: str, timestamp: Any, **extra: Any) -> None:
        """A user record's turn; and when it is the harness's notice that a background command ended, that command's
        run (`claude_code_background`), the first time its end is reported."""
        self.transcript.turn(key, "user", by, text, timestamp, **extra)
        ended = self.background.notified(text) if by == "subagent" else None
        if ended is not None:
            self.transcript.turn(key, "tool_error" if ended[1] else "tool_result", "tool", ended[2], timestamp,
                                 command=ended[0], background="notified")  # fmt: skip

    def _user(self, node: Node, data: Record) -> bool:
        content = data.message.content if data.message is not None else None
        timestamp = data.timestamp
        fields = data.fields
        blocks = content if isinstance(content, list) else []
        results = [b for b in blocks if type_of(b) == "tool_result"]
        text = _prompt_text(content)
        if text:
            if data.isMeta is True:
                self._mark_command(text)
            plan = {"plan": "approved"} if _approved_plan(data) else {}
            self._user_turn(node.uuid, _author(data, text), text, timestamp, fields=fields, **plan, **_lead_said(text))
        for block in results:
            call_id = as_str(block.get("tool_use_id"))
            body = blocks_text(block.get("content")) or blocks_text(block.get("text"))
            error = block.get("is_error") is True or (len(results) == 1 and data.tool_error)
            tool = self.transcript.call_tool(call_id)
            meaning = {"exit_meaning": data.exit_meaning} if data.exit_meaning and len(results) == 1 else {}
            if error and (slip := harness_slip(body)):
                meaning["slip"] = slip
            ended = self.background.reported(data.task) if len(results) == 1 else None
            if ended is not None:  # a background command's end, read by this call: that command's run, its output
                error, meaning["background"] = ended[1], "reported"  # the task's own (not the harness's tags)
                meaning["output"] = data.task.get("output") if isinstance(data.task.get("output"), str) else None
            turn = self.transcript.tool_result(call_id, node.uuid, body, is_error=error, timestamp=timestamp,
                                               fields=fields, ran=ended[0] if ended else None, **meaning)  # fmt: skip
            if len(results) == 1 and self.background.started(data.background_task, turn.extra.get("command")):
                turn.extra["background"] = "started"  # no run: how the command ends is reported later

            put = _asked(self.transcript.call_input(call_id))
            said, via = user_words_in_result(body, put)
            if said and via == _answer_kind(tool, block, data):
                # The user's own words, typed into a rejection or a question tool: a user statement, each answer
                # with the question it answers.
                labels = question_labels(data.questions)
                asked = questions_answered(body, labels, put) if via == "question-tool" else None
                self.transcript.turn(node.uuid, "user", "user", said, timestamp, via=via, asked=asked)
        return bool(text or results)

    def _mark_command(self, prompt: str) -> None:
        """The user's turn just before this harness record ran a prompt command, when it invoked one: its record says
        `extra["command"]`, the command as typed ("/review-diff use a subagent"). Claude Code writes the invocation
        as tags (`<command-name>/review-diff</command-name>`, the user's words in `<command-args>`) and the command's
        prompt as the next user record, with `isMeta`; a command the harness runs itself (/clear, /model, /compact)
        prints `<local-command-stdout>` instead and asks the agent nothing (`inspector.prompt_commands`)."""
        last = self.transcript.timeline[-1] if self.transcript.timeline else None
        if not isinstance(last, Turn) or last.kind != "user" or last.authority != "user" or "command" in last.extra:
            return
        name = _COMMAND_NAME.search(last.text)
        if name is None or not prompt.strip():
            return
        args = _COMMAND_ARGS.search(last.text)
        words = " ".join(args.group(1).split()) if args else ""
        last.extra["command"] = f"{name.group(1)} {words}".strip()

    def _assistant(self, node: Node, data: Record) -> bool:
        """Add a piece of a streamed message; whether it held anything the pieces before it did not."""
        message = data.message
        if message is None:
            return False
        added = False
        message_id = message.id
        state = self.messages.get(message_id) if isinstance(message_id, str) else None
        if state is None:
            state = _Message()
            if isinstance(message_id, str):
                self.messages[message_id] = state
        content = message.content
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        timestamp = data.timestamp
        for block in blocks:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            fingerprint = _fingerprint(block)
            if fingerprint in state.seen:
                self.counts["duplicate_blocks"] += 1
                continue
            state.seen.add(fingerprint)
            if kind == "text" and isinstance(block.get("text"), str) and block["text"]:
                added = True
                if state.turn is None:
                    state.turn = self.transcript.turn(
                        node.uuid, "assistant", "assistant", block["text"], timestamp,
                        fields=data.fields, api_error=data.isApiErrorMessage or None,
                    )  # fmt: skip
                else:
                    state.turn.text += "\n\n" + block["text"]
            elif kind == "tool_use":
                call_id = block.get("id") if isinstance(block.get("id"), str) else node.uuid
                name = block.get("name") if isinstance(block.get("name"), str) else "tool"
                plan = {"plan_file": PLAN_FILE.format(slug=self.slug)} if is_plan_tool(name) and self.slug else {}
                suffix = _redacted_suffix(block.get("input"))
                redacted = {REDACTED_PATH: suffix} if suffix is not None else {}
                self.transcript.tool_call(call_id, name, block.get("input"), timestamp, **plan, **redacted)
                added = True
            elif kind not in ("thinking", "redacted_thinking"):
                self.transcript.unknown_types[f"assistant block {kind}"] += 1
        return added


_REDACTED = re.compile(r"(?:^|/)\.?REDACTED(?P<suffix>\.[A-Za-z0-9]+)$")
"""The placeholder Entire, exporting a Claude Code log, writes for a path whose name it redacts (`REDACTED.json`,
`/home/me/.REDACTED.txt`): the name gone, its suffix kept."""
_PATH_FIELDS = ("file_path", "notebook_path", "path")
"""The fields of Claude Code's file tools (Read, Edit, Write, NotebookEdit, Glob, Grep) that hold a path."""


def _redacted_suffix(tool_input: Any) -> str | None:
    """The suffix of the path a call's input names, when its exporter redacted the path (`REDACTED_PATH`)."""
    if not isinstance(tool_input, dict):
        return None
    for name in _PATH_FIELDS:
        value = tool_input.get(name)
        found = _REDACTED.search(value) if isinstance(value, str) else None
        if found is not None:
            return found.group("suffix")
    return None


def _asked(tool_input: Any) -> Any:
    """The questions a question tool's call put, from its input: where a wrapper's tool keeps them (its result has no
    `toolUseResult.questions`)."""
    return tool_input.get("questions") if isinstance(tool_input, dict) else None


def _answer_kind(tool: str | None, block: dict[str, Any], record: Record) -> str | None:
    """Whether a tool result is the harness's record of the user answering, from the format's fields: the
    answer to the agent's own question tool, or a refused call (an error whose `toolUseResult` is the
    harness's plain string, on a call of a built-in tool). Any other result's text is the tool's, whatever it
    says: a fetched page or an MCP server reading "the user said: …" is not the user."""
    if is_question_tool(tool):
        return "question-tool"
    builtin = tool is not None and not tool.startswith("mcp__")
    if builtin and block.get("is_error") is True and isinstance(block.get("content"), str) and record.harness_error:
        return "rejection"
    return None


_HARNESS_SLIPS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (reason, re.compile(pattern))
    for reason, pattern in (
        (USER_REFUSED, r"^The user doesn't want to (?:proceed with|take) this (?:tool use|action)"),
        (USER_INTERRUPTED, r"^\[Request interrupted by user|^Interrupted by user"),
        ("refused by the harness", r"^\s*<tool_use_error>"),
        ("edit-before-read", r"^File has not been read yet\. Read it first before writing"),
        ("no such file", r"^File does not exist\."),
        ("string to replace not found", r"^String to replace not found in file\."),
        ("string to replace not unique", r"^Found \d+ matches of the string to replace"),
        ("file too large", r"^File content \([^)]*\) exceeds maximum allowed"),
    )
)
"""Claude Code's own words for a call that never did its work: refused or stopped by the user, refused by the
harness before it ran (`<tool_use_error>` wraps its input checks), or an editing tool's precondition failing.
Each is a slip the agent recovers from at once, not a failure of the work; the analyses read the flag
(`extra["slip"]`), never these strings, which are this harness's alone."""


def harness_slip(body: str) -> str | None:
    """Why a failed tool result is a slip of the harness's, or None when the tool ran and failed."""
    head = body[:300]
    return next((reason for reason, pattern in _HARNESS_SLIPS if pattern.search(head)), None)


_REJECTED_WITH_FEEDBACK = re.compile(
    r"^The user doesn't want to proceed with this tool use\..*?the user said:\s*\n(?P<said>.+)\Z", re.DOTALL
)
_ANSWERED = re.compile(r"^(?:User has answered your questions?|Your questions? (?:has|have) been answered):\s*"
                       r"(?P<pairs>.+?)(?:\s*You can now continue\b.*)?\Z", re.DOTALL)  # fmt: skip
_ANSWER_PAIR = re.compile(r'"(?P<question>(?:[^"\\]|\\.)*)"\s*=\s*"(?P<answer>(?:[^"\\]|\\.)*)"')


_NUMBERED_ANSWERS = re.compile(r"^User responses:\s*\n(?P<list>(?:\d+\.[ \t][^\n]*(?:\n|\Z))+)\s*\Z")
"""Conductor's question tool's result: "User responses:", then one numbered line per question, in order."""
_NUMBERED_ANSWER = re.compile(r"^(\d+)\.[ \t]+([^\n]+)$", re.MULTILINE)
_RECOMMENDED = re.compile(r"\s*\(Recommended\)\s*$")
"""The mark Claude Code's question tool has the agent put after the label of the option it recommends: the agent's
words about its option, not the user's answer ("3 conditions (Recommended)" is the answer "3 conditions")."""


def user_words_in_result(body: str, put: Any = None) -> tuple[str | None, str | None]:
    """What the user typed inside a tool result: rejection feedback, or the answers to a question tool (`put`: the
    questions its call put, `_asked`)."""
    rejected = _REJECTED_WITH_FEEDBACK.match(body)
    if rejected:
        return rejected.group("said").strip() or None, "rejection"
    answers = _answers(body, put)
    if answers is not None:
        return "\n".join(answer for _, answer in answers) or None, "question-tool"
    return None, None


def questions_answered(body: str, labels: dict[str, str] | None = None, put: Any = None) -> list[list[int | str]]:
    """Where each answer of a question tool's result stands in the words `user_words_in_result` gives, with the
    question it answers: [start, end, question], and the question's label when `labels` gives it one
    (`question_labels`). "Yes, fixed control view." tells the next agent nothing without "Should we drop the
    first-person walking entirely?"."""
    stretches: list[list[int | str]] = []
    start = 0
    for question, answer in _answers(body, put) or []:
        label = (labels or {}).get(question)
        stretches.append([start, start + len(answer), question, *([label] if label else [])])
        start += len(answer) + 1
    return stretches


def question_labels(questions: Any) -> dict[str, str]:
    """Each question a question tool asked, by its text, with the short label it was shown under (`header`,
    "Finding 5", "Auth method"): what a summary lists the answer by. From the result's own `toolUseResult`, so the
    answer's record says it alone."""
    labels: dict[str, str] = {}
    for asked in questions if isinstance(questions, list) else ():
        question = asked.get("question") if isinstance(asked, dict) else None
        label = asked.get("header") if isinstance(asked, dict) else None
        if isinstance(question, str) and isinstance(label, str) and label.strip():
            labels[question.strip()] = label.strip()
    return labels


def _answers(body: str, put: Any = None) -> list[tuple[str, str]] | None:
    """The (question, answer) pairs of a question tool's result, each answer ending as a sentence; None when the
    result is no answer to one. Claude Code's tool writes each pair (`"question"="answer"`); Conductor's lists the
    answers by number, in the order of the questions its call put (`put`)."""
    answered = _ANSWERED.match(body)
    if answered:
        pairs: Iterable[tuple[str, str]] = (
            (m.group("question").strip(), _RECOMMENDED.sub("", m.group("answer")).strip())
            for m in _ANSWER_PAIR.finditer(answered.group("pairs")))  # fmt: skip
    elif (listed := _NUMBERED_ANSWERS.match(body)) is not None:
        asked = [q.get("question", "") if isinstance(q, dict) else "" for q in put or ()]
        numbered = [(int(m.group(1)), m.group(2).strip()) for m in _NUMBERED_ANSWER.finditer(listed.group("list"))]
        pairs = ((str(asked[n - 1]).strip() if 0 < n <= len(asked) else "", _RECOMMENDED.sub("", answer).strip())
                 for n, answer in numbered)  # fmt: skip
    else:
        return None
    return [(question, answer if answer.endswith((".", "!", "?")) else answer + ".") for question, answer in pairs
            if answer]  # fmt: skip


_ORIGIN_AUTHORS = {"human": "user", "prompt": "user", "task-notification": "subagent"}
"""`origin.kind` (or a queued message's `commandMode`) as an author; any other kind (`peer`: another process
posted it; a slash command's mode) is no person's words."""


def _origin_author(origin: Any) -> str | None:
    """The author an `origin` field names (None when there is none to read)."""
    kind = origin.get("kind") if isinstance(origin, dict) else None
    return _ORIGIN_AUTHORS.get(kind, "harness") if isinstance(kind, str) else None


def _author(record: Record, text: str) -> str:
    """Who wrote a user record's text, from the record's own fields: its origin (2.x), `isMeta`, and the
    harness's fixed openings; the spans inside are `inspector.authorship`'s."""
    by = _origin_author(record.origin)
    if by is not None:
        return by
    opening = text.lstrip()
    if opening.startswith((_NOTIFICATION, _TEAMMATE)):  # no origin written; what follows the tag is theirs too
        return "subagent"
    return "harness" if record.isMeta is True or _approved_plan(record) or opening.startswith(_SYSTEM_TEXT) else "user"


def _approved_plan(record: Record) -> bool:
    """Is this the record that hands the agent the plan the user approved ("Implement the following plan: …",
    `planContent`)? The harness writes it, not the user; what it asks is the user's to have approved."""
    return isinstance(record.planContent, str) and record.planContent.strip() != ""


def _boundary(line: int, record: Record) -> Compaction:
    metadata = record.compactMetadata
    metadata = metadata if isinstance(metadata, dict) else {}
    trigger = metadata.get("trigger", record.trigger)
    extra = {k: v for k, v in metadata.items() if k not in ("trigger", "preTokens", "postTokens")}
    return Compaction(
        text=None,
        line=line,
        trigger=as_str(trigger),
        tokens_before=as_int(metadata.get("preTokens")),
        tokens_after=as_int(metadata.get("postTokens")),
        timestamp=as_str(record.timestamp),
        unavailable=f"compact_boundary at line {line} is not followed by a summary record",
        extra={"compactMetadata": extra} if extra else {},
    )


def _summary_text(record: Record) -> str:
    return blocks_text(record.message.content) if record.message is not None else ""


def _micro_description(record: Record) -> str:
    metadata = record.microcompactMetadata
    parts = ["tool results cleared"]
    if isinstance(metadata, dict):
        for name in ("trigger", "preTokens", "tokensSaved"):
            if name in metadata and isinstance(metadata[name], str | int):
                parts.append(f"{name}={metadata[name]}")
    return ", ".join(parts)


def _fingerprint(block: dict[str, Any]) -> Any:
    if block.get("type") == "tool_use" and isinstance(block.get("id"), str):
        return ("tool_use", block["id"])
    if block.get("type") == "text" and isinstance(block.get("text"), str):
        return ("text", block["text"])
    return orjson.dumps(block, option=orjson.OPT_SORT_KEYS)


_COMMAND_NAME = re.compile(r"<command-name>\s*(/[^\s<]+)\s*</command-name>")
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.DOTALL)
"""A slash command's invocation as Claude Code writes it into the user's record (`_mark_command`)."""


_LEAD_MESSAGE = re.compile(r'<teammate-message\s+teammate_id="team-lead"[^>]*>(.*?)</teammate-message>', re.DOTALL)
"""A message from an agent team's lead, as Claude Code delivers it in a teammate's own log (the lead's session is
named "team-lead"; in the lead's log the messages come from the teammates, by their names)."""


def _lead_said(text: str) -> dict[str, list[str]]:
    """`extra["lead_said"]`: what the team lead wrote to this teammate in the record, in its words: the brief the
    teammate works from (`inspector.lead_rules`). A task assignment the lead's tools send as a JSON object is left out:
    it names the task, and its rules are in the brief."""
    if _TEAMMATE not in text:
        return {}
    said = [body.strip() for body in _LEAD_MESSAGE.findall(text) if not body.strip().startswith("{")]
    return {"lead_said": said} if said else {}


def _prompt_text(content: Any) -> str:
    """What a user record says besides tool results: the prompt as the agent got it."""
    if isinstance(content, list):
        content = [b for b in content if type_of(b) != "tool_result"]
    return blocks_text(content)


def _unknown(kind: str) -> str | None:
    return fate.UNKNOWN_TYPE if kind not in _KNOWN_TYPES else None


def _fate_of_kind(kind: str) -> str:
    """The fate of a record that is no node of the DAG (or is one of a type that makes no turn)."""
    if kind not in _KNOWN_TYPES:
        return fate.UNKNOWN_TYPE
    if kind == "file-history-snapshot":
        return fate.SNAPSHOT
    return fate.NO_UUID if kind in _DAG_TYPES else fate.METADATA


def read(path: Path) -> Trace:
    return _Reader(path).build()


def read_resuming(path: Path, kept: bytes | None) -> tuple[Trace, Callable[[], bytes | None]]:
    """The trace, its lines read on from where the state `kept` stopped when that state is this log's
    (`claude_code_resume`), else all of them; and what gives the state the next reading can resume from (None if
    none), encoded only when asked: after the guard has printed what it owes."""
    reader = _Reader(path)
    state = kept_state(kept, path) if kept is not None else None
    if state is not None:
        reader.resume(state)
    reader.parse()
    reached = reader.reached()
    return reader.assemble(), lambda: encoded(reached) if reached is not None else None


# --- sub-agent logs ---------------------------------------------------------------------------


def sidechain_paths(session_path: str | Path) -> list[Path]:
    """Sub-agent logs of a session: `<session>/subagents/agent-*.jsonl`, or `agent-*.jsonl` beside it.

    Beside the session, agent files of every session in the project share one folder, so only those
    whose records name this session's id are listed. Each loads on its own with this reader.
    """
    path = Path(session_path)
    session = session_stem(path)
    found: list[Path] = []
    nested = path.parent / session / "subagents"
    if nested.is_dir():
        found.extend(sorted(p for p in nested.iterdir() if _is_agent_log(p)))
    pattern = re.compile(rb'"sessionId"\s*:\s*"' + re.escape(session.encode()) + rb'"')
    for candidate in sorted(path.parent.glob("agent-*.jsonl*")):
        if candidate == path or not _is_agent_log(candidate):
            continue
        try:
            head = read_head(candidate)
        except TraceReadError:
            continue
        if pattern.search(head):
            found.append(candidate)
    return found


def _is_agent_log(path: Path) -> bool:
    return path.is_file() and path.name.startswith("agent-") and path.name.endswith((".jsonl", ".jsonl.zst"))


__all__ = ["harness_slip", "question_labels", "questions_answered", "read", "read_resuming", "sidechain_paths", "sniff",
           "user_words_in_result"]
