"""Applications and permits through the rules' state machine (SPEC §4; Art. 4º, 6º, 10, 34, 35).

Every action here is one transaction that

1. loads the application or permit and what the rule looks at (dossier, vehicle, inspection, quota);
2. asks :func:`motodesk.rules.lifecycle.check_transition` whether the user may take the step now —
   a refusal raises :class:`RuleViolationError` whose lines name their articles (a wrong role raises
   :class:`PermissionDeniedError`);
3. changes the state and writes one :class:`PermitEvent` (who, when, why, which Decree).

The mototáxi quota (Art. 10, I) is a database guarantee, not a check-then-act: issuing claims a place
with one conditional ``UPDATE quota_counters SET in_force = in_force + 1 WHERE in_force < places`` in
the permit's own transaction, so two workstations can never both take the last place; a permit that
leaves force (revoked, cancelled, expired) gives its place back in the same transaction. A suspended
permit keeps its place.

Permit numbers run per service and year (``MT-0007/2026``); on PostgreSQL a transaction-scoped
advisory lock per service and year serialises the numbering, on SQLite the write lock taken up front
does.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass, fields
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    CursorResult,
    Date,
    Select,
    Table,
    and_,
    cast,
    func,
    literal,
    null,
    or_,
    select,
    text,
    union_all,
    update,
)
from sqlalchemy.orm import Session

from motodesk.models import (
    Application,
    CriminalJudgment,
    Decree,
    DeputyLink,
    InfractionNotice,
    Permit,
    PermitEvent,
    Person,
    PersonDocument,
    QuotaCounter,
    Tender,
    TenderCandidate,
    Vehicle,
)
from motodesk.rules import acts
from motodesk.rules.common import PermitState, Role, ServiceType, Verdict
from motodesk.rules.document_gate import Document
from motodesk.rules.dossier import DocumentKind
from motodesk.rules.fees import FeeAct
from motodesk.rules.lifecycle import (
    TRANSITIONS,
    Transition,
    TransitionContext,
    available_transitions,
    check_registration_renewal_term,
    check_transition,
    permit_term_end,
    registration_certificate_valid_until,
    renewed_certificate_valid_until,
)
from motodesk.rules.periods import add_years
from motodesk.rules.settings import LawSettings
from motodesk.rules.tenders import TenderCandidateFacts, check_candidacy_tie, check_tender, tender_required
from motodesk.rules.text import application_number, format_date
from motodesk.rules.validators import format_cpf, format_plate, mask_cpf
from motodesk.services import fees
from motodesk.services.clock import local_today
from motodesk.services.context import CONFLICT_MESSAGE, AppContext, CurrentUser, requires
from motodesk.services.decrees import find_or_record_decree
from motodesk.services.deputies import lift_ended_deputy_suspensions
from motodesk.services.document_checks import DocumentRequest, require_documents
from motodesk.services.errors import (
    ConflictError,
    InvalidInputError,
    NotFoundError,
    PermissionDeniedError,
    RuleViolationError,
)
from motodesk.services.evidence import conviction_evidence, conviction_of_person, notice_evidence
from motodesk.services.facts import permit_facts, person_facts, quota_counts, vehicle_facts_of
from motodesk.services.judged import judged
from motodesk.services.people import DocumentInput, PersonInput
from motodesk.services.settings import law_settings
from motodesk.services.stands import release_stand_of_permit
from motodesk.services.text import LIKE_ESCAPE, contains_pattern, fold, search_text
from motodesk.services.vehicles import VehicleInput

if TYPE_CHECKING:  # reportlab loads with the first document printed, not with the window
    from motodesk.printing.documents import PersonInfo, VehicleInfo

_PERSON_FIELDS = tuple(f.name for f in fields(PersonInput))
_DOCUMENT_FIELDS = tuple(f.name for f in fields(DocumentInput))
_VEHICLE_FIELDS = tuple(f.name for f in fields(VehicleInput))
READERS = (Role.CLERK, Role.SUPERVISOR, Role.INSPECTOR, Role.ADMIN)
MAX_REASON = 2000

_QUOTA_TABLE = typing.cast(Table, QuotaCounter.__table__)
#: First key of the PostgreSQL advisory lock that serialises permit numbering (the law's number).
_NUMBERING_LOCK = 4883

_ONE_IN_FORCE = (
    "Art. 6º, § 2º: o titular já tem permissão ou autorização em vigor; admite-se o cadastramento "
    "de um só veículo por titular."
)
_INTEGRITY = {
    "uq_permits_person_in_force": _ONE_IN_FORCE,
    "cols:permits.person_id": _ONE_IN_FORCE,
    "uq_permits_number": "Outra estação emitiu uma permissão com o mesmo número; tente novamente.",
    "uq_permits_service_year_seq": "Outra estação emitiu uma permissão com o mesmo número; tente novamente.",
}


# --- what the screens read --------------------------------------------------------------------


@dataclass(frozen=True)
class PermitRow:
    """One line of the permits page: an application not yet issued, or a permit."""

    kind: str  # "application" | "permit"
    id: int
    number: str  # MT-0007/2026, or "Requerimento nº 12"
    service: ServiceType
    holder: str
    cpf: str
    plate: str | None
    state: PermitState
    start: date | None  # opened on (application) or issued on (permit)
    term_end: date | None
    certificate_valid_until: date | None
    suspended_until: date | None
    badge_issue_no: int
    version: int

    @property
    def is_permit(self) -> bool:
        return self.kind == "permit"


@dataclass(frozen=True)
class EventRow:
    at: datetime
    by_user: str
    transition: str
    label: str
    from_state: PermitState | None
    to_state: PermitState
    reason: str | None
    decree: str | None


@dataclass(frozen=True)
class IssuedPermit:
    id: int
    number: str
    service: ServiceType
    issued_on: date
    term_end: date
    certificate_valid_until: date


#: State filters of the permits page: key -> (pt_BR label, states or None for all).
STATE_FILTERS: dict[str, tuple[str, tuple[PermitState, ...] | None]] = {
    "all": ("Todos", None),
    "in_force": ("Em vigor ou suspensas", (PermitState.ACTIVE, PermitState.SUSPENDED)),
    "pending": ("Requerimentos em andamento", (PermitState.REQUESTED, PermitState.UNDER_REVIEW,
                                              PermitState.APPROVED)),
    **{state.value: (state.label, (state,)) for state in PermitState},
}

SORT_KEYS = ("number", "service", "holder", "cpf", "plate", "state", "start", "term_end",
             "certificate_valid_until", "suspended_until", "badge_issue_no")


def _rows_query(state_filter: str, service: ServiceType | None, search: str) -> Select[Any]:
    """Applications not yet issued and permits, as one UNION with the same columns."""
    states = STATE_FILTERS.get(state_filter, STATE_FILTERS["all"])[1]
    issued = select(Permit.application_id).where(Permit.application_id.is_not(None))
    apps = (
        select(
            literal("application").label("kind"),
            Application.id.label("id"),
            literal("").label("number"),
            Application.service_type.label("service"),
            Person.full_name.label("holder"),
            Person.cpf.label("cpf"),
            Vehicle.plate.label("plate"),
            Application.state.label("state"),
            Application.opened_on.label("start"),
            cast(null(), Date).label("term_end"),
            cast(null(), Date).label("certificate_valid_until"),
            cast(null(), Date).label("suspended_until"),
            literal(0).label("badge_issue_no"),
            Application.version.label("version"),
            Person.name_search.label("name_search"),
        )
        .join(Person, Person.id == Application.person_id)
        .outerjoin(Vehicle, or_(Vehicle.id == Application.vehicle_id,
                                and_(Application.vehicle_id.is_(None), Vehicle.holder_id == Application.person_id,
                                     Vehicle.active.is_(True))))
        .where(Application.id.not_in(issued))
    )
    permits = (
        select(
            literal("permit").label("kind"),
            Permit.id,
            Permit.number,
            Permit.service_type,
            Person.full_name,
            Person.cpf,
            Vehicle.plate,
            Permit.state,
            Permit.issued_on,
            Permit.term_end,
            Permit.certificate_valid_until,
            Permit.suspended_until,
            Permit.badge_issue_no,
            Permit.version,
            Person.name_search,
        )
        .join(Person, Person.id == Permit.person_id)
        .outerjoin(Vehicle, Vehicle.id == Permit.vehicle_id)
    )
    filters_app: list[Any] = []
    filters_permit: list[Any] = []
    if states is not None:
        filters_app.append(Application.state.in_(states))
        filters_permit.append(Permit.state.in_(states))
    if service is not None:
        filters_app.append(Application.service_type == service)
        filters_permit.append(Permit.service_type == service)
    term = search_text(search)
    if term:
        folded = contains_pattern(fold(term))
        digits = "".join(ch for ch in term if ch.isdigit())
        plate = term.upper().replace("-", "").replace(" ", "")
        common = [Person.name_search.like(folded, escape=LIKE_ESCAPE),
                  Vehicle.plate.like(contains_pattern(plate), escape=LIKE_ESCAPE)]
        if digits:
            common.append(Person.cpf.like(contains_pattern(digits), escape=LIKE_ESCAPE))
        filters_app.append(or_(*common))
        filters_permit.append(or_(*common, Permit.number.like(contains_pattern(term.upper()), escape=LIKE_ESCAPE)))
    return union_all(apps.where(*filters_app), permits.where(*filters_permit)).subquery("rows").select()


@requires(*READERS)
def list_permits(
    ctx: AppContext,
    *,
    state_filter: str = "all",
    service: ServiceType | None = None,
    search: str = "",
    offset: int = 0,
    limit: int = 200,
    sort_key: str = "start",
    descending: bool = True,
) -> list[PermitRow]:
    """A page of the permits list, sorted and filtered by the database."""
    query = _rows_query(state_filter, service, search)
    rows_sub = query.subquery("page")
    key = sort_key if sort_key in SORT_KEYS else "start"
    column = rows_sub.c["name_search" if key == "holder" else key]
    order = column.desc().nulls_last() if descending else column.asc().nulls_first()
    stmt = select(rows_sub).order_by(order, rows_sub.c.kind, rows_sub.c.id.desc()).offset(offset).limit(limit)
    with ctx.read() as s:
        result = s.execute(stmt).mappings().all()
    return [_permit_row(r) for r in result]


@requires(*READERS)
def count_permits(ctx: AppContext, *, state_filter: str = "all", service: ServiceType | None = None,
                  search: str = "") -> int:
    sub = _rows_query(state_filter, service, search).subquery("counted")
    with ctx.read() as s:
        return int(s.scalar(select(func.count()).select_from(sub)) or 0)


def _permit_row(r: Any) -> PermitRow:
    kind = r["kind"]
    number = r["number"] if kind == "permit" else f"Requerimento nº {application_number(int(r['id']), r['start'])}"
    return PermitRow(
        kind=kind,
        id=int(r["id"]),
        number=number,
        service=ServiceType(r["service"]),
        holder=r["holder"],
        cpf=r["cpf"],
        plate=format_plate(r["plate"]) if r["plate"] else None,
        state=PermitState(r["state"]),
        start=r["start"],
        term_end=r["term_end"],
        certificate_valid_until=r["certificate_valid_until"],
        suspended_until=r["suspended_until"],
        badge_issue_no=int(r["badge_issue_no"] or 0),
        version=int(r["version"]),
    )


@requires(*READERS)
def get_row(ctx: AppContext, kind: str, row_id: int) -> PermitRow:
    """The current state of one line (after an action, or to refresh a stale screen)."""
    with ctx.read() as s:
        if kind == "permit":
            permit = s.get(Permit, row_id)
            if permit is None:
                raise NotFoundError("O registro não existe mais.")
            return _row_of_permit(s, permit)
        app = s.get(Application, row_id)
        if app is None:
            raise NotFoundError("O registro não existe mais.")
        permit = s.scalar(select(Permit).where(Permit.application_id == app.id))
        if permit is not None:
            return _row_of_permit(s, permit)
        person = s.get(Person, app.person_id)
        assert person is not None
        vehicle_id = _vehicle_id_for(s, app)
        vehicle = s.get(Vehicle, vehicle_id) if vehicle_id else None
        return PermitRow("application", app.id, f"Requerimento nº {application_number(app.id, app.opened_on)}",
                         app.service_type,
                         person.full_name, person.cpf, format_plate(vehicle.plate) if vehicle else None,
                         app.state, app.opened_on, None, None, None, 0, app.version)


def _row_of_permit(s: Session, permit: Permit) -> PermitRow:
    person = s.get(Person, permit.person_id)
    assert person is not None
    vehicle = s.get(Vehicle, permit.vehicle_id) if permit.vehicle_id else None
    return PermitRow("permit", permit.id, permit.number, permit.service_type, person.full_name, person.cpf,
                     format_plate(vehicle.plate) if vehicle else None, permit.state, permit.issued_on,
                     permit.term_end, permit.certificate_valid_until, permit.suspended_until,
                     permit.badge_issue_no, permit.version)


@requires(*READERS)
def history(ctx: AppContext, kind: str, row_id: int) -> list[EventRow]:
    """Every step of an application and of the permit it became, oldest first."""
    with ctx.read() as s:
        if kind == "permit":
            permit = s.get(Permit, row_id)
            if permit is None:
                raise NotFoundError("A permissão não existe mais.")
            where = or_(PermitEvent.permit_id == row_id,
                        and_(PermitEvent.application_id.is_not(None),
                             PermitEvent.application_id == permit.application_id))
        else:
            where = PermitEvent.application_id == row_id
        rows = s.execute(
            select(PermitEvent, Decree.number)
            .outerjoin(Decree, Decree.id == PermitEvent.decree_id)
            .where(where)
            .order_by(PermitEvent.at, PermitEvent.id)
        ).all()
    labels = {"open": "Abrir requerimento", "change_name": "Alteração de nome (Art. 6º, § 1º; Art. 7º)",
              "vehicle_release": "Baixa do veículo (Art. 31, Grupo 4, II)",
              **{t.name: t.label for t in TRANSITIONS}, **DEPUTY_EVENT_LABELS}
    return [
        EventRow(e.at, e.by_user, e.transition, labels.get(e.transition, e.transition),
                 PermitState(e.from_state) if e.from_state else None, PermitState(e.to_state), e.reason,
                 decree)
        for e, decree in rows
    ]


#: Events of the permit's history that concern its deputy's link (Art. 34, III–IV) or an Art. 35 judgment.
DEPUTY_EVENT_LABELS = {
    "deputy_suspend": "Suspender o preposto",
    "deputy_reinstate": "Encerrar a suspensão do preposto",
    "deputy_revoke": "Cassar o registro do preposto",
}


def actions_for(row: PermitRow, role: Role) -> list[Transition]:
    """Transitions the role may attempt on this line (the page enables its buttons from these)."""
    if row.kind == "application":
        names = {"start_review", "approve", "refuse", "issue", "cancel"}
    else:
        # Suspension, reinstatement and cassação are not steps of this page: only a decided notice of
        # infraction (Art. 29, § 3º; Art. 34) or the Art. 35 judgment take them.
        names = {"renew_registration", "extend", "cancel", "expire"}
    return [t for t in available_transitions(row.state, role) if t.name in names]


# --- facts the rules look at ----------------------------------------------------------------


def _vehicle_id_for(s: Session, app: Application) -> int | None:
    """The application's vehicle, or else the applicant's one active vehicle (Art. 6º, § 2º)."""
    if app.vehicle_id is not None:
        return app.vehicle_id
    return s.scalar(select(Vehicle.id).where(Vehicle.holder_id == app.person_id, Vehicle.active.is_(True))
                    .order_by(Vehicle.id.desc()).limit(1))


def _tender_verdicts(s: Session, app: Application) -> tuple[list[Verdict], date | None]:
    """Mototáxi: the permission follows a tender (Art. 6º); the candidate must have been called.

    Gathers the tied candidate and their tender for :func:`motodesk.rules.tenders.check_tender`;
    also returns the tender's homologation date (the medical certificate's window runs from it).
    """
    if not tender_required(app.service_type):
        return [], None
    if app.tender_candidate_id is None:
        # The applicant is a called candidate of a tender: tie them together (the usual case, no clicks).
        person_cpf = select(Person.cpf).where(Person.id == app.person_id).scalar_subquery()
        called = s.scalar(select(TenderCandidate).where(TenderCandidate.cpf == person_cpf,
                                                        TenderCandidate.status == "called")
                          .order_by(TenderCandidate.called_on.desc(), TenderCandidate.id.desc()).limit(1))
        if called is not None:
            app.tender_candidate_id = called.id
            person_cpf_value = s.scalar(select(Person.cpf).where(Person.id == app.person_id))
            with judged(s, check_candidacy_tie(called.cpf, person_cpf_value, called.status),
                        TenderCandidate.person_id):
                called.person_id = app.person_id
    if app.tender_candidate_id is None:
        return check_tender(False, None), None
    candidate = s.get(TenderCandidate, app.tender_candidate_id)
    tender = s.get(Tender, candidate.tender_id) if candidate else None
    if candidate is None or tender is None:
        return check_tender(True, None), None
    facts = TenderCandidateFacts(rank=candidate.rank, status=candidate.status, tender_number=tender.number,
                                 homologated_on=tender.homologated_on)
    return check_tender(True, facts), tender.homologated_on


def _holder_permits_in_force(s: Session, person_id: int, *, besides: int | None = None) -> int:
    stmt = select(func.count(Permit.id)).where(Permit.person_id == person_id,
                                               Permit.state.in_((PermitState.ACTIVE, PermitState.SUSPENDED)))
    if besides is not None:
        stmt = stmt.where(Permit.id != besides)
    return int(s.scalar(stmt) or 0)


# --- checking and recording a step -----------------------------------------------------------


def _check(ctx: AppContext, name: str, state: PermitState, tctx: TransitionContext, intro: str) -> list[Verdict]:
    """The rules' verdicts on the transition (empty: accepted), for the judged step that writes it."""
    verdicts = check_transition(name, state, ctx.user.role, tctx)
    if not verdicts:
        return verdicts
    if any(v.rule_id == "transition_role" for v in verdicts):
        raise PermissionDeniedError(verdicts[0].message)
    raise RuleViolationError(verdicts, intro)


