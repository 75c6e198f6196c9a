"""Issue 30: a document declared once.  A test-only document — a municipal tax clearance certificate,
valid as long as a setting says, for every service — is added by one declaration in a fixture, and is
seen on the dossier screen, in the requirements panel, in the import template and reader, in the people
export and at the document gate; with a transition start date it is a pending item, not a refusal at
printing, and the deadlines view and the call letters list who must bring it; its texts follow the
setting."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import openpyxl
import permit_factory  # type: ignore[import-not-found]
import pytest
from permit_factory import make_dossier, requirement_count  # type: ignore[import-not-found]
from PySide6.QtWidgets import QLabel, QLineEdit
from sqlalchemy import delete, select
from tests_helpers import raises_rule, valid_cpf  # type: ignore[import-not-found]

from motodesk.exports.importer import TEMPLATE_SHEET, template_columns, write_template
from motodesk.models import PersonDocument
from motodesk.rules import documents_declared
from motodesk.rules.common import ServiceType, Status
from motodesk.rules.deadlines import DeadlineKind
from motodesk.rules.documents_declared import DeclaredDocument, DocField, Validity
from motodesk.rules.dossier import DocumentKind
from motodesk.rules.eligibility import ApplicantFacts, check_applicant
from motodesk.rules.settings import LawSettings
from motodesk.services import people, permits, reports
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext
from motodesk.services.errors import RuleViolationError
from motodesk.services.imports import apply_import, preview_import
from motodesk.services.people import DocumentInput, PersonInput
from motodesk.services.settings import update_settings
from motodesk.ui.widgets import DateField

TODAY = local_today()
KIND = "tax_clearance"
VALIDITY = Validity("proof_of_residence_max_days", "days")

TAX_CLEARANCE = DeclaredDocument(
    KIND, "Certidão negativa de débitos municipais", "Art. 5º (Decreto)",
    fields=(DocField("number", "Nº da certidão", column="tax_number", header="Certidão municipal"),
            DocField("issue_date", "Emissão da certidão", "date", column="tax_issued",
                     header="Emissão certidão municipal", reads="past_date")),
    validity=VALIDITY, gate=True,
    note=lambda s: f"Vale por {VALIDITY.text(s)} a partir da emissão.",
    to_bring="Certidão negativa de débitos municipais")


@pytest.fixture
def tax_clearance() -> Iterator[DeclaredDocument]:
    """The one declaration — nothing else of the application is touched."""
    documents_declared.declare(TAX_CLEARANCE)
    yield TAX_CLEARANCE
    documents_declared.undeclare(KIND)


def _verdict(verdicts: list, rule_id: str):  # noqa: ANN001, ANN202
    return next(v for v in verdicts if v.rule_id == rule_id)


# --- the rules: the generic rule of a declared document ----------------------------------------------


def test_the_declared_document_is_one_more_requirement_judged_by_its_declaration(tax_clearance) -> None:  # noqa: ANN001
    settings = LawSettings()
    before = len(check_applicant(ApplicantFacts(), ServiceType.MOTOBOY, TODAY, settings))
    documents_declared.undeclare(KIND)
    assert requirement_count() == before - 1  # the count comes from the declarations
    documents_declared.declare(TAX_CLEARANCE)
    assert requirement_count() == before

    def judge(evidence: documents_declared.DocumentEvidence | None) -> Status:
        facts = ApplicantFacts(declared=((KIND, evidence),) if evidence else ())
        return _verdict(check_applicant(facts, ServiceType.MOTOTAXI, TODAY, settings), "doc_tax_clearance").status

    ev = documents_declared.DocumentEvidence
    assert judge(None) is Status.PENDING
    assert judge(ev(number="CND-1", issue_date=TODAY - timedelta(days=90))) is Status.MET  # the 90th day counts
    assert judge(ev(number="CND-1", issue_date=TODAY - timedelta(days=91))) is Status.NOT_MET
    assert judge(ev(number="CND-1", issue_date=TODAY + timedelta(days=1))) is Status.NOT_MET  # impossible


def test_a_document_for_one_service_is_asked_only_of_it(tax_clearance) -> None:  # noqa: ANN001
    documents_declared.undeclare(KIND)
    from dataclasses import replace

    documents_declared.declare(replace(TAX_CLEARANCE, services=frozenset({ServiceType.MOTOFRETE})))
    rules = {s: {v.rule_id for v in check_applicant(ApplicantFacts(), s, TODAY, LawSettings())} for s in ServiceType}
    assert "doc_tax_clearance" in rules[ServiceType.MOTOFRETE]
    assert "doc_tax_clearance" not in rules[ServiceType.MOTOBOY] | rules[ServiceType.MOTOTAXI]


# --- the dossier screen and the requirements panel -------------------------------------------------


def test_the_dossier_screen_shows_its_box_and_the_panel_judges_it(qtbot, tax_clearance,  # noqa: ANN001
                                                                  clerk: AppContext) -> None:
    from motodesk.ui.app import create_application
    from motodesk.ui.dossier import DossierWindow
    from motodesk.ui.ops import ServiceOp

    saved = people.save_dossier(clerk, PersonInput(full_name="Rosa Amélia Prado", cpf=valid_cpf()),
                                [DocumentInput(DocumentKind(KIND), number="CND-2026/77",
                                               issue_date=TODAY - timedelta(days=120))])
    create_application()
    window = DossierWindow(clerk, saved.person_id)
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: ServiceOp.running() == 0 and window.person_id is not None, timeout=15_000)
    qtbot.waitUntil(lambda: bool(window.verdicts), timeout=15_000)

    row = window.documents[DocumentKind(KIND)]
    assert window.findChild(type(row.box), "doc_tax_clearance") is row.box
    assert set(row.inputs) == {"number", "issue_date"}
    number, issued = row.inputs["number"], row.inputs["issue_date"]
    assert isinstance(number, QLineEdit) and number.text() == "CND-2026/77"
    assert isinstance(issued, DateField) and issued.value() == TODAY - timedelta(days=120)
    note = window.findChild(QLabel, "note_tax_clearance")
    assert note is not None and note.text() == "Vale por 90 dias a partir da emissão."

    # The panel: one line more than without it, and it is not met (120 days > 90).
    assert window.verdict_list.count() == requirement_count()
    verdict = _verdict(window.verdicts, "doc_tax_clearance")
    assert verdict.status is Status.NOT_MET and TAX_CLEARANCE.label in verdict.message
    assert row.box.property("verdict") == "not_met" and TAX_CLEARANCE.label in row.box.title()
    issued.set_value(TODAY - timedelta(days=3))
    window.recheck()
    assert _verdict(window.verdicts, "doc_tax_clearance").status is Status.MET
    assert row.box.property("verdict") == "met"
    assert window.document_inputs()[DocumentKind(KIND)].issue_date == TODAY - timedelta(days=3)
    window._set_base()  # the typed change is not saved: close without the "unsaved" question


def test_its_note_follows_the_setting(qtbot, tax_clearance, clerk: AppContext,  # noqa: ANN001
                                      supervisor: AppContext) -> None:
    from motodesk.ui.app import create_application
    from motodesk.ui.dossier import DossierWindow
    from motodesk.ui.ops import ServiceOp

    update_settings(supervisor, {"proof_of_residence_max_days": 60})
    saved = people.save_dossier(clerk, PersonInput(full_name="Rosa Amélia Prado", cpf=valid_cpf()), [])
    create_application()
    window = DossierWindow(clerk, saved.person_id)
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: ServiceOp.running() == 0 and window.person_id is not None, timeout=15_000)
    assert window.findChild(QLabel, "note_tax_clearance").text() == "Vale por 60 dias a partir da emissão."
    residence = window.findChild(QLabel, "note_residence").text()
    assert "60 dias" in residence and "90 dias" not in residence


# --- the import template and reader, and the people export --------------------------------------------


def test_the_import_template_and_reader_carry_its_columns(tax_clearance, clerk: AppContext,  # noqa: ANN001
                                                          tmp_path: Path) -> None:
    keys = [c.key for c in template_columns()]
    assert "tax_number" in keys and "tax_issued" in keys
    path = tmp_path / "cadastro.xlsx"
    write_template(path)
    wb = openpyxl.load_workbook(path)
    ws = wb[TEMPLATE_SHEET]
    headers = [c.value for c in ws[1]]
    assert "Certidão municipal" in headers and "Emissão certidão municipal" in headers
    by_header = {c.header: c.key for c in template_columns()}
    cpf = valid_cpf()
    values = {"full_name": "Ana Beatriz Couto", "cpf": cpf, "birth_date": date(1985, 3, 14), "sex": "Feminino",
              "service": "Motoboy", "tax_number": "CND-9/2026", "tax_issued": TODAY - timedelta(days=2),
              "nit": "120.5464.678-6"}
    ws.append([values.get(by_header[h]) for h in headers])
    wb.save(path)

    preview = preview_import(clerk, path)
    assert [line.errors for line in preview.lines] == [[]]
    apply_import(clerk, preview)
    with clerk.read() as s:
        stored = {d.kind: d for d in s.scalars(select(PersonDocument))}
    assert stored[DocumentKind(KIND)].number == "CND-9/2026"
    assert stored[DocumentKind(KIND)].issue_date == TODAY - timedelta(days=2)
    assert stored[DocumentKind.INSS].number == "12054646786"


def test_the_people_export_has_its_columns(tax_clearance, clerk: AppContext, supervisor: AppContext,  # noqa: ANN001
                                           tmp_path: Path) -> None:
    people.save_dossier(clerk, PersonInput(full_name="Ana Beatriz Couto", cpf=valid_cpf()),
                        [DocumentInput(DocumentKind(KIND), number="CND-9/2026", issue_date=TODAY),
                         DocumentInput(DocumentKind.INSS, number="12054646786")])
    out = tmp_path / "pessoas.xlsx"
    reports.export(supervisor, "people", out)
    rows = [[c.value for c in row] for row in openpyxl.load_workbook(out).worksheets[0].iter_rows()]
    header = next(r for r in rows if "Nome completo" in r)
    ana = next(r for r in rows if "Ana Beatriz Couto" in r)
    assert ana[header.index("Certidão municipal")] == "CND-9/2026"
    assert ana[header.index("Emissão certidão municipal")].date() == TODAY
    assert ana[header.index("NIT/PIS")] == "12054646786"


# --- the document gate, and the transition of a requirement added later -------------------------------


def _issued(ctx: AppContext, supervisor: AppContext):  # noqa: ANN202
    dossier = make_dossier(ctx, ServiceType.MOTOBOY)  # the complete applicant brings the new document too
    permits.approve(supervisor, dossier.application_id, "4.883/2026", TODAY)
    return dossier, permits.issue(supervisor, dossier.application_id)


def _drop_document(ctx: AppContext, person_id: int) -> None:
    with ctx.write() as s:
        s.execute(delete(PersonDocument).where(PersonDocument.person_id == person_id,
                                               PersonDocument.kind == DocumentKind(KIND)))


def test_the_gate_refuses_to_print_without_it(tax_clearance, ctx: AppContext, clerk: AppContext,  # noqa: ANN001
                                              supervisor: AppContext) -> None:
    dossier, issued = _issued(ctx, supervisor)
    assert permits.registration_certificate_pdf(clerk, issued.id).startswith(b"%PDF")
    _drop_document(ctx, dossier.person_id)
    with raises_rule("doc_tax_clearance"):
        permits.registration_certificate_pdf(clerk, issued.id)


def test_before_its_start_date_it_is_pending_not_a_refusal(tax_clearance, ctx: AppContext,  # noqa: ANN001
                                                           clerk: AppContext, supervisor: AppContext) -> None:
    from motodesk.services import deadlines

    dossier, issued = _issued(ctx, supervisor)
    _drop_document(ctx, dossier.person_id)  # a holder registered before the Decree added it
    start = TODAY + timedelta(days=40)
    update_settings(supervisor, {"requirement_starts": (f"{KIND}={start:%d/%m/%Y}",)})
    assert permits.registration_certificate_pdf(clerk, issued.id).startswith(b"%PDF")  # not refused
    verdict = _verdict(people.check_dossier(clerk, dossier.person_id, ServiceType.MOTOBOY), "doc_tax_clearance")
    assert verdict.status is Status.PENDING and start.strftime("%d/%m/%Y") in verdict.message  # from when

    # The deadlines view lists who must bring it, due on the start date.
    rows = deadlines.deadlines(clerk, deadlines.DeadlineFilter(horizon_days=60))
    due = [r for r in rows if r.kind is DeadlineKind.NEW_DOCUMENT]
    assert [(r.person_id, r.deadline.due, r.detail) for r in due] == [(dossier.person_id, start, TAX_CLEARANCE.label)]
    assert deadlines.deadlines(clerk, deadlines.DeadlineFilter(horizon_days=30)) == [
        r for r in deadlines.deadlines(clerk, deadlines.DeadlineFilter(horizon_days=30))
        if r.kind is not DeadlineKind.NEW_DOCUMENT]  # not yet within 30 days
    # Once the start date is past, its absence refuses printing.
    update_settings(supervisor, {"requirement_starts": (f"{KIND}={TODAY:%d/%m/%Y}",)})
    with pytest.raises(RuleViolationError):
        permits.registration_certificate_pdf(clerk, issued.id)


def test_the_complete_applicant_helper_follows_the_declarations(tax_clearance) -> None:  # noqa: ANN001
    docs = permit_factory.complete_documents(TODAY)
    assert DocumentKind(KIND) in {d.kind for d in docs}
    facts = people.applicant_facts(PersonInput(full_name="X", cpf=valid_cpf()), {d.kind: d for d in docs})
    assert _verdict(check_applicant(facts, ServiceType.MOTOBOY, TODAY, LawSettings()),
                    "doc_tax_clearance").status is Status.MET


def test_the_call_letters_ask_for_it(tax_clearance, supervisor: AppContext, clerk: AppContext) -> None:  # noqa: ANN001
    import io

    from pypdf import PdfReader
    from reports_factory import holder  # type: ignore[import-not-found]

    from motodesk.services import campaigns

    today = local_today()
    holder(supervisor, "Ana Paula Vieira", today=today, issued_on=today - timedelta(days=340))
    opened = campaigns.open_campaign(supervisor, today + timedelta(days=1), today + timedelta(days=30))

    def letter() -> str:
        pdf = campaigns.call_letters(clerk, opened.campaign.id, today=today)
        return " ".join(" ".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages).split())

    assert "Certidão negativa de débitos municipais" not in letter()  # no transition: nothing to bring yet
    start = today + timedelta(days=20)
    update_settings(supervisor, {"requirement_starts": (f"{KIND}={start:%d/%m/%Y}",)})
    text = letter()
    assert "Certidão negativa de débitos municipais" in text and f"{start:%d/%m/%Y}" in text


def test_the_settings_editor_bounds_a_validity_by_the_law(ctx: AppContext) -> None:
    from conftest import user_ctx  # type: ignore[import-not-found]

    from motodesk.rules.common import Role
    from motodesk.services import administration

    by_name = {f.name: f for f in administration.settings_form(user_ctx(ctx, Role.ADMIN))}
    assert by_name["criminal_valid_years"].maximum == 5  # "renovável a cada 05 anos" (Art. 5º, XI)
    assert LawSettings(criminal_valid_years=5).criminal_valid_years == 5
    with pytest.raises(ValueError):  # what each says: tests/rules/test_wording.py
        LawSettings(criminal_valid_years=6)
    with pytest.raises(ValueError):
        LawSettings(requirement_starts=("nao_existe=01/06/2026",))
    assert LawSettings(requirement_starts=("cnh=01/06/2026",)).requirement_start("cnh") == date(2026, 6, 1)


def test_a_withdrawn_declaration_is_no_document_kind_any_more() -> None:
    documents_declared.declare(TAX_CLEARANCE)
    assert DocumentKind(KIND).label == TAX_CLEARANCE.label
    documents_declared.undeclare(KIND)
    with pytest.raises(ValueError):
        DocumentKind(KIND)
    assert DocumentKind("cnh") is DocumentKind.CNH
