"""First run: the wizard driven like a clerk would, to each choice, then the first administrator."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from jaraco.classes import properties
from keyring.backend import KeyringBackend
from keyring.backends import fail
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QInputDialog, QWizard
from sqlalchemy import make_url, text
from tests_helpers import SCREENSHOTS, fits_screen, missing_access_keys  # type: ignore[import-not-found]

from motodesk import config
from motodesk.config import DatabaseChoice
from motodesk.models.db import ENV_URL, Database
from motodesk.rules.common import Role
from motodesk.services import auth
from motodesk.ui.app import create_application
from motodesk.ui.wizard import FirstRunWizard, open_configured_context


class MemoryKeyring(KeyringBackend):
    @properties.classproperty
    def priority(cls) -> float:  # noqa: N805
        raise RuntimeError("installed explicitly by the tests only")

    def __init__(self) -> None:
        super().__init__()
        self.passwords: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.passwords.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.passwords[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.passwords.pop((service, username), None)


@pytest.fixture(autouse=True)
def own_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv(ENV_URL, raising=False)
    create_application()
    # A wizard left open with typed fields asks before closing (test_wizard_dialogs.py tests that);
    # here the teardown's close() throws them away.
    import motodesk.ui.wizard as wizard_module
    from motodesk.ui.guard import Answer

    monkeypatch.setattr(wizard_module, "ask_unsaved", lambda *a, **k: Answer.DISCARD)


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
def no_keyring() -> Iterator[None]:
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.set_keyring(previous)


def _click(qtbot, wizard: FirstRunWizard, which: QWizard.WizardButton) -> None:  # noqa: ANN001
    qtbot.mouseClick(wizard.button(which), Qt.MouseButton.LeftButton)


def _choose(qtbot, radio) -> None:  # noqa: ANN001
    """Click the radio button's circle, as a person does (its centre may be empty space)."""
    qtbot.mouseClick(radio, Qt.MouseButton.LeftButton, pos=QPoint(8, radio.height() // 2))
    assert radio.isChecked()


def _fill_admin(qtbot, wizard: FirstRunWizard, password: str, repeat: str) -> None:  # noqa: ANN001
    page = wizard.admin_page
    page.full_name.clear()
    page.login.clear()
    page.password.clear()
    page.repeat.clear()
    page.full_name.insert("Rita de Cássia Nogueira")  # QTest.keyClicks types ASCII only
    qtbot.keyClicks(page.login, "rita")
    qtbot.keyClicks(page.password, password)
    qtbot.keyClicks(page.repeat, repeat)


def _shot(widget, name: str) -> None:  # noqa: ANN001
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    widget.grab().save(str(SCREENSHOTS / name))


def test_this_computer_only(qtbot, no_keyring) -> None:  # noqa: ANN001
    wizard = FirstRunWizard()
    qtbot.addWidget(wizard)
    wizard.show()
    qtbot.waitExposed(wizard)
    assert wizard.currentId() == FirstRunWizard.PAGE_CHOICE
    assert wizard.choice_page.local.text() == "Somente este c&omputador"
    assert wizard.choice_page.server.text() == "Se&rvidor da Secretaria"
    assert fits_screen(wizard) == [] and missing_access_keys(wizard) == []
    assert wizard.choice_page.local.isChecked()
    _shot(wizard, "wizard-1-choice.png")

    _click(qtbot, wizard, QWizard.WizardButton.NextButton)
    assert wizard.currentId() == FirstRunWizard.PAGE_ADMIN
    assert config.default_sqlite_path().is_file(), "the SQLite file is created in the user data folder"
    _fill_admin(qtbot, wizard, "senha-do-admin", "outra-senha")
    _click(qtbot, wizard, QWizard.WizardButton.FinishButton)
    assert "não conferem" in wizard.admin_page.message.text()
    assert wizard.isVisible()
    _fill_admin(qtbot, wizard, "curta", "curta")
    _click(qtbot, wizard, QWizard.WizardButton.FinishButton)
    assert "pelo menos 8" in wizard.admin_page.message.text()
    _fill_admin(qtbot, wizard, "senha-do-admin", "senha-do-admin")
    _shot(wizard, "wizard-3-admin.png")
    _click(qtbot, wizard, QWizard.WizardButton.FinishButton)
    assert wizard.result() == QWizard.DialogCode.Accepted

    assert config.load_choice() == DatabaseChoice.local()
    assert wizard.admin_login == "rita"
    user = auth.authenticate(wizard.ctx, "rita", "senha-do-admin")
    assert user.role is Role.ADMIN and user.full_name == "Rita de Cássia Nogueira"
    assert wizard.ctx.db.sqlite_path == config.default_sqlite_path()
    wizard.ctx.db.dispose()

    # The next start opens the configured database without the wizard.
    opened = open_configured_context()
    assert opened is not None
    ctx, suggested = opened
    assert suggested is None and auth.count_users(ctx) == 1
    ctx.db.dispose()


def test_secretariat_server_with_keyring(qtbot, memory_keyring: MemoryKeyring, empty_pg: str) -> None:  # noqa: ANN001
    url = make_url(empty_pg)
    wizard = FirstRunWizard()
    qtbot.addWidget(wizard)
    wizard.show()
    qtbot.waitExposed(wizard)
    _choose(qtbot, wizard.choice_page.server)
    _click(qtbot, wizard, QWizard.WizardButton.NextButton)
    assert wizard.currentId() == FirstRunWizard.PAGE_SERVER
    form = wizard.server_page.form
    assert form.remember.isEnabled() and form.remember.isChecked() and not form.keyring_note.isVisible()

    # Empty fields are named, nothing is tried.
    _click(qtbot, wizard, QWizard.WizardButton.NextButton)
    assert "Informe o endereço do servidor" in form.result.text()
    assert wizard.currentId() == FirstRunWizard.PAGE_SERVER

    qtbot.keyClicks(form.host, url.host)
    form.port.setValue(1)  # nobody listens there
    form.database.clear()
    qtbot.keyClicks(form.database, url.database)
    qtbot.keyClicks(form.user, url.username)
    qtbot.keyClicks(form.password, "senha-do-servidor")
    qtbot.mouseClick(form.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: form.test_button.isEnabled() and "Testando" not in form.result.text(), timeout=20000)
    assert "Não foi possível conectar ao servidor" in form.result.text()

    form.port.setValue(url.port or 5432)
    qtbot.mouseClick(form.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: form.test_button.isEnabled() and "Testando" not in form.result.text(), timeout=20000)
    assert "Conexão bem-sucedida (PostgreSQL" in form.result.text()
    assert "vazio" in form.result.text()
    _shot(wizard, "wizard-2-server.png")

    _click(qtbot, wizard, QWizard.WizardButton.NextButton)
    assert wizard.currentId() == FirstRunWizard.PAGE_ADMIN
    assert "Servidor da Secretaria" in wizard.admin_page.note.text()
    _fill_admin(qtbot, wizard, "senha-do-admin", "senha-do-admin")
    _click(qtbot, wizard, QWizard.WizardButton.FinishButton)
    assert wizard.result() == QWizard.DialogCode.Accepted

    saved = config.load_choice()
    assert saved == DatabaseChoice.server(url.host, url.port or 5432, url.database, url.username,
                                          remember_password=True)
    stored = json.loads(config.config_path().read_text(encoding="utf-8"))
    assert "senha-do-servidor" not in json.dumps(stored)
    assert memory_keyring.passwords == {("MotoDesk", saved.keyring_username): "senha-do-servidor"}
    assert auth.authenticate(wizard.ctx, "rita", "senha-do-admin").role is Role.ADMIN
    assert wizard.ctx.db.check_version() == "current"
    wizard.ctx.db.dispose()

    # A second workstation joins the same server: no administrator to create.
    second = FirstRunWizard()
    qtbot.addWidget(second)
    second.show()
    _choose(qtbot, second.choice_page.server)
    _click(qtbot, second, QWizard.WizardButton.NextButton)
    second.server_page.form.set_choice(saved)
    _click(qtbot, second, QWizard.WizardButton.NextButton)
    assert second.currentId() == FirstRunWizard.PAGE_ADMIN
    assert "já tem usuários" in second.admin_page.subTitle()
    assert not second.admin_page.form_widget.isVisible()
    _click(qtbot, second, QWizard.WizardButton.FinishButton)
    assert second.result() == QWizard.DialogCode.Accepted and second.admin_login is None
    assert auth.count_users(second.ctx) == 1
    second.ctx.db.dispose()

    # The next start takes the password from the keyring.
    opened = open_configured_context()
    assert opened is not None and not opened[0].db.is_sqlite
    opened[0].db.dispose()


def test_server_without_keyring_asks_the_password_at_each_start(qtbot, no_keyring, empty_pg: str,  # noqa: ANN001
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    url = make_url(empty_pg)
    wizard = FirstRunWizard()
    qtbot.addWidget(wizard)
    wizard.show()
    _choose(qtbot, wizard.choice_page.server)
    _click(qtbot, wizard, QWizard.WizardButton.NextButton)
    form = wizard.server_page.form
    assert form.keyring_note.isVisible()
    assert form.keyring_note.text().startswith("Não há cofre de senhas neste computador")
    assert not form.remember.isEnabled() and not form.remember.isChecked()
    qtbot.keyClicks(form.host, url.host)
    form.database.clear()
    qtbot.keyClicks(form.database, url.database)
    qtbot.keyClicks(form.user, url.username)
    qtbot.keyClicks(form.password, "senha-nao-gravada")
    _shot(wizard, "wizard-2-server-sem-cofre.png")
    _click(qtbot, wizard, QWizard.WizardButton.NextButton)
    _fill_admin(qtbot, wizard, "senha-do-admin", "senha-do-admin")
    _click(qtbot, wizard, QWizard.WizardButton.FinishButton)
    assert wizard.result() == QWizard.DialogCode.Accepted
    wizard.ctx.db.dispose()
    saved = config.load_choice()
    assert saved is not None and saved.kind == "postgresql" and not saved.remember_password
    assert "senha-nao-gravada" not in config.config_path().read_text(encoding="utf-8")

    asked: list[str] = []

    def answer(parent, title, label, echo):  # noqa: ANN001, ANN202
        asked.append(label)
        return "senha-nao-gravada", True

    monkeypatch.setattr(QInputDialog, "getText", staticmethod(answer))
    opened = open_configured_context()
    assert opened is not None and len(asked) == 1 and url.database in asked[0]
    opened[0].db.dispose()
    monkeypatch.setattr(QInputDialog, "getText", staticmethod(lambda *a: ("", False)))
    assert open_configured_context() is None, "cancelling the password question closes the program"


def test_outdated_shared_server_is_refused_with_db_upgrade(qtbot, no_keyring, empty_pg: str) -> None:  # noqa: ANN001
    db = Database.open(empty_pg)
    db.prepare()
    with db.engine.begin() as conn:
        conn.execute(text("DELETE FROM alembic_version"))  # as if made by an older MotoDesk
    db.dispose()
    url = make_url(empty_pg)
    wizard = FirstRunWizard()
    qtbot.addWidget(wizard)
    wizard.show()
    _choose(qtbot, wizard.choice_page.server)
    _click(qtbot, wizard, QWizard.WizardButton.NextButton)
    wizard.server_page.form.set_choice(DatabaseChoice.server(url.host, url.port or 5432, url.database, url.username))
    _click(qtbot, wizard, QWizard.WizardButton.NextButton)
    assert wizard.currentId() == FirstRunWizard.PAGE_SERVER
    assert "motodesk db-upgrade" in wizard.server_page.form.result.text()