def _record(s: Session, ctx: AppContext, name: str, from_state: PermitState | None, to_state: PermitState, *,
            application_id: int | None = None, permit_id: int | None = None, reason: str | None = None,
            decree_id: int | None = None) -> None:
    s.add(PermitEvent(application_id=application_id, permit_id=permit_id, transition=name,
                      from_state=from_state.value if from_state else None, to_state=to_state.value,
                      at=datetime.now(UTC), by_user=ctx.user.login, reason=reason, decree_id=decree_id))


def _clean_reason(reason: str | None) -> str | None:
    cleaned = (reason or "").strip()
    if len(cleaned) > MAX_REASON:
        raise InvalidInputError(f"O motivo é longo demais: no máximo {MAX_REASON} caracteres.",
                                {"reason": "Motivo longo demais."})
    return cleaned or None


def _load(s: Session, model: type[Any], row_id: int, expected_version: int | None, what: str) -> Any:
    obj = s.get(model, row_id)
    if obj is None:
        raise NotFoundError(f"{what} não existe mais.")
    if expected_version is not None and obj.version != expected_version:
        raise ConflictError(CONFLICT_MESSAGE)
    return obj


def _today(on: date | None) -> date:
    return on or local_today()


# --- applications ----------------------------------------------------------------------------


@requires(Role.CLERK, Role.SUPERVISOR)
def start_review(ctx: AppContext, application_id: int, *, expected_version: int | None = None) -> None:
    """The clerk takes the application into analysis (Art. 4º)."""
    with ctx.write() as s:
        app = _load(s, Application, application_id, expected_version, "O requerimento")
        _check(ctx, "start_review", app.state, TransitionContext(), "Não é possível iniciar a análise:")
        _record(s, ctx, "start_review", app.state, PermitState.UNDER_REVIEW, application_id=app.id)
        app.state = PermitState.UNDER_REVIEW


