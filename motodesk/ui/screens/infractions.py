"""The "Autos de infração" page: notices with their process, the offender's record, and the actions.

Inspectors write notices; clerks record defences and appeals at the counter; supervisors decide and
close. Every deadline that runs (defence, then appeal) shows in the list and, large, in the detail.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from html import escape
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, QTimer
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from motodesk.services import enforcement
from motodesk.services.context import AppContext
from motodesk.services.enforcement import STATUS_FILTERS, NoticeRow, NoticeStatus, NoticeView
from motodesk.services.errors import MotodeskError
from motodesk.ui.decision_dialog import DecisionDialog
from motodesk.ui.defence_dialog import FiledDialog
from motodesk.ui.errors import show_error
from motodesk.ui.formatting import format_date, format_datetime
from motodesk.ui.mainwindow import register_page
from motodesk.ui.notice_form import NoticeForm, NotificationDialog
from motodesk.ui.pdfpreview import preview_pdf
from motodesk.ui.tablemodel import Column, LazyTableModel, RowTableModel
from motodesk.ui.widgets import heading

REPEAT_BACKGROUND = QColor("#ffe0b2")
OVERDUE_COLOUR = QColor("#b00020")


def _due(row: NoticeRow) -> str:
    return f"{row.next_due_label} {format_date(row.next_due)}" if row.next_due else ""


NOTICE_COLUMNS: list[Column[NoticeRow]] = [
    Column("number", "Nº", lambda r: r.number),
    Column("occurred_at", "Data e hora", lambda r: r.occurred_at),
    Column("article", "Enquadramento", lambda r: r.article, tooltip=lambda r: r.infraction_text),
    Column("severity", "Natureza", lambda r: r.severity.label, sortable=False),
    Column("offender_name", "Autuado(a)", lambda r: r.offender_name),
    Column("plate", "Placa", lambda r: r.plate),
    Column("status", "Situação", lambda r: r.status.label),
    Column("defence_due", "Prazo", _due),
    Column("penalty", "Decisão", lambda r: r.penalty_summary, sortable=False),
    Column("inspector_name", "Fiscal", lambda r: r.inspector_name),
]

HISTORY_COLUMNS: list[Column[NoticeRow]] = [
    Column("number", "Nº", lambda r: r.number),
    Column("occurred_at", "Data e hora", lambda r: r.occurred_at),
    Column("article", "Enquadramento", lambda r: r.article, tooltip=lambda r: r.infraction_text),
    Column("status", "Situação", lambda r: r.status.label),
    Column("penalty", "Decisão", lambda r: r.penalty_summary),
    Column("repeat", "Reincidência", lambda r: "Sim" if r.repeat else ""),
]


class NoticesModel(LazyTableModel[NoticeRow]):
    """The notices list: an overdue deadline is shown in red."""

    def __init__(self, fetch: Callable[[int, int, str, bool], list[NoticeRow]], today: Callable[[], date]) -> None:
        super().__init__(NOTICE_COLUMNS, fetch)
        self._today = today
        self._sort_key = "number"
        self._descending = True

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.ForegroundRole and index.isValid() and 0 <= index.row() < self.rowCount():
            row = self.row_at(index.row())
            if self.columns[index.column()].key == "defence_due" and row.next_due and row.next_due < self._today():
                return OVERDUE_COLOUR
            return None
        return super().data(index, role)


class HistoryModel(RowTableModel[NoticeRow]):
    """An offender's record: repeat offences highlighted (Art. 33, parágrafo único; Art. 34)."""

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.BackgroundRole and index.isValid() and 0 <= index.row() < self.rowCount():
            return REPEAT_BACKGROUND if self.row_at(index.row()).repeat else None
        return super().data(index, role)


def _table(name: str) -> QTableView:
    view = QTableView()
    view.setObjectName(name)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setAlternatingRowColors(True)
    view.setWordWrap(False)
    view.verticalHeader().hide()
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    view.horizontalHeader().setStretchLastSection(True)
    return view


