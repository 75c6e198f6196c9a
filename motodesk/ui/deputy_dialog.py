"""The deputy (preposto) of a permit, Art. 14: nominate, keep the work schedule, print the deputy's badge
and the schedule, end the link; opened from the "Permissões" page ("Preposto…").

- "&Indicar preposto…" chooses a registered person, shows the verdicts of the holder's rules on the
  deputy's dossier (Art. 14, § 2º) as soon as the person is chosen, and asks for the written
  nomination (§ 1º); the service decides, and a refusal is shown with its articles.
- The schedule (§ 3º) is a list of shifts — day, start, end, who drives — with the hours a week of
  each; "Im&primir escala…" gives the A4 form to sign and file.
- "E&ncerrar vínculo…" records the date the link ended and why; the status line says the 15-day
  deregistration deadline (Art. 31, Grupo 1, I) and whether it was kept.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, time
from pathlib import Path

from PySide6.QtCore import QTime
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QTableWidget,
    QTimeEdit,
    QVBoxLayout,
    QWidget,
)

from motodesk.rules.common import PermitState, Verdict
from motodesk.rules.eligibility import all_met
from motodesk.rules.validators import format_cpf
from motodesk.services import badges, deputies, permits
from motodesk.services.attachments import AttachmentInfo
from motodesk.services.context import AppContext
from motodesk.services.deputies import DRIVERS, WEEKDAY_NAMES, DeputyInfo, Shift
from motodesk.services.errors import InvalidInputError
from motodesk.services.permits import PermitRow
from motodesk.services.search import PersonHit
from motodesk.ui import formkit, person_picker
from motodesk.ui.errors import show_error
from motodesk.ui.formatting import format_date
from motodesk.ui.formkit import push_button, wrapped_label
from motodesk.ui.guard import GuardedDialog
from motodesk.ui.listpage import fit_to_screen
from motodesk.ui.ops import ServiceOp, load_into
from motodesk.ui.pdfpreview import preview_pdf
from motodesk.ui.tablemodel import Column, RowTableModel
from motodesk.ui.widgets import DateField, VerdictList, dialog_answer, ok_cancel_buttons

HISTORY_COLUMNS: list[Column[DeputyInfo]] = [
    Column("deputy_name", "Preposto", lambda d: d.deputy_name),
    Column("deputy_cpf", "CPF", lambda d: format_cpf(d.deputy_cpf)),
    Column("start_on", "Desde", lambda d: d.start_on),
    Column("end_on", "Até", lambda d: d.end_on),
    Column("end_reason", "Motivo do fim", lambda d: d.end_reason or "", tooltip=lambda d: d.end_reason),
    Column("deregistration_due", "Prazo da baixa (Art. 31, G1, I)", lambda d: d.deregistration_due),
]


def _qtime(value: time) -> QTime:
    return QTime(value.hour, value.minute)


def _time(value: QTime) -> time:
    return time(value.hour(), value.minute())


# --- the schedule editor -----------------------------------------------------------------------


class ScheduleEditor(QWidget):
    """The shifts of holder and deputy, one row each, with the hours a week of each (Art. 14, § 3º)."""

    COLUMNS = ("Dia", "Início", "Fim", "Condutor")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.table = QTableWidget(0, len(self.COLUMNS))
        self.table.setObjectName("schedule")
        self.table.setHorizontalHeaderLabels(list(self.COLUMNS))
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.add_button = push_button("&Adicionar turno", "add_shift", self.add_shift)
        self.remove_button = push_button("Re&mover turno", "remove_shift", self.remove_selected)
        self.totals = QLabel("")
        self.totals.setObjectName("totals")
        buttons = formkit.row(self.add_button, self.remove_button, 1, self.totals)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        self._update_totals()

    def add_shift(self, shift: Shift | None = None) -> int:
        shift = shift or Shift(0, time(8), time(12), "titular")
        row = self.table.rowCount()
        self.table.insertRow(row)
        day = QComboBox()
        day.setObjectName(f"weekday_{row}")
        for n, name in enumerate(WEEKDAY_NAMES):
            day.addItem(name.capitalize(), n)
        day.setCurrentIndex(shift.weekday)
        start, end = QTimeEdit(_qtime(shift.start)), QTimeEdit(_qtime(shift.end))
        for edit, name in ((start, "start"), (end, "end")):
            edit.setObjectName(f"{name}_{row}")
            edit.setDisplayFormat("HH:mm")
            edit.timeChanged.connect(lambda _t: self._update_totals())
        driver = QComboBox()
        driver.setObjectName(f"driver_{row}")
        for key, label in DRIVERS.items():
            driver.addItem(label, key)
        driver.setCurrentIndex(list(DRIVERS).index(shift.driver))
        driver.currentIndexChanged.connect(lambda _i: self._update_totals())
        for column, widget in enumerate((day, start, end, driver)):
            self.table.setCellWidget(row, column, widget)
        self._update_totals()
        return row

    def remove_selected(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        row = rows[0].row() if rows else self.table.rowCount() - 1
        if row >= 0:
            self.table.removeRow(row)
        self._update_totals()

    def set_shifts(self, shifts: Sequence[Shift]) -> None:
        self.table.setRowCount(0)
        for shift in shifts:
            self.add_shift(shift)
        self._update_totals()

    def shifts(self) -> list[Shift]:
        out = []
        for row in range(self.table.rowCount()):
            day, start, end, driver = (self.table.cellWidget(row, c) for c in range(len(self.COLUMNS)))
            assert isinstance(day, QComboBox) and isinstance(driver, QComboBox)
            assert isinstance(start, QTimeEdit) and isinstance(end, QTimeEdit)
            out.append(Shift(int(day.currentData()), _time(start.time()), _time(end.time()),
                             str(driver.currentData())))
        return out

    def _update_totals(self) -> None:
        totals = deputies.weekly_minutes([s for s in self.shifts() if s.start != s.end])
        self.totals.setText(f"Por semana: titular {deputies.format_hours(totals['titular'])} · "
                            f"preposto {deputies.format_hours(totals['preposto'])}")

    def set_editable(self, editable: bool) -> None:
        self.table.setEnabled(editable)
        self.add_button.setEnabled(editable)
        self.remove_button.setEnabled(editable)


# --- nomination --------------------------------------------------------------------------------


class NominateDialog(GuardedDialog):
    """Choose the deputy, see the verdicts of his dossier, attach the written nomination, nominate."""

    def __init__(self, ctx: AppContext, permit: PermitRow, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.permit = permit
        self.person: PersonHit | None = None
        self.file: tuple[bytes, str] | None = None
        self.verdicts: list[Verdict] = []
        self.nominated: deputies.Nominated | None = None
        self.setObjectName("nominate_deputy")
        self.setWindowTitle(f"Indicar preposto – {permit.number}")
        fit_to_screen(self, 720, 620)

        intro = wrapped_label(f"O titular {permit.holder} indica, por escrito, um preposto para auxiliá-lo (Art. 14). "
                              "O preposto deve cumprir as mesmas exigências do titular (§ 2º): cadastre antes o seu "
                              "dossiê em Pessoas.")
        self.person_label = QLabel("Nenhuma pessoa escolhida.")
        self.person_label.setObjectName("person")
        self.choose_button = push_button("&Escolher pessoa…", "choose_person", self.choose_person)
        person_row = formkit.row((self.person_label, 1), self.choose_button)
        self.start_on = DateField(optional=False)
        self.start_on.setObjectName("start_on")
        self.start_on.valueChanged.connect(self.refresh_verdicts)
        self.file_label = QLabel("Nenhum arquivo anexado.")
        self.file_label.setObjectName("nomination_file")
        self.attach_button = push_button("Ane&xar…", "attach", self.attach)
        file_row = formkit.row((self.file_label, 1), self.attach_button)
        form = QFormLayout()
        form.addRow("Preposto:", person_row)
        form.addRow("&Data da indicação:", self.start_on)
        form.addRow("Indicação por escrito (Art. 14, § 1º):", file_row)
        self.summary = QLabel("")
        self.summary.setObjectName("summary")
        self.summary.setWordWrap(True)
        self.verdict_list = VerdictList()
        self.verdict_list.setObjectName("verdicts")
        self.buttons, self.ok_button = ok_cancel_buttons(self, "Indicar", self.nominate, cancel_text=None)
        self.ok_button.setObjectName("nominate")
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(QLabel("<b>Exigências do Art. 5º aplicadas ao preposto (Art. 14, § 2º)</b>"))
        layout.addWidget(self.summary)
        layout.addWidget(self.verdict_list, 1)
        layout.addWidget(self.buttons)
        self._update_ok()
        self.mark_clean()

    def has_changes(self) -> bool:
        return super().has_changes() or self.person is not None or self.file is not None

    def save_and_close(self) -> None:
        self.nominate()

    def choose_person(self) -> None:
        hit = person_picker.pick(person_picker.people_picker(self.ctx, "Escolher o preposto", self))
        if hit is not None:
            self.set_person(hit)

    def set_person(self, hit: PersonHit) -> None:
        self.person = hit
        self.person_label.setText(f"{hit.full_name} – CPF {hit.cpf_formatted}")
        self.refresh_verdicts()

    def refresh_verdicts(self) -> None:
        if self.person is None:
            return
        person_id, service, on = self.person.person_id, self.permit.service, self.start_on.value()
        load_into(self, lambda: deputies.deputy_verdicts(self.ctx, person_id, service, on=on),
                  self._show_verdicts, key="verdicts")

    def _show_verdicts(self, verdicts: list[Verdict]) -> None:
        self.verdicts = verdicts
        self.verdict_list.set_verdicts(self.verdicts)
        blocking = [v for v in self.verdicts if not v.ok]
        self.summary.setText("Todas as exigências atendidas." if all_met(self.verdicts) else
                             f"{len(blocking)} exigência(s) não atendida(s) ou pendente(s): a indicação será "
                             "recusada até que o dossiê do preposto as cumpra.")
        self._update_ok()

    def attach(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, "Indicação do preposto por escrito", "",
                                              "Documentos (*.pdf *.jpg *.jpeg *.png)")
        if not name:
            return
        try:
            data = Path(name).read_bytes()
        except OSError as exc:
            show_error(self, InvalidInputError(f"Não foi possível ler o arquivo: {exc.strerror or exc}."))
            return
        self.file = (data, Path(name).name)
        self.file_label.setText(f"{Path(name).name} ({len(data) // 1024 or 1} KB)")
        self._update_ok()

    def _update_ok(self) -> None:
        self.ok_button.setEnabled(self.person is not None and self.file is not None)

    def nominate(self) -> None:
        if self.person is None:
            return
        permit_id, person_id, file, on = self.permit.id, self.person.person_id, self.file, self.start_on.value()
        ServiceOp(self, lambda: deputies.nominate_deputy(self.ctx, permit_id, person_id, file, on=on),
                  busy="Indicando o preposto…", fields={"start_on": self.start_on}, change="permit") \
            .success(self._nominated).run()

    def _nominated(self, nominated: deputies.Nominated) -> None:
        self.nominated = nominated
        self.accept()


def ask_nomination(ctx: AppContext, permit: PermitRow, parent: QWidget) -> deputies.Nominated | None:
    """Run the nomination dialog; what was nominated, or None.  Tests replace this function."""
    dialog = NominateDialog(ctx, permit, parent)
    try:
        dialog.exec()
        return dialog.nominated
    finally:
        dialog.deleteLater()


# --- end of the link ---------------------------------------------------------------------------


@dataclass
class EndInput:
    end_on: date | None
    reason: str


class EndLinkDialog(GuardedDialog):
    def __init__(self, deputy: DeputyInfo, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("end_link")
        self.setWindowTitle("Encerrar vínculo do preposto")
        text = wrapped_label(f"Encerrar o vínculo de {deputy.deputy_name} com {deputy.permit_number}. Informe o dia em "
                             "que o vínculo terminou: dele corre o prazo de 15 dias para a baixa (Art. 31, Grupo 1, I). "
                             "O crachá do preposto deixa de valer.")
        self.end_on = formkit.named(DateField(optional=False), "end_on")
        self.reason = formkit.text_box("reason", height=80)
        buttons, _ok = ok_cancel_buttons(self, None, cancel_text=None)
        formkit.form(text, ("&Fim do vínculo em:", self.end_on), ("&Motivo:", self.reason), buttons, parent=self)
        self.mark_clean()

    def values(self) -> EndInput:
        return EndInput(self.end_on.value(), self.reason.toPlainText().strip())


def ask_end(deputy: DeputyInfo, parent: QWidget) -> EndInput | None:
    """The end date and reason, or None when cancelled.  Tests replace this function."""
    return dialog_answer(EndLinkDialog(deputy, parent), EndLinkDialog.values)


# --- the dialog --------------------------------------------------------------------------------


class DeputyDialog(GuardedDialog):
    """A permit's deputy: the current one with his schedule and badge, and the past ones."""

    def __init__(self, ctx: AppContext, permit_id: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.permit_id = permit_id
        self.permit: PermitRow | None = None  # loaded off the GUI thread by reload()
        self.current: DeputyInfo | None = None
        self.editor = ctx.user.role in deputies.EDITORS
        self.setObjectName("deputy_dialog")
        self.setWindowTitle("Preposto")
        fit_to_screen(self, 900, 680)

        self.title = QLabel("")
        self.title.setObjectName("title")
        self.title.setWordWrap(True)

        current_box = QGroupBox("Preposto atual (Art. 14)")
        self.current_label = QLabel("")
        self.current_label.setObjectName("current")
        self.current_label.setWordWrap(True)
        self.nominate_button = self._button("nominate", "&Indicar preposto…", self.nominate)
        self.end_button = self._button("end_link", "E&ncerrar vínculo…", self.end_link)
        self.badge_button = self._button("deputy_badge", "&Crachá do preposto…", self.print_badge)
        self.nomination_button = self._button("show_nomination", "&Ver indicação", self.show_nomination)
        current_buttons = QHBoxLayout()
        for button in (self.nominate_button, self.end_button, self.badge_button, self.nomination_button):
            current_buttons.addWidget(button)
        current_buttons.addStretch(1)
        current_layout = QVBoxLayout(current_box)
        current_layout.addWidget(self.current_label)
        current_layout.addLayout(current_buttons)

        schedule_box = QGroupBox("Escala de trabalho do titular e do preposto (Art. 14, § 3º)")
        self.schedule = ScheduleEditor()
        self.save_schedule_button = self._button("save_schedule", "&Salvar escala", self.save_schedule)
        self.print_schedule_button = self._button("print_schedule", "Im&primir escala…", self.print_schedule)
        schedule_buttons = formkit.row(1, self.save_schedule_button, self.print_schedule_button)
        schedule_layout = QVBoxLayout(schedule_box)
        schedule_layout.addWidget(self.schedule, 1)
        schedule_layout.addLayout(schedule_buttons)

        self.history_model: RowTableModel[DeputyInfo] = RowTableModel(HISTORY_COLUMNS)
        self.history = QTableView()
        self.history.setObjectName("deputy_history")
        self.history.setModel(self.history_model)
        self.history.verticalHeader().hide()
        self.history.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.history.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.history.horizontalHeader().setStretchLastSection(True)

        self.status = wrapped_label("", "status")
        close = push_button("&Fechar", "close", self.reject, auto_default=False)  # with an unsaved schedule, asks first
        bottom = QHBoxLayout()
        bottom.addWidget(self.status, 1)
        bottom.addWidget(close)

        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(current_box)
        layout.addWidget(schedule_box, 2)
        layout.addWidget(QLabel("<b>Prepostos (atual e anteriores)</b>"))
        layout.addWidget(self.history, 1)
        layout.addLayout(bottom)
        self.reload()

    def _button(self, name: str, text: str, slot: Callable[[], object]) -> QPushButton:
        return push_button(text, name, slot, auto_default=False)  # the slot is never handed the checked flag

    def reload(self) -> None:
        ctx, permit_id = self.ctx, self.permit_id
        load_into(self, lambda: (permits.get_row(ctx, "permit", permit_id), deputies.deputy_history(ctx, permit_id)),
                  self._loaded)

    def _loaded(self, loaded: tuple[PermitRow, list[DeputyInfo]]) -> None:
        self.permit, history = loaded
        self.current = history[0] if history and history[0].active else None
        p = self.permit
        self.setWindowTitle(f"Preposto – {p.number}")
        self.title.setText(f"<b>{p.number}</b> – {p.service.label} – titular <b>{p.holder}</b> – {p.state.label}")
        active_permit = p.state is PermitState.ACTIVE
        current = self.current
        if current is None:
            self.current_label.setText("Nenhum preposto vinculado. Só o titular pode conduzir o veículo (Art. 11).")
            self.schedule.set_shifts([])
        else:
            badge = f"{current.badge_issue_no}ª via" if current.badge_issue_no else "não impresso"
            scans = ", ".join(a.filename for a in current.nomination) or "—"
            self.current_label.setText(
                f"<b>{current.deputy_name}</b> – CPF {format_cpf(current.deputy_cpf)} – preposto desde "
                f"{format_date(current.start_on)}<br>Indicação por escrito: {scans} · crachá do preposto: {badge}")
            self.schedule.set_shifts(current.schedule)
        self.nominate_button.setEnabled(self.editor and current is None and active_permit)
        self.end_button.setEnabled(self.editor and current is not None)
        self.badge_button.setEnabled(current is not None and active_permit
                                     and self.ctx.user.role in badges.PRINTERS)
        self.nomination_button.setEnabled(current is not None and bool(current.nomination))
        self.schedule.set_editable(self.editor and current is not None)
        self.save_schedule_button.setEnabled(self.editor and current is not None)
        self.print_schedule_button.setEnabled(current is not None)
        self.history_model.set_rows(history)
        self.history.resizeColumnsToContents()
        self.mark_clean()

    def has_changes(self) -> bool:
        """An unsaved schedule is the only thing typed here."""
        current = self.current
        return self.editor and current is not None and self.schedule.shifts() != current.schedule

    def save_and_close(self) -> None:
        self.save_schedule(then=self.accept)

    # --- actions ---------------------------------------------------------------------------------
    def nominate(self) -> None:
        if self.permit is None:
            return
        nominated = ask_nomination(self.ctx, self.permit, self)
        if nominated is None:
            return
        self.reload()
        self.status.setText(f"Preposto indicado em {format_date(nominated.start_on)}. Registre a escala e "
                            "imprima o crachá do preposto.")

    def end_link(self) -> None:
        current = self.current
        if current is None:
            return
        values = ask_end(current, self)
        if values is None:
            return
        def ended(result: deputies.EndedLink) -> None:
            self.reload()
            self.status.setText(f"Vínculo de {current.deputy_name} encerrado em {format_date(result.end_on)}. "
                                f"{result.notice} Recolha o crachá do preposto.")

        def refused(_exc: BaseException) -> bool:
            self.reload()  # the error is shown as usual; the dialog shows what the database holds
            return False

        ServiceOp(self, lambda: deputies.end_deputy_link(self.ctx, current.link_id, values.end_on, values.reason,
                                                         expected_version=current.version),
                  busy="Encerrando o vínculo…", change="permit", on_conflict=self.reload) \
            .success(ended).failure(refused).run()

    def save_schedule(self, then: Callable[[], None] | None = None) -> None:
        """Save the schedule; ``then`` runs after the save succeeded."""
        current = self.current
        if current is None:
            return
        shifts = self.schedule.shifts()

        def saved(_result: object) -> None:
            totals = self.schedule.totals.text()
            self.reload()
            self.status.setText("Escala registrada. " + totals + ".")
            if then is not None:
                then()

        ServiceOp(self, lambda: deputies.set_work_schedule(self.ctx, current.link_id, shifts,
                                                           expected_version=current.version),
                  busy="Salvando a escala…", change="permit", on_conflict=self.reload).success(saved).run()

    def print_schedule(self) -> None:
        current = self.current
        if current is None:
            return
        if self.editor and self.schedule.shifts() != current.schedule:
            self.save_schedule(then=self._print_schedule)
            return
        self._print_schedule()

    def _print_schedule(self) -> None:
        current, permit = self.current, self.permit
        if current is None or permit is None:
            return
        link_id = current.link_id
        ServiceOp(self, lambda: deputies.work_schedule_pdf(self.ctx, link_id), busy="Gerando a escala…") \
            .success(lambda pdf: preview_pdf(self, pdf, f"Escala de trabalho {permit.number}")).run()

    def print_badge(self) -> None:
        from motodesk.ui.badge_print import BadgePrintDialog

        current, permit = self.current, self.permit
        if current is None or permit is None:
            return
        dialog = BadgePrintDialog(self.ctx, [self.permit_id], labels=[f"{permit.number} (preposto)"],
                                  reprint=current.badge_issue_no > 0, parent=self)
        dialog.deputy.setChecked(True)
        dialog.deputy.setEnabled(False)
        try:
            dialog.exec()
        finally:
            dialog.deleteLater()
        self.reload()

    def show_nomination(self) -> None:
        from motodesk.services.attachments import attachment_content

        current = self.current
        if current is None or not current.nomination:
            return
        info = current.nomination[-1]
        ServiceOp(self, lambda: attachment_content(self.ctx, info.id), busy="Abrindo a indicação…") \
            .success(lambda loaded: self._show_nomination(info, loaded[1])).run()

    def _show_nomination(self, info: AttachmentInfo, data: bytes) -> None:
        permit_number = self.permit.number if self.permit is not None else ""
        if info.media_type == "application/pdf":
            preview_pdf(self, data, f"Indicação do preposto {permit_number}")
            return
        name, _ = QFileDialog.getSaveFileName(self, "Salvar indicação", info.filename)
        if name:
            try:
                Path(name).write_bytes(data)
            except OSError as exc:
                show_error(self, InvalidInputError(f"Não foi possível salvar: {exc.strerror or exc}."))


def open_deputy_dialog(ctx: AppContext, permit_id: int, parent: QWidget | None) -> None:
    """The deputy dialog of a permit, modal; the page reloads after it closes."""
    dialog = DeputyDialog(ctx, permit_id, parent)
    try:
        dialog.exec()
    finally:
        dialog.deleteLater()
