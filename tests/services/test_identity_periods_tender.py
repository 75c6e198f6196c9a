"""Issue 16, items 2, 9 and 13 through the services, on SQLite and PostgreSQL.

* Art. 6º, § 1º and Art. 7º: a tied person's CPF never changes, the name only by a supervisor.
* Código Civil, art. 132, § 3º: the medical certificate's year is a year; the 30 days of Art. 5º, § 2º
  run to the day the certificate was presented.
* Art. 6º and Art. 10, I: the mototáxi dossier says up front whether the applicant is a called candidate.
"""

from __future__ import annotations

import dataclasses
import io
from datetime import date, timedelta
from pathlib import Path

import pytest
from permit_factory import make_dossier  # type: ignore[import-not-found]
from PIL import Image
from sqlalchemy import select
from tests_helpers import check_wording, existing_register, raises_code, raises_rule, valid_cpf  # type: ignore[import-not-found]

from motodesk.models import Attachment, DeputyLink, Permit, Person, PersonDocument, Tender
from motodesk.rules.common import PermitState, ServiceType, Status
from motodesk.rules.dossier import DocumentKind
from motodesk.services import applications, people, permits, tenders
from motodesk.services.context import AppContext
from motodesk.services.errors import InvalidInputError, PermissionDeniedError

TODAY = date.today()


def scan() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (200, 280), (250, 250, 245)).save(buffer, "PNG")
    return buffer.getvalue()


def _issue(supervisor: AppContext, application_id: int) -> permits.IssuedPermit:
    permits.approve(supervisor, application_id, "1.234/2026", TODAY - timedelta(days=1))
    return permits.issue(supervisor, application_id)


# --- item 2: personal and non-transferable --------------------------------------------------------


def test_a_holders_cpf_cannot_change_on_the_dossier_save(ctx: AppContext, clerk: AppContext,
                                                          supervisor: AppContext) -> None:
    dossier = make_dossier(ctx, ServiceType.MOTOBOY)
    issued = _issue(supervisor, dossier.application_id)
    stored = people.get_dossier(clerk, dossier.person_id)
    new_cpf = valid_cpf()
    for who in (clerk, supervisor):
        with pytest.raises(InvalidInputError) as info:
            people.save_dossier(who, dataclasses.replace(stored.person, cpf=new_cpf), person_id=dossier.person_id,
                                person_version=stored.version)
        assert "Art. 6º, § 1º; Art. 7º" in info.value.fields["cpf"] and issued.number in info.value.fields["cpf"]
        with raises_code(InvalidInputError, "invalid_input", fields=("cpf",)):
            people.save_person(who, dataclasses.replace(stored.person, cpf=new_cpf), person_id=dossier.person_id)
    with ctx.read() as s:
        assert s.scalar(select(Person.cpf).where(Person.id == dossier.person_id)) == dossier.cpf
    # Other fields still save.
    people.save_dossier(clerk, dataclasses.replace(stored.person, phone="(34) 99876-5432"),
                        person_id=dossier.person_id, person_version=stored.version)
    assert people.get_dossier(clerk, dossier.person_id).person.phone == "(34) 99876-5432"


@pytest.mark.parametrize("tie", ["open_application", "suspended_permit", "deputy"])
def test_every_tie_locks_the_cpf_and_the_name(ctx: AppContext, clerk: AppContext, supervisor: AppContext,
                                              tie: str) -> None:
    dossier = make_dossier(ctx, ServiceType.MOTOBOY)
    person_id = dossier.person_id
    if tie == "suspended_permit":
        issued = _issue(supervisor, dossier.application_id)
        with ctx.write() as s:
            existing_register(s)
            s.get(Permit, issued.id).state = PermitState.SUSPENDED
    elif tie == "deputy":
        holder = make_dossier(ctx, ServiceType.MOTOBOY, name="Rogério Campos Dias")
        issued = _issue(supervisor, holder.application_id)
        with ctx.write() as s:
            existing_register(s)
            from motodesk.models import Application

            s.get(Application, dossier.application_id).state = PermitState.REFUSED
            s.add(DeputyLink(permit_id=issued.id, deputy_person_id=person_id, start_on=TODAY))
    assert people.identity_locks(clerk, person_id)
    stored = people.get_dossier(clerk, person_id)
    with pytest.raises(InvalidInputError) as info:
        people.save_dossier(clerk, dataclasses.replace(stored.person, cpf=valid_cpf(), full_name="Outro Nome Qualquer"),
                            person_id=person_id, person_version=stored.version)
    assert set(info.value.fields) == {"cpf", "full_name"}
    assert "Alterar nome" in info.value.fields["full_name"]


