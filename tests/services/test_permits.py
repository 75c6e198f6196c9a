"""The permit workflow on SQLite and PostgreSQL: every step through the rules, recorded, refused with
its article when the law says no."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from enforcement_factory import revoke_through_process, suspend_through_process  # type: ignore[import-not-found]
from permit_factory import make_dossier  # type: ignore[import-not-found]
from sqlalchemy import select
from tests_helpers import existing_register, raises_code, raises_rule  # type: ignore[import-not-found]

from motodesk.models import Application, Decree, InfractionNotice, Permit, PermitEvent, QuotaCounter
from motodesk.rules.common import PermitState, Role, ServiceType
from motodesk.rules.lifecycle import permit_term_end
from motodesk.rules.periods import add_years
from motodesk.services import permits, permits_applications
from motodesk.services.context import AppContext
from motodesk.services.errors import (
    InvalidInputError,
    MotodeskError,
    PermissionDeniedError,
)
from motodesk.services.settings import update_settings

TODAY = date.today()


def _issue(supervisor: AppContext, dossier, decree: str = "1.234/2026") -> permits.IssuedPermit:
    permits.approve(supervisor, dossier.application_id, decree, TODAY - timedelta(days=1))
    return permits.issue(supervisor, dossier.application_id)


def test_approve_then_issue_numbers_per_service_and_year(ctx: AppContext, supervisor: AppContext) -> None:
    first = _issue(supervisor, make_dossier(ctx, ServiceType.MOTOBOY))
    second = _issue(supervisor, make_dossier(ctx, ServiceType.MOTOBOY, name="Maria Souza Lima"))
    frete = _issue(supervisor, make_dossier(ctx, ServiceType.MOTOFRETE, name="Pedro Alves Costa"))
    assert first.number == f"MB-0001/{TODAY.year}"
    assert second.number == f"MB-0002/{TODAY.year}"
    assert frete.number == f"MF-0001/{TODAY.year}"
    assert first.term_end == permit_term_end(TODAY, False) == add_years(TODAY, 5)
    assert first.certificate_valid_until == add_years(TODAY, 1)
    with ctx.read() as s:
        permit = s.get(Permit, first.id)
        assert permit.state is PermitState.ACTIVE and permit.decree_id is not None
        assert s.get(Decree, permit.decree_id).number == "1.234/2026"
        app = s.get(Application, permit.application_id)
        assert app.state is PermitState.ACTIVE and app.decided_by == "supervisor"


def test_every_step_records_who_when_why(ctx: AppContext, clerk: AppContext, supervisor: AppContext) -> None:
    dossier = make_dossier(ctx, ServiceType.MOTOFRETE, state=PermitState.REQUESTED)
    permits.start_review(clerk, dossier.application_id)
    issued = _issue(supervisor, dossier)
    permits.renew_registration(clerk, issued.id)
    suspension = suspend_through_process(supervisor, issued.id, TODAY + timedelta(days=30))
    revocation = revoke_through_process(supervisor, issued.id)
    events = permits.history(supervisor, "permit", issued.id)
    assert [e.transition for e in events] == [
        "start_review", "approve", "issue", "renew_registration", "suspend", "revoke"]
    assert [e.by_user for e in events] == ["clerk", "supervisor", "supervisor", "clerk", "supervisor",
                                           "supervisor"]
    assert events[1].decree == "1.234/2026"
    assert suspension in events[4].reason and TODAY.year <= events[4].at.year
    assert revocation in events[-1].reason and "Art. 30, Grupo 4, II" in events[-1].reason
    assert events[-1].from_state is PermitState.SUSPENDED and events[-1].to_state is PermitState.REVOKED
    with ctx.read() as s:
        assert s.scalar(select(PermitEvent.id).where(PermitEvent.permit_id == issued.id,
                                                     PermitEvent.transition == "issue")) is not None
        permit = s.get(Permit, issued.id)
        assert permit.ended_on == TODAY and permit.end_reason == events[-1].reason


def test_clerk_cannot_approve_and_is_told_who_can(ctx: AppContext, clerk: AppContext) -> None:
    dossier = make_dossier(ctx)
    with raises_code(PermissionDeniedError, "permission_denied"):
        permits.approve(clerk, dossier.application_id, "10/2026", TODAY)


def test_approve_needs_a_decree_number_and_date(ctx: AppContext, supervisor: AppContext) -> None:
    dossier = make_dossier(ctx)
    with raises_rule("transition_decree"):
        permits.approve(supervisor, dossier.application_id, "  ", TODAY)
    with raises_code(InvalidInputError, "invalid_input", fields=("decree_date",)):
        permits.approve(supervisor, dossier.application_id, "77/2026", None)
    with raises_code(InvalidInputError, "invalid_input", fields=("decree_date",)):
        permits.approve(supervisor, dossier.application_id, "77/2026", TODAY + timedelta(days=3))
    permits.approve(supervisor, dossier.application_id, "77/2026", TODAY)
    other = make_dossier(ctx, name="Ana Clara Reis")
    with raises_code(InvalidInputError, "invalid_input", fields=("decree_date",)):
        permits.approve(supervisor, other.application_id, "77/2026", TODAY - timedelta(days=9))
    permits.approve(supervisor, other.application_id, "77/2026", None)  # the same Decree, already known


def test_issue_without_an_approved_inspection_is_refused(ctx: AppContext, supervisor: AppContext) -> None:
    never = make_dossier(ctx, inspection=None, state=PermitState.APPROVED)
    with raises_rule("transition_inspection"):
        permits.issue(supervisor, never.application_id)
    failed = make_dossier(ctx, inspection="failed", state=PermitState.APPROVED, name="Rui Barbosa Neto")
    with raises_rule("transition_inspection"):
        permits.issue(supervisor, failed.application_id)
    with ctx.read() as s:
        assert s.scalar(select(Permit.id)) is None


def test_issue_for_an_expired_cnh_is_refused_with_the_article(ctx: AppContext, supervisor: AppContext) -> None:
    dossier = make_dossier(ctx, state=PermitState.APPROVED, cnh_expiry=TODAY - timedelta(days=1))
    with raises_rule("art5_ii_cnh") as info:
        permits.issue(supervisor, dossier.application_id)
    assert [v.article for v in info.value.verdicts] == ["Art. 5º, II"]


def test_a_second_permit_in_force_for_the_same_cpf_is_refused(ctx: AppContext, supervisor: AppContext) -> None:
    dossier = make_dossier(ctx, ServiceType.MOTOBOY)
    _issue(supervisor, dossier)
    with ctx.write() as s:  # a second application of the same person, for moto-frete
        s.add(Application(person_id=dossier.person_id, service_type=ServiceType.MOTOFRETE,
                          state=PermitState.APPROVED, opened_on=TODAY, opened_by="atendente",
                          vehicle_id=dossier.vehicle_id))
    with ctx.read() as s:
        second = s.scalar(select(Application.id).where(Application.service_type == ServiceType.MOTOFRETE))
    with raises_rule("transition_single_permit"):
        permits.issue(supervisor, second)


def test_the_database_refuses_a_second_permit_in_force_even_past_the_check(ctx: AppContext,
                                                                            supervisor: AppContext,
                                                                            monkeypatch) -> None:  # noqa: ANN001
    dossier = make_dossier(ctx, ServiceType.MOTOBOY)
    _issue(supervisor, dossier)
    with ctx.write() as s:
        s.add(Application(person_id=dossier.person_id, service_type=ServiceType.MOTOBOY,
                          state=PermitState.APPROVED, opened_on=TODAY, opened_by="atendente",
                          vehicle_id=dossier.vehicle_id))
    with ctx.read() as s:
        second = s.scalar(select(func_max_app()))
    monkeypatch.setattr(permits_applications, "_holder_permits_in_force", lambda *a, **k: 0)  # a check that raced
    with raises_code(MotodeskError, "constraint") as info:
        permits.issue(supervisor, second)
    assert str(info.value) == permits_applications._INTEGRITY["uq_permits_person_in_force"]


def func_max_app():  # noqa: ANN201
    from sqlalchemy import func

    return func.max(Application.id)


def test_issue_beyond_the_quota_is_refused(ctx: AppContext, supervisor: AppContext) -> None:
    update_settings(ctx, {"population": 2_000})  # one place
    first = make_dossier(ctx, ServiceType.MOTOTAXI, state=PermitState.APPROVED)
    second = make_dossier(ctx, ServiceType.MOTOTAXI, state=PermitState.APPROVED, name="Carla Dias Moura")
    issued = permits.issue(supervisor, first.application_id)
    assert issued.number == f"MT-0001/{TODAY.year}"
    with raises_rule("transition_quota"):
        permits.issue(supervisor, second.application_id)
    overview = permits.quota_overview(supervisor)
    assert (overview.quota, overview.in_force, overview.open_places, overview.counted_in_force) == (1, 1, 0, 1)
    # A suspended permit keeps its place; a revoked one gives it back.
    suspend_through_process(supervisor, issued.id, TODAY + timedelta(days=10))
    assert permits.quota_overview(supervisor).open_places == 0
    revoke_through_process(supervisor, issued.id)
    assert permits.quota_overview(supervisor).open_places == 1
    assert permits.issue(supervisor, second.application_id).number == f"MT-0002/{TODAY.year}"


def test_motoboy_and_motofrete_have_no_quota(ctx: AppContext, supervisor: AppContext) -> None:
    update_settings(ctx, {"population": 1_999})  # no mototáxi place at all
    for i, service in enumerate((ServiceType.MOTOBOY, ServiceType.MOTOFRETE) * 2):
        _issue(supervisor, make_dossier(ctx, service, name=f"Pessoa Número {i}"))
    with ctx.read() as s:
        assert s.get(QuotaCounter, ServiceType.MOTOTAXI).in_force == 0


def test_mototaxi_requires_a_called_tender_candidate(ctx: AppContext, supervisor: AppContext) -> None:
    dossier = make_dossier(ctx, ServiceType.MOTOTAXI, candidate_status="waiting")
    with raises_rule("tender"):
        permits.approve(supervisor, dossier.application_id, "5/2026", TODAY)
    with ctx.write() as s:
        s.get(Application, dossier.application_id).tender_candidate_id = None
    with raises_rule("tender"):
        permits.approve(supervisor, dossier.application_id, "5/2026", TODAY)


def test_medical_certificate_after_the_tender_window_blocks_approval(ctx: AppContext,
                                                                     supervisor: AppContext) -> None:
    from motodesk.models import PersonDocument, Tender
    from motodesk.rules.dossier import DocumentKind

    dossier = make_dossier(ctx, ServiceType.MOTOTAXI)
    with ctx.write() as s:
        tender = s.scalar(select(Tender))
        tender.homologated_on = TODAY - timedelta(days=60)  # the 30 days ended a month ago
        medical = s.scalar(select(PersonDocument).where(PersonDocument.person_id == dossier.person_id,
                                                         PersonDocument.kind == DocumentKind.MEDICAL))
        medical.issue_date = medical.presented_on = TODAY - timedelta(days=2)  # presented late
    with raises_rule("art5_vii_medical"):
        permits.approve(supervisor, dossier.application_id, "5/2026", TODAY)


def test_renewal_is_yearly_and_within_the_term(ctx: AppContext, clerk: AppContext, supervisor: AppContext) -> None:
    issued = _issue(supervisor, make_dossier(ctx))
    until = permits.renew_registration(clerk, issued.id)
    assert until == add_years(TODAY, 1)
    with ctx.write() as s:  # near the end of the term, the certificate stops at the term's end
        existing_register(s)
        s.get(Permit, issued.id).term_end = TODAY + timedelta(days=40)
    assert permits.renew_registration(clerk, issued.id) == TODAY + timedelta(days=40)


def test_one_extension_of_five_years_only(ctx: AppContext, supervisor: AppContext) -> None:
    issued = _issue(supervisor, make_dossier(ctx))
    assert permits.extend(supervisor, issued.id, decree_number="99/2026", decree_date=TODAY) == add_years(TODAY, 10)
    with raises_rule("transition_extension_once"):
        permits.extend(supervisor, issued.id)
    history = permits.history(supervisor, "permit", issued.id)
    assert history[-1].transition == "extend" and history[-1].decree == "99/2026"


def test_no_public_service_suspends_reinstates_or_revokes(ctx: AppContext, supervisor: AppContext) -> None:
    """Art. 29, § 3º; Art. 34: a penalty only through a process; the session steps refuse one without it."""
    from motodesk.services.context import CurrentUser

    assert not any(hasattr(permits, name) for name in ("suspend", "reinstate", "revoke"))
    issued = _issue(supervisor, make_dossier(ctx))
    user = CurrentUser(id=None, login="supervisor", full_name="Supervisor", role=Role.SUPERVISOR)
    with raises_rule("evidence_notice_unknown"), ctx.write() as s:
        permits.apply_suspend(s, user, s.get(Permit, issued.id), TODAY + timedelta(days=5),
                              notice=InfractionNotice(number=""), reason="Infração grave", on=TODAY)
    with raises_rule("transition_process"), ctx.write() as s:
        permits.apply_revoke(s, user, s.get(Permit, issued.id), reason="Reincidência", on=TODAY)
    assert permits.get_row(supervisor, "permit", issued.id).state is PermitState.ACTIVE
    assert [e.transition for e in permits.history(supervisor, "permit", issued.id)] == ["approve", "issue"]
    assert {t.name for t in permits.actions_for(permits.get_row(supervisor, "permit", issued.id),
                                                Role.SUPERVISOR)} == {"renew_registration", "extend", "cancel", "expire"}


def test_cancellation_needs_the_express_request(ctx: AppContext, clerk: AppContext, supervisor: AppContext) -> None:
    update_settings(ctx, {"population": 2_000})
    issued = _issue(supervisor, make_dossier(ctx, ServiceType.MOTOTAXI))
    with raises_rule("transition_express_request"):
        permits.cancel(clerk, issued.id, "Mudou de cidade", express_request=False)
    permits.cancel(clerk, issued.id, "Mudou de cidade", express_request=True)
    assert permits.get_row(clerk, "permit", issued.id).state is PermitState.CANCELLED
    assert permits.quota_overview(clerk).open_places == 1


def test_expiry_only_after_the_term(ctx: AppContext, clerk: AppContext, supervisor: AppContext) -> None:
    update_settings(ctx, {"population": 4_000})
    issued = _issue(supervisor, make_dossier(ctx, ServiceType.MOTOTAXI))
    with raises_rule("transition_term"):
        permits.expire(clerk, issued.id)
    after = issued.term_end + timedelta(days=1)
    assert permits.expire_due(clerk, on=after) == [issued.number]
    assert permits.get_row(clerk, "permit", issued.id).state is PermitState.EXPIRED
    assert permits.quota_overview(clerk).in_force == 0


def test_refusal_and_withdrawal_of_applications(ctx: AppContext, clerk: AppContext, supervisor: AppContext) -> None:
    refused = make_dossier(ctx)
    with raises_rule("transition_reason"):
        permits.refuse(supervisor, refused.application_id, "")
    permits.refuse(supervisor, refused.application_id, "Veículo com mais de 5 anos (Art. 3º, II)")
    assert permits.get_row(clerk, "application", refused.application_id).state is PermitState.REFUSED
    withdrawn = make_dossier(ctx, name="Lúcia Ferreira Gomes")
    permits.cancel_application(clerk, withdrawn.application_id, "Desistiu", express_request=True)
    assert permits.get_row(clerk, "application", withdrawn.application_id).state is PermitState.CANCELLED


def test_a_stale_screen_is_a_conflict(ctx: AppContext, supervisor: AppContext) -> None:
    from motodesk.services.errors import ConflictError

    issued = _issue(supervisor, make_dossier(ctx))
    row = permits.get_row(supervisor, "permit", issued.id)
    permits.renew_registration(supervisor, issued.id, on=TODAY + timedelta(days=10))
    with pytest.raises(ConflictError):
        permits.cancel(supervisor, issued.id, "x", express_request=True, expected_version=row.version)


def test_list_filters_sorts_and_searches(ctx: AppContext, supervisor: AppContext) -> None:
    active = _issue(supervisor, make_dossier(ctx, name="Zélia Antunes Prado"))
    pending = make_dossier(ctx, name="Álvaro Bento Cruz")
    rows = permits.list_permits(supervisor, sort_key="holder", descending=False)
    assert [r.holder for r in rows] == ["Álvaro Bento Cruz", "Zélia Antunes Prado"]
    # one way to write an application number: the letters', the dossier's and this list's
    from motodesk.services.applications import list_applications

    written = next(a.number for a in list_applications(supervisor, pending.person_id)
                   if a.id == pending.application_id)
    assert rows[0].kind == "application" and rows[0].number == f"Requerimento nº {written}"
    assert permits.get_row(supervisor, "application", pending.application_id).number == rows[0].number
    in_force = permits.list_permits(supervisor, state_filter="in_force")
    assert [r.number for r in in_force] == [active.number]
    assert permits.list_permits(supervisor, search="alvaro")[0].holder == "Álvaro Bento Cruz"
    assert permits.list_permits(supervisor, search=active.number)[0].id == active.id
    assert permits.count_permits(supervisor, state_filter="pending") == 1
    assert permits.list_permits(supervisor, service=ServiceType.MOTOTAXI) == []
    names = [t.name for t in permits.actions_for(in_force[0], supervisor.user.role)]
    assert set(names) == {"renew_registration", "extend", "cancel", "expire"}  # no penalty outside a process


def test_full_path_from_the_counter_to_a_verified_badge(ctx: AppContext, clerk: AppContext,
                                                        supervisor: AppContext, inspector: AppContext) -> None:
    """The dossier's own application (no vehicle on it): the holder's active vehicle is the one judged."""
    from permit_factory import add_person, add_vehicle  # type: ignore[import-not-found]

    from motodesk.services import applications, badges

    with ctx.write() as s:
        person, _photo = add_person(s, TODAY, name="Marta Regina Siqueira")
        vehicle = add_vehicle(s, person, ServiceType.MOTOFRETE, TODAY)
        person_id, vehicle_id, plate = person.id, vehicle.id, vehicle.plate
    opened = applications.open_application(clerk, person_id, ServiceType.MOTOFRETE)
    row = permits.list_permits(clerk, state_filter="pending")[0]
    assert row.kind == "application" and row.plate == plate
    permits.start_review(clerk, opened.id)
    permits.approve(supervisor, opened.id, "55/2026", TODAY)
    issued = permits.issue(supervisor, opened.id)
    with ctx.read() as s:
        assert s.get(Permit, issued.id).vehicle_id == vehicle_id
    printed = badges.print_badges(clerk, [issued.id])
    assert printed.badges[0].issue_no == 1
    events = [e.transition for e in permits.history(clerk, "permit", issued.id)]
    assert events == ["open", "start_review", "approve", "issue"]
    assert permits.get_row(clerk, "permit", issued.id).badge_issue_no == 1


def test_the_daily_calendar_lifts_ended_suspensions_and_records_ended_terms(ctx: AppContext,
                                                                             supervisor: AppContext) -> None:
    suspended = _issue(supervisor, make_dossier(ctx))
    running = _issue(supervisor, make_dossier(ctx, name="Maria Souza Lima"))
    suspend_through_process(supervisor, suspended.id, TODAY + timedelta(days=5))
    suspend_through_process(supervisor, running.id, TODAY + timedelta(days=30))

    assert permits.run_calendar(ctx, on=TODAY + timedelta(days=4)).reinstated == []  # still within its days
    result = permits.run_calendar(ctx, on=TODAY + timedelta(days=5))
    assert result.reinstated == [suspended.number] and result.expired == []
    assert permits.get_row(supervisor, "permit", suspended.id).state is PermitState.ACTIVE
    assert permits.get_row(supervisor, "permit", running.id).state is PermitState.SUSPENDED
    with ctx.read() as s:
        event = s.scalars(select(PermitEvent).where(PermitEvent.permit_id == suspended.id)
                          .order_by(PermitEvent.id.desc())).first()
    assert event.by_user == "sistema" and event.reason == "Fim do prazo da suspensão"

    after_term = add_years(TODAY, 5) + timedelta(days=1)
    result = permits.run_calendar(ctx, on=after_term)
    assert sorted(result.expired) == sorted([suspended.number, running.number])
    assert result.reinstated == [running.number]  # lifted first, then its term is recorded as ended
