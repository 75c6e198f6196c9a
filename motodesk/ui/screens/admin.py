"""Administração (administrators only): users, the law's settings, backups, the access log, the audit trail.

* **Usuários**: create, edit (name and role), reset the password, unlock, disable/enable — through
  :mod:`motodesk.services.users` (never the last administrator, never oneself).
* **Configurações da lei**: a form generated from :class:`~motodesk.rules.settings.LawSettings`
  (:func:`motodesk.services.administration.settings_form`): one input per field, chosen by its
  type, with its label, article and whether it is a stand-in until the Decree. A field added to the
  dataclass shows up here by itself. Saved in one transaction, judged by the rules; a refusal is
  placed on the fields it concerns.
* **Cópias de segurança**: the last backup, a backup now, the reminder, how to restore, the check of
  the audit trail.
* **Registro de acessos**: the LGPD access log, filtered by person, reader and days; exported to xlsx.
* **Trilha de auditoria**: the audit trail, filtered by who, when, what and which record, a page
  (:data:`~motodesk.services.audit.AUDIT_PAGE` rows) at a time; exported to xlsx.

Every service call runs through :class:`~motodesk.ui.ops.ServiceOp` (off the GUI thread).

This module holds the page, its users tab and the user dialogs; the settings tab is in
:mod:`motodesk.ui.screens.admin_settings`, the backups, access-log and audit tabs in
:mod:`motodesk.ui.screens.admin_records` (re-exported here).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from motodesk.rules.common import Role
from motodesk.services import users
from motodesk.services.context import AppContext
from motodesk.ui import formkit
from motodesk.ui.changes import follow_changes
from motodesk.ui.formatting import format_datetime
from motodesk.ui.guard import Answer, GuardedDialog, ask_unsaved
from motodesk.ui.mainwindow import register_page
from motodesk.ui.ops import ServiceOp, load_into
from motodesk.ui.screens.admin_records import AccessLogTab, AuditTab, BackupsTab
from motodesk.ui.screens.admin_settings import SETTINGS_RESERVED, AccessKeys, SettingEditor, SettingsTab
from motodesk.ui.tablemodel import Column, RowTableModel
from motodesk.ui.widgets import (
    fit_columns,
    heading,
    message_line,
    note_line,
    password_field,
    passwords_differ,
    save_cancel_buttons,
    tab_widget,
    table_view,
)

USER_COLUMNS: list[Column[users.UserRow]] = [
    Column("login", "Login", lambda r: r.login),
    Column("full_name", "Nome", lambda r: r.full_name),
    Column("role", "Perfil", lambda r: r.role.label),
    Column("status", "Situação", lambda r: r.status),
    Column("last_login_at", "Último acesso", lambda r: format_datetime(r.last_login_at) or "nunca"),
]


def _password_rows(form: QFormLayout, label: str, password: QLineEdit, repeat: QLineEdit,
                   temporary: str) -> QCheckBox:
    """The password twice and, ticked, "the user changes it" (``temporary``: its text), in ``form``."""
    form.addRow(label, password)
    form.addRow("&Repita a senha:", repeat)
    check = formkit.named(QCheckBox(temporary), "temporary")
    check.setChecked(True)
    form.addRow(check)
    return check


# -- Usuários ---------------------------------------------------------------------------------------
class UserDialog(GuardedDialog):
    """A new user (login, name, role, initial password) or an existing one (name and role)."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None, existing: users.UserRow | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.existing = existing
        self.saved: users.UserRow | None = None
        self.setObjectName("UserDialog")
        self.setWindowTitle("Editar usuário" if existing else "Novo usuário")
        self.setMinimumWidth(480)
        self.login = QLineEdit(existing.login if existing else "")
        self.login.setObjectName("login")
        self.login.setReadOnly(existing is not None)
        self.login.setMaxLength(32)
        self.full_name = QLineEdit(existing.full_name if existing else "")
        self.full_name.setObjectName("full_name")
        self.role = QComboBox()
        self.role.setObjectName("role")
        for role in Role:
            self.role.addItem(role.label, role.value)
        self.role.setCurrentIndex(self.role.findData((existing.role if existing else Role.CLERK).value))
        self.password = password_field("password")
        self.repeat = password_field("repeat")
        # A login is kept as it is typed in (NFKC, lower case): said on the field, never silently.
        self.login_note = note_line("", "login_note")
        self.login_note.hide()
        self.login.textChanged.connect(self._login_changed)
        form = QFormLayout()
        form.addRow("&Login:", self.login)
        form.addRow("", self.login_note)
        form.addRow("&Nome completo:", self.full_name)
        form.addRow("&Perfil:", self.role)
        if existing is None:
            from motodesk.services.auth import MIN_PASSWORD_LENGTH

            self.temporary = _password_rows(form, "&Senha inicial:", self.password, self.repeat,
                                            "&O usuário troca esta senha no primeiro acesso")
            note = note_line(f"A senha deve ter pelo menos {MIN_PASSWORD_LENGTH} caracteres. Entregue-a pessoalmente; "
                             "o usuário pode pedir outra a um administrador.")
            form.addRow(note)
        else:
            self.password.hide()
            self.repeat.hide()
        self.message = message_line()
        buttons, self.save_button = save_cancel_buttons(self, self.save_and_close)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.message)
        layout.addWidget(buttons)
        (self.full_name if existing else self.login).setFocus()
        self.mark_clean()

    def fields(self) -> dict[str, QWidget]:
        return {"login": self.login, "full_name": self.full_name, "role": self.role, "password": self.password}

    def _login_changed(self, text: str) -> None:
        from motodesk.services.auth import normalise_login

        kept = normalise_login(text)
        differs = self.existing is None and bool(kept) and kept != text.strip()
        self.login_note.setText(f"Será gravado como “{kept}”: o login não distingue maiúsculas de minúsculas."
                                if differs else "")
        self.login_note.setVisible(differs)

    def save_and_close(self) -> None:
        self.message.clear()
        role = Role(self.role.currentData())
        name = self.full_name.text()
        ctx = self.ctx
        if self.existing is not None:
            login = self.existing.login
            fn: Callable[[], users.UserRow] = lambda: users.update_user(ctx, login, name, role)  # noqa: E731
        else:
            if passwords_differ(self.password, self.repeat, self.message):
                return
            login, password, temporary = self.login.text(), self.password.text(), self.temporary.isChecked()
            fn = lambda: users.create_user(ctx, login, name, role, password, temporary=temporary)  # noqa: E731
        ServiceOp(self, fn, busy="Salvando o usuário…", fields=self.fields(), change="user",
                  title="Usuário não salvo").failure(self._failed).success(self._saved).run()

    def _failed(self, exc: BaseException) -> None:
        self.message.setText(str(exc))

    def _saved(self, row: users.UserRow) -> None:
        self.saved = row
        self.accept()


