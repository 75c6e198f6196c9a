"""Scanned documents attached to a dossier: PDF, JPEG or PNG, checked by content, never deleted.

The type is what the bytes are, not what the file name says: a PNG named ``rg.pdf`` is kept as
a PNG; a text file, a program or a truncated scan is refused with a pt_BR message, whatever its
name. Bytes are stored once per content (:class:`~motodesk.models.Blob`, keyed by SHA-256).
Removing an attachment keeps it, marked with who removed it, when and why.
"""

from __future__ import annotations

import hashlib
import io
import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime

from PIL import Image, UnidentifiedImageError
from sqlalchemy import select

from motodesk.models import Attachment, Blob, Person, PersonDocument
from motodesk.models.base import utcnow
from motodesk.rules.dossier import DocumentKind
from motodesk.services import access_log
from motodesk.services.context import EDITORS, READERS, AppContext, current_row, requires
from motodesk.services.errors import InvalidInputError, MotodeskError, NotFoundError
from motodesk.services.text import text_problem

MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024
MAX_IMAGE_PIXELS = 60_000_000  # a 600 dpi A4 scan is 35 million
MAX_REASON = 500
MEDIA_TYPES = {"application/pdf": "PDF", "image/jpeg": "JPEG", "image/png": "PNG"}
EXTENSIONS = {"application/pdf": ".pdf", "image/jpeg": ".jpg", "image/png": ".png"}
#: Records a scan may hang on, and the model that must hold the owner's id.
OWNERS = {"person_documents": PersonDocument, "people": Person}
#: A PDF whose first bytes hold any of these is also a web page (a polyglot): a browser or a mail
#: preview would run its script. Compared in lower case, over the first POLYGLOT_WINDOW bytes.
HTML_MARKERS = (b"<script", b"<html", b"<!doctype", b"<body", b"<head", b"<iframe", b"<svg", b"<object",
                b"<embed", b"<meta", b"<img", b"<a ", b"<form", b"<style", b"<link", b"javascript:", b"onload=",
                b"onerror=")
POLYGLOT_WINDOW = 8192


def megabytes(size: int) -> str:
    return f"{size / 1024 / 1024:.1f}".replace(".", ",") + " MB"


@dataclass(frozen=True)
class AttachmentInfo:
    id: int
    owner_table: str
    owner_id: int
    filename: str
    media_type: str
    size: int
    sha256: str
    added_at: datetime
    added_by: str
    removed_at: datetime | None = None
    removed_by: str | None = None
    removed_reason: str | None = None

    @property
    def kind_label(self) -> str:
        return MEDIA_TYPES.get(self.media_type, self.media_type)

    @property
    def removed(self) -> bool:
        return self.removed_at is not None


def attachment_info(a: Attachment) -> AttachmentInfo:
    return AttachmentInfo(a.id, a.owner_table, a.owner_id, a.filename, a.media_type, a.size, a.blob_sha256,
                          a.added_at, a.added_by, a.removed_at, a.removed_by, a.removed_reason)


def sniff_media_type(data: bytes) -> str | None:
    """The media type by the file's first bytes (its signature), or None."""
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if b"%PDF-" in data[:1024]:  # the PDF specification allows bytes before the header
        return "application/pdf"
    return None


