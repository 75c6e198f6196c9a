"""Counting years, months and days (Código Civil art. 132; Lei 9.784/1999 art. 66 § 1º)."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest

from motodesk.rules.periods import (
    add_business_days,
    add_calendar_days,
    add_days,
    add_months,
    add_years,
    completed_months,
    completed_years,
    describe_period,
    is_business_day,
    next_business_day,
)
from motodesk.rules.settings import LawSettings


@pytest.mark.parametrize(
    ("start", "years", "expected"),
    [
        (date(2026, 3, 10), 1, date(2027, 3, 10)),
        (date(2024, 2, 29), 1, date(2025, 3, 1)),  # no 29/02/2025: the day after (CC art. 132 § 3º)
        (date(2024, 2, 29), 4, date(2028, 2, 29)),
        (date(2004, 2, 29), 21, date(2025, 3, 1)),
        (date(2026, 12, 31), 5, date(2031, 12, 31)),
    ],
)
def test_add_years(start: date, years: int, expected: date) -> None:
    assert add_years(start, years) == expected


@pytest.mark.parametrize(
    ("start", "months", "expected"),
    [
        (date(2026, 1, 15), 6, date(2026, 7, 15)),
        (date(2026, 1, 31), 1, date(2026, 3, 1)),  # no 31/02
        (date(2026, 8, 31), 1, date(2026, 10, 1)),  # no 31/09
        (date(2026, 12, 31), 2, date(2027, 3, 1)),
        (date(2026, 10, 10), 6, date(2027, 4, 10)),
    ],
)
def test_add_months(start: date, months: int, expected: date) -> None:
    assert add_months(start, months) == expected


@pytest.mark.parametrize(
    ("start", "on", "years"),
    [
        (date(2005, 3, 10), date(2026, 3, 9), 20),
        (date(2005, 3, 10), date(2026, 3, 10), 21),
        (date(2004, 2, 29), date(2025, 2, 28), 20),
        (date(2004, 2, 29), date(2025, 3, 1), 21),
        (date(2004, 2, 29), date(2024, 2, 29), 20),
        (date(2026, 3, 10), date(2026, 3, 9), -1),
    ],
)
def test_completed_years(start: date, on: date, years: int) -> None:
    assert completed_years(start, on) == years


def test_completed_months_agree_with_years() -> None:
    assert completed_months(date(2004, 2, 29), date(2025, 2, 28)) == 20 * 12 + 11
    assert completed_months(date(2004, 2, 29), date(2025, 3, 1)) == 21 * 12


@pytest.mark.parametrize(
    ("start", "on", "with_days", "text"),
    [
        (date(2005, 4, 10), date(2026, 3, 10), False, "20 anos e 11 meses"),
        (date(2024, 3, 10), date(2026, 3, 9), True, "1 ano, 11 meses e 27 dias"),
        (date(2024, 3, 10), date(2026, 3, 10), True, "2 anos"),
        (date(2026, 3, 1), date(2026, 3, 10), False, "9 dias"),
        (date(2026, 3, 10), date(2026, 3, 10), False, "0 dias"),
        (date(2025, 2, 10), date(2026, 3, 11), True, "1 ano, 1 mês e 1 dia"),
    ],
)
def test_describe_period(start: date, on: date, with_days: bool, text: str) -> None:
    assert describe_period(start, on, with_days=with_days) == text


def test_business_days_know_national_state_and_municipal_holidays() -> None:
    settings = LawSettings(municipal_holidays=(date(2026, 8, 17),))
    assert is_business_day(date(2026, 3, 10), settings)  # Tuesday
    assert not is_business_day(date(2026, 3, 14), settings)  # Saturday
    assert not is_business_day(date(2026, 4, 21), settings)  # Tiradentes
    assert not is_business_day(date(2026, 11, 20), settings)  # Consciência Negra
    assert not is_business_day(date(2026, 8, 17), settings)  # municipal (a Monday)
    assert is_business_day(date(2026, 8, 17), LawSettings())


def test_calendar_days_exclude_the_first_day_and_roll_forward(settings: LawSettings) -> None:
    assert add_calendar_days(date(2026, 3, 10), 5) == date(2026, 3, 15)  # Sunday, no settings: kept
    assert add_calendar_days(date(2026, 3, 10), 5, settings) == date(2026, 3, 16)  # Monday
    assert add_calendar_days(date(2026, 4, 16), 5, settings) == date(2026, 4, 22)  # Tue 21/04 holiday
    no_roll = replace(settings, roll_forward_to_business_day=False)
    assert add_calendar_days(date(2026, 3, 10), 5, no_roll) == date(2026, 3, 15)


def test_business_days_skip_weekends_and_holidays(settings: LawSettings) -> None:
    assert add_business_days(date(2026, 3, 10), 0, settings) == date(2026, 3, 10)
    assert add_business_days(date(2026, 3, 13), 1, settings) == date(2026, 3, 16)  # Fri → Mon
    # 15 business days from Thu 16/04/2026: Tiradentes (21/04) and 1º de maio are skipped.
    assert add_business_days(date(2026, 4, 16), 15, settings) == date(2026, 5, 11)
    with pytest.raises(ValueError):  # the one refusal of add_business_days
        add_business_days(date(2026, 3, 10), -1, settings)


def test_add_days_follows_the_setting(settings: LawSettings) -> None:
    assert add_days(date(2026, 3, 10), 15, settings) == date(2026, 3, 25)
    business = replace(settings, business_days=True)
    assert add_days(date(2026, 3, 10), 15, business) == date(2026, 3, 31)


def test_next_business_day(settings: LawSettings) -> None:
    assert next_business_day(date(2026, 12, 25), settings) == date(2026, 12, 28)
    assert next_business_day(date(2026, 3, 10), settings) == date(2026, 3, 10)


def test_no_yearly_period_is_counted_in_days_or_with_relativedelta() -> None:
    """Código Civil, art. 132, § 3º: every "N anos" of the rules and services is :func:`add_years`.

    365 days is one day short whenever a 29 February falls inside; ``relativedelta`` ends a year
    started on 29 February on the 28th.  Neither may come back.
    """
    import re
    from pathlib import Path

    package = Path(__file__).resolve().parents[2] / "motodesk"
    pattern = re.compile(r"timedelta\(days=365\b|\b365 \* \(|relativedelta\(|_valid_days\b")
    offenders = [
        f"{path.relative_to(package.parent)}:{number}: {line.strip()}"
        for folder in ("rules", "services")
        for path in sorted((package / folder).glob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if pattern.search(line) and "dateutil.relativedelta" not in line
    ]
    assert offenders == []


def test_the_medical_certificate_year_and_the_age_share_add_years() -> None:
    from motodesk.rules.eligibility import medical_valid_until
    from motodesk.rules.settings import LawSettings

    for start in (date(2024, 2, 29), date(2023, 3, 1), date(2025, 7, 31)):
        assert medical_valid_until(start, LawSettings()) == add_years(start, 1)