def _decree(s: Session, number: str, signed_on: date | None, on: date) -> Decree:
    """The Decree of the approval or extension (Art. 6º): the one registered with this number, or a new one."""
    return find_or_record_decree(s, number, signed_on, on, article="Art. 6º",
                                 subject="Outorga de permissão/autorização (Art. 6º)",
                                 missing_number="Informe o número do Decreto (Art. 6º).")


@requires(Role.SUPERVISOR)
def approve(ctx: AppContext, application_id: int, decree_number: str, decree_date: date | None, *,
            on: date | None = None, expected_version: int | None = None) -> None:
    """A supervisor approves by Decree (Art. 6º): dossier, vehicle, inspection and quota are checked."""
    on = _today(on)
    settings = law_settings(ctx)
    with ctx.write({"uq_decrees_number": "Outra estação cadastrou este Decreto agora; tente novamente.",
                    "cols:decrees.number": "Outra estação cadastrou este Decreto agora; tente novamente."}) as s:
        app = _load(s, Application, application_id, expected_version, "O requerimento")
        person = s.get(Person, app.person_id)
        assert person is not None
        tender, homologation = _tender_verdicts(s, app)
        quota = quota_counts(s) if app.service_type is ServiceType.MOTOTAXI else None
        vehicle_id = _vehicle_id_for(s, app)
        holder = person_facts(s, person.id, tender_homologation=homologation)
        vehicle = vehicle_facts_of(s, vehicle_id, app.service_type)
        tctx = TransitionContext(
            on=on,
            service=app.service_type,
            decree_number=decree_number,
            eligibility=[*tender, *acts.holder_verdicts(holder, app.service_type, on, settings)],
            vehicle=acts.vehicle_verdicts(vehicle, app.service_type, on, settings, person.cpf),
            inspection_approved=acts.inspection_approved(vehicle),
            quota_open_places=quota[2] if quota else None,
        )
        _check(ctx, "approve", app.state, tctx, "O requerimento não pode ser aprovado:")
        decree = _decree(s, decree_number, decree_date, on)
        _record(s, ctx, "approve", app.state, PermitState.APPROVED, application_id=app.id, decree_id=decree.id)
        app.state = PermitState.APPROVED
        app.decree_id = decree.id
        app.vehicle_id = vehicle_id
        app.decided_at = datetime.now(UTC)
        app.decided_by = ctx.user.login


