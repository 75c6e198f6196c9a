"""The A4 documents of the licensing counter, each from its own frozen dataclass.

- Certificado de Registro Cadastral (Art. 4º, § 1º): valid one year, renewable.
- Autorização de Trânsito (Art. 5º, § 3º; Art. 12, I): carried in the vehicle.
- Laudo de Vistoria (Art. 5º, § 1º, II; § 6º; Art. 23): the checklist, item by item.
- Auto de Infração e/ou Notificação (Art. 29): two copies in one PDF, and the
  certidão de recusa de assinatura (Art. 29, § 2º).
- Letter of pending items of an application (Art. 5º and others).
- Renewal letters of the yearly campaign, one per holder in one PDF.
- Escala de trabalho of holder and deputy (Art. 14, § 3º).

The inputs are plain data (str, int, date, datetime, small dataclasses); the
caller (``motodesk.services``) fetches and formats what the database holds, for
instance the CPF masked or in full as the document requires. All user text is
escaped, so a name such as ``Maria D'Ávila-Souza`` or ``<script>&`` prints
literally. Every ``render_*`` function takes ``letterhead`` and ``generated_at``
(for the footer; now by default) and returns PDF bytes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time
from typing import Literal

from reportlab.lib.units import mm
from reportlab.platypus import Flowable, KeepTogether, Spacer

from motodesk.rules.common import ServiceType

from .document_frame import (
    CONTENT_W,
    DEFAULT_LETTERHEAD,
    GREEN,
    LAW,
    PALE_GREEN,
    PALE_RED,
    RED,
    Letterhead,
    body,
    build_pdf,
    cell,
    closing,
    data_table,
    fields,
    note_box,
    section,
    signature_table,
    signatures,
    start_document,
    title,
)
from .typesetting import format_date, format_datetime, format_time, markup

__all__ = [
    "DEFAULT_LETTERHEAD",
    "InfractionNoticeData",
    "InspectionItem",
    "InspectionReportData",
    "Letterhead",
    "PendingItem",
    "PendingLetterData",
    "PersonInfo",
    "RefusalCertificateData",
    "PermitDocumentData",
    "RenewalItem",
    "RenewalLetterData",
    "VehicleInfo",
    "WorkScheduleData",
    "WorkShift",
    "render_infraction_notice",
    "render_inspection_report",
    "render_pending_letter",
    "render_refusal_certificate",
    "render_permit_document",
    "render_renewal_letters",
    "render_work_schedule",
]


# --- shared pieces of data -----------------------------------------------------------------------


@dataclass(frozen=True)
class PersonInfo:
    """A person as printed. *cpf* is printed as given: pass it masked where the document is public."""

    name: str
    cpf: str
    address: str = ""
    cnh: str = ""
    phone: str = ""


@dataclass(frozen=True)
class VehicleInfo:
    plate: str
    make_model: str = ""
    year: str = ""  # "2023/2024" (manufacture/model) or "2023"
    colour: str = ""
    renavam: str = ""
    chassis: str = ""
    engine_cc: int | None = None


def _instrument(service: ServiceType) -> str:
    """ "Permissão" for mototáxi, "Autorização" for the others (Art. 6º)."""
    return service.instrument.capitalize()


def _holder_word(service: ServiceType) -> str:
    return "permissionário(a)" if service is ServiceType.MOTOTAXI else "autorizatário(a)"


def _person_rows(person: PersonInfo, *, with_cnh: bool = True) -> list[tuple[str, object]]:
    rows: list[tuple[str, object]] = [("Nome", person.name), ("CPF", person.cpf)]
    if with_cnh:
        rows.append(("CNH", person.cnh))
    rows.append(("Endereço", person.address))
    return rows


def _vehicle_rows(vehicle: VehicleInfo) -> list[tuple[str, object]]:
    return [
        ("Placa", vehicle.plate),
        ("Marca/modelo", vehicle.make_model),
        ("Ano fabricação/modelo", vehicle.year),
        ("Cor", vehicle.colour),
        ("RENAVAM", vehicle.renavam),
        ("Chassi", vehicle.chassis),
        ("Cilindrada", f"{vehicle.engine_cc} cc" if vehicle.engine_cc else ""),
    ]


# --- Certificado de Registro Cadastral (Art. 4º, § 1º) and Autorização de Trânsito (Art. 5º, § 3º) -------


def _fee_rows(fee_paid: str) -> list[tuple[str, str]]:
    """The fee paid for the document's act, when there was one (Art. 6º, § 6º: "a título oneroso")."""
    return [("Taxa paga (Art. 6º, § 6º)", fee_paid)] if fee_paid else []



