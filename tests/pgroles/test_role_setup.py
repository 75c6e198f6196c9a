"""Setting up roles, run by a real owner (not a superuser): idempotent, refused in pt_BR without
CREATEROLE (issues 31 and 25 item 7), and the upgrade of an installation with the old shared login
role to per-user roles (issue 25 item 1)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from sqlalchemy import create_engine, make_url

from motodesk.models.db import Database
from motodesk.rules.common import Role
from motodesk.services import auth, people
from motodesk.services.context import AppContext
from motodesk.services.people import PersonInput
from motodesk.services.settings import ensure_defaults
from tests.pgroles.conftest import Cluster
from tests.tests_helpers import valid_cpf

OWNER_PASSWORD = "dono-senha-123"


def _cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "MOTODESK_DATABASE_URL"}
    return subprocess.run([sys.executable, "-m", "motodesk", *args], input=stdin, capture_output=True,
                          text=True, timeout=240, env=env)


def _psql(url: str) -> psycopg.Connection[Any]:
    return psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), connect_timeout=5,
                           autocommit=True)


@pytest.fixture
def owned(pg_cluster: Cluster, scratch_db: str) -> Iterator[tuple[str, str]]:
    """(database name, owner's URL): an empty database owned by a plain role with CREATEROLE."""
    name = make_url(scratch_db).database or ""
    owner = f"dono_{name}"
    with _psql(pg_cluster.url()) as conn:
        conn.execute(f"CREATE ROLE {owner} LOGIN CREATEROLE PASSWORD '{OWNER_PASSWORD}'")
        conn.execute(f'ALTER DATABASE "{name}" OWNER TO {owner}')
    yield name, pg_cluster.url(name, user=owner, password=OWNER_PASSWORD)


def test_init_db_login_role_runs_again_for_an_existing_role_without_a_superuser(
        pg_cluster: Cluster, owned: tuple[str, str]) -> None:
    name, url = owned
    role = f"estacao_{name}"
    for password in ("primeira-senha-1", "segunda-senha-2"):  # a second run, a new password
        out = _cli("init-db", "--login-role", role, "--database", url, stdin=password + "\n")
        assert out.returncode == 0, out.stderr
        assert "inesperado" not in out.stderr
    with _psql(pg_cluster.url(name, user=role, password="segunda-senha-2")) as conn:
        assert conn.execute("SELECT count(*) FROM alembic_version").fetchone() == (1,)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("DELETE FROM audit_events")


def test_init_db_without_createrole_ends_in_portuguese_with_exit_1(pg_cluster: Cluster,
                                                                  owned: tuple[str, str]) -> None:
    name, url = owned
    with _psql(pg_cluster.url()) as conn:
        conn.execute(f"ALTER ROLE dono_{name} NOCREATEROLE")
    for extra in ((), ("--per-user-roles",)):
        out = _cli("init-db", "--login-role", f"novo_{name}", *extra, "--database", url,
                   stdin="senha-do-perfil-1\n")
        assert out.returncode == 1, out.stderr
        assert "CREATEROLE" in out.stderr and "Nada foi alterado" in out.stderr
        assert "inesperado" not in out.stderr and "permission denied" not in out.stderr


def test_an_existing_superuser_role_is_refused_in_portuguese(pg_cluster: Cluster, owned: tuple[str, str]) -> None:
    name, url = owned
    with _psql(pg_cluster.url()) as conn:
        conn.execute(f"CREATE ROLE poderoso_{name} LOGIN SUPERUSER")
    out = _cli("init-db", "--login-role", f"poderoso_{name}", "--database", url,
               stdin="senha-do-perfil-1\n")
    assert out.returncode == 1 and "poderes de administração" in out.stderr, out.stderr
    with _psql(pg_cluster.url()) as conn:
        conn.execute(f"DROP ROLE poderoso_{name}")


def test_the_upgrade_from_the_shared_login_role_gives_each_user_a_role(pg_cluster: Cluster,
                                                                      owned: tuple[str, str]) -> None:
    name, url = owned
    shared = f"estacao_{name}"
    # The old way: the owner builds the database, the users log in with argon2 hashes, and every
    # workstation uses one shared login role that may name anyone in the trail.
    db = Database.open(url)
    db.prepare()
    ctx = AppContext(db)
    ensure_defaults(ctx)
    auth.create_first_admin(ctx, "chefe", "Chefe do Setor", "chefe-senha-123")
    admin = ctx.as_user(auth.authenticate(ctx, "chefe", "chefe-senha-123"))
    auth.create_user(admin, "rosa", "Rosa Lima", Role.CLERK, "senha-da-rosa")
    db.setup_login_role(shared, "compartilhada-1")
    db.dispose()
    with _psql(pg_cluster.url(name, user=shared, password="compartilhada-1")) as conn:
        assert conn.execute("SELECT count(*) FROM users").fetchone() == (2,)  # it reads everything today
    out = _cli("init-db", "--per-user-roles", "--login-role", shared, "--database", url,
               stdin="entrada-senha-1\n")
    assert out.returncode == 0, out.stderr
    temporary = dict(re.findall(r"^\s+([a-z0-9._-]+): (\S+)$", out.stdout, re.MULTILINE))
    assert set(temporary) == {"chefe", "rosa"}
    # The shared role is now only the workstations' way in: it reads no data any more.
    with _psql(pg_cluster.url(name, user=shared, password="entrada-senha-1")) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT * FROM users")
    gate_db = Database.open(pg_cluster.url(name, user=shared, password="entrada-senha-1"))
    gate = AppContext(gate_db)
    try:
        with pytest.raises(auth.AuthenticationError):
            auth.authenticate(gate, "rosa", "senha-da-rosa")  # the old argon2 password is gone
        rosa_user = auth.authenticate(gate, "rosa", temporary["rosa"])
        assert rosa_user.must_change_password and rosa_user.database is not None
        rosa = gate.as_user(rosa_user)
        rosa = rosa.as_user(auth.change_own_password(rosa, temporary["rosa"], "nova-da-rosa-1"))
        people.save_person(rosa, PersonInput(full_name="Pessoa Depois da Troca", cpf=valid_cpf()))
        engine = create_engine(url)
        with engine.connect() as conn:
            who = conn.exec_driver_sql("SELECT user_login FROM audit_events WHERE table_name = 'people' "
                                       "ORDER BY id DESC LIMIT 1").scalar()
            session = conn.exec_driver_sql("SELECT count(*) FROM pg_roles WHERE rolname = %s",
                                           (f"md_{name}_u_rosa",)).scalar()
        engine.dispose()
        assert who == "rosa" and session == 1
        again = _cli("init-db", "--per-user-roles", "--login-role", shared, "--database", url, stdin="entrada-senha-1\n")
        assert again.returncode == 0 and "Senhas provisórias" not in again.stdout  # nobody's password reset
        again_user = auth.authenticate(gate, "rosa", "nova-da-rosa-1")
        assert again_user.login == "rosa" and again_user.database is not None
        for opened in {id(d): d for d in (again_user.database, rosa_user.database, rosa.db)}.values():
            opened.dispose()
    finally:
        gate_db.dispose()
