"""The login dialog: a user of the secretariat, a password, three tries before a warning.

The dialog can open before the database does: `database_ready` hands it the context when the
start-up worker has opened it, and an Enter pressed before that waits for it. Nothing here imports
SQLAlchemy at module level, so the dialog appears as soon as Qt is up.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, Signal
from PySide6.QtWidgets import (
    QDialog,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from motodesk.services.errors import MotodeskError
from motodesk.ui.formkit import wrapped_label
from motodesk.ui.widgets import message_line, ok_cancel_buttons

if TYPE_CHECKING:
    from motodesk.services.context import AppContext, CurrentUser

ERROR_STYLE = "color: #b00020"
WAIT_STYLE = "color: #555"


class LoginDialog(QDialog):
    painted = Signal()  # once, when the clerk can first see the dialog (start-up work waits for it)

    def __init__(self, ctx: AppContext | None, parent: QWidget | None = None, *, hint: str | None = None,
                 opening: str = "Abrindo o banco de dados…",
                 prepare: Callable[[AppContext, CurrentUser], QWidget] | None = None,
                 login_name: str | None = None, remember: bool = False) -> None:
        """`prepare(ctx, user)` builds, hidden, what opens after the login (the main window) while
        the password is checked; it is kept in `prepared` only when the check names that user.

        `login_name` pre-fills the user (the last one to enter, or the demo's): selected, so another
        user typed there replaces it — and the check, and any failed try, is always that typed user's.
        With `remember`, the user who enters is remembered for the next start."""
        super().__init__(parent)
        self.ctx = ctx
        self.user: CurrentUser | None = None
        self.prepared: QWidget | None = None
        self.password_dialog: QWidget | None = None  # the new password a temporary one asks for
        self._prepare = prepare
        self.open_error: BaseException | None = None  # the database could not be opened
        self._opening = opening
        self._enter_pending = False
        #: The database answered and is of this version (the start-up's probe, or a context given):
        #: what "database ready" means in issue 28. Logging in needs the context too (`database_ready`).
        self.checked = ctx is not None
        #: The last password check's duration (argon2id, a security parameter), and how long of it
        #: the GUI thread still waited once the window was built: reported apart by the start-up bench.
        self.check_seconds = 0.0
        self.check_wait_seconds = 0.0
        self.setWindowTitle("MotoDesk – Entrar")
        self.setMinimumWidth(380)

        # Centred by the markup, not by Qt.AlignmentFlag: the first touch of PySide6's `Qt` namespace
        # costs ~25 ms, and the window's modules (loaded while the clerk types) pay it instead.
        title = QLabel('<p align="center"><b>MotoDesk</b><br>Secretaria Municipal de Segurança Pública, '
                       'Trânsito e Transportes<br>Patrocínio – MG</p>')
        self.login_edit = QLineEdit()
        self.login_edit.setObjectName("login")
        self.login_edit.setToolTip("Maiúsculas e minúsculas não fazem diferença no usuário.")
        self._remember = remember
        self.password_edit = QLineEdit()
        self.password_edit.setObjectName("password")
        self.password_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.message = message_line()

        form = QFormLayout()
        form.addRow("&Usuário:", self.login_edit)
        form.addRow("&Senha:", self.password_edit)
        buttons, self.enter_button = ok_cancel_buttons(self, "&Entrar", self.try_login)

        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addLayout(form)
        if hint:
            hint_label = wrapped_label(hint)
            hint_label.setStyleSheet("color: #555")
            layout.addWidget(hint_label)
        layout.addWidget(self.message)
        layout.addWidget(buttons)
        self.login_edit.setFocus()
        if login_name:
            self.login_edit.setText(login_name)
            self.login_edit.selectAll()
            self.password_edit.setFocus()
        self._painted = False
        self.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if watched is self and not self._painted and event.type() == QEvent.Type.Paint:
            self._painted = True
            self.removeEventFilter(self)
            self.painted.emit()
        return super().eventFilter(watched, event)

    def database_checked(self) -> None:
        """The start-up worker found the database open and current; its context (SQLAlchemy, the
        models) follows with `database_ready`."""
        self.checked = True

    def database_ready(self, ctx: AppContext) -> None:
        """The start-up worker opened the database; an Enter already pressed goes on now."""
        self.checked = True
        self.ctx = ctx
        if self._enter_pending:
            self._enter_pending = False
            self.enter_button.setEnabled(True)
            self._show("", ERROR_STYLE)
            self.try_login()

    def database_failed(self, exc: BaseException) -> None:
        """The database did not open: the dialog closes and the caller explains (and offers a retry)."""
        self.open_error = exc
        self.reject()

    def _show(self, text: str, style: str) -> None:
        self.message.setStyleSheet(style)
        self.message.setText(text)

    def try_login(self) -> None:
        login = self.login_edit.text().strip()
        if not login:
            self._show("Informe o usuário.", ERROR_STYLE)
            self.login_edit.setFocus()
            return
        if self.ctx is None:  # still opening: log in the moment it is ready
            self._enter_pending = True
            self.enter_button.setEnabled(False)
            self._show(f"{self._opening} Você entra assim que estiver pronto.", WAIT_STYLE)
            return
        from motodesk.services.auth import authenticate, find_login

        ctx, password = self.ctx, self.password_edit.text()
        outcome: dict[str, Any] = {}

        def check() -> None:  # argon2id lets go of Python's GIL: the window builds meanwhile
            started = time.perf_counter()
            try:
                outcome["user"] = authenticate(ctx, login, password)
            except BaseException as exc:  # noqa: BLE001 - raised again below, in the GUI thread
                outcome["error"] = exc
            finally:
                self.check_seconds = time.perf_counter() - started

        checker = threading.Thread(target=check, name="login-check", daemon=True)
        checker.start()
        prepared: QWidget | None = None
        guess = None
        try:
            if self._prepare is not None:
                guess = find_login(ctx, login)
                if guess is not None:
                    prepared = self._prepare(ctx, guess)
        except MotodeskError:  # e.g. the server went away: the check says so, the window comes later
            guess = None
        finally:
            waited = time.perf_counter()
            checker.join()
            self.check_wait_seconds = time.perf_counter() - waited
        if prepared is not None and outcome.get("user") != guess:
            prepared.close()
            prepared.deleteLater()
            prepared = None
        error = outcome.get("error")
        if isinstance(error, MotodeskError):
            self._show(str(error), ERROR_STYLE)
            self.password_edit.clear()
            self.password_edit.setFocus()
            return
        if error is not None:
            raise error
        user: CurrentUser = outcome["user"]
        if user.must_change_password:
            self._ask_new_password(ctx, user, password, prepared)
            return
        self._entered(user)
        self.prepared = prepared
        self.accept()

    def _entered(self, user: CurrentUser) -> None:
        self.user = user
        if self._remember:
            from motodesk import config

            config.save_last_login(user.login)

    def _ask_new_password(self, ctx: AppContext, user: CurrentUser, password: str,
                          prepared: QWidget | None) -> None:
        """A temporary password (an administrator chose it) lets in only once a new one is chosen."""
        from motodesk.ui.own_password import OwnPasswordDialog

        dialog = OwnPasswordDialog(ctx.as_user(user), self, current=password)
        self.password_dialog = dialog

        def finished(_result: int) -> None:
            self.password_dialog = None
            if dialog.changed is not None:
                self._entered(dialog.changed)
                self.prepared = prepared
                self.accept()
                return
            if prepared is not None:
                prepared.close()
                prepared.deleteLater()
            self._show("A senha provisória precisa ser trocada antes de entrar.", ERROR_STYLE)
            self.password_edit.clear()
            self.password_edit.setFocus()

        dialog.finished.connect(finished)
        dialog.open()
