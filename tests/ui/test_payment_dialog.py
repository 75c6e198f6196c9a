"""Registrar pagamento (Art. 6º, § 6º) driven from the keyboard: on its own, from the permits page after
a refusal for a missing guia/DAM, and from the dossier."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from permit_factory import make_dossier  # type: ignore[import-not-found]
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from motodesk.rules.common import PermitState, ServiceType
from motodesk.rules.fees import FeeAct
from motodesk.services import fees
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext
from motodesk.ui import payment_dialog
from motodesk.ui.app import create_application
from motodesk.ui.ops import ServiceOp
from motodesk.ui.payment_dialog import PaymentDialog
from motodesk.ui.screens import permits as screen
from motodesk.ui.screens.permits import PermitsPage
from motodesk.ui.widgets import after

TODAY = local_today()  # the secretariat's day: a payment dated after it is refused
BASIS = "Decreto nº 5.001/2026"


@pytest.fixture(autouse=True)
def never_block_on_close(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dialog left with a typed guia must not wait for "Salvar / Descartar" at teardown."""
    from motodesk.ui import guard

    monkeypatch.setattr(guard, "ask_unsaved", lambda *a, **k: guard.Answer.DISCARD)


def _type_payment(qtbot, dialog: PaymentDialog, number: str, paid_on: date) -> None:  # noqa: ANN001
    """What the clerk types: the focus starts on the number; Tab to the date; Enter records."""
    assert dialog.focusWidget() is dialog.number
    qtbot.keyClicks(dialog.number, number)
    qtbot.keyClick(dialog.number, Qt.Key.Key_Tab)
    assert dialog.focusWidget() is dialog.paid_on
    qtbot.keyClick(dialog.paid_on, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)  # replace today's date
    qtbot.keyClicks(dialog.paid_on, paid_on.strftime("%d%m%Y"))
    # Press only: Enter records at once and the form is disabled while it does (a release to it
    # would be "not accepted"); the record runs in the background.
    qtbot.keyPress(dialog.paid_on, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: ServiceOp.running() == 0, timeout=10_000)


def test_the_dialog_records_from_the_keyboard_and_refuses_a_reused_dam(qtbot, ctx: AppContext,  # noqa: ANN001
                                                                       clerk: AppContext,
                                                                       supervisor: AppContext) -> None:
    create_application()
    dossier = make_dossier(ctx, ServiceType.MOTOBOY, name="Ana Paula Rezende")
    fees.set_fee(supervisor, FeeAct.ISSUE, "87,50", BASIS)
    fees.set_fee(supervisor, FeeAct.INSPECTION, "30", BASIS)
    payables = fees.payable_acts(clerk, application_id=dossier.application_id)
    assert [p.act for p in payables] == [FeeAct.ISSUE, FeeAct.INSPECTION]

    dialog = PaymentDialog(clerk, payables)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert dialog.amount.text() == "87,50" and BASIS in dialog.basis.text()  # prefilled with the fee in force
    _type_payment(qtbot, dialog, "DAM 2026-77", TODAY - timedelta(days=1))
    assert dialog.result() == PaymentDialog.DialogCode.Accepted
    assert dialog.recorded is not None
    assert (dialog.recorded.number, dialog.recorded.paid_on) == ("DAM2026-77", TODAY - timedelta(days=1))
    assert dialog.recorded.act is FeeAct.ISSUE and dialog.recorded.subject_id == dossier.application_id

    again = PaymentDialog(clerk, payables, act=FeeAct.INSPECTION)
    qtbot.addWidget(again)
    again.show()
    qtbot.waitExposed(again)
    assert again.amount.text() == "30,00"
    _type_payment(qtbot, again, "dam2026-77", TODAY)
    assert again.isVisible() and again.recorded is None
    assert "já foi registrada" in again.message.text()
    assert again.number.toolTip() == "Guia/DAM já registrada."


@pytest.fixture
def errors(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    shown: list[str] = []
    monkeypatch.setattr(screen, "show_error", lambda _parent, exc, *_a: shown.append(str(exc)))
    from motodesk.ui import ops

    monkeypatch.setattr(ops, "show_error", lambda _parent, exc, *_a: shown.append(str(exc)))  # the page's ServiceOp
    return shown


def _answer_dialog(qtbot, number: str) -> None:  # noqa: ANN001
    """When the modal payment dialog appears, type into it as the clerk would."""
    tries = [0]

    def fill() -> None:  # the dialog opens once the payable acts are read off the GUI thread
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, PaymentDialog):
            tries[0] += 1
            assert tries[0] < 500, dialog
            after(QApplication.instance(), 10, fill)
            return
        _type_payment(qtbot, dialog, number, TODAY)

    QTimer.singleShot(0, fill)


