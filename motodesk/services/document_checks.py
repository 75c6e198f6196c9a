"""The facts a printed document vouches for, loaded in the printing service's own transaction.

Session steps only (no role check, no commit): :func:`require_documents` loads, for each permit to
print, its complete facts (:mod:`motodesk.services.facts`: the permit and the person it was granted
to, the vehicle's documents and characteristics, its last inspection, its accidents, the holder's and
the linked deputy's dossier and the link's state) in a few chunked queries, judges them with
:func:`motodesk.rules.document_gate.check_document`, and raises one
:class:`RuleViolationError` listing every failing article of every document.  The registration
certificate and transit authorization (:mod:`motodesk.services.permits`) and the badges
(:mod:`motodesk.services.badges`, single and batch) all call it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date

from sqlalchemy.orm import Session

from motodesk.rules.common import ServiceType, Verdict
from motodesk.rules.document_gate import (
    Document,
    DocumentFacts,
    check_document,
    check_inspection_valid,
    document_facts_of,
)
from motodesk.rules.facts import InspectionFacts
from motodesk.rules.settings import LawSettings
from motodesk.services.errors import RuleViolationError
from motodesk.services.facts import permits_facts, vehicle_facts_of


@dataclass(frozen=True)
class DocumentRequest:
    """One document to print for a permit; ``person_id`` is the person the request names, if any."""

    permit_id: int
    document: Document
    person_id: int | None = None


def last_inspection(s: Session, vehicle_id: int | None, service: ServiceType) -> InspectionFacts | None:
    """The vehicle's last concluded (approved or failed) inspection for ``service``, or None."""
    vehicle = vehicle_facts_of(s, vehicle_id, service)
    return vehicle.last_inspection if vehicle is not None else None


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


def document_facts(s: Session, requests: Sequence[DocumentRequest], on: date,
                   settings: LawSettings) -> list[DocumentFacts]:
    """The facts of every request on ``on``, in the order given (a missing permit is the caller's to refuse).

    The permits' complete facts are loaded once (:func:`motodesk.services.facts.permits_facts`) and
    the rules turn them into what each document vouches for.
    """
    facts = permits_facts(s, [r.permit_id for r in requests])
    return [document_facts_of(facts[r.permit_id], r.document, on, settings, r.person_id) for r in requests]


def document_refusals(s: Session, requests: Sequence[DocumentRequest], on: date,
                      settings: LawSettings) -> list[Verdict]:
    """Every failing article of every request (empty: all may print)."""
    refusals: list[Verdict] = []
    many = len(requests) > 1
    for facts in document_facts(s, requests, on, settings):
        for verdict in check_document(facts, on, settings):
            # In a batch, say which permit each line is about.
            refusals.append(replace(verdict, message=f"{facts.permit.number} — {verdict.message}") if many
                            else verdict)
    return refusals


def require_documents(s: Session, requests: Sequence[DocumentRequest], on: date, settings: LawSettings,
                      intro: str) -> None:
    """Raise :class:`RuleViolationError` with every failing article when any document may not print."""
    refusals = document_refusals(s, requests, on, settings)
    if refusals:
        raise RuleViolationError(refusals, intro)
