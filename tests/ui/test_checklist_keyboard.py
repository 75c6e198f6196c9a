"""The inspection checklist from the keyboard, inside the counter's screen (issue #18, item 11)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox
from tests_helpers import SCREENSHOTS, fits_screen, missing_access_keys, no_button_down, valid_cpf  # type: ignore[import-not-found]

from motodesk.rules.checklist import ItemResult
from motodesk.rules.common import ServiceType
from motodesk.services import inspections, people, vehicles
from motodesk.services.context import AppContext
from motodesk.services.people import PersonInput
from motodesk.services.vehicles import VehicleInput
from motodesk.ui import checklist as checklist_module
from motodesk.ui.app import create_application
from motodesk.ui.checklist import ChecklistDialog


@pytest.fixture
def dialog(qtbot, clerk: AppContext, inspector: AppContext, monkeypatch: pytest.MonkeyPatch) -> ChecklistDialog:  # noqa: ANN001
    cpf = valid_cpf()
    hid = people.save_person(clerk, PersonInput(full_name="José Carlos Ferreira", cpf=cpf)).id
    vid = vehicles.save_vehicle(clerk, VehicleInput(
        plate="PTC4B83", holder_id=hid, service_type=ServiceType.MOTOTAXI, make="Honda", model="CG 160 Fan",
        year_manufacture=2024, year_model=2025, engine_cc=162, colour="Amarela", category="aluguel",
        crlv_year=2026, crlv_municipality="Patrocínio", crlv_uf="MG", owner_cpf=cpf)).id
    create_application()
    iid = inspections.start_inspection(inspector, vehicle_id=vid)
    shown = ChecklistDialog(inspector, iid, loaded=inspections.checklist_view(inspector, iid))
    qtbot.addWidget(shown)
    shown.show()
    qtbot.waitExposed(shown)
    shown.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is shown)
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    monkeypatch.setattr(checklist_module, "preview_pdf", lambda *a, **k: None)
    return shown


def test_the_checklist_fits_and_every_button_has_an_access_key(dialog: ChecklistDialog) -> None:
    assert fits_screen(dialog) == []
    assert missing_access_keys(dialog) == []
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    dialog.grab().save(str(SCREENSHOTS / "checklist.png"))


def test_keys_1_2_3_answer_the_item_and_move_to_the_next(qtbot, dialog: ChecklistDialog) -> None:  # noqa: ANN001
    codes = list(dialog.rows)
    first = dialog.rows[codes[0]].buttons[ItemResult.OK]
    first.setFocus()
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_1)
    assert dialog.rows[codes[0]].result() is ItemResult.OK
    assert QApplication.focusWidget() is dialog.rows[codes[1]].buttons[ItemResult.OK]
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_2)
    assert dialog.rows[codes[1]].result() is ItemResult.NOT_OK
    assert f"faltam {len(codes) - 2} itens de {len(codes)}" in dialog.result_label.text()


def test_the_count_of_items_left_follows_the_answers_and_goes_after_aprovado(qtbot, dialog: ChecklistDialog) -> None:  # noqa: ANN001
    codes = list(dialog.rows)
    for code in codes[:-2]:
        dialog.rows[code].buttons[ItemResult.OK].setChecked(True)
    qtbot.keyPress(dialog, Qt.Key.Key_C, Qt.KeyboardModifier.AltModifier)  # Concluir: 2 items left
    qtbot.waitUntil(no_button_down)  # the access key's animated click
    assert "Faltam responder 2 itens" in dialog.message.text()
    dialog.rows[codes[-2]].buttons[ItemResult.OK].setChecked(True)
    assert "Falta responder 1 item" in dialog.message.text()  # not still "2"
    assert "falta 1 item de" in dialog.result_label.text()
    dialog.rows[codes[-1]].buttons[ItemResult.OK].setChecked(True)
    assert "APROVADO" in dialog.result_label.text()
    assert "Falta" not in dialog.message.text() and dialog.message.text() == ""
