"""The permit's documents (:mod:`motodesk.services.permits`): the registration certificate and the
transit authorization, printed only when every fact they state holds today
(:mod:`motodesk.rules.document_gate`).
"""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from motodesk.models import Decree, DeputyLink, Permit, PermitEvent, Person, PersonDocument, Vehicle
from motodesk.rules.common import Role
from motodesk.rules.document_gate import Document
from motodesk.rules.dossier import DocumentKind
from motodesk.rules.periods import add_years
from motodesk.rules.settings import LawSettings
from motodesk.rules.text import format_date
from motodesk.rules.validators import format_cpf, format_plate, mask_cpf
from motodesk.services import fees
from motodesk.services.context import AppContext, requires
from motodesk.services.document_checks import DocumentRequest, require_documents
from motodesk.services.permits_steps import _permit, _today
from motodesk.services.settings import law_settings

if TYPE_CHECKING:  # reportlab loads with the first document printed, not with the window
    from motodesk.printing.documents import PersonInfo, VehicleInfo


def _require_documents(s: Session, settings: LawSettings, permit: Permit, document: Document,
                       person_id: int | None, on: date) -> None:
    """The document gate (:mod:`motodesk.rules.document_gate`), judged in the printing transaction."""
    require_documents(s, [DocumentRequest(permit.id, document, person_id)], on, settings,
                      f"Não é possível emitir {document.label} de {permit.number}:")


def _person_info(person: Person, *, masked: bool, cnh: str | None = None) -> PersonInfo:
    from motodesk.printing.documents import PersonInfo

    town = f"{person.city}-{person.uf}" if person.city and person.uf else person.city
    address = ", ".join(p for p in (person.address, person.district, town) if p)
    return PersonInfo(name=person.full_name, cpf=mask_cpf(person.cpf) if masked else format_cpf(person.cpf),
                      address=address, cnh=cnh or "")


def _vehicle_info(vehicle: Vehicle | None) -> VehicleInfo:
    from motodesk.printing.documents import VehicleInfo

    if vehicle is None:
        return VehicleInfo(plate="—")
    make_model = " ".join(p for p in (vehicle.make, vehicle.model) if p)
    year = "/".join(str(y) for y in (vehicle.year_manufacture, vehicle.year_model) if y)
    return VehicleInfo(plate=format_plate(vehicle.plate), make_model=make_model, year=year,
                       colour=vehicle.colour or "", renavam=vehicle.renavam or "", chassis=vehicle.vin or "",
                       engine_cc=vehicle.engine_cc)


def _document_parts(s: Session, permit: Permit, *, masked: bool) -> dict[str, Any]:
    person = s.get(Person, permit.person_id)
    assert person is not None
    cnh = s.scalar(select(PersonDocument.number).where(PersonDocument.person_id == person.id,
                                                        PersonDocument.kind == DocumentKind.CNH))
    holder = _person_info(person, masked=masked, cnh=None if masked else cnh)
    link = s.scalar(select(DeputyLink).where(DeputyLink.permit_id == permit.id, DeputyLink.end_on.is_(None)))
    deputy = None
    if link is not None:
        deputy_person = s.get(Person, link.deputy_person_id)
        if deputy_person is not None:
            deputy = _person_info(deputy_person, masked=masked)
    decree = s.get(Decree, permit.decree_id) if permit.decree_id else None
    vehicle = s.get(Vehicle, permit.vehicle_id) if permit.vehicle_id else None
    renewals = int(s.scalar(select(func.count(PermitEvent.id)).where(
        PermitEvent.permit_id == permit.id, PermitEvent.transition == "renew_registration")) or 0)
    return {
        "holder": holder,
        "deputy": deputy,
        "vehicle": _vehicle_info(vehicle),
        "decree": f"Decreto nº {decree.number}, de {format_date(decree.signed_on)}" if decree else "",
        "cycle": renewals + 1,
        "fee": fees.certificate_payment(s, permit),
    }


def _certificate_start(permit: Permit) -> date:
    """First day of the current registration certificate: a year before its last day, not before issue."""
    return max(permit.issued_on, add_years(permit.certificate_valid_until, -1))


def _permit_document_pdf(ctx: AppContext, permit_id: int, document: Document, person_id: int | None,
                         on: date | None) -> bytes:
    """The permit's certificate or transit authorization, printed only when every fact it states
    holds today (:mod:`motodesk.rules.document_gate`); ``person_id``, when given, must be the
    holder's (Art. 6º, § 1º; Art. 7º). The authorization carries masked identifiers and ends with the
    certificate or the permit's term, whichever comes first."""
    on = _today(on)
    settings = law_settings(ctx)
    transit = document is Document.TRANSIT_AUTHORIZATION
    with ctx.read() as s:
        permit = _permit(s, permit_id, None)
        _require_documents(s, settings, permit, document, person_id, on)
        parts = _document_parts(s, permit, masked=transit)
    from motodesk.printing.documents import PermitDocumentData, render_permit_document

    return render_permit_document(PermitDocumentData(
        kind="transit" if transit else "certificate",
        number=f"{permit.number}-{parts['cycle']}",
        permit_number=permit.number,
        service=permit.service_type,
        holder=parts["holder"],
        vehicle=parts["vehicle"],
        issued_on=_certificate_start(permit),
        valid_until=min(permit.certificate_valid_until, permit.term_end) if transit
        else permit.certificate_valid_until,
        decree="" if transit else parts["decree"],
        deputy=parts["deputy"],
        fee_paid=parts["fee"].line if parts["fee"] else "",
    ))


@requires(Role.CLERK, Role.SUPERVISOR)
def registration_certificate_pdf(ctx: AppContext, permit_id: int, *, person_id: int | None = None,
                                 on: date | None = None) -> bytes:
    """Certificado de Registro Cadastral, valid one year (Art. 4º, § 1º), as an A4 PDF."""
    return _permit_document_pdf(ctx, permit_id, Document.REGISTRATION_CERTIFICATE, person_id, on)


@requires(Role.CLERK, Role.SUPERVISOR)
def transit_authorization_pdf(ctx: AppContext, permit_id: int, *, person_id: int | None = None,
                              on: date | None = None) -> bytes:
    """Autorização de Trânsito (Art. 5º, § 3º; Art. 12, I), carried in the vehicle, as an A4 PDF."""
    return _permit_document_pdf(ctx, permit_id, Document.TRANSIT_AUTHORIZATION, person_id, on)
