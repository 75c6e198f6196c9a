"""Nothing lost, nothing forged (issue 17, items 1, 2, 8, 9): the quota counter under recount races,
every write path audited, the trail written by PostgreSQL's triggers and sealed into a hash chain that
`motodesk audit-verify` checks link by link."""

from __future__ import annotations

import ast
import importlib
import inspect as pyinspect
import json
import os
import pkgutil
import subprocess
import sys
import time
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from permit_factory import make_dossier  # type: ignore[import-not-found]
from sqlalchemy import Table, delete, func, insert, select, text, update
from sqlalchemy import types as sqltypes
from sqlalchemy.exc import DBAPIError
from tests_helpers import existing_register, names_in, race, valid_cpf  # type: ignore[import-not-found]

import motodesk.services as services_package
from motodesk.models import AuditEvent, Base, Permit, QuotaCounter, StandAssignment
from motodesk.models.audit import UNAUDITED_TABLES
from motodesk.models.db import Database
from motodesk.rules.common import PermitState, Role, ServiceType
from motodesk.services import audit, auth, people, permits, stands
from motodesk.services.context import AppContext
from motodesk.services.errors import PermissionDeniedError, RuleViolationError
from motodesk.services.settings import update_settings
from motodesk.services.stands import StandInput

ROOT = Path(__file__).resolve().parents[2]
TODAY = date.today()


def _trail(ctx: AppContext, after: int = 0) -> list[AuditEvent]:
    with ctx.read() as s:
        return list(s.scalars(select(AuditEvent).where(AuditEvent.id > after).order_by(AuditEvent.id)))


def _last_id(ctx: AppContext) -> int:
    with ctx.read() as s:
        return int(s.scalar(select(func.max(AuditEvent.id))) or 0)


# --- 1. the quota counter cannot drift --------------------------------------------------------------

RACERS = 25
QUOTA_REFUSALS = {("transition_quota",), ("art10_i_quota",)}  # Art. 10, I: no place left


def test_recounts_racing_issues_never_leave_more_mototaxi_permits_than_places(
        ctx: AppContext, supervisor: AppContext, db_url: str) -> None:
    places = 4
    update_settings(ctx, {"population": places * 2_000})
    issuers = [make_dossier(ctx, ServiceType.MOTOTAXI, state=PermitState.APPROVED, name=f"Candidato Número {i}")
               for i in range(13)]
    def recount_later(c: AppContext, n: int) -> object:
        time.sleep(0.1 * n)  # spread over the issuers' transactions, not all before them
        return permits.recount_quota(c)

    actions: list[Any] = [lambda c, a=d.application_id: permits.issue(c, a) for d in issuers]
    actions += [lambda c, n=n: recount_later(c, n) for n in range(RACERS - len(actions))]
    assert len(actions) == RACERS

    won, lost = race(db_url, actions, role=Role.SUPERVISOR)

    for exc in lost:  # the only refusal: no place left (Art. 10, I)
        # the issue's own quota check, or the recheck under the lock when another station took the place
        assert isinstance(exc, RuleViolationError) and exc.rule_ids in QUOTA_REFUSALS, repr(exc)
    with ctx.read() as s:
        in_force = s.scalar(select(func.count(Permit.id)).where(
            Permit.service_type == ServiceType.MOTOTAXI, Permit.state.in_((PermitState.ACTIVE, PermitState.SUSPENDED))))
        counter = s.get(QuotaCounter, ServiceType.MOTOTAXI)
    assert in_force == places, f"{in_force} mototáxi permits in force for {places} places"
    assert counter.in_force == in_force == counter.places
    assert sum(1 for r in won if isinstance(r, permits.IssuedPermit)) == places


# --- 2. every write path is audited -------------------------------------------------------------

def _synthetic(column: Any, parent_values: dict[str, Any]) -> Any:
    t = column.type
    if isinstance(t, sqltypes.Enum) and t.enum_class is not None:
        return t.enum_class(t.enums[0])
    if isinstance(t, sqltypes.Boolean):
        return False
    if isinstance(t, sqltypes.Integer):
        return 1
    if isinstance(t, sqltypes.Float):
        return 1.0
    if isinstance(t, sqltypes.Numeric):
        return Decimal("1.50")
    if isinstance(t, sqltypes.DateTime) or isinstance(getattr(t, "impl", None), sqltypes.DateTime):
        return datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    if isinstance(t, sqltypes.Date):
        return date(2026, 3, 1)
    if isinstance(t, sqltypes.LargeBinary):
        return b"\x89PNG dados"
    if type(t).__name__ == "DeclaredKind":  # a declared document's kind (rules.documents_declared)
        return "cnh"
    if isinstance(t, sqltypes.String):
        length = getattr(t, "length", None) or 40
        return f"v{column.name}"[:length]
    raise AssertionError(f"no synthetic value for {column.table.name}.{column.name} ({t!r})")


