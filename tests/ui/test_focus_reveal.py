"""The focused widget is always in sight (issue #26 item 1): at 1366x768, Tab through the dossier's
pages and every focused widget inside a scroll area lies inside that area's viewport — also when the
focus moves by an access key or by ``setFocus`` (which Qt's own scroll-on-Tab does not cover)."""

from __future__ import annotations

import json

from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QApplication, QScrollArea, QWidget
from tests_helpers import settle_gui  # type: ignore[import-not-found]

from motodesk.services.context import AppContext
from motodesk.ui import focus_watch
from motodesk.ui.app import create_application
from motodesk.ui.dossier import DossierWindow


def _outside(widget: QWidget) -> list[str]:
    """The scroll areas whose viewport does not show ``widget`` whole."""
    bad = []
    for area in focus_watch.scroll_areas(widget):
        viewport = area.viewport()
        top_left = widget.mapTo(viewport, widget.rect().topLeft())
        rect = QRect(top_left, widget.size())
        if not viewport.rect().contains(rect):
            bad.append(f"{widget.objectName() or type(widget).__name__} at {rect} outside "
                       f"{area.objectName()} {viewport.rect()}")
    return bad


def _open(qtbot, clerk: AppContext) -> DossierWindow:  # noqa: ANN001
    create_application()
    window = DossierWindow(clerk)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    settle_gui(qtbot)
    screen = window.screen().availableGeometry()
    assert screen.width() <= 1366 and screen.height() <= 768
    return window


def _documents_area(window: DossierWindow) -> QScrollArea:
    return window.findChild(QScrollArea, "documents_area")


def test_tab_through_the_dossier_keeps_every_focused_widget_in_view(qtbot, clerk: AppContext) -> None:  # noqa: ANN001
    window = _open(qtbot, clerk)
    area = _documents_area(window)
    for page in ("1", "2"):
        qtbot.keyClick(QApplication.focusWidget(), getattr(Qt.Key, f"Key_{page}"), Qt.KeyboardModifier.AltModifier)
        settle_gui(qtbot)
        seen: list[QWidget] = []
        in_area = 0
        for _ in range(120):
            widget = QApplication.focusWidget()
            assert widget is not None and window.isAncestorOf(widget)
            if seen and widget is seen[0]:
                break  # round the window once
            seen.append(widget)
            assert _outside(widget) == [], _outside(widget)
            in_area += area.isAncestorOf(widget)
            qtbot.keyClick(widget, Qt.Key.Key_Tab)
        if page == "2":
            assert in_area > 20  # the documents' fields were walked (the area is taller than the screen)
    assert area.verticalScrollBar().maximum() > 0  # the area scrolls at 1366x768: the test can fail


def test_focus_set_directly_or_by_shift_tab_is_revealed(qtbot, clerk: AppContext) -> None:  # noqa: ANN001
    """``setFocus`` on the last document field (what an access key or a form's first-empty-field rule
    does) scrolls it into view; Shift+Tab back to the first scrolls back."""
    window = _open(qtbot, clerk)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_2, Qt.KeyboardModifier.AltModifier)
    settle_gui(qtbot)
    area = _documents_area(window)
    fields = [w for w in area.widget().findChildren(QWidget)
              if w.focusPolicy() & Qt.FocusPolicy.TabFocus and w.isVisibleTo(window) and w.isEnabled()]
    last = fields[-1]
    area.verticalScrollBar().setValue(0)
    last.setFocus(Qt.FocusReason.OtherFocusReason)
    assert last.hasFocus()
    assert _outside(last) == [], _outside(last)
    assert area.verticalScrollBar().value() > 0
    first = fields[0]
    first.setFocus(Qt.FocusReason.ShortcutFocusReason)
    assert _outside(first) == [], _outside(first)


def test_focus_trace_names_each_focused_widget(qtbot, clerk: AppContext, tmp_path, monkeypatch) -> None:  # noqa: ANN001
    """MOTODESK_FOCUS_TRACE appends one JSON line per focus change (off by default)."""
    trace = tmp_path / "focus.jsonl"
    watch = focus_watch.FocusWatch(str(trace))
    window = _open(qtbot, clerk)
    app = QApplication.instance()
    app.focusChanged.connect(watch.changed)
    try:
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
    finally:
        app.focusChanged.disconnect(watch.changed)
    lines = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 2
    assert lines[-1]["name"] == QApplication.focusWidget().objectName()
    assert lines[-1]["class"] == type(QApplication.focusWidget()).__name__
    assert lines[-1]["window"] == window.objectName() and lines[-1]["visible"] is True
