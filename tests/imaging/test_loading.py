"""load_photo: every format we accept comes out upright 8-bit sRGB; every bad file is a PhotoError."""

from __future__ import annotations

import io
import struct
import zlib

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image, ImageOps

from motodesk.imaging import LoadedPhoto, PhotoError, detect_faces, load_photo, photo_from_image
from motodesk.imaging.loading import (
    MAX_SOURCE_PIXELS,
    MSG_CORRUPT,
    MSG_EMPTY,
    MSG_HEIC,
    MSG_TOO_LARGE,
    MSG_UNSUPPORTED,
)


def encode(im: Image.Image, fmt: str = "JPEG", **params: object) -> bytes:
    buffer = io.BytesIO()
    im.save(buffer, format=fmt, **params)
    return buffer.getvalue()


def mean_abs_diff(a: Image.Image, b: Image.Image) -> float:
    return float(np.abs(np.asarray(a, dtype=np.int16) - np.asarray(b, dtype=np.int16)).mean())


# --- formats we accept -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "params", "tolerance"),
    [
        ("JPEG", {"quality": 95}, 3.0),
        ("PNG", {}, 0.0),
        ("WEBP", {"lossless": True}, 0.0),
        ("BMP", {}, 0.0),
        ("TIFF", {}, 0.0),
        ("TIFF", {"compression": "tiff_lzw"}, 0.0),
    ],
)
def test_accepted_formats_load_as_rgb(
    astronaut: Image.Image, fmt: str, params: dict, tolerance: float
) -> None:
    photo = load_photo(encode(astronaut, fmt, **params))
    assert isinstance(photo, LoadedPhoto)
    assert photo.image.mode == "RGB"
    assert photo.size == photo.original_size == (512, 512)
    assert photo.scale == 1.0
    assert photo.source_format == fmt
    assert mean_abs_diff(photo.image, astronaut) <= tolerance


def test_loaded_image_is_a_plain_image_without_metadata(astronaut: Image.Image) -> None:
    photo = load_photo(encode(astronaut, "JPEG", exif=Image.Exif()))
    assert type(photo.image) is Image.Image
    assert photo.image.info == {}


def test_greyscale_becomes_rgb(astronaut: Image.Image) -> None:
    photo = load_photo(encode(astronaut.convert("L"), "PNG"))
    assert photo.image.mode == "RGB"
    r, g, b = photo.image.split()
    assert r.tobytes() == g.tobytes() == b.tobytes()


# --- EXIF orientation --------------------------------------------------------------------


def _with_orientation(im: Image.Image, orientation: int, fmt: str = "PNG") -> bytes:
    exif = Image.Exif()
    exif[0x0112] = orientation
    return encode(im, fmt, exif=exif)


@pytest.mark.parametrize("orientation", range(1, 9))
def test_orientation_matches_pillows_exif_transpose(astronaut_4x3: Image.Image, orientation: int) -> None:
    data = _with_orientation(astronaut_4x3, orientation)
    with Image.open(io.BytesIO(data)) as im:
        expected = ImageOps.exif_transpose(im).convert("RGB")
    photo = load_photo(data)
    assert photo.size == expected.size
    assert photo.original_size == expected.size
    assert photo.image.tobytes() == expected.tobytes()


@pytest.mark.parametrize(
    ("orientation", "stored_as"),
    [(6, Image.Transpose.ROTATE_90), (8, Image.Transpose.ROTATE_270), (3, Image.Transpose.ROTATE_180)],
)
def test_rotated_camera_jpeg_is_turned_upright(
    astronaut_4x3: Image.Image, orientation: int, stored_as: Image.Transpose
) -> None:
    # A phone held sideways stores the pixels rotated and says how to show them.
    stored = astronaut_4x3.transpose(stored_as)
    # Sideways or upside down the cascade does not see the 92 px face (at most small clutter).
    assert all(box.height < 70 for box in detect_faces(stored))
    photo = load_photo(_with_orientation(stored, orientation, "JPEG"))
    assert photo.size == (683, 512)
    faces = detect_faces(photo.image)
    assert len(faces) == 1
    # The face is where it is in the upright original (x offset 85 on the canvas).
    assert abs(faces[0].left - (178 + 85)) < 12 and abs(faces[0].top - 69) < 12


