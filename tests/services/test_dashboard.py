"""The supervisor's dashboard figures: permits by service and state, quota, deadlines of the month,
infractions of the last 12 months by group."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from reports_factory import holder, notice  # type: ignore[import-not-found]

from motodesk.rules.common import PermitState, ServiceType
from motodesk.rules.deadlines import DeadlineKind
from motodesk.services.clock import LOCAL_TZ, local_today
from motodesk.services.context import AppContext
from motodesk.services.dashboard import dashboard, group_label
from motodesk.services.errors import PermissionDeniedError


def test_the_figures(supervisor: AppContext, ctx: AppContext, clerk: AppContext) -> None:
    today = local_today()
    a = holder(supervisor, "Ana Paula Vieira", ServiceType.MOTOTAXI, medical_issued=today - timedelta(days=400))
    holder(supervisor, "Bruno Souza Lima", ServiceType.MOTOTAXI, state=PermitState.SUSPENDED)
    b = holder(supervisor, "Carla Mendes Rocha", ServiceType.MOTOBOY)
    holder(supervisor, "Davi Reis Campos", ServiceType.MOTOFRETE, state=PermitState.REVOKED)
    now = datetime.now(UTC)
    notice(supervisor, a.holder, 1, occurred_at=now - timedelta(days=3), severity="grave")
    notice(supervisor, b.holder, 2, occurred_at=now - timedelta(days=2), severity="leve")
    notice(supervisor, b.holder, 3, occurred_at=now - timedelta(days=400), severity="leve")  # too old
    data = dashboard(supervisor, today=today)
    assert data.permits[ServiceType.MOTOTAXI][PermitState.ACTIVE] == 1
    assert data.permits[ServiceType.MOTOTAXI][PermitState.SUSPENDED] == 1
    assert data.permits[ServiceType.MOTOFRETE][PermitState.REVOKED] == 1
    assert data.in_force(ServiceType.MOTOTAXI) == 2 and data.in_force(ServiceType.MOTOFRETE) == 0
    assert (data.quota.quota, data.quota.in_force, data.quota.open_places) == (44, 2, 42)
    assert data.quota.population == 89_826 and data.quota.population_year == 2022
    assert data.overdue == {DeadlineKind.MEDICAL: 1}
    assert len(data.months) == 12 and data.months[-1].endswith(f"/{today.year % 100:02d}")
    this_month = (now - timedelta(days=3)).astimezone(LOCAL_TZ)
    slot = 11 if (this_month.year, this_month.month) == (today.year, today.month) else 10
    assert data.infractions[3][slot] >= 1 and sum(data.infractions[3]) == 1
    assert sum(data.infractions[1]) == 1  # the 400-day-old notice is out of the window
    assert data.infractions_total == 2
    assert group_label(4) == "Grupo 4 – Gravíssima"
    assert dashboard(ctx, today=today).quota.in_force == 2  # administrators see it too
    with pytest.raises(PermissionDeniedError):
        dashboard(clerk)


def test_art_32_is_counted_apart_from_the_groups_of_art_33(supervisor: AppContext, ctx: AppContext) -> None:
    """Issue 16, item 14: service without permit (Art. 32) is not a group 4 (gravíssima) infraction."""
    from motodesk.services import enforcement
    from motodesk.services.dashboard import UNLICENSED
    from motodesk.services.enforcement import NoticeInput, OffenderKind

    enforcement.create_notice(supervisor, NoticeInput(
        "32", datetime.now(UTC) - timedelta(hours=1), "Rodoviária", OffenderKind.UNREGISTERED,
        offender_name="Fulano de Tal", plate="QWE1A23", description="Transportava passageiro sem permissão."))
    data = dashboard(supervisor, today=local_today())
    assert sum(data.infractions[UNLICENSED]) == 1
    assert sum(data.infractions[4]) == 0
    assert data.infractions_total == 1
    assert group_label(UNLICENSED) == "Art. 32 – sem permissão"
