"""A small register for the deadlines, exports, imports and dashboard tests (importable as `reports_factory`).

Builds on ``enforcement_factory.add_holder`` (person, vehicle, permit in force) and adds what the
deadlines and the spreadsheets read: dossier documents with dates, inspections, notices with a
decision, a tender's waiting list, an organisation with a member.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from enforcement_factory import Holder, add_holder  # type: ignore[import-not-found]
from sqlalchemy import update
from tests_helpers import existing_register, valid_cpf  # type: ignore[import-not-found]

from motodesk.models import (
    Affiliation,
    Decision,
    InfractionNotice,
    Inspection,
    InspectionItem,
    Organisation,
    Person,
    PersonDocument,
    Tender,
    TenderCandidate,
)
from motodesk.rules.common import PermitState, ServiceType
from motodesk.rules.dossier import DocumentKind
from motodesk.services.context import AppContext


@dataclass(frozen=True)
class Registered:
    holder: Holder
    phone: str


def holder(ctx: AppContext, name: str, service: ServiceType = ServiceType.MOTOBOY, *, today: date | None = None,
           medical_issued: date | None = None, cnh_valid_until: date | None = None,
           criminal_issued: date | None = None, issued_on: date | None = None,
           state: PermitState = PermitState.ACTIVE, phone: str = "34999990000") -> Registered:
    """A holder with a permit, a vehicle and the dated documents the deadlines view reads."""
    today = today or date.today()
    h = add_holder(ctx, name, service=service, issued_on=issued_on or today - timedelta(days=100), state=state)
    with ctx.write() as s:
        existing_register(s)
        s.execute(update(Person).where(Person.id == h.person_id).values(phone=phone, birth_date=date(1988, 4, 2)))
        s.add(PersonDocument(person_id=h.person_id, kind=DocumentKind.MEDICAL,
                             issue_date=medical_issued or today - timedelta(days=30)))
        s.add(PersonDocument(person_id=h.person_id, kind=DocumentKind.CNH, number="34046871254", categories="AB",
                             reference_date=date(2012, 5, 3), valid_until=cnh_valid_until or today + timedelta(days=900),
                             flag=True))
        s.add(PersonDocument(person_id=h.person_id, kind=DocumentKind.CRIMINAL,
                             issue_date=criminal_issued or today - timedelta(days=30), result="negative"))
    return Registered(h, phone)


def inspection(ctx: AppContext, h: Holder, *, status: str = "failed", next_due: date | None = None,
               failed_items: tuple[str, ...] = ("Retrovisores dos dois lados",)) -> int:
    with ctx.write() as s:
        existing_register(s)
        insp = Inspection(vehicle_id=h.vehicle_id, service_type=h.service, kind="regular", status=status,
                          performed_at=datetime.now(UTC) - timedelta(days=2), inspector_name="Carlos Henrique Borges",
                          next_due=next_due or date.today() + timedelta(days=30))
        s.add(insp)
        s.flush()
        for i, text in enumerate(failed_items, 1):
            s.add(InspectionItem(inspection_id=insp.id, position=i, code=f"IT{i}", article="Art. 19, § 1º",
                                 text=text, result="not_ok"))
        s.add(InspectionItem(inspection_id=insp.id, position=99, code="OK1", article="Art. 3º, I",
                             text="Cilindrada", result="ok"))
        return insp.id


def notice(ctx: AppContext, h: Holder, seq: int, *, occurred_at: datetime | None = None,
           severity: str = "media", decided: bool = True, notified_on: date | None = None,
           defence_due: date | None = None) -> int:
    occurred_at = occurred_at or datetime.now(UTC) - timedelta(days=20)
    with ctx.write() as s:
        existing_register(s)
        n = InfractionNotice(
            number=f"AI-{seq:04d}/{occurred_at.year}", year=occurred_at.year, seq=seq, infraction_code="30.2.VI",
            article="Art. 30, Grupo 2, VI", severity=severity, occurred_at=occurred_at, place="Praça Santa Luzia",
            person_id=h.person_id, permit_id=h.permit_id, offender_kind="holder", offender_name=h.name,
            offender_cpf=h.cpf, vehicle_id=h.vehicle_id, plate=h.plate, description="sonegar troco",
            inspector_login="vistoriador", inspector_name="Carlos Henrique Borges", signed=False,
            refused_to_sign=True, status="decided" if decided else "open",
            notified_on=notified_on or occurred_at.date(),
            defence_due=defence_due or occurred_at.date() + timedelta(days=15),
        )
        s.add(n)
        s.flush()
        if decided:
            s.add(Decision(notice_id=n.id, stage="first", outcome="upheld", decided_by="supervisor",
                           severity=severity, penalty="fine", fine_ufm=Decimal("2"), ufm_value_brl=Decimal("100.00"),
                           fine_brl=Decimal("200.00"), appeal_due=date.today() + timedelta(days=20)))
        return n.id


def waiting_list(ctx: AppContext, names: tuple[str, ...]) -> int:
    with ctx.write() as s:
        existing_register(s)
        tender = Tender(number="PL-009/2025", description="Concorrência mototáxi", homologated_on=date(2025, 6, 2))
        s.add(tender)
        s.flush()
        for rank, name in enumerate(names, 1):
            s.add(TenderCandidate(tender_id=tender.id, rank=rank, cpf=valid_cpf(), name=name, status="waiting"))
        return tender.id


def organisation_member(ctx: AppContext, h: Holder) -> None:
    with ctx.write() as s:
        existing_register(s)
        org = Organisation(kind="cooperative", name="Cooperativa dos Mototaxistas de Patrocínio",
                           cnpj="11222333000181")
        s.add(org)
        s.flush()
        s.add(Affiliation(organisation_id=org.id, person_id=h.person_id, start_on=date(2024, 2, 1)))


# --- import registers ---------------------------------------------------------------------------------


def register_row(cpf: str, name: str, plate: str | None = None, **over: object) -> dict[str, object]:
    """A row of the import template, valid unless ``over`` says otherwise."""
    today = date.today()
    values: dict[str, object] = {
        "full_name": name, "cpf": f"{cpf[:3]}.{cpf[3:6]}.{cpf[6:9]}-{cpf[9:]}", "birth_date": date(1985, 3, 14),
        "sex": "Feminino", "phone": "(34) 99876-5432", "email": "pessoa@exemplo.com.br",
        "address": "Rua Goiás, 100, Centro", "cnh": "02650306461", "cnh_categories": "AB",
        "cnh_first_a_date": date(2010, 6, 1), "cnh_expiry": today + timedelta(days=800), "service": "Motoboy",
        "plate": plate, "manufacture_year": today.year - 1, "engine_cc": 160, "nit": "120.5464.678-6",
    }
    values.update(over)
    return values


def fill_register(path, rows):  # noqa: ANN001, ANN201
    """The app's own template, filled in as a clerk would."""
    import openpyxl

    from motodesk.exports.importer import TEMPLATE_COLUMNS, TEMPLATE_SHEET, write_template

    write_template(path)
    wb = openpyxl.load_workbook(path)
    ws = wb[TEMPLATE_SHEET]
    keys = {c.header: c.key for c in TEMPLATE_COLUMNS}
    headers = [c.value for c in ws[1]]
    for values in rows:
        ws.append([values.get(keys[h]) for h in headers])
    wb.save(path)
    return path
