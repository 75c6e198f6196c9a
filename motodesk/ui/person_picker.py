"""Choose one row from a search: a person for a deputy or an affiliation, a permit for a stand.

A line to type a name, CPF or number, results as they are typed (debounced, first page only: typing
more narrows them, each search read off the GUI thread and only the newest one shown), double click or
Enter to choose (Enter while a search is on its way chooses from its answer). The search itself is a function of the caller, so
the same dialog picks people (:func:`people_picker`) or permits in force (:func:`permit_picker`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from motodesk.rules.validators import format_cpf
from motodesk.services import permits, search
from motodesk.services.context import AppContext
from motodesk.services.errors import MotodeskError
from motodesk.services.permits import PermitRow
from motodesk.services.search import PersonHit
from motodesk.ui.ops import ServiceOp
from motodesk.ui.tablemodel import Column, RowTableModel
from motodesk.ui.widgets import dialog_answer, ok_cancel_buttons, one_shot_timer, rows_table

Row = TypeVar("Row")
DEBOUNCE_MS = 200
LIMIT = 50

PERSON_COLUMNS: list[Column[PersonHit]] = [
    Column("name", "Nome", lambda h: h.full_name),
    Column("cpf", "CPF", lambda h: h.cpf_formatted),
    Column("permit", "Permissão", lambda h: h.permit_number or ""),
    Column("situation", "Situação", lambda h: h.situation),
]

PERMIT_COLUMNS: list[Column[PermitRow]] = [
    Column("number", "Número", lambda r: r.number),
    Column("holder", "Titular", lambda r: r.holder),
    Column("cpf", "CPF", lambda r: format_cpf(r.cpf)),
    Column("service", "Serviço", lambda r: r.service.label),
    Column("state", "Situação", lambda r: r.state.label),
]


class PickerDialog(QDialog, Generic[Row]):
    """Type, see the matches, choose one; ``chosen`` holds it after Accepted."""

    def __init__(self, title: str, hint: str, columns: Sequence[Column[Row]],
                 fetch: Callable[[str], Sequence[Row]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("picker")
        self.setWindowTitle(title)
        self.resize(720, 480)
        self.fetch = fetch
        self.chosen: Row | None = None
        self.query = QLineEdit()
        self.query.setObjectName("query")
        self.query.setPlaceholderText(hint)
        self.query.setClearButtonEnabled(True)
        self.model: RowTableModel[Row] = RowTableModel(columns)
        self.table = rows_table("results", self.model)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.doubleClicked.connect(lambda _i: self.choose())
        self.count = QLabel("")
        self.count.setObjectName("count")
        self.buttons, _ok = ok_cancel_buttons(self, "Escolher", self.choose, cancel_text=None)
        layout = QVBoxLayout(self)
        layout.addWidget(self.query)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.count)
        layout.addWidget(self.buttons)
        self._timer = one_shot_timer(self, DEBOUNCE_MS, self.refresh)
        self.query.textChanged.connect(lambda _t: self._timer.start())
        self.query.returnPressed.connect(self._enter)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._update_ok())
        self._update_ok()
        self._generation = 0  # each search asked; an answer of an older one is dropped
        self.searching = False
        self._choose_on_answer = False

    def _enter(self) -> None:
        if self._timer.isActive():
            self.refresh()
        if self.searching:
            self._choose_on_answer = True  # the clerk typed and pressed Enter at once
            return
        self._choose_shown()

    def _choose_shown(self) -> None:
        if self.model.rowCount() == 1:
            self.table.selectRow(0)
        self.choose()

    def refresh(self) -> None:
        self._timer.stop()
        text = self.query.text().strip()
        self._generation += 1
        generation = self._generation
        if not text:
            self.searching = False
            self._show([], "")
            return
        self.searching = True
        fetch = self.fetch
        (ServiceOp(self, lambda: list(fetch(text)), lock=False)
         .success(lambda rows: self._answer(generation, rows))
         .failure(lambda exc: self._failed(generation, exc))
         .run())

    def _answer(self, generation: int, rows: list[Row]) -> None:
        if generation != self._generation:
            return  # a newer search is on its way
        self.searching = False
        self._show(rows, f"{len(rows)}{'+' if len(rows) >= LIMIT else ''} resultado(s)")
        if self._choose_on_answer:
            self._choose_on_answer = False
            self._choose_shown()

    def _failed(self, generation: int, exc: BaseException) -> bool:
        if generation != self._generation:
            return True
        self.searching = False
        self._choose_on_answer = False
        if not isinstance(exc, MotodeskError):
            return False  # unexpected: the op logs it and shows the details
        self._show([], str(exc))
        return True

    def _show(self, rows: Sequence[Row], count: str) -> None:
        self.count.setText(count)
        self.model.set_rows(rows)
        self.table.resizeColumnsToContents()
        if len(rows) == 1:
            self.table.selectRow(0)
        self._update_ok()

    def selected(self) -> Row | None:
        rows = self.table.selectionModel().selectedRows()
        return self.model.row_at(rows[0].row()) if rows else None

    def _update_ok(self) -> None:
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(self.selected() is not None)

    def choose(self) -> None:
        row = self.selected()
        if row is None:
            return
        self.chosen = row
        self.accept()


def people_picker(ctx: AppContext, title: str, parent: QWidget | None = None) -> PickerDialog[PersonHit]:
    return PickerDialog(title, "Nome, CPF, placa ou número da permissão", PERSON_COLUMNS,
                        lambda text: search.search_people(ctx, text, limit=LIMIT).hits, parent)


def permit_picker(ctx: AppContext, title: str, parent: QWidget | None = None) -> PickerDialog[PermitRow]:
    """Permits in force only: the holders who may take a place or join an organisation."""
    return PickerDialog(title, "Nome, CPF, placa ou número (MT-0007/2026)", PERMIT_COLUMNS,
                        lambda text: permits.list_permits(ctx, state_filter="in_force", search=text, limit=LIMIT),
                        parent)


def pick(dialog: PickerDialog[Row]) -> Row | None:
    """Run the picker; the chosen row or None.  Tests replace this function."""
    return dialog_answer(dialog, lambda d: d.chosen)

