"""Connecting to the review store: SQLite by default, PostgreSQL (or any SQLAlchemy URL) by setting.

SQLite runs in WAL mode with writes taken as `BEGIN IMMEDIATE`, so two processes writing at once
queue instead of failing, and a writer killed mid-transaction leaves every committed row intact.
Migrations run on open, serialised across processes (`one_at_a_time`), as is adopting an old ledger.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.orm import Session

from inspector.data_folder import STORE_FILE
from inspector.library import data_dir

MIGRATIONS = Path(__file__).parent / "migrations"


def database_url() -> str:
    """`INSPECTOR_DB_URL`, else a SQLite file in the user's data folder."""
    configured = os.environ.get("INSPECTOR_DB_URL")
    if configured:
        return configured
    folder = data_dir()
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / STORE_FILE}"


BUSY_SECONDS = 60
"""How long a process waits for another's write before giving up: far longer than any write of the store takes
(an import of thousands of annotations is well under a second), short enough that a stuck writer is said."""


def _into_wal(cursor: Any) -> None:
    """Switch the database to WAL. On a new file several processes opening it at once race for the switch, and
    SQLite answers the losers "database is locked" at once, without its busy handler (it would deadlock
    otherwise): so the switch is retried, within the same wait as a write."""
    deadline = time.monotonic() + BUSY_SECONDS
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def make_engine(url: str) -> Engine:
    if not url.startswith("sqlite"):
        return create_engine(url, pool_pre_ping=True)
    engine = create_engine(url, connect_args={"timeout": BUSY_SECONDS, "check_same_thread": False})

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection, _record):  # type: ignore[no-untyped-def]
        dbapi_connection.isolation_level = None  # let SQLAlchemy's BEGIN below be the only one
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout={BUSY_SECONDS * 1000}")
        _into_wal(cursor)
        cursor.execute("PRAGMA synchronous=NORMAL")  # durable across a killed process; WAL keeps it consistent
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection):  # type: ignore[no-untyped-def]
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


MIGRATING, ADOPTING = 7468327, 7468328
"""Keys of the jobs that take `one_at_a_time` on PostgreSQL."""


def one_at_a_time(connection: Connection | Session, key: int) -> None:
    """Hold the store's write lock for the rest of this transaction: a job that several processes opening the store
    at once would each start (a migration, adopting an old ledger) runs in one of them at a time, and the next sees
    what the first did. On SQLite every transaction already begins with BEGIN IMMEDIATE (`make_engine`), which is that
    lock; on PostgreSQL a transaction-scoped advisory lock on `key`, released at commit or rollback."""
    dialect = connection.get_bind().dialect if isinstance(connection, Session) else connection.dialect
    if dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest revision (a no-op when it is there already)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        one_at_a_time(connection, MIGRATING)
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


__all__ = ["ADOPTING", "MIGRATING", "MIGRATIONS", "database_url", "make_engine", "migrate", "one_at_a_time"]
