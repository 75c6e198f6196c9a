"""Fixtures of the rules tests: default settings and dossiers that meet every requirement."""

from __future__ import annotations

from datetime import date

import pytest

from motodesk.rules.common import PermitState, ServiceType
from motodesk.rules.document_gate import Document, DocumentFacts
from motodesk.rules.eligibility import ApplicantFacts
from motodesk.rules.facts import InspectionFacts, PermitFacts, PersonFacts, VehicleOnPermit
from motodesk.rules.settings import LawSettings
from motodesk.rules.vehicle import VehicleFacts

#: The reference date of most tests: a Tuesday, no holiday.
ON = date(2026, 3, 10)

HOLDER_CPF = "52998224725"


@pytest.fixture
def on() -> date:
    return ON


@pytest.fixture
def settings() -> LawSettings:
    return LawSettings()


@pytest.fixture
def applicant() -> ApplicantFacts:
    """A dossier meeting every requirement on ``ON`` (10/03/2026)."""
    return ApplicantFacts(
        birth_date=date(1990, 5, 17),
        sex="M",
        cpf="529.982.247-25",
        cnh_number="34046871254",
        cnh_categories="AB",
        cnh_first_a_date=date(2015, 8, 3),
        cnh_expiry=date(2030, 8, 3),
        cnh_ear=True,
        course_certificate_number="2025/0193",
        course_school="CFC Alto Paranaíba",
        course_date=date(2025, 11, 20),
        rg_number="MG-14.325.876",
        rg_issuer="SSP",
        rg_uf="MG",
        reservist_number="123456789012",
        voter_title="4287 0301 0213",
        electoral_quitacao=True,
        medical_date=date(2026, 2, 2),
        nit="120.5678.901-0",
        photo_date=date(2026, 3, 1),
        residence_proof_date=date(2026, 2, 15),
        address="Rua Presidente Vargas, 1200, Centro, Patrocínio-MG",
        criminal_certificates_date=date(2026, 1, 20),
        criminal_result="negative",
        holds_other_municipal_permit=False,
        is_natural_person=True,
    )


@pytest.fixture
def vehicle() -> VehicleFacts:
    """A mototáxi motorcycle meeting every documentary requirement on ``ON``."""
    return VehicleFacts(
        plate="HMG-4B83",
        renavam="89038149178",
        vin="9C2KC2200LR012345",
        year_manufacture=2023,
        year_model=2024,
        engine_cc=160,
        colour="AMARELA",
        category="ALUGUEL",
        crlv_year=2026,
        crlv_municipality="PATROCINIO",
        crlv_uf="MG",
        owner_cpf=HOLDER_CPF,
        owner_name="JOÃO DA SILVA",
        insurance_valid_until=date(2026, 12, 31),
        insurance_policy_number="0001234",
        authorised_for="passengers",
        mandatory_insurance_valid_until=date(2026, 12, 31),
        mandatory_insurance_number="SPVAT-2026-77",
        mandatory_insurance_insured_cpf=HOLDER_CPF,
        mandatory_insurance_insured_name="JOÃO DA SILVA",
    )


@pytest.fixture
def facts(vehicle: VehicleFacts, applicant: ApplicantFacts) -> DocumentFacts:
    """The badge of an active mototáxi permit whose holder and vehicle meet everything on ``ON``."""
    holder = PersonFacts(1, "João da Silva", HOLDER_CPF, applicant)
    on_permit = VehicleOnPermit(1, "HMG-4B83", 1, True, vehicle, last_inspection=InspectionFacts(date(2026, 1, 12), True))
    return DocumentFacts(Document.BADGE, PermitFacts(
        7, "MT-0007/2026", ServiceType.MOTOTAXI, PermitState.ACTIVE, issued_on=date(2026, 1, 5),
        term_end=date(2031, 1, 5), extended=False, certificate_valid_until=date(2027, 1, 5), holder=holder,
        granted_person_id=1, vehicle=on_permit))
