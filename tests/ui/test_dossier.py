"""The dossier window, driven as a clerk drives it: type, tab, attach, save, meet a conflict."""

from __future__ import annotations

import io
from datetime import date, timedelta
from pathlib import Path

import pytest
from permit_factory import declared_complete, requirement_count  # type: ignore[import-not-found]
from pypdf import PdfReader
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QComboBox, QInputDialog, QLineEdit, QMessageBox
from tests_helpers import (  # type: ignore[import-not-found]
    SCREENSHOTS,  # type: ignore[import-not-found]
    check_wording,
    existing_register,
    valid_cpf,  # type: ignore[import-not-found]
)
from validate_docbr import CNH, PIS, TituloEleitoral

from motodesk.models.db import Database
from motodesk.rules import documents_declared
from motodesk.rules.common import PermitState, Status
from motodesk.rules.dossier import DocumentKind
from motodesk.services import applications, attachments, people
from motodesk.services.context import AppContext
from motodesk.services.people import PersonInput
from motodesk.ui import dossier as dossier_module
from motodesk.ui import pdfpreview
from motodesk.ui.app import create_application
from motodesk.ui.dossier import ConflictDialog, DossierWindow, ReviewDialog
from motodesk.ui.guard import Answer
from motodesk.ui.ops import ServiceOp
from motodesk.ui.widgets import DateField, field_error

ROOT = Path(__file__).resolve().parents[2]

TODAY = date.today()


@pytest.fixture(autouse=True)
def never_block_on_close(monkeypatch: pytest.MonkeyPatch) -> None:
    """A test that leaves typed text behind must not hang on "Salvar antes de fechar?" at teardown."""
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    monkeypatch.setattr(dossier_module, "ask_unsaved", lambda *a, **k: Answer.DISCARD)


def settle(qtbot) -> None:  # noqa: ANN001
    """Wait until every background service call of the window has delivered."""
    qtbot.waitUntil(lambda: ServiceOp.running() == 0, timeout=15_000)


class Boxes:
    """Every message box the window shows, instead of waiting for a click."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.shown: list[tuple[str, str]] = []
        boxes = self

        def exec_(box: QMessageBox) -> int:
            boxes.shown.append((box.windowTitle(), f"{box.text()}\n{box.informativeText()}"))
            return int(QMessageBox.StandardButton.Ok)

        monkeypatch.setattr(QMessageBox, "exec", exec_)
        monkeypatch.setattr(QMessageBox, "information", lambda _p, title, text, *a: boxes.shown.append((title, text)))

    def texts(self) -> str:
        return "\n".join(text for _title, text in self.shown)


def open_window(qtbot, ctx: AppContext, person_id: int | None = None) -> DossierWindow:  # noqa: ANN001
    create_application()
    window = DossierWindow(ctx, person_id)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    settle(qtbot)
    return window


def type_into(qtbot, widget: QLineEdit, text: str) -> None:  # noqa: ANN001
    """Click into the field and type, as a clerk does."""
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(widget, text)


def paste(qtbot, widget: QLineEdit, text: str) -> None:  # noqa: ANN001
    """Type accented text the way a clerk often does: paste it (QTest types only ASCII)."""
    QApplication.clipboard().setText(text)
    widget.setFocus()
    widget.selectAll()
    qtbot.keyClick(widget, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)


def type_date(qtbot, field: DateField, value: date) -> None:  # noqa: ANN001
    """dd/MM/aaaa typed into the field, slashes and all."""
    field.setFocus()
    qtbot.keyClicks(field, value.strftime("%d/%m/%Y"))
    assert field.value() == value
    assert field.text() == value.strftime("%d/%m/%Y")


def type_declared(qtbot, inputs: dict, values: object) -> None:  # noqa: ANN001
    """Type a declared document's values into its box, field by field, by the kind of widget."""
    for name, widget in inputs.items():
        value = getattr(values, name, None)
        if value in (None, ""):
            continue
        if isinstance(widget, DateField):
            type_date(qtbot, widget, value)  # type: ignore[arg-type]
        elif isinstance(widget, QComboBox):
            index = widget.findData(value)
            assert index >= 0, (name, value)
            widget.setCurrentIndex(index)
        else:
            widget.setFocus()
            qtbot.keyClicks(widget, str(value))


def choose(combo: QComboBox, label: str) -> None:
    index = combo.findText(label)
    assert index >= 0, label
    combo.setCurrentIndex(index)


def save_and_wait(qtbot, window: DossierWindow) -> None:  # noqa: ANN001
    # Press only: the save disables the form at once, and QTest's key release to a disabled widget
    # would be "not accepted" (a real keyboard's release is simply dropped).
    qtbot.keyPress(window, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: not window.saving, timeout=10_000)
    settle(qtbot)


