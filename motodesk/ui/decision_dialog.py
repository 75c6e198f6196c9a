"""The supervisor's decision on a notice: first instance or appeal (Art. 29 § 3º, 33, 34).

Dismissed, or upheld with a penalty the classification admits; the classification may be changed
up or down with a written reason (Art. 33, parágrafo único). The fine shows in UFM and in reais
from today's UFM value, and what will happen to the permit is said before anything is saved.
"""

from __future__ import annotations

from datetime import date, timedelta
from html import escape

from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QWidget,
)

from motodesk.rules.infractions import Penalty, Severity
from motodesk.rules.text import format_brl, format_ufm
from motodesk.services import enforcement
from motodesk.services.context import AppContext
from motodesk.services.enforcement import (
    DecisionInput,
    DecisionOptions,
    DecisionResult,
    NoticeStatus,
    NoticeView,
    OffenderKind,
    Outcome,
)
from motodesk.services.errors import MotodeskError
from motodesk.ui import formkit
from motodesk.ui.formatting import format_date
from motodesk.ui.guard import GuardedDialog, confirm
from motodesk.ui.listpage import labelled
from motodesk.ui.ops import ServiceOp, errors_on
from motodesk.ui.widgets import mark_field, message_line

WARNING_STYLE = "background: #fff3e0; border: 1px solid #ef6c00; padding: 6px; color: #6d3600;"