SECRETARY = "Secretário(a) Municipal de Segurança Pública, Trânsito e Transportes"
PermitDocumentKind = Literal["certificate", "transit"]


@dataclass(frozen=True, kw_only=True)
class PermitDocumentData:
    """What a permit's two documents state: the Certificado de Registro Cadastral (``kind="certificate"``,
    Art. 4º, § 1º) and the Autorização de Trânsito (``kind="transit"``, Art. 5º, § 3º; Art. 12, I)."""

    kind: PermitDocumentKind
    number: str  # the certificate's or the authorization's number
    permit_number: str
    service: ServiceType
    holder: PersonInfo
    vehicle: VehicleInfo
    issued_on: date
    valid_until: date  # the rules layer computes it (one year for the certificate, Art. 4º, § 1º)
    decree: str = ""  # "Decreto nº 1.234/2026", the act that granted the permit (printed on the certificate)
    deputy: PersonInfo | None = None
    fee_paid: str = ""  # "Taxa de emissão …: R$ 45,90 — guia/DAM nº …, paga em …" (Art. 6º, § 6º); "" = no fee
    signatory_name: str = ""
    signatory_role: str = SECRETARY


def _certificate_story(data: PermitDocumentData, secretariat: str) -> tuple[str, list[Flowable], str]:
    s = data.service
    story: list[Flowable] = [
        body(
            f"A {markup(secretariat)} certifica que <b>{markup(data.holder.name)}</b>, "
            f"CPF {markup(data.holder.cpf)}, está cadastrado(a) nesta Secretaria como {_holder_word(s)} "
            f"do serviço de <b>{markup(s.label)}</b>, com o veículo abaixo identificado, nos termos do "
            f"art. 4º da {LAW}."
        ),
        section(f"{_instrument(s)} e cadastro"),
        fields([
            (f"{_instrument(s)} nº", data.permit_number),
            ("Serviço", s.label),
            ("Ato de outorga", data.decree),
            ("Certificado nº", data.number),
            *_fee_rows(data.fee_paid),
        ]),
        section("Titular"),
        fields(_person_rows(data.holder)),
    ]
    if data.deputy is not None:
        story += [section("Preposto (Art. 14)"), fields(_person_rows(data.deputy))]
    story += [section("Veículo"), fields(_vehicle_rows(data.vehicle), columns=3)]
    note = (
        f"<b>Validade: de {format_date(data.issued_on)} até {format_date(data.valid_until)}.</b> "
        f"Certificado válido por 01 (um) ano, facultada a renovação por igual período "
        f"(Art. 4º, § 1º). Deixar de renovar o registro anualmente constitui infração "
        f"(Art. 30, Grupo 1, II). O titular deve manter o cadastro atualizado (Art. 4º, § 2º)."
    )
    return "Certificado de Registro Cadastral", story, note


def _transit_story(data: PermitDocumentData, _secretariat: str) -> tuple[str, list[Flowable], str]:
    s = data.service
    drivers = "pelo(a) titular" + (" e pelo(a) preposto(a)" if data.deputy is not None else "")
    story: list[Flowable] = [
        body(
            f"Fica autorizado a transitar no Município, na prestação do serviço de <b>{markup(s.label)}</b>, "
            f"o veículo abaixo identificado, conduzido exclusivamente {drivers} cadastrado(s) nesta "
            f"Secretaria (Art. 11), nos termos do art. 5º, § 3º, e do art. 12, I, da {LAW}. "
            f"O serviço é prestado no Município de Patrocínio (Art. 12, parágrafo único)."
        ),
        section("Veículo"),
        fields(_vehicle_rows(data.vehicle), columns=3),
        section(f"{_instrument(s)} e titular"),
        fields([
            (f"{_instrument(s)} nº", data.permit_number),
            ("Serviço", s.label),
            ("Titular", data.holder.name),
            ("CPF do titular", data.holder.cpf),
            *_fee_rows(data.fee_paid),
        ]),
    ]
    if data.deputy is not None:
        story += [
            section("Preposto autorizado a conduzir (Art. 11 e 14)"),
            fields([("Nome", data.deputy.name), ("CPF", data.deputy.cpf)]),
        ]
    note = (
        f"<b>Válida de {format_date(data.issued_on)} até {format_date(data.valid_until)}.</b> "
        f"Documento de porte obrigatório no veículo (Art. 12, I). Não mantê-lo no veículo "
        f"constitui infração (Art. 31, Grupo 1, III)."
    )
    return "Autorização de Trânsito", story, note


