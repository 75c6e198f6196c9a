"""The law's settings as the Administração screen edits them: one field per LawSettings field.

The form is described from the dataclass itself (:func:`settings_form`): each field's type, its
article and label (its ``metadata``), the value in force, the default, whether it is a stand-in
until the Decree (:data:`~motodesk.rules.settings.PLACEHOLDER_FIELDS`) and whether the stored value
is damaged. A field added to :class:`~motodesk.rules.settings.LawSettings` therefore appears on the
screen without touching it.

:func:`save_law_settings` is the administrators' save: the rules judge the new values
(``LawSettings.__post_init__``), a refusal names each field it concerns, and every changed value is
written in one transaction by :func:`motodesk.services.settings.update_settings` (the audit trail
records each setting's old and new value).
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from dataclasses import dataclass
from datetime import date, time
from decimal import Decimal
from enum import Enum
from typing import Any

from sqlalchemy import select

from motodesk.models import Setting
from motodesk.rules.common import Role
from motodesk.rules.settings import PLACEHOLDER_FIELDS, LawSettings
from motodesk.services import settings as settings_service
from motodesk.services.context import AppContext, requires
from motodesk.services.errors import InvalidInputError

#: Form kinds, from a field's type.
BOOL, INT, OPTIONAL_INT, DECIMAL, MONEY, TEXT, TEXTS, DATE, DATES, TIME, TIMES, ENUM, ENUM_SET, OTHER = (
    "bool", "int", "optional_int", "decimal", "money", "text", "texts", "date", "dates", "time", "times", "enum",
    "enum_set", "other")

#: Where each field is shown: the first prefix that matches its name (metadata "group" wins).
GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Município e população (Art. 10, I)", ("municipality", "uf", "population")),
    ("Documentos do requerente (Art. 5º)", ("photo_", "proof_", "medical_", "criminal_", "requirement_", "crlv_")),
    ("Vistorias (Art. 5º, § 6º; Art. 23)", ("inspection_", "reinspection_", "periodic_inspection")),
    ("UFM e multas (Art. 32–34)", ("ufm_", "fine_")),
    ("Penalidades admitidas (Art. 34)", ("penalties_",)),
    ("Prazos do processo (Art. 29, 34)", ("defence_", "appeal_", "repeat_", "business_days", "roll_forward",
                                          "municipal_holidays", "deadline_", "suspension_", "revocation_")),
    ("Tabela de taxas (Art. 6º, § 6º)", ("fee_",)),
    ("Recadastramento anual (Art. 4º, § 1º)", ("campaign_",)),
    ("Verificação do crachá (Art. 13, VI)", ("verifier_",)),
    ("LGPD", ("retention_",)),
)
OTHER_GROUP = "Outras configurações"


@dataclass(frozen=True)
class SettingField:
    """One input of the settings form."""

    name: str
    label: str
    article: str
    group: str
    kind: str
    value: Any
    default: Any
    placeholder: bool
    damaged: bool
    minimum: int | None = None
    maximum: int | None = None
    enum: type[Enum] | None = None


def _group(f: dataclasses.Field[Any]) -> str:
    if "group" in f.metadata:
        return str(f.metadata["group"])
    for label, prefixes in GROUPS:
        if any(f.name == p or f.name.startswith(p if p.endswith("_") else p + "_") for p in prefixes):
            return label
    return OTHER_GROUP


#: The form kind of a plain type hint, and of the items of a ``tuple[...]`` one.
_PLAIN_KINDS: dict[type, str] = {bool: BOOL, int: INT, str: TEXT, date: DATE, time: TIME}
_ITEM_KINDS: dict[type, str] = {date: DATES, time: TIMES, str: TEXTS}


def kind_of(hint: Any, name: str = "") -> tuple[str, type[Enum] | None]:
    """The form kind of a type hint (and the enum of enum kinds)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        if len(inner) == 1 and inner[0] is int:
            return OPTIONAL_INT, None
        return OTHER, None
    if origin is tuple and args:
        return _by_type(_ITEM_KINDS, args[0], ENUM_SET)
    if hint is Decimal:
        return (MONEY if name.endswith("_brl") else DECIMAL), None
    return _by_type(_PLAIN_KINDS, hint, ENUM)


def _by_type(kinds: dict[type, str], hint: Any, enum_kind: str) -> tuple[str, type[Enum] | None]:
    """The kind ``kinds`` gives the very type ``hint`` (a subclass is not that type), else ``enum_kind``
    for an enum, else OTHER."""
    if isinstance(hint, type) and hint in kinds:
        return kinds[hint], None
    if isinstance(hint, type) and issubclass(hint, Enum):
        return enum_kind, hint
    return OTHER, None


