"""Sentences read as Portuguese: "anos do requerente", never "anos de o requerente"."""

from __future__ import annotations

from datetime import date

from motodesk.rules.common import ServiceType
from motodesk.rules.eligibility import ApplicantFacts, check_applicant, check_deputy
from motodesk.rules.settings import LawSettings


def test_licence_before_the_age_of_18_names_the_subject_with_its_contraction() -> None:
    facts = ApplicantFacts(birth_date=date(2000, 1, 1), cnh_categories="A", cnh_first_a_date=date(2010, 1, 1),
                           cnh_expiry=date(2030, 1, 1), cnh_ear=True)
    on = date(2026, 6, 1)
    text = " ".join(v.message for v in check_applicant(facts, ServiceType.MOTOBOY, on, LawSettings()))
    assert "18 anos do requerente" in text and "de o " not in text
    text = " ".join(v.message for v in check_deputy(facts, ServiceType.MOTOBOY, on, LawSettings()))
    assert "18 anos do preposto" in text and "de o " not in text
