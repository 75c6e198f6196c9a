"""Penalties only through the process (issue 16): notification, deputies, Art. 35, the Decree's choices.

On SQLite and PostgreSQL.
"""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from enforcement_factory import add_deputy, add_holder, an_hour_ago  # type: ignore[import-not-found]
from sqlalchemy import select
from tests_helpers import check_wording, raises_code, raises_rule  # type: ignore[import-not-found]

from motodesk.models import BadgePrint, CriminalJudgment, DeputyLink, Permit, PermitEvent
from motodesk.printing.token import BadgeClaim, cpf_digest, sign_claim
from motodesk.rules.common import PermitState
from motodesk.rules.enforcement import defence_period_end
from motodesk.rules.infractions import Penalty
from motodesk.services import badges, enforcement, permits
from motodesk.services.context import AppContext
from motodesk.services.enforcement import (
    ConvictionInput,
    DecisionInput,
    FiledDocument,
    NoticeInput,
    NoticeStatus,
    NotificationInput,
    NotificationMethod,
    OffenderKind,
    Outcome,
    PermitEffect,
    Signature,
    Target,
)
from motodesk.services.errors import InvalidInputError, PermissionDeniedError
from motodesk.services.settings import law_settings, update_settings

DESACATO = "30.3.I"  # grave: fine or suspension
ARMA = "30.4.II"  # gravíssima: up to cassação
TROCO = "30.2.VI"


def _notice(inspector: AppContext, person_id: int, code: str = DESACATO, *, kind: OffenderKind = OffenderKind.HOLDER,
            signature: Signature = Signature.SIGNED) -> enforcement.NoticeCreated:
    return enforcement.create_notice(inspector, NoticeInput(
        infraction_code=code, occurred_at=an_hour_ago(), place="Av. Faria Pereira, Centro", offender_kind=kind,
        person_id=person_id, description="Constatado pelo fiscal.", signature=signature))


def _badge(ctx: AppContext, permit_number: str, cpf: str, kind: str) -> str:
    """The QR text of the badge the print log records (issue 1, valid as long as the register says)."""
    private, _public = badges._key_pair(ctx)
    with ctx.read() as s:
        permit = s.scalars(select(Permit).where(Permit.number == permit_number)).one()
        valid_until = badges.badge_valid_until(permit)
    return sign_claim(BadgeClaim(permit_number, cpf_digest(cpf), valid_until, 1, kind), private)


# --- defence counts from notification (Art. 29, §§ 2º–3º) --------------------------------------------


@pytest.mark.parametrize("signature", [Signature.ABSENT, Signature.REFUSED])
def test_the_defence_of_an_absent_or_refusing_offender_runs_from_the_later_notification(
        ctx: AppContext, inspector: AppContext, clerk: AppContext, supervisor: AppContext,
        signature: Signature) -> None:
    holder = add_holder(ctx)
    created = _notice(inspector, holder.person_id, signature=signature)
    assert created.notified_on is None and created.defence_due is None
    view = enforcement.get_notice(clerk, created.id)
    assert view.awaiting_notification and "Aguardando a notificação" in view.next_step(date.today())
    much_later = date.today() + timedelta(days=120)
    with raises_rule("enforcement_not_notified"):
        enforcement.decide(supervisor, created.id, DecisionInput(Outcome.DISMISSED, "x"), today=much_later)

    notified = date.today()
    with pytest.raises(InvalidInputError) as refused:
        enforcement.record_notification(clerk, created.id, NotificationInput(None, notified + timedelta(days=1)))
    assert set(refused.value.fields) == {"method", "notified_on"}
    assert "Art. 29, § 2º" in refused.value.fields["notified_on"]
    recorded = enforcement.record_notification(clerk, created.id, NotificationInput(
        NotificationMethod.POST_AR, notified, "AR nº JT123456789BR"))
    due = defence_period_end(notified, law_settings(ctx))
    assert recorded.notified_on == notified and recorded.defence_due == due
    view = enforcement.get_notice(clerk, created.id)
    assert view.notification_method is NotificationMethod.POST_AR and view.defence_due == due
    assert view.notification_reference == "AR nº JT123456789BR"
    with raises_rule("enforcement_already_notified"):
        enforcement.record_notification(clerk, created.id, NotificationInput(NotificationMethod.EDITAL, notified))
    with raises_rule("enforcement_defence_period"):
        enforcement.decide(supervisor, created.id, DecisionInput(Outcome.DISMISSED, "x"), today=due)
    result = enforcement.decide(supervisor, created.id, DecisionInput(Outcome.DISMISSED, "Sem provas."),
                                today=due + timedelta(days=1))
    assert result.status is NoticeStatus.CLOSED