def _audited_tables() -> list[Table]:
    return [t for t in Base.metadata.sorted_tables if t.name not in UNAUDITED_TABLES]


#: Links the synthetic row leaves empty, or a CHECK refuses it: a holder's notice names no
#: organisation (ck_infraction_notices_organisation_offender, revision 0022, Art. 25).
UNLINKED = {("infraction_notices", "organisation_id")}


def _row_for(table: Table, rows: dict[str, dict[str, Any]]) -> dict[str, Any]:
    row: dict[str, Any] = {}
    for column in table.columns:
        fks = list(column.foreign_keys)
        if (table.name, column.name) in UNLINKED:
            row[column.name] = None
            continue
        if fks:
            parent = rows.get(fks[0].column.table.name)
            row[column.name] = parent[fks[0].column.name] if parent else None
            continue
        if column.primary_key and isinstance(column.type, sqltypes.Integer):
            continue
        row[column.name] = _synthetic(column, row)
    return row


def _changeable(table: Table) -> tuple[str, Any]:
    """A column to change and its new value: text if the table has some, else a number (1 -> 0)."""
    candidates = [c for c in table.columns
                  if not (c.primary_key or c.foreign_keys or c.name in ("version", "updated_at", "created_at"))]
    for column in candidates:
        if isinstance(column.type, sqltypes.String) and not isinstance(column.type, sqltypes.Enum):
            return column.name, "mudou"
    for column in candidates:
        if isinstance(column.type, sqltypes.Integer):
            return column.name, 0
    for column in candidates:
        if isinstance(column.type, sqltypes.Date):  # an end later, so it stays after its start
            return column.name, date(2026, 4, 1) if "end" in column.name else date(2026, 2, 1)
    raise AssertionError(f"{table.name}: no column to change")


def test_every_mapped_table_audits_core_inserts_updates_and_deletes(ctx: AppContext) -> None:
    """Core statements through a session (the path that bypasses the ORM flush), for every table."""
    tables = _audited_tables()
    assert {t.name for t in tables} == set(Base.metadata.tables) - UNAUDITED_TABLES
    assert len(tables) >= 25  # the walk found the schema
    before = _last_id(ctx)
    rows: dict[str, dict[str, Any]] = {}
    with ctx.write() as s:
        existing_register(s)  # synthetic rows of every table, legal state included: the trail is tested here
        s.execute(delete(QuotaCounter))  # ensure_defaults' counter row: one row per table below
        for table in Base.metadata.sorted_tables:  # the unaudited ones too (blobs): rows refer to them
            if table.name == "audit_events":
                continue
            row = _row_for(table, rows)
            result = s.execute(insert(table).values(row))
            pk = table.primary_key.columns
            for column, value in zip(pk, result.inserted_primary_key or (), strict=False):
                row[column.name] = value
            rows[table.name] = row
    with ctx.write() as s:
        existing_register(s)
        for table in tables:
            column, value = _changeable(table)
            pk = table.primary_key.columns
            s.execute(update(table).where(*(c == rows[table.name][c.name] for c in pk)).values({column: value}))
    with ctx.write() as s:
        existing_register(s)
        for table in reversed(tables):
            pk = table.primary_key.columns
            s.execute(delete(table).where(*(c == rows[table.name][c.name] for c in pk)))
    seen: dict[str, set[str]] = {}
    changed: dict[str, dict[str, Any]] = {}
    for event in _trail(ctx, before):
        seen.setdefault(event.table_name, set()).add(event.action)
        if event.action == "update":
            changed[event.table_name] = json.loads(event.changes)
    missing = {t.name: {"insert", "update", "delete"} - seen.get(t.name, set()) for t in tables}
    assert {k: v for k, v in missing.items() if v} == {}
    for table in tables:
        column, value = _changeable(table)
        shown = value.isoformat() if isinstance(value, date) else value
        assert changed[table.name][column][1] == shown, (table.name, changed[table.name])