def pdf_file(tmp_path: Path) -> Path:
    from reportlab.pdfgen import canvas

    path = tmp_path / "CNH digitalizada.pdf"
    page = canvas.Canvas(str(path))
    page.drawString(72, 720, "CNH")
    page.save()
    return path


def test_invalid_cpf_is_marked_on_the_field_with_the_reason(qtbot, clerk: AppContext) -> None:  # noqa: ANN001
    window = open_window(qtbot, clerk)
    cpf = window.person_inputs["cpf"]
    type_into(qtbot, cpf, "123.456.789-00")
    qtbot.keyClick(cpf, Qt.Key.Key_Tab)
    assert field_error(cpf) == "CPF inválido: os dígitos verificadores não conferem."
    assert window.field_message("cpf") == "CPF inválido: os dígitos verificadores não conferem."
    cpf.clear()
    type_into(qtbot, cpf, valid_cpf())
    qtbot.keyClick(cpf, Qt.Key.Key_Tab)
    assert field_error(cpf) is None and window.field_message("cpf") == ""


def test_the_document_boxes_are_read_again_whenever_a_field_changes(qtbot, clerk: AppContext) -> None:  # noqa: ANN001
    """Issue 28: a box is not read again while its fields hold the same; typed, set by the program or
    chosen in a list, the next read has the new value, and each read is the caller's own."""
    window = open_window(qtbot, clerk)
    row = window.documents[DocumentKind.CNH]
    number = row.inputs["number"]
    assert window.document_inputs()[DocumentKind.CNH].number is None
    mine = window.document_inputs()[DocumentKind.CNH]
    mine.number = "999"  # the caller's own: the form's next read is not changed by it
    assert window.document_inputs()[DocumentKind.CNH].number is None
    type_into(qtbot, number, "12")
    assert window.document_inputs()[DocumentKind.CNH].number == "12"
    number.setText("34046871254")
    assert window.document_inputs()[DocumentKind.CNH].number == "34046871254"
    combo = next(w for w in row.inputs.values() if isinstance(w, QComboBox))
    name = next(n for n, w in row.inputs.items() if w is combo)
    combo.setCurrentIndex(combo.count() - 1)
    assert getattr(window.document_inputs()[DocumentKind.CNH], name) == combo.currentData()
    dates = [(n, w) for n, w in row.inputs.items() if isinstance(w, DateField)]
    assert dates
    dates[0][1].setText("31/02/2020")  # impossible: no date
    assert getattr(window.document_inputs()[DocumentKind.CNH], dates[0][0]) is None
    dates[0][1].setText("28/02/2020")
    assert getattr(window.document_inputs()[DocumentKind.CNH], dates[0][0]) == date(2020, 2, 28)


def test_tab_goes_through_the_personal_data_in_reading_order(qtbot, clerk: AppContext) -> None:  # noqa: ANN001
    window = open_window(qtbot, clerk)
    assert QApplication.focusWidget() is window.person_inputs["full_name"]
    order = []
    for _ in range(13):
        order.append(QApplication.focusWidget().objectName())
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
    assert order == ["full_name", "cpf", "birth_date", "sex", "mother_name", "phone", "email", "address",
                     "district", "city", "uf", "zip_code", "notes"]


def test_cpf_of_someone_else_is_marked_before_saving(qtbot, clerk: AppContext) -> None:  # noqa: ANN001
    cpf = valid_cpf()
    people.save_person(clerk, PersonInput(full_name="Dona Do Número", cpf=cpf))
    window = open_window(qtbot, clerk)
    type_into(qtbot, window.person_inputs["cpf"], cpf)
    qtbot.keyClick(window.person_inputs["cpf"], Qt.Key.Key_Tab)
    settle(qtbot)  # the owner is looked up off the GUI thread
    assert window.field_message("cpf") == "Já existe uma pessoa cadastrada com este CPF: Dona Do Número."


# A document a Decree adds, declared here only: the complete-dossier walk must hold with it too.
DECREE_DOCUMENT = documents_declared.DeclaredDocument(
    "decree_certificate", "Certidão exigida por Decreto", "Art. 5º (Decreto)",
    fields=(documents_declared.DocField("number", "Nº da certidão"),
            documents_declared.DocField("issue_date", "Emissão da certidão", "date")),
    validity=documents_declared.Validity("proof_of_residence_max_days", "days"))


@pytest.fixture(params=["as_declared", "with_a_decree_document"])
def declared_documents(request: pytest.FixtureRequest) -> object:
    if request.param == "with_a_decree_document":
        documents_declared.declare(DECREE_DOCUMENT)
        request.addfinalizer(lambda: documents_declared.undeclare(DECREE_DOCUMENT.kind))
    return request.param