def check_content(filename: str, data: bytes) -> str:
    """The media type of a scan we accept; InvalidInputError with the reason in pt_BR otherwise."""
    check_filename(filename)
    name = f"«{filename}»"
    if not data:
        raise InvalidInputError(f"O arquivo {name} está vazio.")
    if len(data) > MAX_ATTACHMENT_BYTES:
        raise InvalidInputError(f"O arquivo {name} tem {megabytes(len(data))}; o limite é "
                                f"{megabytes(MAX_ATTACHMENT_BYTES)}. Digitalize com resolução menor "
                                "(200 dpi bastam) ou em tons de cinza.")
    media_type = sniff_media_type(data)
    if media_type is None:
        raise InvalidInputError(f"O arquivo {name} não é um PDF, JPEG ou PNG: o conteúdo não corresponde a "
                                "nenhum desses formatos, seja qual for a extensão do nome. Anexe a "
                                "digitalização do documento.", code="attachment.bad_type")
    if media_type == "application/pdf":
        tail = data[-2048:]
        if b"%%EOF" not in tail or b"obj" not in data:
            raise InvalidInputError(f"O PDF {name} está incompleto ou corrompido (falta o fim do arquivo). "
                                    "Gere ou digitalize o documento de novo.")
        head = data[:POLYGLOT_WINDOW].lower()
        marker = next((m for m in HTML_MARKERS if m in head), None)
        if marker is not None:
            raise InvalidInputError(f"O arquivo {name} começa como PDF mas contém também uma página da web "
                                    f"(“{marker.decode('ascii')}”): um arquivo assim pode executar código ao ser "
                                    "aberto e não é anexado. Digitalize o documento ou gere o PDF de novo.",
                                    code="attachment.html_polyglot")
        return media_type
    kind = MEDIA_TYPES[media_type]
    try:
        with Image.open(io.BytesIO(data)) as image:
            if image.format != kind:
                raise InvalidInputError(f"A imagem {name} não é um {kind} válido.")
            width, height = image.size
            if width * height > MAX_IMAGE_PIXELS:
                raise InvalidInputError(f"A imagem {name} tem {width} × {height} pixels, mais do que uma "
                                        "digitalização precisa. Digitalize com resolução menor.")
            image.load()
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise InvalidInputError(f"A imagem {name} está corrompida ou incompleta e não pode ser aberta. "
                                "Digitalize o documento de novo.") from exc
    return media_type


def check_filename(filename: str) -> None:
    """Refuse a file name with bidirectional controls, invisible characters or lone surrogates."""
    problem = text_problem(filename or "")
    if problem:
        raise InvalidInputError(f"Nome de arquivo recusado: {problem} Renomeie o arquivo antes de anexá-lo.",
                                {"filename": problem})


_UNSAFE = re.compile(r"[\x00-\x1f\x7f/\\:*?\"<>|]+")


def clean_filename(filename: str, media_type: str) -> str:
    """The file's own name without folders or control characters, at most 255 characters."""
    base = re.split(r"[/\\]", filename or "")[-1]
    base = _UNSAFE.sub("_", unicodedata.normalize("NFC", base)).strip(" .")
    if not base:
        base = "documento" + EXTENSIONS[media_type]
    if len(base) > 255:
        stem, dot, ext = base.rpartition(".")
        base = (stem[: 250 - len(ext)] + dot + ext) if dot and len(ext) <= 5 else base[:255]
    return base


def store_attachment(s, ctx: AppContext, owner_table: str, owner_id: int, filename: str, data: bytes,  # noqa: ANN001
                     media_type: str | None = None) -> Attachment:
    """Store a scan inside the caller's transaction `s` (the caller checks the owner exists and the
    user's role): content checked unless `media_type` says it already was, bytes kept once by hash."""
    if media_type is None:
        media_type = check_content(filename, data)
    check_filename(filename)
    sha = hashlib.sha256(data).hexdigest()
    if s.get(Blob, sha) is None:
        s.add(Blob(sha256=sha, size=len(data), data=data))
        s.flush()
    attachment = Attachment(owner_table=owner_table, owner_id=owner_id, blob_sha256=sha,
                            filename=clean_filename(filename, media_type), media_type=media_type,
                            size=len(data), added_by=ctx.user.login)
    s.add(attachment)
    s.flush()
    return attachment


@requires(*EDITORS)
def add_attachment(ctx: AppContext, owner_table: str, owner_id: int, filename: str, data: bytes) -> AttachmentInfo:
    """Attach a scan to a record (a document row of a dossier, or the person)."""
    model = OWNERS.get(owner_table)
    if model is None:
        raise InvalidInputError(f"Não é possível anexar arquivos a {owner_table!r}.")
    media_type = check_content(filename, data)
    with ctx.write() as s:
        if s.get(model, owner_id) is None:
            raise NotFoundError("O registro a que o arquivo seria anexado não existe mais.")
        return attachment_info(store_attachment(s, ctx, owner_table, owner_id, filename, data, media_type))


@dataclass(frozen=True)
class DocumentAttachment:
    attachment: AttachmentInfo
    document_id: int
    document_version: int


