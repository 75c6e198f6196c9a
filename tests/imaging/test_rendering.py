"""render_3x4 and preview: the badge JPEG's size, resolution, colour space and orientation."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image, ImageCms

from motodesk.imaging import (
    OUTPUT_DPI,
    OUTPUT_SIZE,
    Box,
    detect_faces,
    load_photo,
    preview,
    propose_crop,
    render_3x4,
)


def encode(im: Image.Image, fmt: str = "JPEG", **params: object) -> bytes:
    buffer = io.BytesIO()
    im.save(buffer, format=fmt, **params)
    return buffer.getvalue()


def open_jpeg(data: bytes) -> Image.Image:
    im = Image.open(io.BytesIO(data))
    im.load()
    return im


def assert_badge_jpeg(data: bytes) -> Image.Image:
    im = open_jpeg(data)
    assert im.format == "JPEG"
    assert im.size == (354, 472) == OUTPUT_SIZE
    assert im.mode == "RGB"
    assert tuple(round(v) for v in im.info["dpi"]) == (300, 300) == OUTPUT_DPI
    assert 0x0112 not in im.getexif()  # no orientation tag left to rotate it again
    assert "progressive" not in im.info  # baseline: every printer driver reads it
    profile = ImageCms.ImageCmsProfile(io.BytesIO(im.info["icc_profile"]))
    assert "sRGB" in ImageCms.getProfileDescription(profile)
    return im


def test_output_jpeg_is_354_by_472_at_300_dpi_srgb(astronaut_bytes: bytes) -> None:
    photo = load_photo(astronaut_bytes)
    data = render_3x4(photo, propose_crop(photo).box)
    im = assert_badge_jpeg(data)
    assert 10_000 < len(data) < 200_000
    # The crop is the face: the cascade finds it again, large, in the badge.
    faces = detect_faces(im)
    assert len(faces) == 1 and faces[0].height > 150


def test_output_of_a_rotated_12_mp_photo_is_upright(twelve_mp_jpeg: bytes) -> None:
    with Image.open(io.BytesIO(twelve_mp_jpeg)) as im:
        stored = im.transpose(Image.Transpose.ROTATE_270)  # phone held the other way
    exif = Image.Exif()
    exif[0x0112] = 8
    photo = load_photo(encode(stored, exif=exif, quality=90))
    badge = assert_badge_jpeg(render_3x4(photo, propose_crop(photo).box))
    faces = detect_faces(badge)
    assert len(faces) == 1
    # Upright: the face sits in the upper middle of the badge.
    cx, cy = faces[0].center
    assert abs(cx - 177) < 30 and 120 < cy < 260


def test_render_crops_exactly_the_given_box() -> None:
    # Left half red, right half blue; a box entirely in the blue half renders blue.
    im = Image.new("RGB", (1200, 900), (220, 0, 0))
    im.paste((0, 0, 220), (600, 0, 1200, 900))
    photo = load_photo(encode(im, "PNG"))
    badge = np.asarray(open_jpeg(render_3x4(photo, Box(700, 100, 354, 472))), dtype=int)
    assert np.abs(badge - [0, 0, 220]).max() < 12


def test_render_fixes_an_invalid_box(astronaut_bytes: bytes) -> None:
    photo = load_photo(astronaut_bytes)
    assert_badge_jpeg(render_3x4(photo, Box(-50, 400, 1000, 37)))


def test_preview_is_small_and_3_by_4(astronaut_bytes: bytes) -> None:
    photo = load_photo(astronaut_bytes)
    box = propose_crop(photo).box
    small = preview(photo, box, 200)
    assert small.size == (150, 200) and small.mode == "RGB"
    assert preview(photo, box, 1000).size == (750, 1000)
    with pytest.raises(ValueError):
        preview(photo, box, 2)


def test_rendering_does_not_touch_the_photo(astronaut_bytes: bytes) -> None:
    photo = load_photo(astronaut_bytes)
    before = photo.image.tobytes()
    render_3x4(photo, Box(0, 0, 300, 400))
    preview(photo, Box(0, 0, 300, 400), 100)
    assert photo.image.tobytes() == before
