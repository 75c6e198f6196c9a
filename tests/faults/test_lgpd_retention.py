"""Fault suite: retention and anonymisation (issue 17, item 17), on SQLite and PostgreSQL.

Today is 01/12/2026 and the window is the setting's 5 years (from 01/12/2021). People whose last
permit, application or process ended before the window are anonymised (data replaced, documents,
photos and scans deleted, the audit trail told why without repeating the values); anybody with
anything inside the window is never touched.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from sqlalchemy import func, select, update
from tests_helpers import existing_register, valid_cpf  # type: ignore[import-not-found]

from motodesk.models import (
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
)
from motodesk.rules.common import PermitState, Role, ServiceType
from motodesk.rules.dossier import DocumentKind
from motodesk.services import auth, retention
from motodesk.services.context import AppContext
from motodesk.services.errors import PermissionDeniedError
from motodesk.services.settings import law_settings
from motodesk.services.text import fold

TODAY = date(2026, 12, 1)
LONG_AGO = datetime(2012, 1, 5, 12, tzinfo=UTC)
ROOT = Path(__file__).resolve().parents[2]
_seq = iter(range(1, 10_000))


def _person(s, name: str) -> Person:  # noqa: ANN001
    person = Person(full_name=name, name_search=fold(name), cpf=valid_cpf(), birth_date=date(1970, 1, 2),
                    phone="34999990000", address="Rua Velha, 10", mother_name="Ana Antiga Souza")
    s.add(person)
    s.flush()
    for kind in (DocumentKind.CRIMINAL, DocumentKind.MEDICAL, DocumentKind.CNH):
        s.add(PersonDocument(person_id=person.id, kind=kind, number=f"{kind.value}-{person.id}",
                             issue_date=date(2011, 5, 1), result="negative" if kind is DocumentKind.CRIMINAL else None))
    s.flush()
    data = f"%PDF-1.4 scan of {name} 1 0 obj %%EOF".encode()
    sha = hashlib.sha256(data).hexdigest()
    s.add(Blob(sha256=sha, size=len(data), data=data))
    s.flush()
    criminal = s.scalar(select(PersonDocument).where(PersonDocument.person_id == person.id,
                                                     PersonDocument.kind == DocumentKind.CRIMINAL))
    s.add(Attachment(owner_table="person_documents", owner_id=criminal.id, blob_sha256=sha, filename="certidao.pdf",
                     media_type="application/pdf", size=len(data), added_by="atendente"))
    s.add(Photo(person_id=person.id, blob_sha256=sha, captured_by="atendente", source="file", width=354, height=472))
    return person


def _permit(s, person: Person, state: PermitState, issued: date, ended: date | None) -> Permit:  # noqa: ANN001
    n = next(_seq)
    permit = Permit(number=f"MB-{n:04d}/{issued.year}", service_type=ServiceType.MOTOBOY, year=issued.year, seq=n,
                    person_id=person.id, state=state, issued_on=issued, term_end=issued.replace(year=issued.year + 5),
                    certificate_valid_until=issued.replace(year=issued.year + 1), ended_on=ended)
    s.add(permit)
    s.flush()
    return permit


def _notice(s, *, person_id: int | None, cpf: str | None, occurred: datetime, status: str) -> None:  # noqa: ANN001
    n = next(_seq)
    s.add(InfractionNotice(number=f"AI-{n:04d}/{occurred.year}", year=occurred.year, seq=n, infraction_code="30.1.I",
                           article="Art. 30, I", severity="leve", occurred_at=occurred, place="Praça Central",
                           person_id=person_id, offender_kind="holder" if person_id else "unregistered",
                           offender_name="Fulano", offender_cpf=cpf, inspector_login="fiscal",
                           inspector_name="Fiscal", status=status, notified_on=occurred.date(),
                           defence_due=occurred.date(), closed_at=occurred if status == "closed" else None))


@pytest.fixture
def register(ctx: AppContext) -> dict[str, int]:
    with ctx.write() as s:
        existing_register(s)
        old = _person(s, "Velho Sem Vínculo Algum")
        _permit(s, old, PermitState.EXPIRED, date(2010, 3, 1), date(2015, 3, 1))
        s.add(Application(person_id=old.id, service_type=ServiceType.MOTOBOY, state=PermitState.REFUSED,
                          opened_on=date(2010, 1, 10), opened_by="atendente", decided_at=LONG_AGO))
        _notice(s, person_id=old.id, cpf=old.cpf, occurred=datetime(2014, 2, 1, 10, tzinfo=UTC), status="closed")

        in_force = _person(s, "Titular Em Vigor")
        holder_permit = _permit(s, in_force, PermitState.ACTIVE, date(2012, 4, 1), None)

        applicant = _person(s, "Requerente Recente")
        s.add(Application(person_id=applicant.id, service_type=ServiceType.MOTOBOY, state=PermitState.REFUSED,
                          opened_on=date(2024, 5, 2), opened_by="atendente",
                          decided_at=datetime(2024, 6, 1, tzinfo=UTC)))

        offender = _person(s, "Autuado Pelo CPF")
        _notice(s, person_id=None, cpf=offender.cpf, occurred=datetime(2023, 8, 9, 10, tzinfo=UTC), status="closed")

        old_deputy = _person(s, "Preposto Antigo")
        s.add(DeputyLink(permit_id=holder_permit.id, deputy_person_id=old_deputy.id, start_on=date(2012, 5, 1),
                         end_on=date(2016, 1, 1)))
        current_deputy = _person(s, "Preposto Atual")
        s.flush()
        s.add(DeputyLink(permit_id=holder_permit.id, deputy_person_id=current_deputy.id, start_on=date(2016, 2, 1)))
        s.flush()
        ids = {"old": old.id, "in_force": in_force.id, "applicant": applicant.id, "offender": offender.id,
               "old_deputy": old_deputy.id, "current_deputy": current_deputy.id}
    # Everything was registered long ago: only the dates of the facts above tell the window apart.
    with ctx.write() as s:
        existing_register(s)
        for model in (Person, Permit, Application, InfractionNotice, DeputyLink):
            s.execute(update(model).values(created_at=LONG_AGO, updated_at=LONG_AGO))
        s.execute(update(Photo).values(captured_at=LONG_AGO))
        s.execute(update(Attachment).values(added_at=LONG_AGO))
    return ids


def _snapshot(ctx: AppContext) -> dict[int, tuple[object, ...]]:
    with ctx.read() as s:
        people = {p.id: (p.full_name, p.cpf, p.phone, p.address, p.birth_date) for p in s.scalars(select(Person))}
        for pid in people:
            people[pid] += (
                s.scalar(select(func.count()).select_from(PersonDocument).where(PersonDocument.person_id == pid)),
                s.scalar(select(func.count()).select_from(Photo).where(Photo.person_id == pid)),
            )
        return people


def test_only_people_with_nothing_inside_the_window_are_anonymised(ctx: AppContext,
                                                                   register: dict[str, int]) -> None:
    assert law_settings(ctx).retention_years == 5
    before = _snapshot(ctx)
    with ctx.read() as s:
        audit_before = s.scalar(select(func.max(AuditEvent.id)))
        old_cpf = s.get(Person, register["old"]).cpf
        blobs_before = s.scalar(select(func.count()).select_from(Blob))

    report = retention.anonymise_inactive(ctx, today=TODAY)

    assert report.cutoff == date(2021, 12, 1)
    assert report.anonymised == sorted([register["old"], register["old_deputy"]])
    assert report.inside_window == 4
    after = _snapshot(ctx)
    for key in ("in_force", "applicant", "offender", "current_deputy"):
        assert after[register[key]] == before[register[key]], key  # never touched
    for key in ("old", "old_deputy"):
        pid = register[key]
        name, cpf, phone, address, birth, documents, photos = after[pid]
        assert name == f"Pessoa anonimizada nº {pid}" and cpf.startswith("X") and len(cpf) == 11
        assert (phone, address, birth, documents, photos) == (None, None, None, 0, 0)
    with ctx.read() as s:
        assert s.scalar(select(func.count()).select_from(Attachment)
                        .where(Attachment.filename == "certidao.pdf")) == 4  # 6 people, 2 scans deleted
        assert s.scalar(select(func.count()).select_from(Blob)) == blobs_before - 2
        new_audit = list(s.scalars(select(AuditEvent).where(AuditEvent.id > audit_before)))
        assert s.scalar(select(func.count()).select_from(Permit).where(Permit.person_id == register["old"])) == 1
    written = " ".join(a.changes for a in new_audit)
    assert "Velho" not in written and old_cpf not in written and "Rua Velha" not in written
    assert "certidao" not in written and "criminal-" not in written
    why = [a for a in new_audit if "anonimizacao" in a.changes]
    assert sorted(int(a.row_key) for a in why) == report.anonymised and "LGPD" in why[0].changes
    assert {a.table_name for a in new_audit} >= {"people", "person_documents", "photos", "attachments"}
    assert report.kept["Permissões e autorizações"][0] == 1
    assert report.kept["Vínculos de preposto"][0] == 1 and "outro titular" in report.kept["Vínculos de preposto"][1]
    assert report.kept["Autos de infração"][0] == 1
    assert report.kept["Registros da trilha de auditoria"][0] >= 2
    assert report.deleted["Documentos do dossiê"] == 6 and report.deleted["Fotos 3x4"] == 2

    again = retention.anonymise_inactive(ctx, today=TODAY)  # nothing left to do
    assert again.anonymised == [] and again.already_anonymised == 2


def test_a_dry_run_reports_and_changes_nothing(ctx: AppContext, register: dict[str, int]) -> None:
    before = _snapshot(ctx)
    with ctx.read() as s:
        audit_before = s.scalar(select(func.count()).select_from(AuditEvent))
    report = retention.anonymise_inactive(ctx, today=TODAY, dry_run=True)
    assert report.anonymised == sorted([register["old"], register["old_deputy"]])
    assert report.deleted["Digitalizações (anexos)"] == 2
    assert _snapshot(ctx) == before
    with ctx.read() as s:
        assert s.scalar(select(func.count()).select_from(AuditEvent)) == audit_before
    text = retention.render_retention_report(report)
    assert "seriam anonimizadas: 2" in text and "nada foi gravado" in text and "art. 16" in text


def test_a_longer_setting_keeps_everybody(ctx: AppContext, register: dict[str, int]) -> None:
    from motodesk.services.settings import update_settings

    update_settings(ctx, {"retention_years": 20})
    before = _snapshot(ctx)
    assert retention.anonymise_inactive(ctx, today=TODAY).anonymised == []
    assert _snapshot(ctx) == before


def test_only_an_administrator_anonymises(clerk: AppContext, supervisor: AppContext,
                                          register: dict[str, int]) -> None:
    for who in (clerk, supervisor):
        with pytest.raises(PermissionDeniedError):
            retention.anonymise_inactive(who, today=TODAY)


def test_the_anonymise_command_dry_run(ctx: AppContext, register: dict[str, int], db_url: str,
                                       tmp_path: Path) -> None:
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
           "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "MOTODESK_LOG_DIR": str(tmp_path / "log")}
    auth.create_user(ctx, "chefe", "Chefe do Setor", Role.ADMIN, "senha-do-chefe")
    before = _snapshot(ctx)
    run = subprocess.run([sys.executable, "-m", "motodesk", "anonymise", "--older-than-setting", "--dry-run",
                          "--database", db_url, "--user", "chefe"], input="senha-do-chefe\n",
                         capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "Retenção: 5 anos" in run.stdout and "Simulação" in run.stdout
    assert _snapshot(ctx) == before
