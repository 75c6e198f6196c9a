"""Nothing typed is lost: Esc, Fechar or the window's ✕ on a form with changes asks first.

:class:`GuardedDialog` snapshots the values of its input widgets when :meth:`mark_clean` is called
(after loading) and compares on close. With changes, :func:`ask_unsaved` offers
Salvar / Descartar / Cancelar: Salvar runs :meth:`save_and_close` (which closes the dialog when the
save succeeds), Descartar closes, Cancelar goes back to the form.

Forms that are not dialogs (a page holding a dossier) use :func:`snapshot` and :func:`ask_unsaved`
directly.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QCloseEvent, QKeyEvent, QShowEvent
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QComboBox,
    QDialog,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)


class Answer(Enum):
    SAVE = "save"
    DISCARD = "discard"
    CANCEL = "cancel"


def ask_unsaved(parent: QWidget | None, what: str = "Há alterações que ainda não foram salvas.") -> Answer:
    box = QMessageBox(QMessageBox.Icon.Question, "Alterações não salvas", what,
                      QMessageBox.StandardButton.NoButton, parent)
    box.setObjectName("unsaved_question")
    box.setInformativeText("Deseja salvá-las antes de fechar?")
    save = box.addButton("&Salvar", QMessageBox.ButtonRole.AcceptRole)
    discard = box.addButton("&Descartar", QMessageBox.ButtonRole.DestructiveRole)
    cancel = box.addButton("&Cancelar", QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(save)
    box.setEscapeButton(cancel)
    box.exec()
    clicked = box.clickedButton()
    if clicked is save:
        return Answer.SAVE
    if clicked is discard:
        return Answer.DISCARD
    return Answer.CANCEL


def confirm(parent: QWidget | None, title: str, text: str) -> bool:
    """Ask before an irreversible step: Sim / Não, with Não the default (Enter and Esc both decline).

    ``text`` names what will happen. The one copy of this question for every screen.
    """
    answer = QMessageBox.question(parent, title, text,
                                  QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                                  QMessageBox.StandardButton.No)
    return answer == QMessageBox.StandardButton.Yes


def _value(widget: QWidget) -> Any:
    if isinstance(widget, QLineEdit):
        return widget.text()
    if isinstance(widget, QComboBox):
        return (widget.currentIndex(), widget.currentText() if widget.isEditable() else None)
    if isinstance(widget, QPlainTextEdit):
        return widget.toPlainText()
    if isinstance(widget, QTextEdit):
        return None if widget.isReadOnly() else widget.toPlainText()
    if isinstance(widget, QAbstractSpinBox):
        return widget.text()
    if isinstance(widget, QAbstractButton) and widget.isCheckable():
        return widget.isChecked()
    return None


def _inputs(root: QWidget) -> list[QWidget]:
    found: list[QWidget] = []
    for child in root.findChildren(QWidget):
        if child.property("guard_ignore"):
            continue
        parent = child.parentWidget()
        if isinstance(parent, (QComboBox, QAbstractSpinBox)):  # their inner line edit
            continue
        if isinstance(child, QLineEdit) and child.isReadOnly():
            continue
        if isinstance(child, (QLineEdit, QComboBox, QPlainTextEdit, QTextEdit, QAbstractSpinBox)) or (
                isinstance(child, QAbstractButton) and child.isCheckable()):
            found.append(child)
    return found


def snapshot(root: QWidget) -> dict[str, Any]:
    """The values of every input under ``root`` (keyed by object name or position)."""
    values: dict[str, Any] = {}
    for index, widget in enumerate(_inputs(root)):
        name = widget.objectName() or f"#{index}:{type(widget).__name__}"
        values[name] = _value(widget)
    return values


class GuardedDialog(QDialog):
    """A dialog that asks before throwing away what was typed. Subclasses call :meth:`mark_clean`
    once loaded and override :meth:`save_and_close` (default: ``accept()``, for dialogs whose OK is
    the save) and, when the snapshot is not the whole truth, :meth:`has_changes`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._clean: dict[str, Any] | None = None
        self._closing_ok = False

    def mark_clean(self) -> None:
        self._clean = snapshot(self)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - a dialog shown again asks again
        self._closing_ok = False
        super().showEvent(event)

    def has_changes(self) -> bool:
        return self._clean is not None and snapshot(self) != self._clean

    def save_and_close(self) -> None:
        self.accept()

    def _may_close(self) -> bool:
        if self._closing_ok or not self.has_changes():
            return True
        answer = ask_unsaved(self)
        if answer is Answer.SAVE:
            self.save_and_close()
            return False  # save_and_close accepts the dialog when the save succeeds
        return answer is Answer.DISCARD

    def accept(self) -> None:
        self._closing_ok = True
        super().accept()

    def reject(self) -> None:  # Esc and Fechar/Cancelar buttons
        if self._may_close():
            self._closing_ok = True
            super().reject()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - the window's ✕
        if self._closing_ok or self._may_close():
            self._closing_ok = True
            event.accept()
            super().closeEvent(event)
        else:
            event.ignore()

    def done(self, result: int) -> None:
        self._closing_ok = True
        super().done(result)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        if event.key() == Qt.Key.Key_Escape:
            self.reject()
            return
        super().keyPressEvent(event)
