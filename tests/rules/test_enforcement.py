"""The law of the enforcement process as pure functions (rules/enforcement.py): no database, no screen."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta

from motodesk.rules.enforcement import (
    ConvictionFacts,
    DecisionFacts,
    EarlierDecision,
    NoticeStatus,
    OffenderKind,
    Outcome,
    PermitEffect,
    ProcessFacts,
    Signature,
    Stage,
    Step,
    Target,
    TargetFacts,
    check_decision,
    check_final_conviction,
    format_case_number,
    notified_when_written,
    plan_close_effects,
    plan_decision_effects,
    target_of,
)
from motodesk.rules.infractions import Penalty
from motodesk.rules.settings import LawSettings

DAY = date(2026, 3, 10)
PERMIT = TargetFacts(Target.PERMIT, in_force=True)


def facts(penalty: Penalty | None, *, stage: Stage = Stage.FIRST, target: TargetFacts = PERMIT,
          previous: EarlierDecision | None = None, days: int | None = 30) -> DecisionFacts:
    outcome = Outcome.UPHELD if penalty else Outcome.DISMISSED
    return DecisionFacts(stage, outcome, penalty, days, target, previous, DAY)


def test_only_a_signed_notice_notifies_on_the_spot() -> None:
    assert notified_when_written(Signature.SIGNED)
    assert not notified_when_written(Signature.REFUSED) and not notified_when_written(Signature.ABSENT)


def test_no_decision_before_the_notification_nor_within_the_defence_period() -> None:
    waiting = ProcessFacts("AI-0001/2026", NoticeStatus.OPEN, None, None, False)
    assert [v.rule_id for v in check_decision(waiting, DAY + timedelta(days=365))] == ["enforcement_not_notified"]
    notified = replace(waiting, notified_on=DAY, defence_due=DAY + timedelta(days=15))
    assert check_decision(notified, DAY + timedelta(days=15))[0].article == "Art. 29, § 3º"
    assert check_decision(notified, DAY + timedelta(days=16)) == []
    assert check_decision(replace(notified, defence_on_file=True), DAY) == []


def test_penalties_reach_the_holders_permit_or_the_deputys_link() -> None:
    assert target_of(OffenderKind.HOLDER) is Target.PERMIT and target_of(OffenderKind.DEPUTY) is Target.DEPUTY
    assert target_of(OffenderKind.UNREGISTERED) is Target.NONE
    settings = LawSettings()
    suspension = plan_decision_effects(facts(Penalty.SUSPENSION), settings)
    assert suspension.steps == ((Step.SUSPEND, DAY + timedelta(days=30)),)
    assert suspension.effect is PermitEffect.SUSPENDED
    deputy = plan_decision_effects(facts(Penalty.SUSPENSION, target=TargetFacts(Target.DEPUTY, True)), settings)
    assert deputy.target is Target.DEPUTY and deputy.steps == suspension.steps
    none = plan_decision_effects(facts(Penalty.SUSPENSION, target=TargetFacts(Target.NONE, False)), settings)
    assert none.steps == () and none.effect is PermitEffect.NOT_APPLICABLE


def test_cassacao_waits_for_the_final_decision_unless_the_decree_says_otherwise() -> None:
    pending = plan_decision_effects(facts(Penalty.REVOCATION), LawSettings())
    assert pending.steps == () and pending.effect is PermitEffect.PENDING_REVOCATION
    closing = plan_close_effects(pending.effect, None, PERMIT, DAY)
    assert closing.steps == ((Step.REVOKE, None),) and closing.effect is PermitEffect.REVOKED
    now = plan_decision_effects(facts(Penalty.REVOCATION), LawSettings(revocation_effective_on_first_decision=True))
    assert now.steps == ((Step.REVOKE, None),)
    waits = plan_decision_effects(facts(Penalty.SUSPENSION),
                                  LawSettings(suspension_effective_on_first_decision=False))
    assert waits.effect is PermitEffect.PENDING_SUSPENSION
    later = plan_close_effects(waits.effect, 30, PERMIT, DAY + timedelta(days=31))
    assert later.steps == ((Step.SUSPEND, DAY + timedelta(days=61)),)


def test_an_appeal_granted_lifts_the_first_suspension_still_running() -> None:
    previous = EarlierDecision(PermitEffect.SUSPENDED, DAY - timedelta(days=5), DAY + timedelta(days=25))
    suspended = TargetFacts(Target.PERMIT, True, True, DAY + timedelta(days=25))
    granted = plan_decision_effects(facts(None, stage=Stage.APPEAL, target=suspended, previous=previous),
                                    LawSettings())
    assert granted.steps == ((Step.REINSTATE, None),) and granted.effect is PermitEffect.REINSTATED
    reduced = plan_decision_effects(facts(Penalty.SUSPENSION, stage=Stage.APPEAL, target=suspended,
                                          previous=previous, days=10), LawSettings())
    assert reduced.steps == ((Step.REINSTATE, None), (Step.SUSPEND, DAY + timedelta(days=5)))


def test_art_35_needs_court_case_and_finality() -> None:
    ok = ConvictionFacts("1ª Vara Criminal", "0001234-56.2024.8.13.0481", DAY, DAY, True)
    assert check_final_conviction(ok) == []
    assert [v.rule_id for v in check_final_conviction(replace(ok, final_on=None))] == ["enforcement_conviction_final"]
    assert check_final_conviction(replace(ok, permit_in_force=False))[0].article == "Art. 35"
    assert format_case_number("00012345620248130481") == "0001234-56.2024.8.13.0481"
