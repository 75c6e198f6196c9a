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
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date, datetime, time
from decimal import Decimal
from enum import Enum
from pathlib import Path
from typing import Any

from PySide6.QtCore import QLocale, Qt, QTime
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QStackedWidget,
    QTabWidget,
    QTimeEdit,
    QVBoxLayout,
    QWidget,
)

from motodesk.rules.common import Role
from motodesk.rules.text import parse_day
from motodesk.services import access_log, administration, audit, users
from motodesk.services import backup as backups
from motodesk.services.administration import SettingField
from motodesk.services.audit import verify_audit_trail
from motodesk.services.context import AppContext
from motodesk.services.errors import InvalidInputError
from motodesk.ui.changes import follow_changes
from motodesk.ui.db_settings import BackupSummary, describe_backup_summary, format_size, read_backup_summary
from motodesk.ui.formatting import format_datetime
from motodesk.ui.guard import Answer, GuardedDialog, ask_unsaved, snapshot
from motodesk.ui.mainwindow import register_page
from motodesk.ui.ops import ServiceOp, load_into
from motodesk.ui.tablemodel import Column, RowTableModel
from motodesk.ui.widgets import (
    MESSAGE_STYLE,
    NOTE_STYLE,
    DateField,
    FormattedLineEdit,
    fit_columns,
    format_partial,
    heading,
    keyboard_tabs,
    mark_field,
    message_line,
    password_field,
    passwords_differ,
    save_cancel_buttons,
    table_view,
)

PT_BR = QLocale(QLocale.Language.Portuguese, QLocale.Country.Brazil)
WARN_STYLE = "color: #8a5a00"
ACCESS_LIMIT = 500
#: Keys the settings tab's labels never take: its buttons, the page's tabs, the window's menus and
#: the backup reminder's buttons.
SETTINGS_RESERVED = "sdglucrafjomi"

USER_COLUMNS: list[Column[users.UserRow]] = [
    Column("login", "Login", lambda r: r.login),
    Column("full_name", "Nome", lambda r: r.full_name),
    Column("role", "Perfil", lambda r: r.role.label),
    Column("status", "Situação", lambda r: r.status),
    Column("last_login_at", "Último acesso", lambda r: format_datetime(r.last_login_at) or "nunca"),
]

ACCESS_COLUMNS: list[Column[access_log.AccessEntry]] = [
    Column("at", "Data e hora", lambda e: format_datetime(e.at)),
    Column("user_login", "Usuário", lambda e: e.user_login),
    Column("person_name", "Pessoa", lambda e: e.person_name or ""),
    Column("person_cpf", "CPF", lambda e: format_partial("cpf", e.person_cpf) if e.person_cpf else ""),
    Column("kind", "Dado acessado", lambda e: e.kind_label),
    Column("record_key", "Registro", lambda e: e.record_key or ""),
    Column("screen", "Tela ou serviço", lambda e: e.screen),
    Column("workstation", "Estação", lambda e: e.workstation or ""),
]


class AccessKeys:
    """Gives each label an access key: the first letter of its text not used yet; when every letter
    is used, one that is at least not ``reserved`` (the buttons' and tabs' keys, which must stay unique)."""

    def __init__(self, reserved: str = "") -> None:
        self.reserved = set(reserved.lower())
        self.used = set(self.reserved)

    def __call__(self, text: str) -> str:
        for allowed in (lambda c: c not in self.used, lambda c: c not in self.reserved):
            for i, ch in enumerate(text):
                if ch.isascii() and ch.isalnum() and allowed(ch.lower()):
                    self.used.add(ch.lower())
                    return text[:i] + "&" + text[i:]
        return text


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
        self.login_note = QLabel()
        self.login_note.setObjectName("login_note")
        self.login_note.setWordWrap(True)
        self.login_note.setStyleSheet(NOTE_STYLE)
        self.login_note.hide()
        self.login.textChanged.connect(self._login_changed)
        form = QFormLayout()
        form.addRow("&Login:", self.login)
        form.addRow("", self.login_note)
        form.addRow("&Nome completo:", self.full_name)
        form.addRow("&Perfil:", self.role)
        if existing is None:
            from motodesk.services.auth import MIN_PASSWORD_LENGTH

            form.addRow("&Senha inicial:", self.password)
            form.addRow("&Repita a senha:", self.repeat)
            self.temporary = QCheckBox("&O usuário troca esta senha no primeiro acesso")
            self.temporary.setObjectName("temporary")
            self.temporary.setChecked(True)
            form.addRow(self.temporary)
            note = QLabel(f"A senha deve ter pelo menos {MIN_PASSWORD_LENGTH} caracteres. Entregue-a pessoalmente; "
                          "o usuário pode pedir outra a um administrador.")
            note.setWordWrap(True)
            note.setStyleSheet(NOTE_STYLE)
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
        form.addRow("&Nova senha:", self.password)
        form.addRow("&Repita a senha:", self.repeat)
        self.temporary = QCheckBox("&O usuário troca esta senha ao entrar")
        self.temporary.setObjectName("temporary")
        self.temporary.setChecked(True)
        form.addRow(self.temporary)
        note = QLabel("Entregue a nova senha pessoalmente: ela é provisória, o usuário escolhe outra ao entrar "
                      "(desmarque acima só se ele mesmo a escolheu). Um usuário bloqueado continua bloqueado até "
                      "ser desbloqueado.")
        note.setWordWrap(True)
        note.setStyleSheet(NOTE_STYLE)
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
        self.table = table_view("users_table")
        self.table.setModel(self.model)
        self.table.setTabKeyNavigation(False)
        self.table.activated.connect(lambda _index: self.edit_user())
        self.table.selectionModel().currentRowChanged.connect(lambda *_: self._update_buttons())
        self.new_button = QPushButton("&Novo usuário…")
        self.new_button.setObjectName("new_user")
        self.edit_button = QPushButton("&Editar usuário…")
        self.edit_button.setObjectName("edit_user")
        self.password_button = QPushButton("Redefinir &senha…")
        self.password_button.setObjectName("reset_password")
        self.unlock_button = QPushButton("&Desbloquear")
        self.unlock_button.setObjectName("unlock")
        self.active_button = QPushButton("Desa&tivar")
        self.active_button.setObjectName("toggle_active")
        self.new_button.clicked.connect(self.new_user)
        self.edit_button.clicked.connect(self.edit_user)
        self.password_button.clicked.connect(self.reset_password)
        self.unlock_button.clicked.connect(self.unlock)
        self.active_button.clicked.connect(self.toggle_active)
        self.status = QLabel()
        self.status.setObjectName("users_status")
        self.status.setWordWrap(True)
        note = QLabel("Enter abre o usuário selecionado. Um usuário desativado não entra no MotoDesk, mas o seu "
                      "histórico fica. O último administrador ativo não pode ser desativado nem perder o perfil.")
        note.setWordWrap(True)
        note.setStyleSheet(NOTE_STYLE)
        buttons = QHBoxLayout()
        for button in (self.new_button, self.edit_button, self.password_button, self.unlock_button,
                       self.active_button):
            button.setAutoDefault(False)
            buttons.addWidget(button)
        buttons.addStretch(1)
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