def test_once_the_tie_ends_the_dossier_may_correct_the_cpf(ctx: AppContext, clerk: AppContext) -> None:
    dossier = make_dossier(ctx, ServiceType.MOTOBOY)
    with ctx.write() as s:
        existing_register(s)
        from motodesk.models import Application

        s.get(Application, dossier.application_id).state = PermitState.REFUSED
    assert people.identity_locks(clerk, dossier.person_id) == []
    stored = people.get_dossier(clerk, dossier.person_id)
    new_cpf = valid_cpf()
    people.save_dossier(clerk, dataclasses.replace(stored.person, cpf=new_cpf), person_id=dossier.person_id,
                        person_version=stored.version)
    assert people.get_dossier(clerk, dossier.person_id).person.cpf == new_cpf


def test_a_name_change_needs_a_supervisor_a_reason_and_a_document(ctx: AppContext, clerk: AppContext,
                                                                   supervisor: AppContext) -> None:
    dossier = make_dossier(ctx, ServiceType.MOTOBOY, name="Maria Aparecida Souza")
    issued = _issue(supervisor, dossier.application_id)
    with pytest.raises(PermissionDeniedError):
        people.change_name(clerk, dossier.person_id, "Maria Aparecida Souza Lima", "Casamento", "certidao.png", scan())
    with pytest.raises(InvalidInputError) as info:
        people.change_name(supervisor, dossier.person_id, "Maria Aparecida Souza Lima", "  ", "certidao.png", b"")
    assert set(info.value.fields) == {"reason", "document"}
    with raises_code(InvalidInputError, "invalid_input", fields=("document",)):
        people.change_name(supervisor, dossier.person_id, "Maria Aparecida Souza Lima", "Casamento", "c.pdf",
                           b"texto qualquer")
    assert people.get_dossier(clerk, dossier.person_id).person.full_name == "Maria Aparecida Souza"

    change = people.change_name(supervisor, dossier.person_id, "Maria Aparecida  Souza Lima",
                                "Casamento, certidão nº 123", "certidao.png", scan())
    assert (change.old_name, change.new_name, change.by_user) == ("Maria Aparecida Souza",
                                                                 "Maria Aparecida Souza Lima", "supervisor")
    assert people.get_dossier(clerk, dossier.person_id).person.full_name == "Maria Aparecida Souza Lima"
    assert [c.new_name for c in people.name_changes(clerk, dossier.person_id)] == ["Maria Aparecida Souza Lima"]
    with ctx.read() as s:
        attachment = s.get(Attachment, change.attachment_id)
        assert (attachment.owner_table, attachment.owner_id, attachment.filename) == (
            "people", dossier.person_id, "certidao.png")
        assert s.scalar(select(Person.name_search).where(Person.id == dossier.person_id)) == \
            "maria aparecida souza lima"
    # The permit's history shows it; the permit is the same, in force, for the same person.
    steps = permits.history(clerk, "permit", issued.id)
    step = next(e for e in steps if e.transition == "change_name")
    assert step.from_state is step.to_state is PermitState.ACTIVE and step.by_user == "supervisor"
    assert "“Maria Aparecida Souza” para “Maria Aparecida Souza Lima”" in (step.reason or "")
    assert "Casamento, certidão nº 123" in (step.reason or "") and "certidao.png" in (step.reason or "")
    assert "Alteração de nome" in step.label


