"""The A4 page every document shares, and the building blocks of its content.

Every page carries the municipal letterhead (Prefeitura Municipal de Patrocínio –
MG / SESTRAN) and a footer with the law, the date and time the PDF was generated
and "Página x de y". A PDF may hold several documents (one renewal letter per
holder, the two copies of an infraction notice): each starts a *group* with
:func:`start_document`, and pages are numbered within their group.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial

from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER, TA_JUSTIFY, TA_LEFT
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    BaseDocTemplate,
    Flowable,
    Frame,
    KeepTogether,
    PageTemplate,
    Paragraph,
    Spacer,
    Table,
    TableStyle,
)
from reportlab.platypus.flowables import PageBreakIfNotEmpty

from motodesk.clock import local_now

from .typesetting import format_datetime, markup, winansi

__all__ = [
    "DEFAULT_LETTERHEAD",
    "LAW",
    "Letterhead",
    "body",
    "build_pdf",
    "closing",
    "fields",
    "note_box",
    "section",
    "signature_table",
    "signatures",
    "start_document",
    "title",
]

LAW = "Lei Municipal nº 4.883/2017"

NAVY = colors.HexColor("#0B2E4F")
GREY = colors.HexColor("#5A5A5A")
LIGHT_GREY = colors.HexColor("#B8B8B8")
PALE = colors.HexColor("#F2F4F7")
GREEN = colors.HexColor("#1B6E2E")
RED = colors.HexColor("#B3261E")
PALE_RED = colors.HexColor("#FBE9E7")
PALE_GREEN = colors.HexColor("#E8F5E9")

PAGE_W, PAGE_H = A4
MARGIN_X = 18 * mm
HEADER_H = 30 * mm
FOOTER_H = 18 * mm
CONTENT_W = PAGE_W - 2 * MARGIN_X


@dataclass(frozen=True)
class Letterhead:
    """Who speaks on every page. The address line comes from the settings."""

    prefecture: str = "Prefeitura Municipal de Patrocínio – MG"
    secretariat: str = "SESTRAN – Secretaria Municipal de Segurança Pública, Trânsito e Transportes"
    address: str = ""
    city: str = "Patrocínio – MG"  # where documents are dated: "Patrocínio – MG, 12/03/2026."


DEFAULT_LETTERHEAD = Letterhead()


# --- styles --------------------------------------------------------------------------------------

STYLES = {
    "title": ParagraphStyle(
        "title", fontName="Helvetica-Bold", fontSize=14, leading=18, alignment=TA_CENTER, spaceAfter=1 * mm
    ),
    "subtitle": ParagraphStyle(
        "subtitle", fontName="Helvetica", fontSize=10, leading=13, alignment=TA_CENTER, spaceAfter=5 * mm
    ),
    "section": ParagraphStyle(
        "section",
        fontName="Helvetica-Bold",
        fontSize=9,
        leading=12,
        textColor=NAVY,
        spaceBefore=4 * mm,
        spaceAfter=1.5 * mm,
    ),
    "body": ParagraphStyle(
        "body", fontName="Helvetica", fontSize=10, leading=14, alignment=TA_JUSTIFY, spaceAfter=2.5 * mm
    ),
    "cell": ParagraphStyle("cell", fontName="Helvetica", fontSize=9, leading=11.5, alignment=TA_LEFT),
    "cell_bold": ParagraphStyle("cell_bold", fontName="Helvetica-Bold", fontSize=9, leading=11.5),
    "cell_bad": ParagraphStyle(
        "cell_bad", fontName="Helvetica-Bold", fontSize=9, leading=11.5, textColor=RED
    ),
    "cell_small": ParagraphStyle("cell_small", fontName="Helvetica", fontSize=8.5, leading=10.5),
    "head": ParagraphStyle(
        "head", fontName="Helvetica-Bold", fontSize=8.5, leading=10.5, textColor=colors.white
    ),
    "field": ParagraphStyle("field", fontName="Helvetica", fontSize=9.5, leading=12),
    "small": ParagraphStyle("small", fontName="Helvetica", fontSize=8, leading=10, textColor=GREY),
    "sign": ParagraphStyle("sign", fontName="Helvetica", fontSize=9, leading=11.5, alignment=TA_CENTER),
}


# --- content blocks ------------------------------------------------------------------------------


def title(text: str, subtitle: str | None = None) -> list[Flowable]:
    """The document's name, and its number under it. Both are user text (escaped)."""
    out: list[Flowable] = [Paragraph(markup(text), STYLES["title"])]
    out.append(Paragraph(markup(subtitle) if subtitle else "", STYLES["subtitle"]))
    return out


def section(text: str) -> Paragraph:
    return Paragraph(markup(text.upper()), STYLES["section"])


def body(xml: str, style: str = "body") -> Paragraph:
    """A paragraph of *trusted markup*: escape every piece of user text with ``markup()`` first."""
    return Paragraph(xml, STYLES[style])


