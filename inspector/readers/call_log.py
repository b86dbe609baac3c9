"""A JSONL log of API calls, one `{"request": …, "response": …}` per line (or a bare response per line).

The Anthropic Messages and OpenAI Responses readers read the same outer shape and differ only in what a
request and a response look like and what a message is; the walk over the calls, the counts and the
history re-sent with each request are kept here once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from inspector.model import Trace
from inspector.readers.conservation import COMPACTION, DUPLICATE, EMPTY, EVENT, TURN, UNKNOWN, Fate
from inspector.readers.field_decoder import FieldDecoder, Shape
from inspector.readers.json_lines import JsonLines, head_records
from inspector.readers.resent_history import ResentHistory
from inspector.readers.timeline import Compaction, Turn
from inspector.readers.transcript import NATIVE_TAG, Transcript
from inspector.readers.values import as_str, session_stem

Recogniser = Callable[[Any], "dict[str, Any] | None"]
"""A request or response recogniser: the value when it has the API's shape, else None."""


def sniff_calls(head: bytes, request_of: Recogniser, response_of: Recogniser,
                asks: Callable[[dict[str, Any]], bool]) -> bool:  # fmt: skip
    """A head whose lines hold this API's responses, or requests that `asks` recognises (context management)."""
    if NATIVE_TAG in head:
        return False
    for record in head_records(head)[:16]:
        if response_of(record) or response_of(record.get("response")):
            return True
        request = request_of(record.get("request"))
        if request is not None and asks(request):
            return True
    return False


def call_fields(request: Shape, response: Shape, name: str) -> FieldDecoder:
    """A line read for what the reader reads of a request and a response (system prompts, tool schemas and
    settings re-sent with every call are skipped unbuilt); a bare response is a line of its own."""
    return FieldDecoder({"request": request, "response": response, **response}, name)


class CallLog:
    """The walk over a call log: each call as (line, request, response), with the model named and counted."""

    def __init__(self, path: Path, name: str, uncompared: frozenset[str], request_of: Recogniser,
                 response_of: Recogniser, fields: FieldDecoder) -> None:  # fmt: skip
        """`fields` decodes a line into what `request_of`, `response_of` and the reader read of it."""
        self.path = path
        self.lines = JsonLines(path, fields.decode)
        self.transcript = Transcript(path, name)
        self.history = ResentHistory(uncompared)
        self.model: str | None = None
        self.calls = 0
        self._request_of, self._response_of = request_of, response_of

    def each_call(self) -> Iterator[tuple[int, dict[str, Any] | None, dict[str, Any] | None]]:
        """(line, request, response) of every call; a line holding neither is counted as an unknown type.

        Each line is one record: a compaction if reading it made one, turns if it added any, else a duplicate
        (a request that only re-sends what was read before)."""
        records, timeline = self.transcript.records, self.transcript.timeline
        for line, record in self.lines:
            request = self._request_of(record.get("request"))
            response = self._response_of(record) or self._response_of(record.get("response"))
            if request is None and response is None:
                self.transcript.unknown_types["(no request or response)"] += 1
                records.count(UNKNOWN, "(no request or response)")
                continue
            self.calls += 1
            if request is not None:
                self.model = as_str(request.get("model")) or self.model
            self.transcript.place = self.lines.offset  # the call's turns are made as it is walked
            before = len(timeline)
            yield line, request, response
            records.count(_fate(timeline[before:], response))
        records.lines(self.lines)

    def finish(self, **extra: Any) -> Trace:
        """The trace, with the log's counts and any reader-specific ones in `extra`."""
        self.transcript.notices[:0] = self.lines.notices
        counts: dict[str, Any] = {"lines": self.lines.lines, "malformed_lines": self.lines.malformed,
                                  "calls": self.calls, "history_rewrites": self.history.rewrites, **extra}  # fmt: skip
        if self.model:
            counts["model"] = self.model
        return self.transcript.build(session_stem(self.path), None, counts, self.lines.stamps)


def _fate(made: list[Any], response: dict[str, Any] | None) -> Fate:
    """What one call line became: a compaction, turns, an event; or nothing new (a request re-sending only what
    was read, or a response with nothing to read in it)."""
    if any(isinstance(item, Compaction) for item in made):
        return COMPACTION
    if any(isinstance(item, Turn) for item in made):
        return TURN
    if made:
        return EVENT
    return EMPTY if response is not None else DUPLICATE


__all__ = ["CallLog", "Recogniser", "call_fields", "sniff_calls"]