# Writes that do not go through a Session (so no flush listener or do_orm_execute hook sees them),
# each with the reason it needs no audit row of its own.
UNAUDITED_WRITES = {
    "backup": "restore copies a whole database, audit trail included, into an empty one",
}
_WRITE_CALLS = {"insert", "update", "delete"}


def _writes_outside_a_session(module: Any) -> list[str]:
    tree = ast.parse(pyinspect.getsource(module))
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("execute", "exec_driver_sql") and node.args):
            continue
        statement = node.args[0]
        while isinstance(statement, ast.Call) and isinstance(statement.func, ast.Attribute) \
                and statement.func.attr not in _WRITE_CALLS:
            statement = statement.func.value  # update(...).where(...).values(...) -> update(...)
        is_write = isinstance(statement, ast.Call) and (
            (isinstance(statement.func, ast.Name) and statement.func.id in _WRITE_CALLS)
            or (isinstance(statement.func, ast.Attribute) and statement.func.attr in _WRITE_CALLS))
        raw = ast.unparse(statement).upper()
        is_write = is_write or any(f"{verb} " in raw for verb in ("INSERT INTO", "UPDATE", "DELETE FROM"))
        receiver = node.func.value
        through_session = isinstance(receiver, ast.Name) and receiver.id in ("s", "session")
        if is_write and not through_session:
            found.append(f"line {node.lineno}: {ast.unparse(node)[:80]}")
    return found