def test_corrupt_exif_is_ignored(astronaut: Image.Image) -> None:
    data = encode(astronaut, "JPEG", exif=b"Exif\x00\x00MM\x00*\x00\x00\x00\x08\x00\x05\x01\x12")
    photo = load_photo(data)
    assert photo.size == (512, 512)


# --- colour: CMYK, 16 bit, palette, alpha, ICC ------------------------------------------------


def test_cmyk_jpeg_is_converted(astronaut: Image.Image) -> None:
    data = encode(astronaut.convert("CMYK"), "JPEG", quality=95)
    with Image.open(io.BytesIO(data)) as raw:
        assert raw.mode == "CMYK"
    photo = load_photo(data)
    assert photo.image.mode == "RGB"
    assert mean_abs_diff(photo.image, astronaut) < 6
    assert len(detect_faces(photo.image)) == 1


def test_16_bit_greyscale_png_is_scaled_not_clipped() -> None:
    ramp = np.tile(np.linspace(0, 65535, 256).astype(np.uint16), (64, 1))
    ok, png = cv2.imencode(".png", ramp)
    assert ok
    with Image.open(io.BytesIO(png.tobytes())) as raw:
        assert raw.mode.startswith("I")
    photo = load_photo(png.tobytes())
    row = np.asarray(photo.image)[0, :, 0].astype(int)
    assert row[0] == 0 and row[-1] == 255
    assert abs(row[128] - 128) <= 1  # a naive convert("L") would clip this to 255
    assert np.all(np.diff(row) >= 0)


def test_16_bit_rgb_png_is_converted(astronaut: Image.Image) -> None:
    rgb16 = np.asarray(astronaut).astype(np.uint16) * 257
    ok, png = cv2.imencode(".png", rgb16[:, :, ::-1])  # OpenCV writes BGR
    assert ok
    photo = load_photo(png.tobytes())
    assert photo.image.mode == "RGB"
    assert mean_abs_diff(photo.image, astronaut) <= 1


def test_float_tiff_is_scaled() -> None:
    ramp = np.tile(np.linspace(0.0, 1.0, 200, dtype=np.float32), (50, 1))
    photo = load_photo(encode(Image.fromarray(ramp, mode="F"), "TIFF"))
    row = np.asarray(photo.image)[0, :, 0].astype(int)
    assert row[0] == 0 and row[-1] == 255


def test_palette_png_with_transparency_gets_white_background() -> None:
    im = Image.new("P", (64, 64), 0)
    im.putpalette([0, 0, 0, 200, 30, 30] + [0] * 762)
    im.paste(1, (0, 0, 32, 64))
    data = encode(im, "PNG", transparency=0)
    photo = load_photo(data)
    assert photo.image.mode == "RGB"
    assert photo.image.getpixel((10, 10)) == (200, 30, 30)
    assert photo.image.getpixel((50, 10)) == (255, 255, 255)


@pytest.mark.parametrize("mode", ["RGBA", "LA"])
def test_alpha_is_flattened_on_white(astronaut: Image.Image, mode: str) -> None:
    im = astronaut.convert(mode)
    alpha = Image.new("L", im.size, 255)
    alpha.paste(0, (0, 0, 100, 512))
    im.putalpha(alpha)
    photo = load_photo(encode(im, "PNG"))
    assert photo.image.mode == "RGB"
    assert photo.image.getpixel((50, 50)) == (255, 255, 255)
    assert photo.image.getpixel((300, 300)) != (255, 255, 255)


@pytest.mark.parametrize("fmt", ["PNG", "JPEG"])
def test_embedded_icc_profile_is_converted_to_srgb(swapped_rb_icc: bytes, fmt: str) -> None:
    red_in_file = Image.new("RGB", (64, 64), (255, 0, 0))
    photo = load_photo(encode(red_in_file, fmt, icc_profile=swapped_rb_icc))
    r, g, b = photo.image.getpixel((32, 32))
    assert b > 240 and r < 15 and g < 15  # the profile says this "red" is sRGB blue


