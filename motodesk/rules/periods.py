"""How the periods of the law are counted.

Lei nº 4.883/2017 speaks of years ("21 anos", "2 anos", "5 anos", "01 ano") and
of days ("15 dias", "5 dias", "30 dias") but does not say how to count them, so
we follow the general rules of Brazilian law:

* **Years** — Código Civil, art. 132, § 3º: "os prazos de meses e anos expiram
  no dia de igual número do de início, ou no imediato, se faltar exata
  correspondência". A period of years started on 29 February therefore ends on
  1 March when the final year is not a leap year; a person born on 29 February
  completes 21 years on 1 March (see :func:`add_years`, :func:`completed_years`).
* **Days** — Código Civil, art. 132, caput: the first day is excluded and the
  last included, so "5 dias" from 10/03 ends on 15/03.
* **Days the law fixes itself** (15 days for a deputy, 5 days for an
  accident, 30 days for the medical certificate) are calendar days
  (:func:`add_calendar_days`).
* **Days of the administrative process** (defence, appeal, re-inspection),
  which the Decree of Art. 34, parágrafo único regulates, are calendar or
  business days according to :attr:`LawSettings.business_days`
  (:func:`add_days`).
* In both cases, when :attr:`LawSettings.roll_forward_to_business_day` is on, a
  deadline falling on a day without office hours moves to the next business
  day (Lei federal nº 9.784/1999, art. 66, § 1º, applied subsidiarily).

Business days are Monday to Friday, except national and Minas Gerais holidays
(``holidays`` package, country ``BR``, subdivision ``MG``) and the municipal
holidays and decreed days off in :attr:`LawSettings.municipal_holidays`.
"""

from __future__ import annotations

from datetime import date, timedelta
from functools import lru_cache

from motodesk.rules.settings import LawSettings
from motodesk.rules.text import join_words, plural


def add_years(start: date, years: int) -> date:
    """``start`` plus whole years; 29 February becomes 1 March in common years (CC art. 132 § 3º)."""
    try:
        return start.replace(year=start.year + years)
    except ValueError:  # 29 February into a common year
        return date(start.year + years, 3, 1)


def add_months(start: date, months: int) -> date:
    """``start`` plus whole months; a missing day moves to the 1st of the next month (CC art. 132 § 3º)."""
    index = start.month - 1 + months
    year, month = start.year + index // 12, index % 12 + 1
    try:
        return date(year, month, start.day)
    except ValueError:  # e.g. 31 March + 1 month: no 31 April
        return date(year + month // 12, month % 12 + 1, 1)


def completed_years(start: date, on: date) -> int:
    """Whole years completed from ``start`` to ``on`` (age, years of licence).

    The n-th year is completed on ``add_years(start, n)``: someone born on
    29/02/2004 is 20 on 28/02/2025 and 21 on 01/03/2025.  Negative when ``on``
    is before ``start``.
    """
    years = on.year - start.year
    if add_years(start, years) > on:
        years -= 1
    return years


def completed_months(start: date, on: date) -> int:
    """Whole months completed from ``start`` to ``on``, counted like :func:`add_months`."""
    months = (on.year - start.year) * 12 + on.month - start.month
    if add_months(start, months) > on:
        months -= 1
    return months


def describe_period(start: date, on: date, *, with_days: bool = False) -> str:
    """The time from ``start`` to ``on`` in words: ``"20 anos e 11 meses"``.

    Counted with :func:`add_months`, so it agrees with :func:`completed_years`
    (``dateutil.relativedelta`` would call 28/02/2025 a full year after
    29/02/2024, against CC art. 132, § 3º).  Days are given when asked, or
    when the period is shorter than a month.
    """
    months = completed_months(start, on)
    days = (on - add_months(start, months)).days
    parts: list[str] = []
    if months // 12:
        parts.append(plural(months // 12, "ano", "anos"))
    if months % 12:
        parts.append(plural(months % 12, "mês", "meses"))
    if days and (with_days or not parts):
        parts.append(plural(days, "dia", "dias"))
    return join_words(parts) if parts else "0 dias"


@lru_cache(maxsize=64)
def _state_holidays(uf: str, year: int) -> frozenset[date]:
    import holidays  # here, not at the top: the models import this module at start-up (issue 20)

    return frozenset(holidays.country_holidays("BR", subdiv=uf, years=year).keys())


def is_business_day(day: date, settings: LawSettings) -> bool:
    """Monday–Friday and not a national, state or municipal holiday."""
    if day.weekday() >= 5:
        return False
    if day in settings.municipal_holidays:
        return False
    return day not in _state_holidays(settings.uf, day.year)


def next_business_day(day: date, settings: LawSettings) -> date:
    """``day`` itself when it is a business day, otherwise the next one."""
    while not is_business_day(day, settings):
        day += timedelta(days=1)
    return day


def add_calendar_days(start: date, days: int, settings: LawSettings | None = None) -> date:
    """``start`` plus ``days`` calendar days (first day excluded, CC art. 132).

    With ``settings`` and ``roll_forward_to_business_day`` on, a result falling
    on a weekend or holiday moves to the next business day.
    """
    due = start + timedelta(days=days)
    if settings is not None and settings.roll_forward_to_business_day:
        due = next_business_day(due, settings)
    return due


def add_business_days(start: date, days: int, settings: LawSettings) -> date:
    """The ``days``-th business day after ``start`` (``start`` itself never counts)."""
    if days < 0:
        raise ValueError("O número de dias úteis não pode ser negativo.")
    due = start
    remaining = days
    while remaining:
        due += timedelta(days=1)
        if is_business_day(due, settings):
            remaining -= 1
    return due


def add_days(start: date, days: int, settings: LawSettings) -> date:
    """A procedural period: business days if ``settings.business_days``, else calendar days."""
    if settings.business_days:
        return add_business_days(start, days, settings)
    return add_calendar_days(start, days, settings)
