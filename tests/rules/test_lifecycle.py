"""The permit state machine: roles, states and the conditions of each transition."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest
from tests_helpers import assert_refused  # type: ignore[import-not-found]

from motodesk.rules.common import PermitState, Role, ServiceType, Status, Verdict
from motodesk.rules.lifecycle import (
    TRANSITIONS,
    TransitionContext,
    available_transitions,
    check_registration_renewal_term,
    check_transition,
    is_allowed,
    permit_term_end,
    registration_certificate_valid_until,
    renewed_certificate_valid_until,
    transition,
)
from motodesk.rules.penalty_evidence import ConvictionEvidence, DecisionOnFile, NoticeEvidence

S, R = PermitState, Role
MET = Verdict("x", "Art. 5º, I", Status.MET, "Art. 5º, I: ok.")
#: the notice as the register holds it: decided with a suspension, against the holder of permit 7
DECIDED = NoticeEvidence("AI-0012/2026", True, "decided", 7, "holder", 1,
                         (DecisionOnFile("first", "upheld", "suspension"),))
ON = date(2026, 3, 10)


def ready(service: ServiceType = ServiceType.MOTOTAXI, **changes: object) -> TransitionContext:
    """A context in which every transition's conditions hold."""
    ctx = TransitionContext(
        on=ON,
        service=service,
        decree_number="4.321/2026",
        eligibility=[MET],
        vehicle=[MET],
        inspection_approved=True,
        quota_open_places=1,
        holder_permits_in_force=0,
        term_start=date(2026, 1, 5),
        term_end=date(2031, 1, 5),
        extensions_used=0,
        reason="decisão no processo 12/2026",
        penalty_notice=DECIDED,
        permit_id=7,
        suspension_end=date(2026, 4, 10),
        express_request=True,
    )
    return replace(ctx, **changes)  # type: ignore[arg-type]


def ids(verdicts: list[Verdict]) -> list[str]:
    return [v.rule_id for v in verdicts]


# --- Roles and states: every transition, every role -------------------------------------------------

EXPECTED_ROLES = {
    "start_review": {R.CLERK, R.SUPERVISOR},
    "approve": {R.SUPERVISOR},
    "refuse": {R.SUPERVISOR},
    "issue": {R.SUPERVISOR},
    "renew_registration": {R.CLERK, R.SUPERVISOR},
    "extend": {R.SUPERVISOR},
    "suspend": {R.SUPERVISOR},
    "reinstate": {R.SUPERVISOR},
    "revoke": {R.SUPERVISOR},
    "cancel": {R.CLERK, R.SUPERVISOR},
    "expire": {R.CLERK, R.SUPERVISOR, R.ADMIN},
}

FROM_STATE = {
    "start_review": S.REQUESTED,
    "approve": S.UNDER_REVIEW,
    "refuse": S.UNDER_REVIEW,
    "issue": S.APPROVED,
    "renew_registration": S.ACTIVE,
    "extend": S.ACTIVE,
    "suspend": S.ACTIVE,
    "reinstate": S.SUSPENDED,
    "revoke": S.SUSPENDED,
    "cancel": S.ACTIVE,
    "expire": S.ACTIVE,
}

CONTEXT_FOR = {
    "expire": ready(on=date(2031, 1, 6)),
    "revoke": ready(penalty_notice=replace(DECIDED, decisions=(DecisionOnFile("first", "upheld", "revocation"),))),
    "reinstate": ready(on=date(2026, 4, 10)),
}


def test_every_transition_is_covered() -> None:
    assert {t.name for t in TRANSITIONS} == set(EXPECTED_ROLES) == set(FROM_STATE)
    assert all(t.article.startswith("Art. ") and t.label for t in TRANSITIONS)


