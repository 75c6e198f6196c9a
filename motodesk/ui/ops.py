"""The one way a screen runs a service: off the GUI thread, the form locked, errors where they belong.

In the spirit of Anki's ``CollectionOp``::

    ServiceOp(self, lambda: vehicles.save_vehicle(self.ctx, data), busy="Salvando o veículo…",
              fields={"plate": self.plate_input}, on_conflict=self.reload, change="vehicle") \\
        .success(self._saved).run()

* ``fn`` runs on a worker thread (it must not touch widgets); the GUI keeps painting. ``widget``
  is the screen the call is for — or a model (any QObject, with ``lock=False``): the result is
  dropped once it is destroyed.
* While it runs, ``widget`` (or ``lock``) is disabled, and after :data:`BUSY_DELAY_MS` a busy
  overlay says what is going on. Esc abandons the wait: the form comes back, the callbacks will not
  run, and the service's own transaction finishes or rolls back on its own (a service call is one
  transaction, so nothing half-done is left either way).
* :class:`InvalidInputError` messages go on the widgets named in ``fields`` (red border, tooltip,
  focus on the first); messages for fields without a widget, and every other expected error, go
  through :func:`show_error`. A :class:`ConflictError` offers to reload (``on_conflict``).
  Unexpected errors are logged and shown with their details.
* On success the change bus announces ``change`` (so every built page shows it), then the
  ``success`` callback runs on the GUI thread.
* Long work (an export, a backup, an import) is run with ``progress=True``: ``fn`` then receives
  ``(report, cancelled)`` — ``report(done, total)`` reaches the :meth:`ServiceOp.progress`
  callback on the GUI thread, and ``cancelled()`` turns true once :meth:`ServiceOp.cancel` is
  called (a "Cancelar" button); the work stops at its next check by raising its own
  cancellation error, which reaches ``failure`` like any other::

      op = ServiceOp(self, lambda report, cancelled: reports.export(ctx, kind, path, report, cancelled),
                     progress=True, lock=False).progress(bar.setValue).success(done)
      dialog.canceled.connect(op.cancel)
      op.run()

There is no other way to run work off the GUI thread in the UI: reads for a page go through
:func:`load_into`, and everything else through this class.
"""

from __future__ import annotations

import logging
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import shiboken6
from PySide6.QtCore import QEvent, QObject, QRunnable, Qt, QThreadPool, QTimer, Signal, Slot
from PySide6.QtGui import QFocusEvent, QKeyEvent
from PySide6.QtWidgets import QApplication, QDialog, QLabel, QMessageBox, QWidget

from motodesk.errors import DatabaseError
from motodesk.services.errors import ConflictError, InvalidInputError, MotodeskError
from motodesk.ui.changes import notify_changed
from motodesk.ui.errors import show_error, show_unexpected
from motodesk.ui.widgets import date_problems, mark_field

log = logging.getLogger(__name__)

BUSY_DELAY_MS = 300
#: How long a returned job may wait for its queued answer before the hub delivers it itself.
WATCHDOG_MS = 500
#: The hub's clock while an op runs: the busy notice and the watchdog are judged on its ticks.
TICK_MS = 100


