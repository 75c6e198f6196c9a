"""Art. 31, Grupo 4, II on SQLite and PostgreSQL: the vehicle of a permit that ended (cancelled, cassada,
expired) stays on a tracked list, with the article, until its baixa is recorded; the baixa of a vehicle
that serves a permit in force is refused (that is a replacement, Art. 31, Grupo 3, II)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from enforcement_factory import add_holder  # type: ignore[import-not-found]

from motodesk.models import Vehicle
from motodesk.rules.common import PermitState, ServiceType
from motodesk.services import permits
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext
from motodesk.services.errors import RuleViolationError
from motodesk.services.vehicle_release import record_release, vehicles_awaiting_release


def test_a_cancelled_permit_leaves_its_vehicle_to_be_released(ctx: AppContext, clerk: AppContext) -> None:
    ended = add_holder(ctx, "Rui Barbosa Lima", service=ServiceType.MOTOBOY)
    still = add_holder(ctx, "Ana Clara Souza", service=ServiceType.MOTOBOY)
    assert vehicles_awaiting_release(ctx) == []

    permits.cancel(clerk, ended.permit_id, None, express_request=True)
    due = vehicles_awaiting_release(ctx)
    assert [(d.vehicle_id, d.permit_number) for d in due] == [(ended.vehicle_id, ended.permit_number)]
    assert due[0].verdict.article == "Art. 31, Grupo 4, II"
    assert ended.plate in due[0].verdict.message and local_today().strftime("%d/%m/%Y") in due[0].verdict.message

    # The vehicle of a permit in force cannot be released: that is a replacement, authorised and inspected.
    with pytest.raises(RuleViolationError, match=r"Art\. 31, Grupo 3, II"):
        record_release(clerk, still.vehicle_id)
    with ctx.read() as s:
        assert s.get(Vehicle, still.vehicle_id).active is True  # type: ignore[union-attr]

    record_release(clerk, ended.vehicle_id)
    with ctx.read() as s:
        assert s.get(Vehicle, ended.vehicle_id).active is False  # type: ignore[union-attr]
    assert vehicles_awaiting_release(ctx) == []


def test_an_expired_term_leaves_its_vehicle_to_be_released(ctx: AppContext, clerk: AppContext) -> None:
    today = local_today()
    old = add_holder(ctx, "Paulo Mendes Rocha", service=ServiceType.MOTOFRETE,
                     issued_on=today - timedelta(days=5 * 365 + 10))
    assert old.permit_number in permits.expire_due(clerk)
    due = vehicles_awaiting_release(ctx)
    assert [d.vehicle_id for d in due] == [old.vehicle_id]
    assert PermitState.EXPIRED.label.lower() in due[0].verdict.message
