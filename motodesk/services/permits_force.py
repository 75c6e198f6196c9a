"""A permit in force (:mod:`motodesk.services.permits`): the yearly renewal, the one extension, the
penalties the enforcement process applies (Art. 34, III–IV; Art. 35), cancellation, the end of the
term and what the calendar does by itself each day.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from motodesk.models import CriminalJudgment, DeputyLink, InfractionNotice, Permit, PermitEvent, Person
from motodesk.rules import acts
from motodesk.rules.common import PermitState, Role, ServiceType, Verdict
from motodesk.rules.facts import PermitFacts
from motodesk.rules.fees import FeeAct
from motodesk.rules.lifecycle import (
    TransitionContext,
    check_registration_renewal_term,
    permit_term_end,
    renewed_certificate_valid_until,
)
from motodesk.rules.text import format_date
from motodesk.services import fees
from motodesk.services.context import AppContext, CurrentUser, requires
from motodesk.services.deputies import lift_ended_deputy_suspensions
from motodesk.services.errors import RuleViolationError
from motodesk.services.evidence import conviction_evidence, conviction_of_person, notice_evidence
from motodesk.services.facts import permit_facts
from motodesk.services.judged import judged
from motodesk.services.permits_quota import _release_quota_place
from motodesk.services.permits_steps import (
    _check,
    _check_as,
    _clean_reason,
    _decree,
    _permit,
    _record,
    _today,
)
from motodesk.services.settings import law_settings
from motodesk.services.stands import release_stand_of_permit


def _leave_force(s: Session, accepted: list[Verdict], permit: Permit, state: PermitState, on: date,
                 reason: str | None) -> None:
    """Session step: the permit leaves force by an act the rules accepted (``accepted``), its deputy's link with it."""
    with judged(s, accepted, Permit.state, Permit.ended_on, Permit.suspended_until, DeputyLink.end_on):
        _leave_force_judged(s, permit, state, on, reason)


def _leave_force_judged(s: Session, permit: Permit, state: PermitState, on: date, reason: str | None) -> None:
    was_in_force = permit.state.in_force
    permit.state = state
    permit.ended_on = on
    permit.end_reason = reason
    permit.suspended_until = None
    if was_in_force and permit.service_type is ServiceType.MOTOTAXI:
        _release_quota_place(s)
    if was_in_force:
        release_stand_of_permit(s, permit.id, on)  # its stand place comes back in this transaction
    for link in s.scalars(select(DeputyLink).where(DeputyLink.permit_id == permit.id, DeputyLink.end_on.is_(None))):
        link.end_on = on
        link.end_reason = f"Fim da permissão: {state.label.lower()}"


def _permit_with_facts(s: Session, permit_id: int,
                       expected_version: int | None) -> tuple[Permit, Person, PermitFacts]:
    """Session step: the permit (a stale version is a conflict), its holder and everything an act on it
    asks, loaded once."""
    permit = _permit(s, permit_id, expected_version)
    person = s.get(Person, permit.person_id)
    assert person is not None
    return permit, person, permit_facts(s, permit.id)


@requires(Role.CLERK, Role.SUPERVISOR)
def renew_registration(ctx: AppContext, permit_id: int, *, on: date | None = None,
                       expected_version: int | None = None) -> date:
    """Yearly renewal of the registration certificate (Art. 4º, § 1º); returns its new last day.

    The new certificate runs one year from the renewal date, never beyond the permit's term.
    """
    on = _today(on)
    settings = law_settings(ctx)
    with ctx.write() as s:
        permit, _holder, facts = _permit_with_facts(s, permit_id, expected_version)
        tctx = acts.renewal_context(facts, on, settings)
        accepted = _check(ctx, "renew_registration", permit.state, tctx, "O registro não pode ser renovado:")
        term = check_registration_renewal_term(on, permit.term_end, permit.service_type)
        if term:
            raise RuleViolationError(term)
        fees.require_payment(s, settings, FeeAct.RENEWAL, permit.id)  # Art. 6º, § 6º
        with judged(s, accepted, Permit.certificate_valid_until):
            until = renewed_certificate_valid_until(on, permit.term_end)
            _record(s, ctx, "renew_registration", permit.state, permit.state, permit_id=permit.id,
                    reason=f"Certificado válido até {format_date(until)}")
            permit.certificate_valid_until = until
        return until