class DecisionDialog(GuardedDialog):
    """Decide an open notice (first instance) or an appealed one (appeal)."""

    def __init__(self, ctx: AppContext, view: NoticeView, parent: QWidget | None = None, *,
                 today: date | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("decision_dialog")
        self.ctx = ctx
        self.view = view
        self.today = today or enforcement.local_today()
        self.appeal = view.status is NoticeStatus.APPEALED
        self.result_value: DecisionResult | None = None
        self.options: DecisionOptions | None = None
        self.setWindowTitle(f"{'Decidir recurso' if self.appeal else 'Decidir'} – auto {view.number}")
        self.setMinimumWidth(700)  # the height is what the form needs (fits 1280x720)

        self._build_case(view)
        self._build_decision(view)
        self._build_penalty_box()
        cancel = self._lay_out()

        self.upheld.toggled.connect(lambda _on: self._refresh())
        self.severity.currentIndexChanged.connect(lambda _i: self._options_changed())
        self.penalty.currentIndexChanged.connect(lambda _i: self._refresh())
        self.days.valueChanged.connect(lambda _v: self._refresh())
        self.decide_button.clicked.connect(self.decide)
        cancel.clicked.connect(self.reject)
        self._refresh()  # the form's state now; the penalties come when the options are read
        self._options_changed()
        self.mark_clean()

    def _build_case(self, view: NoticeView) -> None:
        """The case: the notice, the defence's deadline and a repeat offence's warning."""
        self.case = QLabel(self._case_html())
        self.case.setObjectName("case")
        self.case.setWordWrap(True)
        self.deadline = QLabel(self._deadline_html())
        self.deadline.setObjectName("deadline")
        self.deadline.setWordWrap(True)
        self.repeat = QLabel(escape(view.repeat.message))
        self.repeat.setObjectName("repeat")
        self.repeat.setWordWrap(True)
        self.repeat.setStyleSheet(WARNING_STYLE)
        self.repeat.setVisible(view.repeat.is_repeat)

    def _build_decision(self, view: NoticeView) -> None:
        """The outcome, the classification (and why it changed), the penalty, its effect and the grounds."""
        self.upheld = QRadioButton("&Procedente — aplicar penalidade")
        self.upheld.setObjectName("upheld")
        self.dismissed = QRadioButton("&Improcedente — arquivar o auto" if not self.appeal
                                      else "Recurso pro&vido — cancelar a penalidade")
        self.dismissed.setObjectName("dismissed")
        outcome_group = QButtonGroup(self)
        outcome_group.addButton(self.upheld)
        outcome_group.addButton(self.dismissed)
        self.upheld.setChecked(True)
        self.severity = QComboBox()
        self.severity.setObjectName("severity")
        for severity in Severity:
            catalogue = " — prevista no catálogo" if severity is view.infraction.severity else ""
            self.severity.addItem(f"{severity.label} ({severity.article}){catalogue}", severity.value)
        self.severity.setCurrentIndex(self.severity.findData(view.infraction.severity.value))
        self.severity.setEnabled(not view.infraction.penalty_fixed_by_law)
        self.reason = formkit.text_box("reclassification_reason",
                                       "Art. 33, parágrafo único: circunstâncias e consequências do fato que "
                                       "atenuam ou agravam a classificação", max_height=60, tab_moves=True)
        self.penalty = formkit.named(QComboBox(), "penalty")
        self.amount = formkit.named(QLabel(), "amount")
        self.days = formkit.named(QSpinBox(), "suspension_days")
        self.days.setRange(1, enforcement.MAX_SUSPENSION_DAYS)
        self.days.setValue(30)
        self.days.setSuffix(" dia(s)")
        self.effect = formkit.wrapped_label(name="effect")
        self.grounds = formkit.text_box("grounds", "Fundamentação: fatos, provas, defesa apreciada e conclusão",
                                        tab_moves=True)

    def _build_penalty_box(self) -> None:
        """The penalty's fields in their box (Art. 34)."""
        self.penalty_box = QGroupBox("Penalidade (Art. 34)")
        self.penalty_form = penalty_form = QFormLayout(self.penalty_box)
        penalty_form.addRow("C&lassificação:", self.severity)
        penalty_form.addRow("&Motivo da reclassificação:", self.reason)
        penalty_form.addRow("Pe&nalidade:", self.penalty)
        penalty_form.addRow("Valor:", self.amount)
        penalty_form.addRow("&Suspensão por:", self.days)
        penalty_form.addRow("Efeito na permissão:", self.effect)

    def _lay_out(self) -> QPushButton:
        """The message, the buttons and the layout: the case, the outcome, the penalty, the grounds; the cancel button."""
        self.message = message_line()
        self.decide_button = formkit.push_button("Re&gistrar decisão", "decide", auto_default=False)
        cancel = formkit.push_button("&Cancelar", auto_default=False)
        formkit.column(self.case, self.deadline, self.repeat, formkit.row(self.upheld, self.dismissed, 1),
                       self.penalty_box, labelled("&Fundamentação da decisão:", self.grounds), (self.grounds, 1),
                       self.message, formkit.row(1, self.decide_button, cancel), parent=self)
        return cancel

    def save_and_close(self) -> None:
        self.decide()

    # --- what is shown -------------------------------------------------------------------------
    def _case_html(self) -> str:
        v = self.view
        lines = [
            f"<b>Auto {escape(v.number)}</b> · {escape(v.infraction.article)} — {escape(v.infraction.text)}",
            f"Autuado(a): <b>{escape(v.offender_name)}</b> ({v.offender_kind.label.lower()})"
            + (f" · {escape(v.service.label)} {escape(v.permit_number or '')}" if v.service else "")
            + (f" · placa {escape(v.plate)}" if v.plate else ""),
            f"Relato do fiscal: {escape(v.description or '')}",
        ]
        for filed in v.filed:
            text = f": {escape(filed.text)}" if filed.text else ""
            files = f" ({len(filed.attachments)} anexo(s))" if filed.attachments else ""
            lines.append(f"<i>{escape(filed.label)} recebida em {format_date(filed.received_on)}</i>{text}{files}")
        if self.appeal and v.final_decision is not None:
            lines.append(f"Decisão recorrida: <b>{escape(v.final_decision.summary)}</b>")
        return "<br>".join(lines)

    def _deadline_html(self) -> str:
        v = self.view
        if self.appeal:
            return f"<b>Julgamento do recurso</b> · prazo de recurso até {format_date(v.appeal_due)}"
        if v.defence_due is None:
            return ("<span style='font-size: 12pt; color: #b00020'><b>Autuado ainda não notificado</b></span> — o "
                    "prazo de defesa começa com a notificação; registre-a antes de decidir (Art. 29, §§ 2º e 3º).")
        state = ("defesa registrada" if v.defence_on_file else
                 "prazo em curso, sem defesa nem renúncia" if self.today <= v.defence_due else
                 "prazo encerrado sem defesa")
        colour = "#b00020" if (not v.defence_on_file and self.today <= v.defence_due) else "#1b5e20"
        return (f"<span style='font-size: 12pt'><b>Prazo de defesa: até {format_date(v.defence_due)}</b></span> "
                f"(Art. 29, § 3º) — <span style='color: {colour}'>{state}</span>")

    def chosen_severity(self) -> Severity:
        return Severity(self.severity.currentData())

    def chosen_penalty(self) -> Penalty | None:
        data = self.penalty.currentData()
        return Penalty(data) if data else None

    def _options_changed(self) -> None:
        ctx, notice_id, severity = self.ctx, self.view.id, self.chosen_severity()
        ServiceOp(self, lambda: enforcement.decision_options(ctx, notice_id, severity), lock=False, key="options") \
            .success(self._options_loaded).failure(self._options_failed).run()

    def _options_failed(self, exc: BaseException) -> bool:
        if not isinstance(exc, MotodeskError):
            return False
        self.message.setText(str(exc))
        return True

    def _options_loaded(self, options: DecisionOptions) -> None:
        first = self.options is None
        self.options = options
        before = self.chosen_penalty()
        self.penalty.blockSignals(True)
        self.penalty.clear()
        for penalty in self.options.allowed:
            self.penalty.addItem(f"{penalty.label} ({penalty.article})", penalty.value)
        index = self.penalty.findData(before.value) if before else -1
        self.penalty.setCurrentIndex(index if index >= 0 else 0)
        self.penalty.blockSignals(False)
        self._refresh()
        if first:
            self.mark_clean()  # the penalties listed on opening are not a change of the clerk's

    def _refresh(self) -> None:
        upheld = self.upheld.isChecked()
        self.penalty_box.setEnabled(upheld)
        reclassified = self.chosen_severity() is not self.view.infraction.severity
        self.reason.setEnabled(upheld and reclassified)
        penalty = self.chosen_penalty()
        options = self.options
        self.penalty_form.setRowVisible(self.days, penalty is Penalty.SUSPENSION)
        if options is not None and penalty is Penalty.FINE and options.fine_ufm is not None \
                and options.fine_brl is not None:
            self.amount.setText(f"<b>{format_ufm(options.fine_ufm)} × {format_brl(options.ufm_value_brl)} "
                                f"(valor da UFM) = {format_brl(options.fine_brl)}</b>")
        else:
            self.amount.setText("—")
        self.effect.setText(self._effect_text(upheld, penalty))

    def _effect_text(self, upheld: bool, penalty: Penalty | None) -> str:
        v = self.view
        seizure = " O veículo foi apreendido no ato (Art. 32)." if v.vehicle_seized else ""
        if not upheld:
            if self.appeal and v.final_decision and v.final_decision.penalty is Penalty.SUSPENSION:
                return "A suspensão aplicada é encerrada hoje." + seizure
            return "Nenhum." + seizure
        if penalty not in (Penalty.SUSPENSION, Penalty.REVOCATION):
            return "Nenhum." + seizure
        if v.offender_kind is OffenderKind.UNREGISTERED or v.permit_number is None:
            return "Sem permissão a alterar."
        options = self.options
        now = self.appeal or options is None or (
            options.suspension_effective_now if penalty is Penalty.SUSPENSION else options.revocation_effective_now)
        deputy = v.offender_kind is OffenderKind.DEPUTY
        who = (f"O preposto ({v.offender_name}) de {v.permit_number}" if deputy
               else f"A {v.service.instrument if v.service else 'permissão'} {v.permit_number}")
        badge = "o crachá do preposto" if deputy else "o crachá"
        if not now:
            what = "A suspensão" if penalty is Penalty.SUSPENSION else "A cassação"
            return (f"{what} {'do preposto ' if deputy else ''}de {v.permit_number} produz efeito quando a decisão "
                    "for definitiva: depois do prazo de recurso, ao encerrar o processo, ou no julgamento do recurso "
                    "(Art. 34, parágrafo único).")
        if penalty is Penalty.SUSPENSION:
            end = self.today + timedelta(days=self.days.value())
            return (f"{who} fica suspens{'o' if deputy else 'a'} de {format_date(self.today)} até {format_date(end)}; "
                    f"{badge} passa a verificar como suspenso (Art. 34, III).")
        return (f"{who} é cassad{'o' if deputy else 'a'} hoje; {badge} passa a verificar como cassado "
                "(Art. 34, IV).")

    # --- deciding ------------------------------------------------------------------------------
    def decision_input(self) -> DecisionInput:
        if not self.upheld.isChecked():
            return DecisionInput(Outcome.DISMISSED, self.grounds.toPlainText())
        penalty = self.chosen_penalty()
        severity = self.chosen_severity()
        return DecisionInput(
            Outcome.UPHELD, self.grounds.toPlainText(), penalty,
            severity=None if severity is self.view.infraction.severity else severity,
            reclassification_reason=self.reason.toPlainText(),
            suspension_days=self.days.value() if penalty is Penalty.SUSPENSION else None,
        )

    def decide(self) -> bool:
        """Record the decision off the GUI thread; True when the call was started."""
        for widget in (self.grounds, self.penalty, self.days):
            mark_field(widget, None)
        self.message.clear()
        data = self.decision_input()
        ctx, notice_id, today, version = self.ctx, self.view.id, self.today, self.view.version
        if data.outcome is Outcome.DISMISSED:
            what = "arquivar o auto (improcedente)"
        elif data.penalty is Penalty.SUSPENSION and data.suspension_days:
            what = f"aplicar {data.penalty.label.lower()} de {data.suspension_days} dia(s)"
        elif data.penalty is not None:
            what = f"aplicar {data.penalty.label.lower()}"
        else:
            what = "julgar o auto procedente"
        step = " do recurso" if self.appeal else ""
        if not confirm(self, "Registrar decisão",
                       f"Registrar a decisão{step} do auto {self.view.number}: {what}?\n"
                       "A decisão registrada não pode ser desfeita por esta tela."):
            return False
        widgets: dict[str, QWidget] = {"grounds": self.grounds, "penalty": self.penalty, "suspension_days": self.days}

        def decided(result: DecisionResult) -> None:
            self.result_value = result
            self.accept()

        refused = errors_on(self.message, widgets)

        ServiceOp(self, lambda: enforcement.decide(ctx, notice_id, data, today=today, expected_version=version),
                  busy="Registrando a decisão…", change="notice").success(decided).failure(refused).run()
        return True
