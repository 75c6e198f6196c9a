"""The dossier's dialogs: :class:`ConflictDialog` (another workstation saved first: reload, review or
keep editing), :class:`ReviewDialog` (both versions field by field) and :class:`NameChangeDialog` (a
change of name with its reason and the document that proves it)."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHeaderView,
    QMessageBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from motodesk.ui import formkit
from motodesk.ui.dossier_parts import field_label, show_value
from motodesk.ui.formkit import buddy, column, form, line_edit, push_button, text_box, wrapped_label


class ConflictDialog(QMessageBox):
    """Another workstation saved first: reload theirs, review both, or keep editing."""

    REVIEW, RELOAD, CANCEL = "review", "reload", "cancel"

    def __init__(self, parent: QWidget | None, who: str) -> None:
        super().__init__(parent)
        self.setObjectName("conflict_dialog")
        self.setIcon(QMessageBox.Icon.Warning)
        self.setWindowTitle("Dossiê alterado por outra estação")
        self.setText(f"Outra estação salvou este dossiê depois que você o abriu{who}.\n\n"
                     "Nada do que você digitou foi gravado, e tudo continua no formulário.")
        self.setInformativeText("Revise as duas versões para escolher, campo a campo, o que fica; ou "
                                "recarregue a versão gravada, descartando as suas alterações.")
        self.review_button = self.addButton("Revisar as duas versões", QMessageBox.ButtonRole.AcceptRole)
        self.reload_button = self.addButton("Recarregar a versão gravada", QMessageBox.ButtonRole.DestructiveRole)
        self.cancel_button = self.addButton("Continuar editando", QMessageBox.ButtonRole.RejectRole)
        self.setDefaultButton(self.review_button)
        self.setEscapeButton(self.cancel_button)

    def choice(self) -> str:
        clicked = self.clickedButton()
        if clicked is self.review_button:
            return self.REVIEW
        if clicked is self.reload_button:
            return self.RELOAD
        return self.CANCEL

    def ask(self) -> str:
        self.exec()
        return self.choice()


class ReviewDialog(QDialog):
    """Both versions side by side; a tick takes the stored value for that field."""

    def __init__(self, parent: QWidget | None, mine: dict[str, Any], stored: dict[str, Any], who: str) -> None:
        super().__init__(parent)
        self.setObjectName("review_dialog")
        self.setWindowTitle("Revisar as duas versões do dossiê")
        self.resize(860, 420)
        self.keys = [k for k in mine if mine[k] != stored.get(k)]
        intro = wrapped_label(f"Campos em que a sua versão difere da gravada{who}. Marque os campos em que a versão "
                              "gravada deve ficar; os demais ficam como você digitou. Depois, salve.")
        self.table = QTableWidget(len(self.keys), 4)
        self.table.setObjectName("differences")
        self.table.setHorizontalHeaderLabels(["Campo", "Sua versão", "Versão gravada", "Usar a gravada"])
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.checks: dict[str, QCheckBox] = {}
        for row, key in enumerate(self.keys):
            self.table.setItem(row, 0, QTableWidgetItem(field_label(key)))
            self.table.setItem(row, 1, QTableWidgetItem(show_value(mine[key])))
            self.table.setItem(row, 2, QTableWidgetItem(show_value(stored.get(key))))
            check = QCheckBox()
            check.setObjectName(f"use_stored_{key}")
            self.checks[key] = check
            self.table.setCellWidget(row, 3, check)
        if not self.keys:
            intro.setText("A versão gravada tem os mesmos valores que você digitou. Salve para confirmar.")
        buttons = QDialogButtonBox()
        self.save_button = buttons.addButton("Salvar com estas escolhas", QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton("Cancelar", QDialogButtonBox.ButtonRole.RejectRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)

    def take_stored(self) -> set[str]:
        return {k for k, check in self.checks.items() if check.isChecked()}


class NameChangeDialog(QDialog):
    """A supervisor changes a tied person's name: the new name, the reason, the supporting document."""

    def __init__(self, parent: QWidget | None, current_name: str) -> None:
        super().__init__(parent)
        self.setObjectName("name_change_dialog")
        self.setWindowTitle("Alterar nome")
        intro = wrapped_label(f"Nome atual: <b>{current_name}</b>. A permissão é pessoal e intransferível (Art. 6º, § 1º; "
                              "Art. 7º): o nome muda só por casamento, retificação judicial ou motivo semelhante, com o "
                              "documento anexado. A alteração aparece no histórico da permissão.")
        self.name_edit = line_edit("new_name")
        self.reason_edit = text_box("reason", max_height=80, tab_moves=True)
        self.file_edit = line_edit("document_file", "Certidão de casamento, decisão judicial… (PDF, JPEG ou PNG)")
        self.browse_button = push_button("&Escolher…", "browse", self.browse, auto_default=False)
        self.error_label = wrapped_label("", "error")
        self.error_label.setStyleSheet("color: #c62828;")
        self.error_label.hide()
        buttons = QDialogButtonBox()
        self.ok_button = buttons.addButton("&Alterar o nome", QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        column(intro, form(
            (buddy("&Novo nome:", self.name_edit), self.name_edit),
            (buddy("&Motivo:", self.reason_edit), self.reason_edit),
            (buddy("&Documento:", self.file_edit), formkit.row((self.file_edit, 1), self.browse_button)),
        ), self.error_label, buttons, parent=self)
        QWidget.setTabOrder(self.name_edit, self.reason_edit)
        QWidget.setTabOrder(self.reason_edit, self.file_edit)
        QWidget.setTabOrder(self.file_edit, self.browse_button)
        self.name_edit.setFocus()

    def browse(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, "Documento da alteração de nome", "",
                                              "Documentos (*.pdf *.jpg *.jpeg *.png);;Todos os arquivos (*)")
        if name:
            self.file_edit.setText(name)

    def values(self) -> tuple[str, str, str]:
        return self.name_edit.text(), self.reason_edit.toPlainText(), self.file_edit.text().strip()

    def show_error(self, message: str) -> None:
        self.error_label.setText(message)
        self.error_label.setVisible(bool(message))
