"""Upgrades keep the data: a database made by the first migration, with data, brought to this version.

Written to hold whatever the head revision is: with only 0001 there is nothing to upgrade, with
later revisions the SQLite file is copied aside first and a shared PostgreSQL database waits for
`motodesk db-upgrade`.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import text
from tests_helpers import check_wording  # type: ignore[import-not-found]

from motodesk.models.db import Database, DatabaseOutdatedError
from motodesk.services.auth import authenticate, hash_password
from motodesk.services.context import AppContext
from motodesk.services.settings import law_settings

FIRST = "0001"


def _fill_first_schema(db: Database) -> None:
    """Rows written with plain SQL against the 0001 schema (the models may have moved on since)."""
    now = datetime.now(UTC).replace(tzinfo=None)
    with db.engine.begin() as conn:
        conn.execute(text(
            "INSERT INTO users (login, full_name, role, password_hash, failed_logins, locked, active, version, "
            "created_at, updated_at) VALUES ('joana', 'Joana Ribeiro', 'admin', :h, 0, :f, :t, 1, :now, :now)"
        ), {"h": hash_password("senha-antiga-1"), "f": False, "t": True, "now": now})
        conn.execute(text(
            "INSERT INTO people (full_name, name_search, cpf, version, created_at, updated_at) "
            "VALUES ('José da Silva Antigo', 'jose da silva antigo', '52998224725', 1, :now, :now)"
        ), {"now": now})
        conn.execute(text("INSERT INTO settings (key, value, version) VALUES ('population', '91000', 1)"))
        conn.execute(text(
            "INSERT INTO audit_events (at, user_login, table_name, row_key, action, changes) "
            "VALUES (:now, 'joana', 'people', '1', 'insert', '{}')"
        ), {"now": now})


def _check_data(db: Database) -> None:
    with db.engine.connect() as conn:
        assert conn.execute(text("SELECT full_name, cpf FROM people")).all() == [("José da Silva Antigo", "52998224725")]
        assert conn.execute(text("SELECT count(*) FROM audit_events WHERE user_login = 'joana'")).scalar() == 1
    ctx = AppContext(db)
    assert authenticate(ctx, "joana", "senha-antiga-1").full_name == "Joana Ribeiro"
    assert law_settings(ctx).population == 91000


def test_old_sqlite_database_is_copied_aside_then_upgraded(tmp_path: Path) -> None:
    path = tmp_path / "motodesk.sqlite3"
    db = Database.open(f"sqlite:///{path}")
    db.upgrade(FIRST)
    _fill_first_schema(db)
    db.dispose()

    db = Database.open(f"sqlite:///{path}")
    try:
        head = db.head_revision()
        done = db.prepare()
        assert db.current_revision() == head
        _check_data(db)
    finally:
        db.dispose()
    copies = sorted(tmp_path.glob("motodesk.antes-atualizacao-*.sqlite3"))
    if head == FIRST:
        assert done == "current" and copies == []
        return
    assert done == "upgraded" and len(copies) == 1
    copy = sqlite3.connect(copies[0])
    try:
        assert copy.execute("SELECT version_num FROM alembic_version").fetchone() == (FIRST,)
        assert copy.execute("SELECT full_name FROM people").fetchall() == [("José da Silva Antigo",)]
    finally:
        copy.close()


def test_old_shared_postgresql_waits_for_db_upgrade_and_keeps_its_data(empty_pg: str) -> None:
    db = Database.open(empty_pg)
    try:
        db.upgrade(FIRST)
        _fill_first_schema(db)
        head = db.head_revision()
        if head == FIRST:
            assert db.prepare() == "current"
        else:
            with pytest.raises(DatabaseOutdatedError) as refused:
                db.prepare()
            check_wording("database", str(refused.value))
            assert db.current_revision() == FIRST, "refused means untouched"
            assert db.prepare(allow_upgrade_shared=True) == "upgraded"
        assert db.current_revision() == head
        _check_data(db)
    finally:
        db.dispose()
