"""Deciding (first instance and appeal) and closing a process (Art. 33, 34)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from motodesk.models import (
    Decision,
    DeputyLink,
    InfractionNotice,
    Permit,
)
from motodesk.models.base import utcnow
from motodesk.rules import enforcement as law
from motodesk.rules.common import PermitState
from motodesk.rules.enforcement import (
    DecisionFacts,
    EarlierDecision,
    EffectPlan,
    NoticeStatus,
    OffenderKind,
    Outcome,
    PermitEffect,
    ProcessFacts,
    Stage,
    Step,
    Target,
    TargetFacts,
    check_close,
    check_decision,
    check_suspension_days,
    plan_close_effects,
    plan_decision_effects,
    target_of,
)
from motodesk.rules.infractions import (
    Infraction,
    Penalty,
    ReclassificationError,
    Severity,
    allowed_penalties_for,
    fine_for,
    infraction_by_code,
    reclassify,
)
from motodesk.rules.settings import LawSettings
from motodesk.rules.text import join_words
from motodesk.services import deputies, permits
from motodesk.services.clock import local_today
from motodesk.services.context import READERS, AppContext, CurrentUser, current_row, requires
from motodesk.services.enforcement._common import (
    DECIDERS,
    MAX_TEXT,
    DecisionInput,
    DecisionOptions,
    DecisionResult,
    _load_notice,
    _text,
    _touch,
    describe_penalty,
)
from motodesk.services.errors import (
    InvalidInputError,
    RuleViolationError,
)
from motodesk.services.settings import law_settings

# --- deciding --------------------------------------------------------------------------------------


def _severity_for(infraction: Infraction, data: DecisionInput) -> tuple[Severity, str | None]:
    """The catalogue's classification, or another one with its written reason (Art. 33, §ún.)."""
    if data.severity is None or data.severity is infraction.severity:
        return infraction.severity, None
    try:
        return (reclassify(infraction, data.severity, data.reclassification_reason),
                data.reclassification_reason.strip())
    except ReclassificationError as exc:
        raise RuleViolationError([law.reclassification_refused(exc)]) from None


def _options(infraction: Infraction, severity: Severity, settings: LawSettings,
             offender_kind: OffenderKind) -> DecisionOptions:
    fine = fine_for(infraction, settings, severity)
    return DecisionOptions(
        catalogue_severity=infraction.severity,
        severity=severity,
        reclassifiable=not infraction.penalty_fixed_by_law,
        penalty_fixed_by_law=infraction.penalty_fixed_by_law,
        allowed=law.penalties_for_offender(offender_kind, allowed_penalties_for(infraction, settings, severity)),
        fine_ufm=fine[0] if fine else None,
        fine_brl=fine[1] if fine else None,
        ufm_value_brl=settings.ufm_value_brl,
        vehicle_seizure=infraction.vehicle_seizure,
        permit_affected=target_of(offender_kind) is not Target.NONE,
        target=target_of(offender_kind),
        suspension_effective_now=settings.suspension_effective_on_first_decision,
        revocation_effective_now=settings.revocation_effective_on_first_decision,
    )


@requires(*READERS)
def decision_options(ctx: AppContext, notice_id: int, severity: Severity | None = None) -> DecisionOptions:
    """Penalties and fine for the notice's classification, or for ``severity`` if reclassified."""
    settings = law_settings(ctx)
    with ctx.read() as s:
        notice = _load_notice(s, notice_id)
        infraction = infraction_by_code(notice.infraction_code)
        kind = OffenderKind(notice.offender_kind)
    chosen = infraction.severity if (severity is None or infraction.penalty_fixed_by_law) else severity
    return _options(infraction, chosen, settings, kind)


def _check_penalty(infraction: Infraction, severity: Severity, penalty: Penalty | None,
                   allowed: list[Penalty]) -> Penalty:
    if penalty is None:
        raise InvalidInputError("Escolha a penalidade (Art. 34).", {"penalty": "Escolha a penalidade."})
    if penalty in allowed:
        return penalty
    names = join_words([p.label.lower() for p in allowed])
    if infraction.penalty_fixed_by_law:
        raise RuleViolationError([law.penalty_fixed_by_law(infraction.article, names, penalty.label)])
    raise RuleViolationError([law.penalty_not_admitted(penalty.article, penalty.label, severity.label,
                                                       severity.article, names)])


def _process_facts(notice: InfractionNotice) -> ProcessFacts:
    first = next((d for d in notice.decisions if d.stage == Stage.FIRST), None)
    return ProcessFacts(
        number=notice.number, status=NoticeStatus(notice.status), notified_on=notice.notified_on,
        defence_due=notice.defence_due, defence_on_file=any(d.stage == "defence" for d in notice.defences),
        appeal_due=notice.appeal_due if first else None,
        appeal_waived=any(d.stage == "appeal" and d.waived for d in notice.defences),
        decision_notified_on=notice.decision_notified_on if first else None,
    )


