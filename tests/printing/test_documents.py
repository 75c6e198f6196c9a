"""The A4 documents read back: letterhead, footer, the law's articles, every item, literal names."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime, time

import pytest

from motodesk.printing.documents import (
    InfractionNoticeData,
    InspectionItem,
    InspectionReportData,
    Letterhead,
    PendingItem,
    PendingLetterData,
    PermitDocumentData,
    PersonInfo,
    RefusalCertificateData,
    RenewalItem,
    RenewalLetterData,
    VehicleInfo,
    WorkScheduleData,
    WorkShift,
    render_infraction_notice,
    render_inspection_report,
    render_pending_letter,
    render_permit_document,
    render_refusal_certificate,
    render_renewal_letters,
    render_work_schedule,
)
from motodesk.rules.common import ServiceType

GENERATED = datetime(2026, 3, 12, 14, 5)
TRICKY = "Maria D'Ávila-Souza <script>&amp; Çãõ"
HOLDER = PersonInfo(TRICKY, "529.982.247-25", "Rua Professor Ângelo Ramos, 123 – Centro", "01234567890")
DEPUTY = PersonInfo("José Ênio Gonçalves", "111.444.777-35", "Av. Faria Pereira, 45", "98765432100")
VEHICLE = VehicleInfo(
    "ABC1D23", "Honda CG 160 Fan", "2023/2024", "Amarela", "01234567890", "9C2KC2200PR000001", 160
)


def squash(text: str) -> str:
    return " ".join(text.split())


def certificate() -> bytes:
    return render_permit_document(
        PermitDocumentData(
            kind="certificate",
            number="CRC-0031/2026",
            permit_number="MT-0007/2026",
            service=ServiceType.MOTOTAXI,
            holder=HOLDER,
            vehicle=VEHICLE,
            issued_on=date(2026, 3, 12),
            valid_until=date(2027, 3, 11),
            decree="Decreto nº 3.412/2026",
            deputy=DEPUTY,
            signatory_name="Carlos Alberto Nunes",
        ),
        generated_at=GENERATED,
    )


def transit() -> bytes:
    return render_permit_document(
        PermitDocumentData(
            kind="transit",
            number="AT-0031/2026",
            permit_number="MB-0123/2026",
            service=ServiceType.MOTOBOY,
            holder=HOLDER,
            vehicle=VEHICLE,
            issued_on=date(2026, 3, 12),
            valid_until=date(2027, 3, 11),
            deputy=DEPUTY,
        ),
        generated_at=GENERATED,
    )


def checklist(n: int) -> list[InspectionItem]:
    results = ("ok", "ok", "not_ok", "na")
    return [
        InspectionItem(
            article=f"Art. {3 + i % 20}º",
            description=f"Item {i:02d}: equipamento obrigatório conferido e em perfeito estado de conservação",
            result=results[i % 4],  # type: ignore[arg-type]
            note="Trincado, substituir" if results[i % 4] == "not_ok" else "",
        )
        for i in range(1, n + 1)
    ]


def inspection(items: list[InspectionItem] | None = None, approved: bool = False) -> bytes:
    return render_inspection_report(
        InspectionReportData(
            report_number="LV-0099/2026",
            service=ServiceType.MOTOFRETE,
            holder=HOLDER,
            vehicle=VEHICLE,
            items=checklist(40) if items is None else items,
            approved=approved,
            inspector_name="Paulo Vistoriador",
            inspector_id="12345",
            inspected_at=datetime(2026, 3, 10, 9, 30),
            next_due=date(2027, 3, 10),
            permit_number="MF-0042/2026",
            place="Pátio da SESTRAN",
            pending=("Apresentar o CRLV do exercício (Art. 5º, § 1º, I)",),
            kind="Inspeção anual (Art. 23)",
        ),
        generated_at=GENERATED,
    )


NOTICE = InfractionNoticeData(
    notice_number="AI-000123/2026",
    article="Art. 30, Grupo 4, VI",
    infraction_text="angariar passageiros em ponto de ônibus ou de táxi",
    group=4,
    occurred_at=datetime(2026, 3, 11, 18, 42),
    place="Praça Honorato Borges, em frente à Matriz",
    offender=HOLDER,
    description="Condutor abordado angariando passageiros no ponto de ônibus.",
    inspector_name="Fernanda Fiscal",
    inspector_id="4321",
    permit_number="MT-0007/2026",
    service=ServiceType.MOTOTAXI,
    vehicle=VEHICLE,
    defence_deadline=date(2026, 3, 26),
)


def notice(**changes) -> bytes:
    return render_infraction_notice(replace(NOTICE, **changes), generated_at=GENERATED)


def refusal() -> bytes:
    return render_refusal_certificate(
        RefusalCertificateData(
            notice_number="AI-000123/2026",
            offender_name=TRICKY,
            offender_cpf="529.982.247-25",
            refused_at=datetime(2026, 3, 11, 18, 50),
            place="Praça Honorato Borges",
            inspector_name="Fernanda Fiscal",
            inspector_id="4321",
            witnesses=("Testemunha Um", "Testemunha Dois"),
        ),
        generated_at=GENERATED,
    )


PENDING_ITEMS = [
    PendingItem("Art. 5º, II", "CNH categoria A há menos de 2 anos: primeira habilitação em 10/05/2025."),
    PendingItem("Art. 5º, VII", "Atestado médico de sanidade física e mental não apresentado."),
    PendingItem("Art. 5º, X", "Comprovante de residência com mais de 90 dias (emitido em 02/11/2025)."),
]


def pending() -> bytes:
    return render_pending_letter(
        PendingLetterData(
            application_number="REQ-0451/2026",
            service=ServiceType.MOTOBOY,
            applicant_name=TRICKY,
            letter_date=date(2026, 3, 12),
            items=PENDING_ITEMS,
            applicant_address="Rua A, 1",
            deadline=date(2026, 4, 11),
            counter="Balcão da SESTRAN, segunda a sexta, das 8h às 17h",
        ),
        generated_at=GENERATED,
    )


def renewal_letter(name: str, permit: str, items: int = 2, **changes) -> RenewalLetterData:
    data = RenewalLetterData(
        holder_name=name,
        permit_number=permit,
        service=ServiceType.MOTOTAXI,
        letter_date=date(2026, 2, 1),
        deadline=date(2026, 3, 31),
        items=[
            RenewalItem(f"Documento {i} a renovar", "Art. 4º, § 1º", date(2026, 3, 11))
            for i in range(1, items + 1)
        ],
        place="Balcão da SESTRAN – Av. João Alves do Nascimento, 1.452",
        opening_hours="segunda a sexta, das 8h às 17h",
        portaria="Portaria SESTRAN nº 12/2026",
        documents_to_bring=("CNH válida com a observação EAR", "Atestado médico recente"),
    )
    return replace(data, **changes)


def schedule() -> bytes:
    shifts = [WorkShift(d, time(6, 0), time(14, 0), "titular") for d in range(6)]
    shifts += [WorkShift(d, time(14, 0), time(22, 0), "preposto") for d in range(5)]
    shifts += [WorkShift(5, time(22, 0), time(4, 0), "preposto")]
    return render_work_schedule(
        WorkScheduleData(
            permit_number="MT-0007/2026",
            service=ServiceType.MOTOTAXI,
            holder=HOLDER,
            deputy=DEPUTY,
            plate="ABC1D23",
            shifts=shifts,
            valid_from=date(2026, 3, 15),
        ),
        generated_at=GENERATED,
    )


ALL_DOCUMENTS = {
    "certificate": certificate,
    "transit": transit,
    "inspection": inspection,
    "notice": notice,
    "refusal": refusal,
    "pending": pending,
    "renewal": lambda: render_renewal_letters(
        [renewal_letter(TRICKY, "MT-0007/2026")], generated_at=GENERATED
    ),
    "schedule": schedule,
}


@pytest.fixture(scope="module", params=sorted(ALL_DOCUMENTS))
def document(request) -> tuple[str, bytes]:
    return request.param, ALL_DOCUMENTS[request.param]()


def test_every_page_is_a4_with_letterhead_and_numbered_footer(document, pdf):
    _, data = document
    reader = pdf.read(data)
    texts = pdf.texts(data)
    for page in reader.pages:
        width, height = pdf.size_mm(page)
        assert width == pytest.approx(210, abs=0.1) and height == pytest.approx(297, abs=0.1)
    for text in texts:
        assert "PREFEITURA MUNICIPAL DE PATROCÍNIO – MG" in text
        assert "SESTRAN – Secretaria Municipal de Segurança Pública, Trânsito e Transportes" in text
        assert "Lei Municipal nº 4.883/2017" in text
        assert "12/03/2026 às 14:05" in text
    assert "Página 1 de" in texts[0]


def test_user_text_prints_literally(document, pdf):
    name, data = document
    text = squash(" ".join(pdf.texts(data)))
    assert TRICKY in text, name


def test_default_generation_time_is_now(pdf):
    data = render_pending_letter(
        PendingLetterData("REQ-1/2026", ServiceType.MOTOTAXI, "Ana", date(2026, 3, 12), PENDING_ITEMS)
    )
    assert datetime.now().strftime("%d/%m/%Y") in pdf.texts(data)[0]


def test_letterhead_comes_from_the_settings(pdf):
    letterhead = Letterhead(address="Av. João Alves do Nascimento, 1.452 – Centro – (34) 3839-1800")
    data = render_pending_letter(
        PendingLetterData("REQ-1/2026", ServiceType.MOTOTAXI, "Ana", date(2026, 3, 12), PENDING_ITEMS),
        letterhead=letterhead,
    )
    assert "Av. João Alves do Nascimento, 1.452 – Centro – (34) 3839-1800" in pdf.texts(data)[0]


def test_registration_certificate(pdf):
    data = certificate()
    (text,) = pdf.texts(data)  # one page
    flat = squash(text)
    for expected in (
        "Certificado de Registro Cadastral",
        "Nº CRC-0031/2026",
        "MT-0007/2026",
        "Mototáxi",
        "permissionário(a)",
        "Decreto nº 3.412/2026",
        "529.982.247-25",
        "ABC1D23",
        "9C2KC2200PR000001",
        "160 cc",
        "José Ênio Gonçalves",
        "Validade: de 12/03/2026 até 11/03/2027.",
        "Art. 4º, § 1º",
        "Patrocínio – MG, 12/03/2026.",
        "Carlos Alberto Nunes",
    ):
        assert expected in flat, expected
    assert "Página 1 de 1" in text


def test_transit_authorization(pdf):
    (text,) = pdf.texts(transit())
    flat = squash(text)
    for expected in (
        "Autorização de Trânsito",
        "Nº AT-0031/2026",
        "AUTORIZAÇÃO Nº",
        "MB-0123/2026",
        "Motoboy",
        "art. 5º, § 3º, e do art. 12, I",
        "Art. 12, I",
        "Válida de 12/03/2026 até 11/03/2027.",
        "ABC1D23",
        "José Ênio Gonçalves",
        "Art. 31, Grupo 1, III",
    ):
        assert expected in flat, expected


def test_inspection_report_with_40_items_spans_pages_and_lists_every_item(pdf):
    data = inspection()
    texts = pdf.texts(data)
    assert len(texts) >= 2
    flat = squash(" ".join(texts))
    for i in range(1, 41):
        assert f"Item {i:02d}: equipamento obrigatório" in flat, i
    # The table header repeats on every page the table spans.
    pages_with_items = [t for t in texts if "Item " in t and "equipamento" in t]
    assert len(pages_with_items) >= 2
    for text in pages_with_items:
        assert "Item verificado" in text and "Resultado" in text and "Observação" in text
    assert flat.count("Não OK") == 10 and flat.count("N.A.") == 10
    assert "Trincado, substituir" in flat
    for expected in (
        "Laudo de Vistoria",
        "Nº LV-0099/2026",
        "Inspeção anual (Art. 23)",
        "10/03/2026 às 09:30",
        "Paulo Vistoriador",
        "matrícula 12345",
        "RESULTADO: REPROVADO",
        "Próxima vistoria: 10/03/2027.",
        "Apresentar o CRLV do exercício",
        "Moto-frete",
        "Honda CG 160 Fan",
    ):
        assert expected in flat, expected
    total = len(texts)
    for number, text in enumerate(texts, start=1):
        assert f"Página {number} de {total}" in text


def test_inspection_report_approved_without_pending(pdf):
    items = [InspectionItem("Art. 5º, § 7º", "Antena corta-pipas", "ok")]
    flat = squash(" ".join(pdf.texts(inspection(items, approved=True))))
    assert "RESULTADO: APROVADO" in flat and "REPROVADO" not in flat
    assert "Art. 5º, § 7º" in flat and "Antena corta-pipas" in flat


def test_inspection_item_result_is_checked():
    with pytest.raises(ValueError):
        InspectionItem("Art. 3º, I", "Cilindrada", "passed")  # type: ignore[arg-type]


def test_infraction_notice_in_two_copies(pdf):
    texts = pdf.texts(notice())
    assert len(texts) == 2
    first, second = (squash(t) for t in texts)
    assert "1ª via – Autuado" in first and "2ª via – Processo" not in first
    assert "2ª via – Processo" in second and "1ª via – Autuado" not in second
    for flat in (first, second):
        for expected in (
            "Auto de Infração e/ou Notificação",
            "AI-000123/2026",
            "Art. 30, Grupo 4, VI",
            "angariar passageiros em ponto de ônibus ou de táxi",
            "Gravíssima – Grupo 4 (Art. 33, IV)",
            "11/03/2026 às 18:42",
            "Praça Honorato Borges, em frente à Matriz",
            "ABC1D23",
            "Condutor abordado angariando passageiros no ponto de ônibus.",
            "Fernanda Fiscal",
            "4321",
            "Art. 29, § 3º",
            "26/03/2026",
            "recebi cópia",
            "Página 1 de 1",  # each copy is numbered on its own
        ):
            assert expected in flat, expected
        assert "RECUSOU-SE" not in flat


def test_infraction_notice_refused_signature(pdf):
    for text in pdf.texts(notice(refused_to_sign=True)):
        flat = squash(text)
        assert "RECUSOU-SE A ASSINAR" in flat and "Art. 29, § 2º" in flat
        assert "recebi cópia" not in flat


def test_infraction_group_is_one_to_four():
    with pytest.raises(ValueError):
        replace(NOTICE, group=5)


def test_long_notice_copies_keep_their_own_page_count(pdf):
    long = notice(description="Relato detalhado da ocorrência. " * 220)
    texts = pdf.texts(long)
    assert len(texts) >= 4
    labels = ["1ª via" if "1ª via – Autuado" in t else "2ª via" for t in texts]
    assert labels == sorted(labels)  # the first copy's pages, then the second's
    per_copy = labels.count("1ª via")
    assert per_copy == labels.count("2ª via")
    for number, text in enumerate(texts[:per_copy], start=1):
        assert f"Página {number} de {per_copy}" in text
    for number, text in enumerate(texts[per_copy:], start=1):
        assert f"Página {number} de {per_copy}" in text


def test_refusal_certificate(pdf):
    (text,) = pdf.texts(refusal())
    flat = squash(text)
    for expected in (
        "Certidão de Recusa de Assinatura",
        "AI-000123/2026",
        "art. 29, § 2º",
        "11/03/2026 às 18:50",
        "recusou-se a assiná-lo",
        "Fernanda Fiscal",
        "Testemunha Um",
        "Testemunha Dois",
    ):
        assert expected in flat, expected


def test_pending_letter_lists_every_item_with_its_article(pdf):
    (text,) = pdf.texts(pending())
    flat = squash(text)
    for item in PENDING_ITEMS:
        assert item.article in flat and item.message in flat
    for expected in ("Requerimento nº REQ-0451/2026", "3 pendências", "autorização", "Motoboy", "11/04/2026"):
        assert expected in flat, expected


def test_renewal_letters_one_per_person(pdf):
    names = ["Ângela Íris Conceição", "Otávio Úrsula Brandão", "Zé Ção"]
    letters = [renewal_letter(n, f"MT-{i:04d}/2026") for i, n in enumerate(names, start=1)]
    letters[0] = replace(letters[0], appointment=datetime(2026, 3, 5, 9, 20))
    texts = pdf.texts(render_renewal_letters(iter(letters), generated_at=GENERATED))
    assert len(texts) == 3
    for i, (name, text) in enumerate(zip(names, texts, strict=True), start=1):
        flat = squash(text)
        assert name in flat and f"MT-{i:04d}/2026" in flat
        assert all(other not in flat for other in names if other != name)
        assert "31/03/2026" in flat and "Portaria SESTRAN nº 12/2026" in flat
        assert "Balcão da SESTRAN – Av. João Alves do Nascimento, 1.452" in flat
        assert "Art. 30, Grupo 1, I e II" in flat and "art. 34" in flat
        assert "Página 1 de 1" in flat
    assert "Seu atendimento está agendado para 05/03/2026 às 09:20." in squash(texts[0])
    assert "agendado" not in texts[1]


def test_renewal_letter_spanning_pages_is_numbered_on_its_own(pdf):
    letters = [
        renewal_letter("Ana Longa", "MT-0001/2026", items=60),
        renewal_letter("Bia Curta", "MT-0002/2026"),
    ]
    texts = pdf.texts(render_renewal_letters(letters, generated_at=GENERATED))
    long_pages = [t for t in texts if "Ana Longa" in t or "Documento 60" in t or "Documento 30" in t]
    assert len(texts) >= 3
    last = texts[-1]
    assert "Bia Curta" in last and "Página 1 de 1" in last
    count = len(texts) - 1
    for number, text in enumerate(texts[:-1], start=1):
        assert f"Página {number} de {count}" in text
    assert long_pages


def test_renewal_letters_need_at_least_one():
    with pytest.raises(ValueError):
        render_renewal_letters([])


def test_work_schedule(pdf):
    (text,) = pdf.texts(schedule())
    flat = squash(text)
    for expected in (
        "Escala de Trabalho",
        "Art. 14, § 3º",
        "Art. 11",
        "Segunda-feira",
        "Sábado",
        "Domingo",
        "06:00 – 14:00",
        "14:00 – 22:00",
        "22:00 – 04:00 (dia seguinte)",
        "José Ênio Gonçalves",
        "ABC1D23",
        "15/03/2026",
    ):
        assert expected in flat, expected
    assert flat.count("06:00 – 14:00") == 6


@pytest.mark.parametrize(
    "bad",
    [
        {"weekday": 7},
        {"weekday": -1},
        {"driver": "motorista"},
    ],
)
def test_work_shift_is_checked(bad):
    shift = {"weekday": 0, "start": time(8), "end": time(12), "driver": "titular"} | bad
    with pytest.raises(ValueError):
        WorkShift(**shift)
