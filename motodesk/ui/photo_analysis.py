"""The photo dialog's work off the GUI thread: a camera frame or an imported file turned into an
:class:`Analysis` (working image, proposed crop, quality warnings, what was converted on the way), the
badge JPEG rendered and stored, and the zoom slider's scale (slider value ⇄ crop size).

A camera frame is reduced with Qt's smooth scaling to the imaging package's working size *before*
it becomes a Pillow image (see :func:`frame_to_pil`)."""

from __future__ import annotations

import dataclasses
import io
import math
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

from PIL import Image
from PySide6.QtCore import Qt
from PySide6.QtGui import (
    QImage,
)

from motodesk.imaging import (
    Box,
    CropProposal,
    FaceDetector,
    LoadedPhoto,
    PhotoError,
    QualityWarning,
    check_quality,
    detect_faces,
    load_photo,
    photo_from_image,
    propose_crop,
    render_3x4,
)
from motodesk.imaging.geometry import MIN_CROP_UNIT, max_crop_unit
from motodesk.imaging.loading import ACCEPTED_FORMATS, WORKING_SHORT_SIDE
from motodesk.imaging.quality import MESSAGES, QualityCode, looks_grey
from motodesk.services import photos
from motodesk.services.context import AppContext
from motodesk.services.photos import PhotoInfo

MAX_FILE_BYTES = 60 * 1024 * 1024
DISPLAY_MAX_SIDE = 1024  # the source picture on the left never needs more
ZOOM_STEPS = 1000


MSG_READ_FAILED = "Não foi possível ler o arquivo: {detail}."


MSG_FILE_TOO_BIG = "O arquivo tem {mb:.0f} MB; o limite para uma foto é {limit} MB."


MSG_CMYK = "A imagem estava em CMYK (cores de gráfica) e foi convertida para cores de tela (sRGB)."
MSG_16_BIT = "A imagem tinha 16 bits por canal e foi convertida para 8 bits."


MSG_GREY = MESSAGES[QualityCode.GREY]


# -- QImage ⇄ Pillow ------------------------------------------------------------------------------
_LITTLE = sys.byteorder == "little"


_RAW_MODES: dict[QImage.Format, tuple[str, str]] = {
    QImage.Format.Format_RGB32: ("RGB", "BGRX" if _LITTLE else "XRGB"),
    QImage.Format.Format_ARGB32: ("RGB", "BGRX" if _LITTLE else "XRGB"),
    QImage.Format.Format_ARGB32_Premultiplied: ("RGB", "BGRX" if _LITTLE else "XRGB"),
    QImage.Format.Format_RGBX8888: ("RGB", "RGBX"),
    QImage.Format.Format_RGBA8888: ("RGB", "RGBX"),
    QImage.Format.Format_RGBA8888_Premultiplied: ("RGB", "RGBX"),
    QImage.Format.Format_RGB888: ("RGB", "RGB"),
    QImage.Format.Format_BGR888: ("RGB", "BGR"),
    QImage.Format.Format_Grayscale8: ("L", "L"),
}


def working_size(size: tuple[int, int]) -> tuple[int, int]:
    """The size a frame is reduced to before analysis (the imaging package's working size), or
    ``size`` itself when reducing would save little (short side under 1.25 × 1500 px)."""
    width, height = size
    short = min(width, height)
    if short < 1.25 * WORKING_SHORT_SIDE:
        return size
    factor = WORKING_SHORT_SIDE / short
    return (max(1, round(width * factor)), max(1, round(height * factor)))


def frame_to_pil(image: QImage) -> tuple[Image.Image, tuple[int, int]]:
    """A camera frame as an 8-bit Pillow image, already reduced to the working size, and the
    frame's own size. Camera frames are opaque: any alpha channel is ignored."""
    original = (image.width(), image.height())
    target = working_size(original)
    if target != original:
        image = image.scaled(target[0], target[1], Qt.AspectRatioMode.IgnoreAspectRatio,
                             Qt.TransformationMode.SmoothTransformation)
    modes = _RAW_MODES.get(image.format())
    if modes is None:
        image = image.convertToFormat(QImage.Format.Format_RGB32)
        modes = _RAW_MODES[QImage.Format.Format_RGB32]
    mode, raw = modes
    size = (image.width(), image.height())
    pil = Image.frombuffer(mode, size, image.constBits(), "raw", raw, image.bytesPerLine(), 1)  # type: ignore[arg-type]
    if pil.readonly:
        # Pillow mapped the QImage's memory instead of decoding it (it does for "L", "RGBX" and
        # "RGBA" raw data, in the raw data's own mode): make an image of our own, in our mode.
        pil = pil.convert(mode) if pil.mode != mode else pil.copy()
    return pil, original


