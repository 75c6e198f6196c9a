"""The "Veículos" page: the register, each vehicle's verdicts and inspections, and replacements."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from motodesk.rules.common import Role
from motodesk.services import inspections, vehicles
from motodesk.services.context import AppContext
from motodesk.services.errors import MotodeskError
from motodesk.services.inspections import InspectionRow
from motodesk.services.settings import law_settings
from motodesk.services.vehicles import VehicleRow
from motodesk.ui.errors import show_error
from motodesk.ui.mainwindow import register_page
from motodesk.ui.tablemodel import Column, LazyTableModel, RowTableModel
from motodesk.ui.vehicle_form import VehicleForm
from motodesk.ui.widgets import VerdictList, fit_columns, heading, table_view

RIGHT = Qt.AlignmentFlag.AlignRight

VEHICLE_COLUMNS: list[Column[VehicleRow]] = [
    Column("plate", "Placa", lambda r: r.plate),
    Column("make_model", "Marca/modelo", lambda r: r.make_model),
    Column("years", "Ano fab./mod.", lambda r: r.years),
    Column("engine_cc", "Cilindrada", lambda r: f"{r.engine_cc} cc" if r.engine_cc else "", RIGHT),
    Column("colour", "Cor", lambda r: r.colour),
    Column("service_type", "Serviço", lambda r: r.service_type),
    Column("holder_name", "Titular", lambda r: r.holder_name),
    Column("holder_cpf", "CPF do titular", lambda r: r.holder_cpf),
    Column("status", "Situação", lambda r: r.status_label),
]

VEHICLE_INSPECTION_COLUMNS: list[Column[InspectionRow]] = [
    Column("id", "Nº", lambda r: f"{r.id:06d}"),
    Column("kind", "Tipo", lambda r: r.kind),
    Column("status", "Situação", lambda r: r.status),
    Column("scheduled_for", "Agendada", lambda r: r.scheduled_for),
    Column("performed_at", "Realizada", lambda r: r.performed_at),
    Column("inspector_name", "Vistoriador", lambda r: r.inspector_name),
    Column("next_due", "Próxima", lambda r: r.next_due),
]






class VehiclesPage(QWidget):
    """Search the register; open, register, replace; see the selected vehicle's verdicts and inspections."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.settings = law_settings(ctx)
        role = ctx.user.role
        self.can_edit = role in vehicles.EDITORS
        self.can_schedule = role in inspections.SCHEDULERS
        self.can_inspect = role in inspections.RECORDERS

        self.search = QLineEdit()
        self.search.setObjectName("search")
        self.search.setPlaceholderText("Buscar por placa (ABC-1234 ou ABC1D23), RENAVAM, CPF ou nome do titular")
        self.search.setClearButtonEnabled(True)
        self.include_replaced = QCheckBox("Incluir veículos substituídos")
        self.include_replaced.setObjectName("include_replaced")
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(250)
        self._search_timer.timeout.connect(self.reload)
        self.search.textChanged.connect(lambda _t: self._search_timer.start())
        self.include_replaced.toggled.connect(lambda _c: self.reload())

        self.model: LazyTableModel[VehicleRow] = LazyTableModel(VEHICLE_COLUMNS, self._fetch, page_size=200)
        self.table = table_view("vehicles_table", sortable=True)
        self.table.setModel(self.model)
        self.table.doubleClicked.connect(lambda _i: self.open_selected())

        self.new_button = self._button("new_vehicle", "Novo veículo…", self.new_vehicle, self.can_edit)
        self.open_button = self._button("open_vehicle", "Abrir…", self.open_selected, True)
        self.authorise_button = self._button("authorise_replacement", "Autorizar substituição…",
                                             self.authorise_replacement, role is Role.SUPERVISOR)
        self.replace_button = self._button("replace_vehicle", "Substituir veículo…", self.replace_selected,
                                           self.can_edit)
        self.schedule_button = self._button("schedule_inspection", "Agendar vistoria…", self.schedule,
                                            self.can_schedule)
        self.accident_button = self._button("record_accident", "Registrar &acidente…", self.record_accident,
                                            role in vehicles.ACCIDENT_RECORDERS)
        self.count = QLabel()
        self.count.setObjectName("count")

        top = QHBoxLayout()
        top.addWidget(self.search, 1)
        top.addWidget(self.include_replaced)
        buttons = QHBoxLayout()
        for button in (self.new_button, self.open_button, self.authorise_button, self.replace_button,
                       self.schedule_button, self.accident_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.count)

        self.verdicts = VerdictList()
        self.verdicts.setObjectName("vehicle_verdicts")
        self.detail_title = QLabel("Selecione um veículo.")
        self.detail_title.setObjectName("detail_title")
        self.history_model: RowTableModel[InspectionRow] = RowTableModel(VEHICLE_INSPECTION_COLUMNS)
        self.history = table_view("vehicle_inspections", sortable=True)
        self.history.setModel(self.history_model)
        self.accidents = QLabel()
        self.accidents.setObjectName("vehicle_accidents")
        self.accidents.setWordWrap(True)
        details = QWidget()
        details_layout = QVBoxLayout(details)
        details_layout.setContentsMargins(0, 0, 0, 0)
        details_layout.addWidget(self.detail_title)
        row = QHBoxLayout()
        left = QVBoxLayout()
        left.addWidget(QLabel("<b>Requisitos do veículo</b>"))
        left.addWidget(self.verdicts)
        right = QVBoxLayout()
        right.addWidget(QLabel("<b>Vistorias deste veículo</b>"))
        right.addWidget(self.history)
        right.addWidget(self.accidents)
        row.addLayout(left, 3)
        row.addLayout(right, 2)
        details_layout.addLayout(row)

        splitter = QSplitter(Qt.Orientation.Vertical)
        table_box = QWidget()
        table_layout = QVBoxLayout(table_box)
        table_layout.setContentsMargins(0, 0, 0, 0)
        table_layout.addLayout(top)
        table_layout.addWidget(self.table)
        table_layout.addLayout(buttons)
        splitter.addWidget(table_box)
        splitter.addWidget(details)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)

        layout = QVBoxLayout(self)
        layout.addWidget(heading("Veículos"))
        layout.addWidget(splitter, 1)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self.show_details())
        self.reload()

    def _button(self, name: str, text: str, slot: object, visible: bool) -> QPushButton:
        button = QPushButton(text)
        button.setObjectName(name)
        button.clicked.connect(slot)
        button.setVisible(visible)
        return button

    # --- data ------------------------------------------------------------------------------------
    def _fetch(self, offset: int, limit: int, key: str, descending: bool) -> list[VehicleRow]:
        return vehicles.list_vehicles(self.ctx, self.search.text(), include_inactive=self.include_replaced.isChecked(),
                                      offset=offset, limit=limit, sort_key=key, descending=descending)

    def reload(self, select_id: int | None = None) -> None:
        self._search_timer.stop()
        try:
            self.model.reload()
        except MotodeskError as exc:
            show_error(self, exc)
            return
        fit_columns(self.table)
        more = "+" if self.model.canFetchMore() else ""
        self.count.setText(f"{self.model.rowCount()}{more} veículo(s)")
        if select_id is not None:
            self.select_vehicle(select_id)
        self.show_details()

    def select_vehicle(self, vehicle_id: int) -> bool:
        for row in range(self.model.rowCount()):
            if self.model.row_at(row).id == vehicle_id:
                self.table.selectionModel().select(
                    self.model.index(row, 0),
                    QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
                self.table.scrollTo(self.model.index(row, 0))
                return True
        return False

    def selected(self) -> VehicleRow | None:
        rows = self.table.selectionModel().selectedRows()
        return self.model.row_at(rows[0].row()) if rows else None

    def show_details(self) -> None:
        row = self.selected()
        self.replace_button.setEnabled(bool(row and row.replacement_authorised))
        self.authorise_button.setEnabled(bool(row and row.active and not row.replacement_authorised))
        self.schedule_button.setEnabled(bool(row and row.active))
        self.accident_button.setEnabled(bool(row and row.active))
        self.open_button.setEnabled(row is not None)
        self.accidents.setText("")
        if row is None:
            self.detail_title.setText("Selecione um veículo.")
            self.verdicts.set_verdicts([])
            self.history_model.set_rows([])
            return
        self.detail_title.setText(f"<b>{row.plate}</b> – {row.make_model} – {row.holder_name or 'sem titular'} "
                                  f"– {row.status_label}")
        try:
            self.verdicts.set_verdicts(vehicles.vehicle_verdicts_of(self.ctx, row.id, self.settings))
            self.history_model.set_rows(inspections.list_inspections(self.ctx, vehicle_id=row.id, limit=100))
            fit_columns(self.history)
            self.accidents.setText("\n".join(
                f"Acidente de {a.happened_on:%d/%m/%Y}, comunicado em {a.reported_on:%d/%m/%Y}"
                + "".join(f" – {flag}" for flag in a.flags)
                for a in vehicles.list_accidents(self.ctx, row.id)))
        except MotodeskError as exc:
            show_error(self, exc)

    # --- actions ---------------------------------------------------------------------------------
    def new_vehicle(self) -> None:
        form = VehicleForm(self.ctx, self)
        if form.exec() and form.saved_id:
            self.search.clear()
            self.reload(select_id=form.saved_id)

    def open_selected(self) -> None:
        row = self.selected()
        if row is None:
            return
        form = VehicleForm(self.ctx, self, vehicle_id=row.id)
        if form.exec() and form.saved_id:
            self.reload(select_id=form.saved_id)

    def authorise_replacement(self) -> None:
        row = self.selected()
        if row is None:
            return
        reason, ok = QInputDialog.getMultiLineText(
            self, "Autorizar substituição do veículo",
            f"Substituição (permuta) do veículo {row.plate} de {row.holder_name} – Art. 31, Grupo 3, II.\n"
            "Motivo da autorização:")
        if not ok:
            return
        try:
            vehicles.authorise_replacement(self.ctx, row.id, reason)
        except MotodeskError as exc:
            show_error(self, exc)
            return
        self.reload(select_id=row.id)

    def replace_selected(self) -> None:
        row = self.selected()
        if row is None:
            return
        form = VehicleForm(self.ctx, self, replacing_id=row.id)
        if form.exec() and form.saved_id:
            self.include_replaced.setChecked(False)
            self.reload(select_id=form.saved_id)

    def schedule(self) -> None:
        from motodesk.ui.screens.inspections import ScheduleDialog

        row = self.selected()
        if row is None:
            return
        dialog = ScheduleDialog(self.ctx, self, vehicle_id=row.id)
        if dialog.exec():
            self.show_details()


    def record_accident(self) -> None:
        from motodesk.ui.accident_dialog import AccidentDialog

        row = self.selected()
        if row is None:
            return
        if AccidentDialog(self.ctx, row.id, row.plate, self).exec():
            self.show_details()


@register_page("vehicles")
def vehicles_page(ctx: AppContext, window: QWidget) -> QWidget:
    return VehiclesPage(ctx, window)