def test_a_signed_notice_notifies_on_the_spot_and_needs_no_later_notification(
        ctx: AppContext, inspector: AppContext, clerk: AppContext) -> None:
    holder = add_holder(ctx)
    created = _notice(inspector, holder.person_id)
    assert created.notified_on is not None and created.defence_due == defence_period_end(
        created.notified_on, law_settings(ctx))
    assert enforcement.get_notice(clerk, created.id).notification_method is NotificationMethod.ON_THE_SPOT
    with raises_rule("enforcement_already_notified"):
        enforcement.record_notification(clerk, created.id, NotificationInput(NotificationMethod.IN_PERSON,
                                                                             date.today()))


def test_an_inspector_does_not_record_the_notification(ctx: AppContext, inspector: AppContext) -> None:
    holder = add_holder(ctx)
    created = _notice(inspector, holder.person_id, signature=Signature.ABSENT)
    with pytest.raises(PermissionDeniedError):
        enforcement.record_notification(inspector, created.id, NotificationInput(NotificationMethod.IN_PERSON,
                                                                                 date.today()))


# --- deputies (Art. 34, III–IV: "do condutor auxiliar") ------------------------------------------------


def test_a_deputy_suspension_suspends_the_link_not_the_permit_and_the_calendar_lifts_it(
        ctx: AppContext, inspector: AppContext, clerk: AppContext, supervisor: AppContext) -> None:
    holder = add_holder(ctx)
    deputy_id, deputy_cpf = add_deputy(ctx, holder)
    with ctx.write() as s:
        link = s.scalar(select(DeputyLink).where(DeputyLink.permit_id == holder.permit_id))
        link.badge_issue_no = 1
        # its print log, as add_holder writes the holder's (verification compares the claim with it)
        s.add(BadgePrint(permit_id=holder.permit_id, deputy_link_id=link.id, issue_no=1, printed_by="fabrica",
                         reason="Primeira via", layout="card"))
    deputy_badge = _badge(ctx, holder.permit_number, deputy_cpf, "preposto")
    holder_badge = _badge(ctx, holder.permit_number, holder.cpf, "titular")
    assert badges.verify_badge(clerk, deputy_badge).valid

    created = _notice(inspector, deputy_id, kind=OffenderKind.DEPUTY)
    options = enforcement.decision_options(supervisor, created.id)
    assert options.permit_affected and options.target is Target.DEPUTY
    day = created.defence_due + timedelta(days=1)
    result = enforcement.decide(supervisor, created.id, DecisionInput(
        Outcome.UPHELD, "Desacato.", Penalty.SUSPENSION, suspension_days=10), today=day)
    assert result.permit_effect is PermitEffect.SUSPENDED and result.target is Target.DEPUTY
    with ctx.read() as s:
        link = s.scalar(select(DeputyLink).where(DeputyLink.permit_id == holder.permit_id))
        assert link.suspended_until == day + timedelta(days=10) and link.end_on is None
        assert s.get(Permit, holder.permit_id).state is PermitState.ACTIVE  # the holder is not punished
        event = s.scalars(select(PermitEvent).where(PermitEvent.permit_id == holder.permit_id)).one()
        assert event.transition == "deputy_suspend" and created.number in event.reason
    suspended = badges.verify_badge(clerk, deputy_badge, today=day)
    assert suspended.status is badges.BadgeStatus.DEPUTY_SUSPENDED and suspended.status.label == "PREPOSTO SUSPENSO"
    check_wording(suspended.status.value, suspended.message)
    assert badges.verify_badge(clerk, holder_badge, today=day).valid
    view = enforcement.get_notice(clerk, created.id)
    assert view.final_decision.effect_label == "Preposto suspenso"

    assert permits.run_calendar(ctx, on=day + timedelta(days=9)).reinstated == []
    lifted = permits.run_calendar(ctx, on=day + timedelta(days=10))
    assert lifted.reinstated == [f"{holder.permit_number} (preposto)"]
    assert badges.verify_badge(clerk, deputy_badge, today=day + timedelta(days=10)).valid


