"""The document gate and the accident rules as pure functions (issue 16, items 2, 4, 5, 6, 10)."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest

from motodesk.rules.accidents import AccidentFacts, check_accident_report, check_accidents, report_is_late
from motodesk.rules.common import ServiceType, Status
from motodesk.rules.deadlines import inspection_valid_until
from motodesk.rules.document_gate import Document, DocumentFacts, check_document, check_inspection_valid
from motodesk.rules.facts import DeputyOnPermit, InspectionFacts, PersonFacts, VehicleOnPermit
from motodesk.rules.settings import LawSettings
from motodesk.rules.vehicle import VehicleFacts, mandatory_insurance_verdict

ON = date(2026, 3, 10)
HOLDER_CPF = "52998224725"
SETTINGS = LawSettings()


def permit(facts: DocumentFacts, **changes: object) -> DocumentFacts:
    """The same document of the permit with ``changes``."""
    return replace(facts, permit=replace(facts.permit, **changes))


def car(facts: DocumentFacts, **changes: object) -> VehicleOnPermit:
    """The permit's vehicle with ``changes`` to its facts."""
    assert facts.permit.vehicle is not None
    return replace(facts.permit.vehicle, facts=replace(facts.permit.vehicle.facts, **changes))


def dossier(person: PersonFacts, **changes: object) -> PersonFacts:
    """``person`` with ``changes`` to the dossier."""
    return replace(person, dossier=replace(person.dossier, **changes))


def test_a_complete_permit_prints(facts: DocumentFacts) -> None:
    assert check_document(facts, ON, SETTINGS) == []


def test_every_failing_article_is_listed(facts: DocumentFacts) -> None:
    vehicle = replace(car(facts, crlv_year=2024, mandatory_insurance_valid_until=date(2026, 3, 9)), last_inspection=None,
                      accidents=(AccidentFacts(date(2026, 3, 1), date(2026, 3, 2), True),))
    bad = replace(permit(facts, certificate_valid_until=date(2026, 3, 9), vehicle=vehicle,
                         holder=dossier(facts.permit.holder, criminal_result="positive")), requested_person_id=9)
    assert {v.rule_id for v in check_document(bad, ON, SETTINGS)} == {
        "document_certificate", "document_personal_bearer", "art5_1_i_crlv", "art5_1_i_insurance",
        "inspection_valid", "art31_g4_i_accident_inspection", "document_criminal"}
    assert all(v.message.startswith(v.article) for v in check_document(bad, ON, SETTINGS))


def test_the_deputy_badge_judges_the_linked_deputy(facts: DocumentFacts) -> None:
    person = replace(facts.permit.holder, person_id=3, name="Pedro Preposto")
    deputy = DeputyOnPermit(1, dossier(person, medical_date=date(2025, 3, 9), criminal_certificates_date=date(2026, 1, 1)),
                            date(2026, 1, 5))
    badge = replace(permit(facts, deputy=deputy), document=Document.DEPUTY_BADGE)
    assert [v.rule_id for v in check_document(badge, ON, SETTINGS)] == ["document_medical"]
    assert deputy.person.name in check_document(badge, ON, SETTINGS)[0].message  # the deputy, not the holder
    assert facts.permit.holder.name not in check_document(badge, ON, SETTINGS)[0].message
    assert [v.rule_id for v in check_document(permit(badge, deputy=None), ON, SETTINGS)] == ["document_deputy"]
    stranger = replace(permit(badge, deputy=replace(deputy, person=dossier(deputy.person, medical_date=ON))),
                       requested_person_id=1)
    assert [v.rule_id for v in check_document(stranger, ON, SETTINGS)] == ["document_personal_bearer"]


@pytest.mark.parametrize(("service", "performed", "valid"), [
    (ServiceType.MOTOTAXI, date(2025, 9, 10), True),   # last day of the semester
    (ServiceType.MOTOTAXI, date(2025, 9, 9), False),
    (ServiceType.MOTOBOY, date(2025, 9, 9), False),
    (ServiceType.MOTOFRETE, date(2025, 3, 10), True),  # Art. 23: a year
    (ServiceType.MOTOFRETE, date(2025, 3, 9), False),
])
def test_an_approved_inspection_is_valid_for_its_service_period(service: ServiceType, performed: date,
                                                                valid: bool) -> None:
    assert (check_inspection_valid(service, InspectionFacts(performed, True), ON, SETTINGS) == []) is valid


