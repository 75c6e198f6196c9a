"""A GUI test that leaves a form with unsaved changes open ends (tests/gui_guard.py): pytest-qt's
close at teardown asked "Alterações não salvas" in a modal loop nobody answered, and the worker
waited for good. Run for real, in a small suite of its own, with a time limit."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests_helpers import run_small_suite  # type: ignore[import-not-found]

SUITE = '''
from PySide6.QtWidgets import QLineEdit, QVBoxLayout, QWidget

from motodesk.ui.app import create_application
from motodesk.ui.guard import GuardedDialog, ask_unsaved


class Form(GuardedDialog):
    def __init__(self):
        super().__init__()
        self.name = QLineEdit(self)
        self.name.setObjectName("name")
        QVBoxLayout(self).addWidget(self.name)
        self.mark_clean()


class Window(QWidget):  # a window that asks on close as the dossier does
    def closeEvent(self, event):
        ask_unsaved(self)
        event.accept()


def test_leaves_a_changed_form_and_an_asking_window_open(qtbot):
    create_application()
    form = Form()
    qtbot.addWidget(form)
    form.show()
    form.name.setText("typed and never saved")
    assert form.has_changes()
    window = Window()
    qtbot.addWidget(window)
    window.show()
    form.keep = (form, window)  # alive past the test's locals, as a connection to a lambda kept it
'''

CONFTEST = '''
pytest_plugins = ["gui_guard"]
'''


def test_a_gui_test_that_leaves_a_changed_form_open_ends(tmp_path: Path) -> None:
    try:
        done = run_small_suite(tmp_path, {"test_leftover.py": SUITE, "conftest.py": CONFTEST}, "-n", "0",
                               timeout=120)
    except subprocess.TimeoutExpired as exc:
        raise AssertionError("the teardown waited for an answer nobody gives") from exc
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout + done.stderr
