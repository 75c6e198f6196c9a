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
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,  # noqa: F401 - tests replace its static dialogs
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from motodesk.rules.common import PermitState, Role, ServiceType
from motodesk.rules.lifecycle import transition
from motodesk.rules.text import format_int
from motodesk.rules.validators import format_cpf
from motodesk.services import badges, enforcement, fees, permits, tenders
from motodesk.services.badges import BadgePrintRow
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext
from motodesk.services.errors import InvalidInputError
from motodesk.services.permits import EventRow, PermitRow
from motodesk.services.tenders import CandidateRow, TenderRow
from motodesk.ui.detail_pane import side_by_side
from motodesk.ui.errors import show_error
from motodesk.ui.flow import FlowLayout
from motodesk.ui.formatting import format_date
from motodesk.ui.formkit import FormRow, column, form, line_edit, named, text_box, wrapped_label
from motodesk.ui.guard import GuardedDialog, confirm
from motodesk.ui.listpage import (
    Action,
    Filter,
    ListPanel,
    ListSpec,
    list_table,
    open_file_name,
    stacked,
)
from motodesk.ui.mainwindow import register_page
from motodesk.ui.ops import ServiceOp, load_into
from motodesk.ui.payment_dialog import FEE_REFUSAL_HINT, record_payment, recorded_message
from motodesk.ui.tablemodel import Column, RowTableModel
from motodesk.ui.widgets import (
    DateField,
    FlexiblePage,
    FormattedLineEdit,
    dialog_answer,
    fit_columns,
    heading,
    ok_cancel_buttons,
    tab_widget,
)

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


