"""Accessible names and descriptions for every input, by construction (Lei 13.146/2015, eMAG).

A screen reader announces an input by its accessible name and, on request, its description. Screens
here label their inputs with a buddy QLabel or a QFormLayout row and explain them with a tool tip, so
one pass over a window can give every input its name (the label's text, without the access-key '&'
and the trailing colon) and description (its tool tip or status tip), instead of each screen setting
them by hand. `AccessibilityFilter` runs that pass whenever a window, a dialog or a page of a stacked
widget (lazily built pages, tabs) is shown; a name a screen set itself is never overwritten.
"""

from __future__ import annotations

import logging
import re

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QBoxLayout,
    QCalendarWidget,
    QComboBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHeaderView,
    QLabel,
    QLayout,
    QLineEdit,
    QMainWindow,
    QPlainTextEdit,
    QSlider,
    QStackedWidget,
    QTableWidget,
    QTabWidget,
    QTextEdit,
    QWidget,
)

log = logging.getLogger(__name__)

INPUT_TYPES: tuple[type[QWidget], ...] = (
    QLineEdit, QComboBox, QAbstractSpinBox, QTextEdit, QPlainTextEdit, QAbstractItemView, QAbstractButton, QSlider,
)

_TAG = re.compile(r"<[^>]+>")


def clean_label(text: str) -> str:
    """A label's text as a name: no rich-text tags, no access-key '&' ('&&' stays '&'), no trailing ':'."""
    text = _TAG.sub("", text or "")
    text = text.replace("&&", "\0").replace("&", "").replace("\0", "&")
    text = " ".join(text.split())
    return text.rstrip(" :*").strip()


def is_input(widget: QWidget) -> bool:
    """An input a person operates, excluding the parts Qt builds inside another input (the line edit
    of a spin box or editable combo box, the calendar's table, a combo box's list)."""
    if not isinstance(widget, INPUT_TYPES) or isinstance(widget, QHeaderView):
        return False
    parent = widget.parentWidget()
    if isinstance(parent, QAbstractItemView):  # the table's corner button; a cell's input is in the viewport
        return False
    while parent is not None and not parent.isWindow():
        if isinstance(parent, (QComboBox, QAbstractSpinBox, QCalendarWidget, QLineEdit)):
            return False
        parent = parent.parentWidget()
    if isinstance(widget, QAbstractButton):
        # buttons name themselves by their text; only icon-only ones need a name from elsewhere
        return not clean_label(widget.text())
    return True


def _first_input(item_layout: QLayout) -> QWidget | None:
    for i in range(item_layout.count()):
        item = item_layout.itemAt(i)
        widget = item.widget() if item is not None else None
        if widget is not None and is_input(widget):
            return widget
        inner = item.layout() if item is not None else None
        if inner is not None:
            found = _first_input(inner)
            if found is not None:
                return found
    return None


def _label_text(widget: QWidget | None) -> str:
    if isinstance(widget, QLabel):
        return clean_label(widget.text())
    return ""


def _labels(root: QWidget) -> dict[int, tuple[QWidget, str]]:
    """Label text by id of the input it labels: buddies, form rows, then a label just before an input
    in a box or grid layout."""
    found: dict[int, tuple[QWidget, str]] = {}  # the widget is held so that no id is reused meanwhile
    def note(widget: QWidget, text: str) -> None:
        found.setdefault(id(widget), (widget, text))

    for label in root.findChildren(QLabel):
        buddy = label.buddy()
        text = clean_label(label.text())
        if buddy is not None and text:
            note(buddy, text)
    for layout in root.findChildren(QLayout):
        if isinstance(layout, QFormLayout):
            for row in range(layout.rowCount()):
                label_item = layout.itemAt(row, QFormLayout.ItemRole.LabelRole)
                field_item = layout.itemAt(row, QFormLayout.ItemRole.FieldRole)
                text = _label_text(label_item.widget() if label_item is not None else None)
                if not text or field_item is None:
                    continue
                field = field_item.widget()
                if field is not None and not is_input(field):
                    field = None
                inner = field_item.layout()
                if field is None and inner is not None:
                    field = _first_input(inner)
                if field is not None:
                    note(field, text)
        elif isinstance(layout, QBoxLayout):
            previous = ""
            for i in range(layout.count()):
                item = layout.itemAt(i)
                widget = item.widget() if item is not None else None
                if widget is None:
                    previous = ""
                    continue
                if isinstance(widget, QLabel):
                    previous = _label_text(widget)
                    continue
                if previous and is_input(widget):
                    note(widget, previous)
                previous = ""
        elif isinstance(layout, QGridLayout):
            for i in range(layout.count()):
                position: tuple[int, int, int, int] = layout.getItemPosition(i)  # type: ignore[assignment]
                row, column = position[0], position[1]
                item = layout.itemAt(i)
                widget = item.widget() if item is not None else None
                if widget is None or not is_input(widget) or column == 0:
                    continue
                left = layout.itemAtPosition(row, column - 1)
                text = _label_text(left.widget() if left is not None else None)
                if text:
                    note(widget, text)
    return found


def _own_description(widget: QWidget) -> str:
    for text in (widget.toolTip(), widget.statusTip(), widget.whatsThis()):
        cleaned = " ".join(_TAG.sub(" ", text or "").split())
        if cleaned:
            return cleaned
    return ""


def _description(widget: QWidget) -> str:
    """Its own tool tip; for one of a set of check boxes or radio buttons (named by their text), the tool
    tip of the set's container, which explains them all (a setting's article)."""
    own = _own_description(widget)
    parent = widget.parentWidget()
    if own or not isinstance(widget, QAbstractButton) or parent is None or parent.isWindow():
        return own
    return _own_description(parent)