@dataclass
class _Reached:
    """The permit (holder) or the deputy's link (deputy) a penalty reaches, loaded in the transaction."""

    facts: TargetFacts
    permit: Permit | None = None
    link: DeputyLink | None = None


def _reached(s: Session, notice: InfractionNotice, today: date) -> _Reached:
    target = target_of(OffenderKind(notice.offender_kind))
    if target is Target.PERMIT and notice.permit_id is not None:
        permit = current_row(s, Permit, notice.permit_id, None, "A permissão do autuado não existe mais.")
        return _Reached(TargetFacts(target, permit.state.in_force, permit.state is PermitState.SUSPENDED,
                                    permit.suspended_until), permit=permit)
    if target is Target.DEPUTY and notice.permit_id is not None and notice.person_id is not None:
        link = s.scalar(select(DeputyLink).where(DeputyLink.permit_id == notice.permit_id,
                                                 DeputyLink.deputy_person_id == notice.person_id)
                        .order_by(DeputyLink.id.desc()))
        if link is not None:
            suspended = link.end_on is None and link.suspended_until is not None
            return _Reached(TargetFacts(target, link.end_on is None, suspended,
                                        link.suspended_until if suspended else None), link=link)
        return _Reached(TargetFacts(target, False))
    return _Reached(TargetFacts(Target.NONE, False))


def _apply_effects(s: Session, user: CurrentUser, notice: InfractionNotice, plan: EffectPlan, reached: _Reached,
                   today: date, reason: str) -> None:
    """Take the plan's steps through the permit's (or the link's) session steps, in this transaction."""
    for step, until in plan.steps:
        if reached.permit is not None:
            _take(step, until, (permits.apply_suspend, permits.apply_reinstate, permits.apply_revoke),
                  s, user, reached.permit, notice=notice, reason=reason, on=today)
        elif reached.link is not None:
            _take(step, until, (deputies.apply_deputy_suspend, deputies.apply_deputy_reinstate,
                                deputies.apply_deputy_revoke),
                  s, user, reached.link, notice=notice, reason=reason, on=today)
    s.flush()


#: A session step on a permit or a deputy's link (permits.apply_suspend, deputies.apply_deputy_revoke …).
_Act = Callable[..., None]


def _take(step: Step, until: date | None, steps: tuple[_Act, _Act, _Act], s: Session, user: CurrentUser,
          target: Any, **act: Any) -> None:
    """One step on the permit or the deputy's link, by its session steps ``(suspend, reinstate, revoke)``."""
    suspend, reinstate, revoke = steps
    if step is Step.SUSPEND:
        assert until is not None
        suspend(s, user, target, until, **act)
    elif step is Step.REINSTATE:
        reinstate(s, user, target, **act)
    else:
        revoke(s, user, target, **act)


def _effect_reason(notice: InfractionNotice, what: str, stage: str) -> str:
    return f"Auto de infração {notice.number} ({notice.article}): {stage} — {what}"


