"""Fixtures for the imaging tests: the sample photographs and images made from them.

Every image other than the four files in tests/data/photos is generated here, so the
repository carries no derived binaries.
"""

from __future__ import annotations

import io
import struct
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image

PHOTOS = Path(__file__).resolve().parents[1] / "data" / "photos"


def encode(im: Image.Image, fmt: str = "JPEG", **params: object) -> bytes:
    buffer = io.BytesIO()
    if fmt == "JPEG":
        params.setdefault("quality", 92)
    im.save(buffer, format=fmt, **params)
    return buffer.getvalue()


@pytest.fixture(scope="session")
def photos_dir() -> Path:
    return PHOTOS


@pytest.fixture(scope="session")
def astronaut_bytes() -> bytes:
    return (PHOTOS / "astronaut.png").read_bytes()


@pytest.fixture(scope="session")
def astronaut() -> Image.Image:
    """Eileen Collins (NASA, public domain), 512 × 512 RGB: the face is at about (178, 69, 92, 92)."""
    with Image.open(PHOTOS / "astronaut.png") as im:
        return im.convert("RGB")


@pytest.fixture(scope="session")
def astronaut_4x3(astronaut: Image.Image) -> Image.Image:
    """The astronaut on a 683 × 512 landscape canvas (background colour extended sideways),
    so that rotations change the size and a 4000 × 3000 upscale keeps the face's proportions."""
    canvas = Image.new("RGB", (683, 512), astronaut.getpixel((5, 5)))
    canvas.paste(astronaut, (85, 0))
    return canvas


@pytest.fixture(scope="session")
def twelve_mp_jpeg(astronaut_4x3: Image.Image) -> bytes:
    """A 4000 × 3000 (12 MP) JPEG, like a phone or a good webcam capture."""
    return encode(astronaut_4x3.resize((4000, 3000), Image.Resampling.LANCZOS), quality=90)


@pytest.fixture(scope="session")
def sample_bytes() -> Callable[[str], bytes]:
    return lambda name: (PHOTOS / name).read_bytes()


@pytest.fixture(scope="session")
def encode_image() -> Callable[..., bytes]:
    return encode


def _s15f16(value: float) -> bytes:
    return struct.pack(">i", round(value * 65536))


def make_rgb_icc(
    red: tuple[float, float, float],
    green: tuple[float, float, float],
    blue: tuple[float, float, float],
    description: str,
    gamma: float = 2.2,
) -> bytes:
    """A minimal ICC v2 matrix/TRC display profile (primaries as D50 XYZ columns)."""

    def xyz(v: tuple[float, float, float]) -> bytes:
        return b"XYZ " + b"\0" * 4 + b"".join(_s15f16(c) for c in v)

    ascii_desc = description.encode("ascii") + b"\0"
    desc = (
        b"desc"
        + b"\0" * 4
        + struct.pack(">I", len(ascii_desc))
        + ascii_desc
        + struct.pack(">II", 0, 0)
        + struct.pack(">HB", 0, 0)
        + b"\0" * 67
    )
    cprt = b"text" + b"\0" * 4 + b"Test profile, no copyright\0"
    curve = b"curv" + b"\0" * 4 + struct.pack(">IH", 1, round(gamma * 256)) + b"\0\0"
    d50 = (0.9642, 1.0, 0.8249)
    tags = [
        (b"desc", desc),
        (b"cprt", cprt),
        (b"wtpt", xyz(d50)),
        (b"rXYZ", xyz(red)),
        (b"gXYZ", xyz(green)),
        (b"bXYZ", xyz(blue)),
        (b"rTRC", curve),
        (b"gTRC", curve),
        (b"bTRC", curve),
    ]
    offset = 128 + 4 + 12 * len(tags)
    table = b""
    body = b""
    for sig, data in tags:
        while (offset + len(body)) % 4:
            body += b"\0"
        table += sig + struct.pack(">II", offset + len(body), len(data))
        body += data
    while len(body) % 4:
        body += b"\0"
    size = offset + len(body)
    header = (
        struct.pack(">I", size)
        + b"\0" * 4
        + struct.pack(">I", 0x02100000)
        + b"mntr"
        + b"RGB "
        + b"XYZ "
        + struct.pack(">6H", 2026, 1, 1, 0, 0, 0)
        + b"acsp"
        + b"\0" * 4
        + b"\0" * 4
        + b"\0" * 8
        + b"\0" * 8
        + struct.pack(">I", 0)
        + b"".join(_s15f16(c) for c in d50)
        + b"\0" * 4
    )
    header += b"\0" * (128 - len(header))
    return header + struct.pack(">I", len(tags)) + table + body


# sRGB primaries adapted to D50 (the columns of sRGB's matrix in an ICC profile).
SRGB_RED = (0.4361, 0.2225, 0.0139)
SRGB_GREEN = (0.3851, 0.7169, 0.0971)
SRGB_BLUE = (0.1431, 0.0606, 0.7141)


@pytest.fixture(scope="session")
def swapped_rb_icc() -> bytes:
    """An RGB profile whose "red" channel is sRGB's blue and vice versa: colour management
    is visibly applied when a pure red pixel comes out blue."""
    return make_rgb_icc(SRGB_BLUE, SRGB_GREEN, SRGB_RED, "Swapped red-blue test profile")
