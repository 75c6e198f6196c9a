"""The "Veículos" page: the register, each vehicle's verdicts and inspections, and replacements."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QInputDialog,
    QLabel,
    QWidget,
)

from motodesk.rules.common import Role
from motodesk.rules.settings import LawSettings
from motodesk.services import inspections, vehicle_release, vehicles
from motodesk.services.context import AppContext
from motodesk.services.inspections import InspectionRow
from motodesk.services.settings import law_settings
from motodesk.services.vehicles import VehicleRow
from motodesk.ui.detail_pane import side_by_side
from motodesk.ui.guard import confirm
from motodesk.ui.listpage import Action, Filter, ListPage, ListPanel, ListSpec, list_table
from motodesk.ui.mainwindow import register_page
from motodesk.ui.ops import load_into
from motodesk.ui.tablemodel import Column, RowTableModel
from motodesk.ui.vehicle_form import VehicleForm
from motodesk.ui.widgets import VerdictList, fit_columns

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


class VehiclesPage(ListPage):
    """Search the register; open, register, replace; see the selected vehicle's verdicts and inspections."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, "Veículos", parent=parent)
        self.settings: LawSettings | None = None  # read with the first details, off the GUI thread
        role = ctx.user.role
        self.can_edit = role in vehicles.EDITORS
        self.can_schedule = role in inspections.SCHEDULERS
        self.can_inspect = role in inspections.RECORDERS
        editors = frozenset(vehicles.EDITORS)

        self.verdicts = VerdictList()
        self.verdicts.setObjectName("vehicle_verdicts")
        self.detail_title = QLabel("Selecione um veículo.")
        self.detail_title.setObjectName("detail_title")
        self.history_model: RowTableModel[InspectionRow] = RowTableModel(VEHICLE_INSPECTION_COLUMNS)
        self.history = list_table("vehicle_inspections", sortable=True)
        self.history.setModel(self.history_model)
        self.accidents = QLabel()
        self.accidents.setObjectName("vehicle_accidents")
        self.accidents.setWordWrap(True)
        details = side_by_side(self.detail_title, ("Re&quisitos do veículo", self.verdicts),
                               ("&Vistorias deste veículo", self.history), self.accidents)

        self.panel: ListPanel[VehicleRow] = ListPanel(ctx, ListSpec(
            name="vehicles_table", columns=VEHICLE_COLUMNS, fetch=self._fetch,
            filters=[Filter("search", "&Buscar:", stretch=True,
                            placeholder="Placa (ABC-1234 ou ABC1D23), RENAVAM, CPF ou nome do titular"),
                     Filter("include_replaced", "Incluir veículos &substituídos", kind="check")],
            actions=[
                Action("new_vehicle", "&Novo veículo…", lambda _r: self.new_vehicle(), editors, needs_row=False),
                Action("open_vehicle", "A&brir…", lambda _r: self.open_selected(), default=True),
                Action("authorise_replacement", "Au&torizar substituição…", lambda _r: self.authorise_replacement(),
                       frozenset({Role.SUPERVISOR}), enabled=lambda r: r.active and not r.replacement_authorised),
                Action("replace_vehicle", "Substituir &veículo…", lambda _r: self.replace_selected(), editors,
                       enabled=lambda r: r.replacement_authorised),
                Action("schedule_inspection", "Agendar vist&oria…", lambda _r: self.schedule(),
                       frozenset(inspections.SCHEDULERS), enabled=lambda r: r.active),
                Action("record_accident", "Registrar &acidente…", lambda _r: self.record_accident(),
                       frozenset(vehicles.ACCIDENT_RECORDERS), enabled=lambda r: r.active),
                Action("release_vehicle", "Dar bai&xa do serviço…", lambda _r: self.release_selected(),
                       frozenset(vehicle_release.RELEASERS), enabled=lambda r: r.release_due,
                       tooltip="A permissão deste veículo terminou: registre a baixa do serviço "
                               "(Art. 31, Grupo 4, II)."),
            ],
            kinds={"vehicle", "person", "permit", "inspection", "accident"},
            count=lambda n, more: f"{n}{'+' if more else ''} veículo(s)",
            detail=details, on_current=lambda _r: self.show_details()), autoload=False)
        self.set_body(self.panel)
        # the names tests and other code know
        self.model, self.table, self.count = self.panel.model, self.panel.table, self.panel.count
        self.search = self.panel.line("search")
        self.include_replaced = self.panel.check("include_replaced")
        self.new_button = self.panel.buttons["new_vehicle"]
        self.open_button = self.panel.buttons["open_vehicle"]
        self.authorise_button = self.panel.buttons["authorise_replacement"]
        self.replace_button = self.panel.buttons["replace_vehicle"]
        self.schedule_button = self.panel.buttons["schedule_inspection"]
        self.accident_button = self.panel.buttons["record_accident"]
        self.release_button = self.panel.buttons["release_vehicle"]
        self.reload()

    # --- data ------------------------------------------------------------------------------------
    def _fetch(self, values: dict[str, Any], offset: int, limit: int, key: str, descending: bool) -> list[VehicleRow]:
        return vehicles.list_vehicles(self.ctx, values["search"], include_inactive=values["include_replaced"],
                                      offset=offset, limit=limit, sort_key=key, descending=descending)

    def reload(self, select_id: int | None = None) -> None:
        self.panel.reload(select=select_id)

    def select_vehicle(self, vehicle_id: int) -> bool:
        return self.panel.select_where(lambda r: r.id == vehicle_id)

    def selected(self) -> VehicleRow | None:
        return self.panel.selected()

    def show_details(self) -> None:
        row = self.selected()
        self.accidents.setText("")
        if row is None:
            self.detail_title.setText("Selecione um veículo.")
            self.verdicts.set_verdicts([])
            self.history_model.set_rows([])
            return
        self.detail_title.setText(f"<b>{row.plate}</b> – {row.make_model} – {row.holder_name or 'sem titular'} "
                                  f"– {row.status_label}")
        ctx, settings = self.ctx, self.settings

        def read() -> tuple[Any, Any, Any, LawSettings]:
            in_force = settings if settings is not None else law_settings(ctx)
            due = vehicle_release.release_due_of(ctx, row.id)  # Art. 31, Grupo 4, II first: it is an infraction
            return ([*([due.verdict] if due else []), *vehicles.vehicle_verdicts_of(ctx, row.id, in_force)],
                    inspections.list_inspections(ctx, vehicle_id=row.id, limit=100),
                    vehicles.list_accidents(ctx, row.id), in_force)

        def show(result: tuple[Any, Any, Any, LawSettings]) -> None:
            verdicts, history, accidents, self.settings = result
            self.verdicts.set_verdicts(verdicts)
            self.history_model.set_rows(history)
            fit_columns(self.history)
            self.accidents.setText("\n".join(
                f"Acidente de {a.happened_on:%d/%m/%Y}, comunicado em {a.reported_on:%d/%m/%Y}"
                + "".join(f" – {flag}" for flag in a.flags) for a in accidents))

        load_into(self, read, show, key="details")

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
        ctx = self.ctx
        self.panel.run(lambda: vehicles.authorise_replacement(ctx, row.id, reason),
                       f"Substituição do veículo {row.plate} autorizada.", change="vehicle",
                       select=lambda _r: row.id, busy="Autorizando a substituição…")

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

    def release_selected(self) -> None:
        """Record the baixa of the selected vehicle from the service (Art. 31, Grupo 4, II)."""
        row = self.selected()
        if row is None or not row.release_due:
            return
        if not confirm(self, "Baixa do veículo",
                       f"Registrar a baixa do veículo {row.plate} ({row.holder_name or 'sem titular'}) do serviço? "
                       "A permissão dele terminou (Art. 31, Grupo 4, II); o veículo deixa de constar como ativo "
                       "e a baixa fica no histórico da permissão."):
            return
        ctx = self.ctx
        self.panel.run(lambda: vehicle_release.record_release(ctx, row.id),
                       f"Baixa do veículo {row.plate} registrada (Art. 31, Grupo 4, II).", change="vehicle",
                       busy="Registrando a baixa…")

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
