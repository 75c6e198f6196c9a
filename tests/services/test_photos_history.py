"""The person's 3x4 photos (Art. 5º, IX): what store_photo accepts, who and when, and the history."""

from __future__ import annotations

import io
import struct
import zlib
from datetime import UTC, date, datetime
from pathlib import Path

import numpy as np
import pytest
import time_machine
from PIL import Image
from tests_helpers import raises_code, valid_cpf  # type: ignore[import-not-found]

from motodesk.imaging import OUTPUT_SIZE, process_upload
from motodesk.services import people, photos
from motodesk.services.context import AppContext
from motodesk.services.errors import InvalidInputError, PermissionDeniedError, RuleViolationError
from motodesk.services.people import PersonInput

#: The plain-colour test pictures have no face: storing them needs the override (Art. 5º, IX).
SYNTHETIC = "foto sintética de teste, sem rosto"
PHOTOS = Path(__file__).resolve().parents[1] / "data" / "photos"


def encode(im: Image.Image, fmt: str = "JPEG", **params: object) -> bytes:
    buffer = io.BytesIO()
    im.save(buffer, format=fmt, **params)
    return buffer.getvalue()


def badge_jpeg(colour: tuple[int, int, int] = (180, 150, 120)) -> bytes:
    return encode(Image.new("RGB", OUTPUT_SIZE, colour), quality=90, dpi=(300, 300))


