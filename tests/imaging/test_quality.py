"""check_quality: dark, bright, blurred, several faces, no face, too few pixels."""

from __future__ import annotations

import dataclasses
import io

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageEnhance, ImageFilter

from motodesk.imaging import (
    Box,
    QualityCode,
    check_quality,
    load_photo,
    measure_quality,
    photo_from_image,
    propose_crop,
    zoom_crop,
)
from motodesk.imaging.quality import BLUR_THRESHOLD, DARK_FACE_MEAN, DARK_FRAME_P95, MESSAGES


def encode(im: Image.Image, fmt: str = "JPEG", **params: object) -> bytes:
    buffer = io.BytesIO()
    im.save(buffer, format=fmt, **params)
    return buffer.getvalue()


def codes(image: Image.Image) -> list[QualityCode]:
    photo = load_photo(encode(image, quality=92))
    return [w.code for w in check_quality(photo, propose_crop(photo))]


@pytest.fixture(scope="module")
def portrait(astronaut_4x3: Image.Image) -> Image.Image:
    """1600 × 1200: the face is ~215 px, the proposed crop ~500 px tall (no upscaling)."""
    return astronaut_4x3.resize((1600, 1200), Image.Resampling.LANCZOS)


FACE_IN_PORTRAIT = (590, 150, 850, 430)  # ellipse around her face on the 1600 × 1200 canvas
FACE_BOX_IN_PORTRAIT = Box(616, 162, 216, 216)  # astronaut.png's face box mapped onto it


def test_good_photo_has_no_warnings(portrait: Image.Image) -> None:
    assert codes(portrait) == []


def test_good_12_mp_photo_has_no_warnings(twelve_mp_jpeg: bytes) -> None:
    photo = load_photo(twelve_mp_jpeg)
    assert check_quality(photo, propose_crop(photo)) == []


@pytest.mark.parametrize("factor", [0.25, 0.35])
def test_dark_photo(portrait: Image.Image, factor: float) -> None:
    dark = ImageEnhance.Brightness(portrait).enhance(factor)
    photo = load_photo(encode(dark))
    warnings = check_quality(photo, propose_crop(photo))
    assert [w.code for w in warnings] == [QualityCode.TOO_DARK]
    assert warnings[0].message == MESSAGES[QualityCode.TOO_DARK]


@pytest.mark.parametrize("factor", [1.6, 2.0])
def test_bright_photo(portrait: Image.Image, factor: float) -> None:
    bright = ImageEnhance.Brightness(portrait).enhance(factor)
    photo = load_photo(encode(bright))
    warnings = check_quality(photo, propose_crop(photo))
    assert [w.code for w in warnings] == [QualityCode.TOO_BRIGHT]
    assert warnings[0].message.startswith("Foto muito clara")


@pytest.mark.parametrize("factor", [0.6, 0.8, 1.2])
def test_ordinary_light_variations_are_fine(portrait: Image.Image, factor: float) -> None:
    assert codes(ImageEnhance.Brightness(portrait).enhance(factor)) == []


def _with_face_darkened(portrait: Image.Image, factor: float) -> Image.Image:
    mask = Image.new("L", portrait.size, 0)
    ImageDraw.Draw(mask).ellipse(FACE_IN_PORTRAIT, fill=255)
    mask = mask.filter(ImageFilter.GaussianBlur(8))
    return Image.composite(ImageEnhance.Brightness(portrait).enhance(factor), portrait, mask)


def test_dark_skin_in_good_light_is_not_too_dark(portrait: Image.Image) -> None:
    # Skin about as dark as the darkest skin tones, correctly exposed (the background
    # and suit keep their light): no warning, the check must not penalise skin colour.
    image = _with_face_darkened(portrait, 0.5)
    photo = load_photo(encode(image))
    proposal = propose_crop(photo)
    m = measure_quality(photo, proposal)
    assert m.face_mean is not None and 60 < m.face_mean < 90
    assert [w.code for w in check_quality(photo, proposal)] == []


def test_backlit_black_face_is_too_dark(portrait: Image.Image) -> None:
    # So dark that the cascade is at the edge of finding it: give the face box directly.
    photo = load_photo(encode(_with_face_darkened(portrait, 0.2), quality=92))
    proposal = propose_crop(photo, detector=lambda img: [FACE_BOX_IN_PORTRAIT])
    m = measure_quality(photo, proposal)
    assert m.face_mean is not None and m.face_mean < DARK_FACE_MEAN
    assert m.frame_p95 >= DARK_FRAME_P95  # the frame alone would pass
    assert QualityCode.TOO_DARK in [w.code for w in check_quality(photo, proposal)]


@pytest.mark.parametrize("sigma", [4.5, 7.0])
def test_blurred_photo(portrait: Image.Image, sigma: float) -> None:
    # sigma 4.5 px is ~2 % of the 215 px face: clearly soft on the printed badge.
    blurred = portrait.filter(ImageFilter.GaussianBlur(sigma))
    photo = load_photo(encode(blurred))
    warnings = check_quality(photo, propose_crop(photo))
    assert [w.code for w in warnings] == [QualityCode.BLURRED]
    assert warnings[0].message == MESSAGES[QualityCode.BLURRED]