def test_the_import_cannot_rename_a_holder(ctx: AppContext, clerk: AppContext, supervisor: AppContext,
                                           tmp_path: Path) -> None:
    import openpyxl

    from motodesk.exports.importer import TEMPLATE_COLUMNS, TEMPLATE_SHEET, write_template
    from motodesk.services.imports import Outcome, apply_import, preview_import

    def row(cpf: str, name: str) -> dict[str, object]:
        return {"full_name": name, "cpf": f"{cpf[:3]}.{cpf[3:6]}.{cpf[6:9]}-{cpf[9:]}", "service": "Motoboy",
                "birth_date": date(1990, 5, 17)}

    def register(path: Path, rows: list[dict[str, object]]) -> Path:
        write_template(path)
        wb = openpyxl.load_workbook(path)
        ws = wb[TEMPLATE_SHEET]
        keys = {c.header: c.key for c in TEMPLATE_COLUMNS}
        for values in rows:
            ws.append([values.get(keys[c.value]) for c in ws[1]])
        wb.save(path)
        return path

    tied = make_dossier(ctx, ServiceType.MOTOBOY, name="Jonas Pereira Braga")
    free = make_dossier(ctx, ServiceType.MOTOBOY, name="Lucas Teixeira Mendes")
    with ctx.write() as s:
        existing_register(s)
        from motodesk.models import Application

        s.get(Application, free.application_id).state = PermitState.REFUSED
    path = register(tmp_path / "cadastro.xlsx", [
        row(tied.cpf, "Jonas Pereira Braga Neto"),
        row(free.cpf, "Lucas Teixeira Mendes Filho"),
    ])
    preview = preview_import(clerk, path)
    by = {line.line: line for line in preview.lines}
    assert by[2].outcome is Outcome.REFUSED and "Art. 6º, § 1º; Art. 7º" in by[2].reason
    assert "Alterar nome" in by[2].reason
    assert by[3].outcome is not Outcome.REFUSED, by[3].reason
    apply_import(clerk, preview)
    assert people.get_dossier(clerk, tied.person_id).person.full_name == "Jonas Pereira Braga"
    assert people.get_dossier(clerk, free.person_id).person.full_name == "Lucas Teixeira Mendes Filho"


# --- item 9: years of the Civil Code, the presented date --------------------------------------------


def _medical(ctx: AppContext, person_id: int, issued: date, presented: date | None) -> None:
    with ctx.write() as s:
        existing_register(s)
        row = s.scalar(select(PersonDocument).where(PersonDocument.person_id == person_id,
                                                    PersonDocument.kind == DocumentKind.MEDICAL))
        row.issue_date, row.presented_on = issued, presented


def _verdict(clerk: AppContext, person_id: int, service: ServiceType, on: date, rule_id: str,
             homologated: date | None = None) -> Status:
    verdicts = people.check_dossier(clerk, person_id, service, on=on, tender_homologation_date=homologated)
    return next(v for v in verdicts if v.rule_id == rule_id).status


def test_the_medical_certificate_is_valid_for_a_calendar_year_not_365_days(ctx: AppContext,
                                                                            clerk: AppContext) -> None:
    dossier = make_dossier(ctx, ServiceType.MOTOBOY)
    _medical(ctx, dossier.person_id, date(2023, 3, 1), None)
    # 01/03/2023 + 1 year = 01/03/2024 (366 days later: 2024 is a leap year).
    assert _verdict(clerk, dossier.person_id, ServiceType.MOTOBOY, date(2024, 3, 1), "art5_vii_medical") is Status.MET
    assert _verdict(clerk, dossier.person_id, ServiceType.MOTOBOY, date(2024, 3, 2),
                    "art5_vii_medical") is Status.NOT_MET
    _medical(ctx, dossier.person_id, date(2024, 2, 29), None)
    assert _verdict(clerk, dossier.person_id, ServiceType.MOTOBOY, date(2025, 3, 1), "art5_vii_medical") is Status.MET


def test_the_presented_date_is_saved_through_the_dossier(ctx: AppContext, clerk: AppContext) -> None:
    dossier = make_dossier(ctx, ServiceType.MOTOBOY)
    stored = people.get_dossier(clerk, dossier.person_id)
    record = stored.documents[DocumentKind.MEDICAL]
    medical = dataclasses.replace(record.data, issue_date=TODAY - timedelta(days=6),
                                  presented_on=TODAY - timedelta(days=3))
    people.save_dossier(clerk, stored.person, [medical], person_id=dossier.person_id, person_version=stored.version,
                        document_versions={DocumentKind.MEDICAL: record.version})
    assert people.get_dossier(clerk, dossier.person_id).document(DocumentKind.MEDICAL).presented_on == \
        TODAY - timedelta(days=3)
    with pytest.raises(InvalidInputError) as info:
        people.save_dossier(clerk, stored.person, [dataclasses.replace(medical, presented_on=TODAY - timedelta(days=7))],
                            person_id=dossier.person_id)
    assert "medical.presented_on" in info.value.fields


