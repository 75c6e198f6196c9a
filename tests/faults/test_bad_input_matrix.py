"""Bad input through the services: each value is refused with a pt_BR message or stored exactly.

Never a traceback (only MotodeskError escapes), never a partial write (every table keeps its row
count when a save is refused), and what is accepted reads back byte for byte.
"""

from __future__ import annotations

import io
from datetime import date, timedelta

import pytest
from PIL import Image
from sqlalchemy import func, select
from tests_helpers import raises_code, valid_cpf  # type: ignore[import-not-found]

from motodesk.models import Attachment, AuditEvent, Blob, Person, Photo, Vehicle
from motodesk.rules.dossier import DocumentKind
from motodesk.services import attachments, people, photos, vehicles
from motodesk.services.context import AppContext
from motodesk.services.errors import InvalidInputError, MotodeskError
from motodesk.services.people import PersonInput

STORED_EXACTLY = [
    "Maria D'Ávila-Souza",
    "João da Silva'); DROP TABLE people; --",
    "Ana \"Aspas\" % _ \\ Barra",
    "=HYPERLINK(\"http://mal.example\",\"clique\") Souza",
    "+5511 Pereira", "-Menos Silva", "@Arroba Lima",
    "Zé 🏍 Motoboy Emoji",  # an emoji is stored; with U+FE0F it is refused (issue 31)
    "Ñandú Çedilha Ãngela Ôliveira",
    "李 Wei Chen",
]
REFUSED_NAMES = [
    "x" * 10_000,  # a 10,000-character paste
    "y" * (10 * 1024 * 1024),  # 10 MB
    "",
    "   ",
    "Nome\x00Nulo Silva",
    "Só",  # no surname
    "Zé 🏍\ufe0f Motoboy Emoji",  # a variation selector (issue 31)
    "\u0301\u0301 \u0300\u0300",  # combining marks only (issue 31)
]
BAD_CPFS = ["123.456.789-00", "111.111.111-11", "abc", "", "1" * 50, "529.982.247-2"]


def _counts(ctx: AppContext) -> dict[str, int]:
    with ctx.read() as s:
        return {m.__tablename__: s.scalar(select(func.count()).select_from(m)) or 0
                for m in (Person, Vehicle, Photo, Attachment, Blob, AuditEvent)}


@pytest.mark.parametrize("name", STORED_EXACTLY)
def test_odd_but_valid_names_are_stored_exactly(clerk: AppContext, name: str) -> None:
    pid = people.save_person(clerk, PersonInput(full_name=name, cpf=valid_cpf())).id
    assert people.get_person(clerk, pid).full_name == name


@pytest.mark.parametrize("name", REFUSED_NAMES, ids=lambda n: f"len{len(n)}")
def test_bad_names_are_refused_and_nothing_is_written(clerk: AppContext, name: str) -> None:
    before = _counts(clerk)
    with raises_code(InvalidInputError, "invalid_input", fields=("full_name",)) as info:
        people.save_person(clerk, PersonInput(full_name=name, cpf=valid_cpf()))
    assert len(str(info.value)) < 2000, "a short sentence, not an internal error"
    assert _counts(clerk) == before


@pytest.mark.parametrize("cpf", BAD_CPFS)
def test_invalid_cpfs_are_refused(clerk: AppContext, cpf: str) -> None:
    before = _counts(clerk)
    with raises_code(InvalidInputError, "invalid_input") as info:
        people.save_person(clerk, PersonInput(full_name="Fulano de Tal", cpf=cpf))
    assert "cpf" in info.value.fields, info.value.fields
    assert _counts(clerk) == before


@pytest.mark.parametrize("birth", [date.today() + timedelta(days=1), date(1800, 1, 1)])
def test_impossible_birth_dates_are_refused(clerk: AppContext, birth: date) -> None:
    before = _counts(clerk)
    with pytest.raises(MotodeskError):
        people.save_person(clerk, PersonInput(full_name="Fulano de Tal", cpf=valid_cpf(), birth_date=birth))
    assert _counts(clerk) == before


