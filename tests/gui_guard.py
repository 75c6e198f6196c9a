"""The GUI tests' own guard: no screen opens a database session on the GUI thread.

A plugin of ``tests/conftest.py`` (``pytest_plugins``), active for the tests under ``tests/ui``. It is
not ``tests/ui/conftest.py``: a second module named ``conftest`` would shadow the root one for the
tests that ``from conftest import ...`` (which one wins depends on the order xdist collects them).

Every session (``sqlalchemy.orm.Session``) and every connection (``Engine.connect``: the quick
reads of :meth:`Database.run_read`, a wizard's probe) opened during a GUI test is checked: when it is
opened on the GUI thread and the code that asked for it is MotoDesk's UI (a frame of ``motodesk/ui``
on the stack), the test fails at teardown, naming the UI line. A test's own set-up (a service
called from the test body) has no UI frame on its stack and passes; so does the login's password
check, which waits for the database by design (``tests_helpers.GUI_DB_ALLOWED``).

``MOTODESK_GUI_DB_LOG=FILE`` appends each offending UI line to ``FILE`` (to count them) and
``MOTODESK_GUI_DB_RECORD_ONLY=1`` records without failing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session
from tests_helpers import GuiThreadDatabase  # type: ignore[import-not-found]

UI_TESTS = Path(__file__).resolve().parent / "ui"


@pytest.fixture(autouse=True)
def no_database_on_the_gui_thread(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
                                  ) -> Iterator[GuiThreadDatabase]:
    """Fails a GUI test in which UI code opened a database session or connection on the GUI thread."""
    seen = GuiThreadDatabase()
    if UI_TESTS not in Path(str(request.node.path)).resolve().parents:
        yield seen  # not a GUI test
        return
    session_init = Session.__init__
    engine_connect = Engine.connect

    def init(self: Session, *args: object, **kwargs: object) -> None:
        seen.check("session")
        session_init(self, *args, **kwargs)  # type: ignore[arg-type]

    def connect(self: Engine):  # noqa: ANN202 - Engine.connect's own return
        seen.check("connection")
        return engine_connect(self)

    monkeypatch.setattr(Session, "__init__", init)
    monkeypatch.setattr(Engine, "connect", connect)
    yield seen
    monkeypatch.undo()
    if not seen.sites:
        return
    log = os.environ.get("MOTODESK_GUI_DB_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as out:
            for site, count in seen.sites.items():
                out.write(f"{request.node.nodeid}\t{site}\t{count}\n")
    if os.environ.get("MOTODESK_GUI_DB_RECORD_ONLY") == "1":
        return
    lines = "\n".join(f"  {site} ×{count}" for site, count in seen.sites.items())
    pytest.fail(f"UI code opened the database on the GUI thread (use load_into / ServiceOp):\n{lines}",
                pytrace=False)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item) -> object:
    """What a GUI test leaves open is closed without a question nobody would answer.

    pytest-qt closes every widget a test registered once the test is over; a form with unsaved
    changes then asked "Alterações não salvas" in a modal loop nobody answers, and the worker
    waited for good (a test that changed a field and ended: it went unseen while the form's wrapper
    died with the test's locals, and hung the suite once a connection kept the form alive until the
    collector ran). During the teardown a GuardedDialog closes as after accept(), and any other
    modal question (the dossier's, the wizard's, the import's, the settings') returns at once
    unanswered, as Cancelar. A test that means to see the question asks it in its own body."""
    if "qtbot" not in getattr(item, "fixturenames", ()):
        return (yield)
    from PySide6.QtWidgets import QApplication, QDialog, QMessageBox

    from motodesk.ui.guard import GuardedDialog

    if QApplication.instance() is not None:
        for widget in QApplication.allWidgets():
            if isinstance(widget, GuardedDialog):
                widget._closing_ok = True  # noqa: SLF001 - what accept() and done() set
    saved = QDialog.exec, QMessageBox.exec

    def unanswered(self: QDialog) -> int:
        return int(QDialog.DialogCode.Rejected)

    QDialog.exec = QMessageBox.exec = unanswered  # type: ignore[method-assign]
    try:
        return (yield)
    finally:
        QDialog.exec, QMessageBox.exec = saved  # type: ignore[method-assign]
