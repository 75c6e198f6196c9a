"""Column helpers: enums stored as short strings, portable on SQLite and PostgreSQL."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from sqlalchemy import Enum


def enum_column(enum_cls: type[StrEnum], length: int = 24) -> Any:
    """Store a StrEnum by value in a VARCHAR (no native type, so migrations stay simple)."""
    return Enum(
        enum_cls,
        native_enum=False,
        create_constraint=False,
        length=length,
        values_callable=lambda e: [m.value for m in e],
        validate_strings=True,
    )
