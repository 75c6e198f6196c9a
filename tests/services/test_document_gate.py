"""Issue 16, items 2 (last sentence), 4, 5, 6 and 10 on SQLite and PostgreSQL: a certificate, a transit
authorization or a badge prints only when everything it states holds on the day it prints, and only for
the person the permit was granted to; issuing and renewing need a valid inspection; accidents are
recorded, flagged when reported late, and block documents until the accident inspection passes."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

import pytest
from permit_factory import add_person, make_dossier  # type: ignore[import-not-found]
from sqlalchemy import select
from tests_helpers import check_wording, existing_register, raises_rule  # type: ignore[import-not-found]

from motodesk.models import BadgePrint, DeputyLink, Inspection, Permit, PersonDocument, Vehicle
from motodesk.rules.checklist import ItemResult
from motodesk.rules.common import ServiceType
from motodesk.rules.deadlines import DeadlineKind
from motodesk.rules.dossier import DocumentKind
from motodesk.services import badges, deadlines, inspections, permits, vehicles
from motodesk.services.badges import BadgeRequest
from motodesk.services.context import AppContext
from motodesk.services.errors import InvalidInputError, RuleViolationError
from motodesk.services.inspections import ItemAnswer

TODAY = date.today()


def _issued(supervisor: AppContext, ctx: AppContext, service: ServiceType = ServiceType.MOTOBOY, **kw):  # noqa: ANN003, ANN202
    dossier = make_dossier(ctx, service, **kw)
    permits.approve(supervisor, dossier.application_id, "4.883/2026", TODAY)
    return dossier, permits.issue(supervisor, dossier.application_id)


def _rules(exc: pytest.ExceptionInfo[RuleViolationError]) -> set[str]:
    return {v.rule_id for v in exc.value.verdicts}


def _age_inspections(ctx: AppContext, vehicle_id: int, days: int) -> None:
    with ctx.write() as s:
        existing_register(s)
        for i in s.scalars(select(Inspection).where(Inspection.vehicle_id == vehicle_id)):
            i.performed_at = datetime.now(UTC) - timedelta(days=days)


def _pass_inspection(inspector: AppContext, inspection_id: int) -> None:
    inspections.start_inspection(inspector, inspection_id=inspection_id)
    view = inspections.get_inspection(inspector, inspection_id)
    inspections.conclude_inspection(inspector, inspection_id, [ItemAnswer(i.code, ItemResult.OK) for i in view.items])


# --- item 4: every failing article, on every document ----------------------------------------------


def test_a_refusal_lists_every_failing_article_on_every_document(ctx: AppContext, clerk: AppContext,
                                                                 supervisor: AppContext) -> None:
    dossier, issued = _issued(supervisor, ctx)
    assert permits.registration_certificate_pdf(clerk, issued.id).startswith(b"%PDF")
    with ctx.write() as s:
        existing_register(s)
        vehicle = s.get(Vehicle, dossier.vehicle_id)
        assert vehicle is not None
        vehicle.insurance_valid_until = TODAY - timedelta(days=1)  # seguro obrigatório expired
        vehicle.crlv_year = TODAY.year - 2  # CRLV not current
        vehicle.year_manufacture, vehicle.year_model = TODAY.year - 6, TODAY.year - 6  # useful life over
        for doc in s.scalars(select(PersonDocument).where(PersonDocument.person_id == dossier.person_id)):
            if doc.kind is DocumentKind.MEDICAL:
                doc.issue_date = TODAY - timedelta(days=400)
            if doc.kind is DocumentKind.CRIMINAL:
                doc.issue_date = TODAY - timedelta(days=6 * 366)
    expected = {"art5_1_i_insurance", "art5_1_i_crlv", "art3_ii_useful_life", "document_medical",
                "document_criminal"}
    for document in (permits.registration_certificate_pdf, permits.transit_authorization_pdf):
        with pytest.raises(RuleViolationError) as refused:
            document(clerk, issued.id)
        assert expected <= _rules(refused)
    with pytest.raises(RuleViolationError) as refused:
        badges.print_badges(clerk, [issued.id])
    assert expected <= _rules(refused)
    message = str(refused.value)
    for article in ("Art. 5º, § 1º, I; Art. 5º, § 5º", "Art. 3º, II", "Art. 5º, VII e § 2º", "Art. 5º, XI"):
        assert article in message
    assert "seguro obrigatório (DPVAT/SPVAT) venceu" in message
    with ctx.read() as s:
        assert s.scalars(select(BadgePrint)).all() == []


def test_a_suspended_permit_prints_nothing(ctx: AppContext, clerk: AppContext, supervisor: AppContext) -> None:
    _dossier, issued = _issued(supervisor, ctx)
    with ctx.write() as s:
        existing_register(s)
        permit = s.get(Permit, issued.id)
        assert permit is not None
        permit.state, permit.suspended_until = permit.state.SUSPENDED, TODAY + timedelta(days=30)
    for document in (permits.registration_certificate_pdf, permits.transit_authorization_pdf):
        with raises_rule("document_state"):
            document(clerk, issued.id)


def test_the_deputy_badge_needs_the_deputys_certificates_too(ctx: AppContext, clerk: AppContext,
                                                              supervisor: AppContext) -> None:
    _holder, issued = _issued(supervisor, ctx, name="Titular Tomás Ribeiro")
    with ctx.write() as s:
        existing_register(s)
        deputy, _photo = add_person(s, TODAY, name="Preposto Paulo Nunes", medical=TODAY - timedelta(days=400))
        s.add(DeputyLink(permit_id=issued.id, deputy_person_id=deputy.id, start_on=TODAY))
    with pytest.raises(RuleViolationError) as refused:
        badges.print_badges(clerk, [BadgeRequest(issued.id, deputy=True)])
    assert _rules(refused) == {"document_medical"}
    assert deputy.full_name in str(refused.value)  # the refusal names the deputy, not the holder
    assert [b.holder_kind for b in badges.print_badges(clerk, [issued.id]).badges] == ["titular"]


def test_a_batch_refuses_as_a_whole_and_names_each_permit(ctx: AppContext, clerk: AppContext,
                                                          supervisor: AppContext) -> None:
    _good, good = _issued(supervisor, ctx, name="Ana Boa Silva")
    bad_dossier, bad = _issued(supervisor, ctx, name="Bruno Falta Seguro")
    with ctx.write() as s:
        existing_register(s)
        vehicle = s.get(Vehicle, bad_dossier.vehicle_id)
        assert vehicle is not None
        vehicle.insurance_insured_cpf = None
    with pytest.raises(RuleViolationError) as refused:
        badges.print_badges(clerk, [good.id, bad.id])
    assert str(refused.value).count(bad.number) == 1 and good.number not in str(refused.value)
    with ctx.read() as s:
        assert s.scalars(select(BadgePrint)).all() == []


# --- item 2, last sentence: only for the person the permit was granted to ---------------------------


def test_documents_print_only_for_the_grantee(ctx: AppContext, clerk: AppContext, supervisor: AppContext) -> None:
    dossier, issued = _issued(supervisor, ctx, name="Carla Titular Souza")
    other = make_dossier(ctx, name="Diego Outra Pessoa")
    assert permits.transit_authorization_pdf(clerk, issued.id, person_id=dossier.person_id).startswith(b"%PDF")
    with raises_rule("document_personal_bearer"):
        permits.transit_authorization_pdf(clerk, issued.id, person_id=other.person_id)
    with raises_rule("document_personal_bearer"):
        badges.print_badges(clerk, [BadgeRequest(issued.id, person_id=other.person_id)])
    with ctx.write() as s:  # the holder row of the permit swapped behind the services' back (the guard of
        existing_register(s)  # legal state refuses this to the program; the gate must hold all the same)
        permit = s.get(Permit, issued.id)
        assert permit is not None
        permit.person_id = other.person_id
    for document in (permits.registration_certificate_pdf, permits.transit_authorization_pdf):
        with pytest.raises(RuleViolationError) as refused:
            document(clerk, issued.id)
        assert {"document_personal_grant", "document_personal_vehicle"} <= _rules(refused)
    with raises_rule("document_personal_grant"):
        badges.print_badges(clerk, [issued.id])


def test_a_deputy_badge_bears_only_the_linked_deputy(ctx: AppContext, clerk: AppContext,
                                                     supervisor: AppContext) -> None:
    _holder, issued = _issued(supervisor, ctx)
    with ctx.write() as s:
        existing_register(s)
        deputy, _ = add_person(s, TODAY, name="Preposto Vinculado")
        stranger, _ = add_person(s, TODAY, name="Pessoa Estranha")
        s.add(DeputyLink(permit_id=issued.id, deputy_person_id=deputy.id, start_on=TODAY))
        deputy_id, stranger_id = deputy.id, stranger.id
    with raises_rule("document_personal_bearer"):
        badges.print_badges(clerk, [BadgeRequest(issued.id, deputy=True, person_id=stranger_id)])
    printed = badges.print_badges(clerk, [BadgeRequest(issued.id, deputy=True, person_id=deputy_id)])
    assert printed.badges[0].holder_name == "Preposto Vinculado"


# --- item 5: inspections expire ----------------------------------------------------------------------


def test_an_expired_inspection_blocks_documents_issue_and_renewal(ctx: AppContext, clerk: AppContext,
                                                                  supervisor: AppContext) -> None:
    dossier, issued = _issued(supervisor, ctx, ServiceType.MOTOBOY)
    _age_inspections(ctx, dossier.vehicle_id, 200)  # motoboy: valid 6 months (Art. 5º, § 6º)
    with raises_rule("inspection_valid"):
        permits.registration_certificate_pdf(clerk, issued.id)
    with raises_rule("inspection_valid"):
        permits.renew_registration(clerk, issued.id)
    with raises_rule("inspection_valid"):
        permits.extend(supervisor, issued.id)

    fresh = make_dossier(ctx, ServiceType.MOTOBOY, name="Eva Vistoria Vencida")
    permits.approve(supervisor, fresh.application_id, "4.884/2026", TODAY)
    _age_inspections(ctx, fresh.vehicle_id, 200)
    with raises_rule("inspection_valid"):
        permits.issue(supervisor, fresh.application_id)


def test_moto_frete_inspection_is_valid_for_a_year(ctx: AppContext, clerk: AppContext,
                                                  supervisor: AppContext) -> None:
    dossier, issued = _issued(supervisor, ctx, ServiceType.MOTOFRETE)
    _age_inspections(ctx, dossier.vehicle_id, 200)  # Art. 23: yearly
    assert permits.registration_certificate_pdf(clerk, issued.id).startswith(b"%PDF")
    assert permits.renew_registration(clerk, issued.id) >= TODAY
    _age_inspections(ctx, dossier.vehicle_id, 370)
    with raises_rule("inspection_valid"):
        permits.registration_certificate_pdf(clerk, issued.id)


def test_the_deadlines_view_shows_when_each_inspection_falls_due(ctx: AppContext, clerk: AppContext,
                                                                 supervisor: AppContext) -> None:
    dossier, _issued_permit = _issued(supervisor, ctx, ServiceType.MOTOBOY, name="Fábio Prazo Vistoria")
    _age_inspections(ctx, dossier.vehicle_id, 170)
    performed = (datetime.now(UTC) - timedelta(days=170)).astimezone(inspections.LOCAL_TZ).date()
    rows = deadlines.deadlines(clerk, deadlines.DeadlineFilter(horizon_days=30, person_id=dossier.person_id,
                                                               kinds=frozenset({DeadlineKind.INSPECTION})))
    from motodesk.rules.periods import add_months

    assert [r.deadline.due for r in rows] == [add_months(performed, 6)]


# --- item 6: accidents --------------------------------------------------------------------------------


def test_a_late_accident_report_is_flagged(ctx: AppContext, clerk: AppContext, supervisor: AppContext) -> None:
    dossier, issued = _issued(supervisor, ctx, name="Gil Acidente Tardio")
    done = vehicles.record_accident(clerk, dossier.vehicle_id, TODAY - timedelta(days=20), TODAY - timedelta(days=2),
                                    False, "Queda sem danos")
    assert done.accident.late_report and not done.accident.awaiting_inspection
    assert any("comunicado após 5 dias — Art. 31, G2, II" in m for m in done.messages)
    rows = deadlines.deadlines(clerk, deadlines.DeadlineFilter(person_id=dossier.person_id,
                                                               kinds=frozenset({DeadlineKind.ACCIDENT_REPORT})))
    assert len(rows) == 1 and "comunicado após 5 dias" in rows[0].detail and rows[0].overdue
    assert permits.registration_certificate_pdf(clerk, issued.id).startswith(b"%PDF")  # safety not compromised

    in_time = vehicles.record_accident(clerk, dossier.vehicle_id, TODAY - timedelta(days=5), TODAY, False)
    assert not in_time.accident.late_report and in_time.messages == []
    with pytest.raises(InvalidInputError):
        vehicles.record_accident(clerk, dossier.vehicle_id, TODAY - timedelta(days=1), TODAY - timedelta(days=3), False)


def test_a_safety_accident_blocks_documents_until_the_accident_inspection_passes(
        ctx: AppContext, clerk: AppContext, supervisor: AppContext, inspector: AppContext) -> None:
    dossier, issued = _issued(supervisor, ctx, name="Helena Acidente Grave")
    done = vehicles.record_accident(clerk, dossier.vehicle_id, TODAY - timedelta(days=1), TODAY, True)
    assert done.accident.awaiting_inspection and done.inspection_id is not None
    for document in (permits.registration_certificate_pdf, permits.transit_authorization_pdf):
        with raises_rule("art31_g4_i_accident_inspection"):
            document(clerk, issued.id)
    with raises_rule("art31_g4_i_accident_inspection"):
        badges.print_badges(clerk, [issued.id])
    rows = deadlines.deadlines(clerk, deadlines.DeadlineFilter(person_id=dossier.person_id,
                                                               kinds=frozenset({DeadlineKind.INSPECTION})))
    assert any("documentos bloqueados" in r.detail for r in rows)

    _pass_inspection(inspector, done.inspection_id)
    assert not vehicles.list_accidents(clerk, dossier.vehicle_id)[0].awaiting_inspection
    assert permits.registration_certificate_pdf(clerk, issued.id).startswith(b"%PDF")
    assert len(badges.print_badges(clerk, [issued.id]).badges) == 1


# --- item 10: mandatory insurance -------------------------------------------------------------------


def test_mandatory_insurance_in_the_holders_name_on_every_vehicle_path(ctx: AppContext, clerk: AppContext,
                                                                      supervisor: AppContext) -> None:
    dossier = make_dossier(ctx, name="Igor Seguro Alheio")
    other = make_dossier(ctx, name="Júlia Outra Segurada")
    record = vehicles.get_vehicle(clerk, dossier.vehicle_id)
    saved = vehicles.save_vehicle(clerk, replace(record.data, insurance_insured_cpf=other.cpf),
                                  vehicle_id=dossier.vehicle_id, expected_version=record.version)
    assert saved.version > record.version
    shown = {v.rule_id: v for v in vehicles.vehicle_verdicts_of(clerk, dossier.vehicle_id, supervisor_settings(ctx))}
    assert not shown["art5_1_i_insurance"].ok
    check_wording("art5_1_i_insurance", shown["art5_1_i_insurance"].message)
    with raises_rule("art5_1_i_insurance"):
        permits.approve(supervisor, dossier.application_id, "4.885/2026", TODAY)
    with pytest.raises(InvalidInputError) as invalid:
        vehicles.save_vehicle(clerk, replace(record.data, insurance_insured_cpf="12345678900"),
                              vehicle_id=dossier.vehicle_id)
    assert "insurance_insured_cpf" in invalid.value.fields


def test_expired_mandatory_insurance_blocks_renewal(ctx: AppContext, clerk: AppContext,
                                                   supervisor: AppContext) -> None:
    dossier, issued = _issued(supervisor, ctx, name="Karla Renova Seguro")
    with ctx.write() as s:
        existing_register(s)
        vehicle = s.get(Vehicle, dossier.vehicle_id)
        assert vehicle is not None
        vehicle.insurance_valid_until = TODAY - timedelta(days=1)
    with raises_rule("art5_1_i_insurance"):
        permits.renew_registration(clerk, issued.id)


def supervisor_settings(ctx: AppContext):  # noqa: ANN201
    from motodesk.services.settings import law_settings

    return law_settings(ctx)
