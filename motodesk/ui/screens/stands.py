"""The "Pontos" page (Art. 17 and 18): stands set by Decree with their occupancy, and who is at each.

Above, every stand with its places, the holders there and the free places; below, the holders of the
selected stand. A supervisor registers a stand by Decree — declaring whether the place is a bus or
taxi stop, which the law forbids (Art. 18) — or changes its places by a new Decree; a clerk assigns a
holder of a permit in force to a stand with a free place, or takes him off. The places are guaranteed
by the database (:mod:`motodesk.services.stands`): when another workstation takes the last place first,
the refusal says so.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from motodesk.rules.common import ServiceType
from motodesk.services import stands
from motodesk.services.context import AppContext
from motodesk.services.stands import AssignmentRow, StandInput, StandRow
from motodesk.ui import person_picker
from motodesk.ui.errors import show_error  # noqa: F401 - tests replace it
from motodesk.ui.formatting import format_date
from motodesk.ui.formkit import wrapped_label
from motodesk.ui.guard import GuardedDialog, confirm
from motodesk.ui.listpage import Action, Filter, ListPage, ListPanel, ListSpec
from motodesk.ui.mainwindow import register_page
from motodesk.ui.ops import ServiceOp
from motodesk.ui.tablemodel import Column
from motodesk.ui.widgets import DateField, dialog_answer, mark_field, save_cancel_buttons

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



class StandDialog(GuardedDialog):
    """Register a stand by Decree, or change it by a new Decree; saving happens here."""

    def __init__(self, ctx: AppContext, row: StandRow | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.row = row
        self.saved: StandRow | None = None
        self.setObjectName("stand_dialog")
        self.setWindowTitle("Alterar ponto por Decreto" if row else "Novo ponto")
        self.setMinimumWidth(580)
        self.name = QLineEdit()
        self.name.setObjectName("name")
        self.address = QLineEdit()
        self.address.setObjectName("address")
        self.services: dict[ServiceType, QCheckBox] = {}
        services_row = QHBoxLayout()
        keys = {ServiceType.MOTOTAXI: "Mo&totáxi", ServiceType.MOTOBOY: "Moto&boy", ServiceType.MOTOFRETE: "Moto-&frete"}
        for service in ServiceType:
            box = QCheckBox(keys.get(service, service.label))
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
        self.bus_or_taxi_stop = QCheckBox("O local é &ponto de ônibus ou de táxi")
        self.bus_or_taxi_stop.setObjectName("bus_or_taxi_stop")
        self.bus_or_taxi_stop.setToolTip("Art. 18: é proibido exercer estes serviços nos pontos de ônibus e de táxi.")
        intro = wrapped_label("O Poder Executivo indica por Decreto os pontos onde o titular pode parar ou estacionar, "
                              "com o limite máximo de vagas (Art. 17). É proibido exercer o serviço em ponto de ônibus "
                              "ou de táxi (Art. 18).")
        form = QFormLayout()
        form.addRow("&Nome do ponto:", self.name)
        form.addRow("&Endereço:", self.address)
        form.addRow("Serviços permitidos:", services_row)
        form.addRow("Número máximo de &vagas:", self.max_places)
        form.addRow("&Decreto nº:", self.decree_number)
        form.addRow("D&ata do Decreto:", self.decree_date)
        form.addRow("Dec&laração (Art. 18):", self.bus_or_taxi_stop)
        self.widgets: dict[str, QWidget] = {"name": self.name, "address": self.address,
                                            "max_places": self.max_places, "decree_number": self.decree_number,
                                            "decree_date": self.decree_date}
        self.buttons, self.save_button = save_cancel_buttons(self, self.save)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)  # outside the form: a wrapped label there gets one line's height
        layout.addLayout(form)
        layout.addWidget(self.buttons)
        if row is not None:
            self.name.setText(row.name)
            self.address.setText(row.address)
            for service, box in self.services.items():
                box.setChecked(service in row.services)
            self.max_places.setValue(row.max_places)
        self.mark_clean()

    def values(self) -> StandInput:
        return StandInput(name=self.name.text(), address=self.address.text(),
                          services=[s for s, box in self.services.items() if box.isChecked()],
                          max_places=self.max_places.value(), decree_number=self.decree_number.text(),
                          decree_date=self.decree_date.value(), is_bus_or_taxi_stop=self.bus_or_taxi_stop.isChecked())

    def save(self) -> None:
        for widget in self.widgets.values():
            mark_field(widget, None)
        ctx, values, row = self.ctx, self.values(), self.row

        def work() -> StandRow:
            if row is None:
                return stands.create_stand(ctx, values)
            return stands.update_stand(ctx, row.id, values, expected_version=row.version)

        def saved(result: StandRow) -> None:
            self.saved = result
            self.accept()

        ServiceOp(self, work, busy="Salvando o ponto…", fields=self.widgets, change="stand").success(saved).run()

    def save_and_close(self) -> None:
        self.save()


class StandsPage(ListPage):
    """Every stand with its occupancy above; the holders of the selected one below."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, "Pontos de estacionamento (Art. 17 e 18)", parent=parent)
        managers = frozenset(stands.MANAGERS)
        assigners = frozenset(stands.ASSIGNERS)
        services = [("Todos os serviços", None), *[(s.label, s.value) for s in ServiceType]]
        self.totals = QLabel("")
        self.totals.setObjectName("totals")
        self.stands: ListPanel[StandRow] = ListPanel(ctx, ListSpec(
            name="stands_table", columns=STAND_COLUMNS,
            load=lambda v: stands.list_stands(ctx, service=ServiceType(v["service_filter"])
                                              if v["service_filter"] else None),
            filters=[Filter("service_filter", "&Serviço:", kind="choice", choices=services)],
            actions=[
                Action("new_stand", "&Novo ponto…", lambda _r: self.new_stand(), managers, needs_row=False),
                Action("edit_stand", "&Alterar por Decreto…", self._open_form, managers, default=True),
            ],
            kinds={"stand", "permit"}, count=lambda n, _m: "", on_loaded=self._totals,
            on_current=lambda _row: self.assignments.reload()), autoload=False)
        self.stands.filter_row.addWidget(self.totals)
        self.assignments: ListPanel[AssignmentRow] = ListPanel(ctx, ListSpec(
            name="assignments_table", columns=ASSIGNMENT_COLUMNS, load=self._load_assignments,
            extra=lambda: {"stand": self.stands.selected()},
            filters=[Filter("show_past", "Mostrar &quem saiu", kind="check")],
            actions=[
                Action("assign", "&Designar titular…", lambda _r: self.assign(), assigners, needs_row=False,
                       enabled=lambda _r: self.stands.selected() is not None),
                Action("unassign", "&Retirar do ponto…", self.unassign, assigners,
                       enabled=lambda a: a.end_on is None),
            ],
            kinds={"stand", "permit"}, count=lambda n, _m: "",
            on_loaded=lambda _rows: self._assignments_title()), autoload=False)
        self.set_master_detail(self.stands, self.assignments)
        # the names tests and other code know
        self.service_filter = self.stands.combo("service_filter")
        self.past = self.assignments.check("show_past")
        self.model, self.table = self.stands.model, self.stands.table
        self.assignments_model, self.assignments_table = self.assignments.model, self.assignments.table
        self.new_button = self.stands.buttons["new_stand"]
        self.edit_button = self.stands.buttons["edit_stand"]
        self.assign_button = self.assignments.buttons["assign"]
        self.unassign_button = self.assignments.buttons["unassign"]
        self.assignments_title = self.assignments.title
        self.stands.reload()

    # --- data ------------------------------------------------------------------------------------
    def _load_assignments(self, values: dict[str, Any]) -> list[AssignmentRow]:
        stand: StandRow | None = values["stand"]
        if stand is None:
            return []
        return stands.list_assignments(self.ctx, stand.id, include_past=values["show_past"])

    def _totals(self, rows: list[StandRow]) -> None:
        places = sum(r.max_places for r in rows)
        occupied = sum(r.occupied for r in rows)
        self.totals.setText(f"{len(rows)} ponto(s) · {places} vaga(s) · {occupied} ocupada(s) · "
                            f"{places - occupied} livre(s)")

    def _assignments_title(self) -> None:
        stand = self.stands.selected()
        self.assignments_title.setText(
            f"<b>Titulares – {stand.name}</b>: {stand.occupancy_label} vagas ocupadas, {stand.free} livre(s)"
            if stand else "<b>Titulares do ponto</b> – escolha um ponto")

    def selected(self) -> StandRow | None:
        return self.stands.selected()

    def selected_assignment(self) -> AssignmentRow | None:
        return self.assignments.selected()

    def reload(self, select: int | None = None) -> None:
        self.stands.reload(select=select)

    # --- actions ---------------------------------------------------------------------------------
    def _open_form(self, row: StandRow | None) -> None:
        saved = dialog_answer(StandDialog(self.ctx, row, self), lambda d: d.saved)
        if saved is not None:
            self.status.setText(f"{saved.name}: {saved.max_places} vaga(s), {saved.decree_label}.")
            self.reload(select=saved.id)

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
        ctx = self.ctx

        def assigned(row: AssignmentRow) -> None:
            self.status.setText(f"{row.holder} ({row.permit_number}) designado(a) em "
                                f"{format_date(row.start_on)}: {stand.name}.")
            self.reload(select=stand.id)

        self.assignments.run(lambda: stands.assign_to_stand(ctx, stand.id, permit.id), assigned,
                             change="stand", busy="Designando o titular…",
                             failed=lambda _exc: self.reload(select=stand.id))

    def unassign(self, assignment: AssignmentRow | None = None) -> None:
        stand = self.selected()
        assignment = assignment or self.selected_assignment()
        if stand is None or assignment is None:
            return
        if not confirm(self, "Retirar do ponto", f"Retirar {assignment.holder} ({assignment.permit_number}) de "
                                                 f"“{stand.name}”? A vaga fica livre."):
            return
        ctx = self.ctx

        def done(_result: object) -> None:
            self.status.setText(f"{assignment.holder} retirado(a) de “{stand.name}”; a vaga está livre.")
            self.reload(select=stand.id)

        self.assignments.run(lambda: stands.end_assignment(ctx, assignment.id), done, change="stand",
                             busy="Liberando a vaga…", failed=lambda _exc: self.reload(select=stand.id))


@register_page("stands")
def make_stands_page(ctx: AppContext, main_window: QWidget) -> QWidget:
    return StandsPage(ctx, main_window)
