"""The photo dialog and the keyboard (issue #26 item 1), at 1366x768: its first focus is a control
that does something (Importar arquivo… without a camera, Capturar with one), never the tab bar; and
when it closes, the dossier's focus is on a visible widget inside the documents' scroll area."""

from __future__ import annotations

import time
from datetime import date
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt, QThreadPool
from PySide6.QtWidgets import QApplication, QFileDialog, QScrollArea, QTabBar, QWidget
from tests_helpers import settle_gui, valid_cpf  # type: ignore[import-not-found]

from motodesk.services import people
from motodesk.services.context import AppContext
from motodesk.services.people import PersonInput
from motodesk.ui import focus_watch
from motodesk.ui.app import create_application
from motodesk.ui.camera import SETTINGS_KEY, FakeFrameSource
from motodesk.ui.dossier import DossierWindow
from motodesk.ui.ops import ServiceOp
from motodesk.ui.photo_dialog import PhotoDialog
from motodesk.ui.widgets import after

ROOT = Path(__file__).resolve().parents[2]
ASTRONAUT = ROOT / "tests" / "data" / "photos" / "astronaut-2x.jpg"  # a face the checks accept
SQLITE_ONLY = pytest.mark.parametrize("backend", ["sqlite"])


@pytest.fixture(autouse=True)
def _clean_settings_and_workers():  # noqa: ANN202
    QSettings().remove(SETTINGS_KEY)
    yield
    QThreadPool.globalInstance().waitForDone(30_000)
    QSettings().remove(SETTINGS_KEY)


@pytest.fixture
def person(clerk: AppContext) -> int:
    return people.save_person(clerk, PersonInput(full_name="Eileen Marie Collins", cpf=valid_cpf(),
                                                 birth_date=date(1986, 11, 19), sex="F")).id


class _NoCamera(FakeFrameSource):
    def available(self) -> bool:
        return False

    def unavailable_reason(self) -> str:
        return "Nenhuma câmera encontrada. Conecte uma webcam ou importe a foto de um arquivo."


def _open(qtbot, clerk: AppContext, person: int, factory) -> PhotoDialog:  # noqa: ANN001
    create_application()
    dialog = PhotoDialog(clerk, person, source_factory=factory, person_name="Eileen Marie Collins")
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.activateWindow()
    qtbot.waitUntil(lambda: ServiceOp.running() == 0)
    return dialog


@SQLITE_ONLY
def test_without_a_camera_the_first_focus_is_import(qtbot, clerk: AppContext, person: int) -> None:  # noqa: ANN001
    dialog = _open(qtbot, clerk, person, lambda parent: _NoCamera(ASTRONAUT, parent, interval_ms=100))
    assert dialog.mode == "no_camera"
    assert dialog.focusWidget() is dialog.import_button
    assert not isinstance(dialog.focusWidget(), QTabBar)


@SQLITE_ONLY
def test_with_a_camera_the_first_focus_is_a_button_not_the_tab_bar(qtbot, clerk: AppContext,  # noqa: ANN001
                                                                  person: int) -> None:
    dialog = _open(qtbot, clerk, person, lambda parent: FakeFrameSource(ASTRONAUT, parent, interval_ms=100))
    assert dialog.focusWidget() in (dialog.capture_button, dialog.import_button), dialog.focusWidget()


def _activate(widget: QWidget) -> None:
    """What a window manager does for a dialog that opens: make it the active window (offscreen Qt
    does not always), so that its access keys reach it."""
    widget.activateWindow()
    end = time.monotonic() + 5
    while QApplication.activeWindow() is not widget and time.monotonic() < end:
        QApplication.processEvents()


def _visible_in_its_areas(widget: QWidget) -> bool:
    if widget.visibleRegion().isEmpty():
        return False
    for area in focus_watch.scroll_areas(widget):
        rect = widget.rect().translated(widget.mapTo(area.viewport(), widget.rect().topLeft()))
        if not area.viewport().rect().intersects(rect):
            return False
    return True


def test_after_the_photo_dialog_the_dossier_focus_is_visible(qtbot, clerk: AppContext, person: int,  # noqa: ANN001
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Alt+F from the last field of the documents, a photo imported and accepted (Alt+A): the focus
    comes back to a widget of the dossier the clerk can see."""
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(ASTRONAUT), ""))
    create_application()
    window = DossierWindow(clerk, person)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    settle_gui(qtbot)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_2, Qt.KeyboardModifier.AltModifier)
    area = window.findChild(QScrollArea, "documents_area")
    fields = [w for w in area.widget().findChildren(QWidget)
              if w.focusPolicy() & Qt.FocusPolicy.TabFocus and w.isVisibleTo(window) and w.isEnabled()]
    fields[-1].setFocus(Qt.FocusReason.TabFocusReason)
    assert _visible_in_its_areas(fields[-1])
    seen: list[str] = []
    errors: list[BaseException] = []

    def drive() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, PhotoDialog):
            after(window, 40, drive)
            return
        try:
            seen.append(type(dialog.focusWidget()).__name__)
            _activate(dialog)
            qtbot.keyClick(dialog.focusWidget(), Qt.Key.Key_I, Qt.KeyboardModifier.AltModifier)  # Importar arquivo…
            end = time.monotonic() + 30
            while not dialog.accept_button.isEnabled() and time.monotonic() < end:
                QApplication.processEvents()
            seen.append(f"{dialog.mode} {dialog.accept_button.isEnabled()} {dialog.status.text()}")
            _activate(dialog)
            qtbot.keyClick(dialog.focusWidget() or dialog, Qt.Key.Key_A, Qt.KeyboardModifier.AltModifier)
            end = time.monotonic() + 10
            while dialog.isVisible() and time.monotonic() < end:
                QApplication.processEvents()
            if dialog.isVisible():
                raise AssertionError(f"the photo dialog stayed open: {seen}")
        except BaseException as exc:  # noqa: BLE001 - raised below
            errors.append(exc)
            dialog.reject()

    after(window, 40, drive)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_F, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: bool(errors) or window.photo is not None, timeout=40_000)
    if errors:
        raise errors[0]
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    settle_gui(qtbot)
    focused = QApplication.focusWidget()
    assert seen[0] == "QPushButton", seen
    assert focused is not None and window.isAncestorOf(focused), focused
    assert focused.isEnabled() and _visible_in_its_areas(focused), (focused.objectName(), type(focused).__name__)
