"""Shared mapping from agent session logs onto the compaction-chain model.

Every session format reduces to one shape: an ordered timeline of raw turns (user, assistant, tool
call, tool result) with compaction points between them. Owning that shape here means each reader only
parses its own records, and every detector sees the same kinds, authorities and derived keys whichever
agent wrote the log. The pieces live beside it: `timeline` (what a reader appends), `derived_keys`
(files and commands named by tool calls), `json_lines` (streaming a JSONL log), `values` (reading
drifting fields).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from inspector.authorship import AUTHORS, spans_for
from inspector.mentions import Mentions
from inspector.model import (
    PASTED_ANALYSIS,
    TRANSCRIPT,
    Author,
    ChainEvent,
    Finding,
    Generation,
    KeyPrefix,
    Severity,
    SourceRecord,
    Trace,
    author_of,
)
from inspector.raw_records import RAW_RECORDS, Place, RecordIndex, Stamps
from inspector.readers.boilerplate import boilerplate_spans, transcript_pointer
from inspector.readers.conservation import RECORDS, RecordTally
from inspector.readers.derived_keys import DerivedKey, DerivedKeys
from inspector.readers.pasted_analysis import pasted_analysis_spans
from inspector.readers.timeline import Compaction, Event, Mention, Turn
from inspector.readers.values import as_str, brief, input_text
from inspector.tool_names import PATH_FIELDS, command_text

NATIVE_TAG = b"compaction-trace/1"


RESULT_MISSING = "tool-result-missing"
MAX_NAMED_CALLS = 3
"""How many result-less calls the notice names; it counts them all."""

TURN_CHARS = 100_000
"""How much of one prompt or reply the S0 rendering shows. Far more than anyone types or an agent
writes in a turn; past it the turn is a pasted dump, kept whole in its record but not analysed again
as S0 text (a 50 MB paste would cost seconds of sentence splitting for no finding)."""


class Transcript:
    """The timeline a reader fills in order; `build` turns it into a `Trace`.

    Keys stay unique within the transcript namespace (a repeated id gets a `#n` suffix), so the
    trace round-trips through the native format, whose loader rejects duplicates.
    """

    def __init__(self, path: Path, format_name: str, unit: str = "lines") -> None:
        self.path = path
        self.format_name = format_name
        self.records = RecordTally(unit)
        """Every record of the log and what became of it: the reader counts each one as it reads it."""
        self.timeline: list[Turn | Compaction | Mention | Event] = []
        self.notices: list[Finding] = []
        self.unknown_types: Counter[str] = Counter()
        self._keys: set[str] = set()
        self._calls: dict[str, Turn] = {}
        self._every_call: dict[str, list[Turn]] = {}
        """Every call by id, repeats included (a log may reuse an id): each result answers the next one."""
        self._results: dict[str, list[Turn]] = {}
        self._outcomes: dict[str, bool] = {}
        self._no_result: dict[str, str] = {}
        self.place: Place | None = None
        """Where the record being read is (a JSONL reader sets it to `JsonLines.offset` before adding the
        record's turns): each turn added remembers it, so its record can be shown as stored."""
        self._places: dict[str, Place] = {}

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
        if self.place is not None:
            self._places[item.key] = self.place
        return item

    def tool_call(self, key: str, tool: str, tool_input: Any, timestamp: str | None = None, **extra: Any) -> Turn:
        item = self.turn(key, "tool_call", "assistant", input_text(tool_input), timestamp, tool=tool, **extra)
        item.tool, item.tool_input, item.call_id = tool, tool_input, key
        self._calls.setdefault(key, item)
        self._every_call.setdefault(key, []).append(item)
        if key in self._outcomes:
            self._set_outcome(key, self._outcomes[key])
        return item

    def call_tool(self, call_id: str | None) -> str | None:
        """The tool a call (by id) ran, when the call is on the timeline."""
        call = self._calls.get(call_id) if call_id else None
        return call.tool if call is not None else None

    def call_input(self, call_id: str | None) -> Any:
        """The input a call (by id) was given, when the call is on the timeline."""
        call = self._calls.get(call_id) if call_id else None
        return call.tool_input if call is not None else None

    def tool_result(self, call_id: str | None, key: str, text: str, *, is_error: bool,
                    timestamp: str | None = None, ran: str | None = None, **extra: Any) -> Turn:  # fmt: skip
        """A call's result. `ran`: the shell command whose outcome it reports when that is not the call's own (a
        background command's end, reported by the call that read it)."""
        call = self._calls.get(call_id) if call_id else None
        kind = "tool_error" if is_error else "tool_result"
        command = ran or (command_text(call.tool_input.get("command", call.tool_input.get("cmd")))[0] if (
            call is not None and isinstance(call.tool_input, dict)) else None)  # fmt: skip
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

    def unanswered_calls(self) -> list[tuple[Turn, Turn | Compaction | None]]:
        """Tool calls no result or outcome answered, each with what came next on the timeline (a turn other than
        a call, a compaction, or None at the end): why a call has no result is in what followed it."""
        found: list[tuple[Turn, Turn | Compaction | None]] = []
        waiting: list[Turn] = []
        for item in self.timeline:
            if isinstance(item, Turn) and item.kind == "tool_call":
                key = item.call_id or ""
                if key not in self._results and key not in self._outcomes and self._calls.get(key) is item:
                    waiting.append(item)
            elif isinstance(item, Turn | Compaction) and waiting:
                found += [(call, item) for call in waiting]
                waiting = []
        return found + [(call, None) for call in waiting]

    def no_result(self, call_id: str, why: str) -> None:
        """Why a call has no result in the log, when the reader knows (still running, cancelled before it ran)."""
        self._no_result.setdefault(call_id, why)

    def mention(self, namespace: str, key: str, action: str, timestamp: str | None = None) -> None:
        if key.strip():
            self.timeline.append(Mention(namespace, key.strip(), action, as_str(timestamp)))

    def compaction(self, compaction: Compaction, before: int | None = None) -> None:
        """A compaction here, or `before` the timeline item at that index: when the log lists the kept tail
        first and the summary after it, the kept messages are not what the summary replaced."""
        self.timeline.insert(len(self.timeline) if before is None else before, compaction)

    def event(self, kind: str, description: str = "", timestamp: str | None = None) -> None:
        self.timeline.append(Event(kind, description, as_str(timestamp)))

    def notice(self, rule: str, severity: Severity, message: str, generation: int | None = None) -> None:
        self.notices.append(Finding(rule=rule, severity=severity, generation=generation, message=message))

    # -- building ---------------------------------------------------------------------------

    def build(self, trace_id: str, title: str | None = None, extra: dict[str, Any] | None = None,
              stamps: Stamps | None = None, member: str | None = None) -> Trace:  # fmt: skip
        """Freeze the timeline: sources, S0…Sn with cumulative covers, events and notices. `stamps` are the
        files the places point into as reading began (`JsonLines.stamps`; empty when each place carries its
        own): with them, where each turn's record is is kept for display (JSON pointers point into the
        zip `member`, or into the file)."""
        order: list[Turn | DerivedKey] = []
        seen: dict[str, None] = {}
        derived = DerivedKeys(order, seen)
        snapshots: list[int] = []
        compactions: list[Compaction] = []
        events: list[ChainEvent] = []
        rendering: list[str] = []
        authors: list[list[Any]] = []
        rendered = 0
        turns: list[Turn] = []
        last_answer = -1  # the last turn that is not a call: a call after it is one the log ends before

        for position, item in enumerate(self.timeline):
            if isinstance(item, Turn):
                if item.kind != "tool_call":
                    last_answer = position
                order.append(item)
                seen.setdefault(item.key)
                if not compactions:
                    line = _render(item)
                    authors.extend(_others(item, line, rendered))
                    rendering.append(line)
                    rendered += len(line) + 1
                if item.kind == "tool_call":
                    derived.from_call(item)
                turns.append(item)  # keys its text prints are found on demand (inspector.mentions)
            elif isinstance(item, Mention):
                derived.add(item.namespace, item.key, item.action, item.timestamp, None)
            elif isinstance(item, Compaction):
                compactions.append(item)
                snapshots.append(len(seen))
            else:
                events.append(ChainEvent(item.kind, len(compactions), item.description, item.timestamp))

        covers = KeyPrefix(tuple(seen), len(seen))
        sources = tuple(_turn_source(e, self._calls) if isinstance(e, Turn) else e.source_record() for e in order)
        first_time = next((t.timestamp for t in self.timeline if isinstance(t, Turn) and t.timestamp), None)
        s0_covers = covers.prefix(snapshots[0]) if snapshots else covers
        generations = [Generation(0, "raw", "\n".join(rendering), covers=s0_covers, timestamp=first_time,
                                  extra={AUTHORS: authors} if authors else {})]  # fmt: skip
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
        self._missing_results(last_answer)
        trace_extra = dict(extra or {})
        trace_extra["unknown_types"] = dict(self.unknown_types)
        if self.records.active:  # a reader that counts its records
            trace_extra[RECORDS] = self.records.as_extra()
            set_aside = self.records.notice(self.path)
            if set_aside is not None:
                self.notices.append(set_aside)
        if self._places and stamps is not None:
            trace_extra[RAW_RECORDS] = RecordIndex(str(self.path), stamps, self._places, member)
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


    def _missing_results(self, last_answer: int) -> None:
        """One notice naming the tool calls the log holds no result for, and why, when the reader knows."""
        missing = [(call_id, call) for call_id, calls in self._every_call.items()
                   for call in calls[len(self._results.get(call_id, ())) :]]  # fmt: skip
        if not missing:
            return
        ends = {id(item) for item in self.timeline[last_answer + 1 :]}
        named = []
        for call_id, call in missing[:MAX_NAMED_CALLS]:
            why = self._no_result.get(call_id) or (
                "the log ends before its result" if id(call) in ends
                else "its outcome is recorded, its output is not" if call.ok is not None
                else "no result recorded")  # fmt: skip
            named.append(f"{call.key} ({call.tool or 'tool'}): {why}")
        more = f"; … and {len(missing) - MAX_NAMED_CALLS} more" if len(missing) > MAX_NAMED_CALLS else ""
        calls = "tool call has" if len(missing) == 1 else "tool calls have"
        self.notice(RESULT_MISSING, Severity.INFO, f"{len(missing)} {calls} no result in the log: "
                    f"{'; '.join(named)}{more}")  # fmt: skip


def _turn_source(turn: Turn, calls: dict[str, Turn]) -> SourceRecord:
    text = turn.text
    call = calls.get(turn.call_id or "") if turn.kind == "tool_error" else None
    if call is not None:
        # The failure invariant is the record's first line: make it say what failed, not the
        # first line of a compiler banner.
        text = f"{call.tool or 'tool'} failed: {brief(_shown_input(call) or call.text, 200)}\n{text}"
    return SourceRecord(key=turn.key, text=text, namespace=TRANSCRIPT, kind=turn.kind,
                        timestamp=turn.timestamp, authority=turn.authority, extra=turn.extra)  # fmt: skip


def _boilerplate(text: str, format_name: str) -> dict[str, Any]:
    """The harness's fixed text in a summary, and what it pasted into it, as the generation's extra keeps them
    (lists: JSON round-trips)."""
    found: dict[str, Any] = {}
    spans = boilerplate_spans(text, format_name)
    if spans:
        found["boilerplate"] = [[start, end] for start, end in spans]
    pointer = transcript_pointer(text)
    if pointer:
        found["transcript_pointer"] = pointer
    pasted = pasted_analysis_spans(text, format_name)
    if pasted:
        found[PASTED_ANALYSIS] = [[start, end] for start, end in pasted]
    return found


def _compact(extra: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in extra.items() if v is not None and v != {} and v != []}


def _others(turn: Turn, line: str, offset: int) -> Iterator[list[Any]]:
    """The stretches of one rendered S0 line written by someone other than the user or the agent."""
    head = len(turn.kind) + 2  # "user: ", "tool_result: " …
    if turn.kind in ("tool_result", "tool_error"):
        yield [offset + head, offset + len(line), Author.TOOL.value]
        return
    if turn.kind != "user":
        return
    shown = head + min(len(turn.text), TURN_CHARS)  # a long turn is cut in S0
    for span in spans_for(turn.text, author_of(turn.authority)):
        start, end = head + span.start, min(head + span.end, shown)
        if span.author is not Author.USER and start < end:
            yield [offset + start, offset + end, span.author.value]


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
    return shown or next((data[f] for f in PATH_FIELDS if isinstance(data.get(f), str)), None)


__all__ = ["NATIVE_TAG", "RESULT_MISSING", "Transcript"]
