"""The "Vistorias" page: the inspector's queue, the coming days' schedule, and the history."""

from __future__ import annotations

from datetime import date, timedelta

from PySide6.QtCore import QDate, Qt, QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from motodesk.rules.common import Role, ServiceType
from motodesk.services import inspections, vehicles
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext
from motodesk.services.errors import InvalidInputError, MotodeskError
from motodesk.services.inspections import (
    InspectionKind,
    InspectionRow,
    InspectionStatus,
    QueueRow,
)
from motodesk.services.vehicles import VehicleRow
from motodesk.ui.background import BackgroundOp
from motodesk.ui.checklist import ChecklistDialog
from motodesk.ui.errors import show_error
from motodesk.ui.formatting import format_date
from motodesk.ui.mainwindow import register_page
from motodesk.ui.pdfpreview import preview_pdf
from motodesk.ui.tablemodel import Column, LazyTableModel, RowTableModel
from motodesk.ui.widgets import DateField, fit_columns, heading, mark_field, table_view

RIGHT = Qt.AlignmentFlag.AlignRight
SCHEDULABLE = [k for k in InspectionKind if k is not InspectionKind.REINSPECTION]

QUEUE_COLUMNS: list[Column[QueueRow]] = [
    Column("situation", "Situação", lambda r: r.situation),
    Column("plate", "Placa", lambda r: r.plate),
    Column("holder_name", "Titular", lambda r: r.holder_name),
    Column("service_type", "Serviço", lambda r: r.service_type),
    Column("kind", "Tipo", lambda r: r.kind),
    Column("due", "Data prevista", lambda r: r.due),
    Column("days_late", "Dias de atraso", lambda r: r.days_late or "", RIGHT),
]

INSPECTION_COLUMNS: list[Column[InspectionRow]] = [
    Column("id", "Nº", lambda r: f"{r.id:06d}"),
    Column("plate", "Placa", lambda r: r.plate),
    Column("holder_name", "Titular", lambda r: r.holder_name),
    Column("service_type", "Serviço", lambda r: r.service_type),
    Column("kind", "Tipo", lambda r: r.kind),
    Column("status", "Situação", lambda r: r.status),
    Column("scheduled_for", "Agendada para", lambda r: r.scheduled_for),
    Column("performed_at", "Realizada em", lambda r: r.performed_at),
    Column("inspector_name", "Vistoriador(a)", lambda r: r.inspector_name),
    Column("next_due", "Próxima", lambda r: r.next_due),
]


def _qdate(value: date) -> QDate:
    return QDate(value.year, value.month, value.day)


