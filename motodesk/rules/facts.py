"""Everything the law asks about a holder, a deputy, a vehicle and a permit, as plain frozen facts.

:mod:`motodesk.services.facts` loads these from the register in the transaction of the act that
needs them (the document gate, issue, renewal, extension, the import of the existing register, the
demo seed) — once, in a few queries — and the rules judge them.  Nothing here touches a database:
the dataclasses are the whole interface between what is stored and what the law says about it.

==================================  ==================================================================
fact                                 what the law asks of it
==================================  ==================================================================
:attr:`PersonFacts.dossier`          the documents of Art. 5º with their dates: CNH validity,
                                     category A and EAR (II), course, medical (VII), criminal (XI)…
:attr:`PersonFacts.convictions`      recorded final criminal judgments (Art. 35)
:attr:`PersonFacts.penalties`        decided notices of infraction against the person (Art. 34)
:attr:`VehicleOnPermit.facts`        CRLV, engine size, category, colour, owner, mandatory
                                     insurance and the Art. 19 passenger policy (Art. 3º, 5º, 19)
:attr:`VehicleOnPermit.last_inspection`  the last concluded inspection for the service (Art. 23)
:attr:`VehicleOnPermit.accidents`    accidents and the accident inspections passed (Art. 31, G4, I)
:attr:`DeputyOnPermit`               the deputy's dossier and the link's state (Art. 14, 34)
:attr:`PermitFacts.fees_waiting`     the acts whose fee is paid and not yet used (Art. 6º, § 6º)
==================================  ==================================================================
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from motodesk.rules import documents_declared
from motodesk.rules.accidents import AccidentFacts
from motodesk.rules.common import PermitState, ServiceType
from motodesk.rules.documents_declared import DocumentEvidence
from motodesk.rules.dossier import DocumentKind
from motodesk.rules.eligibility import ApplicantFacts
from motodesk.rules.fees import FeeAct
from motodesk.rules.penalty_evidence import ConvictionEvidence
from motodesk.rules.vehicle import REQUIRED_USE, VehicleFacts

# --- the one mapping of the register to the facts ------------------------------------------------
#
# ``person`` and each document are read by attribute: the dossier form's inputs and the stored rows
# carry the same names, so the panel of an unsaved form and the checks of a stored dossier agree.


class _NoDocument:
    number = issuer = issuer_uf = issue_date = presented_on = valid_until = reference_date = None
    categories = flag = result = school = None


def _evidence(doc: Any) -> DocumentEvidence:
    if doc is None:
        return DocumentEvidence()
    return DocumentEvidence(number=doc.number, issue_date=doc.issue_date, valid_until=doc.valid_until,
                            result=doc.result, flag=doc.flag)


def dossier_facts(person: Any, documents: Mapping[DocumentKind, Any], *, photo_date: date | None = None,
                  tender_homologation_date: date | None = None) -> ApplicantFacts:
    """The evidence of a dossier (a person and its documents by kind) as the rules of Art. 5º, 6º § 1º
    and 8º read it."""

    def doc(kind: DocumentKind) -> Any:
        return documents.get(kind) or _NoDocument()

    cnh, course, rg = doc(DocumentKind.CNH), doc(DocumentKind.COURSE), doc(DocumentKind.IDENTITY)
    electoral, criminal = doc(DocumentKind.ELECTORAL), doc(DocumentKind.CRIMINAL)
    address = ", ".join(part for part in (person.address, person.district, person.city) if part) or None
    declares = person.declares_no_other_permit
    return ApplicantFacts(
        birth_date=person.birth_date,
        sex=person.sex or None,
        cpf=person.cpf or None,
        cnh_number=cnh.number,
        cnh_categories=cnh.categories,
        cnh_first_a_date=cnh.reference_date,
        cnh_expiry=cnh.valid_until,
        cnh_ear=cnh.flag,
        course_certificate_number=course.number,
        course_school=course.school or course.issuer,
        course_date=course.reference_date or course.issue_date,
        rg_number=rg.number,
        rg_issuer=rg.issuer,
        rg_uf=rg.issuer_uf,
        reservist_number=doc(DocumentKind.MILITARY).number,
        voter_title=electoral.number,
        electoral_quitacao=electoral.flag,
        medical_date=doc(DocumentKind.MEDICAL).issue_date,
        medical_presented_date=doc(DocumentKind.MEDICAL).presented_on,
        nit=doc(DocumentKind.INSS).number,
        photo_date=photo_date,
        residence_proof_date=doc(DocumentKind.RESIDENCE).issue_date,
        address=address,
        criminal_certificates_date=criminal.issue_date,
        criminal_result=criminal.result,
        holds_other_municipal_permit=None if declares is None else not declares,
        is_natural_person=True,  # Art. 6º, § 1º: the register holds natural persons only
        tender_homologation_date=tender_homologation_date,
        declared=tuple((d.kind, _evidence(documents.get(DocumentKind(d.kind)))) for d in documents_declared.generic()),
    )


def register_vehicle_facts(data: Any) -> VehicleFacts:
    """The vehicle register (a form's input or a stored row) as the vehicle rules read it: the service
    it is registered for says whether it carries passengers or cargo (Art. 5º, § 8º)."""
    service = ServiceType(data.service_type) if data.service_type else None
    return VehicleFacts(
        plate=data.plate, renavam=data.renavam, vin=data.vin, year_manufacture=data.year_manufacture,
        year_model=data.year_model, engine_cc=data.engine_cc, colour=data.colour, category=data.category,
        crlv_year=data.crlv_year, crlv_municipality=data.crlv_municipality, crlv_uf=data.crlv_uf,
        owner_cpf=data.owner_cpf, owner_name=data.owner_name,
        insurance_valid_until=data.passenger_insurance_valid_until,
        authorised_for=REQUIRED_USE[service] if service else None,
        mandatory_insurance_valid_until=data.insurance_valid_until,
        mandatory_insurance_number=data.insurance_number,
        mandatory_insurance_insured_cpf=data.insurance_insured_cpf,
        mandatory_insurance_insured_name=data.insurance_insured_name,
    )


@dataclass(frozen=True)
class InspectionFacts:
    """The vehicle's last concluded inspection for the permit's service."""

    performed_on: date
    approved: bool


@dataclass(frozen=True)
class PenaltyFacts:
    """A decided notice of infraction against the person or the permit (Art. 34)."""

    notice_number: str
    status: str  # decided / appealed / closed
    penalty: str | None  # warning / fine / suspension / revocation
    permit_id: int | None
    suspension_end: date | None = None


@dataclass(frozen=True)
class PersonFacts:
    """A holder or a deputy: the dossier the eligibility rules read, and what the register holds against them."""

    person_id: int
    name: str
    cpf: str
    dossier: ApplicantFacts
    #: Final criminal judgments recorded against the person (Art. 35), newest first.
    convictions: tuple[ConvictionEvidence, ...] = ()
    #: Decided notices of infraction naming the person, oldest first.
    penalties: tuple[PenaltyFacts, ...] = ()

    @property
    def conviction(self) -> ConvictionEvidence | None:
        """The newest recorded conviction, the one Art. 35 acts on."""
        return self.convictions[0] if self.convictions else None


@dataclass(frozen=True)
class VehicleOnPermit:
    """The permit's vehicle as the register holds it today."""

    vehicle_id: int
    plate: str
    holder_id: int | None
    active: bool
    facts: VehicleFacts
    last_inspection: InspectionFacts | None = None
    #: Inspections scheduled and not yet concluded (Art. 23; Art. 31, Grupo 4, I).
    open_inspections: int = 0
    accidents: tuple[AccidentFacts, ...] = ()
    approved_accident_inspections: tuple[date, ...] = ()
    #: The vehicle left service for a replacement: the new vehicle's plate (None: not registered yet).
    successor_plate: str | None = None


@dataclass(frozen=True)
class DeputyOnPermit:
    """The deputy linked to the permit now (Art. 14) and the state of the link."""

    link_id: int
    person: PersonFacts
    start_on: date
    suspended_until: date | None = None
    revoked: bool = False

    def suspended_on(self, on: date) -> bool:
        return self.suspended_until is not None and self.suspended_until >= on


@dataclass(frozen=True)
class PermitFacts:
    """A permit and everything the law asks of everyone and everything it names."""

    permit_id: int
    number: str
    service: ServiceType
    state: PermitState
    issued_on: date
    term_end: date
    extended: bool
    certificate_valid_until: date
    holder: PersonFacts
    suspended_until: date | None = None
    #: The applicant of the permit's application; None for a permit imported from the earlier register.
    granted_person_id: int | None = None
    vehicle: VehicleOnPermit | None = None
    deputy: DeputyOnPermit | None = None
    #: Other permits of the holder in force (Art. 6º, § 2º: one per holder).
    holder_other_permits_in_force: int = 0
    #: The acts of this permit whose fee is paid and waits to be used (Art. 6º, § 6º).
    fees_waiting: tuple[FeeAct, ...] = ()
    #: Recorded from the earlier register by the import (its original dates kept), not issued here.
    imported: bool = False
