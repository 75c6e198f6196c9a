"""The login window on a database with per-user roles: the server checks the password, the window
gets the user's own connection, and a wrong or locked login reads the same."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from motodesk.rules.common import Role
from motodesk.services import auth, users
from motodesk.ui.app import create_application
from motodesk.ui.login import LoginDialog
from tests.pgroles.conftest import CHEFE_PASSWORD, RolesSite


def _dialog(qtbot: Any, ctx: Any, **kwargs: Any) -> LoginDialog:
    create_application()
    dialog = LoginDialog(ctx, **kwargs)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def _type(qtbot: Any, dialog: LoginDialog, login: str, password: str) -> None:
    dialog.login_edit.clear()
    dialog.password_edit.clear()
    qtbot.keyClicks(dialog.login_edit, login)
    qtbot.keyClicks(dialog.password_edit, password)
    qtbot.keyClick(dialog.password_edit, Qt.Key.Key_Return)


def test_the_login_window_logs_in_as_the_users_own_role(qtbot: Any, roles_site: RolesSite) -> None:
    admin = roles_site.login("chefe", CHEFE_PASSWORD)
    users.create_user(admin, "bia", "Bia Vistoriadora", Role.INSPECTOR, "senha-da-bia-1", temporary=False)
    built: list[str] = []
    dialog = _dialog(qtbot, roles_site.gate, prepare=lambda c, u: built.append(u.login) or QWidget())
    _type(qtbot, dialog, "bia", "senha-errada-1")
    assert dialog.message.text() == auth.WRONG_CREDENTIALS
    _type(qtbot, dialog, "bia", "senha-da-bia-1")
    assert dialog.result() == LoginDialog.DialogCode.Accepted
    user = dialog.user
    assert user is not None and user.role is Role.INSPECTOR and user.database is not None
    roles_site.opened.append(user.database)
    with roles_site.gate.as_user(user).db.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT session_user").scalar() == roles_site.role_of("bia")
    assert built == []  # the pre-login role reads no users: nothing is built ahead of the check
