"""The badge (crachá) of Art. 5º §4º: a CR80 card, front and back, as PDF.

Front: municipal header, the service in its colours (Art. 5º §1º IV, Art. 13
IX–X: mototáxi yellow topázio with black text, motoboy and moto-frete black with
yellow topázio text), the 3x4 photo, name, CPF (masked), permit number, plate,
validity and, on a deputy's badge, a red "PREPOSTO" strip with the holder's name.
Back: the QR code -- the public verifier page's address with the signed token as its
fragment (see :mod:`motodesk.printing.token`), so a passenger's phone camera opens a page
that checks the badge -- the copy number and the law.

Two layouts: ``"card"`` for a card printer (one CR80 page per side, front then
back, with a calibration offset) and ``"a4"`` for paper (eight cards per A4 sheet
with crop marks; backs on the following sheet, mirrored for long-edge duplex).
"""

from __future__ import annotations

import io
import re
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from typing import Literal

import segno
from reportlab import rl_config
from reportlab.lib.colors import Color, HexColor, white
from reportlab.lib.pagesizes import A4
from reportlab.lib.units import mm
from reportlab.lib.utils import ImageReader, simpleSplit
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

from motodesk.rules.common import ServiceType

from .token import badge_url
from .typesetting import copy_label, fit_font_size, format_date, split_balanced, winansi

__all__ = [
    "A4_GRID",
    "CARD_HEIGHT_MM",
    "CARD_WIDTH_MM",
    "BadgeData",
    "card_origin_mm",
    "render_badges",
]

CARD_WIDTH_MM = 85.60
CARD_HEIGHT_MM = 53.98
CARD_W = CARD_WIDTH_MM * mm
CARD_H = CARD_HEIGHT_MM * mm

TOPAZ = HexColor("#FFC82E")  # amarelo topázio, Y 198 (Art. 5º §1º IV)
BLACK = HexColor("#000000")
NAVY = HexColor("#0B2E4F")  # municipal header
DEPUTY_RED = HexColor("#B3261E")
GREY = HexColor("#5A5A5A")
FRAME_GREY = HexColor("#9A9A9A")
PLACEHOLDER_FILL = HexColor("#EDEDED")

FONT = "Helvetica"
BOLD = "Helvetica-Bold"

LAW = "Lei Municipal nº 4.883/2017"
#: Beside the QR: what a passenger does with it (the QR opens the public verifier page).
SCAN_HINT = "Confira este crachá: aponte a câmera do celular para o código"

# A4 sheet: 2 columns x 4 rows of cards, 10 mm gutters for the crop marks.
A4_COLUMNS = 2
A4_ROWS = 4
A4_GUTTER_MM = 10.0
A4_GRID = (A4_COLUMNS, A4_ROWS)
_A4_W_MM = 210.0
_A4_H_MM = 297.0
_A4_MARGIN_X_MM = (_A4_W_MM - A4_COLUMNS * CARD_WIDTH_MM - (A4_COLUMNS - 1) * A4_GUTTER_MM) / 2
_A4_MARGIN_Y_MM = (_A4_H_MM - A4_ROWS * CARD_HEIGHT_MM - (A4_ROWS - 1) * A4_GUTTER_MM) / 2
CROP_MARK_OFFSET_MM = 1.5
CROP_MARK_LENGTH_MM = 3.0


@dataclass(frozen=True)
class BadgeData:
    """Everything printed on one badge. *token* is the signed token from :func:`sign_claim`; the QR
    holds it as the fragment of *qr_base_url* (the verifier page), or bare when that is empty."""

    permit_number: str
    service: ServiceType
    holder_name: str
    cpf_masked: str  # e.g. ***.456.789-**
    plate: str
    valid_until: date
    photo_jpeg: bytes | None
    token: str
    issue_no: int
    is_deputy: bool = False
    holder_of_deputy: str | None = None  # the titular's name, on a deputy's badge
    municipality: str = "Patrocínio - MG"
    secretariat: str = "SESTRAN – Secretaria Municipal de Segurança Pública, Trânsito e Transportes"
    qr_base_url: str = ""

    @property
    def qr_text(self) -> str:
        """What the QR code holds: ``<verifier page>#<token>``, or the bare token."""
        return badge_url(self.qr_base_url, self.token) if self.qr_base_url else self.token


