"""Art. 5º, IX judged by the service for every source of a photo (camera, file, import), not only the dialog."""

from __future__ import annotations

import io
import json
from datetime import date, timedelta
from pathlib import Path

import pytest
from PIL import Image
from sqlalchemy import select
from tests_helpers import raises_rule, valid_cpf  # type: ignore[import-not-found]

from motodesk.imaging import OUTPUT_SIZE, process_upload
from motodesk.models import AuditEvent, Photo
from motodesk.services import people, photos
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext
from motodesk.services.errors import RuleViolationError
from motodesk.services.people import PersonInput
from motodesk.services.settings import update_settings

PHOTOS = Path(__file__).resolve().parents[1] / "data" / "photos"


def faceless() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", OUTPUT_SIZE, (180, 150, 120)).save(buffer, "JPEG", quality=90)
    return buffer.getvalue()


@pytest.fixture(scope="module")
def astronaut() -> bytes:
    return process_upload((PHOTOS / "astronaut.png").read_bytes()).jpeg


@pytest.fixture
def person(clerk: AppContext) -> int:
    return people.save_person(clerk, PersonInput(full_name="Cláudia Rezende Matos", cpf=valid_cpf(),
                                                 birth_date=date(1985, 7, 9), sex="F")).id


@pytest.mark.parametrize("source", ["camera", "file", "import"])
def test_a_photo_without_a_face_is_refused_from_every_source(clerk: AppContext, person: int, source: str) -> None:
    with raises_rule("art5_ix_photo_quality", exc_type=photos.PhotoQualityError) as info:
        photos.store_photo(clerk, person, faceless(), source)
    assert info.value.code == "photo_quality"
    with pytest.raises(photos.PhotoQualityError):
        photos.store_photo(clerk, person, faceless(), source, override_reason="   ")  # a blank reason is none
    assert photos.photo_history(clerk, person) == []


def test_the_override_keeps_its_reason_and_the_audit_records_it(clerk: AppContext, person: int) -> None:
    stored = photos.store_photo(clerk, person, faceless(), "camera",
                                override_reason="Requerente com o rosto coberto por curativo médico")
    assert stored.override_reason is not None
    assert stored.override_reason.startswith("Requerente com o rosto coberto por curativo médico [avisos: ")
    assert "Nenhum rosto encontrado" in stored.override_reason
    with clerk.read() as s:
        event = s.scalar(select(AuditEvent).where(AuditEvent.table_name == "photos",
                                                  AuditEvent.row_key == str(stored.id)))
        assert event is not None and event.user_login == "clerk"
        assert json.loads(event.changes)["override_reason"][1] == stored.override_reason


def test_a_good_photo_needs_no_override_and_records_none(clerk: AppContext, person: int, astronaut: bytes) -> None:
    stored = photos.store_photo(clerk, person, astronaut, "camera")
    assert stored.override_reason is None
    with clerk.read() as s:
        assert s.scalar(select(Photo.override_reason).where(Photo.id == stored.id)) is None


def test_an_override_does_not_cover_a_refusal(clerk: AppContext, person: int, astronaut: bytes) -> None:
    with Image.open(io.BytesIO(astronaut)) as im:
        buffer = io.BytesIO()
        im.resize((300, 300)).save(buffer, "JPEG", quality=90)
    for source in ("file", "import"):
        with pytest.raises(RuleViolationError) as info:
            photos.store_photo(clerk, person, buffer.getvalue(), source, override_reason="quero usar")
        assert not isinstance(info.value, photos.PhotoQualityError)
        assert {v.article for v in info.value.verdicts} == {"Art. 5º, IX"}
    assert photos.photo_history(clerk, person) == []


def test_an_imported_photo_must_be_recent(clerk: AppContext, supervisor: AppContext, person: int,
                                          astronaut: bytes) -> None:
    today = local_today()
    with raises_rule("art5_ix_photo_recent"):
        photos.store_photo(clerk, person, astronaut, "import", taken_on=today - timedelta(days=181))
    stored = photos.store_photo(clerk, person, astronaut, "import", taken_on=today - timedelta(days=180))
    assert stored.local_date == today - timedelta(days=180)  # the rules count from the day it was taken
    # The setting decides what "recent" means.
    update_settings(supervisor, {"photo_max_age_days": 30})
    with raises_rule("art5_ix_photo_recent"):
        photos.store_photo(clerk, person, astronaut, "import", taken_on=today - timedelta(days=31))
