"""Python's cyclic garbage collector runs on the GUI thread only.

A Qt object whose Python wrapper sits in a reference cycle (as a ServiceOp's own timers and signals
object did, held by the connections to its methods, before ops went through one hub) is freed when the cyclic
collector runs — and CPython runs it in whichever thread happens to allocate at that moment: often a
worker of the thread pool running a ServiceOp's service call. PySide then defers the C++ deletion to
the object's own thread and frees the wrapper at once; when the deferred delete arrives, Shiboken
destroys a wrapper that is gone. That was the intermittent crash of the GUI tests: SIGSEGV in
``Shiboken::BindingManager::releaseWrapper`` on the DeferredDelete of a ``PySide6.QtCore.QTimer``
(about one run in six of the access-key walk under load, and the crashed xdist workers in CI).

So, as Anki does for the same reason (``aqt``'s GarbageCollector), the automatic collector is off
once the application exists, and a timer on the GUI thread collects whenever the counts have passed
the thresholds CPython itself would have used. Reference counting still frees everything outside
cycles at once, in any thread; only cycles wait for the GUI thread (at most ``INTERVAL_MS``).
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

INTERVAL_MS = 1000


def collect_if_due() -> int:
    """Collect the generations CPython would have collected by now (on the calling thread); returns
    how many objects were found unreachable."""
    t0, t1, t2 = gc.get_threshold()
    c0, c1, c2 = gc.get_count()
    if c0 <= t0:
        return 0
    generation = 2 if c1 > t1 and c2 > t2 else 1 if c1 > t1 else 0
    return gc.collect(generation)


class MainThreadCollector(QObject):
    """Owned by the application: turns automatic collection off and collects from the GUI thread."""

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.setInterval(INTERVAL_MS)
        self._timer.timeout.connect(collect_if_due)
        self._timer.start()
        gc.disable()


def install(app: QObject) -> MainThreadCollector:
    """Install the collector once per application (the GUI thread is the one calling this)."""
    existing = getattr(app, "_motodesk_collector", None)
    if isinstance(existing, MainThreadCollector):
        gc.disable()
        return existing
    collector = MainThreadCollector(app)
    app._motodesk_collector = collector  # type: ignore[attr-defined]
    return collector