class _Hub(QObject):
    """The one Qt object every op goes through: made once per application, never deleted.

    An op used to make its own QObjects — a busy-delay timer, a watchdog timer, a signals object, an
    Esc filter — and delete them when it ended. Under load, now and then, the DeferredDelete of one
    of those timers crashed the process in ``Shiboken::BindingManager::releaseWrapper`` (the page
    walks of tests/ui, and the crashed xdist workers of CI; the collector on the GUI thread made it
    rarer, not gone). So no op makes or deletes a Qt object any more (the busy notice aside, a
    widget shown only after :data:`BUSY_DELAY_MS`): results and progress travel as queued signals of
    this hub, one timer here judges every running op's busy notice and watchdog, and this hub is the
    Esc filter while a locked op runs.

    The watchdog: under load a queued ``finished`` was now and then never delivered (the job had
    returned, the op waited forever: tests/ui/test_live_updates.py). A job that has returned and is
    still undelivered :data:`WATCHDOG_MS` later is delivered from the job's own outcome, once.
    """

    finished = Signal(object, object, object, str)  # the job, its result, its exception, traceback text
    progressed = Signal(object, int, int)  # the job, done, total

    def __init__(self, app: QObject) -> None:
        super().__init__(app)
        self.setObjectName("motodesk_ops_hub")
        self.finished.connect(self._deliver_finished, Qt.ConnectionType.QueuedConnection)
        self.progressed.connect(self._deliver_progressed, Qt.ConnectionType.QueuedConnection)
        self._clock = QTimer(self)
        self._clock.setInterval(TICK_MS)
        self._clock.timeout.connect(self._tick)
        self._filtering = False

    @Slot(object, object, object, str)
    def _deliver_finished(self, job: _Job, result: Any, exc: BaseException | None, details: str) -> None:
        job.deliver(result, exc, details)

    @Slot(object, int, int)
    def _deliver_progressed(self, job: _Job, done: int, total: int) -> None:
        if job.on_progressed is not None:
            job.on_progressed(done, total)

    def op_started(self, op: ServiceOp) -> None:
        if not self._clock.isActive():
            self._clock.start()
        if op.locks and not self._filtering:
            app = QApplication.instance()
            if app is not None:
                app.installEventFilter(self)
                self._filtering = True

    def op_ended(self) -> None:
        if self._filtering and not any(op.locks and not op.abandoned for op in ServiceOp._running):
            app = QApplication.instance()
            if app is not None:
                app.removeEventFilter(self)
            self._filtering = False
        if not ServiceOp._running:
            self._clock.stop()

    def _tick(self) -> None:
        now = time.monotonic()
        for op in list(ServiceOp._running):
            op.tick(now)  # an op a tick delivers ends through op_ended, which stops the clock when none runs

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        """While a locked op runs, Esc anywhere in its window abandons the newest such wait (the
        form is disabled, so the key would otherwise go nowhere); and a focus the window chose itself
        on becoming active is noted, so that unlocking may give the person's focus back over it."""
        if event.type() == QEvent.Type.FocusIn and isinstance(event, QFocusEvent) and isinstance(watched, QWidget) \
                and event.reason() == Qt.FocusReason.ActiveWindowFocusReason:
            for op in ServiceOp._running:
                if op.locks:
                    op.handed = watched  # the window, activated while locked, chose this widget itself
            return False
        if event.type() != QEvent.Type.KeyPress or not isinstance(event, QKeyEvent) \
                or event.key() != Qt.Key.Key_Escape:
            return False
        for op in reversed(list(ServiceOp._running)):
            if op.locks and not op.abandoned and op.window_active():
                op.abandon()
                return True
        return False


_HUB: _Hub | None = None


def _hub() -> _Hub:
    """The application's hub (made on the GUI thread by the first op)."""
    global _HUB
    app = QApplication.instance()
    if app is None:
        raise RuntimeError("ServiceOp needs the QApplication")
    if _HUB is None or not shiboken6.isValid(_HUB) or _HUB.parent() is not app:
        _HUB = _Hub(app)
    return _HUB


class _Job(QRunnable):
    """The work of one op, run by the thread pool; its answer goes back through the hub, once."""

    def __init__(self, fn: Callable[..., Any], hub: _Hub, with_progress: bool = False) -> None:
        super().__init__()
        self.fn = fn
        self.hub = hub
        self.with_progress = with_progress
        self.cancelled = threading.Event()
        self.returned = threading.Event()  # the worker has its outcome and has emitted it
        self.outcome: tuple[Any, BaseException | None, str] | None = None  # what ``finished`` carries
        self.on_finished: Callable[[Any, BaseException | None, str], None] | None = None
        self.on_progressed: Callable[[int, int], None] | None = None

    @property
    def delivered(self) -> bool:
        return self.on_finished is None

    def deliver(self, result: Any, exc: BaseException | None, details: str) -> None:
        """On the GUI thread: hand the answer to the op, the first time only (the queued signal or
        the watchdog, whichever comes first; the later one finds nothing to do)."""
        callback, self.on_finished, self.on_progressed = self.on_finished, None, None  # no cycle kept
        if callback is not None:
            callback(result, exc, details)

    def _report(self, done: int, total: int) -> None:
        self.hub.progressed.emit(self, int(done), int(total))

    def run(self) -> None:
        try:
            if self.with_progress:
                result = self.fn(self._report, self.cancelled.is_set)
            else:
                result = self.fn()
        except BaseException as exc:  # noqa: BLE001 - delivered to the GUI thread
            self.outcome = (None, exc, traceback.format_exc())
        else:
            self.outcome = (result, None, "")
        try:
            self.hub.finished.emit(self, *self.outcome)
        finally:
            self.returned.set()


