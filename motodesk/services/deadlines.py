"""The deadlines view ("Prazos"): what falls due in the next days, and what is overdue.

Each kind of deadline is one query that returns only the rows due up to the horizon, so the view
stays quick however large the register: the validity periods come from LawSettings and are turned
into a cut-off date before the query runs. Dates themselves come from motodesk.rules.deadlines, so
the view, the dossier and the renewal letters always agree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from sqlalchemy import Select, and_, func, or_, select
from sqlalchemy.orm import Session, aliased

from motodesk.models import DeputyLink, Inspection, Permit, Person, PersonDocument, Vehicle, VehicleAccident
from motodesk.rules import deadlines as dl
from motodesk.rules import documents_declared
from motodesk.rules.common import IN_FORCE_STATES as IN_FORCE
from motodesk.rules.common import Role, ServiceType
from motodesk.rules.dossier import DocumentKind
from motodesk.rules.periods import add_months, add_years
from motodesk.rules.settings import LawSettings
from motodesk.services.clock import LOCAL_TZ, local_today
from motodesk.services.context import AppContext, requires
from motodesk.services.enforcement import open_process_deadlines
from motodesk.services.errors import InvalidInputError
from motodesk.services.settings import law_settings
from motodesk.services.text import digits, fold, search_text

WINDOWS = (30, 60, 90)


@dataclass(frozen=True)
class DeadlineRow:
    """One line of the deadlines view."""

    deadline: dl.Deadline
    days_left: int  # negative: overdue by that many days
    person_id: int | None
    person_name: str
    cpf: str | None
    service: ServiceType | None
    permit_number: str | None
    detail: str = ""
    phone: str | None = None

    @property
    def kind(self) -> dl.DeadlineKind:
        return self.deadline.kind

    @property
    def overdue(self) -> bool:
        return self.days_left < 0


@dataclass(frozen=True)
class DeadlineFilter:
    horizon_days: int = 30
    include_overdue: bool = True
    kinds: frozenset[dl.DeadlineKind] | None = None
    service: ServiceType | None = None
    person: str = ""  # name or CPF, as typed
    person_id: int | None = None
    overdue_only: bool = False  # the "Vencidos" button: only what is already overdue


def _holders(flt: DeadlineFilter) -> Select:
    """Holders of a permit in force with their permit: the people whose deadlines matter."""
    q = (select(Person.id, Person.full_name, Person.cpf, Person.phone, Permit.service_type, Permit.number,
                Permit.id.label("permit_id"))
         .join(Permit, and_(Permit.person_id == Person.id, Permit.state.in_(IN_FORCE))))
    if flt.person_id is not None:
        q = q.where(Person.id == flt.person_id)
    if flt.service is not None:
        q = q.where(Permit.service_type == flt.service)
    if flt.person.strip():  # narrowed in the database too (the same test runs again on every row below)
        cpf = digits(flt.person)
        if cpf and any(c.isdigit() for c in flt.person) and not any(c.isalpha() for c in flt.person):
            q = q.where(Person.cpf.startswith(cpf, autoescape=True))
        else:
            q = q.where(Person.name_search.contains(fold(search_text(flt.person)), autoescape=True))
    return q


def _row(deadline: dl.Deadline, today: date, r, detail: str = "") -> DeadlineRow:  # noqa: ANN001
    return DeadlineRow(deadline, dl.days_until_due(deadline, today), r.id, r.full_name, r.cpf,
                       r.service_type, r.number, detail, r.phone)


def _document_deadlines(s: Session, flt: DeadlineFilter, kind: DocumentKind, date_col, cutoff: date, make: Callable[[date], dl.Deadline],  # noqa: ANN001
                        today: date) -> list[DeadlineRow]:
    q = (_holders(flt).add_columns(date_col.label("d"))
         .join(PersonDocument, and_(PersonDocument.person_id == Person.id, PersonDocument.kind == kind))
         .where(date_col.is_not(None), date_col <= cutoff))
    rows = [_row(make(r.d), today, r) for r in s.execute(q)]
    # The deputy drives the same vehicle under the same requirements (Art. 14, § 2º): their documents
    # fall due on the holder's permit, named in the detail.
    deputy = aliased(Person)
    q = (_holders(flt).add_columns(date_col.label("d"), deputy.full_name.label("deputy_name"))
         .join(DeputyLink, and_(DeputyLink.permit_id == Permit.id,
                                or_(DeputyLink.end_on.is_(None), DeputyLink.end_on >= today)))
         .join(deputy, deputy.id == DeputyLink.deputy_person_id)
         .join(PersonDocument, and_(PersonDocument.person_id == deputy.id, PersonDocument.kind == kind))
         .where(date_col.is_not(None), date_col <= cutoff))
    return rows + [_row(make(r.d), today, r, f"preposto {r.deputy_name}") for r in s.execute(q)]


def collect(ctx: AppContext, flt: DeadlineFilter, today: date | None = None,
            settings: LawSettings | None = None) -> list[DeadlineRow]:
    """Every deadline due by today + horizon (and the overdue ones), soonest first."""
    today = today or local_today()
    settings = settings or law_settings(ctx)
    horizon = today + timedelta(days=flt.horizon_days)
    wanted = flt.kinds or frozenset(dl.DeadlineKind)
    rows: list[DeadlineRow] = []
    K = dl.DeadlineKind
    with ctx.read() as s:
        if K.MEDICAL in wanted:
            # due = issue + valid years (CC art. 132 § 3º; a day of slack for 29 February)
            cutoff = add_years(horizon, -settings.medical_valid_years) + timedelta(days=1)
            rows += _document_deadlines(s, flt, DocumentKind.MEDICAL, PersonDocument.issue_date, cutoff,
                                        lambda d: dl.medical_due(d, settings), today)
        if K.CRIMINAL_CERTIFICATES in wanted:
            cutoff = date(max(horizon.year - settings.criminal_valid_years, 1), 12, 31)
            rows += _document_deadlines(s, flt, DocumentKind.CRIMINAL, PersonDocument.issue_date, cutoff,
                                        lambda d: dl.criminal_certificates_due(d, settings), today)
        if K.CNH in wanted:
            rows += _document_deadlines(s, flt, DocumentKind.CNH, PersonDocument.valid_until, horizon, dl.cnh_due, today)
        if K.REGISTRATION_CERTIFICATE in wanted:
            q = _holders(flt).add_columns(Permit.certificate_valid_until.label("d")).where(
                Permit.certificate_valid_until <= horizon)
            rows += [_row(dl.Deadline(K.REGISTRATION_CERTIFICATE, K.REGISTRATION_CERTIFICATE.article, r.d,
                                      K.REGISTRATION_CERTIFICATE.label), today, r) for r in s.execute(q)]
        if K.PERMIT_TERM in wanted:
            q = _holders(flt).add_columns(Permit.term_end.label("d")).where(Permit.term_end <= horizon)
            rows += [_row(dl.Deadline(K.PERMIT_TERM, K.PERMIT_TERM.article, r.d, K.PERMIT_TERM.label), today, r)
                     for r in s.execute(q)]
        vehicle_q = _holders(flt).join(Vehicle, and_(Vehicle.holder_id == Person.id, Vehicle.active.is_(True)))
        if K.VEHICLE_USEFUL_LIFE in wanted:
            q = vehicle_q.add_columns(Vehicle.year_manufacture.label("y"), Vehicle.plate).where(
                Vehicle.year_manufacture.is_not(None), Vehicle.year_manufacture <= horizon.year - 5)
            rows += [_row(dl.vehicle_useful_life_due(r.y), today, r, f"placa {r.plate}, fabricação {r.y}")
                     for r in s.execute(q)]
        if K.PASSENGER_INSURANCE in wanted:
            q = vehicle_q.add_columns(Vehicle.passenger_insurance_valid_until.label("d"), Vehicle.plate).where(
                Permit.service_type == ServiceType.MOTOTAXI,
                Vehicle.passenger_insurance_valid_until.is_not(None),
                Vehicle.passenger_insurance_valid_until <= horizon)
            rows += [_row(dl.passenger_insurance_due(r.d), today, r, f"placa {r.plate}") for r in s.execute(q)]
        if K.INSPECTION in wanted:
            rows += _inspection_rows(s, vehicle_q, horizon, today, settings)
        if K.ACCIDENT_REPORT in wanted or K.INSPECTION in wanted:
            rows += [r for r in _accident_rows(s, vehicle_q, today, settings) if r.kind in wanted]
        if K.DEPUTY_DEREGISTRATION in wanted:
            deputy = aliased(Person)
            q = (_holders(flt).join(DeputyLink, DeputyLink.permit_id == Permit.id)
                 .join(deputy, deputy.id == DeputyLink.deputy_person_id)
                 .add_columns(DeputyLink.end_on.label("d"), deputy.full_name.label("deputy_name"))
                 .where(DeputyLink.end_on.is_not(None), DeputyLink.end_on >= today - timedelta(days=30),
                        DeputyLink.end_on <= horizon))
            rows += [_row(dl.deputy_deregistration_due(r.d, settings), today, r, f"preposto {r.deputy_name}")
                     for r in s.execute(q)]
        if K.DEFENCE_PERIOD in wanted or K.APPEAL_PERIOD in wanted:
            rows += _process_rows(ctx, s, today, horizon, wanted, flt.person_id)
        if K.NEW_DOCUMENT in wanted:
            rows += _new_document_rows(s, flt, today, horizon, settings)
    return _filter(rows, flt, today, horizon)


def _new_document_rows(s: Session, flt: DeadlineFilter, today: date, horizon: date,
                       settings: LawSettings) -> list[DeadlineRow]:
    """Who must still bring a document added after they were registered (``documents_declared``): every
    holder in force without it, due on the start date of its transition; their deputies on the holder's line."""
    out: list[DeadlineRow] = []
    for doc in documents_declared.generic():
        start = settings.requirement_start(doc.kind)
        if start is None or start > horizon:
            continue
        kind = DocumentKind(doc.kind)
        deadline = dl.new_document_due(f"Apresentar: {doc.label}", doc.article, start)
        has = (select(PersonDocument.id).where(PersonDocument.person_id == Person.id, PersonDocument.kind == kind)
               .correlate(Person).exists())
        wanted = [service for service in ServiceType if doc.applies(service, documents_declared.HOLDER)]
        q = _holders(flt).where(~has, Permit.service_type.in_(wanted))
        out += [_row(deadline, today, r, doc.label) for r in s.execute(q)]
        deputy = aliased(Person)
        has_deputy = (select(PersonDocument.id).where(PersonDocument.person_id == deputy.id,
                                                      PersonDocument.kind == kind).correlate(deputy).exists())
        deputies = [service for service in ServiceType if doc.applies(service, documents_declared.DEPUTY)]
        q = (_holders(flt).add_columns(deputy.full_name.label("deputy_name"))
             .join(DeputyLink, and_(DeputyLink.permit_id == Permit.id, DeputyLink.end_on.is_(None)))
             .join(deputy, deputy.id == DeputyLink.deputy_person_id)
             .where(~has_deputy, Permit.service_type.in_(deputies)))
        out += [_row(deadline, today, r, f"{doc.label} – preposto {r.deputy_name}") for r in s.execute(q)]
    return out


