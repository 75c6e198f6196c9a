"""Art. 31, Grupo 4, II on SQLite and PostgreSQL: the vehicle of a permit that ended (cancelled, cassada,
expired) stays on a tracked list, with the article, until its baixa is recorded; the baixa of a vehicle
that serves a permit in force is refused (that is a replacement, Art. 31, Grupo 3, II)."""

from __future__ import annotations

import json
from datetime import timedelta

from enforcement_factory import add_holder  # type: ignore[import-not-found]
from sqlalchemy import select
from tests_helpers import raises_code, raises_rule  # type: ignore[import-not-found]

from motodesk.models import AuditEvent, PermitEvent, Vehicle
from motodesk.rules.common import PermitState, ServiceType
from motodesk.services import permits
from motodesk.services.audit import verify_audit_trail
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext
from motodesk.services.errors import MotodeskError
from motodesk.services.vehicle_release import record_release, release_due_of, vehicles_awaiting_release
from motodesk.services.vehicles import list_vehicles


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
    with raises_rule("vehicle_release_in_force"):
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


def test_the_release_is_in_the_permit_history_and_the_audit_chain(ctx: AppContext, clerk: AppContext,
                                                                  supervisor: AppContext) -> None:
    """Each baixa leaves who, when and the article in the history of the permit that ended, and the
    vehicle's change in the tamper-evident audit trail, whose chain still verifies."""
    ended = add_holder(ctx, "Marcos Vieira Dias", service=ServiceType.MOTOFRETE)
    permits.cancel(clerk, ended.permit_id, None, express_request=True)
    due = release_due_of(ctx, ended.vehicle_id)
    assert due is not None and due.permit_number == ended.permit_number
    [row] = [r for r in list_vehicles(ctx, "") if r.id == ended.vehicle_id]
    assert row.release_due and "baixa pendente" in row.status_label

    done = record_release(supervisor, ended.vehicle_id)
    assert (done.vehicle_id, done.permit_number) == (ended.vehicle_id, ended.permit_number)
    assert release_due_of(ctx, ended.vehicle_id) is None
    [event] = [e for e in permits.history(ctx, "permit", ended.permit_id) if e.transition == "vehicle_release"]
    assert event.by_user == "supervisor" and event.label == "Baixa do veículo (Art. 31, Grupo 4, II)"
    assert ended.plate in (event.reason or "") and "Art. 31, Grupo 4, II" in (event.reason or "")
    with ctx.read() as s:
        audit = [r for r in s.scalars(select(AuditEvent).where(AuditEvent.table_name == "vehicles",
                                                                AuditEvent.row_key == str(ended.vehicle_id))
                                      .order_by(AuditEvent.id))]
        trail = [(r.user_login, r.action, json.loads(r.changes) if isinstance(r.changes, str) else r.changes)
                 for r in audit]
        events = s.scalars(select(PermitEvent.transition).where(PermitEvent.permit_id == ended.permit_id)).all()
    assert ("supervisor", "update", {"active": [True, False]}) in trail, trail
    assert "vehicle_release" in events
    assert verify_audit_trail(ctx).broken is None
    [released] = [r for r in list_vehicles(ctx, "", include_inactive=True) if r.id == ended.vehicle_id]
    assert released.status_label == "Baixado do serviço"

    # Once out of the service it is not released twice, and the history keeps a single baixa.
    with raises_code(MotodeskError, "vehicle.not_in_service"):
        record_release(supervisor, ended.vehicle_id)
    assert [e.transition for e in permits.history(ctx, "permit", ended.permit_id)].count("vehicle_release") == 1


def test_a_vehicle_no_ended_permit_names_is_not_released(ctx: AppContext, clerk: AppContext) -> None:
    """The baixa follows the end of a permit (Art. 31, Grupo 4, II): a vehicle of an open application stays."""
    from tests_helpers import valid_cpf  # type: ignore[import-not-found]

    from motodesk.services import people, vehicles
    from motodesk.services.people import PersonInput
    from motodesk.services.vehicles import VehicleInput

    cpf = valid_cpf()
    person = people.save_person(clerk, PersonInput(full_name="Lia Ramos Costa", cpf=cpf))
    saved = vehicles.save_vehicle(clerk, VehicleInput(plate="LRC1234", holder_id=person.id,
                                                      service_type=ServiceType.MOTOBOY, owner_cpf=cpf))
    with raises_rule("vehicle_release_no_end") as refused:
        record_release(clerk, saved.id)
    assert [v.article for v in refused.value.verdicts] == ["Art. 31, Grupo 4, II"]
    with ctx.read() as s:
        assert s.get(Vehicle, saved.id).active is True  # type: ignore[union-attr]
