"""Spreadsheets for the secretariat: one streaming row source per export kind, into exports.write_workbook.

``export(ctx, kind, path, progress, cancel)`` is what the CLI (``motodesk export KIND --out FILE``)
and the Relatórios page call. Each kind is one query of plain columns (never ORM objects), read
with ``yield_per`` so SQLite steps its cursor and PostgreSQL uses a server-side cursor; the
values go straight into :func:`motodesk.exports.xlsx.write_workbook` (openpyxl write-only mode),
so memory stays flat however many rows. What a column needs beyond the row (the failed items of an
inspection, the decision of a notice) is looked up per batch of rows, never per row.

The file appears only when complete: a cancelled or failed export leaves nothing at ``path``.

Who may export: supervisors and administrators (SPEC: "supervisors … export spreadsheets"),
the published (transparency) files included; their CPF is masked ``***.456.789-**`` and they carry
no birth date, address, phone or e-mail (:mod:`motodesk.exports.kinds`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Select, and_, func, select
from sqlalchemy.orm import Session, aliased

from motodesk.exports import kinds as xk
from motodesk.exports.xlsx import ExportCancelled, ExportTargetLocked, SheetSpec, write_workbook
from motodesk.models import (
    Affiliation,
    Decision,
    Decree,
    DeputyLink,
    FeePayment,
    InfractionNotice,
    Inspection,
    InspectionItem,
    Organisation,
    Permit,
    Person,
    PersonDocument,
    Tender,
    TenderCandidate,
    Vehicle,
)
from motodesk.rules import documents_declared
from motodesk.rules.common import PermitState, Role, ServiceType
from motodesk.rules.dossier import DocumentKind
from motodesk.rules.fees import FeeAct
from motodesk.rules.infractions import UNLICENSED_CODE, Penalty, Severity, infraction_by_code
from motodesk.rules.quota import INHABITANTS_PER_PERMIT, mototaxi_quota
from motodesk.rules.settings import LawSettings
from motodesk.rules.vehicle import vehicle_useful_life_end
from motodesk.services import access_log
from motodesk.services.clock import LOCAL_TZ, local_today
from motodesk.services.context import AppContext, requires
from motodesk.services.deadlines import DeadlineFilter, collect
from motodesk.services.errors import InvalidInputError, MotodeskError
from motodesk.services.fees import collected, subject_labels
from motodesk.services.settings import law_settings

__all__ = ["EXPORTERS", "ExportCancelled", "ExportKind", "Progress", "export", "export_kind", "suggested_name"]

EXPORTERS_ROLES = (Role.SUPERVISOR, Role.ADMIN)
IN_FORCE = (PermitState.ACTIVE, PermitState.SUSPENDED)
#: Rows fetched from the database at a time (and the size of a batch of look-ups).
BATCH = 2000

Query = Select[*tuple[Any, ...]]
Progress = Callable[[int, int], None]
"""progress(rows written, rows in all) — the total may be 0 when unknown."""


@dataclass(frozen=True)
class ExportKind:
    key: str  # CLI name: motodesk export KEY
    label: str  # pt_BR, on the button
    description: str
    public: bool = False  # transparency file: CPF masked, no personal data beyond the name


EXPORTERS: tuple[ExportKind, ...] = (
    ExportKind("permits", "Cadastro de permissões", "Todas as permissões e autorizações, em qualquer situação."),
    ExportKind("people", "Pessoas", "Titulares, prepostos e demais pessoas cadastradas, com documentos."),
    ExportKind("vehicles", "Veículos", "Veículos ativos com vida útil, CRLV e titular."),
    ExportKind("inspections", "Vistorias", "Vistorias concluídas, com o resultado e as pendências."),
    ExportKind("infractions", "Autos de infração", "Autos com enquadramento, decisão e multa."),
    ExportKind("deadlines", "Prazos", "Vencimentos dos próximos 90 dias e os vencidos."),
    ExportKind("organisation-members", "Filiados a organizações", "Filiações a cooperativas e associações (Art. 9º)."),
    ExportKind("quota-study", "Estudo de vagas (Art. 39)",
               "População, vagas de mototáxi, permissões em vigor, vagas abertas e cadastro de reserva."),
    ExportKind("fees", "Taxas arrecadadas (Art. 6º, § 6º)",
               "Guias/DAM registradas no período, com o ato, o valor e a base legal."),
    ExportKind("permits-public", "Transparência: permissões em vigor",
               "Para publicação: CPF mascarado (***.456.789-**), sem dados pessoais.", public=True),
    ExportKind("people-public", "Transparência: permissionários",
               "Para publicação: nome, CPF mascarado, serviço e permissão.", public=True),
)
_BY_KEY = {k.key: k for k in EXPORTERS}

_SEX = {"M": "Masculino", "F": "Feminino"}
_INSPECTION_KIND = {
    "regular": "Vistoria", "semestral": "Semestral", "annual": "Anual (Art. 23)",
    "reinspection": "Nova vistoria", "accident": "Pós-acidente",
}  # fmt: skip
_INSPECTION_RESULT = {"approved": "Aprovada", "failed": "Reprovada", "superseded": "Substituída"}
_OFFENDER = {"holder": "Titular", "deputy": "Preposto", "unregistered": "Sem permissão"}
_NOTICE_STATUS = {"open": "Em defesa", "decided": "Decidido", "appealed": "Em recurso", "closed": "Encerrado"}
_ORG_KIND = {"cooperative": "Cooperativa", "central": "Central", "association": "Associação",
             "operator": "Operadora"}
_CANDIDATE_STATUS = {"waiting": "Aguardando convocação", "called": "Convocado"}


def export_kind(key: str) -> ExportKind:
    try:
        return _BY_KEY[key]
    except KeyError:
        names = ", ".join(k.key for k in EXPORTERS)
        raise InvalidInputError(f"Tipo de exportação desconhecido: “{key}”. Use um destes: {names}.",
                                code="export.unknown_kind") from None


def suggested_name(key: str, today: date | None = None) -> str:
    """``permissoes-2026-03-02.xlsx``: the file name the save dialog proposes."""
    names = {"permits": "permissoes", "people": "pessoas", "vehicles": "veiculos", "inspections": "vistorias",
             "infractions": "autos-de-infracao", "deadlines": "prazos", "organisation-members": "filiados",
             "quota-study": "estudo-de-vagas", "permits-public": "transparencia-permissoes",
             "people-public": "transparencia-permissionarios", "fees": "taxas-arrecadadas"}
    return f"{names.get(key, key)}-{(today or local_today()).isoformat()}.xlsx"


# --- the sources: (spec, rows, total) per kind ---------------------------------------------------

Sheets = list[tuple[SheetSpec, Iterable[Any]]]


def _stream(s: Session, query: Query) -> Iterator[Any]:
    """Rows of ``query`` fetched BATCH at a time (a server-side cursor on PostgreSQL), closed when the
    consumer stops early (a cancelled export) as well as at the end."""
    result = s.execute(query.execution_options(yield_per=BATCH))
    try:
        yield from result
    finally:
        result.close()


def _count(s: Session, query: Query) -> int:
    return int(s.scalar(select(func.count()).select_from(query.order_by(None).subquery())) or 0)


def _batches(rows: Iterable[Any], size: int = BATCH) -> Iterator[list[Any]]:
    batch: list[Any] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def permits_query(public: bool = False) -> Query:
    """The permits register: the select lists the spec's columns in order, so a row is a sheet row."""
    q: Query
    if public:
        q = (select(Permit.number, Permit.service_type, Person.full_name, Person.cpf, Vehicle.plate, Permit.state,
                    Permit.issued_on, Permit.term_end, Decree.number)
             .where(Permit.state.in_(IN_FORCE)))
    else:
        issue_fee, renewal_fee = aliased(FeePayment), aliased(FeePayment)
        last_renewal = (select(func.max(FeePayment.id))
                        .where(FeePayment.act == FeeAct.RENEWAL, FeePayment.subject_id == Permit.id,
                               FeePayment.used_at.is_not(None))
                        .correlate(Permit).scalar_subquery())
        q = (select(Permit.number, Permit.service_type, Person.full_name, Person.cpf, Vehicle.plate, Permit.state,
                    Permit.issued_on, Permit.certificate_valid_until, Permit.term_end, Decree.number,
                    issue_fee.amount, issue_fee.number, issue_fee.paid_on,
                    renewal_fee.amount, renewal_fee.number, renewal_fee.paid_on)
             .outerjoin(issue_fee, and_(issue_fee.act == FeeAct.ISSUE, issue_fee.subject_id == Permit.application_id,
                                        issue_fee.used_at.is_not(None)))
             .outerjoin(renewal_fee, renewal_fee.id == last_renewal))
    return (q.join(Person, Person.id == Permit.person_id)
            .outerjoin(Vehicle, Vehicle.id == Permit.vehicle_id)
            .outerjoin(Decree, Decree.id == Permit.decree_id)
            .order_by(Permit.service_type, Permit.year, Permit.seq))


