"""The vehicle's baixa from the service after its permit ends (Art. 31, Grupo 4, II).

The law makes it a gravíssima infraction of the holder not to give baixa to the vehicle on the
cancellation or cassação of the permit (and on a replacement, which :mod:`motodesk.services.vehicles`
already does: the old vehicle leaves service when the new one is inspected).  The law fixes no number
of days ("conforme instruções previstas neste regulamento"), so the obligation is tracked from the
permit's end: :func:`vehicles_awaiting_release` lists every vehicle still registered in the service
whose permit ended, with the article, and :func:`record_release` records the baixa through a judged step.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from sqlalchemy import exists, select
from sqlalchemy.orm import aliased

from motodesk.models import Permit, Vehicle
from motodesk.rules.acts import RELEASE_AFTER, vehicle_release_due, vehicle_release_verdicts
from motodesk.rules.common import PermitState, Role, Verdict
from motodesk.services.context import AppContext, requires
from motodesk.services.errors import NotFoundError
from motodesk.services.judged import judged

_IN_FORCE = tuple(st for st in PermitState if st.in_force)


@dataclass(frozen=True)
class ReleaseDue:
    """A vehicle still in the service after its permit ended."""

    vehicle_id: int
    plate: str
    permit_id: int
    permit_number: str
    ended_on: date | None
    verdict: Verdict


@requires(Role.CLERK, Role.INSPECTOR, Role.SUPERVISOR, Role.ADMIN)
def vehicles_awaiting_release(ctx: AppContext) -> list[ReleaseDue]:
    """Every vehicle still registered in the service whose last permit ended (cancelled, cassada or
    expired) and that no permit in force names, oldest end first (Art. 31, Grupo 4, II)."""
    other = aliased(Permit)
    in_force_naming = exists().where(other.vehicle_id == Vehicle.id, other.state.in_(_IN_FORCE))
    with ctx.read() as s:
        rows = s.execute(
            select(Vehicle.id, Vehicle.plate, Permit.id, Permit.number, Permit.state, Permit.ended_on)
            .join(Permit, Permit.vehicle_id == Vehicle.id)
            .where(Vehicle.active.is_(True), Permit.state.in_(RELEASE_AFTER), ~in_force_naming)
            .order_by(Permit.ended_on, Permit.id)).all()
    seen: set[int] = set()
    out = []
    for vid, plate, pid, number, state, ended_on in reversed(rows):  # the latest end of each vehicle
        if vid in seen:
            continue
        seen.add(vid)
        out.append(ReleaseDue(vid, plate, pid, number, ended_on, vehicle_release_due(plate, number, state, ended_on)))
    return sorted(out, key=lambda r: (r.ended_on or date.min, r.permit_id))


@requires(Role.CLERK, Role.SUPERVISOR)
def record_release(ctx: AppContext, vehicle_id: int) -> None:
    """Record the vehicle's baixa from the service; refused with the article while a permit in force names it."""
    with ctx.write() as s:
        vehicle = s.get(Vehicle, vehicle_id)
        if vehicle is None:
            raise NotFoundError("Veículo não encontrado.")
        in_force = list(s.scalars(select(Permit.number).where(Permit.vehicle_id == vehicle_id,
                                                               Permit.state.in_(_IN_FORCE)).order_by(Permit.id)))
        with judged(s, vehicle_release_verdicts(vehicle.plate, in_force), Vehicle.active,
                    intro=f"A baixa do veículo {vehicle.plate} não é possível:"):
            vehicle.active = False
