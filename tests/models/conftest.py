"""The one way a migration test gets an empty database of its backend (no schema, no alembic_version).

SQLite: a new file in the test's folder. PostgreSQL: a scratch database of its own on the test server
(:func:`pg_scratch.scratch_database`), dropped afterwards, so a test that builds an old revision and
upgrades it never downgrades the session's shared database, and leaves nothing to restore.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pg_scratch import scratch_database  # type: ignore[import-not-found]

from motodesk.models.db import Database


@pytest.fixture
def fresh_db(backend: str, tmp_path: Path) -> Iterator[Database]:
    """An empty database of ``backend``, disposed (and on PostgreSQL dropped) after the test."""
    if backend == "sqlite":
        db = Database.open(f"sqlite:///{tmp_path / 'm.sqlite3'}")
        try:
            yield db
        finally:
            db.dispose()
        return
    with scratch_database("motodesk_migration") as url:
        db = Database.open(url)
        try:
            yield db
        finally:
            db.dispose()