class PasswordDialog(GuardedDialog):
    """A new password for a user, chosen by the administrator."""

    def __init__(self, ctx: AppContext, row: users.UserRow, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.row = row
        self.setObjectName("PasswordDialog")
        self.setWindowTitle(f"Redefinir a senha de {row.login}")
        self.setMinimumWidth(440)
        self.password = password_field("password")
        self.repeat = password_field("repeat")
        form = QFormLayout()
        form.addRow(QLabel(f"Usuário: <b>{row.login}</b> — {row.full_name}"))
        self.temporary = _password_rows(form, "&Nova senha:", self.password, self.repeat,
                                        "&O usuário troca esta senha ao entrar")
        note = note_line("Entregue a nova senha pessoalmente: ela é provisória, o usuário escolhe outra ao entrar "
                         "(desmarque acima só se ele mesmo a escolheu). Um usuário bloqueado continua bloqueado até "
                         "ser desbloqueado.")
        self.message = message_line()
        buttons, _save = save_cancel_buttons(self, self.save_and_close)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addWidget(self.message)
        layout.addWidget(buttons)
        self.password.setFocus()
        self.mark_clean()

    def save_and_close(self) -> None:
        if passwords_differ(self.password, self.repeat, self.message):
            return
        ctx, login, password, temporary = self.ctx, self.row.login, self.password.text(), self.temporary.isChecked()
        ServiceOp(self, lambda: users.reset_password(ctx, login, password, temporary=temporary),
                  busy="Redefinindo a senha…",
                  fields={"password": self.password}, change="user", title="Senha não redefinida") \
            .failure(lambda exc: self.message.setText(str(exc))).success(lambda _r: self.accept()).run()


class UsersTab(QWidget):
    def __init__(self, ctx: AppContext, open_dialog: Callable[[GuardedDialog], bool]) -> None:
        super().__init__()
        self.ctx = ctx
        self.open_dialog = open_dialog
        self.setObjectName("users_tab")
        self.model: RowTableModel[users.UserRow] = RowTableModel(USER_COLUMNS)
        self.table = table_view("users_table", model=self.model)
        self.table.activated.connect(lambda _index: self.edit_user())
        self.table.selectionModel().currentRowChanged.connect(lambda *_: self._update_buttons())
        self.new_button = formkit.push_button("&Novo usuário…", "new_user", self.new_user, auto_default=False)
        self.edit_button = formkit.push_button("&Editar usuário…", "edit_user", self.edit_user, auto_default=False)
        self.password_button = formkit.push_button("Redefinir &senha…", "reset_password", self.reset_password,
                                           auto_default=False)
        self.unlock_button = formkit.push_button("&Desbloquear", "unlock", self.unlock, auto_default=False)
        self.active_button = formkit.push_button("Desa&tivar", "toggle_active", self.toggle_active, auto_default=False)
        self.status = QLabel()
        self.status.setObjectName("users_status")
        self.status.setWordWrap(True)
        note = note_line("Enter abre o usuário selecionado. Um usuário desativado não entra no MotoDesk, mas o seu "
                         "histórico fica. O último administrador ativo não pode ser desativado nem perder o perfil.")
        buttons = formkit.row(self.new_button, self.edit_button, self.password_button, self.unlock_button,
                              self.active_button, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        layout.addWidget(note)
        self._update_buttons()

    def reload(self, select: str | None = None) -> None:
        chosen = self.selected()
        current = select or (chosen.login if chosen is not None else None)
        ctx = self.ctx

        def loaded(rows: list[users.UserRow]) -> None:
            self.model.set_rows(rows)
            fit_columns(self.table)
            logins = [r.login for r in rows]
            if rows:
                row = logins.index(current) if current in logins else 0
                self.table.selectRow(row)
            self._update_buttons()

        load_into(self, lambda: users.list_users(ctx), loaded, key="users")

    def selected(self) -> users.UserRow | None:
        index = self.table.currentIndex()
        if not index.isValid() or index.row() >= self.model.rowCount():
            return None
        return self.model.row_at(index.row())

    def _update_buttons(self) -> None:
        row = self.selected()
        for button in (self.edit_button, self.password_button, self.active_button):
            button.setEnabled(row is not None)
        self.unlock_button.setEnabled(row is not None and (row.locked or row.failed_logins > 0))
        self.active_button.setText("A&tivar" if row is not None and not row.active else "Desa&tivar")

    def new_user(self) -> None:
        dialog = UserDialog(self.ctx, self)
        if self.open_dialog(dialog) and dialog.saved is not None:
            self.status.setText(f"Usuário {dialog.saved.login} criado ({dialog.saved.role.label}).")
            self.reload(dialog.saved.login)

    def edit_user(self) -> None:
        row = self.selected()
        if row is None:
            return
        dialog = UserDialog(self.ctx, self, existing=row)
        if self.open_dialog(dialog) and dialog.saved is not None:
            self.status.setText(f"Usuário {row.login} salvo.")
            self.reload(row.login)

    def reset_password(self) -> None:
        row = self.selected()
        if row is None:
            return
        if self.open_dialog(PasswordDialog(self.ctx, row, self)):
            self.status.setText(f"Senha de {row.login} redefinida.")

    def _run(self, fn: Callable[[], users.UserRow], busy: str, done: str) -> None:
        def finished(row: users.UserRow) -> None:
            self.status.setText(done)
            self.reload(row.login)

        ServiceOp(self, fn, busy=busy, change="user").success(finished).run()

    def unlock(self) -> None:
        row = self.selected()
        if row is not None:
            ctx, login = self.ctx, row.login
            self._run(lambda: users.unlock(ctx, login), "Desbloqueando…", f"Usuário {login} desbloqueado.")

    def toggle_active(self) -> None:
        row = self.selected()
        if row is not None:
            ctx, login, active = self.ctx, row.login, not row.active
            self._run(lambda: users.set_active(ctx, login, active), "Salvando…",
                      f"Usuário {login} {'ativado' if active else 'desativado'}.")


# -- the page ------------------------------------------------------------------------------------------
def exec_dialog(dialog: GuardedDialog) -> bool:
    """exec() a dialog: True when accepted (tests replace it to drive the dialog)."""
    return bool(dialog.exec())


class AdminPage(QWidget):
    def __init__(self, ctx: AppContext, window: QWidget | None = None) -> None:
        super().__init__()
        self.ctx = ctx
        self.setObjectName("AdminPage")
        self.users = UsersTab(ctx, lambda dialog: _module_exec(dialog))
        self.settings = SettingsTab(ctx)
        self.backups = BackupsTab(ctx)
        self.access = AccessLogTab(ctx)
        self.audit = AuditTab(ctx)
        self.tabs = tab_widget("admin_tabs", (self.users, "&Usuários"), (self.settings, "Configurações da &lei"),
                               (self.backups, "&Cópias de segurança"), (self.access, "&Registro de acessos"),
                               (self.audit, "Tr&ilha de auditoria"))
        layout = QVBoxLayout(self)
        layout.addWidget(heading("Administração"))
        layout.addWidget(self.tabs, 1)
        follow_changes(self.users, self.users.reload, kinds={"user"})
        follow_changes(self.settings, self.settings.reload, kinds={"settings"})
        follow_changes(self.backups, self.backups.reload, kinds={"settings", "backup"})
        follow_changes(self.audit, self._reload_audit_if_loaded)
        self._loaded: set[int] = set()
        self.tabs.currentChanged.connect(self._first_load)
        self._first_load(0)

    def _first_load(self, index: int) -> None:
        if index in self._loaded:
            return
        self._loaded.add(index)
        tab = self.tabs.widget(index)
        reload = getattr(tab, "reload", None)
        if reload is not None:
            reload()

    def _reload_audit_if_loaded(self) -> None:
        if self.tabs.indexOf(self.audit) in self._loaded:
            self.audit.reload()

    def confirm_close(self) -> bool:
        """The window closes only after the settings typed and not saved are saved or discarded."""
        if not self.settings.has_changes():
            return True
        self.tabs.setCurrentWidget(self.settings)
        answer = ask_unsaved(self, "Há configurações da lei alteradas que ainda não foram salvas.")
        if answer is Answer.SAVE:
            self.settings.save()
            return False
        return answer is Answer.DISCARD


def _module_exec(dialog: GuardedDialog) -> bool:
    return exec_dialog(dialog)


@register_page("admin")
def admin_page(ctx: AppContext, window: QWidget) -> QWidget:
    if ctx.user.role is not Role.ADMIN:
        note = QLabel("A Administração é reservada aos administradores.")
        page = QWidget()
        QVBoxLayout(page).addWidget(note)
        return page
    return AdminPage(ctx, window)


__all__ = [
    "SETTINGS_RESERVED", "USER_COLUMNS", "AccessKeys", "AccessLogTab", "AdminPage", "AuditTab", "BackupsTab",
    "PasswordDialog", "SettingEditor", "SettingsTab", "UserDialog", "UsersTab", "admin_page", "exec_dialog",
]
