"""A session's temporary tables never answer the owner's functions (revision 0024).

PostgreSQL searches pg_temp *first* for tables unless a function's search_path names it (last). A
workstation's pre-login role may create temporary tables; with a temporary ``users`` it could make
``motodesk_create_first_admin`` believe the database had no users and ``motodesk_apply_role`` read
its own row, and so get a role in the administrators' group. A temporary ``audit_events`` could give
the chain's trigger a false tip. The per-user set-up revokes TEMPORARY from PUBLIC; a DBA may grant it
again (or a database may keep PostgreSQL's default), and the functions must hold all the same."""

from __future__ import annotations

import psycopg
import pytest

from tests.pgroles.conftest import GATE_PASSWORD, RolesSite

VERIFIER = "SCRAM-SHA-256$4096:c2FsdHNhbHQ=$c3RvcmVka2V5:c2VydmVya2V5"
FAKE_USERS = ("CREATE TEMP TABLE users (login text, full_name text, role text, password_hash text, "
              "failed_logins int, locked boolean, active boolean, must_change_password boolean, version int, "
              "created_at timestamp, updated_at timestamp)")


def test_a_temporary_users_table_does_not_make_the_gate_an_administrator(roles_site: RolesSite) -> None:
    intruder = roles_site.role_of("intruso")
    with roles_site.connect("postgres", roles_site.cluster.password, autocommit=True) as conn:
        conn.execute(f'GRANT TEMPORARY ON DATABASE "{roles_site.name}" TO "{roles_site.gate_role}"')
    with roles_site.connect(roles_site.gate_role, GATE_PASSWORD, autocommit=True) as conn:
        conn.execute(FAKE_USERS)
        conn.execute("GRANT ALL ON pg_temp.users TO PUBLIC")  # so that the owner's functions may read it
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="already has users"):
            conn.execute("SELECT motodesk_create_first_admin('intruso', 'Intruso', %s)", (VERIFIER,))
        assert conn.execute("SELECT count(*) FROM pg_temp.users").fetchone() == (0,)
    with roles_site.connect("postgres", roles_site.cluster.password, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM pg_roles WHERE rolname = %s", (intruder,)).fetchone() == (0,)


def test_every_motodesk_function_that_names_a_search_path_names_pg_temp_last(roles_site: RolesSite) -> None:
    with roles_site.connect("postgres", roles_site.cluster.password, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT p.proname, p.prosecdef, c.setting FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
            "LEFT JOIN LATERAL (SELECT s FROM unnest(p.proconfig) s WHERE s LIKE 'search_path=%%') c(setting) ON true "
            "WHERE n.nspname = 'public' AND p.proname LIKE 'motodesk%%'").fetchall()
    assert len(rows) > 20
    wrong = {name: setting for name, definer, setting in rows
             if (setting is not None or definer) and not (setting or "").replace(" ", "").endswith(",pg_temp")}
    assert wrong == {}
