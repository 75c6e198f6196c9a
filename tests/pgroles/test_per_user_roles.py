"""One PostgreSQL role per MotoDesk user (issue 25, item 1), on a cluster that checks passwords.

The server authenticates each user; the trail, the access log and every row's author come from
``session_user``; the profile groups' privileges refuse what a profile may not do; administration
manages the roles; the lockout, the temporary password and a disabled user hold.
"""

from __future__ import annotations

import json
from typing import Any

import psycopg
import pytest

from motodesk.rules.common import Role
from motodesk.services import auth, people, users
from motodesk.services.errors import AuthenticationError, InvalidInputError
from motodesk.services.people import PersonInput
from tests.pgroles.conftest import CHEFE_PASSWORD, RolesSite
from tests.tests_helpers import raises_code, valid_cpf

MARIA_PASSWORD = "maria-senha-123"


@pytest.fixture
def admin(roles_site: RolesSite) -> Any:
    return roles_site.login("chefe", CHEFE_PASSWORD)


@pytest.fixture
def maria(roles_site: RolesSite, admin: Any) -> Any:
    users.create_user(admin, "maria", "Maria Atendente", Role.CLERK, MARIA_PASSWORD, temporary=False)
    return roles_site.login("maria", MARIA_PASSWORD)


def _last_audit(site: RolesSite, table: str) -> Any:
    with site.owner.db.engine.connect() as conn:
        return conn.exec_driver_sql(
            "SELECT user_login, changes FROM audit_events WHERE table_name = %s ORDER BY id DESC LIMIT 1",
            (table,)).first()


def test_the_server_checks_the_password_and_the_user_works_as_his_own_role(roles_site: RolesSite,
                                                                            maria: Any) -> None:
    assert maria.db is not roles_site.gate.db
    with maria.db.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT session_user").scalar() == roles_site.role_of("maria")
    with roles_site.owner.db.engine.connect() as conn:
        stored = conn.exec_driver_sql("SELECT password_hash, last_login_at FROM users WHERE login = 'maria'").first()
    assert stored.password_hash == "!postgresql-scram" and stored.last_login_at is not None  # no hash kept
    saved = people.save_person(maria, PersonInput(full_name="Joana Teste da Silva", cpf=valid_cpf()))
    row = _last_audit(roles_site, "people")
    assert row.user_login == "maria" and "Joana" in row.changes
    assert saved.id


def test_a_session_cannot_name_someone_else_in_the_trail_or_hide_the_values(roles_site: RolesSite,
                                                                            maria: Any) -> None:
    with roles_site.connect(roles_site.role_of("maria"), MARIA_PASSWORD) as conn:
        conn.execute("SELECT set_config('motodesk.user', 'chefe', true)")
        conn.execute("SELECT set_config('motodesk.redact', 'on', true)")
        conn.execute("INSERT INTO organisations (kind, name, cnpj, created_at, updated_at, version) "
                     "VALUES ('cooperative', 'Cooperativa Forjada', '11222333000181', now(), now(), 1)")
    row = _last_audit(roles_site, "organisations")
    assert row.user_login == "maria"  # the login the server authenticated, not the setting
    assert json.loads(row.changes)["name"] == [None, "Cooperativa Forjada"]  # not redacted


def test_an_access_log_row_naming_someone_else_is_written_with_the_real_author(roles_site: RolesSite,
                                                                               maria: Any) -> None:
    with roles_site.connect(roles_site.role_of("maria"), MARIA_PASSWORD) as conn:
        conn.execute("INSERT INTO access_log (at, user_login, data_kind, screen) "
                     "VALUES (now(), 'chefe', 'dossier', 'forjado')")
    with roles_site.owner.db.engine.connect() as conn:
        logged = conn.exec_driver_sql("SELECT user_login FROM access_log WHERE screen = 'forjado'").scalar()
    assert logged == "maria"


