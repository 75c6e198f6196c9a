"""The "Pontos" page (Art. 17 and 18): stands set by Decree with their occupancy, and who is at each.

Above, every stand with its places, the holders there and the free places; below, the holders of the
selected stand. A supervisor registers a stand by Decree — declaring whether the place is a bus or
taxi stop, which the law forbids (Art. 18) — or changes its places by a new Decree; a clerk assigns a
holder of a permit in force to a stand with a free place, or takes him off. The places are guaranteed
by the database (:mod:`motodesk.services.stands`): when another workstation takes the last place first,
the refusal says so.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from motodesk.rules.common import ServiceType
from motodesk.services import stands
from motodesk.services.context import AppContext
from motodesk.services.errors import InvalidInputError, MotodeskError
from motodesk.services.stands import AssignmentRow, StandInput, StandRow
from motodesk.ui import person_picker
from motodesk.ui.errors import show_error
from motodesk.ui.formatting import format_date
from motodesk.ui.mainwindow import register_page
from motodesk.ui.tablemodel import Column, RowTableModel
from motodesk.ui.widgets import DateField, fit_columns, heading, mark_field, run_dialog, table_view

RIGHT = Qt.AlignmentFlag.AlignRight

STAND_COLUMNS: list[Column[StandRow]] = [
    Column("name", "Ponto", lambda r: r.name),
    Column("address", "Endereço", lambda r: r.address, tooltip=lambda r: r.address),
    Column("services", "Serviços permitidos", lambda r: r.services_label),
    Column("max_places", "Vagas", lambda r: r.max_places, RIGHT),
    Column("occupied", "Ocupadas", lambda r: r.occupied, RIGHT),
    Column("free", "Livres", lambda r: r.free, RIGHT),
    Column("decree", "Decreto", lambda r: r.decree_label),
]

ASSIGNMENT_COLUMNS: list[Column[AssignmentRow]] = [
    Column("holder", "Titular", lambda a: a.holder),
    Column("permit_number", "Permissão", lambda a: a.permit_number),
    Column("service", "Serviço", lambda a: a.service.label),
    Column("permit_state", "Situação", lambda a: a.permit_state.label),
    Column("start_on", "No ponto desde", lambda a: a.start_on),
    Column("end_on", "Saiu em", lambda a: a.end_on),
]








def confirm(parent: QWidget, title: str, text: str) -> bool:
    answer = QMessageBox.question(parent, title, text, QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                                  QMessageBox.StandardButton.No)
    return answer == QMessageBox.StandardButton.Yes


class StandDialog(QDialog):
    """Register a stand by Decree, or change it by a new Decree; saving happens here."""

    def __init__(self, ctx: AppContext, row: StandRow | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.row = row
        self.saved: StandRow | None = None
        self.setObjectName("stand_dialog")
        self.setWindowTitle("Alterar ponto por Decreto" if row else "Novo ponto")
        self.resize(580, 0)
        self.name = QLineEdit()
        self.name.setObjectName("name")
        self.address = QLineEdit()
        self.address.setObjectName("address")
        self.services: dict[ServiceType, QCheckBox] = {}
        services_row = QHBoxLayout()
        for service in ServiceType:
            box = QCheckBox(service.label)
            box.setObjectName(f"service_{service.value}")
            self.services[service] = box
            services_row.addWidget(box)
        services_row.addStretch(1)
        self.max_places = QSpinBox()
        self.max_places.setObjectName("max_places")
        self.max_places.setRange(1, stands.MAX_PLACES)
        self.decree_number = QLineEdit()
        self.decree_number.setObjectName("decree_number")
        self.decree_number.setMaxLength(32)
        self.decree_number.setPlaceholderText("ex.: 5.120/2026")
        self.decree_date = DateField()
        self.decree_date.setObjectName("decree_date")
        self.bus_or_taxi_stop = QCheckBox("O local é ponto de ônibus ou de táxi")
        self.bus_or_taxi_stop.setObjectName("bus_or_taxi_stop")
        self.bus_or_taxi_stop.setToolTip("Art. 18: é proibido exercer estes serviços nos pontos de ônibus e de táxi.")
        intro = QLabel("O Poder Executivo indica por Decreto os pontos onde o titular pode parar ou estacionar, "
                       "com o limite máximo de vagas (Art. 17). É proibido exercer o serviço em ponto de ônibus "
                       "ou de táxi (Art. 18).")
        intro.setWordWrap(True)
        form = QFormLayout()
        form.addRow(intro)
        form.addRow("Nome do ponto:", self.name)
        form.addRow("Endereço:", self.address)
        form.addRow("Serviços permitidos:", services_row)
        form.addRow("Número máximo de vagas:", self.max_places)
        form.addRow("Decreto nº:", self.decree_number)
        form.addRow("Data do Decreto:", self.decree_date)
        form.addRow("Declaração (Art. 18):", self.bus_or_taxi_stop)
        self.widgets: dict[str, QWidget] = {"name": self.name, "address": self.address,
                                            "max_places": self.max_places, "decree_number": self.decree_number,
                                            "decree_date": self.decree_date}
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.save_button.setObjectName("save")
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.buttons)
        if row is not None:
            self.name.setText(row.name)
            self.address.setText(row.address)
            for service, box in self.services.items():
                box.setChecked(service in row.services)
            self.max_places.setValue(row.max_places)

    def values(self) -> StandInput:
        return StandInput(name=self.name.text(), address=self.address.text(),
                          services=[s for s, box in self.services.items() if box.isChecked()],
                          max_places=self.max_places.value(), decree_number=self.decree_number.text(),
                          decree_date=self.decree_date.value(), is_bus_or_taxi_stop=self.bus_or_taxi_stop.isChecked())

    def save(self) -> None:
        for widget in self.widgets.values():
            mark_field(widget, None)
        try:
            if self.row is None:
                self.saved = stands.create_stand(self.ctx, self.values())
            else:
                self.saved = stands.update_stand(self.ctx, self.row.id, self.values(),
                                                 expected_version=self.row.version)
        except InvalidInputError as exc:
            for key, message in exc.fields.items():
                if key in self.widgets:
                    mark_field(self.widgets[key], message)
            show_error(self, exc)
            return
        except MotodeskError as exc:
            show_error(self, exc)
            return
        self.accept()


class StandsPage(QWidget):
    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        role = ctx.user.role
        self.manager = role in stands.MANAGERS
        self.assigner = role in stands.ASSIGNERS

        self.service_filter = QComboBox()
        self.service_filter.setObjectName("service_filter")
        self.service_filter.addItem("Todos os serviços", None)
        for service in ServiceType:
            self.service_filter.addItem(service.label, service.value)
        self.service_filter.currentIndexChanged.connect(lambda _i: self.reload())
        self.totals = QLabel("")
        self.totals.setObjectName("totals")
        filters = QHBoxLayout()
        filters.addWidget(QLabel("Serviço:"))
        filters.addWidget(self.service_filter)
        filters.addStretch(1)
        filters.addWidget(self.totals)

        self.model: RowTableModel[StandRow] = RowTableModel(STAND_COLUMNS)
        self.table = table_view("stands_table")
        self.table.setModel(self.model)
        self.new_button = self._button("new_stand", "Novo ponto…", self.new_stand, self.manager)
        self.edit_button = self._button("edit_stand", "Alterar por Decreto…", self.edit_stand, self.manager)
        stand_buttons = QHBoxLayout()
        stand_buttons.addWidget(self.new_button)
        stand_buttons.addWidget(self.edit_button)
        stand_buttons.addStretch(1)

        self.assignments_title = QLabel("")
        self.assignments_title.setObjectName("assignments_title")
        self.past = QCheckBox("Mostrar quem saiu")
        self.past.setObjectName("show_past")
        self.past.toggled.connect(lambda _c: self.show_assignments())
        title_row = QHBoxLayout()
        title_row.addWidget(self.assignments_title, 1)
        title_row.addWidget(self.past)
        self.assignments_model: RowTableModel[AssignmentRow] = RowTableModel(ASSIGNMENT_COLUMNS)
        self.assignments = table_view("assignments_table")
        self.assignments.setModel(self.assignments_model)
        self.assignments.selectionModel().selectionChanged.connect(lambda *_: self._update_buttons())
        self.assign_button = self._button("assign", "Designar titular…", self.assign, self.assigner)
        self.unassign_button = self._button("unassign", "Retirar do ponto…", self.unassign, self.assigner)
        assignment_buttons = QHBoxLayout()
        assignment_buttons.addWidget(self.assign_button)
        assignment_buttons.addWidget(self.unassign_button)
        assignment_buttons.addStretch(1)
        self.status = QLabel("")
        self.status.setObjectName("status")
        self.status.setWordWrap(True)

        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addLayout(filters)
        top_layout.addWidget(self.table, 1)
        top_layout.addLayout(stand_buttons)
        bottom = QWidget()
        bottom_layout = QVBoxLayout(bottom)
        bottom_layout.setContentsMargins(0, 0, 0, 0)
        bottom_layout.addLayout(title_row)
        bottom_layout.addWidget(self.assignments, 1)
        bottom_layout.addLayout(assignment_buttons)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(top)
        splitter.addWidget(bottom)
        layout = QVBoxLayout(self)
        layout.addWidget(heading("Pontos de estacionamento (Art. 17 e 18)"))
        layout.addWidget(splitter, 1)
        layout.addWidget(self.status)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self.show_assignments())
        self.reload()

    def _button(self, name: str, text: str, slot: Callable[[], object], visible: bool) -> QPushButton:
        button = QPushButton(text)
        button.setObjectName(name)
        button.clicked.connect(lambda _c=False: slot())
        button.setVisible(visible)
        return button

    # --- data ------------------------------------------------------------------------------------
    def selected(self) -> StandRow | None:
        rows = self.table.selectionModel().selectedRows()
        return self.model.row_at(rows[0].row()) if rows else None

    def selected_assignment(self) -> AssignmentRow | None:
        rows = self.assignments.selectionModel().selectedRows()
        return self.assignments_model.row_at(rows[0].row()) if rows else None

    def reload(self, select: int | None = None) -> None:
        current = self.selected()
        select = select or (current.id if current else None)
        service = self.service_filter.currentData()
        try:
            rows = stands.list_stands(self.ctx, service=ServiceType(service) if service else None)
        except MotodeskError as exc:
            show_error(self, exc)
            return
        self.model.set_rows(rows)
        fit_columns(self.table)
        places = sum(r.max_places for r in rows)
        occupied = sum(r.occupied for r in rows)
        self.totals.setText(f"{len(rows)} ponto(s) · {places} vaga(s) · {occupied} ocupada(s) · "
                            f"{places - occupied} livre(s)")
        if rows:
            index = next((i for i, r in enumerate(rows) if r.id == select), 0)
            self.table.selectionModel().select(
                self.model.index(index, 0),
                QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
        self.show_assignments()

    def show_assignments(self) -> None:
        stand = self.selected()
        if stand is None:
            self.assignments_title.setText("<b>Titulares do ponto</b> – escolha um ponto")
            self.assignments_model.set_rows([])
            self._update_buttons()
            return
        try:
            rows = stands.list_assignments(self.ctx, stand.id, include_past=self.past.isChecked())
        except MotodeskError as exc:
            show_error(self, exc)
            return
        self.assignments_title.setText(f"<b>Titulares – {stand.name}</b>: {stand.occupancy_label} vagas "
                                       f"ocupadas, {stand.free} livre(s)")
        self.assignments_model.set_rows(rows)
        fit_columns(self.assignments)
        self._update_buttons()

    def _update_buttons(self) -> None:
        stand = self.selected()
        assignment = self.selected_assignment()
        self.edit_button.setEnabled(stand is not None)
        self.assign_button.setEnabled(stand is not None)
        self.unassign_button.setEnabled(assignment is not None and assignment.end_on is None)

    # --- actions ---------------------------------------------------------------------------------
    def _open_form(self, row: StandRow | None) -> None:
        dialog = StandDialog(self.ctx, row, self)
        try:
            if run_dialog(dialog) and dialog.saved is not None:
                saved = dialog.saved
                self.status.setText(f"{saved.name}: {saved.max_places} vaga(s), {saved.decree_label}.")
                self.reload(select=saved.id)
        finally:
            dialog.deleteLater()

    def new_stand(self) -> None:
        self._open_form(None)

    def edit_stand(self) -> None:
        stand = self.selected()
        if stand is not None:
            self._open_form(stand)

    def assign(self) -> None:
        stand = self.selected()
        if stand is None:
            return
        permit = person_picker.pick(person_picker.permit_picker(self.ctx, f"Designar titular – {stand.name}", self))
        if permit is None:
            return
        try:
            assigned = stands.assign_to_stand(self.ctx, stand.id, permit.id)
        except MotodeskError as exc:
            show_error(self, exc)
            self.reload(select=stand.id)
            return
        self.status.setText(f"{assigned.holder} ({assigned.permit_number}) designado(a) em "
                            f"{format_date(assigned.start_on)}: {stand.name}.")
        self.reload(select=stand.id)

    def unassign(self) -> None:
        stand = self.selected()
        assignment = self.selected_assignment()
        if stand is None or assignment is None:
            return
        if not confirm(self, "Retirar do ponto", f"Retirar {assignment.holder} ({assignment.permit_number}) de "
                                                 f"“{stand.name}”? A vaga fica livre."):
            return
        try:
            stands.end_assignment(self.ctx, assignment.id)
        except MotodeskError as exc:
            show_error(self, exc)
            self.reload(select=stand.id)
            return
        self.status.setText(f"{assignment.holder} retirado(a) de “{stand.name}”; a vaga está livre.")
        self.reload(select=stand.id)


@register_page("stands")
def make_stands_page(ctx: AppContext, main_window: QWidget) -> QWidget:
    return StandsPage(ctx, main_window)
