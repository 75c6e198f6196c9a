"""Small widgets every screen uses: an optional pt_BR date field, field error marks, verdict lists."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from PySide6.QtCore import QDate, Qt, Signal
from PySide6.QtGui import QColor, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDateEdit,
    QDialog,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QTableView,
    QWidget,
)

from motodesk.rules.common import Status, Verdict

EMPTY_DATE = QDate(1900, 1, 1)
ERROR_STYLE = "border: 1px solid #c62828; background: #fff3f3;"

STATUS_COLOURS = {Status.MET: "#2e7d32", Status.NOT_MET: "#c62828", Status.PENDING: "#ef6c00"}
STATUS_SYMBOLS = {Status.MET: "✔", Status.NOT_MET: "✘", Status.PENDING: "…"}


class DateField(QDateEdit):
    """A date typed as dd/MM/aaaa with a calendar popup, which may also be left empty."""

    valueChanged = Signal()  # noqa: N815

    def __init__(self, parent: QWidget | None = None, *, optional: bool = True) -> None:
        super().__init__(parent)
        self.setDisplayFormat("dd/MM/yyyy")
        self.setCalendarPopup(True)
        self.setMinimumDate(EMPTY_DATE)
        self.setMaximumDate(QDate(2199, 12, 31))
        self.optional = optional
        if optional:
            self.setSpecialValueText(" ")  # shown for the minimum date: an empty field
            self.setDate(EMPTY_DATE)
        else:
            self.setDate(QDate.currentDate())
        self.dateChanged.connect(lambda _d: self.valueChanged.emit())

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        """Typing dd/MM/aaaa works from an empty field too, with or without the slashes.

        QDateEdit edits one section at a time and clamps the day to the month shown: an empty
        field (the minimum date) or today's month would turn "29/02/2024" into "28/02/2024". A
        first digit on an empty or fully selected field starts from 01/01/2000 (31-day month, leap
        year), so every valid date typed in full lands as typed. Separators are skipped: the
        sections advance by themselves.
        """
        text = event.text()
        if text in ("/", ".", "-"):
            event.accept()
            return
        line = self.lineEdit()
        if text.isdigit() and (self.value() is None or (line.hasSelectedText() and line.selectedText() == line.text())):
            self.blockSignals(True)
            self.setDate(QDate(2000, 1, 1))
            self.blockSignals(False)
            self.setCurrentSection(QDateEdit.Section.DaySection)
            self.setSelectedSection(QDateEdit.Section.DaySection)
        super().keyPressEvent(event)

    def focusNextPrevChild(self, next: bool) -> bool:  # noqa: A002, N802
        """Tab leaves the field (QDateEdit would step through day, month and year first)."""
        return QWidget.focusNextPrevChild(self, next)

    def value(self) -> date | None:
        qd = self.date()
        if self.optional and qd == EMPTY_DATE:
            return None
        return date(qd.year(), qd.month(), qd.day())

    def set_value(self, value: date | None) -> None:
        if value is None:
            self.setDate(EMPTY_DATE if self.optional else QDate.currentDate())
        else:
            self.setDate(QDate(value.year, value.month, value.day))

    def clear_value(self) -> None:
        self.set_value(None)


def mark_field(widget: QWidget, message: str | None) -> None:
    """Show (or clear) a field's error: red border and the reason as its tooltip."""
    base = widget.property("_base_style")
    if base is None:
        base = widget.styleSheet()
        widget.setProperty("_base_style", base)
    if message:
        widget.setStyleSheet(ERROR_STYLE)
        widget.setToolTip(message)
        widget.setProperty("error", message)
    else:
        widget.setStyleSheet(base)
        widget.setToolTip("")
        widget.setProperty("error", None)


def field_error(widget: QWidget) -> str | None:
    value = widget.property("error")
    return str(value) if value else None


class VerdictList(QListWidget):
    """The law's answers, one line each: symbol, article and sentence, coloured by status."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setAlternatingRowColors(True)
        self.setSelectionMode(QListWidget.SelectionMode.NoSelection)

    def set_verdicts(self, verdicts: Sequence[Verdict]) -> None:
        self.clear()
        for verdict in verdicts:
            item = QListWidgetItem(f"{STATUS_SYMBOLS[verdict.status]}  {verdict.message}")
            item.setForeground(QColor(STATUS_COLOURS[verdict.status]))
            item.setToolTip(f"{verdict.article} — {verdict.status.label}")
            item.setData(Qt.ItemDataRole.UserRole, verdict)
            self.addItem(item)

    def verdicts(self) -> list[Verdict]:
        return [self.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.count())]


def heading(text: str) -> QLabel:
    label = QLabel(f"<h2>{text}</h2>")
    label.setTextFormat(Qt.TextFormat.RichText)
    return label


def table_view(name: str, *, multi: bool = False, sortable: bool = False) -> QTableView:
    """A read-only table of records: whole rows selected, alternating colours, no row numbers."""
    view = QTableView()
    view.setObjectName(name)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection if multi
                          else QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setAlternatingRowColors(True)
    view.setSortingEnabled(sortable)
    view.verticalHeader().hide()
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    view.horizontalHeader().setStretchLastSection(True)
    view.setWordWrap(False)
    return view


def fit_columns(view: QTableView, max_width: int = 300) -> None:
    """Columns as wide as the loaded rows, never wider than ``max_width`` (the tooltip shows the rest)."""
    view.resizeColumnsToContents()
    header = view.horizontalHeader()
    for column in range(header.count()):
        if header.sectionSize(column) > max_width:
            header.resizeSection(column, max_width)


def run_dialog(dialog: QDialog) -> bool:
    """exec() the dialog: True when accepted. Screens call it through their own module, so tests can
    replace `<screen module>.run_dialog` to drive the dialog."""
    return dialog.exec() == QDialog.DialogCode.Accepted