@pytest.mark.parametrize("statement", [
    "UPDATE settings SET value = '1' WHERE key = 'population'",
    "INSERT INTO settings (key, value, version) VALUES ('x', '1', 1)",
    "UPDATE users SET role = 'admin' WHERE login = 'maria'",
    "INSERT INTO users (login, full_name, role, password_hash, failed_logins, locked, active, version, "
    "must_change_password) VALUES ('novo', 'N', 'admin', 'x', 0, false, true, 1, false)",
    "DELETE FROM audit_events",
    "UPDATE audit_events SET user_login = 'chefe'",
    "INSERT INTO audit_events (at, user_login, table_name, row_key, action, changes) "
    "VALUES (now(), 'chefe', 'people', '1', 'insert', '{}')",
    "DELETE FROM access_log",
    "UPDATE access_log SET user_login = 'chefe'",
    "INSERT INTO decisions (id) VALUES (1)",
    "SELECT motodesk_sync_role('maria', NULL)",
    "ALTER ROLE CURRENT_USER SUPERUSER",
])
def test_a_clerk_role_is_refused_what_a_clerk_may_not_do(roles_site: RolesSite, maria: Any,
                                                         statement: str) -> None:
    with roles_site.connect(roles_site.role_of("maria"), MARIA_PASSWORD) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(statement)


@pytest.mark.parametrize("statement", ["DELETE FROM audit_events", "UPDATE access_log SET screen = 'x'",
                                       "TRUNCATE audit_events"])
def test_not_even_an_administrator_rewrites_the_trail_or_the_access_log(roles_site: RolesSite,
                                                                        admin: Any, statement: str) -> None:
    with roles_site.connect(roles_site.role_of("chefe"), CHEFE_PASSWORD) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(statement)


def test_the_pre_login_role_reads_no_data(roles_site: RolesSite) -> None:
    for statement in ("SELECT * FROM users", "SELECT * FROM settings", "SELECT * FROM people"):
        with roles_site.connect(roles_site.gate_role, "estacao-senha-1") as conn:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
    with roles_site.connect(roles_site.gate_role, "estacao-senha-1") as conn:
        assert conn.execute("SELECT count(*) FROM alembic_version").fetchone() == (1,)


def test_an_administrator_writes_users_and_settings(roles_site: RolesSite, admin: Any, maria: Any) -> None:
    from motodesk.services.settings import law_settings, update_settings

    population = law_settings(admin).population
    update_settings(admin, {"population": population + 1})
    assert law_settings(maria).population == population + 1
    assert users.change_role(admin, "maria", Role.INSPECTOR).role is Role.INSPECTOR
    with roles_site.connect(roles_site.role_of("maria"), MARIA_PASSWORD) as conn:
        groups = {r[0] for r in conn.execute(
            "SELECT g.rolname FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid "
            "WHERE m.member = (SELECT oid FROM pg_roles WHERE rolname = session_user)")}
    assert groups == {f"md_{roles_site.name}_inspector"}


def test_a_disabled_user_cannot_connect_and_an_enabled_one_can_again(roles_site: RolesSite, admin: Any,
                                                                      maria: Any) -> None:
    open_session = roles_site.connect(roles_site.role_of("maria"), MARIA_PASSWORD)
    users.set_active(admin, "maria", False)
    with pytest.raises(psycopg.OperationalError):
        roles_site.connect(roles_site.role_of("maria"), MARIA_PASSWORD)
    with pytest.raises(psycopg.OperationalError):  # the session she had open was ended
        open_session.execute("SELECT 1")
    open_session.close()
    with pytest.raises(AuthenticationError) as refused:
        roles_site.login("maria", MARIA_PASSWORD)
    assert str(refused.value) == auth.WRONG_CREDENTIALS
    users.set_active(admin, "maria", True)
    assert roles_site.login("maria", MARIA_PASSWORD).user.login == "maria"


