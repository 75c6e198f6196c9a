"""Issue #18 on the start-up and administration dialogs: login, the import dialog, the wizard's Esc."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QStandardPaths, Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox
from reports_factory import fill_register, register_row  # type: ignore[import-not-found]
from tests_helpers import SCREENSHOTS, fits_screen, missing_access_keys, valid_cpf  # type: ignore[import-not-found]

from motodesk.services.context import AppContext
from motodesk.ui.app import create_application
from motodesk.ui.import_dialog import ImportDialog
from motodesk.ui.login import LoginDialog
from motodesk.ui.wizard import FirstRunWizard


@pytest.fixture(autouse=True)
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    create_application()


def _answer(monkeypatch: pytest.MonkeyPatch, label: str) -> list[str]:
    asked: list[str] = []

    def exec_(box: QMessageBox) -> int:
        asked.append(box.text())
        next(b for b in box.buttons() if b.text() == label).click()
        return 0

    monkeypatch.setattr(QMessageBox, "exec", exec_)
    return asked


def test_login_fits_and_has_access_keys(qtbot) -> None:  # noqa: ANN001
    dialog = LoginDialog(None)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert fits_screen(dialog) == [] and missing_access_keys(dialog) == []
    dialog.grab().save(str(SCREENSHOTS / "login.png"))


def test_import_dialog_keys_documents_folder_and_esc_asks(qtbot, monkeypatch: pytest.MonkeyPatch,  # noqa: ANN001
                                                          clerk: AppContext, tmp_path: Path) -> None:
    path = fill_register(tmp_path / "cadastro.xlsx", [register_row(valid_cpf(), "Marta Lúcia Ferreira", "QWE4R56")])
    dialog = ImportDialog(clerk)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert fits_screen(dialog) == [] and missing_access_keys(dialog) == []
    assert not dialog.table.tabKeyNavigation()
    opened: list[tuple[object, object]] = []

    def open_name(*args: object, **kwargs: object) -> tuple[str, str]:
        opened.append((args[2], kwargs.get("options")))
        return str(path), ""

    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(open_name))
    with qtbot.waitSignal(dialog.previewed, timeout=20_000):
        dialog.choose_button.click()
    documents = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    assert opened == [(documents, QFileDialog.Option.DontUseNativeDialog)]
    assert dialog.confirm_button.isEnabled()

    asked = _answer(monkeypatch, "&Cancelar")
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert dialog.isVisible() and asked and "não foi confirmada" in asked[0]
    _answer(monkeypatch, "&Descartar")
    dialog.close()
    assert not dialog.isVisible()


def test_wizard_esc_with_typed_administrator_asks(qtbot, monkeypatch: pytest.MonkeyPatch, ctx: AppContext) -> None:  # noqa: ANN001
    wizard = FirstRunWizard(ctx=AppContext(ctx.db), keyring_available=False)
    qtbot.addWidget(wizard)
    wizard.show()
    qtbot.waitExposed(wizard)
    assert wizard.currentId() == FirstRunWizard.PAGE_ADMIN
    assert fits_screen(wizard) == [] and missing_access_keys(wizard) == []
    qtbot.keyClicks(wizard.admin_page.password, "segredo-123")
    asked = _answer(monkeypatch, "&Cancelar")
    qtbot.keyClick(wizard, Qt.Key.Key_Escape)
    assert wizard.isVisible() and asked
    _answer(monkeypatch, "&Descartar")
    qtbot.keyClick(wizard, Qt.Key.Key_Escape)
    assert not wizard.isVisible()