def card_origin_mm(slot: int, *, back: bool = False) -> tuple[float, float]:
    """Lower-left corner (mm, PDF axes: y up) of the card in *slot* (0–7) of an A4 sheet.

    Slots fill rows left to right from the top. On the back sheet the columns are
    swapped, so that after a long-edge duplex flip each back lies under its front.
    """
    row, col = divmod(slot, A4_COLUMNS)
    if back:
        col = A4_COLUMNS - 1 - col
    x = _A4_MARGIN_X_MM + col * (CARD_WIDTH_MM + A4_GUTTER_MM)
    y = _A4_H_MM - _A4_MARGIN_Y_MM - (row + 1) * CARD_HEIGHT_MM - row * A4_GUTTER_MM
    return x, y


def render_badges(
    badges: Iterable[BadgeData],
    *,
    layout: Literal["card", "a4"] = "card",
    offset_mm: tuple[float, float] = (0, 0),
) -> bytes:
    """PDF of the badges, fronts and backs.

    ``layout="card"``: pages of exactly 85.60 × 53.98 mm, front then back of each
    badge, for a duplex card printer. ``layout="a4"``: A4 sheets of eight cards with
    crop marks, a sheet of fronts followed by the sheet of their backs (mirrored for
    long-edge duplex).

    *offset_mm* = (x, y) moves everything printed, for calibrating a printer:
    positive x to the right, positive y **down** (as a printer's settings dialog
    means it). It applies to every page of either layout.

    An unreadable photo raises ``ValueError`` naming the permit; the batch is not
    printed with a hole in it.
    """
    if layout not in ("card", "a4"):
        raise ValueError(f"layout deve ser 'card' ou 'a4', não {layout!r}")
    dx, dy = (float(v) for v in offset_mm)
    with _binary_streams():
        return _render(badges, layout, dx, dy)


_A85_LOCK = threading.RLock()


@contextmanager
def _binary_streams() -> Iterator[None]:
    """Binary PDF streams instead of reportlab's default ASCII85 armour while rendering.

    ASCII85 makes every stream 25 % bigger and, without reportlab's optional C
    accelerator (``rl_accel``), costs ~20 ms for each photo in pure Python. Binary
    streams are just as valid PDF. ``rl_config.useA85`` is a process-wide setting,
    hence the lock; another thread's reportlab output made meanwhile is binary too,
    which is harmless.
    """
    with _A85_LOCK:
        saved = rl_config.useA85
        rl_config.useA85 = 0
        try:
            yield
        finally:
            rl_config.useA85 = saved


def _render(badges: Iterable[BadgeData], layout: str, dx: float, dy: float) -> bytes:
    buffer = io.BytesIO()
    page_size = (CARD_W, CARD_H) if layout == "card" else A4
    canvas = Canvas(buffer, pagesize=page_size, pageCompression=1)
    canvas.setTitle("Crachás – " + winansi(LAW))
    canvas.setAuthor("SESTRAN")
    canvas.setCreator("MotoDesk")

    def start_page() -> None:
        canvas.translate(dx * mm, -dy * mm)

    pages = 0
    if layout == "card":
        for badge in badges:
            _check(badge)
            start_page()
            _draw_front(canvas, badge)
            canvas.showPage()
            start_page()
            _draw_back(canvas, badge)
            canvas.showPage()
            pages += 2
    else:
        for sheet in _chunks(badges, A4_COLUMNS * A4_ROWS):
            for back in (False, True):
                start_page()
                for slot, badge in enumerate(sheet):
                    if not back:
                        _check(badge)
                    x, y = card_origin_mm(slot, back=back)
                    canvas.saveState()
                    canvas.translate(x * mm, y * mm)
                    (_draw_back if back else _draw_front)(canvas, badge)
                    canvas.restoreState()
                    _draw_crop_marks(canvas, x * mm, y * mm)
                canvas.showPage()
                pages += 1
    if pages == 0:
        raise ValueError("nenhum crachá para imprimir")
    canvas.save()
    return buffer.getvalue()