def test_a_deputy_cassacao_ends_the_link_when_final_and_his_badge_verifies_as_revoked(
        ctx: AppContext, inspector: AppContext, clerk: AppContext, supervisor: AppContext) -> None:
    holder = add_holder(ctx)
    deputy_id, deputy_cpf = add_deputy(ctx, holder)
    with ctx.write() as s:
        link = s.scalar(select(DeputyLink).where(DeputyLink.permit_id == holder.permit_id))
        link.badge_issue_no = 1
        # its print log, as add_holder writes the holder's (verification compares the claim with it)
        s.add(BadgePrint(permit_id=holder.permit_id, deputy_link_id=link.id, issue_no=1, printed_by="fabrica",
                         reason="Primeira via", layout="card"))
    deputy_badge = _badge(ctx, holder.permit_number, deputy_cpf, "preposto")
    created = _notice(inspector, deputy_id, ARMA, kind=OffenderKind.DEPUTY)
    day = created.defence_due + timedelta(days=1)
    result = enforcement.decide(supervisor, created.id, DecisionInput(
        Outcome.UPHELD, "Revólver sob o banco.", Penalty.REVOCATION), today=day)
    assert result.permit_effect is PermitEffect.PENDING_REVOCATION
    assert badges.verify_badge(clerk, deputy_badge, today=day).valid  # not final yet
    due = enforcement.record_decision_notification(
        clerk, created.id, enforcement.NotificationInput(enforcement.NotificationMethod.IN_PERSON, day), today=day).appeal_due
    closed = enforcement.close_process(supervisor, created.id, today=due + timedelta(days=1))
    assert closed.permit_effect is PermitEffect.REVOKED
    with ctx.read() as s:
        link = s.scalar(select(DeputyLink).where(DeputyLink.permit_id == holder.permit_id))
        assert link.revoked and link.end_on == due + timedelta(days=1)
        assert created.number in link.end_reason
        assert s.get(Permit, holder.permit_id).state is PermitState.ACTIVE
    verdict = badges.verify_badge(clerk, deputy_badge, today=due + timedelta(days=1))
    assert verdict.status is badges.BadgeStatus.DEPUTY_REVOKED and verdict.status.label == "PREPOSTO CASSADO"
    check_wording(verdict.status.value, verdict.message)


# --- the Decree's choice: when a penalty takes effect (Art. 34, parágrafo único) ----------------------


def test_a_suspension_can_wait_for_the_final_decision_when_the_decree_says_so(
        ctx: AppContext, inspector: AppContext, clerk: AppContext, supervisor: AppContext) -> None:
    update_settings(ctx, {"suspension_effective_on_first_decision": False})
    holder = add_holder(ctx)
    created = _notice(inspector, holder.person_id)
    day = created.defence_due + timedelta(days=1)
    result = enforcement.decide(supervisor, created.id, DecisionInput(
        Outcome.UPHELD, "Desacato.", Penalty.SUSPENSION, suspension_days=15), today=day)
    assert result.permit_effect is PermitEffect.PENDING_SUSPENSION
    with ctx.read() as s:
        assert s.get(Permit, holder.permit_id).state is PermitState.ACTIVE
    enforcement.record_appeal(clerk, created.id, FiledDocument(waived=True, received_on=day), today=day)
    closing = day + timedelta(days=2)
    assert enforcement.close_process(supervisor, created.id, today=closing).permit_effect is PermitEffect.SUSPENDED
    with ctx.read() as s:
        permit = s.get(Permit, holder.permit_id)
        assert permit.state is PermitState.SUSPENDED and permit.suspended_until == closing + timedelta(days=15)
    final = enforcement.get_notice(clerk, created.id).final_decision
    assert (final.suspension_start, final.suspension_end) == (closing, closing + timedelta(days=15))


