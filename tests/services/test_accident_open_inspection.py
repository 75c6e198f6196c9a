"""Issue 24, "accidents with an inspection already open", on SQLite and PostgreSQL: a safety-compromising
accident recorded while another inspection is open still leaves a way out (Art. 31, Grupo 4, I) — the open
full inspection becomes the accident inspection, an open re-inspection of pending items gives way to a full
accident inspection — and once it passes the documents print again."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from permit_factory import make_dossier  # type: ignore[import-not-found]
from sqlalchemy import select
from tests_helpers import existing_register, raises_rule  # type: ignore[import-not-found]

from motodesk.models import Inspection
from motodesk.rules.checklist import InspectionKind, InspectionStatus, ItemResult
from motodesk.rules.common import ServiceType
from motodesk.services import inspections, permits, vehicles
from motodesk.services.context import AppContext
from motodesk.services.inspections import ItemAnswer

TODAY = date.today()


def _issued(supervisor: AppContext, ctx: AppContext):  # noqa: ANN202
    dossier = make_dossier(ctx, ServiceType.MOTOBOY)
    permits.approve(supervisor, dossier.application_id, "4.883/2026", TODAY)
    return dossier, permits.issue(supervisor, dossier.application_id)


def _pass(inspector: AppContext, inspection_id: int) -> None:
    inspections.start_inspection(inspector, inspection_id=inspection_id)
    view = inspections.get_inspection(inspector, inspection_id)
    inspections.conclude_inspection(inspector, inspection_id, [ItemAnswer(i.code, ItemResult.OK) for i in view.items])


def _open(ctx: AppContext, vehicle_id: int, kind: InspectionKind) -> int:
    with ctx.write() as s:
        existing_register(s)
        row = Inspection(vehicle_id=vehicle_id, service_type=ServiceType.MOTOBOY, kind=kind.value,
                         status=InspectionStatus.SCHEDULED.value, scheduled_for=TODAY + timedelta(days=3))
        s.add(row)
        s.flush()
        return row.id


@pytest.mark.parametrize("kind", [InspectionKind.SEMESTRAL, InspectionKind.REINSPECTION])
def test_an_accident_with_an_inspection_open_still_has_a_way_out(ctx: AppContext, clerk: AppContext,
                                                                 supervisor: AppContext, inspector: AppContext,
                                                                 kind: InspectionKind) -> None:
    dossier, issued = _issued(supervisor, ctx)
    open_id = _open(ctx, dossier.vehicle_id, kind)
    done = vehicles.record_accident(clerk, dossier.vehicle_id, TODAY - timedelta(days=1), TODAY, True)
    assert done.accident.awaiting_inspection and done.inspection_id is not None
    with raises_rule("art31_g4_i_accident_inspection"):
        permits.registration_certificate_pdf(clerk, issued.id)
    with ctx.read() as s:
        rows = {i.id: i for i in s.scalars(select(Inspection).where(Inspection.vehicle_id == dossier.vehicle_id))}
        still_open = [i for i in rows.values() if i.status in ("scheduled", "draft")]
        assert [i.id for i in still_open] == [done.inspection_id]  # one open at a time, the accident one
        assert rows[done.inspection_id].kind == InspectionKind.ACCIDENT
        if kind is InspectionKind.REINSPECTION:  # a partial re-inspection gives way to a full one
            assert done.inspection_id != open_id and rows[open_id].status == InspectionStatus.CANCELLED
        else:  # the open full inspection is the accident inspection
            assert done.inspection_id == open_id
    _pass(inspector, done.inspection_id)
    assert not vehicles.list_accidents(clerk, dossier.vehicle_id)[0].awaiting_inspection
    assert permits.registration_certificate_pdf(clerk, issued.id).startswith(b"%PDF")
