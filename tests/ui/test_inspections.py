"""The inspector's workstation driven like an inspector: queue, checklist, draft, conclusion, laudo, re-inspection."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image
from pypdf import PdfReader
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox
from tests_helpers import settle_gui, valid_cpf  # type: ignore[import-not-found]

from motodesk.rules.checklist import checklist_for
from motodesk.rules.common import ServiceType
from motodesk.services import inspections, people, vehicles
from motodesk.services.context import AppContext
from motodesk.services.inspections import InspectionStatus
from motodesk.services.people import PersonInput
from motodesk.services.vehicles import VehicleInput
from motodesk.ui import checklist as checklist_module
from motodesk.ui.app import create_application
from motodesk.ui.checklist import ChecklistDialog, ItemPhotosDialog
from motodesk.ui.screens import inspections as screen
from motodesk.ui.screens.inspections import InspectionsPage, ScheduleDialog
from motodesk.ui.widgets import field_error

A4 = (595.28, 841.89)
FAILING = "A19-V-MIRRORS"


@pytest.fixture
def vehicle_id(clerk: AppContext) -> int:
    cpf = valid_cpf()
    hid = people.save_person(clerk, PersonInput(full_name="José Carlos Ferreira", cpf=cpf)).id
    return vehicles.save_vehicle(clerk, VehicleInput(
        plate="PTC4B83", holder_id=hid, service_type=ServiceType.MOTOTAXI, make="Honda", model="CG 160 Fan",
        year_manufacture=2024, year_model=2025, engine_cc=162, colour="Amarela", category="aluguel",
        crlv_year=2026, crlv_municipality="Patrocínio", crlv_uf="MG", owner_cpf=cpf)).id


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[ChecklistDialog]:
    """Checklists the page opens are shown, not run modally; the test drives them."""
    dialogs: list[ChecklistDialog] = []

    class Shown(ChecklistDialog):
        def exec(self) -> int:
            dialogs.append(self)
            self.show()
            return 0

    monkeypatch.setattr(screen, "ChecklistDialog", Shown)
    return dialogs


@pytest.fixture
def previews(monkeypatch: pytest.MonkeyPatch) -> list[tuple[bytes, str]]:
    shown: list[tuple[bytes, str]] = []
    monkeypatch.setattr(checklist_module, "preview_pdf", lambda parent, pdf, title: shown.append((pdf, title)))
    return shown


def _page(qtbot, qtmodeltester, ctx: AppContext) -> InspectionsPage:  # noqa: ANN001
    create_application()
    page = InspectionsPage(ctx)
    qtbot.addWidget(page)
    page.show()
    qtbot.waitExposed(page)
    settle(qtbot)
    for model in (page.queue_model, page.upcoming_model, page.history_model):
        qtmodeltester.check(model)
    return page


def settle(qtbot) -> None:  # noqa: ANN001
    """Every service call of the page delivered (a write, then the lists' reloads)."""
    settle_gui(qtbot)


def _select(view, row: int) -> None:  # noqa: ANN001
    view.selectRow(row)


def _answer_all(qtbot, dialog: ChecklistDialog, failing: dict[str, str]) -> None:  # noqa: ANN001
    for code, row in dialog.rows.items():
        if code in failing:
            qtbot.mouseClick(row.buttons[checklist_module.ItemResult.NOT_OK], Qt.MouseButton.LeftButton)
            qtbot.keyClicks(row.note, failing[code])
        else:
            qtbot.mouseClick(row.buttons[checklist_module.ItemResult.OK], Qt.MouseButton.LeftButton)


def _pdf_text(pdf: bytes) -> tuple[str, PdfReader]:
    reader = PdfReader(io.BytesIO(pdf))
    return " ".join(" ".join(p.extract_text() for p in reader.pages).split()), reader


def test_fail_one_item_see_reprovado_then_reinspect_and_approve(
        qtbot, qtmodeltester, monkeypatch, clerk: AppContext, inspector: AppContext,  # noqa: ANN001
        vehicle_id: int, opened: list[ChecklistDialog], previews: list[tuple[bytes, str]]) -> None:
    inspections.schedule_inspection(clerk, vehicle_id, vehicles.local_today())
    page = _page(qtbot, qtmodeltester, inspector)
    assert page.queue_model.rowCount() == 1
    assert page.queue_model.data(page.queue_model.index(0, 0)) == "Agendada para hoje"
    _select(page.queue, 0)
    qtbot.mouseClick(page.start_button, Qt.MouseButton.LeftButton)
    settle(qtbot)
    dialog = opened[-1]
    qtbot.waitExposed(dialog)
    assert list(dialog.rows) == [i.code for i in checklist_for(ServiceType.MOTOTAXI)]
    assert dialog.rows[FAILING].article.text() == "Art. 19, V"
    assert "Vistoriador/Fiscal" in dialog.header.text() and "PTC4B83" in dialog.header.text()
    assert "Em preenchimento" in dialog.result_label.text()

    _answer_all(qtbot, dialog, {FAILING: "Falta o retrovisor esquerdo"})
    assert "REPROVADO" in dialog.result_label.text()
    assert dialog.pending_codes() == [FAILING]
    questions: list[str] = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: questions.append(a[2]) or QMessageBox.StandardButton.Yes)
    qtbot.mouseClick(dialog.conclude_button, Qt.MouseButton.LeftButton)
    settle(qtbot)  # concluded off the GUI thread, then the laudo
    assert questions and "não pode ser alterada" in questions[0]
    assert dialog.view.status is InspectionStatus.FAILED
    assert "reprovado" in dialog.result_label.text().lower() and dialog.pending_codes() == [FAILING]
    assert not dialog.conclude_button.isVisible() and dialog.report_button.isVisible()
    assert not dialog.rows[FAILING].buttons[checklist_module.ItemResult.OK].isEnabled()
    pdf, title = previews[-1]
    assert title == f"Laudo de Vistoria {dialog.view.report_number}"
    assert pdf == inspections.inspection_report(inspector, dialog.inspection_id)  # the stored laudo
    text, reader = _pdf_text(pdf)
    assert "PTC4B83" in text and "REPROVADO" in text and "Falta o retrovisor esquerdo" in text
    for item in checklist_for(ServiceType.MOTOTAXI):
        assert item.text in text
    assert [(round(float(p.mediabox.width), 2), round(float(p.mediabox.height), 2)) for p in reader.pages] == [
        A4] * len(reader.pages)
    failed_id = dialog.inspection_id
    dialog.reject()

    page.reload()
    page.tabs.setCurrentIndex(2)
    settle(qtbot)
    _select(page.history, 0)
    assert page.reinspect_button.isEnabled() and not page.supersede_button.isEnabled()
    qtbot.mouseClick(page.reinspect_button, Qt.MouseButton.LeftButton)
    settle(qtbot)
    again = opened[-1]
    qtbot.waitExposed(again)
    assert list(again.rows) == [FAILING]
    assert f"{failed_id:06d}" in again.banner.text()
    _answer_all(qtbot, again, {})
    assert "APROVADO" in again.result_label.text() and again.pending_codes() == []
    qtbot.mouseClick(again.conclude_button, Qt.MouseButton.LeftButton)
    settle(qtbot)
    assert again.view.status is InspectionStatus.APPROVED
    text, reader = _pdf_text(previews[-1][0])
    assert "PTC4B83" in text and "APROVADO" in text and "Espelho retrovisor de ambos os lados" in text
    assert float(reader.pages[0].mediabox.width) == pytest.approx(A4[0], abs=0.1)


