"""The supervisor's dashboard: permits by service and state, the mototáxi quota (Art. 10, I; Art. 39),
the deadlines of this month, the infractions of the last 12 months by group (Art. 33) and the progress of
the yearly re-registration campaign (Art. 4º, § 1º).

A handful of aggregate queries (GROUP BY in the database), so it costs the same with 300 or 300,000
people; the screen draws the figures as charts.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from sqlalchemy import func, select

from motodesk.models import InfractionNotice, Permit
from motodesk.rules.common import PermitState, Role, ServiceType
from motodesk.rules.deadlines import DeadlineKind
from motodesk.rules.infractions import UNLICENSED_CODE, Severity
from motodesk.rules.periods import add_months
from motodesk.rules.quota import QuotaStatus, quota_status
from motodesk.services.campaigns import CampaignProgress
from motodesk.services.campaigns import progress as campaign_progress
from motodesk.services.clock import LOCAL_TZ, local_today
from motodesk.services.context import AppContext, requires
from motodesk.services.deadlines import DeadlineFilter, collect
from motodesk.services.settings import law_settings

VIEWERS = (Role.SUPERVISOR, Role.ADMIN)
#: States shown on the dashboard, in the order of a permit's life.
STATES = (PermitState.ACTIVE, PermitState.SUSPENDED, PermitState.EXPIRED, PermitState.CANCELLED,
          PermitState.REVOKED)
MONTHS_PT = ("jan", "fev", "mar", "abr", "mai", "jun", "jul", "ago", "set", "out", "nov", "dez")


#: The dashboard's quota card: the rules' own figures (Art. 10, I; Art. 39), not a copy of them.
QuotaFigures = QuotaStatus


@dataclass(frozen=True)
class DashboardData:
    today: date
    generated_at: datetime
    permits: dict[ServiceType, dict[PermitState, int]]  # service -> state -> count
    quota: QuotaFigures
    deadlines_this_month: dict[DeadlineKind, int]  # falling due from today to the end of the month
    overdue: dict[DeadlineKind, int]
    months: tuple[str, ...]  # "abr/25" … "mar/26": the last 12 months, oldest first
    # group (1–4, Art. 33) -> count per month; key 0: Art. 32 (service without permit), counted apart
    # from the groups of Art. 33, which classify the infractions of holders and deputies only.
    infractions: dict[int, tuple[int, ...]]
    # The yearly re-registration campaign (Art. 4º, § 1º): the open one, else the last; None before the first.
    campaign: CampaignProgress | None = None

    def in_force(self, service: ServiceType) -> int:
        counts = self.permits.get(service, {})
        return counts.get(PermitState.ACTIVE, 0) + counts.get(PermitState.SUSPENDED, 0)

    @property
    def infractions_total(self) -> int:
        return sum(sum(v) for v in self.infractions.values())


#: The dashboard's key for Art. 32 (mototáxi without permit): not a group of Art. 33.
UNLICENSED = 0


def group_label(group: int) -> str:
    if group == UNLICENSED:
        return "Art. 32 – sem permissão"
    severity = next(s for s in Severity if s.group == group)
    return f"Grupo {group} – {severity.label}"


@requires(*VIEWERS)
def dashboard(ctx: AppContext, today: date | None = None) -> DashboardData:
    today = today or local_today()
    settings = law_settings(ctx)
    first_month = add_months(today.replace(day=1), -11)
    since = datetime.combine(first_month, time(), tzinfo=LOCAL_TZ).astimezone(UTC)
    month_keys = [add_months(first_month, i) for i in range(12)]
    index = {(m.year, m.month): i for i, m in enumerate(month_keys)}
    permits: dict[ServiceType, dict[PermitState, int]] = {s: {st: 0 for st in STATES} for s in ServiceType}
    infractions: dict[int, list[int]] = {g: [0] * 12 for g in (1, 2, 3, 4, UNLICENSED)}
    groups = {s.value: s.group for s in Severity}
    with ctx.read() as s:
        for service, state, n in s.execute(select(Permit.service_type, Permit.state, func.count())
                                           .group_by(Permit.service_type, Permit.state)):
            if state in permits[service]:
                permits[service][state] = int(n)
        # A year of notices is a few thousand rows of two columns: folded into local months here, so a
        # notice at 23:00 on the last day of a month counts in that month (the database keeps UTC).
        for occurred, severity, code in s.execute(select(InfractionNotice.occurred_at, InfractionNotice.severity,
                                                         InfractionNotice.infraction_code)
                                            .where(InfractionNotice.occurred_at >= since)
                                            .execution_options(yield_per=5000)):
            when = occurred.astimezone(LOCAL_TZ)
            slot = index.get((when.year, when.month))
            group = UNLICENSED if code == UNLICENSED_CODE else groups.get(severity)
            if slot is not None and group is not None:
                infractions[group][slot] += 1
    in_force = permits[ServiceType.MOTOTAXI][PermitState.ACTIVE] + permits[ServiceType.MOTOTAXI][PermitState.SUSPENDED]
    figures = quota_status(settings.population, settings.population_year, in_force)

    end_of_month = add_months(today.replace(day=1), 1) - timedelta(days=1)
    due: dict[DeadlineKind, int] = {}
    overdue: dict[DeadlineKind, int] = {}
    for row in collect(ctx, DeadlineFilter(horizon_days=(end_of_month - today).days), today, settings):
        bucket = overdue if row.overdue else due
        bucket[row.kind] = bucket.get(row.kind, 0) + 1
    months = tuple(f"{MONTHS_PT[m.month - 1]}/{m.year % 100:02d}" for m in month_keys)
    return DashboardData(today, datetime.now(LOCAL_TZ).replace(tzinfo=None, microsecond=0), permits, figures,
                         due, overdue, months, {g: tuple(v) for g, v in infractions.items()},
                         campaign_progress(ctx, today=today))
