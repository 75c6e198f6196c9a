"""Ferramentas › Estoque de cartões: a batch typed from the keyboard, an overlap refused on its field,
a spoiled card, the period report with an anomaly, the spreadsheet, and the menu that opens it."""

from __future__ import annotations

from pathlib import Path

import pytest
from openpyxl import load_workbook
from permit_factory import make_dossier  # type: ignore[import-not-found]
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel
from tests_helpers import SCREENSHOTS, fits_screen, missing_access_keys  # type: ignore[import-not-found]

from motodesk.rules.common import PermitState, ServiceType
from motodesk.services import badges, card_stock, permits
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext
from motodesk.ui import card_stock as card_stock_ui
from motodesk.ui.app import create_application
from motodesk.ui.card_stock import CardStockDialog
from motodesk.ui.widgets import field_error


@pytest.fixture
def dialog_for(qtbot, wait_ops):  # noqa: ANN001, ANN201
    def open_dialog(ctx: AppContext) -> CardStockDialog:
        create_application()
        dialog = CardStockDialog(ctx)
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitExposed(dialog)
        wait_ops()
        return dialog

    return open_dialog


def test_batches_spoiled_cards_and_the_report_from_the_keyboard(dialog_for, wait_ops, qtbot, monkeypatch,  # noqa: ANN001
                                                                tmp_path: Path, ctx: AppContext,
                                                                supervisor: AppContext, clerk: AppContext) -> None:
    dossier = make_dossier(ctx, ServiceType.MOTOBOY, state=PermitState.APPROVED, name="Helena Batista Couto")
    permit_id = permits.issue(supervisor, dossier.application_id).id
    dialog = dialog_for(supervisor)
    assert "Nenhum lote registrado" in dialog.status.text() and dialog.required.isChecked()

    qtbot.keyClicks(dialog.first, "000101")
    qtbot.keyClicks(dialog.last, "000150")
    qtbot.keyClicks(dialog.note, "NF 4.321")
    assert dialog.has_changes()
    qtbot.keyClick(dialog.add_batch_button, Qt.Key.Key_Space)
    wait_ops()
    assert [(r.first_serial, r.last_serial, r.left, r.note) for r in dialog.batch_model.rows()] == [
        ("000101", "000150", 50, "NF 4.321")]
    assert "Lote registrado: 000101 a 000150" in dialog.status.text() and not dialog.has_changes()

    qtbot.keyClicks(dialog.first, "000140")  # overlaps: refused on the field, nothing recorded
    qtbot.keyClicks(dialog.last, "000160")
    qtbot.keyClick(dialog.add_batch_button, Qt.Key.Key_Space)
    wait_ops()
    assert field_error(dialog.first) == "Sobreposição com outro lote." and len(dialog.batch_model.rows()) == 1
    for field in (dialog.first, dialog.last):
        field.selectAll()
        qtbot.keyClick(field, Qt.Key.Key_Delete)
    assert field_error(dialog.first) is None  # editing the field clears its mark

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    dialog.grab().save(str(SCREENSHOTS / "card_stock_batches.png"))
    badges.print_badges(clerk, [permit_id], card_serials=["000103"])  # 000101 and 000102 skipped...
    dialog.tabs.setCurrentIndex(1)
    qtbot.keyClicks(dialog.spoil_serial, "101")
    dialog.spoil_reason.setEditText("Cartão danificado na entrega")
    qtbot.keyClick(dialog.spoil_button, Qt.Key.Key_Space)  # ...000101 accounted for
    wait_ops()
    assert [(r.serial, r.reason) for r in dialog.spoiled_model.rows()] == [("000101", "Cartão danificado na entrega")]

    dialog.tabs.setCurrentIndex(2)
    qtbot.keyClick(dialog.run_button, Qt.Key.Key_Space)
    wait_ops()
    report = dialog.report
    assert report is not None and (report.received, report.printed, report.spoiled, report.left) == (50, 1, 1, 48)
    assert [(a.kind, a.serial) for a in dialog.anomaly_model.rows()] == [("skipped", "000102")]
    assert "Cartões em estoque no fim do período" in dialog.summary.text()
    dialog.grab().save(str(SCREENSHOTS / "card_stock_report.png"))

    out = tmp_path / "estoque"
    monkeypatch.setattr(card_stock_ui.QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), ""))
    qtbot.keyClick(dialog.export_button, Qt.Key.Key_Space)
    wait_ops()
    assert dialog.exported == out.with_suffix(".xlsx")
    book = load_workbook(dialog.exported)
    assert [row[1] for row in book["Anomalias"].iter_rows(min_row=3, values_only=True)] == ["000102"]

    qtbot.keyClick(dialog.required, Qt.Key.Key_Space)  # a supervisor turns the requirement off
    wait_ops()
    assert not card_stock.serial_required_setting(clerk)


def test_a_clerk_spoils_cards_but_records_no_batch_and_the_dialog_fits(dialog_for, ctx: AppContext,  # noqa: ANN001
                                                                        supervisor: AppContext,
                                                                        clerk: AppContext) -> None:
    card_stock.record_batch(supervisor, "PTC-000001", "PTC-000500", received_on=local_today())
    dialog = dialog_for(clerk)
    assert not dialog.add_batch_button.isEnabled() and not dialog.required.isEnabled()
    assert dialog.spoil_button.isEnabled() and "500 cartão(ões) em estoque" in dialog.status.text()
    assert fits_screen(dialog) == []
    for index in range(dialog.tabs.count()):
        assert "&" in dialog.tabs.tabText(index)
        dialog.tabs.setCurrentIndex(index)
        assert missing_access_keys(dialog) == [], dialog.tabs.tabText(index)
    inputs = (dialog.first, dialog.last, dialog.received, dialog.note, dialog.spoil_serial, dialog.spoil_reason,
              dialog.start, dialog.end, dialog.batch_table, dialog.spoiled_table, dialog.anomaly_table)
    buddies = {label.buddy() for label in dialog.findChildren(QLabel)}
    assert all(field in buddies for field in inputs)


def test_the_tools_menu_opens_it(qtbot, monkeypatch, clerk: AppContext) -> None:  # noqa: ANN001
    from motodesk.ui.mainwindow import MainWindow

    create_application()
    window = MainWindow(clerk)
    qtbot.addWidget(window)
    opened: list[AppContext] = []
    monkeypatch.setattr(card_stock_ui, "open_card_stock", lambda ctx, parent=None: opened.append(ctx))
    (action,) = [a for a in window.findChildren(type(window.menuBar().actions()[0])) if a.objectName() == "card_stock"]
    assert action.text() == "&Estoque de cartões…" and action.isEnabled()
    action.trigger()
    assert opened == [clerk]
