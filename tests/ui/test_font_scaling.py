"""Text scales with the system font size (Lei 13.146/2015, eMAG; issue #29 item 2).

A person who reads with a larger system font (1,25× and 1,5× the default point size) still sees every
button's and label's text whole, and every window fits the counter's 1366×768 screen: the main window
on each of its pages, and every dialog of the application.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from a11y_dialogs import dialogs  # type: ignore[import-not-found]
from PySide6.QtGui import QFont, QTextDocument
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QCheckBox,
    QComboBox,
    QLabel,
    QRadioButton,
    QStyle,
    QStyleOptionComboBox,
    QTabWidget,
    QWidget,
)
from tests_helpers import SCREENSHOTS, drain_events, fits_screen  # type: ignore[import-not-found]

from motodesk.rules.common import Role
from motodesk.services import auth
from motodesk.services.context import AppContext
from motodesk.ui.accessible import clean_label
from motodesk.ui.app import create_application

SQLITE_ONLY = pytest.mark.parametrize("backend", ["sqlite"])  # the screens do not depend on the database
SCALES = (1.25, 1.5)


def _visible(widget: QWidget, window: QWidget) -> bool:
    if not widget.isVisibleTo(window) or widget.window() is not window:
        return False
    # a widget scrolled out of sight in a scroll area is not clipped, only elsewhere
    return widget.width() > 0 and widget.height() > 0


def _text_width(label: QLabel) -> int:
    """How wide the label's text is on one line (rich text laid out as Qt does)."""
    text = label.text()
    if label.textFormat() == label.textFormat().RichText or ("<" in text and label.textFormat() != label.textFormat().PlainText):
        document = QTextDocument()
        document.setDefaultFont(label.font())
        document.setDocumentMargin(0)
        document.setHtml(text)
        return int(document.idealWidth() + 0.999)
    lines = text.replace("&&", "\0").split("\n")
    shown = [line.replace("&", "").replace("\0", "&") if label.buddy() is not None else line.replace("\0", "&&")
             for line in lines]
    return max(label.fontMetrics().horizontalAdvance(line) for line in shown)


def _combo_option(combo: QComboBox) -> QStyleOptionComboBox:
    option = QStyleOptionComboBox()
    option.initFrom(combo)
    option.editable = combo.isEditable()
    option.currentText = combo.currentText()
    return option


def clipped_text(window: QWidget) -> list[str]:
    """Visible buttons and labels whose text does not fit in them: a button narrower than its text (or,
    for a check box or radio button, than its size hint), a one-line label narrower than its text, a
    word-wrapped label shorter than its wrapped text."""
    clipped = []
    name = type(window).__name__
    for button in window.findChildren(QAbstractButton):
        if not _visible(button, window) or not button.text():
            continue
        text = clean_label(button.text()) if "&" in button.text() else button.text()
        needed = button.fontMetrics().horizontalAdvance(text)
        if isinstance(button, (QCheckBox, QRadioButton)):
            needed = max(needed, button.sizeHint().width() - 2)
        if button.width() < needed or button.sizeHint().width() < needed:
            clipped.append(f"{name}: button {text!r} {button.width()}px < {needed}px")
    for combo in window.findChildren(QComboBox):  # the chosen item of a list, whole
        if not _visible(combo, window) or combo.isEditable() or not combo.currentText():
            continue
        arrow = combo.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, _combo_option(combo),
                                             QStyle.SubControl.SC_ComboBoxEditField, combo)
        needed = combo.fontMetrics().horizontalAdvance(combo.currentText())
        if arrow.width() < needed:
            clipped.append(f"{name}: list {combo.currentText()!r} {arrow.width()}px < {needed}px")
    for label in window.findChildren(QLabel):
        if not _visible(label, window) or not label.text().strip() or label.pixmap() is not None \
                and not label.pixmap().isNull():
            continue
        room = label.contentsRect()
        if label.wordWrap():
            needed_height = label.heightForWidth(label.width())
            if needed_height > label.height() + 2:
                clipped.append(f"{name}: label {label.text()[:50]!r} {label.height()}px high < {needed_height}px")
            continue
        needed = _text_width(label)
        if needed > room.width() + 1:
            clipped.append(f"{name}: label {label.text()[:50]!r} {room.width()}px < {needed}px")
    return clipped


@pytest.fixture(params=SCALES, ids=lambda s: f"{s}x")
def larger_font(request: pytest.FixtureRequest) -> Iterator[float]:
    create_application()
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    original = QFont(app.font())
    larger = QFont(original)
    larger.setPointSizeF(original.pointSizeF() * request.param)
    app.setFont(larger)
    try:
        yield request.param
    finally:
        app.setFont(original)