def _inspection_rows(s: Session, vehicle_q: Select, horizon: date, today: date,
                     settings: LawSettings) -> list[DeadlineRow]:
    """When each vehicle's inspection falls due: an approved one at the end of its validity for the
    service (Art. 5º, § 6º; Art. 23), a failed one at its re-inspection, a scheduled one on its day."""
    K = dl.DeadlineKind
    latest = (select(Inspection.vehicle_id, func.max(Inspection.id).label("last_id"))
              .where(Inspection.status.in_(("approved", "failed", "scheduled")))
              .group_by(Inspection.vehicle_id).subquery())
    # An approved inspection falls due no sooner than the shortest validity after it was performed:
    # older ones are the only candidates (the exact day is the rules' below).
    months = [dl.inspection_valid_months(service, settings) for service in ServiceType]
    if settings.periodic_inspection_months:
        months.append(settings.periodic_inspection_months)
    approved_before = datetime.combine(add_months(horizon, -min(months)) + timedelta(days=2), time.min, tzinfo=UTC)
    due_col = func.coalesce(Inspection.next_due, Inspection.scheduled_for)
    q = (vehicle_q.join(latest, latest.c.vehicle_id == Vehicle.id)
         .join(Inspection, Inspection.id == latest.c.last_id)
         .add_columns(due_col.label("d"), Inspection.status, Inspection.performed_at,
                      Inspection.service_type.label("inspected_for"), Vehicle.plate)
         .where(or_(and_(Inspection.status == "approved", Inspection.performed_at.is_not(None),
                         Inspection.performed_at < approved_before),
                    and_(Inspection.status != "approved", due_col.is_not(None), due_col <= horizon))))
    out = []
    for r in s.execute(q):
        due = r.d
        if r.status == "approved":
            deadline = dl.inspection_due(r.inspected_for, r.performed_at.astimezone(LOCAL_TZ).date(), True, settings)
            due = deadline.due if deadline else None
        if due is None or due > horizon:
            continue
        detail = f"placa {r.plate}" + (" – vistoria agendada" if r.status == "scheduled" else "")
        out.append(_row(dl.Deadline(K.INSPECTION, K.INSPECTION.article, due, K.INSPECTION.label), today, r, detail))
    return out


