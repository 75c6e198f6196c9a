"""Every profile's everyday work, logged in as its own PostgreSQL role (issue 25, item 1): the grants
let each profile do its typical service calls, every row they write names them, and what the profile
may not do the SERVER refuses (permission denied) when tried with plain SQL."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import psycopg
import pytest
from enforcement_factory import add_holder, an_hour_ago  # type: ignore[import-not-found]
from permit_factory import make_dossier  # type: ignore[import-not-found]

from motodesk.rules.checklist import ItemResult
from motodesk.rules.common import PermitState, Role, ServiceType
from motodesk.rules.dossier import DocumentKind
from motodesk.rules.fees import FeeAct
from motodesk.rules.infractions import Penalty
from motodesk.services import applications, backup, enforcement, fees, inspections, people, permits, users
from motodesk.services.enforcement import DecisionInput, FiledDocument, NoticeInput, OffenderKind, Outcome
from motodesk.services.inspections import ItemAnswer
from motodesk.services.people import DocumentInput, PersonInput
from motodesk.services.settings import law_settings, update_settings
from tests.pgroles.conftest import CHEFE_PASSWORD, RolesSite
from tests.tests_helpers import valid_cpf

DESACATO = "30.3.I"  # Art. 30, Grupo 3, I (grave): admits a suspension
BASIS = "Lei Complementar municipal nº 100/2025, anexo III"
LOGINS = {Role.CLERK: "caio", Role.INSPECTOR: "ivo", Role.SUPERVISOR: "sara", Role.ADMIN: "chefe"}
PASSWORDS = {Role.CLERK: "senha-do-caio-1", Role.INSPECTOR: "senha-do-ivo-1", Role.SUPERVISOR: "senha-da-sara-1",
             Role.ADMIN: CHEFE_PASSWORD}


class Staff:
    """The four profiles of one site, each logged in as its own role."""

    def __init__(self, site: RolesSite) -> None:
        self.site = site
        admin = site.login("chefe", CHEFE_PASSWORD)
        for role, login in LOGINS.items():
            if role is not Role.ADMIN:
                users.create_user(admin, login, f"{login.title()} da Silva", role, PASSWORDS[role])
        self.ctx = {role: site.login(LOGINS[role], PASSWORDS[role]) for role in Role}

    def __getitem__(self, role: Role) -> Any:
        return self.ctx[role]

    def raw(self, role: Role) -> psycopg.Connection[Any]:
        url = self.site.url_as(self.site.role_of(LOGINS[role]), PASSWORDS[role])
        return psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), connect_timeout=5)


@pytest.fixture
def staff(roles_site: RolesSite) -> Staff:
    return Staff(roles_site)


def _authors(site: RolesSite, since: int) -> dict[str, set[str]]:
    """Who wrote each table's audit rows after audit id ``since``."""
    found: dict[str, set[str]] = {}
    with site.owner.db.engine.connect() as conn:
        for table, who in conn.exec_driver_sql(
                "SELECT table_name, user_login FROM audit_events WHERE id > %s", (since,)).all():
            found.setdefault(str(table), set()).add(str(who))
    return found


def _last_audit_id(site: RolesSite) -> int:
    with site.owner.db.engine.connect() as conn:
        return int(conn.exec_driver_sql("SELECT coalesce(max(id), 0) FROM audit_events").scalar_one())


def _notice(inspector: Any, person_id: int, code: str = "30.2.VI") -> enforcement.NoticeCreated:
    return enforcement.create_notice(inspector, NoticeInput(
        infraction_code=code, occurred_at=an_hour_ago(), place="Praça Honorato Borges, Centro",
        offender_kind=OffenderKind.HOLDER, person_id=person_id,
        description="Relato do fiscal: o condutor desacatou a fiscalização."))


def clerk_work(staff: Staff, tmp_path: Path) -> set[str]:
    fees.set_fee(staff[Role.SUPERVISOR], FeeAct.APPLICATION, "45,90", BASIS)  # the fee the clerk collects
    clerk = staff[Role.CLERK]
    person = people.save_person(clerk, PersonInput(full_name="Clara Cadastrada Souza", cpf=valid_cpf()))
    people.save_document(clerk, person.id, DocumentInput(DocumentKind.IDENTITY, number="MG-14.325.876",
                                                         issuer="SSP", issuer_uf="MG"))
    people.save_document(clerk, person.id, DocumentInput(DocumentKind.RESIDENCE,
                                                         issue_date=date.today() - timedelta(days=3)))
    fees.record_payment(clerk, FeeAct.APPLICATION, person.id, "DAM 2026/0101", date.today() - timedelta(days=1),
                        "45,90")
    opened = applications.open_application(clerk, person.id, ServiceType.MOTOBOY)
    assert opened.id
    people.get_dossier(clerk, person.id)  # a sensitive read: its access-log row
    return {"people", "person_documents", "fee_payments", "applications"}


