"""One way to wait before doing something: ``widgets.after`` (a timer the owner holds).

``QTimer.singleShot(msec, callable)`` with ``msec > 0`` makes PySide build a parentless Python timer
that deletes itself once fired; destroying its wrapper crashed the access-key walk about one run in
six (SIGSEGV in ``Shiboken::BindingManager::releaseWrapper`` on a QTimer's DeferredDelete). This
guard refuses the call anywhere in the application or its tests; ``singleShot(0, …)`` makes no timer
object and stays allowed.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def delayed_single_shots(source: str) -> list[int]:
    """Lines of ``….singleShot(<not 0>, …)`` calls in ``source``."""
    lines: list[int] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "singleShot" and node.args:
            first = node.args[0]
            if not (isinstance(first, ast.Constant) and first.value == 0):
                lines.append(node.lineno)
    return lines


def test_no_delayed_single_shot_anywhere() -> None:
    found = [f"{path.relative_to(ROOT)}:{line}"
             for folder in ("motodesk", "tests", "bench")
             for path in sorted((ROOT / folder).rglob("*.py"))
             for line in delayed_single_shots(path.read_text(encoding="utf-8"))]
    assert found == [], "use motodesk.ui.widgets.after(owner, msec, slot) instead: " + ", ".join(found)


def test_the_guard_sees_a_delayed_single_shot() -> None:
    assert delayed_single_shots("QTimer.singleShot(120, lambda: go())\nQTimer.singleShot(0, go)\n"
                                "QTimer.singleShot(DELAY, self, go)\n") == [1, 3]


def test_after_calls_once_and_not_once_its_owner_is_gone(qtbot) -> None:  # noqa: ANN001
    from PySide6.QtCore import QObject

    from motodesk.ui.app import create_application
    from motodesk.ui.widgets import after

    create_application()
    calls: list[str] = []
    owner = QObject()
    after(owner, 20, lambda: calls.append("kept"))
    gone = QObject()
    after(gone, 20, lambda: calls.append("gone"))
    del gone  # Python owned it: deleted now, and its timer with it
    qtbot.waitUntil(lambda: calls == ["kept"], timeout=2000)
    qtbot.wait(60)
    assert calls == ["kept"]