@requires(Role.SUPERVISOR)
def refuse(ctx: AppContext, application_id: int, reason: str, *, expected_version: int | None = None) -> None:
    """The application is refused, with its written reason (Art. 6º)."""
    reason_ = _clean_reason(reason)
    with ctx.write() as s:
        app = _load(s, Application, application_id, expected_version, "O requerimento")
        _check(ctx, "refuse", app.state, TransitionContext(reason=reason_), "O requerimento não pode ser indeferido:")
        _record(s, ctx, "refuse", app.state, PermitState.REFUSED, application_id=app.id, reason=reason_)
        app.state = PermitState.REFUSED
        app.reason = reason_
        app.decided_at = datetime.now(UTC)
        app.decided_by = ctx.user.login


@requires(Role.CLERK, Role.SUPERVISOR)
def cancel_application(ctx: AppContext, application_id: int, reason: str | None, *, express_request: bool,
                       expected_version: int | None = None) -> None:
    """The applicant withdraws, by express request (Art. 6º, § 7º)."""
    reason_ = _clean_reason(reason)
    with ctx.write() as s:
        app = _load(s, Application, application_id, expected_version, "O requerimento")
        if s.scalar(select(Permit.id).where(Permit.application_id == app.id)) is not None:
            raise InvalidInputError("Este requerimento já virou permissão: cancele a permissão.")
        _check(ctx, "cancel", app.state, TransitionContext(express_request=express_request, reason=reason_),
               "O requerimento não pode ser cancelado:")
        _record(s, ctx, "cancel", app.state, PermitState.CANCELLED, application_id=app.id, reason=reason_)
        app.state = PermitState.CANCELLED
        app.reason = reason_