_PERMIT_STORIES = {"certificate": _certificate_story, "transit": _transit_story}


def render_permit_document(
    data: PermitDocumentData,
    *,
    letterhead: Letterhead = DEFAULT_LETTERHEAD,
    generated_at: datetime | None = None,
) -> bytes:
    """A permit's certificate or transit authorization: its title and number, what it states, the
    validity box and the secretary's signature — one layout for both, the text from ``data.kind``."""
    name, story, note = _PERMIT_STORIES[data.kind](data, letterhead.secretariat)
    story = [
        *title(name, f"Nº {data.number}"),
        *story,
        Spacer(1, 5 * mm),
        note_box(note),
        Spacer(1, 4 * mm),
        closing(letterhead, format_date(data.issued_on), [(data.signatory_name, data.signatory_role)]),
    ]
    return build_pdf(story, doc_title=f"{name} {data.number}", letterhead=letterhead, generated_at=generated_at)


# --- Laudo de Vistoria ---------------------------------------------------------------------------

InspectionResult = Literal["ok", "not_ok", "na"]
_RESULT_LABELS = {"ok": "OK", "not_ok": "Não OK", "na": "N.A."}


@dataclass(frozen=True)
class InspectionItem:
    article: str  # "Art. 5º, § 7º"
    description: str
    result: InspectionResult
    note: str = ""

    def __post_init__(self) -> None:
        if self.result not in _RESULT_LABELS:
            raise ValueError(f"resultado de item de vistoria inválido: {self.result!r}")


@dataclass(frozen=True)
class InspectionReportData:
    report_number: str
    service: ServiceType
    holder: PersonInfo
    vehicle: VehicleInfo
    items: Sequence[InspectionItem]
    approved: bool
    inspector_name: str
    inspected_at: datetime
    next_due: date | None = None
    permit_number: str = ""  # or the application number before issue
    inspector_id: str = ""  # matrícula
    place: str = ""
    pending: Sequence[str] = ()  # extra pending items beyond the failed checklist items
    notes: str = ""
    kind: str = (
        "Vistoria"  # "Vistoria inicial", "Vistoria semestral (Art. 5º, § 6º)", "Inspeção anual (Art. 23)"...
    )


def render_inspection_report(
    data: InspectionReportData,
    *,
    letterhead: Letterhead = DEFAULT_LETTERHEAD,
    generated_at: datetime | None = None,
) -> bytes:
    """Laudo de Vistoria: vehicle, holder, every checklist item with its article and result, the verdict."""
    s = data.service
    story: list[Flowable] = [
        *title("Laudo de Vistoria", f"Nº {data.report_number}"),
        fields(
            [
                ("Tipo", data.kind),
                ("Data e hora", format_datetime(data.inspected_at)),
                ("Serviço", s.label),
                (f"{_instrument(s)} / requerimento nº", data.permit_number),
                ("Local", data.place),
                ("Vistoriador(a)", _with_id(data.inspector_name, data.inspector_id)),
                ("Resultado", "APROVADO" if data.approved else "REPROVADO"),
                ("Próxima vistoria", format_date(data.next_due)),
            ],
            columns=3,
        ),
        section("Titular"),
        fields(_person_rows(data.holder, with_cnh=False)),
        section("Veículo"),
        fields(_vehicle_rows(data.vehicle), columns=3),
        section(f"Itens verificados ({len(data.items)})"),
    ]
    story.append(_inspection_items_table(data.items))
    story += _inspection_pending(data)
    story += _inspection_verdict(data)
    return build_pdf(
        story,
        doc_title=f"Laudo de Vistoria {data.report_number}",
        letterhead=letterhead,
        generated_at=generated_at,
    )