def _range(f: dataclasses.Field[Any], kind: str) -> tuple[int | None, int | None]:
    """A spin box's range: metadata ``min``/``max`` when the field declares them, else by its name.
    The rules still judge the value; the range only keeps typing sensible."""
    if kind not in (INT, OPTIONAL_INT):
        return None, None
    name = f.name
    from motodesk.rules.documents_declared import validity_bounds

    legal_bound = validity_bounds().get(name)
    if legal_bound is not None:  # a document's validity: never above the law's bound (documents_declared)
        return 0, legal_bound
    if name.endswith("_month"):
        low, high = 1, 12
    elif name.endswith("_year"):
        low, high = 1900, 2200
    elif name == "population":
        low, high = 0, 100_000_000
    elif name.endswith("_months"):
        low, high = 1, 240
    elif name.endswith("_years"):
        low, high = 0, 100
    elif name.endswith("_days"):
        low, high = 0, 3650
    elif name.endswith("_minutes"):
        low, high = 0, 24 * 60
    elif name.endswith("_per_day"):
        low, high = 0, 10_000
    else:
        low, high = 0, 1_000_000_000
    low = int(f.metadata.get("min", low))
    high = int(f.metadata.get("max", high))
    if kind == OPTIONAL_INT:
        low = max(0, low - 1) if low > 0 else 0  # the spin box's lowest value reads "vazio" (None)
    return low, high


def _damaged(ctx: AppContext) -> set[str]:
    """Keys whose stored value cannot be read (the default is then in force)."""
    hints = typing.get_type_hints(LawSettings)
    with ctx.read() as s:
        stored = {row.key: row.value for row in s.scalars(select(Setting))}
    bad: set[str] = set()
    for name in settings_service.FIELDS:
        if name in stored:
            try:
                settings_service._decode(hints[name], json.loads(stored[name]))
            except (ValueError, TypeError, ArithmeticError, json.JSONDecodeError, KeyError, IndexError):
                bad.add(name)
    return bad


@requires(Role.ADMIN)
def settings_form(ctx: AppContext) -> list[SettingField]:
    """Every field of LawSettings, in declaration order, with its value in force."""
    current = settings_service.law_settings(ctx)
    damaged = _damaged(ctx)
    hints = typing.get_type_hints(LawSettings)
    result: list[SettingField] = []
    for f in dataclasses.fields(LawSettings):
        kind, enum = kind_of(hints[f.name], f.name)
        low, high = _range(f, kind)
        default = f.default if f.default is not dataclasses.MISSING else (
            f.default_factory() if f.default_factory is not dataclasses.MISSING else None)
        result.append(SettingField(
            name=f.name, label=str(f.metadata.get("label", f.name)), article=str(f.metadata.get("article", "")),
            group=_group(f), kind=kind, value=getattr(current, f.name), default=default,
            placeholder=f.name in PLACEHOLDER_FIELDS, damaged=f.name in damaged, minimum=low, maximum=high,
            enum=enum))
    return result


def _refusal(settings: LawSettings, changes: dict[str, Any]) -> str | None:
    try:
        dataclasses.replace(settings, **changes)
    except ValueError as exc:
        return str(exc).removeprefix("Configuração inválida: ")
    except TypeError as exc:
        return f"Valor inválido: {exc}."
    return None


def _field_problems(current: LawSettings, decoded: dict[str, Any]) -> dict[str, str]:
    """The changed fields a refusal concerns, with the rules' message: each field refused on its
    own; else (values refused only together, a fee and its legal basis) each field without which
    the rest would pass; else every changed field."""
    problems = {key: message for key, value in decoded.items()
                if (message := _refusal(current, {key: value})) is not None}
    if problems:
        return problems
    whole = _refusal(current, decoded) or "Valor inválido."
    implicated = [key for key in decoded
                  if _refusal(current, {k: v for k, v in decoded.items() if k != key}) is None]
    return {key: whole for key in (implicated or decoded)}


@requires(Role.ADMIN)
def save_law_settings(ctx: AppContext, changes: dict[str, Any]) -> LawSettings:
    """Judge and store the changed settings in one transaction (audited, old -> new)."""
    unknown = [k for k in changes if k not in settings_service.FIELDS]
    if unknown:
        raise InvalidInputError(f"Configuração desconhecida: {', '.join(unknown)}.", code="settings.unknown")
    if not changes:
        raise InvalidInputError("Nenhuma configuração foi alterada.")
    current = settings_service.law_settings(ctx)
    hints = typing.get_type_hints(LawSettings)
    decoded: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for key, value in changes.items():
        try:
            decoded[key] = settings_service._decode(hints[key], settings_service._encode(value))
        except (ValueError, TypeError, ArithmeticError):
            label = settings_service.FIELDS[key].metadata.get("label", key)
            errors[key] = f"Valor inválido para {label}: {value!r}."
    if errors:
        raise InvalidInputError("Corrija as configurações marcadas.", errors)
    try:
        dataclasses.replace(current, **decoded)
    except ValueError as exc:
        fields = _field_problems(current, decoded)
        raise InvalidInputError(str(exc), fields or None) from None
    return settings_service.update_settings(ctx, decoded)