def _claim_quota_place(s: Session) -> bool:
    """Take one mototáxi place, or nothing: the database serialises this UPDATE (Art. 10, I)."""
    result = typing.cast(CursorResult[Any], s.execute(
        update(_QUOTA_TABLE)
        .where(_QUOTA_TABLE.c.service_type == ServiceType.MOTOTAXI,
               _QUOTA_TABLE.c.in_force < _QUOTA_TABLE.c.places)
        .values(in_force=_QUOTA_TABLE.c.in_force + 1)
    ))
    return result.rowcount == 1


def _release_quota_place(s: Session) -> None:
    s.execute(
        update(_QUOTA_TABLE)
        .where(_QUOTA_TABLE.c.service_type == ServiceType.MOTOTAXI, _QUOTA_TABLE.c.in_force > 0)
        .values(in_force=_QUOTA_TABLE.c.in_force - 1)
    )


def _next_seq(s: Session, service: ServiceType, year: int) -> int:
    if s.get_bind().dialect.name == "postgresql":
        index = list(ServiceType).index(service)
        s.execute(text("SELECT pg_advisory_xact_lock(CAST(:a AS integer), CAST(:b AS integer))"),
                  {"a": _NUMBERING_LOCK, "b": year * 10 + index})
    last = s.scalar(select(func.max(Permit.seq)).where(Permit.service_type == service, Permit.year == year))
    return int(last or 0) + 1


def permit_number(service: ServiceType, seq: int, year: int) -> str:
    """``MT-0007/2026``: service code, sequence of the year, year of issue."""
    return f"{service.code}-{seq:04d}/{year}"


@requires(Role.SUPERVISOR)
def issue(ctx: AppContext, application_id: int, *, on: date | None = None,
          expected_version: int | None = None) -> IssuedPermit:
    """Issue the permit of an approved application: number, 5-year term, 1-year certificate.

    For mototáxi a quota place is claimed by a conditional UPDATE in this transaction; when none is
    left, :class:`RuleViolationError` names Art. 10, I and nothing is written.
    """
    on = _today(on)
    settings = law_settings(ctx)
    with ctx.write(_INTEGRITY) as s:
        app = _load(s, Application, application_id, expected_version, "O requerimento")
        person = s.get(Person, app.person_id)
        assert person is not None
        service = app.service_type
        tender, homologation = _tender_verdicts(s, app)
        quota = quota_counts(s) if service is ServiceType.MOTOTAXI else None
        vehicle_id = _vehicle_id_for(s, app)
        holder = person_facts(s, person.id, tender_homologation=homologation)
        vehicle = vehicle_facts_of(s, vehicle_id, service)
        tctx = acts.issue_context(holder, vehicle, service, on, settings, tender=tender,
                                  quota_open_places=quota[2] if quota else None,
                                  holder_permits_in_force=_holder_permits_in_force(s, person.id))
        intro = "A permissão não pode ser emitida:" if service is ServiceType.MOTOTAXI else \
            "A autorização não pode ser emitida:"
        accepted = _check(ctx, "issue", app.state, tctx, intro)
        fees.require_payment(s, settings, FeeAct.ISSUE, app.id)  # Art. 6º, § 6º
        if service is ServiceType.MOTOTAXI and not _claim_quota_place(s):
            places, in_force, _open = quota_counts(s) or (0, 0, 0)
            raise RuleViolationError([acts.quota_full(places, in_force, settings.population)], intro)
        seq = _next_seq(s, service, on.year)
        with judged(s, accepted, Permit, TenderCandidate.status):
            permit = Permit(
                number=permit_number(service, seq, on.year),
                service_type=service,
                year=on.year,
                seq=seq,
                person_id=person.id,
                application_id=app.id,
                vehicle_id=vehicle_id,
                decree_id=app.decree_id,
                state=PermitState.ACTIVE,
                issued_on=on,
                term_end=permit_term_end(on, False),
                extended=False,
                certificate_valid_until=registration_certificate_valid_until(on),
                badge_issue_no=0,
            )
            s.add(permit)
            s.flush()
            _record(s, ctx, "issue", app.state, PermitState.ACTIVE, application_id=app.id, permit_id=permit.id,
                    decree_id=app.decree_id)
            app.state = PermitState.ACTIVE
            app.vehicle_id = vehicle_id
            if app.tender_candidate_id is not None:
                candidate = s.get(TenderCandidate, app.tender_candidate_id)
                if candidate is not None and candidate.status == "called":
                    candidate.status = "accepted"
        return IssuedPermit(permit.id, permit.number, service, permit.issued_on, permit.term_end,
                            permit.certificate_valid_until)


# --- permits ---------------------------------------------------------------------------------


def _permit(s: Session, permit_id: int, expected_version: int | None) -> Permit:
    permit: Permit = _load(s, Permit, permit_id, expected_version, "A permissão")
    return permit


def _leave_force(s: Session, accepted: list[Verdict], permit: Permit, state: PermitState, on: date,
                 reason: str | None) -> None:
    """Session step: the permit leaves force by an act the rules accepted (``accepted``), its deputy's link with it."""
    with judged(s, accepted, Permit.state, Permit.ended_on, Permit.suspended_until, DeputyLink.end_on):
        _leave_force_judged(s, permit, state, on, reason)


def _leave_force_judged(s: Session, permit: Permit, state: PermitState, on: date, reason: str | None) -> None:
    was_in_force = permit.state.in_force
    permit.state = state
    permit.ended_on = on
    permit.end_reason = reason
    permit.suspended_until = None
    if was_in_force and permit.service_type is ServiceType.MOTOTAXI:
        _release_quota_place(s)
    if was_in_force:
        release_stand_of_permit(s, permit.id, on)  # its stand place comes back in this transaction
    for link in s.scalars(select(DeputyLink).where(DeputyLink.permit_id == permit.id, DeputyLink.end_on.is_(None))):
        link.end_on = on
        link.end_reason = f"Fim da permissão: {state.label.lower()}"


