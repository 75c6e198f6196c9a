"""Column helpers: enums stored as short strings, portable on SQLite and PostgreSQL."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from sqlalchemy import Enum, String
from sqlalchemy.types import TypeDecorator


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


class DeclaredKind(TypeDecorator[Any]):
    """A document kind stored by value (VARCHAR, as :func:`enum_column` stores it): any kind declared in
    :mod:`motodesk.rules.documents_declared`, so a document a Decree adds needs no schema change."""

    impl = String(24)
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Any) -> str | None:
        from motodesk.rules.dossier import DocumentKind

        return None if value is None else DocumentKind(value).value

    def process_result_value(self, value: Any, dialect: Any) -> Any:
        from motodesk.rules.dossier import DocumentKind

        if value is None:
            return None
        try:
            return DocumentKind(value)
        except ValueError:  # a kind no longer declared: kept as stored, never lost
            return value
