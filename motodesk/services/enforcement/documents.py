"""Printing: the notice in two copies and the certificate of refusal (Art. 29, § 2º); filed scans."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from motodesk.models import (
    InfractionNotice,
    Permit,
    Person,
    PersonDocument,
    Vehicle,
)
from motodesk.printing.documents import (
    InfractionNoticeData,
    PersonInfo,
    RefusalCertificateData,
    VehicleInfo,
    render_infraction_notice,
    render_refusal_certificate,
)
from motodesk.rules import enforcement as law
from motodesk.rules.common import ServiceType
from motodesk.rules.dossier import DocumentKind
from motodesk.rules.enforcement import (
    OffenderKind,
)
from motodesk.rules.infractions import (
    infraction_by_code,
)
from motodesk.rules.text import format_ufm
from motodesk.rules.validators import format_cpf, format_plate
from motodesk.services import attachments
from motodesk.services.clock import local_time
from motodesk.services.context import READERS, AppContext, requires
from motodesk.services.enforcement._common import (
    DEFENCE_OWNER,
    _load_notice,
)
from motodesk.services.errors import (
    NotFoundError,
    RuleViolationError,
)

# --- printing --------------------------------------------------------------------------------------


def _cnh_of(s: Session, person_id: int | None) -> str:
    if person_id is None:
        return ""
    number = s.scalar(select(PersonDocument.number).where(PersonDocument.person_id == person_id,
                                                          PersonDocument.kind == DocumentKind.CNH))
    return number or ""


def _address_of(person: Person | None) -> str:
    if person is None:
        return ""
    town = f"{person.city}-{person.uf}" if person.city and person.uf else person.city
    return ", ".join(p for p in (person.address, person.district, town) if p)


def _notice_data(s: Session, notice: InfractionNotice) -> InfractionNoticeData:
    infraction = infraction_by_code(notice.infraction_code)
    person = s.get(Person, notice.person_id) if notice.person_id else None
    permit = s.get(Permit, notice.permit_id) if notice.permit_id else None
    vehicle = s.get(Vehicle, notice.vehicle_id) if notice.vehicle_id else None
    if vehicle is not None:
        vehicle_info = VehicleInfo(plate=format_plate(vehicle.plate),
                                   make_model=" ".join(p for p in (vehicle.make, vehicle.model) if p),
                                   colour=vehicle.colour or "", renavam=vehicle.renavam or "")
    elif notice.plate:
        vehicle_info = VehicleInfo(plate=format_plate(notice.plate), make_model=notice.vehicle_description or "")
    else:
        vehicle_info = None
    text = infraction.text
    if infraction.fixed_fine_ufm is not None:
        text += (f". Penalidade fixada em lei: multa de {format_ufm(infraction.fixed_fine_ufm)}"
                 + (" e apreensão do veículo" if infraction.vehicle_seizure else ""))
    elif infraction.fixed_penalty is not None:
        text += f". Penalidade fixada em lei: {infraction.fixed_penalty.label.lower()}"
    description = notice.description or ""
    if notice.vehicle_seized:
        description += "\nVeículo apreendido (Art. 32)."
    return InfractionNoticeData(
        notice_number=notice.number,
        article=notice.article,
        infraction_text=text,
        group=infraction.group,
        occurred_at=local_time(notice.occurred_at),
        place=notice.place,
        offender=PersonInfo(name=notice.offender_name,
                            cpf=format_cpf(notice.offender_cpf) if notice.offender_cpf else "não informado",
                            address=_address_of(person), cnh=_cnh_of(s, notice.person_id)),
        description=description,
        inspector_name=notice.inspector_name,
        offender_role=OffenderKind(notice.offender_kind).printed,
        permit_number=permit.number if permit else "",
        service=permit.service_type if permit else (ServiceType.MOTOTAXI if infraction.code == "32" else None),
        vehicle=vehicle_info,
        refused_to_sign=notice.refused_to_sign,
        defence_deadline=notice.defence_due,
    )


@requires(*READERS)
def notice_pdf(ctx: AppContext, notice_id: int) -> bytes:
    """The notice as an A4 PDF in two copies: the offender's and the process file's (Art. 29, § 2º)."""
    with ctx.read() as s:
        data = _notice_data(s, _load_notice(s, notice_id))
    return render_infraction_notice(data)


@requires(*READERS)
def refusal_certificate_pdf(ctx: AppContext, notice_id: int) -> bytes:
    """The inspector's certificate that the offender refused to sign (Art. 29, § 2º)."""
    with ctx.read() as s:
        notice = _load_notice(s, notice_id)
        if not notice.refused_to_sign:
            raise RuleViolationError([law.no_signature_refusal(notice.number)])
        data = RefusalCertificateData(
            notice_number=notice.number,
            offender_name=notice.offender_name,
            offender_cpf=format_cpf(notice.offender_cpf) if notice.offender_cpf else "não informado",
            refused_at=local_time(notice.occurred_at),
            place=notice.place,
            inspector_name=notice.inspector_name,
        )
    return render_refusal_certificate(data)


@requires(*READERS)
def notice_documents(ctx: AppContext, notice_id: int) -> list[tuple[str, bytes]]:
    """What "Imprimir" prints: the notice, and the certificate of refusal when the offender refused."""
    with ctx.read() as s:
        notice = _load_notice(s, notice_id)
        number, refused = notice.number, notice.refused_to_sign
    documents = [(f"Auto de Infração {number}", notice_pdf(ctx, notice_id))]
    if refused:
        documents.append((f"Certidão de recusa de assinatura – {number}", refusal_certificate_pdf(ctx, notice_id)))
    return documents


@requires(*READERS)
def defence_attachment(ctx: AppContext, attachment_id: int) -> tuple[str, str, bytes]:
    """(file name, media type, bytes) of a scan filed with a defence or an appeal."""
    info, content = attachments.attachment_content(ctx, attachment_id)
    if info.owner_table != DEFENCE_OWNER:
        raise NotFoundError("Anexo não encontrado.")
    return info.filename, info.media_type, content