@requires(Role.SUPERVISOR)
def extend(ctx: AppContext, permit_id: int, *, on: date | None = None, decree_number: str | None = None,
           decree_date: date | None = None, reason: str | None = None,
           expected_version: int | None = None) -> date:
    """The one extension of 5 years (Art. 6º); returns the new end of the term."""
    on = _today(on)
    settings = law_settings(ctx)
    reason_ = _clean_reason(reason)
    with ctx.write() as s:
        permit, person, facts = _permit_with_facts(s, permit_id, expected_version)
        tctx = TransitionContext(
            on=on,
            service=permit.service_type,
            term_start=permit.issued_on,
            term_end=permit.term_end,
            extensions_used=1 if permit.extended else 0,
            eligibility=acts.holder_verdicts(facts.holder, permit.service_type, on, settings),
            vehicle=acts.vehicle_verdicts(facts.vehicle, permit.service_type, on, settings, person.cpf,
                                          inspection="valid"),
            deputy_requirements=acts.deputy_verdicts(facts.deputy, permit.service_type, on, settings),
            conviction=facts.holder.conviction,
        )
        accepted = _check(ctx, "extend", permit.state, tctx, "A prorrogação não é possível:")
        fees.require_payment(s, settings, FeeAct.EXTENSION, permit.id)  # Art. 6º, § 6º
        decree = _decree(s, decree_number, decree_date, on) if decree_number else None
        new_end = permit_term_end(permit.issued_on, True)
        _record(s, ctx, "extend", permit.state, permit.state, permit_id=permit.id,
                reason=reason_ or f"Prazo prorrogado até {format_date(new_end)}",
                decree_id=decree.id if decree else None)
        with judged(s, accepted, Permit.extended, Permit.term_end):
            permit.extended = True
            permit.term_end = new_end
        return new_end


# --- penalties: session steps of the enforcement process (Art. 29, § 3º; Art. 34, III–IV; Art. 35) -----
#
# No public service suspends, reinstates or revokes a permit: a penalty comes only from a decided notice
# of infraction (motodesk.services.enforcement) or a recorded final criminal judgment (Art. 35), which
# call these steps inside their own transaction. No role check and no commit here; the state machine
# judges every step, with the process as its legal basis.


def _record_step(s: Session, user: CurrentUser, name: str, permit: Permit, to_state: PermitState,
                 reason: str | None) -> None:
    s.add(PermitEvent(permit_id=permit.id, transition=name, from_state=permit.state.value, to_state=to_state.value,
                      at=datetime.now(UTC), by_user=user.login, reason=reason))


def apply_suspend(s: Session, user: CurrentUser, permit: Permit, until: date, *, notice: InfractionNotice,
                  reason: str, on: date) -> None:
    """Suspend until ``until`` for the decided ``notice`` (Art. 34, III), a row of the register that the
    rules check (its decision, its stage, its permit); the quota place is kept."""
    tctx = TransitionContext(on=on, service=permit.service_type, reason=reason, permit_id=permit.id,
                             penalty_notice=notice_evidence(s, notice), suspension_end=until)
    accepted = _check_as(user, "suspend", permit.state, tctx, f"A suspensão de {permit.number} não é possível:")
    _record_step(s, user, "suspend", permit, PermitState.SUSPENDED, f"{reason} (até {format_date(until)})")
    with judged(s, accepted, Permit.state, Permit.suspended_until):
        permit.state = PermitState.SUSPENDED
        permit.suspended_until = until


def apply_reinstate(s: Session, user: CurrentUser, permit: Permit, *, reason: str, on: date,
                    notice: InfractionNotice | None = None) -> None:
    """End a suspension: its days are over (the calendar), or the appeal decision of ``notice`` ends it early."""
    tctx = TransitionContext(on=on, service=permit.service_type, reason=reason, permit_id=permit.id,
                             penalty_notice=notice_evidence(s, notice), suspension_end=permit.suspended_until,
                             conviction=conviction_of_person(s, permit.person_id))
    accepted = _check_as(user, "reinstate", permit.state, tctx,
                           f"A suspensão de {permit.number} não pode ser encerrada:")
    _record_step(s, user, "reinstate", permit, PermitState.ACTIVE, reason)
    with judged(s, accepted, Permit.state, Permit.suspended_until):
        permit.state = PermitState.ACTIVE
        permit.suspended_until = None


