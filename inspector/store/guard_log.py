"""The guard's log: what `compaction-inspector guard` gave back to an agent right after a compaction, and the
list it gave the compactor just before one.

One injection per run that printed something: the session, the summary it checked or was about to be written
(k of Sₖ), the hook it answered, the items and the exact text printed. Looked up by session id, not content hash:
the transcript keeps growing after the guard ran, so its hash changes; the hash it read is kept for the record.
Append-only, like the corrections ledger. The guard itself leaves each run as a waiting file
(`inspector.guard_pending`), so the agent never waits for this database; they are taken in whenever the log is read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from inspector.guard_pending import AFTER, taken, waiting
from inspector.store.schema import GuardInjectionRow, GuardItemRow


@dataclass(frozen=True)
class RestoredItem:
    """One thing the guard gave back."""

    rule: str
    """The finding's rule id, e.g. `user-statement-lost`, `claim-contradicted`."""
    kind: str
    """e.g. `user-constraint`, `correction`, `claim`."""
    text: str
    """What was given back: the user's own words, or the claim and what the log shows."""
    source_key: str | None
    """The log record it came from."""
    said_at: str | None
    """That record's ISO timestamp, when known."""


@dataclass(frozen=True)
class GuardInjection:
    """One run of the guard that printed something to the agent."""

    session_id: str
    """The trace id (for Claude Code logs, the session id)."""
    generation: int
    """The summary the guard checked: k of Sₖ."""
    content_hash: str
    """`library.content_hash` of the transcript as the guard read it."""
    created_at: str
    """ISO UTC."""
    items: tuple[RestoredItem, ...]
    text: str
    """Exactly what was printed to the agent."""
    event: str = AFTER
    """The hook it answered: `SessionStart`, after Sₖ was written, or `PreCompact`, before."""


class GuardLog:
    """Append-only: `record` adds an injection with its items in one transaction; there is no update or delete."""

    def __init__(self, sessions: sessionmaker[Session], pending: Path | None = None) -> None:
        self._sessions = sessions
        self._pending = pending
        """The folder of waiting injections (`guard_pending.pending_folder()` when None)."""

    def record(self, injection: GuardInjection, origin: str | None = None) -> None:
        """Add one injection; `origin`, the waiting file it came from, is recorded once whatever happens after."""
        # Found by its session id and drawn at its generation: refuse an injection without either.
        if not isinstance(injection.session_id, str) or not injection.session_id:
            raise ValueError("a guard injection needs its session id")
        k = injection.generation
        if not isinstance(k, int) or isinstance(k, bool) or k < 0:
            raise ValueError(f"a guard injection's generation is a summary's index, not {injection.generation!r}")
        with self._sessions.begin() as session:
            row = GuardInjectionRow(session_id=injection.session_id, generation=injection.generation,
                                    content_hash=injection.content_hash, created_at=injection.created_at,
                                    text=injection.text, event=injection.event, origin=origin)  # fmt: skip
            session.add(row)
            session.flush()  # the row's id, for its items
            for position, item in enumerate(injection.items):
                session.add(GuardItemRow(injection_id=row.id, position=position, rule=item.rule, kind=item.kind,
                                         text=item.text, source_key=item.source_key, said_at=item.said_at))  # fmt: skip

    def take_pending(self) -> int:
        """Record every injection the guard left waiting, and remove each file once its rows are committed; how many
        were recorded. A file recorded before (the process ended between the commit and the removal) is removed; one
        whose fields are not an injection's is left in place, as a reader should find it."""
        recorded = 0
        for name, fields in waiting(self._pending):
            try:
                injection = _injection(fields)
            except (KeyError, TypeError, ValueError):
                continue
            with self._sessions() as session:
                seen = session.scalar(select(GuardInjectionRow.id).where(GuardInjectionRow.origin == name))
            if seen is None:
                try:
                    self.record(injection, origin=name)
                    recorded += 1
                except IntegrityError:
                    pass  # another reader took it in first
            taken(name, self._pending)
        return recorded

    def for_session(self, session_id: str) -> list[GuardInjection]:
        """Every injection recorded for the session, oldest first, with those still waiting taken in first."""
        self.take_pending()
        with self._sessions() as session:
            rows = list(session.scalars(
                select(GuardInjectionRow).where(GuardInjectionRow.session_id == session_id)
                .order_by(GuardInjectionRow.created_at, GuardInjectionRow.id)))  # fmt: skip
            items: dict[int, list[RestoredItem]] = {row.id: [] for row in rows}
            if rows:
                query = (select(GuardItemRow).where(GuardItemRow.injection_id.in_(list(items)))
                         .order_by(GuardItemRow.injection_id, GuardItemRow.position))  # fmt: skip
                for item in session.scalars(query):
                    restored = RestoredItem(item.rule, item.kind, item.text, item.source_key, item.said_at)
                    items[item.injection_id].append(restored)
            return [GuardInjection(row.session_id, row.generation, row.content_hash, row.created_at,
                                   tuple(items[row.id]), row.text, row.event) for row in rows]  # fmt: skip


def _injection(fields: dict[str, Any]) -> GuardInjection:
    """A waiting file's fields as an injection; `TypeError` or `KeyError` when they are not one."""
    items = tuple(RestoredItem(_text(i["rule"]), _text(i["kind"]), _text(i["text"]), _optional(i.get("source_key")),
                               _optional(i.get("said_at"))) for i in fields["items"])  # fmt: skip
    generation = fields["generation"]
    if not isinstance(generation, int) or isinstance(generation, bool):
        raise TypeError("generation")
    return GuardInjection(_text(fields["session_id"]), generation, _text(fields["content_hash"]),
                          _text(fields["created_at"]), items, _text(fields["text"]),
                          _text(fields["event"]))  # fmt: skip


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError("not text")
    return value


def _optional(value: object) -> str | None:
    return None if value is None else _text(value)


__all__ = ["GuardInjection", "GuardLog", "RestoredItem"]