def test_srgb_profile_leaves_pixels_alone(astronaut: Image.Image) -> None:
    from motodesk.imaging.loading import srgb_icc_bytes

    photo = load_photo(encode(astronaut, "PNG", icc_profile=srgb_icc_bytes()))
    assert photo.image.tobytes() == astronaut.tobytes()


def test_broken_icc_profile_falls_back_to_plain_conversion(astronaut: Image.Image) -> None:
    photo = load_photo(encode(astronaut, "PNG", icc_profile=b"definitely not a profile"))
    assert photo.image.tobytes() == astronaut.tobytes()


# --- big sources -------------------------------------------------------------------------


def test_12_megapixel_jpeg_is_reduced_at_decode(twelve_mp_jpeg: bytes) -> None:
    photo = load_photo(twelve_mp_jpeg)
    assert photo.original_size == (4000, 3000)
    assert photo.size == (2000, 1500)  # JPEG DCT scaling 1/2, short side kept at 1500
    assert photo.scale == 0.5
    assert len(detect_faces(photo.image)) == 1


def test_big_png_is_reduced_after_decode(astronaut_4x3: Image.Image) -> None:
    big = astronaut_4x3.resize((4000, 3000), Image.Resampling.BILINEAR)
    photo = load_photo(encode(big, "PNG", compress_level=1))
    assert photo.original_size == (4000, 3000)
    assert photo.size == (2000, 1500)


def test_jpeg_above_the_limit_still_loads_through_draft() -> None:
    # 63 MP: a high-resolution phone mode. DCT scaling decodes it at 1/4 size.
    data = encode(Image.new("RGB", (9000, 7000), (120, 130, 140)), "JPEG", quality=50)
    photo = load_photo(data)
    assert photo.original_size == (9000, 7000)
    assert min(photo.size) >= 1500
    assert photo.size[0] * photo.size[1] <= MAX_SOURCE_PIXELS


def test_rotated_big_jpeg_reports_upright_original_size(twelve_mp_jpeg: bytes) -> None:
    with Image.open(io.BytesIO(twelve_mp_jpeg)) as im:
        stored = im.transpose(Image.Transpose.ROTATE_90)
    photo = load_photo(_with_orientation(stored, 6, "JPEG"))
    assert photo.original_size == (4000, 3000)
    assert photo.size == (2000, 1500)


# --- refused ------------------------------------------------------------------------------


