"""A user changes his own password: from the menu at any time, and at the login when the password
is a temporary one an administrator chose (:func:`motodesk.services.auth.change_own_password`)."""

from __future__ import annotations

from PySide6.QtWidgets import QFormLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from motodesk.services.auth import MIN_PASSWORD_LENGTH, change_own_password
from motodesk.services.context import AppContext, CurrentUser
from motodesk.ui.formkit import wrapped_label
from motodesk.ui.guard import GuardedDialog
from motodesk.ui.ops import ServiceOp
from motodesk.ui.widgets import (
    NOTE_STYLE,
    mark_field,
    message_line,
    password_field,
    passwords_differ,
    save_cancel_buttons,
)


class OwnPasswordDialog(GuardedDialog):
    """Current password (asked unless the login just checked it), the new one twice."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None, *, current: str | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self._known_current = current
        self.changed: CurrentUser | None = None
        self.setObjectName("OwnPasswordDialog")
        forced = current is not None
        self.setWindowTitle("Escolha uma senha nova" if forced else "Alterar minha senha")
        self.setMinimumWidth(460)

        self.current = password_field("current")
        self.new = password_field("new")
        self.repeat = password_field("repeat")
        for edit in (self.current, self.new, self.repeat):
            edit.setMaxLength(256)
        form = QFormLayout()
        form.addRow(QLabel(f"Usuário: <b>{ctx.user.login}</b> — {ctx.user.full_name}"))
        if forced:
            intro = wrapped_label("A sua senha foi definida por um administrador e é provisória: escolha agora uma senha "
                                  "que só você conheça para continuar.")
            intro.setObjectName("intro")
            form.addRow(intro)
            self.current.hide()
        else:
            form.addRow("Senha &atual:", self.current)
        form.addRow("&Nova senha:", self.new)
        form.addRow("&Repita a nova senha:", self.repeat)
        note = QLabel(f"Pelo menos {MIN_PASSWORD_LENGTH} caracteres, diferente da senha atual.")
        note.setStyleSheet(NOTE_STYLE)
        form.addRow(note)
        self.message = message_line()
        buttons, self.save_button = save_cancel_buttons(self, self.save_and_close)
        self.save_button.setDefault(True)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.message)
        layout.addWidget(buttons)
        for edit in (self.current, self.new, self.repeat):
            edit.textEdited.connect(lambda _t, e=edit: self._edited(e))
        (self.new if forced else self.current).setFocus()
        self.mark_clean()

    def _edited(self, edit: QLineEdit) -> None:
        mark_field(edit, None)
        self.message.clear()

    def save_and_close(self) -> None:
        self.message.clear()
        for field in (self.current, self.new, self.repeat):
            mark_field(field, None)
        if passwords_differ(self.new, self.repeat, self.message):
            return
        ctx, new = self.ctx, self.new.text()
        current = self._known_current if self._known_current is not None else self.current.text()
        ServiceOp(self, lambda: change_own_password(ctx, current, new), busy="Trocando a senha…",
                  fields={"current": self.current, "new": self.new}, change="user",
                  title="Senha não trocada") \
            .failure(self._failed).success(self._saved).run()

    def _failed(self, exc: BaseException) -> bool:
        self.message.setText(str(exc))
        return False  # the field errors still go on their fields

    def _saved(self, user: CurrentUser) -> None:
        self.changed = user
        self.accept()