def test_a_half_filled_checklist_is_saved_as_draft_but_not_concluded(
        qtbot, monkeypatch, inspector: AppContext, vehicle_id: int) -> None:  # noqa: ANN001
    create_application()
    iid = inspections.start_inspection(inspector, vehicle_id=vehicle_id)
    dialog = ChecklistDialog(inspector, iid, loaded=inspections.checklist_view(inspector, iid))
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    codes = list(dialog.rows)
    for code in codes[:4]:
        qtbot.mouseClick(dialog.rows[code].buttons[checklist_module.ItemResult.OK], Qt.MouseButton.LeftButton)
    qtbot.keyClicks(dialog.rows[codes[1]].note, "Antena nova")
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: pytest.fail("no confirmation for an incomplete list"))
    qtbot.mouseClick(dialog.conclude_button, Qt.MouseButton.LeftButton)
    missing = len(codes) - 4
    assert f"Faltam responder {missing} itens" in dialog.message.text()
    assert field_error(dialog.rows[codes[5]].box) == "Item sem resposta."
    assert field_error(dialog.rows[codes[0]].box) is None
    assert f"faltam {missing} itens de {len(codes)}" in dialog.result_label.text()
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    assert not dialog.isEnabled()  # locked while the draft is saved off the GUI thread
    settle(qtbot)
    assert dialog.isEnabled() and "Rascunho salvo" in dialog.message.text() and not dialog.dirty
    dialog.reject()

    reopened = ChecklistDialog(inspector, iid, loaded=inspections.checklist_view(inspector, iid))
    qtbot.addWidget(reopened)
    reopened.show()
    assert reopened.view.status is InspectionStatus.DRAFT
    assert [reopened.rows[c].result() for c in codes[:5]] == [checklist_module.ItemResult.OK] * 4 + [None]
    assert reopened.rows[codes[1]].note.text() == "Antena nova"


