"""Inputs a clerk types into: dates that are never silently changed, documents that format as typed."""

from __future__ import annotations

from datetime import date

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTableView

from motodesk.clock import local_today
from motodesk.ui.widgets import DateField, FormattedLineEdit, date_problems, field_error, format_partial

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support")


@pytest.mark.parametrize(("typed", "why"), [("31/02/2020", "não tem dia 31"), ("00/13/2020", "mês vai de 01 a 12"),
                                            ("29/02/2023", "não tem dia 29"), ("31/04/2021", "não tem dia 31")])
def test_an_impossible_date_is_refused_on_the_field_never_moved(qtbot, typed: str, why: str) -> None:  # noqa: ANN001
    field = DateField()
    qtbot.addWidget(field)
    field.setFocus()
    qtbot.keyClicks(field, typed)
    assert field.text() == typed  # exactly what was typed, not 29/02 or 28/02
    assert field.value() is None
    assert why in (field_error(field) or "") and "Data inexistente" in (field_error(field) or "")
    assert list(date_problems(field).values()) == [field.problem()]


def test_typing_into_a_filled_date_replaces_it_with_or_without_slashes(qtbot) -> None:  # noqa: ANN001
    field = DateField()
    qtbot.addWidget(field)
    field.set_value(date(2024, 2, 29))
    assert field.text() == "29/02/2024" and field.value() == date(2024, 2, 29)
    field.selectAll()
    qtbot.keyClicks(field, "01012023")
    assert field.value() == date(2023, 1, 1) and field_error(field) is None
    field.selectAll()
    qtbot.keyClicks(field, "15/06/1990")
    assert field.value() == date(1990, 6, 15)


def test_an_incomplete_date_is_refused_when_the_field_is_left(qtbot) -> None:  # noqa: ANN001
    field = DateField()
    qtbot.addWidget(field)
    field.setFocus()
    qtbot.keyClicks(field, "1203")
    field.editingFinished.emit()
    assert field.value() is None and "incompleta" in (field_error(field) or "")


def test_the_calendar_opens_from_the_keyboard_at_today_for_an_empty_date(qtbot) -> None:  # noqa: ANN001
    field = DateField()
    qtbot.addWidget(field)
    field.show()
    assert field.value() is None
    qtbot.keyClick(field, Qt.Key.Key_Down, Qt.KeyboardModifier.AltModifier)
    popup = field._popup
    assert popup is not None and popup.isVisible()
    shown = popup.selectedDate()
    assert (shown.year(), shown.month(), shown.day()) == (local_today().year, local_today().month, local_today().day)
    grid = popup.findChild(QTableView)  # the calendar's day grid takes the keys
    qtbot.keyClick(grid, Qt.Key.Key_Right)
    qtbot.keyClick(grid, Qt.Key.Key_Return)
    assert not popup.isVisible()
    assert field.value() is not None and (field.value() - local_today()).days == 1
    field.set_value(date(2020, 5, 17))
    qtbot.keyClick(field, Qt.Key.Key_F4)
    assert field._popup is not None and field._popup.selectedDate().year() == 2020


def test_a_required_date_starts_at_today_and_a_range_is_said(qtbot) -> None:  # noqa: ANN001
    field = DateField(optional=False)
    qtbot.addWidget(field)
    assert field.value() == local_today()
    field.setMinimumDate(date(2026, 1, 1))
    field.set_value(date(2025, 12, 31))
    assert "anterior a 01/01/2026" in (field.problem() or "")


@pytest.mark.parametrize(("kind", "typed", "shown"), [
    ("cpf", "12345678909", "123.456.789-09"),
    ("cpf", "123", "123"),
    ("cpf", "1234", "123.4"),
    ("cnpj", "11222333000181", "11.222.333/0001-81"),
    ("phone", "34999998888", "(34) 99999-8888"),
    ("phone", "3438310000", "(34) 3831-0000"),
    ("cep", "38740000", "38740-000"),
    ("plate", "abc1234", "ABC-1234"),
    ("plate", "abc1d23", "ABC1D23"),
])
def test_documents_format_as_they_are_typed(qtbot, kind: str, typed: str, shown: str) -> None:  # noqa: ANN001
    edit = FormattedLineEdit(kind)
    qtbot.addWidget(edit)
    edit.setFocus()
    qtbot.keyClicks(edit, typed)
    assert edit.text() == shown
    assert format_partial(kind, shown) == shown  # formatting is stable


def test_a_pasted_or_loaded_document_is_shown_formatted(qtbot) -> None:  # noqa: ANN001
    edit = FormattedLineEdit("cpf")
    qtbot.addWidget(edit)
    edit.setText("12345678909")
    assert edit.text() == "123.456.789-09"
