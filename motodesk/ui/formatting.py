"""How values look on screen: pt_BR dates, numbers, yes/no (the rules' own formatting, plus None)."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from enum import Enum
from typing import Any

from motodesk.rules import text as rules_text
from motodesk.services.clock import LOCAL_TZ


def format_date(value: date | None) -> str:
    return rules_text.format_date(value) if value else ""


def format_datetime(value: datetime | None) -> str:
    if value is None:
        return ""
    if value.tzinfo is not None:
        value = value.astimezone(LOCAL_TZ)
    return value.strftime("%d/%m/%Y %H:%M")


def format_value(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "Sim" if value else "Não"
    if isinstance(value, datetime):
        return format_datetime(value)
    if isinstance(value, date):
        return format_date(value)
    if isinstance(value, Decimal):
        return rules_text.format_decimal(value)
    if isinstance(value, int):
        return rules_text.format_int(value)
    if isinstance(value, Enum):
        return str(getattr(value, "label", value.value))
    return str(value)
