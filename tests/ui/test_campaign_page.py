"""The "Recadastramento" page driven from the keyboard at 1366x768: open, Enter on a row, reschedule,
letters, export, close and the absent with their infraction."""

from __future__ import annotations

import io
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog
from reports_factory import holder  # type: ignore[import-not-found]
from tests_helpers import SCREENSHOTS, fits_screen, missing_access_keys  # type: ignore[import-not-found]

from motodesk.rules.campaign import AppointmentState
from motodesk.rules.common import ServiceType
from motodesk.services import campaigns
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext
from motodesk.ui.app import create_application
from motodesk.ui.screens import campaign as screen
from motodesk.ui.screens.campaign import CampaignPage, RescheduleDialog, RowActionDialog


@pytest.fixture
def answers(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[Any]]:
    """Confirmations say yes; messages, previews and errors are recorded instead of shown."""
    seen: dict[str, list[Any]] = {"inform": [], "pdf": [], "errors": [], "confirm": []}
    monkeypatch.setattr(screen, "confirm", lambda _p, title, text: seen["confirm"].append((title, text)) or True)
    monkeypatch.setattr(screen, "inform", lambda _p, title, text: seen["inform"].append((title, text)))
    monkeypatch.setattr(screen, "preview_pdf", lambda _p, pdf, title, *a: seen["pdf"].append(pdf))
    monkeypatch.setattr("motodesk.ui.ops.show_error", lambda _p, exc, *a: seen["errors"].append(str(exc)))
    return seen


def _window(qtbot, ctx: AppContext):  # noqa: ANN001, ANN202
    from motodesk.ui.mainwindow import MainWindow

    create_application()
    window = MainWindow(ctx)
    qtbot.addWidget(window)
    window.showMaximized()
    qtbot.waitExposed(window)
    page = window.show_section("campaign")
    assert isinstance(page, CampaignPage)
    return window, page


def _drive(monkeypatch: pytest.MonkeyPatch, qtbot, script: list[Any]) -> None:  # noqa: ANN001
    """Replace run_dialog: each dialog shown is handed to the next step of ``script``."""
    def run(dialog: QDialog) -> bool:
        step = script.pop(0)
        dialog.show()
        dialog.activateWindow()
        qtbot.waitActive(dialog)
        step(dialog)
        return dialog.result() == QDialog.DialogCode.Accepted

    monkeypatch.setattr(screen, "run_dialog", run)


