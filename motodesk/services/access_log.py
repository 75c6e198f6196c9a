"""The LGPD access log: every read of a criminal or medical record, of their scans and of a dossier.

The services that read such data call :func:`record_access` inside their own transaction (the read
and its record commit together, or neither does): :func:`motodesk.services.people.get_dossier`,
:func:`~motodesk.services.people.get_person` and :func:`~motodesk.services.people.check_dossier`
(a whole dossier: one ``dossier`` record), :func:`motodesk.services.attachments.attachment_content`
(a scan of the criminal certificates or of the medical certificate: ``criminal_scan`` /
``medical_scan``) and the deadlines export of :mod:`motodesk.services.reports` (the dates of
medical and criminal certificates of each person listed: ``medical`` / ``criminal``).

An administrator lists the log (:func:`list_access`) and exports it (:func:`export_access_log`,
``motodesk access-log``). The table is append-only (triggers of migration 0009 on both databases).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from pathlib import Path

from sqlalchemy import func, insert, select
from sqlalchemy.orm import Session

from motodesk.exports.kinds import LOGGED_AT, USER_LOGIN
from motodesk.exports.xlsx import Column, ExportTargetLocked, SheetSpec, write_workbook
from motodesk.models import AccessRecord, Person
from motodesk.models.base import utcnow
from motodesk.rules.common import Role
from motodesk.rules.text import parse_day as text_parse_day
from motodesk.rules.validators import validate_cpf
from motodesk.services.clock import LOCAL_TZ
from motodesk.services.context import AppContext, CurrentUser, requires
from motodesk.services.errors import InvalidInputError, MotodeskError

DOSSIER = "dossier"
CRIMINAL = "criminal"
MEDICAL = "medical"
CRIMINAL_SCAN = "criminal_scan"
MEDICAL_SCAN = "medical_scan"
KIND_LABELS = {
    DOSSIER: "Dossiê completo",
    CRIMINAL: "Certidões criminais (Art. 5º, XI)",
    MEDICAL: "Atestado médico (Art. 5º, VII)",
    CRIMINAL_SCAN: "Digitalização das certidões criminais",
    MEDICAL_SCAN: "Digitalização do atestado médico",
}
#: Environment variable naming this workstation in the log (else the computer's host name).
ENV_WORKSTATION = "MOTODESK_WORKSTATION"


def workstation() -> str | None:
    name = os.environ.get(ENV_WORKSTATION) or socket.gethostname()
    return name[:128] if name else None


def record_access(s: Session, user: CurrentUser, person_id: int | None, kind: str, *, screen: str,
                  record_key: str | None = None) -> None:
    """Session step: one access record, in the caller's transaction (no role check, no commit)."""
    record_accesses(s, user, [(person_id, kind, record_key)], screen=screen)


def record_accesses(s: Session, user: CurrentUser, reads: Iterable[tuple[int | None, str, str | None]], *,
                    screen: str) -> int:
    """Session step: one record per (person id, kind, record key) read, in one INSERT."""
    now, where = utcnow(), workstation()
    values = [{"at": now, "user_login": user.login, "person_id": person_id, "data_kind": kind,
               "record_key": key, "screen": screen[:64], "workstation": where}
              for person_id, kind, key in reads]
    if values:
        s.execute(insert(AccessRecord), values)
    return len(values)


@dataclass(frozen=True)
class AccessEntry:
    id: int
    at: datetime
    user_login: str
    person_id: int | None
    person_name: str | None
    person_cpf: str | None
    data_kind: str
    record_key: str | None
    screen: str
    workstation: str | None

    @property
    def kind_label(self) -> str:
        return KIND_LABELS.get(self.data_kind, self.data_kind)


def parse_day(text: str) -> date:
    """A dd/mm/aaaa date typed by an administrator."""
    try:
        return text_parse_day(text)
    except ValueError:
        raise InvalidInputError(f"Data inválida: “{text}”. Use dd/mm/aaaa.") from None