#: How far back the deadlines view looks for accidents reported late (flagged for a notice).
ACCIDENT_LOOKBACK_DAYS = 365


def _accident_rows(s: Session, vehicle_q: Select, today: date, settings: LawSettings) -> list[DeadlineRow]:
    """Accidents reported after the 5 days (flagged for a notice, Art. 31, Grupo 2, II), and
    safety-compromising accidents still waiting for their accident inspection (Art. 31, Grupo 4, I)."""
    from motodesk.rules.accidents import (
        LATE_REPORT_FLAG,
        AccidentFacts,
        accidents_awaiting_inspection,
        report_is_late,
    )

    K = dl.DeadlineKind
    q = (vehicle_q.join(VehicleAccident, VehicleAccident.vehicle_id == Vehicle.id)
         .add_columns(VehicleAccident.happened_on, VehicleAccident.reported_on, VehicleAccident.safety_compromised,
                      Vehicle.plate, Vehicle.id.label("vehicle_id"))
         .where(or_(VehicleAccident.safety_compromised.is_(True),
                    VehicleAccident.happened_on >= today - timedelta(days=ACCIDENT_LOOKBACK_DAYS))))
    rows = list(s.execute(q))
    passed: dict[int, list[date]] = {}
    for vehicle_id in {r.vehicle_id for r in rows}:
        passed[vehicle_id] = [at.astimezone(LOCAL_TZ).date() for at in s.scalars(
            select(Inspection.performed_at).where(Inspection.vehicle_id == vehicle_id, Inspection.kind == "accident",
                                                  Inspection.status.in_(("approved", "superseded")),
                                                  Inspection.performed_at.is_not(None))) if at is not None]
    out = []
    for r in rows:
        facts = AccidentFacts(r.happened_on, r.reported_on, r.safety_compromised)
        if report_is_late(facts, settings):
            due = dl.accident_report_due(r.happened_on, settings)
            out.append(_row(due, today, r, f"placa {r.plate}, acidente de {r.happened_on:%d/%m/%Y}: "
                                           f"{LATE_REPORT_FLAG}"))
        if accidents_awaiting_inspection([facts], passed.get(r.vehicle_id, [])):
            out.append(_row(dl.Deadline(K.INSPECTION, "Art. 31, Grupo 4, I", r.happened_on, "Vistoria após acidente"),
                            today, r, f"placa {r.plate}, acidente de {r.happened_on:%d/%m/%Y}: documentos "
                                      "bloqueados até a vistoria"))
    return out