# -- Configurações da lei -----------------------------------------------------------------------------
def _parse_dates(text: str) -> tuple[date, ...]:
    days: list[date] = []
    for part in text.replace(",", ";").replace("\n", ";").split(";"):
        part = part.strip()
        if not part:
            continue
        try:
            days.append(parse_day(part))
        except ValueError:
            raise ValueError(f"Data inválida: “{part}”. Use dd/mm/aaaa, separadas por ponto e vírgula.") from None
    return tuple(sorted(set(days)))


def _parse_times(text: str) -> tuple[time, ...]:
    times: list[time] = []
    for part in text.replace(",", ";").split(";"):
        part = part.strip()
        if not part:
            continue
        try:
            times.append(datetime.strptime(part, "%H:%M").time())
        except ValueError:
            raise ValueError(f"Horário inválido: “{part}”. Use hh:mm, separados por ponto e vírgula.") from None
    return tuple(times)


def _enum_label(member: Enum) -> str:
    return str(getattr(member, "label", member.value))


class SettingEditor:
    """The input of one setting and how to read and write its value."""

    def __init__(self, field: SettingField, keys: AccessKeys) -> None:
        self.field = field
        self.checks: list[QCheckBox] = []
        self.widget: QWidget = self._build(field, keys)
        self.input: QWidget = self.checks[0] if self.checks and field.kind == administration.ENUM_SET else self.widget
        self.input.setObjectName(f"setting_{field.name}")
        tip = f"{field.label}\n{field.article}"
        if field.default is not None:
            tip += f"\nPadrão: {self.shown(field.default)}"
        self.widget.setToolTip(tip)
        self.set_value(field.value)

    def _build(self, f: SettingField, keys: AccessKeys) -> QWidget:
        kind = f.kind
        if kind == administration.BOOL:
            return QCheckBox()
        if kind in (administration.INT, administration.OPTIONAL_INT):
            spin = QSpinBox()
            spin.setLocale(PT_BR)
            spin.setRange(f.minimum if f.minimum is not None else 0, f.maximum if f.maximum is not None else 10**9)
            spin.setGroupSeparatorShown(spin.maximum() >= 100_000 and not f.name.endswith("_year"))
            if kind == administration.OPTIONAL_INT:
                spin.setSpecialValueText("vazio")
            spin.setMaximumWidth(180)
            return spin
        if kind in (administration.DECIMAL, administration.MONEY):
            money = QDoubleSpinBox()
            money.setLocale(PT_BR)
            money.setDecimals(2)
            money.setRange(0, 10**9)
            money.setGroupSeparatorShown(True)
            if kind == administration.MONEY:
                money.setPrefix("R$ ")
            money.setMaximumWidth(180)
            return money
        if kind == administration.DATE:
            return DateField()
        if kind == administration.TIME:
            edit = QTimeEdit()
            edit.setDisplayFormat("HH:mm")
            return edit
        if kind == administration.ENUM and f.enum is not None:
            combo = QComboBox()
            for member in f.enum:
                combo.addItem(_enum_label(member), member.value)
            return combo
        if kind == administration.ENUM_SET and f.enum is not None:
            box = QWidget()
            row = QHBoxLayout(box)
            row.setContentsMargins(0, 0, 0, 0)
            for member in f.enum:
                check = QCheckBox(keys(_enum_label(member)))
                check.setProperty("member", member.value)
                check.setObjectName(f"setting_{f.name}_{member.value}")
                self.checks.append(check)
                row.addWidget(check)
            row.addStretch(1)
            return box
        line = QLineEdit()
        if kind == administration.DATES:
            line.setPlaceholderText("dd/mm/aaaa; dd/mm/aaaa; …")
        elif kind == administration.TIMES:
            line.setPlaceholderText("hh:mm; hh:mm; …")
        elif kind == administration.TEXTS:
            line.setPlaceholderText("um valor; outro valor; …")
        elif kind == administration.OTHER:
            line.setPlaceholderText("valor em JSON")
        return line

    # -- values -----------------------------------------------------------------------------------
    def shown(self, value: Any) -> str:
        if value is None:
            return "vazio"
        if isinstance(value, bool):
            return "sim" if value else "não"
        if isinstance(value, tuple):
            return "; ".join(self.shown(v) for v in value) or "nenhum"
        if isinstance(value, date):
            return value.strftime("%d/%m/%Y")
        if isinstance(value, time):
            return value.strftime("%H:%M")
        if isinstance(value, Enum):
            return _enum_label(value)
        if isinstance(value, Decimal):
            return PT_BR.toString(float(value), "f", 2)
        if isinstance(value, int):
            return PT_BR.toString(value)
        return str(value)

    def set_value(self, value: Any) -> None:
        w, kind = self.widget, self.field.kind
        if isinstance(w, QCheckBox):
            w.setChecked(bool(value))
        elif isinstance(w, QSpinBox):
            w.setValue(w.minimum() if value is None else int(value))
        elif isinstance(w, QDoubleSpinBox):
            w.setValue(float(value))
        elif isinstance(w, DateField):
            w.set_value(value)
        elif isinstance(w, QTimeEdit):
            w.setTime(QTime(value.hour, value.minute) if value else QTime(0, 0))
        elif isinstance(w, QComboBox):
            w.setCurrentIndex(w.findData(value.value if isinstance(value, Enum) else value))
        elif self.checks:
            chosen = {v.value if isinstance(v, Enum) else v for v in (value or ())}
            for check in self.checks:
                check.setChecked(check.property("member") in chosen)
        elif isinstance(w, QLineEdit):
            if kind in (administration.DATES, administration.TIMES, administration.TEXTS):
                w.setText(self.shown(tuple(value or ())) if value else "")
            elif kind == administration.OTHER:
                from motodesk.services.settings import _encode

                w.setText(json.dumps(_encode(value), ensure_ascii=False))
            else:
                w.setText("" if value is None else str(value))
            w.setCursorPosition(0)  # the start of a long text (a legal basis) in view

    def value(self) -> Any:
        """The typed value, in the field's type; ValueError (pt_BR) when it cannot be read."""
        w, kind, f = self.widget, self.field.kind, self.field
        if isinstance(w, QCheckBox):
            return w.isChecked()
        if isinstance(w, QSpinBox):
            if kind == administration.OPTIONAL_INT and w.value() == w.minimum():
                return None
            return w.value()
        if isinstance(w, QDoubleSpinBox):
            return Decimal(str(round(w.value(), 2))).quantize(Decimal("0.01"))
        if isinstance(w, DateField):
            problem = w.problem()
            if problem:
                raise ValueError(problem)
            return w.value()
        if isinstance(w, QTimeEdit):
            t = w.time()
            return time(t.hour(), t.minute())
        if isinstance(w, QComboBox) and f.enum is not None:
            return f.enum(w.currentData())
        if self.checks and f.enum is not None:
            return tuple(f.enum(c.property("member")) for c in self.checks if c.isChecked())
        assert isinstance(w, QLineEdit)
        text = w.text()
        if kind == administration.DATES:
            return _parse_dates(text)
        if kind == administration.TIMES:
            return _parse_times(text)
        if kind == administration.TEXTS:
            return tuple(part.strip() for part in text.split(";") if part.strip())
        if kind == administration.OTHER:
            try:
                return json.loads(text)
            except json.JSONDecodeError:
                raise ValueError("Valor inválido (esperado JSON).") from None
        return text

    def changed(self) -> bool:
        try:
            value = self.value()
        except ValueError:
            return True
        current = self.field.value
        if isinstance(current, Decimal) and isinstance(value, Decimal):
            return current.quantize(Decimal("0.01")) != value
        return bool(value != current)


