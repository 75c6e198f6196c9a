"""The 3x4 photos of a person (Art. 5º, IX): stored as content-addressed JPEG blobs, newest first.

The capture (camera or file, face-centred crop) belongs to :mod:`motodesk.imaging` and the photo
dialog; this module only checks that what it is given is a decodable JPEG and keeps it, with who
took it, when and from where. A photo from the camera or a file must be the badge photo itself:
an RGB JPEG of exactly 354 × 472 px (3 × 4 cm at 300 dpi, what ``imaging.render_3x4`` writes).
Earlier photos are never replaced: :func:`photo_history` lists them, newest first.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass
from datetime import date, datetime

from PIL import Image, UnidentifiedImageError
from sqlalchemy import select

from motodesk.models import Blob, Person, Photo
from motodesk.rules.common import Role
from motodesk.services.clock import LOCAL_TZ
from motodesk.services.context import AppContext, requires
from motodesk.services.errors import InvalidInputError, NotFoundError

EDITORS = (Role.CLERK, Role.SUPERVISOR)
READERS = (Role.CLERK, Role.SUPERVISOR, Role.INSPECTOR, Role.ADMIN)
SOURCES = {"camera": "câmera", "file": "arquivo", "import": "importação"}
MAX_PHOTO_BYTES = 5 * 1024 * 1024
MAX_PHOTO_PIXELS = 40_000_000
BADGE_PHOTO_SIZE = (354, 472)  # imaging.OUTPUT_SIZE: 3 × 4 cm at 300 dpi
RENDERED_SOURCES = ("camera", "file")  # made by the photo dialog's render_3x4


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

    @property
    def local_date(self) -> date:
        """The day it was taken at the secretariat (the date the rules count from)."""

        return self.captured_at.astimezone(LOCAL_TZ).date()


def check_jpeg(data: bytes, *, badge: bool = False) -> tuple[int, int]:
    """(width, height) of a JPEG that decodes completely; InvalidInputError in pt_BR otherwise.

    With ``badge=True`` the JPEG must also be the finished badge photo: RGB, 354 × 472 px."""
    if not data:
        raise InvalidInputError("A foto está vazia.")
    if len(data) > MAX_PHOTO_BYTES:
        from motodesk.services.attachments import megabytes

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
    if badge and (width, height) != BADGE_PHOTO_SIZE:
        raise InvalidInputError(f"Art. 5º, IX: a foto 3x4 deve ter {BADGE_PHOTO_SIZE[0]}×{BADGE_PHOTO_SIZE[1]} "
                                f"pixels (3×4 cm a 300 dpi); esta tem {width}×{height}. "
                                "Use o recorte da tela de foto.")
    if badge and mode != "RGB":
        raise InvalidInputError("Art. 5º, IX: a foto 3x4 deve ser colorida (RGB); "
                                f"esta está em {'tons de cinza' if mode in ('L', '1') else mode}. "
                                "Use o recorte da tela de foto.")
    return width, height


def _info(photo: Photo, jpeg: bytes | None) -> PhotoInfo:
    return PhotoInfo(photo.id, photo.person_id, photo.captured_at, photo.captured_by, photo.source,
                     photo.width, photo.height, photo.blob_sha256, jpeg)


@requires(*EDITORS)
def store_photo(ctx: AppContext, person_id: int, jpeg_bytes: bytes, source: str) -> PhotoInfo:
    """Keep a new 3x4 photo of the person (the newest is the one the badge and the rules use)."""
    if source not in SOURCES:
        raise InvalidInputError(f"Origem da foto desconhecida: {source!r}.")
    width, height = check_jpeg(jpeg_bytes, badge=source in RENDERED_SOURCES)
    sha = hashlib.sha256(jpeg_bytes).hexdigest()
    with ctx.write() as s:
        if s.get(Person, person_id) is None:
            raise NotFoundError("A pessoa não existe mais no cadastro.")
        if s.get(Blob, sha) is None:
            s.add(Blob(sha256=sha, size=len(jpeg_bytes), data=jpeg_bytes))
            s.flush()
        photo = Photo(person_id=person_id, blob_sha256=sha, captured_by=ctx.user.login, source=source,
                      width=width, height=height)
        s.add(photo)
        s.flush()
        return _info(photo, jpeg_bytes)


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
