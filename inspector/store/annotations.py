"""Reviewer annotations: attach, revise (never overwrite), list, export, import.

An annotation is keyed by the trace's content hash plus what it points at (a stable finding id, a
span with its quoted text, an invariant id or a generation), so it reappears whenever the same
session is loaded again, under any name.
"""

from __future__ import annotations

import csv
import io
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

import msgspec
import orjson
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from inspector.inert import csv_cell, inert_json
from inspector.store.schema import AnnotationRow, RevisionRow

LABELS = ("confirmed", "false-positive", "needs-source", "fixed")
"""The standard labels; any other non-empty label is a custom one."""
TARGETS = ("finding", "span", "invariant", "generation")


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


class ImportLineError(ValueError):
    """A line of an export that could not be imported; carries its number."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


@dataclass(frozen=True, slots=True)
class Target:
    """What an annotation points at."""

    kind: str
    finding_id: str | None = None
    rule: str | None = None
    generation: int | None = None
    start: int | None = None
    end: int | None = None
    quoted_text: str | None = None
    invariant_id: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in TARGETS:
            raise ValueError(f"annotation target must be one of {', '.join(TARGETS)}, not {self.kind!r}")


@dataclass(frozen=True, slots=True)
class Revision:
    number: int
    label: str
    comment: str
    reviewer: str
    created_at: str


@dataclass(frozen=True, slots=True)
class Annotation:
    id: str
    trace_hash: str
    trace_label: str
    target: Target
    created_at: str
    created_by: str
    revisions: tuple[Revision, ...] = field(default=())

    @property
    def current(self) -> Revision:
        return self.revisions[-1]

    @property
    def label(self) -> str:
        return self.current.label


class Annotations:
    """Annotation operations over a session factory; each method is one transaction."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self._sessions = sessions

    def add(
        self, trace_hash: str, target: Target, label: str, comment: str, reviewer: str, *, trace_label: str = ""
    ) -> Annotation:
        label = _check_label(label)
        stamp = now()
        row = AnnotationRow(id=uuid.uuid4().hex, trace_hash=trace_hash, trace_label=trace_label, target=target.kind,
                            finding_id=target.finding_id, rule=target.rule, generation=target.generation,
                            start=target.start, end=target.end, quoted_text=target.quoted_text,
                            invariant_id=target.invariant_id, created_at=stamp, created_by=reviewer)  # fmt: skip
        with self._sessions.begin() as session:
            session.add(row)
            session.flush()
            session.add(RevisionRow(annotation_id=row.id, number=1, label=label, comment=comment,
                                    reviewer=reviewer, created_at=stamp))  # fmt: skip
        return self.get(row.id)  # type: ignore[return-value]

    def revise(self, annotation_id: str, label: str, comment: str, reviewer: str) -> Annotation:
        """Append a revision; the earlier ones stay. Retries if another writer took the number."""
        label = _check_label(label)
        for _ in range(20):
            try:
                with self._sessions.begin() as session:
                    if session.get(AnnotationRow, annotation_id) is None:
                        raise KeyError(annotation_id)
                    last = session.scalar(select(func.max(RevisionRow.number)).where(
                        RevisionRow.annotation_id == annotation_id)) or 0  # fmt: skip
                    session.add(RevisionRow(annotation_id=annotation_id, number=last + 1, label=label,
                                            comment=comment, reviewer=reviewer, created_at=now()))  # fmt: skip
                return self.get(annotation_id)  # type: ignore[return-value]
            except IntegrityError:
                continue
        raise RuntimeError(f"could not append a revision to {annotation_id}")

    def get(self, annotation_id: str) -> Annotation | None:
        found = self._load([annotation_id], None)
        return found[0] if found else None

    def for_trace(self, trace_hash: str) -> list[Annotation]:
        return self._load(None, trace_hash)

    def all(self) -> list[Annotation]:
        return self._load(None, None)

    def count(self) -> int:
        with self._sessions() as session:
            return session.scalar(select(func.count()).select_from(AnnotationRow)) or 0

    def _load(self, ids: list[str] | None, trace_hash: str | None) -> list[Annotation]:
        with self._sessions() as session:
            query = select(AnnotationRow).order_by(AnnotationRow.created_at, AnnotationRow.id)
            if ids is not None:
                query = query.where(AnnotationRow.id.in_(ids))
            if trace_hash is not None:
                query = query.where(AnnotationRow.trace_hash == trace_hash)
            rows = list(session.scalars(query))
            revisions: dict[str, list[Revision]] = {r.id: [] for r in rows}
            if rows:
                revision_query = select(RevisionRow).order_by(RevisionRow.annotation_id, RevisionRow.number)
                if ids is not None or trace_hash is not None:
                    revision_query = revision_query.where(RevisionRow.annotation_id.in_(list(revisions)))
                for revision in session.scalars(revision_query):
                    if revision.annotation_id in revisions:
                        revisions[revision.annotation_id].append(Revision(
                            revision.number, revision.label, revision.comment, revision.reviewer,
                            revision.created_at))  # fmt: skip
            return [_annotation(row, revisions[row.id]) for row in rows if revisions[row.id]]

    # --- export and import --------------------------------------------------------------------

    def export_jsonl(self, trace_hash: str | None = None) -> bytes:
        """One line per annotation with every revision: the import format."""
        items = self.for_trace(trace_hash) if trace_hash else self.all()
        # The same values, with controls and hidden characters as \u escapes: inert when printed.
        return b"".join(inert_json(orjson.dumps(to_record(a), option=orjson.OPT_APPEND_NEWLINE)) for a in items)

    def export_csv(self, trace_hash: str | None = None) -> str:
        """One row per annotation in its current state, with its place and quoted text.

        For spreadsheets, not for import (JSONL is the import format): text cells a spreadsheet
        would run as a formula are escaped by `csv_cell`.
        """
        items = self.for_trace(trace_hash) if trace_hash else self.all()
        out = io.StringIO()
        columns = ["id", "trace_hash", "trace_label", "target", "generation", "start", "end", "quoted_text",
                   "finding_id", "rule", "invariant_id", "label", "comment", "reviewer", "updated_at", "revisions",
                   "created_by", "created_at"]  # fmt: skip
        writer = csv.DictWriter(out, columns)
        writer.writeheader()
        for a in items:
            t = a.target
            row = {"id": a.id, "trace_hash": a.trace_hash, "trace_label": a.trace_label, "target": t.kind,
                   "generation": t.generation, "start": t.start, "end": t.end, "quoted_text": t.quoted_text,
                   "finding_id": t.finding_id, "rule": t.rule, "invariant_id": t.invariant_id, "label": a.label,
                   "comment": a.current.comment, "reviewer": a.current.reviewer, "updated_at": a.current.created_at,
                   "revisions": len(a.revisions), "created_by": a.created_by, "created_at": a.created_at}  # fmt: skip
            writer.writerow({column: csv_cell(value) for column, value in row.items()})
        return out.getvalue()

    def import_jsonl(self, lines: Iterable[bytes]) -> tuple[int, int]:
        """Merge an export, all or nothing: unknown annotations and revisions are added, known ones skipped.

        Every line is checked against the export's schema before anything is written, so a bad line (raised as
        `ImportLineError`, naming it) leaves the store as it was; the merge is then one transaction. Returns
        (annotations added, revisions added).
        """
        records = [_parse_record(line, number) for number, line in enumerate(lines, start=1) if line.strip()]
        for _ in range(20):
            try:
                with self._sessions.begin() as session:
                    counts = [_merge(session, record) for record in records]
                return sum(c[0] for c in counts), sum(c[1] for c in counts)
            except IntegrityError:  # another writer took a revision number meanwhile: merge again over it
                continue
        raise RuntimeError("could not merge the import: the store kept changing under it")