VEHICLE_CASES = {
    "plate neither format": {"plate": "AB-12345"},
    "plate SQL": {"plate": "'; DROP TABLE vehicles; --"},
    "zero cc": {"engine_cc": 0},
    "10,000 cc": {"engine_cc": 10_000},
    "negative cc": {"engine_cc": -150},
    "manufacture in the future": {"year_manufacture": date.today().year + 3},
    "manufacture in 1850": {"year_manufacture": 1850},
    "VIN with I/O/Q": {"vin": "9C2KC1670IO0Q1234"},
    "bad RENAVAM": {"renavam": "12345678901"},
}


@pytest.mark.parametrize("case", list(VEHICLE_CASES))
def test_bad_vehicle_fields_are_refused_per_field(clerk: AppContext, case: str) -> None:
    pid = people.save_person(clerk, PersonInput(full_name="Dono do Veículo", cpf=valid_cpf())).id
    data = vehicles.VehicleInput(plate="ABC1D23", holder_id=pid, make="Honda", model="CG 160",
                                 year_manufacture=date.today().year - 1, engine_cc=162)
    for key, value in VEHICLE_CASES[case].items():
        setattr(data, key, value)
    before = _counts(clerk)
    with pytest.raises(MotodeskError) as info:
        vehicles.save_vehicle(clerk, data)
    assert getattr(info.value, "fields", None), "the refusal names the field"
    assert _counts(clerk) == before


def _jpeg(size: tuple[int, int] = (354, 472), mode: str = "RGB") -> bytes:
    out = io.BytesIO()
    Image.new(mode, size, "white" if mode == "RGB" else 0).save(out, "JPEG", dpi=(300, 300))
    return out.getvalue()


CORRUPT_FILES = {
    "text named .jpg": ("foto.jpg", b"isto e um texto, nao uma foto\n" * 20),
    "truncated jpeg": ("foto.jpg", _jpeg()[:300]),
    "empty": ("vazio.pdf", b""),
    "renamed exe": ("documento.pdf", b"MZ\x90\x00" + b"\x00" * 500),
    "html as pdf": ("scan.pdf", b"<html><script>alert(1)</script></html>"),
}


@pytest.mark.parametrize("case", list(CORRUPT_FILES))
def test_corrupt_attachments_are_refused(clerk: AppContext, case: str) -> None:
    pid = people.save_person(clerk, PersonInput(full_name="Dono do Anexo", cpf=valid_cpf())).id
    filename, data = CORRUPT_FILES[case]
    before = _counts(clerk)
    with pytest.raises(MotodeskError):
        attachments.attach_to_document(clerk, pid, DocumentKind.IDENTITY, filename, data)
    assert _counts(clerk) == before


@pytest.mark.parametrize("case", ["text", "truncated", "wrong size", "cmyk"])
def test_bad_photos_are_refused_and_nothing_is_stored(clerk: AppContext, case: str) -> None:
    pid = people.save_person(clerk, PersonInput(full_name="Dono da Foto", cpf=valid_cpf())).id
    data = {"text": b"nao sou jpeg", "truncated": _jpeg()[:200], "wrong size": _jpeg((800, 600)),
            "cmyk": _jpeg(mode="CMYK")}[case]
    before = _counts(clerk)
    with pytest.raises(MotodeskError):
        photos.store_photo(clerk, pid, data, "file")
    assert _counts(clerk) == before


def test_a_good_pdf_attachment_reads_back_exactly(clerk: AppContext) -> None:
    pid = people.save_person(clerk, PersonInput(full_name="Dono do PDF", cpf=valid_cpf())).id
    pdf = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
    attached = attachments.attach_to_document(clerk, pid, DocumentKind.IDENTITY, "rg.pdf", pdf)
    info, content = attachments.attachment_content(clerk, attached.attachment.id)
    assert content == pdf and info.media_type == "application/pdf"
