"""Reader and writer for our own format, `compaction-trace/1` (JSON, or JSONL for streaming).

The format is documented in docs/trace-format.md and validated by the JSON Schema shipped beside
this package, so a malformed file is reported as `file[:line]: what is wrong`, never a traceback.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import orjson

from inspector.bounded_io import iter_lines, read_all
from inspector.errors import TraceReadError
from inspector.model import TRANSCRIPT, ChainEvent, Generation, Invariant, InvariantKind, SourceRecord, Trace
from inspector.readers.conservation import EVENT, RECORDS, RecordTally

FORMAT_TAG = "compaction-trace/1"
NAME = "native"

_SOURCE_FIELDS = ("key", "text", "namespace", "kind", "timestamp", "supersedes", "authority", "volatility")
_GENERATION_FIELDS = (
    "index", "kind", "text", "parent", "covers", "tokens_before", "tokens_after", "trigger",
    "manifest", "refreshed", "timestamp",
)  # fmt: skip


@cache
def schema() -> dict[str, Any]:
    """The shipped JSON Schema for `compaction-trace/1`."""
    text = resources.files("inspector.schema").joinpath("compaction-trace-1.schema.json").read_text()
    return json.loads(text)


@cache
def _validator(definition: str | None = None) -> Any:
    """A compiled validator; jsonschema is imported on first use, not by every command that loads readers."""
    from jsonschema import Draft202012Validator

    root = schema()
    if definition is None:
        return Draft202012Validator(root)
    return Draft202012Validator({"$ref": f"#/$defs/{definition}", "$defs": root["$defs"]})


def _validate(document: Any, definition: str | None, path: Path, line: int | None) -> None:
    from jsonschema.exceptions import best_match

    error = best_match(_validator(definition).iter_errors(document))
    if error is None:
        return
    where = "/".join(str(part) for part in error.absolute_path)
    message = error.message if len(error.message) <= 160 else error.message[:157] + "..."
    raise TraceReadError(str(path), f"{where + ': ' if where else ''}{message}", line)


def sniff(head: bytes) -> bool:
    start = head.lstrip()[:1]
    return start == b"{" and FORMAT_TAG.encode() in head[:4096]


# --- reading -------------------------------------------------------------------------------


def _invariant(data: dict[str, Any]) -> Invariant:
    return Invariant(
        id=data["id"], kind=InvariantKind(data["kind"]), text=data["text"], source_key=data.get("source")
    )


def _source(data: dict[str, Any]) -> SourceRecord:
    return SourceRecord(
        key=data["key"],
        text=data["text"],
        namespace=data.get("namespace") or "default",
        kind=data.get("kind") or "note",
        timestamp=data.get("timestamp"),
        supersedes=data.get("supersedes"),
        authority=data.get("authority"),
        volatility=data.get("volatility"),
        extra={k: v for k, v in data.items() if k not in _SOURCE_FIELDS and k != "record"},
    )


def _generation(data: dict[str, Any], inherited_covers: tuple[str, ...]) -> Generation:
    index = data["index"]
    manifest = data.get("manifest")
    covers = data.get("covers")
    return Generation(
        index=index,
        kind=data["kind"],
        text=data.get("text"),
        parent=data.get("parent", index - 1 if index > 0 else None),
        covers=tuple(covers) if covers is not None else inherited_covers,
        tokens_before=data.get("tokens_before"),
        tokens_after=data.get("tokens_after"),
        trigger=data.get("trigger"),
        manifest=tuple(_invariant(m) for m in manifest) if manifest is not None else None,
        refreshed=bool(data.get("refreshed", False)),
        timestamp=data.get("timestamp"),
        extra={k: v for k, v in data.items() if k not in _GENERATION_FIELDS and k != "record"},
    )


def _event(data: dict[str, Any]) -> ChainEvent:
    return ChainEvent(
        kind=data["kind"],
        after_generation=data["after_generation"],
        description=data.get("description", ""),
        timestamp=data.get("timestamp"),
    )


def _build(
    path: Path,
    header: dict[str, Any],
    sources: list[SourceRecord],
    raw_generations: list[dict[str, Any]],
    invariants: list[Invariant] | None,
    events: list[ChainEvent],
) -> Trace:
    """Apply defaults and the rules a schema cannot state (ordering, references, uniqueness)."""
    where = str(path)
    seen: set[tuple[str, str]] = set()
    for record in sources:
        if (record.namespace, record.key) in seen:
            raise TraceReadError(where, f"duplicate source key {record.key!r} in namespace {record.namespace!r}")
        seen.add((record.namespace, record.key))
    keys = {record.key for record in sources}
    for record in sources:
        if record.supersedes is not None and record.supersedes not in keys:
            raise TraceReadError(where, f"source {record.key!r} supersedes unknown key {record.supersedes!r}")

    generations: list[Generation] = []
    covers: tuple[str, ...] = tuple(dict.fromkeys(r.key for r in sources))
    for position, data in enumerate(sorted(raw_generations, key=lambda g: g["index"])):
        if data["index"] != position:
            raise TraceReadError(where, f"generations must be numbered 0..n without gaps; missing S{position}")
        expected = "raw" if position == 0 else "summary"
        if data["kind"] != expected:
            raise TraceReadError(where, f"S{position} must have kind {expected!r}, not {data['kind']!r}")
        generation = _generation(data, covers)
        if generation.parent is not None and generation.parent >= position:
            raise TraceReadError(where, f"S{position} names parent S{generation.parent}, which is not earlier")
        unknown = [key for key in generation.covers if key not in keys]
        if unknown:
            raise TraceReadError(where, f"S{position} covers unknown source key {unknown[0]!r}")
        covers = generation.covers
        generations.append(generation)
    if not generations:
        raise TraceReadError(where, "no generations: a trace needs at least S0")
    for event in events:
        if event.after_generation >= len(generations):
            raise TraceReadError(where, f"event {event.kind!r} refers to missing S{event.after_generation}")
    if invariants is not None:
        ids = [inv.id for inv in invariants]
        duplicate = next((i for i in ids if ids.count(i) > 1), None)
        if duplicate:
            raise TraceReadError(where, f"duplicate invariant id {duplicate!r}")

    extra: dict[str, Any] = {"meta": header["meta"]} if "meta" in header else {}
    extra[RECORDS] = _elements(sources, generations, invariants, events).as_extra()
    return Trace(
        id=header["id"],
        format=NAME,
        title=header.get("title"),
        sources=tuple(sources),
        generations=tuple(generations),
        invariants=tuple(invariants) if invariants is not None else None,
        events=tuple(events),
        path=str(path),
        extra=extra,
    )


def _elements(sources: list[SourceRecord], generations: list[Generation], invariants: list[Invariant] | None,
              events: list[ChainEvent]) -> RecordTally:  # fmt: skip
    """Every element of the trace is read, as the file states it (a bad one is refused, never skipped): the
    counts every reader reports, in the same shape."""
    tally = RecordTally("elements")
    for fate, found in (("source", len(sources)), ("generation", len(generations)),
                        ("invariant", len(invariants or ())), (EVENT, len(events))):  # fmt: skip
        tally.met(found)
        tally.read_as(fate, found)
    return tally


def _parse_json(data: bytes, path: Path) -> Any:
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise TraceReadError(str(path), f"invalid JSON: {exc.msg}", exc.lineno) from None


def _read_document(path: Path) -> Trace:
    document = _parse_json(read_all(path), path)
    _validate(document, None, path, None)
    return _build(
        path,
        document,
        [_source(s) for s in document["sources"]],
        document["generations"],
        [_invariant(i) for i in document["invariants"]] if document.get("invariants") is not None else None,
        [_event(e) for e in document.get("events", [])],
    )


def _read_jsonl(path: Path) -> Trace:
    header: dict[str, Any] | None = None
    sources: list[SourceRecord] = []
    generations: list[dict[str, Any]] = []
    invariants: list[Invariant] | None = None
    events: list[ChainEvent] = []
    for number, line in iter_lines(path):
        if not line.strip():
            continue
        data = _parse_json(line, path)
        if not isinstance(data, dict):
            raise TraceReadError(str(path), "each line must be a JSON object", number)
        if header is None:
            _validate(data, "header", path, number)
            header = data
            continue
        record = data.get("record")
        if record not in ("source", "generation", "invariant", "event"):
            raise TraceReadError(
                str(path), f"'record' must be source, generation, invariant or event, not {record!r}", number
            )
        _validate(data, record, path, number)
        if record == "source":
            sources.append(_source(data))
        elif record == "generation":
            generations.append(data)
        elif record == "invariant":
            invariants = [*(invariants or []), _invariant(data)]
        else:
            events.append(_event(data))
    if header is None:
        raise TraceReadError(str(path), "empty file")
    return _build(path, header, sources, generations, invariants, events)


def _is_jsonl(path: Path) -> bool:
    """JSONL when the first line alone is a complete header object."""
    for _, line in iter_lines(path):
        if not line.strip():
            continue
        try:
            first = orjson.loads(line)
        except orjson.JSONDecodeError:
            return False
        return isinstance(first, dict) and "generations" not in first and "sources" not in first
    return False


def read(path: Path) -> Trace:
    return _read_jsonl(path) if _is_jsonl(path) else _read_document(path)


# --- writing -------------------------------------------------------------------------------


def _invariant_dict(inv: Invariant) -> dict[str, Any]:
    return {"id": inv.id, "kind": str(inv.kind), "text": inv.text, "source": inv.source_key}


def _source_dict(record: SourceRecord) -> dict[str, Any]:
    data = {name: getattr(record, name) for name in _SOURCE_FIELDS}
    return {**record.extra, **data}


def _generation_dict(generation: Generation) -> dict[str, Any]:
    data: dict[str, Any] = {name: getattr(generation, name) for name in _GENERATION_FIELDS}
    data["covers"] = list(generation.covers)
    if generation.manifest is not None:
        data["manifest"] = [_invariant_dict(m) for m in generation.manifest]
    return {**generation.extra, **data}


def _event_dict(event: ChainEvent) -> dict[str, Any]:
    return {
        "kind": event.kind,
        "after_generation": event.after_generation,
        "description": event.description,
        "timestamp": event.timestamp,
    }


def to_document(trace: Trace) -> dict[str, Any]:
    """The JSON form of a trace; reading it back yields an equal `Trace` that analyses the same.

    Keys a session log's turns print (`trace.mentions`) are written as derived records after the
    durable ones: the format has no transcript to search, and anchors must resolve as they did.
    """
    document: dict[str, Any] = {"format": FORMAT_TAG, "id": trace.id, "title": trace.title}
    if "meta" in trace.extra:
        document["meta"] = trace.extra["meta"]
    if trace.is_session_log:  # its items are mined from the user's words, as when it was read from the log
        document["meta"] = {**document.get("meta", {}), "session_log": True}
    sources = list(trace.sources)
    if trace.mentions is not None:
        sources = _with_mentions(sources, trace.mentions.records())
    document["sources"] = [_source_dict(s) for s in sources]
    document["generations"] = [_generation_dict(g) for g in trace.generations]
    if trace.invariants is not None:
        document["invariants"] = [_invariant_dict(i) for i in trace.invariants]
    document["events"] = [_event_dict(e) for e in trace.events]
    return document


def _with_mentions(sources: Sequence[SourceRecord], mentions: Sequence[SourceRecord]) -> list[SourceRecord]:
    """The log's records, then every key a turn printed that no record is (a derived `mentioned KEY`).

    Each mention names the turn it was first printed in (`first_seen`), so the copy places it where it
    was first seen (`inspector.places`) and a summary's key resolves before the same compaction as in the
    log. A record the turns printed before the log itself named it (a path the user typed, read by a
    tool only after a compaction) takes that turn as its `first_seen`, for the same reason.
    """
    written = list(sources)
    at = {(s.namespace, s.key): i for i, s in enumerate(written)}
    turns = {s.key: i for i, s in enumerate(written) if s.namespace == TRANSCRIPT}
    derived = []
    for mention in mentions:
        position = at.get((mention.namespace, mention.key))
        if position is None:
            derived.append(mention)
            continue
        turn = mention.extra.get("first_seen")
        if isinstance(turn, str) and turns.get(turn, position) < position:
            record = written[position]
            written[position] = replace(record, extra={**record.extra, "first_seen": turn})
    return written + derived


def _jsonl_records(trace: Trace) -> Iterator[dict[str, Any]]:
    document = to_document(trace)
    yield {k: document[k] for k in ("format", "id", "title", "meta") if k in document}
    for name, key in (("source", "sources"), ("invariant", "invariants"), ("generation", "generations"),
                      ("event", "events")):  # fmt: skip
        for item in document.get(key) or []:
            yield {"record": name, **item}


def dumps(trace: Trace, *, jsonl: bool = False) -> bytes:
    """Serialise a trace as `compaction-trace/1` JSON (indented) or JSONL (one record a line)."""
    if jsonl:
        return b"".join(orjson.dumps(r) + b"\n" for r in _jsonl_records(trace))
    return orjson.dumps(to_document(trace), option=orjson.OPT_INDENT_2) + b"\n"


def write(trace: Trace, path: str | Path, *, jsonl: bool | None = None) -> None:
    """Write a trace; JSONL when asked or when the file name ends in `.jsonl`."""
    path = Path(path)
    Path(path).write_bytes(dumps(trace, jsonl=path.suffix == ".jsonl" if jsonl is None else jsonl))


__all__ = ["read", "schema", "sniff", "write"]
