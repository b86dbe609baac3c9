"""The corrections ledger: an append-only record of what each refresh found, kept in the store.

History is never rewritten: there is an append and there are reads, with no update or delete.
Older versions kept the ledger as JSONL in the data folder; `adopt_jsonl_ledger` moves it in.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

import orjson
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from inspector.inert import inert_json
from inspector.refresh import Correction, RefreshResult
from inspector.store.engine import ADOPTING, one_at_a_time
from inspector.store.schema import CorrectionRow

_CORRECTION_FIELDS = ("type", "invariant_id", "kind", "inherited", "source", "source_key", "reason")


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    id: str
    recorded_at: str
    trace: str
    """The trace's content hash: the same session under any name shares its ledger entries."""
    trace_label: str
    generation: int
    trigger: str
    """What asked for the refresh: `manual`, `cli`, or a policy name."""
    requested_by: str
    correction: dict[str, Any]


class CorrectionsLedger:
    """Append-only: one row per correction; there is deliberately no update or delete."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self._sessions = sessions

    def append(
        self, result: RefreshResult, *, trace: str, trace_label: str, trigger: str, requested_by: str
    ) -> list[LedgerEntry]:
        now = datetime.now(UTC).isoformat(timespec="microseconds")
        entries = [
            LedgerEntry(uuid.uuid4().hex, now, trace, trace_label, result.generation, trigger, requested_by,
                        _correction_dict(c))  # fmt: skip
            for c in result.corrections
        ]
        self._insert(entries)
        return entries

    def _insert(self, entries: Iterable[LedgerEntry]) -> int:
        rows = [_row(e) for e in entries]
        if rows:
            with self._sessions.begin() as session:
                session.add_all(rows)
        return len(rows)

    def entries(self, trace: str | None = None) -> list[LedgerEntry]:
        with self._sessions() as session:
            query = select(CorrectionRow).order_by(CorrectionRow.recorded_at, CorrectionRow.id)
            if trace is not None:
                query = query.where(CorrectionRow.trace_hash == trace)
            return [_entry(row) for row in session.scalars(query)]

    def export_jsonl(self, out: BinaryIO, trace: str | None = None) -> int:
        entries = self.entries(trace)
        for entry in entries:
            out.write(inert_json(orjson.dumps(asdict(entry), option=orjson.OPT_APPEND_NEWLINE)))  # inert on a terminal
        return len(entries)


def adopt_jsonl_ledger(ledger: CorrectionsLedger, path: Path) -> int:
    """Move a JSONL ledger into the store once: entries already there (by id) are skipped, and the
    file is renamed, not deleted, so nothing is lost if anything goes wrong.

    Several processes may open the store at the same moment (four `ledger export`s at once), each finding the file:
    what is already in the store is read and the rest inserted under the store's write lock (`one_at_a_time`), so
    the one that waited finds the entries there, or the file gone, and adds nothing. The rename comes after the
    commit (a crash between the two leaves the file to be adopted again, adding nothing), and the file having
    gone meanwhile means another process adopted it.
    """
    if not path.exists():
        return 0  # the common case: no write transaction on every open
    with ledger._sessions.begin() as session:  # noqa: SLF001  (the ledger's own session factory)
        one_at_a_time(session, ADOPTING)
        try:
            entries = list(read_jsonl_ledger(path))
        except FileNotFoundError:
            return 0  # adopted by another process while this one waited for the lock
        known = set(session.scalars(select(CorrectionRow.id)))
        fresh = []
        for entry in entries:
            if entry.id not in known:
                known.add(entry.id)  # an id written twice in the file is adopted once
                fresh.append(entry)
        session.add_all(_row(e) for e in fresh)
    try:
        path.rename(path.with_name(path.name + ".adopted"))
    except FileNotFoundError:
        pass  # another process, which found nothing left to add either, renamed it first
    return len(fresh)


def read_jsonl_ledger(path: Path) -> Iterator[LedgerEntry]:
    with path.open("rb") as stream:
        for line in stream:
            if not line.strip():
                continue
            try:
                yield LedgerEntry(**orjson.loads(line))
            except (orjson.JSONDecodeError, TypeError):
                continue  # a torn line from a crashed writer; the rest is still adopted


def _correction_dict(correction: Correction) -> dict[str, Any]:
    data = asdict(correction)
    data["type"] = correction.type.value
    return {k: data[k] for k in _CORRECTION_FIELDS} | {"generation": correction.generation}


def _row(entry: LedgerEntry) -> CorrectionRow:
    c = entry.correction
    return CorrectionRow(id=entry.id, recorded_at=entry.recorded_at, trace_hash=entry.trace,
                         trace_label=entry.trace_label, generation=entry.generation, trigger=entry.trigger,
                         requested_by=entry.requested_by, type=c["type"], invariant_id=c.get("invariant_id"),
                         kind=c.get("kind"), inherited=c.get("inherited"), source=c.get("source"),
                         source_key=c.get("source_key"), reason=c.get("reason") or "")  # fmt: skip


def _entry(row: CorrectionRow) -> LedgerEntry:
    correction = {name: getattr(row, name) for name in _CORRECTION_FIELDS} | {"generation": row.generation}
    return LedgerEntry(row.id, row.recorded_at, row.trace_hash, row.trace_label, row.generation, row.trigger,
                       row.requested_by, correction)  # fmt: skip


def entries_as_rows(entries: Iterable[LedgerEntry]) -> list[dict[str, Any]]:
    return [
        {"recorded_at": e.recorded_at, "trace": e.trace_label, "generation": e.generation, "trigger": e.trigger,
         "requested_by": e.requested_by, **{k: e.correction.get(k) for k in _CORRECTION_FIELDS}}
        for e in entries
    ]  # fmt: skip


__all__ = ["CorrectionsLedger", "LedgerEntry", "adopt_jsonl_ledger", "entries_as_rows", "read_jsonl_ledger"]
