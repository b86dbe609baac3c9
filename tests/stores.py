"""Store URLs for tests: SQLite always, and a real PostgreSQL when `.ci/run` started one.

`INSPECTOR_TEST_PG_URL` names a server where the role may create databases; each test gets a fresh
database, dropped afterwards. In CI the PostgreSQL run must not skip.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.exc import ProgrammingError

BACKENDS = ["sqlite", "postgresql"]


@contextmanager
def fresh_store_url(backend: str, folder: Path) -> Iterator[str]:
    if backend == "sqlite":
        yield f"sqlite:///{folder / 'store.db'}"
        return
    admin_url = os.environ.get("INSPECTOR_TEST_PG_URL")
    if not admin_url:
        if os.environ.get("CI"):
            pytest.fail("INSPECTOR_TEST_PG_URL is not set: .ci/run starts PostgreSQL and sets it")
        pytest.skip("no PostgreSQL: run .ci/postgres.sh and set INSPECTOR_TEST_PG_URL")
    name = f"inspector_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield admin_url.rsplit("/", 1)[0] + f"/{name}"
    finally:
        _drop(admin, name)
        admin.dispose()


def _drop(admin: Engine, name: str, attempts: int = 50) -> None:
    """Drop a test's database, ending its sessions. A background worker of the server's own (autovacuum) may be
    connected a moment, and without pg_signal_backend it cannot be ended: wait for it to leave, then drop."""
    for attempt in range(attempts):
        try:
            with admin.connect() as connection:
                connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            return
        except ProgrammingError:
            if attempt == attempts - 1:
                raise
            time.sleep(0.1)