class ScheduleDialog(QDialog):
    """Book an inspection: the vehicle (by plate), the day and the kind."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None, *, vehicle_id: int | None = None,
                 kind: InspectionKind = InspectionKind.REGULAR, on: date | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("schedule_dialog")
        self.setWindowTitle("Agendar vistoria")
        self.ctx = ctx
        self.vehicle: VehicleRow | None = None
        self.scheduled_id: int | None = None
        today = vehicles.local_today()
        self.plate = QLineEdit()
        self.plate.setObjectName("plate")
        self.plate.setPlaceholderText("ABC-1234 ou ABC1D23")
        self.plate.setMaxLength(8)
        self.vehicle_label = QLabel("—")
        self.vehicle_label.setObjectName("vehicle")
        self.vehicle_label.setWordWrap(True)
        self.day = DateField(optional=False)
        self.day.setObjectName("scheduled_for")
        self.day.setMinimumDate(_qdate(today))
        self.day.set_value(on or today)
        self.kind = QComboBox()
        self.kind.setObjectName("kind")
        for k in SCHEDULABLE:
            self.kind.addItem(k.label, k.value)
        self.kind.setCurrentIndex(max(0, self.kind.findData(InspectionKind(kind).value)))
        self.notes = QLineEdit()
        self.notes.setObjectName("notes")
        self.message = QLabel()
        self.message.setObjectName("message")
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #b00020")
        ok = QPushButton("Agendar")
        ok.setObjectName("ok")
        ok.setDefault(True)
        cancel = QPushButton("Cancelar")
        ok.clicked.connect(self.schedule)
        cancel.clicked.connect(self.reject)
        self.plate.editingFinished.connect(self.find_vehicle)

        form = QFormLayout()
        form.addRow("Placa:", self.plate)
        form.addRow("Veículo:", self.vehicle_label)
        form.addRow("Data:", self.day)
        form.addRow("Tipo:", self.kind)
        form.addRow("Observação:", self.notes)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(ok)
        buttons.addWidget(cancel)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.message)
        layout.addLayout(buttons)
        if vehicle_id is not None:
            record = vehicles.get_vehicle(ctx, vehicle_id)
            self.plate.setText(record.data.plate)
            self.plate.setReadOnly(True)
            self.find_vehicle()

    def find_vehicle(self) -> VehicleRow | None:
        text = self.plate.text().strip()
        rows = vehicles.list_vehicles(self.ctx, text, limit=2) if vehicles.plate_forms(text) else []
        self.vehicle = rows[0] if rows else None
        if self.vehicle is None:
            self.vehicle_label.setText("Nenhum veículo ativo com esta placa." if text else "—")
        else:
            v = self.vehicle
            self.vehicle_label.setText(f"{v.plate} – {v.make_model} – {v.service_type.label if v.service_type else ''}"
                                       f" – {v.holder_name or 'sem titular'}")
            if v.service_type is ServiceType.MOTOFRETE and self.kind.currentData() == InspectionKind.REGULAR:
                self.kind.setCurrentIndex(self.kind.findData(InspectionKind.ANNUAL.value))
        mark_field(self.plate, None if self.vehicle or not text else "Placa não encontrada entre os veículos ativos.")
        return self.vehicle

    def schedule(self) -> bool:
        if self.vehicle is None and self.find_vehicle() is None:
            self.message.setText("Informe a placa de um veículo ativo.")
            return False
        day = self.day.value()
        assert day is not None and self.vehicle is not None
        try:
            self.scheduled_id = inspections.schedule_inspection(self.ctx, self.vehicle.id, day,
                                                                InspectionKind(self.kind.currentData()),
                                                                self.notes.text())
        except InvalidInputError as exc:
            self.message.setText(" ".join([exc.message, *exc.fields.values()]))
            return False
        except MotodeskError as exc:
            self.message.setText(str(exc))
            return False
        self.accept()
        return True


class CampaignDialog(QDialog):
    """Call every active vehicle of a service to a periodic inspection (Art. 5º, § 6º), n a business day."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("campaign_dialog")
        self.setWindowTitle("Convocar vistorias periódicas")
        self.ctx = ctx
        self.result_value: inspections.CampaignScheduled | None = None
        self._op: BackgroundOp | None = None
        today = vehicles.local_today()
        self.service = QComboBox()
        self.service.setObjectName("service")
        for st in ServiceType:
            self.service.addItem(st.label, st.value)
        self.start = DateField(optional=False)
        self.start.setObjectName("start")
        self.start.setMinimumDate(_qdate(today))
        self.start.set_value(today + timedelta(days=7))
        self.per_day = QSpinBox()
        self.per_day.setObjectName("per_day")
        self.per_day.setRange(1, inspections.MAX_PER_DAY)
        self.per_day.setValue(20)
        self.message = QLabel("Todos os veículos ativos do serviço que não têm vistoria aberta serão agendados, "
                              "em ordem de placa, nos dias úteis a partir da data de início.")
        self.message.setObjectName("message")
        self.message.setWordWrap(True)
        self.ok = QPushButton("Convocar")
        self.ok.setObjectName("ok")
        cancel = QPushButton("Cancelar")
        self.ok.clicked.connect(self.run)
        cancel.clicked.connect(self.reject)
        form = QFormLayout()
        form.addRow("Serviço:", self.service)
        form.addRow("A partir de:", self.start)
        form.addRow("Vistorias por dia útil:", self.per_day)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.ok)
        buttons.addWidget(cancel)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("<b>Art. 5º, § 6º</b>: vistorias semestrais quando a Secretaria determinar."))
        layout.addLayout(form)
        layout.addWidget(self.message)
        layout.addLayout(buttons)

    def run(self) -> None:
        service = ServiceType(self.service.currentData())
        start = self.start.value() or vehicles.local_today()
        per_day = self.per_day.value()
        self.ok.setEnabled(False)
        self.message.setText("Agendando…")
        self._op = (BackgroundOp(lambda: inspections.schedule_campaign(self.ctx, service, start, per_day))
                    .on_success(self._done).on_failure(self._failed).run())

    def _done(self, result: inspections.CampaignScheduled) -> None:
        self.result_value = result
        if result.count:
            text = (f"{result.count} vistoria(s) agendada(s) de {format_date(result.first_day)} a "
                    f"{format_date(result.last_day)}.")
        else:
            text = "Nenhum veículo a convocar."
        if result.skipped:
            text += f" {result.skipped} veículo(s) já tinham vistoria aberta e foram mantidos."
        QMessageBox.information(self, "Convocação registrada", text)
        self.accept()

    def _failed(self, exc: BaseException) -> None:
        self.ok.setEnabled(True)
        if isinstance(exc, InvalidInputError):
            self.message.setText(" ".join([exc.message, *exc.fields.values()]))
        elif isinstance(exc, MotodeskError):
            self.message.setText(str(exc))
        else:
            raise exc