class StepDialog(GuardedDialog):
    """What one step asks: a reason, a Decree, a date, the holder's express request…"""

    def __init__(self, title: str, intro: str, *, reason: str | None = None, decree: str | None = None,
                 until: str | None = None, express_request: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("step_dialog")
        self.setWindowTitle(title)
        self.setMinimumWidth(520)
        self.reason = text_box("reason", height=80, tab_moves=True)
        self.decree_number = line_edit("decree_number", "ex.: 1.234/2026", 32)
        self.decree_date = named(DateField(), "decree_date")
        self.until = named(DateField(), "until")
        self.express_request = named(QCheckBox("O titular pediu o cancelamento por &escrito (pedido anexado)"),
                                     "express_request")
        rows: list[FormRow] = []
        if decree is not None:
            rows += [(_with_key(decree, "D"), self.decree_number), ("Data do Dec&reto:", self.decree_date)]
        if until is not None:
            rows.append((_with_key(until, "H"), self.until))
        if reason is not None:
            rows.append((_with_key(reason, "M"), self.reason))
        if express_request:
            rows.append(self.express_request)
        buttons, _ok = ok_cancel_buttons(self, "&Confirmar", cancel_text="Ca&ncelar")
        # the intro outside the form: a wrapped label there gets one line's height
        column(wrapped_label(intro, "intro"), form(*rows), buttons, parent=self)
        self.mark_clean()

    def values(self) -> StepInput:
        return StepInput(
            reason=self.reason.toPlainText().strip(),
            decree_number=self.decree_number.text().strip(),
            decree_date=self.decree_date.value(),
            until=self.until.value(),
            express_request=self.express_request.isChecked(),
        )


def _with_key(label: str, key: str) -> str:
    """A form label with an access key: the caller's (“&Motivo:”) or one on ``key``'s first letter."""
    if "&" in label.replace("&&", ""):
        return label
    index = label.lower().find(key.lower())
    return f"{label[:index]}&{label[index:]}" if index >= 0 else f"&{label}"


def ask_step(parent: QWidget, title: str, intro: str, **fields: object) -> StepInput | None:
    """Open the step's dialog; None when cancelled.  Tests replace this function."""
    return dialog_answer(StepDialog(title, intro, parent=parent, **fields), StepDialog.values)  # type: ignore[arg-type]


class ConvictionDialog(GuardedDialog):
    """Art. 35: what the court's certificate of finality says; recording it revokes the permit."""

    def __init__(self, row: PermitRow, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("conviction_dialog")
        self.setWindowTitle("Condenação criminal transitada em julgado (Art. 35)")
        self.setMinimumWidth(560)
        intro = wrapped_label(f"A {row.service.instrument} {row.number} de {row.holder} será <b>cassada</b> "
                              "(Art. 35: “será cassada em caso de condenação criminal transitado em julgado”). "
                              "Informe os dados da certidão do juízo.")
        self.court = line_edit("court", "ex.: 1ª Vara Criminal da Comarca de Patrocínio", 200)
        self.case_number = line_edit("case_number", "NNNNNNN-DD.AAAA.J.TR.OOOO", 40)
        self.final_on = named(DateField(), "final_on")
        self.notes = text_box("notes", height=60)
        buttons, _ok = ok_cancel_buttons(self, "Re&gistrar e cassar")
        column(intro, form(  # the intro outside the form (see StepDialog)
            ("&Juízo ou tribunal:", self.court),
            ("Nº do &processo:", self.case_number),
            ("&Trânsito em julgado em:", self.final_on),
            ("&Observações:", self.notes),
        ), buttons, parent=self)
        self.court.setFocus()
        self.mark_clean()

    def values(self) -> enforcement.ConvictionInput:
        return enforcement.ConvictionInput(court=self.court.text().strip(), case_number=self.case_number.text().strip(),
                                           final_on=self.final_on.value(), notes=self.notes.toPlainText().strip())


def ask_conviction(parent: QWidget, row: PermitRow) -> enforcement.ConvictionInput | None:
    """Open the Art. 35 dialog; None when cancelled.  Tests replace this function."""
    return dialog_answer(ConvictionDialog(row, parent), ConvictionDialog.values)



# --- the permits tab -----------------------------------------------------------------------------


class PermitsTab(FlexiblePage):
    """The register of applications and permits, the steps of the selected one, and its history."""

    STEP_BUTTONS = (
        ("start_review", "&Iniciar análise"),
        ("approve", "A&provar…"),
        ("refuse", "In&deferir…"),
        ("issue", "E&mitir"),
        ("renew_registration", "Reno&var registro"),
        ("extend", "Prorr&ogar…"),
        ("cancel", "Cance&lar a pedido…"),
        ("expire", "Registrar &fim do prazo"),
    )

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.role = ctx.user.role
        details = self._detail()
        steps = [Action(f"step_{name}", text, self._step_handler(name), enabled=self._step_allowed(name),
                        tooltip=f"{transition(name).label} ({transition(name).article})",
                        default=name == "start_review")
                 for name, text in self.STEP_BUTTONS]
        outputs = self._output_actions()
        self.panel: ListPanel[PermitRow] = ListPanel(ctx, ListSpec(
            name="permits_table", columns=PERMIT_COLUMNS, fetch=self._fetch, multi=True,
            filters=[
                Filter("state_filter", "&Situação:", kind="choice",
                       choices=[(permits.STATE_FILTERS[k][0], k)
                                for k in ("all", "in_force", "pending", *[s.value for s in PermitState])]),
                Filter("service_filter", "Ser&viço:", kind="choice",
                       choices=[("Todos os serviços", None), *[(s.label, s.value) for s in ServiceType]]),
                Filter("search", "&Buscar:", placeholder="Nome, CPF, placa ou número (MT-0007/2026)", stretch=True),
            ],
            actions=[*steps, *outputs], identity=lambda r: (r.kind, r.id), sort=("start", True), select_first=False,
            kinds={"permit", "person", "vehicle", "badge", "payment", "notice", "deputy"},
            count=lambda n, more: f"{n}{'+' if more else ''} registro(s)",
            detail=details, on_current=lambda _r: self.show_details()), autoload=False)
        self._outputs_on_their_own_row(outputs)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.panel)
        self._name_the_parts()
        self.reload()

    def _detail(self) -> QWidget:
        """The detail: the history and the badge prints of the selected row."""
        self.detail_title = wrapped_label("Selecione uma permissão ou requerimento.", "detail_title")
        self.events_model: RowTableModel[EventRow] = RowTableModel(EVENT_COLUMNS)
        self.events = list_table("permit_history")
        self.events.setModel(self.events_model)
        self.prints_model: RowTableModel[BadgePrintRow] = RowTableModel(PRINT_COLUMNS)
        self.prints = list_table("badge_prints")
        self.prints.setModel(self.prints_model)
        return side_by_side(self.detail_title, ("&Histórico (quem, quando, por quê)", self.events),
                            ("Impressões do crac&há", self.prints))

    def _output_actions(self) -> list[Action]:
        """The documents and the other acts on a permit (beside the steps of its life)."""
        printers = frozenset(badges.PRINTERS)
        return [
            Action("print_badge", "Imprimir &crachá…", lambda rows: self.print_badge(), printers, multi=True,
                   enabled=lambda rows: all(r.is_permit and r.state is PermitState.ACTIVE for r in rows),
                   shortcut="Ctrl+P"),
            Action("certificate", "Certificado de re&gistro", lambda _r: self.show_certificate(), printers,
                   enabled=self._single_active),
            Action("transit_authorization", "Autori&zação de trânsito", lambda _r: self.show_transit_authorization(),
                   printers, enabled=self._single_active),
            Action("deputy", "Pr&eposto…", lambda _r: self.open_deputy(), enabled=lambda r: r.is_permit),  # Art. 14
            Action("record_payment", "Registrar pa&gamento…", lambda _r: self.record_payment(),
                   frozenset(fees.RECORDERS)),  # Art. 6º, § 6º
            # Art. 35: the one cassação recorded here; every other penalty comes from a decided notice of
            # infraction (page "Infrações"), never from a button with a written reason.
            Action("conviction", "Condenação c&riminal (Art. 35)…", lambda _r: self.record_conviction(),
                   enabled=lambda r: r.is_permit and r.state.in_force and self.role in enforcement.DECIDERS,
                   tooltip="Registrar condenação criminal transitada em julgado: cassa a permissão (Art. 35)"),
            Action("verify_badge", "Verificar cr&achá…", lambda _r: self.verify_badge(), needs_row=False,
                   shortcut="Ctrl+Shift+V"),
        ]

    def _outputs_on_their_own_row(self, outputs: list[Action]) -> None:
        """The step buttons on one row, the documents on the next (each wraps rather than outgrow the screen)."""
        outputs_box = QWidget()
        outputs_row = FlowLayout(outputs_box)
        for action in outputs:
            self.panel.actions_flow.removeWidget(self.panel.buttons[action.key])
            outputs_row.addWidget(self.panel.buttons[action.key])
        table_box = self.panel.table.parentWidget()
        panel_top = table_box.layout() if table_box is not None else None
        assert isinstance(panel_top, QVBoxLayout)
        panel_top.insertWidget(panel_top.indexOf(self.panel.status), outputs_box)

    def _name_the_parts(self) -> None:
        """The names tests and other code know."""
        self.model, self.table, self.status, self.count = (self.panel.model, self.panel.table, self.panel.status,
                                                           self.panel.count)
        self.state_filter = self.panel.combo("state_filter")
        self.service_filter = self.panel.combo("service_filter")
        self.search = self.panel.line("search")
        self.step_buttons: dict[str, QPushButton] = {n: self.panel.buttons[f"step_{n}"] for n, _t in self.STEP_BUTTONS}
        self.badge_button = self.panel.buttons["print_badge"]
        self.certificate_button = self.panel.buttons["certificate"]
        self.authorization_button = self.panel.buttons["transit_authorization"]
        self.deputy_button = self.panel.buttons["deputy"]
        self.payment_button = self.panel.buttons["record_payment"]
        self.conviction_button = self.panel.buttons["conviction"]
        self.verify_button = self.panel.buttons["verify_badge"]

    # --- data ------------------------------------------------------------------------------------
    def _fetch(self, values: dict[str, Any], offset: int, limit: int, key: str, descending: bool) -> list[PermitRow]:
        service = values["service_filter"]
        return permits.list_permits(
            self.ctx, state_filter=str(values["state_filter"]), service=ServiceType(service) if service else None,
            search=values["search"], offset=offset, limit=limit, sort_key=key, descending=descending)

    def _step_handler(self, name: str) -> Callable[[PermitRow | None], None]:
        return lambda row: self.take_step(name, row)

    def _step_allowed(self, name: str) -> Callable[[PermitRow], bool]:
        return lambda row: name in self._allowed(row)

    def _allowed(self, row: PermitRow) -> set[str]:
        allowed = {t.name for t in permits.actions_for(row, self.role)}
        if row.term_end is None or row.term_end >= local_today():
            allowed.discard("expire")  # only once the term is over (Art. 6º)
        return allowed

    def _single_active(self, row: PermitRow) -> bool:
        return row.is_permit and row.state is PermitState.ACTIVE

    def reload(self, select: tuple[str, int] | None = None) -> None:
        self.panel.reload(select=select)

    def select(self, kind: str, row_id: int) -> bool:
        return self.panel.select_where(lambda r: r.kind == kind and r.id == row_id)

    def selected_rows(self) -> list[PermitRow]:
        return self.panel.selected_rows()

    def selected(self) -> PermitRow | None:
        return self.panel.selected()

    def show_details(self) -> None:
        rows = self.selected_rows()
        row = rows[0] if len(rows) == 1 else None
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
        ctx = self.ctx

        def read() -> tuple[list[EventRow], list[BadgePrintRow]]:
            return (permits.history(ctx, row.kind, row.id), badges.print_log(ctx, row.id) if row.is_permit else [])

        def show(result: tuple[list[EventRow], list[BadgePrintRow]]) -> None:
            self.events_model.set_rows(result[0])
            self.prints_model.set_rows(result[1])
            fit_columns(self.events)
            fit_columns(self.prints)

        load_into(self, read, show, key="details")

    # --- steps -----------------------------------------------------------------------------------
    def take_step(self, name: str, row: PermitRow | None = None) -> None:
        row = row or self.selected()
        if row is None:
            return
        step = getattr(self, f"_step_{name}")(row)
        if step is None:
            return  # cancelled
        work, message, select = step

        def refused(exc: BaseException) -> None:
            if fees.is_fee_refusal(exc):
                self.status.setText(FEE_REFUSAL_HINT)
                self.status.show()

        self.panel.run(work, lambda result: self.panel.set_status(message(result)), change="permit",
                       select=lambda result: select(result) if select else (row.kind, row.id), failed=refused,
                       busy="Registrando o ato…")

    Step = tuple[Callable[[], Any], Callable[[Any], str], Callable[[Any], tuple[str, int]] | None] | None

    def _step_start_review(self, row: PermitRow) -> Step:
        ctx = self.ctx
        return (lambda: permits.start_review(ctx, row.id, expected_version=row.version),
                lambda _r: f"{row.number}: análise iniciada.", None)

    def _step_approve(self, row: PermitRow) -> Step:
        values = ask_step(self, "Aprovar por Decreto",
                          f"Aprovar o requerimento de {row.holder} ({row.service.label}). A outorga se dá por "
                          "Decreto do Poder Executivo (Art. 6º).", decree="&Decreto nº:")
        if values is None:
            return None
        ctx = self.ctx
        return (lambda: permits.approve(ctx, row.id, values.decree_number, values.decree_date,
                                        expected_version=row.version),
                lambda _r: f"{row.number}: aprovado pelo Decreto nº {values.decree_number}.", None)

    def _step_refuse(self, row: PermitRow) -> Step:
        values = ask_step(self, "Indeferir requerimento", f"Indeferir o requerimento de {row.holder}.",
                          reason="&Motivo do indeferimento:")
        if values is None:
            return None
        ctx = self.ctx
        return (lambda: permits.refuse(ctx, row.id, values.reason, expected_version=row.version),
                lambda _r: f"{row.number}: indeferido.", None)

    def _step_issue(self, row: PermitRow) -> Step:
        what = "a permissão" if row.service is ServiceType.MOTOTAXI else "a autorização"
        if not confirm(self, "Emitir", f"Emitir {what} de {row.holder} ({row.service.label})?\n"
                                       "O número, o prazo de 5 anos e o certificado de 1 ano são gravados agora."):
            return None
        ctx = self.ctx
        return (lambda: permits.issue(ctx, row.id, expected_version=row.version),
                lambda issued: (f"Emitida {issued.number}: prazo até {format_date(issued.term_end)}, certificado até "
                                f"{format_date(issued.certificate_valid_until)}. Imprima o crachá."),
                lambda issued: ("permit", issued.id))

    def _step_renew_registration(self, row: PermitRow) -> Step:
        if not confirm(self, "Renovar registro", f"Renovar o registro de {row.number} por 1 ano (Art. 4º, § 1º)?"):
            return None
        ctx = self.ctx
        return (lambda: permits.renew_registration(ctx, row.id, expected_version=row.version),
                lambda until: (f"{row.number}: certificado renovado até {format_date(until)}. Reimprima o crachá "
                               "com o motivo “renovação do registro”."), None)

    def _step_extend(self, row: PermitRow) -> Step:
        values = ask_step(self, "Prorrogar por 5 anos",
                          f"Prorrogar {row.number} por mais 5 anos, uma única vez (Art. 6º).",
                          decree="&Decreto nº (se houver):", reason="&Observação:")
        if values is None:
            return None
        ctx = self.ctx
        return (lambda: permits.extend(ctx, row.id, decree_number=values.decree_number or None,
                                       decree_date=values.decree_date, reason=values.reason or None,
                                       expected_version=row.version),
                lambda end: f"{row.number}: prorrogada até {format_date(end)}.", None)

    def _step_cancel(self, row: PermitRow) -> Step:
        values = ask_step(self, "Cancelar a pedido",
                          f"Cancelar {row.number} de {row.holder} a pedido expresso do interessado (Art. 6º, § 7º).",
                          reason="&Observação:", express_request=True)
        if values is None:
            return None
        ctx = self.ctx

        def work() -> object:
            if row.is_permit:
                return permits.cancel(ctx, row.id, values.reason or None, express_request=values.express_request,
                                      expected_version=row.version)
            return permits.cancel_application(ctx, row.id, values.reason or None,
                                              express_request=values.express_request, expected_version=row.version)

        return work, lambda _r: f"{row.number}: cancelada a pedido.", None

    def _step_expire(self, row: PermitRow) -> Step:
        if not confirm(self, "Fim do prazo", f"Registrar o fim do prazo de {row.number}?"):
            return None
        ctx = self.ctx
        return (lambda: permits.expire(ctx, row.id, expected_version=row.version),
                lambda _r: f"{row.number}: prazo encerrado.", None)

    def record_conviction(self) -> None:
        """Art. 35: the final criminal judgment (court, case number, date it became final) revokes the permit."""
        row = self.selected()
        if row is None or not row.is_permit:
            return
        values = ask_conviction(self, row)
        if values is None:
            return
        ctx = self.ctx
        self.panel.run(
            lambda: enforcement.record_final_conviction(ctx, row.id, values, expected_version=row.version),
            lambda recorded: self.panel.set_status(
                f"{row.number}: cassada pela condenação criminal transitada em julgado em "
                f"{format_date(recorded.final_on)} (processo nº {recorded.case_number}; Art. 35)."),
            change="permit", select=lambda _r: (row.kind, row.id), busy="Registrando a condenação…")

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
            self.panel.set_status(f"{len(printed.badges)} crachá(s) registrado(s) como impresso(s).")
            self.reload(select=("permit", rows[0].id))

    def _document(self, make: Callable[[AppContext, int], bytes], title: str) -> None:
        from motodesk.ui import pdfpreview

        row = self.selected()
        if row is None or not row.is_permit:
            return
        ctx = self.ctx
        ServiceOp(self, lambda: make(ctx, row.id), busy="Gerando o documento…") \
            .success(lambda pdf: pdfpreview.preview_pdf(self, pdf, f"{title} {row.number}")).run()

    def record_payment(self) -> None:
        """The guia/DAM of this row's act (issue, renewal, extension, badge copy, inspection)."""
        row = self.selected()
        if row is None:
            return
        record_payment(self.ctx, self, permit_id=row.id if row.is_permit else None,
                       application_id=None if row.is_permit else row.id,
                       on_recorded=lambda payment: self.panel.set_status(recorded_message(payment)))

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


class CandidateDialog(GuardedDialog):
    """Rank, CPF and name of a candidate; a CPF already registered brings its name (read off the GUI
    thread), unless the clerk typed a name of their own."""

    def __init__(self, parent: QWidget | None = None, ctx: AppContext | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.setWindowTitle("Adicionar candidato")
        self.setMinimumWidth(420)
        self.rank = named(QSpinBox(), "rank")
        self.rank.setRange(1, 9999)
        self.cpf = line_edit("cpf", edit=FormattedLineEdit("cpf"))
        self.name = line_edit("name")
        self.registered = wrapped_label(name="registered")
        self._carried_name = ""  # the name the CPF brought (replaced when another CPF brings another)
        buttons, _ok = ok_cancel_buttons(self, "&Adicionar")
        form(("C&lassificação:", self.rank), ("C&PF:", self.cpf), ("&Nome completo:", self.name),
             self.registered, buttons, parent=self)
        self.cpf.textChanged.connect(self._cpf_changed)
        self.mark_clean()

    def _cpf_changed(self) -> None:
        from motodesk.rules.validators import validate_cpf
        from motodesk.services import people

        digits = "".join(ch for ch in self.cpf.text() if ch.isdigit())
        if self.ctx is None or len(digits) != 11 or not validate_cpf(digits).ok:
            self.registered.clear()
            return
        ctx = self.ctx

        def found(owner: tuple[int, str] | None) -> None:
            if "".join(ch for ch in self.cpf.text() if ch.isdigit()) != digits:
                return  # another CPF typed meanwhile
            if owner is None:
                self.registered.setText("CPF sem cadastro: informe o nome.")
                return
            name = owner[1]
            self.registered.setText(f"Cadastrado: {name}.")
            if not self.name.text().strip() or self.name.text() == self._carried_name:
                self.name.setText(name)
                self._carried_name = name

        load_into(self, lambda: people.cpf_owner(ctx, digits), found, key="cpf_owner")


class TenderDialog(GuardedDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Nova licitação")
        self.setMinimumWidth(460)
        self.number = line_edit("number", "ex.: Concorrência 01/2026", 32)
        self.description = line_edit("description")
        self.homologated_on = named(DateField(), "homologated_on")
        buttons, _ok = ok_cancel_buttons(self, "&Registrar")
        form(("&Número:", self.number), ("&Descrição:", self.description), ("&Homologada em:", self.homologated_on),
             buttons, parent=self)
        self.mark_clean()


def ask_tender(parent: QWidget) -> tuple[str, str, date | None] | None:
    return dialog_answer(TenderDialog(parent),
                         lambda d: (d.number.text(), d.description.text(), d.homologated_on.value()))


def ask_candidate(parent: QWidget, ctx: AppContext | None = None) -> tuple[int, str, str] | None:
    return dialog_answer(CandidateDialog(parent, ctx), lambda d: (d.rank.value(), d.cpf.text(), d.name.text()))


class TenderTab(FlexiblePage):
    """Quota of Art. 10, I at a glance; tenders; candidates in rank order."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        managers = frozenset(tenders.MANAGERS)

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
        self.recount_button = QPushButton("Re&contar")
        self.recount_button.setObjectName("recount")
        if ctx.user.role not in (Role.SUPERVISOR, Role.ADMIN):
            self.recount_button.hide()  # never setVisible(True) before it has a parent: a window of its own
        self.recount_button.clicked.connect(self.recount)
        quota_layout.addWidget(self.quota_warning, 1)
        quota_layout.addWidget(self.recount_button)

        self.medical = QLabel("")
        self.medical.setObjectName("medical_deadline")
        self.tenders: ListPanel[TenderRow] = ListPanel(ctx, ListSpec(
            name="tenders_table", columns=TENDER_COLUMNS, load=lambda _v: tenders.list_tenders(ctx),
            title="<b>Licitações</b>",
            actions=[
                Action("new_tender", "&Nova licitação…", lambda _r: self.new_tender(), managers, needs_row=False),
                Action("homologate", "Registrar &homologação…", lambda _r: self.homologate(), managers),
            ],
            kinds={"tender", "permit", "settings"}, count=lambda n, _m: "",
            on_current=lambda _r: self.show_candidates(), on_loaded=lambda _r: self._load_quota()),
            autoload=False)
        self.tenders.actions_row.insertWidget(self.tenders.actions_row.count() - 1, self.medical, 1)
        with_tender = {"enabled": lambda _r: self.selected_tender() is not None, "needs_row": False}
        self.candidates: ListPanel[CandidateRow] = ListPanel(ctx, ListSpec(
            name="candidates_table", columns=CANDIDATE_COLUMNS, load=self._load_candidates,
            extra=lambda: {"tender": self.selected_tender()}, title="<b>Candidatos, na ordem de classificação</b>",
            actions=[
                Action("add_candidate", "&Adicionar candidato…", lambda _r: self.add_candidate(), managers,
                       **with_tender),  # type: ignore[arg-type]
                Action("import_candidates", "&Importar planilha…", lambda _r: self.import_candidates(), managers,
                       **with_tender),  # type: ignore[arg-type]
                Action("call_next", "Con&vocar próximo", lambda _r: self.call_next(), managers,
                       **with_tender),  # type: ignore[arg-type]
                Action("declined", "&Desistência", lambda _r: self.set_status("declined"), managers),
                Action("eliminated", "&Eliminar", lambda _r: self.set_status("eliminated"), managers),
            ],
            kinds={"tender", "permit"}, count=lambda n, _m: f"{n} candidato(s)"), autoload=False)
        self.status = wrapped_label("", "tender_status")

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(quota_box)
        layout.addWidget(stacked(self.tenders, self.candidates, stretches=(1, 2)), 1)
        layout.addWidget(self.status)
        # the names tests and other code know
        self.tender_model, self.tender_table = self.tenders.model, self.tenders.table
        self.candidate_model, self.candidate_table = self.candidates.model, self.candidates.table
        self.new_tender_button = self.tenders.buttons["new_tender"]
        self.homologate_button = self.tenders.buttons["homologate"]
        self.add_button = self.candidates.buttons["add_candidate"]
        self.import_button = self.candidates.buttons["import_candidates"]
        self.call_button = self.candidates.buttons["call_next"]
        self.decline_button = self.candidates.buttons["declined"]
        self.eliminate_button = self.candidates.buttons["eliminated"]
        self.reload()

    def selected_tender(self) -> TenderRow | None:
        return self.tenders.selected()

    def selected_candidate(self) -> CandidateRow | None:
        return self.candidates.selected()

    def reload(self, select_tender: int | None = None) -> None:
        self.tenders.reload(select=select_tender)

    def _load_quota(self) -> None:
        load_into(self, lambda: permits.quota_overview(self.ctx), self._show_quota, key="quota")

    def _show_quota(self, overview: permits.QuotaOverview) -> None:
        values = {"population": format_int(overview.population),
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

    def _load_candidates(self, values: dict[str, Any]) -> list[CandidateRow]:
        tender: TenderRow | None = values["tender"]
        return tenders.list_candidates(self.ctx, tender.id) if tender is not None else []

    def show_candidates(self) -> None:
        tender = self.selected_tender()
        self.medical.setText(tenders.medical_deadline_text(tender) if tender else "")
        self.candidates.reload()

    def _run(self, action: Callable[[], Any], message: str | Callable[[Any], str],
             select: int | None = None) -> None:
        def done(result: Any) -> None:
            self.status.setText(message(result) if callable(message) else message)

        tender = self.selected_tender()
        keep = select or (tender.id if tender else None)
        self.tenders.run(action, done, change="tender", busy="Gravando…", select=lambda _r: keep)

    def recount(self) -> None:
        self._run(lambda: permits.recount_quota(self.ctx), "Permissões em vigor recontadas.")

    def new_tender(self) -> None:
        answer = ask_tender(self)
        if answer is None:
            return
        number, description, homologated_on = answer
        ctx = self.ctx

        def done(created: Any) -> None:
            self.status.setText(f"Licitação {number.strip()} registrada.")

        self.tenders.run(lambda: tenders.create_tender(ctx, number, description=description or None,
                                                       homologated_on=homologated_on),
                         done, change="tender", select=lambda created: getattr(created, "id", created))

    def homologate(self) -> None:
        tender = self.selected_tender()
        if tender is None:
            return
        values = ask_step(self, "Homologação", f"Data de homologação da licitação {tender.number}: dela correm os "
                          "30 dias para o atestado médico (Art. 5º, § 2º).", until="&Homologada em:")
        if values is None:
            return
        self._run(lambda: tenders.update_tender(self.ctx, tender.id, homologated_on=values.until,
                                                expected_version=tender.version),
                  f"Homologação da licitação {tender.number} registrada.")

    def add_candidate(self) -> None:
        tender = self.selected_tender()
        answer = ask_candidate(self, self.ctx) if tender else None
        if tender is None or answer is None:
            return
        rank, cpf, name = answer
        self._run(lambda: tenders.add_candidate(self.ctx, tender.id, rank, cpf, name),
                  f"Candidato {rank}º adicionado.")

    def import_candidates(self) -> None:
        tender = self.selected_tender()
        if tender is None:
            return
        path = open_file_name(self, "Importar candidatos", "Planilhas Excel (*.xlsx)")
        if path is None:
            return
        try:
            path.stat()  # the path, not the bytes, goes on: the guarded reader refuses a big file unread
        except OSError as exc:
            show_error(self, InvalidInputError(f"Não foi possível ler o arquivo: {exc.strerror or exc}."))
            return
        self._run(lambda: tenders.import_candidates(self.ctx, tender.id, path),
                  lambda n: f"{n} candidato(s) importado(s).")

    def call_next(self) -> None:
        tender = self.selected_tender()
        if tender is None:
            return
        if not confirm(self, "Convocar próximo",
                       "Convocar o próximo candidato da classificação deste edital? A convocação é registrada "
                       "e abre o prazo do atestado médico (Art. 5º, § 2º); ela não pode ser desfeita."):
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
        self.permits_tab, self.tender_tab = PermitsTab(ctx), TenderTab(ctx)  # each scrolls only when it must
        self.tabs = tab_widget("permit_tabs", (self.permits_tab, "Permissões e requerimentos"),
                               (self.tender_tab, "Licitação e cota"))
        layout = QVBoxLayout(self)
        layout.addWidget(heading("Permissões e autorizações"))
        layout.addWidget(self.tabs, 1)


@register_page("permits")
def make_permits_page(ctx: AppContext, main_window: QWidget) -> QWidget:
    return PermitsPage(ctx, main_window)
