"""The review store: annotations, the corrections ledger and the guard's log in one SQLAlchemy database."""

from __future__ import annotations

from functools import cached_property

from sqlalchemy.orm import sessionmaker

from inspector.store.annotations import LABELS, Annotation, Annotations, ImportLineError, Revision, Target, reanchor
from inspector.store.engine import database_url, make_engine, migrate
from inspector.store.guard_log import GuardInjection, GuardLog, RestoredItem
from inspector.store.ledger import CorrectionsLedger, LedgerEntry, adopt_jsonl_ledger, entries_as_rows


class Store:
    """One database: open it with a URL (default: SQLite in the data folder), migrated on open."""

    def __init__(self, url: str | None = None) -> None:
        self.url = url or database_url()
        self.engine = make_engine(self.url)
        migrate(self.engine)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)

    @cached_property
    def annotations(self) -> Annotations:
        return Annotations(self.sessions)

    @cached_property
    def ledger(self) -> CorrectionsLedger:
        return CorrectionsLedger(self.sessions)

    @cached_property
    def guard(self) -> GuardLog:
        """What the guard gave back to agents after their compactions, by session."""
        return GuardLog(self.sessions)

    def close(self) -> None:
        self.engine.dispose()


def open_store(url: str | None = None) -> Store:
    """Open (and migrate) the store; on the default store, adopt a JSONL ledger left by older versions."""
    store = Store(url)
    if url is None:
        from inspector.data_folder import OLD_LEDGER
        from inspector.library import data_dir

        adopt_jsonl_ledger(store.ledger, data_dir() / OLD_LEDGER)
    return store


__all__ = ["LABELS", "Annotation", "Annotations", "CorrectionsLedger", "GuardInjection", "GuardLog", "ImportLineError",
           "LedgerEntry", "RestoredItem", "Revision", "Store", "Target", "entries_as_rows", "open_store",
           "reanchor"]  # fmt: skip