def test_the_counter_from_the_keyboard(qtbot, supervisor: AppContext, wait_ops, answers,  # noqa: ANN001
                                       monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    today = local_today()
    holder(supervisor, "Ana Paula Vieira", ServiceType.MOTOTAXI, today=today, issued_on=today - timedelta(days=340))
    holder(supervisor, "Bruno Souza Lima", ServiceType.MOTOBOY, today=today, issued_on=today - timedelta(days=345))
    holder(supervisor, "Carla Mendes Rocha", ServiceType.MOTOFRETE, today=today, issued_on=today - timedelta(days=100),
           medical_issued=today - timedelta(days=350))
    window, page = _window(qtbot, supervisor)
    wait_ops()
    assert fits_screen(window) == []
    assert missing_access_keys(page) == []
    assert "Nenhum recadastramento" in page.summary.text()

    # Open: type the period, Enter on the button.
    start, end = today + timedelta(days=1), today + timedelta(days=40)
    page.period_start.setFocus()
    qtbot.keyClicks(page.period_start, f"{start:%d%m%Y}")
    qtbot.keyClicks(page.period_end, f"{end:%d%m%Y}")
    page.open_button.setFocus()
    qtbot.keyClick(page.open_button, Qt.Key.Key_Space)
    wait_ops()
    assert answers["errors"] == []
    assert answers["inform"][-1][0] == "Recadastramento aberto" and "3 pessoa(s)" in answers["inform"][-1][1]
    wait_ops()
    assert page.model.rowCount() == 3  # all on the first business day
    assert "Agendados: <b>3</b>" in page.summary.text()
    assert not page.open_box.isVisible()  # one campaign open at a time

    # Enter on the first row: the dialog offers the choices; C says "compareceu", R "reagendar".
    def press_attended(dialog: QDialog) -> None:
        assert isinstance(dialog, RowActionDialog)
        qtbot.keyClick(dialog, Qt.Key.Key_C)

    def press_reschedule(dialog: QDialog) -> None:
        assert isinstance(dialog, RowActionDialog)
        qtbot.keyClick(dialog, Qt.Key.Key_R)

    def pick_third_slot(dialog: QDialog) -> None:
        assert isinstance(dialog, RescheduleDialog)
        dialog.slot_choice.setFocus()
        qtbot.keyClick(dialog.slot_choice, Qt.Key.Key_Down)
        qtbot.keyClick(dialog.slot_choice, Qt.Key.Key_Down)
        qtbot.keyClicks(dialog.reason, "Pediu a tarde")
        qtbot.keyClick(dialog.reason, Qt.Key.Key_Return)

    _drive(monkeypatch, qtbot, [press_attended, press_reschedule, pick_third_slot])
    page.table.setFocus()
    page.table.selectRow(0)
    first = page.current()
    assert first is not None
    qtbot.keyClick(page.table, Qt.Key.Key_Return)
    wait_ops()
    assert campaigns.get_appointment(supervisor, first.id).state is AppointmentState.ATTENDED
    # the slot is on the first business day after today: marking it today asks first, naming both days
    title, text = answers["confirm"][-1]
    assert title == "Compareceu" and f"{first.slot:%d/%m/%Y}" in text and f"{today:%d/%m/%Y}" in text
    page.table.selectRow(1)
    second = page.current()
    assert second is not None
    qtbot.keyClick(page.table, Qt.Key.Key_Return)
    wait_ops()
    wait_ops()
    moved = campaigns.get_appointment(supervisor, second.id)
    assert moved.state is AppointmentState.RESCHEDULED and moved.slot != second.slot
    history = campaigns.appointment_history(supervisor, second.id)
    assert [h.to_state for h in history] == [AppointmentState.SCHEDULED, AppointmentState.RESCHEDULED]
    assert history[-1].reason == "Pediu a tarde" and history[-1].from_slot == second.slot
    assert answers["errors"] == []

    # The day's list, all days, and the search.
    page.all_days.setChecked(True)
    wait_ops()
    assert page.model.rowCount() == 3
    page.search.setFocus()
    qtbot.keyClicks(page.search, "carla")
    qtbot.keyClick(page.search, Qt.Key.Key_Return)
    wait_ops()
    assert [r.name for r in page.model.rows()] == ["Carla Mendes Rocha"]
    page.search.clear()
    qtbot.keyClick(page.search, Qt.Key.Key_Return)
    wait_ops()

    # Letters of everyone still pending (the first came) and the schedule spreadsheet.
    page.letters_button.click()
    wait_ops()
    pdf = answers["pdf"][-1]
    text = "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf)).pages)
    others = {"Ana Paula Vieira", "Bruno Souza Lima", "Carla Mendes Rocha"} - {first.name}
    assert all(name in text for name in others) and first.name not in text  # who came gets no letter
    out = tmp_path / "agenda.xlsx"
    monkeypatch.setattr(screen, "ask_save_path", lambda *_a: str(out))
    page.export_button.click()
    wait_ops()
    assert out.exists() and "3 atendimento(s)" in answers["inform"][-1][1]

    # Closing with appointments still ahead is refused, in words.
    page.close_button.click()
    wait_ops()
    assert answers["errors"] and "por vir" in answers["errors"][-1]
    page.all_days.setChecked(False)
    page.day.set_value(first.slot.date())
    wait_ops()
    page.table.selectRow(0)
    window.grab().save(str(SCREENSHOTS / "campaign.png"))


def test_closing_lists_the_absent_with_their_infraction(qtbot, supervisor: AppContext, clerk: AppContext,  # noqa: ANN001
                                                        wait_ops, answers) -> None:
    t = local_today() - timedelta(days=70)
    holder(supervisor, "Ana Paula Vieira", today=t, issued_on=t - timedelta(days=340))
    holder(supervisor, "Carla Mendes Rocha", today=t, issued_on=t - timedelta(days=100),
           medical_issued=t - timedelta(days=350))
    opened = campaigns.open_campaign(supervisor, t + timedelta(days=1), t + timedelta(days=45), today=t)
    ana = next(r for r in campaigns.list_appointments(clerk, opened.campaign.id) if r.name.startswith("Ana"))
    campaigns.mark_attendance(clerk, ana.id, True)

    window, page = _window(qtbot, supervisor)
    wait_ops()
    page.close_button.click()
    wait_ops()
    assert answers["errors"] == []
    wait_ops()
    assert page.absent_table.isVisible() and not page.table.isVisible()
    assert [r.appointment.name for r in page.absent_model.rows()] == ["Carla Mendes Rocha"]
    assert "Art. 30, Grupo 1, I" in page.absent_model.rows()[0].infraction_text
    assert "Não compareceram: 1" in page.list_title.text()
    assert not page.close_button.isEnabled() and not page.attended_button.isEnabled()
    assert page.notice_button.isEnabled()
    window.grab().save(str(SCREENSHOTS / "campaign-absent.png"))

    page.absent_table.selectRow(0)
    page.notice_button.click()
    wait_ops()
    assert answers["inform"][-1][0] == "Auto lavrado" and "AI-" in answers["inform"][-1][1]