def _merge(session: Session, record: AnnotationRecord) -> tuple[int, int]:
    created = 0
    if session.get(AnnotationRow, record.id) is None:
        target = record.target
        session.add(AnnotationRow(id=record.id, trace_hash=record.trace_hash, trace_label=record.trace_label,
                                  target=target.kind, finding_id=target.finding_id, rule=target.rule,
                                  generation=target.generation, start=target.start, end=target.end,
                                  quoted_text=target.quoted_text, invariant_id=target.invariant_id,
                                  created_at=record.created_at, created_by=record.created_by))  # fmt: skip
        session.flush()
        created = 1
    known = set(session.scalars(select(RevisionRow.number).where(RevisionRow.annotation_id == record.id)))
    fresh = [r for r in record.revisions if r.number not in known]
    for revision in fresh:
        session.add(RevisionRow(annotation_id=record.id, **msgspec.structs.asdict(revision)))
    session.flush()  # a later line of the same annotation sees these numbers as known
    return created, len(fresh)


def _check_label(label: str) -> str:
    label = label.strip()
    if not label:
        raise ValueError("an annotation needs a label")
    return label


def _annotation(row: AnnotationRow, revisions: list[Revision]) -> Annotation:
    target = Target(row.target, row.finding_id, row.rule, row.generation, row.start, row.end, row.quoted_text,
                    row.invariant_id)  # fmt: skip
    return Annotation(row.id, row.trace_hash, row.trace_label, target, row.created_at, row.created_by,
                      tuple(revisions))  # fmt: skip


def to_record(annotation: Annotation) -> dict[str, Any]:
    return {
        "id": annotation.id, "trace_hash": annotation.trace_hash, "trace_label": annotation.trace_label,
        "target": asdict(annotation.target), "created_at": annotation.created_at, "created_by": annotation.created_by,
        "revisions": [asdict(r) for r in annotation.revisions],
    }  # fmt: skip


