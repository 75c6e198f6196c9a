"""A refused field says why until the clerk changes it, and not after (issue #26, item 10): the
service's reason goes at the first change; a field's own check keeps the mark it owns."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit, QPlainTextEdit, QWidget

from motodesk.ui.app import create_application
from motodesk.ui.ops import place_field_errors
from motodesk.ui.widgets import DateField, field_error, mark_field


def _form(qtbot) -> tuple[QWidget, dict[str, QWidget]]:  # noqa: ANN001
    create_application()
    box = QWidget()
    qtbot.addWidget(box)
    name, kind, notes, agree = QLineEdit(box), QComboBox(box), QPlainTextEdit(box), QCheckBox("Aceito", box)
    kind.addItems(["Escolha…", "Motoboy", "Mototáxi"])
    day = DateField(box)
    box.show()
    qtbot.waitExposed(box)
    return box, {"name": name, "kind": kind, "notes": notes, "agree": agree, "day": day}


def test_the_services_reasons_go_when_each_field_is_changed(qtbot) -> None:  # noqa: ANN001
    _box, widgets = _form(qtbot)
    reasons = {key: f"Campo {key} recusado pelo serviço." for key in widgets}
    assert place_field_errors(reasons, widgets) == list(widgets)
    assert all(field_error(w) == reasons[k] for k, w in widgets.items())

    qtbot.keyClicks(widgets["name"], "Ana")
    assert field_error(widgets["name"]) is None and widgets["name"].toolTip() == ""
    assert field_error(widgets["kind"]) == reasons["kind"]  # the others still say why

    widgets["kind"].setFocus()
    qtbot.keyClick(widgets["kind"], Qt.Key.Key_Down)  # a choice by keyboard
    assert widgets["kind"].currentIndex() == 1 and field_error(widgets["kind"]) is None

    qtbot.keyClicks(widgets["notes"], "x")
    assert field_error(widgets["notes"]) is None
    widgets["agree"].setFocus()
    qtbot.keyClick(widgets["agree"], Qt.Key.Key_Space)
    assert field_error(widgets["agree"]) is None

    qtbot.keyClicks(widgets["day"], "01022024")
    assert field_error(widgets["day"]) is None


def test_a_fields_own_check_keeps_its_mark_while_what_is_typed_is_wrong(qtbot) -> None:  # noqa: ANN001
    _box, widgets = _form(qtbot)
    day = widgets["day"]
    assert isinstance(day, DateField)
    place_field_errors({"day": "Data fora do prazo do edital."}, {"day": day})
    qtbot.keyClicks(day, "31022024")  # the service's reason goes; the field's own one comes
    problem = field_error(day)
    assert problem is not None and "31/02/2024" in problem and "edital" not in problem
    day.setFocus()
    qtbot.keyClick(day, Qt.Key.Key_Backspace)  # still wrong: the field's mark stays until it is right
    assert field_error(day) is not None


def test_a_mark_without_until_changed_stays_after_an_edit(qtbot) -> None:  # noqa: ANN001
    _box, widgets = _form(qtbot)
    name = widgets["name"]
    mark_field(name, "Nome já usado por outro cadastro.")  # a check that clears its own marks
    qtbot.keyClicks(name, "B")
    assert field_error(name) == "Nome já usado por outro cadastro."
    # and a later service refusal of the same field is cleared by the next change
    place_field_errors({"name": "Nome recusado."}, {"name": name})
    qtbot.keyClicks(name, "C")
    assert field_error(name) is None