def _chunks(items: Iterable[BadgeData], size: int) -> Iterator[list[BadgeData]]:
    chunk: list[BadgeData] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _check(badge: BadgeData) -> None:
    if not isinstance(badge.service, ServiceType):
        raise TypeError(f"service deve ser um ServiceType, não {badge.service!r}")
    if not badge.token:
        raise ValueError(f"crachá {badge.permit_number} sem o código QR assinado")


# --- the two faces -------------------------------------------------------------------------------

_MARGIN = 3 * mm
_HEADER_H = 10.5 * mm
_BAND_H = 8 * mm
_DEPUTY_H = 6.5 * mm
_PHOTO_W = 23 * mm
_PHOTO_H = _PHOTO_W * 4 / 3


def _service_colours(service: ServiceType) -> tuple[Color, Color]:
    """(background, text) of the service band: Art. 5º §1º IV and Art. 13 IX–X."""
    if service is ServiceType.MOTOTAXI:
        return TOPAZ, BLACK
    return BLACK, TOPAZ


def _instrument_label(service: ServiceType) -> str:
    return "Permissão nº" if service is ServiceType.MOTOTAXI else "Autorização nº"


def _draw_front(c: Canvas, b: BadgeData) -> None:
    body_top = _draw_header_and_band(c, b)
    body_bottom = _draw_deputy_strip(c, b)
    # Photo, vertically centred in the body.
    body_h = body_top - body_bottom
    photo_h = min(_PHOTO_H, body_h - 2.4 * mm)
    photo_w = photo_h * 3 / 4
    photo_x = _MARGIN
    photo_y = body_bottom + (body_h - photo_h) / 2
    _draw_photo(c, b, photo_x, photo_y, photo_w, photo_h)
    _draw_front_fields(c, b, photo_x + photo_w + 3 * mm, photo_y, photo_h)


def _draw_header_and_band(c: Canvas, b: BadgeData) -> float:
    """The municipal header and the service band in the service's colours; the top of the body below."""
    top = CARD_H
    # Municipal header.
    c.setFillColor(NAVY)
    c.rect(0, top - _HEADER_H, CARD_W, _HEADER_H, stroke=0, fill=1)
    c.setFillColor(white)
    _text_fitted(
        c,
        "PREFEITURA MUNICIPAL DE " + winansi(b.municipality).upper(),
        CARD_W / 2,
        top - 4.6 * mm,
        CARD_W - 2 * _MARGIN,
        BOLD,
        7.6,
        5.5,
        align="center",
    )
    _text_fitted(
        c,
        winansi(b.secretariat),
        CARD_W / 2,
        top - 8.3 * mm,
        CARD_W - 2 * _MARGIN,
        FONT,
        5.2,
        4.0,
        align="center",
    )
    # Service band in the service's colours.
    band_top = top - _HEADER_H
    background, foreground = _service_colours(b.service)
    c.setFillColor(background)
    c.rect(0, band_top - _BAND_H, CARD_W, _BAND_H, stroke=0, fill=1)
    c.setFillColor(foreground)
    _text_fitted(
        c,
        winansi(b.service.label).upper(),
        CARD_W / 2,
        band_top - _BAND_H + 2.35 * mm,
        CARD_W - 2 * _MARGIN,
        BOLD,
        14,
        8,
        align="center",
        char_space=1.2,
    )
    return band_top - _BAND_H


