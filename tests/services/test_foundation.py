"""The foundation's guarantees, on SQLite and PostgreSQL: locking, constraints, roles, audit."""

from __future__ import annotations

import json
import sqlite3
from datetime import date

import pytest
from sqlalchemy import create_engine, select, text
from sqlalchemy.exc import DBAPIError, IntegrityError
from tests_helpers import existing_register, names_in, raises_code, valid_cpf  # type: ignore[import-not-found]

from motodesk.models import AuditEvent, Permit, Person, User, Vehicle
from motodesk.rules.common import PermitState, Role, ServiceType
from motodesk.services import auth, people
from motodesk.services.context import AppContext
from motodesk.services.errors import (
    AuthenticationError,
    ConflictError,
    InvalidInputError,
    MotodeskError,
    PermissionDeniedError,
)
from motodesk.services.people import PersonInput


def _person(clerk: AppContext, name: str = "Maria D'Ávila-Souza", cpf: str | None = None) -> int:
    return people.save_person(clerk, PersonInput(full_name=name, cpf=cpf or valid_cpf(),
                                                 birth_date=date(1990, 5, 17))).id


def test_stale_save_raises_conflict_and_keeps_the_first(clerk: AppContext) -> None:
    pid = _person(clerk)
    first = people.get_person(clerk, pid)
    second = people.get_person(clerk, pid)
    people.save_person(clerk, PersonInput(full_name="Maria Primeira Versão", cpf=first.cpf),
                       person_id=pid, expected_version=first.version)
    with raises_code(ConflictError, "conflict"):
        people.save_person(clerk, PersonInput(full_name="Maria Segunda Versão", cpf=second.cpf),
                           person_id=pid, expected_version=second.version)
    assert people.get_person(clerk, pid).full_name == "Maria Primeira Versão"


def test_concurrent_flush_of_a_stale_row_is_a_conflict(clerk: AppContext) -> None:
    """Two sessions hold the same row; the database-level version check refuses the later write."""
    pid = _person(clerk)
    with clerk.db.session() as s1, clerk.db.session() as s2:
        p1 = s1.get(Person, pid)
        p2 = s2.get(Person, pid)
        s1.commit()  # both forms are on screen; no transaction stays open while the clerks type
        s2.commit()
        p1.phone = "(34) 99999-0001"
        s1.commit()
        p2.phone = "(34) 99999-0002"
        from sqlalchemy.orm.exc import StaleDataError

        with pytest.raises(StaleDataError):
            s2.commit()
    assert people.get_person(clerk, pid).phone == "(34) 99999-0001"


def test_names_are_stored_exactly(clerk: AppContext) -> None:
    pid = _person(clerk, "  Maria   D'Ávila-Souza ")
    person = people.get_person(clerk, pid)
    assert person.full_name == "Maria D'Ávila-Souza"
    assert person.name_search == "maria d'avila-souza"


def test_duplicate_cpf_is_refused_in_ptbr(clerk: AppContext) -> None:
    cpf = valid_cpf()
    _person(clerk, "João da Silva", cpf)
    with raises_code(MotodeskError, "constraint") as info:
        _person(clerk, "José da Silva", cpf)
    assert str(info.value) == people._INTEGRITY["uq_people_cpf"]


def test_invalid_cpf_is_a_field_error_and_stores_nothing(clerk: AppContext) -> None:
    with pytest.raises(InvalidInputError) as info:
        people.save_person(clerk, PersonInput(full_name="Fulano de Tal", cpf="123.456.789-00"))
    assert "cpf" in info.value.fields
    with clerk.read() as s:
        assert s.scalar(select(Person.id)) is None


def _permit_row(person_id: int, seq: int, state: PermitState) -> Permit:
    return Permit(number=f"MB-{seq:04d}/2026", service_type=ServiceType.MOTOBOY, year=2026, seq=seq,
                  person_id=person_id, state=state, issued_on=date(2026, 1, 10), term_end=date(2031, 1, 10),
                  certificate_valid_until=date(2027, 1, 10))


