"""Turn the bytes of an uploaded or captured photo into an upright 8-bit sRGB working image.

Everything a hostile or broken file can do ends here as a :class:`PhotoError` with a
message for the clerk: no Pillow exception and no Pillow warning escapes (the test suite
runs with ``filterwarnings = error``, and so would a careless caller).
"""

from __future__ import annotations

import io
import logging
import warnings
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from PIL import (  # noqa: F401 - importing a plugin registers its format with Image.open
    BmpImagePlugin,
    Image,
    ImageCms,
    ImageFile,
    JpegImagePlugin,
    PngImagePlugin,
    TiffImagePlugin,
    UnidentifiedImageError,
    WebPImagePlugin,
)

_log = logging.getLogger(__name__)

# Formats we decode. Pillow can open many more (PSD, ICO, PCX, ...); a photo desk needs
# none of them, and each extra decoder is extra attack surface. The multi-picture JPEGs
# that many phones write open through the JPEG entry and report format "MPO".
ACCEPTED_FORMATS: tuple[str, ...] = ("JPEG", "PNG", "WEBP", "BMP", "TIFF")

# Largest image we agree to decode: 50 MP covers every webcam and ordinary phone photo
# (12-48 MP). Checked on the header *before* decoding. Above it only a JPEG is accepted,
# and only if DCT scaling (``Image.draft``) brings the decoded size under the limit, so a
# 108 MP phone picture still loads while a PNG "bomb" never is.
MAX_SOURCE_PIXELS = 50_000_000

# Smallest image worth processing at all (the crop needs something to work with).
MIN_SOURCE_SIDE = 32

# Big sources are reduced at load time, never below this short side. A 3x4 crop usually
# spans 40-100 % of a portrait's height; with 1500 px even a crop of a third of the
# image keeps >= 500 px, above the 472 px output, so nothing is lost in the badge.
WORKING_SHORT_SIDE = 1500

MSG_EMPTY = "O arquivo da foto está vazio."
MSG_UNSUPPORTED = "O arquivo não é uma imagem em formato aceito (JPEG, PNG, WebP, BMP ou TIFF)."
MSG_HEIC = (
    "Fotos no formato HEIC/HEIF (padrão do iPhone) ou AVIF não são aceitas: "
    "exporte a foto como JPEG e tente de novo."
)
MSG_CORRUPT = (
    "A imagem está corrompida ou incompleta e não pôde ser lida. "
    "Tire a foto novamente ou escolha outro arquivo."
)
MSG_TOO_LARGE = "A imagem é grande demais ({mp:.0f} megapixels; o máximo aceito é {limit} megapixels)."
MSG_NO_MEMORY = "A imagem é grande demais para ser aberta neste computador."
MSG_TOO_SMALL = "A imagem é pequena demais ({w}×{h} pixels) para uma foto 3×4."


class PhotoError(Exception):
    """A photo that cannot be used. ``message`` is Brazilian Portuguese, safe to show to a clerk;
    ``code`` is a stable identifier for logs and tests."""

    def __init__(self, message: str, code: str = "invalid") -> None:
        super().__init__(message)
        self.message = message
        self.code = code


@dataclass(frozen=True, eq=False)
class LoadedPhoto:
    """An upright, 8-bit sRGB RGB photo ready to be cropped.

    ``image`` is the working image: the file's pixels after EXIF orientation, reduced when
    the file was very large. Every :class:`~motodesk.imaging.geometry.Box` of this package
    is in ``image`` pixels. ``original_size`` is the upright size of the file itself and
    ``scale`` is ``image.width / original_width`` (1.0 when nothing was reduced). Nothing in
    this package modifies ``image``; callers should not either.
    """

    image: Image.Image
    original_size: tuple[int, int]
    scale: float
    source_format: str

    @property
    def size(self) -> tuple[int, int]:
        return self.image.size


def load_photo(data: bytes) -> LoadedPhoto:
    """Decode an uploaded or captured photo; raise :class:`PhotoError` if it cannot be used."""
    if not data:
        raise PhotoError(MSG_EMPTY, "empty")
    if _looks_like_heif(data):
        raise PhotoError(MSG_HEIC, "unsupported")
    # Pillow reports suspicious input (decompression bombs, corrupt EXIF, ...) through the
    # warnings module. Record them instead of letting a "warnings as errors" setting turn
    # them into crashes; the size limits below are our own, explicit decision.
    # (On Python < 3.14 catch_warnings is process-wide: a warning raised by another thread
    # during these few milliseconds is swallowed too. Harmless for a GUI worker.)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        try:
            return _decode(data)
        except PhotoError:
            raise
        except Image.DecompressionBombError as exc:
            raise PhotoError(_too_large_message_from(exc), "too_large") from exc
        except UnidentifiedImageError as exc:
            raise PhotoError(MSG_UNSUPPORTED, "unsupported") from exc
        except MemoryError as exc:
            raise PhotoError(MSG_NO_MEMORY, "too_large") from exc
        except Exception as exc:  # noqa: BLE001 - any decoder failure means a broken file
            _log.info("photo refused as unreadable", exc_info=True)
            raise PhotoError(MSG_CORRUPT, "corrupt") from exc