def _permits(s: Session, public: bool) -> tuple[Sheets, int]:
    q = permits_query(public)
    return [(xk.PERMITS_TRANSPARENCY if public else xk.PERMITS, _stream(s, q))], _count(s, q)


def people_query() -> Query:
    """People with their permit in force (or the one they are a deputy of) and their documents' columns
    (one per declared document field the export carries, labelled by its column key)."""
    deputy_of = (select(Permit.number).join(DeputyLink, DeputyLink.permit_id == Permit.id)
                 .where(DeputyLink.deputy_person_id == Person.id, DeputyLink.end_on.is_(None),
                        Permit.state.in_(IN_FORCE))
                 .order_by(DeputyLink.id.desc()).limit(1).correlate(Person).scalar_subquery())
    columns: list[Any] = []
    joins: list[Any] = []
    aliases: dict[str, Any] = {}
    for declared_doc, f in documents_declared.columns():
        doc = aliases.get(declared_doc.kind)
        if doc is None:
            doc = aliases[declared_doc.kind] = aliased(PersonDocument)
            joins.append((doc, and_(doc.person_id == Person.id, doc.kind == DocumentKind(declared_doc.kind))))
        columns.append(getattr(doc, f.name).label(f"doc_{f.column}"))
    q = (select(Person.full_name, Person.cpf, Permit.number.label("permit_number"), Permit.service_type,
                deputy_of.label("deputy_of"), Person.birth_date, Person.sex, Person.phone, Person.email,
                Person.address, Person.district, *columns)
         .outerjoin(Permit, and_(Permit.person_id == Person.id, Permit.state.in_(IN_FORCE))))
    for doc, on in joins:
        q = q.outerjoin(doc, on)
    return q.order_by(Person.name_search, Person.id)


