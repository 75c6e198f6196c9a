"""A temporary password ends only with a new password, and the server is the one that says so
(issue 25, item 1: the lockout and the temporary password keep working with per-user roles)."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

from motodesk.rules.common import Role
from motodesk.services import auth, users
from motodesk.services.errors import PermissionDeniedError
from tests.pgroles.conftest import CHEFE_PASSWORD, RolesSite
from tests.tests_helpers import raises_code

TEMPORARY = "provisoria-123"


def _raw(site: RolesSite, login: str, password: str) -> psycopg.Connection[Any]:
    return site.connect(site.role_of(login), password)


def _flag(site: RolesSite, login: str) -> bool:
    with site.owner.db.engine.connect() as conn:
        return bool(conn.exec_driver_sql("SELECT must_change_password FROM users WHERE login = %s",
                                         (login,)).scalar())


@pytest.fixture
def admin(roles_site: RolesSite) -> Any:
    return roles_site.login("chefe", CHEFE_PASSWORD)


@pytest.fixture
def bia(roles_site: RolesSite, admin: Any) -> str:
    users.create_user(admin, "bia", "Bia Vistoriadora", Role.INSPECTOR, TEMPORARY, temporary=True)
    assert _flag(roles_site, "bia")
    return "bia"


def test_saying_the_password_changed_without_changing_it_is_refused_and_the_flag_stays(
        roles_site: RolesSite, bia: str) -> None:
    with _raw(roles_site, bia, TEMPORARY) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="not changed"):
            conn.execute("SELECT motodesk_own_password_changed()")
    assert _flag(roles_site, bia)
    # The same after a reset by the administrator (a new mark for the new temporary password).
    users.reset_password(roles_site.login("chefe", CHEFE_PASSWORD), bia, "outra-provisoria-1")
    with _raw(roles_site, bia, "outra-provisoria-1") as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT motodesk_own_password_changed()")
    assert _flag(roles_site, bia)
    assert roles_site.login(bia, "outra-provisoria-1").user.must_change_password


def test_after_alter_role_password_the_server_clears_the_flag(roles_site: RolesSite, bia: str) -> None:
    with _raw(roles_site, bia, TEMPORARY) as conn:
        verifier = conn.pgconn.encrypt_password(b"minha-nova-senha-1", roles_site.role_of(bia).encode(),
                                                b"scram-sha-256").decode()
        conn.execute(f"ALTER ROLE CURRENT_USER PASSWORD '{verifier}'")
        assert conn.execute("SELECT motodesk_own_password_changed()").fetchone() == (True,)
        conn.commit()
    assert not _flag(roles_site, bia)
    assert not roles_site.login(bia, "minha-nova-senha-1").user.must_change_password


@pytest.mark.parametrize("statement", [
    "UPDATE users SET must_change_password = false WHERE login = 'bia'",
    "UPDATE users SET must_change_password = false",
    "INSERT INTO role_password_marks (login, verifier_sha256, set_at) VALUES ('bia', 'x', now())",
    "DELETE FROM role_password_marks",
    "SELECT * FROM role_password_marks",
])
def test_a_user_cannot_write_the_flag_nor_the_marks(roles_site: RolesSite, bia: str, statement: str) -> None:
    with _raw(roles_site, bia, TEMPORARY) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(statement)
    assert _flag(roles_site, bia)


def test_an_administrator_with_a_temporary_password_cannot_clear_his_own_flag(
        roles_site: RolesSite, admin: Any) -> None:
    users.create_user(admin, "ana", "Ana Administradora", Role.ADMIN, TEMPORARY, temporary=True)
    with _raw(roles_site, "ana", TEMPORARY) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="temporary password"):
            conn.execute("UPDATE users SET must_change_password = false WHERE login = 'ana'")
        conn.rollback()
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT motodesk_own_password_changed()")
        conn.rollback()
        # Re-sending the verifier the administrator set is no new password either.
        with roles_site.owner.db.engine.connect() as owner:
            set_by_admin = owner.exec_driver_sql("SELECT rolpassword FROM pg_authid WHERE rolname = %s",
                                                 (roles_site.role_of("ana"),)).scalar()
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT motodesk_change_own_password(%s)", (set_by_admin,))
    assert _flag(roles_site, "ana")
    ana = roles_site.login("ana", TEMPORARY)
    with raises_code(PermissionDeniedError, "user.self_temporary"):
        users.reset_password(ana, "ana", "definitiva-123", temporary=False)
    # Another administrator may make a reset final; the user's own change ends the flag as well.
    users.reset_password(admin, "ana", "definitiva-123", temporary=False)
    assert not _flag(roles_site, "ana")


def test_the_application_changes_the_password_and_ends_the_flag_in_one_server_step(
        roles_site: RolesSite, bia: str) -> None:
    me = roles_site.login(bia, TEMPORARY)
    changed = auth.change_own_password(me, TEMPORARY, "nova-senha-da-bia-1")
    assert not changed.must_change_password and not _flag(roles_site, bia)
    with roles_site.owner.db.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM role_password_marks WHERE login = 'bia'").scalar() == 0
    with pytest.raises(auth.AuthenticationError):
        roles_site.login(bia, TEMPORARY)
    with _raw(roles_site, bia, "nova-senha-da-bia-1") as conn:
        with pytest.raises(psycopg.errors.InvalidParameterValue):  # never a clear-text password
            conn.execute("SELECT motodesk_change_own_password('texto-claro-1')")
