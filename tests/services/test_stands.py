"""Stands (pontos, Art. 17 and 18) on SQLite and PostgreSQL: created by Decree, never at a bus or taxi stop,
holders assigned without ever exceeding the places — also when workstations take the last place at once."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from enforcement_factory import revoke_through_process, suspend_through_process  # type: ignore[import-not-found]
from permit_factory import make_dossier  # type: ignore[import-not-found]
from sqlalchemy import select
from tests_helpers import race, raises_code, raises_rule  # type: ignore[import-not-found]

from motodesk.models import Decree, Stand, StandAssignment
from motodesk.rules.common import PermitState, ServiceType
from motodesk.services import permits, stands
from motodesk.services.context import AppContext
from motodesk.services.errors import (
    InvalidInputError,
    MotodeskError,
    PermissionDeniedError,
    RuleViolationError,
)
from motodesk.services.stands import StandInput

TODAY = date.today()
DECREE_DATE = TODAY - timedelta(days=30)


def stand_input(name: str = "Ponto da Praça Honorico", places: int = 3, *,
                services: tuple[ServiceType, ...] = (ServiceType.MOTOTAXI, ServiceType.MOTOBOY),
                bus_or_taxi_stop: bool = False, decree: str = "5.120/2026") -> StandInput:
    return StandInput(name=name, address="Praça Honorico Machado, lado da Rua Cesário Alvim", services=services,
                      max_places=places, decree_number=decree, decree_date=DECREE_DATE,
                      is_bus_or_taxi_stop=bus_or_taxi_stop)


def holders(ctx: AppContext, supervisor: AppContext, n: int,
            service: ServiceType = ServiceType.MOTOBOY) -> list[permits.IssuedPermit]:
    issued = []
    for i in range(n):
        dossier = make_dossier(ctx, service, state=PermitState.APPROVED, name=f"Titular Número {i}",
                               candidate_status=None)
        issued.append(permits.issue(supervisor, dossier.application_id))
    return issued


def occupied(ctx: AppContext, stand_id: int) -> int:
    with ctx.read() as s:
        return s.get(Stand, stand_id).occupied


def test_a_stand_is_created_by_decree_and_never_at_a_bus_or_taxi_stop(ctx: AppContext, supervisor: AppContext,
                                                                     clerk: AppContext) -> None:
    with raises_rule("art18_stop") as refused:
        stands.create_stand(supervisor, stand_input(bus_or_taxi_stop=True))
    assert [v.article for v in refused.value.verdicts] == ["Art. 18"]
    # The CHECK constraint refuses it too, whoever writes.
    with ctx.write() as s:
        decree = Decree(number="1/2026", signed_on=DECREE_DATE)
        s.add(decree)
    with raises_code(MotodeskError, "constraint") as info, ctx.write(stands._INTEGRITY) as s:
        s.add(Stand(decree_id=decree.id, name="Rodoviária", address="Av. Faria Pereira", services="motoboy",
                    max_places=2, occupied=0, is_bus_or_taxi_stop=True))
    assert str(info.value) == stands._INTEGRITY["not_bus_or_taxi_stop"]

    with pytest.raises(InvalidInputError) as invalid:
        stands.create_stand(supervisor, StandInput("", "", (), 0, "", None, False))
    assert set(invalid.value.fields) == {"name", "address", "services", "max_places"}
    with raises_code(InvalidInputError, "invalid_input", fields=("decree_number",)):
        stands.create_stand(supervisor, stand_input(decree=" "))
    with pytest.raises(PermissionDeniedError):
        stands.create_stand(clerk, stand_input())

    row = stands.create_stand(supervisor, stand_input())
    assert (row.max_places, row.occupied, row.free) == (3, 0, 3)
    assert row.services == (ServiceType.MOTOTAXI, ServiceType.MOTOBOY)
    assert row.decree_label == f"Decreto nº 5.120/2026, de {DECREE_DATE:%d/%m/%Y}"
    assert [r.name for r in stands.list_stands(clerk)] == ["Ponto da Praça Honorico"]
    # The same Decree may set several stands; a different date for it is a typing error.
    stands.create_stand(supervisor, stand_input("Ponto do Hospital", 2))
    with raises_code(InvalidInputError, "invalid_input", fields=("decree_date",)):
        stands.create_stand(supervisor, StandInput("Ponto da Estação", "Rua da Estação", (ServiceType.MOTOBOY,), 2,
                                                   "5.120/2026", DECREE_DATE - timedelta(days=1), False))


def test_a_stand_with_3_places_refuses_a_4th_holder(ctx: AppContext, supervisor: AppContext,
                                                    clerk: AppContext) -> None:
    stand = stands.create_stand(supervisor, stand_input(places=3))
    first, second, third, fourth = holders(ctx, supervisor, 4)
    for permit in (first, second, third):
        stands.assign_to_stand(clerk, stand.id, permit.id)
    with raises_rule("art17_places") as full:
        stands.assign_to_stand(clerk, stand.id, fourth.id)
    assert [v.article for v in full.value.verdicts] == ["Art. 17"]
    assert occupied(ctx, stand.id) == 3
    assert stands.get_stand(clerk, stand.id).occupancy_label == "3 de 3"
    assert [a.permit_number for a in stands.list_assignments(clerk, stand.id)] == [
        first.number, second.number, third.number]
    assert stands.stand_of_permit(clerk, fourth.id) is None

    # A holder who leaves frees the place for the fourth.
    leaving = stands.stand_of_permit(clerk, second.id)
    stands.end_assignment(clerk, leaving.id)
    with raises_code(MotodeskError, "stand.already_left"):
        stands.end_assignment(clerk, leaving.id)
    stands.assign_to_stand(clerk, stand.id, fourth.id)
    assert occupied(ctx, stand.id) == 3
    history = stands.list_assignments(clerk, stand.id, include_past=True)
    assert [(a.permit_number, a.end_on) for a in history][-1] == (second.number, TODAY)


@pytest.mark.parametrize("workstations", [2, 20])
def test_workstations_racing_for_the_last_place_never_exceed_it(ctx: AppContext, supervisor: AppContext,
                                                                db_url: str, workstations: int) -> None:
    stand = stands.create_stand(supervisor, stand_input(places=3))
    taken = holders(ctx, supervisor, 2)
    for permit in taken:
        stands.assign_to_stand(supervisor, stand.id, permit.id)
    racers = holders(ctx, supervisor, workstations)

    won, lost = race(db_url, [lambda c, p=p.id: stands.assign_to_stand(c, stand.id, p) for p in racers])

    assert len(won) == 1, f"{len(won)} workstations took the last place"
    assert len(lost) == workstations - 1
    for exc in lost:
        assert isinstance(exc, RuleViolationError), repr(exc)
        assert [v.article for v in exc.verdicts] == ["Art. 17"]
    assert occupied(ctx, stand.id) == 3
    with ctx.read() as s:
        open_ = s.scalars(select(StandAssignment).where(StandAssignment.stand_id == stand.id,
                                                        StandAssignment.end_on.is_(None))).all()
    assert len(open_) == 3


def test_the_guarantee_is_the_database_not_a_check(ctx: AppContext, supervisor: AppContext, clerk: AppContext) -> None:
    """Even a counter pushed past the places by hand is refused by the CHECK constraint."""
    stand = stands.create_stand(supervisor, stand_input(places=1))
    with raises_code(MotodeskError, "constraint") as info, ctx.write(stands._INTEGRITY) as s:
        s.execute(Stand.__table__.update().where(Stand.__table__.c.id == stand.id).values(occupied=2))
    assert str(info.value) == stands._INTEGRITY["occupied_within_places"]
    assert occupied(ctx, stand.id) == 0


def test_what_an_assignment_needs(ctx: AppContext, supervisor: AppContext, clerk: AppContext,
                                  inspector: AppContext) -> None:
    motoboy_only = stands.create_stand(supervisor, stand_input("Ponto do Mercado", 2, services=(ServiceType.MOTOBOY,)))
    frete = holders(ctx, supervisor, 1, ServiceType.MOTOFRETE)[0]
    with raises_rule("art17_service"):
        stands.assign_to_stand(clerk, motoboy_only.id, frete.id)
    boy = holders(ctx, supervisor, 1)[0]
    suspend_through_process(supervisor, boy.id, TODAY + timedelta(days=10))
    with raises_rule("art17_permit"):
        stands.assign_to_stand(clerk, motoboy_only.id, boy.id)
    with pytest.raises(PermissionDeniedError):
        stands.assign_to_stand(inspector, motoboy_only.id, frete.id)
    with raises_code(InvalidInputError, "invalid_input", fields=("start_on",)):
        stands.assign_to_stand(clerk, motoboy_only.id, frete.id, on=TODAY + timedelta(days=1))
    assert occupied(ctx, motoboy_only.id) == 0


def test_a_holder_moves_between_stands_and_a_refusal_leaves_him_where_he_was(
        ctx: AppContext, supervisor: AppContext, clerk: AppContext) -> None:
    square = stands.create_stand(supervisor, stand_input("Ponto da Praça", 2))
    hospital = stands.create_stand(supervisor, stand_input("Ponto do Hospital", 1))
    mover, other = holders(ctx, supervisor, 2)
    stands.assign_to_stand(clerk, square.id, mover.id)
    with raises_code(MotodeskError, "stand.already_assigned"):
        stands.assign_to_stand(clerk, square.id, mover.id)
    stands.assign_to_stand(clerk, hospital.id, other.id)
    with raises_rule("art17_places"):
        stands.assign_to_stand(clerk, hospital.id, mover.id)
    assert stands.stand_of_permit(clerk, mover.id).stand_name == "Ponto da Praça"
    assert (occupied(ctx, square.id), occupied(ctx, hospital.id)) == (1, 1)
    stands.assign_to_stand(clerk, square.id, other.id)  # moves from the hospital to the square
    assert (occupied(ctx, square.id), occupied(ctx, hospital.id)) == (2, 0)
    assert stands.stand_of_permit(clerk, other.id).stand_name == "Ponto da Praça"


def test_a_permit_that_leaves_force_gives_its_place_back(ctx: AppContext, supervisor: AppContext,
                                                        clerk: AppContext) -> None:
    stand = stands.create_stand(supervisor, stand_input(places=2))
    first, second, third = holders(ctx, supervisor, 3)
    stands.assign_to_stand(clerk, stand.id, first.id)
    stands.assign_to_stand(clerk, stand.id, second.id)
    suspend_through_process(supervisor, second.id, TODAY + timedelta(days=5))
    assert stands.get_stand(clerk, stand.id).occupied == 2  # a suspended permit keeps its place
    revoke_through_process(supervisor, first.id)
    assert occupied(ctx, stand.id) == 1  # the stored counter gives the place back in the revocation itself
    assert stands.get_stand(clerk, stand.id).occupied == 1  # the list counts permits in force only
    assert [a.permit_number for a in stands.list_assignments(clerk, stand.id)] == [second.number]
    stands.assign_to_stand(clerk, stand.id, third.id)
    assert occupied(ctx, stand.id) == 2
    past = {a.permit_number: a.end_on for a in stands.list_assignments(clerk, stand.id, include_past=True)}
    assert past[first.number] == TODAY

    # The hook for the permit's own transaction does the same at once.
    with ctx.write() as s:
        stands.release_stand_of_permit(s, third.id, TODAY)
    assert occupied(ctx, stand.id) == 1


def test_places_are_changed_by_decree_never_below_the_holders_there(ctx: AppContext, supervisor: AppContext,
                                                                    clerk: AppContext) -> None:
    stand = stands.create_stand(supervisor, stand_input(places=3))
    for permit in holders(ctx, supervisor, 2):
        stands.assign_to_stand(clerk, stand.id, permit.id)
    smaller = stand_input(places=1, decree="5.200/2026")
    with raises_rule("art17_places"):
        stands.update_stand(supervisor, stand.id, smaller, expected_version=stand.version)
    with raises_rule("art17_services"):
        stands.update_stand(supervisor, stand.id, stand_input(services=(ServiceType.MOTOTAXI,)))
    updated = stands.update_stand(supervisor, stand.id, stand_input(places=2, decree="5.200/2026"),
                                  expected_version=stand.version)
    assert (updated.max_places, updated.occupied, updated.free, updated.decree_number) == (2, 2, 0, "5.200/2026")
    with pytest.raises(PermissionDeniedError):
        stands.update_stand(clerk, stand.id, stand_input(places=5))