def _inspection_items_table(items: Sequence[InspectionItem]) -> Flowable:
    """Every checklist item with its article and result, a failed one on pale red."""
    widths = [8 * mm, 28 * mm, 0.0, 19 * mm, 44 * mm]
    widths[2] = CONTENT_W - sum(widths)
    rows = []
    style: list[tuple] = []
    for number, item in enumerate(items, start=1):
        label = _RESULT_LABELS[item.result]
        rows.append(
            [
                cell(number, "cell_small"),
                cell(item.article, "cell_small"),
                cell(item.description, "cell_small"),
                cell(label, "cell_bad" if item.result == "not_ok" else "cell_bold"),
                cell(item.note, "cell_small"),
            ]
        )
        if item.result == "not_ok":
            style.append(("BACKGROUND", (0, number), (-1, number), PALE_RED))
    if rows:
        return data_table(["#", "Artigo", "Item verificado", "Resultado", "Observação"], rows, widths, style)
    return body("Nenhum item registrado.")


def _inspection_pending(data: InspectionReportData) -> list[Flowable]:
    """The pending items (the failed ones, then the others) and the notes."""
    pending = [
        f"{i.description} ({i.article})" + (f" – {i.note}" if i.note else "")
        for i in data.items
        if i.result == "not_ok"
    ]
    pending += list(data.pending)
    story: list[Flowable] = [section("Pendências")]
    if pending:
        story += [body(f"{n}. {markup(text)}", "field") for n, text in enumerate(pending, start=1)]
    else:
        story.append(body("Nenhuma pendência.", "field"))
    if data.notes:
        story += [section("Observações"), body(markup(data.notes))]
    return story


def _inspection_verdict(data: InspectionReportData) -> list[Flowable]:
    """The verdict box and the inspector's and holder's signatures, kept together."""
    verdict = "APROVADO" if data.approved else "REPROVADO"
    colour, background = (GREEN, PALE_GREEN) if data.approved else (RED, PALE_RED)
    next_due = (
        f"<br/>Próxima vistoria: <b>{format_date(data.next_due)}</b>." if data.next_due is not None else ""
    )
    return [
        Spacer(1, 4 * mm),
        KeepTogether(
            [
                note_box(
                    f'<font size="13"><b>RESULTADO: {verdict}</b></font>{next_due}',
                    border=colour,
                    background=background,
                ),
                Spacer(1, 14 * mm),
                signature_table(
                    [
                        (data.inspector_name, _role("Vistoriador(a)", data.inspector_id)),
                        (data.holder.name, "Titular – ciente"),
                    ]
                ),
            ]
        ),
    ]


def _with_id(name: str, ident: str) -> str:
    return f"{name} (matrícula {ident})" if ident else name


def _role(role: str, ident: str) -> str:
    return f"{role} – matrícula {ident}" if ident else role


# --- Auto de Infração e/ou Notificação (Art. 29) -------------------------------------------------

_GROUP_NATURE = {1: ("Leve", "I"), 2: ("Média", "II"), 3: ("Grave", "III"), 4: ("Gravíssima", "IV")}
NOTICE_COPIES = ("1ª via – Autuado", "2ª via – Processo")


@dataclass(frozen=True)
class InfractionNoticeData:
    notice_number: str
    article: str  # "Art. 30, Grupo 2, II"
    infraction_text: str  # the law's words for the item
    group: int  # 1..4 (Art. 33: leve, média, grave, gravíssima); 0: penalty fixed by the law (Art. 15, 32)
    occurred_at: datetime
    place: str
    offender: PersonInfo
    description: str  # the inspector's account of the facts
    inspector_name: str
    inspector_id: str = ""
    offender_role: str = "titular"  # "titular" | "preposto" | "não permissionário" (Art. 32)
    permit_number: str = ""
    service: ServiceType | None = None
    vehicle: VehicleInfo | None = None
    refused_to_sign: bool = False
    defence_deadline: date | None = None  # set by the Decree (Art. 34, parágrafo único)

    def __post_init__(self) -> None:
        if self.group != 0 and self.group not in _GROUP_NATURE:
            raise ValueError(f"grupo de infração deve ser de 0 a 4, não {self.group!r}")