@pytest.fixture
def _never_ask_unsaved(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from a11y_dialogs import dialog_classes  # type: ignore[import-not-found]

    from motodesk.ui import guard

    dialog_classes()
    original = guard.ask_unsaved
    for name, module in list(sys.modules.items()):
        if name.startswith("motodesk.ui") and getattr(module, "ask_unsaved", None) is original:
            monkeypatch.setattr(module, "ask_unsaved", lambda *a, **k: guard.Answer.DISCARD)


def outside_screen(window: QWidget) -> list[str]:
    """`fits_screen`, except for buttons in a scroll area: those are reached by scrolling."""
    from PySide6.QtWidgets import QScrollArea

    def scrolled(problem: str) -> bool:
        return problem.startswith("button ")

    problems = [p for p in fits_screen(window) if not scrolled(p)]
    for button in window.findChildren(QAbstractButton):
        if not _visible(button, window):
            continue
        parent = button.parentWidget()
        while parent is not None and parent is not window and not isinstance(parent, QScrollArea):
            parent = parent.parentWidget()
        if isinstance(parent, QScrollArea):
            continue
        rect = button.rect().translated(button.mapTo(window, button.rect().topLeft()))
        if not window.rect().contains(rect):
            problems.append(f"button {button.text()!r} cut off at {rect.getRect()}")
    return problems


def _shown(qtbot, widget: QWidget, wait_ops) -> QWidget:  # noqa: ANN001
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    wait_ops()
    drain_events()
    return widget


def test_the_clipping_check_can_fail(qtbot) -> None:  # noqa: ANN001
    from PySide6.QtWidgets import QPushButton, QVBoxLayout

    create_application()
    window = QWidget()
    column = QVBoxLayout(window)
    label = QLabel("Prazo para a defesa prévia (Art. 29, § 3º)")
    button = QPushButton("&Registrar a defesa prévia")
    column.addWidget(label)
    column.addWidget(button)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    assert clipped_text(window) == []
    label.setFixedWidth(60)
    button.setFixedWidth(60)
    problems = clipped_text(window)
    assert len(problems) == 2 and "Registrar a defesa prévia" in problems[0] + problems[1]


@SQLITE_ONLY
def test_every_page_of_the_main_window_fits_with_a_larger_font(qtbot, ctx: AppContext, wait_ops,  # noqa: ANN001
                                                              larger_font: float) -> None:
    from motodesk.ui.app import build_main_window
    from motodesk.ui.mainwindow import SECTIONS

    auth.create_user(ctx, "grande", "Letra Grande", Role.ADMIN, "senha-certa-9")
    window = _shown(qtbot, build_main_window(ctx.as_user(auth.authenticate(ctx, "grande", "senha-certa-9"))),
                    wait_ops)
    assert window.font().pointSizeF() == QApplication.font().pointSizeF()
    problems: list[str] = []
    for key, _label in SECTIONS:
        page = window.show_section(key)
        wait_ops()
        drain_events()
        problems += [f"[{key}] {p}" for p in outside_screen(window) + clipped_text(window)]
        if larger_font == max(SCALES):
            window.grab().save(str(SCREENSHOTS / f"font-{larger_font}x-{key}.png"))
        for tabs in page.findChildren(QTabWidget):  # every tab of the page (Administração's four)
            for index in range(1, tabs.count()):
                if not tabs.isVisibleTo(window):
                    continue
                tabs.setCurrentIndex(index)
                wait_ops()
                drain_events()
                problems += [f"[{key} › {tabs.tabText(index)}] {p}"
                             for p in outside_screen(window) + clipped_text(window)]
                if larger_font == max(SCALES):
                    window.grab().save(str(SCREENSHOTS / f"font-{larger_font}x-{key}-tab{index}.png"))
    assert problems == [], "\n".join(problems)


@SQLITE_ONLY
def test_every_dialog_fits_with_a_larger_font(qtbot, ctx: AppContext, wait_ops, larger_font: float,  # noqa: ANN001
                                              _never_ask_unsaved: None) -> None:
    problems: list[str] = []
    opened = 0
    for label, build in dialogs(ctx):
        dialog = _shown(qtbot, build(), wait_ops)
        assert dialog.font().pointSizeF() == QApplication.font().pointSizeF(), label
        problems += [f"[{label}] {p}" for p in outside_screen(dialog) + clipped_text(dialog)]
        if larger_font == max(SCALES):
            dialog.grab().save(str(SCREENSHOTS / f"font-{larger_font}x-{label.replace(':', '').replace(' ', '-')}.png"))
        opened += 1
        dialog.close()
    assert opened >= 50
    assert problems == [], "\n".join(problems)
