"""Small widgets every screen uses: a pt_BR date field that never changes a date, inputs that format as
typed, field error marks, verdict lists."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from datetime import date
from typing import TypeVar

from PySide6.QtCore import QAbstractItemModel, QDate, QLocale, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFocusEvent, QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QCalendarWidget,
    QComboBox,
    QDateTimeEdit,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QStyle,
    QTableView,
    QTabWidget,
    QTextEdit,
    QWidget,
)

from motodesk.clock import local_today
from motodesk.rules.common import Status, Verdict
from motodesk.rules.text import parse_day

ERROR_STYLE = "border: 1px solid #c62828; background: #fff3f3;"
MESSAGE_STYLE = "color: #b00020"  # a dialog's message line: why it refused
NOTE_STYLE = "color: #555"  # a hint under a form
PASSWORDS_DIFFER = "As senhas digitadas não conferem."

D = TypeVar("D", bound=QDialog)
T = TypeVar("T")

STATUS_COLOURS = {Status.MET: "#2e7d32", Status.NOT_MET: "#c62828", Status.PENDING: "#ef6c00"}
STATUS_SYMBOLS = {Status.MET: "✔", Status.NOT_MET: "✘", Status.PENDING: "…"}


DATE_MASK = "00/00/0000;_"
MIN_DATE = date(1900, 1, 1)
MAX_DATE = date(2199, 12, 31)


def after(owner: QObject, msec: int, slot: Callable[[], object]) -> QTimer:
    """Call ``slot`` once, ``msec`` from now, unless ``owner`` is deleted first.

    The one way to wait a while before doing something. Never ``QTimer.singleShot(msec, callable)``
    with ``msec > 0``: PySide makes a parentless Python timer for it that deletes itself once it
    fired, and destroying that wrapper crashed the application now and then (a SIGSEGV in
    ``Shiboken::BindingManager::releaseWrapper`` on the timer's DeferredDelete, one run in six of the
    access-key walk). This timer is ``owner``'s child and goes with it. ``singleShot(0, …)`` is safe
    (no timer object is made) and stays the way to run something once the event loop is back.
    """
    timer = one_shot_timer(owner, msec, slot)
    timer.start()
    return timer


def one_shot_timer(owner: QObject, msec: int, slot: Callable[[], object]) -> QTimer:
    """A timer, ``owner``'s child, that calls ``slot`` once ``msec`` after each ``start()`` (started
    again, it waits again: the pause after the last keystroke, a recheck gathered into one)."""
    timer = QTimer(owner)
    timer.setSingleShot(True)
    timer.setInterval(msec)
    timer.timeout.connect(slot)
    return timer


@functools.lru_cache(maxsize=512)
def parse_typed_date(text: str) -> tuple[date | None, str | None]:
    """``"31/02/2020"`` → ``(None, "Data inexistente: …")``; ``"  /  /    "`` → ``(None, None)``.

    The date a clerk typed, or why it is not one — never a nearby date instead. A function of the
    text alone, remembered: a dossier reads its 14 date fields several times a keystroke (issue 28).
    """
    digits = "".join(ch for ch in text if ch.isdigit())
    if not digits:
        return None, None
    if len(digits) < 8:
        return None, "Data incompleta: use dd/mm/aaaa."
    day, month = int(digits[:2]), int(digits[2:4])
    shown = f"{digits[:2]}/{digits[2:4]}/{digits[4:8]}"
    if not 1 <= month <= 12:
        return None, f"Data inexistente: {shown} — o mês vai de 01 a 12."
    try:
        value = parse_day(shown)
    except ValueError:
        return None, f"Data inexistente: {shown} — esse mês não tem dia {day:02d}."
    if not MIN_DATE <= value <= MAX_DATE:
        return None, f"Data fora do intervalo aceito: {shown}."
    return value, None


class _CalendarPopup(QCalendarWidget):
    picked = Signal(QDate)

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setWindowFlags(Qt.WindowType.Popup)
        self.setObjectName("date_popup")
        self.setGridVisible(True)
        self.setLocale(QLocale(QLocale.Language.Portuguese, QLocale.Country.Brazil))
        self.setFirstDayOfWeek(Qt.DayOfWeek.Sunday)
        self.activated.connect(self._pick)
        self.clicked.connect(self._pick)

    def _pick(self, day: QDate) -> None:
        self.picked.emit(day)
        self.close()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self._pick(self.selectedDate())
            return
        if event.key() == Qt.Key.Key_Escape:
            self.close()
            return
        super().keyPressEvent(event)


class DateField(QLineEdit):
    """A date typed as dd/mm/aaaa, which may be left empty; Alt+↓ or F4 opens a calendar.

    The field never changes what was typed: an impossible date (31/02, 00/13) or an incomplete one
    is refused with a pt_BR message on the field (:func:`mark_field`), and :meth:`value` is then
    None while :meth:`problem` says why. Typing into a filled field replaces it (the whole date is
    selected when the field takes focus); slashes are optional. The calendar opens at the field's
    date, or at today for an empty field.
    """

    valueChanged = Signal()  # noqa: N815

    def __init__(self, parent: QWidget | None = None, *, optional: bool = True) -> None:
        super().__init__(parent)
        self.optional = optional
        self.setInputMask(DATE_MASK)
        self.setPlaceholderText("dd/mm/aaaa")
        self.setMaximumWidth(150)
        self.setToolTip("dd/mm/aaaa — Alt+↓ ou F4 abre o calendário")
        self._popup: _CalendarPopup | None = None
        self.minimum: date | None = None
        self.maximum: date | None = None
        self._last: tuple[date | None, str | None] = (None, None)
        self._fresh = False  # holds a date it was given, not yet typed into
        self._calendar = self.addAction(self.style().standardIcon(QStyle.StandardPixmap.SP_FileDialogDetailedView),
                                        QLineEdit.ActionPosition.TrailingPosition)
        self._calendar.setToolTip("Abrir o calendário (Alt+↓ ou F4)")
        self._calendar.triggered.connect(self.open_calendar)
        if not optional:
            self.set_value(local_today())
        self.textChanged.connect(self._text_changed)
        self.editingFinished.connect(self._check_complete)

    # -- values -----------------------------------------------------------------------------
    def value(self) -> date | None:
        return parse_typed_date(self.text())[0]

    def problem(self) -> str | None:
        value, problem = parse_typed_date(self.text())
        if problem is None and value is None and not self.optional:
            return "Informe a data (dd/mm/aaaa)."
        if value is not None and self.minimum is not None and value < self.minimum:
            return f"A data não pode ser anterior a {self.minimum:%d/%m/%Y}."
        if value is not None and self.maximum is not None and value > self.maximum:
            return f"A data não pode ser posterior a {self.maximum:%d/%m/%Y}."
        return problem

    def setMinimumDate(self, day: QDate | date) -> None:  # noqa: N802 - QDateEdit's name, kept for callers
        self.minimum = day if isinstance(day, date) else date(day.year(), day.month(), day.day())

    def setMaximumDate(self, day: QDate | date) -> None:  # noqa: N802
        self.maximum = day if isinstance(day, date) else date(day.year(), day.month(), day.day())

    def set_value(self, value: date | None) -> None:
        if value is None and not self.optional:
            value = local_today()
        self.setText("" if value is None else value.strftime("%d/%m/%Y"))
        self.setCursorPosition(0)
        self._fresh = value is not None  # the next digit typed replaces it (see _replaces_on_typing)

    def clear_value(self) -> None:
        self.set_value(None)

    def _text_changed(self, text: str) -> None:
        parsed = parse_typed_date(text)
        digits = sum(ch.isdigit() for ch in text)
        # An impossible complete date is refused at once; an incomplete one when the field is left.
        if digits in (0, 8) and parsed[1] != field_error(self):
            mark_field(self, parsed[1])
        if parsed != self._last:
            self._last = parsed
            self.valueChanged.emit()

    def _check_complete(self) -> None:
        mark_field(self, self.problem())

    # -- keyboard ----------------------------------------------------------------------------
    def focusInEvent(self, event: QFocusEvent) -> None:  # noqa: N802
        super().focusInEvent(event)
        if event.reason() in (Qt.FocusReason.TabFocusReason, Qt.FocusReason.BacktabFocusReason,
                              Qt.FocusReason.ShortcutFocusReason, Qt.FocusReason.OtherFocusReason):
            QTimer.singleShot(0, self, self._select_for_typing)  # not called once the field is gone

    def _select_for_typing(self) -> None:
        if self.hasFocus():
            if any(ch.isdigit() for ch in self.text()):
                self.selectAll()
            else:
                self.setCursorPosition(0)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        key, mods = event.key(), event.modifiers()
        if key == Qt.Key.Key_F4 or (key == Qt.Key.Key_Down and mods & Qt.KeyboardModifier.AltModifier):
            self.open_calendar()
            return
        if event.text() in ("/", ".", "-"):
            event.accept()  # the mask puts the slashes itself
            return
        if event.text().isdigit() and self._replaces_on_typing():
            self.setText("")
            self.setCursorPosition(0)
        if event.text() or key in (Qt.Key.Key_Backspace, Qt.Key.Key_Delete, Qt.Key.Key_Left, Qt.Key.Key_Right):
            self._fresh = False
        super().keyPressEvent(event)

    def _replaces_on_typing(self) -> bool:
        """A digit typed now starts a new date: the whole date is selected, or the field shows a date it
        was given (loaded from the database, picked in the calendar) and nothing was typed into it since
        — whether or not it had the focus first, and wherever a click left the cursor — or the cursor
        is at the end of a complete date, where the mask would take nothing (issue #30, item 5)."""
        if not any(ch.isdigit() for ch in self.text()):
            return False
        if self.hasSelectedText() and self.selectedText() == self.text():
            return True
        if self._fresh:
            return True
        complete = sum(ch.isdigit() for ch in self.text()) == 8
        return complete and not self.hasSelectedText() and self.cursorPosition() >= len(self.text())

    def open_calendar(self) -> None:
        if self.isReadOnly() or not self.isEnabled():
            return
        popup = _CalendarPopup(self)
        shown = self.value() or local_today()
        popup.setSelectedDate(QDate(shown.year, shown.month, shown.day))
        popup.picked.connect(lambda day: self.set_value(date(day.year(), day.month(), day.day())))
        popup.adjustSize()
        where = self.mapToGlobal(self.rect().bottomLeft())
        screen = self.screen().availableGeometry() if self.screen() else None
        if screen is not None:
            where.setX(min(where.x(), screen.right() - popup.width()))
            if where.y() + popup.height() > screen.bottom():
                where.setY(self.mapToGlobal(self.rect().topLeft()).y() - popup.height())
        popup.move(where)
        self._popup = popup
        popup.show()
        popup.setFocus(Qt.FocusReason.PopupFocusReason)


def date_problems(root: QWidget) -> dict[QWidget, str]:
    """Every date field under ``root`` whose text is not a date (visible, editable ones)."""
    found: dict[QWidget, str] = {}
    fields = [root] if isinstance(root, DateField) else root.findChildren(DateField)
    for field in fields:
        if field.isReadOnly() or not field.isEnabled():
            continue
        problem = field.problem()
        if problem:
            found[field] = problem
    return found


# -- inputs that format as they are typed ---------------------------------------------------------
def _group(digits: str, pattern: str) -> str:
    """Place ``digits`` into ``pattern`` ("000.000.000-00"), stopping where the digits end."""
    out: list[str] = []
    it = iter(digits)
    pending = ""
    for ch in pattern:
        if ch == "0":
            nxt = next(it, None)
            if nxt is None:
                break
            out.append(pending + nxt)
            pending = ""
        else:
            pending += ch
    return "".join(out)


def format_partial(kind: str, text: str) -> str:
    """The text as it should look while being typed (CPF, CNPJ, phone, CEP, NIT, título, plate)."""
    if kind == "plate":
        clean = "".join(ch for ch in text.upper() if ch.isalnum())[:7]
        if len(clean) >= 5 and clean[:3].isalpha() and clean[3:].isdigit():
            return f"{clean[:3]}-{clean[3:]}"  # the old grey plate keeps its hyphen
        return clean
    digits = "".join(ch for ch in text if ch.isdigit())
    if kind == "cpf":
        return _group(digits[:11], "000.000.000-00")
    if kind == "cnpj":
        return _group(digits[:14], "00.000.000/0000-00")
    if kind == "cep":
        return _group(digits[:8], "00000-000")
    if kind == "nit":  # NIT/PIS/PASEP, as the INSS prints it
        return _group(digits[:11], "000.0000.000-0")
    if kind == "titulo":  # título de eleitor, as the TSE prints it
        return _group(digits[:12], "0000 0000 0000")
    if kind == "phone":
        digits = digits[:11]
        if len(digits) <= 10:
            return _group(digits, "(00) 0000-0000")
        return _group(digits, "(00) 00000-0000")
    raise ValueError(kind)


class FormattedLineEdit(QLineEdit):
    """A line edit that formats a CPF, CNPJ, phone, CEP, NIT, título or plate while it is typed (or pasted)."""

    PLACEHOLDERS = {"cpf": "000.000.000-00", "cnpj": "00.000.000/0000-00", "cep": "00000-000",
                    "phone": "(34) 99999-9999", "plate": "ABC1D23 ou ABC-1234", "nit": "000.0000.000-0",
                    "titulo": "0000 0000 0000"}

    def __init__(self, kind: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kind = kind
        self.setPlaceholderText(self.PLACEHOLDERS[kind])
        self.textEdited.connect(self._reformat)

    def _reformat(self, text: str) -> None:
        formatted = format_partial(self.kind, text)
        if formatted == text:
            return
        # keep the cursor after the same number of significant characters
        cursor = self.cursorPosition()
        significant = sum(ch.isalnum() for ch in text[:cursor])
        self.setText(formatted)
        position = len(formatted)
        seen = 0
        for index, ch in enumerate(formatted, start=1):
            seen += ch.isalnum()
            if seen >= significant:
                position = index
                break
        self.setCursorPosition(position if significant else 0)

    def setText(self, text: str | None) -> None:  # noqa: N802 - a loaded value is shown formatted too
        super().setText(format_partial(self.kind, text or "") if text else "")


def mark_field(widget: QWidget, message: str | None, *, until_changed: bool = False) -> None:
    """Show (or clear) a field's error: red border and the reason as its tooltip.

    ``until_changed``: the reason came from outside the field (the service refused the form, or the
    form's check at Salvar), so it goes as soon as the clerk changes the field — a field fixed never
    goes on saying it is wrong. A field's own check (a date typed as 31/02) marks without it and
    keeps its mark while what is typed stays wrong: it is that check's to clear."""
    base = widget.property("_base_style")
    if base is None:
        base = widget.styleSheet()
        widget.setProperty("_base_style", base)
    if message:
        widget.setStyleSheet(error_style(widget))
        widget.setToolTip(message)
        widget.setProperty("error", message)
    else:
        widget.setStyleSheet(base)
        widget.setToolTip("")
        widget.setProperty("error", None)
    widget.setProperty("_clears_on_change", message if message and until_changed else None)
    if message and until_changed:
        _clear_on_change(widget)


def _clear_on_change(widget: QWidget) -> None:
    """Hook ``widget``'s change signal (once per widget) to clear a mark set ``until_changed`` —
    unless the field's own check has meanwhile marked it with a reason of its own."""
    if widget.property("_clear_hooked"):
        return

    def changed(*_args: object) -> None:
        pending = widget.property("_clears_on_change")
        if pending and widget.property("error") == pending:
            mark_field(widget, None)

    signals = []
    if isinstance(widget, QLineEdit):
        signals.append(widget.textEdited)
    elif isinstance(widget, QComboBox):
        signals.append(widget.activated)
        line = widget.lineEdit() if widget.isEditable() else None
        if line is not None:
            signals.append(line.textEdited)
    elif isinstance(widget, (QPlainTextEdit, QTextEdit)):
        signals.append(widget.textChanged)
    elif isinstance(widget, QAbstractButton):
        signals.append(widget.toggled)
    elif isinstance(widget, QDateTimeEdit):
        signals.append(widget.dateTimeChanged)
    elif isinstance(widget, (QSpinBox, QDoubleSpinBox)):
        signals.append(widget.valueChanged)
    for signal in signals:
        signal.connect(changed)
    widget.setProperty("_clear_hooked", bool(signals))


def error_style(widget: QWidget) -> str:
    """The red mark for ``widget``, which keeps the focus mark when the field has the focus (a rule
    without selector on the widget would hide the application's ``:focus`` rule)."""
    qt_class = next((c.__name__ for c in type(widget).__mro__ if c.__module__.startswith("PySide6")), "QWidget")
    return f"{qt_class} {{ {ERROR_STYLE} }} {qt_class}:focus {{ border: 2px solid #1565c0; }}"


def field_error(widget: QWidget) -> str | None:
    value = widget.property("error")
    return str(value) if value else None


def message_line() -> QLabel:
    """A dialog's line for what it refused (object name ``message``)."""
    label = QLabel()
    label.setObjectName("message")
    label.setWordWrap(True)
    label.setStyleSheet(MESSAGE_STYLE)
    return label




def note_line(text: str, name: str = "") -> QLabel:
    """A grey word-wrapped hint under a form or a list, named ``name`` if given."""
    label = QLabel(text)
    if name:
        label.setObjectName(name)
    label.setWordWrap(True)
    label.setStyleSheet(NOTE_STYLE)
    return label


def password_field(name: str) -> QLineEdit:
    edit = QLineEdit()
    edit.setObjectName(name)
    edit.setEchoMode(QLineEdit.EchoMode.Password)
    return edit


def save_cancel_buttons(dialog: QDialog, save: Callable[[], None]) -> tuple[QDialogButtonBox, QPushButton]:
    """"&Salvar" (runs ``save``) and "&Cancelar" (rejects ``dialog``), named ``save`` and ``cancel``."""
    buttons = QDialogButtonBox()
    save_button = buttons.addButton("&Salvar", QDialogButtonBox.ButtonRole.AcceptRole)
    save_button.setObjectName("save")
    buttons.addButton("&Cancelar", QDialogButtonBox.ButtonRole.RejectRole).setObjectName("cancel")
    buttons.accepted.connect(save)
    buttons.rejected.connect(dialog.reject)
    return buttons, save_button






def ok_cancel_buttons(
    dialog: QDialog,
    ok_text: str | None,
    on_ok: Callable[[], object] | None = None,
    cancel_text: str | None = "&Cancelar",
) -> tuple[QDialogButtonBox, QPushButton]:
    """Qt's standard Ok/Cancel pair (so Enter and Esc behave as in every dialog), Ok renamed ``ok_text``
    and running ``on_ok`` (by default ``dialog.accept``), Cancel renamed ``cancel_text`` and rejecting
    ``dialog``; a text of None keeps Qt's own (translated) one. Returns the box and its Ok button."""
    buttons = QDialogButtonBox()  # buttons set apart: the constructor's overloads load the `Qt` enums
    buttons.setStandardButtons(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
    ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
    if ok_text is not None:
        ok.setText(ok_text)
    if cancel_text is not None:
        buttons.button(QDialogButtonBox.StandardButton.Cancel).setText(cancel_text)
    buttons.accepted.connect(on_ok if on_ok is not None else dialog.accept)
    buttons.rejected.connect(dialog.reject)
    return buttons, ok


def passwords_differ(first: QLineEdit, repeat: QLineEdit, message: QLabel) -> bool:
    """True when a password typed twice differs: said on the repeat field and the message line,
    and the repeat selected to be typed again."""
    if first.text() == repeat.text():
        return False
    mark_field(repeat, PASSWORDS_DIFFER)
    message.setText(PASSWORDS_DIFFER)
    repeat.selectAll()
    repeat.setFocus()
    return True


class VerdictList(QListWidget):
    """The law's answers, one line each: symbol, status word and sentence, coloured by status (the colour
    is never the only signal: the symbol and the word say it too, to a screen reader and a colour-blind clerk)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setAlternatingRowColors(True)
        self.setSelectionMode(QListWidget.SelectionMode.NoSelection)

    def set_verdicts(self, verdicts: Sequence[Verdict]) -> None:
        """Show ``verdicts``; the answers already shown are left alone, a changed one is updated in its line
        (no rebuild or relayout of the whole list: a keystroke in a dossier changes one answer or none)."""
        shown = self.verdicts()
        if [v.rule_id for v in verdicts] != [v.rule_id for v in shown]:
            self.clear()
            shown = []
        for i, verdict in enumerate(verdicts):
            if i < len(shown) and shown[i] == verdict:
                continue  # the same answer: its line is left alone (a changed one is redrawn in place)
            item = self.item(i) if i < len(shown) else QListWidgetItem()
            item.setText(f"{STATUS_SYMBOLS[verdict.status]}  {verdict.status.label}: {verdict.message}")
            item.setData(Qt.ItemDataRole.AccessibleTextRole, f"{verdict.status.label}: {verdict.message}")
            item.setForeground(QColor(STATUS_COLOURS[verdict.status]))
            item.setToolTip(f"{verdict.article} — {verdict.status.label}")
            item.setData(Qt.ItemDataRole.UserRole, verdict)
            if i >= len(shown):
                self.addItem(item)

    def verdicts(self) -> list[Verdict]:
        return [self.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.count())]


def heading(text: str) -> QLabel:
    label = QLabel(f"<h2>{text}</h2>")
    label.setTextFormat(Qt.TextFormat.RichText)
    return label


def rows_table(name: str, model: QAbstractItemModel | None = None, *, multi: bool = False) -> QTableView:
    """A read-only table (of ``model``, if given) whose rows are picked whole: one, or with ``multi`` several."""
    view = QTableView()
    view.setObjectName(name)
    if model is not None:
        view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection if multi
                          else QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    return view


def table_view(name: str, *, multi: bool = False, sortable: bool = False,
               model: QAbstractItemModel | None = None) -> QTableView:
    """A read-only table of records (of ``model``, if given): whole rows selected, alternating colours,
    no row numbers."""
    view = rows_table(name, multi=multi)
    view.setTabKeyNavigation(False)  # Tab leaves the table; the arrows move inside it
    view.setAlternatingRowColors(True)
    view.setSortingEnabled(sortable)
    view.verticalHeader().hide()
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    view.horizontalHeader().setStretchLastSection(True)
    view.setWordWrap(False)
    if model is not None:
        view.setModel(model)
    return view


def fit_columns(view: QTableView, max_width: int = 300) -> None:
    """Columns as wide as the loaded rows, never wider than ``max_width`` (the tooltip shows the rest)."""
    view.resizeColumnsToContents()
    header = view.horizontalHeader()
    for column in range(header.count()):
        if header.sectionSize(column) > max_width:
            header.resizeSection(column, max_width)


def run_dialog(dialog: QDialog) -> bool:
    """exec() the dialog: True when accepted. Screens call it through their own module (or through
    :func:`dialog_answer`), so tests can replace `<screen module>.run_dialog` (or `widgets.run_dialog`)
    to drive the dialog."""
    return dialog.exec() == QDialog.DialogCode.Accepted


def dialog_answer(dialog: D, read: Callable[[D], T | None]) -> T | None:
    """Run ``dialog`` (through :func:`run_dialog`); what ``read`` takes from it when accepted, None when
    cancelled. The dialog is deleted afterwards either way."""
    try:
        return read(dialog) if run_dialog(dialog) else None
    finally:
        dialog.deleteLater()


class FlexiblePage(QWidget):
    """A tab's page whose lists give up rows before the window scrolls. A word-wrapped label makes a
    layout's height depend on its width, and Qt then holds every layout above it to its *preferred*
    height: "Licitação e cota" at 1366x768 (a larger font, the quota warning shown) scrolled its
    candidate buttons below the window's edge. The page's own layout still gives its labels their height."""

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt's name
        return False

    def heightForWidth(self, width: int) -> int:  # noqa: N802
        return -1


def tab_widget(name: str, *pages: tuple[QWidget, str]) -> QTabWidget:
    """A tab widget named ``name`` whose tabs the keyboard switches (:func:`keyboard_tabs`), holding
    ``pages`` as (page, title) in order."""
    tabs = QTabWidget()
    keyboard_tabs(tabs)
    tabs.setObjectName(name)
    for page, title in pages:
        tabs.addTab(page, title)
    return tabs


def keyboard_tabs(tabs: QTabWidget) -> None:
    """Ctrl+Tab / Ctrl+PgDn and Ctrl+Shift+Tab / Ctrl+PgUp switch the tabs from anywhere inside them:
    a table or a line edit that has the focus would otherwise swallow the keys (the focus then goes to
    the tab's first useful widget: ``motodesk.ui.page_focus``)."""

    from motodesk.ui.page_focus import follow_tabs

    follow_tabs(tabs)  # a tab chosen: the focus goes to its first useful widget, never the tab bar

    def step(delta: int) -> None:
        if tabs.count():
            tabs.setCurrentIndex((tabs.currentIndex() + delta) % tabs.count())

    for sequence, delta in (("Ctrl+Tab", 1), ("Ctrl+PgDown", 1), ("Ctrl+Shift+Tab", -1), ("Ctrl+Backtab", -1),
                            ("Ctrl+PgUp", -1)):
        shortcut = QShortcut(QKeySequence(sequence), tabs)
        shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        shortcut.activated.connect(lambda d=delta: step(d))