def test_fill_a_complete_dossier_and_every_verdict_turns_met(qtbot, clerk: AppContext, monkeypatch,  # noqa: ANN001
                                                              backend: str, declared_documents: str) -> None:
    boxes = Boxes(monkeypatch)
    window = open_window(qtbot, clerk)
    total = requirement_count()
    assert window.verdict_list.count() == total
    assert all(v.status is not Status.MET for v in window.verdicts if v.rule_id != "art6_1_natural_person")
    assert not window.photo_button.isEnabled()  # a new person: save first

    # Personal data, in tab order.
    paste(qtbot, window.person_inputs["full_name"], "Maria D'Ávila-Souza")
    qtbot.keyClick(window.person_inputs["full_name"], Qt.Key.Key_Tab)
    qtbot.keyClicks(window.person_inputs["cpf"], valid_cpf())
    type_date(qtbot, window.person_inputs["birth_date"], date(1990, 5, 17))
    choose(window.person_inputs["sex"], "Feminino")
    qtbot.keyClicks(window.person_inputs["address"], "Rua Presidente Vargas, 1200")
    qtbot.keyClicks(window.person_inputs["district"], "Centro")
    paste(qtbot, window.person_inputs["city"], "Patrocínio")
    qtbot.keyClicks(window.person_inputs["uf"], "MG")

    # The documents of Art. 5.
    docs = window.documents
    window.tabs.setCurrentIndex(1)
    qtbot.keyClicks(docs[DocumentKind.IDENTITY].inputs["number"], "MG-14.325.876")
    qtbot.keyClicks(docs[DocumentKind.IDENTITY].inputs["issuer"], "SSP")
    qtbot.keyClicks(docs[DocumentKind.IDENTITY].inputs["issuer_uf"], "MG")
    cnh = docs[DocumentKind.CNH].inputs
    qtbot.keyClicks(cnh["number"], CNH().generate())
    qtbot.keyClicks(cnh["categories"], "AB")
    type_date(qtbot, cnh["reference_date"], date(2012, 4, 2))
    type_date(qtbot, cnh["valid_until"], TODAY + timedelta(days=800))
    choose(cnh["flag"], "Sim")
    course = docs[DocumentKind.COURSE].inputs
    qtbot.keyClicks(course["number"], "2025/0193")
    qtbot.keyClicks(course["school"], "CFC Alto Paranaiba")
    type_date(qtbot, course["reference_date"], TODAY - timedelta(days=60))
    qtbot.keyClicks(docs[DocumentKind.ELECTORAL].inputs["number"], TituloEleitoral().generate())
    choose(docs[DocumentKind.ELECTORAL].inputs["flag"], "Sim")
    type_date(qtbot, docs[DocumentKind.MEDICAL].inputs["issue_date"], TODAY - timedelta(days=12))
    qtbot.keyClicks(docs[DocumentKind.INSS].inputs["number"], PIS().generate())
    type_date(qtbot, docs[DocumentKind.RESIDENCE].inputs["issue_date"], TODAY - timedelta(days=7))
    type_date(qtbot, docs[DocumentKind.CRIMINAL].inputs["issue_date"], TODAY - timedelta(days=20))
    choose(docs[DocumentKind.CRIMINAL].inputs["result"], "Negativas")
    choose(window.person_inputs["declares_no_other_permit"], "Sim")
    # A document a Decree added (judged by its declaration alone): typed from its declaration, so a
    # new declaration needs no line here.
    for declared in documents_declared.generic():
        if DocumentKind(declared.kind) in docs:
            type_declared(qtbot, docs[DocumentKind(declared.kind)].inputs, declared_complete(declared, TODAY))
    window.recheck()
    pending = [v for v in window.verdicts if v.status is not Status.MET]
    assert [v.rule_id for v in pending] == ["art5_ix_photo"]  # only the photo is missing now
    assert window.meter.value() == round((total - 1) / total * 100)

    save_and_wait(qtbot, window)
    assert boxes.shown == [] and window.person_id is not None, window.status.text()
    assert window.windowTitle() == "Dossiê – Maria D'Ávila-Souza" and not window.is_dirty()
    assert people.get_dossier(clerk, window.person_id).person.full_name == "Maria D'Ávila-Souza"

    # The photo slot: "Sem foto" until the hook brings one.
    assert window.photo_label.text() == "Sem foto"
    photo = ROOT / "tests" / "data" / "photos" / "astronaut.png"
    monkeypatch.setattr(dossier_module.QFileDialog, "getOpenFileName", lambda *a, **k: (str(photo), ""))
    from motodesk.ui import photo_dialog

    # The photo dialog is the photo issue's (tested there); here it imports the file as it would.
    def take_photo(_ctx: AppContext, _pid: int, parent: DossierWindow, **_k: object) -> object:
        assert parent.photo_from_file()  # stored off the GUI thread
        settle(qtbot)
        return parent.photo

    monkeypatch.setattr(photo_dialog, "take_photo", take_photo)
    assert window.photo_button.isEnabled()
    assert window.request_photo() is True
    settle(qtbot)
    assert window.photo_label.pixmap() is not None and not window.photo_label.pixmap().isNull()
    assert window.photo_caption.text() == f"Foto de {TODAY:%d/%m/%Y}"
    assert all(v.status is Status.MET for v in window.verdicts)
    assert window.meter.value() == 100
    assert window.summary.text().startswith(f"{total} de {total} requisitos atendidos")
    assert not window.print_button.isEnabled()  # nothing pending to print
    assert all("✔" in docs[k].box.title() for k in (DocumentKind.CNH, DocumentKind.CRIMINAL, DocumentKind.INSS))

    if backend == "sqlite":
        window.tabs.setCurrentIndex(0)
        window.resize(1280, 840)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        window.grab().save(str(SCREENSHOTS / "dossier.png"))
        window.tabs.setCurrentIndex(1)
        window.tabs.currentWidget().verticalScrollBar().setValue(0)
        window.grab().save(str(SCREENSHOTS / "dossier_documents.png"))


