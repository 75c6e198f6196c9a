"""Issue #24: the judged steps take evidence, and the paths that went around the law (SQLite and PostgreSQL).

* penalty steps take the decided notice (or the recorded Art. 35 judgment) as a loaded row the rules check;
* the vehicle edit no longer rewrites a vehicle in service; a typing correction is the supervisor's, judged;
* settings the law fixes are bounded on the field, with the article;
* ``seed-demo`` refuses a register with data, and its permits pass the rules;
* an act that undid an earlier one (re-issue after Art. 35, re-linking a cassado deputy, reusing a spent
  candidacy, reinstating a cancelled permit) is refused.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from enforcement_factory import (  # type: ignore[import-not-found]
    GRAVE,
    _holder_notice,
    add_deputy,
    add_holder,
    revoke_through_process,
    suspend_through_process,
)
from sqlalchemy import func, select
from tests_helpers import raises_code, raises_rule  # type: ignore[import-not-found]

from motodesk.models import (
    Application,
    CriminalJudgment,
    DeputyLink,
    InfractionNotice,
    Permit,
    PermitEvent,
    Person,
    TenderCandidate,
    Vehicle,
)
from motodesk.rules.common import PermitState, Role, ServiceType
from motodesk.services import deputies, permits, tenders, vehicles
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext, CurrentUser
from motodesk.services.enforcement import ConvictionInput, record_final_conviction
from motodesk.services.errors import (
    InvalidInputError,
    MotodeskError,
    PermissionDeniedError,
    RuleViolationError,
)
from motodesk.services.settings import law_settings, update_settings

SUPERVISOR = CurrentUser(id=None, login="supervisor", full_name="Supervisor", role=Role.SUPERVISOR)
TODAY = local_today()
PDF = (b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n", "crlv.pdf")


def _state(ctx: AppContext, permit_id: int) -> PermitState:
    with ctx.read() as s:
        permit = s.get(Permit, permit_id)
        assert permit is not None
        return permit.state


# --- 2. A judged step takes evidence, not words ---------------------------------------------------


def test_suspension_refuses_a_made_up_notice_number(ctx: AppContext) -> None:
    holder = add_holder(ctx, service=ServiceType.MOTOBOY)
    with raises_rule("evidence_notice_unknown"), ctx.write() as s:
        permit = s.get(Permit, holder.permit_id)
        made_up = InfractionNotice(number="AI-9999/2026", status="decided", permit_id=holder.permit_id,
                                   offender_kind="holder", person_id=holder.person_id)
        permits.apply_suspend(s, SUPERVISOR, permit, TODAY + timedelta(days=10), notice=made_up,
                              reason="Grave", on=TODAY)
    assert _state(ctx, holder.permit_id) is PermitState.ACTIVE


def test_suspension_refuses_an_undecided_notice(ctx: AppContext, supervisor: AppContext) -> None:
    holder = add_holder(ctx, service=ServiceType.MOTOBOY)
    notice_id = _holder_notice(supervisor, holder.permit_id, GRAVE)
    with raises_rule("evidence_notice_undecided"), ctx.write() as s:
        permits.apply_suspend(s, SUPERVISOR, s.get(Permit, holder.permit_id), TODAY + timedelta(days=10),
                              notice=s.get(InfractionNotice, notice_id), reason="Grave", on=TODAY)
    assert _state(ctx, holder.permit_id) is PermitState.ACTIVE


def test_a_decided_notice_of_another_permit_suspends_nothing(ctx: AppContext, supervisor: AppContext) -> None:
    punished = add_holder(ctx, "Primeiro Titular", service=ServiceType.MOTOBOY)
    other = add_holder(ctx, "Segundo Titular", service=ServiceType.MOTOBOY)
    number = suspend_through_process(supervisor, punished.permit_id, TODAY + timedelta(days=20))
    assert _state(ctx, punished.permit_id) is PermitState.SUSPENDED
    with raises_rule("evidence_notice_other_permit") as refused, ctx.write() as s:
        notice = s.scalar(select(InfractionNotice).where(InfractionNotice.number == number))
        permits.apply_suspend(s, SUPERVISOR, s.get(Permit, other.permit_id), TODAY + timedelta(days=10),
                              notice=notice, reason="Grave", on=TODAY)
    assert number in str(refused.value)  # the notice it names
    assert _state(ctx, other.permit_id) is PermitState.ACTIVE


def test_a_suspension_notice_does_not_revoke_nor_reinstate_early(ctx: AppContext, supervisor: AppContext) -> None:
    holder = add_holder(ctx, service=ServiceType.MOTOBOY)
    number = suspend_through_process(supervisor, holder.permit_id, TODAY + timedelta(days=20))
    with raises_rule("evidence_notice_other_penalty"), ctx.write() as s:
        notice = s.scalar(select(InfractionNotice).where(InfractionNotice.number == number))
        permits.apply_revoke(s, SUPERVISOR, s.get(Permit, holder.permit_id), reason="x", on=TODAY, notice=notice)
    with raises_rule("evidence_notice_no_appeal"), ctx.write() as s:
        notice = s.scalar(select(InfractionNotice).where(InfractionNotice.number == number))
        permits.apply_reinstate(s, SUPERVISOR, s.get(Permit, holder.permit_id), reason="x", on=TODAY, notice=notice)
    assert _state(ctx, holder.permit_id) is PermitState.SUSPENDED


def test_the_art_35_cassacao_needs_the_recorded_judgment(ctx: AppContext) -> None:
    holder = add_holder(ctx, service=ServiceType.MOTOBOY)
    with raises_rule("evidence_conviction_unrecorded"), ctx.write() as s:
        unrecorded = CriminalJudgment(permit_id=holder.permit_id, person_id=holder.person_id, court="Vara",
                                      case_number="1", final_on=TODAY, recorded_by="x")
        permits.apply_revoke(s, SUPERVISOR, s.get(Permit, holder.permit_id), reason="Art. 35", on=TODAY,
                             conviction=unrecorded)
    with raises_rule("transition_process"), ctx.write() as s:
        permits.apply_revoke(s, SUPERVISOR, s.get(Permit, holder.permit_id), reason="Art. 35", on=TODAY)
    assert _state(ctx, holder.permit_id) is PermitState.ACTIVE


def test_a_judgment_recorded_against_another_permit_revokes_nothing(ctx: AppContext, supervisor: AppContext) -> None:
    convicted = add_holder(ctx, "Condenado", service=ServiceType.MOTOBOY)
    other = add_holder(ctx, "Outro", service=ServiceType.MOTOBOY)
    record_final_conviction(supervisor, convicted.permit_id, ConvictionInput(
        "1ª Vara Criminal de Patrocínio", "00012345620248130481", TODAY - timedelta(days=2)))
    with raises_rule("evidence_conviction_other_permit"), ctx.write() as s:
        judgment = s.scalars(select(CriminalJudgment)).one()
        permits.apply_revoke(s, SUPERVISOR, s.get(Permit, other.permit_id), reason="Art. 35", on=TODAY,
                             conviction=judgment)
    assert _state(ctx, other.permit_id) is PermitState.ACTIVE


def test_deputy_steps_take_the_notice_against_the_deputy(ctx: AppContext, supervisor: AppContext) -> None:
    holder = add_holder(ctx, service=ServiceType.MOTOBOY)
    deputy_id, _ = add_deputy(ctx, holder)
    holder_notice = _holder_notice(supervisor, holder.permit_id, GRAVE)
    with ctx.write() as s:
        link = s.scalar(select(DeputyLink).where(DeputyLink.permit_id == holder.permit_id))
        with raises_rule("evidence_notice_undecided"):
            deputies.apply_deputy_suspend(s, SUPERVISOR, link, TODAY + timedelta(days=5),
                                          notice=s.get(InfractionNotice, holder_notice), reason="x", on=TODAY)
    number = suspend_through_process(supervisor, holder.permit_id, TODAY + timedelta(days=20))  # the holder's
    with ctx.write() as s:
        link = s.scalar(select(DeputyLink).where(DeputyLink.permit_id == holder.permit_id))
        notice = s.scalar(select(InfractionNotice).where(InfractionNotice.number == number))
        with raises_rule("evidence_notice_other_offender"):
            deputies.apply_deputy_revoke(s, SUPERVISOR, link, notice=notice, reason="x", on=TODAY)
    with ctx.read() as s:
        link = s.scalar(select(DeputyLink).where(DeputyLink.permit_id == holder.permit_id))
        assert link.end_on is None and not link.revoked and link.deputy_person_id == deputy_id


# --- 3a. The vehicle edit ---------------------------------------------------------------------------


def _vehicle_input(ctx: AppContext, vehicle_id: int) -> vehicles.VehicleInput:
    return vehicles.get_vehicle(ctx, vehicle_id).data


def test_the_vehicle_edit_does_not_rewrite_a_vehicle_in_service(ctx: AppContext, clerk: AppContext) -> None:
    holder = add_holder(ctx, service=ServiceType.MOTOBOY)
    data = _vehicle_input(clerk, holder.vehicle_id)
    for change, article in (({"plate": "XYZ9A87"}, r"Art\. 31, Grupo 3, II: a placa"),
                            ({"engine_cc": 300}, r"Art\. 31, Grupo 3, II; Art\. 5º, § 1º, II e III: a cilindrada"),
                            ({"colour": "VERMELHA"}, r"a cor"), ({"category": "particular"}, r"a categoria"),
                            ({"year_manufacture": TODAY.year}, r"o ano de fabricação"),
                            ({"renavam": "89038149178"}, r"o RENAVAM")):
        with pytest.raises(RuleViolationError, match=article):
            vehicles.save_vehicle(clerk, replace(data, **change), vehicle_id=holder.vehicle_id)  # type: ignore[arg-type]
    with ctx.read() as s:
        vehicle = s.get(Vehicle, holder.vehicle_id)
        assert (vehicle.plate, vehicle.engine_cc, vehicle.colour) == (holder.plate, 160, "Amarela")
    # what the law does not judge of the vehicle in service still is the clerk's to keep current
    vehicles.save_vehicle(clerk, replace(data, notes="Troca de pneus."), vehicle_id=holder.vehicle_id)


def test_a_typing_correction_is_the_supervisors_with_reason_and_crlv_and_shows_in_the_history(
        ctx: AppContext, clerk: AppContext, supervisor: AppContext) -> None:
    holder = add_holder(ctx, service=ServiceType.MOTOBOY)
    with pytest.raises(PermissionDeniedError):
        vehicles.correct_identifier(clerk, holder.vehicle_id, "plate", "QWE1R23", reason="Digitado errado no "
                                    "cadastro", crlv_file=PDF)
    with raises_rule("vehicle_correction_crlv"):
        vehicles.correct_identifier(supervisor, holder.vehicle_id, "plate", "QWE1R23",
                                    reason="Digitado errado no cadastro", crlv_file=None)
    with raises_rule("vehicle_correction_reason"):
        vehicles.correct_identifier(supervisor, holder.vehicle_id, "plate", "QWE1R23", reason="erro",
                                    crlv_file=PDF)
    with raises_rule("vehicle_correction_field"):
        vehicles.correct_identifier(supervisor, holder.vehicle_id, "engine_cc", "170",
                                    reason="Digitado errado no cadastro", crlv_file=PDF)
    done = vehicles.correct_identifier(supervisor, holder.vehicle_id, "plate", "QWE1R23",
                                       reason="Digitado errado no cadastro", crlv_file=PDF)
    assert done.permit_ids == (holder.permit_id,)
    with ctx.read() as s:
        assert s.get(Vehicle, holder.vehicle_id).plate == "QWE1R23"
    event = permits.history(clerk, "permit", holder.permit_id)[-1]
    assert event.transition == "vehicle_correction" and holder.plate in event.reason and "QWE1R23" in event.reason
    assert "CRLV" in event.reason


# --- 3b. Settings the law fixes ----------------------------------------------------------------------


@pytest.mark.parametrize(("name", "value", "article"), [
    ("medical_valid_years", 0, r"Art\. 5º, VII e § 2º"),
    ("medical_valid_years", 3, r"Art\. 5º, VII e § 2º"),
    ("criminal_valid_years", 10, r"Art\. 5º, XI"),
    ("inspection_valid_months_motofrete", 36, r"Art\. 23"),
    ("inspection_valid_months_mototaxi", 12, r"Art\. 5º, § 6º"),
    ("defence_period_days", 0, r"Art\. 29, § 3º"),
    ("appeal_period_days", 0, r"Art\. 34, parágrafo único"),
])
def test_a_period_the_law_fixes_is_refused_on_the_field(ctx: AppContext, name: str, value: int, article: str) -> None:
    before = getattr(law_settings(ctx), name)
    with pytest.raises(InvalidInputError) as refused:
        update_settings(ctx, {name: value})
    assert set(refused.value.fields) == {name}
    assert refused.value.fields[name].startswith(article.replace("\\", ""))
    assert getattr(law_settings(ctx), name) == before
    update_settings(ctx, {"defence_period_days": 20, "inspection_valid_months_motofrete": 6})  # within the law


# --- 3c. seed-demo --------------------------------------------------------------------------------


def test_seed_demo_refuses_a_register_with_data(ctx: AppContext) -> None:
    from motodesk.services.demo import seed_demo

    add_holder(ctx, service=ServiceType.MOTOBOY)
    with raises_code(MotodeskError, "demo.database_not_empty"):
        seed_demo(ctx, 5)
    with ctx.read() as s:
        assert s.scalar(select(func.count(Person.id))) == 1


def test_every_seeded_permit_passes_the_rules(ctx: AppContext) -> None:
    from motodesk.rules.periods import completed_years
    from motodesk.services.demo import seed_demo

    seed_demo(ctx, 300)
    with ctx.read() as s:
        rows = s.execute(select(Permit, Person, Vehicle).join(Person, Person.id == Permit.person_id)
                         .join(Vehicle, Vehicle.id == Permit.vehicle_id)).all()
        assert len(rows) > 100
        from motodesk.models import PersonDocument
        from motodesk.rules.dossier import DocumentKind

        for permit, person, vehicle in rows:
            assert completed_years(person.birth_date, permit.issued_on) >= 21, permit.number  # Art. 5º, I
            assert 125 <= vehicle.engine_cc <= 250, permit.number  # Art. 3º, I
            criminal = s.scalar(select(PersonDocument.result).where(PersonDocument.person_id == person.id,
                                                                    PersonDocument.kind == DocumentKind.CRIMINAL))
            assert criminal == "negative", permit.number  # Art. 5º, XI
            if permit.service_type is ServiceType.MOTOTAXI:  # Art. 6º: a candidacy of a tender, used
                candidacy = s.scalar(select(TenderCandidate).where(TenderCandidate.person_id == person.id))
                assert candidacy is not None and candidacy.status == "accepted", permit.number


# --- 3d. Acts that undo an earlier one ----------------------------------------------------------------


def test_a_recorded_conviction_is_not_undone_by_a_new_issue(ctx: AppContext, supervisor: AppContext) -> None:
    from permit_factory import make_dossier  # type: ignore[import-not-found]

    dossier = make_dossier(ctx, ServiceType.MOTOBOY, state=PermitState.UNDER_REVIEW)
    permits.approve(supervisor, dossier.application_id, "10/2026", TODAY)
    issued = permits.issue(supervisor, dossier.application_id)
    record_final_conviction(supervisor, issued.id, ConvictionInput(
        "1ª Vara Criminal de Patrocínio", "00012345620248130481", TODAY - timedelta(days=1)))
    assert _state(ctx, issued.id) is PermitState.REVOKED
    with ctx.write() as s:  # a new application of the same person, approved as if nothing happened
        app = Application(person_id=dossier.person_id, service_type=ServiceType.MOTOBOY,
                          state=PermitState.APPROVED, opened_on=TODAY, opened_by="atendente",
                          vehicle_id=dossier.vehicle_id)
        s.add(app)
        s.flush()
        app_id = app.id
    with raises_rule("transition_conviction"):
        permits.issue(supervisor, app_id)
    with ctx.read() as s:
        assert s.scalar(select(func.count(Permit.id)).where(Permit.person_id == dossier.person_id)) == 1


def test_a_cassado_deputy_is_not_linked_again(ctx: AppContext, clerk: AppContext, supervisor: AppContext) -> None:
    holder = add_holder(ctx, service=ServiceType.MOTOBOY)
    deputy_id, _ = add_deputy(ctx, holder)
    revoke_through_process(supervisor, holder.permit_id, deputy_person_id=deputy_id)
    with ctx.read() as s:
        link = s.scalar(select(DeputyLink).where(DeputyLink.deputy_person_id == deputy_id))
        assert link.revoked and link.end_on is not None
    other = add_holder(ctx, "Outro Titular", service=ServiceType.MOTOBOY)
    for permit_id in (holder.permit_id, other.permit_id):
        with raises_rule("deputy_revoked_before"):
            deputies.nominate_deputy(clerk, permit_id, deputy_id, PDF, on=TODAY)
    with ctx.read() as s:
        assert s.scalar(select(func.count(DeputyLink.id)).where(DeputyLink.deputy_person_id == deputy_id)) == 1


def test_a_spent_candidacy_is_not_reused(ctx: AppContext, clerk: AppContext, supervisor: AppContext) -> None:
    from permit_factory import make_dossier  # type: ignore[import-not-found]

    update_settings(ctx, {"population": 10_000})
    dossier = make_dossier(ctx, ServiceType.MOTOTAXI, state=PermitState.UNDER_REVIEW)
    permits.approve(supervisor, dossier.application_id, "11/2026", TODAY)
    issued = permits.issue(supervisor, dossier.application_id)
    permits.cancel(clerk, issued.id, "A pedido", express_request=True)
    with ctx.write() as s:
        candidate = s.get(TenderCandidate, dossier.candidate_id)
        assert candidate.status == "accepted"
        app = Application(person_id=dossier.person_id, service_type=ServiceType.MOTOTAXI,
                          state=PermitState.UNDER_REVIEW, opened_on=TODAY, opened_by="atendente",
                          vehicle_id=dossier.vehicle_id)
        s.add(app)
        s.flush()
        app_id = app.id
    with raises_rule("tender"):
        tenders.link_application(clerk, app_id, dossier.candidate_id)
    with ctx.write() as s:
        app = s.get(Application, app_id)
        assert app is not None
        app.tender_candidate_id = dossier.candidate_id
    with raises_rule("tender"):
        permits.approve(supervisor, app_id, "12/2026", TODAY)
    with raises_code(InvalidInputError, "tender.permit_issued"):
        tenders.set_candidate_status(supervisor, dossier.candidate_id, "waiting")


def test_a_cancellation_is_not_undone_by_a_reinstatement_or_a_decision(ctx: AppContext, clerk: AppContext,
                                                                       supervisor: AppContext) -> None:
    holder = add_holder(ctx, service=ServiceType.MOTOBOY)
    permits.cancel(clerk, holder.permit_id, "A pedido do titular", express_request=True)
    with raises_rule("transition_state"), ctx.write() as s:
        permits.apply_reinstate(s, SUPERVISOR, s.get(Permit, holder.permit_id), reason="x", on=TODAY)
    for name in ("renew_registration", "extend"):
        with raises_rule("transition_state"):
            getattr(permits, name)(supervisor, holder.permit_id)
    assert _state(ctx, holder.permit_id) is PermitState.CANCELLED
    with ctx.read() as s:
        assert [e.transition for e in s.scalars(select(PermitEvent).where(PermitEvent.permit_id == holder.permit_id))
                ] == ["cancel"]


def test_a_judged_certificate_of_a_holder_in_force_is_replaced_not_rewritten(ctx: AppContext,
                                                                             clerk: AppContext) -> None:
    """A positive criminal certificate on file is not undone by editing it (Art. 5º, XI); a newer one replaces it."""
    from motodesk.rules.dossier import DocumentKind
    from motodesk.services import people
    from motodesk.services.people import DocumentInput

    holder = add_holder(ctx, service=ServiceType.MOTOBOY)
    issued = TODAY - timedelta(days=100)
    people.save_document(clerk, holder.person_id, DocumentInput(DocumentKind.CRIMINAL, issue_date=issued,
                                                                result="positive"))
    with raises_rule("certificate_rewritten"):
        people.save_document(clerk, holder.person_id, DocumentInput(DocumentKind.CRIMINAL, issue_date=issued,
                                                                    result="negative"))
    with raises_rule("certificate_rewritten"):
        people.save_document(clerk, holder.person_id, DocumentInput(DocumentKind.CRIMINAL,
                                                                    issue_date=issued - timedelta(days=30),
                                                                    result="positive"))
    people.save_document(clerk, holder.person_id, DocumentInput(DocumentKind.CRIMINAL,
                                                                issue_date=TODAY - timedelta(days=1),
                                                                result="negative"))  # a newer certificate
    with ctx.read() as s:
        from motodesk.models import PersonDocument

        row = s.scalar(select(PersonDocument).where(PersonDocument.person_id == holder.person_id,
                                                    PersonDocument.kind == DocumentKind.CRIMINAL))
        assert (row.issue_date, row.result) == (TODAY - timedelta(days=1), "negative")