def _fallback_name(widget: QWidget) -> str:
    if isinstance(widget, QLineEdit) and widget.placeholderText():
        return clean_label(widget.placeholderText())
    if isinstance(widget, (QTextEdit, QPlainTextEdit)) and widget.placeholderText():
        return clean_label(widget.placeholderText())
    line = widget.lineEdit() if isinstance(widget, QComboBox) and widget.isEditable() else None
    if line is not None and line.placeholderText():
        return clean_label(line.placeholderText())
    parent = widget.parentWidget()
    if isinstance(parent, QGroupBox) and parent.title():
        inputs = [w for w in parent.findChildren(QWidget) if is_input(w)]
        if inputs == [widget]:
            return clean_label(parent.title())
    if isinstance(widget, QAbstractItemView):
        return _context_title(widget)
    cell = _cell_name(widget)
    if cell:
        return cell
    return clean_label(widget.toolTip()) if widget.toolTip() and len(widget.toolTip()) <= 60 else ""


def _cell_name(widget: QWidget) -> str:
    """An input placed in a table cell (setCellWidget): its column's header and what the row is about
    (the first column's text), e.g. "Usar a gravada: Nome completo"."""
    viewport = widget.parentWidget()
    table = viewport.parentWidget() if viewport is not None else None
    if not isinstance(table, QTableWidget) or table.viewport() is not viewport:
        return ""
    for row in range(table.rowCount()):
        for column in range(table.columnCount()):
            if table.cellWidget(row, column) is not widget:
                continue
            header = table.horizontalHeaderItem(column)
            first = table.item(row, 0) if column != 0 else None
            parts = [clean_label(header.text()) if header is not None else "", first.text() if first is not None else ""]
            return ": ".join(p for p in parts if p)
    return ""


def _context_title(widget: QWidget) -> str:
    """What a list or table is about: its group box, its tab, the heading of the page it is on, or the
    title of its dialog."""
    child: QWidget = widget
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QGroupBox) and parent.title():
            return clean_label(parent.title())
        if isinstance(parent, QTabWidget):
            index = parent.indexOf(child)
            if index >= 0 and parent.tabText(index):
                return clean_label(parent.tabText(index))
        for label in parent.findChildren(QLabel, options=Qt.FindChildOption.FindDirectChildrenOnly):
            if label.textFormat() == Qt.TextFormat.RichText and "<h" in label.text() and label.isVisibleTo(parent):
                return clean_label(label.text())
        if parent.isWindow():
            return clean_label(parent.windowTitle()) if not isinstance(parent, QMainWindow) else ""
        child, parent = parent, parent.parentWidget()
    return ""


def name_inputs(root: QWidget) -> int:
    """Give every input under `root` (and `root` itself) that lacks one an accessible name and
    description. Returns how many names were set."""
    labels = _labels(root)  # a page's labels are on the page: the pass stays local to what is shown
    named = 0
    widgets = [root, *root.findChildren(QWidget)]
    for widget in widgets:
        if not is_input(widget):
            if isinstance(widget, QAbstractButton) and widget.parentWidget() is not None:
                describe(widget)  # a named check box of a set: the set's explanation
            continue
        if not widget.accessibleName():
            labelled = labels.get(id(widget))
            name = (labelled[1] if labelled is not None and labelled[0] is widget else "") or _fallback_name(widget)
            if name:
                widget.setAccessibleName(name)
                named += 1
        describe(widget)
    return named


_AUTO = "_motodesk_auto_description"


def describe(widget: QWidget) -> None:
    """The tool tip (or status tip) as the accessible description, unless a screen set its own; kept
    up to date when the tool tip changes."""
    current = widget.accessibleDescription()
    if current and current != widget.property(_AUTO):
        return
    description = _description(widget)
    if description == widget.accessibleName():
        description = ""
    if description != current:
        widget.setAccessibleDescription(description)
    widget.setProperty(_AUTO, description)


class AccessibilityFilter(QObject):
    """Application-wide: names the inputs of each window, dialog and stacked page when it is shown,
    and those a screen adds later (a form filled once its data is read): an unnamed input being shown
    schedules one more pass over its window, after the event loop has built the rest of the form."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pending: list[QWidget] = []

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        kind = event.type()
        if kind == QEvent.Type.ToolTipChange and isinstance(watched, QWidget) and is_input(watched):
            describe(watched)
        elif kind == QEvent.Type.Show and isinstance(watched, QWidget):
            if watched.isWindow() or isinstance(watched.parentWidget(), QStackedWidget):
                self._pass(watched)
            elif not watched.accessibleName() and is_input(watched):
                self._later(watched.window())
        return False

    def _pass(self, widget: QWidget) -> None:
        try:
            name_inputs(widget)
        except RuntimeError:  # a widget deleted while being shown
            log.debug("accessibility pass skipped", exc_info=True)

    def _later(self, window: QWidget) -> None:
        if any(w is window for w in self._pending):
            return
        self._pending.append(window)
        if len(self._pending) == 1:
            QTimer.singleShot(0, self._run_pending)

    def _run_pending(self) -> None:
        pending, self._pending = self._pending, []
        for window in pending:
            self._pass(window)


def install(app: QApplication) -> None:
    """Install the filter once per application."""
    if getattr(app, "_motodesk_accessibility", None) is None:
        accessibility = AccessibilityFilter(app)
        app.installEventFilter(accessibility)
        app._motodesk_accessibility = accessibility  # type: ignore[attr-defined]