def _draw_deputy_strip(c: Canvas, b: BadgeData) -> float:
    """A deputy's red strip at the bottom, naming the titular; the bottom of the body above it."""
    if not b.is_deputy:
        return 0.0
    c.setFillColor(DEPUTY_RED)
    c.rect(0, 0, CARD_W, _DEPUTY_H, stroke=0, fill=1)
    c.setFillColor(white)
    label = "PREPOSTO"
    _text_fitted(c, label, _MARGIN, 2.05 * mm, CARD_W, BOLD, 10, 10)
    label_w = stringWidth(label, BOLD, 10) + 2.5 * mm
    holder = "Titular: " + winansi(b.holder_of_deputy or "—")
    _text_fitted(
        c,
        holder,
        _MARGIN + label_w,
        2.2 * mm,
        CARD_W - 2 * _MARGIN - label_w,
        BOLD,
        6.5,
        4.2,
    )
    return _DEPUTY_H


def _draw_front_fields(c: Canvas, b: BadgeData, x: float, photo_y: float, photo_h: float) -> None:
    """The fields to the right of the photo (left edge ``x``), from its top edge down to its bottom edge."""
    width = CARD_W - _MARGIN - x
    name = winansi(b.holder_name)
    name_lines = _name_lines(name, width)
    label_drop, value_drop = 1.9 * mm, 3.5 * mm
    validity_h = 4.5 * mm
    used = (
        3 * (label_drop + value_drop) + 1.0 * mm + (len(name_lines) - 1) * name_lines[0][1] * 1.1 + validity_h
    )
    gap = max(0.0, min(2.6 * mm, (photo_h - used) / 3))
    y = photo_y + photo_h - label_drop
    _label(c, "Nome", x, y)
    y -= value_drop
    for i, (line, size) in enumerate(name_lines):
        if i:
            y -= size * 1.1
        _text_fitted(c, line, x, y, width, BOLD, size, size)
    y -= gap + label_drop + 0.5 * mm
    col2 = x + width * 0.58
    _label(c, _instrument_label(b.service), x, y)
    _label(c, "Placa", col2, y)
    y -= value_drop
    _text_fitted(c, winansi(b.permit_number), x, y, col2 - x - 1.5 * mm, BOLD, 8.5, 5.5)
    _text_fitted(c, winansi(b.plate), col2, y, x + width - col2, BOLD, 8.5, 5.5)
    y -= gap + label_drop + 0.5 * mm
    _label(c, "CPF", x, y)
    y -= value_drop
    _text_fitted(c, winansi(b.cpf_masked), x, y, width, FONT, 8, 5)
    # Validity on the photo's bottom edge.
    validity = "Válido até " + format_date(b.valid_until)
    _text_fitted(c, validity, x, photo_y + 0.5 * mm, width, BOLD, 8.5, 6)


def _name_lines(name: str, width: float) -> list[tuple[str, float]]:
    """The name on one line if it fits at 7 pt or more, else on two balanced lines; with their sizes."""
    size = fit_font_size(name, BOLD, 9, width, 4.5)
    first, second = split_balanced(name)
    if size >= 7 or not second:
        return [(name, size)]
    size = min(fit_font_size(first, BOLD, 8, width, 4.5), fit_font_size(second, BOLD, 8, width, 4.5))
    return [(first, size), (second, size)]


def _label(c: Canvas, text: str, x: float, y: float) -> None:
    c.setFillColor(GREY)
    _text_fitted(c, text.upper(), x, y, CARD_W, FONT, 5, 5)
    c.setFillColor(BLACK)


def _text_fitted(
    c: Canvas,
    text: str,
    x: float,
    y: float,
    width: float,
    font: str,
    size: float,
    min_size: float,
    *,
    align: Literal["left", "center"] = "left",
    char_space: float = 0.0,
) -> None:
    """One line of text in *width*: shrunk down to *min_size*, then condensed, never overflowing."""
    extra = char_space * max(len(text) - 1, 0)
    size = fit_font_size(text, font, size, max(width - extra, 1), min_size)
    natural = stringWidth(text, font, size) + extra
    scale = min(1.0, width / natural) if natural else 1.0
    drawn = natural * scale
    left = x - drawn / 2 if align == "center" else x
    t = c.beginText(left, y)
    t.setFont(font, size)
    # Tc and Tz belong to the page's text state and outlive this text object: always set both.
    t.setCharSpace(char_space)
    t.setHorizScale(scale * 100)
    t.textOut(text)
    c.drawText(t)


