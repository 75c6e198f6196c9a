"""A GUI test that leaves a form with unsaved changes open ends (tests/gui_guard.py): pytest-qt's
close at teardown asked "Alterações não salvas" in a modal loop nobody answered, and the worker
waited for good. Run for real, in a small suite of its own, with a time limit."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent

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
    (tmp_path / "test_leftover.py").write_text(SUITE)
    (tmp_path / "conftest.py").write_text(CONFTEST)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen",
           "PYTHONPATH": os.pathsep.join([str(TESTS), str(ROOT), os.environ.get("PYTHONPATH", "")])}
    try:
        done = subprocess.run([sys.executable, "-m", "pytest", "-n", "0", "-q", "-p", "no:cacheprovider",
                               "--rootdir", str(tmp_path), "-c", os.devnull, str(tmp_path)],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False)
    except subprocess.TimeoutExpired as exc:
        raise AssertionError("the teardown waited for an answer nobody gives") from exc
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout + done.stderr
