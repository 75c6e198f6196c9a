"""The mototáxi quota (Art. 10, I; Art. 39) as a database guarantee: a place is claimed by one
conditional ``UPDATE`` in the issuing transaction and given back in the transaction that ends the
permit's force; the overview and the recount (:mod:`motodesk.services.permits`).
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Any

from sqlalchemy import CursorResult, Table, func, select, update
from sqlalchemy.orm import Session

from motodesk.models import Permit, QuotaCounter
from motodesk.rules.common import PermitState, Role, ServiceType
from motodesk.services.context import READERS, AppContext, requires
from motodesk.services.facts import quota_counts
from motodesk.services.settings import law_settings

_QUOTA_TABLE = typing.cast(Table, QuotaCounter.__table__)


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