class _PhotoReader(ImageReader):
    """An ImageReader that does not decode a JPEG just to name it.

    ``Canvas.drawImage`` names an image by a digest of ``getRGBData()``, which
    decodes every pixel, while the JPEG itself is embedded as is (DCTDecode). For a
    JPEG the file bytes identify the image just as well and cost nothing.
    """

    def __init__(self, data: bytes) -> None:
        super().__init__(io.BytesIO(data))
        self._file_bytes = data

    def getRGBData(self):  # noqa: N802 - reportlab's name
        if self.jpeg_fh() is not None:
            self._dataA = None
            return self._file_bytes
        return super().getRGBData()


def _draw_photo(c: Canvas, b: BadgeData, x: float, y: float, w: float, h: float) -> None:
    if b.photo_jpeg:
        try:
            reader = _PhotoReader(bytes(b.photo_jpeg))
            iw, ih = reader.getSize()
        except Exception as exc:  # noqa: BLE001 - PIL raises many kinds for a bad file
            raise ValueError(f"foto ilegível no crachá {b.permit_number}") from exc
        # Fill the frame (cover), cropping what exceeds 3:4, centred.
        scale = max(w / iw, h / ih)
        dw, dh = iw * scale, ih * scale
        c.saveState()
        path = c.beginPath()
        path.rect(x, y, w, h)
        c.clipPath(path, stroke=0, fill=0)
        c.drawImage(reader, x + (w - dw) / 2, y + (h - dh) / 2, dw, dh)
        c.restoreState()
    else:
        c.setFillColor(PLACEHOLDER_FILL)
        c.rect(x, y, w, h, stroke=0, fill=1)
        c.setFillColor(GREY)
        _text_fitted(c, "SEM FOTO", x + w / 2, y + h / 2 - 2.5, w, BOLD, 7, 5, align="center")
    c.setStrokeColor(FRAME_GREY)
    c.setLineWidth(0.4)
    c.rect(x, y, w, h, stroke=1, fill=0)
    c.setFillColor(BLACK)


_QR_SIZE = 40 * mm  # quiet zone included


def _draw_back(c: Canvas, b: BadgeData) -> None:
    background, foreground = _service_colours(b.service)
    strip = 6.5 * mm
    c.setFillColor(background)
    c.rect(0, CARD_H - strip, CARD_W, strip, stroke=0, fill=1)
    c.setFillColor(foreground)
    _text_fitted(
        c,
        winansi(b.service.label).upper() + "  ·  " + winansi(b.municipality).upper(),
        CARD_W / 2,
        CARD_H - strip + 2.1 * mm,
        CARD_W - 2 * _MARGIN,
        BOLD,
        8,
        5,
        align="center",
    )
    # The QR, on white, with its 4-module quiet zone inside _QR_SIZE.
    qr_x = 1.5 * mm
    qr_y = (CARD_H - strip - _QR_SIZE) / 2
    _draw_qr(c, b.qr_text, qr_x, qr_y, _QR_SIZE)
    # Texts to the right.
    x = qr_x + _QR_SIZE + 1.5 * mm
    width = CARD_W - _MARGIN - x
    y = CARD_H - strip - 5.2 * mm
    c.setFillColor(BLACK)
    for line in simpleSplit(winansi(SCAN_HINT), BOLD, 6.8, width):
        _text_fitted(c, line, x, y, width, BOLD, 6.8, 5)
        y -= 2.9 * mm
    y -= 1.2 * mm
    _label(c, _instrument_label(b.service), x, y)
    y -= 3.4 * mm
    _text_fitted(c, winansi(b.permit_number), x, y, width, BOLD, 8.5, 5.5)
    y -= 4.6 * mm
    copy = copy_label(b.issue_no)
    _text_fitted(c, copy, x, y, width, BOLD, 9, 6)
    if b.is_deputy:
        c.setFillColor(DEPUTY_RED)
        shift = stringWidth(copy, BOLD, 9) + 2.5 * mm
        _text_fitted(c, "PREPOSTO", x + shift, y, width - shift, BOLD, 9, 6)
        c.setFillColor(BLACK)
    # Bottom block: duty to carry it and the law.
    c.setFillColor(GREY)
    _text_fitted(c, "Uso obrigatório em serviço", x, qr_y + 8.4 * mm, width, FONT, 5.8, 4.5)
    _text_fitted(c, "(Art. 5º, § 4º e Art. 13, VI)", x, qr_y + 5.6 * mm, width, FONT, 5.8, 4.5)
    c.setFillColor(BLACK)
    _text_fitted(c, LAW, x, qr_y + 2.6 * mm, width, BOLD, 6.2, 4.5)


