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

from dataclasses import dataclass
from datetime import date

from motodesk.rules.accidents import AccidentFacts
from motodesk.rules.common import PermitState, ServiceType
from motodesk.rules.eligibility import ApplicantFacts
from motodesk.rules.fees import FeeAct
from motodesk.rules.penalty_evidence import ConvictionEvidence
from motodesk.rules.vehicle import VehicleFacts


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
