"""Access keys that never clash (issue #26 item 2).

Within each window, the menu bar, the page shown and its buttons together underline no letter twice,
and no underlined letter does nothing (a label without a buddy, a button whose Ctrl+P replaced its
Alt+letter). Every page and tab of the main window, for every role, and every dialog is checked.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)
from tests_helpers import drain_events, no_button_down  # type: ignore[import-not-found]
from window_factory import shown  # type: ignore[import-not-found]

from motodesk.rules.common import Role, ServiceType
from motodesk.services import auth
from motodesk.services.context import AppContext
from motodesk.ui import keyboard
from motodesk.ui.app import create_application

SQLITE_ONLY = pytest.mark.parametrize("backend", ["sqlite"])


@pytest.fixture(autouse=True)
def _app() -> None:
    create_application()


def _problems(window: QWidget, where: str) -> list[str]:
    """After Alt is pressed (the letters of widgets added since the window was shown are sorted then,
    as a clerk's hand always presses Alt before the letter)."""
    from PySide6.QtTest import QTest

    target = QApplication.focusWidget() or window
    QTest.keyPress(target, Qt.Key.Key_Alt)
    QTest.keyRelease(target, Qt.Key.Key_Alt)
    return ([f"[{where}] letra repetida {c}" for c in keyboard.clashes(window)]
            + [f"[{where}] letra que não faz nada: {w}" for w in keyboard.idle_letters(window)])


# --- the helper ----------------------------------------------------------------------------------


def test_mnemonic_letters() -> None:
    assert keyboard.mnemonic("Sa&lvar") == "l"
    assert keyboard.mnemonic("Prazo && multa") is None
    assert keyboard.mnemonic("&& &Data") == "d"
    assert keyboard.with_mnemonic("&Adicionar candidato…", {"a"}) == "Adicionar &candidato…"
    assert keyboard.with_mnemonic("&Ana", {"a", "n"}) is None


def test_a_clash_with_the_menu_bar_moves_the_pages_letter_and_the_moved_letter_works(qtbot) -> None:  # noqa: ANN001
    window = QMainWindow()
    window.menuBar().addMenu("&Arquivo")
    body = QWidget()
    layout = QVBoxLayout(body)
    add = QPushButton("&Adicionar candidato…")
    also = QPushButton("&Salvar")
    again = QPushButton("&Salvar rascunho")
    idle = QLabel("&Sem parceiro:")  # promises a letter, has no buddy
    layout.addWidget(idle)
    for button in (add, also, again):
        layout.addWidget(button)
    window.setCentralWidget(body)
    before = [add.text(), also.text(), again.text()]
    assert before == ["&Adicionar candidato…", "&Salvar", "&Salvar rascunho"]
    shown(qtbot, window)
    assert keyboard.clashes(window) == [] and keyboard.idle_letters(window) == []
    assert window.menuBar().actions()[0].text() == "&Arquivo"  # the menu bar keeps its letters
    assert add.text() == "Adicionar &candidato…" and also.text() == "&Salvar"
    assert keyboard.mnemonic(again.text()) not in {"a", "s", "c"}
    assert idle.text() == "Sem parceiro:"
    clicked: list[str] = []
    add.clicked.connect(lambda: clicked.append("add"))
    qtbot.keyClick(QApplication.focusWidget() or window, Qt.Key.Key_C, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: clicked == ["add"], timeout=1000)


def test_a_letter_that_appears_later_is_moved_when_alt_is_pressed(qtbot) -> None:  # noqa: ANN001
    dialog = QDialog()
    layout = QVBoxLayout(dialog)
    field = QLineEdit()
    label = QLabel("&Local:")
    label.setBuddy(field)
    record = QPushButton("Gravar")
    layout.addWidget(label)
    layout.addWidget(field)
    layout.addWidget(record)
    shown(qtbot, dialog)
    record.setText("&Lavrar auto")  # the screen changed its text after it was shown
    assert keyboard.clashes(dialog)
    pressed: list[bool] = []
    record.clicked.connect(lambda: pressed.append(True))
    qtbot.keyPress(QApplication.focusWidget(), Qt.Key.Key_Alt)  # Alt pressed: the letters are sorted out first
    qtbot.keyRelease(QApplication.focusWidget(), Qt.Key.Key_Alt)
    assert keyboard.clashes(dialog) == []
    assert record.text() == "&Lavrar auto"  # the button keeps its letter, the label shows its new one
    letter = keyboard.mnemonic(label.text())
    assert letter and letter != "l"
    record.setFocus()
    qtbot.keyClick(record, getattr(Qt.Key, f"Key_{letter.upper()}"), Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(no_button_down)  # an animated click, had the letter pressed the button, has fired
    drain_events()
    assert pressed == [] and QApplication.focusWidget() is field


def test_a_button_whose_shortcut_replaced_its_letter_answers_to_both(qtbot) -> None:  # noqa: ANN001
    from PySide6.QtGui import QKeySequence

    dialog = QDialog()
    layout = QVBoxLayout(dialog)
    print_button = QPushButton("&Imprimir…")
    print_button.setShortcut(QKeySequence("Ctrl+P"))  # Alt+I no longer did anything
    layout.addWidget(QLineEdit())
    layout.addWidget(print_button)
    pressed: list[str] = []
    print_button.clicked.connect(lambda: pressed.append("x"))
    shown(qtbot, dialog)
    assert keyboard.idle_letters(dialog) == []
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_I, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: pressed == ["x"], timeout=1000)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_P, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: pressed == ["x", "x"], timeout=1000)