def _draw_qr(c: Canvas, text: str, x: float, y: float, size: float) -> None:
    """QR code, error correction M, as one vector path of horizontal runs, quiet zone included in *size*.

    An address ``…#MD1.…`` is encoded in two segments: the address in byte mode, the token (upper-case
    base32) in alphanumeric mode, 5.5 bits a character instead of 8, so the code stays small.

    segno (a project dependency) computes the module matrix: reportlab's own
    encoder spends ~80 ms a code choosing the mask in pure Python, which would be
    most of a 500-badge batch. The runs are written in module units under a
    scaling transform (small integers, quick to format, a compact PDF), and one
    filled path has no hairline seams between modules when a viewer anti-aliases.
    """
    cut = text.find("#") + 1
    content: str | list[str] = text
    if cut and text[cut:].isupper() and text[cut:].replace(".", "").isalnum():
        content = [text[:cut], text[cut:]]  # segno picks each segment's mode: byte, then alphanumeric
    try:
        # segno takes a sequence of segments too, although its stubs name only str, bytes and int.
        qr = segno.make_qr(content, error="m", boost_error=False)  # type: ignore[arg-type]
    except segno.DataOverflowError as exc:
        raise ValueError("o texto do código QR do crachá é longo demais") from exc
    matrix = qr.matrix  # rows top to bottom, 1 = dark, without the quiet zone
    count = len(matrix)
    border = 4
    module = size / (count + 2 * border)
    c.setFillColor(white)
    c.rect(x, y, size, size, stroke=0, fill=1)
    ops = []
    for r, row in enumerate(matrix):
        y_row = count - 1 - r
        for run in _DARK_RUN.finditer(row):
            ops.append(f"{run.start()} {y_row} {run.end() - run.start()} 1 re")
    c.saveState()
    c.translate(x + border * module, y + border * module)
    c.scale(module, module)
    c.setFillColor(BLACK)
    c.addLiteral("\n".join(ops) + "\nf")
    c.restoreState()


_DARK_RUN = re.compile(rb"\x01+")


def _draw_crop_marks(c: Canvas, x: float, y: float) -> None:
    """Cutting marks at the four corners of the card whose lower-left corner is (x, y), outside it."""
    off, length = CROP_MARK_OFFSET_MM * mm, CROP_MARK_LENGTH_MM * mm
    c.setStrokeColor(BLACK)
    c.setLineWidth(0.3)
    for cx, sx in ((x, -1), (x + CARD_W, 1)):
        for cy, sy in ((y, -1), (y + CARD_H, 1)):
            c.line(cx + sx * off, cy, cx + sx * (off + length), cy)  # horizontal, along the edge
            c.line(cx, cy + sy * off, cx, cy + sy * (off + length))  # vertical
