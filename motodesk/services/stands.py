"""Stands (pontos, Art. 17 and 18): set by Decree with a maximum of places, never at a bus or taxi stop,
and the holders assigned to them.

**Places are a database guarantee, like the mototáxi quota.**  ``stands.occupied`` counts the open
assignments. Assigning claims a place with one conditional
``UPDATE stands SET occupied = occupied + 1 WHERE id = :id AND occupied < max_places`` in the same
transaction as the :class:`StandAssignment` insert: the database serialises the UPDATE (SQLite's write
lock; PostgreSQL's row lock, after which the WHERE is evaluated again), so two workstations can never
both take the last place. Ending an assignment gives the place back in its own transaction. The CHECK
constraint ``0 <= occupied <= max_places`` is the last line of defence.

A permit that leaves force (revoked, cancelled, expired) no longer holds a place: its open assignment
ends, and its place returns, in the transaction of the next assignment at that stand (and
:func:`release_stand_of_permit` can do it in the permit's own transaction). The list of stands counts
only holders of permits in force. A suspended permit keeps its place, as it keeps its quota place.

**Art. 18.**  Whoever creates a stand declares whether the place is a bus or taxi stop; a declared stop
is refused with the article (and the CHECK constraint ``NOT is_bus_or_taxi_stop`` refuses it too).

Roles: stands are set by Decree, so supervisors create and change them; clerks and supervisors assign
holders at the counter; everyone may read them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, cast

from sqlalchemy import CursorResult, Table, and_, case, func, select, update
from sqlalchemy.orm import Session

from motodesk.models import Decree, Permit, Person, Stand, StandAssignment
from motodesk.rules import stands as stand_rules
from motodesk.rules.common import IN_FORCE_STATES as IN_FORCE
from motodesk.rules.common import PermitState, Role, ServiceType
from motodesk.rules.stands import services_text
from motodesk.rules.text import format_date
from motodesk.services.clock import local_today
from motodesk.services.context import CONFLICT_MESSAGE, READERS, AppContext, current_row, requires
from motodesk.services.decrees import find_or_record_decree
from motodesk.services.errors import (
    ConflictError,
    InvalidInputError,
    MotodeskError,
    NotFoundError,
    RuleViolationError,
)
from motodesk.services.refusals import check_period_end, refuse_marked
from motodesk.services.text import clean_name, text_problem

MANAGERS = (Role.SUPERVISOR,)
ASSIGNERS = (Role.CLERK, Role.SUPERVISOR)
MAX_PLACES = 999

_STANDS = cast(Table, Stand.__table__)
_ASSIGNMENTS = cast(Table, StandAssignment.__table__)

_FULL_BY_CHECK = ("Art. 17: o ponto não tem vaga — outra estação ocupou a última vaga neste instante. "
                  "Nada foi gravado.")
_INTEGRITY = {
    "not_bus_or_taxi_stop": "Art. 18: é proibido exercer o serviço em ponto de ônibus ou de táxi; o ponto não "
                            "foi cadastrado.",
    "occupied_within_places": _FULL_BY_CHECK,
    "max_places_positive": "Art. 17: o ponto deve ter ao menos uma vaga.",
    "uq_stand_assignments_active_permit": "Outra estação acabou de designar este titular a um ponto; "
                                          "recarregue e confira.",
    "cols:stand_assignments.permit_id": "Outra estação acabou de designar este titular a um ponto; "
                                        "recarregue e confira.",
    "uq_decrees_number": "Outra estação cadastrou este Decreto agora; tente novamente.",
    "cols:decrees.number": "Outra estação cadastrou este Decreto agora; tente novamente.",
}


def _parse_services(raw: str) -> tuple[ServiceType, ...]:
    found = []
    for part in (raw or "").split(","):
        try:
            found.append(ServiceType(part.strip()))
        except ValueError:
            continue
    return tuple(s for s in ServiceType if s in found)


# --- stands -----------------------------------------------------------------------------------


@dataclass
class StandInput:
    """What the "Novo ponto" form submits: the place, what it allows, and the Decree that sets it."""

    name: str
    address: str
    services: Sequence[ServiceType]
    max_places: int
    decree_number: str
    decree_date: date | None
    is_bus_or_taxi_stop: bool  # declared by whoever registers it (Art. 18)


@dataclass(frozen=True)
class StandRow:
    id: int
    version: int
    name: str
    address: str
    services: tuple[ServiceType, ...]
    max_places: int
    occupied: int  # holders of permits in force assigned now
    decree_number: str
    decree_date: date
    active: bool

    @property
    def free(self) -> int:
        return max(0, self.max_places - self.occupied)

    @property
    def services_label(self) -> str:
        return services_text(self.services)

    @property
    def occupancy_label(self) -> str:
        return f"{self.occupied} de {self.max_places}"

    @property
    def decree_label(self) -> str:
        return f"Decreto nº {self.decree_number}, de {format_date(self.decree_date)}"


def _decree(s: Session, number: str, signed_on: date | None, on: date) -> Decree:
    """The Decree that sets the stand (Art. 17): the one registered with this number, or a new one."""
    return find_or_record_decree(
        s, number, signed_on, on, article="Art. 17", subject="Pontos de estacionamento (Art. 17)",
        missing_number="Art. 17: os pontos são indicados por Decreto; informe o número do Decreto.")


def _checked(data: StandInput, *, registered: bool) -> tuple[str, str, tuple[ServiceType, ...]]:
    """A stand's name, address and services as saved: a bus or taxi stop refused (Art. 18), then the fields."""
    if data.is_bus_or_taxi_stop:
        raise RuleViolationError([stand_rules.bus_or_taxi_stop(registered=registered)])
    name, address, services, errors = _validate(data)
    refuse_marked(errors)
    return name, address, services


