"""What the permits page reads: one line per application not yet issued or permit, its history and
the steps a role may attempt on it (:mod:`motodesk.services.permits`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy import Date, Select, and_, cast, func, literal, null, or_, select, union_all
from sqlalchemy.orm import Session

from motodesk.models import Application, Decree, Permit, PermitEvent, Person, Vehicle
from motodesk.rules.common import PermitState, Role, ServiceType
from motodesk.rules.lifecycle import TRANSITIONS, Transition, available_transitions
from motodesk.rules.text import application_number
from motodesk.rules.validators import format_plate
from motodesk.services.context import READERS, AppContext, current_row, requires
from motodesk.services.permits_steps import _vehicle_id_for
from motodesk.services.text import LIKE_ESCAPE, contains_pattern, fold, search_text


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
            return _row_of_permit(s, current_row(s, Permit, row_id, None, "O registro não existe mais."))
        app = current_row(s, Application, row_id, None, "O registro não existe mais.")
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
            permit = current_row(s, Permit, row_id, None, "A permissão não existe mais.")
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
