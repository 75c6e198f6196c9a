"""Applications and permits through the rules' state machine (SPEC §4; Art. 4º, 6º, 10, 34, 35).

Every action here is one transaction that

1. loads the application or permit and what the rule looks at (dossier, vehicle, inspection, quota);
2. asks :func:`motodesk.rules.lifecycle.check_transition` whether the user may take the step now —
   a refusal raises :class:`RuleViolationError` whose lines name their articles (a wrong role raises
   :class:`PermissionDeniedError`);
3. changes the state and writes one :class:`PermitEvent` (who, when, why, which Decree).

The mototáxi quota (Art. 10, I) is a database guarantee, not a check-then-act: issuing claims a place
with one conditional ``UPDATE quota_counters SET in_force = in_force + 1 WHERE in_force < places`` in
the permit's own transaction, so two workstations can never both take the last place; a permit that
leaves force (revoked, cancelled, expired) gives its place back in the same transaction. A suspended
permit keeps its place.

Permit numbers run per service and year (``MT-0007/2026``); on PostgreSQL a transaction-scoped
advisory lock per service and year serialises the numbering, on SQLite the write lock taken up front
does.

This module is the services' one door to applications and permits (what callers import); the work is
in six modules: `permits_rows` (what the permits page reads: lines, history, the steps a role may
attempt), `permits_steps` (what every step shares: the facts, the state machine's check, the event
recorded), `permits_applications` (analysis, approval, refusal, withdrawal, the issue and its
number), `permits_quota` (the mototáxi place claimed and given back, the overview and the recount),
`permits_force` (renewal, extension, the penalties' session steps, cancellation, expiry, the daily
calendar) and `permits_documents` (the certificate and the transit authorization).
"""

from __future__ import annotations

from motodesk.services.context import READERS
from motodesk.services.permits_applications import (
    IssuedPermit,
    approve,
    cancel_application,
    issue,
    permit_number,
    refuse,
    start_review,
)
from motodesk.services.permits_documents import (
    registration_certificate_pdf,
    transit_authorization_pdf,
)
from motodesk.services.permits_force import (
    CALENDAR_USER,
    CalendarRun,
    apply_reinstate,
    apply_revoke,
    apply_suspend,
    cancel,
    expire,
    expire_due,
    extend,
    renew_registration,
    run_calendar,
)
from motodesk.services.permits_quota import (
    QuotaOverview,
    quota_overview,
    recount_quota,
)
from motodesk.services.permits_rows import (
    DEPUTY_EVENT_LABELS,
    SORT_KEYS,
    STATE_FILTERS,
    EventRow,
    PermitRow,
    actions_for,
    count_permits,
    get_row,
    history,
    list_permits,
)
from motodesk.services.permits_steps import MAX_REASON

__all__ = [
    "CALENDAR_USER",
    "CalendarRun",
    "DEPUTY_EVENT_LABELS",
    "EventRow",
    "IssuedPermit",
    "MAX_REASON",
    "PermitRow",
    "QuotaOverview",
    "READERS",
    "SORT_KEYS",
    "STATE_FILTERS",
    "actions_for",
    "apply_reinstate",
    "apply_revoke",
    "apply_suspend",
    "approve",
    "cancel",
    "cancel_application",
    "count_permits",
    "expire",
    "expire_due",
    "extend",
    "get_row",
    "history",
    "issue",
    "list_permits",
    "permit_number",
    "quota_overview",
    "recount_quota",
    "refuse",
    "registration_certificate_pdf",
    "renew_registration",
    "run_calendar",
    "start_review",
    "transit_authorization_pdf",
]
