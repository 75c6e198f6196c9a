"""Ferramentas › Estoque de cartões: batches of blank pre-numbered cards, spoiled cards, and the
report of a period (printed, spoiled, left, anomalies) with its spreadsheet.

Every service call runs off the GUI thread (:class:`motodesk.ui.ops.ServiceOp`); the dialog fits a
1366×768 screen and every field and button has an access key. Esc with a batch or a spoiled card
typed but not recorded asks first (:class:`motodesk.ui.guard.GuardedDialog`).
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QGridLayout,
    QGroupBox,
    QLabel,
    QTableView,
    QWidget,
)

from motodesk.rules.common import Role
from motodesk.rules.text import format_int
from motodesk.services import card_stock
from motodesk.services.card_stock import Anomaly, BatchRow, SpoiledRow, StockReport
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext
from motodesk.ui.badge_print import SPOIL_REASONS, fit_screen
from motodesk.ui.formkit import (
    buddy,
    captioned,
    column,
    form,
    line_edit,
    named,
    push_button,
    row,
    wrapped_label,
)
from motodesk.ui.guard import GuardedDialog
from motodesk.ui.ops import ServiceOp
from motodesk.ui.tablemodel import Column, RowTableModel
from motodesk.ui.widgets import DateField, fit_columns, mark_field, tab_widget, table_view

RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
BATCH_COLUMNS: list[Column[BatchRow]] = [
    Column("first", "Primeiro cartão", lambda r: r.first_serial),
    Column("last", "Último cartão", lambda r: r.last_serial),
    Column("cards", "Cartões", lambda r: r.cards, RIGHT),
    Column("used", "Usados", lambda r: r.used, RIGHT),
    Column("spoiled", "Inutilizados", lambda r: r.spoiled, RIGHT),
    Column("left", "Em estoque", lambda r: r.left, RIGHT),
    Column("received", "Recebido em", lambda r: r.received_on),
    Column("by", "Registrado por", lambda r: r.recorded_by),
    Column("note", "Observação", lambda r: r.note or ""),
]
SPOILED_COLUMNS: list[Column[SpoiledRow]] = [
    Column("serial", "Cartão", lambda r: r.serial),
    Column("at", "Registrado em", lambda r: r.spoiled_at),
    Column("by", "Por", lambda r: r.spoiled_by),
    Column("reason", "Motivo", lambda r: r.reason),
]
ANOMALY_COLUMNS: list[Column[Anomaly]] = [
    Column("kind", "Anomalia", lambda a: a.label),
    Column("serial", "Cartão", lambda a: a.serial),
    Column("message", "Descrição", lambda a: a.message, tooltip=lambda a: a.message),
]


def _first_of_month(day: date) -> date:
    return day.replace(day=1)


class CardStockDialog(GuardedDialog):
    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.report: StockReport | None = None
        self.exported: Path | None = None
        self._close_after = False
        self._message: str | None = None
        self.setObjectName("card_stock")
        self.setWindowTitle("Estoque de cartões dos crachás")
        keeper = ctx.user.role in (Role.SUPERVISOR, Role.ADMIN)
        printer = ctx.user.role in (Role.CLERK, Role.SUPERVISOR)

        self.tabs = tab_widget("tabs", (self._batches_tab(keeper), "&Lotes"),
                               (self._spoiled_tab(printer), "&Inutilizados"),
                               (self._report_tab(), "&Relatório do período"))
        for button in (self.run_button, self.export_button):  # the report is for supervisor and admin
            button.setEnabled(keeper)
            if not keeper:
                button.setToolTip("Só supervisor ou administrador gera o relatório do estoque.")

        self.required = QCheckBox("E&xigir o número do cartão ao imprimir crachás (recomendado)")
        self.required.setObjectName("required")
        self.required.setEnabled(keeper)
        self.required.setProperty("guard_ignore", True)  # saved when ticked
        self.required.setToolTip("Com lotes registrados, cada crachá impresso na impressora de cartões consome "
                                 "um número; desligado, o número é opcional e o relatório conta os crachás sem "
                                 "cartão. Só supervisor ou administrador altera.")
        self.required.toggled.connect(self._required_toggled)
        self.status = wrapped_label("", "status")
        close = push_button("&Fechar", "close", self.reject, auto_default=False)
        column((self.tabs, 1), self.status, row(self.required, 1, close), parent=self)
        fit_screen(self, 1100, 660)
        self.reload()
        self.mark_clean()

    # --- tabs --------------------------------------------------------------------------------
    @staticmethod
    def _list_and_form(caption: str, table: QTableView, box: QGroupBox) -> QWidget:
        """A tab: its list, captioned (the caption's access key goes to the table), above the box that
        registers one more."""
        page = QWidget()
        column(buddy(caption, table), (table, 1), box, parent=page)
        return page

    def _batches_tab(self, keeper: bool) -> QWidget:
        self.batch_model: RowTableModel[BatchRow] = RowTableModel(BATCH_COLUMNS)
        self.batch_table = table_view("batches", model=self.batch_model)
        box = QGroupBox("Registrar lote recebido")
        self.first = line_edit("first_serial", "ex.: 000101 ou PTC-000101")
        self.last = line_edit("last_serial", "ex.: 000600")
        self.received = named(DateField(optional=False), "received_on")
        self.note = line_edit("note", "nota fiscal, fornecedor…", card_stock.MAX_NOTE)
        self.add_batch_button = push_button("Re&gistrar lote", "add_batch", self.add_batch, auto_default=False)
        grid = QGridLayout(box)
        for index, (text, field) in enumerate((("&Primeiro cartão:", self.first), ("Úl&timo cartão:", self.last),
                                               ("Rece&bido em:", self.received), ("&Observação:", self.note))):
            grid.addWidget(buddy(text, field), 0, index)
            grid.addWidget(field, 1, index)
        grid.addWidget(self.add_batch_button, 1, 4)
        for field in (self.first, self.last):
            field.setMinimumWidth(190)
            field.textEdited.connect(lambda _t, f=field: mark_field(f, None))
        grid.setColumnStretch(3, 1)
        box.setEnabled(keeper)
        if not keeper:
            box.setToolTip("Só supervisor ou administrador registra lotes.")
        return self._list_and_form("Lotes regi&strados:", self.batch_table, box)

    def _spoiled_tab(self, printer: bool) -> QWidget:
        self.spoiled_model: RowTableModel[SpoiledRow] = RowTableModel(SPOILED_COLUMNS)
        self.spoiled_table = table_view("spoiled", model=self.spoiled_model)
        box = QGroupBox("Registrar cartão inutilizado")
        self.spoil_serial = line_edit("spoil_serial")
        self.spoil_reason = named(QComboBox(), "spoil_reason")
        self.spoil_reason.setEditable(True)
        self.spoil_reason.addItems(SPOIL_REASONS)
        self.spoil_reason.setCurrentIndex(-1)
        self.spoil_reason.setEditText("")
        self.spoil_button = push_button("Registrar i&nutilizado", "spoil", self.spoil, auto_default=False)
        form(("&Cartão:", self.spoil_serial), ("&Motivo:", self.spoil_reason), ("", self.spoil_button), parent=box)
        box.setEnabled(printer)
        return self._list_and_form("Cartões inutili&zados (mais recentes primeiro):", self.spoiled_table, box)

    def _report_tab(self) -> QWidget:
        page = QWidget()
        today = local_today()
        self.start = DateField(optional=False)
        self.start.setObjectName("start")
        self.start.set_value(_first_of_month(today))
        self.end = DateField(optional=False)
        self.end.setObjectName("end")
        self.end.set_value(today)
        for field in (self.start, self.end):
            field.setProperty("guard_ignore", True)  # a period to look at, not work to lose
        self.run_button = push_button("&Gerar relatório", "run_report", self.run_report, auto_default=False)
        self.export_button = push_button("&Exportar planilha…", "export", self.export, auto_default=False)
        period = row(*captioned(("&De:", self.start), ("&Até:", self.end)), self.run_button, self.export_button, 1)
        self.summary = QLabel("")
        self.summary.setObjectName("summary")
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.anomaly_model: RowTableModel[Anomaly] = RowTableModel(ANOMALY_COLUMNS)
        self.anomaly_table = table_view("anomalies", model=self.anomaly_model)
        column(period, self.summary, buddy("A&nomalias (cartão usado duas vezes, pulado ou fora dos lotes):",
                                           self.anomaly_table), (self.anomaly_table, 1), parent=page)
        return page

    # --- loading -----------------------------------------------------------------------------
    def reload(self, message: str | None = None) -> None:
        """Batches, spoiled cards, the setting and the report again; ``message`` then in the status line."""
        self._message = message

        def load() -> tuple[list[BatchRow], list[SpoiledRow], bool]:
            return (card_stock.list_batches(self.ctx), card_stock.list_spoiled(self.ctx),
                    card_stock.serial_required_setting(self.ctx))

        ServiceOp(self, load, lock=False).success(self._loaded).run()
        if self.run_button.isEnabled():  # a clerk does not see the period's report
            self.run_report()

    def _loaded(self, loaded: tuple[list[BatchRow], list[SpoiledRow], bool]) -> None:
        batches, spoiled, required = loaded
        self.batch_model.set_rows(batches)
        fit_columns(self.batch_table)
        self.spoiled_model.set_rows(spoiled)
        fit_columns(self.spoiled_table)
        self.required.blockSignals(True)
        self.required.setChecked(required)
        self.required.blockSignals(False)
        left = sum(b.left for b in batches)
        stock = (f"{format_int(left)} cartão(ões) em estoque em {len(batches)} lote(s)." if batches else
                 "Nenhum lote registrado: a impressão de crachás não controla o estoque de cartões.")
        self.status.setText(f"{self._message} {stock}" if self._message else stock)
        self._message = None

    def run_report(self) -> None:
        start, end = self.start.value(), self.end.value()
        if start is None or end is None:
            mark_field(self.start if start is None else self.end, "Informe a data (dd/mm/aaaa).")
            return
        ServiceOp(self, lambda: card_stock.stock_report(self.ctx, start, end), lock=False,
                  fields={"end": self.end}).success(self._reported).run()

    def _reported(self, report: StockReport) -> None:
        self.report = report
        rows = "".join(f"<tr><td>{label}</td><td align='right'><b>{format_int(value)}</b></td></tr>"
                       for label, value in card_stock.summary_lines(report))
        self.summary.setText(f"<table cellspacing='4'>{rows}</table>")
        self.anomaly_model.set_rows(report.anomalies)
        fit_columns(self.anomaly_table, 200)

    # --- actions -----------------------------------------------------------------------------
    def add_batch(self) -> None:
        first, last, received, note = self.first.text(), self.last.text(), self.received.value(), self.note.text()
        for field in (self.first, self.last, self.received, self.note):
            mark_field(field, None)
        ServiceOp(self, lambda: card_stock.record_batch(self.ctx, first, last, received_on=received, note=note),
                  busy="Registrando o lote…", change="card_stock", title="Lote não registrado",
                  fields={"first_serial": self.first, "last_serial": self.last, "received_on": self.received,
                          "note": self.note}).success(self._batch_added).run()

    def _batch_added(self, row: BatchRow) -> None:
        for field in (self.first, self.last, self.note):
            field.clear()
        self.mark_clean()
        if self._close_after:
            self.accept()
            return
        self.reload(f"Lote registrado: {row.first_serial} a {row.last_serial} ({format_int(row.cards)} cartões).")

    def spoil(self) -> None:
        serial, reason = self.spoil_serial.text(), self.spoil_reason.currentText()
        mark_field(self.spoil_serial, None)
        ServiceOp(self, lambda: card_stock.spoil_card(self.ctx, serial, reason), busy="Registrando…",
                  change="card_stock", title="Cartão não registrado",
                  fields={"reason": self.spoil_reason}).success(self._spoiled).run()

    def _spoiled(self, row: SpoiledRow) -> None:
        self.spoil_serial.clear()
        self.spoil_reason.setEditText("")
        self.mark_clean()
        if self._close_after:
            self.accept()
            return
        self.reload(f"Cartão {row.serial} registrado como inutilizado.")

    def _required_toggled(self, checked: bool) -> None:
        ServiceOp(self, lambda: card_stock.set_serial_required(self.ctx, checked), change="settings") \
            .success(lambda value: self.status.setText(
                "Número do cartão exigido ao imprimir." if value else
                "Número do cartão opcional: o relatório conta os crachás impressos sem cartão.")).run()

    def export(self) -> None:
        start, end = self.start.value(), self.end.value()
        if start is None or end is None:
            return
        name, _ = QFileDialog.getSaveFileName(self, "Exportar relatório do estoque de cartões",
                                              f"estoque-cartoes-{start:%Y%m%d}-{end:%Y%m%d}.xlsx",
                                              "Planilhas (*.xlsx)")
        if not name:
            return
        path = Path(name) if name.lower().endswith(".xlsx") else Path(name).with_suffix(".xlsx")
        ServiceOp(self, lambda: card_stock.export_report(self.ctx, start, end, path), busy="Gravando a planilha…",
                  title="Planilha não gravada").success(lambda report: self._exported(path, report)).run()

    def _exported(self, path: Path, report: StockReport) -> None:
        self.exported = path
        self._reported(report)
        self.status.setText(f"Planilha gravada em {path}.")

    def save_and_close(self) -> None:
        """"Salvar" on closing with changes: record what was typed (the batch, or the spoiled card), then close."""
        self._close_after = True
        if self.first.text().strip() or self.last.text().strip():
            self.add_batch()
        elif self.spoil_serial.text().strip():
            self.spoil()


def open_card_stock(ctx: AppContext, parent: QWidget | None = None) -> None:
    dialog = CardStockDialog(ctx, parent)
    try:
        dialog.exec()
    finally:
        dialog.deleteLater()
