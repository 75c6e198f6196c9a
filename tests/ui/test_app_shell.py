"""The app starts offscreen in pt_BR, logs in and shows the main window with its navigation."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox, QListWidget

from motodesk.rules.common import Role
from motodesk.services import auth
from motodesk.services.context import AppContext
from motodesk.ui.app import build_main_window, create_application
from motodesk.ui.login import LoginDialog
from motodesk.ui.mainwindow import SECTIONS


def test_qt_speaks_portuguese(qtbot) -> None:  # noqa: ANN001
    create_application()
    box = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel | QDialogButtonBox.StandardButton.Yes)
    qtbot.addWidget(box)
    assert box.button(QDialogButtonBox.StandardButton.Cancel).text() == "Cancelar"
    assert box.button(QDialogButtonBox.StandardButton.Yes).text().replace("&", "") == "Sim"


def test_login_then_main_window(qtbot, ctx: AppContext) -> None:  # noqa: ANN001
    create_application()
    auth.create_user(ctx, "ana", "Ana Paula Rezende", Role.CLERK, "senha-certa-1")
    dialog = LoginDialog(ctx)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    qtbot.keyClicks(dialog.login_edit, "ana")
    qtbot.keyClicks(dialog.password_edit, "senha-errada")
    qtbot.keyClick(dialog.password_edit, Qt.Key.Key_Return)
    assert "Usuário ou senha incorretos" in dialog.message.text()
    assert dialog.result() != LoginDialog.DialogCode.Accepted
    qtbot.keyClicks(dialog.password_edit, "senha-certa-1")
    qtbot.keyClick(dialog.password_edit, Qt.Key.Key_Return)
    assert dialog.result() == LoginDialog.DialogCode.Accepted
    assert dialog.user is not None and dialog.user.role is Role.CLERK

    window = build_main_window(ctx.as_user(dialog.user))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    nav = window.findChild(QListWidget, "navigation")
    assert [nav.item(i).text() for i in range(nav.count())] == [label for _, label in SECTIONS]
    assert "Ana Paula Rezende" in window.windowTitle()
    assert window.menuBar().actions()[0].text() == "&Arquivo"


def test_the_first_page_has_the_keyboard_when_the_window_opens(qtbot, ctx: AppContext) -> None:  # noqa: ANN001
    create_application()
    auth.create_user(ctx, "bia", "Beatriz Lopes", Role.CLERK, "senha-certa-2")
    user = auth.authenticate(ctx, "bia", "senha-certa-2")
    window = build_main_window(ctx.as_user(user))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(lambda: window.focusWidget() is not None)
    people = window.page_by_key["people"]
    assert window.focusWidget() is people.focusProxy() or people.isAncestorOf(window.focusWidget())
