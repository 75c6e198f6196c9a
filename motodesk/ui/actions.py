"""Every QAction of the main window, defined once with its text, shortcut and tip."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QWidget


@dataclass(frozen=True)
class ActionSpec:
    key: str
    text: str
    shortcut: QKeySequence.StandardKey | str | None = None
    tip: str = ""


ACTIONS = (
    ActionSpec("new_person", "&Nova pessoa", "Ctrl+N", "Abrir um dossiê em branco"),
    ActionSpec("find", "&Buscar", QKeySequence.StandardKey.Find, "Buscar por nome, CPF, placa, permissão ou RENAVAM"),
    ActionSpec("save", "&Salvar", QKeySequence.StandardKey.Save, "Salvar o dossiê aberto"),
    ActionSpec("backup", "&Cópia de segurança…", None, "Gravar uma cópia de segurança de todo o banco de dados"),
    ActionSpec("database_settings", "Configurar &banco de dados…", None,
               "Escolher o banco desta estação: este computador ou o servidor da Secretaria"),
    ActionSpec("logout", "&Trocar de usuário", None, "Sair e entrar com outro usuário"),
    ActionSpec("quit", "Sai&r", QKeySequence.StandardKey.Quit, "Fechar o MotoDesk"),
    ActionSpec("about", "&Sobre o MotoDesk", None, ""),
    ActionSpec("verify_badge", "&Verificar crachá…", "Ctrl+Shift+V",
               "Conferir o código QR de um crachá (leitor USB ou texto colado)"),
)


class ActionCollection:
    def __init__(self, parent: QWidget) -> None:
        self._actions: dict[str, QAction] = {}
        for spec in ACTIONS:
            action = QAction(spec.text, parent)
            action.setObjectName(f"action_{spec.key}")
            if spec.shortcut is not None:
                action.setShortcut(QKeySequence(spec.shortcut))
            if spec.tip:
                action.setStatusTip(spec.tip)
                action.setToolTip(spec.tip)
            self._actions[spec.key] = action

    def __getitem__(self, key: str) -> QAction:
        return self._actions[key]