def test_closing_with_unsaved_answers_offers_to_save(qtbot, monkeypatch, inspector: AppContext,  # noqa: ANN001
                                                      vehicle_id: int) -> None:
    create_application()
    iid = inspections.start_inspection(inspector, vehicle_id=vehicle_id)
    dialog = ChecklistDialog(inspector, iid, loaded=inspections.checklist_view(inspector, iid))
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.mouseClick(dialog.rows[FAILING].buttons[checklist_module.ItemResult.NOT_OK], Qt.MouseButton.LeftButton)
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Cancel)
    dialog.reject()
    assert dialog.isVisible()
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Save)
    dialog.reject()
    assert dialog.isVisible()  # still open while the draft is saved off the GUI thread
    settle(qtbot)
    assert not dialog.isVisible()
    assert {i.code: i.result for i in inspections.get_inspection(inspector, iid).items}[FAILING] == "not_ok"


def test_an_approved_inspection_opens_read_only_and_only_supersedes(
        qtbot, qtmodeltester, monkeypatch, inspector: AppContext, vehicle_id: int,  # noqa: ANN001
        opened: list[ChecklistDialog]) -> None:
    iid = inspections.start_inspection(inspector, vehicle_id=vehicle_id)
    view = inspections.get_inspection(inspector, iid)
    inspections.conclude_inspection(inspector, iid, [inspections.ItemAnswer(i.code, "ok") for i in view.items])
    page = _page(qtbot, qtmodeltester, inspector)
    page.tabs.setCurrentIndex(2)
    settle(qtbot)
    _select(page.history, 0)
    qtbot.mouseClick(page.open_button, Qt.MouseButton.LeftButton)
    settle(qtbot)
    dialog = opened[-1]
    assert "não pode ser alterada" in dialog.banner.text()
    assert not dialog.save_button.isVisible() and not dialog.conclude_button.isVisible()
    assert all(not b.isEnabled() for row in dialog.rows.values() for b in row.buttons.values())
    assert "APROVADO" in dialog.result_label.text()
    dialog.reject()
    monkeypatch.setattr(screen.QInputDialog, "getMultiLineText",
                        lambda *a, **k: ("Retrovisor quebrado depois da vistoria", True))
    qtbot.mouseClick(page.supersede_button, Qt.MouseButton.LeftButton)
    settle(qtbot)
    new = opened[-1]
    assert new.inspection_id != iid and "substituirá a vistoria aprovada" in new.banner.text()
    assert len(new.rows) == len(view.items) and new.save_button.isVisible()


