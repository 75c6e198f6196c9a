"""Fixtures for the printing tests: a signing key, photos, and ways to read a PDF back."""

from __future__ import annotations

import io
import shutil
import subprocess
from collections.abc import Callable
from datetime import date

import pytest
from PIL import Image, ImageDraw
from pypdf import PdfReader

from motodesk.printing.token import BadgeClaim, cpf_digest, generate_keypair, sign_claim

MM_PER_PT = 25.4 / 72


@pytest.fixture(scope="session")
def keypair() -> tuple[bytes, bytes]:
    return generate_keypair()


@pytest.fixture(scope="session")
def make_token(keypair) -> Callable[..., str]:
    private_pem, _ = keypair

    def make(
        permit: str = "MT-0007/2026",
        cpf: str = "52998224725",
        valid_until: date = date(2027, 3, 15),
        issue_no: int = 1,
        kind: str = "titular",
        *,
        name: str | None = "João Conceição Araújo",
        plate: str = "ABC1D23",
    ) -> str:
        """A signed token; with the printed fields (as badges are signed now) unless *name* is None."""
        if name is None:
            return sign_claim(BadgeClaim(permit, cpf_digest(cpf), valid_until, issue_no, kind), private_pem)
        return sign_claim(BadgeClaim.for_badge(permit, cpf, valid_until, issue_no, kind, service_code=permit[:2],
                                               plate=plate, holder_name=name), private_pem)

    return make


@pytest.fixture(scope="session")
def make_photo() -> Callable[..., bytes]:
    return photo_jpeg


def photo_jpeg(seed: int = 0, size: tuple[int, int] = (354, 472)) -> bytes:
    """A 3x4 JPEG at 300 dpi, different for every seed (a face on a coloured background)."""
    w, h = size
    im = Image.new("RGB", size, (90 + seed * 37 % 120, 140 + seed * 13 % 80, 190))
    draw = ImageDraw.Draw(im)
    draw.ellipse((w * 0.3, h * 0.19, w * 0.7, h * 0.55), fill=(224, 182, 150))
    draw.rectangle((w * 0.2, h * 0.64, w * 0.8, h), fill=(40, 60, 90))
    buffer = io.BytesIO()
    im.save(buffer, "JPEG", quality=85, dpi=(300, 300))
    return buffer.getvalue()


@pytest.fixture(scope="session")
def photo() -> bytes:
    return photo_jpeg()


class PdfReadBack:
    """Ways to read a rendered PDF back, as a fixture (test modules cannot import conftest)."""

    @staticmethod
    def size_mm(page) -> tuple[float, float]:
        return page_size_mm(page)

    @staticmethod
    def read(data: bytes) -> PdfReader:
        return read_pdf(data)

    @staticmethod
    def texts(data: bytes) -> list[str]:
        return page_texts(data)

    @staticmethod
    def render(data: bytes, page: int, dpi: int = 300) -> Image.Image:
        return render_page(data, page, dpi)


@pytest.fixture(scope="session")
def pdf() -> type[PdfReadBack]:
    return PdfReadBack


def page_size_mm(page) -> tuple[float, float]:
    box = page.mediabox
    return float(box.width) * MM_PER_PT, float(box.height) * MM_PER_PT


def read_pdf(data: bytes) -> PdfReader:
    assert data.startswith(b"%PDF-")
    return PdfReader(io.BytesIO(data))


def page_texts(data: bytes) -> list[str]:
    """Text of each page as poppler reads it (what a user copying from the PDF gets)."""
    reader = read_pdf(data)
    texts = []
    for number in range(1, len(reader.pages) + 1):
        texts.append(_pdftotext(data, number))
    return texts


def squash(text: str) -> str:
    """Whitespace collapsed, for comparing text that may wrap across lines."""
    return " ".join(text.split())


def _pdftotext(data: bytes, page: int) -> str:
    tool = shutil.which("pdftotext")
    if tool is None:
        # Without poppler, pypdf's extraction is good enough for the assertions.
        return read_pdf(data).pages[page - 1].extract_text()
    result = subprocess.run(
        [tool, "-f", str(page), "-l", str(page), "-enc", "UTF-8", "-", "-"],
        input=data,
        capture_output=True,
        check=True,
    )
    return result.stdout.decode("utf-8")


def render_page(data: bytes, page: int, dpi: int = 300) -> Image.Image:
    """Page *page* (1-based) rasterised by poppler, as a printer driver would."""
    tool = shutil.which("pdftoppm")
    if tool is None:
        pytest.skip("pdftoppm (poppler-utils) is not installed")
    result = subprocess.run(
        [tool, "-f", str(page), "-l", str(page), "-r", str(dpi), "-png", "-"],
        input=data,
        capture_output=True,
        check=True,
    )
    image = Image.open(io.BytesIO(result.stdout))
    image.load()
    return image.convert("RGB")