@pytest.mark.parametrize("name", sorted(EXPECTED_ROLES))
@pytest.mark.parametrize("role", list(Role))
def test_each_transition_allowed_or_refused_by_role(name: str, role: Role) -> None:
    ctx = CONTEXT_FOR.get(name, ready())
    verdicts = check_transition(name, FROM_STATE[name], role, ctx)
    if role in EXPECTED_ROLES[name]:
        assert verdicts == [], [v.message for v in verdicts]
        assert is_allowed(verdicts)
    else:
        assert ids(verdicts) == ["transition_role"]
        assert role.label in verdicts[0].message
        assert verdicts[0].article == transition(name).article


def test_wrong_state_is_refused_with_the_states_it_applies_to() -> None:
    verdicts = check_transition("approve", S.ACTIVE, R.SUPERVISOR, ready())
    assert ids(verdicts) == ["transition_state"]
    assert_refused(verdicts, "transition_state")
    assert S.ACTIVE.label in verdicts[0].message and S.UNDER_REVIEW.label in verdicts[0].message  # is, and may be


def test_closed_states_admit_nothing() -> None:
    for state in (S.REFUSED, S.EXPIRED, S.CANCELLED, S.REVOKED):
        for role in Role:
            assert available_transitions(state, role) == []


def test_available_transitions() -> None:
    names = [t.name for t in available_transitions(S.ACTIVE, R.SUPERVISOR)]
    assert names == ["renew_registration", "extend", "suspend", "revoke", "cancel", "expire"]
    assert [t.name for t in available_transitions(S.ACTIVE, R.INSPECTOR)] == []


def test_unknown_transition_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="Unknown transition"):
        check_transition("teleport", S.ACTIVE, R.ADMIN, ready())


# --- Approval and issue ----------------------------------------------------------------------------


@pytest.mark.parametrize("decree", [None, "", "  "])
def test_approval_without_decree_is_refused_with_article(decree: str | None) -> None:
    verdicts = check_transition("approve", S.UNDER_REVIEW, R.SUPERVISOR, ready(decree_number=decree))
    assert ids(verdicts) == ["transition_decree"]
    assert verdicts[0].article == "Art. 6º"
    assert verdicts[0].status is Status.NOT_MET
    assert_refused(verdicts, "transition_decree")


def test_motoboy_approval_speaks_of_autorizacao() -> None:
    verdicts = check_transition(
        "approve", S.UNDER_REVIEW, R.SUPERVISOR, ready(ServiceType.MOTOBOY, decree_number=None)
    )
    assert_refused(verdicts, "transition_decree")  # “a autorização”, not “a permissão”: test_wording.py
    assert ids(verdicts) == ["transition_decree"] and verdicts[0].article == "Art. 6º"


def test_issue_without_inspection_is_refused() -> None:
    pending = check_transition("issue", S.APPROVED, R.SUPERVISOR, ready(inspection_approved=None))
    assert ids(pending) == ["transition_inspection"]
    assert pending[0].status is Status.PENDING
    failed = check_transition("issue", S.APPROVED, R.SUPERVISOR, ready(inspection_approved=False))
    assert failed[0].status is Status.NOT_MET
    assert failed[0].article == "Art. 5º, § 1º, II e III"


def test_mototaxi_issue_without_quota_place_is_refused() -> None:
    verdicts = check_transition("issue", S.APPROVED, R.SUPERVISOR, ready(quota_open_places=0))
    assert ids(verdicts) == ["transition_quota"]
    assert verdicts[0].article == "Art. 10, I"
    assert verdicts[0].status is Status.NOT_MET


@pytest.mark.parametrize("service", [ServiceType.MOTOBOY, ServiceType.MOTOFRETE])
def test_motoboy_and_motofrete_have_no_quota(service: ServiceType) -> None:
    assert check_transition("issue", S.APPROVED, R.SUPERVISOR, ready(service, quota_open_places=None)) == []


def test_issue_passes_unmet_requirements_through() -> None:
    too_young = Verdict("art5_i_age", "Art. 5º, I", Status.NOT_MET, "Art. 5º, I: o requerente tem 20 anos.")
    old_bike = Verdict("art3_ii_useful_life", "Art. 3º, II", Status.NOT_MET, "Art. 3º, II: vencida.")
    verdicts = check_transition(
        "issue", S.APPROVED, R.SUPERVISOR, ready(eligibility=[MET, too_young], vehicle=[old_bike])
    )
    assert verdicts == [too_young, old_bike]