class SettingsTab(QWidget):
    """The form of every LawSettings field, grouped, each with its article."""

    def __init__(self, ctx: AppContext) -> None:
        super().__init__()
        self.ctx = ctx
        self.setObjectName("settings_tab")
        self.editors: dict[str, SettingEditor] = {}
        self._clean: dict[str, Any] | None = None
        self._pending = ""
        self.stale = False
        # One page per group of settings (a list on the left): each fits the screen without scrolling,
        # and a scroll area is there should a group grow.
        self.groups = QListWidget()
        self.groups.setObjectName("settings_groups")
        self.groups.setMaximumWidth(250)
        self.groups.setWordWrap(True)
        self.stack = QStackedWidget()
        self.stack.setObjectName("settings_stack")
        self.groups.currentRowChanged.connect(self.stack.setCurrentIndex)
        self.form_holder = self.stack
        self.group_of: dict[str, int] = {}
        self.scrolls: list[QScrollArea] = []
        groups_label = QLabel("&Grupo:")
        groups_label.setBuddy(self.groups)
        self.save_button = QPushButton("&Salvar configurações")
        self.save_button.setObjectName("save_settings")
        self.save_button.setAutoDefault(False)
        self.save_button.clicked.connect(self.save)
        self.revert_button = QPushButton("&Desfazer alterações")
        self.revert_button.setObjectName("revert_settings")
        self.revert_button.setAutoDefault(False)
        self.revert_button.clicked.connect(self.revert)
        self.message = QLabel()
        self.message.setObjectName("settings_message")
        self.message.setWordWrap(True)
        intro = QLabel("Valores que a Lei nº 4.883/2017 deixa ao Decreto, ao IBGE ou à Secretaria. Cada campo "
                       "mostra o artigo a que serve; os marcados como provisórios devem ser confirmados quando o "
                       "Decreto for publicado. Toda alteração fica na trilha de auditoria (valor anterior → novo).")
        intro.setWordWrap(True)
        intro.setStyleSheet(NOTE_STYLE)
        buttons = QHBoxLayout()
        buttons.addWidget(self.save_button)
        buttons.addWidget(self.revert_button)
        buttons.addWidget(self.message, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        body = QHBoxLayout()
        side = QVBoxLayout()
        side.addWidget(groups_label)
        side.addWidget(self.groups, 1)
        body.addLayout(side)
        body.addWidget(self.stack, 1)
        layout.addLayout(body, 1)
        layout.addLayout(buttons)

    # -- loading ----------------------------------------------------------------------------------
    def reload(self) -> None:
        if self.has_changes():
            self.stale = True
            self.message.setStyleSheet(WARN_STYLE)
            self.message.setText("As configurações foram alteradas em outra estação ou tela: salve ou desfaça as "
                                 "suas alterações para ver os valores atuais.")
            return
        ctx = self.ctx
        load_into(self, lambda: administration.settings_form(ctx), self._build, key="settings")

    def _build(self, fields: list[SettingField]) -> None:
        focused = self.focusWidget().objectName() if self.focusWidget() else ""
        shown = max(0, self.groups.currentRow())
        self.groups.blockSignals(True)
        self.groups.clear()
        self.groups.blockSignals(False)
        while self.stack.count():
            old = self.stack.widget(0)
            assert old is not None
            self.stack.removeWidget(old)
            old.setParent(None)  # out of the snapshot at once
            old.deleteLater()
        self.editors = {}
        self.group_of = {}
        self.scrolls = []
        keys = AccessKeys(SETTINGS_RESERVED)
        groups: dict[str, QFormLayout] = {}
        for f in fields:
            form = groups.get(f.group)
            if form is None:
                scroll = QScrollArea()
                scroll.setObjectName(f"settings_scroll_{len(groups)}")
                scroll.setWidgetResizable(True)
                scroll.setFrameShape(QScrollArea.Shape.NoFrame)
                box = QGroupBox(f.group)
                box.setObjectName(f"group_{len(groups)}")
                form = QFormLayout(box)
                form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
                holder = QWidget()
                column = QVBoxLayout(holder)
                column.addWidget(box)
                column.addStretch(1)
                scroll.setWidget(holder)
                self.stack.addWidget(scroll)
                self.scrolls.append(scroll)
                self.groups.addItem(f.group)
                groups[f.group] = form
            self.group_of[f.name] = len(groups) - 1
            editor = SettingEditor(f, keys)
            self.editors[f.name] = editor
            label = QLabel(keys(f.label) + ":")
            label.setWordWrap(True)
            label.setBuddy(editor.input)
            label.setObjectName(f"label_{f.name}")
            label.setMinimumWidth(240)
            label.setMaximumWidth(380)
            row = QWidget()
            line = QHBoxLayout(row)
            line.setContentsMargins(0, 0, 0, 0)
            wide = f.kind in (administration.TEXT, administration.TEXTS, administration.DATES, administration.TIMES,
                              administration.OTHER)
            line.addWidget(editor.widget, 2 if wide else 0)
            notes = [f.article]
            if f.placeholder:
                notes.append("<span style='color:#8a5a00'>provisório: confirme quando o Decreto for publicado</span>")
            if f.damaged:
                notes.append("<span style='color:#b00020'>o valor gravado não pôde ser lido: vale o padrão</span>")
            article = QLabel(" · ".join(notes))
            article.setObjectName(f"article_{f.name}")
            article.setWordWrap(True)
            article.setStyleSheet("color: #555; font-size: 9pt")
            line.addWidget(article, 1)
            form.addRow(label, row)
        self.groups.setCurrentRow(min(shown, self.groups.count() - 1))
        self._clean = snapshot(self.form_holder)
        self.stale = False
        if self._pending:  # kept until the next save: the save's own reload and the one its announced
            self.message.setStyleSheet("color: #1b5e20")  # change brings may end in either order
            self.message.setText(self._pending)
        else:
            self.message.setStyleSheet(NOTE_STYLE)
            self.message.setText(f"{len(fields)} configurações.")
        target = self.findChild(QWidget, focused) if focused else None
        if target is not None:
            target.setFocus()

    # -- changes and saving -----------------------------------------------------------------------
    def has_changes(self) -> bool:
        return self._clean is not None and snapshot(self.form_holder) != self._clean

    def changes(self) -> dict[str, Any]:
        """The changed values; a value that cannot be read is marked on its field (ValueError)."""
        values: dict[str, Any] = {}
        problems: dict[QWidget, str] = {}
        for name, editor in self.editors.items():
            mark_field(editor.input, None)
            if not editor.changed():
                continue
            try:
                values[name] = editor.value()
            except ValueError as exc:
                problems[editor.input] = str(exc)
        if problems:
            for widget, text in problems.items():
                mark_field(widget, text)
            first = next(iter(problems))
            self.show_field(first)
            raise ValueError("; ".join(problems.values()))
        return values

    def save(self) -> None:
        self._pending = ""
        try:
            changes = self.changes()
        except ValueError as exc:
            self._show_error(str(exc))
            return
        if not changes:
            self.message.setStyleSheet(NOTE_STYLE)
            self.message.setText("Nenhuma configuração foi alterada.")
            return
        ctx = self.ctx
        fields = {name: editor.input for name, editor in self.editors.items()}
        names = [self.editors[k].field.label for k in changes]

        def saved(_settings: object) -> None:
            self._clean = None  # the reload rebuilds the form with the stored values
            self._pending = f"{len(changes)} configuração(ões) salva(s): {'; '.join(names)}."
            self.reload()

        def failed(exc: BaseException) -> None:
            if isinstance(exc, InvalidInputError):
                self._show_error(str(exc))
                first = next((fields[k] for k in exc.fields if k in fields), None)
                if first is not None:
                    self.show_field(first)

        ServiceOp(self, lambda: administration.save_law_settings(ctx, changes), busy="Salvando as configurações…",
                  fields=fields, change="settings", title="Configurações não salvas", on_conflict=self.revert) \
            .failure(failed).success(saved).run()

    def show_field(self, widget: QWidget) -> None:
        """Bring the group page of a field forward, scroll to it and focus it."""
        for name, editor in self.editors.items():
            if editor.input is widget:
                index = self.group_of[name]
                self.groups.setCurrentRow(index)
                self.scrolls[index].ensureWidgetVisible(widget)
        widget.setFocus(Qt.FocusReason.OtherFocusReason)

    def _show_error(self, text: str) -> None:
        self.message.setStyleSheet(MESSAGE_STYLE)
        self.message.setText(text)

    def revert(self) -> None:
        self._clean = None
        self.reload()


# -- Cópias de segurança ------------------------------------------------------------------------------
class BackupsTab(QWidget):
    def __init__(self, ctx: AppContext) -> None:
        super().__init__()
        self.ctx = ctx
        self.setObjectName("backups_tab")
        self.last = QLabel("…")
        self.last.setObjectName("last_backup")
        self.last.setWordWrap(True)
        self.last.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.contents = QLabel("…")
        self.contents.setObjectName("backup_contents")
        self.contents.setWordWrap(True)
        self.make = QPushButton("Fazer có&pia de segurança agora…")
        self.make.setObjectName("make_backup")
        self.make.setAutoDefault(False)
        self.make.clicked.connect(self.choose_and_backup)
        self.days = QSpinBox()
        self.days.setObjectName("reminder_days")
        self.days.setRange(0, 365)
        self.days.setSpecialValueText("nunca lembrar")
        self.days.setSuffix(" dia(s)")
        self.days.setButtonSymbols(QAbstractSpinBox.ButtonSymbols.UpDownArrows)
        self.save_days_button = QPushButton("Salvar o lembr&ete")
        self.save_days_button.setObjectName("save_reminder")
        self.save_days_button.setAutoDefault(False)
        self.save_days_button.clicked.connect(self.save_days)
        self.verify_button = QPushButton("Conferir a &trilha de auditoria")
        self.verify_button.setObjectName("verify_audit")
        self.verify_button.setAutoDefault(False)
        self.verify_button.clicked.connect(self.verify)
        self.message = QLabel()
        self.message.setObjectName("backups_message")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form = QFormLayout()
        form.addRow(QLabel("Última cópia:"), self.last)
        form.addRow(QLabel("Conteúdo:"), self.contents)
        reminder = QHBoxLayout()
        reminder.addWidget(self.days)
        reminder.addWidget(self.save_days_button)
        reminder.addStretch(1)
        days_label = QLabel("Lembrar a ca&da:")
        days_label.setBuddy(self.days)
        form.addRow(days_label, reminder)
        how = QLabel(
            "<b>Como restaurar</b><ol>"
            "<li>Guarde as cópias fora deste computador (pen drive, outra máquina); cada cópia é conferida ao ser "
            "gravada e assinada pela chave desta instalação.</li>"
            "<li>Para restaurar, prepare um banco de dados <b>vazio</b> (um arquivo SQLite novo ou um banco "
            "PostgreSQL recém-criado com <code>motodesk init-db</code>).</li>"
            "<li>Em um terminal, execute <code>motodesk restore ARQUIVO.zip</code> apontando para esse banco; "
            "o MotoDesk confere a assinatura, o esquema e cada linha antes de concluir.</li>"
            "<li>Abra o MotoDesk, confira a trilha de auditoria (botão acima) e os últimos cadastros.</li></ol>")
        how.setObjectName("restore_instructions")
        how.setWordWrap(True)
        how.setTextFormat(Qt.TextFormat.RichText)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        row = QHBoxLayout()
        row.addWidget(self.make)
        row.addWidget(self.verify_button)
        row.addStretch(1)
        layout.addLayout(row)
        layout.addWidget(self.message)
        layout.addWidget(how)
        layout.addStretch(1)
        self._op: object | None = None

    def reload(self) -> None:
        ctx = self.ctx
        load_into(self, lambda: read_backup_summary(ctx), self._loaded, key="backups")

    def _loaded(self, summary: BackupSummary) -> None:
        last, contents = describe_backup_summary(self.ctx, summary)
        self.last.setText(last)
        self.contents.setText(contents)
        self.days.setValue(summary.reminder_days)

    def save_days(self) -> None:
        ctx, days = self.ctx, self.days.value()

        def saved(_r: object) -> None:
            self.message.setStyleSheet("color: #1b5e20")
            self.message.setText("Lembrete salvo: " + ("nunca lembrar." if days == 0 else f"a cada {days} dia(s)."))

        ServiceOp(self, lambda: backups.set_reminder_days(ctx, days), busy="Salvando…", fields={"days": self.days},
                  change="settings").success(saved).run()

    def suggested_path(self) -> Path:
        from motodesk.ui.db_settings import suggested_backup_path

        return suggested_backup_path()

    def choose_and_backup(self) -> None:
        from motodesk.ui.db_settings import choose_backup_file

        path = choose_backup_file(self)
        if path is not None:
            self.start_backup(path)

    def start_backup(self, path: Path) -> object:
        from motodesk.ui.db_settings import run_backup

        def done(result: backups.BackupResult) -> None:
            self.message.setStyleSheet("color: #1b5e20")
            self.message.setText(f"Cópia de segurança gravada em {result.path} ({format_size(result.size)}).")
            self.reload()
            self._hide_reminder()

        self._op = run_backup(self, self.ctx, path, done)
        return self._op

    def _hide_reminder(self) -> None:
        from motodesk.ui.db_settings import BackupReminderBar

        bar = self.window().findChild(BackupReminderBar, "backup_reminder")
        if bar is not None:
            ctx = self.ctx
            load_into(self, lambda: backups.backup_reminder(ctx),
                      lambda text: bar.setVisible(bool(text) and bar.isVisible()), key="reminder")

    def verify(self) -> None:
        ctx = self.ctx

        def checked(result: Any) -> None:
            self.message.setStyleSheet("color: #1b5e20" if result.intact else MESSAGE_STYLE)
            self.message.setText(result.message)

        ServiceOp(self, lambda: verify_audit_trail(ctx), busy="Conferindo a trilha de auditoria…") \
            .success(checked).run()


# -- Registro de acessos -------------------------------------------------------------------------------
def _export_path(widget: QWidget, title: str, stem: str) -> Path | None:
    """Where to write a spreadsheet (Qt's dialog, Documentos); None when cancelled."""
    from motodesk.services.clock import local_today
    from motodesk.ui.listpage import save_file_name

    return save_file_name(widget, title, f"{stem}-{local_today().isoformat()}.xlsx", "Planilhas (*.xlsx)",
                          suffix=".xlsx")


def _day_filters(widget: QWidget, since: DateField, until: DateField) -> bool:
    """Mark an impossible date on its field; True when both are dates or empty."""
    for field in (since, until):
        problem = field.problem()
        if problem:
            mark_field(field, problem)
            field.setFocus()
            return False
        mark_field(field, None)
    return True


class AccessLogTab(QWidget):
    def __init__(self, ctx: AppContext) -> None:
        super().__init__()
        self.ctx = ctx
        self.setObjectName("access_tab")
        self.cpf = FormattedLineEdit("cpf")
        self.cpf.setObjectName("access_cpf")
        self.cpf.setMaximumWidth(180)
        self.who = QLineEdit()
        self.who.setObjectName("access_user")
        self.who.setPlaceholderText("todos")
        self.who.setMaximumWidth(160)
        self.since = DateField()
        self.since.setObjectName("access_since")
        self.until = DateField()
        self.until.setObjectName("access_until")
        self.filter_button = QPushButton("&Buscar")
        self.filter_button.setObjectName("access_filter")
        self.filter_button.setAutoDefault(False)
        self.filter_button.clicked.connect(self.reload)
        self.export_button = QPushButton("E&xportar…")
        self.export_button.setObjectName("access_export")
        self.export_button.setAutoDefault(False)
        self.export_button.clicked.connect(self.choose_and_export)
        for edit in (self.cpf, self.who, self.since, self.until):
            edit.returnPressed.connect(self.reload)
        self.model: RowTableModel[access_log.AccessEntry] = RowTableModel(ACCESS_COLUMNS)
        self.table = table_view("access_table")
        self.table.setModel(self.model)
        self.table.setTabKeyNavigation(False)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.count = QLabel()
        self.count.setObjectName("access_count")
        filters = QHBoxLayout()
        for text, field in (("CPF da &pessoa:", self.cpf), ("&Quem (login):", self.who), ("De&sde:", self.since),
                            ("A&té:", self.until)):
            label = QLabel(text)
            label.setBuddy(field)
            filters.addWidget(label)
            filters.addWidget(field)
        filters.addWidget(self.filter_button)
        filters.addWidget(self.export_button)
        filters.addStretch(1)
        note = QLabel("Cada leitura de certidões criminais, atestados médicos, das suas digitalizações e de um "
                      "dossiê completo (LGPD). Somente leitura; a exportação leva todos os acessos do filtro.")
        note.setWordWrap(True)
        note.setStyleSheet(NOTE_STYLE)
        layout = QVBoxLayout(self)
        layout.addLayout(filters)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.count)
        layout.addWidget(note)
        self._op: object | None = None

    def _filters(self) -> dict[str, Any] | None:
        if not _day_filters(self, self.since, self.until):
            return None
        cpf = "".join(ch for ch in self.cpf.text() if ch.isdigit()) or None
        return {"person_cpf": cpf, "since": self.since.value(), "until": self.until.value(),
                "user_login": self.who.text().strip() or None}

    def reload(self) -> None:
        ctx, where = self.ctx, self._filters()
        if where is None:
            return

        def loaded(entries: list[access_log.AccessEntry]) -> None:
            self.model.set_rows(entries)
            fit_columns(self.table, 260)
            more = f" (os {ACCESS_LIMIT} mais recentes)" if len(entries) >= ACCESS_LIMIT else ""
            self.count.setText(f"{len(entries)} acesso(s){more}.")

        op = ServiceOp(self, lambda: access_log.list_access(ctx, limit=ACCESS_LIMIT, **where),
                       lock=False, key="access", fields={"cpf": self.cpf})
        op.success(loaded).run()

    def choose_and_export(self) -> None:
        if self._filters() is None:
            return
        path = _export_path(self, "Exportar o registro de acessos", "registro-de-acessos")
        if path is not None:
            self.export_to(path)

    def export_to(self, path: Path) -> object:
        ctx, where = self.ctx, self._filters()
        if where is None:
            return None

        def done(count: int) -> None:
            self.count.setText(f"{count} acesso(s) exportado(s) para {path}.")

        self._op = ServiceOp(self, lambda: access_log.export_access_log(ctx, path, **where),
                             busy="Exportando o registro de acessos…", fields={"cpf": self.cpf}).success(done).run()
        return self._op


