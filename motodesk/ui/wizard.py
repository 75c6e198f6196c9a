"""First run: where the data lives (this computer or the secretariat's server), then the first administrator.

The choice is kept by `motodesk.config` (a JSON file in the user's configuration folder); a
PostgreSQL password goes into the system keyring, or, on a computer without one, is asked for at
every start — never into a plain file.
"""

from __future__ import annotations

import functools
import logging
import threading
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from PySide6.QtCore import QEventLoop, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QDialog,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QRadioButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
    QWizard,
    QWizardPage,
)

from motodesk import config
from motodesk.config import DatabaseChoice
from motodesk.errors import DatabaseError, DatabaseOutdatedError
from motodesk.rules.common import Role
from motodesk.services.connection import describe_connection
from motodesk.services.context import AppContext
from motodesk.services.errors import InvalidInputError, MotodeskError
from motodesk.ui.formkit import column, form, line_edit, named, push_button, row, wrapped_label
from motodesk.ui.guard import Answer, ask_unsaved
from motodesk.ui.ops import ServiceOp
from motodesk.ui.widgets import message_line

__all__ = ["describe_connection"]  # re-exported: the database settings test a connection as the wizard does

log = logging.getLogger(__name__)
T = TypeVar("T")

LOCAL_LABEL = "Somente este computador"
SERVER_LABEL = "Servidor da Secretaria"
LOCAL_ACCESS = "Somente este c&omputador"  # the radio buttons' texts, with their access keys
SERVER_ACCESS = "Se&rvidor da Secretaria"
OK_STYLE = "color: #1b5e20"
ERROR_STYLE = "color: #b00020"


def _busy() -> None:
    QGuiApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)


def _idle() -> None:
    QGuiApplication.restoreOverrideCursor()


def off_gui_thread(widget: QWidget | None, fn: Callable[[], T]) -> T:
    """Run ``fn`` on a worker thread and wait for it while the window goes on painting (the wizard's
    pages must answer ``validatePage`` at once, so they cannot hand a callback to ServiceOp).
    ``widget`` is disabled meanwhile; the result is returned, or the exception raised, here."""
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["result"] = fn()
        except BaseException as exc:  # noqa: BLE001 - raised again below, in the GUI thread
            outcome["error"] = exc

    worker = threading.Thread(target=work, name="wizard-work", daemon=True)
    loop = QEventLoop()
    timer = QTimer()
    timer.setInterval(15)
    timer.timeout.connect(lambda: None if worker.is_alive() else loop.quit())
    was_enabled = widget.isEnabled() if widget is not None else True
    if widget is not None:
        widget.setEnabled(False)
    _busy()
    try:
        worker.start()
        timer.start()
        if worker.is_alive():
            loop.exec()
        worker.join()
    finally:
        timer.stop()
        _idle()
        if widget is not None:
            widget.setEnabled(was_enabled)
    if "error" in outcome:
        raise outcome["error"]
    return typing.cast(T, outcome["result"])


def open_choice(choice: DatabaseChoice, password: str | None) -> AppContext:
    """Open and prepare the chosen database (created when empty), with the default settings."""
    from motodesk.ui.app import open_context

    if choice.kind == "sqlite":
        try:
            Path(choice.path).parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise DatabaseError(f"Não foi possível criar a pasta do banco de dados {Path(choice.path).parent}: "
                                f"{exc.strerror or exc}.") from exc
    return open_context(choice.url(password))