def inspector_work(staff: Staff, tmp_path: Path) -> set[str]:
    inspector = staff[Role.INSPECTOR]
    dossier = make_dossier(staff.site.owner, inspection=None)
    started = inspections.start_inspection(inspector, vehicle_id=dossier.vehicle_id)
    iid = started if isinstance(started, int) else started.id
    view = inspections.get_inspection(inspector, iid)
    inspections.conclude_inspection(inspector, iid, [ItemAnswer(i.code, ItemResult.OK) for i in view.items])
    holder = add_holder(staff.site.owner, "Josué Autuado Pereira")
    created = _notice(inspector, holder.person_id)
    assert created.number.startswith("AI-")
    return {"inspections", "inspection_items", "infraction_notices"}


def supervisor_work(staff: Staff, tmp_path: Path) -> set[str]:
    supervisor = staff[Role.SUPERVISOR]
    dossier = make_dossier(staff.site.owner, ServiceType.MOTOBOY)
    permits.approve(supervisor, dossier.application_id, "1.234/2026", date.today() - timedelta(days=1))
    issued = permits.issue(supervisor, dossier.application_id)
    assert issued.id
    holder = add_holder(staff.site.owner, "Rui Suspenso Pereira")
    created = _notice(staff[Role.INSPECTOR], holder.person_id, DESACATO)
    day = created.defence_due + timedelta(days=1)
    first = enforcement.decide(supervisor, created.id, DecisionInput(
        Outcome.UPHELD, "Desacato presenciado por dois fiscais.", Penalty.SUSPENSION, suspension_days=10), today=day)
    assert first.appeal_due is None  # it runs from the decision's notification (Art. 34, §ún.)
    notified = enforcement.record_decision_notification(supervisor, created.id, enforcement.NotificationInput(
        enforcement.NotificationMethod.POST_AR, day, reference="AR BR000111222"), today=day)
    assert notified.appeal_due > day
    with staff.site.owner.db.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT state FROM permits WHERE id = %s",
                                    (holder.permit_id,)).scalar() == PermitState.SUSPENDED.value
    enforcement.record_appeal(supervisor, created.id, FiledDocument(text="Não houve desacato; há testemunhas.",
                                                                   received_on=day), today=day)
    enforcement.decide(supervisor, created.id, DecisionInput(
        Outcome.DISMISSED, "Testemunhas confirmam a versão do recorrente."), today=day + timedelta(days=5))
    with staff.site.owner.db.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT state FROM permits WHERE id = %s",
                                    (holder.permit_id,)).scalar() == PermitState.ACTIVE.value  # reinstated
    fees.set_fee(supervisor, FeeAct.RENEWAL, Decimal("30"), BASIS)
    return {"decrees", "permits", "permit_events", "decisions", "settings"}


def admin_work(staff: Staff, tmp_path: Path) -> set[str]:
    admin = staff[Role.ADMIN]
    users.create_user(admin, "nova", "Nova Atendente", Role.CLERK, "senha-da-nova-1", temporary=True)
    users.set_active(admin, "nova", False)
    users.set_active(admin, "nova", True)
    users.reset_password(admin, "nova", "outra-senha-1")
    users.change_role(admin, "nova", Role.INSPECTOR)
    population = law_settings(admin).population
    update_settings(admin, {"population": population + 1})
    result = backup.create_backup(admin, tmp_path / "copia.zip")
    assert result.path.exists()
    return {"users", "settings"}


WORK: dict[Role, Callable[[Staff, Path], set[str]]] = {
    Role.CLERK: clerk_work, Role.INSPECTOR: inspector_work, Role.SUPERVISOR: supervisor_work, Role.ADMIN: admin_work,
}


@pytest.mark.parametrize("profile", list(Role), ids=lambda r: r.value)
def test_each_profiles_typical_work_succeeds_under_its_own_role_and_names_it(staff: Staff, tmp_path: Path,
                                                                             profile: Role) -> None:
    since = _last_audit_id(staff.site)
    written = WORK[profile](staff, tmp_path)
    authors = _authors(staff.site, since)
    me = LOGINS[profile]
    for table in written:
        assert me in authors.get(table, set()), (table, authors.get(table))
    if profile is Role.CLERK:
        with staff.site.owner.db.engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT count(*) FROM access_log WHERE user_login = 'caio'").scalar() >= 1


