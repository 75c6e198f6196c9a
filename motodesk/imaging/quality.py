"""Checks that tell the clerk a photo will make a poor badge. Advice only: the clerk may override.

Thresholds and how they were chosen (measurements on the NASA astronaut photograph at
512 px, 1024 px and 12 MP, darkened, brightened and blurred in the tests):

* **Too dark** — the crop's 95th-percentile luminance is below ``DARK_FRAME_P95`` = 100
  (nothing in the frame reaches a mid grey: the astronaut crop scores 216 as shot, 108 at
  half the light, 86 at 40 %), *or* the face's mean luminance is below
  ``DARK_FACE_MEAN`` = 45 (a black face against a bright window). The face mean alone is
  deliberately *not* compared with a "normal" skin value: correctly exposed dark skin has a
  mean luminance of 80-100, and a threshold there would warn on every dark-skinned applicant.
* **Too bright** — more than ``BRIGHT_FACE_CLIPPED`` = 30 % of the face is clipped white
  (>= 250) or its mean exceeds ``BRIGHT_FACE_MEAN`` = 215 (astronaut: 0 % / 158 as shot,
  21 % / 198 at 1.3 x light, 53 % / 219 at 1.6 x). Without a face, the crop's mean above
  ``BRIGHT_FRAME_MEAN`` = 220.
* **Blurred** — variance of the Laplacian of the face, resampled to ``SHARPNESS_SIDE`` =
  96 px wide (so the figure does not depend on the photo's resolution) and contrast-
  normalised to a standard deviation of ``SHARPNESS_STD`` = 40 (so a darker face or darker
  skin does not read as blurrier), below ``BLUR_THRESHOLD`` = 25. The astronaut face scores
  300-520 as shot (any resolution, any exposure, JPEG quality down to 20), 40-53 with a
  Gaussian blur of 1 % of the face height, 18-23 at 1.5 %, 10-14 at 2 %: 25 flags a blur
  of about 1.4 % of the face height, ~3 px on the printed 472 px badge. Only measured on
  a face: a plain wall or sky has no edges and would look "blurred".
* **Resolution** — the file is smaller than 354 × 472, or the crop has fewer pixels than the
  output by more than ``UPSCALE_TOLERANCE`` = 10 % (a 5 % upscale is invisible in print).
* **Black and white** — a photo saved as colour whose channels are nearly equal everywhere
  (:func:`looks_grey`: the 99th percentile of the channel spread below ``GREY_SPREAD`` = 6);
  Art. 5º, IX asks for colour photos.

:func:`check_quality` judges a photo and a crop being edited (the photo dialog);
:func:`judge_finished_photo` judges the finished 3x4 JPEG as it is about to be stored, the whole
frame being the crop, so that the service applies the same checks to every source (camera, file,
import) and not only the dialog.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import cv2
import numpy as np
from PIL import Image

from .cropping import SECONDARY_FACE_MIN_RATIO, CropProposal
from .faces import FaceDetector, detect_faces
from .geometry import Box, clamp_crop
from .loading import LoadedPhoto, load_photo
from .rendering import OUTPUT_SIZE

DARK_FRAME_P95 = 100.0
DARK_FACE_MEAN = 45.0
BRIGHT_FACE_CLIPPED = 0.30
BRIGHT_FACE_MEAN = 215.0
BRIGHT_FRAME_MEAN = 220.0
CLIPPED_LEVEL = 250
SHARPNESS_SIDE = 96
SHARPNESS_STD = 40.0
BLUR_THRESHOLD = 25.0
UPSCALE_TOLERANCE = 0.10
GREY_SPREAD = 6.0
# Regions are measured on a copy at most this wide: plenty for a mean or a percentile.
_STATS_SIDE = 256


class QualityCode(StrEnum):
    NO_FACE = "no_face"
    MULTIPLE_FACES = "multiple_faces"
    TOO_DARK = "too_dark"
    TOO_BRIGHT = "too_bright"
    BLURRED = "blurred"
    LOW_RESOLUTION = "low_resolution"
    UPSCALED = "upscaled"
    GREY = "grey"


MESSAGES: dict[QualityCode, str] = {
    QualityCode.NO_FACE: "Nenhum rosto encontrado: confira se a pessoa está de frente e ajuste o recorte.",
    QualityCode.MULTIPLE_FACES: "Há mais de um rosto na foto: a foto 3×4 deve mostrar só o requerente.",
    QualityCode.TOO_DARK: "Foto muito escura: melhore a iluminação.",
    QualityCode.TOO_BRIGHT: "Foto muito clara: o rosto está estourado; reduza a luz ou o flash.",
    QualityCode.BLURRED: "Foto tremida ou fora de foco: peça para a pessoa ficar parada e tire outra.",
    QualityCode.LOW_RESOLUTION: (
        "Foto de resolução baixa ({w}×{h} pixels; o mínimo é 354×472): a impressão ficará borrada."
    ),
    QualityCode.UPSCALED: (
        "O recorte tem só {w}×{h} pixels e será ampliado para 354×472: a impressão pode ficar "
        "borrada. Aproxime a câmera ou use uma foto de maior resolução."
    ),
    QualityCode.GREY: "Foto em preto e branco: o Art. 5º, IX pede foto colorida.",
}


@dataclass(frozen=True)
class QualityWarning:
    """One problem found; ``message`` is pt_BR for the clerk."""

    code: QualityCode
    message: str


@dataclass(frozen=True)
class QualityMeasures:
    """The figures the checks compare with their thresholds (luminance 0-255)."""

    face_mean: float | None
    face_clipped: float | None
    sharpness: float | None
    frame_mean: float
    frame_p95: float


def measure_quality(photo: LoadedPhoto, proposal: CropProposal) -> QualityMeasures:
    """Luminance of the crop and of the face, and the face's sharpness."""
    crop = clamp_crop(proposal.box, photo.size)
    frame = _luminance(photo.image, crop, _STATS_SIDE)
    face_mean = face_clipped = sharpness = None
    face = _inside(proposal.face, photo.size) if proposal.face else None
    if face is not None:
        lum = _luminance(photo.image, face, _STATS_SIDE)
        face_mean = float(lum.mean())
        face_clipped = float((lum >= CLIPPED_LEVEL).mean())
        sharpness = _sharpness(photo.image, face)
    return QualityMeasures(
        face_mean=face_mean,
        face_clipped=face_clipped,
        sharpness=sharpness,
        frame_mean=float(frame.mean()),
        frame_p95=float(np.percentile(frame, 95)),
    )


