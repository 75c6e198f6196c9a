"""The "Vistorias" page: the inspector's queue, the coming days' schedule, and the history."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

from PySide6.QtCore import QDate, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from motodesk.rules.common import Role, ServiceType
from motodesk.rules.settings import LawSettings
from motodesk.services import inspections, vehicles
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext
from motodesk.services.errors import InvalidInputError, MotodeskError
from motodesk.services.inspections import (
    InspectionKind,
    InspectionRow,
    InspectionStatus,
    InspectionView,
    QueueRow,
)
from motodesk.services.vehicles import VehicleRow
from motodesk.ui import formkit
from motodesk.ui.checklist import ChecklistDialog, read_checklist
from motodesk.ui.formatting import format_date
from motodesk.ui.guard import GuardedDialog, confirm
from motodesk.ui.listpage import Action, Filter, ListPage, ListPanel, ListSpec
from motodesk.ui.mainwindow import register_page
from motodesk.ui.ops import ServiceOp
from motodesk.ui.pdfpreview import preview_pdf
from motodesk.ui.tablemodel import Column
from motodesk.ui.widgets import (
    DateField,
    FormattedLineEdit,
    keyboard_tabs,
    mark_field,
    message_line,
    ok_cancel_buttons,
)

RIGHT = Qt.AlignmentFlag.AlignRight
SCHEDULABLE = [k for k in InspectionKind if k is not InspectionKind.REINSPECTION]

#: The vehicle and the kind of inspection, the same in the queue and in the lists of inspections.
VEHICLE_AND_KIND: list[Column[Any]] = [
    Column("plate", "Placa", lambda r: r.plate),
    Column("holder_name", "Titular", lambda r: r.holder_name),
    Column("service_type", "Serviço", lambda r: r.service_type),
    Column("kind", "Tipo", lambda r: r.kind),
]

QUEUE_COLUMNS: list[Column[QueueRow]] = [
    Column("situation", "Situação", lambda r: r.situation),
    *VEHICLE_AND_KIND,
    Column("due", "Data prevista", lambda r: r.due),
    Column("days_late", "Dias de atraso", lambda r: r.days_late or "", RIGHT),
]

INSPECTION_COLUMNS: list[Column[InspectionRow]] = [
    Column("id", "Nº", lambda r: f"{r.id:06d}"),
    *VEHICLE_AND_KIND,
    Column("status", "Situação", lambda r: r.status),
    Column("scheduled_for", "Agendada para", lambda r: r.scheduled_for),
    Column("performed_at", "Realizada em", lambda r: r.performed_at),
    Column("inspector_name", "Vistoriador(a)", lambda r: r.inspector_name),
    Column("next_due", "Próxima", lambda r: r.next_due),
]


def _qdate(value: date) -> QDate:
    return QDate(value.year, value.month, value.day)


class ScheduleDialog(GuardedDialog):
    """Book an inspection: the vehicle (by plate), the day and the kind."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None, *, vehicle_id: int | None = None,
                 kind: InspectionKind = InspectionKind.REGULAR, on: date | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("schedule_dialog")
        self.setWindowTitle("Agendar vistoria")
        self.ctx = ctx
        self.vehicle: VehicleRow | None = None
        self.vehicle_id = vehicle_id  # booked from a vehicle: its plate is read off the GUI thread
        self.scheduled_id: int | None = None
        today = vehicles.local_today()
        self.plate = FormattedLineEdit("plate")
        self.plate.setObjectName("plate")
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
        self.message = message_line()
        ok = formkit.push_button("&Agendar", "ok", self.schedule, default=True)
        cancel = formkit.push_button("&Cancelar", slot=self.reject)
        self.plate.editingFinished.connect(self.find_vehicle)
        self.setMinimumWidth(460)

        form = QFormLayout()
        form.addRow("&Placa:", self.plate)
        form.addRow(QLabel("Veículo:"), self.vehicle_label)  # a reading, not an input: no buddy
        form.addRow("&Data:", self.day)
        form.addRow("&Tipo:", self.kind)
        form.addRow("&Observação:", self.notes)
        buttons = formkit.row(1, ok, cancel)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.message)
        layout.addLayout(buttons)
        self.mark_clean()
        if vehicle_id is not None:
            self.plate.setReadOnly(True)
            self.find_vehicle()

    def find_vehicle(self, then: Callable[[VehicleRow | None], None] | None = None) -> None:
        """Look the plate up off the GUI thread; ``then`` gets the vehicle found (or None)."""
        ctx, text, vehicle_id = self.ctx, self.plate.text().strip(), self.vehicle_id

        def lookup() -> tuple[str, VehicleRow | None]:
            plate = vehicles.get_vehicle(ctx, vehicle_id).data.plate if vehicle_id is not None else text
            rows = vehicles.list_vehicles(ctx, plate, limit=2) if vehicles.plate_forms(plate) else []
            return plate, rows[0] if rows else None

        def found(result: tuple[str, VehicleRow | None]) -> None:
            self._vehicle_found(*result)
            if then is not None:
                then(self.vehicle)

        # Not locked: Return in the plate both looks it up and presses "Agendar", which waits for this lookup.
        ServiceOp(self, lookup, lock=False, key="vehicle").success(found).run()

    def _vehicle_found(self, text: str, row: VehicleRow | None) -> None:
        first_load = self.vehicle_id is not None and self.plate.text() != text
        if self.vehicle_id is not None:
            self.plate.setText(text)
        self._show_vehicle(text, row)
        if first_load:
            self.mark_clean()  # the vehicle loaded (and the kind it implies) is not a change of the clerk's

    def _show_vehicle(self, text: str, row: VehicleRow | None) -> None:
        self.vehicle = row
        if self.vehicle is None:
            self.vehicle_label.setText("Nenhum veículo ativo com esta placa." if text else "—")
        else:
            v = self.vehicle
            self.vehicle_label.setText(f"{v.plate} – {v.make_model} – {v.service_type.label if v.service_type else ''}"
                                       f" – {v.holder_name or 'sem titular'}")
            if v.service_type is ServiceType.MOTOFRETE and self.kind.currentData() == InspectionKind.REGULAR:
                self.kind.setCurrentIndex(self.kind.findData(InspectionKind.ANNUAL.value))
        mark_field(self.plate, None if self.vehicle or not text else "Placa não encontrada entre os veículos ativos.")

    def schedule(self) -> bool:
        """Book it off the GUI thread; True when the call was started (the dialog closes when it lands).
        A plate not looked up yet is looked up first, and the booking follows when it is found."""
        if self.vehicle is None:
            def found(row: VehicleRow | None) -> None:
                if row is None:
                    self.message.setText("Informe a placa de um veículo ativo.")
                else:
                    self.schedule()

            self.find_vehicle(then=found)
            return True
        day = self.day.value()
        if day is None:
            mark_field(self.day, self.day.problem() or "Informe a data.")
            return False
        assert self.vehicle is not None
        ctx, vehicle_id, kind, notes = self.ctx, self.vehicle.id, InspectionKind(self.kind.currentData()), \
            self.notes.text()
        self.message.setText("")

        def done(scheduled_id: int) -> None:
            self.scheduled_id = scheduled_id
            self.accept()

        def refused(exc: BaseException) -> bool:
            if isinstance(exc, InvalidInputError):
                self.message.setText(" ".join([exc.message, *exc.fields.values()]))
                return True
            if isinstance(exc, MotodeskError):
                self.message.setText(str(exc))
                return True
            return False

        ServiceOp(self, lambda: inspections.schedule_inspection(ctx, vehicle_id, day, kind, notes),
                  busy="Agendando…", change="inspection").success(done).failure(refused).run()
        return True

    def save_and_close(self) -> None:
        self.schedule()