def _required_text(errors: dict[str, str], key: str, value: str, limit: int, missing: str, too_long: str) -> None:
    """A text the stand must have: ``missing`` when empty, ``too_long`` past ``limit``, else its character problem."""
    if not value:
        errors[key] = missing
    elif len(value) > limit:
        errors[key] = too_long
    elif problem := text_problem(value):
        errors[key] = problem


def _validate(data: StandInput) -> tuple[str, str, tuple[ServiceType, ...], dict[str, str]]:
    errors: dict[str, str] = {}
    name = clean_name(data.name)
    address = clean_name(data.address)
    _required_text(errors, "name", name, 200, "Informe o nome do ponto.", "Nome longo demais (até 200 caracteres).")
    _required_text(errors, "address", address, 300, "Informe o endereço do ponto.",
                   "Endereço longo demais (até 300 caracteres).")
    services = tuple(s for s in ServiceType if s in {ServiceType(x) for x in data.services})
    if not services:
        errors["services"] = "Escolha ao menos um serviço permitido no ponto."
    if not isinstance(data.max_places, int) or not 1 <= data.max_places <= MAX_PLACES:
        errors["max_places"] = f"Art. 17: o número máximo de vagas deve ser de 1 a {MAX_PLACES}."
    return name, address, services, errors


def _occupancy(s: Session, stand_ids: Sequence[int]) -> dict[int, int]:
    if not stand_ids:
        return {}
    rows = s.execute(select(StandAssignment.stand_id, func.count(StandAssignment.id))
                     .join(Permit, Permit.id == StandAssignment.permit_id)
                     .where(StandAssignment.stand_id.in_(stand_ids), StandAssignment.end_on.is_(None),
                            Permit.state.in_(IN_FORCE))
                     .group_by(StandAssignment.stand_id)).all()
    return {sid: int(n) for sid, n in rows}


def _stand_row(stand: Stand, decree: Decree, occupied: int) -> StandRow:
    return StandRow(stand.id, stand.version, stand.name, stand.address, _parse_services(stand.services),
                    stand.max_places, occupied, decree.number, decree.signed_on, stand.active)


