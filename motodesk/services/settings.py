"""The secretariat's settings: LawSettings values stored as JSON rows, defaults from the rules."""

from __future__ import annotations

import dataclasses
import json
import typing
from datetime import date
from decimal import Decimal, InvalidOperation
from enum import Enum
from typing import Any

from sqlalchemy import select

from motodesk.models import QuotaCounter, Setting
from motodesk.rules.common import Role, ServiceType
from motodesk.rules.quota import mototaxi_quota
from motodesk.rules.settings import LawSettings, law_bound_problems
from motodesk.services.context import AppContext, requires
from motodesk.services.errors import InvalidInputError

_HINTS = typing.get_type_hints(LawSettings)
FIELDS = {f.name: f for f in dataclasses.fields(LawSettings)}


def _encode(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple):
        return [_encode(v) for v in value]
    return value


def _decode(hint: Any, raw: Any) -> Any:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        if raw is None:
            return None
        inner = [a for a in args if a is not type(None)][0]
        return _decode(inner, raw)
    if origin is tuple:
        return tuple(_decode(args[0], item) for item in raw)
    if hint is Decimal:
        return Decimal(str(raw))
    if hint is date:
        return date.fromisoformat(raw)
    if hint is bool:
        if not isinstance(raw, bool):
            raise ValueError("esperado verdadeiro/falso")
        return raw
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint(raw)
    if hint is int:
        if isinstance(raw, bool) or int(raw) != raw:
            raise ValueError("esperado um número inteiro")
        return int(raw)
    return hint(raw)


def law_settings(ctx: AppContext) -> LawSettings:
    """The settings in force: stored values over the defaults of LawSettings."""
    with ctx.read() as s:
        stored = {row.key: row.value for row in s.scalars(select(Setting))}
    values: dict[str, Any] = {}
    for name in FIELDS:
        if name in stored:
            try:
                values[name] = _decode(_HINTS[name], json.loads(stored[name]))
            except (ValueError, TypeError, InvalidOperation, json.JSONDecodeError):
                continue  # a damaged value falls back to the default; the settings screen shows it
    for name in law_bound_problems(values):
        del values[name]  # stored before the law's bounds were enforced: the law's own period applies
    return LawSettings(**values)


@requires(Role.ADMIN, Role.SUPERVISOR)
def update_settings(ctx: AppContext, changes: dict[str, Any]) -> LawSettings:
    """Validate and store changed settings; the quota follows the population (Art. 10 I)."""
    current = law_settings(ctx)
    unknown = [k for k in changes if k not in FIELDS]
    if unknown:
        raise InvalidInputError(f"Configuração desconhecida: {', '.join(unknown)}.", code="settings.unknown")
    decoded: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for key, value in changes.items():
        try:
            decoded[key] = _decode(_HINTS[key], _encode(value))
        except (ValueError, TypeError, InvalidOperation):
            errors[key] = f"Valor inválido para {FIELDS[key].metadata.get('label', key)}: {value!r}."
    errors.update(law_bound_problems(decoded))  # a period the law fixes is not the Secretariat's to move
    if errors:
        raise InvalidInputError("Corrija as configurações marcadas.", errors)
    try:
        new = dataclasses.replace(current, **decoded)
    except ValueError as exc:
        raise InvalidInputError(str(exc)) from None
    with ctx.write() as s:
        for key, value in decoded.items():
            row = s.get(Setting, key)
            text = json.dumps(_encode(value), ensure_ascii=False)
            if row is None:
                s.add(Setting(key=key, value=text))
            else:
                row.value = text
        if "population" in decoded:
            _sync_quota(s, new)
    return new


def _sync_quota(session: Any, settings: LawSettings) -> None:
    counter = session.get(QuotaCounter, ServiceType.MOTOTAXI)
    places = mototaxi_quota(settings.population)
    if counter is None:
        session.add(QuotaCounter(service_type=ServiceType.MOTOTAXI, places=places, in_force=0))
    else:
        counter.places = places


def ensure_defaults(ctx: AppContext) -> None:
    """Write the default settings and the quota counter once, on a new database.

    A workstation's pre-login role (per-user roles, PostgreSQL) reads no data: the owner wrote them."""
    if not ctx.db.is_sqlite and ctx.db.is_gate:
        return
    defaults = LawSettings()
    with ctx.write() as s:
        existing = set(s.scalars(select(Setting.key)))
        for name in FIELDS:
            if name not in existing:
                s.add(Setting(key=name, value=json.dumps(_encode(getattr(defaults, name)), ensure_ascii=False)))
        s.flush()
        if s.get(QuotaCounter, ServiceType.MOTOTAXI) is None:
            stored = s.get(Setting, "population")
            population = int(json.loads(stored.value)) if stored else defaults.population
            s.add(QuotaCounter(service_type=ServiceType.MOTOTAXI, places=mototaxi_quota(population), in_force=0))
