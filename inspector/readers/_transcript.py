"""Shared mapping from agent session logs (Claude Code, Codex) onto the compaction-chain model.

Both formats reduce to one shape: an ordered timeline of raw turns (user, assistant, tool call, tool
result) with compaction points between them. Owning that shape here means the two readers only parse
their own records, and every detector sees the same kinds, authorities and derived keys whichever
agent wrote the log.
"""

from __future__ import annotations

import re
import shlex
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import orjson

from inspector.errors import TraceReadError
from inspector.mentions import Mentions
from inspector.model import ChainEvent, Finding, Generation, KeyPrefix, Severity, SourceRecord, Trace
from inspector.readers._io import bounded_lines, open_binary, read_limits
from inspector.readers.boilerplate import boilerplate_spans, transcript_pointer
from inspector.text import clip

NATIVE_TAG = b"compaction-trace/1"
TRANSCRIPT = "transcript"
BRIEF_CHARS = 500
"""How much of a tool result or input the S0 rendering shows: enough to recognise it, not to drown in it."""
TURN_CHARS = 100_000
"""How much of one prompt or reply the S0 rendering shows. Far more than anyone types or an agent
writes in a turn; past it the turn is a pasted dump, kept whole in its record but not analysed again
as S0 text (a 50 MB paste would cost seconds of sentence splitting for no finding)."""
MAX_LINE_NOTICES = 20
"""A garbage file must not turn into a million notices; the rest are counted in one."""

_EDIT_TOOLS = {"write", "edit", "multiedit", "notebookedit", "apply_patch", "str_replace_based_edit_tool",
               "str_replace_editor", "create_file", "edit_file", "write_file"}  # fmt: skip
_PATH_FIELDS = ("file_path", "notebook_path", "path", "filename")
_PATCH_HEADER = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$", re.MULTILINE)
_SHELLS = {"bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh", "/usr/bin/bash", "powershell", "pwsh"}
_ACTION = re.compile(
    r"\bgit\s+(?:-C\s+\S+\s+)?(?:commit|push|merge|tag|cherry-pick|rebase|revert)\b"
    r"|\bgh\s+(?:pr\s+(?:merge|create)|release\s+create)\b"
    r"|\b(?:deploy|kubectl\s+apply|terraform\s+apply|helm\s+(?:install|upgrade)|npm\s+publish|cargo\s+publish"
    r"|twine\s+upload|docker\s+push|fly\s+deploy|vercel\s+(?:deploy|--prod))\b"
)


def is_edit_tool(name: str | None) -> bool:
    """Does a tool of this name write files? One test for the readers (its paths are edited files) and the
    analyses (its calls are edits): Edit, Write, MultiEdit, apply_patch, an MCP `edit_file`, not TodoWrite."""
    lowered = (name or "").lower()
    return lowered in _EDIT_TOOLS or "edit" in lowered or ("write" in lowered and "todo" not in lowered)


# --- streaming JSON lines --------------------------------------------------------------------


class JsonLines:
    """Stream a JSONL log as (line number, object); bad lines become notices, never exceptions.

    Memory stays one line deep. A torn last line (no newline, invalid JSON) is what a session still
    being written looks like, so it gets its own milder notice. A file with no record at all raises.
    """

    def __init__(self, path: Path, fast: Callable[[bytes | bytearray], Any] | None = None) -> None:
        """`fast` decodes a line straight into the reader's own type, or returns None to have it read here
        as a dict (and reported if it is not an object): typed readers skip what they never read."""
        self.path = path
        self.fast = fast
        self.notices: list[Finding] = []
        self.records = 0
        self.malformed = 0
        self.lines = 0

    def __iter__(self) -> Iterator[tuple[int, Any]]:
        """(line number, record): a dict, or what `fast` made of the line."""
        number = 0
        limits = read_limits()
        fast = self.fast
        with open_binary(self.path, limits) as stream:
            try:
                for number, raw in bounded_lines(stream, self.path, limits.max_line_bytes):  # noqa: B007
                    if fast is not None and (typed := fast(raw)) is not None:
                        self.records += 1
                        yield number, typed
                        continue
                    try:
                        data = orjson.loads(raw)  # surrounding whitespace is fine; no copy to strip it
                    except orjson.JSONDecodeError as exc:
                        line = raw.strip()
                        if number == 1 and line.startswith(b"\xef\xbb\xbf"):
                            line = line[3:].lstrip()
                        if not line:
                            continue
                        try:
                            data = orjson.loads(line)
                        except orjson.JSONDecodeError:
                            self._bad(number, f"invalid JSON ({exc.msg})", torn=not raw.endswith(b"\n"))
                            continue
                    if type(data) is not dict:
                        self._bad(number, f"a JSON {type(data).__name__}, not an object", torn=False)
                        continue
                    self.records += 1
                    yield number, data
            except TraceReadError:
                raise
            except Exception as exc:  # corrupt zstd frames, I/O errors
                raise TraceReadError(str(self.path), f"cannot read: {exc}", number + 1) from None
        self.lines = number
        if self.malformed > MAX_LINE_NOTICES:
            hidden = self.malformed - MAX_LINE_NOTICES
            self._notice("malformed-line", f"{self.path}: {hidden} more malformed lines not listed")
        if self.records == 0:
            if self.malformed == 0:
                raise TraceReadError(str(self.path), "empty file")
            first = self.notices[0].message.split(": ", 1)[-1] if self.notices else "unreadable"
            raise TraceReadError(str(self.path), f"no JSON record in {self.malformed} non-empty lines ({first})")

    def _bad(self, number: int, why: str, *, torn: bool) -> None:
        if torn:
            self._notice("torn-last-line", f"{self.path}:{number}: last line is incomplete ({why}); ignored")
            return
        self.malformed += 1
        if self.malformed <= MAX_LINE_NOTICES:
            self._notice("malformed-line", f"{self.path}:{number}: {why}; line skipped")

    def _notice(self, rule: str, message: str) -> None:
        self.notices.append(Finding(rule=rule, severity=Severity.WARNING, generation=None, message=message))


