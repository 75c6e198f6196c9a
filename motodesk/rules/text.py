"""Portuguese text for verdicts: dates, durations, numbers, accent-free comparison.

Verdict messages are read by clerks and by the holders themselves, so dates are
written ``dd/mm/aaaa``, counts in words ("1 ano", "2 anos") and numbers with the
Brazilian thousands separator ("89.826").
"""

from __future__ import annotations

import unicodedata
from datetime import date
from decimal import ROUND_HALF_UP, Decimal


def format_date(value: date) -> str:
    """``date(2026, 3, 1)`` → ``"01/03/2026"``."""
    return value.strftime("%d/%m/%Y")


def format_int(value: int) -> str:
    """``89826`` → ``"89.826"``."""
    return f"{value:,}".replace(",", ".")


def format_decimal(value: Decimal, places: int = 2) -> str:
    """``Decimal("1234.5")`` → ``"1.234,50"`` (half-up rounding)."""
    quantum = Decimal(1).scaleb(-places)
    text = f"{value.quantize(quantum, rounding=ROUND_HALF_UP):,.{places}f}"
    return text.replace(",", "\x00").replace(".", ",").replace("\x00", ".")


def format_brl(value: Decimal) -> str:
    """``Decimal("500")`` → ``"R$ 500,00"``."""
    return f"R$ {format_decimal(value)}"


def format_ufm(value: Decimal) -> str:
    """``Decimal("5")`` → ``"5 UFM"``; ``Decimal("1.5")`` → ``"1,5 UFM"``."""
    text = format(value.normalize(), "f").replace(".", ",")
    return f"{text} UFM"


def plural(count: int, singular: str, plural_form: str) -> str:
    """``plural(1, "ano", "anos")`` → ``"1 ano"``; ``plural(2, ...)`` → ``"2 anos"``."""
    return f"{count} {singular if count == 1 else plural_form}"


def join_words(parts: list[str]) -> str:
    """``["a", "b", "c"]`` → ``"a, b e c"``."""
    if not parts:
        return ""
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " e " + parts[-1]


def fold(text: str) -> str:
    """Lower case without accents, for comparisons: ``"Patrocínio"`` → ``"patrocinio"``."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()
