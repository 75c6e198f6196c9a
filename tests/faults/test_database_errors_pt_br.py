"""Issue 31 (raw server messages) and issue 25 item 7 (invalid UTF-8): every database error a person
can meet is explained in pt_BR, the server's own words only in the log.

The errors are provoked for real: a date 'infinity' read from PostgreSQL, a REVOKE'd table for a
role made for the test (roles are cluster-wide: a unique name, dropped afterwards), constraint
violations, a lock timeout, a serialization failure, a read-only transaction, a dropped connection,
a full and a read-only SQLite file, a text column holding bytes that are no UTF-8.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from backup_tools import PG_ADMIN_URL, empty_database_fixture  # type: ignore[import-not-found]  # noqa: F401
from sqlalchemy import create_engine, make_url
from sqlalchemy.exc import DBAPIError

from motodesk.models.db import Database, explain_error
from motodesk.services import backup_keys
from motodesk.services.context import AppContext

MakeDb = Callable[..., Database]
ADMIN = ("--user", "admin", "--password-stdin")
PASSWORD = "senha-do-teste\n"
ENGLISH = ("permission denied", "date too large", "violates", "duplicate key", "deadlock", "could not",
           "canceling statement", "read-only transaction", "terminating", "database or disk is full",
           "attempt to write", "Could not decode", "Traceback", "erro inesperado")


def _english_free(message: str) -> None:
    for words in ENGLISH:
        assert words.lower() not in message.lower(), (words, message)


def _env(tmp_path: Path) -> dict[str, str]:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data"),
           backup_keys.KEY_DIR_ENV: str(tmp_path / "chaves"), "MOTODESK_LOG_DIR": str(tmp_path / "log")}
    env.pop("MOTODESK_DATABASE_URL", None)
    return env


def _cli(env: dict[str, str], *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "motodesk", *args], capture_output=True, text=True, timeout=300,
                          env=env, input=stdin)


def _register(env: dict[str, str], url: str) -> None:
    assert _cli(env, "init-db", "--database", url).returncode == 0
    assert _cli(env, "create-user", "admin", "--role", "admin", "--database", url, stdin=PASSWORD).returncode == 0
    out = _cli(env, "seed-demo", "--people", "3", "--database", url, *ADMIN, stdin=PASSWORD)
    assert out.returncode == 0, out.stderr


def _url(db: Database, user: str | None = None) -> str:
    url = db.url if user is None else db.url.set(username=user)
    return url.render_as_string(hide_password=False)


@pytest.mark.parametrize("backend", ["postgresql"])
def test_an_infinite_date_is_named_in_portuguese(empty_database: MakeDb, tmp_path: Path, backend: str) -> None:
    db = empty_database()
    env = _env(tmp_path)
    _register(env, _url(db))
    with db.engine.begin() as conn:
        conn.exec_driver_sql("UPDATE people SET birth_date = 'infinity' WHERE id = (SELECT min(id) FROM people)")
    db.dispose()
    out = _cli(env, "backup", str(tmp_path / "copia.zip"), "--database", _url(db), *ADMIN, stdin=PASSWORD)
    assert out.returncode == 1, (out.returncode, out.stderr)
    assert "fora do intervalo que o MotoDesk aceita" in out.stderr and "infinity" in out.stderr, out.stderr
    _english_free(out.stderr)
    assert not (tmp_path / "copia.zip").exists()
    assert "date too large" in (tmp_path / "log" / "motodesk.log").read_text(encoding="utf-8")  # the original


@pytest.mark.parametrize("backend", ["postgresql"])
def test_permission_denied_is_named_in_portuguese(empty_database: MakeDb, tmp_path: Path, backend: str) -> None:
    db = empty_database()
    env = _env(tmp_path)
    _register(env, _url(db))
    role = f"motodesk_sem_permissao_{uuid.uuid4().hex[:8]}"
    admin = create_engine(make_url(PG_ADMIN_URL).set(database=db.url.database), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f"CREATE ROLE {role} LOGIN")
            conn.exec_driver_sql(f'GRANT CONNECT, CREATE ON DATABASE "{db.url.database}" TO {role}')
            conn.exec_driver_sql(f"GRANT USAGE ON SCHEMA public TO {role}")
            conn.exec_driver_sql(f"GRANT ALL ON ALL TABLES IN SCHEMA public TO {role}")
            conn.exec_driver_sql(f"GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO {role}")
            conn.exec_driver_sql(f"REVOKE ALL ON card_batches FROM {role}")
        out = _cli(env, "card-stock", "batches", "--database", _url(db, role), *ADMIN, stdin=PASSWORD)
        assert out.returncode == 1, (out.returncode, out.stderr)
        assert "não tem permissão" in out.stderr and "card_batches" in out.stderr, out.stderr
        _english_free(out.stderr)
        assert "permission denied" in (tmp_path / "log" / "motodesk.log").read_text(encoding="utf-8")
    finally:
        db.dispose()
        with admin.connect() as conn:
            conn.exec_driver_sql(f"DROP OWNED BY {role}")
            conn.exec_driver_sql(f"DROP ROLE {role}")
        admin.dispose()


def _fails(db: Database, *statements: str) -> str:
    with pytest.raises(DBAPIError) as caught, db.engine.begin() as conn:
        for statement in statements:
            conn.exec_driver_sql(statement)
    message = explain_error(caught.value, db.url)
    _english_free(message)
    return message


def test_constraint_violations_are_explained(ctx: AppContext, backend: str) -> None:
    db = ctx.db
    key = uuid.uuid4().hex[:8]
    with db.engine.begin() as conn:
        conn.exec_driver_sql(f"INSERT INTO settings (key, value, version) VALUES ('t-{key}', '1', 1)")
    assert "deve ser único" in _fails(db, f"INSERT INTO settings (key, value, version) VALUES ('t-{key}', '2', 1)") or \
        "já existe um registro com esta chave" in _fails(db, f"INSERT INTO settings (key, value, version) VALUES ('t-{key}', '2', 1)")
    assert "falta um valor obrigatório" in _fails(db, "INSERT INTO people (full_name) VALUES (NULL)")
    assert "aponta para outro que não existe" in _fails(
        db, "INSERT INTO attachments (owner_table, owner_id, blob_sha256, filename, media_type, size, added_by, "
            "added_at) VALUES ('people', 1, 'ff00', 'x.pdf', 'application/pdf', 1, 'x', CURRENT_TIMESTAMP)")


@pytest.mark.parametrize("backend", ["postgresql"])
def test_server_conditions_are_explained(ctx: AppContext, backend: str) -> None:
    db = ctx.db
    assert "fora do intervalo" in _fails(db, "SELECT 2147483647::int + 1")
    assert "modo somente leitura" in _fails(db, "SET TRANSACTION READ ONLY",
                                            "INSERT INTO settings (key, value, version) VALUES ('ro', '1', 1)")
    # a lock held by another workstation, and a lock_timeout
    with db.engine.begin() as conn:
        conn.exec_driver_sql("INSERT INTO settings (key, value, version) VALUES ('trava', '1', 1)")
    holder = db.engine.connect()
    try:
        holder.exec_driver_sql("SELECT * FROM settings WHERE key = 'trava' FOR UPDATE")
        assert "bloqueados por outra estação" in _fails(db, "SET LOCAL lock_timeout = '100ms'",
                                                        "UPDATE settings SET value = '2' WHERE key = 'trava'")
        # a statement_timeout
        assert "demorou demais" in _fails(db, "SET LOCAL statement_timeout = '100ms'", "SELECT pg_sleep(2)")
    finally:
        holder.rollback()
        holder.close()
    # the server drops the connection
    with pytest.raises(DBAPIError) as caught, db.engine.connect() as conn:
        conn.exec_driver_sql("SELECT pg_terminate_backend(pg_backend_pid())")
    message = explain_error(caught.value, db.url)
    assert "Não foi possível conectar ao servidor" in message, message
    _english_free(message)


@pytest.mark.parametrize("backend", ["sqlite"])
def test_sqlite_conditions_are_explained(tmp_path: Path, backend: str) -> None:
    path = tmp_path / "pequeno.sqlite3"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE t (x TEXT)")
    con.commit()
    con.close()
    db = Database.open(f"sqlite:///{path}")
    try:
        assert "disco do banco de dados está cheio" in _fails(
            db, "PRAGMA max_page_count = 3", "INSERT INTO t SELECT hex(randomblob(3000)) FROM "
            "(WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50) SELECT i FROM n)")
    finally:
        db.dispose()
    readonly = Database.open(f"sqlite:///file:{path}?mode=ro&uri=true")
    try:
        assert "somente leitura" in _fails(readonly, "INSERT INTO t VALUES ('x')")
    finally:
        readonly.dispose()


@pytest.mark.parametrize("backend", ["sqlite"])
def test_a_backup_of_text_that_is_no_utf8_ends_in_portuguese(tmp_path: Path, backend: str) -> None:
    env = _env(tmp_path)
    source = tmp_path / os.fsdecode(b"origem-\xff.sqlite3")  # a file name with bytes that are no UTF-8
    url = f"sqlite:///{source}"
    _register(env, url)
    out = _cli(env, "backup", str(tmp_path / "boa.zip"), "--database", url, *ADMIN, stdin=PASSWORD)
    assert out.returncode == 0, out.stderr  # the name of the database file is no obstacle
    out = _cli(env, "backup", str(tmp_path / os.fsdecode(b"copia-\xfe.zip")), "--database", url, *ADMIN,
               stdin=PASSWORD)
    assert out.returncode == 1 and "caracteres inválidos" in out.stderr, (out.returncode, out.stderr)
    assert not list(tmp_path.glob("copia-*"))
    con = sqlite3.connect(source)  # a text column holding invalid UTF-8, written by raw sqlite3
    con.execute("UPDATE people SET full_name = CAST(X'4A6F61FF6F' AS TEXT) WHERE id = (SELECT min(id) FROM people)")
    con.commit()
    con.close()
    out = _cli(env, "backup", str(tmp_path / "copia.zip"), "--database", url, *ADMIN, stdin=PASSWORD)
    assert out.returncode == 1, (out.returncode, out.stderr)
    assert "não são UTF-8 válido (coluna full_name)" in out.stderr and "Nenhuma cópia foi gravada" in out.stderr
    _english_free(out.stderr)
    assert not (tmp_path / "copia.zip").exists()