@pytest.mark.qt_log_ignore("Keyboard event not accepted")  # Return locks the dialog while it saves
def test_a_clerk_schedules_but_does_not_inspect(qtbot, qtmodeltester, clerk: AppContext,  # noqa: ANN001
                                               vehicle_id: int) -> None:
    page = _page(qtbot, qtmodeltester, clerk)
    assert not page.start_button.isVisible() and not page.accident_button.isVisible()
    assert page.schedule_button.isVisible()
    dialog = ScheduleDialog(clerk, page)
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.day.value() == vehicles.local_today()
    qtbot.keyClicks(dialog.plate, "ptc-4b83")
    qtbot.keyClick(dialog.plate, Qt.Key.Key_Return)  # finds the vehicle and presses "Agendar"
    settle(qtbot)
    assert "José Carlos Ferreira" in dialog.vehicle_label.text()
    assert dialog.scheduled_id is not None and dialog.result() == ScheduleDialog.DialogCode.Accepted
    page.reload()
    settle(qtbot)
    assert page.queue_model.rowCount() == 1 and page.queue_model.row_at(0).plate == "PTC4B83"
    again = ScheduleDialog(clerk, page, vehicle_id=vehicle_id)
    qtbot.addWidget(again)
    again.schedule()
    settle(qtbot)
    assert again.scheduled_id is None and again.result() != ScheduleDialog.DialogCode.Accepted
    assert "já tem uma vistoria aberta" in again.message.text()


def test_item_photos_are_added_from_a_file(qtbot, monkeypatch, tmp_path: Path,  # noqa: ANN001
                                           inspector: AppContext, vehicle_id: int) -> None:
    create_application()
    iid = inspections.start_inspection(inspector, vehicle_id=vehicle_id)
    dialog = ChecklistDialog(inspector, iid, loaded=inspections.checklist_view(inspector, iid))
    qtbot.addWidget(dialog)
    dialog.show()
    photo = tmp_path / "retrovisor.png"
    Image.new("RGB", (640, 480), (40, 90, 200)).save(photo)
    monkeypatch.setattr(checklist_module.QFileDialog, "getOpenFileName",
                        lambda *a, **k: (str(photo), checklist_module.IMAGE_FILTER))
    photos = ItemPhotosDialog(inspector, dialog.view, dialog.rows[FAILING].item, dialog)
    qtbot.addWidget(photos)
    photos.show()
    settle(qtbot)
    qtbot.mouseClick(photos.add_button, Qt.MouseButton.LeftButton)
    settle(qtbot)  # stored, then the thumbnails reloaded
    assert photos.count() == 1 and "retrovisor.jpg" in photos.list.item(0).text()
    photos.list.setCurrentRow(0)
    qtbot.mouseClick(photos.remove_button, Qt.MouseButton.LeftButton)
    settle(qtbot)
    assert photos.count() == 0
    qtbot.mouseClick(photos.add_button, Qt.MouseButton.LeftButton)
    settle(qtbot)
    photos.accept()
    dialog.rows[FAILING].set_photo_count(photos.count())
    assert dialog.rows[FAILING].photos.text() == "Fotos (1)…"
    dialog.save_draft()
    settle(qtbot)
    assert "Rascunho salvo" in dialog.message.text(), dialog.message.text()  # photos do not make the draft stale


