"""A step taken from a question keeps the keyboard on the list (issue #26, bench/bench_keyboard_x.py).

On a real X server the window manager gives the activation back to the main window a moment after a
question closes (Aprovar…, Emitir), so the write starts while the main window is not yet active. The
form's lock then disabled the table the window would give its focus to, and when the window became
active Qt put the focus on the first widget of its chain — the navigation list: the supervisor's next
Alt+letter still worked, but arrows and Enter went to the sections. Here the main window at the
counter's screen is made inactive while the question is open (another window active) and active
again while the write runs, as the window manager does it.
"""

from __future__ import annotations

import threading
from datetime import date

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget
from window_factory import counter_window, describe_widget  # type: ignore[import-not-found]

from motodesk.rules.common import PermitState, Role
from motodesk.services import permits
from motodesk.services.context import AppContext
from motodesk.ui.ops import ServiceOp
from motodesk.ui.screens import permits as screen
from motodesk.ui.screens.permits import StepInput


def test_the_list_keeps_the_focus_after_a_step_asked_in_a_question(qtbot, ctx: AppContext, wait_ops,  # noqa: ANN001
                                                                   monkeypatch) -> None:
    window = counter_window(qtbot, ctx, Role.SUPERVISOR, "passo_foco")
    window.nav.setFocus()
    qtbot.keyClick(window.nav, Qt.Key.Key_3, Qt.KeyboardModifier.ControlModifier)  # Permissões
    qtbot.waitUntil(lambda: window.page_by_key.is_built("permits") and "permits" not in window.loading,
                    timeout=10_000)
    wait_ops()
    tab = window.page_by_key["permits"].permits_tab
    qtbot.waitUntil(lambda: tab.model.rowCount() > 0, timeout=10_000)
    tab.table.setFocus()
    assert tab.panel.select_where(lambda r: r.state is PermitState.UNDER_REVIEW)
    wait_ops()
    row = tab.selected()
    assert row is not None and row.state is PermitState.UNDER_REVIEW
    assert QApplication.focusWidget() is tab.table

    other = QWidget()  # the question's window, active while it is open
    qtbot.addWidget(other)

    def ask(*_args: object, **_kwargs: object) -> StepInput:
        other.show()
        other.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is other, timeout=3000)
        other.hide()  # answered: the main window is not active again yet
        return StepInput(decree_number="2026/0183", decree_date=date.today())

    release = threading.Event()
    real_approve = permits.approve

    def approve(*args: object, **kwargs: object) -> object:
        release.wait(10)
        return real_approve(*args, **kwargs)

    monkeypatch.setattr(screen, "ask_step", ask)
    monkeypatch.setattr(permits, "approve", approve)
    tab.take_step("approve")
    assert ServiceOp.running() > 0
    window.activateWindow()  # the window manager gives the activation back while the write runs
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=3000)
    release.set()
    wait_ops()
    qtbot.waitUntil(lambda: tab.selected() is not None and tab.selected().state is PermitState.APPROVED,
                    timeout=10_000)
    wait_ops()
    focused = QApplication.focusWidget()
    assert focused is tab.table, f"o foco foi para {describe_widget(focused)}, não para a lista"
