"""The corrections ledger: an append-only record of what each refresh found.

History is never rewritten: entries are only ever appended, with when, where, why and who asked.
This JSONL file is the store until the review database exists; its format is also the export.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from inspector.refresh import Correction, RefreshResult


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    id: str
    recorded_at: str
    trace: str
    """The trace's content hash: the same session under any name shares its ledger entries."""
    trace_label: str
    generation: int
    trigger: str
    """What asked for the refresh: `manual`, or a policy name."""
    requested_by: str
    correction: dict[str, Any]


class CorrectionsLedger:
    """Append-only JSONL: one entry per line; there is deliberately no update or delete."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def append(
        self, result: RefreshResult, *, trace: str, trace_label: str, trigger: str, requested_by: str
    ) -> list[LedgerEntry]:
        now = datetime.now(UTC).isoformat(timespec="seconds")
        entries = [
            LedgerEntry(uuid.uuid4().hex, now, trace, trace_label, result.generation, trigger, requested_by,
                        _correction_dict(c))  # fmt: skip
            for c in result.corrections
        ]
        if entries:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            payload = b"".join(orjson.dumps(asdict(e)) + b"\n" for e in entries)
            # One write on an O_APPEND descriptor: concurrent appenders never interleave inside a line.
            descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(descriptor, payload)
                os.fsync(descriptor)
            finally:
                os.close(descriptor)
        return entries

    def entries(self, trace: str | None = None) -> list[LedgerEntry]:
        return [e for e in self._read() if trace is None or e.trace == trace]

    def _read(self) -> Iterator[LedgerEntry]:
        if not self.path.exists():
            return
        with self.path.open("rb") as stream:
            for line in stream:
                if not line.strip():
                    continue
                try:
                    yield LedgerEntry(**orjson.loads(line))
                except (orjson.JSONDecodeError, TypeError):
                    continue  # a torn line from a crashed writer; the rest stays readable

    def export_jsonl(self, out: BinaryIO, trace: str | None = None) -> int:
        entries = self.entries(trace)
        for entry in entries:
            out.write(orjson.dumps(asdict(entry)) + b"\n")
        return len(entries)


def _correction_dict(correction: Correction) -> dict[str, Any]:
    data = asdict(correction)
    data["type"] = correction.type.value
    return data


def default_ledger() -> CorrectionsLedger:
    from inspector.library import data_dir

    return CorrectionsLedger(data_dir() / "corrections.jsonl")


def entries_as_rows(entries: Iterable[LedgerEntry]) -> list[dict[str, Any]]:
    return [
        {"recorded_at": e.recorded_at, "trace": e.trace_label, "generation": e.generation, "trigger": e.trigger,
         "requested_by": e.requested_by, **{k: e.correction.get(k) for k in
         ("type", "invariant_id", "kind", "inherited", "source", "source_key", "reason")}}
        for e in entries
    ]  # fmt: skip