def photo_from_image(image: Image.Image) -> LoadedPhoto:
    """Wrap an already decoded image (e.g. a camera frame) as a :class:`LoadedPhoto`.

    Applies the same orientation, colour and size normalisation as :func:`load_photo`;
    the caller's image is not modified.
    """
    width, height = image.size
    if min(width, height) < MIN_SOURCE_SIDE:
        raise PhotoError(MSG_TOO_SMALL.format(w=width, h=height), "too_small")
    if width * height > MAX_SOURCE_PIXELS:
        raise PhotoError(_too_large_message(width * height), "too_large")
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        return _normalise(image.copy(), image.format or "RAW")


def _decode(data: bytes) -> LoadedPhoto:
    im = Image.open(io.BytesIO(data), formats=ACCEPTED_FORMATS)
    fmt = im.format or "?"
    width, height = im.size
    if min(width, height) < MIN_SOURCE_SIDE:
        raise PhotoError(MSG_TOO_SMALL.format(w=width, h=height), "too_small")
    if isinstance(im, ImageFile.ImageFile) and fmt in ("JPEG", "MPO"):
        # DCT scaling: decode a 1/2, 1/4 or 1/8 size image directly, never below the
        # working size. Cheap, and what makes a 12 MP capture fast.
        target = _working_size((width, height))
        if target != (width, height):
            im.draft(im.mode, target)
    if im.size[0] * im.size[1] > MAX_SOURCE_PIXELS:
        raise PhotoError(_too_large_message(width * height), "too_large")
    im.load()  # the first frame: Image.open leaves multi-frame files (MPO, TIFF, WebP) there
    return _normalise(im, fmt, original_size=(width, height))


def _normalise(im: Image.Image, fmt: str, original_size: tuple[int, int] | None = None) -> LoadedPhoto:
    if original_size is None:
        original_size = im.size
    icc = im.info.get("icc_profile")
    exif_orientation = _orientation(im)

    im = _to_8bit(im)
    im = _flatten_alpha(im)
    im = _reduce(im)
    im = _to_srgb(im, icc)
    if exif_orientation not in (None, 1):
        im = _transpose(im, exif_orientation)
        if exif_orientation in (5, 6, 7, 8):
            original_size = (original_size[1], original_size[0])
    if isinstance(im, ImageFile.ImageFile):
        im = im.copy()  # a plain image, not tied to the decoder and its input buffer
    # Drop metadata from the working copy: it is described by this dataclass now.
    im.info.clear()
    scale = im.width / original_size[0]
    return LoadedPhoto(image=im, original_size=original_size, scale=scale, source_format=fmt)


def _working_size(size: tuple[int, int]) -> tuple[int, int]:
    width, height = size
    short = min(width, height)
    if short <= WORKING_SHORT_SIDE:
        return size
    factor = WORKING_SHORT_SIDE / short
    return (max(1, round(width * factor)), max(1, round(height * factor)))


def _reduce(im: Image.Image) -> Image.Image:
    target = _working_size(im.size)
    # Only reduce when it saves real work; a 10 % shrink is not worth a resample.
    if target == im.size or min(im.size) < 1.25 * WORKING_SHORT_SIDE:
        return im
    return im.resize(target, Image.Resampling.LANCZOS, reducing_gap=3.0)


def _orientation(im: Image.Image) -> int | None:
    try:
        value = im.getexif().get(0x0112)
    except Exception:  # noqa: BLE001 - unreadable EXIF: treat as upright
        return None
    return value if isinstance(value, int) and 1 <= value <= 8 else None


_TRANSPOSE_FOR_ORIENTATION = {
    2: [Image.Transpose.FLIP_LEFT_RIGHT],
    3: [Image.Transpose.ROTATE_180],
    4: [Image.Transpose.FLIP_TOP_BOTTOM],
    5: [Image.Transpose.TRANSPOSE],
    6: [Image.Transpose.ROTATE_270],
    7: [Image.Transpose.TRANSVERSE],
    8: [Image.Transpose.ROTATE_90],
}


