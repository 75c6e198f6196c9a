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