def _process_rows(ctx: AppContext, s: Session, today: date, horizon: date, wanted: Iterable[dl.DeadlineKind],
                  person_id: int | None) -> list[DeadlineRow]:
    """Defence and appeal periods of open processes, with the offender's permit in force when there is one
    (so the service filter and the renewal letters see them like any other row)."""
    wanted = set(wanted)
    found = [p for p in open_process_deadlines(ctx, today)
             if p.deadline.kind in wanted and p.deadline.due <= horizon
             and (person_id is None or p.person_id == person_id)]
    ids = {p.person_id for p in found if p.person_id is not None}
    holders: dict[int, tuple[str | None, str | None, ServiceType | None, str | None]] = {}
    for chunk in _chunks(sorted(ids), 500):
        q = (select(Person.id, Person.cpf, Person.phone, Permit.service_type, Permit.number)
             .outerjoin(Permit, and_(Permit.person_id == Person.id, Permit.state.in_(IN_FORCE)))
             .where(Person.id.in_(chunk)))
        for r in s.execute(q):
            holders[r.id] = (r.cpf, r.phone, r.service_type, r.number)
    rows = []
    for p in found:
        cpf, phone, service, number = holders.get(p.person_id, (None, None, None, None)) \
            if p.person_id is not None else (None, None, None, None)
        rows.append(DeadlineRow(p.deadline, dl.days_until_due(p.deadline, today), p.person_id, p.person_name,
                                cpf, service, number, f"auto {p.notice_number}", phone))
    return rows


