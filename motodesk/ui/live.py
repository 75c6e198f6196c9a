"""The Qt side of the live updates: another workstation's commits reach this window's pages.

:class:`LiveUpdates` runs :class:`motodesk.services.live.ChangeListener` (its own thread and
connection) and turns each announcement, on the GUI thread, into :func:`notify_changed` for every
kind it names (so :func:`follow_changes` reloads a shown page at once and a hidden one when next
shown) and into :func:`notify_remote` for what follows one record (an open dossier). The listener
never runs on the GUI thread: a server that is away costs the window nothing but a status line.

:class:`ChangedElsewhereBanner` is the notice a form shows when its record was changed at another
workstation while open: "alterado por <usuário> em outra estação", with Recarregar.
"""

from __future__ import annotations

from collections.abc import Callable

import shiboken6
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QMainWindow, QPushButton, QWidget

from motodesk.services import live
from motodesk.services.context import AppContext
from motodesk.services.live import Announcement
from motodesk.ui.changes import change_bus, notify_changed, notify_remote

#: The status-bar text while the listener is away (the window itself keeps working).
OFFLINE_TEXT = "Atualização automática interrompida: reconectando ao servidor…"


class LiveUpdates(QObject):
    """One listener for a window's context (PostgreSQL only: :attr:`active` is False on SQLite)."""

    arrived = Signal(object)  # an Announcement, emitted on the listener's thread
    connection = Signal(bool)  # listening (True) or reconnecting (False), idem

    def __init__(self, ctx: AppContext, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.online = False
        self.received = 0
        self.arrived.connect(self._deliver)  # queued: the GUI thread runs it
        self.connection.connect(self._connection)
        self.listener = live.listen(ctx.db.url, ctx.origin, self._from_thread, self._state_from_thread)

    @property
    def active(self) -> bool:
        return self.listener is not None

    def stop(self) -> None:
        """Stop listening; waits a moment at most (the thread is a daemon and ends on its own)."""
        if self.listener is not None:
            self.listener.stop(timeout=1.0)
            self.listener = None

    # -- the listener's thread ------------------------------------------------------------------
    def _from_thread(self, announcement: Announcement) -> None:
        if shiboken6.isValid(self):
            self.arrived.emit(announcement)

    def _state_from_thread(self, online: bool) -> None:
        if shiboken6.isValid(self):
            self.connection.emit(online)

    # -- the GUI thread ----------------------------------------------------------------------------
    def _deliver(self, announcement: Announcement) -> None:
        self.received += 1
        for kind in announcement.kinds:
            notify_changed(kind)
        notify_remote(announcement)

    def _connection(self, online: bool) -> None:
        self.online = online


def follow_record(widget: QWidget, kind: str, current: Callable[[], int | None],
                  changed: Callable[[Announcement], None]) -> None:
    """Call ``changed`` when another workstation changes the ``kind`` record ``current()`` names."""

    def received(announcement: object) -> None:
        if not isinstance(announcement, Announcement) or not shiboken6.isValid(widget):
            return
        record_id = current()
        if record_id is not None and announcement.touches(kind, record_id):
            changed(announcement)

    bus = change_bus()
    bus.remote.connect(received)

    def gone() -> None:
        try:
            bus.remote.disconnect(received)
        except (RuntimeError, TypeError):
            pass

    widget.destroyed.connect(gone)


class ChangedElsewhereBanner(QFrame):
    """"Alterado por <usuário> em outra estação" over a form, with Recarregar."""

    reload = Signal()

    def __init__(self, what: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.what = what  # "Este dossiê"
        self.author: str | None = None
        self.setObjectName("changed_elsewhere")
        self.setStyleSheet("#changed_elsewhere { background: #fff3e0; border: 2px solid #ef6c00; }")
        self.text = QLabel()
        self.text.setObjectName("changed_elsewhere_text")
        self.text.setWordWrap(True)
        self.reload_button = QPushButton("&Recarregar")
        self.reload_button.setObjectName("changed_elsewhere_reload")
        self.reload_button.setToolTip("Descartar o que está no formulário e mostrar a versão gravada")
        self.reload_button.setAutoDefault(False)
        self.reload_button.clicked.connect(self.reload)
        row = QHBoxLayout(self)
        row.addWidget(self.text, 1)
        row.addWidget(self.reload_button)
        self.hide()

    @property
    def stale(self) -> bool:
        """The form shows a version older than the stored one."""
        return self.author is not None

    def show_change(self, announcement: Announcement) -> None:
        self.author = announcement.author
        if not announcement.resync:
            who = f" por {announcement.author}" if announcement.author else ""
            self.text.setText(f"⚠ {self.what} foi alterado{who} em outra estação. "
                              "Recarregue para ver a versão gravada antes de salvar.")
        else:  # the connection to the server was away: changes may have been missed
            self.text.setText(f"⚠ {self.what} pode ter sido alterado em outra estação enquanto a conexão "
                              "com o servidor esteve interrompida. Recarregue para ver a versão gravada.")
        self.text.setAccessibleName(self.text.text())
        self.show()

    def clear(self) -> None:
        self.author = None
        self.hide()


def start_live_updates(window: QMainWindow, ctx: AppContext) -> LiveUpdates | None:
    """The main window's listener (PostgreSQL only), with a status-bar line while it reconnects.
    The caller stops it (:meth:`LiveUpdates.stop`) when the window's session ends."""
    updates = LiveUpdates(ctx, window)
    if not updates.active:
        updates.deleteLater()
        return None
    notice = QLabel("")
    notice.setObjectName("live_updates_state")
    notice.setStyleSheet("color: #b71c1c;")
    window.statusBar().addPermanentWidget(notice)
    updates.connection.connect(lambda online: notice.setText("" if online else OFFLINE_TEXT))
    return updates