def test_inspection_validity_is_a_setting_counted_in_civil_code_months() -> None:
    assert inspection_valid_until(ServiceType.MOTOBOY, date(2025, 8, 31), SETTINGS) == date(2026, 3, 1)
    longer = replace(SETTINGS, inspection_valid_months_motoboy=12)
    assert inspection_valid_until(ServiceType.MOTOBOY, date(2025, 8, 31), longer) == date(2026, 8, 31)
    failed = check_inspection_valid(ServiceType.MOTOBOY, InspectionFacts(ON, False), ON, SETTINGS)
    assert [(v.rule_id, v.status) for v in failed] == [("inspection_valid", Status.NOT_MET)]
    with pytest.raises(ValueError):  # its sentence: tests/rules/test_wording.py
        LawSettings(inspection_valid_months_motofrete=0)


def test_an_accident_reported_after_five_days_is_flagged() -> None:
    calendar = replace(SETTINGS, roll_forward_to_business_day=False)
    in_time = AccidentFacts(date(2026, 3, 2), date(2026, 3, 7), False)
    late = replace(in_time, reported_on=date(2026, 3, 8))
    assert check_accident_report(in_time, calendar) == [] and not report_is_late(in_time, calendar)
    (flag,) = check_accident_report(late, calendar)
    assert flag.article == "Art. 31, Grupo 2, II" and flag.status is Status.NOT_MET
    (impossible,) = check_accident_report(replace(in_time, reported_on=date(2026, 3, 1)), calendar)
    assert impossible.status is Status.NOT_MET  # what each says: tests/rules/test_wording.py


def test_only_an_accident_inspection_after_the_accident_clears_it() -> None:
    accident = AccidentFacts(date(2026, 3, 2), date(2026, 3, 3), True)
    assert len(check_accidents([accident], [date(2026, 3, 1)])) == 1
    assert check_accidents([accident], [date(2026, 3, 2)]) == []
    assert check_accidents([replace(accident, safety_compromised=False)], []) == []


def test_mandatory_insurance_in_the_holders_name(vehicle: VehicleFacts) -> None:
    assert mandatory_insurance_verdict(vehicle, ON, HOLDER_CPF).ok
    other = mandatory_insurance_verdict(replace(vehicle, mandatory_insurance_insured_cpf="78939909291"), ON,
                                        HOLDER_CPF)
    assert other.status is Status.NOT_MET and other.rule_id == "art5_1_i_insurance"  # sentence: test_wording
    missing = mandatory_insurance_verdict(replace(vehicle, mandatory_insurance_valid_until=None), ON, HOLDER_CPF)
    assert missing.status is Status.PENDING and missing.missing == ("mandatory_insurance_valid_until",)
    assert mandatory_insurance_verdict(vehicle, date(2027, 1, 1), HOLDER_CPF).status is Status.NOT_MET


def test_the_gate_states_the_periods_of_the_settings(facts: DocumentFacts) -> None:
    """Issue 30, item 4: a refusal that states a period reads it from the setting."""
    old = permit(facts, holder=dossier(facts.permit.holder, criminal_certificates_date=date(2022, 3, 1)))
    three = replace(SETTINGS, criminal_valid_years=3)
    [criminal] = check_document(old, ON, three)
    assert criminal.rule_id == "document_criminal"  # "renovadas a cada 3 anos": tests/rules/test_wording.py
    assert check_document(old, ON, replace(three, criminal_valid_years=5)) == []
    lapsed = permit(facts, holder=dossier(facts.permit.holder, medical_date=date(2025, 3, 9)))
    assert [v.rule_id for v in check_document(lapsed, ON, SETTINGS)] == ["document_medical"]
    assert check_document(lapsed, ON, replace(SETTINGS, medical_valid_years=2)) == []


