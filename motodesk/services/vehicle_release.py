"""The vehicle's baixa from the service after its permit ends (Art. 31, Grupo 4, II).

The law makes it a gravíssima infraction of the holder not to give baixa to the vehicle on the
cancellation or cassação of the permit (and on a replacement, which :mod:`motodesk.services.vehicles`
already does: the old vehicle leaves service when the new one is inspected).  The law fixes no number
of days ("conforme instruções previstas neste regulamento"), so the obligation is tracked from the
permit's end: :func:`vehicles_awaiting_release` lists every vehicle still registered in the service
whose permit ended, with the article, and :func:`record_release` records the baixa through a judged
step, in the history of the permit that ended (a ``vehicle_release`` event: who, when, which article)
and in the audit trail (the vehicle's row, by the trail's own listeners or triggers).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime

from sqlalchemy import ColumnElement, exists, select
from sqlalchemy.orm import Session, aliased

from motodesk.models import Permit, PermitEvent, Vehicle
from motodesk.rules.acts import (
    RELEASE_AFTER,
    vehicle_release_due,
    vehicle_release_reason,
    vehicle_release_verdicts,
    vehicle_release_without_end,
)
from motodesk.rules.common import PermitState, Role, Verdict
from motodesk.services.context import AppContext, current_row, requires
from motodesk.services.errors import MotodeskError
from motodesk.services.judged import judged

_IN_FORCE = tuple(st for st in PermitState if st.in_force)
#: Who records the baixa (the counter and the supervisor, as the replacement's steps).
RELEASERS = (Role.CLERK, Role.SUPERVISOR)


@dataclass(frozen=True)
class ReleaseDue:
    """A vehicle still in the service after its permit ended."""

    vehicle_id: int
    plate: str
    permit_id: int
    permit_number: str
    ended_on: date | None
    verdict: Verdict


@dataclass(frozen=True)
class ReleaseDone:
    vehicle_id: int
    plate: str
    permit_number: str


def awaiting_release() -> ColumnElement[bool]:
    """SQL: the vehicle (``Vehicle``) is active, an ended permit names it and no permit in force does."""
    ended, in_force = aliased(Permit), aliased(Permit)
    return (Vehicle.active.is_(True)
            & exists().where(ended.vehicle_id == Vehicle.id, ended.state.in_(RELEASE_AFTER))
            & ~exists().where(in_force.vehicle_id == Vehicle.id, in_force.state.in_(_IN_FORCE)))


def _due(s: Session, vehicle_id: int | None = None) -> list[ReleaseDue]:
    query = (select(Vehicle.id, Vehicle.plate, Permit.id, Permit.number, Permit.state, Permit.ended_on)
             .join(Permit, Permit.vehicle_id == Vehicle.id)
             .where(awaiting_release(), Permit.state.in_(RELEASE_AFTER))
             .order_by(Permit.ended_on, Permit.id))
    if vehicle_id is not None:
        query = query.where(Vehicle.id == vehicle_id)
    seen: set[int] = set()
    out = []
    for vid, plate, pid, number, state, ended_on in reversed(s.execute(query).all()):  # each vehicle's latest end
        if vid in seen:
            continue
        seen.add(vid)
        out.append(ReleaseDue(vid, plate, pid, number, ended_on, vehicle_release_due(plate, number, state, ended_on)))
    return sorted(out, key=lambda r: (r.ended_on or date.min, r.permit_id))


@requires(Role.CLERK, Role.INSPECTOR, Role.SUPERVISOR, Role.ADMIN)
def vehicles_awaiting_release(ctx: AppContext) -> list[ReleaseDue]:
    """Every vehicle still registered in the service whose last permit ended (cancelled, cassada or
    expired) and that no permit in force names, oldest end first (Art. 31, Grupo 4, II)."""
    with ctx.read() as s:
        return _due(s)


@requires(Role.CLERK, Role.INSPECTOR, Role.SUPERVISOR, Role.ADMIN)
def release_due_of(ctx: AppContext, vehicle_id: int) -> ReleaseDue | None:
    """The pending baixa of this vehicle, if its permit ended (Art. 31, Grupo 4, II)."""
    with ctx.read() as s:
        found = _due(s, vehicle_id)
    return found[0] if found else None


@requires(*RELEASERS)
def record_release(ctx: AppContext, vehicle_id: int, *, expected_version: int | None = None) -> ReleaseDone:
    """Record the vehicle's baixa from the service; refused with the article while a permit in force
    names it, or when no ended permit does. The permit that ended gets a ``vehicle_release`` event."""
    with ctx.write() as s:
        vehicle = current_row(s, Vehicle, vehicle_id, expected_version, "Veículo não encontrado.")
        if not vehicle.active:
            raise MotodeskError(f"O veículo {vehicle.plate} já não está no serviço (baixa ou substituição "
                                "registrada).", code="vehicle.not_in_service")
        in_force = list(s.scalars(select(Permit.number).where(Permit.vehicle_id == vehicle_id,
                                                               Permit.state.in_(_IN_FORCE)).order_by(Permit.id)))
        ended = s.scalar(select(Permit).where(Permit.vehicle_id == vehicle_id, Permit.state.in_(RELEASE_AFTER))
                         .order_by(Permit.ended_on.desc(), Permit.id.desc()).limit(1))
        verdicts = vehicle_release_verdicts(vehicle.plate, in_force)
        if ended is None and not in_force:
            verdicts.append(vehicle_release_without_end(vehicle.plate))
        with judged(s, verdicts, Vehicle.active, intro=f"A baixa do veículo {vehicle.plate} não é possível:"):
            vehicle.active = False
        assert ended is not None  # judged() refused the step otherwise
        s.add(PermitEvent(permit_id=ended.id, transition="vehicle_release", from_state=ended.state.value,
                          to_state=ended.state.value, at=datetime.now(UTC), by_user=ctx.user.login,
                          reason=vehicle_release_reason(vehicle.plate, ended.number, ended.state)))
        s.flush()
        return ReleaseDone(vehicle.id, vehicle.plate, ended.number)
