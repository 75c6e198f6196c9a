"""The "Recadastramento" page: the yearly re-registration campaign (Art. 4º, § 1º; Art. 30, Grupo 1, I–II).

Above, the campaign and its progress, and — for a supervisor — the period to open a new one. In the
middle, the appointments of the day (or of every day), with name/CPF search. The counter works from the
keyboard: Enter on a row asks what happened (compareceu, faltou, reagendar, histórico); the buttons do
the same with access keys. Call letters (all pending, or the selected person) open in the PDF preview;
the schedule is exported as a spreadsheet. A supervisor closes the campaign: the list of who did not
come, each with the infraction of Art. 30, Grupo 1 their absence supports, replaces the day's list, and
an inspector or supervisor may write the notice from it ("Lavrar auto").

Every service call runs through :class:`~motodesk.ui.ops.ServiceOp`; the page follows the change bus
("campaign").
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from motodesk.rules.campaign import AppointmentState
from motodesk.rules.common import Role
from motodesk.services import campaigns
from motodesk.services.campaigns import AbsentRow, AppointmentRow, CampaignInfo, CampaignProgress
from motodesk.services.clock import local_now, local_today
from motodesk.services.context import AppContext
from motodesk.ui.changes import follow_changes
from motodesk.ui.formatting import format_date
from motodesk.ui.formkit import buddy, column, form, line_edit
from motodesk.ui.guard import confirm
from motodesk.ui.mainwindow import register_page
from motodesk.ui.ops import ServiceOp
from motodesk.ui.pdfpreview import preview_pdf
from motodesk.ui.tablemodel import Column, RowTableModel
from motodesk.ui.widgets import DateField, fit_columns, heading, ok_cancel_buttons, run_dialog, table_view

CHANGE = "campaign"
WEEKDAYS = ("seg", "ter", "qua", "qui", "sex", "sáb", "dom")

APPOINTMENT_COLUMNS: list[Column[AppointmentRow]] = [
    Column("slot", "Horário", lambda r: f"{r.slot:%d/%m %H:%M}"),
    Column("name", "Nome", lambda r: r.name),
    Column("role", "Condição", lambda r: r.role.label),
    Column("permit", "Permissão", lambda r: r.permit_number),
    Column("due", "Vence", lambda r: "; ".join(f"{d.label.split(' ')[0]} {d.shown_due()}" for d in r.due),
           tooltip=lambda r: r.due_text),
    Column("phone", "Telefone", lambda r: r.phone or ""),
    Column("state", "Situação", lambda r: r.state.label),
]

ABSENT_COLUMNS: list[Column[AbsentRow]] = [
    Column("slot", "Horário", lambda r: f"{r.appointment.slot:%d/%m %H:%M}"),
    Column("name", "Nome", lambda r: r.appointment.name),
    Column("role", "Condição", lambda r: r.appointment.role.label),
    Column("permit", "Permissão", lambda r: r.appointment.permit_number),
    Column("infraction", "Infração que a falta sustenta (Art. 30, Grupo 1)", lambda r: r.infraction_text,
           tooltip=lambda r: "\n".join(n.verdict.message for n in r.no_shows)),
]



def ask_save_path(parent: QWidget, title: str, suggested: str, filter_text: str) -> str:
    name, _ = QFileDialog.getSaveFileName(parent, title, suggested, filter_text)
    return name


def inform(parent: QWidget, title: str, text: str) -> None:
    QMessageBox.information(parent, title, text)


class RowActionDialog(QDialog):
    """Enter on a row: what happened to this appointment? One key each."""

    ATTENDED, MISSED, RESCHEDULE, HISTORY = "attended", "missed", "reschedule", "history"

    def __init__(self, row: AppointmentRow, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("row_action_dialog")
        self.setWindowTitle("Atendimento do recadastramento")
        self.choice: str | None = None
        layout = QVBoxLayout(self)
        info = QLabel(f"<b>{row.name}</b> ({row.role.label.lower()}, {row.permit_number})<br>"
                      f"Agendado para {row.slot:%d/%m/%Y às %H:%M} · {row.state.label}<br>{row.due_text}")
        info.setWordWrap(True)
        layout.addWidget(info)
        hint = QLabel("Tecle C (compareceu), F (faltou), R (reagendar) ou H (histórico); Esc cancela.")
        hint.setObjectName("hint")
        layout.addWidget(hint)
        buttons = QHBoxLayout()
        for key, text in ((self.ATTENDED, "&Compareceu"), (self.MISSED, "&Faltou"),
                          (self.RESCHEDULE, "&Reagendar…"), (self.HISTORY, "&Histórico…")):
            button = QPushButton(text)
            button.setObjectName(f"choose_{key}")
            button.setAutoDefault(False)
            button.clicked.connect(lambda _=False, k=key: self._choose(k))
            buttons.addWidget(button)
        cancel = QPushButton("Cancelar")
        cancel.setShortcut("Esc")
        cancel.clicked.connect(self.reject)
        buttons.addWidget(cancel)
        layout.addLayout(buttons)
        self.first_button = self.findChild(QPushButton, f"choose_{self.ATTENDED}")

    def _choose(self, key: str) -> None:
        self.choice = key
        self.accept()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        """The letters alone, as well as with Alt: Enter on a row, then C, F, R or H."""
        keys = {Qt.Key.Key_C: self.ATTENDED, Qt.Key.Key_F: self.MISSED, Qt.Key.Key_R: self.RESCHEDULE,
                Qt.Key.Key_H: self.HISTORY}
        choice = keys.get(Qt.Key(event.key()))
        if choice is not None:
            self._choose(choice)
            return
        super().keyPressEvent(event)


class RescheduleDialog(QDialog):
    """Pick one of the next free slots (the first is preselected) and say why."""

    def __init__(self, row: AppointmentRow, slots: list[datetime], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("reschedule_dialog")
        self.setWindowTitle("Reagendar atendimento")
        self.slot_choice = QComboBox()
        self.slot_choice.setObjectName("slot_choice")
        for slot in slots:
            self.slot_choice.addItem(f"{slot:%d/%m/%Y} ({WEEKDAYS[slot.weekday()]}) {slot:%H:%M}", slot)
        self.reason = line_edit("reason", "opcional: por que mudou", campaigns.MAX_REASON)
        buttons, _ok = ok_cancel_buttons(self, "&Reagendar", cancel_text="Cancelar")
        buttons.button(QDialogButtonBox.StandardButton.Cancel).setShortcut("Esc")
        column(form(
            QLabel(f"{row.name} – hoje marcado para {row.slot:%d/%m/%Y às %H:%M}"),
            (buddy("&Novo horário:", self.slot_choice), self.slot_choice),
            (buddy("&Motivo:", self.reason), self.reason),
        ), buttons, parent=self)

    def chosen(self) -> datetime | None:
        value = self.slot_choice.currentData()
        return value if isinstance(value, datetime) else None


class HistoryDialog(QDialog):
    def __init__(self, row: AppointmentRow, history: list[campaigns.HistoryRow], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("history_dialog")
        self.setWindowTitle(f"Histórico – {row.name}")
        self.resize(720, 320)
        self.list = QListWidget()
        self.list.setObjectName("history")
        for h in history:
            move = f"{h.from_state.label} → {h.to_state.label}" if h.from_state else h.to_state.label
            slot = ""
            if h.from_slot and h.to_slot and h.from_slot != h.to_slot:
                slot = f" · de {h.from_slot:%d/%m %H:%M} para {h.to_slot:%d/%m %H:%M}"
            elif h.to_slot:
                slot = f" · {h.to_slot:%d/%m/%Y %H:%M}"
            why = f" · {h.reason}" if h.reason else ""
            self.list.addItem(f"{h.at:%d/%m/%Y %H:%M} · {h.by_user} · {move}{slot}{why}")
        close = QPushButton("&Fechar")
        close.clicked.connect(self.accept)
        layout = QVBoxLayout(self)
        layout.addWidget(self.list)
        layout.addWidget(close, 0, Qt.AlignmentFlag.AlignRight)


class _EnterOnRow(QObject):
    def __init__(self, callback: Callable[[], None]) -> None:
        super().__init__()
        self.callback = callback

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent) \
                and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not event.modifiers():
            self.callback()
            return True
        return False


class CampaignPage(QWidget):
    """See the module docstring."""

    def _load(self, fn: Callable[[], Any], on_loaded: Callable[[Any], None], key: str = "load") -> None:
        """A read off the GUI thread, nothing locked; only the newest read of ``key`` is delivered.

        (Not ``ops.load_into``: as landed, it drops every result — ``_finished`` forgets the op as the
        latest of its key before asking whether it was superseded.)
        """
        generation = self._generations[key] = self._generations.get(key, 0) + 1

        def deliver(result: Any) -> None:
            if self._generations.get(key) == generation:
                on_loaded(result)

        ServiceOp(self, fn, lock=False).success(deliver).run()

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        role = ctx.user.role
        self.supervisor = role is Role.SUPERVISOR
        self.counter = role in campaigns.COUNTER
        self.notice_writer = role in (Role.INSPECTOR, Role.SUPERVISOR)
        self.campaign: CampaignInfo | None = None
        self.closed_result: campaigns.CampaignClosed | None = None
        self.showing_absent = False
        self._generations: dict[str, int] = {}

        self._build_campaign_box()
        filters = self._build_filters()
        self._build_tables()
        row_actions, campaign_actions = self._build_actions()

        top = QHBoxLayout()
        top.addWidget(heading("Recadastramento anual"))
        top.addStretch(1)
        top.addWidget(self.progress_bar)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(self.open_box)
        layout.addLayout(filters)
        layout.addWidget(self.list_title)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.absent_table, 1)
        layout.addLayout(row_actions)
        layout.addLayout(campaign_actions)
        self._update_buttons()
        follow_changes(self, self.reload, kinds=[CHANGE, "person", "permit", "settings"])
        self.reload()

    def _build_campaign_box(self) -> None:
        """The campaign's summary and progress, and the supervisor's box that opens one."""
        self.summary = QLabel("Carregando…")
        self.summary.setObjectName("summary")
        self.summary.setWordWrap(True)
        self.progress_bar = QProgressBar()
        self.progress_bar.setObjectName("progress")
        self.progress_bar.setFormat("%v de %m compareceram")
        self.progress_bar.setMinimumWidth(380)

        self.open_box = QGroupBox("Abrir recadastramento (supervisor)")
        self.open_box.setObjectName("open_box")
        self.period_start = DateField()
        self.period_start.setObjectName("period_start")
        self.period_end = DateField()
        self.period_end.setObjectName("period_end")
        start_label = QLabel("&De:")
        start_label.setBuddy(self.period_start)
        end_label = QLabel("A&té:")
        end_label.setBuddy(self.period_end)
        self.open_button = QPushButton("&Abrir recadastramento")
        self.open_button.setObjectName("open_campaign")
        self.open_button.clicked.connect(self.open_campaign)
        open_row = QHBoxLayout(self.open_box)
        for w in (start_label, self.period_start, end_label, self.period_end, self.open_button):
            open_row.addWidget(w)
        open_row.addStretch(1)
        if not self.supervisor:  # only hidden here: setVisible(True) without a parent opens a window
            self.open_box.hide()

    def _build_filters(self) -> QHBoxLayout:
        """The day, all days and search filters of the appointments."""
        self.day = DateField(optional=False)
        self.day.setObjectName("day")
        day_label = QLabel("D&ia:")
        day_label.setBuddy(self.day)
        self.all_days = QCheckBox("T&odos os dias")
        self.all_days.setObjectName("all_days")
        self.search = QLineEdit()
        self.search.setObjectName("search")
        self.search.setPlaceholderText("nome ou CPF")
        self.search.setMaximumWidth(260)
        search_label = QLabel("&Buscar:")
        search_label.setBuddy(self.search)
        self.refresh_button = QPushButton("At&ualizar")
        self.refresh_button.setObjectName("refresh")
        self.day.valueChanged.connect(self.reload)
        self.all_days.toggled.connect(self.reload)
        self.search.returnPressed.connect(self.reload)
        self.refresh_button.clicked.connect(self.reload)
        filters = QHBoxLayout()
        filter_widgets: tuple[QWidget, ...] = (day_label, self.day, self.all_days, search_label, self.search,
                                               self.refresh_button)
        for fw in filter_widgets:
            filters.addWidget(fw)
        filters.addStretch(1)
        return filters

    def _build_tables(self) -> None:
        """The appointments' table and the absent people's (shown in its place once the campaign is closed)."""
        self.model: RowTableModel[AppointmentRow] = RowTableModel(APPOINTMENT_COLUMNS)
        self.table = table_view("appointments")
        self.table.setModel(self.model)
        self._enter = _EnterOnRow(self.row_actions)
        self.table.installEventFilter(self._enter)
        self.table.doubleClicked.connect(lambda _index: self.row_actions())
        self.absent_model: RowTableModel[AbsentRow] = RowTableModel(ABSENT_COLUMNS)
        self.absent_table = table_view("absent")
        self.absent_table.setModel(self.absent_model)
        self.absent_table.hide()
        self.table.selectionModel().currentChanged.connect(lambda *_: self._update_buttons())
        self.absent_table.selectionModel().currentChanged.connect(lambda *_: self._update_buttons())
        self.list_title = QLabel()
        self.list_title.setObjectName("list_title")

    def _build_actions(self) -> tuple[QHBoxLayout, QHBoxLayout]:
        """The buttons on the selected appointment and on the whole campaign, each shown to the roles that use it."""
        def button(name: str, text: str, slot: Callable[[], None], visible: bool = True) -> QPushButton:
            b = QPushButton(text)
            b.setObjectName(name)
            b.clicked.connect(slot)
            if not visible:  # only hidden here: setVisible(True) without a parent opens a window
                b.hide()
            return b

        self.attended_button = button("attended", "&Compareceu", lambda: self.mark(True), self.counter)
        self.missed_button = button("missed", "&Faltou", lambda: self.mark(False), self.counter)
        self.reschedule_button = button("reschedule", "&Reagendar…", self.reschedule, self.counter)
        self.history_button = button("history", "&Histórico…", self.show_history)
        self.letter_button = button("letter", "Carta da &pessoa", self.print_selected_letter, self.counter)
        self.letters_button = button("letters", "I&mprimir cartas (todos)", self.print_letters, self.counter)
        self.export_button = button("export", "E&xportar agenda…", self.export_schedule, self.counter)
        self.absent_button = button("show_absent", "Au&sentes", self.toggle_absent)
        self.close_button = button("close_campaign", "E&ncerrar recadastramento", self.close_campaign, self.supervisor)
        self.notice_button = button("write_notice", "&Lavrar auto…", self.write_notice, self.notice_writer)
        row_actions = QHBoxLayout()
        for b in (self.attended_button, self.missed_button, self.reschedule_button, self.history_button,
                  self.letter_button):
            row_actions.addWidget(b)
        row_actions.addStretch(1)
        campaign_actions = QHBoxLayout()
        for b in (self.letters_button, self.export_button, self.absent_button, self.notice_button):
            campaign_actions.addWidget(b)
        campaign_actions.addStretch(1)
        campaign_actions.addWidget(self.close_button)
        return row_actions, campaign_actions

    # -- loading ---------------------------------------------------------------------------------
    def reload(self) -> None:
        day = None if self.all_days.isChecked() else self.day.value()
        text = self.search.text()
        ctx = self.ctx

        def fetch() -> tuple[CampaignProgress | None, list[AppointmentRow], list[AbsentRow]]:
            prog = campaigns.progress(ctx)
            if prog is None:
                return None, [], []
            rows = campaigns.list_appointments(ctx, prog.campaign.id, day=day, text=text)
            absent = campaigns.absent_list(ctx, prog.campaign.id) if not prog.campaign.is_open else []
            return prog, rows, absent

        self._load(fetch, self._loaded)

    def _loaded(self, result: tuple[CampaignProgress | None, list[AppointmentRow], list[AbsentRow]]) -> None:
        prog, rows, absent = result
        self.campaign = prog.campaign if prog else None
        if prog is None:
            self.summary.setText("Nenhum recadastramento aberto ainda. "
                                 + ("Informe o período e abra o primeiro." if self.supervisor
                                    else "Um supervisor abre o recadastramento."))
            self.progress_bar.setValue(0)
        else:
            c = prog.campaign
            self.summary.setText(
                f"<b>{c.label}</b> · aberto por {c.opened_by} em {c.opened_at:%d/%m/%Y}. "
                f"Agendados: <b>{prog.scheduled}</b> · compareceram: <b>{prog.attended}</b> · "
                f"faltaram: <b>{prog.missed}</b> · pendentes: <b>{prog.pending}</b> · hoje: {prog.today}.")
            # Who came, out of who was called: an absence is not an atendimento concluded.
            self.progress_bar.setMaximum(max(1, prog.scheduled))
            self.progress_bar.setValue(prog.attended)
            self.progress_bar.setFormat(f"%v de %m compareceram · {prog.missed} falta(s) · {prog.pending} pendente(s)")
        self.open_box.setVisible(self.supervisor and (self.campaign is None or not self.campaign.is_open))
        self.model.set_rows(rows)
        self.absent_model.set_rows(absent)
        fit_columns(self.table, 280)
        fit_columns(self.absent_table, 420)
        if self.campaign is not None and not self.campaign.is_open and not self.showing_absent:
            self.showing_absent = True  # after the close, the list that matters is who did not come
        self._show_list()
        if rows and not self.table.selectionModel().hasSelection():
            self.table.selectRow(0)
        self._update_buttons()

    def _show_list(self) -> None:
        self.table.setVisible(not self.showing_absent)
        self.absent_table.setVisible(self.showing_absent)
        if self.showing_absent:
            self.list_title.setText(f"Não compareceram: {self.absent_model.rowCount()}")
            self.absent_button.setText("A&genda do dia")
            if self.absent_model.rowCount() and not self.absent_table.selectionModel().hasSelection():
                self.absent_table.selectRow(0)
        else:
            when = "todos os dias" if self.all_days.isChecked() else format_date(self.day.value() or local_today())
            self.list_title.setText(f"Atendimentos – {when}: {self.model.rowCount()}")
            self.absent_button.setText("Au&sentes")

    def _update_buttons(self) -> None:
        is_open = self.campaign is not None and self.campaign.is_open
        has_row = self.current() is not None and not self.showing_absent
        for b in (self.attended_button, self.missed_button, self.reschedule_button):
            b.setEnabled(is_open and has_row)
        self.history_button.setEnabled(has_row)
        self.letter_button.setEnabled(is_open and has_row)
        self.letters_button.setEnabled(is_open)
        self.export_button.setEnabled(self.campaign is not None)
        self.absent_button.setEnabled(self.campaign is not None)
        self.close_button.setEnabled(is_open)
        self.notice_button.setEnabled(self.showing_absent and self.current_absent() is not None)

    def current(self) -> AppointmentRow | None:
        index = self.table.currentIndex()
        if not index.isValid() or index.row() >= self.model.rowCount():
            return None
        return self.model.row_at(index.row())

    def current_absent(self) -> AbsentRow | None:
        index = self.absent_table.currentIndex()
        if not index.isValid() or index.row() >= self.absent_model.rowCount():
            return None
        return self.absent_model.row_at(index.row())

    # -- opening and closing -----------------------------------------------------------------------------
    def open_campaign(self) -> None:
        start, end = self.period_start.value(), self.period_end.value()
        shown = f"de {format_date(start)} a {format_date(end)}" if start and end else "do período informado"
        if start and end and not confirm(self, "Abrir recadastramento",
                                         f"Abrir o recadastramento {shown}? Todos os titulares e prepostos com "
                                         "certificado vencendo até o último dia serão agendados."):
            return
        ServiceOp(self, lambda: campaigns.open_campaign(self.ctx, start, end), busy="Agendando os convocados…",
                  fields={"period_start": self.period_start, "period_end": self.period_end}, change=CHANGE) \
            .success(self._opened).run()

    def _opened(self, opened: campaigns.CampaignOpened) -> None:
        self.showing_absent = False
        self.all_days.setChecked(False)
        self.day.set_value(opened.first_slot.date())
        inform(self, "Recadastramento aberto",
               f"{opened.appointments} pessoa(s) convocada(s), de {opened.first_slot:%d/%m/%Y %H:%M} a "
               f"{opened.last_slot:%d/%m/%Y %H:%M}. Imprima as cartas de convocação.")

    def close_campaign(self) -> None:
        """Ask with what closing will do — how many pending become absences, and what the list of the
        absent says — after reading the pending appointments off the GUI thread. With one still ahead
        nothing is asked: the service refuses and says why."""
        if self.campaign is None:
            return
        c, ctx = self.campaign, self.ctx
        pending = [AppointmentState.SCHEDULED, AppointmentState.RESCHEDULED]
        self._load(lambda: campaigns.list_appointments(ctx, c.id, states=pending),
                   lambda rows: self._confirm_close(c, rows), key="close")

    def _confirm_close(self, c: CampaignInfo, pending: list[AppointmentRow]) -> None:
        ahead = [r for r in pending if r.slot > local_now().replace(tzinfo=None)]
        if not ahead:
            n = len(pending)
            what = ("Nenhum atendimento está pendente: ninguém será marcado como falta."
                    if n == 0 else
                    f"{n} atendimento(s) pendente(s), já passado(s), será(ão) marcado(s) como falta.")
            if not confirm(self, "Encerrar recadastramento",
                           f"Encerrar o recadastramento? {what} Depois de encerrado, nenhum atendimento pode ser "
                           "marcado ou reagendado. A lista dos ausentes mostra, para cada falta, a infração do "
                           "Art. 30, Grupo 1 que ela sustenta — só quando o certificado está vencido."):
                return
        ServiceOp(self, lambda: campaigns.close_campaign(self.ctx, c.id, version=c.version), busy="Encerrando…",
                  change=CHANGE, on_conflict=self.reload).success(self._closed).run()

    def _closed(self, closed: campaigns.CampaignClosed) -> None:
        self.closed_result = closed
        self.showing_absent = True
        self.absent_model.set_rows(closed.absent)
        self._show_list()
        self.absent_table.setFocus()

    def toggle_absent(self) -> None:
        self.showing_absent = not self.showing_absent
        if self.showing_absent and self.campaign is not None and self.campaign.is_open:
            c = self.campaign
            self._load(lambda: campaigns.absent_list(self.ctx, c.id), self._absent_loaded, key="absent")
        self._show_list()
        self._update_buttons()
        (self.absent_table if self.showing_absent else self.table).setFocus()

    def _absent_loaded(self, rows: list[AbsentRow]) -> None:
        self.absent_model.set_rows(rows)
        fit_columns(self.absent_table, 420)
        self._show_list()
        self._update_buttons()

    # -- the counter -------------------------------------------------------------------------------------
    def row_actions(self) -> None:
        row = self.current()
        if row is None or self.showing_absent:
            return
        dialog = RowActionDialog(row, self)
        if not run_dialog(dialog):
            return
        {RowActionDialog.ATTENDED: lambda: self.mark(True), RowActionDialog.MISSED: lambda: self.mark(False),
         RowActionDialog.RESCHEDULE: self.reschedule, RowActionDialog.HISTORY: self.show_history}[dialog.choice or ""]()

    def mark(self, attended: bool) -> None:
        row = self.current()
        if row is None:
            return
        today = local_today()
        if row.slot.date() != today and not confirm(
                self, "Compareceu" if attended else "Faltou",
                f"O horário de {row.name} é {format_date(row.slot.date())}, não hoje ({format_date(today)}). "
                f"Marcar {'o comparecimento' if attended else 'a falta'} assim mesmo?"):
            return
        ServiceOp(self, lambda: campaigns.mark_attendance(self.ctx, row.id, attended, version=row.version),
                  busy="Gravando…", change=CHANGE, on_conflict=self.reload).success(lambda _r: self._next_row()).run()

    def _next_row(self) -> None:
        self.table.setFocus()

    def reschedule(self) -> None:
        row = self.current()
        if row is None:
            return
        self._load(lambda: campaigns.free_slots(self.ctx, row.campaign_id, limit=40),
                   lambda slots: self._pick_slot(row, slots), key="slots")

    def _pick_slot(self, row: AppointmentRow, slots: list[datetime]) -> None:
        if not slots:
            inform(self, "Reagendar", "Não há horário livre até o fim do recadastramento.")
            return
        dialog = RescheduleDialog(row, slots, self)
        if not run_dialog(dialog):
            return
        slot, reason = dialog.chosen(), dialog.reason.text()
        ServiceOp(self, lambda: campaigns.reschedule(self.ctx, row.id, slot, version=row.version, reason=reason),
                  busy="Reagendando…", change=CHANGE, on_conflict=self.reload).success(self._rescheduled).run()

    def _rescheduled(self, row: AppointmentRow) -> None:
        inform(self, "Reagendado", f"{row.name}: novo horário {row.slot:%d/%m/%Y às %H:%M}.")

    def show_history(self) -> None:
        row = self.current()
        if row is None:
            return
        self._load(lambda: campaigns.appointment_history(self.ctx, row.id),
                   lambda history: self._show_history(row, history), key="history")

    def _show_history(self, row: AppointmentRow, history: list[campaigns.HistoryRow]) -> None:
        run_dialog(HistoryDialog(row, history, self))

    # -- documents ---------------------------------------------------------------------------------------
    def print_letters(self) -> None:
        if self.campaign is None:
            return
        c = self.campaign
        ServiceOp(self, lambda: campaigns.call_letters(self.ctx, c.id), busy="Gerando as cartas…") \
            .success(lambda pdf: preview_pdf(self, pdf, "Cartas de convocação", "cartas-recadastramento.pdf")).run()

    def print_selected_letter(self) -> None:
        row = self.current()
        if row is None:
            return
        ServiceOp(self, lambda: campaigns.call_letters(self.ctx, row.campaign_id, [row.id]), busy="Gerando a carta…") \
            .success(lambda pdf: preview_pdf(self, pdf, f"Carta de convocação – {row.name}")).run()

    def export_schedule(self) -> None:
        if self.campaign is None:
            return
        c = self.campaign
        path = ask_save_path(self, "Exportar agenda do recadastramento",
                             f"agenda-recadastramento-{c.period_start:%Y-%m-%d}.xlsx", "Planilhas (*.xlsx)")
        if not path:
            return
        ServiceOp(self, lambda: campaigns.export_schedule(self.ctx, c.id, path), busy="Exportando a agenda…") \
            .success(lambda n: inform(self, "Agenda exportada", f"{n} atendimento(s) gravado(s) em {path}.")).run()

    def write_notice(self) -> None:
        row = self.current_absent()
        if row is None:
            return
        supported = [n for n in row.no_shows if n.supports_notice]
        if not supported:
            inform(self, "Lavrar auto", "A falta desta pessoa ainda não sustenta infração: "
                   + "; ".join(n.verdict.message for n in row.no_shows))
            return
        first = supported[0]
        if not confirm(self, "Lavrar auto de infração",
                       f"Lavrar auto de infração contra {row.appointment.name} por {first.infraction.article} "
                       f"({first.infraction.text})? O autuado está ausente: a notificação será posterior "
                       "(Art. 29, § 2º)."):
            return
        ServiceOp(self, lambda: campaigns.open_notice_for_absence(self.ctx, row.appointment.id, first.infraction.code),
                  busy="Lavrando o auto…", change="notice") \
            .success(lambda created: inform(self, "Auto lavrado", f"Auto nº {created.number} lavrado.")).run()


@register_page("campaign")
def _make(ctx: AppContext, _window: object) -> QWidget:
    return CampaignPage(ctx)