@requires(Role.ADMIN)
def list_access(ctx: AppContext, *, person_cpf: str | None = None, since: date | None = None,
                limit: int | None = None, user_login: str | None = None,
                until: date | None = None) -> list[AccessEntry]:
    """The access log, newest first; ``person_cpf`` narrows it to one person, ``user_login`` to whoever
    read, ``since``/``until`` to local days (both included)."""
    stmt = (select(AccessRecord, Person.full_name, Person.cpf)
            .outerjoin(Person, Person.id == AccessRecord.person_id)
            .order_by(AccessRecord.id.desc()))
    if person_cpf is not None:
        cpf = validate_cpf(person_cpf)
        if not cpf.ok:
            raise InvalidInputError(cpf.message or "CPF inválido.", {"cpf": cpf.message or "CPF inválido."})
        stmt = stmt.where(Person.cpf == cpf.value)
    if since is not None:
        stmt = stmt.where(AccessRecord.at >= datetime.combine(since, time(), tzinfo=LOCAL_TZ))
    if until is not None:
        stmt = stmt.where(AccessRecord.at < datetime.combine(until + timedelta(days=1), time(), tzinfo=LOCAL_TZ))
    if user_login:
        stmt = stmt.where(func.lower(AccessRecord.user_login) == user_login.strip().lower())
    if limit is not None:
        stmt = stmt.limit(limit)
    with ctx.read() as s:
        return [AccessEntry(r.id, r.at, r.user_login, r.person_id, name, cpf_, r.data_kind, r.record_key, r.screen,
                            r.workstation) for r, name, cpf_ in s.execute(stmt)]


ACCESS_LOG_SHEET = SheetSpec(
    title="Registro de acessos a dados pessoais sensíveis (LGPD)",
    sheet_name="Acessos",
    columns=(
        LOGGED_AT,
        USER_LOGIN,
        Column("person_name", "Pessoa", "text", 34),
        Column("person_cpf", "CPF", "text", 16),
        Column("kind", "Dado acessado", "text", 34),
        Column("record_key", "Registro", "text", 18),
        Column("screen", "Tela ou serviço", "text", 26),
        Column("workstation", "Estação", "text", 18),
    ),
)


@requires(Role.ADMIN)
def export_access_log(ctx: AppContext, path: str | os.PathLike[str], *, person_cpf: str | None = None,
                      since: date | None = None, user_login: str | None = None,
                      until: date | None = None) -> int:
    """Write the (filtered) access log to an xlsx file; returns the number of rows."""
    target = Path(path)
    if target.suffix.lower() != ".xlsx":
        raise InvalidInputError(f"O arquivo deve terminar em .xlsx: “{target.name}”.", code="export.not_xlsx")
    if not target.parent.is_dir():
        raise InvalidInputError(f"A pasta não existe: {target.parent}.", code="export.folder_missing")
    entries = list_access(ctx, person_cpf=person_cpf, since=since, user_login=user_login, until=until)
    rows = [{"at": e.at.astimezone(LOCAL_TZ).replace(tzinfo=None), "user_login": e.user_login,
             "person_name": e.person_name, "person_cpf": e.person_cpf, "kind": e.kind_label,
             "record_key": e.record_key, "screen": e.screen, "workstation": e.workstation} for e in entries]
    exported_at = datetime.now(LOCAL_TZ).replace(tzinfo=None, microsecond=0)
    try:
        return write_workbook(target, [(ACCESS_LOG_SHEET, rows)],
                              exported_by=f"{ctx.user.full_name} ({ctx.user.login})", exported_at=exported_at)
    except ExportTargetLocked as exc:
        raise MotodeskError(str(exc)) from exc
    except OSError as exc:
        raise MotodeskError(f"Não foi possível gravar “{target.name}”: {exc.strerror or exc}.") from exc