def test_the_pdf_previews_underlined_letters_work(qtbot, monkeypatch) -> None:  # noqa: ANN001
    from datetime import datetime

    from motodesk.printing.documents import (
        InspectionItem,
        InspectionReportData,
        PersonInfo,
        VehicleInfo,
        render_inspection_report,
    )
    from motodesk.ui.pdfpreview import PdfPreviewDialog

    pdf = render_inspection_report(InspectionReportData(
        report_number="000001/2026", service=ServiceType.MOTOTAXI,
        holder=PersonInfo("José Carlos Ferreira", "123.456.789-09"), vehicle=VehicleInfo("ABC-1234"),
        items=[InspectionItem("Art. 1º", "Item", "ok")], approved=True, inspector_name="Carlos",
        inspected_at=datetime(2026, 3, 2, 9, 30)), generated_at=datetime(2026, 3, 2, 9, 31))
    done: list[str] = []
    monkeypatch.setattr(PdfPreviewDialog, "print_document", lambda self: done.append("imprimir"))
    monkeypatch.setattr(PdfPreviewDialog, "save_as", lambda self: done.append("salvar"))
    dialog = shown(qtbot, PdfPreviewDialog(pdf, "Laudo"))
    assert _problems(dialog, "pdf") == []
    for key, expected in ((dialog.print_button, "imprimir"), (dialog.save_button, "salvar")):
        letter = keyboard.mnemonic(key.text())
        assert letter
        qtbot.keyClick(QApplication.focusWidget() or dialog, getattr(Qt.Key, f"Key_{letter.upper()}"),
                       Qt.KeyboardModifier.AltModifier)
        qtbot.waitUntil(lambda expected=expected: done[-1:] == [expected], timeout=1000)


# --- every window -----------------------------------------------------------------------------------


def _as(ctx: AppContext, role: Role, login: str) -> AppContext:
    auth.create_user(ctx, login, f"Usuária {login}", role, "senha-certa-9")
    return ctx.as_user(auth.authenticate(ctx, login, "senha-certa-9"))


@SQLITE_ONLY
@pytest.mark.parametrize("role", [Role.ADMIN, Role.CLERK, Role.INSPECTOR, Role.SUPERVISOR])
def test_no_page_of_the_main_window_repeats_a_letter(qtbot, ctx: AppContext, wait_ops, role: Role) -> None:  # noqa: ANN001
    from permit_factory import make_dossier  # type: ignore[import-not-found]

    from motodesk.ui.app import build_main_window
    from motodesk.ui.mainwindow import SECTIONS, section_visible

    make_dossier(ctx, ServiceType.MOTOTAXI)
    window = shown(qtbot, build_main_window(_as(ctx, role, f"u{role.value}")))
    wait_ops()
    problems: list[str] = []
    checked = 0
    for key, _label in SECTIONS:
        if not section_visible(key, role):
            continue
        page = window.show_section(key)
        wait_ops()
        qtbot.wait(5)
        for tabs in [t for t in page.findChildren(QTabWidget) if t.isVisible()][:1] or [None]:
            for index in range(tabs.count() if tabs is not None else 1):
                if tabs is not None:
                    tabs.setCurrentIndex(index)
                    wait_ops()
                    qtbot.wait(5)
                problems += _problems(window, f"{key} {index}")
                checked += 1
    assert checked >= 10
    assert problems == [], "\n".join(problems)


@SQLITE_ONLY
def test_no_dialog_repeats_a_letter(qtbot, ctx: AppContext, wait_ops, monkeypatch) -> None:  # noqa: ANN001
    from PySide6.QtWidgets import QMessageBox
    from window_factory import _dialogs  # type: ignore[import-not-found]

    monkeypatch.setattr(QMessageBox, "exec", lambda _box: QMessageBox.StandardButton.Discard)
    problems: list[str] = []
    for label, build in _dialogs(ctx):
        dialog = shown(qtbot, build())
        wait_ops()
        qtbot.wait(5)
        problems += _problems(dialog, label)
        for tabs in dialog.findChildren(QTabWidget)[:1]:
            for index in range(tabs.count()):
                tabs.setCurrentIndex(index)
                wait_ops()
                qtbot.wait(5)
                problems += _problems(dialog, f"{label} aba {index}")
        if isinstance(dialog, QDialog):
            dialog.done(0)
        else:
            dialog.hide()
    assert problems == [], "\n".join(problems)


def test_a_crowded_window_never_shares_a_letter_with_a_button(qtbot) -> None:  # noqa: ANN001
    """More fields than letters: two labels may share one (Alt moves the focus to each in turn), a label
    never shares the letter of a button (Alt+S once recorded a notice instead of reaching a field)."""
    dialog = QDialog()
    layout = QVBoxLayout(dialog)
    save = QPushButton("&Salvar")
    fields = []
    for text in ("&S:", "&X:", "&X:", "&Sexo:"):
        label = QLabel(text)
        field = QLineEdit()
        label.setBuddy(field)
        layout.addWidget(label)
        layout.addWidget(field)
        fields.append(label)
    layout.addWidget(save)
    shown(qtbot, dialog)
    assert save.text() == "&Salvar"
    assert fields[0].text() == "S:"  # its only letter is the button's
    assert keyboard.mnemonic(fields[1].text()) == keyboard.mnemonic(fields[2].text()) == "x"
    assert keyboard.mnemonic(fields[3].text()) in {"e", "o"}  # moved to a free letter of its own
    assert keyboard.clashes(dialog) == []
    assert keyboard.clashes(dialog, focus_only=True) == ["x: QLabel '' '&X:' / QLabel '' '&X:'"]