def test_issue_with_unchecked_requirements_is_pending() -> None:
    verdicts = check_transition("issue", S.APPROVED, R.SUPERVISOR, ready(eligibility=None, vehicle=None))
    assert ids(verdicts) == ["transition_eligibility", "transition_vehicle"]
    assert all(v.status is Status.PENDING for v in verdicts)


def test_one_permit_per_holder() -> None:
    verdicts = check_transition("issue", S.APPROVED, R.SUPERVISOR, ready(holder_permits_in_force=1))
    assert ids(verdicts) == ["transition_single_permit"]
    assert verdicts[0].article == "Art. 6º, § 2º"


def test_approval_also_needs_the_dossier_the_inspection_and_the_quota() -> None:
    verdicts = check_transition(
        "approve",
        S.UNDER_REVIEW,
        R.SUPERVISOR,
        TransitionContext(service=ServiceType.MOTOTAXI),
    )
    assert ids(verdicts) == [
        "transition_decree",
        "transition_eligibility",
        "transition_vehicle",
        "transition_inspection",
        "transition_quota",
    ]


# --- Extension, renewal, suspension, revocation, cancellation, expiry ------------------------------


def test_second_extension_is_refused() -> None:
    assert check_transition("extend", S.ACTIVE, R.SUPERVISOR, ready(extensions_used=0)) == []
    verdicts = check_transition("extend", S.ACTIVE, R.SUPERVISOR, ready(extensions_used=1))
    assert ids(verdicts) == ["transition_extension_once"]
    assert_refused(verdicts, "transition_extension_once")


def test_extension_only_while_the_term_runs() -> None:
    assert check_transition("extend", S.ACTIVE, R.SUPERVISOR, ready(on=date(2031, 1, 5))) == []
    late = check_transition("extend", S.ACTIVE, R.SUPERVISOR, ready(on=date(2031, 1, 6)))
    assert ids(late) == ["transition_term"]


def test_permit_term_and_registration_certificate() -> None:
    assert permit_term_end(date(2026, 3, 10), extended=False) == date(2031, 3, 10)
    assert permit_term_end(date(2026, 3, 10), extended=True) == date(2036, 3, 10)
    assert permit_term_end(date(2028, 2, 29), extended=False) == date(2033, 3, 1)
    assert registration_certificate_valid_until(date(2026, 3, 10)) == date(2027, 3, 10)


def test_renewed_certificate_runs_one_year_but_never_beyond_the_term() -> None:
    term_end = date(2031, 1, 5)
    assert renewed_certificate_valid_until(date(2026, 3, 10), term_end) == date(2027, 3, 10)
    assert renewed_certificate_valid_until(date(2030, 1, 5), term_end) == date(2031, 1, 5)
    assert renewed_certificate_valid_until(date(2030, 6, 1), term_end) == term_end
    assert renewed_certificate_valid_until(date(2031, 1, 5), term_end) == term_end


@pytest.mark.parametrize("service", list(ServiceType))
def test_registration_renews_up_to_the_last_day_of_the_term(service: ServiceType) -> None:
    term_end = date(2031, 1, 5)
    assert check_registration_renewal_term(date(2026, 3, 10), term_end, service) == []
    assert check_registration_renewal_term(term_end, term_end, service) == []


@pytest.mark.parametrize(
    ("service", "instrument"),
    [
        (ServiceType.MOTOTAXI, "permissão"),
        (ServiceType.MOTOBOY, "autorização"),
        (ServiceType.MOTOFRETE, "autorização"),
    ],
)
def test_no_registration_to_renew_after_the_term(service: ServiceType, instrument: str) -> None:
    assert check_registration_renewal_term(date(2031, 1, 6), date(2031, 1, 5), service) == [
        Verdict(
            "term",
            "Art. 6º",
            Status.NOT_MET,
            f"Art. 6º: o prazo da {instrument} terminou em 05/01/2031; não há registro a renovar.",
        )
    ]


