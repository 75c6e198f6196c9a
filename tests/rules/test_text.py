"""pt_BR formatting of the verdicts' dates, numbers and money."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from motodesk.rules.evidence import as_clause
from motodesk.rules.text import (
    fold,
    format_brl,
    format_date,
    format_decimal,
    format_int,
    format_ufm,
    join_words,
    parse_day,
    plural,
)


def test_dates_and_numbers() -> None:
    assert format_date(date(2026, 3, 1)) == "01/03/2026"
    assert format_int(89_826) == "89.826"
    assert format_int(1_234_567) == "1.234.567"
    assert format_decimal(Decimal("1234.565")) == "1.234,57"
    assert format_brl(Decimal("500")) == "R$ 500,00"


@pytest.mark.parametrize(("value", "text"), [("5", "5 UFM"), ("1.50", "1,5 UFM"), ("10", "10 UFM")])
def test_ufm(value: str, text: str) -> None:
    assert format_ufm(Decimal(value)) == text


def test_words() -> None:
    assert plural(1, "ano", "anos") == "1 ano"
    assert plural(0, "ano", "anos") == "0 anos"
    assert join_words([]) == ""
    assert join_words(["a"]) == "a"
    assert join_words(["a", "b", "c"]) == "a, b e c"


def test_fold() -> None:
    assert fold("Patrocínio") == "patrocinio"
    assert fold("EMBRIAGUÊZ") == "embriaguez"


@pytest.mark.parametrize(
    ("message", "clause"),
    [
        ("O CPF deve ter 11 dígitos.", "o CPF deve ter 11 dígitos"),
        (
            "CPF inválido: os dígitos verificadores não conferem.",
            "CPF inválido: os dígitos verificadores não conferem",
        ),
        ("Número da CNH inválido.", "número da CNH inválido"),
    ],
)
def test_as_clause(message: str, clause: str) -> None:
    assert as_clause(message) == clause


# -- parse_day: the one dd/mm/aaaa parser (issue 27, item 3) ------------------------------------
@pytest.mark.parametrize(("text", "iso", "expected"), [
    ("01/03/2026", False, date(2026, 3, 1)),
    (" 1/3/2026 ", False, date(2026, 3, 1)),  # strptime's %d/%m took one digit: the admin's fields did
    ("29/02/2024", False, date(2024, 2, 29)),
    ("29/02/2000", False, date(2000, 2, 29)),
    ("2026-03-01", True, date(2026, 3, 1)),  # the commands and the settings also take ISO
])
def test_parse_day_reads_what_the_old_copies_read(text: str, iso: bool, expected: date) -> None:
    assert parse_day(text, iso=iso) == expected


@pytest.mark.parametrize(("text", "iso"), [
    ("31/02/2026", True),
    ("29/02/2026", True),
    ("29/02/1900", True),  # not a leap year
    ("00/01/2026", True),
    ("01/13/2026", True),
    ("1/3/26", True),  # a two-digit year: the settings' split("/") read it as the year 26
    ("01/03/02026", True),
    ("01-03-2026", True),
    ("2026-03-01", False),  # ISO only where asked for
    ("20260301", True),  # date.fromisoformat took it; nobody types it
    ("2026-W09-7", True),
    ("+1/3/2026", True),  # int() took the sign
    ("٠١/٠٣/٢٠٢٦", True),  # other scripts' digits
    ("", True),
])
def test_parse_day_refuses_what_is_no_typed_date(text: str, iso: bool) -> None:
    with pytest.raises(ValueError):
        parse_day(text, iso=iso)


def test_the_quick_path_still_finds_every_printable_hidden_character() -> None:
    """Issue 28: a printable text skips the character walk unless it holds one of the listed characters
    that are printable yet show nothing (Hangul fillers, Khmer inherent vowels, the grapheme joiner)."""
    from motodesk.rules.text import INVISIBLE, name_problem, text_problem

    assert text_problem("Maria da Conceição") is None and name_problem("João Pereira") is None
    for ch in sorted(INVISIBLE):
        assert text_problem(f"Jo{ch}ão") is not None, hex(ord(ch))
    assert text_problem("Ana\u202eSilva") is not None and text_problem("Ana\x07") is not None
    assert name_problem("Jose\u0301 Silva") is not None  # not composed: a Latin letter and a loose mark
