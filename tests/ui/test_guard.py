"""Nothing typed is lost: Esc, Fechar or ✕ on a dialog with changes asks Salvar / Descartar / Cancelar."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit, QMessageBox, QVBoxLayout

from motodesk.ui.guard import GuardedDialog
from motodesk.ui.widgets import DateField


class _Form(GuardedDialog):
    def __init__(self) -> None:
        super().__init__()
        layout = QVBoxLayout(self)
        self.name = QLineEdit(objectName="name")
        self.day = DateField()
        self.day.setObjectName("day")
        layout.addWidget(self.name)
        layout.addWidget(self.day)
        self.saved = 0
        self.mark_clean()

    def save_and_close(self) -> None:
        self.saved += 1
        self.accept()


def answer_with(monkeypatch: pytest.MonkeyPatch, label: str, asked: list[str]) -> None:
    def exec_(box: QMessageBox) -> int:
        asked.append(box.text())
        next(b for b in box.buttons() if b.text() == label).click()
        return 0

    monkeypatch.setattr(QMessageBox, "exec", exec_)


@pytest.mark.parametrize("how", ["esc", "close"])
def test_a_dialog_without_changes_closes_without_asking(qtbot, monkeypatch, how: str) -> None:  # noqa: ANN001
    asked: list[str] = []
    answer_with(monkeypatch, "&Cancelar", asked)
    form = _Form()
    qtbot.addWidget(form)
    form.show()
    if how == "esc":
        qtbot.keyClick(form, Qt.Key.Key_Escape)
    else:
        form.close()
    assert not form.isVisible() and asked == []


@pytest.mark.parametrize(("label", "visible", "saved"), [("&Cancelar", True, 0), ("&Descartar", False, 0),
                                                         ("&Salvar", False, 1)])
@pytest.mark.parametrize("how", ["esc", "close"])
def test_a_dialog_with_changes_asks_before_closing(qtbot, monkeypatch, how: str, label: str, visible: bool,  # noqa: ANN001
                                                   saved: int) -> None:
    asked: list[str] = []
    answer_with(monkeypatch, label, asked)
    form = _Form()
    qtbot.addWidget(form)
    form.show()
    form.name.setFocus()
    qtbot.keyClicks(form.name, "Maria")
    if how == "esc":
        qtbot.keyClick(form.name, Qt.Key.Key_Escape)
    else:
        form.close()
    assert asked == ["Há alterações que ainda não foram salvas."]
    assert form.isVisible() is visible and form.saved == saved
    if visible:
        assert form.name.text() == "Maria"


def test_a_date_typed_counts_as_a_change(qtbot, monkeypatch) -> None:  # noqa: ANN001
    asked: list[str] = []
    answer_with(monkeypatch, "&Cancelar", asked)
    form = _Form()
    qtbot.addWidget(form)
    form.show()
    form.day.setText("12/03/2020")
    assert form.has_changes()
    form.close()
    assert asked and form.isVisible()


def test_a_dialog_shown_again_asks_again(qtbot, monkeypatch) -> None:  # noqa: ANN001
    asked: list[str] = []
    answer_with(monkeypatch, "&Cancelar", asked)
    form = _Form()
    qtbot.addWidget(form)
    form.show()
    form.accept()
    form.show()
    form.name.setText("Outra")
    form.close()
    assert asked and form.isVisible()


def test_confirm_defaults_to_nao_and_reports_only_sim(qtbot, monkeypatch) -> None:  # noqa: ANN001
    """The one question before an irreversible step: Sim / Não, Não the default (Enter declines)."""
    from PySide6.QtWidgets import QMessageBox

    from motodesk.ui import guard

    seen: list[tuple[object, object]] = []
    reply = [QMessageBox.StandardButton.No]

    def question(_parent, _title, _text, buttons=None, default=None):  # noqa: ANN001, ANN202
        seen.append((buttons, default))
        return reply[0]

    monkeypatch.setattr(QMessageBox, "question", staticmethod(question))
    assert guard.confirm(None, "Concluir", "Concluir a vistoria?") is False
    reply[0] = QMessageBox.StandardButton.Yes
    assert guard.confirm(None, "Concluir", "Concluir a vistoria?") is True
    assert seen[0] == (QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, QMessageBox.StandardButton.No)


def test_one_copy_of_the_confirm_question() -> None:
    """Screens ask through guard.confirm, not through copies of it."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "motodesk" / "ui"
    copies = [str(p) for p in root.rglob("*.py")
              if p.name != "guard.py" and re.search(r"^def confirm\(", p.read_text(encoding="utf-8"), re.M)]
    assert copies == []
