"""An administrator backs up PostgreSQL under his own role (issue 25, items 1 and 3): the reference
schema the backup compares with is built without CREATE on the database, and nothing of it stays."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
import pytest

from motodesk.models.db import Database
from motodesk.rules.common import Role
from motodesk.services import backup, people, users
from motodesk.services.people import PersonInput
from tests.pgroles.conftest import CHEFE_PASSWORD, RolesSite
from tests.tests_helpers import valid_cpf


def _raw(site: RolesSite, login: str, password: str) -> psycopg.Connection[Any]:
    return site.connect(site.role_of(login), password)


def _scratch_schemas(site: RolesSite) -> list[str]:
    with site.owner.db.engine.connect() as conn:
        return [r[0] for r in conn.exec_driver_sql(
            "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'motodesk\\_referencia%%'").all()]


def test_an_administrators_own_role_backs_up_and_the_copy_restores(roles_site: RolesSite, scratch_db: str,
                                                                   tmp_path: Path) -> None:
    admin = roles_site.login("chefe", CHEFE_PASSWORD)
    users.create_user(admin, "caio", "Caio Atendente", Role.CLERK, "senha-do-caio-1")
    people.save_person(roles_site.login("caio", "senha-do-caio-1"), PersonInput(full_name="Pessoa da Cópia Souza", cpf=valid_cpf()))
    with admin.db.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT session_user").scalar() == roles_site.role_of("chefe")
        assert conn.exec_driver_sql("SELECT has_database_privilege(current_database(), 'CREATE')").scalar() is False
    result = backup.create_backup(admin, tmp_path / "copia.zip")
    assert result.path.exists() and result.manifest.kind == "postgresql"
    assert result.manifest.created_by == "chefe"
    assert _scratch_schemas(roles_site) == []  # the scratch schema was rolled back
    target = Database.open(scratch_db)
    try:
        backup.restore_backup(result.path, target)
        with target.engine.connect() as conn:
            assert conn.exec_driver_sql(
                "SELECT count(*) FROM people WHERE full_name = 'Pessoa da Cópia Souza'").scalar() == 1
    finally:
        target.dispose()


def test_the_scratch_schema_given_to_an_administrator_can_never_be_committed(roles_site: RolesSite) -> None:
    with _raw(roles_site, "chefe", CHEFE_PASSWORD) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("CREATE SCHEMA minha")  # the role itself may not create schemas
        conn.rollback()
        name = conn.execute("SELECT motodesk_reference_schema()").fetchone()[0]
        conn.execute(f'CREATE TABLE "{name}".planta (id integer)')
        with pytest.raises(psycopg.errors.InvalidTransactionState, match="never committed"):
            conn.commit()
    assert _scratch_schemas(roles_site) == []


def test_only_an_administrator_gets_a_scratch_schema(roles_site: RolesSite) -> None:
    admin = roles_site.login("chefe", CHEFE_PASSWORD)
    users.create_user(admin, "caio", "Caio Atendente", Role.CLERK, "senha-do-caio-1")
    with _raw(roles_site, "caio", "senha-do-caio-1") as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT motodesk_reference_schema()")