def test_a_revocation_can_take_effect_at_first_instance_when_the_decree_says_so(
        ctx: AppContext, inspector: AppContext, supervisor: AppContext) -> None:
    update_settings(ctx, {"revocation_effective_on_first_decision": True})
    holder = add_holder(ctx)
    created = _notice(inspector, holder.person_id, ARMA)
    result = enforcement.decide(supervisor, created.id, DecisionInput(Outcome.UPHELD, "Arma.", Penalty.REVOCATION),
                                today=created.defence_due + timedelta(days=1))
    assert result.permit_effect is PermitEffect.REVOKED
    with ctx.read() as s:
        assert s.get(Permit, holder.permit_id).state is PermitState.REVOKED


# --- Art. 35: the final criminal judgment -------------------------------------------------------------


def test_a_final_criminal_conviction_revokes_the_permit_and_shows_in_its_history(
        ctx: AppContext, clerk: AppContext, supervisor: AppContext) -> None:
    holder = add_holder(ctx)
    final_on = date.today() - timedelta(days=3)
    with pytest.raises(InvalidInputError) as missing:
        enforcement.record_final_conviction(supervisor, holder.permit_id, ConvictionInput("", "", None))
    assert set(missing.value.fields) == {"court", "case_number", "final_on"}
    assert all("Art. 35" in m for m in missing.value.fields.values())
    with raises_code(InvalidInputError, "invalid_input", fields=("final_on",)):
        enforcement.record_final_conviction(supervisor, holder.permit_id, ConvictionInput(
            "1ª Vara Criminal de Patrocínio", "0001234-56.2024.8.13.0481", date.today() + timedelta(days=1)))
    with pytest.raises(PermissionDeniedError):
        enforcement.record_final_conviction(clerk, holder.permit_id, ConvictionInput(
            "1ª Vara Criminal de Patrocínio", "0001234-56.2024.8.13.0481", final_on))
    with ctx.read() as s:
        assert s.get(Permit, holder.permit_id).state is PermitState.ACTIVE

    recorded = enforcement.record_final_conviction(supervisor, holder.permit_id, ConvictionInput(
        "1ª Vara Criminal de Patrocínio", "00012345620248130481", final_on))
    assert recorded.case_number == "0001234-56.2024.8.13.0481"
    with ctx.read() as s:
        permit = s.get(Permit, holder.permit_id)
        assert permit.state is PermitState.REVOKED and "Art. 35" in permit.end_reason
        judgment = s.scalars(select(CriminalJudgment)).one()
        assert (judgment.court, judgment.final_on, judgment.recorded_by) == (
            "1ª Vara Criminal de Patrocínio", final_on, "supervisor")
    event = permits.history(clerk, "permit", holder.permit_id)[-1]
    assert event.transition == "revoke" and "0001234-56.2024.8.13.0481" in event.reason
    assert "1ª Vara Criminal de Patrocínio" in event.reason and final_on.strftime("%d/%m/%Y") in event.reason
    assert [c.case_number for c in enforcement.convictions_of_permit(clerk, holder.permit_id)] == [
        "0001234-56.2024.8.13.0481"]
    with raises_rule("enforcement_conviction_permit"):
        enforcement.record_final_conviction(supervisor, holder.permit_id, ConvictionInput(
            "1ª Vara Criminal de Patrocínio", "0001234-56.2024.8.13.0481", final_on))


def test_the_demo_seed_suspends_and_revokes_only_through_a_decided_notice(ctx: AppContext) -> None:
    from motodesk.models import Decision, InfractionNotice
    from motodesk.services.demo import seed_demo

    seed_demo(ctx, 400)
    with ctx.read() as s:
        punished = list(s.scalars(select(Permit).where(Permit.state.in_((PermitState.SUSPENDED,
                                                                         PermitState.REVOKED)))))
        assert punished
        for permit in punished:
            notice = s.scalar(select(InfractionNotice).where(InfractionNotice.permit_id == permit.id,
                                                             InfractionNotice.status != "open"))
            assert notice is not None, permit.number
            decision = s.scalar(select(Decision).where(Decision.notice_id == notice.id))
            wanted = "suspension" if permit.state is PermitState.SUSPENDED else "revocation"
            assert decision.penalty == wanted and decision.outcome == "upheld"
            event = s.scalar(select(PermitEvent).where(PermitEvent.permit_id == permit.id))
            assert notice.number in event.reason
            if permit.state is PermitState.SUSPENDED:
                assert decision.suspension_end == permit.suspended_until