def test_attach_a_pdf_refuse_a_renamed_file_and_remove_with_a_reason(qtbot, clerk: AppContext, monkeypatch,  # noqa: ANN001
                                                                     tmp_path: Path) -> None:
    boxes = Boxes(monkeypatch)
    pid = people.save_person(clerk, PersonInput(full_name="Anexo Teste Silva", cpf=valid_cpf())).id
    window = open_window(qtbot, clerk, pid)
    files = window.documents[DocumentKind.CNH].attachments
    pdf = pdf_file(tmp_path)
    monkeypatch.setattr(dossier_module.AttachmentList.__module__ and __import__("motodesk.ui.attachments",
                        fromlist=["QFileDialog"]).QFileDialog, "getOpenFileName", lambda *a, **k: (str(pdf), ""))
    files.list.setFocus()
    qtbot.keyClick(files.list, Qt.Key.Key_Insert)  # the list's key: Insert attaches
    settle(qtbot)
    assert [i.filename for i in files.items] == ["CNH digitalizada.pdf"]
    assert "CNH digitalizada.pdf  (PDF" in files.list.item(0).text()
    stored = attachments.person_document_attachments(clerk, pid)[DocumentKind.CNH]
    assert [a.media_type for a in stored] == ["application/pdf"]

    # A text file named like a PDF is refused, with the reason.
    fake = tmp_path / "RG.pdf"
    fake.write_text("isto não é um PDF")
    monkeypatch.setattr(__import__("motodesk.ui.attachments", fromlist=["x"]).QFileDialog, "getOpenFileName",
                        lambda *a, **k: (str(fake), ""))
    qtbot.mouseClick(window.documents[DocumentKind.IDENTITY].attachments.add_button, Qt.MouseButton.LeftButton)
    settle(qtbot)
    assert "O arquivo «RG.pdf» não é um PDF, JPEG ou PNG" in boxes.texts()
    assert window.documents[DocumentKind.IDENTITY].attachments.items == []

    # Viewing opens the PDF preview; removing asks for the reason.
    seen: list[bytes] = []
    monkeypatch.setattr(pdfpreview, "preview_pdf", lambda _p, data, *_a, **_k: seen.append(data))
    files.list.setCurrentRow(0)
    files.list.setFocus()
    qtbot.keyClick(files.list, Qt.Key.Key_Return)  # Enter shows it
    settle(qtbot)
    assert seen == [pdf.read_bytes()]
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("Digitalização ilegível", True))
    qtbot.mouseClick(files.remove_button, Qt.MouseButton.LeftButton)
    settle(qtbot)
    assert files.items == []
    kept = attachments.person_document_attachments(clerk, pid, include_removed=True)[DocumentKind.CNH]
    assert kept[0].removed_reason == "Digitalização ilegível" and kept[0].removed_by == "clerk"


