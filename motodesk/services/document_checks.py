"""The facts a printed document vouches for, loaded in the printing service's own transaction.

Session steps only (no role check, no commit): :func:`require_documents` loads, for each permit to
print, what :func:`motodesk.rules.document_gate.check_document` looks at — the permit and the person it
was granted to, the vehicle's documents, its last inspection, its accidents, the holder's (and the
deputy's) certificates — in a few chunked queries, judges them, and raises one
:class:`RuleViolationError` listing every failing article of every document.  The registration
certificate and transit authorization (:mod:`motodesk.services.permits`) and the badges
(:mod:`motodesk.services.badges`, single and batch) all call it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from datetime import date
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from motodesk.models import (
    Application,
    DeputyLink,
    Inspection,
    Permit,
    Person,
    PersonDocument,
    Vehicle,
    VehicleAccident,
)
from motodesk.rules.accidents import AccidentFacts
from motodesk.rules.common import ServiceType, Verdict
from motodesk.rules.document_gate import (
    Document,
    DocumentFacts,
    InspectionFacts,
    PersonOnDocument,
    check_document,
    check_inspection_valid,
)
from motodesk.rules.dossier import DocumentKind
from motodesk.rules.settings import LawSettings
from motodesk.rules.validators import format_plate
from motodesk.services.clock import LOCAL_TZ
from motodesk.services.errors import RuleViolationError
from motodesk.services.people import DocumentInput, PersonInput, applicant_facts
from motodesk.services.vehicles import VehicleInput, vehicle_facts

_PERSON_FIELDS = tuple(f.name for f in fields(PersonInput))
_DOCUMENT_FIELDS = tuple(f.name for f in fields(DocumentInput))
_VEHICLE_FIELDS = tuple(f.name for f in fields(VehicleInput))
_CHUNK = 500
#: Accident inspections that passed: approved, or approved and later superseded by another one.
_PASSED = ("approved", "superseded")


@dataclass(frozen=True)
class DocumentRequest:
    """One document to print for a permit; ``person_id`` is the person the request names, if any."""

    permit_id: int
    document: Document
    person_id: int | None = None


def last_inspection(s: Session, vehicle_id: int | None, service: ServiceType) -> InspectionFacts | None:
    """The vehicle's last concluded (approved or failed) inspection for ``service``, or None."""
    if vehicle_id is None:
        return None
    row = s.execute(
        select(Inspection.performed_at, Inspection.status)
        .where(Inspection.vehicle_id == vehicle_id, Inspection.service_type == service,
               Inspection.status.in_(("approved", "failed")), Inspection.performed_at.is_not(None))
        .order_by(Inspection.performed_at.desc(), Inspection.id.desc()).limit(1)
    ).first()
    if row is None:
        return None
    return InspectionFacts(row.performed_at.astimezone(LOCAL_TZ).date(), row.status == "approved")


def inspection_verdicts(s: Session, vehicle_id: int | None, service: ServiceType, on: date,
                        settings: LawSettings, *, expiry_only: bool = False) -> list[Verdict]:
    """Art. 5º, § 6º; Art. 23: the vehicle's inspection is valid on ``on`` (empty = valid).

    ``expiry_only``: only an approved inspection whose validity ran out (for the transitions whose
    own rule already refuses a vehicle never inspected or failed, Art. 5º, § 1º, II–III).
    """
    last = last_inspection(s, vehicle_id, service)
    if expiry_only and (last is None or not last.approved):
        return []
    return check_inspection_valid(service, last, on, settings)


def _chunks(ids: Sequence[int]) -> list[Sequence[int]]:
    return [ids[i:i + _CHUNK] for i in range(0, len(ids), _CHUNK)]


def _by_id(s: Session, model: Any, ids: set[int]) -> dict[int, Any]:
    found: dict[int, Any] = {}
    for chunk in _chunks(sorted(ids)):
        found.update({row.id: row for row in s.scalars(select(model).where(model.id.in_(chunk)))})
    return found


def _person_on_document(person: Person, documents: dict[DocumentKind, DocumentInput]) -> PersonOnDocument:
    # The dossier's own mapping of documents to facts, so the gate and the eligibility panel agree.
    facts = applicant_facts(PersonInput(**{f: getattr(person, f) for f in _PERSON_FIELDS}), documents)
    return PersonOnDocument(person.id, person.full_name, medical_date=facts.medical_date,
                            criminal_certificates_date=facts.criminal_certificates_date,
                            criminal_result=facts.criminal_result, declared=facts.declared)