def test_wrong_passwords_lock_the_role_and_a_locked_login_reads_like_a_wrong_password(
        roles_site: RolesSite, admin: Any, maria: Any) -> None:
    answers = []
    for _ in range(auth.MAX_FAILED_LOGINS):
        with pytest.raises(AuthenticationError) as wrong:
            roles_site.login("maria", "senha-errada-1")
        answers.append(str(wrong.value))
    with pytest.raises(AuthenticationError) as locked:
        roles_site.login("maria", MARIA_PASSWORD)  # the right password, now locked
    with pytest.raises(AuthenticationError) as unknown:
        roles_site.login("ninguem", MARIA_PASSWORD)
    assert set(answers) == {auth.WRONG_CREDENTIALS} == {str(locked.value), str(unknown.value)}
    with roles_site.owner.db.engine.connect() as conn:
        row = conn.exec_driver_sql("SELECT u.failed_logins, u.locked, r.rolcanlogin FROM users u "
                                   "JOIN pg_roles r ON r.rolname = %s WHERE u.login = 'maria'",
                                   (roles_site.role_of("maria"),)).first()
    assert tuple(row) == (auth.MAX_FAILED_LOGINS, True, False)
    with pytest.raises(psycopg.OperationalError):  # not even outside MotoDesk
        roles_site.connect(roles_site.role_of("maria"), MARIA_PASSWORD)
    users.unlock(admin, "maria")
    assert roles_site.login("maria", MARIA_PASSWORD).user.login == "maria"


def test_a_reset_password_is_temporary_and_its_owner_replaces_it_on_the_server(
        roles_site: RolesSite, admin: Any, maria: Any) -> None:
    users.reset_password(admin, "maria", "provisoria-123")
    with pytest.raises(AuthenticationError):
        roles_site.login("maria", MARIA_PASSWORD)  # the old one no longer opens
    temporary = roles_site.login("maria", "provisoria-123")
    assert temporary.user.must_change_password
    with raises_code(InvalidInputError, "invalid_input", fields=("current",)):
        auth.change_own_password(temporary, "errada-1234", "nova-senha-456")
    changed = auth.change_own_password(temporary, "provisoria-123", "nova-senha-456")
    assert not changed.must_change_password
    temporary.db.engine.dispose()  # a new connection of the same pool sends the new password
    with temporary.db.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT session_user").scalar() == roles_site.role_of("maria")
    with pytest.raises(AuthenticationError):
        roles_site.login("maria", "provisoria-123")
    assert not roles_site.login("maria", "nova-senha-456").user.must_change_password
    with roles_site.owner.db.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT failed_logins FROM users WHERE login = 'maria'").scalar() == 0


def test_the_server_functions_act_for_the_session_user_only(roles_site: RolesSite, admin: Any,
                                                            maria: Any) -> None:
    users.create_user(admin, "joao", "João Fiscal", Role.INSPECTOR, "provisoria-123", temporary=True)
    with roles_site.connect(roles_site.role_of("maria"), MARIA_PASSWORD) as conn:
        conn.execute("SELECT set_config('motodesk.user', 'joao', true)")
        conn.execute("SELECT motodesk_own_password_changed()")
    with roles_site.owner.db.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT must_change_password FROM users WHERE login = 'joao'").scalar()


def test_only_an_administrators_session_redacts_values(roles_site: RolesSite, admin: Any) -> None:
    with roles_site.connect(roles_site.role_of("chefe"), CHEFE_PASSWORD) as conn:
        conn.execute("SELECT set_config('motodesk.user', 'outro', true)")
        conn.execute("SELECT set_config('motodesk.redact', 'on', true)")  # LGPD anonymisation's switch
        conn.execute("INSERT INTO organisations (kind, name, cnpj, created_at, updated_at, version) "
                     "VALUES ('cooperative', 'Cooperativa Anonimizada', '11444777000161', now(), now(), 1)")
    row = _last_audit(roles_site, "organisations")
    assert row.user_login == "chefe" and json.loads(row.changes)["name"] == ["***", "***"]


def test_a_login_with_dots_and_hyphens_is_a_role_too(roles_site: RolesSite, admin: Any) -> None:
    users.create_user(admin, "Ana.Souza-1", "Ana Souza", Role.SUPERVISOR, "senha-da-ana-1")
    ana = roles_site.login("ANA.SOUZA-1 ", "senha-da-ana-1")
    assert ana.user.login == "ana.souza-1" and ana.user.role is Role.SUPERVISOR
    with ana.db.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT session_user").scalar() == roles_site.role_of("ana.souza-1")
        assert conn.exec_driver_sql("SELECT motodesk_actor()").scalar() == "ana.souza-1"