def render_infraction_notice(
    data: InfractionNoticeData,
    *,
    letterhead: Letterhead = DEFAULT_LETTERHEAD,
    generated_at: datetime | None = None,
) -> bytes:
    """Auto de Infração e/ou Notificação in two copies, "1ª via – Autuado" and "2ª via – Processo" (Art. 29)."""
    story: list[Flowable] = []
    for number, label in enumerate(NOTICE_COPIES):
        story += start_document(label, new_page=number > 0)
        story += _notice_copy(data, label)
    return build_pdf(
        story,
        doc_title=f"Auto de Infração {data.notice_number}",
        letterhead=letterhead,
        generated_at=generated_at,
    )


def _notice_copy(data: InfractionNoticeData, label: str) -> list[Flowable]:
    if data.group == 0:
        nature_text = "Penalidade fixada na própria lei (fora dos grupos do Art. 33)"
    else:
        nature, roman = _GROUP_NATURE[data.group]
        nature_text = f"{nature} – Grupo {data.group} (Art. 33, {roman})"
    vehicle = data.vehicle
    story: list[Flowable] = [
        *title("Auto de Infração e/ou Notificação", f"Nº {data.notice_number} – {label}"),
        section("Infração"),
        fields(
            [
                ("Enquadramento", data.article),
                ("Natureza", nature_text),
            ]
        ),
        fields([("Descrição legal", data.infraction_text)], columns=1),
        fields([("Data e hora", format_datetime(data.occurred_at)), ("Local", data.place)]),
        section("Autuado(a)"),
        fields(
            [
                ("Nome", data.offender.name),
                ("CPF", data.offender.cpf),
                ("Condição", data.offender_role.capitalize()),
                ("Permissão/autorização nº", data.permit_number),
                ("Serviço", data.service.label if data.service else ""),
                ("CNH", data.offender.cnh),
            ]
        ),
        section("Veículo"),
        fields(
            [
                ("Placa", vehicle.plate if vehicle else ""),
                ("Marca/modelo", vehicle.make_model if vehicle else ""),
                ("Cor", vehicle.colour if vehicle else ""),
                ("RENAVAM", vehicle.renavam if vehicle else ""),
            ]
        ),
        section("Relato do fiscal"),
        fields([("Descrição da ocorrência", data.description)], columns=1),
        section("Fiscal"),
        fields([("Nome", data.inspector_name), ("Matrícula", data.inspector_id)]),
        Spacer(1, 3 * mm),
        body(
            "Ao(À) autuado(a) é resguardado o direito de defesa em processo administrativo, na forma da "
            "legislação municipal e do Código de Trânsito Brasileiro (Art. 29, § 3º)."
            + (
                f" Prazo para apresentação de defesa: até <b>{format_date(data.defence_deadline)}</b>."
                if data.defence_deadline
                else ""
            ),
            "field",
        ),
    ]
    if data.refused_to_sign:
        offender_sign = (
            "",
            "Autuado(a): RECUSOU-SE A ASSINAR – certidão lavrada pelo fiscal (Art. 29, § 2º)",
        )
    else:
        offender_sign = (data.offender.name, "Autuado(a) – recebi cópia deste auto")
    story.append(
        signatures(
            [
                (data.inspector_name, _role("Fiscal de Trânsito", data.inspector_id)),
                offender_sign,
            ],
            space_above=14 * mm,
        )
    )
    return story


@dataclass(frozen=True)
class RefusalCertificateData:
    """Certidão de recusa de assinatura (Art. 29, § 2º)."""

    notice_number: str
    offender_name: str
    offender_cpf: str
    refused_at: datetime
    place: str
    inspector_name: str
    inspector_id: str = ""
    witnesses: Sequence[str] = ()