class ServerForm(QWidget):
    """Host, port, database, user, password, "remember" and "Testar conexão": the wizard's and the settings'."""

    def __init__(self, parent: QWidget | None = None, *, keyring_available: bool | None = None) -> None:
        super().__init__(parent)
        self.keyring_available = config.keyring_available() if keyring_available is None else keyring_available
        self.host = line_edit("host", "ex.: servidor-sestran ou 10.0.0.5")
        self.port = named(QSpinBox(), "port")
        self.port.setRange(1, 65535)
        self.port.setValue(config.DEFAULT_PG_PORT)
        self.database = line_edit("database", edit=QLineEdit("motodesk"))
        self.user = line_edit("user", "perfil de login das estações, ex.: motodesk_estacao")
        self.user.setToolTip("Use o perfil de login das estações (criado com 'motodesk init-db --login-role'), "
                             "nunca o dono do banco. Com perfis por usuário (--per-user-roles) ele é só a "
                             "entrada: cada pessoa entra depois com o seu próprio usuário e senha.")
        self.password = line_edit("password")
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.remember = QCheckBox("&Guardar a senha no cofre de senhas do sistema")
        self.remember.setObjectName("remember")
        self.keyring_note = QLabel(config.NO_KEYRING_MESSAGE)
        self.keyring_note.setObjectName("keyring_note")
        self.keyring_note.setWordWrap(True)
        self.keyring_note.setStyleSheet("color: #8a5a00")
        if self.keyring_available:
            self.remember.setChecked(True)
            self.keyring_note.hide()
        else:
            self.remember.setChecked(False)
            self.remember.setEnabled(False)
        self.test_button = push_button("&Testar conexão", "test_connection", self.test_connection)
        self.result = wrapped_label(name="test_result")
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        column(form(
            ("Ser&vidor:", self.host),
            ("&Porta:", self.port),
            ("&Banco de dados:", self.database),
            ("&Usuário:", self.user),
            ("S&enha:", self.password),
        ), self.remember, self.keyring_note, row(self.test_button, 1), self.result, parent=self, margins=0)
        self._test: ServiceOp | None = None

    def choice(self) -> DatabaseChoice:
        return DatabaseChoice.server(self.host.text(), self.port.value(), self.database.text(), self.user.text(),
                                     remember_password=self.remember.isChecked() and self.keyring_available)

    def set_choice(self, choice: DatabaseChoice) -> None:
        self.host.setText(choice.host)
        self.port.setValue(choice.port)
        self.database.setText(choice.database)
        self.user.setText(choice.user)
        if self.keyring_available:
            self.remember.setChecked(choice.remember_password)

    def show_result(self, text: str, ok: bool) -> None:
        self.result.setText(text)
        self.result.setStyleSheet(OK_STYLE if ok else ERROR_STYLE)

    def checked_choice(self) -> DatabaseChoice | None:
        """The choice when every field is filled in, else None with the reasons shown."""
        choice = self.choice()
        problems = choice.validate()
        if problems:
            self.show_result(" ".join(problems.values()), ok=False)
            return None
        return choice

    def test_connection(self) -> None:
        choice = self.checked_choice()
        if choice is None:
            return
        password = self.password.text()
        self.test_button.setEnabled(False)
        self.result.setStyleSheet("")
        self.result.setText("Testando a conexão…")

        def done(text: str) -> None:
            self.test_button.setEnabled(True)
            self.show_result(text, ok="versão anterior" not in text)

        def failed(exc: BaseException) -> bool:
            self.test_button.setEnabled(True)
            if isinstance(exc, (DatabaseError, MotodeskError)):
                self.show_result(str(exc), ok=False)
            else:
                log.error("connection test failed", exc_info=exc)
                self.show_result(f"Não foi possível testar a conexão: {exc}", ok=False)
            return True

        self._test = ServiceOp(self, lambda: describe_connection(choice, password), lock=False) \
            .success(done).failure(failed)
        self._test.run()


