"""The infraction catalogue (Art. 15, 30, 31, 32, and the employer's Art. 25), searchable by words of the law
and by article."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Signal
from PySide6.QtWidgets import (
    QDialog,
    QHeaderView,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from motodesk.rules.infractions import ALL_INFRACTIONS, Infraction, find_infractions
from motodesk.ui.listpage import fit_to_screen
from motodesk.ui.tablemodel import Column, RowTableModel
from motodesk.ui.widgets import ok_cancel_buttons, rows_table

CATALOGUE_COLUMNS: list[Column[Infraction]] = [
    Column("article", "Enquadramento", lambda i: i.article),
    Column("severity", "Natureza", lambda i: "Fixada em lei" if i.penalty_fixed_by_law else i.severity.label),
    Column("text", "Infração", lambda i: i.text, tooltip=lambda i: i.text),
]


def describe_infraction(item: Infraction) -> str:
    """One line for the chosen item: article, nature and what the law fixes, if anything."""
    if item.fixed_fine_ufm is not None:
        nature = f"multa de {item.fixed_fine_ufm.normalize()} UFM" + (
            " e apreensão do veículo" if item.vehicle_seizure else "")
    elif item.fixed_penalty is not None:
        nature = item.fixed_penalty.label.lower()
    else:
        nature = f"{item.severity.label} ({item.severity.article})"
    return f"{item.article} — {item.text} — {nature}"


class InfractionPicker(QWidget):
    """A search box over the catalogue and the matching items; ``chosen`` on double click or Enter."""

    chosen = Signal(object)
    selectionChanged = Signal(object)  # noqa: N815 - the chosen item, or None

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.search = QLineEdit()
        self.search.setObjectName("infraction_search")
        self.search.setPlaceholderText("Buscar por palavras ou artigo: troco, 30.2.VI, “Art. 31, Grupo 3”…")
        self.search.setClearButtonEnabled(True)
        self.model: RowTableModel[Infraction] = RowTableModel(CATALOGUE_COLUMNS, ALL_INFRACTIONS)
        self.view = rows_table("infraction_list", self.model)
        self.view.setAlternatingRowColors(True)
        self.view.setWordWrap(True)
        self.view.verticalHeader().hide()
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.count = QLabel()
        self.count.setObjectName("infraction_count")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.search)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.count)
        self.search.textChanged.connect(self.filter)
        self.search.returnPressed.connect(self._choose_first)
        self.view.doubleClicked.connect(self._choose)
        self.view.selectionModel().selectionChanged.connect(lambda *_: self.selectionChanged.emit(self.current()))
        self.filter("")

    def filter(self, text: str) -> None:
        before = self.current()
        items = find_infractions(text, ALL_INFRACTIONS)
        self.model.set_rows(items)
        self.count.setText(f"{len(items)} de {len(ALL_INFRACTIONS)} infrações do catálogo" if text.strip()
                           else f"{len(ALL_INFRACTIONS)} infrações no catálogo")
        if before is not None and before in items:
            self.select(before.code)
        elif len(items) == 1:
            self.view.selectRow(0)
        self.selectionChanged.emit(self.current())

    def items(self) -> list[Infraction]:
        return self.model.rows()

    def current(self) -> Infraction | None:
        rows = self.view.selectionModel().selectedRows()
        return self.model.row_at(rows[0].row()) if rows else None

    def select(self, code: str) -> bool:
        for row, item in enumerate(self.model.rows()):
            if item.code == code:
                self.view.selectRow(row)
                return True
        return False

    def _choose(self, index: QModelIndex) -> None:
        if index.isValid():
            self.chosen.emit(self.model.row_at(index.row()))

    def _choose_first(self) -> None:
        item = self.current() or (self.model.row_at(0) if self.model.rowCount() else None)
        if item is not None:
            self.select(item.code)
            self.chosen.emit(item)


class InfractionPickerDialog(QDialog):
    """The picker on its own, for choosing an item outside the notice form."""

    def __init__(self, parent: QWidget | None = None, query: str = "") -> None:
        super().__init__(parent)
        self.setWindowTitle("Catálogo de infrações (Arts. 15, 25, 30, 31 e 32)")
        fit_to_screen(self, 820, 520)
        self.infraction: Infraction | None = None
        self.picker = InfractionPicker(self)
        buttons, _ok = ok_cancel_buttons(self, "&Escolher", self._accept)
        self.picker.chosen.connect(lambda _item: self._accept())
        layout = QVBoxLayout(self)
        layout.addWidget(self.picker, 1)
        layout.addWidget(buttons)
        if query:
            self.picker.search.setText(query)

    def _accept(self) -> None:
        self.infraction = self.picker.current()
        if self.infraction is not None:
            self.accept()


__all__ = ["CATALOGUE_COLUMNS", "InfractionPicker", "InfractionPickerDialog", "describe_infraction"]