def render_refusal_certificate(
    data: RefusalCertificateData,
    *,
    letterhead: Letterhead = DEFAULT_LETTERHEAD,
    generated_at: datetime | None = None,
) -> bytes:
    """The inspector's certificate that the offender refused to sign the notice (Art. 29, § 2º)."""
    inspector = markup(_with_id(data.inspector_name, data.inspector_id))
    story: list[Flowable] = [
        *title(
            "Certidão de Recusa de Assinatura", f"Auto de Infração e/ou Notificação nº {data.notice_number}"
        ),
        body(
            f"Certifico, sob as penas da lei, nos termos do art. 29, § 2º, da {LAW}, que em "
            f"<b>{format_datetime(data.refused_at)}</b>, em {markup(data.place)}, "
            f"<b>{markup(data.offender_name)}</b>, CPF {markup(data.offender_cpf)}, cientificado(a) do teor do "
            f"Auto de Infração e/ou Notificação nº <b>{markup(data.notice_number)}</b>, lavrado nesta data, "
            f"<b>recusou-se a assiná-lo</b>. A cópia do auto foi oferecida ao(à) autuado(a)."
        ),
        body(f"Por ser verdade, firmo a presente certidão. Fiscal: {inspector}."),
        Spacer(1, 2 * mm),
        closing(
            letterhead,
            format_date(data.refused_at.date()),
            [(data.inspector_name, _role("Fiscal de Trânsito", data.inspector_id))],
        ),
    ]
    if data.witnesses:
        story += [
            Spacer(1, 4 * mm),
            section("Testemunhas"),
            signatures(
                [(name, f"Testemunha {n}") for n, name in enumerate(data.witnesses, start=1)], 12 * mm
            ),
        ]
    return build_pdf(
        story,
        doc_title=f"Certidão de recusa – auto {data.notice_number}",
        letterhead=letterhead,
        generated_at=generated_at,
    )


# --- Letter of pending items ---------------------------------------------------------------------


@dataclass(frozen=True)
class PendingItem:
    """One unmet or unproven requirement: its article and the rule's pt_BR sentence."""

    article: str
    message: str


@dataclass(frozen=True)
class PendingLetterData:
    application_number: str
    service: ServiceType
    applicant_name: str
    letter_date: date
    items: Sequence[PendingItem]
    applicant_address: str = ""
    deadline: date | None = None
    counter: str = ""  # where to bring the documents: "Balcão da SESTRAN – Rua ..., seg. a sex., 8h às 17h"
    signatory_name: str = ""
    signatory_role: str = "Atendente – SESTRAN"


def render_pending_letter(
    data: PendingLetterData,
    *,
    letterhead: Letterhead = DEFAULT_LETTERHEAD,
    generated_at: datetime | None = None,
) -> bytes:
    """Letter to an applicant listing what is missing for the application, item by item with its article."""
    s = data.service
    story: list[Flowable] = [
        *title("Comunicado de Pendências", f"Requerimento nº {data.application_number}"),
        *_addressee(data.applicant_name, data.applicant_address),
        body(
            f"<b>Assunto:</b> pendências do requerimento de {s.instrument} para o serviço de "
            f"<b>{markup(s.label)}</b> (Lei Municipal nº 4.883/2017)."
        ),
        body(
            f"Prezado(a) {markup(data.applicant_name)}, a análise do seu requerimento encontrou "
            f"{_count(len(data.items), 'pendência', 'pendências')}, relacionada(s) abaixo com o dispositivo "
            f"da lei que a exige. Enquanto houver pendências, o requerimento não poderá ser deferido."
        ),
    ]
    rows = [[cell(n), cell(item.article), cell(item.message)] for n, item in enumerate(data.items, start=1)]
    widths = [9 * mm, 34 * mm]
    widths.append(CONTENT_W - sum(widths))
    story.append(data_table(["#", "Fundamento", "Pendência"], rows, widths))
    where = (
        f" no seguinte local: {markup(data.counter)}"
        if data.counter
        else " no balcão de atendimento da SESTRAN"
    )
    when = f" até <b>{format_date(data.deadline)}</b>" if data.deadline else ""
    story += [
        Spacer(1, 4 * mm),
        body(
            f"Apresente os documentos ou regularize os itens acima{when}{where}, levando este comunicado "
            f"e o número do requerimento."
        ),
        closing(letterhead, format_date(data.letter_date), [(data.signatory_name, data.signatory_role)]),
    ]
    return build_pdf(
        story,
        doc_title=f"Pendências do requerimento {data.application_number}",
        letterhead=letterhead,
        generated_at=generated_at,
    )