@requires(Role.CLERK, Role.SUPERVISOR)
def renew_registration(ctx: AppContext, permit_id: int, *, on: date | None = None,
                       expected_version: int | None = None) -> date:
    """Yearly renewal of the registration certificate (Art. 4º, § 1º); returns its new last day.

    The new certificate runs one year from the renewal date, never beyond the permit's term.
    """
    on = _today(on)
    settings = law_settings(ctx)
    with ctx.write() as s:
        permit = _permit(s, permit_id, expected_version)
        person = s.get(Person, permit.person_id)
        assert person is not None
        facts = permit_facts(s, permit.id)  # everything the act asks, loaded once
        tctx = acts.renewal_context(facts, on, settings)
        accepted = _check(ctx, "renew_registration", permit.state, tctx, "O registro não pode ser renovado:")
        term = check_registration_renewal_term(on, permit.term_end, permit.service_type)
        if term:
            raise RuleViolationError(term)
        fees.require_payment(s, settings, FeeAct.RENEWAL, permit.id)  # Art. 6º, § 6º
        with judged(s, accepted, Permit.certificate_valid_until):
            until = renewed_certificate_valid_until(on, permit.term_end)
            _record(s, ctx, "renew_registration", permit.state, permit.state, permit_id=permit.id,
                    reason=f"Certificado válido até {format_date(until)}")
            permit.certificate_valid_until = until
        return until


@requires(Role.SUPERVISOR)
def extend(ctx: AppContext, permit_id: int, *, on: date | None = None, decree_number: str | None = None,
           decree_date: date | None = None, reason: str | None = None,
           expected_version: int | None = None) -> date:
    """The one extension of 5 years (Art. 6º); returns the new end of the term."""
    on = _today(on)
    settings = law_settings(ctx)
    reason_ = _clean_reason(reason)
    with ctx.write() as s:
        permit = _permit(s, permit_id, expected_version)
        person = s.get(Person, permit.person_id)
        assert person is not None
        facts = permit_facts(s, permit.id)  # everything the act asks, loaded once
        tctx = TransitionContext(
            on=on,
            service=permit.service_type,
            term_start=permit.issued_on,
            term_end=permit.term_end,
            extensions_used=1 if permit.extended else 0,
            eligibility=acts.holder_verdicts(facts.holder, permit.service_type, on, settings),
            vehicle=acts.vehicle_verdicts(facts.vehicle, permit.service_type, on, settings, person.cpf,
                                          inspection="valid"),
            deputy_requirements=acts.deputy_verdicts(facts.deputy, permit.service_type, on, settings),
            conviction=facts.holder.conviction,
        )
        accepted = _check(ctx, "extend", permit.state, tctx, "A prorrogação não é possível:")
        fees.require_payment(s, settings, FeeAct.EXTENSION, permit.id)  # Art. 6º, § 6º
        decree = _decree(s, decree_number, decree_date, on) if decree_number else None
        new_end = permit_term_end(permit.issued_on, True)
        _record(s, ctx, "extend", permit.state, permit.state, permit_id=permit.id,
                reason=reason_ or f"Prazo prorrogado até {format_date(new_end)}",
                decree_id=decree.id if decree else None)
        with judged(s, accepted, Permit.extended, Permit.term_end):
            permit.extended = True
            permit.term_end = new_end
        return new_end


# --- penalties: session steps of the enforcement process (Art. 29, § 3º; Art. 34, III–IV; Art. 35) -----
#
# No public service suspends, reinstates or revokes a permit: a penalty comes only from a decided notice
# of infraction (motodesk.services.enforcement) or a recorded final criminal judgment (Art. 35), which
# call these steps inside their own transaction. No role check and no commit here; the state machine
# judges every step, with the process as its legal basis.


def _check_step(user: CurrentUser, name: str, permit: Permit, tctx: TransitionContext, intro: str) -> list[Verdict]:
    verdicts = check_transition(name, permit.state, user.role, tctx)
    if not verdicts:
        return verdicts
    if any(v.rule_id == "transition_role" for v in verdicts):
        raise PermissionDeniedError(verdicts[0].message)
    raise RuleViolationError(verdicts, intro)


def _record_step(s: Session, user: CurrentUser, name: str, permit: Permit, to_state: PermitState,
                 reason: str | None) -> None:
    s.add(PermitEvent(permit_id=permit.id, transition=name, from_state=permit.state.value, to_state=to_state.value,
                      at=datetime.now(UTC), by_user=user.login, reason=reason))


def apply_suspend(s: Session, user: CurrentUser, permit: Permit, until: date, *, notice: InfractionNotice,
                  reason: str, on: date) -> None:
    """Suspend until ``until`` for the decided ``notice`` (Art. 34, III), a row of the register that the
    rules check (its decision, its stage, its permit); the quota place is kept."""
    tctx = TransitionContext(on=on, service=permit.service_type, reason=reason, permit_id=permit.id,
                             penalty_notice=notice_evidence(s, notice), suspension_end=until)
    accepted = _check_step(user, "suspend", permit, tctx, f"A suspensão de {permit.number} não é possível:")
    _record_step(s, user, "suspend", permit, PermitState.SUSPENDED, f"{reason} (até {format_date(until)})")
    with judged(s, accepted, Permit.state, Permit.suspended_until):
        permit.state = PermitState.SUSPENDED
        permit.suspended_until = until


def apply_reinstate(s: Session, user: CurrentUser, permit: Permit, *, reason: str, on: date,
                    notice: InfractionNotice | None = None) -> None:
    """End a suspension: its days are over (the calendar), or the appeal decision of ``notice`` ends it early."""
    tctx = TransitionContext(on=on, service=permit.service_type, reason=reason, permit_id=permit.id,
                             penalty_notice=notice_evidence(s, notice), suspension_end=permit.suspended_until,
                             conviction=conviction_of_person(s, permit.person_id))
    accepted = _check_step(user, "reinstate", permit, tctx,
                           f"A suspensão de {permit.number} não pode ser encerrada:")
    _record_step(s, user, "reinstate", permit, PermitState.ACTIVE, reason)
    with judged(s, accepted, Permit.state, Permit.suspended_until):
        permit.state = PermitState.ACTIVE
        permit.suspended_until = None