def pil_to_qimage(img: Image.Image) -> QImage:
    """A Pillow image as a QImage that owns its pixels."""
    rgb = img if img.mode == "RGB" else img.convert("RGB")
    data = rgb.tobytes()
    return QImage(data, rgb.width, rgb.height, 3 * rgb.width, QImage.Format.Format_RGB888).copy()


# -- analysis (runs in a worker thread) ---------------------------------------------------------------
@dataclass(frozen=True)
class Analysis:
    """A captured or imported photo ready for the crop editor."""

    photo: LoadedPhoto
    proposal: CropProposal
    warnings: tuple[QualityWarning, ...]
    source: str  # "camera" or "file" (services.photos.SOURCES)
    display: QImage  # the working image reduced for the left view
    display_scale: float  # display pixels per working-image pixel
    notes: tuple[str, ...] = ()  # what was converted on the way (CMYK, 16 bits)
    grey: bool = False
    seconds: float = 0.0


def conversion_notes(data: bytes) -> tuple[str, ...]:
    """What :func:`load_photo` will convert silently and the clerk should know about."""
    notes: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with Image.open(io.BytesIO(data), formats=ACCEPTED_FORMATS) as im:
                mode = im.mode
                raw = str(im.tile[0].args) if im.tile else ""
        except Exception:  # noqa: BLE001 - load_photo refuses it with the proper message
            return ()
    if mode == "CMYK":
        notes.append(MSG_CMYK)
    if mode.startswith("I;16") or mode in ("I", "F") or ";16" in raw:
        notes.append(MSG_16_BIT)
    return tuple(notes)


def _analyse(photo: LoadedPhoto, source: str, notes: tuple[str, ...], detector: FaceDetector,
             started: float) -> Analysis:
    proposal = propose_crop(photo, detector)
    found = tuple(check_quality(photo, proposal))
    # The left view needs no more than DISPLAY_MAX_SIDE pixels: an integer box reduction is a few
    # milliseconds where a resampling filter on the working image costs tens.
    step = math.ceil(max(photo.size) / DISPLAY_MAX_SIDE)
    small = photo.image.reduce(step) if step > 1 else photo.image
    return Analysis(photo=photo, proposal=proposal, warnings=found, source=source,
                    display=pil_to_qimage(small), display_scale=small.width / photo.size[0], notes=notes,
                    grey=looks_grey(small), seconds=time.perf_counter() - started)


def analyse_frame(image: QImage, detector: FaceDetector = detect_faces) -> Analysis:
    """A camera still: reduce, normalise, propose the crop, check it."""
    started = time.perf_counter()
    if image.isNull():
        raise PhotoError("A câmera enviou uma imagem vazia. Tire a foto novamente.", "empty")
    pil, original = frame_to_pil(image)
    photo = photo_from_image(pil)
    if photo.size != original:
        photo = dataclasses.replace(photo, original_size=original, scale=photo.size[0] / original[0])
    return _analyse(photo, "camera", (), detector, started)


def analyse_file(path: Path, detector: FaceDetector = detect_faces) -> Analysis:
    """An imported file: read (size-limited), decode with EXIF orientation, propose, check."""
    started = time.perf_counter()
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise PhotoError(MSG_FILE_TOO_BIG.format(mb=size / 1e6, limit=MAX_FILE_BYTES // 2**20), "too_large")
        data = path.read_bytes()
    except OSError as exc:
        raise PhotoError(MSG_READ_FAILED.format(detail=exc.strerror or exc), "unreadable") from exc
    notes = conversion_notes(data)
    return _analyse(load_photo(data), "file", notes, detector, started)


def render_and_store(ctx: AppContext, person_id: int, analysis: Analysis, box: Box,
                     override_reason: str | None = None) -> PhotoInfo:
    """The badge JPEG of ``box`` kept as the person's newest photo (worker thread).

    The service judges the photo again (Art. 5º, IX); ``override_reason`` is the clerk's reason for
    "Usar mesmo assim", which it requires when it finds quality warnings."""
    jpeg = render_3x4(analysis.photo, box)
    return photos.store_photo(ctx, person_id, jpeg, "camera" if analysis.source == "camera" else "file",
                              override_reason=override_reason)


# -- zoom slider ⇄ crop size ---------------------------------------------------------------------
def _unit_range(image_size: tuple[int, int]) -> tuple[int, int]:
    high = max_crop_unit(image_size)
    return min(MIN_CROP_UNIT, high), high


def slider_value(box: Box, image_size: tuple[int, int]) -> int:
    """0 = the largest crop (zoomed out), ZOOM_STEPS = the smallest (zoomed in), logarithmic."""
    low, high = _unit_range(image_size)
    if high <= low:
        return 0
    unit = min(high, max(low, box.width / 3))
    return round(math.log(high / unit) / math.log(high / low) * ZOOM_STEPS)


def unit_for_slider(value: int, image_size: tuple[int, int]) -> int:
    low, high = _unit_range(image_size)
    return max(low, min(high, round(high * (low / high) ** (value / ZOOM_STEPS))))
