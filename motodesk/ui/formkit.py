"""Small declarative pieces for hand-laid forms: a widget made and named in one call, and rows,
columns and form layouts declared as a list of what they hold.

A form built with them reads as its layout (``row(self.plate, labelled("&Modelo", self.model),
self.model)``) and keeps the tab order of the order in which things are declared: Qt follows the order
in which widgets get their parent, which is the order the layouts are filled in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from PySide6.QtCore import QRegularExpression, Qt
from PySide6.QtGui import QRegularExpressionValidator
from PySide6.QtWidgets import (
    QBoxLayout,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

W = TypeVar("W", bound=QWidget)

#: What a row or column holds: a widget, a layout, a (widget or layout, stretch) pair, or an int (a
#: stretch of that factor).
Item = QWidget | QLayout | int | tuple[QWidget | QLayout, int]


def named(widget: W, name: str) -> W:
    """``widget`` with its object name (what tests and the access-key checks find it by)."""
    widget.setObjectName(name)
    return widget


def wrapped_label(text: str = "", name: str = "") -> QLabel:
    """A label that wraps its text (a note, a reading, a status line), named ``name`` if given."""
    label = QLabel(text)
    if name:
        label.setObjectName(name)
    label.setWordWrap(True)
    return label


def digits_only(max_len: int) -> QRegularExpressionValidator:
    return QRegularExpressionValidator(QRegularExpression(rf"\d{{0,{max_len}}}"))


E = TypeVar("E", QLineEdit, QPlainTextEdit)


def _with_placeholder(edit: E, name: str, placeholder: str) -> E:
    """``edit`` named ``name``, showing ``placeholder`` (if any) while empty."""
    edit.setObjectName(name)
    if placeholder:
        edit.setPlaceholderText(placeholder)
    return edit


def line_edit(name: str, placeholder: str = "", max_len: int = 0, *, digits: int = 0,
              edit: QLineEdit | None = None) -> QLineEdit:
    """A named line edit (``edit`` if given, e.g. a FormattedLineEdit), with its placeholder, its
    maximum length and, with ``digits``, a validator that takes only that many digits."""
    edit = _with_placeholder(edit if edit is not None else QLineEdit(), name, placeholder)
    if max_len:
        edit.setMaxLength(max_len)
    if digits:
        edit.setValidator(digits_only(digits))
    return edit


def text_box(name: str, placeholder: str = "", *, height: int = 0, max_height: int = 0,
             tab_moves: bool = False) -> QPlainTextEdit:
    """A named box of free text (a reason, notes) ``height`` pixels high (or at most ``max_height``);
    with ``tab_moves``, Tab goes on to the next field instead of typing a tab."""
    box = _with_placeholder(QPlainTextEdit(), name, placeholder)
    if height:
        box.setFixedHeight(height)
    if max_height:
        box.setMaximumHeight(max_height)
    if tab_moves:
        box.setTabChangesFocus(True)
    return box


def choice_combo(name: str, choices: Iterable[tuple[str, Any]]) -> QComboBox:
    """A named combo box of ``(label, value)`` choices."""
    combo = QComboBox()
    combo.setObjectName(name)
    for label, value in choices:
        combo.addItem(label, value)
    return combo


def push_button(text: str, name: str = "", slot: Callable[[], object] | None = None, *,
                auto_default: bool | None = None, default: bool = False, visible: bool = True,
                tooltip: str = "") -> QPushButton:
    """A named button running ``slot`` (``default``: the one Enter presses); ``visible=False`` hides it
    before it has a parent (showing a parentless widget would open it as a window of its own for a moment)."""
    button = QPushButton(text)
    if name:
        button.setObjectName(name)
    if default:
        button.setDefault(True)
    if auto_default is not None:
        button.setAutoDefault(auto_default)
    if tooltip:
        button.setToolTip(tooltip)
    if slot is not None:
        button.clicked.connect(lambda _checked=False: slot())
    if not visible:
        button.hide()
    return button


def buddy(text: str, widget: QWidget) -> QLabel:
    """A label whose access key (the & letter) takes the focus to ``widget``."""
    label = QLabel(text)
    label.setBuddy(widget)
    return label


def captioned(*pairs: tuple[str, QWidget]) -> list[QWidget]:
    """Each field after its caption (a :func:`buddy` label), in one flat list for a row of filters:
    ``row(*captioned(("&De:", self.start), ("&Até:", self.end)), self.run_button, 1)``."""
    return [widget for text, field in pairs for widget in (buddy(text, field), field)]


def fill(layout: QBoxLayout, items: Iterable[Item]) -> QBoxLayout:
    for item in items:
        stretch = 0
        if isinstance(item, tuple):
            item, stretch = item
        if isinstance(item, int):
            layout.addStretch(item)
        elif isinstance(item, QLayout):
            layout.addLayout(item, stretch)
        else:
            layout.addWidget(item, stretch)
    return layout


L = TypeVar("L", bound=QLayout)


def _new_layout(kind: type[L], parent: QWidget | None, margins: int | None) -> L:
    """A layout of ``kind``, set on ``parent`` if given, with ``margins`` all round if given."""
    layout = kind(parent) if parent is not None else kind()
    if margins is not None:
        layout.setContentsMargins(margins, margins, margins, margins)
    return layout


def row(*items: Item, parent: QWidget | None = None, margins: int | None = None) -> QHBoxLayout:
    """A horizontal layout of ``items`` (see ``Item``), set on ``parent`` if given."""
    layout = _new_layout(QHBoxLayout, parent, margins)
    fill(layout, items)
    return layout


def column(*items: Item, parent: QWidget | None = None, margins: int | None = None) -> QVBoxLayout:
    """A vertical layout of ``items`` (see ``Item``), set on ``parent`` if given."""
    layout = _new_layout(QVBoxLayout, parent, margins)
    fill(layout, items)
    return layout


#: A form's row: (label, field), where the label is a text (Qt makes its buddy label) or a QLabel and
#: the field a widget or a layout; or a lone widget spanning the row.
FormRow = tuple[str | QLabel, QWidget | QLayout] | QWidget


def form(*rows: FormRow, parent: QWidget | None = None, margins: int | None = None) -> QFormLayout:
    """A form layout of ``rows`` (see ``FormRow``), set on ``parent`` if given."""
    layout = _new_layout(QFormLayout, parent, margins)
    for entry in rows:
        if isinstance(entry, tuple):
            label, field = entry
            layout.addRow(label, field)  # type: ignore[arg-type]  # Qt's overloads take each pairing apart
        else:
            layout.addRow(entry)
    return layout


def host(layout: QLayout, name: str = "") -> QWidget:
    """A plain widget holding ``layout`` (a section that is shown or hidden as one)."""
    widget = QWidget()
    if name:
        widget.setObjectName(name)
    widget.setLayout(layout)
    return widget


def scroll_area(name: str, content: QWidget) -> QScrollArea:
    """``content`` in a frameless area that scrolls up and down only (a form on a small screen)."""
    scroll = QScrollArea()
    scroll.setObjectName(name)
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QScrollArea.Shape.NoFrame)
    scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    scroll.setWidget(content)
    return scroll
