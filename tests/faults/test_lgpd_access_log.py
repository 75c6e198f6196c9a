"""Fault suite: the LGPD access log (issue 17, item 16), on SQLite and PostgreSQL.

Every read of a whole dossier, of the scan of a criminal or medical certificate and of the deadlines
export (dates of medical and criminal certificates) writes exactly its access record; other reads
write none; the administrator lists and exports the log; nobody can change or delete it.
"""

from __future__ import annotations

import io
import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path

import openpyxl
import pytest
from reportlab.pdfgen import canvas
from reports_factory import holder  # type: ignore[import-not-found]
from sqlalchemy import select, text
from sqlalchemy.exc import DBAPIError
from tests_helpers import valid_cpf  # type: ignore[import-not-found]

from motodesk.models import APPEND_ONLY_TABLES, AccessRecord
from motodesk.rules.common import Role, ServiceType
from motodesk.rules.dossier import DocumentKind
from motodesk.services import access_log, attachments, auth, people, reports
from motodesk.services.context import AppContext
from motodesk.services.errors import PermissionDeniedError
from motodesk.services.people import DocumentInput, PersonInput

ROOT = Path(__file__).resolve().parents[2]


def _pdf(label: str) -> bytes:
    buffer = io.BytesIO()
    page = canvas.Canvas(buffer)
    page.drawString(72, 720, label)
    page.save()
    return buffer.getvalue()


def _records(ctx: AppContext) -> list[AccessRecord]:
    with ctx.read() as s:
        return list(s.scalars(select(AccessRecord).order_by(AccessRecord.id)))


@pytest.fixture
def dossier(clerk: AppContext) -> dict[str, int]:
    """A person with criminal and medical certificates and a CNH, each with its scan."""
    saved = people.save_dossier(clerk, PersonInput(full_name="Rita de Cássia Moura", cpf=valid_cpf()), [
        DocumentInput(DocumentKind.CRIMINAL, issue_date=date(2025, 1, 10), result="negative"),
        DocumentInput(DocumentKind.MEDICAL, issue_date=date(2025, 6, 2)),
        DocumentInput(DocumentKind.CNH, number="02650306461", categories="A"),
    ])
    ids = {"person": saved.person_id}
    for kind in (DocumentKind.CRIMINAL, DocumentKind.MEDICAL, DocumentKind.CNH):
        ids[kind.value] = attachments.attach_to_document(clerk, saved.person_id, kind, f"{kind.value}.pdf",
                                                         _pdf(kind.value)).attachment.id
    return ids


def test_each_read_path_writes_exactly_its_record(clerk: AppContext, inspector: AppContext,
                                                  dossier: dict[str, int]) -> None:
    pid = dossier["person"]
    assert _records(clerk) == []  # saving and attaching are changes (audited), not reads

    people.get_dossier(clerk, pid, screen="Dossiê")
    (first,) = _records(clerk)
    assert (first.user_login, first.person_id, first.data_kind, first.screen) == ("clerk", pid, "dossier", "Dossiê")
    assert first.workstation and first.at is not None

    people.get_person(inspector, pid)
    people.check_dossier(clerk, pid, ServiceType.MOTOBOY)
    attachments.attachment_content(inspector, dossier["criminal"], screen="Anexos do dossiê")
    attachments.attachment_content(clerk, dossier["medical"])
    attachments.attachment_content(clerk, dossier["cnh"])  # not sensitive: no record
    attachments.person_document_attachments(clerk, pid)  # file names only: no record
    rows = [(r.user_login, r.person_id, r.data_kind, r.record_key, r.screen) for r in _records(clerk)[1:]]
    assert rows == [
        ("inspector", pid, "dossier", f"people:{pid}", "people.get_person"),
        ("clerk", pid, "dossier", f"people:{pid}", "people.check_dossier"),
        ("inspector", pid, "criminal_scan", f"attachments:{dossier['criminal']}", "Anexos do dossiê"),
        ("clerk", pid, "medical_scan", f"attachments:{dossier['medical']}", "attachments.attachment_content"),
    ]