def head_records(head: bytes, limit: int = 64) -> list[dict[str, Any]]:
    """The complete JSON objects among the first lines of a sniffing head (the last line may be cut)."""
    found: list[dict[str, Any]] = []
    for piece in head.split(b"\n")[:limit]:
        piece = piece.strip()
        if not piece.startswith(b"{"):
            continue
        try:
            data = orjson.loads(piece)
        except orjson.JSONDecodeError:
            continue
        if isinstance(data, dict):
            found.append(data)
    return found


# --- the timeline a reader fills ---------------------------------------------------------------


@dataclass(slots=True)
class Turn:
    """One raw transcript record on the surviving chain; mutable until `build` freezes it."""

    key: str
    kind: str
    """user, assistant, tool_call, tool_result or tool_error."""
    authority: str
    text: str
    timestamp: str | None = None
    tool: str | None = None
    tool_input: Any = None
    call_id: str | None = None
    ok: bool | None = None
    """For a tool call: did it succeed (None while no result says)."""
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class Compaction:
    """A compaction point: the summary that became the next generation, or why it is missing."""

    text: str | None
    line: int | None = None
    trigger: str | None = None
    tokens_before: int | None = None
    tokens_after: int | None = None
    timestamp: str | None = None
    unavailable: str | None = None
    """Why `text` is None, shown in the summary-unavailable notice."""
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class _Mention:
    """A file or other key the log names outside any turn (an attachment, a patch event)."""

    namespace: str
    key: str
    action: str
    timestamp: str | None


@dataclass(slots=True)
class _Event:
    kind: str
    description: str
    timestamp: str | None


@dataclass(slots=True)
class _Derived:
    namespace: str
    key: str
    timestamp: str | None
    first_seen: str | None
    actions: list[str] = field(default_factory=list)
    outcomes: list[str] = field(default_factory=list)
    command: str | None = None
    action_command: bool = False


