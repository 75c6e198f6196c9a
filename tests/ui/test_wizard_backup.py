"""After the first run: the administrator's backup dialog, the reminder bar and the database settings."""

from __future__ import annotations

from pathlib import Path

import keyring
import pytest
from keyring.backends import fail
from PySide6.QtCore import QPoint, Qt, QThreadPool
from PySide6.QtWidgets import QFileDialog, QMessageBox, QPushButton, QToolBar
from tests_helpers import SCREENSHOTS, fits_screen, missing_access_keys  # type: ignore[import-not-found]

from motodesk import config
from motodesk.models.db import ENV_URL
from motodesk.rules.common import Role
from motodesk.services import backup as backups
from motodesk.services.context import AppContext, CurrentUser
from motodesk.ui.app import build_main_window, create_application
from motodesk.ui.db_settings import BackupDialog, DatabaseSettingsDialog


@pytest.fixture(autouse=True)
def own_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv(ENV_URL, raising=False)
    create_application()


def _admin(ctx: AppContext) -> AppContext:
    return ctx.as_user(CurrentUser(id=1, login="admin", full_name="Rita Nogueira", role=Role.ADMIN))


def _menu_texts(window) -> list[str]:  # noqa: ANN001
    return [a.text() for a in window.menuBar().actions()[0].menu().actions() if a.isVisible()]


def test_reminder_bar_and_menu_for_the_administrator_only(qtbot, ctx: AppContext, wait_ops) -> None:  # noqa: ANN001
    window = build_main_window(_admin(ctx))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    wait_ops()  # the reminder is read off the GUI thread
    assert "&Cópia de segurança…" in _menu_texts(window) and "Configurar &banco de dados…" in _menu_texts(window)
    bar = window.findChild(QToolBar, "backup_reminder")
    assert bar is not None and bar.isVisible()
    assert "Nenhuma cópia de segurança" in bar.label.text()
    window.grab().save(str(SCREENSHOTS / "wizard-after-reminder.png"))
    qtbot.mouseClick(bar.findChild(QPushButton, "backup_reminder_later"), Qt.MouseButton.LeftButton)
    assert not bar.isVisible(), "the reminder never blocks: 'Lembrar mais tarde' hides it"

    clerk = build_main_window(ctx.as_user(CurrentUser(id=2, login="ana", full_name="Ana", role=Role.CLERK)))
    qtbot.addWidget(clerk)
    assert clerk.findChild(QToolBar, "backup_reminder") is None
    assert "&Cópia de segurança…" not in _menu_texts(clerk)
    # The pages search in the background: let them finish before the database is closed.
    qtbot.waitUntil(lambda: QThreadPool.globalInstance().activeThreadCount() == 0, timeout=30000)


def test_backup_dialog_writes_a_backup_off_the_gui_thread(qtbot, ctx: AppContext, tmp_path: Path,  # noqa: ANN001
                                                          monkeypatch: pytest.MonkeyPatch, wait_ops) -> None:
    admin = _admin(ctx)
    dialog = BackupDialog(admin)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    wait_ops()
    assert fits_screen(dialog) == [] and missing_access_keys(dialog) == []
    assert dialog.last.text() == "nenhuma registrada"
    target = tmp_path / "copia-do-balcao"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(target), "")))
    told: list[str] = []
    monkeypatch.setattr(QMessageBox, "information", staticmethod(lambda parent, title, text: told.append(text)))
    qtbot.mouseClick(dialog.make, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.result_ is not None, timeout=60000)
    wait_ops()
    path = target.with_suffix(".zip")
    assert dialog.result_.path == path and path.is_file()
    assert told and str(path) in told[0]
    assert str(path) in dialog.last.text() and "por admin" in dialog.last.text()
    assert backups.read_manifest(path).counts["settings"] > 0

    dialog.days.selectAll()
    qtbot.keyClicks(dialog.days, "3")
    assert dialog.days.value() == 3
    qtbot.keyClick(dialog.days, Qt.Key.Key_Return)
    wait_ops()
    assert backups.reminder_days(ctx) == 3
    dialog.grab().save(str(SCREENSHOTS / "wizard-after-backup-dialog.png"))


def test_database_settings_saves_the_server_for_the_next_start(qtbot, ctx: AppContext,  # noqa: ANN001
                                                               monkeypatch: pytest.MonkeyPatch, wait_ops) -> None:
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        dialog = DatabaseSettingsDialog(_admin(ctx))
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitExposed(dialog)
        assert dialog.local.isChecked() and not dialog.form.isEnabled()
        assert fits_screen(dialog) == [] and missing_access_keys(dialog) == []
        qtbot.mouseClick(dialog.server, Qt.MouseButton.LeftButton, pos=QPoint(8, dialog.server.height() // 2))
        assert dialog.form.isEnabled() and dialog.form.keyring_note.isVisible()
        qtbot.keyClicks(dialog.form.host, "127.0.0.1")
        dialog.form.port.setValue(1)
        qtbot.keyClicks(dialog.form.user, "postgres")
        dialog.save()
        wait_ops(30_000)
        assert "Não foi possível conectar" in dialog.form.result.text()
        assert config.load_choice() is None, "an unreachable server is not saved"
        dialog.grab().save(str(SCREENSHOTS / "wizard-after-database-settings.png"))
        qtbot.mouseClick(dialog.local, Qt.MouseButton.LeftButton, pos=QPoint(8, dialog.local.height() // 2))
        told: list[str] = []
        monkeypatch.setattr(QMessageBox, "information", staticmethod(lambda parent, title, text: told.append(text)))
        dialog.save()
        wait_ops()
        assert config.load_choice() == config.DatabaseChoice.local()
        assert told and "Feche e abra o MotoDesk" in told[0]
    finally:
        keyring.set_keyring(previous)


def test_database_settings_esc_with_changes_asks(qtbot, ctx: AppContext, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    asked: list[str] = []

    def exec_(box: QMessageBox) -> int:
        asked.append(box.text())
        next(b for b in box.buttons() if b.text() == "&Cancelar").click()
        return 0

    monkeypatch.setattr(QMessageBox, "exec", exec_)
    dialog = DatabaseSettingsDialog(_admin(ctx), keyring_available=False)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert not dialog.isVisible() and asked == []  # nothing typed: Esc closes
    dialog = DatabaseSettingsDialog(_admin(ctx), keyring_available=False)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.server.setChecked(True)
    qtbot.keyClicks(dialog.form.host, "servidor-sestran")
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert dialog.isVisible() and asked == ["Há alterações que ainda não foram salvas."]