def cell(text: object, style: str = "cell") -> Paragraph:
    """A table cell from user text (escaped)."""
    return Paragraph(markup(text), STYLES[style])


def fields(
    rows: Sequence[tuple[str, object]], columns: int = 2, widths: Sequence[float] | None = None
) -> Table:
    """A form-like grid: each cell a small grey label over its value (user text, escaped).

    A value that is empty prints as "—" so a blank is visibly blank, not forgotten.
    """
    cells = []
    for label, value in rows:
        text = markup(value) if value not in (None, "") else "—"
        cells.append(
            Paragraph(
                f'<font size="7" color="#5A5A5A">{markup(label.upper())}</font><br/>{text}', STYLES["field"]
            )
        )
    while len(cells) % columns:
        cells.append("")
    grid = [cells[i : i + columns] for i in range(0, len(cells), columns)]
    col_widths = list(widths) if widths else [CONTENT_W / columns] * columns
    table = Table(grid, colWidths=col_widths, hAlign="LEFT", splitInRow=1)
    table.setStyle(
        TableStyle(
            [
                ("GRID", (0, 0), (-1, -1), 0.5, LIGHT_GREY),
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ("TOPPADDING", (0, 0), (-1, -1), 1.8),
                ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
                ("LEFTPADDING", (0, 0), (-1, -1), 4),
            ]
        )
    )
    return table


def data_table(
    header: Sequence[str],
    rows: Sequence[Sequence[Flowable | str]],
    widths: Sequence[float],
    extra_style: Iterable[tuple] = (),
) -> Table:
    """A list with a navy header row repeated on every page it spans."""
    head = [Paragraph(markup(h), STYLES["head"]) for h in header]
    table = Table([head, *rows], colWidths=list(widths), repeatRows=1, hAlign="LEFT", splitInRow=1)
    table.setStyle(
        TableStyle(
            [
                ("BACKGROUND", (0, 0), (-1, 0), NAVY),
                ("GRID", (0, 0), (-1, -1), 0.5, LIGHT_GREY),
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ("TOPPADDING", (0, 0), (-1, -1), 2.5),
                ("BOTTOMPADDING", (0, 0), (-1, -1), 3.5),
                ("ROWBACKGROUNDS", (0, 1), (-1, -1), [colors.white, PALE]),
                *extra_style,
            ]
        )
    )
    return table


def note_box(xml: str, *, border: colors.Color = NAVY, background: colors.Color = PALE) -> Table:
    """A framed paragraph for what must not be missed (trusted markup)."""
    table = Table([[Paragraph(xml, STYLES["field"])]], colWidths=[CONTENT_W], hAlign="LEFT")
    table.setStyle(
        TableStyle(
            [
                ("BOX", (0, 0), (-1, -1), 1.2, border),
                ("BACKGROUND", (0, 0), (-1, -1), background),
                ("TOPPADDING", (0, 0), (-1, -1), 5),
                ("BOTTOMPADDING", (0, 0), (-1, -1), 6),
                ("LEFTPADDING", (0, 0), (-1, -1), 6),
            ]
        )
    )
    return table


def signatures(people: Sequence[tuple[str, str]], space_above: float = 16 * mm) -> KeepTogether:
    """Signature lines side by side: (name, role) each; either may be blank for a handwritten one."""
    return KeepTogether([Spacer(1, space_above), signature_table(people)])


def signature_table(people: Sequence[tuple[str, str]]) -> Table:
    width = CONTENT_W / max(len(people), 1)
    line = "_" * 42
    cells = [
        Paragraph(
            f"{line}<br/><b>{markup(name)}</b><br/>{markup(role)}" if name else f"{line}<br/>{markup(role)}",
            STYLES["sign"],
        )
        for name, role in people
    ]
    table = Table([cells], colWidths=[width] * len(people), hAlign="CENTER")
    table.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP")]))
    return table


def place_and_date(letterhead: Letterhead, when: str) -> Paragraph:
    return Paragraph(f"{markup(letterhead.city)}, {markup(when)}.", STYLES["body"])


def closing(letterhead: Letterhead, when: str, people: Sequence[tuple[str, str]]) -> KeepTogether:
    """Place, date and signatures, never separated by a page break."""
    return KeepTogether([place_and_date(letterhead, when), Spacer(1, 14 * mm), signature_table(people)])


class _DocumentStart(Flowable):
    """Invisible mark: a new document (with its own page count and running label) starts here."""

    def __init__(self, label: str) -> None:
        super().__init__()
        self.label = label
        self.width = self.height = 0

    def wrap(self, available_width, available_height):
        return 0, 0

    def draw(self) -> None:
        canvas = self.canv
        canvas._md_group += 1  # type: ignore[attr-defined]
        canvas._md_label = self.label  # type: ignore[attr-defined]


