"""The shared UI pieces: declared-column models (checked by qtmodeltester), date field, marks."""

from __future__ import annotations

import dataclasses
from datetime import date

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QLineEdit

from motodesk.rules.common import Status, Verdict
from motodesk.ui.tablemodel import Column, LazyTableModel, RowTableModel
from motodesk.ui.widgets import DateField, VerdictList, field_error, mark_field

COLUMNS = [
    Column("name", "Nome", lambda r: r["name"]),
    Column("born", "Nascimento", lambda r: r["born"]),
    Column("n", "Nº", lambda r: r["n"], Qt.AlignmentFlag.AlignRight),
]
ROWS = [{"name": f"Pessoa {i:04d}", "born": date(1980, 1, 1 + i % 28), "n": i * 1000} for i in range(1000)]


def test_row_model_shows_pt_br_values_and_sorts(qtmodeltester) -> None:  # noqa: ANN001
    model = RowTableModel(COLUMNS, ROWS[:30])
    qtmodeltester.check(model)
    assert model.headerData(1, Qt.Orientation.Horizontal) == "Nascimento"
    assert model.data(model.index(0, 1)) == "01/01/1980"
    assert model.data(model.index(2, 2)) == "2.000"
    model.sort(0, Qt.SortOrder.DescendingOrder)
    assert model.data(model.index(0, 0)) == "Pessoa 0029"


def test_lazy_model_fetches_pages_and_sorts_in_the_source(qtmodeltester) -> None:  # noqa: ANN001
    calls: list[tuple[int, int, str, bool]] = []

    def fetch(offset: int, limit: int, key: str, desc: bool) -> list[dict]:
        calls.append((offset, limit, key, desc))
        ordered = sorted(ROWS, key=lambda r: r[key], reverse=desc)
        return ordered[offset: offset + limit]

    model = LazyTableModel(COLUMNS, fetch, page_size=100)
    model.reload()
    assert model.rowCount() == 100
    qtmodeltester.check(model)  # (it fetches more pages itself)
    while model.canFetchMore(QModelIndex()):
        model.fetchMore(QModelIndex())
    assert model.rowCount() == 1000
    assert calls[-1][0] == 1000  # the last page came back empty
    before = len(calls)
    model.sort(2, Qt.SortOrder.DescendingOrder)
    assert calls[before] == (0, 100, "n", True)
    assert model.data(model.index(0, 0)) == "Pessoa 0999"


def test_date_field_types_dd_mm_yyyy_and_can_be_empty(qtbot) -> None:  # noqa: ANN001
    field = DateField()
    qtbot.addWidget(field)
    assert field.value() is None
    field.set_value(date(2024, 2, 29))
    assert field.text() == "29/02/2024"
    assert field.value() == date(2024, 2, 29)
    field.clear_value()
    assert field.value() is None


def test_mark_field_and_verdicts(qtbot) -> None:  # noqa: ANN001
    edit = QLineEdit()
    qtbot.addWidget(edit)
    mark_field(edit, "CPF inválido: dígito verificador não confere.")
    assert field_error(edit) == "CPF inválido: dígito verificador não confere."
    assert "CPF inválido" in edit.toolTip()
    mark_field(edit, None)
    assert field_error(edit) is None and edit.toolTip() == ""
    verdicts = VerdictList()
    qtbot.addWidget(verdicts)
    v = Verdict("age", "Art. 5º, I", Status.NOT_MET, "Art. 5º, I: o requerente tem 20 anos; o mínimo é 21.")
    verdicts.set_verdicts([v])
    assert verdicts.count() == 1 and "20 anos" in verdicts.item(0).text()
    assert verdicts.verdicts() == [v]
    # Issue 28: the same answers leave the lines alone; a changed one is redrawn in its own line.
    w = Verdict("cnh", "Art. 5º, II", Status.PENDING, "Informe a CNH.")
    verdicts.set_verdicts([v, w])
    first = verdicts.item(0)
    verdicts.set_verdicts([v, dataclasses.replace(w, status=Status.MET, message="CNH informada.")])
    assert verdicts.item(0) is first and verdicts.count() == 2
    assert "Atendido: CNH informada." in verdicts.item(1).text()
    assert verdicts.verdicts()[1].status is Status.MET
    verdicts.set_verdicts([w])  # other rules: the list is built again
    assert verdicts.count() == 1 and verdicts.verdicts() == [w] and "Pendente: Informe a CNH." in verdicts.item(0).text()
