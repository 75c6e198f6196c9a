"""The badge photo itself (354 × 472 px JPEG, 3 × 4 cm at 300 dpi) and a cheap screen preview."""

from __future__ import annotations

import io

from PIL import Image

from .geometry import Box, clamp_crop
from .loading import LoadedPhoto, srgb_icc_bytes

OUTPUT_SIZE = (354, 472)  # 3 × 4 cm at 300 dpi: round(30 / 25.4 * 300) × round(40 / 25.4 * 300)
OUTPUT_DPI = (300, 300)
JPEG_QUALITY = 90


def render_3x4(photo: LoadedPhoto, box: Box) -> bytes:
    """Crop ``box`` (made a valid 3:4 crop first) and encode the 354 × 472 badge JPEG.

    The JPEG is baseline RGB, quality 90, 4:4:4 chroma (sharper skin/hair edges on a
    small print), with the sRGB ICC profile and 300 dpi; it carries no EXIF, so no
    orientation tag can rotate it again in a viewer.
    """
    crop = clamp_crop(box, photo.size)
    out = photo.image.resize(
        OUTPUT_SIZE,
        Image.Resampling.LANCZOS,
        box=crop.as_ltrb(),
        reducing_gap=3.0,
    )
    if out.mode != "RGB":
        out = out.convert("RGB")
    buffer = io.BytesIO()
    out.save(
        buffer,
        format="JPEG",
        quality=JPEG_QUALITY,
        subsampling=0,
        optimize=True,
        dpi=OUTPUT_DPI,
        icc_profile=srgb_icc_bytes(),
    )
    return buffer.getvalue()


def preview(photo: LoadedPhoto, box: Box, max_side: int) -> Image.Image:
    """The crop as a small RGB image whose longer (vertical) side is ``max_side`` pixels.

    Bilinear and reduced in steps: meant for redrawing while the clerk drags the box.
    """
    if max_side < 4:
        raise ValueError(f"max_side must be at least 4 pixels, got {max_side}")
    crop = clamp_crop(box, photo.size)
    height = max_side
    width = max(1, round(height * 3 / 4))
    return photo.image.resize(
        (width, height),
        Image.Resampling.BILINEAR,
        box=crop.as_ltrb(),
        reducing_gap=2.0,
    )
