"""Migrations: empty → head → base on both databases, no drift, and the version guards."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import inspect, text

from motodesk.models import Base
from motodesk.models.db import Database, DatabaseOutdatedError, DatabaseTooNewError


def _fresh(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> Database:
    if backend == "sqlite":
        return Database.open(f"sqlite:///{tmp_path / 'm.sqlite3'}")
    url = request.getfixturevalue("pg_server")
    db = Database.open(url)
    db.downgrade("base")  # the session database may have been migrated by another test
    with db.engine.begin() as conn:
        conn.exec_driver_sql("DROP TABLE IF EXISTS alembic_version")
    return db


def test_upgrade_to_head_and_down_again(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    db = _fresh(backend, request, tmp_path)
    try:
        assert db.check_version() == "empty"
        assert db.prepare(allow_upgrade_shared=True) == "created"
        tables = set(inspect(db.engine).get_table_names())
        assert set(Base.metadata.tables) <= tables
        assert db.check_version() == "current"
        command.check(db.alembic_config())  # raises when the models drift from the migrations
        db.downgrade("base")
        assert set(inspect(db.engine).get_table_names()) <= {"alembic_version"}
    finally:
        db.upgrade()  # leave the shared PostgreSQL database migrated for the other tests
        db.dispose()


def test_newer_database_is_refused(tmp_path: Path) -> None:
    db = Database.open(f"sqlite:///{tmp_path / 'n.sqlite3'}")
    db.prepare()
    with db.engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999_from_the_future'"))
    with pytest.raises(DatabaseTooNewError, match="versão mais nova do MotoDesk"):
        db.prepare()


def test_older_sqlite_is_backed_up_before_upgrade(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "old.sqlite3"
    db = Database.open(f"sqlite:///{path}")
    db.prepare()
    with db.engine.begin() as conn:
        conn.execute(text("CREATE TABLE marker (v TEXT)"))
        conn.execute(text("INSERT INTO marker VALUES ('dados de antes')"))
    seen: list[list[Path]] = []
    monkeypatch.setattr(Database, "check_version", lambda self: "outdated")
    monkeypatch.setattr(Database, "upgrade", lambda self, rev="head": seen.append(
        sorted(tmp_path.glob("old.antes-atualizacao-*.sqlite3"))))
    assert db.prepare() == "upgraded"
    assert len(seen) == 1 and len(seen[0]) == 1, "the copy must exist before the upgrade runs"
    copy = sqlite3.connect(seen[0][0])
    assert copy.execute("SELECT v FROM marker").fetchone() == ("dados de antes",)
    copy.close()


def test_outdated_shared_postgresql_asks_for_db_upgrade(request: pytest.FixtureRequest) -> None:
    url = request.getfixturevalue("pg_migrated")
    db = Database.open(url)
    try:
        with db.engine.begin() as conn:
            conn.execute(text("DELETE FROM alembic_version"))
        with pytest.raises(DatabaseOutdatedError, match="motodesk db-upgrade"):
            db.prepare()
    finally:
        with db.engine.begin() as conn:
            conn.execute(text("INSERT INTO alembic_version VALUES (:v)"), {"v": db.head_revision()})
        db.dispose()