class InfractionsPage(QWidget):
    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.today: Callable[[], date] = enforcement.local_today
        role = ctx.user.role
        self.current_view: NoticeView | None = None

        self.status_filter = QComboBox()
        self.status_filter.setObjectName("status_filter")
        for key, label in STATUS_FILTERS:
            self.status_filter.addItem(label, key)
        self.search = QLineEdit()
        self.search.setObjectName("search")
        self.search.setPlaceholderText("Buscar por número (AI-0001/2026), nome, CPF, placa, artigo ou palavra "
                                       "da infração")
        self.search.setClearButtonEnabled(True)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(250)
        self._timer.timeout.connect(self.reload)
        self.search.textChanged.connect(lambda _t: self._timer.start())
        self.status_filter.currentIndexChanged.connect(lambda _i: self.reload())

        self.model = NoticesModel(self._fetch, lambda: self.today())
        self.table = _table("notices")
        self.table.setModel(self.model)
        self.table.setSortingEnabled(True)
        self.table.horizontalHeader().setSortIndicator(0, Qt.SortOrder.DescendingOrder)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self.show_selected())
        self.table.doubleClicked.connect(lambda _i: self._default_action())

        self.new_button = self._button("new_notice", "Novo auto", self.new_notice,
                                       role in enforcement.WRITERS)
        self.notification_button = self._button("record_notification", "Registrar notificação…",
                                                self.record_notification, role in enforcement.RECORDERS)
        self.notification_button.setToolTip("Como e quando o autuado ausente ou que se recusou a assinar foi "
                                            "notificado: o prazo de defesa começa nesse dia (Art. 29, § 2º)")
        self.defence_button = self._button("record_defence", "Registrar defesa", self.record_defence,
                                           role in enforcement.RECORDERS)
        self.decide_button = self._button("decide", "Decidir", self.decide, role in enforcement.DECIDERS)
        self.appeal_button = self._button("appeal", "Recurso", self.record_appeal, role in enforcement.RECORDERS)
        self.close_button = self._button("close_process", "Encerrar processo", self.close_process,
                                         role in enforcement.DECIDERS)
        self.print_button = self._button("print", "Imprimir", self.print_selected, True)

        # --- the detail of the selected notice ----------------------------------------------------
        self.due_banner = QLabel()
        self.due_banner.setObjectName("due_banner")
        self.due_banner.setWordWrap(True)
        self.repeat_banner = QLabel()
        self.repeat_banner.setObjectName("repeat_banner")
        self.repeat_banner.setWordWrap(True)
        self.repeat_banner.setStyleSheet("background: #fff3e0; border: 1px solid #ef6c00; padding: 6px;")
        self.detail = QLabel()
        self.detail.setObjectName("detail")
        self.detail.setWordWrap(True)
        self.detail.setTextFormat(Qt.TextFormat.RichText)
        self.detail.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.detail)
        self.history_model = HistoryModel(HISTORY_COLUMNS)
        self.history = _table("history")
        self.history.setModel(self.history_model)
        self.history_title = QLabel("<b>Histórico do autuado</b>")
        detail_box = QWidget()
        detail_layout = QVBoxLayout(detail_box)
        detail_layout.setContentsMargins(0, 0, 0, 0)
        detail_layout.addWidget(self.due_banner)
        detail_layout.addWidget(self.repeat_banner)
        detail_layout.addWidget(scroll, 2)
        detail_layout.addWidget(self.history_title)
        detail_layout.addWidget(self.history, 1)

        filters = QHBoxLayout()
        filters.addWidget(QLabel("Situação:"))
        filters.addWidget(self.status_filter)
        filters.addWidget(self.search, 1)
        buttons = QHBoxLayout()
        for button in (self.new_button, self.notification_button, self.defence_button, self.decide_button,
                       self.appeal_button,
                       self.close_button, self.print_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.table)
        splitter.addWidget(detail_box)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.addWidget(heading("Autos de infração"))
        layout.addLayout(filters)
        layout.addLayout(buttons)
        layout.addWidget(splitter, 1)
        self.reload()

    def _button(self, name: str, text: str, slot: Callable[[], object], visible: bool) -> QPushButton:
        button = QPushButton(text)
        button.setObjectName(name)
        button.clicked.connect(lambda _checked=False: slot())
        button.setVisible(visible)
        return button

    # --- data --------------------------------------------------------------------------------
    def _fetch(self, offset: int, limit: int, key: str, descending: bool) -> list[NoticeRow]:
        return enforcement.list_notices(self.ctx, self.search.text(), status=self.status_filter.currentData(),
                                        offset=offset, limit=limit, sort_key=key, descending=descending)

    def reload(self, select_id: int | None = None) -> None:
        self._timer.stop()
        keep = select_id if select_id is not None else (self.current_view.id if self.current_view else None)
        try:
            self.model.reload()
        except MotodeskError as exc:
            show_error(self, exc)
            return
        self.table.resizeColumnsToContents()
        if keep is not None:
            self.select_notice(keep)
        self.show_selected()

    def select_notice(self, notice_id: int) -> bool:
        for row in range(self.model.rowCount()):
            if self.model.row_at(row).id == notice_id:
                self.table.selectRow(row)
                return True
        return False

    def selected_row(self) -> NoticeRow | None:
        rows = self.table.selectionModel().selectedRows()
        return self.model.row_at(rows[0].row()) if rows else None

    def show_selected(self) -> None:
        row = self.selected_row()
        view: NoticeView | None = None
        if row is not None:
            try:
                view = enforcement.get_notice(self.ctx, row.id)
            except MotodeskError as exc:
                show_error(self, exc)
        self.current_view = view
        self._show(view)
        self._buttons(view)

    def _show(self, view: NoticeView | None) -> None:
        if view is None:
            self.due_banner.setText("Selecione um auto para ver o processo.")
            self.due_banner.setStyleSheet("")
            self.repeat_banner.hide()
            self.detail.clear()
            self.history_model.set_rows([])
            return
        today = self.today()
        running = view.status in (NoticeStatus.OPEN, NoticeStatus.DECIDED)
        due = view.defence_due if view.status is NoticeStatus.OPEN else view.appeal_due
        late = running and due is not None and today > due
        colour = "#b00020" if late else "#0d47a1"
        self.due_banner.setText(f"<span style='font-size: 13pt; color: {colour}'><b>"
                                f"{escape(view.next_step(today))}</b></span>")
        self.due_banner.setStyleSheet("padding: 4px;")
        self.repeat_banner.setText(escape(view.repeat.message))
        self.repeat_banner.setVisible(view.repeat.is_repeat)
        self.detail.setText(self._detail_html(view))
        try:
            self.history_model.set_rows(enforcement.offender_history(
                self.ctx, person_id=view.person_id, cpf=view.offender_cpf,
                plate=view.plate if view.person_id is None and not view.offender_cpf else None))
        except MotodeskError as exc:
            show_error(self, exc)
        self.history.resizeColumnsToContents()

    @staticmethod
    def _detail_html(view: NoticeView) -> str:
        item = view.infraction
        lines = [
            f"<b>{escape(view.number)}</b> · {escape(view.status.label)} · lavrado por "
            f"{escape(view.inspector_name)} · "
            + (f"notificado em {format_date(view.notified_on)}"
               + (f" ({escape(view.notification_method.label.lower())}"
                  + (f", {escape(view.notification_reference)}" if view.notification_reference else "") + ")"
                  if view.notification_method else "")
               if view.notified_on else "<b>notificação pendente</b> (Art. 29, § 2º)"),
            f"<b>{escape(item.article)}</b> — {escape(item.text)} ({escape(view.severity.label)})",
            f"Em {format_datetime(view.occurred_at)}, {escape(view.place)}",
            f"Autuado(a): <b>{escape(view.offender_name)}</b> — {escape(view.offender_kind.label)}"
            + (f" · {escape(view.service.label)} {escape(view.permit_number or '')}" if view.service else "")
            + (f" ({escape(view.permit_state.label)})" if view.permit_state else ""),
            "Veículo: " + escape(" · ".join(p for p in (view.plate, view.vehicle_description) if p) or "—")
            + (" — <b>apreendido (Art. 32)</b>" if view.vehicle_seized else ""),
            f"Assinatura: {escape(view.signature.label)}",
            f"Relato: {escape(view.description or '')}",
            (f"<b>Prazo de defesa: até {format_date(view.defence_due)}</b> (Art. 29, § 3º)" if view.defence_due
             else "<b>Prazo de defesa: começa com a notificação do autuado</b> (Art. 29, §§ 2º e 3º)"),
        ]
        for filed in view.filed:
            files = ", ".join(escape(a.filename) for a in filed.attachments)
            lines.append(f"• {escape(filed.label)} em {format_date(filed.received_on)} ({escape(filed.received_by)})"
                         + (f": {escape(filed.text)}" if filed.text else "") + (f" — anexos: {files}" if files else ""))
        for decision in view.decisions:
            reclass = (f" · reclassificada para {escape(decision.severity.label)}: "
                       f"{escape(decision.reclassification_reason)}") if decision.reclassification_reason and \
                decision.severity else ""
            effect = f" · {escape(decision.effect_label)}" if decision.permit_effect else ""
            appeal = f" · recurso até {format_date(decision.appeal_due)}" if decision.appeal_due else ""
            lines.append(f"• <b>Decisão ({escape(decision.stage.label)})</b> em {format_datetime(decision.decided_at)}"
                         f" por {escape(decision.decided_by)}: <b>{escape(decision.summary)}</b>{reclass}{effect}"
                         f"{appeal}<br>&nbsp;&nbsp;{escape(decision.grounds or '')}")
        if view.closed_at:
            lines.append(f"Processo encerrado em {format_datetime(view.closed_at)} por {escape(view.closed_by or '')}.")
        return "<br>".join(lines)

    def _buttons(self, view: NoticeView | None) -> None:
        status = view.status if view else None
        self.notification_button.setEnabled(view is not None and view.awaiting_notification)
        self.defence_button.setEnabled(status is NoticeStatus.OPEN)
        self.decide_button.setEnabled(status in (NoticeStatus.OPEN, NoticeStatus.APPEALED))
        self.appeal_button.setEnabled(status is NoticeStatus.DECIDED)
        self.close_button.setEnabled(status is NoticeStatus.DECIDED)
        self.print_button.setEnabled(view is not None)

    def _default_action(self) -> None:
        if self.decide_button.isVisible() and self.decide_button.isEnabled():
            self.decide()

    # --- actions -----------------------------------------------------------------------------
    def new_notice(self) -> None:
        form = NoticeForm(self.ctx, self)
        if not form.exec() or form.created is None:
            return
        created = form.created
        self.status_filter.setCurrentIndex(self.status_filter.findData("in_progress"))
        self.search.clear()
        self.reload(select_id=created.id)
        self.print_notice(created.id)

    def record_notification(self) -> None:
        view = self.current_view
        if view is None:
            return
        if NotificationDialog(self.ctx, view, self, today=self.today()).exec():
            self.reload(select_id=view.id)

    def record_defence(self) -> None:
        self._filed("defence")

    def record_appeal(self) -> None:
        self._filed("appeal")

    def _filed(self, stage: str) -> None:
        view = self.current_view
        if view is None:
            return
        if FiledDialog(self.ctx, view, stage, self, today=self.today()).exec():
            self.reload(select_id=view.id)

    def decide(self) -> None:
        view = self.current_view
        if view is None:
            return
        if DecisionDialog(self.ctx, view, self, today=self.today()).exec():
            self.reload(select_id=view.id)

    def close_process(self) -> None:
        view = self.current_view
        if view is None:
            return
        answer = QMessageBox.question(
            self, "Encerrar processo",
            f"Encerrar o processo do auto {view.number}? A decisão torna-se definitiva"
            + (f" e “{view.final_decision.effect_label}” produz efeito agora." if view.final_decision and
               view.final_decision.permit_effect in (enforcement.PermitEffect.PENDING_REVOCATION,
                                                     enforcement.PermitEffect.PENDING_SUSPENSION) else "."))
        if answer != QMessageBox.StandardButton.Yes:
            return
        try:
            enforcement.close_process(self.ctx, view.id, today=self.today(), expected_version=view.version)
        except MotodeskError as exc:
            show_error(self, exc)
        self.reload(select_id=view.id)

    def print_selected(self) -> None:
        row = self.selected_row()
        if row is not None:
            self.print_notice(row.id)

    def print_notice(self, notice_id: int) -> None:
        """The notice in two copies and, when the offender refused to sign, the inspector's certificate."""
        try:
            documents = enforcement.notice_documents(self.ctx, notice_id)
        except MotodeskError as exc:
            show_error(self, exc)
            return
        for title, pdf in documents:
            preview_pdf(self, pdf, title)


@register_page("infractions")
def infractions_page(ctx: AppContext, window: QWidget) -> QWidget:
    return InfractionsPage(ctx, window)