def test_a_conflicting_save_from_a_second_session_shows_the_conflict_dialog(qtbot, clerk: AppContext,  # noqa: ANN001
                                                                          supervisor: AppContext,
                                                                          monkeypatch) -> None:
    Boxes(monkeypatch)
    pid = people.save_person(clerk, PersonInput(full_name="Conflito Teste Lima", cpf=valid_cpf())).id
    window = open_window(qtbot, clerk, pid)
    # Another workstation saves the same dossier first.
    other = people.get_dossier(supervisor, pid)
    other.person.phone = "(34) 3831-1111"
    people.save_dossier(supervisor, other.person, person_id=pid, person_version=other.version)

    qtbot.keyClicks(window.person_inputs["phone"], "(34) 99999-2222")
    qtbot.keyClicks(window.person_inputs["mother_name"], "Ana Lima")
    asked: list[ConflictDialog] = []

    def answer(dialog: ConflictDialog) -> str:
        asked.append(dialog)
        return ConflictDialog.REVIEW

    reviewed: list[ReviewDialog] = []

    def keep_mine(_self: DossierWindow, dialog: ReviewDialog) -> bool:
        reviewed.append(dialog)
        return True  # nothing ticked: my values stay

    monkeypatch.setattr(ConflictDialog, "ask", answer)
    monkeypatch.setattr(DossierWindow, "_exec_review", keep_mine)
    save_and_wait(qtbot, window)
    assert len(asked) == 1
    assert "Outra estação salvou este dossiê depois que você o abriu (por supervisor" in asked[0].text()
    assert "tudo continua no formulário" in asked[0].text()
    assert [b.text() for b in (asked[0].review_button, asked[0].reload_button)] == [
        "Revisar as duas versões", "Recarregar a versão gravada"]
    table = reviewed[0].table
    rows = {table.item(r, 0).text(): (table.item(r, 1).text(), table.item(r, 2).text()) for r in range(table.rowCount())}
    assert rows == {"Telefone": ("(34) 99999-2222", "(34) 3831-1111"), "Nome da mãe": ("Ana Lima", "(vazio)")}
    qtbot.waitUntil(lambda: not window.saving, timeout=10_000)
    stored = people.get_dossier(clerk, pid).person
    assert (stored.phone, stored.mother_name) == ("(34) 99999-2222", "Ana Lima")  # nothing typed was lost
    assert not window.is_dirty()


def test_conflict_then_reload_takes_the_stored_version(qtbot, clerk: AppContext, supervisor: AppContext,  # noqa: ANN001
                                                      monkeypatch) -> None:
    Boxes(monkeypatch)
    pid = people.save_person(clerk, PersonInput(full_name="Recarga Teste Dias", cpf=valid_cpf())).id
    window = open_window(qtbot, clerk, pid)
    other = people.get_dossier(supervisor, pid)
    other.person.district = "Enéas"
    people.save_dossier(supervisor, other.person, person_id=pid, person_version=other.version)
    qtbot.keyClicks(window.person_inputs["district"], "Centro")
    monkeypatch.setattr(ConflictDialog, "ask", lambda _d: ConflictDialog.RELOAD)
    save_and_wait(qtbot, window)
    assert window.person_inputs["district"].text() == "Enéas" and not window.is_dirty()


def test_closing_with_unsaved_changes_asks(qtbot, clerk: AppContext, monkeypatch) -> None:  # noqa: ANN001
    window = open_window(qtbot, clerk)
    assert window.close()  # nothing typed: closes without asking
    window = open_window(qtbot, clerk)
    qtbot.keyClicks(window.person_inputs["full_name"], "Quase Salvo")
    assert window.windowTitle().endswith("*")
    answers = iter([Answer.CANCEL, Answer.DISCARD])
    asked: list[str] = []

    def question(_parent, text, *_a, **_k):  # noqa: ANN001, ANN202
        asked.append(text)
        return next(answers)

    monkeypatch.setattr(dossier_module, "ask_unsaved", question)
    qtbot.keyClick(window, Qt.Key.Key_Escape)
    assert window.isVisible() and "alterações que não foram salvas" in asked[0]  # Cancelar: stays open
    assert window.close()  # Descartar
    assert len(asked) == 2 and not window.isVisible()


def test_a_failed_save_keeps_the_form_and_says_why(qtbot, clerk: AppContext, monkeypatch) -> None:  # noqa: ANN001
    boxes = Boxes(monkeypatch)
    pid = people.save_person(clerk, PersonInput(full_name="Banco Fora Do Ar", cpf=valid_cpf())).id
    window = open_window(qtbot, clerk, pid)
    qtbot.keyClicks(window.person_inputs["phone"], "(34) 98888-7777")
    down = Database.open("postgresql+psycopg://motodesk@127.0.0.1:1/motodesk")
    window.ctx = AppContext(down, clerk.user)
    try:
        save_and_wait(qtbot, window)
    finally:
        down.dispose()
    assert "Não foi possível conectar ao servidor de banco de dados" in boxes.texts()
    assert window.status.text().startswith("Não salvo:")
    assert window.person_inputs["phone"].text() == "(34) 98888-7777" and window.is_dirty()
    window.ctx = clerk
    save_and_wait(qtbot, window)
    assert people.get_dossier(clerk, pid).person.phone == "(34) 98888-7777"


