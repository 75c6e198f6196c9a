"""The "Pontos" page as a supervisor and a clerk use it: a bus stop refused (Art. 18), a stand created by
Decree, holders assigned up to the places and the next one refused (Art. 17) — also when another
workstation took the last place a moment before — and a place freed."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from permit_factory import make_dossier  # type: ignore[import-not-found]
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QMessageBox
from tests_helpers import SCREENSHOTS  # type: ignore[import-not-found]

from motodesk.rules.common import PermitState, ServiceType
from motodesk.services import permits, stands
from motodesk.services.context import AppContext
from motodesk.services.stands import StandInput
from motodesk.ui import ops, person_picker, widgets
from motodesk.ui.app import create_application
from motodesk.ui.screens import stands as screen
from motodesk.ui.screens.stands import StandDialog, StandsPage
from motodesk.ui.widgets import field_error

TODAY = date.today()


def _page(qtbot, qtmodeltester, ctx: AppContext, wait_ops) -> StandsPage:  # noqa: ANN001
    create_application()
    page = StandsPage(ctx)
    qtbot.addWidget(page)
    page.resize(1200, 720)
    page.show()
    qtbot.waitExposed(page)
    settle(wait_ops)
    qtmodeltester.check(page.model)
    qtmodeltester.check(page.assignments_model)
    return page


def _permit_rows(ctx: AppContext, supervisor: AppContext, names: list[str],
                 service: ServiceType = ServiceType.MOTOTAXI) -> list[permits.PermitRow]:
    rows = []
    for name in names:
        dossier = make_dossier(ctx, service, state=PermitState.APPROVED, name=name)
        issued = permits.issue(supervisor, dossier.application_id)
        rows.append(permits.get_row(supervisor, "permit", issued.id))
    return rows


def settle(wait_ops) -> None:  # noqa: ANN001
    """The write, then the stands' reload, then the holders of the selected stand."""
    for _ in range(3):
        wait_ops()


