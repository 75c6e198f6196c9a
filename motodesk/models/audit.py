"""The audit trail: every insert, update and delete of business data writes one append-only row."""

from __future__ import annotations

import json
from datetime import date, datetime
from decimal import Decimal
from enum import Enum
from typing import Any

from sqlalchemy import event, insert, inspect
from sqlalchemy.orm import Session, UOWTransaction

from motodesk.models.admin import AuditEvent
from motodesk.models.base import utcnow

# Columns whose values never go into the trail (only the fact that they changed).
SECRET_COLUMNS = frozenset({"password_hash"})
# Columns that change on every save and say nothing.
NOISE_COLUMNS = frozenset({"version", "updated_at", "created_at"})
UNAUDITED_TABLES = frozenset({"audit_events", "blobs", "access_log"})  # access_log: its own append-only log
SYSTEM_USER = "sistema"
#: A session whose ``info`` has this key set writes audit rows without old or new values.
REDACT_VALUES = "audit_redact_values"


def _plain(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return f"<{len(bytes(value))} bytes>"
    return str(value)


def _row_key(obj: Any) -> str:
    # Right after the flush a new row has its primary key but not yet its identity key.
    key = inspect(obj).mapper.primary_key_from_instance(obj)
    return ",".join(str(part) for part in key)


def _changes(obj: Any, action: str) -> dict[str, list[Any]]:
    state = inspect(obj)
    diff: dict[str, list[Any]] = {}
    for attr in state.mapper.column_attrs:
        key = attr.key
        if key in NOISE_COLUMNS:
            continue
        if action == "insert":
            value = state.dict.get(key)
            if value is None:
                continue
            old, new = None, value
        elif action == "delete":
            old, new = state.attrs[key].value, None  # may load an expired value: deletes are rare
            if old is None:
                continue
        else:
            hist = state.attrs[key].history
            if not hist.has_changes():
                continue
            old = hist.deleted[0] if hist.deleted else None
            new = hist.added[0] if hist.added else None
            if old == new:
                continue
        if key in SECRET_COLUMNS:
            diff[key] = ["***", "***"]
        else:
            diff[key] = [_plain(old), _plain(new)]
    return diff


def _collect(session: Session) -> list[dict[str, Any]]:
    rows = []
    user = session.info.get("user_login", SYSTEM_USER)
    # LGPD anonymisation (services.retention): record which fields changed, never their values.
    redact = bool(session.info.get(REDACT_VALUES))
    now = utcnow()
    for action, objects in (("insert", session.new), ("update", session.dirty), ("delete", session.deleted)):
        for obj in objects:
            table = getattr(obj, "__tablename__", None)
            if table is None or table in UNAUDITED_TABLES:
                continue
            if action == "update" and not session.is_modified(obj, include_collections=False):
                continue
            diff = _changes(obj, action)
            if action == "update" and not diff:
                continue
            if redact:
                diff = {key: ["***", "***"] for key in diff}
            rows.append({
                "at": now, "user_login": user, "table_name": table, "row_key": "",
                "action": action, "changes": diff, "obj": obj,
            })
    return rows


@event.listens_for(Session, "before_flush")
def _before_flush(session: Session, flush_context: UOWTransaction, instances: Any) -> None:
    # Attribute history is read before the flush resets it; keys of new rows are known only after.
    session.info.setdefault("_audit_pending", []).extend(_collect(session))


@event.listens_for(Session, "after_flush")
def _after_flush(session: Session, flush_context: UOWTransaction) -> None:
    pending = session.info.pop("_audit_pending", [])
    if not pending:
        return
    values = []
    for row in pending:
        obj = row.pop("obj")
        row["row_key"] = _row_key(obj)
        row["changes"] = json.dumps(row["changes"], ensure_ascii=False, sort_keys=True)
        values.append(row)
    session.connection().execute(insert(AuditEvent), values)


@event.listens_for(Session, "after_rollback")
def _after_rollback(session: Session) -> None:
    session.info.pop("_audit_pending", None)
