"""Registrar pagamento: the guia/DAM the interested party paid for an act (Art. 6º, § 6º).

Keyboard only: the act (when there is more than one) is chosen with the arrows, the number is typed,
the date is today unless changed (dd/MM/aaaa), the amount comes filled with the fee in force; Enter
records, Esc cancels. A refusal is shown on its field.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from PySide6.QtWidgets import (
    QComboBox,
    QMessageBox,
    QWidget,
)

from motodesk.rules.text import format_brl, format_decimal
from motodesk.services import fees
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext
from motodesk.services.errors import InvalidInputError, MotodeskError
from motodesk.services.fees import Payable, PaymentInfo
from motodesk.ui import formkit
from motodesk.ui.formatting import format_date
from motodesk.ui.guard import GuardedDialog
from motodesk.ui.ops import ServiceOp
from motodesk.ui.widgets import DateField, mark_field, message_line


class PaymentDialog(GuardedDialog):
    """Record one payment for one of ``payables`` (acts with a fee above zero); Esc or Cancelar
    with a guia typed asks before losing it."""

    def __init__(self, ctx: AppContext, payables: list[Payable], parent: QWidget | None = None, *,
                 act: fees.FeeAct | None = None, today: date | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.payables = payables
        self.today = today or local_today()
        self.recorded: PaymentInfo | None = None
        self.setObjectName("payment_dialog")
        self.setWindowTitle("Registrar pagamento – Art. 6º, § 6º")
        self.resize(560, 300)

        self.act = QComboBox()
        self.act.setObjectName("act")
        for item in payables:
            self.act.addItem(f"Taxa de {item.act.label} — {item.subject}", item.act.value)
        self.basis = formkit.wrapped_label(name="basis")
        self.number = formkit.line_edit("number", "Número impresso na guia/DAM", 40)
        self.paid_on = DateField(optional=False)
        self.paid_on.setObjectName("paid_on")
        self.paid_on.set_value(self.today)
        self.amount = formkit.line_edit("amount")
        self.message = message_line()
        self.save_button = formkit.push_button("&Registrar", "save", self.save, default=True)
        cancel = formkit.push_button("&Cancelar", slot=self.reject, auto_default=False)

        form = formkit.form(
            (formkit.buddy("&Ato:", self.act), self.act),
            ("", self.basis),
            (formkit.buddy("Nº da &guia/DAM:", self.number), self.number),
            (formkit.buddy("&Data do pagamento:", self.paid_on), self.paid_on),
            (formkit.buddy("&Valor pago (R$):", self.amount), self.amount),
        )
        formkit.column(form, self.message, formkit.row(1, self.save_button, cancel), parent=self)
        self.setTabOrder(self.act, self.number)
        self.setTabOrder(self.number, self.paid_on)
        self.setTabOrder(self.paid_on, self.amount)
        self.setTabOrder(self.amount, self.save_button)

        self.act.currentIndexChanged.connect(lambda _i: self._act_changed())
        if act is not None:
            index = self.act.findData(act.value)
            if index >= 0:
                self.act.setCurrentIndex(index)
        self._act_changed()
        self.number.setFocus()
        self.mark_clean()

    def save_and_close(self) -> None:
        self.save()

    def current(self) -> Payable:
        return self.payables[max(0, self.act.currentIndex())]

    def _act_changed(self) -> None:
        fee = self.current().fee
        self.basis.setText(f"Taxa em vigor: <b>{format_brl(fee.amount)}</b> — {fee.legal_basis}")
        self.amount.setText(format_decimal(fee.amount))

    def save(self) -> bool:
        widgets: dict[str, QWidget] = {"number": self.number, "paid_on": self.paid_on, "amount": self.amount,
                                       "act": self.act}
        for widget in widgets.values():
            mark_field(widget, None)
        item = self.current()
        paid_on = self.paid_on.value()
        if paid_on is None:
            mark_field(self.paid_on, "Informe a data do pagamento.")
            self.message.setText("Informe a data do pagamento (dd/mm/aaaa).")
            return False
        ctx, number, amount = self.ctx, self.number.text(), self.amount.text()

        def recorded(payment: PaymentInfo) -> None:
            self.recorded = payment
            self.accept()

        def refused(exc: BaseException) -> bool:
            if isinstance(exc, InvalidInputError):
                for key, reason in exc.fields.items():
                    if key in widgets:
                        mark_field(widgets[key], reason)
                self.message.setText(exc.message)
                first = next((widgets[k] for k in exc.fields if k in widgets), None)
                if first is not None:
                    first.setFocus()
                return True
            if isinstance(exc, MotodeskError):
                self.message.setText(str(exc))
                return True
            return False

        ServiceOp(self, lambda: fees.record_payment(ctx, item.act, item.subject_id, number, paid_on, amount),
                  busy="Registrando o pagamento…", change="payment").success(recorded).failure(refused).run()
        return True


def record_payment(ctx: AppContext, parent: QWidget, *, person_id: int | None = None,
                   application_id: int | None = None, permit_id: int | None = None,
                   on_recorded: Callable[[PaymentInfo], None] | None = None) -> ServiceOp:
    """Look up the acts payable from a dossier or a permits row off the GUI thread (``parent`` locked
    meanwhile), then open the dialog for them; ``on_recorded`` gets the payment once it is recorded."""

    def found(payables: list[Payable]) -> None:
        if not payables:
            QMessageBox.information(parent, "Registrar pagamento",
                                    "Nenhum destes atos tem taxa na tabela de taxas (Art. 6º, § 6º): não há "
                                    "pagamento a registrar.")
            return
        dialog = PaymentDialog(ctx, payables, parent)
        try:
            dialog.exec()
            if dialog.recorded is not None and on_recorded is not None:
                on_recorded(dialog.recorded)
        finally:
            dialog.deleteLater()

    return ServiceOp(parent, lambda: fees.payable_acts(ctx, person_id=person_id, application_id=application_id,
                                                       permit_id=permit_id),
                     busy="Procurando as taxas a pagar…", title="Registrar pagamento").success(found).run()


def recorded_message(payment: PaymentInfo) -> str:
    return (f"Guia/DAM nº {payment.number} registrada: taxa de {payment.act.label}, {format_brl(payment.amount)}, "
            f"paga em {format_date(payment.paid_on)}. Conclua o ato agora.")


FEE_REFUSAL_HINT = "Use “Registrar pagamento…” (Alt+G) com a guia/DAM paga e repita o ato."
