"""The appeal period runs from the decision's notification (Art. 29, §§ 2º–3º; Art. 34, §ún.), on SQLite and
PostgreSQL: recorded like the notice's own notification, and no process closes before it ends."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from enforcement_factory import add_holder, an_hour_ago  # type: ignore[import-not-found]
from tests_helpers import raises_rule  # type: ignore[import-not-found]

from motodesk.models import InfractionNotice, Permit
from motodesk.rules.common import PermitState
from motodesk.rules.deadlines import DeadlineKind, appeal_due
from motodesk.rules.infractions import Penalty
from motodesk.services import enforcement
from motodesk.services.context import AppContext
from motodesk.services.enforcement import (
    DecisionInput,
    FiledDocument,
    NoticeInput,
    NoticeStatus,
    NotificationInput,
    NotificationMethod,
    OffenderKind,
    Outcome,
    PermitEffect,
)
from motodesk.services.errors import InvalidInputError, PermissionDeniedError
from motodesk.services.settings import law_settings

ARMA = "30.4.II"  # Art. 30, Grupo 4, II: arma no veículo (gravíssima: cassação once the decision is final)


def _decided(ctx: AppContext, inspector: AppContext, supervisor: AppContext) -> tuple[int, int, date]:
    """A holder's notice decided with a cassação (pending until final); returns notice id, permit id, day."""
    holder = add_holder(ctx)
    created = enforcement.create_notice(inspector, NoticeInput(
        infraction_code=ARMA, occurred_at=an_hour_ago(), place="Praça Honorato Borges, Centro",
        offender_kind=OffenderKind.HOLDER, person_id=holder.person_id, description="Revólver sob o banco."))
    day = created.defence_due + timedelta(days=1)
    result = enforcement.decide(supervisor, created.id, DecisionInput(
        Outcome.UPHELD, "Revólver encontrado sob o banco.", Penalty.REVOCATION), today=day)
    assert result.permit_effect is PermitEffect.PENDING_REVOCATION
    assert result.appeal_due is None  # no period runs before the decision reaches the offender
    return created.id, holder.permit_id, day


def _state(ctx: AppContext, permit_id: int) -> PermitState:
    with ctx.read() as s:
        permit = s.get(Permit, permit_id)
        assert permit is not None
        return permit.state


def test_the_appeal_period_counts_from_the_decisions_notification(ctx: AppContext, inspector: AppContext,
                                                                  clerk: AppContext,
                                                                  supervisor: AppContext) -> None:
    notice_id, permit_id, day = _decided(ctx, inspector, supervisor)
    settings = law_settings(ctx)
    before = enforcement.get_notice(clerk, notice_id)
    assert before.awaiting_decision_notification and "notificação da decisão" in before.next_step(day)
    reached = day + timedelta(days=20)  # the AR came back three weeks after the decision
    notified = enforcement.record_decision_notification(clerk, notice_id, NotificationInput(
        NotificationMethod.POST_AR, reached, reference="AR BR123456789"), today=reached)
    due = appeal_due(reached, settings).due
    assert notified.appeal_due == due and due > appeal_due(day, settings).due
    view = enforcement.get_notice(clerk, notice_id)
    assert view.appeal_due == due and not view.awaiting_decision_notification
    assert (view.decision_notified_on, view.decision_notification_method) == (reached, NotificationMethod.POST_AR)
    assert view.next_step(reached) == f"Prazo de recurso até {due:%d/%m/%Y}."
    with ctx.read() as s:
        row = s.get(InfractionNotice, notice_id)
        assert row is not None
        assert (row.decision_notified_on, row.decision_notification_method, row.decision_notification_reference,
                row.decision_notification_recorded_by) == (reached, "post_ar", "AR BR123456789", clerk.user.login)
    listed = [d for d in enforcement.open_process_deadlines(clerk, today=reached) if d.notice_id == notice_id]
    assert [(d.deadline.kind, d.deadline.due) for d in listed] == [(DeadlineKind.APPEAL_PERIOD, due)]
    # The day the period would have ended counted from the decision: still open, nothing applied.
    too_soon = appeal_due(day, settings).due + timedelta(days=1)
    with raises_rule("enforcement_appeal_period"):
        enforcement.close_process(supervisor, notice_id, today=too_soon)
    with raises_rule("enforcement_appeal_period"):
        enforcement.close_process(supervisor, notice_id, today=due)
    assert _state(ctx, permit_id) is PermitState.ACTIVE
    assert enforcement.get_notice(clerk, notice_id).status is NoticeStatus.DECIDED
    closed = enforcement.close_process(supervisor, notice_id, today=due + timedelta(days=1))
    assert closed.permit_effect is PermitEffect.REVOKED
    assert _state(ctx, permit_id) is PermitState.REVOKED