class CampaignDialog(GuardedDialog):
    """Call every active vehicle of a service to a periodic inspection (Art. 5º, § 6º), n a business day."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("campaign_dialog")
        self.setWindowTitle("Convocar vistorias periódicas")
        self.ctx = ctx
        self.result_value: inspections.CampaignScheduled | None = None
        self._op: ServiceOp | None = None
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
        self.ok = formkit.push_button("C&onvocar", "ok", self.run)
        cancel = formkit.push_button("&Cancelar", slot=self.reject)
        form = QFormLayout()
        form.addRow("&Serviço:", self.service)
        form.addRow("&A partir de:", self.start)
        form.addRow("&Vistorias por dia útil:", self.per_day)
        buttons = formkit.row(1, self.ok, cancel)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("<b>Art. 5º, § 6º</b>: vistorias semestrais quando a Secretaria determinar."))
        layout.addLayout(form)
        layout.addWidget(self.message)
        layout.addLayout(buttons)
        self.setMinimumWidth(480)
        self.mark_clean()

    def save_and_close(self) -> None:
        self.run()

    def run(self) -> None:
        service = ServiceType(self.service.currentData())
        start = self.start.value() or vehicles.local_today()
        per_day = self.per_day.value()
        self.ok.setEnabled(False)
        self.message.setText("Agendando…")
        ctx = self.ctx
        # The inspections' pages show the booked campaign at once.
        self._op = (ServiceOp(self, lambda: inspections.schedule_campaign(ctx, service, start, per_day),
                              lock=False, change="inspection")
                    .success(self._done).failure(self._failed).run())

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

    def _failed(self, exc: BaseException) -> bool:
        self.ok.setEnabled(True)
        if isinstance(exc, InvalidInputError):
            self.message.setText(" ".join([exc.message, *exc.fields.values()]))
        elif isinstance(exc, MotodeskError):
            self.message.setText(str(exc))
        else:
            return False  # unexpected: the op logs it and shows the details
        return True


class RescheduleDialog(GuardedDialog):
    """A new day for a booked inspection."""

    def __init__(self, row: InspectionRow, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("reschedule_dialog")
        self.setWindowTitle(f"Remarcar a vistoria de {row.plate}")
        self.setMinimumWidth(380)
        self.day = DateField(optional=False)
        self.day.setObjectName("day")
        self.day.setMinimumDate(_qdate(vehicles.local_today()))
        self.day.set_value(row.scheduled_for or vehicles.local_today())
        buttons, _ok = ok_cancel_buttons(self, "&Remarcar")
        layout = QFormLayout(self)
        layout.addRow("&Nova data:", self.day)
        layout.addRow(buttons)
        self.mark_clean()

    def accept(self) -> None:
        problem = self.day.problem()
        if problem:
            mark_field(self.day, problem)
            return
        super().accept()


def start_question(plate: str) -> str:
    return f"Iniciar a vistoria do veículo {plate} agora?"


class _QueuePanel(ListPanel[QueueRow]):
    """The queue: Enter (or a double click) on a row opens it; when that would start an inspection
    (a booked, due or failed one) it asks first, "Não" the default. The button says what it does."""

    def __init__(self, ctx: AppContext, spec: ListSpec[QueueRow], page: InspectionsPage) -> None:
        super().__init__(ctx, spec, autoload=False)
        self.page = page

    def run_default(self) -> bool:
        row = self.selected()
        if row is None or not self.page.can_record:
            return super().run_default()
        self.page.start_selected(ask=row.status is not InspectionStatus.DRAFT)
        return True


class InspectionsPage(ListPage):
    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, "Vistorias", parent=parent)
        role = ctx.user.role
        self.can_record = role in inspections.RECORDERS
        self.can_schedule = role in inspections.SCHEDULERS
        recorders = frozenset(inspections.RECORDERS)
        schedulers = frozenset(inspections.SCHEDULERS)
        kinds = {"inspection", "vehicle", "permit"}
        self.tabs = QTabWidget()
        keyboard_tabs(self.tabs)
        self.tabs.setObjectName("tabs")

        self.queue_panel: ListPanel[QueueRow] = _QueuePanel(ctx, ListSpec(
            name="queue", columns=QUEUE_COLUMNS, sortable=True,
            load=lambda _v: inspections.inspector_queue(ctx, vehicles.local_today()),
            identity=lambda r: (r.vehicle_id, r.inspection_id, r.kind),
            actions=[
                Action("start", "&Iniciar vistoria", lambda _r: self.start_selected(), recorders, default=True),
                Action("schedule_due", "Agendar a &selecionada…", lambda _r: self.schedule_selected(), schedulers,
                       enabled=lambda r: r.inspection_id is None),
                Action("schedule", "A&gendar vistoria…", lambda _r: self.schedule_new(), schedulers,
                       needs_row=False),
                Action("accident", "Vistoria após a&cidente…", lambda _r: self.accident(), recorders,
                       needs_row=False),
                Action("campaign", "Con&vocar vistorias periódicas…", lambda _r: self.campaign(),
                       frozenset({Role.SUPERVISOR}), needs_row=False),
                Action("refresh", "A&tualizar", lambda _r: self.reload(), needs_row=False, shortcut="F5"),
            ],
            kinds=kinds, count=lambda n, _m: "", on_loaded=lambda _rows: self._queue_title()), self)
        self.queue_panel.title.show()
        self.tabs.addTab(self.queue_panel, "&Fila de hoje")

        self.upcoming_panel: ListPanel[InspectionRow] = ListPanel(ctx, ListSpec(
            name="upcoming", columns=INSPECTION_COLUMNS, sortable=True,
            load=lambda _v: inspections.upcoming_inspections(ctx, vehicles.local_today()),
            title="Vistorias agendadas para os próximos 30 dias.",
            actions=[
                Action("reschedule", "&Remarcar…", lambda _r: self.reschedule(), schedulers, default=True),
                Action("cancel_scheduled", "Cancelar a&gendamento…", lambda _r: self.cancel_scheduled(),
                       schedulers),
            ],
            kinds=kinds, count=lambda n, _m: f"{n} agendada(s)"), autoload=False)
        self.tabs.addTab(self.upcoming_panel, "&Próximos dias")

        self.history_panel: ListPanel[InspectionRow] = ListPanel(ctx, ListSpec(
            name="history", columns=INSPECTION_COLUMNS, fetch=self._fetch, sort=("id", True),
            filters=[Filter("search", "&Buscar:", placeholder="Placa, nome do titular ou número da vistoria",
                            stretch=True)],
            actions=[
                Action("open", "A&brir", lambda _r: self.open_selected(), default=True),
                Action("report", "Ver &laudo…", lambda _r: self.show_report(), enabled=lambda r: r.status.concluded),
                Action("reinspect", "&Nova vistoria dos pendentes", lambda _r: self.reinspect(), recorders,
                       enabled=lambda r: r.status is InspectionStatus.FAILED),
                Action("supersede", "&Substituir vistoria…", lambda _r: self.supersede(), recorders,
                       enabled=lambda r: r.status is InspectionStatus.APPROVED),
            ],
            kinds=kinds, count=lambda n, more: f"{n}{'+' if more else ''} vistoria(s)"), autoload=False)
        self.tabs.addTab(self.history_panel, "&Histórico")
        self.set_body(self.tabs)

        # the names tests and other code know
        self.queue, self.queue_model = self.queue_panel.table, self.queue_panel.model
        self.queue_title = self.queue_panel.title
        self.upcoming, self.upcoming_model = self.upcoming_panel.table, self.upcoming_panel.model
        self.history, self.history_model = self.history_panel.table, self.history_panel.model
        self.search = self.history_panel.line("search")
        for panel in (self.queue_panel, self.upcoming_panel, self.history_panel):
            for key, button in panel.buttons.items():
                setattr(self, f"{key}_button", button)
        self.reload()

    # --- data ------------------------------------------------------------------------------------
    def _fetch(self, values: dict[str, Any], offset: int, limit: int, key: str,
               descending: bool) -> list[InspectionRow]:
        return inspections.list_inspections(self.ctx, values["search"], offset=offset, limit=limit,
                                            sort_key=key, descending=descending)

    def reload(self) -> None:
        for panel in (self.queue_panel, self.upcoming_panel, self.history_panel):
            panel.reload()

    def reload_history(self) -> None:
        self.history_panel.reload()

    def _queue_title(self) -> None:
        n = self.queue_model.rowCount()
        self.queue_title.setText(f"<b>Fila do vistoriador – {format_date(vehicles.local_today())}</b>: {n} "
                                 "vistoria(s) para hoje, atrasadas, em preenchimento ou vencidas (anual do "
                                 "moto-frete, Art. 23; periódicas, Art. 5º, § 6º).")

    def queue_row(self) -> QueueRow | None:
        return self.queue_panel.selected()

    def history_row(self) -> InspectionRow | None:
        return self.history_panel.selected()

    def upcoming_row(self) -> InspectionRow | None:
        return self.upcoming_panel.selected()

    # --- actions ---------------------------------------------------------------------------------
    def open_checklist(self, inspection_id: int) -> None:
        """Read the inspection off the GUI thread, then run its checklist."""
        ctx = self.ctx

        def show(loaded: tuple[InspectionView, LawSettings]) -> None:
            dialog = ChecklistDialog(ctx, inspection_id, self, loaded=loaded)
            dialog.exec()
            self.reload()

        ServiceOp(self, lambda: read_checklist(ctx, inspection_id), busy="Abrindo a vistoria…",
                  title="Não foi possível abrir a vistoria").success(show).run()

    def _then_checklist(self, panel: ListPanel[Any], work: Callable[[], int], busy: str) -> None:
        ServiceOp(panel, work, busy=busy, change="inspection").success(self.open_checklist).run()

    def start_selected(self, *, ask: bool = False) -> None:
        """Start (or open) the queue row's inspection; ``ask``: first ask, naming the vehicle."""
        row = self.queue_row()
        if row is None or not self.can_record:
            return
        if ask and not confirm(self, "Iniciar vistoria", start_question(row.plate)):
            return
        ctx = self.ctx

        def work() -> int:
            if row.kind is InspectionKind.REINSPECTION and row.status is InspectionStatus.FAILED:
                assert row.inspection_id is not None
                return inspections.reopen_as_reinspection(ctx, row.inspection_id)
            if row.inspection_id is not None:
                return inspections.start_inspection(ctx, inspection_id=row.inspection_id)
            return inspections.start_inspection(ctx, vehicle_id=row.vehicle_id, kind=row.kind)

        self._then_checklist(self.queue_panel, work, "Abrindo a vistoria…")

    def schedule_selected(self) -> None:
        row = self.queue_row()
        if row is None:
            return
        kind = InspectionKind.REGULAR if row.kind is InspectionKind.REINSPECTION else row.kind
        self._book(ScheduleDialog(self.ctx, self, vehicle_id=row.vehicle_id, kind=kind))

    def schedule_new(self) -> None:
        self._book(ScheduleDialog(self.ctx, self))

    def _book(self, dialog: ScheduleDialog) -> None:
        """The booking, once made, is the chosen row of the list it lands in, and that list has the
        focus: today's in the queue (Enter starts it), a later day's in Próximos dias."""
        if not dialog.exec():
            return
        vehicle, booked = dialog.vehicle, dialog.scheduled_id
        if vehicle is None or booked is None:
            self.reload()
            return
        panel: ListPanel[Any]
        select: object
        if dialog.day.value() == vehicles.local_today():
            panel, select = self.queue_panel, (vehicle.id, booked, InspectionKind(dialog.kind.currentData()))
        else:
            panel, select = self.upcoming_panel, booked
        for each in (self.queue_panel, self.upcoming_panel, self.history_panel):  # each list read once
            each.reload(select=select if each is panel else None)
        self.tabs.setCurrentWidget(panel)
        panel.table.setFocus(Qt.FocusReason.OtherFocusReason)

    def campaign(self) -> None:
        if CampaignDialog(self.ctx, self).exec():
            self.reload()

    def accident(self) -> None:
        plate, ok = QInputDialog.getText(
            self, "Vistoria após acidente",
            "Art. 31, Grupo 4, I: veículo reparado após acidente passa por nova vistoria.\nPlaca do veículo:")
        if not ok or not plate.strip():
            return
        ctx = self.ctx

        def work() -> int:
            rows = vehicles.list_vehicles(ctx, plate, limit=1) if vehicles.plate_forms(plate) else []
            if not rows:
                raise InvalidInputError("Nenhum veículo ativo com esta placa.")
            return inspections.start_inspection(ctx, vehicle_id=rows[0].id, kind=InspectionKind.ACCIDENT)

        self._then_checklist(self.queue_panel, work, "Abrindo a vistoria após acidente…")

    def reschedule(self) -> None:
        row = self.upcoming_row()
        if row is None:
            return
        dialog = RescheduleDialog(row, self)
        try:
            if not dialog.exec():
                return
            day = dialog.day.value() or vehicles.local_today()
        finally:
            dialog.deleteLater()
        ctx = self.ctx
        self.upcoming_panel.run(lambda: inspections.reschedule_inspection(ctx, row.id, day),
                                f"Vistoria de {row.plate} remarcada para {format_date(day)}.", change="inspection",
                                busy="Remarcando…")

    def cancel_scheduled(self) -> None:
        row = self.upcoming_row()
        if row is None:
            return
        reason, ok = QInputDialog.getMultiLineText(self, "Cancelar agendamento",
                                                   f"Vistoria de {row.plate} em {format_date(row.scheduled_for)}.\n"
                                                   "Motivo do cancelamento:")
        if not ok:
            return
        ctx = self.ctx
        self.upcoming_panel.run(lambda: inspections.cancel_inspection(ctx, row.id, reason),
                                f"Agendamento de {row.plate} cancelado.", change="inspection", busy="Cancelando…")

    def open_selected(self) -> None:
        row = self.history_row()
        if row is None:
            return
        if row.status is InspectionStatus.SCHEDULED and self.can_record:
            # "Abrir" on a booked inspection starts it: that is said and asked first.
            if not confirm(self, "Iniciar vistoria", start_question(row.plate)):
                return
            ctx = self.ctx
            self._then_checklist(self.history_panel, lambda: inspections.start_inspection(ctx, inspection_id=row.id),
                                 "Abrindo a vistoria…")
            return
        if row.status in (InspectionStatus.SCHEDULED, InspectionStatus.CANCELLED):
            return
        self.open_checklist(row.id)

    def show_report(self) -> None:
        row = self.history_row()
        if row is None:
            return
        year = (row.performed_at.year if row.performed_at else local_today().year)
        ctx = self.ctx
        ServiceOp(self.history_panel, lambda: inspections.inspection_report(ctx, row.id), busy="Gerando o laudo…") \
            .success(lambda pdf: preview_pdf(self, pdf, f"Laudo de Vistoria {row.id:06d}/{year}")).run()

    def reinspect(self) -> None:
        row = self.history_row()
        if row is None:
            return
        ctx = self.ctx
        self._then_checklist(self.history_panel, lambda: inspections.reopen_as_reinspection(ctx, row.id),
                             "Abrindo a nova vistoria…")

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
        ctx = self.ctx
        self._then_checklist(self.history_panel, lambda: inspections.supersede_inspection(ctx, row.id, reason),
                             "Abrindo a vistoria substituta…")


@register_page("inspections")
def inspections_page(ctx: AppContext, window: QWidget) -> QWidget:
    return InspectionsPage(ctx, window)