class BusyOverlay(QLabel):
    """A small notice over the window: what is running, and that Esc stops waiting."""

    def __init__(self, window: QWidget, text: str) -> None:
        super().__init__(window)
        self.setObjectName("busy_overlay")
        self.setText(f"⏳  {text}\nEsc deixa de esperar.")
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setStyleSheet("background: #fffde7; border: 2px solid #f9a825; border-radius: 6px;"
                           " padding: 12px 18px; font-size: 11pt; color: #222;")
        self.adjustSize()
        self.move(max(0, (window.width() - self.width()) // 2), max(0, (window.height() - self.height()) // 3))
        self.raise_()


class ServiceOp:
    """Run one service call for a screen; see the module docstring."""

    #: The ops running, oldest first (a dict for its order: Esc abandons the newest).
    _running: ClassVar[dict[ServiceOp, None]] = {}
    _latest: ClassVar[dict[tuple[int, str], ServiceOp]] = {}
    #: Widgets locked by running ops: how many, and whether each was enabled before the first.
    _locks: ClassVar[dict[int, tuple[int, bool]]] = {}

    def __init__(self, widget: QWidget | QObject, fn: Callable[..., Any], *, busy: str = "Aguarde…",
                 fields: Mapping[str, QWidget] | None = None, on_conflict: Callable[[], None] | None = None,
                 change: str | None = None, lock: bool | QWidget = True, title: str | None = None,
                 key: str | None = None, progress: bool = False) -> None:
        self.widget = widget
        self.fn = fn
        self.busy_text = busy
        self.fields = dict(fields or {})
        self.on_conflict = on_conflict
        self.change = change
        self.title = title
        self.key = key
        if lock is True and not isinstance(widget, QWidget):
            raise TypeError("ServiceOp on a model (no window to lock) needs lock=False")
        self._lock: QWidget | None = (widget if lock is True else lock) if lock is not False else None  # type: ignore[assignment]
        self._success: Callable[[Any], None] | None = None
        self._failure: Callable[[BaseException], bool | None] | None = None
        self._finally: Callable[[], None] | None = None
        self._progress: Callable[[int, int], None] | None = None
        self._overlay: BusyOverlay | None = None
        self._cursor = False
        self._was_enabled = True
        self._focus: QWidget | None = None
        #: Where the window put the focus itself when it became active during the lock (the locked
        #: widget it would have given it to was disabled): not a place the person chose.
        self.handed: QWidget | None = None
        self.abandoned = False
        self.done = False
        self._hub = _hub()
        self._job = _Job(fn, self._hub, progress)
        self._job.setAutoDelete(False)
        self._job.on_finished = self._finished
        self._job.on_progressed = self._progressed
        self._started_at: float | None = None  # when run() handed the job to the pool
        self._busy_due = False  # the busy notice is owed once BUSY_DELAY_MS have passed
        self._returned_seen_at: float | None = None  # the watchdog saw the job returned, undelivered

    # -- building ------------------------------------------------------------------------------
    def success(self, callback: Callable[[Any], None]) -> ServiceOp:
        self._success = callback
        return self

    def failure(self, callback: Callable[[BaseException], bool | None]) -> ServiceOp:
        """Called first with any error; return True when it has been dealt with (nothing is shown)."""
        self._failure = callback
        return self

    def finally_(self, callback: Callable[[], None]) -> ServiceOp:
        """Called after success, failure or abandon (to re-enable a button, say)."""
        self._finally = callback
        return self

    def progress(self, callback: Callable[[int, int], None]) -> ServiceOp:
        """Called on the GUI thread with each ``report(done, total)`` of a ``progress=True`` op."""
        if not self._job.with_progress:
            raise TypeError("ServiceOp.progress needs ServiceOp(..., progress=True): fn(report, cancelled)")
        self._progress = callback
        return self

    def cancel(self) -> None:
        """Ask the work to stop: its ``cancelled()`` turns true. The op still ends through
        ``success`` or ``failure`` — whichever the work chooses (usually its cancellation error)."""
        self._job.cancelled.set()

    @property
    def cancelled(self) -> bool:
        return self._job.cancelled.is_set()

    # -- running -------------------------------------------------------------------------------
    @classmethod
    def running(cls) -> int:
        return len(cls._running)

    def run(self) -> ServiceOp:
        """Start the call — unless a date field of the form holds no real date (31/02): then the
        field says why and nothing runs."""
        if self._lock is not None:
            problems = date_problems(self._lock)
            if problems:
                for field, message in problems.items():
                    mark_field(field, message)
                next(iter(problems)).setFocus(Qt.FocusReason.OtherFocusReason)
                self.done = True
                if self._finally:
                    self._finally()
                return self
        if self.key is not None:
            self._latest[(id(self.widget), self.key)] = self
        ServiceOp._running[self] = None
        if self._lock is not None:
            count, was_enabled = self._locks.get(id(self._lock), (0, self._lock.isEnabled()))
            self._locks[id(self._lock)] = (count + 1, was_enabled)  # two calls on one form: one lock
            self._was_enabled = was_enabled
            self._remember_focus(self._lock)
            self._lock.setEnabled(False)
            self._busy_due = True
        self._started_at = time.monotonic()
        self._hub.op_started(self)
        QThreadPool.globalInstance().start(self._job)
        return self

    @property
    def locks(self) -> bool:
        """Whether the op locks a form (and so shows a busy notice and takes Esc)."""
        return self._lock is not None

    def tick(self, now: float) -> None:
        """The hub's clock: the busy notice once it is due, and the watchdog."""
        if self._busy_due and self._started_at is not None and now - self._started_at >= BUSY_DELAY_MS / 1000:
            self._busy_due = False
            self._show_busy()
        job = self._job
        if job.delivered or not job.returned.is_set() or job.outcome is None:
            return
        if self._returned_seen_at is None:
            self._returned_seen_at = now  # the queued answer gets WATCHDOG_MS to arrive
        elif now - self._returned_seen_at >= WATCHDOG_MS / 1000:
            log.warning("a finished service call was not delivered by its signal: delivered by the watchdog")
            job.deliver(*job.outcome)

    def _remember_focus(self, lock: QWidget) -> None:
        """The focus in the form, given back when it is unlocked (a keyboard user goes on).

        Right after a question closed (Aprovar…, Emitir) the window may not be active again yet — on
        X the window manager activates it a moment later — so the application has no focus widget:
        the window's own one is the place to give back (issue #26)."""
        def inside(widget: QWidget | None) -> bool:
            return widget is not None and (widget is lock or lock.isAncestorOf(widget))

        focused = QApplication.focusWidget()
        if not inside(focused):
            focused = lock.window().focusWidget()
        if inside(focused):
            self._focus = focused

    def _window(self) -> QWidget | None:
        """The window the op is for; None when its widget is gone, or is a model (no window)."""
        if not isinstance(self.widget, QWidget):
            return None
        try:
            return self.widget.window()
        except RuntimeError:  # the widget is gone
            return None

    def window_active(self) -> bool:
        window = self._window()
        if window is None:
            return False
        active = QApplication.activeWindow()
        return active is None or active is window or window.isAncestorOf(active)

    def abandon(self) -> None:
        """Stop waiting: unlock the form now; the result, when it comes, is dropped."""
        if self.done or self.abandoned:
            return
        self.abandoned = True
        self._unlock()
        window = self._window()
        if window is not None:
            box = QMessageBox(QMessageBox.Icon.Information, "Espera interrompida",
                              "Você deixou de esperar pela operação. Ela continua no servidor e será "
                              "gravada por inteiro ou não será gravada — confira o registro antes de "
                              "repeti-la.", QMessageBox.StandardButton.Ok, window)
            box.setObjectName("abandoned_notice")
            box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            box.open()  # not exec(): the window goes on painting and taking keys
        if self._finally:
            self._finally()

    def _show_busy(self) -> None:
        if self.done or self.abandoned or not self.busy_text:
            return  # busy="": the caller shows its own progress (a progress dialog)
        window = self._window()
        if window is None:
            return
        self._overlay = BusyOverlay(window, self.busy_text)
        self._overlay.show()
        QApplication.setOverrideCursor(Qt.CursorShape.BusyCursor)
        self._cursor = True

    def _unlock(self) -> None:
        self._busy_due = False
        self._hub.op_ended()
        if self._overlay is not None:
            try:
                self._overlay.hide()
                self._overlay.deleteLater()
            except RuntimeError:
                pass
            self._overlay = None
        if self._cursor:
            QApplication.restoreOverrideCursor()
            self._cursor = False
        if self._lock is not None:
            try:
                count, was_enabled = self._locks.pop(id(self._lock), (1, self._was_enabled))
                if count > 1:
                    self._locks[id(self._lock)] = (count - 1, was_enabled)  # another call still runs
                else:
                    self._lock.setEnabled(was_enabled)
                    self._give_focus_back()
            except RuntimeError:
                pass

    def _give_focus_back(self) -> None:
        focus, self._focus = self._focus, None
        handed, self.handed = self.handed, None
        if focus is None or not shiboken6.isValid(focus):
            return
        now = QApplication.focusWidget()
        if now is not None and now is not handed:  # the person put the focus somewhere else meanwhile
            return
        if focus.isVisible() and focus.isEnabled():
            focus.setFocus(Qt.FocusReason.OtherFocusReason)

    def _progressed(self, done: int, total: int) -> None:
        if self.done or self.abandoned or self._progress is None or not shiboken6.isValid(self.widget):
            return
        self._progress(done, total)

    def _superseded(self) -> bool:
        return self.key is not None and self._latest.get((id(self.widget), self.key)) is not self

    def _finished(self, result: Any, exc: BaseException | None, details: str) -> None:
        try:
            self._deliver(result, exc, details)
        finally:
            self._hub.op_ended()

    def _deliver(self, result: Any, exc: BaseException | None, details: str) -> None:
        ServiceOp._running.pop(self, None)
        superseded = self._superseded()  # asked before this op leaves the table of the newest
        if not superseded and self.key is not None:
            del self._latest[(id(self.widget), self.key)]
        if self.abandoned:
            if exc is None and self.change:
                notify_changed(self.change)  # the work did land: the pages must show it
            return
        self.done = True
        self._unlock()
        if superseded or not shiboken6.isValid(self.widget):
            return  # a newer call of the same key answers instead, or the screen is gone
        try:
            if exc is None:
                if self.change:
                    notify_changed(self.change)
                if self._success:
                    self._success(result)
            else:
                self._handle(exc, details)
        finally:
            if self._finally:
                self._finally()

    def _handle(self, exc: BaseException, details: str) -> None:
        if self._failure is not None and self._failure(exc):
            return
        if isinstance(exc, ConflictError):
            self._conflict(exc)
            return
        if isinstance(exc, InvalidInputError) and exc.fields:
            placed = place_field_errors(exc.fields, self.fields)
            if placed and len(placed) == len(exc.fields):
                return
        if isinstance(exc, (MotodeskError, DatabaseError)):
            show_error(self._parent(), exc, self.title)
            return
        log.error("a service call from the screen failed\n%s", details)
        show_unexpected(self._parent(), details)

    def _parent(self) -> QWidget | None:
        if self._window() is None:
            return None
        return self.widget  # type: ignore[return-value]  # a QWidget: _window() said so

    def _conflict(self, exc: ConflictError) -> None:
        box = QMessageBox(QMessageBox.Icon.Warning, "Registro alterado por outra estação", str(exc),
                          QMessageBox.StandardButton.NoButton, self._parent())
        reload = box.addButton("&Recarregar", QMessageBox.ButtonRole.AcceptRole) if self.on_conflict else None
        box.addButton("&Cancelar", QMessageBox.ButtonRole.RejectRole)
        box.exec()
        if reload is not None and box.clickedButton() is reload and self.on_conflict:
            self.on_conflict()


def place_field_errors(messages: Mapping[str, str], widgets: Mapping[str, QWidget]) -> list[str]:
    """Mark each message on its widget (focus on the first); returns the keys placed."""
    placed: list[str] = []
    for key, message in messages.items():
        widget = widgets.get(key)
        if widget is None:
            continue
        mark_field(widget, message, until_changed=True)  # the service's reason: it goes once the field changes
        if not placed:
            widget.setFocus(Qt.FocusReason.OtherFocusReason)
        placed.append(key)
    return placed


def errors_on(label: QLabel, widgets: Mapping[str, QWidget]) -> Callable[[BaseException], bool]:
    """A ``failure`` callback for a dialog that explains refusals in its own message line: field
    errors on their widgets and all of them in ``label``; an expected error's text in ``label``;
    anything else goes on to the op's own handling."""

    def refused(exc: BaseException) -> bool:
        if isinstance(exc, InvalidInputError):
            place_field_errors(exc.fields, widgets)
            label.setText("\n".join([exc.message, *exc.fields.values()]))
            return True
        if isinstance(exc, MotodeskError):
            label.setText(str(exc))
            return True
        return False

    return refused


def run_service(widget: QWidget, fn: Callable[[], Any], on_success: Callable[[Any], None] | None = None,
                **options: Any) -> ServiceOp:
    """Shorthand: ``run_service(self, lambda: svc(...), self._done, change="permit")``."""
    op = ServiceOp(widget, fn, **options)
    if on_success is not None:
        op.success(on_success)
    return op.run()


def load_into(widget: QWidget, fn: Callable[[], Any], on_loaded: Callable[[Any], None], *,
              key: str = "load") -> ServiceOp:
    """A read for a page: nothing locked, no busy overlay, and only the newest load of ``key`` is
    delivered (a search typed fast shows the last query's rows, never an older one's)."""
    return ServiceOp(widget, fn, lock=False, key=key).success(on_loaded).run()


def close_dialog_after(dialog: QDialog) -> Callable[[Any], None]:
    """A success callback that accepts the dialog."""
    return lambda _result: dialog.accept()