def test_database_refuses_a_second_permit_in_force_for_a_person(clerk: AppContext) -> None:
    pid = _person(clerk)
    with clerk.db.session() as s:
        existing_register(s)  # the database's own constraint is the subject here, not the guard
        s.add(_permit_row(pid, 1, PermitState.ACTIVE))
        s.commit()
    with clerk.db.session() as s:
        existing_register(s)
        s.add(_permit_row(pid, 2, PermitState.ACTIVE))
        with pytest.raises(IntegrityError):
            s.commit()
    with clerk.db.session() as s:  # an ended permit beside the one in force is fine
        s.add(_permit_row(pid, 3, PermitState.REVOKED))
        s.commit()


def test_database_refuses_two_active_vehicles_per_holder_and_duplicate_active_plate(clerk: AppContext) -> None:
    pid = _person(clerk)
    with clerk.db.session() as s:
        s.add(Vehicle(plate="ABC1D23", holder_id=pid, active=True))
        s.commit()
    with clerk.db.session() as s:
        s.add(Vehicle(plate="XYZ9876", holder_id=pid, active=True))
        with pytest.raises(IntegrityError):
            s.commit()
    with clerk.db.session() as s:
        s.add(Vehicle(plate="ABC1D23", holder_id=None, active=True))
        with pytest.raises(IntegrityError):
            s.commit()
    with clerk.db.session() as s:  # the old, inactive vehicle of a replacement keeps its plate
        s.add(Vehicle(plate="ABC1D23", holder_id=pid, active=False))
        s.commit()


ROLE_MATRIX = [
    (auth.create_user, (Role.ADMIN,), ("novo.usuario", "Novo Usuário", "clerk", "senha-segura-1")),
    (people.save_person, (Role.CLERK, Role.SUPERVISOR), (PersonInput(full_name="Ana Souza", cpf="52998224725"),)),
    (auth.unlock_user, (Role.ADMIN,), ("ninguem",)),
]


@pytest.mark.parametrize("service,allowed,args", ROLE_MATRIX, ids=lambda v: getattr(v, "__name__", ""))
def test_each_service_refuses_the_wrong_role(ctx: AppContext, service, allowed, args) -> None:  # noqa: ANN001
    from conftest import user_ctx  # type: ignore[import-not-found]

    for role in Role:
        if role in allowed:
            continue
        with raises_code(PermissionDeniedError, "permission_denied"):
            service(user_ctx(ctx, role), *args)


def test_update_writes_old_and_new_to_the_audit_trail(clerk: AppContext) -> None:
    pid = _person(clerk, "Pedro Álvares Cabral")
    person = people.get_person(clerk, pid)
    people.save_person(clerk, PersonInput(full_name="Pedro Álvares Cabral", cpf=person.cpf, phone="(34) 3831-0000",
                                          birth_date=date(1990, 5, 17)),
                       person_id=pid, expected_version=person.version)
    with clerk.read() as s:
        rows = list(s.scalars(select(AuditEvent).where(AuditEvent.table_name == "people",
                                                       AuditEvent.row_key == str(pid)).order_by(AuditEvent.id)))
    assert [r.action for r in rows] == ["insert", "update"]
    assert rows[0].user_login == "clerk"
    assert json.loads(rows[1].changes) == {"phone": [None, "(34) 3831-0000"]}


#: how the database says who refused: SQLite's RAISE(ABORT) in a trigger, PL/pgSQL's RAISE EXCEPTION,
#: PostgreSQL's missing privilege
SQLITE_TRIGGER, PG_RAISE, PG_PRIVILEGE = sqlite3.SQLITE_CONSTRAINT_TRIGGER, "P0001", "42501"


def _db_error_code(error: DBAPIError) -> int | str | None:
    orig = error.orig
    return (getattr(orig, "sqlite_errorcode", None) or getattr(orig, "sqlstate", None)
            or getattr(orig, "pgcode", None))