@requires(*DECIDERS)
def decide(ctx: AppContext, notice_id: int, data: DecisionInput, *, today: date | None = None,
           expected_version: int | None = None) -> DecisionResult:
    """A supervisor's decision: first instance on an open notice, or the appeal on an appealed one.

    The decision and every change it causes to the permit or the deputy's link commit together, in this
    one transaction: a refusal of the state machine, an error or a lost server leaves neither.
    """
    today = today or local_today()
    settings = law_settings(ctx)
    with ctx.write() as s:
        notice = _load_notice(s, notice_id, expected_version)
        verdicts = check_decision(_process_facts(notice), today)
        if verdicts:
            raise RuleViolationError(verdicts)
        infraction = infraction_by_code(notice.infraction_code)
        kind = OffenderKind(notice.offender_kind)
        stage = Stage.FIRST if notice.status == NoticeStatus.OPEN else Stage.APPEAL
        previous = notice.decisions[-1] if notice.decisions else None
        errors: dict[str, str] = {}
        grounds = _text(data.grounds, MAX_TEXT, "grounds", "a fundamentação da decisão", errors, required=True)
        if errors or grounds is None:
            raise InvalidInputError("A decisão deve ser fundamentada (Art. 29, § 3º; Lei nº 9.784/1999, art. 50).",
                                    errors)
        outcome = Outcome(data.outcome)
        severity: Severity | None = None
        reason_: str | None = None
        penalty: Penalty | None = None
        fine_ufm = fine_brl = ufm_value = None
        days: int | None = None
        if outcome is Outcome.UPHELD:
            severity, reason_ = _severity_for(infraction, data)
            options = _options(infraction, severity, settings, kind)
            if wrong := law.check_offender_penalty(kind, data.penalty):
                raise RuleViolationError(wrong)
            penalty = _check_penalty(infraction, severity, data.penalty, options.allowed)
            if penalty is Penalty.FINE:
                fine_ufm, fine_brl, ufm_value = options.fine_ufm, options.fine_brl, settings.ufm_value_brl
            if penalty is Penalty.SUSPENSION:
                wrong = check_suspension_days(data.suspension_days)
                if wrong:
                    raise InvalidInputError(wrong[0].message, {"suspension_days": "Informe os dias de suspensão."})
                days = data.suspension_days
        reached = _reached(s, notice, today)
        plan = plan_decision_effects(DecisionFacts(
            stage=stage, outcome=outcome, penalty=penalty, suspension_days=days, target=reached.facts,
            previous=(EarlierDecision(PermitEffect(previous.permit_effect) if previous.permit_effect else None,
                                      previous.suspension_start, previous.suspension_end)
                      if previous is not None else None),
            today=today), settings)
        # The appeal period runs from the decision's notification (Art. 29, § 3º; Art. 34, §ún.), recorded
        # later (enforcement.record_decision_notification): no deadline yet.
        appeal_until = None
        closes = outcome is Outcome.DISMISSED or stage is Stage.APPEAL
        new_status = NoticeStatus.CLOSED if closes else NoticeStatus.DECIDED
        decision = Decision(
            notice_id=notice.id, stage=stage.value, outcome=outcome.value, decided_at=utcnow(),
            decided_by=ctx.user.login, severity=severity.value if severity else None,
            reclassification_reason=reason_, penalty=penalty.value if penalty else None, fine_ufm=fine_ufm,
            ufm_value_brl=ufm_value, fine_brl=fine_brl, suspension_days=days,
            suspension_start=plan.suspension_start, suspension_end=plan.suspension_end,
            grounds=grounds, appeal_due=appeal_until, permit_effect=plan.effect.value if plan.effect else None,
        )
        s.add(decision)
        notice.status = new_status.value
        if closes:
            notice.closed_at = utcnow()
            notice.closed_by = ctx.user.login
        _touch(notice)
        s.flush()
        what = describe_penalty(outcome, penalty, fine_ufm, fine_brl, days, plan.suspension_end)
        _apply_effects(s, ctx.user, notice, plan, reached, today,
                       _effect_reason(notice, what, "decisão em recurso" if stage is Stage.APPEAL else "decisão"))
        return DecisionResult(decision.id, stage, outcome, severity, penalty, fine_ufm, fine_brl, ufm_value,
                              plan.suspension_start, plan.suspension_end, appeal_until, plan.effect, new_status,
                              plan.target)


@dataclass(frozen=True)
class ProcessClosed:
    notice_id: int
    permit_effect: PermitEffect | None


@requires(*DECIDERS)
def close_process(ctx: AppContext, notice_id: int, *, today: date | None = None,
                  expected_version: int | None = None) -> ProcessClosed:
    """Close a decided process once the appeal period, counted from the decision's notification, is over
    (or the appeal was waived); never while the offender has not been notified of the decision.

    The first decision becomes final: a penalty that waited for it (a cassação, by default) takes effect
    now, in this same transaction.
    """
    today = today or local_today()
    with ctx.write() as s:
        notice = _load_notice(s, notice_id, expected_version)
        verdicts = check_close(_process_facts(notice), today)
        if verdicts:
            raise RuleViolationError(verdicts)
        decision = notice.decisions[-1]
        reached = _reached(s, notice, today)
        effect = PermitEffect(decision.permit_effect) if decision.permit_effect else None
        plan = plan_close_effects(effect, decision.suspension_days, reached.facts, today)
        notice.status = NoticeStatus.CLOSED.value
        notice.closed_at = utcnow()
        notice.closed_by = ctx.user.login
        _touch(notice)
        changed = plan.effect is not effect
        if changed:
            decision.permit_effect = plan.effect.value if plan.effect else None
            if plan.suspension_end is not None:
                decision.suspension_start, decision.suspension_end = plan.suspension_start, plan.suspension_end
        s.flush()
        penalty = Penalty(decision.penalty) if decision.penalty else None
        what = describe_penalty(Outcome(decision.outcome), penalty, decision.fine_ufm, decision.fine_brl,
                                decision.suspension_days, plan.suspension_end)
        _apply_effects(s, ctx.user, notice, plan, reached, today, _effect_reason(notice, what, "decisão definitiva"))
        return ProcessClosed(notice_id, plan.effect if changed else None)
