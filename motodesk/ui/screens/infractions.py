"""The "Autos de infração" page: notices with their process, the offender's record, and the actions.

Inspectors write notices; clerks record defences and appeals at the counter; supervisors decide and
close. Every deadline that runs (defence, then appeal) shows in the list and, large, in the detail.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from html import escape
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QLabel,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from motodesk.services import enforcement
from motodesk.services.context import AppContext
from motodesk.services.enforcement import STATUS_FILTERS, NoticeRow, NoticeStatus, NoticeView
from motodesk.ui.decision_dialog import DecisionDialog
from motodesk.ui.defence_dialog import FiledDialog
from motodesk.ui.errors import show_error  # noqa: F401 - tests replace it
from motodesk.ui.formatting import format_date, format_datetime
from motodesk.ui.guard import confirm
from motodesk.ui.listpage import Action, Filter, ListPage, ListPanel, ListSpec, labelled, list_table
from motodesk.ui.mainwindow import register_page
from motodesk.ui.notice_form import NoticeForm, NotificationDialog
from motodesk.ui.ops import ServiceOp, load_into
from motodesk.ui.pdfpreview import preview_pdf
from motodesk.ui.tablemodel import Column, RowTableModel

REPEAT_BACKGROUND = QColor("#ffe0b2")
OVERDUE_COLOUR = QColor("#b00020")
REPEAT_SYMBOL = "⚠"  # beside the highlight: colour is never the only signal
OVERDUE_SYMBOL = "✖"


def _due(row: NoticeRow) -> str:
    return f"{row.next_due_label} {format_date(row.next_due)}" if row.next_due else ""


NOTICE_COLUMNS: list[Column[NoticeRow]] = [
    Column("number", "Nº", lambda r: r.number),
    Column("occurred_at", "Data e hora", lambda r: r.occurred_at),
    Column("article", "Enquadramento", lambda r: r.article, tooltip=lambda r: r.infraction_text),
    Column("severity", "Natureza", lambda r: r.severity.label, sortable=False),
    Column("offender_name", "Autuado(a)", lambda r: r.offender_label),
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
    Column("repeat", "Reincidência", lambda r: f"{REPEAT_SYMBOL} Sim" if r.repeat else ""),
]


class HistoryModel(RowTableModel[NoticeRow]):
    """An offender's record: repeat offences highlighted (Art. 33, parágrafo único; Art. 34)."""

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.BackgroundRole and index.isValid() and 0 <= index.row() < self.rowCount():
            return REPEAT_BACKGROUND if self.row_at(index.row()).repeat else None
        return super().data(index, role)