def check_quality(photo: LoadedPhoto, proposal: CropProposal) -> list[QualityWarning]:
    """Everything wrong with the photo and its (possibly adjusted) crop, most serious first."""
    m = measure_quality(photo, proposal)
    found: list[QualityWarning] = []

    def warn(code: QualityCode, **fmt: int) -> None:
        found.append(QualityWarning(code, MESSAGES[code].format(**fmt)))

    if not proposal.face_found:
        warn(QualityCode.NO_FACE)
    elif proposal.faces > 1:
        warn(QualityCode.MULTIPLE_FACES)

    if m.frame_p95 < DARK_FRAME_P95 or (m.face_mean is not None and m.face_mean < DARK_FACE_MEAN):
        warn(QualityCode.TOO_DARK)
    elif m.face_mean is not None and m.face_clipped is not None:
        if m.face_clipped > BRIGHT_FACE_CLIPPED or m.face_mean > BRIGHT_FACE_MEAN:
            warn(QualityCode.TOO_BRIGHT)
    elif m.frame_mean > BRIGHT_FRAME_MEAN:
        warn(QualityCode.TOO_BRIGHT)

    if m.sharpness is not None and m.sharpness < BLUR_THRESHOLD:
        warn(QualityCode.BLURRED)

    out_w, out_h = OUTPUT_SIZE
    src_w, src_h = photo.original_size
    crop = clamp_crop(proposal.box, photo.size)
    if src_w < out_w or src_h < out_h:
        warn(QualityCode.LOW_RESOLUTION, w=src_w, h=src_h)
    elif crop.height < out_h * (1 - UPSCALE_TOLERANCE):
        warn(QualityCode.UPSCALED, w=crop.width, h=crop.height)
    return found


def looks_grey(img: Image.Image) -> bool:
    """True for a black-and-white photo saved as colour (channels nearly equal everywhere)."""
    small = np.asarray(img.convert("RGB").resize((64, 64), Image.Resampling.BOX), dtype=np.int16)
    spread = np.abs(small[..., 0] - small[..., 1]) + np.abs(small[..., 1] - small[..., 2])
    return float(np.percentile(spread, 99)) < GREY_SPREAD


def judge_finished_photo(jpeg: bytes, detector: FaceDetector = detect_faces) -> list[QualityWarning]:
    """The quality checks of :func:`check_quality` on a finished 3x4 photo, plus black and white.

    The whole frame is the crop: the face is looked for in it, and its pixels are the ones that
    print.  Raises :class:`~motodesk.imaging.loading.PhotoError` for bytes that are no photo.
    """
    photo = load_photo(jpeg)
    found = sorted(detector(photo.image), key=lambda b: b.area, reverse=True)
    faces = tuple(f for f in found if f.height >= SECONDARY_FACE_MIN_RATIO * found[0].height)
    width, height = photo.size
    proposal = CropProposal(box=Box(0, 0, width, height), face_found=bool(faces), faces=len(faces),
                            face_boxes=faces)
    warnings = check_quality(photo, proposal)
    if looks_grey(photo.image):
        warnings.append(QualityWarning(QualityCode.GREY, MESSAGES[QualityCode.GREY]))
    return warnings


def _inside(box: Box, image_size: tuple[int, int]) -> Box | None:
    left, top = max(0, box.left), max(0, box.top)
    right, bottom = min(image_size[0], box.right), min(image_size[1], box.bottom)
    if right - left < 4 or bottom - top < 4:
        return None
    return Box(left, top, right - left, bottom - top)


def _luminance(img: Image.Image, box: Box, max_side: int) -> np.ndarray:
    factor = min(1.0, max_side / max(box.width, box.height))
    size = (max(1, round(box.width * factor)), max(1, round(box.height * factor)))
    region = img.resize(size, Image.Resampling.BOX, box=box.as_ltrb()).convert("L")
    return np.asarray(region, dtype=np.float32)


def _sharpness(img: Image.Image, face: Box) -> float:
    """Variance of the Laplacian of the face resampled to a fixed width."""
    size = (SHARPNESS_SIDE, max(1, round(SHARPNESS_SIDE * face.height / face.width)))
    method = Image.Resampling.BOX if face.width > SHARPNESS_SIDE else Image.Resampling.BICUBIC
    grey = np.asarray(img.resize(size, method, box=face.as_ltrb()).convert("L"), dtype=np.float64)
    # Contrast-normalise first: a darker or flatter-lit face has proportionally weaker
    # edges, but it is not blurrier.
    spread = float(grey.std())
    if spread < 1.0:
        return 0.0
    grey = (grey - grey.mean()) * (SHARPNESS_STD / spread)
    return float(cv2.Laplacian(grey, cv2.CV_64F).var())