def _parse_record(line: bytes, number: int) -> AnnotationRecord:
    try:
        return _RECORD.decode(line)
    except msgspec.ValidationError as error:
        raise ImportLineError(number, str(error)) from None
    except (msgspec.DecodeError, RecursionError) as error:
        raise ImportLineError(number, f"invalid JSON ({error})") from None


# --- the import's schema: what `to_record` writes, typed as the store's columns take it ---------------------------

_INT32 = 2**31 - 1
"""The largest Integer column value PostgreSQL takes."""


def _width(column: Any) -> int:
    """A String column's length: the schema's one definition, so the import refuses what the database would."""
    return column.property.columns[0].type.length


def _text(column: Any = None, *, required: bool = False) -> Any:
    """A text field as its column takes it: within its length, and non-empty when `required`."""
    meta = msgspec.Meta(min_length=1 if required else None, max_length=_width(column) if column is not None else None)
    return Annotated[str, meta]


_Count = Annotated[int, msgspec.Meta(ge=0, le=_INT32)]
_Number = Annotated[int, msgspec.Meta(ge=1, le=_INT32)]
_AnnotationId = _text(AnnotationRow.id, required=True)
_TraceHash = _text(AnnotationRow.trace_hash, required=True)
_Stamp = _text(AnnotationRow.created_at, required=True)
_Reviewer = _text(required=True)
_FindingId = _text(AnnotationRow.finding_id)
_Rule = _text(AnnotationRow.rule)
_Label = _text(RevisionRow.label, required=True)
_RevisionStamp = _text(RevisionRow.created_at, required=True)


def _no_nul(struct: msgspec.Struct) -> None:
    """No database text holds a NUL (PostgreSQL refuses one): refused with the field it is in."""
    for name in struct.__struct_fields__:
        value = getattr(struct, name)
        if isinstance(value, str) and "\x00" in value:
            raise ValueError(f"{name} holds a NUL character")


class TargetRecord(msgspec.Struct, forbid_unknown_fields=True):
    """`Target` as an export line holds it."""

    kind: Literal["finding", "span", "invariant", "generation"]
    finding_id: _FindingId | None = None
    rule: _Rule | None = None
    generation: _Count | None = None
    start: _Count | None = None
    end: _Count | None = None
    quoted_text: str | None = None
    invariant_id: str | None = None

    def __post_init__(self) -> None:
        _no_nul(self)
        if self.start is not None and self.end is not None and self.end < self.start:
            raise ValueError(f"the span ends ({self.end}) before it starts ({self.start})")


class RevisionRecord(msgspec.Struct, forbid_unknown_fields=True):
    """`Revision` as an export line holds it."""

    number: _Number
    label: _Label
    comment: str
    reviewer: str
    created_at: _RevisionStamp

    def __post_init__(self) -> None:
        _no_nul(self)
        if not self.label.strip():
            raise ValueError("the label is blank")


class AnnotationRecord(msgspec.Struct, forbid_unknown_fields=True):
    """One line of `export_jsonl` (`to_record`): an annotation with every revision."""

    id: _AnnotationId
    trace_hash: _TraceHash
    target: TargetRecord
    created_at: _Stamp
    created_by: _Reviewer
    revisions: Annotated[list[RevisionRecord], msgspec.Meta(min_length=1)]
    trace_label: str = ""

    def __post_init__(self) -> None:
        _no_nul(self)
        numbers = [r.number for r in self.revisions]
        if len(set(numbers)) != len(numbers):
            twice = sorted({n for n in numbers if numbers.count(n) > 1})
            raise ValueError(f"two revisions are numbered {', '.join(map(str, twice))}")


_RECORD = msgspec.json.Decoder(AnnotationRecord)


def reanchor(target: Target, text: str) -> tuple[int, int] | None:
    """Where a span annotation's quoted text is now: the same offsets if it is still there, else the
    occurrence nearest the old start, else None (the text changed)."""
    if target.start is None or target.end is None or not target.quoted_text:
        return None
    if text[target.start : target.end] == target.quoted_text:
        return target.start, target.end
    positions = list(occurrences(text, target.quoted_text))
    if not positions:
        return None
    best = min(positions, key=lambda p: abs(p - target.start))  # type: ignore[operator]
    return best, best + len(target.quoted_text)


def occurrences(text: str, needle: str) -> Iterator[int]:
    """Every offset where `needle` occurs in `text` (overlapping ones too)."""
    position = text.find(needle)
    while position != -1:
        yield position
        position = text.find(needle, position + 1)


__all__ = ["Annotation", "AnnotationRecord", "Annotations", "ImportLineError", "LABELS", "Revision", "Target",
           "occurrences", "reanchor"]
