"""One change signal every page listens to: after any change, every page already built shows it.

A service call run through :class:`motodesk.ui.ops.ServiceOp` with ``change="permit"`` (say)
announces it here when it succeeds. Pages call :func:`follow_changes` once: a visible page reloads
at once (coalesced: many changes in one event-loop turn reload once), a hidden one the next time it
is shown.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtCore import QEvent, QObject, Signal
from PySide6.QtWidgets import QWidget

from motodesk.ui.widgets import one_shot_timer

ANY = "*"


class ChangeBus(QObject):
    changed = Signal(str)  # the kind of record changed: "person", "vehicle", "permit", … or "*"
    #: Another workstation's commit (a motodesk.services.live.Announcement: kinds, ids, author),
    #: for what follows one record (an open dossier; see motodesk.ui.live). Its kinds also go
    #: through `changed`, so pages need nothing more than follow_changes.
    remote = Signal(object)


_bus: ChangeBus | None = None


def change_bus() -> ChangeBus:
    global _bus
    if _bus is None:
        _bus = ChangeBus()
    return _bus


def notify_changed(kind: str = ANY) -> None:
    change_bus().changed.emit(kind)


def notify_remote(announcement: object) -> None:
    change_bus().remote.emit(announcement)


class _Follower(QObject):
    def __init__(self, widget: QWidget, reload: Callable[[], None], kinds: frozenset[str] | None) -> None:
        super().__init__(widget)
        self.widget = widget
        self.reload = reload
        self.kinds = kinds
        self.stale = False
        self._timer = one_shot_timer(self, 0, self._reload_now)
        change_bus().changed.connect(self._changed)
        widget.installEventFilter(self)
        widget.destroyed.connect(self._disconnect)

    def _disconnect(self) -> None:
        try:
            change_bus().changed.disconnect(self._changed)
        except (RuntimeError, TypeError):
            pass

    def _changed(self, kind: str) -> None:
        if self.kinds is not None and kind != ANY and kind not in self.kinds:
            return
        try:
            visible = self.widget.isVisible()
        except RuntimeError:
            return
        if visible:
            self._timer.start()
        else:
            self.stale = True

    def _reload_now(self) -> None:
        self.stale = False
        self.reload()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if watched is self.widget and event.type() == QEvent.Type.Show and self.stale:
            self._timer.start()
        return False


def follow_changes(widget: QWidget, reload: Callable[[], None], kinds: Iterable[str] | None = None) -> None:
    """Reload ``widget`` whenever a change of one of ``kinds`` (default: any) is announced."""
    _Follower(widget, reload, frozenset(kinds) if kinds is not None else None)