def _people(s: Session) -> tuple[Sheets, int]:
    q = people_query()
    spec = xk.people_spec()
    doc_keys = [c.key for c in xk.people_document_columns()]

    def rows() -> Iterator[dict[str, Any]]:
        sex = _SEX
        for r in _stream(s, q):
            permit, deputy = r.permit_number, r.deputy_of
            if permit is not None:
                role = "Titular"
            elif deputy is not None:
                role, permit = "Preposto", deputy
            else:
                role = "Cadastrado"
            address, district = r.address, r.district
            where = f"{address}, {district}" if address and district else address or district
            row = {"full_name": r.full_name, "cpf": r.cpf, "role": role, "service": r.service_type,
                   "permit_number": permit, "birth_date": r.birth_date, "sex": sex.get(r.sex, r.sex),
                   "phone": r.phone, "email": r.email, "address": where}
            mapping = r._mapping
            row.update({key: mapping[f"doc_{key}"] for key in doc_keys})
            yield row

    return [(spec, rows())], _count(s, q)


def _people_public(s: Session) -> tuple[Sheets, int]:
    q = (select(Person.full_name, Person.cpf, Permit.service_type, Permit.number)
         .join(Permit, and_(Permit.person_id == Person.id, Permit.state.in_(IN_FORCE)))
         .order_by(Person.name_search, Person.id))

    def rows() -> Iterator[tuple[Any, ...]]:
        for name, cpf, service, number in _stream(s, q):
            yield (name, cpf, "Titular", service, number)

    return [(xk.PEOPLE_TRANSPARENCY, rows())], _count(s, q)