def apply_revoke(s: Session, user: CurrentUser, permit: Permit, *, reason: str, on: date,
                 notice: InfractionNotice | None = None, conviction: CriminalJudgment | None = None) -> None:
    """Cassação for the decided ``notice`` (Art. 34, IV) or the recorded final ``conviction`` (Art. 35)."""
    tctx = TransitionContext(on=on, service=permit.service_type, reason=reason, permit_id=permit.id,
                             penalty_notice=notice_evidence(s, notice),
                             conviction=conviction_evidence(s, conviction))
    accepted = _check_as(user, "revoke", permit.state, tctx, f"A cassação de {permit.number} não é possível:")
    _record_step(s, user, "revoke", permit, PermitState.REVOKED, reason)
    _leave_force(s, accepted, permit, PermitState.REVOKED, on, reason)


@requires(Role.CLERK, Role.SUPERVISOR)
def cancel(ctx: AppContext, permit_id: int, reason: str | None, *, express_request: bool,
           on: date | None = None, expected_version: int | None = None) -> None:
    """Cancellation at the holder's express request: baixa in the register (Art. 6º, § 7º)."""
    on = _today(on)
    reason_ = _clean_reason(reason) or "Pedido expresso do titular (Art. 6º, § 7º)"
    with ctx.write() as s:
        permit = _permit(s, permit_id, expected_version)
        tctx = TransitionContext(on=on, service=permit.service_type, express_request=express_request,
                                 reason=reason_)
        accepted = _check(ctx, "cancel", permit.state, tctx, "O cancelamento não é possível:")
        _record(s, ctx, "cancel", permit.state, PermitState.CANCELLED, permit_id=permit.id, reason=reason_)
        _leave_force(s, accepted, permit, PermitState.CANCELLED, on, reason_)


@requires(Role.CLERK, Role.SUPERVISOR, Role.ADMIN)
def expire(ctx: AppContext, permit_id: int, *, on: date | None = None,
           expected_version: int | None = None) -> None:
    """Record the end of the term (Art. 6º): only after its last day."""
    on = _today(on)
    with ctx.write() as s:
        permit = _permit(s, permit_id, expected_version)
        tctx = TransitionContext(on=on, service=permit.service_type, term_end=permit.term_end)
        accepted = _check(ctx, "expire", permit.state, tctx, "O fim do prazo não pode ser registrado:")
        reason = f"Prazo encerrado em {format_date(permit.term_end)}"
        _record(s, ctx, "expire", permit.state, PermitState.EXPIRED, permit_id=permit.id, reason=reason)
        _leave_force(s, accepted, permit, PermitState.EXPIRED, on, reason)


@requires(Role.CLERK, Role.SUPERVISOR, Role.ADMIN)
def expire_due(ctx: AppContext, *, on: date | None = None) -> list[str]:
    """Expire every permit in force whose term has ended; returns their numbers."""
    on = _today(on)
    with ctx.read() as s:
        due = list(s.execute(
            select(Permit.id, Permit.number).where(Permit.state.in_((PermitState.ACTIVE, PermitState.SUSPENDED)),
                                                   Permit.term_end < on).order_by(Permit.id)
        ).all())
    for permit_id, _number in due:
        expire(ctx, permit_id, on=on)
    return [number for _id, number in due]


CALENDAR_USER = CurrentUser(id=None, login="sistema", full_name="MotoDesk (calendário)", role=Role.SUPERVISOR)


@dataclass(frozen=True)
class CalendarRun:
    reinstated: list[str]
    expired: list[str]


def run_calendar(ctx: AppContext, *, on: date | None = None) -> CalendarRun:
    """What the calendar does by itself, once a day (at start-up and by `motodesk daily`):

    a suspension whose end date has passed is lifted (Art. 34, III: suspension for its days) — a
    permit's, and a deputy's link (Art. 34, III: "do condutor auxiliar") — and a permit whose term has
    ended is recorded as expired (Art. 6º). Each step goes through the state machine and is recorded as
    done by "sistema", one transaction per permit.
    """
    on = _today(on)
    system = ctx.as_user(CALENDAR_USER)
    with ctx.read() as s:
        ended = list(s.execute(
            select(Permit.id, Permit.number).where(Permit.state == PermitState.SUSPENDED,
                                                   Permit.suspended_until.is_not(None),
                                                   Permit.suspended_until <= on).order_by(Permit.id)).all())
    reinstated = []
    for permit_id, number in ended:
        with system.write() as s:
            permit = _permit(s, permit_id, None)
            if permit.state is PermitState.SUSPENDED and permit.suspended_until and permit.suspended_until <= on:
                apply_reinstate(s, CALENDAR_USER, permit, reason="Fim do prazo da suspensão", on=on)
                reinstated.append(number)
    reinstated += lift_ended_deputy_suspensions(system, on)
    return CalendarRun(reinstated, expire_due(system, on=on))