def test_too_long_paste_and_metacharacters(qtbot, clerk: AppContext, monkeypatch) -> None:  # noqa: ANN001
    Boxes(monkeypatch)
    window = open_window(qtbot, clerk)
    paste(qtbot, window.person_inputs["full_name"], "A" * 10_000)
    qtbot.keyClicks(window.person_inputs["cpf"], valid_cpf())
    save_and_wait(qtbot, window)
    assert window.person_id is None
    assert window.field_message("full_name") == "Texto longo demais: no máximo 200 caracteres (recebidos 10000)."
    paste(qtbot, window.person_inputs["full_name"], "Robert'); DROP TABLE people;-- Silva")
    save_and_wait(qtbot, window)
    assert window.person_id is not None
    assert people.get_dossier(clerk, window.person_id).person.full_name == "Robert'); DROP TABLE people;-- Silva"


def test_inspector_sees_a_read_only_dossier(qtbot, clerk: AppContext, inspector: AppContext) -> None:  # noqa: ANN001
    pid = people.save_person(clerk, PersonInput(full_name="Somente Leitura Reis", cpf=valid_cpf())).id
    window = open_window(qtbot, inspector, pid)
    assert window.person_inputs["full_name"].isReadOnly()
    assert not window.person_inputs["sex"].isEnabled()
    assert not window.save_button.isVisible() and not window.save_action.isEnabled()
    assert not window.documents[DocumentKind.CNH].attachments.add_button.isEnabled()
    assert not window.photo_button.isEnabled() and not window.open_application_button.isEnabled()
    assert "Somente leitura" in window.banner.text()
    assert window.save() is False


def test_open_an_application_and_print_the_pending_items(qtbot, clerk: AppContext, monkeypatch,  # noqa: ANN001
                                                         qtmodeltester) -> None:
    boxes = Boxes(monkeypatch)
    pid = people.save_person(clerk, PersonInput(full_name="Requerente Nova Costa", cpf=valid_cpf(),
                                                birth_date=date(1992, 2, 29), sex="M")).id
    window = open_window(qtbot, clerk, pid)
    choose(window.service_combo, "Mototáxi")
    assert window.open_application_button.text() == "Abrir re&querimento de Mototáxi…"
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    window.tabs.setCurrentIndex(2)
    qtbot.mouseClick(window.open_application_button, Qt.MouseButton.LeftButton)
    settle(qtbot)  # opened off the GUI thread
    assert window.applications_model.rowCount() == 1
    assert window.applications_model.index(0, 2).data() == PermitState.REQUESTED.label
    assert "Requerimento" in window.subtitle_label.text()
    qtmodeltester.check(window.applications_model)
    qtmodeltester.check(window.permits_model)
    qtbot.mouseClick(window.open_application_button, Qt.MouseButton.LeftButton)  # a second one is refused
    settle(qtbot)
    assert "Art. 6º, §§ 1º e 2º" in boxes.texts()
    assert len(applications.list_applications(clerk, pid)) == 1

    printed: list[bytes] = []
    monkeypatch.setattr(pdfpreview, "preview_pdf", lambda _p, data, *_a, **_k: printed.append(data))
    assert window.print_button.isEnabled()
    qtbot.mouseClick(window.print_button, Qt.MouseButton.LeftButton)
    settle(qtbot)  # the letter is made off the GUI thread
    text = "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(printed[0])).pages)
    assert "Comunicado de Pendências" in text and "Requerente Nova Costa" in text
    assert "Art. 5º, II" in text and "Art. 5º, IX" in text
    page = PdfReader(io.BytesIO(printed[0])).pages[0]
    assert (round(float(page.mediabox.width)), round(float(page.mediabox.height))) == (595, 842)  # A4


def test_request_photo_refuses_a_file_that_is_not_a_photo(qtbot, clerk: AppContext, monkeypatch,  # noqa: ANN001
                                                          tmp_path: Path) -> None:
    boxes = Boxes(monkeypatch)
    pid = people.save_person(clerk, PersonInput(full_name="Foto Ruim Teixeira", cpf=valid_cpf())).id
    window = open_window(qtbot, clerk, pid)
    bad = tmp_path / "foto.jpg"
    bad.write_bytes(b"not an image at all")
    monkeypatch.setattr(dossier_module.QFileDialog, "getOpenFileName", lambda *a, **k: (str(bad), ""))
    assert window.photo_from_file() is True  # started; the refusal comes from the worker
    settle(qtbot)
    assert "Foto recusada" in [title for title, _text in boxes.shown]
    assert window.photo_label.text() == "Sem foto"
    from motodesk.ui import photo_dialog

    monkeypatch.setattr(photo_dialog, "take_photo", lambda *_a, **_k: None)  # the clerk cancelled the dialog
    assert window.request_photo() is False and window.photo_label.text() == "Sem foto"


