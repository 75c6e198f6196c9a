"""Text as it goes on paper: pt_BR dates, WinAnsi-safe strings, text fitted to a width.

The badges and documents use the PDF standard fonts (Helvetica), which need no
embedding and whose WinAnsi encoding covers every Portuguese letter (ç ã õ á é í
ó ú â ê ô à ü). A character outside WinAnsi would print as a black box; it is
folded to its unaccented base letter instead (``ő`` → ``o``), or ``?``.
"""

from __future__ import annotations

import unicodedata
from datetime import date, datetime, time
from xml.sax.saxutils import escape

from reportlab.pdfbase.pdfmetrics import stringWidth

from motodesk.clock import LOCAL_TZ

__all__ = [
    "copy_label",
    "fit_font_size",
    "format_date",
    "format_datetime",
    "format_time",
    "markup",
    "split_balanced",
    "winansi",
]

_WINANSI = "cp1252"


def winansi(text: object) -> str:
    """*text* with every character the standard PDF fonts can print; others folded or ``?``.

    Control characters (but not the newline) are dropped.
    """
    text = "" if text is None else str(text)
    try:
        text.encode(_WINANSI)
    except UnicodeEncodeError:
        pass
    else:
        return "".join(ch for ch in text if ch == "\n" or ch >= " ")
    out: list[str] = []
    for ch in unicodedata.normalize("NFC", text):
        if ch != "\n" and ch < " ":
            continue
        try:
            ch.encode(_WINANSI)
        except UnicodeEncodeError:
            base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
            try:
                base.encode(_WINANSI)
            except UnicodeEncodeError:
                base = "?"
            out.append(base or "?")
        else:
            out.append(ch)
    return "".join(out)


def markup(text: object) -> str:
    """User text made safe for a platypus ``Paragraph``: WinAnsi, XML-escaped, newlines kept."""
    return escape(winansi(text)).replace("\n", "<br/>")


def format_date(value: date | None) -> str:
    """dd/mm/aaaa, or an empty string."""
    if value is None:
        return ""
    return f"{value.day:02d}/{value.month:02d}/{value.year:04d}"


def _wall(value: time | datetime) -> time | datetime:
    """An aware moment on the secretariat's wall clock (America/Sao_Paulo)."""
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(LOCAL_TZ)
    return value


def format_time(value: time | datetime) -> str:
    value = _wall(value)
    return f"{value.hour:02d}:{value.minute:02d}"


def format_datetime(value: datetime | None) -> str:
    """dd/mm/aaaa às HH:MM, or an empty string."""
    if value is None:
        return ""
    wall = value.astimezone(LOCAL_TZ) if value.tzinfo is not None else value
    return f"{format_date(wall)} às {format_time(wall)}"


def copy_label(issue_no: int) -> str:
    """1 → "1ª via", 2 → "2ª via" (via is feminine)."""
    return f"{int(issue_no)}ª via"


def fit_font_size(text: str, font: str, max_size: float, width: float, min_size: float) -> float:
    """The largest size ≤ *max_size* at which *text* fits *width* points, but never below *min_size*."""
    natural = stringWidth(text, font, max_size)
    if natural <= width or natural == 0:
        return max_size
    return max(min_size, max_size * width / natural * 0.999)


def split_balanced(text: str) -> tuple[str, str]:
    """Split a line at the word boundary that makes the two halves closest in length."""
    words = text.split()
    if len(words) < 2:
        return text, ""
    best = min(
        range(1, len(words)),
        key=lambda i: abs(len(" ".join(words[:i])) - len(" ".join(words[i:]))),
    )
    return " ".join(words[:best]), " ".join(words[best:])