class ChoicePage(QWizardPage):
    def __init__(self, wizard: FirstRunWizard) -> None:
        super().__init__()
        self.wizard_ = wizard
        self.setTitle("Onde ficam os dados do MotoDesk")
        self.setSubTitle("Escolha uma vez; depois é possível mudar em Arquivo › Configurar banco de dados…")
        self.local = QRadioButton(LOCAL_ACCESS)
        self.local.setObjectName("choice_local")
        self.server = QRadioButton(SERVER_ACCESS)
        self.server.setObjectName("choice_server")
        group = QButtonGroup(self)
        group.addButton(self.local)
        group.addButton(self.server)
        self.local.setChecked(True)
        local_note = QLabel(
            "Os dados ficam em um arquivo deste computador, na pasta de dados do usuário:\n"
            f"{config.default_sqlite_path()}\nUse quando só esta estação atende o balcão."
        )
        server_note = QLabel("Várias estações usam o mesmo banco PostgreSQL no servidor da Secretaria. "
                             "Tenha em mãos o endereço do servidor, o banco, o usuário de login das estações e a senha.")
        for note in (local_note, server_note):
            note.setWordWrap(True)
            note.setStyleSheet("color: #555; margin-left: 22px")
            note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message = message_line()
        layout = QVBoxLayout(self)
        layout.addWidget(self.local)
        layout.addWidget(local_note)
        layout.addSpacing(12)
        layout.addWidget(self.server)
        layout.addWidget(server_note)
        layout.addStretch(1)
        layout.addWidget(self.message)

    def nextId(self) -> int:  # noqa: N802 (Qt)
        return FirstRunWizard.PAGE_SERVER if self.server.isChecked() else FirstRunWizard.PAGE_ADMIN

    def validatePage(self) -> bool:  # noqa: N802 (Qt)
        if self.server.isChecked():
            return True
        return self.wizard_.open_database(DatabaseChoice.local(), None, self.message)


class ServerPage(QWizardPage):
    def __init__(self, wizard: FirstRunWizard, keyring_available: bool | None) -> None:
        super().__init__()
        self.wizard_ = wizard
        self.setTitle(SERVER_LABEL)
        self.setSubTitle("O banco PostgreSQL compartilhado pelas estações da Secretaria.")
        self.form = ServerForm(keyring_available=keyring_available)
        layout = QVBoxLayout(self)
        layout.addWidget(self.form)
        layout.addStretch(1)

    def nextId(self) -> int:  # noqa: N802 (Qt)
        return FirstRunWizard.PAGE_ADMIN

    def validatePage(self) -> bool:  # noqa: N802 (Qt)
        choice = self.form.checked_choice()
        if choice is None:
            return False
        return self.wizard_.open_database(choice, self.form.password.text(), self.form.result)


class AdminPage(QWizardPage):
    def __init__(self, wizard: FirstRunWizard) -> None:
        super().__init__()
        self.wizard_ = wizard
        self.setTitle("Primeiro administrador")
        self.setFinalPage(True)
        self.note = wrapped_label(name="admin_note")
        self.full_name = line_edit("admin_name")
        self.login = line_edit("admin_login", edit=QLineEdit("admin"))
        self.password = line_edit("admin_password")
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.repeat = line_edit("admin_repeat")
        self.repeat.setEchoMode(QLineEdit.EchoMode.Password)
        self.form_widget = QWidget()
        form(
            ("&Nome completo:", self.full_name),
            ("&Login:", self.login),
            ("&Senha:", self.password),
            ("&Repita a senha:", self.repeat),
            parent=self.form_widget, margins=0)
        self.message = message_line()
        for field in (self.full_name, self.login, self.password, self.repeat):
            field.textEdited.connect(self.message.clear)
        column(self.note, self.form_widget, 1, self.message, parent=self)

    def nextId(self) -> int:  # noqa: N802 (Qt)
        return -1

    def initializePage(self) -> None:  # noqa: N802 (Qt)
        from motodesk.services.auth import count_users

        ctx = self.wizard_.ctx
        try:
            self.has_users = ctx is not None and off_gui_thread(self.wizard_, lambda: count_users(ctx)) > 0
        except (MotodeskError, DatabaseError) as exc:
            self.has_users = False
            self.message.setText(str(exc))
        where = self.wizard_.choice.describe() if self.wizard_.choice else ""
        if self.has_users:
            self.setSubTitle("Este banco de dados já tem usuários.")
            self.note.setText(f"Banco de dados: {where}.\nAo concluir, entre com o seu usuário e senha.")
            self.form_widget.hide()
        else:
            self.setSubTitle("Quem administra o MotoDesk: cria os usuários, faz as cópias de segurança.")
            self.note.setText(f"Banco de dados: {where}.")
            self.form_widget.show()
            self.full_name.setFocus()

    def validatePage(self) -> bool:  # noqa: N802 (Qt)
        if self.has_users:
            return True
        from motodesk.services.auth import MIN_PASSWORD_LENGTH, create_user

        if not self.full_name.text().strip():
            self.message.setText("Informe o nome completo do administrador.")
            return False
        if self.password.text() != self.repeat.text():
            self.message.setText("As senhas digitadas não conferem.")
            self.repeat.clear()
            return False
        if len(self.password.text()) < MIN_PASSWORD_LENGTH:
            self.message.setText(f"A senha deve ter pelo menos {MIN_PASSWORD_LENGTH} caracteres.")
            return False
        ctx = self.wizard_.ctx
        assert ctx is not None
        login, name, password = self.login.text(), self.full_name.text(), self.password.text()
        try:
            user = off_gui_thread(self.wizard_, lambda: create_user(ctx, login, name, Role.ADMIN, password))
        except InvalidInputError as exc:
            self.message.setText(str(exc))
            return False
        except (MotodeskError, DatabaseError) as exc:
            self.message.setText(str(exc))
            return False
        self.wizard_.admin_login = user.login
        try:
            self._register_printing_station(ctx.as_user(user))
        finally:
            if user.database is not None:  # per-user roles: the administrator's own login, used once here
                user.database.dispose()
        return True

    def _register_printing_station(self, admin: AppContext) -> None:
        """The workstation that sets up the installation is the first registered to print badges: the
        private key stays here, the database gets the public key (``register-printer-station``)."""
        from motodesk.services.badges import register_printing_station

        try:
            off_gui_thread(self.wizard_, lambda: register_printing_station(admin))
        except MotodeskError as exc:  # printing then asks for the command; the installation goes on
            log.warning("first-run wizard: this workstation was not registered to print badges: %s", exc)