def test_a_deputy_is_judged_as_the_deputy(qtbot, clerk: AppContext) -> None:  # noqa: ANN001
    from motodesk.models import DeputyLink, Permit
    from motodesk.rules.common import ServiceType

    holder = people.save_person(clerk, PersonInput(full_name="Titular Da Moto", cpf=valid_cpf())).id
    deputy = people.save_person(clerk, PersonInput(full_name="Preposto Do Titular", cpf=valid_cpf(),
                                                   birth_date=TODAY - timedelta(days=365 * 20))).id
    with clerk.write() as s:
        existing_register(s)
        permit = Permit(number="MB-0044/2025", service_type=ServiceType.MOTOBOY, year=2025, seq=44,
                        person_id=holder, state=PermitState.ACTIVE, issued_on=date(2025, 3, 1),
                        term_end=date(2030, 3, 1), certificate_valid_until=date(2026, 3, 1))
        s.add(permit)
        s.flush()
        s.add(DeputyLink(permit_id=permit.id, deputy_person_id=deputy, start_on=TODAY))
    window = open_window(qtbot, clerk, deputy)
    assert "Preposto de MB-0044/2025" in window.subtitle_label.text()
    age = next(v for v in window.verdicts if v.rule_id == "art5_i_age")
    assert age.status is Status.NOT_MET
    check_wording("art5_i_age", age.message)


# -- issue 16: personal and non-transferable, the medical presentation, the tender up front ---------


def test_a_holders_cpf_and_name_are_read_only_and_the_supervisor_changes_the_name(  # noqa: ANN201
        qtbot, ctx: AppContext, clerk: AppContext, supervisor: AppContext, monkeypatch, tmp_path: Path):  # noqa: ANN001
    from permit_factory import make_dossier  # type: ignore[import-not-found]

    from motodesk.rules.common import ServiceType
    from motodesk.services import permits

    dossier = make_dossier(ctx, ServiceType.MOTOBOY, name="Maria Aparecida Souza")
    permits.approve(supervisor, dossier.application_id, "1.234/2026", TODAY - timedelta(days=1))
    issued = permits.issue(supervisor, dossier.application_id)

    as_clerk = open_window(qtbot, clerk, dossier.person_id)
    assert as_clerk.person_inputs["cpf"].isReadOnly() and as_clerk.person_inputs["full_name"].isReadOnly()
    assert "Art. 6º, § 1º; Art. 7º" in as_clerk.person_inputs["cpf"].toolTip()
    assert issued.number in as_clerk.person_inputs["cpf"].toolTip()
    assert not as_clerk.name_change_button.isVisible()  # only a supervisor changes a name
    as_clerk.close()

    window = open_window(qtbot, supervisor, dossier.person_id)
    assert window.name_change_button.isVisible()
    scan = tmp_path / "certidao.pdf"
    from reportlab.pdfgen import canvas

    page = canvas.Canvas(str(scan))
    page.drawString(72, 720, "Certidao de casamento")
    page.save()
    attempts: list[str] = []

    def fill(dialog) -> bool:  # noqa: ANN001
        # The dialog from the keyboard: the new name, Tab to the reason, Tab to the file.
        if len(attempts) == 1:  # the first try had no document: refused off the GUI thread, asked again
            assert "Anexe o documento" in dialog.error_label.text()
            attempts.append("with the document")
            dialog.file_edit.setFocus()
            qtbot.keyClicks(dialog.file_edit, str(scan))
            return True
        if attempts:
            return False
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitExposed(dialog)
        dialog.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog)
        attempts.append("once")
        dialog.name_edit.setFocus()
        qtbot.keyClicks(dialog.name_edit, "Maria Aparecida Souza Lima")
        qtbot.keyClick(dialog.name_edit, Qt.Key.Key_Tab)
        assert dialog.reason_edit.hasFocus()
        qtbot.keyClicks(dialog.reason_edit, "Casamento, certidao 123")
        qtbot.keyClick(dialog.reason_edit, Qt.Key.Key_Tab)
        assert dialog.file_edit.hasFocus()
        return True  # no document yet

    monkeypatch.setattr(DossierWindow, "_exec_name_change", lambda self, dialog: fill(dialog))
    assert window.change_name()
    settle(qtbot)
    assert attempts == ["once", "with the document"]
    assert window.person_inputs["full_name"].text() == "Maria Aparecida Souza Lima"
    history = window.name_history_label.text()  # the person's own history shows it too
    assert "de “Maria Aparecida Souza” para “Maria Aparecida Souza Lima”: Casamento, certidao 123" in history
    steps = permits.history(supervisor, "permit", issued.id)
    assert any(e.transition == "change_name" and "Casamento, certidao 123" in (e.reason or "") for e in steps)


