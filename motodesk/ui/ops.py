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
#: How often an op checks that a returned job was delivered (see ``ServiceOp._check_delivered``).
WATCHDOG_MS = 500


def _gui_owner() -> QObject | None:
    """The parent of an op's Qt objects: the application (so that a Python reference dropped in a
    worker thread never deletes them there: PySide would defer the delete and free the wrapper at
    once, and the deferred delete then crashed in Shiboken::BindingManager::releaseWrapper)."""
    return QApplication.instance()


def _delete_later(obj: QObject | None) -> None:
    if obj is not None and shiboken6.isValid(obj):
        obj.deleteLater()


class _Signals(QObject):
    """The job's signals, delivered to the op through this object's own slots.

    Under load a queued ``finished`` was now and then never delivered (the job had returned, the op
    waited forever: tests/ui/test_live_updates.py). Routing it through a slot of this QObject did not
    end that by itself (why the event is lost is not known); what guarantees delivery is the op's
    watchdog (``ServiceOp._check_delivered``), and this slot makes that delivery happen once."""

    finished = Signal(object, object, str)  # result, exception, traceback text
    progressed = Signal(int, int)  # done, total

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.on_finished: Callable[[Any, BaseException | None, str], None] | None = None
        self.on_progressed: Callable[[int, int], None] | None = None
        self.finished.connect(self._deliver_finished, Qt.ConnectionType.QueuedConnection)
        self.progressed.connect(self._deliver_progressed, Qt.ConnectionType.QueuedConnection)

    @property
    def delivered(self) -> bool:
        return self.on_finished is None

    @Slot(object, object, str)
    def _deliver_finished(self, result: Any, exc: BaseException | None, details: str) -> None:
        callback, self.on_finished, self.on_progressed = self.on_finished, None, None  # once; no cycle kept
        if callback is not None:
            callback(result, exc, details)

    @Slot(int, int)
    def _deliver_progressed(self, done: int, total: int) -> None:
        if self.on_progressed is not None:
            self.on_progressed(done, total)


class _Job(QRunnable):
    def __init__(self, fn: Callable[..., Any], with_progress: bool = False) -> None:
        super().__init__()
        self.fn = fn
        self.with_progress = with_progress
        self.signals = _Signals(_gui_owner())  # C++-owned: freed by _release on the GUI thread, never where a
        #                                        worker happens to drop the last Python reference
        self.cancelled = threading.Event()
        self.started = False  # handed to the thread pool
        self.returned = threading.Event()  # the worker is past its last emit: ``signals`` may go
        self.outcome: tuple[Any, BaseException | None, str] | None = None  # what ``finished`` carries

    def _report(self, done: int, total: int) -> None:
        self.signals.progressed.emit(int(done), int(total))

    def run(self) -> None:
        try:
            try:
                if self.with_progress:
                    result = self.fn(self._report, self.cancelled.is_set)
                else:
                    result = self.fn()
            except BaseException as exc:  # noqa: BLE001 - delivered to the GUI thread
                self.outcome = (None, exc, traceback.format_exc())
            else:
                self.outcome = (result, None, "")
            self.signals.finished.emit(*self.outcome)
        finally:
            # The queued ``finished`` may already be running on the GUI thread while this thread is
            # still inside emit(): the op deletes ``signals`` only once this is set (a worker crashed
            # in emit() when it was deleted under it, CI of 8b4399c).
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


class _EscFilter(QObject):
    """While an op runs, Esc anywhere in its window abandons the wait (the form is disabled, so the
    key would otherwise go nowhere)."""

    def __init__(self, op: ServiceOp, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.op = op

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent) \
                and event.key() == Qt.Key.Key_Escape and self.op.window_active():
            self.op.abandon()
            return True
        if event.type() == QEvent.Type.FocusIn and isinstance(event, QFocusEvent) and isinstance(watched, QWidget) \
                and event.reason() == Qt.FocusReason.ActiveWindowFocusReason:
            self.op.handed = watched  # the window, activated while locked, chose this widget itself
        return False


class ServiceOp:
    """Run one service call for a screen; see the module docstring."""

    _running: ClassVar[set[ServiceOp]] = set()
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
        self._filter: _EscFilter | None = None
        self._was_enabled = True
        self._focus: QWidget | None = None
        #: Where the window put the focus itself when it became active during the lock (the locked
        #: widget it would have given it to was disabled): not a place the person chose.
        self.handed: QWidget | None = None
        self.abandoned = False
        self.done = False
        self._job = _Job(fn, progress)
        self._job.setAutoDelete(False)
        self._job.signals.on_finished = self._finished
        self._job.signals.on_progressed = self._progressed
        self._timer = QTimer(_gui_owner())
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._show_busy)
        # The watchdog: a job that has returned but whose ``finished`` has not arrived one tick later
        # is delivered from the job itself. Under load a queued result was, now and then, never
        # delivered — the form stayed locked behind "Carregando…" for good (test_live_updates).
        self._watch = QTimer(_gui_owner())
        self._watch.setInterval(WATCHDOG_MS)
        self._watch.timeout.connect(self._check_delivered)
        self._returned_seen = False

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
                self._release()
                if self._finally:
                    self._finally()
                return self
        if self.key is not None:
            self._latest[(id(self.widget), self.key)] = self
        ServiceOp._running.add(self)
        if self._lock is not None:
            count, was_enabled = self._locks.get(id(self._lock), (0, self._lock.isEnabled()))
            self._locks[id(self._lock)] = (count + 1, was_enabled)  # two calls on one form: one lock
            self._was_enabled = was_enabled
            self._remember_focus(self._lock)
            self._lock.setEnabled(False)
            self._filter = _EscFilter(self, _gui_owner())
            app = QApplication.instance()
            if app is not None:
                app.installEventFilter(self._filter)
            self._timer.start(BUSY_DELAY_MS)
        self._job.started = True
        self._watch.start()
        QThreadPool.globalInstance().start(self._job)
        return self

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
        self._timer.stop()
        if self._filter is not None:
            app = QApplication.instance()
            if app is not None:
                app.removeEventFilter(self._filter)
            _delete_later(self._filter)
            self._filter = None
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
            self._release()

    def _check_delivered(self) -> None:
        signals = self._job.signals
        if not shiboken6.isValid(signals) or signals.delivered:
            self._watch.stop()
            return
        if not self._job.returned.is_set() or self._job.outcome is None:
            return
        if not self._returned_seen:  # give the queued signal one more tick
            self._returned_seen = True
            return
        log.warning("a finished service call was not delivered by its signal: delivered by the watchdog")
        self._watch.stop()
        signals._deliver_finished(*self._job.outcome)  # noqa: SLF001 - the same one-time delivery

    def _release(self) -> None:
        """The op's Qt objects go on the GUI thread, once the job is past its last emit (or never ran)."""
        self._timer.stop()
        self._watch.stop()
        if self._job.started and not self._job.returned.is_set():
            QTimer.singleShot(0, self._release)  # microseconds away: the worker is leaving emit()
            return
        _delete_later(self._timer)
        _delete_later(self._watch)
        _delete_later(self._job.signals)

    def _deliver(self, result: Any, exc: BaseException | None, details: str) -> None:
        ServiceOp._running.discard(self)
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
