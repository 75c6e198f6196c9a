"""The one Ok/Cancel pair (issue 27, item 3): its texts, what Ok runs, Esc and Cancel reject."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QVBoxLayout

from motodesk.ui.widgets import ok_cancel_buttons


def _dialog(qtbot, **kwargs) -> tuple[QDialog, QDialogButtonBox, list[str]]:  # noqa: ANN001, ANN003
    dialog = QDialog()
    qtbot.addWidget(dialog)
    ran: list[str] = []
    buttons, ok = ok_cancel_buttons(dialog, "&Registrar", lambda: ran.append("ok"), **kwargs)
    QVBoxLayout(dialog).addWidget(buttons)
    assert ok is buttons.button(QDialogButtonBox.StandardButton.Ok)
    return dialog, buttons, ran


def test_ok_runs_its_action_and_cancel_rejects(qtbot) -> None:  # noqa: ANN001
    dialog, buttons, ran = _dialog(qtbot)
    cancel = buttons.button(QDialogButtonBox.StandardButton.Cancel)
    assert buttons.button(QDialogButtonBox.StandardButton.Ok).text() == "&Registrar"
    assert cancel.text() == "&Cancelar"
    dialog.show()
    qtbot.mouseClick(buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)
    assert ran == ["ok"] and dialog.result() == 0  # the action decides whether the dialog closes
    qtbot.mouseClick(cancel, Qt.MouseButton.LeftButton)
    assert dialog.result() == QDialog.DialogCode.Rejected and not dialog.isVisible()


def test_esc_rejects_and_a_none_text_keeps_qts_own(qtbot) -> None:  # noqa: ANN001
    dialog, buttons, ran = _dialog(qtbot, cancel_text=None)
    assert buttons.button(QDialogButtonBox.StandardButton.Cancel).text() not in ("", "&Cancelar")
    dialog.show()
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert not dialog.isVisible() and ran == []


def test_without_an_action_ok_accepts(qtbot) -> None:  # noqa: ANN001
    dialog = QDialog()
    qtbot.addWidget(dialog)
    buttons, ok = ok_cancel_buttons(dialog, None)
    QVBoxLayout(dialog).addWidget(buttons)
    dialog.show()
    qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
    assert dialog.result() == QDialog.DialogCode.Accepted