@requires(*MANAGERS)
def create_stand(ctx: AppContext, data: StandInput) -> StandRow:
    """Register a stand set by Decree (Art. 17); a bus or taxi stop is refused (Art. 18)."""
    name, address, services = _checked(data, registered=False)
    today = local_today()
    with ctx.write(_INTEGRITY) as s:
        decree = _decree(s, data.decree_number, data.decree_date, today)
        stand = Stand(decree_id=decree.id, name=name, address=address,
                      services=",".join(sv.value for sv in services), max_places=data.max_places, occupied=0,
                      is_bus_or_taxi_stop=False, active=True)
        s.add(stand)
        s.flush()
        return _stand_row(stand, decree, 0)


@requires(*MANAGERS)
def update_stand(ctx: AppContext, stand_id: int, data: StandInput, *,
                 expected_version: int | None = None) -> StandRow:
    """Change a stand by a (new) Decree: its places never below the holders already there (Art. 17), and
    no service taken away from holders assigned to it."""
    name, address, services = _checked(data, registered=True)
    today = local_today()
    with ctx.write(_INTEGRITY) as s:
        stand = current_row(s, Stand, stand_id, expected_version, "Ponto não encontrado.")
        _release_out_of_force(s, stand.id, today)
        s.refresh(stand)
        if data.max_places < stand.occupied:
            raise RuleViolationError([stand_rules.places_below_assigned(stand.name, stand.occupied, data.max_places)])
        assigned = set(s.scalars(select(Permit.service_type).join(
            StandAssignment, and_(StandAssignment.permit_id == Permit.id, StandAssignment.end_on.is_(None)))
            .where(StandAssignment.stand_id == stand.id)))
        removed = sorted(assigned - set(services), key=list(ServiceType).index)
        if removed:
            raise RuleViolationError([stand_rules.services_still_assigned(stand.name, removed)])
        decree = _decree(s, data.decree_number, data.decree_date, today)
        changes = {"name": name, "address": address, "services": ",".join(sv.value for sv in services),
                   "max_places": data.max_places, "decree_id": decree.id}
        for key, value in changes.items():
            if getattr(stand, key) != value:
                setattr(stand, key, value)
        s.flush()
        return _stand_row(stand, decree, _occupancy(s, [stand.id]).get(stand.id, 0))


@requires(*READERS)
def list_stands(ctx: AppContext, *, service: ServiceType | None = None,
                include_inactive: bool = False) -> list[StandRow]:
    """Every stand by name with its occupancy: holders of permits in force assigned, out of the places."""
    with ctx.read() as s:
        stmt = select(Stand, Decree).join(Decree, Decree.id == Stand.decree_id).order_by(Stand.name, Stand.id)
        if not include_inactive:
            stmt = stmt.where(Stand.active.is_(True))
        pairs = s.execute(stmt).all()
        occupancy = _occupancy(s, [stand.id for stand, _d in pairs])
        rows = [_stand_row(stand, decree, occupancy.get(stand.id, 0)) for stand, decree in pairs]
    return [r for r in rows if service is None or service in r.services]


@requires(*READERS)
def get_stand(ctx: AppContext, stand_id: int) -> StandRow:
    with ctx.read() as s:
        pair = s.execute(select(Stand, Decree).join(Decree, Decree.id == Stand.decree_id)
                         .where(Stand.id == stand_id)).first()
        if pair is None:
            raise NotFoundError("Ponto não encontrado.")
        return _stand_row(pair[0], pair[1], _occupancy(s, [stand_id]).get(stand_id, 0))


# --- assignments ------------------------------------------------------------------------------


@dataclass(frozen=True)
class AssignmentRow:
    id: int
    version: int
    stand_id: int
    stand_name: str
    permit_id: int
    permit_number: str
    service: ServiceType
    permit_state: PermitState
    holder: str
    start_on: date
    end_on: date | None