def start_document(label: str = "", *, new_page: bool = True) -> list[Flowable]:
    """Begin one document of a multi-document PDF; *label* is printed at the top right of its pages."""
    start: list[Flowable] = [PageBreakIfNotEmpty()] if new_page else []
    return [*start, _DocumentStart(label)]


# --- the page ------------------------------------------------------------------------------------


class _PageCanvas(Canvas):
    """Canvas that draws the letterhead and footer once the page count of each group is known."""

    def __init__(self, *args, letterhead: Letterhead, generated_at: datetime, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._md_letterhead = letterhead
        self._md_generated = generated_at
        self._md_pages: list[dict] = []
        self._md_group = 0
        self._md_label = ""

    def showPage(self) -> None:  # noqa: N802 - reportlab's name
        self._md_pages.append(dict(self.__dict__))
        self._startPage()

    def save(self) -> None:
        totals: dict[int, int] = {}
        for state in self._md_pages:
            totals[state["_md_group"]] = totals.get(state["_md_group"], 0) + 1
        seen: dict[int, int] = {}
        for state in self._md_pages:
            self.__dict__.update(state)
            group = state["_md_group"]
            seen[group] = seen.get(group, 0) + 1
            self._draw_letterhead(state["_md_label"])
            self._draw_footer(seen[group], totals[group])
            super().showPage()
        super().save()

    def _draw_letterhead(self, label: str) -> None:
        lh = self._md_letterhead
        top = PAGE_H - 12 * mm
        self.saveState()
        self.setFillColor(NAVY)
        self.rect(MARGIN_X, top - 11.5 * mm, 1.6 * mm, 13 * mm, stroke=0, fill=1)
        x = MARGIN_X + 4 * mm
        label_w = stringWidth(winansi(label), "Helvetica-Bold", 9) + 4 * mm if label else 0
        self._line(winansi(lh.prefecture).upper(), x, top - 2.5 * mm, "Helvetica-Bold", 11.5, label_w)
        self.setFillColor(colors.black)
        self._line(winansi(lh.secretariat), x, top - 7 * mm, "Helvetica", 9, 0)
        if lh.address:
            self.setFillColor(GREY)
            self._line(winansi(lh.address), x, top - 11 * mm, "Helvetica", 7.5, 0)
        if label:
            self.setFillColor(NAVY)
            self.setFont("Helvetica-Bold", 9)
            self.drawRightString(PAGE_W - MARGIN_X, top - 2.5 * mm, winansi(label))
        self.setStrokeColor(NAVY)
        self.setLineWidth(0.8)
        self.line(MARGIN_X, PAGE_H - HEADER_H + 3 * mm, PAGE_W - MARGIN_X, PAGE_H - HEADER_H + 3 * mm)
        self.restoreState()

    def _line(self, text: str, x: float, y: float, font: str, size: float, reserve: float) -> None:
        width = PAGE_W - MARGIN_X - x - reserve
        natural = stringWidth(text, font, size)
        if natural > width:
            size = max(6.0, size * width / natural)
        self.setFont(font, size)
        self.drawString(x, y, text)

    def _draw_footer(self, page: int, total: int) -> None:
        self.saveState()
        y = 11 * mm
        self.setStrokeColor(LIGHT_GREY)
        self.setLineWidth(0.5)
        self.line(MARGIN_X, y + 4 * mm, PAGE_W - MARGIN_X, y + 4 * mm)
        self.setFillColor(GREY)
        self.setFont("Helvetica", 7.5)
        generated = format_datetime(self._md_generated)
        self.drawString(MARGIN_X, y, f"{LAW} · Documento gerado pelo MotoDesk em {generated}")
        self.setFont("Helvetica-Bold", 8)
        self.drawRightString(PAGE_W - MARGIN_X, y, f"Página {page} de {total}")
        self.restoreState()


def build_pdf(
    story: list[Flowable],
    *,
    doc_title: str,
    letterhead: Letterhead = DEFAULT_LETTERHEAD,
    generated_at: datetime | None = None,
) -> bytes:
    """Lay *story* out on letterheaded A4 pages and return the PDF."""
    buffer = io.BytesIO()
    template = BaseDocTemplate(
        buffer,
        pagesize=A4,
        leftMargin=MARGIN_X,
        rightMargin=MARGIN_X,
        topMargin=HEADER_H,
        bottomMargin=FOOTER_H,
        title=winansi(doc_title),
        author="SESTRAN",
        creator="MotoDesk",
        subject=LAW,
    )
    frame = Frame(MARGIN_X, FOOTER_H, CONTENT_W, PAGE_H - HEADER_H - FOOTER_H, id="content", showBoundary=0)
    template.addPageTemplates([PageTemplate(id="a4", frames=[frame])])
    maker = partial(
        _PageCanvas,
        letterhead=letterhead,
        generated_at=generated_at if generated_at is not None else local_now(),
    )
    template.build(story, canvasmaker=maker)
    return buffer.getvalue()