def test_every_service_writes_through_an_audited_session() -> None:
    """Walk motodesk.services: every write runs on a service's Session (ORM flush or session.execute,
    both audited); a write on a bare connection is a reviewed exception or a failure here."""
    writers, outside = [], {}
    for info in sorted(pkgutil.iter_modules(services_package.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{services_package.__name__}.{info.name}")
        source = pyinspect.getsource(module)
        if "ctx.write(" in source:
            writers.append(info.name)
        problems = _writes_outside_a_session(module)
        if problems and info.name not in UNAUDITED_WRITES:
            outside[info.name] = problems
    assert outside == {}
    assert len(writers) >= 15  # the walk found the writing services


def test_ending_a_stand_assignment_is_audited(ctx: AppContext, supervisor: AppContext, clerk: AppContext) -> None:
    stand = stands.create_stand(supervisor, StandInput(
        name="Ponto da Praça", address="Praça Honorico Machado", services=(ServiceType.MOTOBOY,), max_places=2,
        decree_number="5.120/2026", decree_date=TODAY - timedelta(days=30), is_bus_or_taxi_stop=False))
    dossier = make_dossier(ctx, ServiceType.MOTOBOY, state=PermitState.APPROVED, candidate_status=None)
    issued = permits.issue(supervisor, dossier.application_id)
    assignment = stands.assign_to_stand(clerk, stand.id, issued.id)
    before = _last_id(ctx)
    stands.end_assignment(clerk, assignment.id)
    trail = [(e.table_name, e.action, e.user_login, json.loads(e.changes)) for e in _trail(ctx, before)]
    with ctx.read() as s:
        ended = s.scalar(select(StandAssignment.id).where(StandAssignment.end_on.is_not(None)))
    assert ("stand_assignments", "update", "clerk", {"end_on": [None, TODAY.isoformat()]}) in trail
    assert ("stands", "update", "clerk", {"occupied": [1, 0]}) in trail
    assert ended == assignment.id


def test_the_private_signing_key_never_reaches_the_database_nor_the_trail(ctx: AppContext) -> None:
    from motodesk.models import Setting
    from motodesk.services import badges

    with ctx.write() as s:  # a fresh installation: no key yet
        s.delete(s.get(Setting, badges.PUBLIC_KEY_SETTING))
    before = _last_id(ctx)
    badges.register_printing_station(ctx)  # the first pair: the public half goes to the database
    badges.rotate_signing_key(ctx)
    private_pem, _public = badges._key_pair(ctx)
    rows = [json.loads(e.changes) for e in _trail(ctx, before) if e.table_name == "settings"]
    assert all(badges.SIGNING_KEY_SETTING not in json.dumps(r) for r in rows)
    assert "PRIVATE KEY" not in json.dumps(rows) and private_pem.decode() not in json.dumps(rows)
    with ctx.read() as s:
        assert s.get(Setting, badges.SIGNING_KEY_SETTING) is None


# --- 8. PostgreSQL: the database writes the trail -----------------------------------------------

def test_plain_sql_on_postgresql_is_recorded_and_names_who(pg_ctx: AppContext) -> None:
    from conftest import user_ctx  # type: ignore[import-not-found]

    clerk = user_ctx(pg_ctx, Role.CLERK, "joana")
    person = people.save_person(clerk, people.PersonInput(full_name="Maria das Dores", cpf=valid_cpf(),
                                                          birth_date=date(1990, 1, 2)))
    pid = getattr(person, "id", person)
    before = _last_id(pg_ctx)
    with pg_ctx.db.engine.begin() as conn:  # no MotoDesk user: the database role is named
        conn.execute(text("UPDATE people SET phone = '(34) 3831-0001' WHERE id = :i"), {"i": pid})
    with pg_ctx.db.engine.begin() as conn:  # a script that says who it acts for
        conn.execute(text("SELECT set_config('motodesk.user', 'script-da-ti', true)"))
        conn.execute(text("DELETE FROM person_documents WHERE person_id = :i"), {"i": pid})
    trail = _trail(pg_ctx, before)
    update_row = next(e for e in trail if e.table_name == "people")
    assert (update_row.action, update_row.user_login, json.loads(update_row.changes)) == (
        "update", "postgres", {"phone": [None, "(34) 3831-0001"]})
    assert {e.user_login for e in trail if e.table_name == "person_documents"} <= {"script-da-ti"}
    # The app's own writes: one row per change (the triggers), none from Python beside them.
    inserts = [e for e in _trail(pg_ctx) if e.table_name == "people" and e.row_key == str(pid) and e.action == "insert"]
    assert len(inserts) == 1 and inserts[0].user_login == "joana"


def test_truncate_of_the_trail_is_refused_even_for_the_owner(pg_ctx: AppContext) -> None:
    from conftest import user_ctx  # type: ignore[import-not-found]

    people.save_person(user_ctx(pg_ctx, Role.CLERK), people.PersonInput(full_name="Maria das Dores", cpf=valid_cpf(),
                                                  birth_date=date(1990, 1, 2)))
    count = len(_trail(pg_ctx))
    with pytest.raises(DBAPIError, match="append-only: TRUNCATE refused"), pg_ctx.db.engine.begin() as conn:
        conn.execute(text("TRUNCATE audit_events"))
    assert len(_trail(pg_ctx)) == count > 0


# --- 9. tamper evidence -----------------------------------------------------------------------------

def _tamper(db: Database, *statements: str) -> None:
    """Whoever owns the file or the server: past the triggers (SQLite: dropped; PostgreSQL: replica)."""
    with db.engine.begin() as conn:
        if db.is_sqlite:
            conn.exec_driver_sql("DROP TRIGGER IF EXISTS audit_events_no_update")
            conn.exec_driver_sql("DROP TRIGGER IF EXISTS audit_events_no_delete")
        else:
            conn.exec_driver_sql("SET LOCAL session_replication_role = replica")
        for statement in statements:
            conn.exec_driver_sql(statement)


def _some_history(clerk: AppContext) -> list[int]:
    for i in range(3):
        people.save_person(clerk, people.PersonInput(full_name=f"Pessoa Número {i}", cpf=valid_cpf(),
                                                     birth_date=date(1980, 1, 1 + i)))
    ids = [e.id for e in _trail(clerk)]
    assert len(ids) >= 8
    return ids


def test_an_untouched_trail_verifies(ctx: AppContext, clerk: AppContext) -> None:
    ids = _some_history(clerk)
    result = audit.verify_audit_trail(ctx)
    assert result.intact and result.rows == len(ids) and result.findings == ()
    with pytest.raises(PermissionDeniedError):
        audit.verify_audit_trail(clerk)


@pytest.mark.parametrize("tampering", ["edit", "delete", "forge", "reorder"])
def test_tampering_is_reported_at_the_first_broken_link(ctx: AppContext, clerk: AppContext, tampering: str) -> None:
    ids = _some_history(clerk)
    victim = ids[4]
    if tampering == "edit":
        _tamper(ctx.db, f"UPDATE audit_events SET user_login = 'outra-pessoa' WHERE id = {victim}")
        expected = victim, "conteúdo do registro foi alterado"
    elif tampering == "delete":
        _tamper(ctx.db, f"DELETE FROM audit_events WHERE id = {victim}")
        expected = ids[5], "elo com o registro anterior não confere"
    elif tampering == "forge":  # a row made up and put at the end, linked to the last genuine one
        last = ids[-1]
        _tamper(ctx.db, "INSERT INTO audit_events (id, at, user_login, table_name, row_key, action, changes, "
                        "prev_hash, row_hash) SELECT id + 1000, at, 'supervisor', 'permits', '1', 'delete', '{}', "
                        f"row_hash, '{'0' * 64}' FROM audit_events WHERE id = {last}")
        expected = last + 1000, "conteúdo do registro foi alterado"
    else:  # two rows swap places: their contents exchanged under the same ids
        a, b = ids[3], ids[6]
        cols = "at, user_login, table_name, row_key, action, changes, prev_hash, row_hash"
        _tamper(ctx.db, f"CREATE TEMP TABLE swap AS SELECT id, {cols} FROM audit_events WHERE id IN ({a}, {b})",
                *(f"UPDATE audit_events SET ({cols}) = (SELECT {cols} FROM swap WHERE id = {other}) WHERE id = {mine}"
                  for mine, other in ((a, b), (b, a))))
        expected = a, "elo com o registro anterior não confere"
    result = audit.verify_audit_trail(ctx)
    assert result.broken is not None
    assert (result.broken.row_id, expected[1] in result.broken.reason) == (expected[0], True)
    assert not result.intact
    names_in(result.message, expected[0], result.broken.reason)  # the first broken link, with its reason


def test_audit_verify_command_names_the_broken_link(ctx: AppContext, clerk: AppContext, db_url: str) -> None:
    ids = _some_history(clerk)
    auth.create_user(ctx, "chefe", "Chefe do Setor", Role.ADMIN, "senha-do-chefe")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "motodesk", "audit-verify", "--database", db_url,
                               "--user", "chefe"], input="senha-do-chefe\n",
                              capture_output=True, text=True, env=env, timeout=120, cwd=ROOT)

    good = run()
    assert good.returncode == 0, good.stderr
    assert "Trilha de auditoria íntegra" in good.stdout
    _tamper(ctx.db, f"UPDATE audit_events SET changes = '{{}}' WHERE id = {ids[2]}")
    bad = run()
    assert bad.returncode == 1 and "Traceback" not in bad.stderr
    assert f"registro nº {ids[2]}" in bad.stdout and "alterado" in bad.stdout