def _chunks(items: Sequence[int], size: int) -> Iterable[Sequence[int]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def _filter(rows: Sequence[DeadlineRow], flt: DeadlineFilter, today: date, horizon: date) -> list[DeadlineRow]:
    name = fold(flt.person) if flt.person else ""
    cpf = digits(flt.person) if flt.person and any(c.isdigit() for c in flt.person) else ""
    kept = []
    for row in rows:
        if row.deadline.due > horizon:
            continue
        if not flt.include_overdue and row.days_left < 0:
            continue
        if flt.overdue_only and row.days_left >= 0:
            continue
        if flt.service is not None and row.service != flt.service:
            continue
        if cpf:
            if not (row.cpf or "").startswith(cpf):
                continue
        elif name and name not in fold(row.person_name):
            continue
        kept.append(row)
    return sorted(kept, key=lambda r: (r.deadline.due, r.person_name, r.kind.value))


@requires(Role.CLERK, Role.SUPERVISOR, Role.INSPECTOR, Role.ADMIN)
def deadlines(ctx: AppContext, flt: DeadlineFilter = DeadlineFilter(), today: date | None = None) -> list[DeadlineRow]:  # noqa: B008
    """The deadlines view's rows (every role may look; only clerks and supervisors act on them)."""
    return collect(ctx, flt, today)


def person_deadlines(ctx: AppContext, person_id: int, horizon_days: int = 365,
                     today: date | None = None) -> list[DeadlineRow]:
    """One person's deadlines in the coming year (for the dossier and the renewal letter)."""
    return collect(ctx, DeadlineFilter(horizon_days=horizon_days, person_id=person_id), today)




# --- renewal letters (the yearly campaign) -------------------------------------------------------

#: What the holder brings to the counter for each kind of deadline.
DOCUMENTS_TO_BRING: dict[dl.DeadlineKind, str] = {
    dl.DeadlineKind.MEDICAL: "Atestado médico de sanidade física e mental (Art. 5º, VII)",
    dl.DeadlineKind.REGISTRATION_CERTIFICATE: "Certificado de registro cadastral atual (Art. 4º, § 1º)",
    dl.DeadlineKind.CRIMINAL_CERTIFICATES: "Certidões negativas criminais (Art. 5º, XI)",
    dl.DeadlineKind.CNH: "CNH válida, categoria A, com a observação EAR (Art. 5º, II)",
    dl.DeadlineKind.PASSENGER_INSURANCE: "Apólice do seguro de acidentes pessoais de passageiros (Art. 19, § 1º)",
    dl.DeadlineKind.VEHICLE_USEFUL_LIFE: "CRV e CRLV do veículo que substituirá o atual (Art. 3º, II)",
    dl.DeadlineKind.INSPECTION: "O veículo, para a vistoria (Art. 5º, § 6º)",
    dl.DeadlineKind.PERMIT_TERM: "Requerimento de prorrogação do prazo (Art. 6º)",
    dl.DeadlineKind.DEPUTY_DEREGISTRATION: "Comunicação de desligamento do preposto (Art. 31, Grupo 1, I)",
    dl.DeadlineKind.DEFENCE_PERIOD: "Defesa escrita do auto de infração, se desejar (Art. 29, § 3º)",
    dl.DeadlineKind.APPEAL_PERIOD: "Recurso da decisão, se desejar (Art. 34, parágrafo único)",
}


@dataclass(frozen=True)
class Campaign:
    """The renewal campaign the letters announce: its deadline (portaria), where and when to go."""

    deadline: date
    place: str = "SESTRAN – Setor de Cadastro, Prefeitura Municipal de Patrocínio"
    opening_hours: str = "de segunda a sexta-feira, das 8h às 17h"
    portaria: str = ""


@dataclass(frozen=True)
class RenewalLetters:
    pdf: bytes
    letters: int
    skipped: tuple[str, ...]  # names of people without a permit in force: no letter for them


@requires(Role.CLERK, Role.SUPERVISOR)
def renewal_letters(ctx: AppContext, rows: Sequence[DeadlineRow], campaign: Campaign,
                    today: date | None = None) -> RenewalLetters:
    """One A4 PDF with one letter per holder among ``rows`` (the filtered view), items soonest first.

    Rows of people without a permit in force (an unregistered offender's defence period) get no
    letter: the letter names the permit. Raises InvalidInputError when no row has a holder.
    """
    from motodesk.printing.documents import RenewalItem, RenewalLetterData, render_renewal_letters

    today = today or local_today()
    if campaign.deadline < today:
        raise InvalidInputError("O prazo da campanha de renovação já passou: informe uma data a partir de hoje.",
                                {"deadline": "Data no passado."})
    by_person: dict[int, list[DeadlineRow]] = {}
    skipped: list[str] = []
    for row in rows:
        if row.person_id is None or row.permit_number is None or row.service is None:
            if row.person_name not in skipped:
                skipped.append(row.person_name)
            continue
        by_person.setdefault(row.person_id, []).append(row)
    if not by_person:
        raise InvalidInputError("Nenhuma das linhas é de um titular com permissão em vigor: não há carta a gerar.",
                                code="deadline.no_permit_in_force")
    addresses: dict[int, str] = {}
    with ctx.read() as s:
        for chunk in _chunks(sorted(by_person), 500):
            q = select(Person.id, Person.address, Person.district, Person.city, Person.uf, Person.zip_code) \
                .where(Person.id.in_(chunk))
            for r in s.execute(q):
                addresses[r.id] = _address_line(r.address, r.district, r.city, r.uf, r.zip_code)
    letters = []
    for person_id, person_rows in sorted(by_person.items(), key=lambda kv: fold(kv[1][0].person_name)):
        person_rows = sorted(person_rows, key=lambda d: (d.deadline.due, d.kind.value))
        first = person_rows[0]
        assert first.service is not None  # rows without a permit were set aside above
        items = [RenewalItem(d.deadline.label + (f" ({d.detail})" if d.detail else ""), d.deadline.article,
                             d.deadline.due) for d in person_rows]
        bring: list[str] = []
        for d in person_rows:
            text = DOCUMENTS_TO_BRING.get(d.kind) or (d.detail if d.kind is dl.DeadlineKind.NEW_DOCUMENT else None)
            if text and text not in bring:
                bring.append(text)
        letters.append(RenewalLetterData(
            holder_name=first.person_name, permit_number=first.permit_number or "", service=first.service,
            letter_date=today, deadline=campaign.deadline, items=items, place=campaign.place,
            holder_address=addresses.get(person_id, ""), opening_hours=campaign.opening_hours,
            portaria=campaign.portaria, documents_to_bring=bring, signatory_name=ctx.user.full_name,
        ))
    pdf = render_renewal_letters(letters)
    return RenewalLetters(pdf, len(letters), tuple(skipped))


def _address_line(address: str | None, district: str | None, city: str | None, uf: str | None,
                  zip_code: str | None) -> str:
    parts = [p for p in (address, district) if p]
    town = " – ".join(p for p in (city, uf) if p)
    if town:
        parts.append(town)
    if zip_code and len(zip_code) == 8:
        parts.append(f"CEP {zip_code[:5]}-{zip_code[5:]}")
    return ", ".join(parts)