def test_a_declared_gate_document_refuses_only_after_its_transition(facts: DocumentFacts) -> None:
    """Issue 30, item 3: a document a Decree adds (gate=True) refuses printing only from its start date."""
    from motodesk.rules import documents_declared
    from motodesk.rules.documents_declared import DeclaredDocument, DocField, DocumentEvidence

    doc = DeclaredDocument("tax_clearance", "Certidão negativa de débitos municipais", "Art. 5º (Decreto)",
                           fields=(DocField("issue_date", "Emissão", "date"),), gate=True)
    documents_declared.declare(doc)
    try:
        assert [v.rule_id for v in check_document(facts, ON, SETTINGS)] == ["doc_tax_clearance"]
        waiting = replace(SETTINGS, requirement_starts=("tax_clearance=11/03/2026",))
        assert check_document(facts, ON, waiting) == []  # before the start date: not a refusal
        started = replace(SETTINGS, requirement_starts=("tax_clearance=10/03/2026",))
        assert [v.rule_id for v in check_document(facts, ON, started)] == ["doc_tax_clearance"]
        brought = permit(facts, holder=dossier(facts.permit.holder, declared=(
            ("tax_clearance", DocumentEvidence(issue_date=date(2026, 3, 1))),)))
        assert check_document(brought, ON, started) == []
    finally:
        documents_declared.undeclare("tax_clearance")


# --- issue 24: every fact of everyone and everything the document names -----------------------------


def test_the_holders_cnh_is_judged_on_the_day_of_the_document(facts: DocumentFacts) -> None:
    holder = facts.permit.holder
    expired, no_a, unknown = (dossier(holder, cnh_expiry=date(2026, 3, 9)), dossier(holder, cnh_categories="B"),
                              dossier(holder, cnh_expiry=None))
    for bad in (expired, no_a, unknown):
        found = check_document(permit(facts, holder=bad), ON, SETTINGS)
        assert [(v.rule_id, v.article) for v in found] == [("document_cnh", "Art. 5º, II")]
        assert holder.name in found[0].message


@pytest.mark.parametrize(("change", "rule_id"), [
    ({"engine_cc": 300}, "art3_i_engine"),
    ({"colour": "PRETA"}, "art5_1_iv_colour"),
    ({"category": "particular"}, "art3_rental_category"),
    ({"owner_cpf": "11144477735"}, "art5_5_holder_name"),
    ({"insurance_valid_until": date(2026, 3, 9)}, "art19_1_insurance"),
    ({"insurance_valid_until": None}, "art19_1_insurance"),
])
def test_every_vehicle_characteristic_is_vouched_for(facts: DocumentFacts, change: dict[str, object],
                                                     rule_id: str) -> None:
    found = check_document(permit(facts, vehicle=car(facts, **change)), ON, SETTINGS)
    assert rule_id in {v.rule_id for v in found}
    assert all(v.status is Status.NOT_MET for v in found)


def test_the_certificate_and_authorization_vouch_for_the_deputy_they_name(facts: DocumentFacts) -> None:
    deputy = DeputyOnPermit(1, replace(facts.permit.holder, person_id=3, name="Pedro Preposto"), date(2026, 1, 5))
    for document in (Document.REGISTRATION_CERTIFICATE, Document.TRANSIT_AUTHORIZATION):
        named = replace(permit(facts, deputy=deputy), document=document)
        assert check_document(named, ON, SETTINGS) == []
        suspended = check_document(permit(named, deputy=replace(deputy, suspended_until=ON)), ON, SETTINGS)
        assert [v.article for v in suspended] == ["Art. 34, III"]
        assert [v.article for v in check_document(permit(named, deputy=replace(deputy, revoked=True)), ON,
                                                  SETTINGS)] == ["Art. 34, IV"]
        stale = check_document(permit(named, deputy=replace(deputy, person=dossier(
            deputy.person, medical_date=date(2025, 3, 9)))), ON, SETTINGS)
        assert [v.rule_id for v in stale] == ["document_medical"] and deputy.person.name in stale[0].message
    # the holder's own badge does not name the deputy
    assert check_document(permit(facts, deputy=replace(deputy, revoked=True)), ON, SETTINGS) == []