class FirstRunWizard(QWizard):
    """The database choice, its test, the first administrator; `ctx` is the opened database on accept."""

    PAGE_CHOICE, PAGE_SERVER, PAGE_ADMIN = range(3)

    def __init__(self, parent: QWidget | None = None, *, keyring_available: bool | None = None,
                 ctx: AppContext | None = None, choice: DatabaseChoice | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("FirstRunWizard")
        self.setWindowTitle("MotoDesk – configuração inicial")
        self.setWizardStyle(QWizard.WizardStyle.ClassicStyle)
        self.setOption(QWizard.WizardOption.NoBackButtonOnStartPage, True)
        self.setMinimumSize(620, 460)
        self.ctx: AppContext | None = ctx
        self.choice: DatabaseChoice | None = choice
        self.password: str | None = None
        self.admin_login: str | None = None
        self.choice_page = ChoicePage(self)
        self.server_page = ServerPage(self, keyring_available)
        self.admin_page = AdminPage(self)
        self.setPage(self.PAGE_CHOICE, self.choice_page)
        self.setPage(self.PAGE_SERVER, self.server_page)
        self.setPage(self.PAGE_ADMIN, self.admin_page)
        if choice is not None and choice.kind == "postgresql":
            self.choice_page.server.setChecked(True)
            self.server_page.form.set_choice(choice)
        if ctx is not None:  # an opened database without users: only the administrator is missing
            self.setStartId(self.PAGE_ADMIN)
        self.setButtonText(QWizard.WizardButton.NextButton, "&Avançar >")
        self.setButtonText(QWizard.WizardButton.BackButton, "< V&oltar")
        self.setButtonText(QWizard.WizardButton.FinishButton, "Concl&uir")
        self.setButtonText(QWizard.WizardButton.CancelButton, "&Cancelar")

    def open_database(self, choice: DatabaseChoice, password: str | None, message: QLabel) -> bool:
        """Open and prepare the chosen database; on failure say why in `message` and stay on the page."""
        message.setText("")
        try:
            ctx = off_gui_thread(self, lambda: open_choice(choice, password))
        except DatabaseOutdatedError as exc:
            message.setStyleSheet(ERROR_STYLE)
            message.setText(str(exc))
            return False
        except (DatabaseError, MotodeskError) as exc:
            message.setStyleSheet(ERROR_STYLE)
            message.setText(str(exc))
            return False
        if self.ctx is not None and self.ctx.db is not ctx.db:
            self.ctx.db.dispose()
        self.ctx, self.choice, self.password = ctx, choice, password
        return True

    def accept(self) -> None:
        if self.choice is not None:
            self.save()
        super().accept()

    def typed(self) -> bool:
        """Whether the person typed something the wizard has not kept yet (an administrator, a server)."""
        admin, server = self.admin_page, self.server_page.form
        if self.result() == QDialog.DialogCode.Accepted:
            return False
        return any(w.text() for w in (admin.full_name, admin.password, admin.repeat, server.host, server.user,
                                      server.password))

    def reject(self) -> None:
        """Esc, Cancelar or ✕: with something typed, ask first (Salvar goes on to the end)."""
        if self.isVisible() and self.typed():
            answer = ask_unsaved(self, "O que foi digitado nesta configuração ainda não foi salvo.")
            if answer is Answer.CANCEL:
                return
            if answer is Answer.SAVE:
                if self.currentPage() is not None and self.currentPage().isFinalPage():
                    self.button(QWizard.WizardButton.FinishButton).click()
                else:
                    self.next()
                return
        if self.ctx is not None and self.result() != QDialog.DialogCode.Accepted:
            self.ctx.db.dispose()
            self.ctx = None
        super().reject()

    def save(self) -> None:
        """Remember the choice; the password only in the keyring (or nowhere: asked at each start)."""
        choice = self.choice
        assert choice is not None
        if choice.kind == "postgresql" and choice.remember_password and self.password:
            if not config.store_password(choice, self.password):
                QMessageBox.warning(self, "Cofre de senhas", "O cofre de senhas do sistema recusou a senha: ela "
                                    "será pedida a cada início do MotoDesk.")
                choice = DatabaseChoice.server(choice.host, choice.port, choice.database, choice.user,
                                               remember_password=False)
        config.save_choice(choice)
        self.choice = choice


def ask_password(choice: DatabaseChoice, parent: QWidget | None = None) -> str | None:
    """The server password for this session (no keyring, or not remembered); None when cancelled."""
    text, ok = QInputDialog.getText(
        parent, "MotoDesk – senha do banco de dados",
        f"Senha do usuário {choice.user} no servidor {choice.host}:{choice.port} (banco {choice.database}):",
        QLineEdit.EchoMode.Password,
    )
    return text if ok else None


def open_configured_context(parent: QWidget | None = None, *,
                            failed: BaseException | None = None) -> tuple[AppContext, str | None] | None:
    """The configured database, opened; the wizard when there is none (or none that opens).

    `failed` is how the start-up worker's attempt to open it ended: explained at once, not retried
    before the person says so. Returns (context, login to suggest) or None when the person gave up.
    """
    from motodesk.services.auth import count_users

    choice = config.load_choice()
    while True:
        if choice is None:
            wizard = FirstRunWizard(parent)
            if wizard.exec() != QDialog.DialogCode.Accepted or wizard.ctx is None:
                return None
            return wizard.ctx, wizard.admin_login
        password = None
        if choice.kind == "postgresql":
            password = config.load_password(choice)
            if password is None:
                password = ask_password(choice, parent)
                if password is None:
                    return None
        try:
            if failed is not None:
                raise failed
            ctx = off_gui_thread(parent, functools.partial(open_choice, choice, password))
        except (DatabaseError, MotodeskError) as exc:
            failed = None
            box = QMessageBox(QMessageBox.Icon.Critical, "MotoDesk – banco de dados",
                              f"{exc}\n\nBanco configurado: {choice.describe()}.", parent=parent)
            retry = box.addButton("Tentar de novo", QMessageBox.ButtonRole.AcceptRole)
            configure = box.addButton("Configurar banco de dados…", QMessageBox.ButtonRole.ActionRole)
            box.addButton("Sair", QMessageBox.ButtonRole.RejectRole)
            box.exec()
            if box.clickedButton() is retry:
                continue
            if box.clickedButton() is configure:
                choice = None
                continue
            return None
        if off_gui_thread(parent, functools.partial(count_users, ctx)) == 0:
            wizard = FirstRunWizard(parent, ctx=ctx, choice=choice)
            if wizard.exec() != QDialog.DialogCode.Accepted:
                return None
            return ctx, wizard.admin_login
        return ctx, None