def test_a_refused_read_writes_no_record(clerk: AppContext, dossier: dict[str, int]) -> None:
    from motodesk.services.errors import NotFoundError

    with pytest.raises(NotFoundError):
        people.get_dossier(clerk, dossier["person"] + 1000)
    assert _records(clerk) == []


def test_the_deadlines_export_records_each_person_whose_certificates_it_lists(
        ctx: AppContext, supervisor: AppContext, tmp_path: Path) -> None:
    today = date.today()
    due = holder(ctx, "Joana Prazo Médico", medical_issued=today - timedelta(days=350),
                 criminal_issued=today - timedelta(days=5 * 365 - 20)).holder.person_id
    holder(ctx, "Pedro Sem Prazo")  # certificates fresh: not in the 90-day list
    assert reports.export(supervisor, "deadlines", tmp_path / "prazos.xlsx") >= 2
    rows = sorted((r.person_id, r.data_kind, r.screen) for r in _records(ctx))
    assert rows == [(due, "criminal", "reports.export:deadlines"), (due, "medical", "reports.export:deadlines")]
    reports.export(supervisor, "people", tmp_path / "pessoas.xlsx")  # no medical or criminal data
    assert len(_records(ctx)) == 2


def test_the_administrator_lists_and_exports_the_log(ctx: AppContext, clerk: AppContext,
                                                     dossier: dict[str, int], tmp_path: Path) -> None:
    other = people.save_person(clerk, PersonInput(full_name="Outro Fulano Dias", cpf=valid_cpf())).id
    people.get_dossier(clerk, dossier["person"])
    people.get_dossier(clerk, other)
    with ctx.read() as s:
        cpf = s.scalar(text("SELECT cpf FROM people WHERE id = :i"), {"i": dossier["person"]})
    mine = access_log.list_access(ctx, person_cpf=cpf)
    assert [(e.person_id, e.person_name, e.kind_label) for e in mine] == [
        (dossier["person"], "Rita de Cássia Moura", "Dossiê completo")]
    assert len(access_log.list_access(ctx)) == 2
    assert access_log.list_access(ctx, since=date.today() + timedelta(days=1)) == []
    with pytest.raises(PermissionDeniedError):
        access_log.list_access(clerk)
    out = tmp_path / "acessos.xlsx"
    assert access_log.export_access_log(ctx, out) == 2
    values = [c.value for row in openpyxl.load_workbook(out).active.iter_rows() for c in row]
    assert "Rita de Cássia Moura" in values and "Outro Fulano Dias" in values and "clerk" in values


@pytest.mark.parametrize("statement", ["UPDATE access_log SET user_login = 'ninguem'", "DELETE FROM access_log"])
def test_access_records_cannot_be_changed_or_deleted(clerk: AppContext, dossier: dict[str, int],
                                                     statement: str) -> None:
    people.get_dossier(clerk, dossier["person"])
    assert "access_log" in APPEND_ONLY_TABLES and "audit_events" in APPEND_ONLY_TABLES
    with pytest.raises(DBAPIError, match="append-only"), clerk.db.engine.begin() as conn:
        conn.execute(text(statement))
    (record,) = _records(clerk)
    assert record.user_login == "clerk"


def test_the_access_log_command(ctx: AppContext, clerk: AppContext, dossier: dict[str, int], db_url: str,
                                tmp_path: Path) -> None:
    people.get_dossier(clerk, dossier["person"])
    auth.create_user(ctx, "chefe", "Chefe do Setor", Role.ADMIN, "senha-do-chefe")
    env_path = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
                "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
                "MOTODESK_LOG_DIR": str(tmp_path / "log")}
    out = tmp_path / "log.xlsx"
    run = subprocess.run([sys.executable, "-m", "motodesk", "access-log", "--database", db_url, "--user", "chefe",
                          "--since", date.today().strftime("%d/%m/%Y"), "--out", str(out)],
                         input="senha-do-chefe\n", capture_output=True, text=True, env=env_path, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "1 acesso" in run.stdout and out.exists()
    run = subprocess.run([sys.executable, "-m", "motodesk", "access-log", "--database", db_url, "--user", "chefe",
                          "--since", "31/02/2026"],
                         input="senha-do-chefe\n", capture_output=True, text=True, env=env_path, timeout=120)
    assert run.returncode == 1 and "Data inválida" in run.stderr
