"""A picture of every window (issue #26: "screenshots of every window and dialog ... were looked at").

Every page of the main window (as an administrator, so every section shows) and every dialog the
accessibility table (``a11y_dialogs.dialogs``) builds is shown on the counter's 1366×768 screen, grabbed
and saved as ``window-<name>.png`` (in ``docs/screenshots/`` with MOTODESK_SCREENSHOTS=1, a scratch
folder otherwise). Each picture is checked: the window fits the screen, the grab is not blank (it has
more than a handful of colours), and no visible child widget lies outside its window.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from a11y_dialogs import dialogs  # type: ignore[import-not-found]
from PySide6.QtCore import QRect
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import QAbstractScrollArea, QApplication, QLabel, QVBoxLayout, QWidget
from tests_helpers import SCREENSHOTS, drain_events  # type: ignore[import-not-found]

from motodesk.rules.common import Role
from motodesk.services import auth
from motodesk.services.context import AppContext
from motodesk.ui.app import create_application

SQLITE_ONLY = pytest.mark.parametrize("backend", ["sqlite"])  # the screens do not depend on the database
SCREEN = (1366, 768)
#: A drawn window has text, frames, fields and buttons: far more colours than this (an empty grey or
#: black grab has one or two, an unpainted one a few).
MIN_COLOURS = 24
#: Pictures larger than this are stored as palette PNGs, to keep the repository small.
MAX_BYTES = 150_000


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def distinct_colours(pixmap: QPixmap) -> int:
    image = pixmap.toImage().convertToFormat(QImage.Format.Format_RGB32)
    data = np.frombuffer(image.constBits(), dtype=np.uint32, count=image.bytesPerLine() * image.height() // 4)
    return int(np.unique(data).size)


def outside_children(window: QWidget) -> list[str]:
    """Visible child widgets (of this window, not of a popup) not wholly inside the window's rectangle.
    Widgets inside a scroll area are left out: the scroll area clips them and is itself checked."""
    problems = []
    bounds = window.rect().adjusted(-1, -1, 1, 1)
    for child in window.findChildren(QWidget):
        if child.window() is not window or not child.isVisibleTo(window) or child.width() <= 0 \
                or child.height() <= 0:
            continue
        parent = child.parentWidget()
        scrolled = False
        while parent is not None and parent is not window:
            if isinstance(parent, QAbstractScrollArea):
                scrolled = True
                break
            parent = parent.parentWidget()
        if scrolled:
            continue
        rect = QRect(child.mapTo(window, child.rect().topLeft()), child.size())
        if not bounds.contains(rect):
            what = getattr(child, "text", lambda: "")() if hasattr(child, "text") else ""
            problems.append(f"{type(child).__name__} {child.objectName()!r} {what!r} at {rect.getRect()} "
                            f"outside {window.width()}x{window.height()}")
    return problems


def settled_grab(window: QWidget, tries: int = 12) -> QPixmap:
    """The window's picture once it stops changing (a PDF preview renders its pages in the background):
    the same picture twice in a row, 250 ms apart, or the last one after ``tries`` grabs."""
    from PySide6.QtTest import QTest

    pixmap = window.grab()
    for _ in range(tries):
        QTest.qWait(250)
        drain_events()
        again = window.grab()
        if again.toImage() == pixmap.toImage():
            return again
        pixmap = again
    return pixmap


def picture_problems(window: QWidget, name: str) -> list[str]:
    """Grabs the window, saves ``window-<name>.png`` and says what is wrong with it."""
    problems = []
    frame = window.frameGeometry()
    if frame.width() > SCREEN[0] or frame.height() > SCREEN[1] or window.width() > SCREEN[0] \
            or window.height() > SCREEN[1]:
        problems.append(f"{frame.width()}x{frame.height()} does not fit {SCREEN[0]}x{SCREEN[1]}")
    pixmap = settled_grab(window)
    colours = distinct_colours(pixmap)
    if colours <= MIN_COLOURS:
        problems.append(f"blank: {colours} colours")
    problems += outside_children(window)
    save(pixmap, SCREENSHOTS / f"window-{slug(name)}.png")
    return [f"[{name}] {p}" for p in problems]


def save(pixmap: QPixmap, path: Path) -> None:
    assert pixmap.save(str(path)), path
    if path.stat().st_size > MAX_BYTES:
        from PIL import Image

        with Image.open(path) as image:
            palette = image.convert("RGB").quantize(colors=256)
        palette.save(path, optimize=True)


def _shown(qtbot, widget: QWidget, wait_ops) -> QWidget:  # noqa: ANN001
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    wait_ops()
    drain_events()
    return widget


@pytest.fixture
def _never_ask_unsaved(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    import sys

    from a11y_dialogs import dialog_classes  # type: ignore[import-not-found]

    from motodesk.ui import guard

    dialog_classes()
    original = guard.ask_unsaved
    for name, module in list(sys.modules.items()):
        if name.startswith("motodesk.ui") and getattr(module, "ask_unsaved", None) is original:
            monkeypatch.setattr(module, "ask_unsaved", lambda *a, **k: guard.Answer.DISCARD)
    yield


def test_the_picture_checks_can_fail(qtbot) -> None:  # noqa: ANN001
    create_application()
    blank = QWidget()
    blank.resize(300, 200)
    qtbot.addWidget(blank)
    blank.show()
    qtbot.waitExposed(blank)
    assert distinct_colours(blank.grab()) <= MIN_COLOURS
    assert outside_children(blank) == []

    window = QWidget()
    QVBoxLayout(window).addWidget(QLabel("Cadastro de permissionários"))
    stray = QLabel("Fora da janela", window)
    qtbot.addWidget(window)
    window.resize(320, 200)
    window.show()
    qtbot.waitExposed(window)
    assert outside_children(window) == []
    stray.setGeometry(250, 150, 200, 100)
    assert any("Fora da janela" in p for p in outside_children(window))

    huge = QWidget()
    huge.resize(1500, 900)
    qtbot.addWidget(huge)
    huge.show()
    problems = picture_problems(huge, "teste-grande")
    assert any("does not fit" in p for p in problems) and any("blank" in p for p in problems)
    (SCREENSHOTS / "window-teste-grande.png").unlink()


@SQLITE_ONLY
def test_every_page_of_the_main_window_pictured(qtbot, ctx: AppContext, wait_ops) -> None:  # noqa: ANN001
    from motodesk.ui.app import build_main_window
    from motodesk.ui.mainwindow import SECTIONS

    create_application()
    auth.create_user(ctx, "fotos", "Fotografia das Telas", Role.ADMIN, "senha-certa-9")
    window = _shown(qtbot, build_main_window(ctx.as_user(auth.authenticate(ctx, "fotos", "senha-certa-9"))),
                    wait_ops)
    problems: list[str] = []
    for key, _label in SECTIONS:
        window.show_section(key)
        wait_ops()
        drain_events()
        problems += picture_problems(window, key)
        assert (SCREENSHOTS / f"window-{slug(key)}.png").stat().st_size > 0
    assert problems == [], "\n".join(problems)


@SQLITE_ONLY
def test_every_dialog_pictured(qtbot, ctx: AppContext, wait_ops, _never_ask_unsaved: None) -> None:  # noqa: ANN001
    create_application()
    problems: list[str] = []
    names: set[str] = set()
    for label, build in dialogs(ctx):
        dialog = _shown(qtbot, build(), wait_ops)
        assert slug(label) not in names, f"two pictures named {slug(label)}"
        names.add(slug(label))
        problems += picture_problems(dialog, label)
        dialog.close()
        QApplication.processEvents()
    assert len(names) >= 50
    assert problems == [], "\n".join(problems)
