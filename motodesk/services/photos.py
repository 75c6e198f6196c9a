"""The 3x4 photos of a person (Art. 5º, IX): stored as content-addressed JPEG blobs, newest first.

The capture (camera or file, face-centred crop) belongs to :mod:`motodesk.imaging` and the photo
dialog. Whatever the source (camera, file, import), :func:`store_photo` judges the photo itself
before keeping it: a decodable JPEG, then the rules of :mod:`motodesk.rules.photo` on what
:mod:`motodesk.imaging` measures (3:4, the badge size for the camera and a file, colour, recent,
and the quality checks the photo screen shows). A quality warning is overridden only with a
written reason (the screen's "Usar mesmo assim"), kept with the photo and so in the audit trail.
Earlier photos are never replaced: :func:`photo_history` lists them, newest first.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass
from datetime import UTC, date, datetime, time

from PIL import Image, UnidentifiedImageError
from sqlalchemy import select

from motodesk.models import Blob, Person, Photo
from motodesk.rules.common import Verdict
from motodesk.rules.photo import PhotoFacts, check_photo
from motodesk.rules.settings import LawSettings
from motodesk.services.attachments import megabytes
from motodesk.services.clock import LOCAL_TZ, local_today
from motodesk.services.context import EDITORS, READERS, AppContext, requires
from motodesk.services.errors import InvalidInputError, NotFoundError, RuleViolationError
from motodesk.services.settings import law_settings

SOURCES = {"camera": "câmera", "file": "arquivo", "import": "importação"}
MAX_PHOTO_BYTES = 5 * 1024 * 1024
MAX_PHOTO_PIXELS = 40_000_000
RENDERED_SOURCES = ("camera", "file")  # made by the photo dialog's render_3x4
MAX_OVERRIDE_REASON = 500
OVERRIDE_INTRO = ("Art. 5º, IX: a foto tem avisos de qualidade. Tire outra foto, ou marque “Usar mesmo assim” "
                  "e informe o motivo:")


class PhotoQualityError(RuleViolationError):
    """The photo has quality warnings and no override with a reason was given."""

    title = "Foto com avisos"
    code = "photo_quality"


@dataclass(frozen=True)
class PhotoInfo:
    id: int
    person_id: int
    captured_at: datetime
    captured_by: str
    source: str
    width: int
    height: int
    sha256: str
    jpeg: bytes | None = None
    override_reason: str | None = None

    @property
    def local_date(self) -> date:
        """The day it was taken at the secretariat (the date the rules count from)."""

        return self.captured_at.astimezone(LOCAL_TZ).date()


def check_jpeg(data: bytes) -> tuple[int, int, str]:
    """(width, height, mode) of a JPEG that decodes completely; InvalidInputError in pt_BR otherwise."""
    if not data:
        raise InvalidInputError("A foto está vazia.")
    if len(data) > MAX_PHOTO_BYTES:
        raise InvalidInputError(f"A foto tem {megabytes(len(data))}; o limite é {megabytes(MAX_PHOTO_BYTES)}.")
    if not data.startswith(b"\xff\xd8\xff"):
        raise InvalidInputError("A foto não é um arquivo JPEG.")
    try:
        with Image.open(io.BytesIO(data)) as image:
            if image.format != "JPEG":
                raise InvalidInputError("A foto não é um arquivo JPEG.")
            width, height = image.size
            if width * height > MAX_PHOTO_PIXELS:
                raise InvalidInputError("A foto tem pixels demais para uma foto 3x4.")
            image.load()
            mode = image.mode
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise InvalidInputError("A foto está corrompida ou incompleta e não pode ser lida.") from exc
    return width, height, mode


def quality_warnings(jpeg: bytes) -> tuple[str, ...]:
    """The pt_BR quality warnings of :func:`motodesk.imaging.quality.judge_finished_photo`."""
    from motodesk.imaging.loading import PhotoError
    from motodesk.imaging.quality import judge_finished_photo

    try:
        return tuple(w.message for w in judge_finished_photo(jpeg))
    except PhotoError as exc:
        raise InvalidInputError(exc.message) from exc


def judge_photo(jpeg_bytes: bytes, source: str, *, on: date, settings: LawSettings,
                taken_on: date | None = None) -> tuple[int, int, list[Verdict], list[Verdict]]:
    """(width, height, refusals, warnings) of a photo about to be stored (Art. 5º, IX)."""
    width, height, mode = check_jpeg(jpeg_bytes)
    facts = PhotoFacts(width=width, height=height, colour=mode == "RGB", mode=mode,
                       taken_on=taken_on or on, rendered=source in RENDERED_SOURCES,
                       quality_warnings=quality_warnings(jpeg_bytes) if mode == "RGB" else ())
    judgement = check_photo(facts, on, settings)
    return width, height, list(judgement.refusals), list(judgement.warnings)


def _info(photo: Photo, jpeg: bytes | None) -> PhotoInfo:
    return PhotoInfo(photo.id, photo.person_id, photo.captured_at, photo.captured_by, photo.source,
                     photo.width, photo.height, photo.blob_sha256, jpeg, photo.override_reason)


@requires(*EDITORS)
def store_photo(ctx: AppContext, person_id: int, jpeg_bytes: bytes, source: str, *,
                override_reason: str | None = None, taken_on: date | None = None) -> PhotoInfo:
    """Keep a new 3x4 photo of the person (the newest is the one the badge and the rules use).

    The photo is judged here for every source (Art. 5º, IX, :func:`motodesk.rules.photo.check_photo`):
    a refusal raises :class:`RuleViolationError`; quality warnings raise :class:`PhotoQualityError`
    unless ``override_reason`` says why the photo is used anyway. ``taken_on`` is the day an
    imported photo was taken (the camera and a file are today's).
    """
    if source not in SOURCES:
        raise InvalidInputError(f"Origem da foto desconhecida: {source!r}.", code="photo.unknown_source")
    if taken_on is not None and source in RENDERED_SOURCES:
        raise InvalidInputError("Só uma foto importada traz a data em que foi tirada; a da câmera ou de um "
                                "arquivo é a de hoje.")
    reason = " ".join((override_reason or "").split()) or None
    if reason is not None and len(reason) > MAX_OVERRIDE_REASON:
        raise InvalidInputError(f"O motivo é longo demais: no máximo {MAX_OVERRIDE_REASON} caracteres.",
                                {"override_reason": "Motivo longo demais."})
    today = local_today()
    width, height, refusals, warnings = judge_photo(jpeg_bytes, source, on=today, settings=law_settings(ctx),
                                                    taken_on=taken_on)
    if refusals:
        raise RuleViolationError(refusals, "A foto não pode ser guardada:")
    if warnings and reason is None:
        raise PhotoQualityError(warnings, OVERRIDE_INTRO)
    sha = hashlib.sha256(jpeg_bytes).hexdigest()
    with ctx.write() as s:
        if s.get(Person, person_id) is None:
            raise NotFoundError("A pessoa não existe mais no cadastro.")
        if s.get(Blob, sha) is None:
            s.add(Blob(sha256=sha, size=len(jpeg_bytes), data=jpeg_bytes))
            s.flush()
        photo = Photo(person_id=person_id, blob_sha256=sha, captured_by=ctx.user.login, source=source,
                      width=width, height=height,
                      override_reason=_override_text(reason, warnings) if warnings else None)
        if taken_on is not None:
            photo.captured_at = datetime.combine(taken_on, time(12), LOCAL_TZ).astimezone(UTC)
        s.add(photo)
        s.flush()
        return _info(photo, jpeg_bytes)


def _override_text(reason: str | None, warnings: list[Verdict]) -> str:
    """What the audit keeps of an override: the reason and the warnings it covered."""
    covered = "; ".join(v.message.removeprefix("Art. 5º, IX: ").rstrip(".") for v in warnings)
    return f"{reason} [avisos: {covered}]"


@requires(*READERS)
def newest_photo(ctx: AppContext, person_id: int, *, with_bytes: bool = True) -> PhotoInfo | None:
    """The person's newest photo (with its JPEG unless ``with_bytes=False``), or None."""
    with ctx.read() as s:
        photo = s.scalar(select(Photo).where(Photo.person_id == person_id)
                         .order_by(Photo.captured_at.desc(), Photo.id.desc()).limit(1))
        if photo is None:
            return None
        data = s.scalar(select(Blob.data).where(Blob.sha256 == photo.blob_sha256)) if with_bytes else None
        return _info(photo, bytes(data) if data is not None else None)


@requires(*READERS)
def photo_history(ctx: AppContext, person_id: int, *, with_bytes: bool = False) -> list[PhotoInfo]:
    """Every photo of the person, newest first (the first is the one on the badge)."""
    with ctx.read() as s:
        order = (Photo.captured_at.desc(), Photo.id.desc())
        if not with_bytes:
            rows = s.scalars(select(Photo).where(Photo.person_id == person_id).order_by(*order))
            return [_info(photo, None) for photo in rows]
        pairs = s.execute(select(Photo, Blob.data).join(Blob, Blob.sha256 == Photo.blob_sha256)
                          .where(Photo.person_id == person_id).order_by(*order))
        return [_info(photo, bytes(data)) for photo, data in pairs]