def _transpose(im: Image.Image, orientation: int) -> Image.Image:
    # Same table as ImageOps.exif_transpose, applied to the already reduced working copy
    # (exif_transpose itself would also rewrite metadata we are about to drop).
    for method in _TRANSPOSE_FOR_ORIENTATION[orientation]:
        im = im.transpose(method)
    return im


def _to_8bit(im: Image.Image) -> Image.Image:
    """16-bit and 32-bit greyscale → ``L``, scaling instead of clipping; ``1`` → ``L``.

    (Pillow's own ``convert("L")`` clips 16-bit values at 255, turning a normal 16-bit
    PNG white.) Integer work where possible: a 50 MP 16-bit scan stays ~150 MB.
    """
    if im.mode.startswith("I;16"):
        return Image.fromarray((np.asarray(im) >> 8).astype(np.uint8))
    if im.mode == "I":
        arr = np.asarray(im)
        top = int(arr.max(initial=0))
        if top <= 255:
            return Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))
        if top <= 65535:  # 16-bit data (PNG, TIFF) in a 32-bit mode
            return Image.fromarray((np.clip(arr, 0, 65535) >> 8).astype(np.uint8))
        scaled = np.clip(arr, 0, None).astype(np.float32) * np.float32(255.0 / top)
        return Image.fromarray(np.rint(scaled).astype(np.uint8))
    if im.mode == "F":
        floats = np.nan_to_num(np.asarray(im, dtype=np.float32), nan=0.0, posinf=0.0, neginf=0.0)
        peak = float(floats.max(initial=0.0))
        factor = 255.0 if peak <= 1.0 else 255.0 / max(peak, 255.0)
        return Image.fromarray(np.rint(np.clip(floats * np.float32(factor), 0, 255)).astype(np.uint8))
    if im.mode == "1":
        return im.convert("L")
    return im


def _flatten_alpha(im: Image.Image) -> Image.Image:
    """Palette → RGB(A); transparent pixels become white (the badge background)."""
    if im.mode == "P":
        im = im.convert("RGBA" if "transparency" in im.info else "RGB")
    elif im.mode == "PA":
        im = im.convert("RGBA")
    if im.mode in ("RGBa", "La"):
        im = im.convert("RGBA")
    if im.mode in ("RGBA", "LA"):
        rgba = im.convert("RGBA")
        background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        flat = Image.alpha_composite(background, rgba)
        return flat.convert("RGB" if im.mode == "RGBA" else "L")
    return im


def _to_srgb(im: Image.Image, icc: bytes | None) -> Image.Image:
    if icc and im.mode in ("RGB", "CMYK", "L"):
        converted = _apply_icc(im, icc)
        if converted is not None:
            return converted
    if im.mode == "RGB":
        return im
    return im.convert("RGB")


def _apply_icc(im: Image.Image, icc: bytes) -> Image.Image | None:
    try:
        source = ImageCms.ImageCmsProfile(io.BytesIO(icc))
        if im.mode == "RGB" and ImageCms.getProfileDescription(source).strip().lower().startswith("srgb"):
            return im  # already sRGB: spare the transform
        result = ImageCms.profileToProfile(
            im,
            source,
            _srgb_profile(),
            renderingIntent=ImageCms.Intent.PERCEPTUAL,
            outputMode="RGB",
        )
    except (ImageCms.PyCMSError, OSError, ValueError, TypeError):
        return None  # a broken or mismatched profile: fall back to a plain conversion
    return result if isinstance(result, Image.Image) else None


@lru_cache(maxsize=1)
def _srgb_profile() -> ImageCms.ImageCmsProfile:
    return ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB"))


@lru_cache(maxsize=1)
def srgb_icc_bytes() -> bytes:
    """The sRGB ICC profile embedded in every JPEG this package writes."""
    return _srgb_profile().tobytes()


def _looks_like_heif(data: bytes) -> bool:
    # ISO base media file: 4-byte box size, then "ftyp" and the major brand.
    if len(data) < 12 or data[4:8] != b"ftyp":
        return False
    brand = data[8:12]
    return brand in {b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1", b"avif", b"avis"}


def _too_large_message(pixels: int) -> str:
    return MSG_TOO_LARGE.format(mp=pixels / 1_000_000, limit=MAX_SOURCE_PIXELS // 1_000_000)


def _too_large_message_from(exc: Exception) -> str:
    # Pillow's message reads "Image size (N pixels) exceeds limit of ..."; take N if there.
    text = str(exc)
    digits = text.split("(", 1)[1].split(" ", 1)[0] if "(" in text else ""
    return _too_large_message(int(digits)) if digits.isdigit() else _too_large_message(MAX_SOURCE_PIXELS)
