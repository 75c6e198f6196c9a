"""Issue 31: a backup that says "assinada" always restores.

`motodesk backup` compares the live schema with what the shipped migrations build (a scratch file on
SQLite, a scratch schema rolled back on PostgreSQL) and refuses, in pt_BR naming what differs, a
database with an index, a constraint, a trigger or a table dropped, a column added, NOT NULL
removed or `alembic_version` emptied. Each variant runs on a copy of one prepared database
(PostgreSQL: CREATE DATABASE … TEMPLATE; SQLite: a copy of the file).
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from backup_tools import empty_database_fixture  # type: ignore[import-not-found]  # noqa: F401
from pg_scratch import scratch_database  # type: ignore[import-not-found]
from sqlalchemy import make_url, text
from tests_helpers import names_in, raises_code  # type: ignore[import-not-found]

from motodesk.models.db import Database
from motodesk.services import backup as backups
from motodesk.services.context import AppContext
from motodesk.services.demo import seed_demo
from motodesk.services.settings import ensure_defaults

MakeDb = Callable[..., Database]

SCHEMA, NO_REVISION = "backup.schema_differs", "backup.no_revision"
# (label, SQL that damages the database, the refusal's code, the object it names; "@" the one the SQL picked)
PG_DAMAGE: list[tuple[str, str, str, str]] = [
    ("índice", "DROP INDEX ix_search_people_name_trgm", SCHEMA, "public.ix_search_people_name_trgm"),
    ("única", "@unique", SCHEMA, "@"),
    ("check", "@check", SCHEMA, "@"),
    ("chave estrangeira", "@foreign", SCHEMA, "@"),
    ("gatilho", "@trigger", SCHEMA, "@"),
    ("gatilho desligado", "@disable", SCHEMA, "@"),
    ("tabela", "DROP TABLE settings CASCADE", SCHEMA, "public.settings"),
    ("coluna a mais", "ALTER TABLE people ADD COLUMN apelido text", SCHEMA, "public.people.apelido"),
    ("coluna a menos", "ALTER TABLE people DROP COLUMN name_search CASCADE", SCHEMA, "public.people.name_search"),
    ("not null", "ALTER TABLE people ALTER COLUMN full_name DROP NOT NULL", SCHEMA, "public.people.full_name"),
    ("padrão", "ALTER TABLE people ALTER COLUMN version SET DEFAULT 7", SCHEMA, "public.people.version"),
    ("tipo", "ALTER TABLE settings ALTER COLUMN value TYPE varchar(4000)", SCHEMA, "public.settings.value"),
    ("tabela a mais", "CREATE TABLE plantada (x text)", SCHEMA, "public.plantada"),
    ("função a mais", "CREATE FUNCTION plantada() RETURNS int LANGUAGE sql AS 'SELECT 1'", SCHEMA,
     "public.plantada()"),
    ("esquema a mais", "CREATE SCHEMA plantado", SCHEMA, "plantado"),
    ("alembic_version vazia", "DELETE FROM alembic_version", NO_REVISION, "alembic_version"),
    ("alembic_version apagada", "DROP TABLE alembic_version", NO_REVISION, "alembic_version"),
]

_PG_PICK = {
    "@unique": "SELECT conrelid::regclass::text, conname FROM pg_constraint WHERE contype = 'u' "
               "AND connamespace = 'public'::regnamespace ORDER BY conname LIMIT 1",
    "@check": "SELECT conrelid::regclass::text, conname FROM pg_constraint WHERE contype = 'c' "
              "AND connamespace = 'public'::regnamespace ORDER BY conname LIMIT 1",
    "@foreign": "SELECT conrelid::regclass::text, conname FROM pg_constraint WHERE contype = 'f' "
                "AND connamespace = 'public'::regnamespace ORDER BY conname LIMIT 1",
    "@trigger": "SELECT tgrelid::regclass::text, tgname FROM pg_trigger WHERE NOT tgisinternal "
                "AND tgrelid = 'people'::regclass ORDER BY tgname LIMIT 1",
}


def _pg_statement(conn: object, damage: str) -> tuple[str, str]:
    """The SQL of a damage and the name of the object it picked (a constraint, a trigger; "" for none)."""
    if not damage.startswith("@"):
        return damage, ""
    if damage == "@disable":
        table, name = conn.exec_driver_sql(_PG_PICK["@trigger"]).one()  # type: ignore[attr-defined]
        return f'ALTER TABLE {table} DISABLE TRIGGER "{name}"', name
    table, name = conn.exec_driver_sql(_PG_PICK[damage]).one()  # type: ignore[attr-defined]
    if damage == "@trigger":
        return f'DROP TRIGGER "{name}" ON {table}', name
    return f'ALTER TABLE {table} DROP CONSTRAINT "{name}"', name


@pytest.fixture(name="pg_template")
def pg_template_fixture() -> Iterator[Callable[[], Database]]:
    """One prepared, seeded PostgreSQL database; each call returns a new copy of it (TEMPLATE)."""
    made: list[Database] = []
    with ExitStack() as scratch:
        base_url = scratch.enter_context(scratch_database("motodesk_dano"))
        db = Database.open(base_url)
        db.prepare(allow_upgrade_shared=True)
        ctx = AppContext(db)
        ensure_defaults(ctx)
        seed_demo(ctx, 5)
        db.dispose()

        def copy() -> Database:
            url = scratch.enter_context(scratch_database("motodesk_dano_copia", template=make_url(base_url).database))
            made.append(copied := Database.open(url))
            return copied

        yield copy
        for database in made:
            database.dispose()


@pytest.mark.parametrize(("label", "damage", "code", "named"), PG_DAMAGE, ids=[d[0] for d in PG_DAMAGE])
def test_a_damaged_postgresql_schema_is_not_backed_up(pg_template: Callable[[], Database], tmp_path: Path,
                                                      label: str, damage: str, code: str, named: str) -> None:
    db = pg_template()
    with db.engine.begin() as conn:
        statement, picked = _pg_statement(conn, damage)
        conn.exec_driver_sql(statement)
    out = tmp_path / "copias"
    out.mkdir()
    with raises_code(backups.BackupError, code) as refused:
        backups.create_backup(AppContext(db), out / "copia.zip")
    names_in(refused.value, picked if named == "@" else named)
    assert list(out.iterdir()) == [], f"{label}: nothing is written"
    with db.engine.connect() as conn:  # the scratch schema of the reference is gone
        assert not conn.execute(text("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'motodesk_referencia%'"
                                     )).all()


@pytest.mark.parametrize("backend", ["postgresql"])
def test_a_healthy_postgresql_backup_still_restores(pg_template: Callable[[], Database], empty_database: MakeDb,
                                                    tmp_path: Path, backend: str) -> None:
    db = pg_template()
    result = backups.create_backup(AppContext(db), tmp_path / "boa.zip")
    restored = backups.restore_backup(result.path, target := empty_database())
    assert restored.snapshot.counts == result.manifest.counts and restored.snapshot.counts["people"] == 5
    assert not target.is_empty()


SQLITE_DAMAGE: list[tuple[str, str, str, str]] = [
    ("índice", "DROP INDEX ix_search_permits_person", SCHEMA, "ix_search_permits_person"),
    ("gatilho", "@trigger", SCHEMA, "@"),
    ("tabela", "DROP TABLE settings", SCHEMA, "settings"),
    ("coluna a mais", "ALTER TABLE people ADD COLUMN apelido TEXT", SCHEMA, "people"),
    ("tabela a mais", "CREATE TABLE plantada (x TEXT)", SCHEMA, "plantada"),
    ("gatilho a mais", "CREATE TRIGGER plantado AFTER INSERT ON people BEGIN DELETE FROM settings; END", SCHEMA,
     "plantado"),
    ("alembic_version vazia", "DELETE FROM alembic_version", NO_REVISION, "alembic_version"),
    ("alembic_version apagada", "DROP TABLE alembic_version", NO_REVISION, "alembic_version"),
]


@pytest.fixture(name="sqlite_source")
def sqlite_source_fixture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("origem")
    db = Database.open(f"sqlite:///{folder / 'base.sqlite3'}")
    db.prepare(allow_upgrade_shared=True)
    ctx = AppContext(db)
    ensure_defaults(ctx)
    seed_demo(ctx, 5)
    db.dispose()
    return folder / "base.sqlite3"


@pytest.mark.parametrize(("label", "damage", "code", "named"), SQLITE_DAMAGE, ids=[d[0] for d in SQLITE_DAMAGE])
def test_a_damaged_sqlite_schema_is_not_backed_up(sqlite_source: Path, tmp_path: Path, label: str, damage: str,
                                                  code: str, named: str) -> None:
    path = tmp_path / "banco.sqlite3"
    shutil.copy(sqlite_source, path)
    con = sqlite3.connect(path)
    if damage == "@trigger":
        named = con.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'people' "
                            "ORDER BY name LIMIT 1").fetchone()[0]
        damage = f'DROP TRIGGER "{named}"'
    con.execute(damage)
    con.commit()
    con.close()
    out = tmp_path / "copias"
    out.mkdir()
    db = Database.open(f"sqlite:///{path}")
    try:
        with raises_code(backups.BackupError, code) as refused:
            backups.create_backup(AppContext(db), out / "copia.zip")
    finally:
        db.dispose()
    names_in(refused.value, named)
    assert list(out.iterdir()) == [], f"{label}: nothing is written"


@pytest.mark.parametrize("backend", ["sqlite"])
def test_a_healthy_sqlite_backup_still_restores(sqlite_source: Path, empty_database: MakeDb, tmp_path: Path,
                                                backend: str) -> None:
    db = Database.open(f"sqlite:///{sqlite_source}")
    try:
        result = backups.create_backup(AppContext(db), tmp_path / "boa.zip")
    finally:
        db.dispose()
    restored = backups.restore_backup(result.path, empty_database())
    assert restored.snapshot.counts == result.manifest.counts and restored.snapshot.counts["people"] == 5
