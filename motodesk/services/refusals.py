"""Refusals several services word alike: a form with marked fields, the end of a period that cannot end."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

from motodesk.rules.text import format_date
from motodesk.services.errors import InvalidInputError, MotodeskError


def refuse_marked(errors: Mapping[str, str], doing: str = "salvar") -> None:
    """Refuse a form while any of its fields is marked (field key -> pt_BR reason), before ``doing``."""
    if errors:
        raise InvalidInputError(f"Corrija os campos marcados antes de {doing}.", errors)


def check_period_end(start_on: date, end_on: date | None, on: date, *, code: str, ended: str, early: str,
                     field: str, short: str) -> None:
    """Refuse to end on ``on`` a period (a deputy's link, a stand assignment, an affiliation) that ended
    already — ``ended``, with ``{end}``, under ``code`` — or that began after ``on`` — ``early``, with ``{on}``
    and ``{start}``, ``short`` on ``field``."""
    if end_on is not None:
        raise MotodeskError(ended.format(end=format_date(end_on)), code=code)
    if on < start_on:
        raise InvalidInputError(early.format(on=format_date(on), start=format_date(start_on)), {field: short})
