"""The backup reminder: the last backup remembered in the settings, the reminder's period, the text
that asks for a new copy when it is due, and the stored files' totals the backups tab shows."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

from sqlalchemy import func, select

from motodesk.models import Setting
from motodesk.models.db import DatabaseError
from motodesk.rules.common import Role
from motodesk.services.backup_format import BackupRecord, BackupResult
from motodesk.services.context import AppContext, requires
from motodesk.services.errors import InvalidInputError, MotodeskError

log = logging.getLogger("motodesk.services.backup")  # one logger for backups, as before the split


SETTING_LAST = "backup_last"
SETTING_REMINDER_DAYS = "backup_reminder_days"
DEFAULT_REMINDER_DAYS = 7


def _remember(ctx: AppContext, result: BackupResult) -> None:
    record = {"at": datetime.now(UTC).isoformat(timespec="seconds"), "by": result.manifest.created_by,
              "file": str(result.path), "size": result.size, "kind": result.manifest.kind}
    try:
        with ctx.write() as s:
            row = s.get(Setting, SETTING_LAST)
            value = json.dumps(record, ensure_ascii=False)
            if row is None:
                s.add(Setting(key=SETTING_LAST, value=value))
            else:
                row.value = value
    except (MotodeskError, DatabaseError) as exc:  # the copy exists; only the reminder misses it
        log.warning("backup written but not recorded: %s", exc)


def last_backup(ctx: AppContext) -> BackupRecord | None:
    with ctx.read() as s:
        row = s.get(Setting, SETTING_LAST)
        raw = row.value if row is not None else None
    if not raw:
        return None
    try:
        data = json.loads(raw)
        return BackupRecord(at=datetime.fromisoformat(data["at"]), by=str(data.get("by", "")),
                            file=str(data.get("file", "")), size=int(data.get("size", 0)),
                            kind=str(data.get("kind", "")))
    except (ValueError, KeyError, TypeError):
        return None


def reminder_days(ctx: AppContext) -> int:
    """Days after which the administrator is reminded to back up (0: never remind)."""
    with ctx.read() as s:
        row = s.get(Setting, SETTING_REMINDER_DAYS)
        raw = row.value if row is not None else None
    try:
        return max(0, int(json.loads(raw))) if raw else DEFAULT_REMINDER_DAYS
    except (ValueError, TypeError):
        return DEFAULT_REMINDER_DAYS


@requires(Role.ADMIN)
def set_reminder_days(ctx: AppContext, days: int) -> None:
    if isinstance(days, bool) or not isinstance(days, int) or not 0 <= days <= 365:
        raise InvalidInputError("O lembrete de cópia de segurança deve ser de 0 (nunca) a 365 dias.",
                                {"days": "Valor inválido."})
    with ctx.write() as s:
        row = s.get(Setting, SETTING_REMINDER_DAYS)
        if row is None:
            s.add(Setting(key=SETTING_REMINDER_DAYS, value=str(days)))
        else:
            row.value = str(days)


def backup_reminder(ctx: AppContext, now: datetime | None = None) -> str | None:
    """The pt_BR reminder for an administrator when the last backup is too old, else None."""
    if ctx.user.role is not Role.ADMIN:
        return None
    days = reminder_days(ctx)
    if days == 0:
        return None
    now = now or datetime.now(UTC)
    last = last_backup(ctx)
    if last is None:
        return ("Nenhuma cópia de segurança deste banco de dados foi registrada. "
                "Faça uma pelo menu Arquivo › Cópia de segurança…")
    age = (now - last.at).days
    if age < days:
        return None
    from babel.dates import format_date

    when = format_date(last.at.date(), "dd/MM/yyyy", locale="pt_BR")
    return (f"A última cópia de segurança é de {when} (há {age} dias; o lembrete é a cada {days}). "
            "Faça uma nova pelo menu Arquivo › Cópia de segurança…")


def blob_totals(ctx: AppContext) -> tuple[int, int]:
    """(count, bytes) of the stored attachments and photos, for the backup dialog."""
    from motodesk.models import Blob

    with ctx.read() as s:
        count, size = s.execute(select(func.count(Blob.sha256), func.coalesce(func.sum(Blob.size), 0))).one()
    return int(count), int(size)
