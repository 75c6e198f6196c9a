"""Background work with a result callback (never touch widgets from the worker)."""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

log = logging.getLogger(__name__)


class _Signals(QObject):
    succeeded = Signal(object)
    failed = Signal(object, str)
    progressed = Signal(int, int)


class _Job(QRunnable):
    def __init__(self, fn: Callable[..., Any], with_progress: bool) -> None:
        super().__init__()
        self.fn = fn
        self.with_progress = with_progress
        self.signals = _Signals()
        self.cancelled = False

    def run(self) -> None:
        try:
            if self.with_progress:
                result = self.fn(lambda done, total: self.signals.progressed.emit(int(done), int(total)),
                                 lambda: self.cancelled)
            else:
                result = self.fn()
        except BaseException as exc:  # noqa: BLE001 - delivered to the GUI thread
            self.signals.failed.emit(exc, traceback.format_exc())
        else:
            self.signals.succeeded.emit(result)


class BackgroundOp:
    """`BackgroundOp(fn).on_success(cb).on_failure(cb).run()`; with `progress=True` the function
    receives `(report(done, total), is_cancelled())` and `on_progress` callbacks run in the GUI thread."""

    _running: set[BackgroundOp] = set()

    def __init__(self, fn: Callable[..., Any], *, progress: bool = False) -> None:
        self._job = _Job(fn, progress)
        self._job.setAutoDelete(False)
        self._job.signals.succeeded.connect(self._done)
        self._job.signals.failed.connect(self._done_failed)
        self._success: Callable[[Any], None] | None = None
        self._failure: Callable[[BaseException], None] | None = None

    def on_success(self, callback: Callable[[Any], None]) -> BackgroundOp:
        self._success = callback
        return self

    def on_failure(self, callback: Callable[[BaseException], None]) -> BackgroundOp:
        self._failure = callback
        return self

    def on_progress(self, callback: Callable[[int, int], None]) -> BackgroundOp:
        self._job.signals.progressed.connect(callback)
        return self

    def cancel(self) -> None:
        self._job.cancelled = True

    def run(self) -> BackgroundOp:
        BackgroundOp._running.add(self)
        QThreadPool.globalInstance().start(self._job)
        return self

    def _done(self, result: Any) -> None:
        BackgroundOp._running.discard(self)
        if self._success:
            self._success(result)

    def _done_failed(self, exc: BaseException, details: str) -> None:
        BackgroundOp._running.discard(self)
        if self._failure:
            self._failure(exc)
        else:
            log.error("background work failed\n%s", details)
            raise exc
