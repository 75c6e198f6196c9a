"""Revision 0022 (the organisation an Art. 25 notice names) upgrades a 0021 database with its notices, on both
databases: a holder's notice survives with no organisation, its defence and decision with it; an
organisation's notice written before 0022 is linked to the organisation of its printed CNPJ; the CHECK then
refuses a notice naming both an organisation and a permit; down to 0021 and up again keeps the notices
(PostgreSQL; SQLite goes back by its pre-upgrade backup)."""

from __future__ import annotations

import pytest
from sqlalchemy import inspect, text
from sqlalchemy.exc import IntegrityError

from motodesk.models.db import Database

_STAMP = "1, '2026-03-10 12:00:00', '2026-03-10 12:00:00'"
_NOTICE_COLUMNS = (
    "id, number, year, seq, infraction_code, article, severity, occurred_at, place, person_id, permit_id, "
    "offender_kind, offender_name, offender_cpf, inspector_login, inspector_name, signed, refused_to_sign, "
    "vehicle_seized, status, notified_on, defence_due, notification_method, version, created_at, updated_at"
)
_ROWS_0021 = [
    "INSERT INTO people (id, full_name, name_search, cpf, phone, version, created_at, updated_at) VALUES "
    f"(1, 'Maria das Dores Araújo', 'maria das dores araujo', '52998224725', NULL, {_STAMP})",
    "INSERT INTO applications (id, person_id, service_type, state, opened_on, opened_by, version, created_at, "
    f"updated_at) VALUES (1, 1, 'motofrete', 'active', '2026-01-10', 'joana', {_STAMP})",
    "INSERT INTO permits (id, number, service_type, year, seq, person_id, application_id, state, issued_on, "
    "term_end, extended, certificate_valid_until, badge_issue_no, version, created_at, updated_at) VALUES "
    "(1, 'MF-0001/2026', 'motofrete', 2026, 1, 1, 1, 'active', '2026-01-20', '2031-01-20', FALSE, '2027-01-20', "
    f"1, {_STAMP})",
    "INSERT INTO organisations (id, kind, name, cnpj, address, phone, version, created_at, updated_at) VALUES "
    f"(1, 'operator', 'Entregas Rápidas Patrocínio Ltda', '11222333000181', 'Av. Faria Pereira, 1200', "
    f"'(34) 3831-4040', {_STAMP})",
    f"INSERT INTO infraction_notices ({_NOTICE_COLUMNS}) VALUES "
    "(1, 'AI-0001/2026', 2026, 1, '30.2.VI', 'Art. 30, Grupo 2, VI', 'media', '2026-03-10 11:00:00', "
    "'Praça Honorato Borges', 1, 1, 'holder', 'Maria das Dores Araújo', '52998224725', 'carlos', "
    "'Carlos Fiscal', TRUE, FALSE, FALSE, 'open', '2026-03-10', '2026-03-25', 'on_the_spot', "
    f"{_STAMP}), "
    "(2, 'AI-0002/2026', 2026, 2, '25.I', 'Art. 25, I', 'grave', '2026-03-10 11:30:00', "
    "'Rua Presidente Vargas, 300', NULL, NULL, 'organisation', "
    "'Entregas Rápidas Patrocínio Ltda (CNPJ 11.222.333/0001-81)', NULL, 'carlos', 'Carlos Fiscal', TRUE, FALSE, "
    f"FALSE, 'open', '2026-03-10', '2026-03-25', 'on_the_spot', {_STAMP})",
    "INSERT INTO defences (id, notice_id, stage, received_on, text, waived, received_by, received_at) VALUES "
    "(1, 1, 'defence', '2026-03-12', 'Troco devolvido ao passageiro.', FALSE, 'joana', '2026-03-12 13:00:00')",
]



def _columns(db: Database) -> set[str]:
    return {c["name"] for c in inspect(db.engine).get_columns("infraction_notices")}


def test_a_0021_database_upgrades_and_its_notices_survive(backend: str, fresh_db: Database) -> None:
    db = fresh_db
    db.upgrade("0021")
    with db.engine.begin() as conn:
        for statement in _ROWS_0021:
            conn.exec_driver_sql(statement)
    assert db.prepare(allow_upgrade_shared=True) == "upgraded"
    from motodesk.models.db import shipped_head

    assert db.current_revision() == shipped_head()  # 0022 and whatever came after it
    assert "organisation_id" in _columns(db)
    indexes = {i["name"] for i in inspect(db.engine).get_indexes("infraction_notices")}
    assert "ix_infraction_notices_organisation_id" in indexes
    with db.engine.connect() as conn:
        rows = conn.execute(text("SELECT id, number, offender_kind, person_id, permit_id, organisation_id, "
                                 "status, defence_due FROM infraction_notices ORDER BY id")).all()
        assert [tuple(r)[:7] for r in rows] == [
            (1, "AI-0001/2026", "holder", 1, 1, None, "open"),
            (2, "AI-0002/2026", "organisation", None, None, 1, "open"),  # linked by its printed CNPJ
        ]
        assert str(rows[0][7]) == "2026-03-25"
        assert conn.execute(text("SELECT notice_id, text FROM defences")).one() == (
            1, "Troco devolvido ao passageiro.")

    # The upgraded database works: the old notice reads through the service, with no organisation.
    from motodesk.rules.common import Role
    from motodesk.services import enforcement
    from motodesk.services.context import AppContext, CurrentUser

    admin = AppContext(db, CurrentUser(None, "admin", "Administração", Role.ADMIN))
    view = enforcement.get_notice(admin, 1)
    assert view.offender_name == "Maria das Dores Araújo" and view.organisation_id is None
    assert enforcement.get_notice(admin, 2).organisation_id == 1

    # A notice naming an organisation and a permit is refused by the database itself.
    with pytest.raises(IntegrityError), db.engine.begin() as conn:
        conn.exec_driver_sql("UPDATE infraction_notices SET organisation_id = 1 WHERE id = 1")

    if backend == "sqlite":
        return  # SQLite rebuilds the table to go down, which the defence's foreign key refuses (see 0022)
    db.downgrade("0021")
    assert "organisation_id" not in _columns(db)
    with db.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM infraction_notices")).scalar() == 2
        assert conn.execute(text("SELECT count(*) FROM defences")).scalar() == 1
    db.upgrade()
    assert "organisation_id" in _columns(db)
    with db.engine.connect() as conn:
        assert conn.execute(text("SELECT organisation_id FROM infraction_notices ORDER BY id")).scalars().all() \
            == [None, 1]