def test_a_supervisor_calls_a_service_to_periodic_inspections(
        qtbot, qtmodeltester, monkeypatch, clerk: AppContext, supervisor: AppContext,  # noqa: ANN001
        vehicle_id: int) -> None:
    page = _page(qtbot, qtmodeltester, supervisor)
    assert page.campaign_button.isVisible()
    clerk_page = InspectionsPage(clerk)
    qtbot.addWidget(clerk_page)
    assert clerk_page.campaign_button.isHidden()
    told: list[str] = []
    monkeypatch.setattr(screen.QMessageBox, "information", lambda *a, **k: told.append(a[2]))
    dialog = screen.CampaignDialog(supervisor, page)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.service.setCurrentIndex(dialog.service.findData(ServiceType.MOTOTAXI.value))
    dialog.start.set_value(vehicles.local_today())
    qtbot.mouseClick(dialog.ok, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.result_value is not None, timeout=10000)
    assert dialog.result_value.count == 1 and told and "1 vistoria(s) agendada(s)" in told[0]

    def scheduled() -> list[str]:
        return [r.plate for r in page.upcoming_model.rows() + [r for r in page.queue_model.rows() if r.inspection_id]]

    # No reload asked: the campaign announced its change and the page, following it, shows the booking.
    qtbot.waitUntil(lambda: scheduled() == ["PTC4B83"])
    settle(qtbot)


@pytest.mark.qt_log_ignore("Keyboard event not accepted")  # Return locks the dialog while it saves
@pytest.mark.parametrize("days_ahead", [0, 3])
def test_a_booking_is_the_chosen_row_of_its_list_and_that_list_has_the_focus(
        qtbot, qtmodeltester, clerk: AppContext, vehicle_id: int, monkeypatch: pytest.MonkeyPatch,  # noqa: ANN001
        days_ahead: int) -> None:
    """After Agendar the inspector goes on by keys: today's booking is the chosen row of the queue
    (Enter starts it), a later day's the chosen row of Próximos dias (the focus went back to the
    button that opened the dialog, five Tabs away from the queue, and no row was chosen)."""
    from datetime import timedelta

    page = _page(qtbot, qtmodeltester, clerk)
    day = vehicles.local_today() + timedelta(days=days_ahead)

    def exec_(dialog: ScheduleDialog) -> int:
        dialog.show()
        dialog.day.set_value(day)
        qtbot.keyClicks(dialog.plate, "PTC4B83")
        qtbot.keyClick(dialog.plate, Qt.Key.Key_Return)  # finds the vehicle and presses "Agendar"
        qtbot.waitUntil(lambda: dialog.result() == ScheduleDialog.DialogCode.Accepted)
        return int(dialog.result())

    monkeypatch.setattr(ScheduleDialog, "exec", exec_)
    page.schedule_new()
    settle(qtbot)
    panel = page.queue_panel if days_ahead == 0 else page.upcoming_panel
    assert page.tabs.currentWidget() is panel
    row = panel.selected()
    assert row is not None and row.plate == "PTC4B83"
    assert panel.table.hasFocus() or qtbot.waitUntil(panel.table.hasFocus) is None


@pytest.mark.qt_log_ignore("Keyboard event not accepted")  # Return locks the dialog while it saves
def test_agendar_takes_the_plate_then_tab_then_enter_as_a_person_types_it(qtbot, clerk: AppContext,  # noqa: ANN001
                                                                          vehicle_id: int) -> None:
    """The X bench's inspector: the plate, Tab (the vehicle is looked up; the cursor is in Data),
    Enter (Agendar, the default button)."""
    create_application()
    dialog = ScheduleDialog(clerk, None)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.activateWindow()
    qtbot.waitExposed(dialog)
    dialog.plate.setFocus()
    qtbot.keyClicks(dialog.plate, "PTC4B83")
    qtbot.keyClick(dialog.plate, Qt.Key.Key_Tab)
    settle(qtbot)
    focused = dialog.focusWidget()
    assert focused is not None and (focused is dialog.day or dialog.day.isAncestorOf(focused))
    qtbot.keyClick(focused, Qt.Key.Key_Return)
    settle(qtbot)
    assert dialog.result() == ScheduleDialog.DialogCode.Accepted, dialog.message.text()