class Transcript:
    """The timeline a reader fills in order; `build` turns it into a `Trace`.

    Keys stay unique within the transcript namespace (a repeated id gets a `#n` suffix), so the
    trace round-trips through the native format, whose loader rejects duplicates.
    """

    def __init__(self, path: Path, format_name: str) -> None:
        self.path = path
        self.format_name = format_name
        self.timeline: list[Turn | Compaction | _Mention | _Event] = []
        self.notices: list[Finding] = []
        self.unknown_types: Counter[str] = Counter()
        self._keys: set[str] = set()
        self._calls: dict[str, Turn] = {}
        self._results: dict[str, list[Turn]] = {}
        self._outcomes: dict[str, bool] = {}

    # -- filling ----------------------------------------------------------------------------

    def unique_key(self, key: str) -> str:
        if key not in self._keys:
            self._keys.add(key)
            return key
        n = 2
        while f"{key}#{n}" in self._keys:
            n += 1
        self._keys.add(f"{key}#{n}")
        return f"{key}#{n}"

    def turn(self, key: str, kind: str, authority: str, text: str, timestamp: str | None = None,
             **extra: Any) -> Turn:  # fmt: skip
        item = Turn(self.unique_key(key), kind, authority, text, as_str(timestamp), extra=_compact(extra))
        self.timeline.append(item)
        return item

    def tool_call(self, key: str, tool: str, tool_input: Any, timestamp: str | None = None, **extra: Any) -> Turn:
        item = self.turn(key, "tool_call", "assistant", input_text(tool_input), timestamp, tool=tool, **extra)
        item.tool, item.tool_input, item.call_id = tool, tool_input, key
        self._calls.setdefault(key, item)
        if key in self._outcomes:
            self._set_outcome(key, self._outcomes[key])
        return item

    def tool_result(self, call_id: str | None, key: str, text: str, *, is_error: bool,
                    timestamp: str | None = None, **extra: Any) -> Turn:  # fmt: skip
        call = self._calls.get(call_id) if call_id else None
        kind = "tool_error" if is_error else "tool_result"
        command = command_text(call.tool_input.get("command", call.tool_input.get("cmd")))[0] if (
            call is not None and isinstance(call.tool_input, dict)) else None  # fmt: skip
        item = self.turn(key, kind, "tool", text, timestamp, call_id=call_id,
                         tool=call.tool if call else None, command=command, **extra)  # fmt: skip
        item.call_id = call_id
        if call_id:
            self._results.setdefault(call_id, []).append(item)
            self._set_outcome(call_id, self._outcomes.get(call_id, not is_error) and not is_error)
        return item

    def outcome(self, call_id: str, ok: bool) -> None:
        """A side record (exit code event, patch result) says how a call ended."""
        self._outcomes[call_id] = self._outcomes.get(call_id, True) and ok
        self._set_outcome(call_id, self._outcomes[call_id])

    def _set_outcome(self, call_id: str, ok: bool) -> None:
        self._outcomes[call_id] = ok
        call = self._calls.get(call_id)
        if call is not None:
            call.ok = ok
        if not ok:
            for result in self._results.get(call_id, ()):
                result.kind = "tool_error"

    def mention(self, namespace: str, key: str, action: str, timestamp: str | None = None) -> None:
        if key.strip():
            self.timeline.append(_Mention(namespace, key.strip(), action, as_str(timestamp)))

    def compaction(self, compaction: Compaction) -> None:
        self.timeline.append(compaction)

    def event(self, kind: str, description: str = "", timestamp: str | None = None) -> None:
        self.timeline.append(_Event(kind, description, as_str(timestamp)))

    def notice(self, rule: str, severity: Severity, message: str, generation: int | None = None) -> None:
        self.notices.append(Finding(rule=rule, severity=severity, generation=generation, message=message))

    # -- building ---------------------------------------------------------------------------

    def build(self, trace_id: str, title: str | None = None, extra: dict[str, Any] | None = None) -> Trace:
        """Freeze the timeline: sources, S0…Sn with cumulative covers, events and notices."""
        derived: dict[tuple[str, str], _Derived] = {}
        order: list[Turn | _Derived] = []
        seen: dict[str, None] = {}
        snapshots: list[int] = []
        compactions: list[Compaction] = []
        events: list[ChainEvent] = []
        rendering: list[str] = []
        turns: list[Turn] = []

        def derive(namespace: str, key: str, action: str, timestamp: str | None, source: str | None) -> _Derived:
            entry = derived.get((namespace, key))
            if entry is None:
                entry = derived[(namespace, key)] = _Derived(namespace, key, timestamp, source)
                order.append(entry)
                seen.setdefault(key)
            if action not in entry.actions:
                entry.actions.append(action)
            return entry

        for item in self.timeline:
            if isinstance(item, Turn):
                order.append(item)
                seen.setdefault(item.key)
                if not compactions:
                    rendering.append(_render(item))
                if item.kind == "tool_call":
                    self._derive_from_call(item, derive)
                turns.append(item)  # keys its text prints are found on demand (inspector.mentions)
            elif isinstance(item, _Mention):
                derive(item.namespace, item.key, item.action, item.timestamp, None)
            elif isinstance(item, Compaction):
                compactions.append(item)
                snapshots.append(len(seen))
            else:
                events.append(ChainEvent(item.kind, len(compactions), item.description, item.timestamp))

        covers = KeyPrefix(tuple(seen), len(seen))
        sources = tuple(_source(entry, self._calls) for entry in order)
        first_time = next((t.timestamp for t in self.timeline if isinstance(t, Turn) and t.timestamp), None)
        s0_covers = covers.prefix(snapshots[0]) if snapshots else covers
        generations = [Generation(0, "raw", "\n".join(rendering), covers=s0_covers, timestamp=first_time)]
        for index, (compaction, snapshot) in enumerate(zip(compactions, snapshots, strict=True), start=1):
            gen_extra = dict(compaction.extra)
            if compaction.line is not None:
                gen_extra["line"] = compaction.line
            if compaction.text is None:
                reason = compaction.unavailable or "the log holds no summary text for this compaction"
                gen_extra["unavailable_reason"] = reason
                self.notice("summary-unavailable", Severity.INFO, f"S{index}: {reason}", index)
            else:
                gen_extra.update(_boilerplate(compaction.text, self.format_name))
            generation = Generation(index, "summary", compaction.text, parent=index - 1, covers=covers.prefix(snapshot))
            generations.append(
                replace(
                    generation,
                    tokens_before=compaction.tokens_before,
                    tokens_after=compaction.tokens_after,
                    trigger=compaction.trigger,
                    timestamp=compaction.timestamp,
                    extra=gen_extra,
                )
            )
        trace_extra = dict(extra or {})
        trace_extra["unknown_types"] = dict(self.unknown_types)
        return Trace(
            id=trace_id,
            format=self.format_name,
            sources=sources,
            generations=tuple(generations),
            invariants=None,
            events=tuple(events),
            title=title,
            path=str(self.path),
            notices=tuple(self.notices),
            extra=trace_extra,
            mentions=Mentions([t.text for t in turns], [t.timestamp for t in turns], [t.key for t in turns]),
        )

    @staticmethod
    def _derive_from_call(call: Turn, derive: Any) -> None:
        """Files a tool read or edited and commands it ran, as keys a summary can print."""
        name = (call.tool or "").lower()
        data = call.tool_input
        editing = is_edit_tool(name)
        command: str | None = None
        patch: str | None = None
        if isinstance(data, dict):
            for name_field in _PATH_FIELDS:
                value = data.get(name_field)
                if isinstance(value, str) and value.strip() and "\n" not in value:
                    derive("file", value.strip(), "edit" if editing else "read", call.timestamp, call.key)
            command, patch = command_text(data.get("command", data.get("cmd")))
            for name_field in ("patch", "input"):
                value = data.get(name_field)
                if patch is None and isinstance(value, str) and "*** Begin Patch" in value:
                    patch = value
        elif isinstance(data, str) and "*** Begin Patch" in data:
            patch = data
        if command:
            entry = derive("command", _command_key(command), "run", call.timestamp, call.key)
            entry.command = entry.command or command
            entry.outcomes.append({True: "succeeded", False: "failed", None: "no result"}[call.ok])
            entry.action_command = entry.action_command or bool(_ACTION.search(command))
            if "*** Begin Patch" in command:
                patch = command
        if patch:
            for match in _PATCH_HEADER.finditer(patch):
                verb, path, moved = match.groups()
                target = (path or moved).strip()
                derive("file", target, "delete" if verb == "Delete" else "edit", call.timestamp, call.key)


