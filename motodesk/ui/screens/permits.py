"""The "Permissões" page: applications and permits through their life, and the mototáxi tender and quota.

Tab "Permissões": the register (state, service and text filters), one button per step of the state
machine (enabled only where the rules let the user's role try it), the badge, the registration
certificate and the transit authorization of the selected permit, and its history (who, when, why).
Tab "Licitação e cota": the quota of Art. 10, I (population, quota, in force, open places) and the
tenders with their ranked candidates.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from PySide6.QtCore import QItemSelectionModel, Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from motodesk.rules.common import PermitState, Role, ServiceType
from motodesk.rules.lifecycle import transition
from motodesk.rules.validators import format_cpf
from motodesk.services import badges, enforcement, fees, permits, tenders
from motodesk.services.badges import BadgePrintRow
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext
from motodesk.services.errors import InvalidInputError, MotodeskError
from motodesk.services.permits import EventRow, PermitRow
from motodesk.services.tenders import CandidateRow, TenderRow
from motodesk.ui.errors import show_error
from motodesk.ui.formatting import format_date
from motodesk.ui.mainwindow import register_page
from motodesk.ui.payment_dialog import FEE_REFUSAL_HINT, record_payment, recorded_message
from motodesk.ui.tablemodel import Column, LazyTableModel, RowTableModel
from motodesk.ui.widgets import DateField, heading, table_view

RIGHT = Qt.AlignmentFlag.AlignRight

PERMIT_COLUMNS: list[Column[PermitRow]] = [
    Column("number", "Número", lambda r: r.number),
    Column("service", "Serviço", lambda r: r.service.label),
    Column("holder", "Titular", lambda r: r.holder),
    Column("cpf", "CPF", lambda r: format_cpf(r.cpf)),
    Column("plate", "Placa", lambda r: r.plate or ""),
    Column("state", "Situação", lambda r: r.state.label),
    Column("start", "Aberto/emitido em", lambda r: r.start),
    Column("term_end", "Fim do prazo", lambda r: r.term_end),
    Column("certificate_valid_until", "Certificado até", lambda r: r.certificate_valid_until),
    Column("suspended_until", "Suspensa até", lambda r: r.suspended_until),
    Column("badge_issue_no", "Via do crachá", lambda r: f"{r.badge_issue_no}ª" if r.badge_issue_no else "—", RIGHT),
]

EVENT_COLUMNS: list[Column[EventRow]] = [
    Column("at", "Quando", lambda e: e.at),
    Column("by_user", "Quem", lambda e: e.by_user),
    Column("label", "Ato", lambda e: e.label),
    Column("to_state", "Situação", lambda e: e.to_state.label),
    Column("reason", "Motivo", lambda e: e.reason or "", tooltip=lambda e: e.reason),
    Column("decree", "Decreto", lambda e: e.decree or ""),
]

PRINT_COLUMNS: list[Column[BadgePrintRow]] = [
    Column("printed_at", "Impresso em", lambda p: p.printed_at),
    Column("printed_by", "Por", lambda p: p.printed_by),
    Column("issue_no", "Via", lambda p: f"{p.issue_no}ª", RIGHT),
    Column("holder_kind", "Portador", lambda p: p.holder_kind),
    Column("reason", "Motivo", lambda p: p.reason, tooltip=lambda p: p.reason),
    Column("layout", "Leiaute", lambda p: "Cartão" if p.layout == "card" else "A4"),
]

TENDER_COLUMNS: list[Column[TenderRow]] = [
    Column("number", "Licitação", lambda t: t.number),
    Column("description", "Descrição", lambda t: t.description or ""),
    Column("homologated_on", "Homologada em", lambda t: t.homologated_on),
    Column("medical_deadline", "Prazo do atestado (Art. 5º, § 2º)", lambda t: t.medical_deadline),
    Column("candidates", "Candidatos", lambda t: t.candidates, RIGHT),
    Column("waiting", "Aguardando", lambda t: t.waiting, RIGHT),
    Column("called", "Convocados", lambda t: t.called, RIGHT),
]

CANDIDATE_COLUMNS: list[Column[CandidateRow]] = [
    Column("rank", "Classificação", lambda c: f"{c.rank}º", RIGHT),
    Column("name", "Nome", lambda c: c.name),
    Column("cpf", "CPF", lambda c: format_cpf(c.cpf)),
    Column("status", "Situação", lambda c: c.status_label),
    Column("called_on", "Convocado em", lambda c: c.called_on),
    Column("application", "Requerimento", lambda c: c.application_state.label if c.application_state else ""),
]




# --- the dialogs of the steps -------------------------------------------------------------------


@dataclass
class StepInput:
    reason: str = ""
    decree_number: str = ""
    decree_date: date | None = None
    until: date | None = None
    express_request: bool = False


class StepDialog(QDialog):
    """What one step asks: a reason, a Decree, a date, the holder's express request…"""

    def __init__(self, title: str, intro: str, *, reason: str | None = None, decree: str | None = None,
                 until: str | None = None, express_request: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("step_dialog")
        self.setWindowTitle(title)
        self.resize(520, 0)
        form = QFormLayout()
        text = QLabel(intro)
        text.setWordWrap(True)
        form.addRow(text)
        self.reason = QPlainTextEdit()
        self.reason.setObjectName("reason")
        self.reason.setFixedHeight(80)
        self.decree_number = QLineEdit()
        self.decree_number.setObjectName("decree_number")
        self.decree_number.setMaxLength(32)
        self.decree_number.setPlaceholderText("ex.: 1.234/2026")
        self.decree_date = DateField()
        self.decree_date.setObjectName("decree_date")
        self.until = DateField()
        self.until.setObjectName("until")
        self.express_request = QCheckBox("O titular pediu o cancelamento por escrito (pedido anexado)")
        self.express_request.setObjectName("express_request")
        if decree is not None:
            form.addRow(decree, self.decree_number)
            form.addRow("Data do Decreto:", self.decree_date)
        if until is not None:
            form.addRow(until, self.until)
        if reason is not None:
            form.addRow(reason, self.reason)
        if express_request:
            form.addRow(self.express_request)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(buttons)

    def values(self) -> StepInput:
        return StepInput(
            reason=self.reason.toPlainText().strip(),
            decree_number=self.decree_number.text().strip(),
            decree_date=self.decree_date.value(),
            until=self.until.value(),
            express_request=self.express_request.isChecked(),
        )


def ask_step(parent: QWidget, title: str, intro: str, **fields: object) -> StepInput | None:
    """Open the step's dialog; None when cancelled.  Tests replace this function."""
    dialog = StepDialog(title, intro, parent=parent, **fields)  # type: ignore[arg-type]
    try:
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        return dialog.values()
    finally:
        dialog.deleteLater()


class ConvictionDialog(QDialog):
    """Art. 35: what the court's certificate of finality says; recording it revokes the permit."""

    def __init__(self, row: PermitRow, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("conviction_dialog")
        self.setWindowTitle("Condenação criminal transitada em julgado (Art. 35)")
        self.setMinimumWidth(560)
        intro = QLabel(f"A {row.service.instrument} {row.number} de {row.holder} será <b>cassada</b> "
                       "(Art. 35: “será cassada em caso de condenação criminal transitado em julgado”). "
                       "Informe os dados da certidão do juízo.")
        intro.setWordWrap(True)
        self.court = QLineEdit()
        self.court.setObjectName("court")
        self.court.setMaxLength(200)
        self.court.setPlaceholderText("ex.: 1ª Vara Criminal da Comarca de Patrocínio")
        self.case_number = QLineEdit()
        self.case_number.setObjectName("case_number")
        self.case_number.setMaxLength(40)
        self.case_number.setPlaceholderText("NNNNNNN-DD.AAAA.J.TR.OOOO")
        self.final_on = DateField()
        self.final_on.setObjectName("final_on")
        self.notes = QPlainTextEdit()
        self.notes.setObjectName("notes")
        self.notes.setFixedHeight(60)
        form = QFormLayout()
        form.addRow("&Juízo ou tribunal:", self.court)
        form.addRow("Nº do &processo:", self.case_number)
        form.addRow("&Trânsito em julgado em:", self.final_on)
        form.addRow("&Observações:", self.notes)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText("Registrar e cassar")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)  # outside the form: a wrapped label there gets one line's height
        layout.addLayout(form)
        layout.addWidget(buttons)
        self.court.setFocus()

    def values(self) -> enforcement.ConvictionInput:
        return enforcement.ConvictionInput(court=self.court.text().strip(), case_number=self.case_number.text().strip(),
                                           final_on=self.final_on.value(), notes=self.notes.toPlainText().strip())


def ask_conviction(parent: QWidget, row: PermitRow) -> enforcement.ConvictionInput | None:
    """Open the Art. 35 dialog; None when cancelled.  Tests replace this function."""
    dialog = ConvictionDialog(row, parent)
    try:
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        return dialog.values()
    finally:
        dialog.deleteLater()


def confirm(parent: QWidget, title: str, text: str) -> bool:
    answer = QMessageBox.question(parent, title, text,
                                  QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                                  QMessageBox.StandardButton.No)
    return answer == QMessageBox.StandardButton.Yes


# --- the permits tab -----------------------------------------------------------------------------


class PermitsTab(QWidget):
    """The register of applications and permits, the steps of the selected one, and its history."""

    STEP_BUTTONS = (
        ("start_review", "Iniciar análise"),
        ("approve", "Aprovar…"),
        ("refuse", "Indeferir…"),
        ("issue", "Emitir"),
        ("renew_registration", "Renovar registro"),
        ("extend", "Prorrogar…"),
        ("cancel", "Cancelar a pedido…"),
        ("expire", "Registrar fim do prazo"),
    )

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.role = ctx.user.role

        self.state_filter = QComboBox()
        self.state_filter.setObjectName("state_filter")
        for key in ("all", "in_force", "pending", *[s.value for s in PermitState]):
            self.state_filter.addItem(permits.STATE_FILTERS[key][0], key)
        self.service_filter = QComboBox()
        self.service_filter.setObjectName("service_filter")
        self.service_filter.addItem("Todos os serviços", None)
        for service in ServiceType:
            self.service_filter.addItem(service.label, service.value)
        self.search = QLineEdit()
        self.search.setObjectName("search")
        self.search.setPlaceholderText("Buscar por nome, CPF, placa ou número (MT-0007/2026)")
        self.search.setClearButtonEnabled(True)
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(250)
        self._search_timer.timeout.connect(self.reload)
        self.search.textChanged.connect(lambda _t: self._search_timer.start())
        self.state_filter.currentIndexChanged.connect(lambda _i: self.reload())
        self.service_filter.currentIndexChanged.connect(lambda _i: self.reload())
        filters = QHBoxLayout()
        filters.addWidget(QLabel("Situação:"))
        filters.addWidget(self.state_filter)
        filters.addWidget(self.service_filter)
        filters.addWidget(self.search, 1)

        self.model: LazyTableModel[PermitRow] = LazyTableModel(PERMIT_COLUMNS, self._fetch, page_size=200)
        self.table = table_view("permits_table", multi=True)
        self.table.setModel(self.model)
        # Newest first until a header is clicked; the database sorts.
        self.table.horizontalHeader().setSortIndicator(6, Qt.SortOrder.DescendingOrder)
        self.table.setSortingEnabled(True)

        self.step_buttons: dict[str, QPushButton] = {}
        steps = QHBoxLayout()
        for name, text in self.STEP_BUTTONS:
            button = QPushButton(text)
            button.setObjectName(f"step_{name}")
            button.setToolTip(f"{transition(name).label} ({transition(name).article})")
            button.clicked.connect(lambda _c=False, n=name: self.take_step(n))
            self.step_buttons[name] = button
            steps.addWidget(button)
        steps.addStretch(1)
        self.badge_button = self._button("print_badge", "Imprimir crachá…", self.print_badge)
        self.certificate_button = self._button("certificate", "Certificado de registro", self.show_certificate)
        self.authorization_button = self._button("transit_authorization", "Autorização de trânsito",
                                                 self.show_transit_authorization)
        self.verify_button = self._button("verify_badge", "Verificar crachá…", self.verify_badge)
        self.deputy_button = self._button("deputy", "Preposto…", self.open_deputy)  # Art. 14
        self.payment_button = self._button("record_payment", "Registrar pa&gamento…", self.record_payment)  # Art. 6º, § 6º
        # Art. 35: the one cassação recorded here; every other penalty comes from a decided notice of
        # infraction (page "Infrações"), never from a button with a written reason.
        self.conviction_button = self._button("conviction", "Condenação criminal (Art. 35)…",
                                              self.record_conviction)
        self.conviction_button.setToolTip("Registrar condenação criminal transitada em julgado: cassa a "
                                          "permissão (Art. 35)")
        self.count = QLabel()
        self.count.setObjectName("count")
        outputs = QHBoxLayout()
        for button in (self.badge_button, self.certificate_button, self.authorization_button, self.deputy_button,
                       self.payment_button, self.conviction_button, self.verify_button):
            outputs.addWidget(button)
        outputs.addStretch(1)
        outputs.addWidget(self.count)

        self.detail_title = QLabel("Selecione uma permissão ou requerimento.")
        self.detail_title.setObjectName("detail_title")
        self.detail_title.setWordWrap(True)
        self.status = QLabel("")
        self.status.setObjectName("status")
        self.status.setWordWrap(True)
        self.events_model: RowTableModel[EventRow] = RowTableModel(EVENT_COLUMNS)
        self.events = table_view("permit_history")
        self.events.setModel(self.events_model)
        self.prints_model: RowTableModel[BadgePrintRow] = RowTableModel(PRINT_COLUMNS)
        self.prints = table_view("badge_prints")
        self.prints.setModel(self.prints_model)
        details = QWidget()
        details_layout = QVBoxLayout(details)
        details_layout.setContentsMargins(0, 0, 0, 0)
        details_layout.addWidget(self.detail_title)
        row = QHBoxLayout()
        left = QVBoxLayout()
        left.addWidget(QLabel("<b>Histórico (quem, quando, por quê)</b>"))
        left.addWidget(self.events)
        right = QVBoxLayout()
        right.addWidget(QLabel("<b>Impressões do crachá</b>"))
        right.addWidget(self.prints)
        row.addLayout(left, 3)
        row.addLayout(right, 2)
        details_layout.addLayout(row)

        table_box = QWidget()
        table_layout = QVBoxLayout(table_box)
        table_layout.setContentsMargins(0, 0, 0, 0)
        table_layout.addLayout(filters)
        table_layout.addWidget(self.table, 1)
        table_layout.addLayout(steps)
        table_layout.addLayout(outputs)
        table_layout.addWidget(self.status)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(table_box)
        splitter.addWidget(details)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self.show_details())
        self.reload()

    def _button(self, name: str, text: str, slot: Callable[[], object]) -> QPushButton:
        button = QPushButton(text)
        button.setObjectName(name)
        button.clicked.connect(lambda _c=False: slot())
        return button

    # --- data ------------------------------------------------------------------------------------
    def _fetch(self, offset: int, limit: int, key: str, descending: bool) -> list[PermitRow]:
        service = self.service_filter.currentData()
        return permits.list_permits(
            self.ctx, state_filter=str(self.state_filter.currentData()),
            service=ServiceType(service) if service else None, search=self.search.text(),
            offset=offset, limit=limit, sort_key=key, descending=descending)

    def reload(self, select: tuple[str, int] | None = None) -> None:
        self._search_timer.stop()
        try:
            self.model.reload()
        except MotodeskError as exc:
            show_error(self, exc)
            return
        more = "+" if self.model.canFetchMore() else ""
        self.count.setText(f"{self.model.rowCount()}{more} registro(s)")
        self.table.resizeColumnsToContents()
        if select is not None:
            self.select(*select)
        self.show_details()

    def select(self, kind: str, row_id: int) -> bool:
        for row in range(self.model.rowCount()):
            item = self.model.row_at(row)
            if item.kind == kind and item.id == row_id:
                self.table.selectionModel().select(
                    self.model.index(row, 0),
                    QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
                self.table.scrollTo(self.model.index(row, 0))
                return True
        return False

    def selected_rows(self) -> list[PermitRow]:
        return [self.model.row_at(i.row()) for i in sorted(self.table.selectionModel().selectedRows(),
                                                           key=lambda i: i.row())]

    def selected(self) -> PermitRow | None:
        rows = self.selected_rows()
        return rows[0] if len(rows) == 1 else None

    def show_details(self) -> None:
        rows = self.selected_rows()
        row = rows[0] if len(rows) == 1 else None
        allowed = {t.name for t in permits.actions_for(row, self.role)} if row else set()
        if row is not None and (row.term_end is None or row.term_end >= local_today()):
            allowed.discard("expire")  # only once the term is over (Art. 6º)
        for name, button in self.step_buttons.items():
            button.setEnabled(name in allowed)
        permits_in_force = [r for r in rows if r.is_permit and r.state is PermitState.ACTIVE]
        can_print = self.role in badges.PRINTERS
        self.badge_button.setEnabled(can_print and bool(rows) and len(permits_in_force) == len(rows))
        single_active = row is not None and row.is_permit and row.state is PermitState.ACTIVE
        self.certificate_button.setEnabled(single_active and can_print)
        self.authorization_button.setEnabled(single_active and can_print)
        self.deputy_button.setEnabled(row is not None and row.is_permit)
        self.payment_button.setEnabled(row is not None and self.role in fees.RECORDERS)
        self.conviction_button.setEnabled(row is not None and row.is_permit and row.state.in_force
                                          and self.role in enforcement.DECIDERS)
        if row is None:
            self.detail_title.setText(f"{len(rows)} selecionados." if rows else
                                      "Selecione uma permissão ou requerimento.")
            self.events_model.set_rows([])
            self.prints_model.set_rows([])
            return
        parts = [f"<b>{row.number}</b> – {row.service.label} – {row.holder} – {row.state.label}"]
        if row.term_end:
            parts.append(f"prazo até {format_date(row.term_end)}")
        if row.certificate_valid_until:
            parts.append(f"certificado até {format_date(row.certificate_valid_until)}")
        if row.suspended_until:
            parts.append(f"suspensa até {format_date(row.suspended_until)}")
        self.detail_title.setText(" · ".join(parts))
        try:
            self.events_model.set_rows(permits.history(self.ctx, row.kind, row.id))
            self.prints_model.set_rows(badges.print_log(self.ctx, row.id) if row.is_permit else [])
        except MotodeskError as exc:
            show_error(self, exc)
        self.events.resizeColumnsToContents()
        self.prints.resizeColumnsToContents()

    def _done(self, row: PermitRow, message: str, kind: str | None = None, row_id: int | None = None) -> None:
        self.status.setText(message)
        self.reload(select=(kind or row.kind, row_id or row.id))

    # --- steps -----------------------------------------------------------------------------------
    def take_step(self, name: str) -> None:
        row = self.selected()
        if row is None:
            return
        handler = getattr(self, f"_step_{name}")
        try:
            handler(row)
        except MotodeskError as exc:
            show_error(self, exc)
            self.reload(select=(row.kind, row.id))
            if fees.is_fee_refusal(exc):
                self.status.setText(FEE_REFUSAL_HINT)

    def _step_start_review(self, row: PermitRow) -> None:
        permits.start_review(self.ctx, row.id, expected_version=row.version)
        self._done(row, f"{row.number}: análise iniciada.")

    def _step_approve(self, row: PermitRow) -> None:
        values = ask_step(self, "Aprovar por Decreto",
                          f"Aprovar o requerimento de {row.holder} ({row.service.label}). A outorga se dá por "
                          "Decreto do Poder Executivo (Art. 6º).", decree="Decreto nº:")
        if values is None:
            return
        permits.approve(self.ctx, row.id, values.decree_number, values.decree_date, expected_version=row.version)
        self._done(row, f"{row.number}: aprovado pelo Decreto nº {values.decree_number}.")

    def _step_refuse(self, row: PermitRow) -> None:
        values = ask_step(self, "Indeferir requerimento", f"Indeferir o requerimento de {row.holder}.",
                          reason="Motivo do indeferimento:")
        if values is None:
            return
        permits.refuse(self.ctx, row.id, values.reason, expected_version=row.version)
        self._done(row, f"{row.number}: indeferido.")

    def _step_issue(self, row: PermitRow) -> None:
        what = "a permissão" if row.service is ServiceType.MOTOTAXI else "a autorização"
        if not confirm(self, "Emitir", f"Emitir {what} de {row.holder} ({row.service.label})?\n"
                                       "O número, o prazo de 5 anos e o certificado de 1 ano são gravados agora."):
            return
        issued = permits.issue(self.ctx, row.id, expected_version=row.version)
        self._done(row, f"Emitida {issued.number}: prazo até {format_date(issued.term_end)}, certificado até "
                        f"{format_date(issued.certificate_valid_until)}. Imprima o crachá.", "permit", issued.id)

    def _step_renew_registration(self, row: PermitRow) -> None:
        if not confirm(self, "Renovar registro", f"Renovar o registro de {row.number} por 1 ano (Art. 4º, § 1º)?"):
            return
        until = permits.renew_registration(self.ctx, row.id, expected_version=row.version)
        self._done(row, f"{row.number}: certificado renovado até {format_date(until)}. Reimprima o crachá "
                        "com o motivo “renovação do registro”.")

    def _step_extend(self, row: PermitRow) -> None:
        values = ask_step(self, "Prorrogar por 5 anos",
                          f"Prorrogar {row.number} por mais 5 anos, uma única vez (Art. 6º).",
                          decree="Decreto nº (se houver):", reason="Observação:")
        if values is None:
            return
        end = permits.extend(self.ctx, row.id, decree_number=values.decree_number or None,
                             decree_date=values.decree_date, reason=values.reason or None,
                             expected_version=row.version)
        self._done(row, f"{row.number}: prorrogada até {format_date(end)}.")

    def _step_cancel(self, row: PermitRow) -> None:
        values = ask_step(self, "Cancelar a pedido",
                          f"Cancelar {row.number} de {row.holder} a pedido expresso do interessado (Art. 6º, § 7º).",
                          reason="Observação:", express_request=True)
        if values is None:
            return
        if row.is_permit:
            permits.cancel(self.ctx, row.id, values.reason or None, express_request=values.express_request,
                           expected_version=row.version)
        else:
            permits.cancel_application(self.ctx, row.id, values.reason or None,
                                       express_request=values.express_request, expected_version=row.version)
        self._done(row, f"{row.number}: cancelada a pedido.")

    def _step_expire(self, row: PermitRow) -> None:
        if not confirm(self, "Fim do prazo", f"Registrar o fim do prazo de {row.number}?"):
            return
        permits.expire(self.ctx, row.id, expected_version=row.version)
        self._done(row, f"{row.number}: prazo encerrado.")

    def record_conviction(self) -> None:
        """Art. 35: the final criminal judgment (court, case number, date it became final) revokes the permit."""
        row = self.selected()
        if row is None or not row.is_permit:
            return
        values = ask_conviction(self, row)
        if values is None:
            return
        try:
            recorded = enforcement.record_final_conviction(self.ctx, row.id, values, expected_version=row.version)
        except MotodeskError as exc:
            show_error(self, exc)
            self.reload(select=(row.kind, row.id))
            return
        self._done(row, f"{row.number}: cassada pela condenação criminal transitada em julgado em "
                        f"{format_date(recorded.final_on)} (processo nº {recorded.case_number}; Art. 35).")

    # --- outputs ---------------------------------------------------------------------------------
    def print_badge(self) -> None:
        from motodesk.ui.badge_print import BadgePrintDialog

        rows = [r for r in self.selected_rows() if r.is_permit]
        if not rows:
            return
        dialog = BadgePrintDialog(self.ctx, [r.id for r in rows], labels=[r.number for r in rows],
                                  reprint=any(r.badge_issue_no for r in rows), parent=self)
        try:
            dialog.exec()
            printed = dialog.result_badges
        finally:
            dialog.deleteLater()
        if printed is not None:
            self.status.setText(f"{len(printed.badges)} crachá(s) registrado(s) como impresso(s).")
            self.reload(select=("permit", rows[0].id))

    def _document(self, make: Callable[[AppContext, int], bytes], title: str) -> None:
        from motodesk.ui.pdfpreview import preview_pdf

        row = self.selected()
        if row is None or not row.is_permit:
            return
        try:
            pdf = make(self.ctx, row.id)
        except MotodeskError as exc:
            show_error(self, exc)
            return
        preview_pdf(self, pdf, f"{title} {row.number}")

    def record_payment(self) -> None:
        """The guia/DAM of this row's act (issue, renewal, extension, badge copy, inspection)."""
        row = self.selected()
        if row is None:
            return
        payment = record_payment(self.ctx, self, permit_id=row.id if row.is_permit else None,
                                 application_id=None if row.is_permit else row.id)
        if payment is not None:
            self.status.setText(recorded_message(payment))

    def show_certificate(self) -> None:
        self._document(permits.registration_certificate_pdf, "Certificado de Registro Cadastral")

    def show_transit_authorization(self) -> None:
        self._document(permits.transit_authorization_pdf, "Autorização de Trânsito")

    def open_deputy(self) -> None:
        from motodesk.ui.deputy_dialog import open_deputy_dialog

        row = self.selected()
        if row is None or not row.is_permit:
            return
        open_deputy_dialog(self.ctx, row.id, self)
        self.reload(select=("permit", row.id))

    def verify_badge(self) -> None:
        from motodesk.ui.badge_verify import open_badge_verifier

        open_badge_verifier(self.ctx, self.window())


# --- the tender tab ------------------------------------------------------------------------------


class CandidateDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Adicionar candidato")
        self.rank = QSpinBox()
        self.rank.setObjectName("rank")
        self.rank.setRange(1, 9999)
        self.cpf = QLineEdit()
        self.cpf.setObjectName("cpf")
        self.name = QLineEdit()
        self.name.setObjectName("name")
        form = QFormLayout(self)
        form.addRow("Classificação:", self.rank)
        form.addRow("CPF:", self.cpf)
        form.addRow("Nome completo:", self.name)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)


class TenderDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Nova licitação")
        self.number = QLineEdit()
        self.number.setObjectName("number")
        self.number.setMaxLength(32)
        self.number.setPlaceholderText("ex.: Concorrência 01/2026")
        self.description = QLineEdit()
        self.description.setObjectName("description")
        self.homologated_on = DateField()
        self.homologated_on.setObjectName("homologated_on")
        form = QFormLayout(self)
        form.addRow("Número:", self.number)
        form.addRow("Descrição:", self.description)
        form.addRow("Homologada em:", self.homologated_on)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)


def ask_tender(parent: QWidget) -> tuple[str, str, date | None] | None:
    dialog = TenderDialog(parent)
    try:
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        return dialog.number.text(), dialog.description.text(), dialog.homologated_on.value()
    finally:
        dialog.deleteLater()


def ask_candidate(parent: QWidget) -> tuple[int, str, str] | None:
    dialog = CandidateDialog(parent)
    try:
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        return dialog.rank.value(), dialog.cpf.text(), dialog.name.text()
    finally:
        dialog.deleteLater()


class TenderTab(QWidget):
    """Quota of Art. 10, I at a glance; tenders; candidates in rank order."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        manager = ctx.user.role in tenders.MANAGERS

        quota_box = QGroupBox("Cota de mototáxi (Art. 10, I: 1 permissão para cada 2.000 habitantes)")
        self.quota_labels: dict[str, QLabel] = {}
        quota_layout = QHBoxLayout(quota_box)
        quota_layout.setSpacing(32)
        for key, label in (("population", "População (IBGE)"), ("year", "Ano de referência"),
                           ("quota", "Cota"), ("in_force", "Em vigor"), ("open", "Vagas abertas")):
            value = QLabel("—")
            value.setObjectName(f"quota_{key}")
            value.setStyleSheet("font-size: 16pt; font-weight: bold;")
            cell = QVBoxLayout()
            cell.addWidget(QLabel(label))
            cell.addWidget(value)
            quota_layout.addLayout(cell)
            self.quota_labels[key] = value
        self.quota_warning = QLabel("")
        self.quota_warning.setObjectName("quota_warning")
        self.quota_warning.setWordWrap(True)
        self.recount_button = QPushButton("Recontar")
        self.recount_button.setObjectName("recount")
        self.recount_button.setVisible(ctx.user.role in (Role.SUPERVISOR, Role.ADMIN))
        self.recount_button.clicked.connect(self.recount)
        quota_layout.addWidget(self.quota_warning, 1)
        quota_layout.addWidget(self.recount_button)

        self.tender_model: RowTableModel[TenderRow] = RowTableModel(TENDER_COLUMNS)
        self.tender_table = table_view("tenders_table")
        self.tender_table.setModel(self.tender_model)
        self.medical = QLabel("")
        self.medical.setObjectName("medical_deadline")
        tender_buttons = QHBoxLayout()
        self.new_tender_button = self._button("new_tender", "Nova licitação…", self.new_tender, manager)
        self.homologate_button = self._button("homologate", "Registrar homologação…", self.homologate, manager)
        tender_buttons.addWidget(self.new_tender_button)
        tender_buttons.addWidget(self.homologate_button)
        tender_buttons.addWidget(self.medical, 1)

        self.candidate_model: RowTableModel[CandidateRow] = RowTableModel(CANDIDATE_COLUMNS)
        self.candidate_table = table_view("candidates_table")
        self.candidate_table.setModel(self.candidate_model)
        candidate_buttons = QHBoxLayout()
        self.add_button = self._button("add_candidate", "Adicionar candidato…", self.add_candidate, manager)
        self.import_button = self._button("import_candidates", "Importar planilha…", self.import_candidates, manager)
        self.call_button = self._button("call_next", "Convocar próximo", self.call_next, manager)
        self.decline_button = self._button("declined", "Desistência", lambda: self.set_status("declined"), manager)
        self.eliminate_button = self._button("eliminated", "Eliminar", lambda: self.set_status("eliminated"),
                                             manager)
        for button in (self.add_button, self.import_button, self.call_button, self.decline_button,
                       self.eliminate_button):
            candidate_buttons.addWidget(button)
        candidate_buttons.addStretch(1)
        self.status = QLabel("")
        self.status.setObjectName("tender_status")
        self.status.setWordWrap(True)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(quota_box)
        layout.addWidget(QLabel("<b>Licitações</b>"))
        layout.addWidget(self.tender_table, 1)
        layout.addLayout(tender_buttons)
        layout.addWidget(QLabel("<b>Candidatos, na ordem de classificação</b>"))
        layout.addWidget(self.candidate_table, 2)
        layout.addLayout(candidate_buttons)
        layout.addWidget(self.status)
        self.tender_table.selectionModel().selectionChanged.connect(lambda *_: self.show_candidates())
        self.reload()

    def _button(self, name: str, text: str, slot: Callable[[], object], visible: bool) -> QPushButton:
        button = QPushButton(text)
        button.setObjectName(name)
        button.clicked.connect(lambda _c=False: slot())
        button.setVisible(visible)
        return button

    def selected_tender(self) -> TenderRow | None:
        rows = self.tender_table.selectionModel().selectedRows()
        return self.tender_model.row_at(rows[0].row()) if rows else None

    def selected_candidate(self) -> CandidateRow | None:
        rows = self.candidate_table.selectionModel().selectedRows()
        return self.candidate_model.row_at(rows[0].row()) if rows else None

    def reload(self, select_tender: int | None = None) -> None:
        current = self.selected_tender()
        select_tender = select_tender or (current.id if current else None)
        try:
            overview = permits.quota_overview(self.ctx)
            rows = tenders.list_tenders(self.ctx)
        except MotodeskError as exc:
            show_error(self, exc)
            return
        values = {"population": f"{overview.population:,}".replace(",", "."),
                  "year": str(overview.population_year), "quota": str(overview.quota),
                  "in_force": str(overview.in_force), "open": str(overview.open_places)}
        for key, text in values.items():
            self.quota_labels[key].setText(text)
        warnings = []
        if overview.in_force > overview.quota:
            warnings.append(f"Há {overview.in_force - overview.quota} permissão(ões) acima da cota "
                            "(a população diminuiu): nenhuma nova será emitida até a cota voltar a ter vaga.")
        if overview.counted_in_force != overview.in_force:
            warnings.append(f"O contador ({overview.in_force}) difere das permissões em vigor "
                            f"({overview.counted_in_force}): use “Recontar”.")
        self.quota_warning.setText(" ".join(warnings))
        self.tender_model.set_rows(rows)
        self.tender_table.resizeColumnsToContents()
        if rows:
            index = next((i for i, r in enumerate(rows) if r.id == select_tender), 0)
            self.tender_table.selectRow(index)
        self.show_candidates()

    def show_candidates(self) -> None:
        tender = self.selected_tender()
        self.medical.setText(tenders.medical_deadline_text(tender) if tender else "")
        self.homologate_button.setEnabled(tender is not None)
        for button in (self.add_button, self.import_button, self.call_button, self.decline_button,
                       self.eliminate_button):
            button.setEnabled(tender is not None)
        if tender is None:
            self.candidate_model.set_rows([])
            return
        try:
            self.candidate_model.set_rows(tenders.list_candidates(self.ctx, tender.id))
        except MotodeskError as exc:
            show_error(self, exc)
        self.candidate_table.resizeColumnsToContents()

    def _run(self, action: Callable[[], Any], message: str | Callable[[Any], str]) -> None:
        try:
            result = action()
        except MotodeskError as exc:
            show_error(self, exc)
            self.reload()
            return
        self.status.setText(message(result) if callable(message) else message)
        self.reload()

    def recount(self) -> None:
        self._run(lambda: permits.recount_quota(self.ctx), "Permissões em vigor recontadas.")

    def new_tender(self) -> None:
        answer = ask_tender(self)
        if answer is None:
            return
        number, description, homologated_on = answer
        self._run(lambda: tenders.create_tender(self.ctx, number, description=description or None,
                                                homologated_on=homologated_on),
                  f"Licitação {number.strip()} registrada.")

    def homologate(self) -> None:
        tender = self.selected_tender()
        if tender is None:
            return
        values = ask_step(self, "Homologação", f"Data de homologação da licitação {tender.number}: dela correm os "
                          "30 dias para o atestado médico (Art. 5º, § 2º).", until="Homologada em:")
        if values is None:
            return
        self._run(lambda: tenders.update_tender(self.ctx, tender.id, homologated_on=values.until,
                                                expected_version=tender.version),
                  f"Homologação da licitação {tender.number} registrada.")

    def add_candidate(self) -> None:
        tender = self.selected_tender()
        answer = ask_candidate(self) if tender else None
        if tender is None or answer is None:
            return
        rank, cpf, name = answer
        self._run(lambda: tenders.add_candidate(self.ctx, tender.id, rank, cpf, name),
                  f"Candidato {rank}º adicionado.")

    def import_candidates(self) -> None:
        tender = self.selected_tender()
        if tender is None:
            return
        name, _ = QFileDialog.getOpenFileName(self, "Importar candidatos", "", "Planilhas Excel (*.xlsx)")
        if not name:
            return
        try:
            data = Path(name).read_bytes()
        except OSError as exc:
            show_error(self, InvalidInputError(f"Não foi possível ler o arquivo: {exc.strerror or exc}."))
            return
        self._run(lambda: tenders.import_candidates(self.ctx, tender.id, data),
                  lambda n: f"{n} candidato(s) importado(s).")

    def call_next(self) -> None:
        tender = self.selected_tender()
        if tender is None:
            return
        self._run(lambda: tenders.call_next_candidate(self.ctx, tender.id),
                  lambda c: f"Convocado: {c.rank}º {c.name}. Prazo do atestado médico conforme o Art. 5º, § 2º.")

    def set_status(self, status: str) -> None:
        candidate = self.selected_candidate()
        if candidate is None:
            return
        label = tenders.CANDIDATE_STATUSES[status]
        if not confirm(self, label, f"Marcar {candidate.rank}º {candidate.name} como “{label}”?"):
            return
        self._run(lambda: tenders.set_candidate_status(self.ctx, candidate.id, status,
                                                       expected_version=candidate.version),
                  f"{candidate.rank}º {candidate.name}: {label.lower()}.")


class PermitsPage(QWidget):
    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.tabs = QTabWidget()
        self.tabs.setObjectName("permit_tabs")
        self.permits_tab = PermitsTab(ctx)
        self.tender_tab = TenderTab(ctx)
        self.tabs.addTab(self.permits_tab, "Permissões e requerimentos")
        self.tabs.addTab(self.tender_tab, "Licitação e cota")
        self.tabs.currentChanged.connect(lambda i: self.tender_tab.reload() if i == 1 else self.permits_tab.reload())
        layout = QVBoxLayout(self)
        layout.addWidget(heading("Permissões e autorizações"))
        layout.addWidget(self.tabs, 1)


@register_page("permits")
def make_permits_page(ctx: AppContext, main_window: QWidget) -> QWidget:
    return PermitsPage(ctx, main_window)