# -- Trilha de auditoria -------------------------------------------------------------------------------
AUDIT_COLUMNS: list[Column[audit.AuditEntry]] = [
    Column("id", "Nº", lambda e: str(e.id)),
    Column("at", "Data e hora", lambda e: format_datetime(e.at)),
    Column("user_login", "Usuário", lambda e: e.user_login),
    Column("what", "O quê", lambda e: e.table_label),
    Column("action", "Operação", lambda e: e.action_label),
    Column("row_key", "Registro", lambda e: e.row_key),
    Column("changes", "Alterações", lambda e: e.summary, tooltip=lambda e: e.summary.replace("; ", "\n")),
]


class AuditTab(QWidget):
    """The audit trail, newest first: who, when (from and to), what (the kind of record and the
    operation), which record (its number, or a person's CPF); a page at a time, read off the GUI thread;
    the whole filtered trail exported to xlsx."""

    def __init__(self, ctx: AppContext) -> None:
        super().__init__()
        self.ctx = ctx
        self.setObjectName("audit_tab")
        self.who = QLineEdit()
        self.who.setObjectName("audit_user")
        self.who.setPlaceholderText("todos")
        self.who.setMaximumWidth(140)
        self.since = DateField()
        self.since.setObjectName("audit_since")
        self.until = DateField()
        self.until.setObjectName("audit_until")
        self.what = QComboBox()
        self.what.setObjectName("audit_table")
        self.what.addItem("Todos", None)
        for name, label in sorted(audit.TABLE_LABELS.items(), key=lambda item: item[1]):
            self.what.addItem(label, name)
        self.action = QComboBox()
        self.action.setObjectName("audit_action")
        self.action.addItem("Todas", None)
        for key, label in audit.ACTION_LABELS.items():
            self.action.addItem(label, key)
        self.record = QLineEdit()
        self.record.setObjectName("audit_record")
        self.record.setPlaceholderText("nº ou CPF")
        self.record.setMaximumWidth(150)
        self.filter_button = QPushButton("&Buscar")
        self.filter_button.setObjectName("audit_filter")
        self.filter_button.setAutoDefault(False)
        self.filter_button.clicked.connect(self.reload)
        self.more_button = QPushButton("&Ver mais antigos")
        self.more_button.setObjectName("audit_more")
        self.more_button.setAutoDefault(False)
        self.more_button.setEnabled(False)
        self.more_button.clicked.connect(self.load_more)
        self.export_button = QPushButton("E&xportar…")
        self.export_button.setObjectName("audit_export")
        self.export_button.setAutoDefault(False)
        self.export_button.clicked.connect(self.choose_and_export)
        for edit in (self.who, self.since, self.until, self.record):
            edit.returnPressed.connect(self.reload)
        self.model: RowTableModel[audit.AuditEntry] = RowTableModel(AUDIT_COLUMNS)
        self.table = table_view("audit_table")
        self.table.setModel(self.model)
        self.table.setTabKeyNavigation(False)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.count = QLabel()
        self.count.setObjectName("audit_count")
        first, second = QHBoxLayout(), QHBoxLayout()
        for row, caption, field in ((first, "&Quem (login):", self.who), (first, "De&sde:", self.since),
                                 (first, "A&té:", self.until), (second, "O qu&e:", self.what),
                                 (second, "O&peração:", self.action), (second, "Re&gistro:", self.record)):
            caption_label = QLabel(caption)
            caption_label.setBuddy(field)
            row.addWidget(caption_label)
            row.addWidget(field)
        first.addStretch(1)
        second.addWidget(self.filter_button)
        second.addWidget(self.more_button)
        second.addWidget(self.export_button)
        second.addStretch(1)
        note = QLabel("Cada inclusão, alteração e exclusão de dados, com quem a fez e quando (somente leitura). "
                      "Senhas e chaves aparecem só como alteradas. A exportação leva toda a trilha do filtro.")
        note.setWordWrap(True)
        note.setStyleSheet(NOTE_STYLE)
        layout = QVBoxLayout(self)
        layout.addLayout(first)
        layout.addLayout(second)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.count)
        layout.addWidget(note)
        self._shown_filter: audit.AuditFilter | None = None
        self._op: object | None = None

    def current_filter(self) -> audit.AuditFilter | None:
        if not _day_filters(self, self.since, self.until):
            return None
        return audit.AuditFilter(user_login=self.who.text().strip() or None, since=self.since.value(),
                                 until=self.until.value(), table_name=self.what.currentData(),
                                 action=self.action.currentData(), record=self.record.text().strip() or None)

    def reload(self) -> None:
        ctx, where = self.ctx, self.current_filter()
        if where is None:
            return

        def loaded(entries: list[audit.AuditEntry]) -> None:
            self._shown_filter = where
            self.model.set_rows(entries)
            fit_columns(self.table, 200)  # the changes (the last column) take the rest; the tooltip all
            self._count(len(entries) >= audit.AUDIT_PAGE)

        ServiceOp(self, lambda: audit.list_audit(ctx, where, limit=audit.AUDIT_PAGE), lock=False, key="audit",
                  fields={"until": self.until}).success(loaded).run()

    def load_more(self) -> None:
        if self._shown_filter is None or not self.model.rowCount():
            return
        ctx, where = self.ctx, self._shown_filter
        oldest = self.model.row_at(self.model.rowCount() - 1).id

        def loaded(entries: list[audit.AuditEntry]) -> None:
            self.model.set_rows([*self.model.rows(), *entries])
            self._count(len(entries) >= audit.AUDIT_PAGE)

        load_into(self, lambda: audit.list_audit(ctx, where, limit=audit.AUDIT_PAGE, before_id=oldest), loaded,
                  key="audit")

    def _count(self, more: bool) -> None:
        shown = self.model.rowCount()
        self.more_button.setEnabled(more)
        tail = " (há mais antigos: Ver mais antigos)" if more else ""
        self.count.setText(f"{shown} registro(s) da trilha{tail}.")

    def choose_and_export(self) -> None:
        if self.current_filter() is None:
            return
        path = _export_path(self, "Exportar a trilha de auditoria", "trilha-de-auditoria")
        if path is not None:
            self.export_to(path)

    def export_to(self, path: Path) -> object:
        ctx, where = self.ctx, self.current_filter()
        if where is None:
            return None

        def done(count: int) -> None:
            self.count.setText(f"{count} registro(s) da trilha exportado(s) para {path}.")

        self._op = ServiceOp(self, lambda: audit.export_audit(ctx, path, where),
                             busy="Exportando a trilha de auditoria…",
                             fields={"until": self.until}).success(done).run()
        return self._op


# -- the page ------------------------------------------------------------------------------------------
def exec_dialog(dialog: GuardedDialog) -> bool:
    """exec() a dialog: True when accepted (tests replace it to drive the dialog)."""
    return bool(dialog.exec())


class AdminPage(QWidget):
    def __init__(self, ctx: AppContext, window: QWidget | None = None) -> None:
        super().__init__()
        self.ctx = ctx
        self.setObjectName("AdminPage")
        self.tabs = QTabWidget()
        keyboard_tabs(self.tabs)
        self.tabs.setObjectName("admin_tabs")
        self.users = UsersTab(ctx, lambda dialog: _module_exec(dialog))
        self.settings = SettingsTab(ctx)
        self.backups = BackupsTab(ctx)
        self.access = AccessLogTab(ctx)
        self.audit = AuditTab(ctx)
        self.tabs.addTab(self.users, "&Usuários")
        self.tabs.addTab(self.settings, "Configurações da &lei")
        self.tabs.addTab(self.backups, "&Cópias de segurança")
        self.tabs.addTab(self.access, "&Registro de acessos")
        self.tabs.addTab(self.audit, "Tr&ilha de auditoria")
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