class InfractionsPage(ListPage):
    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, "Autos de infração", parent=parent)
        self.today: Callable[[], date] = enforcement.local_today
        self.current_view: NoticeView | None = None
        recorders = frozenset(enforcement.RECORDERS)
        deciders = frozenset(enforcement.DECIDERS)

        detail_box = self._build_detail()

        def on(status: tuple[NoticeStatus, ...]) -> Callable[[NoticeRow], bool]:
            return lambda r: self._view_of(r) is not None and self._view_of(r).status in status  # type: ignore[union-attr]

        self.panel: ListPanel[NoticeRow] = ListPanel(ctx, ListSpec(
            name="notices", columns=NOTICE_COLUMNS, fetch=self._fetch, sort=("number", True),
            filters=[Filter("status_filter", "&Situação:", kind="choice", choices=[(text, k) for k, text in STATUS_FILTERS]),
                     Filter("search", "&Buscar:", stretch=True,
                            placeholder="Número (AI-0001/2026), nome, CPF, placa, artigo ou palavra da infração")],
            actions=[
                Action("new_notice", "&Novo auto", lambda _r: self.new_notice(), frozenset(enforcement.WRITERS),
                       needs_row=False, shortcut="Ctrl+Shift+N"),
                Action("record_notification", "Registrar no&tificação…", lambda _r: self.record_notification(),
                       recorders, enabled=self._awaiting_notification,
                       tooltip="Como e quando o autuado ausente ou que se recusou a assinar foi notificado: o prazo "
                               "de defesa começa nesse dia (Art. 29, § 2º)"),
                Action("record_defence", "Registrar &defesa", lambda _r: self.record_defence(), recorders,
                       enabled=on((NoticeStatus.OPEN,))),
                Action("decide", "D&ecidir", lambda _r: self.decide(), deciders, default=True,
                       enabled=on((NoticeStatus.OPEN, NoticeStatus.APPEALED))),
                Action("record_decision_notification", "N&otificação da decisão…",
                       lambda _r: self.record_notification(decision=True), recorders,
                       enabled=self._awaiting_decision_notification,
                       tooltip="Como e quando a decisão chegou ao autuado: o prazo de recurso começa nesse dia "
                               "(Art. 34, parágrafo único)"),
                Action("appeal", "Rec&urso", lambda _r: self.record_appeal(), recorders,
                       enabled=on((NoticeStatus.DECIDED,))),
                Action("close_process", "Encerrar &processo", lambda _r: self.close_process(), deciders,
                       enabled=on((NoticeStatus.DECIDED,))),
                Action("print", "&Imprimir", lambda _r: self.print_selected(), shortcut="Ctrl+P",
                       enabled=lambda r: self._view_of(r) is not None),
            ],
            kinds={"notice", "permit", "person"}, count=lambda n, more: f"{n}{'+' if more else ''} auto(s)",
            decorate=self._decorate, detail=detail_box, on_current=lambda _r: self.show_selected()),
            autoload=False)
        self.set_body(self.panel)
        # the names tests and other code know
        self.model, self.table = self.panel.model, self.panel.table
        self.status_filter = self.panel.combo("status_filter")
        self.search = self.panel.line("search")
        self.new_button = self.panel.buttons["new_notice"]
        self.notification_button = self.panel.buttons["record_notification"]
        self.defence_button = self.panel.buttons["record_defence"]
        self.decide_button = self.panel.buttons["decide"]
        self.appeal_button = self.panel.buttons["appeal"]
        self.close_button = self.panel.buttons["close_process"]
        self.print_button = self.panel.buttons["print"]
        self._show(None)
        self.reload()

    def _build_detail(self) -> QWidget:
        """The detail of the selected notice: its deadline and repeat banners, its text and the offender's history."""
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
        self.history = list_table("history")
        self.history.setModel(self.history_model)
        self.history_title = labelled("<b>&Histórico do autuado</b>", self.history)
        detail_box = QWidget()
        detail_layout = QVBoxLayout(detail_box)
        detail_layout.setContentsMargins(0, 0, 0, 0)
        detail_layout.addWidget(self.due_banner)
        detail_layout.addWidget(self.repeat_banner)
        detail_layout.addWidget(scroll, 2)
        detail_layout.addWidget(self.history_title)
        detail_layout.addWidget(self.history, 1)
        return detail_box

    # --- data --------------------------------------------------------------------------------
    def _fetch(self, values: dict[str, Any], offset: int, limit: int, key: str, descending: bool) -> list[NoticeRow]:
        return enforcement.list_notices(self.ctx, values["search"], status=values["status_filter"],
                                        offset=offset, limit=limit, sort_key=key, descending=descending)

    def _decorate(self, row: NoticeRow, column: str, role: int) -> Any:
        overdue = column == "defence_due" and row.next_due is not None and row.next_due < self.today()
        if role == Qt.ItemDataRole.ForegroundRole:  # an overdue deadline in red
            return OVERDUE_COLOUR if overdue else None
        if role == Qt.ItemDataRole.DisplayRole and overdue:  # and in words
            return f"{OVERDUE_SYMBOL} {_due(row)} (vencido)"
        return None

    def _awaiting_notification(self, row: NoticeRow) -> bool:
        view = self._view_of(row)
        return view is not None and view.awaiting_notification

    def _awaiting_decision_notification(self, row: NoticeRow) -> bool:
        view = self._view_of(row)
        return view is not None and view.awaiting_decision_notification

    def _view_of(self, row: NoticeRow) -> NoticeView | None:
        view = self.current_view
        return view if view is not None and view.id == row.id else None

    def reload(self, select_id: int | None = None) -> None:
        self.panel.reload(select=select_id)

    def select_notice(self, notice_id: int) -> bool:
        return self.panel.select_where(lambda r: r.id == notice_id)

    def selected_row(self) -> NoticeRow | None:
        return self.panel.selected()

    def show_selected(self) -> None:
        row = self.selected_row()
        if row is None:
            self.current_view = None
            self._show(None)
            self.panel.update_buttons()
            return
        ctx, today = self.ctx, self.today

        def read() -> tuple[NoticeView, list[NoticeRow]]:
            view = enforcement.get_notice(ctx, row.id)
            history = enforcement.offender_history(
                ctx, person_id=view.person_id, cpf=view.offender_cpf, organisation_id=view.organisation_id,
                plate=(view.plate if view.person_id is None and not view.offender_cpf
                       and view.organisation_id is None else None))
            return view, history

        def show(result: tuple[NoticeView, list[NoticeRow]]) -> None:
            view, history = result
            self.current_view = view
            self._show(view, today())
            self.history_model.set_rows(history)
            self.history.resizeColumnsToContents()
            self.panel.update_buttons()

        load_into(self, read, show, key="notice")

    def _show(self, view: NoticeView | None, today: date | None = None) -> None:
        if view is None:
            self.due_banner.setText("Selecione um auto para ver o processo.")
            self.due_banner.setStyleSheet("")
            self.repeat_banner.hide()
            self.detail.clear()
            self.history_model.set_rows([])
            return
        today = today or self.today()
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

    def record_notification(self, decision: bool = False) -> None:
        view = self.current_view
        if view is None:
            return
        if NotificationDialog(self.ctx, view, self, today=self.today(), decision=decision).exec():
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
        if not confirm(
            self, "Encerrar processo",
            f"Encerrar o processo do auto {view.number}? A decisão torna-se definitiva"
            + (f" e “{view.final_decision.effect_label}” produz efeito agora." if view.final_decision and
               view.final_decision.permit_effect in (enforcement.PermitEffect.PENDING_REVOCATION,
                                                     enforcement.PermitEffect.PENDING_SUSPENSION) else ".")):
            return
        ctx, today = self.ctx, self.today()
        self.panel.run(lambda: enforcement.close_process(ctx, view.id, today=today, expected_version=view.version),
                       f"Processo do auto {view.number} encerrado.", change="notice", select=lambda _r: view.id,
                       busy="Encerrando o processo…")

    def print_selected(self) -> None:
        row = self.selected_row()
        if row is not None:
            self.print_notice(row.id)

    def print_notice(self, notice_id: int) -> None:
        """The notice in two copies and, when the offender refused to sign, the inspector's certificate."""
        ctx = self.ctx

        def show(documents: list[tuple[str, bytes]]) -> None:
            for title, pdf in documents:
                preview_pdf(self, pdf, title)

        ServiceOp(self.panel, lambda: enforcement.notice_documents(ctx, notice_id), busy="Gerando o auto…") \
            .success(show).run()


@register_page("infractions")
def infractions_page(ctx: AppContext, window: QWidget) -> QWidget:
    return InfractionsPage(ctx, window)
