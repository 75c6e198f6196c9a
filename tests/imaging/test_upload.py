"""process_upload: the whole "import from file" chain in one call."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from motodesk.imaging import (
    PhotoError,
    ProcessedPhoto,
    QualityCode,
    detect_faces,
    process_upload,
    render_3x4,
)
from motodesk.imaging.cropping import MSG_NO_FACE


def encode(im: Image.Image, fmt: str = "JPEG", **params: object) -> bytes:
    buffer = io.BytesIO()
    im.save(buffer, format=fmt, **params)
    return buffer.getvalue()


def test_12_megapixel_upload(twelve_mp_jpeg: bytes) -> None:
    result = process_upload(twelve_mp_jpeg)
    assert isinstance(result, ProcessedPhoto)
    assert (result.width, result.height) == (2000, 1500) == result.photo.size
    assert result.photo.original_size == (4000, 3000)
    assert result.proposal.face_found and result.proposal.faces == 1
    assert result.warnings == ()
    with Image.open(io.BytesIO(result.jpeg)) as badge:
        assert badge.format == "JPEG" and badge.mode == "RGB"
        assert badge.size == (354, 472)
        assert tuple(round(v) for v in badge.info["dpi"]) == (300, 300)
        assert len(detect_faces(badge)) == 1
    # The kept photo lets the GUI re-render after a manual adjustment.
    assert render_3x4(result.photo, result.proposal.box) == result.jpeg


def test_sideways_phone_photo_comes_out_upright(astronaut_4x3: Image.Image) -> None:
    exif = Image.Exif()
    exif[0x0112] = 6
    stored = astronaut_4x3.transpose(Image.Transpose.ROTATE_90)
    result = process_upload(encode(stored, exif=exif, quality=92))
    assert (result.width, result.height) == (683, 512)
    assert result.proposal.face_found
    with Image.open(io.BytesIO(result.jpeg)) as badge:
        assert 0x0112 not in badge.getexif()
        assert len(detect_faces(badge)) == 1


def test_landscape_without_face(sample_bytes) -> None:
    result = process_upload(sample_bytes("rocket.jpg"))
    assert not result.proposal.face_found
    assert result.proposal.message == MSG_NO_FACE
    assert [w.code for w in result.warnings] == [QualityCode.NO_FACE, QualityCode.LOW_RESOLUTION]


def test_cmyk_upload(astronaut_4x3: Image.Image) -> None:
    result = process_upload(encode(astronaut_4x3.resize((1600, 1200)).convert("CMYK"), quality=92))
    assert result.proposal.face_found
    assert result.warnings == ()


def test_unusable_file_raises_photo_error() -> None:
    with pytest.raises(PhotoError) as info:
        process_upload(b"GIF89a? no, just text")
    assert info.value.code == "unsupported"


def test_custom_detector_is_used(astronaut_bytes: bytes) -> None:
    result = process_upload(astronaut_bytes, detector=lambda img: [])
    assert not result.proposal.face_found