def apply_revoke(s: Session, user: CurrentUser, permit: Permit, *, reason: str, on: date,
                 notice: InfractionNotice | None = None, conviction: CriminalJudgment | None = None) -> None:
    """Cassação for the decided ``notice`` (Art. 34, IV) or the recorded final ``conviction`` (Art. 35)."""
    tctx = TransitionContext(on=on, service=permit.service_type, reason=reason, permit_id=permit.id,
                             penalty_notice=notice_evidence(s, notice),
                             conviction=conviction_evidence(s, conviction))
    accepted = _check_step(user, "revoke", permit, tctx, f"A cassação de {permit.number} não é possível:")
    _record_step(s, user, "revoke", permit, PermitState.REVOKED, reason)
    _leave_force(s, accepted, permit, PermitState.REVOKED, on, reason)


@requires(Role.CLERK, Role.SUPERVISOR)
def cancel(ctx: AppContext, permit_id: int, reason: str | None, *, express_request: bool,
           on: date | None = None, expected_version: int | None = None) -> None:
    """Cancellation at the holder's express request: baixa in the register (Art. 6º, § 7º)."""
    on = _today(on)
    reason_ = _clean_reason(reason) or "Pedido expresso do titular (Art. 6º, § 7º)"
    with ctx.write() as s:
        permit = _permit(s, permit_id, expected_version)
        tctx = TransitionContext(on=on, service=permit.service_type, express_request=express_request,
                                 reason=reason_)
        accepted = _check(ctx, "cancel", permit.state, tctx, "O cancelamento não é possível:")
        _record(s, ctx, "cancel", permit.state, PermitState.CANCELLED, permit_id=permit.id, reason=reason_)
        _leave_force(s, accepted, permit, PermitState.CANCELLED, on, reason_)


@requires(Role.CLERK, Role.SUPERVISOR, Role.ADMIN)
def expire(ctx: AppContext, permit_id: int, *, on: date | None = None,
           expected_version: int | None = None) -> None:
    """Record the end of the term (Art. 6º): only after its last day."""
    on = _today(on)
    with ctx.write() as s:
        permit = _permit(s, permit_id, expected_version)
        tctx = TransitionContext(on=on, service=permit.service_type, term_end=permit.term_end)
        accepted = _check(ctx, "expire", permit.state, tctx, "O fim do prazo não pode ser registrado:")
        reason = f"Prazo encerrado em {format_date(permit.term_end)}"
        _record(s, ctx, "expire", permit.state, PermitState.EXPIRED, permit_id=permit.id, reason=reason)
        _leave_force(s, accepted, permit, PermitState.EXPIRED, on, reason)


@requires(Role.CLERK, Role.SUPERVISOR, Role.ADMIN)
def expire_due(ctx: AppContext, *, on: date | None = None) -> list[str]:
    """Expire every permit in force whose term has ended; returns their numbers."""
    on = _today(on)
    with ctx.read() as s:
        due = list(s.execute(
            select(Permit.id, Permit.number).where(Permit.state.in_((PermitState.ACTIVE, PermitState.SUSPENDED)),
                                                   Permit.term_end < on).order_by(Permit.id)
        ).all())
    for permit_id, _number in due:
        expire(ctx, permit_id, on=on)
    return [number for _id, number in due]


CALENDAR_USER = CurrentUser(id=None, login="sistema", full_name="MotoDesk (calendário)", role=Role.SUPERVISOR)


@dataclass(frozen=True)
class CalendarRun:
    reinstated: list[str]
    expired: list[str]


def run_calendar(ctx: AppContext, *, on: date | None = None) -> CalendarRun:
    """What the calendar does by itself, once a day (at start-up and by `motodesk daily`):

    a suspension whose end date has passed is lifted (Art. 34, III: suspension for its days) — a
    permit's, and a deputy's link (Art. 34, III: "do condutor auxiliar") — and a permit whose term has
    ended is recorded as expired (Art. 6º). Each step goes through the state machine and is recorded as
    done by "sistema", one transaction per permit.
    """
    on = _today(on)
    system = ctx.as_user(CALENDAR_USER)
    with ctx.read() as s:
        ended = list(s.execute(
            select(Permit.id, Permit.number).where(Permit.state == PermitState.SUSPENDED,
                                                   Permit.suspended_until.is_not(None),
                                                   Permit.suspended_until <= on).order_by(Permit.id)).all())
    reinstated = []
    for permit_id, number in ended:
        with system.write() as s:
            permit = _permit(s, permit_id, None)
            if permit.state is PermitState.SUSPENDED and permit.suspended_until and permit.suspended_until <= on:
                apply_reinstate(s, CALENDAR_USER, permit, reason="Fim do prazo da suspensão", on=on)
                reinstated.append(number)
    reinstated += lift_ended_deputy_suspensions(system, on)
    return CalendarRun(reinstated, expire_due(system, on=on))


# --- quota -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class QuotaOverview:
    """Mototáxi permits in force against the quota (Art. 10, I; Art. 39)."""

    population: int
    population_year: int
    quota: int
    in_force: int
    open_places: int
    counted_in_force: int  # permits in force counted one by one (equals in_force when consistent)


@requires(*READERS)
def quota_overview(ctx: AppContext) -> QuotaOverview:
    settings = law_settings(ctx)
    with ctx.read() as s:
        quota = quota_counts(s)
        counted = int(s.scalar(select(func.count(Permit.id)).where(
            Permit.service_type == ServiceType.MOTOTAXI,
            Permit.state.in_((PermitState.ACTIVE, PermitState.SUSPENDED)))) or 0)
    places, in_force, open_places = quota if quota else (0, 0, 0)
    return QuotaOverview(settings.population, settings.population_year, places, in_force, open_places, counted)