def _assignments_stmt():  # noqa: ANN202
    return (select(StandAssignment.id, StandAssignment.version, StandAssignment.stand_id, Stand.name,
                   StandAssignment.permit_id, Permit.number, Permit.service_type, Permit.state, Person.full_name,
                   StandAssignment.start_on, StandAssignment.end_on)
            .join(Stand, Stand.id == StandAssignment.stand_id)
            .join(Permit, Permit.id == StandAssignment.permit_id)
            .join(Person, Person.id == Permit.person_id))


def _assignment_rows(s: Session, stmt) -> list[AssignmentRow]:  # noqa: ANN001
    return [AssignmentRow(*r) for r in s.execute(stmt).all()]


@requires(*READERS)
def list_assignments(ctx: AppContext, stand_id: int, *, include_past: bool = False) -> list[AssignmentRow]:
    """The holders at a stand (permits in force), by name; with ``include_past``, every assignment."""
    stmt = _assignments_stmt().where(StandAssignment.stand_id == stand_id)
    if not include_past:
        stmt = stmt.where(StandAssignment.end_on.is_(None), Permit.state.in_(IN_FORCE))
    stmt = stmt.order_by(StandAssignment.end_on.is_not(None), Person.name_search, StandAssignment.id)
    with ctx.read() as s:
        return _assignment_rows(s, stmt)


@requires(*READERS)
def stand_of_permit(ctx: AppContext, permit_id: int) -> AssignmentRow | None:
    """Where a permit's holder is assigned now, if anywhere."""
    with ctx.read() as s:
        rows = _assignment_rows(s, _assignments_stmt().where(StandAssignment.permit_id == permit_id,
                                                              StandAssignment.end_on.is_(None)))
    return rows[0] if rows else None


def _claim_place(s: Session, stand_id: int) -> bool:
    """Take one place of the stand, or nothing: the database serialises this UPDATE (Art. 17)."""
    result = cast(CursorResult[Any], s.execute(update(_STANDS).where(_STANDS.c.id == stand_id, _STANDS.c.occupied < _STANDS.c.max_places)
                       .values(occupied=_STANDS.c.occupied + 1)))
    return result.rowcount == 1


def _end_assignment(s: Session, assignment_id: int, stand_id: int, on: date) -> bool:
    """End one open assignment and give its place back; False when another transaction ended it first.

    The end date is never before the start (the CHECK ``end_on >= start_on``)."""
    ended = cast(CursorResult[Any], s.execute(update(_ASSIGNMENTS)
                      .where(_ASSIGNMENTS.c.id == assignment_id, _ASSIGNMENTS.c.end_on.is_(None))
                      .values(end_on=case((_ASSIGNMENTS.c.start_on > on, _ASSIGNMENTS.c.start_on), else_=on),
                              version=_ASSIGNMENTS.c.version + 1)))
    if ended.rowcount != 1:
        return False
    s.execute(update(_STANDS).where(_STANDS.c.id == stand_id, _STANDS.c.occupied > 0)
              .values(occupied=_STANDS.c.occupied - 1))
    return True


def _release_out_of_force(s: Session, stand_id: int, on: date) -> int:
    """End the open assignments at the stand of permits no longer in force; returns how many places
    came back. Each one ends on the day its permit ended."""
    stale = s.execute(select(StandAssignment.id, Permit.ended_on)
                      .join(Permit, Permit.id == StandAssignment.permit_id)
                      .where(StandAssignment.stand_id == stand_id, StandAssignment.end_on.is_(None),
                             Permit.state.not_in(IN_FORCE))).all()
    return sum(_end_assignment(s, row.id, stand_id, min(row.ended_on or on, on)) for row in stale)


def release_stand_of_permit(s: Session, permit_id: int, on: date) -> None:
    """In the caller's transaction: end the permit's open assignment and give its place back.

    For :mod:`motodesk.services.permits` when a permit leaves force; without it the place comes back at
    the next assignment to that stand.
    """
    row = s.execute(select(StandAssignment.id, StandAssignment.stand_id)
                    .where(StandAssignment.permit_id == permit_id, StandAssignment.end_on.is_(None))).first()
    if row is not None:
        _end_assignment(s, row.id, row.stand_id, on)