def test_the_30_days_after_homologation_check_the_presented_date(ctx: AppContext, clerk: AppContext,
                                                                 supervisor: AppContext) -> None:
    from motodesk.rules.eligibility import tender_medical_deadline
    from motodesk.rules.settings import LawSettings

    dossier = make_dossier(ctx, ServiceType.MOTOTAXI)
    homologated = TODAY - timedelta(days=45)
    deadline = tender_medical_deadline(homologated, LawSettings())  # 30 days (to a business day)
    with ctx.write() as s:
        existing_register(s)
        s.scalar(select(Tender)).homologated_on = homologated
    # Issued before the homologation, presented on the last day: in time.
    _medical(ctx, dossier.person_id, homologated - timedelta(days=20), deadline)
    assert _verdict(clerk, dossier.person_id, ServiceType.MOTOTAXI, TODAY, "art5_vii_medical") is Status.MET
    # Issued within the window, presented the day after the last: late.
    _medical(ctx, dossier.person_id, homologated + timedelta(days=10), deadline + timedelta(days=1))
    assert _verdict(clerk, dossier.person_id, ServiceType.MOTOTAXI, TODAY, "art5_vii_medical") is Status.NOT_MET
    with raises_rule("art5_vii_medical"):
        permits.approve(supervisor, dossier.application_id, "7/2026", TODAY)
    _medical(ctx, dossier.person_id, homologated + timedelta(days=10), deadline)
    permits.approve(supervisor, dossier.application_id, "7/2026", TODAY)


# --- item 13: the tender up front ---------------------------------------------------------------


def test_the_mototaxi_dossier_says_whether_the_applicant_is_a_called_candidate(ctx: AppContext, clerk: AppContext,
                                                                             supervisor: AppContext) -> None:
    called = make_dossier(ctx, ServiceType.MOTOTAXI)
    verdicts = people.check_dossier(clerk, called.person_id, ServiceType.MOTOTAXI)
    tender = next(v for v in verdicts if v.rule_id == "art6_tender")
    assert tender.status is Status.MET and tender.article == "Art. 6º; Art. 10, I"
    assert all(v.status is Status.MET for v in verdicts)  # complete, and approval agrees
    _issue(supervisor, called.application_id)

    waiting = make_dossier(ctx, ServiceType.MOTOTAXI, name="Ana Beatriz Figueira", candidate_status="waiting")
    verdicts = people.check_dossier(clerk, waiting.person_id, ServiceType.MOTOTAXI)
    assert next(v for v in verdicts if v.rule_id == "art6_tender").status is Status.NOT_MET
    check_wording("art6_tender", next(v for v in verdicts if v.rule_id == "art6_tender").message)
    with raises_rule("tender"):
        permits.approve(supervisor, waiting.application_id, "8/2026", TODAY)

    outsider = make_dossier(ctx, ServiceType.MOTOTAXI, name="Caio Henrique Prado", candidate_status=None)
    standing = tenders.tender_standing(clerk, outsider.person_id)
    assert standing.candidate is None and standing.verdict.status is Status.NOT_MET
    check_wording("art6_tender", standing.verdict.message)  # the waiting candidate's tender is still calling
    # Motoboy and moto-frete have no tender: no such requirement.
    assert not any(v.rule_id == "art6_tender"
                   for v in people.check_dossier(clerk, outsider.person_id, ServiceType.MOTOBOY))
    # The letter of what is missing lists it with its article.
    pdf = applications.pending_letter(clerk, outsider.person_id, ServiceType.MOTOTAXI)
    assert pdf.startswith(b"%PDF")


def test_no_tender_at_all_is_said_plainly(ctx: AppContext, clerk: AppContext) -> None:
    outsider = make_dossier(ctx, ServiceType.MOTOTAXI, candidate_status=None)
    with ctx.read() as s:
        assert s.scalar(select(Tender)) is None
    verdict = tenders.tender_standing(clerk, outsider.person_id).verdict
    assert verdict.status is Status.NOT_MET and verdict.rule_id == "art6_tender"
    check_wording(verdict.rule_id, verdict.message)