def _source(entry: Turn | _Derived, calls: dict[str, Turn]) -> SourceRecord:
    if isinstance(entry, Turn):
        text = entry.text
        call = calls.get(entry.call_id or "") if entry.kind == "tool_error" else None
        if call is not None:
            # The failure invariant is the record's first line: make it say what failed, not the
            # first line of a compiler banner.
            text = f"{call.tool or 'tool'} failed: {brief(_shown_input(call) or call.text, 200)}\n{text}"
        return SourceRecord(key=entry.key, text=text, namespace=TRANSCRIPT, kind=entry.kind,
                            timestamp=entry.timestamp, authority=entry.authority, extra=entry.extra)  # fmt: skip
    extra: dict[str, Any] = {"actions": list(entry.actions)}
    if entry.first_seen:
        extra["first_seen"] = entry.first_seen
    if entry.namespace == "command":
        outcomes = list(dict.fromkeys(entry.outcomes))
        done = entry.action_command and "succeeded" in outcomes
        command = entry.command or entry.key
        text = f"{clip(command, 2000)} ({', then '.join(outcomes) or 'no result'})"
        return SourceRecord(key=entry.key, text=text, namespace="command",
                            kind="completed-action" if done else "command", timestamp=entry.timestamp,
                            authority="tool", extra={**extra, "outcomes": outcomes})  # fmt: skip
    acted = [a for a in entry.actions if a != "mentioned"] or entry.actions
    text = "; ".join(f"{action} {entry.key}" for action in acted)
    kind = "file" if entry.namespace == "file" else entry.namespace
    return SourceRecord(key=entry.key, text=text, namespace=entry.namespace, kind=kind,
                        timestamp=entry.timestamp, authority="tool", extra=extra)  # fmt: skip