def test_audit_rows_cannot_be_changed_or_deleted(clerk: AppContext) -> None:
    _person(clerk)
    for verb, statement in (("UPDATE", "UPDATE audit_events SET user_login = 'forjado'"),
                            ("DELETE", "DELETE FROM audit_events")):
        with pytest.raises(DBAPIError) as refused:
            with clerk.db.engine.begin() as conn:
                conn.execute(text(statement))
        assert _db_error_code(refused.value) in {SQLITE_TRIGGER, PG_RAISE}  # the append-only trigger refused…
        names_in(refused.value, "audit_events", verb)  # …this table's, and this operation
    with clerk.read() as s:
        assert s.scalar(select(AuditEvent.user_login).where(AuditEvent.table_name == "people")) == "clerk"


def test_postgresql_app_role_cannot_alter_audit_rows(pg_ctx: AppContext) -> None:
    from conftest import user_ctx  # type: ignore[import-not-found]

    clerk = user_ctx(pg_ctx, Role.CLERK)
    _person(clerk)
    with clerk.db.engine.begin() as conn:
        conn.exec_driver_sql("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'motodesk_app') "
                             "THEN CREATE ROLE motodesk_app LOGIN; END IF; END $$")
    clerk.db.grant_app_role("motodesk_app")
    app_engine = create_engine(clerk.db.url.set(username="motodesk_app", password=None))
    try:
        with app_engine.begin() as conn:  # the app role can read and append
            assert conn.execute(text("SELECT count(*) FROM audit_events")).scalar() >= 1
        for statement in ("UPDATE audit_events SET user_login = 'forjado'", "DELETE FROM audit_events"):
            with pytest.raises(DBAPIError) as refused:
                with app_engine.begin() as conn:
                    conn.execute(text(statement))
            assert _db_error_code(refused.value) in {PG_PRIVILEGE, PG_RAISE}  # no grant, or the trigger
            names_in(refused.value, "audit_events")
    finally:
        app_engine.dispose()


def test_wrong_password_then_lockout(ctx: AppContext) -> None:
    auth.create_user(ctx, "ana", "Ana Paula", Role.CLERK, "senha-certa-1")
    assert auth.authenticate(ctx, "ANA ", "senha-certa-1").role is Role.CLERK
    for _ in range(1, auth.MAX_FAILED_LOGINS):  # reads exactly like an unknown login: nothing says "ana" exists
        with pytest.raises(AuthenticationError) as wrong:
            auth.authenticate(ctx, "ana", "errada")
        assert str(wrong.value) == auth.WRONG_CREDENTIALS
    with pytest.raises(AuthenticationError) as locking:
        auth.authenticate(ctx, "ana", "errada")
    with pytest.raises(AuthenticationError) as locked:
        auth.authenticate(ctx, "ana", "senha-certa-1")  # locked stays locked, even with the right password
    # ... and reads exactly like a wrong password: the message never confirms the password was right
    assert str(locking.value) == str(locked.value) == auth.WRONG_CREDENTIALS
    with ctx.read() as s:
        assert s.scalar(select(User.locked).where(User.login == "ana"))
    auth.unlock_user(ctx, "ana")
    assert auth.authenticate(ctx, "ana", "senha-certa-1").login == "ana"


def test_passwords_are_argon2id(ctx: AppContext) -> None:
    from motodesk.models import User

    auth.create_user(ctx, "bruno", "Bruno", Role.INSPECTOR, "outra-senha-9")
    with ctx.read() as s:
        stored = s.scalar(select(User.password_hash).where(User.login == "bruno"))
    assert stored.startswith("$argon2id$") and "outra-senha-9" not in stored


def test_unknown_user_and_short_password(ctx: AppContext) -> None:
    with raises_code(AuthenticationError, "authentication"):
        auth.authenticate(ctx, "fantasma", "x")
    with raises_code(InvalidInputError, "invalid_input", fields=("password",)):
        auth.create_user(ctx, "carla", "Carla", Role.CLERK, "curta")
