"""The GUI tests' guard (tests/gui_guard.py) sees a screen that reads the database on the GUI thread,
and only that: not the same read on a worker, not a test's own set-up, not the login's check."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from tests_helpers import UI, GuiThreadDatabase  # type: ignore[import-not-found]

from motodesk.services.context import AppContext
from motodesk.ui.app import create_application
from motodesk.ui.ops import ServiceOp

CODE = "def {name}(ctx):\n    with ctx.read() as s:\n        return s.connection() is not None\n"


def ui_function(module: str, name: str) -> Callable[[AppContext], Any]:
    """A function whose code lives, as far as any stack can tell, in motodesk/ui/``module``."""
    namespace: dict[str, Any] = {}
    exec(compile(CODE.format(name=name), UI + module, "exec"), namespace)  # noqa: S102 - a fixed text
    return namespace[name]


def test_a_screen_reading_on_the_gui_thread_is_named_with_its_line(
        qtbot, ctx: AppContext, no_database_on_the_gui_thread: GuiThreadDatabase) -> None:  # noqa: ANN001
    create_application()
    read = ui_function("fake_screen.py", "refresh")
    assert read(ctx)
    seen = dict(no_database_on_the_gui_thread.sites)
    no_database_on_the_gui_thread.sites.clear()  # this test's own offence, on purpose
    assert "motodesk/ui/fake_screen.py:2 in refresh (session)" in seen
    assert "motodesk/ui/fake_screen.py:3 in refresh (connection)" in seen


def test_the_same_read_off_the_gui_thread_the_tests_own_and_the_login_pass(
        qtbot, ctx: AppContext, wait_ops, no_database_on_the_gui_thread: GuiThreadDatabase) -> None:  # noqa: ANN001
    create_application()
    read = ui_function("fake_screen.py", "refresh")
    worker = threading.Thread(target=read, args=(ctx,))
    worker.start()
    worker.join()
    results: list[bool] = []
    from PySide6.QtWidgets import QWidget

    widget = QWidget()
    qtbot.addWidget(widget)
    ServiceOp(widget, lambda: read(ctx), lock=False).success(results.append).run()
    wait_ops()
    assert results == [True]
    with ctx.read() as session:  # the test's own set-up
        assert session.connection() is not None
    assert ui_function("login.py", "try_login")(ctx)  # the password check waits by design
    assert no_database_on_the_gui_thread.sites == {}
