"""Retention (LGPD art. 15, I and art. 16): anonymising people the register no longer needs.

A person can be anonymised when, for :attr:`LawSettings.retention_years` years (default 5), the
register has had no business with them: no permit in force nor one issued, ended or changed in the
window; no application open, opened, decided or changed in the window; no infraction process
open or with any date in the window (as the person or by their CPF); no deputy link running into
the window; no tender candidacy waiting or called in the window; and the dossier itself (person,
photos, scans) neither created nor changed in the window. Anybody with anything inside the window
is never touched.

Anonymising (one transaction for the whole run, by an administrator):

* the person's name, CPF (replaced by a unique placeholder that is no CPF), birth date, sex,
  mother's name, phone, e-mail, address, notes are replaced or emptied;
* the dossier's document rows (numbers, issuers, results) are deleted, with their scans, and the
  person's own attachments and 3x4 photos; a stored file no other record uses is deleted;
* the audit trail records every change with the fields named and the values withheld
  (:func:`motodesk.models.audit.redact_values`), plus one row per person saying why.

What is kept, and why, is in the :class:`RetentionReport`: the audit trail (append-only: the
secretariat's legal record of who did what, LGPD art. 16, I), the permits, applications,
infraction notices, deputy links and affiliations that reference the person (the administrative
history of the permits, some of them other people's), vehicles, and tender lists (public records
of the tender).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, time
from typing import Any

from sqlalchemy import Select, delete, func, insert, or_, select, text
from sqlalchemy.orm import Session

from motodesk.models import (
    Affiliation,
    Application,
    Attachment,
    AuditEvent,
    Blob,
    DeputyLink,
    InfractionNotice,
    Permit,
    Person,
    PersonDocument,
    Photo,
    TenderCandidate,
    Vehicle,
    roles,
)
from motodesk.models.audit import redact_values
from motodesk.models.base import utcnow
from motodesk.rules.common import PermitState, Role
from motodesk.services.clock import LOCAL_TZ, local_today
from motodesk.services.context import AppContext, requires
from motodesk.services.settings import law_settings
from motodesk.services.text import fold

LEGAL_BASIS = (
    "LGPD (Lei nº 13.709/2018), art. 15, I, e art. 16: os dados pessoais são eliminados ao fim do "
    "tratamento, conservados apenas os necessários ao cumprimento de obrigação legal ou regulatória "
    "e, anonimizados, para estudo."
)
#: A stored CPF starting with this is an anonymised person's placeholder (no CPF starts with a letter).
ANONYMOUS_CPF_PREFIX = "X"
ANONYMOUS_NAME = "Pessoa anonimizada nº {id}"
_PERSON_FIELDS_CLEARED = ("birth_date", "sex", "mother_name", "phone", "email", "address", "district", "city",
                          "uf", "zip_code", "declares_no_other_permit", "notes")
OPEN_NOTICE_STATUSES = ("open", "decided", "appealed")
PENDING_APPLICATION_STATES = (PermitState.REQUESTED, PermitState.UNDER_REVIEW, PermitState.APPROVED)
IN_FORCE_STATES = (PermitState.ACTIVE, PermitState.SUSPENDED)


def anonymous_cpf(person_id: int) -> str:
    return f"{ANONYMOUS_CPF_PREFIX}{person_id:010d}"[-11:]


def retention_cutoff(today: date, years: int) -> date:
    """The first day inside the window: ``years`` years before ``today`` (29/02 becomes 28/02)."""
    try:
        return today.replace(year=today.year - years)
    except ValueError:
        return today.replace(year=today.year - years, day=28)


@dataclass
class RetentionReport:
    retention_years: int
    cutoff: date
    dry_run: bool
    anonymised: list[int] = field(default_factory=list)
    inside_window: int = 0  # people with something in the window: never touched
    already_anonymised: int = 0
    deleted: dict[str, int] = field(default_factory=dict)  # label -> count
    kept: dict[str, tuple[int, str]] = field(default_factory=dict)  # label -> (count, why)
    legal_basis: str = LEGAL_BASIS


def _ids(s: Session, stmt: Select[Any]) -> set[int]:
    return {i for i in s.scalars(stmt) if i is not None}


def active_person_ids(s: Session, cutoff: date) -> set[int]:
    """Everyone with a permit, application, process or dossier change on or after ``cutoff``."""
    since = datetime.combine(cutoff, time(), tzinfo=LOCAL_TZ)
    active = _ids(s, select(Permit.person_id).where(or_(
        Permit.state.in_(IN_FORCE_STATES), Permit.issued_on >= cutoff, Permit.term_end >= cutoff,
        Permit.ended_on >= cutoff, Permit.updated_at >= since)))
    active |= _ids(s, select(Application.person_id).where(or_(
        Application.state.in_(PENDING_APPLICATION_STATES), Application.decided_at.is_(None),
        Application.opened_on >= cutoff, Application.decided_at >= since, Application.updated_at >= since)))
    notice_in_window = or_(InfractionNotice.status.in_(OPEN_NOTICE_STATUSES), InfractionNotice.closed_at.is_(None),
                           InfractionNotice.occurred_at >= since, InfractionNotice.notified_on >= cutoff,
                           InfractionNotice.closed_at >= since, InfractionNotice.updated_at >= since)
    active |= _ids(s, select(InfractionNotice.person_id).where(notice_in_window))
    offender_cpfs = {cpf for cpf in s.scalars(select(InfractionNotice.offender_cpf).where(notice_in_window)) if cpf}
    if offender_cpfs:
        for chunk in _chunks(sorted(offender_cpfs)):
            active |= _ids(s, select(Person.id).where(Person.cpf.in_(chunk)))
    active |= _ids(s, select(DeputyLink.deputy_person_id).where(or_(
        DeputyLink.end_on.is_(None), DeputyLink.end_on >= cutoff, DeputyLink.updated_at >= since)))
    active |= _ids(s, select(TenderCandidate.person_id).where(or_(
        TenderCandidate.status.in_(("waiting", "called")), TenderCandidate.called_on >= cutoff)))
    waiting_cpfs = set(s.scalars(select(TenderCandidate.cpf).where(or_(
        TenderCandidate.status.in_(("waiting", "called")), TenderCandidate.called_on >= cutoff))))
    for chunk in _chunks(sorted(waiting_cpfs)):
        active |= _ids(s, select(Person.id).where(Person.cpf.in_(chunk)))
    active |= _ids(s, select(Person.id).where(or_(Person.created_at >= since, Person.updated_at >= since)))
    active |= _ids(s, select(Photo.person_id).where(Photo.captured_at >= since))
    active |= _ids(s, select(Attachment.owner_id).where(Attachment.owner_table == "people",
                                                        Attachment.added_at >= since))
    active |= _ids(s, select(PersonDocument.person_id).join(
        Attachment, (Attachment.owner_table == "person_documents") & (Attachment.owner_id == PersonDocument.id))
        .where(Attachment.added_at >= since))
    return active


def _chunks(items: list[str], size: int = 500) -> Iterable[list[str]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def _count(s: Session, stmt: Select[Any]) -> int:
    return int(s.scalar(stmt) or 0)


def _kept(s: Session, ids: list[int]) -> dict[str, tuple[int, str]]:
    history = "histórico administrativo das permissões (Lei nº 4.883/2017), obrigação legal (LGPD art. 16, I)"
    #: label -> (the rows that name the person, why they stay)
    kept_rows: dict[str, tuple[Select[Any], str]] = {
        "Registros da trilha de auditoria": (
            select(func.count(AuditEvent.id)).where(
                AuditEvent.table_name == "people", AuditEvent.row_key.in_([str(i) for i in ids])),
            "a trilha de auditoria é só de acréscimo: é o registro legal de quem fez o quê (LGPD art. 16, I)"),
        "Permissões e autorizações": (_by_person(Permit.id, Permit.person_id, ids), history),
        "Requerimentos": (_by_person(Application.id, Application.person_id, ids), history),
        "Autos de infração": (_by_person(InfractionNotice.id, InfractionNotice.person_id, ids),
                              "processos administrativos (Art. 29 a 35), documentos públicos do processo"),
        "Vínculos de preposto": (_by_person(DeputyLink.id, DeputyLink.deputy_person_id, ids),
                                 "fazem parte do histórico da permissão de outro titular (Art. 14)"),
        "Filiações a organizações": (_by_person(Affiliation.id, Affiliation.person_id, ids), history),
        "Veículos": (_by_person(Vehicle.id, Vehicle.holder_id, ids),
                     "o veículo e suas vistorias são registros do veículo, não dados da pessoa"),
        "Classificações em licitações": (_by_person(TenderCandidate.id, TenderCandidate.person_id, ids),
                                         "lista de classificação publicada do processo licitatório (Art. 6º)"),
    }
    counted = {label: (_count(s, stmt), why) for label, (stmt, why) in kept_rows.items()}
    return {label: value for label, value in counted.items() if value[0]}


def _by_person(row_id: Any, person_column: Any, ids: list[int]) -> Select[Any]:
    """How many rows of a table name one of the people ``ids`` in ``person_column``."""
    return select(func.count(row_id)).where(person_column.in_(ids))


@requires(Role.ADMIN)
def anonymise_inactive(ctx: AppContext, *, dry_run: bool = False, today: date | None = None) -> RetentionReport:
    """Anonymise everyone with no business in the last ``retention_years`` years (see the module)."""
    years = law_settings(ctx).retention_years
    cutoff = retention_cutoff(today or local_today(), years)
    report = RetentionReport(years, cutoff, dry_run)
    with ctx.write() as s:
        redact_values(s)
        everyone: dict[int, str] = {pid: cpf for pid, cpf in s.execute(select(Person.id, Person.cpf))}
        anonymous = {pid for pid, cpf in everyone.items() if cpf.startswith(ANONYMOUS_CPF_PREFIX)}
        active = active_person_ids(s, cutoff) & set(everyone)
        report.already_anonymised = len(anonymous)
        report.inside_window = len(active - anonymous)
        chosen = sorted(set(everyone) - active - anonymous)
        report.anonymised = chosen
        deleted = {"Documentos do dossiê": 0, "Digitalizações (anexos)": 0, "Fotos 3x4": 0, "Arquivos guardados": 0}
        for chunk in (chosen[i:i + 500] for i in range(0, len(chosen), 500)):
            for label, value in _kept(s, chunk).items():
                count, why = report.kept.get(label, (0, value[1]))
                report.kept[label] = (count + value[0], why)
            doc_ids = list(s.scalars(select(PersonDocument.id).where(PersonDocument.person_id.in_(chunk))))
            attachment_filter = or_(
                (Attachment.owner_table == "people") & Attachment.owner_id.in_(chunk),
                (Attachment.owner_table == "person_documents") & Attachment.owner_id.in_(doc_ids or [-1]))
            attachments = list(s.scalars(select(Attachment).where(attachment_filter)))
            photos = list(s.scalars(select(Photo).where(Photo.person_id.in_(chunk))))
            deleted["Documentos do dossiê"] += len(doc_ids)
            deleted["Digitalizações (anexos)"] += len(attachments)
            deleted["Fotos 3x4"] += len(photos)
            if dry_run:
                continue
            shas = {a.blob_sha256 for a in attachments} | {p.blob_sha256 for p in photos}
            for row in [*attachments, *photos, *s.scalars(select(PersonDocument)
                                                           .where(PersonDocument.id.in_(doc_ids or [-1])))]:
                s.delete(row)
            for person in s.scalars(select(Person).where(Person.id.in_(chunk))):
                name = ANONYMOUS_NAME.format(id=person.id)
                person.full_name, person.name_search, person.cpf = name, fold(name), anonymous_cpf(person.id)
                for attr in _PERSON_FIELDS_CLEARED:
                    setattr(person, attr, None)
            s.flush()
            deleted["Arquivos guardados"] += _delete_unused_blobs(s, shas)
            why = (f"sem permissão, requerimento ou processo desde {cutoff:%d/%m/%Y} ({years} anos); "
                   f"{LEGAL_BASIS}")
            bind = s.connection()
            if bind.dialect.name == "postgresql" and roles.enabled(bind):
                # Per-user roles: no user inserts audit rows; the owner's function writes these.
                bind.exec_driver_sql("SELECT motodesk_audit_anonymisation(%s, %s)", (list(chunk), why))
                continue
            now = utcnow()
            s.execute(insert(AuditEvent), [{
                "at": now, "user_login": ctx.user.login, "table_name": "people", "row_key": str(pid),
                "action": "update",
                "changes": json.dumps({"anonimizacao": [None, why]}, ensure_ascii=False, sort_keys=True),
            } for pid in chunk])
        report.deleted = deleted  # a dry run changed nothing: its commit writes nothing
        if chosen and not dry_run and s.get_bind().dialect.name == "sqlite":
            # The names' trigram index (revision 0012) was told of each change by trigger; merging its
            # segments drops the old names' entries from the index, not just marks them deleted.
            s.execute(text("INSERT INTO people_fts(people_fts) VALUES ('optimize')"))
    return report


def _delete_unused_blobs(s: Session, shas: set[str]) -> int:
    """Delete the stored files no attachment or photo refers to any more."""
    if not shas:
        return 0
    used = set(s.scalars(select(Attachment.blob_sha256).where(Attachment.blob_sha256.in_(shas))))
    used |= set(s.scalars(select(Photo.blob_sha256).where(Photo.blob_sha256.in_(shas))))
    unused = sorted(shas - used)
    if unused:
        s.execute(delete(Blob).where(Blob.sha256.in_(unused)))
    return len(unused)


def render_retention_report(report: RetentionReport) -> str:
    """The report in pt_BR, for the terminal."""
    n = len(report.anonymised)
    verb = "seriam anonimizadas" if report.dry_run else "anonimizadas"
    lines = [
        f"Retenção: {report.retention_years} anos (sem permissão, requerimento ou processo desde "
        f"{report.cutoff:%d/%m/%Y}).",
        f"Base legal: {report.legal_basis}",
        f"Pessoas {verb}: {n}.",
        f"Pessoas com permissão, requerimento, processo ou alteração no período (não tocadas): {report.inside_window}.",
        f"Pessoas já anonimizadas antes: {report.already_anonymised}.",
    ]
    if any(report.deleted.values()):
        lines.append("Apagados:" if not report.dry_run else "Seriam apagados:")
        lines += [f"  {label}: {count}" for label, count in report.deleted.items() if count]
    if report.kept:
        lines.append("Mantidos (e por quê):")
        lines += [f"  {label}: {count} — {why}" for label, (count, why) in report.kept.items()]
    if report.dry_run:
        lines.append("Simulação (--dry-run): nada foi gravado.")
    return "\n".join(lines)
