"""A ServiceOp makes and deletes no Qt object of its own; its answer arrives once, even when the queued
signal is lost.

Ops used to make two timers, a signals object and an Esc filter each and delete them when they
ended; under load the DeferredDelete of one of those timers crashed the process in Shiboken's
``releaseWrapper`` now and then. Everything now goes through one hub per application
(``motodesk.ui.ops._Hub``), made once and never deleted.
"""

from __future__ import annotations

import threading

from tests_helpers import drain_events  # type: ignore[import-not-found]

from motodesk.ui.app import create_application
from motodesk.ui.ops import ServiceOp, _hub


def test_running_ops_make_no_qt_object_and_leave_none_behind(qtbot) -> None:  # noqa: ANN001
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication, QWidget

    app = create_application()
    page = QWidget()
    qtbot.addWidget(page)
    hub = _hub()
    drain_events()
    before = len(app.children())
    gate = threading.Event()
    answers: list[int] = []
    for number in range(12):
        ServiceOp(page, lambda number=number: gate.wait(10) and number, lock=number % 2 == 0,
                  busy="").success(answers.append).run()
    assert ServiceOp.running() == 12
    assert len(app.children()) == before, "an op made a Qt object of its own under the application"
    gate.set()
    qtbot.waitUntil(lambda: ServiceOp.running() == 0, timeout=10_000)
    for _ in range(3):
        drain_events()
        QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert sorted(answers) == list(range(12))
    assert len(app.children()) == before and _hub() is hub
    assert page.isEnabled()


def test_a_result_whose_signal_is_lost_is_still_delivered_once(qtbot, caplog) -> None:  # noqa: ANN001
    """Under load a queued ``finished`` was now and then never delivered: the dossier stayed locked
    behind "Carregando o dossiê…" (test_live_updates in CI). The hub's watchdog delivers it."""
    from PySide6.QtWidgets import QWidget

    create_application()
    page = QWidget()
    qtbot.addWidget(page)
    got: list[int] = []
    hub = _hub()
    op = ServiceOp(page, lambda: 42).success(got.append)
    hub.finished.disconnect(hub._deliver_finished)  # the lost event
    try:
        op.run()
        qtbot.waitUntil(lambda: ServiceOp.running() == 0, timeout=5000)
    finally:
        hub.finished.connect(hub._deliver_finished, type=_queued())
    assert got == [42] and page.isEnabled()
    assert "watchdog" in caplog.text
    op._job.deliver(43, None, "")  # a late signal after all: nothing runs twice
    assert got == [42]


def _queued():  # noqa: ANN202
    from PySide6.QtCore import Qt

    return Qt.ConnectionType.QueuedConnection


def test_a_delivered_result_does_not_wake_the_watchdog(qtbot, caplog) -> None:  # noqa: ANN001
    from PySide6.QtWidgets import QWidget

    from motodesk.ui.ops import WATCHDOG_MS

    create_application()
    page = QWidget()
    qtbot.addWidget(page)
    got: list[int] = []
    ServiceOp(page, lambda: 7).success(got.append).run()
    qtbot.waitUntil(lambda: got == [7], timeout=5000)
    qtbot.wait(3 * WATCHDOG_MS)  # a fixed wait on purpose: time for a wrong second delivery
    assert got == [7] and "watchdog" not in caplog.text


def test_esc_abandons_the_newest_locked_wait_of_the_active_window_only(qtbot) -> None:  # noqa: ANN001
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QLineEdit, QVBoxLayout, QWidget

    create_application()
    window = QWidget()
    layout = QVBoxLayout(window)
    first, second = QWidget(window), QWidget(window)
    for part in (first, second):
        layout.addWidget(part)
        QVBoxLayout(part).addWidget(QLineEdit(part))
    qtbot.addWidget(window)
    window.show()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    gate = threading.Event()
    older = ServiceOp(first, lambda: gate.wait(10)).run()
    newer = ServiceOp(second, lambda: gate.wait(10)).run()
    try:
        qtbot.keyClick(window, Qt.Key.Key_Escape)
        assert newer.abandoned and not older.abandoned
        assert second.isEnabled() and not first.isEnabled()
    finally:
        gate.set()
        qtbot.waitUntil(lambda: ServiceOp.running() == 0, timeout=10_000)
    assert first.isEnabled()
