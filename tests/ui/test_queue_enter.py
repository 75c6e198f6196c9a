"""Issue #26, item 3: Enter (or a double click) in the inspector's queue opens the row; when that
starts an inspection it asks first — "Iniciar a vistoria do veículo PLACA agora?", Sim/Não with
"Não" the default — and "Não" starts nothing. "Abrir" on a booked inspection in the history asks too."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox
from tests_helpers import settle_gui, valid_cpf  # type: ignore[import-not-found]

from motodesk.rules.common import ServiceType
from motodesk.services import inspections, people, vehicles
from motodesk.services.context import AppContext
from motodesk.services.inspections import InspectionStatus
from motodesk.services.people import PersonInput
from motodesk.services.vehicles import VehicleInput
from motodesk.ui.app import create_application
from motodesk.ui.checklist import ChecklistDialog
from motodesk.ui.screens import inspections as screen
from motodesk.ui.screens.inspections import InspectionsPage
from motodesk.ui.widgets import after

PLATE = "PTC4B83"


@pytest.fixture
def booked(clerk: AppContext) -> int:
    """A vehicle with an inspection booked for today: the queue's only row."""
    cpf = valid_cpf()
    hid = people.save_person(clerk, PersonInput(full_name="José Carlos Ferreira", cpf=cpf)).id
    vid = vehicles.save_vehicle(clerk, VehicleInput(
        plate=PLATE, holder_id=hid, service_type=ServiceType.MOTOTAXI, make="Honda", model="CG 160 Fan",
        year_manufacture=2024, year_model=2025, engine_cc=162, colour="Amarela", category="aluguel",
        crlv_year=2026, crlv_municipality="Patrocínio", crlv_uf="MG", owner_cpf=cpf)).id
    return inspections.schedule_inspection(clerk, vid, vehicles.local_today())


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[ChecklistDialog]:
    dialogs: list[ChecklistDialog] = []

    class Shown(ChecklistDialog):
        def exec(self) -> int:
            dialogs.append(self)
            return 0

    monkeypatch.setattr(screen, "ChecklistDialog", Shown)
    return dialogs


def _page(qtbot, ctx: AppContext) -> InspectionsPage:  # noqa: ANN001
    create_application()
    page = InspectionsPage(ctx)
    qtbot.addWidget(page)
    page.resize(1366, 768)
    page.show()
    qtbot.waitExposed(page)
    settle_gui(qtbot)
    return page


def _answer(qtbot, questions: list[str], yes: bool) -> None:  # noqa: ANN001
    """When the question comes, read it and answer with the keyboard: Enter (the default) or Sim."""
    def poll() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            after(QApplication.instance(), 30, poll)
            return
        questions.append(box.text())
        assert box.defaultButton() is box.button(QMessageBox.StandardButton.No)
        target = box.button(QMessageBox.StandardButton.Yes) if yes else box.focusWidget() or box
        qtbot.keyClick(target, Qt.Key.Key_Space if yes else Qt.Key.Key_Return)

    after(QApplication.instance(), 30, poll)


def _statuses(ctx: AppContext) -> list[InspectionStatus]:
    return [r.status for r in inspections.list_inspections(ctx, "")]


def test_enter_on_a_queue_row_asks_and_no_starts_nothing_sim_starts_it(
        qtbot, inspector: AppContext, booked: int, opened: list[ChecklistDialog]) -> None:  # noqa: ANN001
    page = _page(qtbot, inspector)
    assert page.queue_model.rowCount() == 1
    page.queue.setFocus()
    page.queue.selectRow(0)
    questions: list[str] = []

    _answer(qtbot, questions, yes=False)
    qtbot.keyClick(page.queue, Qt.Key.Key_Return)
    settle_gui(qtbot)
    assert questions == [f"Iniciar a vistoria do veículo {page.queue_row().plate} agora?"]
    assert _statuses(inspector) == [InspectionStatus.SCHEDULED]  # nothing started, no inspection row added
    assert not opened

    _answer(qtbot, questions, yes=True)
    qtbot.keyClick(page.queue, Qt.Key.Key_Return)
    settle_gui(qtbot)
    assert len(questions) == 2
    assert _statuses(inspector) == [InspectionStatus.DRAFT]  # the booked one, started
    assert len(opened) == 1

    # In progress now: Enter opens it without asking (nothing more is started).
    settle_gui(qtbot)
    page.queue.setFocus()
    page.queue.selectRow(0)
    assert page.queue_row().status is InspectionStatus.DRAFT
    qtbot.keyClick(page.queue, Qt.Key.Key_Return)
    settle_gui(qtbot)
    assert len(questions) == 2 and len(opened) == 2
    assert _statuses(inspector) == [InspectionStatus.DRAFT]


def test_abrir_on_a_booked_inspection_in_the_history_asks_first(
        qtbot, inspector: AppContext, booked: int, opened: list[ChecklistDialog]) -> None:  # noqa: ANN001
    page = _page(qtbot, inspector)
    page.tabs.setCurrentIndex(2)
    settle_gui(qtbot)
    page.history.setFocus()
    page.history.selectRow(0)
    questions: list[str] = []
    _answer(qtbot, questions, yes=False)
    qtbot.keyClick(page.history, Qt.Key.Key_Return)
    settle_gui(qtbot)
    assert questions == [f"Iniciar a vistoria do veículo {page.history_row().plate} agora?"]
    assert _statuses(inspector) == [InspectionStatus.SCHEDULED] and not opened
