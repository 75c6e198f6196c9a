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
