"""Connecting to the review store: SQLite by default, PostgreSQL (or any SQLAlchemy URL) by setting.

SQLite runs in WAL mode with writes taken as `BEGIN IMMEDIATE`, so two processes writing at once
queue instead of failing, and a writer killed mid-transaction leaves every committed row intact.
Migrations run on open, serialised across processes.
"""

from __future__ import annotations

import os
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event, text

from inspector.library import data_dir

MIGRATIONS = Path(__file__).parent / "migrations"


def database_url() -> str:
    """`INSPECTOR_DB_URL`, else a SQLite file in the user's data folder."""
    configured = os.environ.get("INSPECTOR_DB_URL")
    if configured:
        return configured
    folder = data_dir()
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'inspector.db'}"


def make_engine(url: str) -> Engine:
    if not url.startswith("sqlite"):
        return create_engine(url, pool_pre_ping=True)
    engine = create_engine(url, connect_args={"timeout": 60, "check_same_thread": False})

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection, _record):  # type: ignore[no-untyped-def]
        dbapi_connection.isolation_level = None  # let SQLAlchemy's BEGIN below be the only one
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")  # durable across a killed process; WAL keeps it consistent
        cursor.execute("PRAGMA busy_timeout=60000")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection):  # type: ignore[no-untyped-def]
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest revision (a no-op when it is there already)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(7468327)"))  # one migrator at a time
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


__all__ = ["MIGRATIONS", "database_url", "make_engine", "migrate"]