class InspectionsPage(QWidget):
    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        role = ctx.user.role
        self.can_record = role in inspections.RECORDERS
        self.can_schedule = role in inspections.SCHEDULERS
        self.tabs = QTabWidget()
        self.tabs.setObjectName("tabs")

        # --- queue ----------------------------------------------------------------------------
        self.queue_model: RowTableModel[QueueRow] = RowTableModel(QUEUE_COLUMNS)
        self.queue = table_view("queue", sortable=True)
        self.queue.setModel(self.queue_model)
        self.queue.doubleClicked.connect(lambda _i: self.start_selected())
        self.queue_title = QLabel()
        self.queue_title.setObjectName("queue_title")
        self.start_button = self._button("start", "Iniciar vistoria", self.start_selected, self.can_record)
        self.schedule_due_button = self._button("schedule_due", "Agendar a selecionada…", self.schedule_selected,
                                                self.can_schedule)
        self.schedule_button = self._button("schedule", "Agendar vistoria…", self.schedule_new, self.can_schedule)
        self.accident_button = self._button("accident", "Vistoria após acidente…", self.accident, self.can_record)
        self.campaign_button = self._button("campaign", "Convocar vistorias periódicas…", self.campaign,
                                            role is Role.SUPERVISOR)
        refresh = self._button("refresh", "Atualizar", self.reload, True)
        queue_tab = QWidget()
        queue_layout = QVBoxLayout(queue_tab)
        queue_layout.addWidget(self.queue_title)
        queue_layout.addWidget(self.queue, 1)
        queue_layout.addLayout(self._row(self.start_button, self.schedule_due_button, self.schedule_button,
                                         self.accident_button, self.campaign_button, None, refresh))
        self.tabs.addTab(queue_tab, "Fila de hoje")

        # --- upcoming -------------------------------------------------------------------------
        self.upcoming_model: RowTableModel[InspectionRow] = RowTableModel(INSPECTION_COLUMNS)
        self.upcoming = table_view("upcoming", sortable=True)
        self.upcoming.setModel(self.upcoming_model)
        self.reschedule_button = self._button("reschedule", "Remarcar…", self.reschedule, self.can_schedule)
        self.cancel_button = self._button("cancel_scheduled", "Cancelar agendamento…", self.cancel_scheduled,
                                          self.can_schedule)
        upcoming_tab = QWidget()
        upcoming_layout = QVBoxLayout(upcoming_tab)
        upcoming_layout.addWidget(QLabel("Vistorias agendadas para os próximos 30 dias."))
        upcoming_layout.addWidget(self.upcoming, 1)
        upcoming_layout.addLayout(self._row(self.reschedule_button, self.cancel_button, None))
        self.tabs.addTab(upcoming_tab, "Próximos dias")

        # --- history --------------------------------------------------------------------------
        self.search = QLineEdit()
        self.search.setObjectName("search")
        self.search.setPlaceholderText("Buscar por placa, nome do titular ou número da vistoria")
        self.search.setClearButtonEnabled(True)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(250)
        self._timer.timeout.connect(self.reload_history)
        self.search.textChanged.connect(lambda _t: self._timer.start())
        self.history_model: LazyTableModel[InspectionRow] = LazyTableModel(INSPECTION_COLUMNS, self._fetch)
        self.history = table_view("history", sortable=True)
        self.history.setModel(self.history_model)
        self.history.doubleClicked.connect(lambda _i: self.open_selected())
        self.history.sortByColumn(0, Qt.SortOrder.DescendingOrder)
        self.open_button = self._button("open", "Abrir", self.open_selected, True)
        self.report_button = self._button("report", "Ver laudo…", self.show_report, True)
        self.reinspect_button = self._button("reinspect", "Nova vistoria dos pendentes", self.reinspect,
                                             self.can_record)
        self.supersede_button = self._button("supersede", "Substituir vistoria…", self.supersede, self.can_record)
        history_tab = QWidget()
        history_layout = QVBoxLayout(history_tab)
        history_layout.addWidget(self.search)
        history_layout.addWidget(self.history, 1)
        history_layout.addLayout(self._row(self.open_button, self.report_button, self.reinspect_button,
                                           self.supersede_button, None))
        self.tabs.addTab(history_tab, "Histórico")

        layout = QVBoxLayout(self)
        layout.addWidget(heading("Vistorias"))
        layout.addWidget(self.tabs, 1)
        self.history.selectionModel().selectionChanged.connect(lambda *_: self._history_buttons())
        self.queue.selectionModel().selectionChanged.connect(lambda *_: self._queue_buttons())
        self.reload()

    @staticmethod
    def _row(*widgets: QWidget | None) -> QHBoxLayout:
        row = QHBoxLayout()
        for widget in widgets:
            if widget is None:
                row.addStretch(1)
            else:
                row.addWidget(widget)
        return row

    def _button(self, name: str, text: str, slot: object, visible: bool) -> QPushButton:
        button = QPushButton(text)
        button.setObjectName(name)
        button.clicked.connect(slot)
        button.setVisible(visible)
        return button

    # --- data ------------------------------------------------------------------------------------
    def _fetch(self, offset: int, limit: int, key: str, descending: bool) -> list[InspectionRow]:
        return inspections.list_inspections(self.ctx, self.search.text(), offset=offset, limit=limit,
                                            sort_key=key, descending=descending)

    def reload(self) -> None:
        today = vehicles.local_today()
        try:
            self.queue_model.set_rows(inspections.inspector_queue(self.ctx, today))
            self.upcoming_model.set_rows(inspections.upcoming_inspections(self.ctx, today))
        except MotodeskError as exc:
            show_error(self, exc)
            return
        fit_columns(self.queue)
        fit_columns(self.upcoming)
        n = self.queue_model.rowCount()
        self.queue_title.setText(f"<b>Fila do vistoriador – {format_date(today)}</b>: {n} vistoria(s) "
                                 "para hoje, atrasadas, em preenchimento ou vencidas (anual do moto-frete, Art. 23; "
                                 "periódicas, Art. 5º, § 6º).")
        self.reload_history()
        self._queue_buttons()

    def reload_history(self) -> None:
        self._timer.stop()
        current = self.history_row()
        try:
            self.history_model.reload()
        except MotodeskError as exc:
            show_error(self, exc)
        fit_columns(self.history)
        if current is not None:
            for row in range(self.history_model.rowCount()):
                if self.history_model.row_at(row).id == current.id:
                    self.history.selectRow(row)
                    break
        self._history_buttons()

    def queue_row(self) -> QueueRow | None:
        rows = self.queue.selectionModel().selectedRows()
        return self.queue_model.row_at(rows[0].row()) if rows else None

    def history_row(self) -> InspectionRow | None:
        rows = self.history.selectionModel().selectedRows()
        return self.history_model.row_at(rows[0].row()) if rows else None

    def upcoming_row(self) -> InspectionRow | None:
        rows = self.upcoming.selectionModel().selectedRows()
        return self.upcoming_model.row_at(rows[0].row()) if rows else None

    def _queue_buttons(self) -> None:
        row = self.queue_row()
        self.start_button.setEnabled(row is not None)
        self.schedule_due_button.setEnabled(row is not None and row.inspection_id is None)

    def _history_buttons(self) -> None:
        row = self.history_row()
        concluded = row is not None and row.status.concluded
        self.open_button.setEnabled(row is not None)
        self.report_button.setEnabled(concluded)
        self.reinspect_button.setEnabled(row is not None and row.status is InspectionStatus.FAILED)
        self.supersede_button.setEnabled(row is not None and row.status is InspectionStatus.APPROVED)

    # --- actions ---------------------------------------------------------------------------------
    def open_checklist(self, inspection_id: int) -> None:
        dialog = ChecklistDialog(self.ctx, inspection_id, self)
        dialog.exec()
        self.reload()

    def start_selected(self) -> None:
        row = self.queue_row()
        if row is None or not self.can_record:
            return
        try:
            if row.kind is InspectionKind.REINSPECTION and row.status is InspectionStatus.FAILED:
                assert row.inspection_id is not None
                inspection_id = inspections.reopen_as_reinspection(self.ctx, row.inspection_id)
            elif row.inspection_id is not None:
                inspection_id = inspections.start_inspection(self.ctx, inspection_id=row.inspection_id)
            else:
                inspection_id = inspections.start_inspection(self.ctx, vehicle_id=row.vehicle_id, kind=row.kind)
        except MotodeskError as exc:
            show_error(self, exc)
            return
        self.open_checklist(inspection_id)

    def schedule_selected(self) -> None:
        row = self.queue_row()
        if row is None:
            return
        kind = InspectionKind.REGULAR if row.kind is InspectionKind.REINSPECTION else row.kind
        if ScheduleDialog(self.ctx, self, vehicle_id=row.vehicle_id, kind=kind).exec():
            self.reload()

    def schedule_new(self) -> None:
        if ScheduleDialog(self.ctx, self).exec():
            self.reload()

    def campaign(self) -> None:
        if CampaignDialog(self.ctx, self).exec():
            self.reload()

    def accident(self) -> None:
        plate, ok = QInputDialog.getText(
            self, "Vistoria após acidente",
            "Art. 31, Grupo 4, I: veículo reparado após acidente passa por nova vistoria.\nPlaca do veículo:")
        if not ok or not plate.strip():
            return
        rows = vehicles.list_vehicles(self.ctx, plate, limit=1) if vehicles.plate_forms(plate) else []
        if not rows:
            show_error(self, MotodeskError("Nenhum veículo ativo com esta placa."))
            return
        try:
            inspection_id = inspections.start_inspection(self.ctx, vehicle_id=rows[0].id,
                                                         kind=InspectionKind.ACCIDENT)
        except MotodeskError as exc:
            show_error(self, exc)
            return
        self.open_checklist(inspection_id)

    def reschedule(self) -> None:
        row = self.upcoming_row()
        if row is None:
            return
        dialog = QDialog(self)
        dialog.setWindowTitle(f"Remarcar a vistoria de {row.plate}")
        day = DateField(optional=False)
        day.setMinimumDate(_qdate(vehicles.local_today()))
        day.set_value(row.scheduled_for or vehicles.local_today())
        ok = QPushButton("Remarcar")
        ok.clicked.connect(dialog.accept)
        layout = QFormLayout(dialog)
        layout.addRow("Nova data:", day)
        layout.addRow(ok)
        if not dialog.exec():
            return
        try:
            inspections.reschedule_inspection(self.ctx, row.id, day.value() or vehicles.local_today())
        except MotodeskError as exc:
            show_error(self, exc)
        self.reload()

    def cancel_scheduled(self) -> None:
        row = self.upcoming_row()
        if row is None:
            return
        reason, ok = QInputDialog.getMultiLineText(self, "Cancelar agendamento",
                                                   f"Vistoria de {row.plate} em {format_date(row.scheduled_for)}.\n"
                                                   "Motivo do cancelamento:")
        if not ok:
            return
        try:
            inspections.cancel_inspection(self.ctx, row.id, reason)
        except MotodeskError as exc:
            show_error(self, exc)
        self.reload()

    def open_selected(self) -> None:
        row = self.history_row()
        if row is None:
            return
        if row.status is InspectionStatus.SCHEDULED and self.can_record:
            try:
                inspections.start_inspection(self.ctx, inspection_id=row.id)
            except MotodeskError as exc:
                show_error(self, exc)
                return
        elif row.status in (InspectionStatus.SCHEDULED, InspectionStatus.CANCELLED):
            return
        self.open_checklist(row.id)

    def show_report(self) -> None:
        row = self.history_row()
        if row is None:
            return
        try:
            pdf = inspections.inspection_report(self.ctx, row.id)
        except MotodeskError as exc:
            show_error(self, exc)
            return
        year = (row.performed_at.year if row.performed_at else local_today().year)
        preview_pdf(self, pdf, f"Laudo de Vistoria {row.id:06d}/{year}")

    def reinspect(self) -> None:
        row = self.history_row()
        if row is None:
            return
        try:
            inspection_id = inspections.reopen_as_reinspection(self.ctx, row.id)
        except MotodeskError as exc:
            show_error(self, exc)
            return
        self.open_checklist(inspection_id)

    def supersede(self) -> None:
        row = self.history_row()
        if row is None:
            return
        reason, ok = QInputDialog.getMultiLineText(
            self, "Substituir vistoria aprovada",
            f"A vistoria nº {row.id:06d} ({row.plate}) está aprovada e não pode ser alterada.\n"
            "Uma nova vistoria completa a substituirá quando for concluída. Motivo:")
        if not ok:
            return
        try:
            inspection_id = inspections.supersede_inspection(self.ctx, row.id, reason)
        except MotodeskError as exc:
            show_error(self, exc)
            return
        self.open_checklist(inspection_id)


@register_page("inspections")
def inspections_page(ctx: AppContext, window: QWidget) -> QWidget:
    return InspectionsPage(ctx, window)