def document_facts(s: Session, requests: Sequence[DocumentRequest], on: date,
                   settings: LawSettings) -> list[DocumentFacts]:
    """The facts of every request on ``on``, in the order given (a missing permit is the caller's to refuse)."""
    from motodesk.services.permits import deputy_requirements_of  # permits prints through this module
    permits: dict[int, Permit] = _by_id(s, Permit, {r.permit_id for r in requests})
    links: dict[int, DeputyLink] = {}
    for chunk in _chunks(sorted({r.permit_id for r in requests if r.document is Document.DEPUTY_BADGE})):
        links.update({link.permit_id: link for link in s.scalars(
            select(DeputyLink).where(DeputyLink.permit_id.in_(chunk), DeputyLink.end_on.is_(None)))})
    applications: dict[int, Application] = _by_id(
        s, Application, {p.application_id for p in permits.values() if p.application_id})
    person_ids = {p.person_id for p in permits.values()} | {link.deputy_person_id for link in links.values()}
    people: dict[int, Person] = _by_id(s, Person, person_ids)
    documents: dict[int, dict[DocumentKind, DocumentInput]] = {pid: {} for pid in person_ids}
    for chunk in _chunks(sorted(person_ids)):
        for row in s.scalars(select(PersonDocument).where(PersonDocument.person_id.in_(chunk))):
            documents[row.person_id][row.kind] = DocumentInput(**{f: getattr(row, f) for f in _DOCUMENT_FIELDS})
    vehicle_ids = {p.vehicle_id for p in permits.values() if p.vehicle_id}
    vehicles: dict[int, Vehicle] = _by_id(s, Vehicle, vehicle_ids)
    successors: dict[int, Vehicle] = _by_id(
        s, Vehicle, {v.replaced_by_id for v in vehicles.values() if not v.active and v.replaced_by_id})
    inspections: dict[int, list[Inspection]] = {vid: [] for vid in vehicle_ids}
    accidents: dict[int, list[AccidentFacts]] = {vid: [] for vid in vehicle_ids}
    for chunk in _chunks(sorted(vehicle_ids)):
        for i in s.scalars(select(Inspection).where(Inspection.vehicle_id.in_(chunk),
                                                    Inspection.status.in_(("approved", "failed", "superseded")),
                                                    Inspection.performed_at.is_not(None))):
            inspections[i.vehicle_id].append(i)
        for a in s.scalars(select(VehicleAccident).where(VehicleAccident.vehicle_id.in_(chunk))):
            accidents[a.vehicle_id].append(AccidentFacts(a.happened_on, a.reported_on, a.safety_compromised))

    out = []
    for request in requests:
        permit = permits[request.permit_id]
        holder = people[permit.person_id]
        application = applications.get(permit.application_id) if permit.application_id else None
        vehicle = vehicles.get(permit.vehicle_id) if permit.vehicle_id else None
        last = None
        passed_accident: tuple[date, ...] = ()
        if vehicle is not None:
            done = inspections[vehicle.id]
            concluded = sorted((i for i in done if i.service_type == permit.service_type
                                and i.status in ("approved", "failed")),
                               key=lambda i: (i.performed_at, i.id))
            if concluded:
                newest = concluded[-1]
                assert newest.performed_at is not None
                last = InspectionFacts(newest.performed_at.astimezone(LOCAL_TZ).date(), newest.status == "approved")
            passed_accident = tuple(i.performed_at.astimezone(LOCAL_TZ).date() for i in done
                                    if i.kind == "accident" and i.status in _PASSED and i.performed_at)
        link = links.get(permit.id) if request.document is Document.DEPUTY_BADGE else None
        deputy = people.get(link.deputy_person_id) if link else None
        successor = (successors.get(vehicle.replaced_by_id) if vehicle is not None and not vehicle.active
                     and vehicle.replaced_by_id else None)
        out.append(DocumentFacts(
            document=request.document,
            permit_number=permit.number,
            service=permit.service_type,
            state=permit.state,
            certificate_valid_until=permit.certificate_valid_until,
            term_end=permit.term_end,
            holder=_person_on_document(holder, documents[holder.id]),
            holder_cpf=holder.cpf,
            suspended_until=permit.suspended_until,
            granted_person_id=application.person_id if application else None,
            requested_person_id=request.person_id,
            vehicle=vehicle_facts(VehicleInput(**{f: getattr(vehicle, f) for f in _VEHICLE_FIELDS}))
            if vehicle else None,
            vehicle_holder_id=vehicle.holder_id if vehicle else None,
            last_inspection=last,
            accidents=tuple(accidents[vehicle.id]) if vehicle else (),
            approved_accident_inspections=passed_accident,
            deputy=_person_on_document(deputy, documents[deputy.id]) if deputy else None,
            deputy_suspended_until=link.suspended_until if link else None,
            deputy_requirements=tuple(deputy_requirements_of(s, permit, on, settings)) if link else (),
            replaced_vehicle=((format_plate(vehicle.plate), format_plate(successor.plate) if successor else None)
                              if vehicle is not None and not vehicle.active else None),
        ))
    return out


def document_refusals(s: Session, requests: Sequence[DocumentRequest], on: date,
                      settings: LawSettings) -> list[Verdict]:
    """Every failing article of every request (empty: all may print)."""
    refusals: list[Verdict] = []
    many = len(requests) > 1
    for facts in document_facts(s, requests, on, settings):
        for verdict in check_document(facts, on, settings):
            # In a batch, say which permit each line is about.
            refusals.append(replace(verdict, message=f"{facts.permit_number} — {verdict.message}") if many
                            else verdict)
    return refusals


def require_documents(s: Session, requests: Sequence[DocumentRequest], on: date, settings: LawSettings,
                      intro: str) -> None:
    """Raise :class:`RuleViolationError` with every failing article when any document may not print."""
    refusals = document_refusals(s, requests, on, settings)
    if refusals:
        raise RuleViolationError(refusals, intro)
