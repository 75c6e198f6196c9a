"""Errors shown in one place: expected ones through show_error, unexpected ones through the hook."""

from __future__ import annotations

import logging
import sys
import traceback
from types import TracebackType

from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from motodesk.errors import DatabaseError
from motodesk.services.errors import InvalidInputError, MotodeskError

log = logging.getLogger(__name__)


def show_error(parent: QWidget | None, exc: BaseException, title: str | None = None) -> None:
    """A pt_BR message box for an expected error (MotodeskError or DatabaseError)."""
    heading: str = title if title else getattr(exc, "title", "Não foi possível concluir")
    text = str(exc)
    fields = getattr(exc, "fields", None) if isinstance(exc, InvalidInputError) else None
    box = QMessageBox(QMessageBox.Icon.Warning, heading, text, QMessageBox.StandardButton.Ok, parent)
    if fields:
        box.setInformativeText("\n".join(f"• {reason}" for reason in fields.values()))
    box.exec()


def show_unexpected(parent: QWidget | None, details: str) -> None:
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Critical)
    box.setWindowTitle("Erro inesperado")
    box.setText("Ocorreu um erro inesperado. O que estava gravado não foi alterado.\n"
                "Se o problema continuar, copie os detalhes e envie ao suporte.")
    box.setDetailedText(details)
    copy = box.addButton("Copiar detalhes", QMessageBox.ButtonRole.ActionRole)
    box.addButton(QMessageBox.StandardButton.Close)
    copy.clicked.disconnect()
    copy.clicked.connect(lambda: QApplication.clipboard().setText(details))
    box.exec()


def excepthook(exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
    if isinstance(exc, (MotodeskError, DatabaseError)):
        show_error(QApplication.activeWindow(), exc)
        return
    details = "".join(traceback.format_exception(exc_type, exc, tb))
    log.error("unhandled exception\n%s", details)
    if QApplication.instance() is None:
        sys.__excepthook__(exc_type, exc, tb)
        return
    show_unexpected(QApplication.activeWindow(), details)


def install_excepthook() -> None:
    sys.excepthook = excepthook
