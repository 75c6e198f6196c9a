"""The app starts offscreen in pt_BR, logs in and shows the main window with its navigation."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox, QLabel, QListWidget

from motodesk.rules.common import Role
from motodesk.services import auth
from motodesk.services.context import AppContext
from motodesk.ui.app import build_main_window, create_application
from motodesk.ui.login import LoginDialog
from motodesk.ui.mainwindow import SECTIONS, section_visible


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


# -- issue #18: the window on the counter's screen -------------------------------------------------
def _window(qtbot, ctx: AppContext, role: Role, login: str):  # noqa: ANN001, ANN202
    create_application()
    auth.create_user(ctx, login, f"Usuária {login}", role, "senha-certa-9")
    window = build_main_window(ctx.as_user(auth.authenticate(ctx, login, "senha-certa-9")))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return window


@pytest.mark.parametrize("role", [Role.CLERK, Role.INSPECTOR, Role.SUPERVISOR, Role.ADMIN], ids=lambda r: r.value)
def test_the_window_never_grows_past_the_screen_on_any_page(qtbot, ctx: AppContext, wait_ops,  # noqa: ANN001
                                                            role: Role) -> None:
    """Every page each role sees, with the buttons that role has, fits the counter's screen: no button
    outside the window nor cut at the side of its page (the supervisor's Permissões had two rows of
    buttons wider than the page, found by the real-X walk of issue #26)."""
    from tests_helpers import SCREENSHOTS, drain_events, fits_screen  # type: ignore[import-not-found]

    window = _window(qtbot, ctx, role, f"tela_{role.value}")
    screen = window.screen().availableGeometry()
    for key, _label in SECTIONS:
        if not section_visible(key, role):
            continue
        window.show_section(key)
        wait_ops()
        drain_events()
        assert fits_screen(window) == [], key
        assert window.frameGeometry().width() <= screen.width() and window.frameGeometry().height() <= screen.height()
        if role is Role.ADMIN:
            window.grab().save(str(SCREENSHOTS / f"main-{key}.png"))


def test_the_status_bar_shows_the_time_of_sao_paulo(qtbot, ctx: AppContext, monkeypatch) -> None:  # noqa: ANN001
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from motodesk.ui import mainwindow

    window = _window(qtbot, ctx, Role.CLERK, "relogio")
    # 02:30 UTC is still the evening before in Patrocínio (UTC-3)
    monkeypatch.setattr(mainwindow, "local_now",
                        lambda: datetime(2026, 3, 10, 2, 30, tzinfo=ZoneInfo("UTC")).astimezone(
                            ZoneInfo("America/Sao_Paulo")))
    window.update_clock()
    assert window.clock.text() == "09/03/2026 23:30"
    assert window.clock.isVisible()


def test_administration_is_shown_to_administrators_only(qtbot, ctx: AppContext) -> None:  # noqa: ANN001
    from motodesk.ui.mainwindow import load_page_module

    clerk = _window(qtbot, ctx, Role.CLERK, "balcao")
    keys = [k for k, _ in SECTIONS]
    nav = clerk.nav
    assert nav.item(keys.index("admin")).isHidden()
    assert not nav.item(keys.index("people")).isHidden()
    admin = _window(qtbot, ctx, Role.ADMIN, "chefe")
    assert not admin.nav.item(keys.index("admin")).isHidden()
    # the "not available" note only for a section whose screen module does not exist
    assert load_page_module("people") is True
    assert load_page_module("no_such_section") is False
    page = admin.show_section("admin")
    has_module = load_page_module("admin")
    assert (page.findChild(QLabel, "unavailable") is None) == has_module


def test_qt_file_dialogs_speak_portuguese(qtbot) -> None:  # noqa: ANN001
    from PySide6.QtWidgets import QFileDialog

    create_application()
    dialog = QFileDialog(None, "Salvar")
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog)
    qtbot.addWidget(dialog)
    dialog.show()
    texts = {label.text().replace("&", "") for label in dialog.findChildren(QLabel)}
    assert {"Procurar em:", "Nome do arquivo:", "Arquivos do tipo:"} <= texts
    assert not any("Look in" in t or "Files of" in t for t in texts)