@requires(*ASSIGNERS)
def assign_to_stand(ctx: AppContext, stand_id: int, permit_id: int, *, on: date | None = None) -> AssignmentRow:
    """Assign the holder of an active permit to a stand that allows his service and has a free place.

    A holder already at another stand moves: the old place is given back in the same transaction, so a
    refusal leaves him where he was.
    """
    today = local_today()
    on = on or today
    if on > today:
        raise InvalidInputError(f"A data da designação ({format_date(on)}) é posterior a hoje.",
                                {"start_on": "Data no futuro."})
    with ctx.write(_INTEGRITY) as s:
        stand = current_row(s, Stand, stand_id, None, "Ponto não encontrado.")
        permit = current_row(s, Permit, permit_id, None, "Permissão não encontrada.")
        instrument = permit.service_type.instrument
        if not stand.active:
            raise RuleViolationError([stand_rules.stand_inactive(stand.name)])
        if permit.state is not PermitState.ACTIVE:
            raise RuleViolationError([stand_rules.permit_not_in_force(instrument, permit.number,
                                                                      permit.state.label)])
        allowed = _parse_services(stand.services)
        if permit.service_type not in allowed:
            raise RuleViolationError([stand_rules.service_not_served(stand.name, allowed, permit.service_type)])
        if on < permit.issued_on:
            raise InvalidInputError(f"A data da designação ({format_date(on)}) é anterior à emissão de "
                                    f"{permit.number}.", {"start_on": "Data inválida."})
        current = s.execute(select(StandAssignment.id, StandAssignment.stand_id)
                            .where(StandAssignment.permit_id == permit_id, StandAssignment.end_on.is_(None))).first()
        if current is not None and current.stand_id == stand_id:
            raise MotodeskError(f"{permit.number} já está designada ao ponto {stand.name}.", code="stand.already_assigned")
        if current is not None:
            # Both stands locked in id order: two workstations moving holders crosswise never deadlock.
            s.execute(select(_STANDS.c.id).where(_STANDS.c.id.in_((current.stand_id, stand_id)))
                      .order_by(_STANDS.c.id).with_for_update())
            _end_assignment(s, current.id, current.stand_id, on)
        _release_out_of_force(s, stand_id, on)
        if not _claim_place(s, stand_id):
            max_places, occupied = s.execute(select(_STANDS.c.max_places, _STANDS.c.occupied)
                                              .where(_STANDS.c.id == stand_id)).one()
            raise RuleViolationError([stand_rules.no_free_place(stand.name, max_places, occupied)])
        assignment = StandAssignment(stand_id=stand_id, permit_id=permit_id, start_on=on)
        s.add(assignment)
        s.flush()
        return _assignment_rows(s, _assignments_stmt().where(StandAssignment.id == assignment.id))[0]


@requires(*ASSIGNERS)
def end_assignment(ctx: AppContext, assignment_id: int, *, on: date | None = None) -> None:
    """The holder leaves the stand on ``on`` (today by default): the place is free again."""
    today = local_today()
    on = on or today
    if on > today:
        raise InvalidInputError(f"A data ({format_date(on)}) é posterior a hoje.", {"end_on": "Data no futuro."})
    with ctx.write(_INTEGRITY) as s:
        row = s.execute(select(StandAssignment.stand_id, StandAssignment.start_on, StandAssignment.end_on)
                        .where(StandAssignment.id == assignment_id)).first()
        if row is None:
            raise NotFoundError("Designação não encontrada.")
        check_period_end(row.start_on, row.end_on, on, code="stand.already_left",
                         ended="Este titular já saiu do ponto em {end}.",
                         early="A data de saída ({on}) é anterior à designação ({start}).",
                         field="end_on", short="Anterior à designação.")
        if not _end_assignment(s, assignment_id, row.stand_id, on):
            raise ConflictError(CONFLICT_MESSAGE)
