"""Scans of the dossier: accepted by content, refused in pt_BR when they are not what they claim."""

from __future__ import annotations

import io

import pytest
from PIL import Image
from reportlab.pdfgen import canvas
from sqlalchemy import func, select
from tests_helpers import raises_code, valid_cpf  # type: ignore[import-not-found]

from motodesk.models import Attachment, Blob, PersonDocument
from motodesk.rules.dossier import DocumentKind
from motodesk.services import attachments, people
from motodesk.services.attachments import clean_filename, sniff_media_type
from motodesk.services.context import AppContext
from motodesk.services.errors import InvalidInputError, MotodeskError, NotFoundError, PermissionDeniedError
from motodesk.services.people import PersonInput


def pdf_bytes(text: str = "RG digitalizado") -> bytes:
    buffer = io.BytesIO()
    page = canvas.Canvas(buffer)
    page.drawString(72, 720, text)
    page.save()
    return buffer.getvalue()


def image_bytes(fmt: str, size: tuple[int, int] = (120, 80)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, (200, 180, 40)).save(buffer, format=fmt)
    return buffer.getvalue()


@pytest.fixture
def person(clerk: AppContext) -> int:
    return people.save_person(clerk, PersonInput(full_name="Maria D'Ávila-Souza", cpf=valid_cpf())).id


def test_pdf_jpeg_png_attached_to_a_document_row_created_on_demand(clerk: AppContext, person: int) -> None:
    first = attachments.attach_to_document(clerk, person, DocumentKind.IDENTITY, "rg frente.pdf", pdf_bytes())
    assert first.attachment.media_type == "application/pdf" and first.attachment.added_by == "clerk"
    jpeg = attachments.attach_to_document(clerk, person, DocumentKind.IDENTITY, "rg verso.jpg", image_bytes("JPEG"))
    png = attachments.attach_to_document(clerk, person, DocumentKind.CNH, "cnh.png", image_bytes("PNG"))
    assert jpeg.document_id == first.document_id != png.document_id
    by_kind = attachments.person_document_attachments(clerk, person)
    assert [a.filename for a in by_kind[DocumentKind.IDENTITY]] == ["rg frente.pdf", "rg verso.jpg"]
    assert [a.media_type for a in by_kind[DocumentKind.CNH]] == ["image/png"]
    info, data = attachments.attachment_content(clerk, png.attachment.id)
    assert data == image_bytes("PNG") and info.kind_label == "PNG"


def test_type_is_read_from_the_content_not_the_name(clerk: AppContext, person: int) -> None:
    renamed = attachments.attach_to_document(clerk, person, DocumentKind.CPF, "cpf.pdf", image_bytes("PNG"))
    assert renamed.attachment.media_type == "image/png"


@pytest.mark.parametrize(("name", "data", "message"), [
    ("rg.pdf", b"Isto e um texto qualquer, nao um PDF", "não é um PDF, JPEG ou PNG"),
    ("foto.jpg", b"MZ\x90\x00\x03" + b"\x00" * 200, "não é um PDF, JPEG ou PNG"),
    ("vazio.pdf", b"", "está vazio"),
    ("cortado.pdf", pdf_bytes()[:400], "incompleto ou corrompido"),
    ("cortada.jpg", image_bytes("JPEG", (400, 300))[:300], "corrompida ou incompleta"),
    ("cortada.png", image_bytes("PNG", (400, 300))[:120], "corrompida ou incompleta"),
    ("grande.pdf", b"%PDF-1.4\n" + b"0" * (10 * 1024 * 1024) + b"\n1 0 obj\n%%EOF", "o limite é 10,0 MB"),
])
def test_bad_files_are_refused_in_pt_br_and_nothing_is_stored(clerk: AppContext, person: int, name: str,
                                                              data: bytes, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        attachments.attach_to_document(clerk, person, DocumentKind.IDENTITY, name, data)
    with clerk.read() as s:
        assert s.scalar(select(func.count(Attachment.id))) == 0
        assert s.scalar(select(func.count(Blob.sha256))) == 0
        assert s.scalar(select(func.count(PersonDocument.id))) == 0  # not half-saved


def test_same_bytes_stored_once(clerk: AppContext, person: int) -> None:
    data = pdf_bytes()
    attachments.attach_to_document(clerk, person, DocumentKind.IDENTITY, "a.pdf", data)
    attachments.attach_to_document(clerk, person, DocumentKind.CNH, "b.pdf", data)
    with clerk.read() as s:
        assert s.scalar(select(func.count(Blob.sha256))) == 1
        assert s.scalar(select(func.count(Attachment.id))) == 2


def test_removal_keeps_the_scan_with_who_and_why(clerk: AppContext, supervisor: AppContext, person: int) -> None:
    added = attachments.attach_to_document(clerk, person, DocumentKind.MEDICAL, "atestado.pdf", pdf_bytes())
    with raises_code(InvalidInputError, "invalid_input", fields=("reason",)):
        attachments.remove_attachment(clerk, added.attachment.id, "  ")
    removed = attachments.remove_attachment(supervisor, added.attachment.id, "Atestado de outra pessoa")
    assert removed.removed and removed.removed_by == "supervisor"
    assert attachments.list_attachments(clerk, "person_documents", added.document_id) == []
    kept = attachments.list_attachments(clerk, "person_documents", added.document_id, include_removed=True)
    assert [a.removed_reason for a in kept] == ["Atestado de outra pessoa"]
    with raises_code(MotodeskError, "attachment.removed"):
        attachments.remove_attachment(clerk, added.attachment.id, "de novo")


def test_roles_and_missing_owners(clerk: AppContext, inspector: AppContext, person: int) -> None:
    with pytest.raises(PermissionDeniedError):
        attachments.attach_to_document(inspector, person, DocumentKind.IDENTITY, "rg.pdf", pdf_bytes())
    added = attachments.add_attachment(clerk, "people", person, "requerimento.pdf", pdf_bytes())
    assert attachments.list_attachments(inspector, "people", person)[0].id == added.id
    with pytest.raises(NotFoundError):
        attachments.add_attachment(clerk, "people", person + 999, "x.pdf", pdf_bytes())
    with pytest.raises(InvalidInputError):
        attachments.add_attachment(clerk, "users", 1, "x.pdf", pdf_bytes())


def test_names_and_signatures() -> None:
    assert clean_filename("C:\\Users\\ana\\Documentos\\RG.pdf", "application/pdf") == "RG.pdf"
    assert clean_filename("../../etc/passwd\x00.png", "image/png") == "passwd_.png"
    assert clean_filename("", "image/jpeg") == "documento.jpg"
    assert len(clean_filename("x" * 400 + ".pdf", "application/pdf")) <= 255
    assert clean_filename("x" * 400 + ".pdf", "application/pdf").endswith(".pdf")
    assert sniff_media_type(b"\xef\xbb\xbf%PDF-1.7") == "application/pdf"
    assert sniff_media_type(b"GIF89a") is None
