"""The dialog's plumbing without a window: camera frames to Pillow, the analysis, the zoom slider."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from PySide6.QtGui import QColor, QImage

from motodesk.imaging import Box, PhotoError, render_3x4
from motodesk.imaging.cropping import MSG_NO_FACE
from motodesk.imaging.loading import MSG_UNSUPPORTED
from motodesk.imaging.quality import looks_grey
from motodesk.ui.app import create_application
from motodesk.ui.photo_analysis import (
    MSG_16_BIT,
    MSG_CMYK,
    ZOOM_STEPS,
    analyse_file,
    analyse_frame,
    conversion_notes,
    frame_to_pil,
    pil_to_qimage,
    slider_value,
    unit_for_slider,
    working_size,
)

PHOTOS = Path(__file__).resolve().parents[1] / "data" / "photos"
COLOUR = (200, 120, 40)


@pytest.fixture(autouse=True)
def _app() -> None:
    create_application()


def astronaut_4x3() -> Image.Image:
    with Image.open(PHOTOS / "astronaut.png") as im:
        face = im.convert("RGB")
    canvas = Image.new("RGB", (683, 512), face.getpixel((5, 5)))
    canvas.paste(face, (85, 0))
    return canvas


@pytest.mark.parametrize("fmt", [
    QImage.Format.Format_RGB32, QImage.Format.Format_ARGB32, QImage.Format.Format_ARGB32_Premultiplied,
    QImage.Format.Format_RGBX8888, QImage.Format.Format_RGBA8888, QImage.Format.Format_RGB888,
    QImage.Format.Format_BGR888, QImage.Format.Format_RGB16, QImage.Format.Format_RGB30,
])
@pytest.mark.parametrize("width", [64, 33])  # 33 × 3 bytes: rows padded to 100 bytes
def test_frames_of_every_format_keep_their_colours(fmt: QImage.Format, width: int) -> None:
    image = QImage(width, 40, QImage.Format.Format_RGB32)
    image.fill(QColor(*COLOUR))
    image.setPixelColor(0, 0, QColor(0, 255, 0))
    frame = image.convertToFormat(fmt)
    pil, original = frame_to_pil(frame)
    assert original == (width, 40) and pil.size == (width, 40) and pil.mode == "RGB"
    tolerance = 9 if fmt == QImage.Format.Format_RGB16 else 1  # 5-6-5 bits
    assert all(abs(a - b) <= tolerance for a, b in zip(pil.getpixel((width - 1, 39)), COLOUR, strict=True))
    assert pil.getpixel((0, 0))[1] >= 250


def test_greyscale_frames() -> None:
    image = QImage(50, 40, QImage.Format.Format_Grayscale8)
    image.fill(QColor(90, 90, 90))
    pil, _ = frame_to_pil(image)
    assert pil.mode == "L" and pil.getpixel((49, 39)) == 90


@pytest.mark.parametrize("fmt", [QImage.Format.Format_RGB888, QImage.Format.Format_RGBX8888,
                                 QImage.Format.Format_RGB32, QImage.Format.Format_Grayscale8])
def test_the_pillow_image_does_not_share_the_frames_memory(fmt: QImage.Format) -> None:
    image = QImage(64, 48, fmt)
    image.fill(QColor(*COLOUR))
    pil, _ = frame_to_pil(image)
    expected = pil.getpixel((10, 10))
    assert not pil.readonly
    image.fill(QColor(0, 0, 0))
    del image
    assert pil.getpixel((10, 10)) == expected != (0, 0, 0)


def test_big_frames_are_reduced_to_the_working_size_on_the_qt_side() -> None:
    assert working_size((4000, 3000)) == (2000, 1500)
    assert working_size((1920, 1080)) == (1920, 1080)  # 1080 < 1.25 × 1500: kept
    assert working_size((3000, 4000)) == (1500, 2000)
    frame = QImage(4000, 3000, QImage.Format.Format_RGB32)
    frame.fill(QColor(*COLOUR))
    pil, original = frame_to_pil(frame)
    assert original == (4000, 3000) and pil.size == (2000, 1500)


def test_pil_to_qimage_round_trip() -> None:
    img = astronaut_4x3()
    back, _ = frame_to_pil(pil_to_qimage(img))
    assert np.array_equal(np.asarray(back), np.asarray(img))
    grey = pil_to_qimage(img.convert("L"))
    assert grey.format() == QImage.Format.Format_RGB888


def test_analyse_a_12_megapixel_frame() -> None:
    big = astronaut_4x3().resize((4000, 3000), Image.Resampling.BICUBIC)
    frame = pil_to_qimage(big).convertToFormat(QImage.Format.Format_RGB32)
    analysis = analyse_frame(frame)
    assert analysis.source == "camera"
    assert analysis.photo.original_size == (4000, 3000) and analysis.photo.size == (2000, 1500)
    assert analysis.proposal.face_found and analysis.warnings == ()
    assert (analysis.display.width(), analysis.display.height()) == (1000, 750)  # 2000 × 1500 halved
    assert analysis.display_scale == pytest.approx(0.5)
    jpeg = render_3x4(analysis.photo, analysis.proposal.box)
    with Image.open(io.BytesIO(jpeg)) as im:
        assert (im.format, im.mode, im.size) == ("JPEG", "RGB", (354, 472))
        assert tuple(round(v) for v in im.info["dpi"]) == (300, 300)


def test_an_empty_frame_is_refused() -> None:
    with pytest.raises(PhotoError) as refused:
        analyse_frame(QImage())
    assert refused.value.code == "empty"


def test_analyse_files(tmp_path: Path) -> None:
    face_less = analyse_file(PHOTOS / "rocket.jpg")
    assert not face_less.proposal.face_found and face_less.source == "file"
    assert face_less.proposal.message == MSG_NO_FACE
    text = tmp_path / "foto.jpg"
    text.write_text("isto não é uma foto")
    with pytest.raises(PhotoError) as refused:
        analyse_file(text)
    assert (refused.value.code, refused.value.message) == ("unsupported", MSG_UNSUPPORTED)


def test_conversion_notes() -> None:
    img = astronaut_4x3()
    buffer = io.BytesIO()
    img.convert("CMYK").save(buffer, format="JPEG")
    assert conversion_notes(buffer.getvalue()) == (MSG_CMYK,)
    grey16 = Image.fromarray(np.asarray(img.convert("L")).astype(np.uint16) * 257)
    buffer = io.BytesIO()
    grey16.save(buffer, format="PNG")
    assert conversion_notes(buffer.getvalue()) == (MSG_16_BIT,)
    buffer = io.BytesIO()
    img.save(buffer, format="PNG")
    assert conversion_notes(buffer.getvalue()) == ()
    assert conversion_notes(b"lixo") == ()


def test_looks_grey() -> None:
    img = astronaut_4x3()
    assert not looks_grey(img)
    assert looks_grey(img.convert("L").convert("RGB"))
    assert looks_grey(img.convert("L"))


@pytest.mark.parametrize("size", [(2000, 1500), (683, 512), (61, 81), (3000, 4000)])
def test_zoom_slider_and_crop_size_agree(size: tuple[int, int]) -> None:
    assert unit_for_slider(0, size) == min(size[0] // 3, size[1] // 4)
    if unit_for_slider(ZOOM_STEPS, size) == unit_for_slider(0, size):  # too small to zoom at all
        assert slider_value(Box(0, 0, 60, 80), size) == 0
        return
    for value in (0, 100, 500, 900, ZOOM_STEPS):
        unit = unit_for_slider(value, size)
        box = Box(0, 0, 3 * unit, 4 * unit)
        assert abs(slider_value(box, size) - value) <= max(2, ZOOM_STEPS // max(1, unit))