def test_reason_is_required_to_refuse() -> None:
    verdicts = check_transition("refuse", S.UNDER_REVIEW, R.SUPERVISOR, ready(reason="  "))
    assert ids(verdicts) == ["transition_reason"]
    assert_refused(verdicts, "transition_reason")


@pytest.mark.parametrize("name", ["suspend", "revoke"])
def test_a_penalty_needs_a_decided_process_not_a_reason(name: str) -> None:
    verdicts = check_transition(name, S.ACTIVE, R.SUPERVISOR, ready(penalty_notice=None, reason="Infração grave"))
    assert ids(verdicts) == ["transition_process"]
    assert verdicts[0].article.startswith("Art. 29, § 3º")
    assert_refused(verdicts, "transition_process")
    penalty = "suspension" if name == "suspend" else "revocation"
    decided = replace(DECIDED, decisions=(DecisionOnFile("first", "upheld", penalty),))
    assert check_transition(name, S.ACTIVE, R.SUPERVISOR, ready(reason=None, penalty_notice=decided)) == []


def test_suspension_needs_a_future_end() -> None:
    assert ids(check_transition("suspend", S.ACTIVE, R.SUPERVISOR, ready(suspension_end=None))) == [
        "transition_suspension_end"
    ]
    assert ids(check_transition("suspend", S.ACTIVE, R.SUPERVISOR, ready(suspension_end=ON))) == [
        "transition_suspension_end"
    ]


def test_reinstatement_before_the_end_needs_a_decision_of_the_process() -> None:
    early = ready(on=date(2026, 4, 9), reason="recurso provido", penalty_notice=None)
    assert ids(check_transition("reinstate", S.SUSPENDED, R.SUPERVISOR, early)) == [
        "transition_suspension_end"
    ]
    assert (
        check_transition("reinstate", S.SUSPENDED, R.SUPERVISOR, replace(early, penalty_notice=replace(
            DECIDED, status="closed", decisions=(*DECIDED.decisions, DecisionOnFile("appeal", "dismissed", None)))))
        == []
    )
    assert check_transition("reinstate", S.SUSPENDED, R.SUPERVISOR,
                            replace(early, on=date(2026, 4, 10))) == []  # the calendar, on the last day


def test_final_criminal_conviction_revokes_art_35() -> None:
    ctx = ready(reason=None, penalty_notice=None,
                conviction=ConvictionEvidence(True, 7, 1, "0001234-56.2024.8.13.0481", date(2026, 3, 1)))
    assert check_transition("revoke", S.ACTIVE, R.SUPERVISOR, ctx) == []
    for name, state in (("renew_registration", S.ACTIVE), ("extend", S.ACTIVE), ("issue", S.APPROVED)):
        verdicts = check_transition(name, state, R.SUPERVISOR, ctx)
        assert ids(verdicts) == ["transition_conviction"]
        assert verdicts[0].article == "Art. 35"


@pytest.mark.parametrize(("request_", "status"), [(None, Status.PENDING), (False, Status.NOT_MET)])
def test_cancellation_needs_the_holders_express_request(request_: bool | None, status: Status) -> None:
    verdicts = check_transition("cancel", S.ACTIVE, R.CLERK, ready(express_request=request_))
    assert [(v.rule_id, v.status, v.article) for v in verdicts] == [
        ("transition_express_request", status, "Art. 6º, § 7º")
    ]


def test_an_application_may_be_withdrawn() -> None:
    for state in (S.REQUESTED, S.UNDER_REVIEW, S.APPROVED):
        assert check_transition("cancel", state, R.CLERK, ready()) == []


def test_expiry_only_after_the_term() -> None:
    assert ids(check_transition("expire", S.ACTIVE, R.CLERK, ready(on=date(2031, 1, 5)))) == [
        "transition_term"
    ]
    assert check_transition("expire", S.SUSPENDED, R.CLERK, ready(on=date(2031, 1, 6))) == []
    assert ids(check_transition("expire", S.ACTIVE, R.CLERK, ready(on=None))) == ["transition_date"]
