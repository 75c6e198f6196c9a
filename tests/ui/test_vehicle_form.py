"""The vehicle form at the counter: inside the screen, keyboard only, nothing typed lost (issue #18)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QComboBox
from tests_helpers import SCREENSHOTS, fits_screen, missing_access_keys, no_button_down, valid_cpf  # type: ignore[import-not-found]

from motodesk.services import people
from motodesk.services.context import AppContext
from motodesk.services.people import PersonInput
from motodesk.ui import guard
from motodesk.ui.app import create_application
from motodesk.ui.ops import ServiceOp
from motodesk.ui.vehicle_form import SENATRAN_COLOURS, VehicleForm


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every "Salvar / Descartar / Cancelar" question; answered Cancelar, then Descartar."""
    questions: list[str] = []

    def ask(_parent, what: str = "", *_a, **_k) -> guard.Answer:  # noqa: ANN001
        questions.append(what)
        return guard.Answer.CANCEL if len(questions) == 1 else guard.Answer.DISCARD

    monkeypatch.setattr(guard, "ask_unsaved", ask)
    return questions


def _form(qtbot, ctx: AppContext, **kwargs: int) -> VehicleForm:  # noqa: ANN001
    create_application()
    form = VehicleForm(ctx, **kwargs)
    qtbot.addWidget(form)
    qtbot.waitUntil(lambda: ServiceOp.running() == 0)  # the vehicle and its holder read off the GUI thread
    form.show()
    qtbot.waitExposed(form)
    form.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is form)
    return form


def test_the_form_fits_the_counter_screen_and_every_field_has_an_access_key(qtbot, clerk: AppContext,  # noqa: ANN001
                                                                            asked: list[str]) -> None:
    form = _form(qtbot, clerk)
    assert fits_screen(form) == []
    assert missing_access_keys(form) == []
    assert form.save_button.isVisible() and form.cancel_button.isVisible()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    form.grab().save(str(SCREENSHOTS / "vehicle_form.png"))


def test_the_colour_is_chosen_from_the_senatran_list(qtbot, clerk: AppContext, asked: list[str]) -> None:  # noqa: ANN001
    form = _form(qtbot, clerk)
    assert isinstance(form.colour, QComboBox) and not form.colour.isEditable()
    assert [form.colour.itemText(i) for i in range(1, form.colour.count())] == list(SENATRAN_COLOURS)
    form.colour.setFocus()
    qtbot.keyClicks(form.colour, "Verm")
    assert form.collect().colour == "Vermelha"
    form._set_colour("PRETA")  # a stored upper-case colour shows as the list's name
    assert form.colour.currentText() == "Preta"


def test_esc_with_a_half_typed_vehicle_asks_before_losing_it(qtbot, clerk: AppContext,  # noqa: ANN001
                                                             asked: list[str]) -> None:
    form = _form(qtbot, clerk)
    form.plate.setFocus()
    qtbot.keyClicks(form.plate, "abc1d23")
    assert form.plate.text() == "ABC1D23"  # formatted as typed
    qtbot.keyClick(form.plate, Qt.Key.Key_Escape)
    assert len(asked) == 1 and form.isVisible()  # Cancelar: the typed plate stays
    assert form.plate.text() == "ABC1D23"
    qtbot.keyClick(form.plate, Qt.Key.Key_Escape)
    assert len(asked) == 2 and not form.isVisible()  # Descartar


def test_an_untouched_form_closes_without_asking(qtbot, clerk: AppContext, asked: list[str]) -> None:  # noqa: ANN001
    form = _form(qtbot, clerk)
    qtbot.keyClick(form.plate, Qt.Key.Key_Escape)
    assert asked == [] and not form.isVisible()


def test_the_status_line_follows_the_fields(qtbot, clerk: AppContext, asked: list[str]) -> None:  # noqa: ANN001
    hid = people.save_person(clerk, PersonInput(full_name="Status Teste Rocha", cpf=valid_cpf())).id
    form = _form(qtbot, clerk, holder_id=hid)
    qtbot.keyPress(form, Qt.Key.Key_S, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(no_button_down)  # the access key's animated click
    qtbot.waitUntil(lambda: ServiceOp.running() == 0 and not form.saving)
    assert "Informe a placa" in form.message.text()
    form.plate.setFocus()
    qtbot.keyClicks(form.plate, "PTC4B83")
    assert "Informe a placa" not in form.message.text()
    assert "Informe o serviço" in form.message.text()  # the next thing still missing
    form.service.setCurrentIndex(1)
    assert "Informe o serviço" not in form.message.text()


def test_mesmo_do_titular_moves_the_cursor_to_the_insurance_date(qtbot, clerk: AppContext,  # noqa: ANN001
                                                                 asked: list[str]) -> None:
    """Issue #26: the button fills the owner and the insured; the next key types the insurance's date
    (not four Tabs over the fields it just filled)."""
    hid = people.save_person(clerk, PersonInput(full_name="Titular Teste Rocha", cpf=valid_cpf())).id
    form = _form(qtbot, clerk, holder_id=hid)
    qtbot.waitUntil(lambda: form.holder is not None)
    form.crlv_uf.setFocus()  # the last CRLV field, where the clerk is when the button is due
    letter = form.copy_holder.text()[form.copy_holder.text().index("&") + 1]
    qtbot.keyClick(QApplication.focusWidget(), getattr(Qt.Key, f"Key_{letter.upper()}"), Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(no_button_down)
    assert form.owner_name.text() == "Titular Teste Rocha"
    assert QApplication.focusWidget() is form.insurance
    qtbot.keyClicks(form.insurance, "01012030")
    assert form.insurance.text().startswith("01/01/2030")