@pytest.mark.parametrize(
    "image_op",
    [
        lambda im: im.filter(ImageFilter.GaussianBlur(1.0)),  # slight softness
        lambda im: Image.open(io.BytesIO(encode(im, quality=35))),  # heavy JPEG compression
        lambda im: im.resize((800, 600)).resize((1600, 1200), Image.Resampling.BICUBIC),  # 2x digital zoom
    ],
    ids=["soft", "jpeg35", "digital-zoom"],
)
def test_acceptable_sharpness_is_not_flagged(portrait: Image.Image, image_op) -> None:
    photo = load_photo(encode(image_op(portrait)))
    proposal = propose_crop(photo)
    assert measure_quality(photo, proposal).sharpness > BLUR_THRESHOLD
    assert QualityCode.BLURRED not in [w.code for w in check_quality(photo, proposal)]


def test_two_faces_warn_more_than_one_face(astronaut: Image.Image) -> None:
    face = astronaut.crop((120, 0, 330, 260))
    canvas = Image.new("RGB", (840, 520), (210, 210, 215))
    canvas.paste(face.resize((420, 520)), (0, 0))
    canvas.paste(face.resize((420, 520)), (420, 0))
    photo = photo_from_image(canvas)
    proposal = propose_crop(photo)
    warnings = check_quality(photo, proposal)
    assert proposal.faces == 2
    assert warnings[0].code == QualityCode.MULTIPLE_FACES
    assert warnings[0].message == MESSAGES[QualityCode.MULTIPLE_FACES]


def test_no_face_and_small_source(sample_bytes) -> None:
    photo = load_photo(sample_bytes("coffee.png"))  # 600 × 400
    warnings = check_quality(photo, propose_crop(photo))
    assert [w.code for w in warnings] == [QualityCode.NO_FACE, QualityCode.LOW_RESOLUTION]
    assert warnings[0].message.startswith("Nenhum rosto encontrado")
    assert "600×400" in warnings[1].message and "354×472" in warnings[1].message


def test_small_crop_is_upscaled(astronaut_bytes: bytes) -> None:
    photo = load_photo(astronaut_bytes)  # 512 × 512: the face crop is only 159 × 212
    proposal = propose_crop(photo)
    warnings = check_quality(photo, proposal)
    assert [w.code for w in warnings] == [QualityCode.UPSCALED]
    assert "159×212" in warnings[0].message


def test_clerk_zooming_in_too_far_is_flagged(twelve_mp_jpeg: bytes) -> None:
    photo = load_photo(twelve_mp_jpeg)
    proposal = propose_crop(photo)
    assert check_quality(photo, proposal) == []
    zoomed = dataclasses.replace(proposal, box=zoom_crop(proposal.box, 2.0, photo.size))
    assert [w.code for w in check_quality(photo, zoomed)] == [QualityCode.UPSCALED]


def test_slightly_small_crop_is_tolerated() -> None:
    photo = photo_from_image(Image.new("RGB", (2000, 1500), (128, 128, 128)))
    proposal = propose_crop(photo, detector=lambda img: [])
    near = dataclasses.replace(proposal, box=Box(100, 100, 330, 440))  # 7 % short of 472
    assert QualityCode.UPSCALED not in [w.code for w in check_quality(photo, near)]


def test_flat_grey_without_face_is_not_called_blurred() -> None:
    photo = photo_from_image(Image.new("RGB", (800, 1000), (128, 128, 128)))
    warnings = check_quality(photo, propose_crop(photo))
    assert [w.code for w in warnings] == [QualityCode.NO_FACE]


def test_measures_are_plain_numbers(portrait: Image.Image) -> None:
    photo = load_photo(encode(portrait))
    m = measure_quality(photo, propose_crop(photo))
    for value in dataclasses.astuple(m):
        assert isinstance(value, float) and np.isfinite(value)


# -- the finished photo, as the service judges it (Art. 5º, IX) -------------------------------------


def test_the_finished_photo_is_judged_on_its_own_pixels(astronaut_bytes: bytes) -> None:
    import io

    from PIL import Image

    from motodesk.imaging import process_upload
    from motodesk.imaging.quality import QualityCode, judge_finished_photo, looks_grey

    good = process_upload(astronaut_bytes).jpeg
    assert judge_finished_photo(good) == []
    with Image.open(io.BytesIO(good)) as im:
        grey_rgb = im.convert("L").convert("RGB")
        assert looks_grey(grey_rgb) and not looks_grey(im)
        buffer = io.BytesIO()
        grey_rgb.save(buffer, "JPEG", quality=90)
    assert [w.code for w in judge_finished_photo(buffer.getvalue())] == [QualityCode.GREY]
    blank = io.BytesIO()
    Image.new("RGB", (354, 472), (180, 150, 120)).save(blank, "JPEG", quality=90)
    assert QualityCode.NO_FACE in [w.code for w in judge_finished_photo(blank.getvalue())]
