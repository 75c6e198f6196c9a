"""A ServiceOp frees its signals object only once the worker is past its last emit (a worker
crashed inside emit() when the GUI thread, already running the queued answer, deleted it)."""

from __future__ import annotations

import threading

import shiboken6
from tests_helpers import drain_events  # type: ignore[import-not-found]

from motodesk.ui.app import create_application
from motodesk.ui.ops import ServiceOp


def test_the_signals_outlive_a_worker_still_inside_emit(qtbot) -> None:  # noqa: ANN001
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication, QWidget

    create_application()
    page = QWidget()
    qtbot.addWidget(page)
    gate = threading.Event()
    op = ServiceOp(page, lambda: gate.wait(10) and 42)
    job = op._job
    job.started = True  # as if handed to the pool, its run() not over: returned is not set
    signals = job.signals
    op._release()
    for _ in range(5):  # whatever is posted runs: the deferred deletes too
        drain_events()
        QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert shiboken6.isValid(signals), "deleted while the worker could still be emitting"
    job.returned.set()
    qtbot.waitUntil(lambda: not shiboken6.isValid(signals), timeout=3000)
    gate.set()


def test_an_op_that_ran_frees_its_signals(qtbot) -> None:  # noqa: ANN001
    from PySide6.QtWidgets import QWidget

    create_application()
    page = QWidget()
    qtbot.addWidget(page)
    answers: list[int] = []
    op = ServiceOp(page, lambda: 7).success(answers.append).run()
    signals = op._job.signals
    qtbot.waitUntil(lambda: answers == [7] and not shiboken6.isValid(signals), timeout=5000)
    assert op._job.returned.is_set()


def test_a_result_whose_signal_is_lost_is_still_delivered_once(qtbot, caplog) -> None:  # noqa: ANN001
    """Under load a queued ``finished`` was now and then never delivered: the dossier stayed locked
    behind "Carregando o dossiê…" (test_live_updates in CI). The op's watchdog delivers it."""
    from PySide6.QtWidgets import QWidget

    create_application()
    page = QWidget()
    qtbot.addWidget(page)
    got: list[int] = []
    op = ServiceOp(page, lambda: 42).success(got.append)
    signals = op._job.signals
    signals.finished.disconnect(signals._deliver_finished)  # the lost event
    op.run()
    qtbot.waitUntil(lambda: ServiceOp.running() == 0, timeout=5000)
    assert got == [42] and page.isEnabled()
    assert "watchdog" in caplog.text
    signals._deliver_finished(43, None, "")  # a late signal after all: nothing runs twice
    assert got == [42]


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