def png_bomb(width: int = 60_000, height: int = 60_000) -> bytes:
    """A tiny PNG whose header claims 3.6 gigapixels."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b"")


@pytest.fixture
def person(clerk: AppContext) -> int:
    return people.save_person(clerk, PersonInput(full_name="Marcos Vinícius Teodoro", cpf=valid_cpf(),
                                                 birth_date=date(1988, 5, 17), sex="M")).id


def test_history_is_newest_first_and_keeps_every_photo(clerk: AppContext, supervisor: AppContext,
                                                       inspector: AppContext, person: int) -> None:
    assert photos.photo_history(clerk, person) == []
    first = photos.store_photo(clerk, person, badge_jpeg((10, 20, 30)), "file", override_reason=SYNTHETIC)
    second = photos.store_photo(supervisor, person, badge_jpeg((200, 180, 160)), "camera", override_reason=SYNTHETIC)
    history = photos.photo_history(inspector, person)
    assert [p.id for p in history] == [second.id, first.id]
    assert [(p.captured_by, p.source) for p in history] == [("supervisor", "camera"), ("clerk", "file")]
    assert all(p.jpeg is None for p in history)
    with_bytes = photos.photo_history(clerk, person, with_bytes=True)
    assert [p.jpeg for p in with_bytes] == [badge_jpeg((200, 180, 160)), badge_jpeg((10, 20, 30))]
    newest = photos.newest_photo(clerk, person)
    assert newest is not None and newest.id == history[0].id  # the badge uses the newest


def test_same_picture_twice_is_two_history_entries_sharing_one_blob(clerk: AppContext, person: int) -> None:
    a = photos.store_photo(clerk, person, badge_jpeg(), "file", override_reason=SYNTHETIC)
    b = photos.store_photo(clerk, person, badge_jpeg(), "camera", override_reason=SYNTHETIC)
    assert a.sha256 == b.sha256 and a.id != b.id
    assert len(photos.photo_history(clerk, person)) == 2


def test_capture_date_and_author_are_recorded(clerk: AppContext, person: int) -> None:
    # 23:30 in Patrocínio is already the next day in UTC: the "recent" rule counts local days.
    with time_machine.travel(datetime(2026, 3, 3, 2, 30, tzinfo=UTC), tick=False):
        stored = photos.store_photo(clerk, person, badge_jpeg(), "camera", override_reason=SYNTHETIC)
    with time_machine.travel(datetime(2026, 9, 1, 15, 0, tzinfo=UTC), tick=False):
        later = photos.store_photo(clerk, person, badge_jpeg((1, 2, 3)), "file", override_reason=SYNTHETIC)
    history = photos.photo_history(clerk, person)
    assert [p.id for p in history] == [later.id, stored.id]
    assert history[1].captured_at == datetime(2026, 3, 3, 2, 30, tzinfo=UTC)
    assert history[1].local_date == date(2026, 3, 2)
    assert history[1].captured_by == "clerk"
    assert history[0].local_date == date(2026, 9, 1)


def test_other_people_photos_are_not_mixed_in(clerk: AppContext, person: int) -> None:
    other = people.save_person(clerk, PersonInput(full_name="Rita de Cássia Amaral", cpf=valid_cpf(),
                                                  birth_date=date(1979, 2, 1), sex="F")).id
    photos.store_photo(clerk, other, badge_jpeg(), "file", override_reason=SYNTHETIC)
    assert photos.photo_history(clerk, person) == []
    assert len(photos.photo_history(clerk, other)) == 1


def test_rendered_astronaut_is_stored_and_read_back_as_the_badge_photo(clerk: AppContext, person: int) -> None:
    processed = process_upload((PHOTOS / "astronaut.png").read_bytes())
    stored = photos.store_photo(clerk, person, processed.jpeg, "file")
    assert (stored.width, stored.height) == (354, 472)
    back = photos.newest_photo(clerk, person)
    assert back is not None and back.jpeg == processed.jpeg
    with Image.open(io.BytesIO(back.jpeg)) as im:
        assert (im.format, im.mode, im.size) == ("JPEG", "RGB", (354, 472))
        assert tuple(round(v) for v in im.info["dpi"]) == (300, 300)
        assert im.info.get("icc_profile")


def _refusals() -> list[tuple[str, bytes, str]]:
    with Image.open(PHOTOS / "astronaut.png") as src:
        astronaut = src.convert("RGB")
    full = encode(astronaut.resize(OUTPUT_SIZE), quality=90)
    rgb16 = (np.asarray(astronaut.resize(OUTPUT_SIZE)).astype(np.uint16) * 257)
    png16 = encode(Image.fromarray(rgb16[:, :, 0]), "PNG")  # 16-bit greyscale PNG
    return [
        ("truncated JPEG", full[: len(full) // 2], "corrompida ou incompleta"),
        ("PNG bomb", png_bomb(), "não é um arquivo JPEG"),
        ("text named .jpg", "Nome;CPF\nJoão;123\n".encode(), "não é um arquivo JPEG"),
        ("16-bit PNG", png16, "não é um arquivo JPEG"),
        ("CMYK JPEG", encode(astronaut.resize(OUTPUT_SIZE).convert("CMYK"), quality=90), "colorida \\(RGB\\)"),
        ("greyscale JPEG", encode(astronaut.resize(OUTPUT_SIZE).convert("L"), quality=90), "tons de cinza"),
        ("whole 512 px photo", encode(astronaut, quality=90), "354×472 pixels.*esta tem 512×512"),
        ("landscape 472×354", encode(astronaut.resize((472, 354)), quality=90), "esta tem 472×354"),
    ]


@pytest.mark.parametrize(("name", "data", "message"), _refusals(), ids=[r[0] for r in _refusals()])
@pytest.mark.parametrize("source", ["camera", "file"])
def test_anything_but_the_rendered_badge_photo_is_refused_and_nothing_stored(
        clerk: AppContext, person: int, source: str, name: str, data: bytes, message: str) -> None:
    # Size and colour are rules of Art. 5º, IX (RuleViolationError), judged for every source; an
    # override of the quality warnings does not cover them.
    with pytest.raises((InvalidInputError, RuleViolationError), match=message) as info:
        photos.store_photo(clerk, person, data, source, override_reason=SYNTHETIC)
    if "pixels" in message or "RGB" in message or "cinza" in message:
        assert isinstance(info.value, RuleViolationError)
        assert {v.article for v in info.value.verdicts} == {"Art. 5º, IX"}
    assert photos.photo_history(clerk, person) == []
    with clerk.read() as s:
        from motodesk.models import Blob

        assert s.query(Blob).count() == 0


def test_imported_legacy_photo_keeps_its_size(clerk: AppContext, person: int) -> None:
    """Photos migrated from the old register ("import") were cropped elsewhere: any 3x4 JPEG, judged like the
    others — this grey, faceless, small one only with an override and its reason."""
    legacy = encode(Image.new("RGB", (300, 400), (90, 90, 90)), quality=85)
    with raises_code(photos.PhotoQualityError, "photo_quality") as info:
        photos.store_photo(clerk, person, legacy, "import")
    for warning in ("Nenhum rosto", "resolução baixa", "preto e branco"):
        assert warning in str(info.value)
    assert photos.photo_history(clerk, person) == []
    stored = photos.store_photo(clerk, person, legacy, "import", override_reason="foto do cadastro antigo")
    assert (stored.width, stored.height, stored.source) == (300, 400, "import")


def test_roles(clerk: AppContext, supervisor: AppContext, inspector: AppContext, ctx: AppContext,
               person: int) -> None:
    photos.store_photo(supervisor, person, badge_jpeg(), "camera", override_reason=SYNTHETIC)
    for reader in (inspector, ctx):  # ctx is the administrator
        with pytest.raises(PermissionDeniedError):
            photos.store_photo(reader, person, badge_jpeg(), "camera", override_reason=SYNTHETIC)
        assert len(photos.photo_history(reader, person)) == 1