def _addressee(name: str, address: str) -> list[Flowable]:
    lines = f"Ao(À) Sr(a).<br/><b>{markup(name)}</b>"
    if address:
        lines += f"<br/>{markup(address)}"
    return [body(lines, "field"), Spacer(1, 4 * mm)]


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


# --- Renewal letters (yearly campaign) -----------------------------------------------------------


@dataclass(frozen=True)
class RenewalItem:
    """One thing due in the campaign: what, by which article, due when."""

    what: str  # "Certificado de registro cadastral", "Atestado médico de sanidade física e mental"
    article: str  # "Art. 4º, § 1º"
    due_on: date


@dataclass(frozen=True)
class RenewalLetterData:
    holder_name: str
    permit_number: str
    service: ServiceType
    letter_date: date
    deadline: date  # the campaign's deadline (portaria)
    items: Sequence[RenewalItem]
    place: str  # where to go
    holder_address: str = ""
    opening_hours: str = ""  # "segunda a sexta, das 8h às 17h"
    appointment: datetime | None = None  # booked time at the counter, if any
    portaria: str = ""  # "Portaria SESTRAN nº 12/2026"
    documents_to_bring: Sequence[str] = ()
    signatory_name: str = ""
    signatory_role: str = "SESTRAN – Setor de Cadastro"


def render_renewal_letters(
    letters: Iterable[RenewalLetterData],
    *,
    letterhead: Letterhead = DEFAULT_LETTERHEAD,
    generated_at: datetime | None = None,
) -> bytes:
    """One renewal letter per holder, each starting on a new page, all in one PDF (pages counted per letter)."""
    story: list[Flowable] = []
    count = 0
    for count, letter in enumerate(letters, start=1):
        story += start_document(new_page=count > 1)
        story += _renewal_letter(letter, letterhead)
    if count == 0:
        raise ValueError("nenhuma carta de renovação para gerar")
    return build_pdf(
        story, doc_title="Renovação anual – convocação", letterhead=letterhead, generated_at=generated_at
    )


def _renewal_letter(data: RenewalLetterData, letterhead: Letterhead) -> list[Flowable]:
    s = data.service
    act = f", conforme {markup(data.portaria)}" if data.portaria else ""
    story: list[Flowable] = [
        *title("Convocação para Renovação Anual", f"{_instrument(s)} nº {data.permit_number} – {s.label}"),
        *_addressee(data.holder_name, data.holder_address),
        body(
            f"Prezado(a) {markup(data.holder_name)}, a renovação anual do cadastro dos permissionários e "
            f"autorizatários{act}, deve ser feita até <b>{format_date(data.deadline)}</b>. Constam como "
            f"vencidos ou a vencer os itens abaixo:"
        ),
    ]
    rows = [[cell(item.what), cell(item.article), cell(format_date(item.due_on))] for item in data.items]
    widths = [CONTENT_W - 34 * mm - 28 * mm, 34 * mm, 28 * mm]
    if rows:
        story.append(data_table(["Documento ou exigência", "Fundamento", "Vencimento"], rows, widths))
    where = f"<b>Onde:</b> {markup(data.place)}"
    if data.opening_hours:
        where += f", {markup(data.opening_hours)}"
    story += [Spacer(1, 4 * mm), body(where + ".")]
    if data.appointment is not None:
        story.append(body(f"<b>Seu atendimento está agendado para {format_datetime(data.appointment)}.</b>"))
    if data.documents_to_bring:
        story.append(body("<b>Traga:</b>"))
        story += [body(f"• {markup(doc)}", "field") for doc in data.documents_to_bring]
        story.append(Spacer(1, 3 * mm))
    story += [
        note_box(
            f"Deixar de renovar o registro anualmente e de renovar o atestado médico constitui infração "
            f"(Art. 30, Grupo 1, I e II), sujeita às penalidades do art. 34 da {LAW} – advertência, multa, "
            f"suspensão ou cassação –, apuradas em processo administrativo com direito de defesa "
            f"(Art. 29, § 3º).",
            border=RED,
            background=PALE_RED,
        ),
        Spacer(1, 4 * mm),
        closing(letterhead, format_date(data.letter_date), [(data.signatory_name, data.signatory_role)]),
    ]
    return story


