"""Cycles are freed on the GUI thread, never in a worker (motodesk.ui.collector).

CPython runs its cyclic collector in whichever thread allocates when the counts pass the threshold;
a Qt object freed there crashed the application (Shiboken::BindingManager::releaseWrapper on the
deferred delete of a QTimer). These tests make a cycle holding a Qt object garbage while a worker
thread allocates enough to trigger a collection, and check where it is freed.
"""

from __future__ import annotations

import gc
import threading
import weakref

from PySide6.QtCore import QObject, QTimer

from motodesk.ui import collector
from motodesk.ui.app import create_application


class _Cycle:
    def __init__(self) -> None:
        self.me = self
        self.timer = QTimer()  # what a ServiceOp holds
        self.signals = QObject()


def _garbage_cycle(where: list[str]) -> None:
    cycle = _Cycle()
    weakref.finalize(cycle, lambda: where.append(threading.current_thread().name))


def _allocate_in_a_worker() -> None:
    def churn() -> None:
        # kept alive (a freed container takes its count back): far past gen0's threshold, so CPython
        # would collect in this thread
        kept = [[i] for i in range(20 * gc.get_threshold()[0])]
        assert kept

    worker = threading.Thread(target=churn, name="worker")
    worker.start()
    worker.join()


def test_the_application_turns_automatic_collection_off() -> None:
    app = create_application()
    assert not gc.isenabled()
    assert isinstance(app._motodesk_collector, collector.MainThreadCollector)  # type: ignore[attr-defined]


def test_a_cycle_with_a_qt_object_is_freed_on_the_gui_thread_not_in_the_worker(qtbot) -> None:  # noqa: ANN001
    create_application()
    freed: list[str] = []
    _garbage_cycle(freed)
    _allocate_in_a_worker()
    assert freed == []  # the worker's allocations collected nothing
    junk = [[i] for i in range(2 * gc.get_threshold()[0])]  # the GUI thread's own work makes it due
    qtbot.waitUntil(lambda: freed != [], timeout=5000)  # the collector's timer, on the GUI thread
    del junk
    assert freed == [threading.main_thread().name]


def test_the_check_can_fail_the_collector_is_what_keeps_the_worker_out() -> None:
    """With automatic collection on (as before the collector), the worker frees the cycle itself."""
    create_application()
    freed: list[str] = []
    gc.collect()
    gc.enable()
    try:
        _garbage_cycle(freed)
        _allocate_in_a_worker()
    finally:
        gc.disable()
    assert freed == ["worker"]


def test_collect_if_due_collects_only_past_the_threshold() -> None:
    create_application()
    gc.collect()
    assert collector.collect_if_due() == 0  # counts are back at zero
    freed: list[str] = []
    _garbage_cycle(freed)
    junk = [[i] for i in range(gc.get_threshold()[0] + 10)]
    assert collector.collect_if_due() >= 1
    assert freed == [threading.main_thread().name]
    del junk