# --- small helpers the readers share ----------------------------------------------------------


def command_text(value: Any) -> tuple[str | None, str | None]:
    """(command line, patch text) from a `command` field: a string, or an argv list (`bash -lc …`)."""
    if isinstance(value, str):
        return (value.strip() or None), None
    if isinstance(value, list) and value and all(isinstance(part, str) for part in value):
        if value[0] == "apply_patch" and len(value) > 1:
            return None, value[1]
        if len(value) >= 3 and value[0] in _SHELLS and value[1] in ("-c", "-lc", "-Command", "-l"):
            return value[2].strip() or None, None
        return shlex.join(value), None
    return None, None


def input_text(value: Any) -> str:
    """Tool input as text: string fields raw (so paths and commands stay greppable), the rest as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "\n".join(f"{k}: {v if isinstance(v, str) else _dumps(v)}" for k, v in value.items())
    return _dumps(value)


def blocks_text(content: Any, text_types: Iterable[str] = ("text", "input_text", "output_text")) -> str:
    """Readable text of a message content: a string, or a list of typed blocks (images as markers)."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return ""
    wanted = set(text_types)
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict):
            kind = type_of(block)
            if kind in wanted and isinstance(block.get("text"), str):
                parts.append(block["text"])
            elif kind in ("image", "input_image", "image_url"):
                parts.append("[image]")
    return "\n".join(p for p in parts if p)


def session_stem(path: Path) -> str:
    """A log's name without `.jsonl` / `.jsonl.zst`: Claude Code and Codex name files by session."""
    name = path.name
    for suffix in (".zst", ".jsonl"):
        name = name.removesuffix(suffix)
    return name


def brief(text: str, limit: int = BRIEF_CHARS) -> str:
    """A glimpse of a long text: whitespace collapsed, at most `limit` characters, cut between words.

    Cutting inside a word would print half a path or ticket in S0 (`/srv/app/ap…`): an anchor no
    record has, reported unresolved in the raw context, where nothing was lost.
    """
    if len(text) <= limit:
        return text
    # Collapsing only a head twice the limit gives the same first `limit` characters whenever that
    # head still collapses to more than `limit` (a cut last word is a prefix of the real one), and
    # spares splitting a whole file's contents for a glimpse of it.
    head = " ".join(text[: 2 * limit].split())
    if len(head) <= limit:
        head = " ".join(text.split())
        if len(head) <= limit:
            return head
    cut = head[: limit - 1]
    if head[limit - 1] != " " and " " in cut:
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip() + "…"


def type_of(data: Any) -> str | None:
    """The `type` of a record or block when it is a string; drifted logs put anything there."""
    kind = data.get("type") if isinstance(data, dict) else None
    return kind if isinstance(kind, str) else None


def as_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def as_str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _dumps(value: Any) -> str:
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return str(value)


def _boilerplate(text: str, format_name: str) -> dict[str, Any]:
    """The harness's fixed text in a summary, as the generation's extra keeps it (lists: JSON round-trips)."""
    found: dict[str, Any] = {}
    spans = boilerplate_spans(text, format_name)
    if spans:
        found["boilerplate"] = [[start, end] for start, end in spans]
    pointer = transcript_pointer(text)
    if pointer:
        found["transcript_pointer"] = pointer
    return found


def _compact(extra: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in extra.items() if v is not None and v != {} and v != []}


def _command_key(command: str) -> str:
    return clip(" ".join(command.split()), 200)


def _render(turn: Turn) -> str:
    """One line of the readable S0: who said what, tool output abbreviated."""
    if turn.kind == "tool_call":
        return f"tool_call {turn.tool or '?'}: {brief(_shown_input(turn) or turn.text)}"
    if turn.kind in ("tool_result", "tool_error"):
        return f"{turn.kind}: {brief(turn.text)}"
    text = turn.text
    if len(text) > TURN_CHARS:
        text = f"{text[:TURN_CHARS]} … [{len(text) - TURN_CHARS:,} more characters not shown]"
    return f"{turn.kind}: {text}"


def _shown_input(call: Turn) -> str | None:
    """The part of a tool input a reader recognises a call by: its command, else its file."""
    data = call.tool_input
    if not isinstance(data, dict):
        return None
    shown = command_text(data.get("command", data.get("cmd")))[0]
    return shown or next((data[f] for f in _PATH_FIELDS if isinstance(data.get(f), str)), None)