def test_concurrent_writers_never_fork_the_chain(ctx: AppContext, db_url: str) -> None:
    inputs = [people.PersonInput(full_name=f"Estação Pessoa {i}", cpf=valid_cpf(), birth_date=date(1985, 2, 1 + i))
              for i in range(12)]
    won, lost = race(db_url, [lambda c, p=p: people.save_person(c, p) for p in inputs])
    assert lost == [] and len(won) == 12
    result = audit.verify_audit_trail(ctx)
    assert result.intact, result.message
    assert len({e.user_login for e in _trail(ctx) if e.table_name == "people"}) == 12


# --- 7. PostgreSQL: a login role that cannot rewrite the trail ----------------------------------

@pytest.fixture
def login_role(pg_ctx: AppContext) -> Any:
    """`motodesk init-db --login-role` on the test server: the connected superuser is the owner."""
    import uuid

    from sqlalchemy import create_engine

    role = f"motodesk_estacao_{uuid.uuid4().hex[:6]}"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    url = pg_ctx.db.url.render_as_string(hide_password=False)
    out = subprocess.run([sys.executable, "-m", "motodesk", "init-db", "--login-role", role, "--database", url],
                         input="senha-da-estacao\n", capture_output=True, text=True, env=env, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert f"Perfil de login das estações {role!r} pronto" in out.stdout
    engine = create_engine(pg_ctx.db.url.set(username=role, password="senha-da-estacao"))
    yield role, engine
    engine.dispose()
    with pg_ctx.db.engine.begin() as conn:
        conn.exec_driver_sql(f"DROP OWNED BY {role}")
        conn.exec_driver_sql(f"DROP ROLE {role}")


ATTACKS = [
    "ALTER TABLE audit_events ADD COLUMN forjado text",
    "ALTER TABLE audit_events DISABLE TRIGGER ALL",
    "ALTER TABLE audit_events DISABLE TRIGGER audit_events_append_only",
    "DROP TRIGGER audit_events_chain ON audit_events",
    "ALTER TABLE people DISABLE TRIGGER motodesk_audit",
    "CREATE TRIGGER escondido BEFORE INSERT ON people FOR EACH ROW EXECUTE FUNCTION suppress_redundant_updates_trigger()",
    "TRUNCATE audit_events",
    "TRUNCATE people CASCADE",
    "DELETE FROM audit_events",
    "UPDATE audit_events SET user_login = 'forjado'",
    "INSERT INTO audit_events (at, user_login, table_name, row_key, action, changes) "
    "VALUES (now(), 'supervisor', 'permits', '1', 'delete', '{}')",
    "SET ROLE postgres",
    "GRANT postgres TO CURRENT_USER",
    "ALTER ROLE CURRENT_USER SUPERUSER",
    "CREATE TABLE public.intrusa (x int)",
    "SET session_replication_role = replica",
]


def test_the_login_role_uses_the_data_but_cannot_rewrite_the_trail(pg_ctx: AppContext, login_role: Any) -> None:
    role, engine = login_role
    # The workstation's everyday work, as the login role: recorded by the owner's triggers.
    workstation = AppContext(Database(pg_ctx.db.url.set(username=role, password="senha-da-estacao"), engine))
    from conftest import user_ctx  # type: ignore[import-not-found]

    clerk = user_ctx(workstation, Role.CLERK, "joana")
    saved = people.save_person(clerk, people.PersonInput(full_name="Maria das Dores", cpf=valid_cpf(),
                                                         birth_date=date(1990, 1, 2)))
    with engine.begin() as conn:
        conn.execute(text("UPDATE people SET phone = '(34) 3831-0002' WHERE id = :i"), {"i": saved.id})
    trail = [(e.user_login, e.table_name, e.action) for e in _trail(pg_ctx) if e.table_name == "people"]
    assert trail == [("joana", "people", "insert"), (role, "people", "update")]
    count = len(_trail(pg_ctx))

    refused = []
    for statement in ATTACKS:
        try:
            with engine.begin() as conn:
                conn.exec_driver_sql(statement)
        except DBAPIError as exc:
            refused.append(statement)
            assert any(word in str(exc) for word in ("permission denied", "must be owner", "must be superuser",
                                                     "append-only")), (statement, str(exc))
    assert refused == ATTACKS
    # GRANT to itself is answered with a warning, not an error: what matters is that nothing was granted.
    with engine.begin() as conn:
        conn.exec_driver_sql("GRANT UPDATE, DELETE, TRUNCATE ON audit_events TO CURRENT_USER")
        conn.exec_driver_sql("GRANT ALL ON people TO CURRENT_USER WITH GRANT OPTION")
    with engine.connect() as conn:
        privileges = conn.execute(text(
            "SELECT has_table_privilege('audit_events', 'UPDATE'), has_table_privilege('audit_events', 'DELETE'), "
            "has_table_privilege('audit_events', 'TRUNCATE'), has_table_privilege('audit_events', 'INSERT'), "
            "has_table_privilege('people', 'TRUNCATE'), has_table_privilege('people', 'TRIGGER'), "
            "has_table_privilege('people', 'UPDATE WITH GRANT OPTION')")).one()
        attributes = conn.execute(text("SELECT rolinherit, rolsuper, rolcreaterole, rolcreatedb FROM pg_roles "
                                       "WHERE rolname = current_user")).one()
        owned = conn.execute(text("SELECT count(*) FROM pg_class WHERE relowner = "
                                  "(SELECT oid FROM pg_roles WHERE rolname = current_user)")).scalar()
        member_of = conn.execute(text("SELECT count(*) FROM pg_auth_members WHERE member = "
                                      "(SELECT oid FROM pg_roles WHERE rolname = current_user)")).scalar()
    assert tuple(privileges) == (False,) * 7
    assert tuple(attributes) == (False, False, False, False)
    assert (owned, member_of) == (0, 0)
    assert len(_trail(pg_ctx)) == count
    assert audit.verify_audit_trail(pg_ctx).intact
    with pytest.raises(PermissionDeniedError):
        audit.verify_audit_trail(clerk)


def test_db_upgrade_keeps_the_login_role_able_to_work(pg_ctx: AppContext, login_role: Any) -> None:
    """Privileges are granted table by table: after an upgrade (new tables) they are granted again."""
    role, engine = login_role
    with pg_ctx.db.engine.begin() as conn:
        conn.exec_driver_sql(f"REVOKE ALL ON people FROM {role}")  # as a new table would start
    pg_ctx.db.refresh_guards()
    with engine.begin() as conn:
        assert conn.execute(text("SELECT count(*) FROM people")).scalar() == 0