@requires(Role.ADMIN, Role.SUPERVISOR)
def recount_quota(ctx: AppContext) -> QuotaOverview:
    """Set the quota counter's permits in force from the permits themselves (after an import, say)."""
    with ctx.write() as s:
        # The counter row first, locked as every issuer's claim locks it: a count taken before the
        # lock would miss a permit being issued now and write back a stale number (a lost place).
        # On PostgreSQL the count below then sees every issue committed before the lock was granted.
        s.execute(select(_QUOTA_TABLE.c.in_force).where(_QUOTA_TABLE.c.service_type == ServiceType.MOTOTAXI)
                  .with_for_update())
        counted = int(s.scalar(select(func.count(Permit.id)).where(
            Permit.service_type == ServiceType.MOTOTAXI,
            Permit.state.in_((PermitState.ACTIVE, PermitState.SUSPENDED)))) or 0)
        s.execute(update(_QUOTA_TABLE).where(_QUOTA_TABLE.c.service_type == ServiceType.MOTOTAXI)
                  .values(in_force=counted))
    return quota_overview(ctx)


# --- documents -------------------------------------------------------------------------------


def _require_documents(s: Session, settings: LawSettings, permit: Permit, document: Document,
                       person_id: int | None, on: date) -> None:
    """The document gate (:mod:`motodesk.rules.document_gate`), judged in the printing transaction."""
    require_documents(s, [DocumentRequest(permit.id, document, person_id)], on, settings,
                      f"Não é possível emitir {document.label} de {permit.number}:")


def _person_info(person: Person, *, masked: bool, cnh: str | None = None) -> PersonInfo:
    from motodesk.printing.documents import PersonInfo

    town = f"{person.city}-{person.uf}" if person.city and person.uf else person.city
    address = ", ".join(p for p in (person.address, person.district, town) if p)
    return PersonInfo(name=person.full_name, cpf=mask_cpf(person.cpf) if masked else format_cpf(person.cpf),
                      address=address, cnh=cnh or "")


def _vehicle_info(vehicle: Vehicle | None) -> VehicleInfo:
    from motodesk.printing.documents import VehicleInfo

    if vehicle is None:
        return VehicleInfo(plate="—")
    make_model = " ".join(p for p in (vehicle.make, vehicle.model) if p)
    year = "/".join(str(y) for y in (vehicle.year_manufacture, vehicle.year_model) if y)
    return VehicleInfo(plate=format_plate(vehicle.plate), make_model=make_model, year=year,
                       colour=vehicle.colour or "", renavam=vehicle.renavam or "", chassis=vehicle.vin or "",
                       engine_cc=vehicle.engine_cc)


def _document_parts(s: Session, permit: Permit, *, masked: bool) -> dict[str, Any]:
    person = s.get(Person, permit.person_id)
    assert person is not None
    cnh = s.scalar(select(PersonDocument.number).where(PersonDocument.person_id == person.id,
                                                        PersonDocument.kind == DocumentKind.CNH))
    holder = _person_info(person, masked=masked, cnh=None if masked else cnh)
    link = s.scalar(select(DeputyLink).where(DeputyLink.permit_id == permit.id, DeputyLink.end_on.is_(None)))
    deputy = None
    if link is not None:
        deputy_person = s.get(Person, link.deputy_person_id)
        if deputy_person is not None:
            deputy = _person_info(deputy_person, masked=masked)
    decree = s.get(Decree, permit.decree_id) if permit.decree_id else None
    vehicle = s.get(Vehicle, permit.vehicle_id) if permit.vehicle_id else None
    renewals = int(s.scalar(select(func.count(PermitEvent.id)).where(
        PermitEvent.permit_id == permit.id, PermitEvent.transition == "renew_registration")) or 0)
    return {
        "holder": holder,
        "deputy": deputy,
        "vehicle": _vehicle_info(vehicle),
        "decree": f"Decreto nº {decree.number}, de {format_date(decree.signed_on)}" if decree else "",
        "cycle": renewals + 1,
        "fee": fees.certificate_payment(s, permit),
    }


def _certificate_start(permit: Permit) -> date:
    """First day of the current registration certificate: a year before its last day, not before issue."""
    return max(permit.issued_on, add_years(permit.certificate_valid_until, -1))


def _permit_document_pdf(ctx: AppContext, permit_id: int, document: Document, person_id: int | None,
                         on: date | None) -> bytes:
    """The permit's certificate or transit authorization, printed only when every fact it states
    holds today (:mod:`motodesk.rules.document_gate`); ``person_id``, when given, must be the
    holder's (Art. 6º, § 1º; Art. 7º). The authorization carries masked identifiers and ends with the
    certificate or the permit's term, whichever comes first."""
    on = _today(on)
    settings = law_settings(ctx)
    transit = document is Document.TRANSIT_AUTHORIZATION
    with ctx.read() as s:
        permit = _permit(s, permit_id, None)
        _require_documents(s, settings, permit, document, person_id, on)
        parts = _document_parts(s, permit, masked=transit)
    from motodesk.printing.documents import PermitDocumentData, render_permit_document

    return render_permit_document(PermitDocumentData(
        kind="transit" if transit else "certificate",
        number=f"{permit.number}-{parts['cycle']}",
        permit_number=permit.number,
        service=permit.service_type,
        holder=parts["holder"],
        vehicle=parts["vehicle"],
        issued_on=_certificate_start(permit),
        valid_until=min(permit.certificate_valid_until, permit.term_end) if transit
        else permit.certificate_valid_until,
        decree="" if transit else parts["decree"],
        deputy=parts["deputy"],
        fee_paid=parts["fee"].line if parts["fee"] else "",
    ))


@requires(Role.CLERK, Role.SUPERVISOR)
def registration_certificate_pdf(ctx: AppContext, permit_id: int, *, person_id: int | None = None,
                                 on: date | None = None) -> bytes:
    """Certificado de Registro Cadastral, valid one year (Art. 4º, § 1º), as an A4 PDF."""
    return _permit_document_pdf(ctx, permit_id, Document.REGISTRATION_CERTIFICATE, person_id, on)


@requires(Role.CLERK, Role.SUPERVISOR)
def transit_authorization_pdf(ctx: AppContext, permit_id: int, *, person_id: int | None = None,
                              on: date | None = None) -> bytes:
    """Autorização de Trânsito (Art. 5º, § 3º; Art. 12, I), carried in the vehicle, as an A4 PDF."""
    return _permit_document_pdf(ctx, permit_id, Document.TRANSIT_AUTHORIZATION, person_id, on)

