"""The login dialog: a user of the secretariat, a password, three tries before a warning."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from motodesk.services.auth import authenticate
from motodesk.services.context import AppContext, CurrentUser
from motodesk.services.errors import MotodeskError


class LoginDialog(QDialog):
    def __init__(self, ctx: AppContext, parent: QWidget | None = None, *, hint: str | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.user: CurrentUser | None = None
        self.setWindowTitle("MotoDesk – Entrar")
        self.setMinimumWidth(380)

        title = QLabel("<b>MotoDesk</b><br>Secretaria Municipal de Segurança Pública, Trânsito e Transportes<br>"
                       "Patrocínio – MG")
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.login_edit = QLineEdit()
        self.login_edit.setObjectName("login")
        self.password_edit = QLineEdit()
        self.password_edit.setObjectName("password")
        self.password_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.message = QLabel()
        self.message.setObjectName("message")
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #b00020")

        form = QFormLayout()
        form.addRow("&Usuário:", self.login_edit)
        form.addRow("&Senha:", self.password_edit)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Entrar")
        buttons.accepted.connect(self.try_login)
        buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addLayout(form)
        if hint:
            hint_label = QLabel(hint)
            hint_label.setWordWrap(True)
            hint_label.setStyleSheet("color: #555")
            layout.addWidget(hint_label)
        layout.addWidget(self.message)
        layout.addWidget(buttons)
        self.login_edit.setFocus()

    def try_login(self) -> None:
        login = self.login_edit.text().strip()
        if not login:
            self.message.setText("Informe o usuário.")
            self.login_edit.setFocus()
            return
        try:
            self.user = authenticate(self.ctx, login, self.password_edit.text())
        except MotodeskError as exc:
            self.message.setText(str(exc))
            self.password_edit.clear()
            self.password_edit.setFocus()
            return
        self.accept()