@requires(*EDITORS)
def attach_to_document(ctx: AppContext, person_id: int, kind: DocumentKind, filename: str,
                       data: bytes) -> DocumentAttachment:
    """Attach a scan to the person's document of ``kind``, creating the (empty) row if it is missing."""
    media_type = check_content(filename, data)
    with ctx.write({"uq_person_documents_person_kind": "Outra estação acabou de criar este documento; "
                    "tente anexar de novo."}) as s:
        row = s.scalar(select(PersonDocument).where(PersonDocument.person_id == person_id,
                                                    PersonDocument.kind == kind))
        if row is None:
            if s.get(Person, person_id) is None:
                raise NotFoundError("A pessoa não existe mais no cadastro.")
            row = PersonDocument(person_id=person_id, kind=kind)
            s.add(row)
            s.flush()
        attachment = store_attachment(s, ctx, "person_documents", row.id, filename, data, media_type)
        return DocumentAttachment(attachment_info(attachment), row.id, row.version)


@requires(*READERS)
def list_attachments(ctx: AppContext, owner_table: str, owner_ids: list[int] | int, *,
                     include_removed: bool = False) -> list[AttachmentInfo]:
    """Attachments of one or several records, oldest first."""
    ids = [owner_ids] if isinstance(owner_ids, int) else list(owner_ids)
    if not ids:
        return []
    with ctx.read() as s:
        stmt = select(Attachment).where(Attachment.owner_table == owner_table, Attachment.owner_id.in_(ids))
        if not include_removed:
            stmt = stmt.where(Attachment.removed_at.is_(None))
        return [attachment_info(a) for a in s.scalars(stmt.order_by(Attachment.added_at, Attachment.id))]


@requires(*READERS)
def person_document_attachments(ctx: AppContext, person_id: int, *,
                                include_removed: bool = False) -> dict[DocumentKind, list[AttachmentInfo]]:
    """Every document row's attachments of a person, by document kind."""
    with ctx.read() as s:
        kinds = dict(s.execute(select(PersonDocument.id, PersonDocument.kind)
                               .where(PersonDocument.person_id == person_id)).all())
    result: dict[DocumentKind, list[AttachmentInfo]] = {}
    for info in list_attachments(ctx, "person_documents", list(kinds), include_removed=include_removed):
        result.setdefault(kinds[info.owner_id], []).append(info)
    return result


#: Scans whose opening is recorded in the LGPD access log, by the document they belong to.
LOGGED_SCANS = {DocumentKind.CRIMINAL: access_log.CRIMINAL_SCAN, DocumentKind.MEDICAL: access_log.MEDICAL_SCAN}


@requires(*READERS)
def attachment_content(ctx: AppContext, attachment_id: int, *,
                       screen: str = "attachments.attachment_content") -> tuple[AttachmentInfo, bytes]:
    """The scan's bytes; opening a scan of criminal certificates or of a medical certificate is
    recorded in the LGPD access log in the same transaction (``screen`` names who asked)."""
    with ctx.write() as s:
        attachment = current_row(s, Attachment, attachment_id, None, "Anexo não encontrado.")
        data = s.scalar(select(Blob.data).where(Blob.sha256 == attachment.blob_sha256))
        if attachment.owner_table == "person_documents":
            owner = s.execute(select(PersonDocument.person_id, PersonDocument.kind)
                              .where(PersonDocument.id == attachment.owner_id)).first()
            if owner is not None and owner.kind in LOGGED_SCANS:
                access_log.record_access(s, ctx.user, owner.person_id, LOGGED_SCANS[owner.kind], screen=screen,
                                         record_key=f"attachments:{attachment.id}")
        return attachment_info(attachment), bytes(data or b"")


@requires(*EDITORS)
def remove_attachment(ctx: AppContext, attachment_id: int, reason: str) -> AttachmentInfo:
    """Take an attachment off the dossier, keeping it with who, when and why."""
    reason = " ".join((reason or "").split())
    if len(reason) < 3:
        raise InvalidInputError("Informe o motivo da remoção do anexo.", {"reason": "Informe o motivo."})
    if len(reason) > MAX_REASON:
        raise InvalidInputError(f"O motivo é longo demais: no máximo {MAX_REASON} caracteres.",
                                {"reason": "Motivo longo demais."})
    with ctx.write() as s:
        attachment = s.get(Attachment, attachment_id, with_for_update=True)
        if attachment is None:
            raise NotFoundError("Anexo não encontrado.")
        if attachment.removed_at is not None:
            raise MotodeskError(f"O anexo «{attachment.filename}» já foi removido por "
                                f"{attachment.removed_by}.", code="attachment.removed")
        attachment.removed_at = utcnow()
        attachment.removed_by = ctx.user.login
        attachment.removed_reason = reason
        s.flush()
        return attachment_info(attachment)