def _png_declaring(width: int, height: int) -> bytes:
    """A tiny PNG whose IHDR claims ``width × height``: a decompression bomb's header."""

    def chunk(kind: bytes, payload: bytes) -> bytes:
        return (
            struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\0" * 64)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


@pytest.mark.parametrize(
    "size",
    [
        (100_000, 100_000),  # Pillow's own DecompressionBombError
        (12_000, 10_000),  # 120 MP: Pillow only warns (DecompressionBombWarning); we refuse
        (8_000, 7_000),  # 56 MP: below Pillow's limits, above ours
    ],
)
def test_png_bomb_is_refused_before_decoding(size: tuple[int, int]) -> None:
    with pytest.raises(PhotoError) as info:
        load_photo(_png_declaring(*size))
    assert info.value.code == "too_large"
    assert info.value.message == MSG_TOO_LARGE.format(mp=size[0] * size[1] / 1_000_000,
                                                      limit=MAX_SOURCE_PIXELS // 1_000_000)


@pytest.mark.parametrize("fraction", [0.1, 0.5, 0.9])
def test_truncated_jpeg_is_refused(astronaut: Image.Image, fraction: float) -> None:
    data = encode(astronaut, "JPEG")
    with pytest.raises(PhotoError) as info:
        load_photo(data[: int(len(data) * fraction)])
    assert info.value.code == "corrupt"
    assert info.value.message == MSG_CORRUPT


def test_truncated_png_is_refused(astronaut: Image.Image) -> None:
    data = encode(astronaut, "PNG")
    with pytest.raises(PhotoError) as info:
        load_photo(data[: len(data) // 2])
    assert info.value.code == "corrupt"


def test_text_file_named_jpg_is_refused() -> None:
    with pytest.raises(PhotoError) as info:
        load_photo("Requerimento de permissão — não é uma foto.\n".encode())
    assert info.value.code == "unsupported"
    assert info.value.message == MSG_UNSUPPORTED
    assert str(info.value) == info.value.message


def test_empty_bytes_are_refused() -> None:
    with pytest.raises(PhotoError) as info:
        load_photo(b"")
    assert info.value.code == "empty"
    assert info.value.message == MSG_EMPTY


def test_heic_is_refused_with_advice() -> None:
    heic = struct.pack(">I", 24) + b"ftypheic" + b"\0\0\0\0" + b"mif1heic" + b"\0" * 200
    with pytest.raises(PhotoError) as info:
        load_photo(heic)
    assert info.value.code == "unsupported"
    assert info.value.message == MSG_HEIC  # the advice: export it as JPEG


def test_other_image_formats_are_refused(astronaut: Image.Image) -> None:
    with pytest.raises(PhotoError) as info:
        load_photo(encode(astronaut, "GIF"))
    assert info.value.code == "unsupported"


def test_tiny_image_is_refused() -> None:
    with pytest.raises(PhotoError) as info:
        load_photo(encode(Image.new("RGB", (20, 30)), "PNG"))
    assert info.value.code == "too_small"
    assert "20×30" in info.value.message


@pytest.fixture(scope="module", params=["JPEG", "PNG", "WEBP", "TIFF"])
def small_file(astronaut: Image.Image, request: pytest.FixtureRequest) -> bytes:
    return encode(astronaut.resize((64, 64)), request.param)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_damaged_files_never_escape_as_other_errors(small_file: bytes, data: st.DataObject) -> None:
    blob = bytearray(small_file)
    for _ in range(data.draw(st.integers(1, 8))):
        i = data.draw(st.integers(0, len(blob) - 1))
        blob[i] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(1, len(blob)))
    try:
        photo = load_photo(bytes(blob[:cut]))
    except PhotoError as exc:
        assert exc.message and exc.code in {"corrupt", "unsupported", "too_large", "too_small"}
    else:
        assert photo.image.mode == "RGB"


# --- already decoded images ----------------------------------------------------------------


def test_photo_from_camera_frame(astronaut: Image.Image) -> None:
    frame = astronaut.convert("RGBA")
    photo = photo_from_image(frame)
    assert photo.image.mode == "RGB" and photo.size == (512, 512)
    assert frame.mode == "RGBA"  # the caller's image is untouched


def test_photo_from_tiny_frame_is_refused() -> None:
    with pytest.raises(PhotoError):
        photo_from_image(Image.new("RGB", (10, 10)))


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (np.array([[0, 100, 255]] * 40, dtype=np.int32), [0, 100, 255]),  # 8-bit data in "I"
        (np.array([[0, 32896, 65535]] * 40, dtype=np.int32), [0, 128, 255]),  # 16-bit data in "I"
        (np.array([[-5, 600_000, 1_000_000]] * 40, dtype=np.int32), [0, 153, 255]),  # wider: scaled
    ],
)
def test_32_bit_integer_images_are_scaled(values: np.ndarray, expected: list[int]) -> None:
    wide = np.repeat(values, 12, axis=1)  # at least 32 px wide
    photo = photo_from_image(Image.fromarray(wide, mode="I"))
    row = np.asarray(photo.image)[0, ::12, 0].astype(int)
    assert list(row) == expected


def test_multi_picture_jpeg_uses_the_first_picture(astronaut_4x3: Image.Image) -> None:
    # Phones write MPO: the photo, then e.g. a depth map or preview.
    big = astronaut_4x3.resize((4000, 3000))
    data = encode(big, "MPO", save_all=True, append_images=[Image.new("RGB", (4000, 3000))], quality=90)
    photo = load_photo(data)
    assert photo.source_format == "MPO"
    assert photo.size == (2000, 1500)  # DCT scaling still applies
    assert len(detect_faces(photo.image)) == 1


def test_multi_page_tiff_uses_the_first_page(astronaut: Image.Image) -> None:
    data = encode(astronaut, "TIFF", save_all=True, append_images=[Image.new("RGB", (512, 512))])
    photo = load_photo(data)
    assert photo.image.tobytes() == astronaut.tobytes()