def test_the_medical_certificate_has_its_presentation_date(qtbot, clerk: AppContext) -> None:  # noqa: ANN001
    window = open_window(qtbot, clerk)
    field = window.documents[DocumentKind.MEDICAL].inputs["presented_on"]
    assert isinstance(field, DateField)
    type_date(qtbot, field, TODAY - timedelta(days=2))
    assert window.document_inputs()[DocumentKind.MEDICAL].presented_on == TODAY - timedelta(days=2)


def test_the_mototaxi_requirements_say_whether_the_applicant_is_a_called_candidate(  # noqa: ANN201
        qtbot, ctx: AppContext, clerk: AppContext):  # noqa: ANN001
    from permit_factory import make_dossier  # type: ignore[import-not-found]

    from motodesk.rules.common import ServiceType

    waiting = make_dossier(ctx, ServiceType.MOTOTAXI, candidate_status="waiting")
    window = open_window(qtbot, clerk, waiting.person_id)
    choose(window.service_combo, "Mototáxi")
    window.recheck()
    tender = next(v for v in window.verdicts if v.rule_id == "art6_tender")
    assert tender.status is Status.NOT_MET
    check_wording("art6_tender", tender.message)
    assert window.meter.value() == 100 and "não atendido" in window.summary.text()  # complete, but not met
    choose(window.service_combo, "Motoboy")
    window.recheck()
    assert not any(v.rule_id == "art6_tender" for v in window.verdicts)


# -- issue #18: the counter's screen, the keyboard, the person's own service ----------------------
def test_the_dossier_fits_the_counter_screen_on_every_tab_with_an_access_key_for_everything(  # noqa: ANN201
        qtbot, clerk: AppContext):  # noqa: ANN001
    from tests_helpers import fits_screen, missing_access_keys  # type: ignore[import-not-found]

    pid = people.save_person(clerk, PersonInput(full_name="Tela Pequena Souza", cpf=valid_cpf())).id
    window = open_window(qtbot, clerk, pid)
    assert fits_screen(window) == []  # the personal data, Salvar and Fechar in view
    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)
        assert missing_access_keys(window) == [], window.tabs.tabText(index)
        for button in (window.save_button, window.close_button, window.photo_button):
            rect = button.rect().translated(button.mapTo(window, button.rect().topLeft()))
            assert window.rect().contains(rect), (window.tabs.tabText(index), button.text())
    window.tabs.setCurrentIndex(0)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    window.grab().save(str(SCREENSHOTS / "dossier-1366x768.png"))


def test_alt_2_puts_the_cursor_in_the_first_document_and_attachment_lists_are_no_tab_stops(  # noqa: ANN201
        qtbot, clerk: AppContext):  # noqa: ANN001
    window = open_window(qtbot, clerk)
    qtbot.keyClick(window.person_inputs["full_name"], Qt.Key.Key_2, Qt.KeyboardModifier.AltModifier)
    assert window.tabs.currentIndex() == 1
    identity = window.documents[DocumentKind.IDENTITY].inputs
    assert QApplication.focusWidget() is identity["number"]
    for _ in range(len(identity)):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is window.documents[DocumentKind.CNH].inputs["number"]  # no list between
    assert not window.verdict_list.focusPolicy() & Qt.FocusPolicy.TabFocus


def test_typed_cpf_phone_and_cep_are_formatted_and_the_uf_is_chosen(qtbot, clerk: AppContext) -> None:  # noqa: ANN001
    window = open_window(qtbot, clerk)
    for key, typed, shown in (("cpf", "52998224725", "529.982.247-25"), ("phone", "34999881234", "(34) 99988-1234"),
                              ("zip_code", "38740000", "38740-000")):
        window.person_inputs[key].setFocus()
        qtbot.keyClicks(window.person_inputs[key], typed)
        assert window.person_inputs[key].text() == shown
    uf = window.person_inputs["uf"]
    assert isinstance(uf, QComboBox) and not uf.isEditable()
    uf.setFocus()
    qtbot.keyClicks(uf, "MG")
    person = window.person_input()
    assert (person.uf, person.phone, person.zip_code) == ("MG", "(34) 99988-1234", "38740-000")


def test_a_reopened_dossier_shows_the_service_of_the_persons_application(qtbot, clerk: AppContext) -> None:  # noqa: ANN001
    from motodesk.rules.common import ServiceType

    pid = people.save_person(clerk, PersonInput(full_name="Servico Proprio Lima", cpf=valid_cpf())).id
    applications.open_application(clerk, pid, ServiceType.MOTOFRETE)
    window = open_window(qtbot, clerk, pid)
    assert window.service() is ServiceType.MOTOFRETE  # not the default (Motoboy)
    assert "data do requerimento nº" in window.reference_label.text()  # judged at the application's date