def _crlv_valid_until(crlv_year: int | None, settings: LawSettings) -> date | None:
    """The last day a CRLV of ``crlv_year`` is "atualizado" (rules.vehicle.crlv_is_current)."""
    if crlv_year is None:
        return None
    month = settings.crlv_previous_year_accepted_until_month
    following = date(crlv_year + 1 + month // 12, month % 12 + 1, 1)
    return date.fromordinal(following.toordinal() - 1)


def _vehicles(s: Session, settings: LawSettings) -> tuple[Sheets, int]:
    q = (select(Vehicle.plate, Vehicle.renavam, Vehicle.vin, Vehicle.make, Vehicle.model, Vehicle.colour,
                Vehicle.year_manufacture, Vehicle.year_model, Vehicle.engine_cc, Vehicle.category,
                Vehicle.crlv_year, Vehicle.service_type, Permit.number, Person.full_name)
         .outerjoin(Person, Person.id == Vehicle.holder_id)
         .outerjoin(Permit, and_(Permit.person_id == Vehicle.holder_id, Permit.state.in_(IN_FORCE)))
         .where(Vehicle.active.is_(True))
         .order_by(Vehicle.plate))
    life: dict[int, date] = {}
    crlv: dict[int, date | None] = {}

    def rows() -> Iterator[tuple[Any, ...]]:
        for (plate, renavam, vin, make, model, colour, made, model_year, cc, category, crlv_year, service, permit,
             holder) in _stream(s, q):
            until = None
            if made is not None:
                until = life.get(made)
                if until is None:
                    until = life[made] = vehicle_useful_life_end(made)
            if crlv_year is not None and crlv_year not in crlv:
                crlv[crlv_year] = _crlv_valid_until(crlv_year, settings)
            make_model = f"{make} {model}" if make and model else make or model
            rental = None if category is None else category == "aluguel"
            yield (plate, renavam, vin, make_model, colour, made, model_year, cc, rental, until,
                   crlv.get(crlv_year) if crlv_year is not None else None, service, permit, holder)

    return [(xk.VEHICLES, rows())], _count(s, q)


def _inspections(s: Session, ctx: AppContext) -> tuple[Sheets, int]:
    q = (select(Inspection.id, Inspection.performed_at, Vehicle.plate, Permit.number, Inspection.service_type,
                Person.full_name, Inspection.inspector_name, Inspection.kind, Inspection.status,
                Inspection.next_due)
         .join(Vehicle, Vehicle.id == Inspection.vehicle_id)
         .outerjoin(Person, Person.id == Vehicle.holder_id)
         .outerjoin(Permit, and_(Permit.person_id == Vehicle.holder_id, Permit.state.in_(IN_FORCE)))
         .where(Inspection.status.in_(("approved", "failed", "superseded")))
         .order_by(Inspection.performed_at, Inspection.id))

    def rows() -> Iterator[tuple[Any, ...]]:
        with ctx.read() as lookups:  # a second connection: the first one is busy streaming
            for batch in _batches(_stream(s, q)):
                failed = [r[0] for r in batch if r.status == "failed"]
                pending: dict[int, list[str]] = {}
                if failed:
                    items = lookups.execute(
                        select(InspectionItem.inspection_id, InspectionItem.text)
                        .where(InspectionItem.inspection_id.in_(failed), InspectionItem.result == "not_ok")
                        .order_by(InspectionItem.inspection_id, InspectionItem.position))
                    for inspection_id, text in items:
                        pending.setdefault(inspection_id, []).append(text)
                for (iid, at, plate, permit, service, holder, inspector, kind, status, next_due) in batch:
                    if at is not None:
                        at = at.astimezone(LOCAL_TZ).replace(tzinfo=None)
                    yield (at, plate, permit, service, holder, inspector, _INSPECTION_KIND.get(kind, kind),
                           _INSPECTION_RESULT.get(status, status), "; ".join(pending.get(iid, ())) or None,
                           next_due)

    return [(xk.INSPECTIONS, rows())], _count(s, q)


def _infraction_text(code: str, cache: dict[str, str | None]) -> str | None:
    if code not in cache:
        try:
            cache[code] = infraction_by_code(code).text
        except KeyError:
            cache[code] = None
    return cache[code]


#: The "Gravidade" cell of an Art. 32 notice: service without permit, not a group of Art. 33.
UNLICENSED_LABEL = "Sem permissão (Art. 32)"


def _infractions(s: Session, ctx: AppContext) -> tuple[Sheets, int]:
    q = (select(InfractionNotice.id, InfractionNotice.number, InfractionNotice.occurred_at,
                InfractionNotice.place, InfractionNotice.offender_name, InfractionNotice.offender_kind,
                Permit.number, InfractionNotice.plate, InfractionNotice.article, InfractionNotice.infraction_code,
                InfractionNotice.description, InfractionNotice.severity, InfractionNotice.inspector_name,
                InfractionNotice.refused_to_sign, InfractionNotice.status)
         .outerjoin(Permit, Permit.id == InfractionNotice.permit_id)
         .order_by(InfractionNotice.year, InfractionNotice.seq))
    texts: dict[str, str | None] = {}
    severities = {s.value: s.label for s in Severity}
    penalties = {p.value: p.label for p in Penalty}

    def rows() -> Iterator[tuple[Any, ...]]:
        with ctx.read() as lookups:
            for batch in _batches(_stream(s, q)):
                latest: dict[int, Any] = {}
                decisions = lookups.execute(
                    select(Decision.notice_id, Decision.outcome, Decision.severity, Decision.penalty,
                           Decision.fine_ufm, Decision.fine_brl)
                    .where(Decision.notice_id.in_([r[0] for r in batch]))
                    .order_by(Decision.notice_id, Decision.id))
                for decision in decisions:
                    latest[decision.notice_id] = decision  # the last one (the appeal's, if any) stands
                for (nid, number, at, place, name, kind, permit, plate, article, code, description, severity,
                     inspector, refused, status) in batch:
                    d = latest.get(nid)
                    penalty = fine_ufm = fine_brl = None
                    if d is not None:
                        severity = d.severity or severity
                        if d.outcome == "dismissed":
                            penalty = "Arquivado"
                        else:
                            penalty = penalties.get(d.penalty, d.penalty)
                            fine_ufm, fine_brl = d.fine_ufm, d.fine_brl
                    text = _infraction_text(code, texts) or description
                    # Art. 32 is not a group of Art. 33: its line says so instead of a classification.
                    shown = UNLICENSED_LABEL if code == UNLICENSED_CODE else severities.get(severity, severity)
                    yield (number, at.astimezone(LOCAL_TZ).replace(tzinfo=None) if at else None, place, name,
                           _OFFENDER.get(kind, kind), permit, plate, article, text,
                           shown, penalty, fine_ufm, fine_brl, inspector, refused,
                           _NOTICE_STATUS.get(status, status))

    return [(xk.INFRACTIONS, rows())], _count(s, q)


def _deadlines(s: Session, ctx: AppContext, today: date, deadline_filter: Any) -> tuple[Sheets, int]:
    from motodesk.rules.deadlines import DeadlineKind

    flt = deadline_filter or DeadlineFilter(horizon_days=90)
    found = collect(ctx, flt, today)
    # The dates of medical and criminal certificates are sensitive data (LGPD): one access record
    # per person and kind listed, in the export's transaction.
    logged = {DeadlineKind.MEDICAL: access_log.MEDICAL, DeadlineKind.CRIMINAL_CERTIFICATES: access_log.CRIMINAL}
    reads = sorted({(r.person_id, logged[r.kind]) for r in found if r.kind in logged and r.person_id is not None})
    access_log.record_accesses(s, ctx.user, [(pid, kind, None) for pid, kind in reads],
                               screen="reports.export:deadlines")

    def status(days: int) -> str:
        if days < 0:
            return f"Vencido há {-days} dia{'s' if days < -1 else ''}"
        return "Vence hoje" if days == 0 else "A vencer"

    rows = [
        (r.deadline.due, r.days_left, r.deadline.label + (f" ({r.detail})" if r.detail else ""),
         r.deadline.article, r.permit_number, r.service, r.person_name, r.phone, status(r.days_left))
        for r in found
    ]
    return [(xk.DEADLINES, rows)], len(rows)


def _organisation_members(s: Session) -> tuple[Sheets, int]:
    q = (select(Organisation.name, Organisation.kind, Organisation.cnpj, Person.full_name, Person.cpf,
                Permit.number, Permit.service_type, Affiliation.start_on, Affiliation.end_on)
         .join(Organisation, Organisation.id == Affiliation.organisation_id)
         .join(Person, Person.id == Affiliation.person_id)
         .outerjoin(Permit, and_(Permit.person_id == Person.id, Permit.state.in_(IN_FORCE)))
         .order_by(Organisation.name, Person.name_search, Affiliation.id))

    def rows() -> Iterator[tuple[Any, ...]]:
        for name, kind, cnpj, member, cpf, permit, service, start, end in _stream(s, q):
            cnpj_shown = (f"{cnpj[:2]}.{cnpj[2:5]}.{cnpj[5:8]}/{cnpj[8:12]}-{cnpj[12:]}"
                          if cnpj and len(cnpj) == 14 and cnpj.isdigit() else cnpj)
            yield (name, _ORG_KIND.get(kind, kind), cnpj_shown, member, cpf, permit, service, start, end)

    return [(xk.ORGANISATION_MEMBERS, rows())], _count(s, q)


def quota_study(s: Session, settings: LawSettings) -> xk.QuotaStudy:
    """The figures of Art. 39's study from the permits themselves (not the counter)."""
    in_force = int(s.scalar(select(func.count(Permit.id)).where(
        Permit.service_type == ServiceType.MOTOTAXI, Permit.state.in_(IN_FORCE))) or 0)
    quota = mototaxi_quota(settings.population)
    waiting = int(s.scalar(select(func.count(TenderCandidate.id))
                           .where(TenderCandidate.status.in_(tuple(_CANDIDATE_STATUS)))) or 0)
    return xk.QuotaStudy(population=settings.population, population_year=settings.population_year, quota=quota,
                         permits_in_force=in_force, open_places=max(0, quota - in_force),
                         waiting_list_size=waiting, inhabitants_per_permit=INHABITANTS_PER_PERMIT)


def _quota_study(s: Session, settings: LawSettings) -> tuple[Sheets, int]:
    study = quota_study(s, settings)
    q = (select(TenderCandidate.rank, TenderCandidate.name, TenderCandidate.cpf, Tender.number,
                TenderCandidate.status)
         .join(Tender, Tender.id == TenderCandidate.tender_id)
         .where(TenderCandidate.status.in_(tuple(_CANDIDATE_STATUS)))
         .order_by(Tender.id.desc(), TenderCandidate.rank))

    def waiting() -> Iterator[tuple[Any, ...]]:
        for rank, name, cpf, tender, status in _stream(s, q):
            yield (rank, name, cpf, tender, None, _CANDIDATE_STATUS.get(status, status))

    return xk.quota_study_sheets(study, waiting()), 6 + study.waiting_list_size


def _fees(s: Session, period: tuple[date | None, date | None] | None) -> tuple[Sheets, int]:
    start, end = period or (None, None)
    payments = collected(s, start, end)
    labels = subject_labels(s, [(p.act, p.subject_id) for p in payments])
    rows = [(p.paid_on, p.number, p.act.label.capitalize(), labels[(p.act, p.subject_id)], p.amount, p.legal_basis,
             p.recorded_by, p.used_at.astimezone(LOCAL_TZ).date() if p.used_at else None) for p in payments]
    return [(xk.FEES_COLLECTED, rows)], len(rows)


# --- the action ----------------------------------------------------------------------------------


@requires(*EXPORTERS_ROLES)
def export(ctx: AppContext, kind: str, path: str | os.PathLike[str], progress: Progress | None = None,
           cancel: Callable[[], bool] | None = None, *, today: date | None = None,
           deadline_filter: Any = None, period: tuple[date | None, date | None] | None = None) -> int:
    """Write the spreadsheet of ``kind`` to ``path``; returns the number of data rows.

    ``progress(done, total)`` is called as rows are written; ``cancel()`` is asked as often, and
    when it answers True :class:`ExportCancelled` is raised and no file is left behind. A target
    opened by another program raises MotodeskError with the reason in pt_BR.
    ``deadline_filter`` (a DeadlineFilter) narrows the deadlines export to what the view shows;
    ``period`` (first day, last day; either may be None) the fees export to payments made then.
    """
    spec = export_kind(kind)
    target = Path(path)
    if target.suffix.lower() != ".xlsx":
        raise InvalidInputError(f"O arquivo deve terminar em .xlsx: “{target.name}”.", code="export.not_xlsx")
    if not target.parent.is_dir():
        raise InvalidInputError(f"A pasta não existe: {target.parent}.", code="export.folder_missing")
    today = today or local_today()
    settings = law_settings(ctx)
    exported_at = datetime.now(LOCAL_TZ).replace(tzinfo=None, microsecond=0)
    who = f"{ctx.user.full_name} ({ctx.user.login})"
    key = spec.key
    # The deadlines export lists sensitive data and records its reads: it needs a write transaction.
    with (ctx.write() if key == "deadlines" else ctx.read()) as s:
        if key in ("permits", "permits-public"):
            sheets, total = _permits(s, public=key == "permits-public")
        elif key == "people":
            sheets, total = _people(s)
        elif key == "people-public":
            sheets, total = _people_public(s)
        elif key == "vehicles":
            sheets, total = _vehicles(s, settings)
        elif key == "inspections":
            sheets, total = _inspections(s, ctx)
        elif key == "infractions":
            sheets, total = _infractions(s, ctx)
        elif key == "deadlines":
            sheets, total = _deadlines(s, ctx, today, deadline_filter)
        elif key == "organisation-members":
            sheets, total = _organisation_members(s)
        elif key == "fees":
            sheets, total = _fees(s, period)
        else:
            sheets, total = _quota_study(s, settings)
        report = (lambda n: progress(n, max(total, n))) if progress is not None else None
        try:
            return write_workbook(target, sheets, exported_by=who, exported_at=exported_at, progress=report,
                                  cancel=cancel, total=total)
        except ExportTargetLocked as exc:
            raise MotodeskError(str(exc)) from exc
        except OSError as exc:
            raise MotodeskError(f"Não foi possível gravar “{target.name}”: {exc.strerror or exc}.") from exc
        finally:
            for _spec, rows in sheets:  # stop the row generators (and their cursors) before the session ends
                close = getattr(rows, "close", None)
                if close is not None:
                    close()