def test_permits_page_refusal_points_to_the_payment_and_then_issues(qtbot, qtmodeltester, monkeypatch,  # noqa: ANN001
                                                                    ctx: AppContext, supervisor: AppContext,
                                                                    errors: list[str], wait_ops) -> None:
    create_application()
    fees.set_fee(supervisor, FeeAct.ISSUE, "120", BASIS)
    dossier = make_dossier(ctx, ServiceType.MOTOFRETE, state=PermitState.APPROVED, name="Carlos Eduardo Prado")
    page = PermitsPage(supervisor)
    qtbot.addWidget(page)
    page.resize(1280, 720)
    page.show()
    qtbot.waitExposed(page)
    wait_ops()  # the page loads in the background
    tab = page.permits_tab
    qtmodeltester.check(tab.model)
    assert tab.select("application", dossier.application_id)
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)

    tab.step_buttons["issue"].click()
    wait_ops()
    assert "a taxa de emissão da permissão ou autorização (R$ 120,00) não foi paga" in errors[-1]
    assert "Registrar pagamento" in tab.status.text()
    assert tab.selected().state is PermitState.APPROVED

    assert tab.payment_button.isEnabled()
    _answer_dialog(qtbot, "DAM-9001")
    tab.payment_button.click()
    wait_ops()
    assert "DAM-9001 registrada" in tab.status.text() and "R$ 120,00" in tab.status.text()

    tab.step_buttons["issue"].click()
    wait_ops()
    assert "Emitida" in tab.status.text()
    [payment] = fees.payments_for(supervisor, FeeAct.ISSUE, dossier.application_id)
    assert payment.used


def test_no_fee_no_dialog(qtbot, monkeypatch, ctx: AppContext, clerk: AppContext, wait_ops) -> None:  # noqa: ANN001
    create_application()
    issued_from = make_dossier(ctx, ServiceType.MOTOBOY, state=PermitState.APPROVED)
    told: list[str] = []
    monkeypatch.setattr(payment_dialog.QMessageBox, "information", lambda _p, _t, text: told.append(text))
    parent = QWidget()
    qtbot.addWidget(parent)
    recorded: list[object] = []
    payment_dialog.record_payment(clerk, parent, application_id=issued_from.application_id,
                                  on_recorded=recorded.append)
    assert not parent.isEnabled()  # locked while the payable acts are read off the GUI thread
    wait_ops()
    assert "não há pagamento a registrar" in told[-1] and recorded == [] and parent.isEnabled()


def test_dossier_offers_the_application_fee(qtbot, monkeypatch, ctx: AppContext, clerk: AppContext,  # noqa: ANN001
                                            supervisor: AppContext, wait_ops) -> None:
    from motodesk.ui.dossier import DossierWindow

    create_application()
    fees.set_fee(supervisor, FeeAct.APPLICATION, "15,00", BASIS)
    person_id = make_dossier(ctx, ServiceType.MOTOBOY, state=PermitState.REFUSED, name="Rita de Cássia").person_id
    window = DossierWindow(clerk, person_id)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.person_id is not None and window.payment_button.isEnabled())  # loaded
    _answer_dialog(qtbot, "DAM-15")
    window.record_payment()
    wait_ops()
    [payment] = fees.payments_for(clerk, FeeAct.APPLICATION, person_id)
    assert payment.number == "DAM-15" and payment.subject_id == person_id and not payment.used
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    assert window.open_application() is not None
    wait_ops()
    assert fees.payments_for(clerk, FeeAct.APPLICATION, person_id)[0].used


def test_the_dialog_fits_has_access_keys_and_esc_with_a_typed_guia_asks(qtbot, monkeypatch, ctx: AppContext,  # noqa: ANN001
                                                                        clerk: AppContext,
                                                                        supervisor: AppContext) -> None:
    from tests_helpers import fits_screen, missing_access_keys  # type: ignore[import-not-found]

    from motodesk.ui import guard

    create_application()
    dossier = make_dossier(ctx, ServiceType.MOTOBOY, name="Ana Paula Rezende")
    fees.set_fee(supervisor, FeeAct.ISSUE, "87,50", BASIS)
    dialog = PaymentDialog(clerk, fees.payable_acts(clerk, application_id=dossier.application_id))
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert fits_screen(dialog) == [] and missing_access_keys(dialog) == []
    asked: list[str] = []
    monkeypatch.setattr(guard, "ask_unsaved", lambda *a, **k: asked.append("?") or guard.Answer.CANCEL)
    qtbot.keyClicks(dialog.number, "DAM-1")
    qtbot.keyClick(dialog.number, Qt.Key.Key_Escape)
    assert asked and dialog.isVisible() and dialog.number.text() == "DAM-1"
