"""A temporary password (an administrator chose it) is replaced at the login before the window
opens; any user changes his own password from Arquivo > Alterar minha senha (keyboard only)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from tests_helpers import SCREENSHOTS, fits_screen, missing_access_keys  # type: ignore[import-not-found]

from motodesk.rules.common import Role
from motodesk.services import auth, users
from motodesk.services.context import AppContext
from motodesk.services.errors import AuthenticationError
from motodesk.ui.app import build_main_window, create_application
from motodesk.ui.login import LoginDialog
from motodesk.ui.own_password import OwnPasswordDialog
from motodesk.ui.widgets import field_error

pytestmark = pytest.mark.qt_log_ignore("Keyboard event not accepted")  # Return locks the dialog while it saves


def _login(qtbot, ctx: AppContext, login: str, password: str) -> LoginDialog:  # noqa: ANN001
    create_application()
    dialog = LoginDialog(ctx)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    qtbot.keyClicks(dialog.login_edit, login)
    qtbot.keyClick(dialog.login_edit, Qt.Key.Key_Tab)
    qtbot.keyClicks(dialog.password_edit, password)
    qtbot.keyClick(dialog.password_edit, Qt.Key.Key_Return)
    return dialog


def test_a_temporary_password_is_replaced_before_the_window_opens(qtbot, wait_ops, ctx: AppContext,  # noqa: ANN001
                                                                  backend: str) -> None:
    users.create_user(ctx, "maria", "Maria Fonseca", Role.CLERK, "provisoria-1", temporary=True)
    dialog = _login(qtbot, ctx, "maria", "provisoria-1")
    assert dialog.result() != LoginDialog.DialogCode.Accepted and dialog.user is None
    ask = dialog.password_dialog
    assert isinstance(ask, OwnPasswordDialog) and ask.isVisible()
    qtbot.waitExposed(ask)
    assert ask.windowTitle() == "Escolha uma senha nova" and not ask.current.isVisible()
    assert ask.focusWidget() is ask.new and fits_screen(ask) == [] and missing_access_keys(ask) == []

    qtbot.keyClicks(ask.new, "minha-senha-1")
    qtbot.keyClick(ask.new, Qt.Key.Key_Tab)
    qtbot.keyClicks(ask.repeat, "minha-senha-2")
    qtbot.keyClick(ask.repeat, Qt.Key.Key_Return)
    assert field_error(ask.repeat) == "As senhas digitadas não conferem." and ask.isVisible()
    ask.repeat.selectAll()
    qtbot.keyClicks(ask.repeat, "minha-senha-1")
    if backend == "sqlite":
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        ask.grab().save(str(SCREENSHOTS / "own_password_at_login.png"))
    qtbot.keyClick(ask.repeat, Qt.Key.Key_Return)
    wait_ops()
    assert dialog.result() == LoginDialog.DialogCode.Accepted
    assert dialog.user is not None and dialog.user.login == "maria" and not dialog.user.must_change_password
    with pytest.raises(AuthenticationError):
        auth.authenticate(ctx, "maria", "provisoria-1")
    assert not auth.authenticate(ctx, "maria", "minha-senha-1").must_change_password


def test_leaving_the_new_password_unchosen_does_not_let_in(qtbot, wait_ops, ctx: AppContext) -> None:  # noqa: ANN001
    users.create_user(ctx, "joao", "João", Role.INSPECTOR, "provisoria-1")
    users.reset_password(ctx, "joao", "provisoria-2")
    dialog = _login(qtbot, ctx, "joao", "provisoria-2")
    ask = dialog.password_dialog
    assert isinstance(ask, OwnPasswordDialog)
    qtbot.waitExposed(ask)
    qtbot.keyClick(ask.new, Qt.Key.Key_Escape)  # nothing typed: it closes without asking
    assert not ask.isVisible() and dialog.user is None
    assert dialog.result() != LoginDialog.DialogCode.Accepted
    assert "precisa ser trocada" in dialog.message.text() and dialog.password_edit.text() == ""
    assert auth.authenticate(ctx, "joao", "provisoria-2").must_change_password  # still temporary


def test_any_user_changes_his_password_from_the_menu(qtbot, wait_ops, ctx: AppContext, backend: str) -> None:  # noqa: ANN001
    create_application()
    users.create_user(ctx, "ana", "Ana Paula Rezende", Role.CLERK, "senha-certa-1")
    ana = auth.authenticate(ctx, "ana", "senha-certa-1")
    window = build_main_window(ctx.as_user(ana))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    assert window.own_password_action.isEnabled() and window.own_password_action.text() == "&Alterar minha senha…"
    window.own_password_action.trigger()
    ask = window.own_password_dialog
    qtbot.waitExposed(ask)
    assert ask.windowTitle() == "Alterar minha senha" and ask.focusWidget() is ask.current
    assert fits_screen(ask) == [] and missing_access_keys(ask) == []
    qtbot.keyClicks(ask.current, "chute-errado")
    qtbot.keyClick(ask.current, Qt.Key.Key_Tab)
    qtbot.keyClicks(ask.new, "outra-senha-1")
    qtbot.keyClick(ask.new, Qt.Key.Key_Tab)
    qtbot.keyClicks(ask.repeat, "outra-senha-1")
    qtbot.keyClick(ask.repeat, Qt.Key.Key_Return)
    wait_ops()
    assert field_error(ask.current) == "Senha atual incorreta." and ask.isVisible()
    assert ask.focusWidget() is ask.current
    ask.current.selectAll()
    qtbot.keyClicks(ask.current, "senha-certa-1")
    if backend == "sqlite":
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        ask.grab().save(str(SCREENSHOTS / "own_password.png"))
    closed: list[int] = []
    ask.finished.connect(closed.append)
    qtbot.keyClick(ask.current, Qt.Key.Key_Return)
    wait_ops()
    assert closed == [OwnPasswordDialog.DialogCode.Accepted.value]  # closed (and deleted) once saved
    assert window.statusBar().currentMessage() == "Senha trocada."
    assert auth.authenticate(ctx, "ana", "outra-senha-1").login == "ana"