def test_an_appeal_is_late_only_after_the_period_counted_from_the_notification(
        ctx: AppContext, inspector: AppContext, clerk: AppContext, supervisor: AppContext) -> None:
    notice_id, _permit_id, day = _decided(ctx, inspector, supervisor)
    settings = law_settings(ctx)
    reached = day + timedelta(days=40)
    enforcement.record_decision_notification(clerk, notice_id, NotificationInput(
        NotificationMethod.EDITAL, reached, reference="Diário Oficial, p. 12"), today=reached)
    due = appeal_due(reached, settings).due
    with raises_rule("appeal_late"):
        enforcement.record_appeal(clerk, notice_id, FiledDocument(
            text="Recorro.", received_on=due + timedelta(days=1)), today=due + timedelta(days=1))
    # Past the period counted from the decision, but within the one counted from the edital: on time.
    on_time = appeal_due(day, settings).due + timedelta(days=5)
    assert on_time <= due
    enforcement.record_appeal(clerk, notice_id, FiledDocument(text="Recorro.", received_on=on_time), today=due)
    assert enforcement.get_notice(clerk, notice_id).status is NoticeStatus.APPEALED


def test_without_the_decisions_notification_the_process_does_not_close(ctx: AppContext, inspector: AppContext,
                                                                      supervisor: AppContext) -> None:
    notice_id, permit_id, day = _decided(ctx, inspector, supervisor)
    for later in (day, day + timedelta(days=60), day + timedelta(days=400)):
        with raises_rule("enforcement_decision_not_notified") as caught:
            enforcement.close_process(supervisor, notice_id, today=later)
        assert [v.rule_id for v in caught.value.verdicts] == ["enforcement_decision_not_notified"]
    assert _state(ctx, permit_id) is PermitState.ACTIVE
    assert enforcement.get_notice(supervisor, notice_id).status is NoticeStatus.DECIDED
    assert not [d for d in enforcement.open_process_deadlines(supervisor, today=day) if d.notice_id == notice_id]


def test_recording_the_decisions_notification_is_judged(ctx: AppContext, inspector: AppContext, clerk: AppContext,
                                                        supervisor: AppContext) -> None:
    holder = add_holder(ctx)
    open_one = enforcement.create_notice(inspector, NoticeInput(
        infraction_code=ARMA, occurred_at=an_hour_ago(), place="Centro", offender_kind=OffenderKind.HOLDER,
        person_id=holder.person_id, description="Revólver sob o banco."))
    today = open_one.defence_due
    with raises_rule("enforcement_decision_notification_state"):
        enforcement.record_decision_notification(clerk, open_one.id, NotificationInput(
            NotificationMethod.IN_PERSON, today), today=today)
    notice_id, _permit_id, day = _decided(ctx, inspector, supervisor)
    with pytest.raises(PermissionDeniedError):
        enforcement.record_decision_notification(inspector, notice_id, NotificationInput(
            NotificationMethod.IN_PERSON, day), today=day)
    with pytest.raises(InvalidInputError) as wrong:
        enforcement.record_decision_notification(clerk, notice_id, NotificationInput(
            NotificationMethod.ON_THE_SPOT, day + timedelta(days=1)), today=day)
    assert set(wrong.value.fields) == {"method", "notified_on"}
    assert "futuro" in wrong.value.fields["notified_on"]
    first = enforcement.record_decision_notification(clerk, notice_id, NotificationInput(
        NotificationMethod.IN_PERSON, day), today=day)
    with raises_rule("enforcement_decision_already_notified"):
        enforcement.record_decision_notification(clerk, notice_id, NotificationInput(
            NotificationMethod.IN_PERSON, day + timedelta(days=3)), today=day + timedelta(days=3))
    assert enforcement.get_notice(clerk, notice_id).appeal_due == first.appeal_due