@pytest.fixture
def errors(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    shown: list[str] = []
    monkeypatch.setattr(screen, "show_error", lambda _parent, exc, *_a: shown.append(str(exc)))
    monkeypatch.setattr(ops, "show_error", lambda _parent, exc, *_a: shown.append(str(exc)))
    return shown


def test_a_supervisor_creates_a_stand_by_decree_and_a_bus_stop_is_refused(
        qtbot, qtmodeltester, monkeypatch, supervisor: AppContext, clerk: AppContext,  # noqa: ANN001
        errors: list[str], wait_ops) -> None:
    assert not _page(qtbot, qtmodeltester, clerk, wait_ops).new_button.isVisible()  # stands come by Decree
    page = _page(qtbot, qtmodeltester, supervisor, wait_ops)
    assert page.new_button.isVisible() and page.model.rowCount() == 0

    def fill(dialog: QDialog) -> bool:
        assert isinstance(dialog, StandDialog)
        dialog.show()
        qtbot.waitExposed(dialog)
        dialog.name.setText("Ponto da Praça Honorico Machado")
        dialog.address.setText("Praça Honorico Machado, lado da Rua Cesário Alvim")
        dialog.services[ServiceType.MOTOTAXI].setChecked(True)
        dialog.max_places.setValue(3)
        qtbot.keyClicks(dialog.decree_number, "5.120/2026")
        dialog.decree_date.set_value(TODAY - timedelta(days=20))
        dialog.bus_or_taxi_stop.setChecked(True)  # declared: it is a bus stop
        qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
        wait_ops()
        assert dialog.saved is None and dialog.isVisible()
        dialog.decree_number.clear()
        dialog.bus_or_taxi_stop.setChecked(False)
        qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
        wait_ops()
        assert field_error(dialog.decree_number) == "Obrigatório."
        qtbot.keyClicks(dialog.decree_number, "5.120/2026")
        qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
        wait_ops()
        return dialog.result() == QDialog.DialogCode.Accepted

    monkeypatch.setattr(widgets, "run_dialog", fill)
    qtbot.mouseClick(page.new_button, Qt.MouseButton.LeftButton)
    settle(wait_ops)
    assert len(errors) == 1  # the missing Decree number is marked on its field, not in a box
    assert errors[0].startswith("Art. 18: é proibido exercer")
    assert page.model.rowCount() == 1
    row = page.model.row_at(0)
    assert (row.name, row.max_places, row.occupied, row.free) == ("Ponto da Praça Honorico Machado", 3, 0, 3)
    assert page.totals.text() == "1 ponto(s) · 3 vaga(s) · 0 ocupada(s) · 3 livre(s)"
    assert "Decreto nº 5.120/2026" in page.status.text()


def test_a_clerk_fills_the_places_and_the_next_holder_is_refused(
        qtbot, qtmodeltester, monkeypatch, ctx: AppContext, clerk: AppContext, supervisor: AppContext,  # noqa: ANN001
        errors: list[str], wait_ops) -> None:
    stands.create_stand(supervisor, StandInput("Ponto da Praça Honorico Machado", "Praça Honorico Machado",
                                               [ServiceType.MOTOTAXI], 3, "5.120/2026", TODAY - timedelta(days=20),
                                               False))
    stands.create_stand(supervisor, StandInput("Ponto do Hospital do Cristo Redentor", "Rua Joaquim Pedro",
                                               [ServiceType.MOTOBOY, ServiceType.MOTOFRETE], 2, "5.120/2026", None,
                                               False))
    holders = _permit_rows(ctx, supervisor, ["Ana Beatriz Costa", "Bruno Henrique Dias", "Carla Mendes Rocha",
                                             "Diego Santos Lima", "Elisa Prado Faria"])
    page = _page(qtbot, qtmodeltester, clerk, wait_ops)
    assert not page.new_button.isVisible() and page.assign_button.isVisible()
    assert page.selected().name == "Ponto da Praça Honorico Machado"

    for row in holders[:3]:
        monkeypatch.setattr(person_picker, "pick", lambda _picker, row=row: row)
        qtbot.mouseClick(page.assign_button, Qt.MouseButton.LeftButton)
        settle(wait_ops)
    assert errors == []
    assert [a.holder for a in page.assignments_model.rows()] == ["Ana Beatriz Costa", "Bruno Henrique Dias",
                                                                 "Carla Mendes Rocha"]
    assert page.selected().occupancy_label == "3 de 3" and page.selected().free == 0

    monkeypatch.setattr(person_picker, "pick", lambda _picker: holders[3])
    qtbot.mouseClick(page.assign_button, Qt.MouseButton.LeftButton)
    settle(wait_ops)
    assert len(errors) == 1 and "Art. 17" in errors[0] and "tem 3 vagas, todas ocupadas" in errors[0]
    assert page.assignments_model.rowCount() == 3

    # Carla leaves; before the clerk assigns Diego, another workstation gives the place to Elisa.
    page.assignments_table.selectRow(2)
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    qtbot.mouseClick(page.unassign_button, Qt.MouseButton.LeftButton)
    settle(wait_ops)
    assert "a vaga está livre" in page.status.text() and page.selected().free == 1
    page.past.setChecked(True)
    settle(wait_ops)
    qtmodeltester.check(page.assignments_model)
    assert [(a.holder, a.end_on) for a in page.assignments_model.rows()][-1] == ("Carla Mendes Rocha", TODAY)
    page.past.setChecked(False)
    settle(wait_ops)
    stands.assign_to_stand(supervisor, page.selected().id, holders[4].id)  # the other workstation
    qtbot.mouseClick(page.assign_button, Qt.MouseButton.LeftButton)
    settle(wait_ops)
    assert len(errors) == 2 and "outra estação" in errors[1]
    assert page.selected().occupancy_label == "3 de 3"  # the page shows the register as it is now
    assert "Elisa Prado Faria" in [a.holder for a in page.assignments_model.rows()]
    page.grab().save(str(SCREENSHOTS / "stands.png"))

    # A motoboy stand lists its own; the filter keeps the stands of one service.
    page.service_filter.setCurrentIndex(page.service_filter.findData(ServiceType.MOTOBOY.value))
    settle(wait_ops)
    assert [r.name for r in page.model.rows()] == ["Ponto do Hospital do Cristo Redentor"]
    monkeypatch.setattr(person_picker, "pick", lambda _picker: holders[3])
    qtbot.mouseClick(page.assign_button, Qt.MouseButton.LeftButton)
    settle(wait_ops)
    assert "destinado a Motoboy, Moto-frete, não a Mototáxi" in errors[2]


def test_the_main_window_builds_the_page_when_it_is_first_shown(qtbot, clerk: AppContext) -> None:  # noqa: ANN001
    from motodesk.ui.mainwindow import MainWindow

    create_application()
    window = MainWindow(clerk)
    qtbot.addWidget(window)
    assert not window.page_by_key.is_built("stands")
    assert isinstance(window.show_section("stands"), StandsPage)
