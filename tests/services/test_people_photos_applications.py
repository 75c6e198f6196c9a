"""The dossier's photo slot, its applications and permits, and the letter of pending items."""

from __future__ import annotations

import io
from datetime import date

import pytest
from PIL import Image
from pypdf import PdfReader
from tests_helpers import existing_register, raises_code, raises_rule, valid_cpf  # type: ignore[import-not-found]

from motodesk.models import Permit, PermitEvent
from motodesk.rules.common import PermitState, ServiceType, Status
from motodesk.services import applications, people, photos
from motodesk.services.context import AppContext
from motodesk.services.errors import InvalidInputError, PermissionDeniedError
from motodesk.services.people import PersonInput

#: The plain-colour test pictures have no face: storing them needs the override (Art. 5º, IX).
SYNTHETIC = "foto sintética de teste, sem rosto"


def jpeg(size: tuple[int, int] = (354, 472), colour: tuple[int, int, int] = (180, 150, 120)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, format="JPEG", quality=90)
    return buffer.getvalue()


@pytest.fixture
def person(clerk: AppContext) -> int:
    return people.save_person(clerk, PersonInput(full_name="Joana Prado Lima", cpf=valid_cpf(),
                                                 birth_date=date(1990, 1, 2), sex="F")).id


def test_newest_photo_is_the_one_shown(clerk: AppContext, inspector: AppContext, person: int) -> None:
    assert photos.newest_photo(clerk, person) is None
    photos.store_photo(clerk, person, jpeg(colour=(10, 10, 10)), "file", override_reason=SYNTHETIC)
    second = photos.store_photo(clerk, person, jpeg(), "camera", override_reason=SYNTHETIC)
    newest = photos.newest_photo(inspector, person)
    assert newest is not None and newest.id == second.id and newest.jpeg == jpeg()
    assert (newest.width, newest.height, newest.source, newest.captured_by) == (354, 472, "camera", "clerk")
    assert newest.local_date == date.today() or (date.today() - newest.local_date).days <= 1
    assert photos.newest_photo(clerk, person, with_bytes=False).jpeg is None


@pytest.mark.parametrize(("data", "message"), [
    (b"", "vazia"),
    (b"\x89PNG\r\n\x1a\n" + b"0" * 50, "não é um arquivo JPEG"),
    (jpeg()[:200], "corrompida ou incompleta"),
])
def test_bad_photo_refused(clerk: AppContext, person: int, data: bytes, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        photos.store_photo(clerk, person, data, "file")
    assert photos.newest_photo(clerk, person) is None


def test_photo_source_and_role(clerk: AppContext, inspector: AppContext, person: int) -> None:
    with raises_code(InvalidInputError, "photo.unknown_source"):
        photos.store_photo(clerk, person, jpeg(), "scanner", override_reason=SYNTHETIC)
    with pytest.raises(PermissionDeniedError):
        photos.store_photo(inspector, person, jpeg(), "file", override_reason=SYNTHETIC)


def test_open_application_once_and_list(clerk: AppContext, person: int) -> None:
    opened = applications.open_application(clerk, person, ServiceType.MOTOBOY, opened_on=date(2026, 3, 2))
    assert opened.state is PermitState.REQUESTED and opened.number == f"{opened.id:05d}/2026"
    with clerk.read() as s:
        event = s.query(PermitEvent).filter_by(application_id=opened.id).one()
        assert (event.transition, event.to_state, event.by_user) == ("open", "requested", "clerk")
    with raises_rule("one_open_application"):
        applications.open_application(clerk, person, ServiceType.MOTOFRETE)
    listed = applications.list_applications(clerk, person)
    assert [(a.service, a.is_open) for a in listed] == [(ServiceType.MOTOBOY, True)]
    assert applications.open_application_for(listed, ServiceType.MOTOBOY) == opened


def test_a_permit_in_force_blocks_a_new_application(clerk: AppContext, person: int) -> None:
    with clerk.write() as s:
        existing_register(s)
        s.add(Permit(number="MF-0003/2025", service_type=ServiceType.MOTOFRETE, year=2025, seq=3, person_id=person,
                     state=PermitState.ACTIVE, issued_on=date(2025, 2, 1), term_end=date(2030, 2, 1),
                     certificate_valid_until=date(2026, 2, 1)))
    with raises_rule("one_permit_in_force"):
        applications.open_application(clerk, person, ServiceType.MOTOBOY)
    assert [p.number for p in applications.list_permits(clerk, person)] == ["MF-0003/2025"]


def test_pending_letter_lists_what_is_missing_by_article(clerk: AppContext, person: int) -> None:
    app = applications.open_application(clerk, person, ServiceType.MOTOTAXI)
    pdf = applications.pending_letter(clerk, person, ServiceType.MOTOTAXI)
    text = "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)
    assert "Comunicado de Pendências" in text and app.number in text
    assert "Joana Prado Lima" in text
    verdicts = people.check_dossier(clerk, person, ServiceType.MOTOTAXI)
    for verdict in verdicts:
        if verdict.status is not Status.MET:
            assert verdict.article.split(",")[0] in text
    assert "Art. 5º, II" in text  # no CNH yet