# --- Escala de trabalho (Art. 14, § 3º) ----------------------------------------------------------

WEEKDAYS = (
    "Segunda-feira",
    "Terça-feira",
    "Quarta-feira",
    "Quinta-feira",
    "Sexta-feira",
    "Sábado",
    "Domingo",
)


@dataclass(frozen=True)
class WorkShift:
    weekday: int  # 0 = segunda-feira … 6 = domingo (as date.weekday())
    start: time
    end: time  # earlier than start: the shift ends the next day
    driver: Literal["titular", "preposto"]

    def __post_init__(self) -> None:
        if not 0 <= self.weekday <= 6:
            raise ValueError("dia da semana deve ser de 0 (segunda) a 6 (domingo)")
        if self.driver not in ("titular", "preposto"):
            raise ValueError("condutor deve ser 'titular' ou 'preposto'")

    @property
    def label(self) -> str:
        text = f"{format_time(self.start)} – {format_time(self.end)}"
        return text + " (dia seguinte)" if self.end <= self.start else text


@dataclass(frozen=True)
class WorkScheduleData:
    permit_number: str
    service: ServiceType
    holder: PersonInfo
    deputy: PersonInfo
    plate: str
    shifts: Sequence[WorkShift]
    valid_from: date
    notes: str = ""
    signed_on: date | None = None


def render_work_schedule(
    data: WorkScheduleData,
    *,
    letterhead: Letterhead = DEFAULT_LETTERHEAD,
    generated_at: datetime | None = None,
) -> bytes:
    """Escala de trabalho of holder and deputy, filed with the secretariat (Art. 14, § 3º)."""
    s = data.service
    story: list[Flowable] = [
        *title(
            "Escala de Trabalho – Titular e Preposto", f"{_instrument(s)} nº {data.permit_number} – {s.label}"
        ),
        body(
            f"Escala de trabalho do(a) titular e do(a) preposto(a), entregue ao órgão de trânsito para "
            f"fiscalização do seu cumprimento (Art. 14, § 3º, da {LAW}). Somente o(a) titular e o(a) "
            f"preposto(a) cadastrados podem conduzir o veículo (Art. 11)."
        ),
        fields(
            [
                ("Titular", data.holder.name),
                ("CPF do titular", data.holder.cpf),
                ("Preposto(a)", data.deputy.name),
                ("CPF do(a) preposto(a)", data.deputy.cpf),
                ("Placa do veículo", data.plate),
                ("Vigente a partir de", format_date(data.valid_from)),
            ]
        ),
        section("Dias e horários"),
    ]
    rows = []
    for day, name in enumerate(WEEKDAYS):
        cells: list[Flowable | str] = [cell(name, "cell_bold")]
        for driver in ("titular", "preposto"):
            shifts = sorted(
                (sh for sh in data.shifts if sh.weekday == day and sh.driver == driver),
                key=lambda sh: sh.start,
            )
            cells.append(body("<br/>".join(markup(sh.label) for sh in shifts) or "—", "cell"))
        rows.append(cells)
    widths = [40 * mm, (CONTENT_W - 40 * mm) / 2, (CONTENT_W - 40 * mm) / 2]
    story.append(data_table(["Dia", "Titular", "Preposto(a)"], rows, widths))
    if data.notes:
        story += [section("Observações"), body(markup(data.notes))]
    when = format_date(data.signed_on) if data.signed_on else "____/____/________"
    story += [
        Spacer(1, 5 * mm),
        closing(letterhead, when, [(data.holder.name, "Titular"), (data.deputy.name, "Preposto(a)")]),
        Spacer(1, 8 * mm),
        body(
            "Recebido na SESTRAN em ____/____/________ por _______________________________________.",
            "small",
        ),
    ]
    return build_pdf(
        story,
        doc_title=f"Escala de trabalho {data.permit_number}",
        letterhead=letterhead,
        generated_at=generated_at,
    )