PERMIT_INSERT = ("INSERT INTO permits (number, service_type, year, seq, person_id, state, issued_on, term_end, "
                 "badge_issue_no, created_at, updated_at, version) SELECT 'MB-9999/2026', 'motoboy', 2026, 9999, "
                 "id, 'active', current_date, current_date + 3650, 1, now(), now(), 1 FROM people LIMIT 1")
AUDIT_INSERT = ("INSERT INTO audit_events (at, user_login, table_name, row_key, action, changes) "
                "VALUES (now(), 'chefe', 'permits', '1', 'insert', '{}')")
REFUSED: list[tuple[Role, str]] = [
    (Role.CLERK, "DELETE FROM permits"),
    (Role.CLERK, "INSERT INTO decisions (id) VALUES (1)"),
    (Role.CLERK, "UPDATE settings SET value = value"),
    (Role.CLERK, "UPDATE users SET role = 'admin'"),
    (Role.INSPECTOR, PERMIT_INSERT),
    (Role.INSPECTOR, "UPDATE settings SET value = value"),
    (Role.INSPECTOR, "INSERT INTO settings (key, value, version) VALUES ('population', '1', 1)"),
    (Role.INSPECTOR, "DELETE FROM decisions"),
    (Role.SUPERVISOR, "UPDATE users SET role = 'admin'"),
    (Role.SUPERVISOR, "SELECT motodesk_sync_role('sara', NULL)"),
    (Role.SUPERVISOR, "SELECT motodesk_reference_schema()"),
    *[(role, statement) for role in Role for statement in (
        AUDIT_INSERT, "UPDATE audit_events SET user_login = 'outro'", "DELETE FROM audit_events",
        "UPDATE access_log SET user_login = 'outro'", "DELETE FROM access_log",
        "UPDATE audit_checkpoints SET reason = 'x'", "DELETE FROM audit_checkpoints",
        "TRUNCATE access_log", "CREATE TABLE planta (id integer)", "ALTER TABLE people DISABLE TRIGGER ALL",
        "SELECT * FROM role_password_marks", "DELETE FROM role_password_marks")],
]


@pytest.mark.parametrize("profile", list(Role), ids=lambda r: r.value)
def test_what_a_profile_may_not_do_the_server_refuses(staff: Staff, profile: Role) -> None:
    statements = [statement for role, statement in REFUSED if role is profile]
    assert len(statements) >= 11
    before = _last_audit_id(staff.site)
    with staff.raw(profile) as conn:
        for statement in statements:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
            conn.rollback()
    assert _last_audit_id(staff.site) == before


@pytest.mark.parametrize("profile", list(Role), ids=lambda r: r.value)
def test_an_access_log_row_written_by_hand_carries_the_servers_author_and_time(staff: Staff,
                                                                                profile: Role) -> None:
    with staff.raw(profile) as conn:
        conn.execute("INSERT INTO access_log (at, user_login, data_kind, screen) "
                     "VALUES ('2001-01-01', 'chefe', 'dossier', 'forjado')")
        conn.commit()
    with staff.site.owner.db.engine.connect() as conn:
        who, at = conn.exec_driver_sql("SELECT user_login, at FROM access_log WHERE screen = 'forjado'").one()
        now = conn.exec_driver_sql("SELECT now() AT TIME ZONE 'UTC'").scalar()
    assert who == LOGINS[profile]
    assert abs((now - at).total_seconds()) < 120  # not the back-dated time the session gave


@pytest.mark.parametrize("profile", list(Role), ids=lambda r: r.value)
def test_no_profile_reads_a_badge_private_key_from_the_database(staff: Staff, profile: Role) -> None:
    """Issue 25, item 2: the database keeps public keys only (the site registered a printing station)."""
    with staff.raw(profile) as conn:
        keys = dict(conn.execute("SELECT key, value FROM settings WHERE key LIKE 'badge%%'").fetchall())
        assert keys, "the badges' public key is in settings"
        assert not any("PRIVATE" in value for value in keys.values())
        assert conn.execute("SELECT count(*) FROM settings WHERE value LIKE '%%PRIVATE KEY%%'").fetchone() == (0,)
