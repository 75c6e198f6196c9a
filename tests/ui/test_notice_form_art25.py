"""Art. 25 in the notice form: choosing an employer's infraction turns the offender into an organisation of the
register, picked with the keyboard on "Empresa (Art. 25)" (Alt+E); the notice names it and the list shows it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox
from tests_helpers import drain_events, settle_gui  # type: ignore[import-not-found]

from motodesk.services import enforcement, organisations
from motodesk.services.context import AppContext
from motodesk.services.enforcement import OffenderKind
from motodesk.services.organisations import OrganisationInput, OrganisationKind
from motodesk.ui import keyboard
from motodesk.ui.app import create_application
from motodesk.ui.notice_form import NoticeForm
from motodesk.ui.ops import ServiceOp
from motodesk.ui.screens.infractions import InfractionsPage
from motodesk.ui.widgets import field_error

ALT = Qt.KeyboardModifier.AltModifier


@pytest.fixture(autouse=True)
def _app(monkeypatch: pytest.MonkeyPatch) -> None:
    create_application()
    from motodesk.ui import guard

    monkeypatch.setattr(guard, "ask_unsaved", lambda _parent, _what="": guard.Answer.DISCARD)
    monkeypatch.setattr(QMessageBox, "question", staticmethod(
        lambda *_args, **_kw: QMessageBox.StandardButton.Yes))  # "Lavrar auto?" — Sim


def _wait(qtbot) -> None:  # noqa: ANN001
    qtbot.waitUntil(lambda: ServiceOp.running() == 0, timeout=10_000)
    drain_events()


def _type(qtbot, widget, text: str) -> None:  # noqa: ANN001
    for ch in text:
        if ch.isascii():
            qtbot.keyClicks(widget, ch)
        elif hasattr(widget, "insertPlainText"):
            widget.insertPlainText(ch)
        else:
            widget.insert(ch)


def test_the_employer_is_picked_by_keyboard_and_named_on_the_notice(qtbot, ctx: AppContext,  # noqa: ANN001
                                                                    inspector: AppContext,
                                                                    supervisor: AppContext) -> None:
    employer = organisations.save_organisation(supervisor, OrganisationInput(
        kind=OrganisationKind.OPERATOR, name="Entregas Rápidas Patrocínio Ltda", cnpj="11.222.333/0001-81",
        address="Avenida Faria Pereira, 1200, Centro", phone="(34) 3831-4040")).id
    form = NoticeForm(inspector)
    qtbot.addWidget(form)
    form.show()
    qtbot.waitExposed(form)
    assert form.registered_box.isVisible() and not form.organisation_box.isVisible()

    qtbot.keyClicks(form.picker.search, "25.I")
    assert form.infraction() is not None and form.infraction().article == "Art. 25, I"  # type: ignore[union-attr]
    assert form.kind() is OffenderKind.ORGANISATION
    assert form.organisation_box.isVisible() and not form.registered_box.isVisible()
    assert not form.unregistered_box.isVisible()
    assert not form.holder_radio.isEnabled() and not form.deputy_radio.isEnabled()
    _wait(qtbot)
    items = [form.organisation_choice.itemText(i) for i in range(form.organisation_choice.count())]
    assert items == ["Escolha a empresa…", "Entregas Rápidas Patrocínio Ltda — CNPJ 11.222.333/0001-81"]

    # No letter of the form clashes, and Alt+E reaches the organisation.
    qtbot.keyPress(QApplication.focusWidget(), Qt.Key.Key_Alt)
    qtbot.keyRelease(QApplication.focusWidget(), Qt.Key.Key_Alt)
    assert keyboard.clashes(form) == [] and keyboard.idle_letters(form) == []
    label = form.organisation_box.findChildren(type(form.chosen))[0]
    assert label.text() == "&Empresa (Art. 25):" and label.buddy() is form.organisation_choice
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_E, ALT)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is form.organisation_choice, timeout=2000)

    _type(qtbot, form.place, "Rua Presidente Vargas, 300, Centro")
    _type(qtbot, form.description, "Condutor de moto-frete a serviço da empresa sem habilitação.")
    qtbot.mouseClick(form.save_button, Qt.MouseButton.LeftButton)
    _wait(qtbot)
    assert form.created is None and "Escolha a empresa" in (field_error(form.organisation_choice) or "")

    form.organisation_choice.setFocus()
    qtbot.keyClick(form.organisation_choice, Qt.Key.Key_Down)
    assert form.organisation_choice.currentData() == employer
    qtbot.mouseClick(form.save_button, Qt.MouseButton.LeftButton)
    _wait(qtbot)
    assert form.created is not None
    view = enforcement.get_notice(inspector, form.created.id)
    assert (view.offender_kind, view.organisation_id, view.person_id, view.infraction.article) == (
        OffenderKind.ORGANISATION, employer, None, "Art. 25, I")

    # The infractions list says the offender is the organisation.
    page = InfractionsPage(inspector)
    qtbot.addWidget(page)
    page.resize(1200, 800)
    page.show()
    qtbot.waitExposed(page)
    settle_gui(qtbot)
    assert page.model.index(0, 4).data() == ("Empresa (Art. 25): Entregas Rápidas Patrocínio Ltda "
                                            "(CNPJ 11.222.333/0001-81)")
    page.select_notice(form.created.id)
    settle_gui(qtbot)
    history = page.history_model
    assert [history.row_at(r).number for r in range(history.rowCount())] == [form.created.number]


def test_a_holders_infraction_keeps_the_organisation_hidden(qtbot, inspector: AppContext) -> None:  # noqa: ANN001
    form = NoticeForm(inspector)
    qtbot.addWidget(form)
    form.show()
    qtbot.waitExposed(form)
    qtbot.keyClicks(form.picker.search, "25.II")
    assert form.organisation_box.isVisible()
    form.picker.search.clear()
    qtbot.keyClicks(form.picker.search, "troco")
    _wait(qtbot)
    assert form.kind() is OffenderKind.HOLDER and form.holder_radio.isEnabled()
    assert form.registered_box.isVisible() and not form.organisation_box.isVisible()
    assert form.notice_input().organisation_id is None
