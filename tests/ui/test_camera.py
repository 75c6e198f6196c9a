"""Frame sources: the real QtMultimedia one as far as a machine without a webcam allows, and the fake."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, QSize
from PySide6.QtGui import QColor, QImage

from motodesk.ui import camera
from motodesk.ui.app import create_application
from motodesk.ui.camera import (
    MSG_CAMERA_GONE,
    MSG_NO_CAMERA,
    MSG_NOT_STARTED,
    SETTINGS_KEY,
    CameraChoice,
    FakeFrameSource,
    QtCameraSource,
    best_format,
    remember_camera,
    remembered_camera,
)

ASTRONAUT = Path(__file__).resolve().parents[1] / "data" / "photos" / "astronaut.png"


@pytest.fixture(autouse=True)
def _app_and_clean_settings():  # noqa: ANN202
    create_application()
    QSettings().remove(SETTINGS_KEY)
    yield
    QSettings().remove(SETTINGS_KEY)


class Format:
    """Stands in for QCameraFormat (resolution and frame rate are all best_format reads)."""

    def __init__(self, width: int, height: int, fps: float) -> None:
        self.size, self.fps = QSize(width, height), fps

    def resolution(self) -> QSize:
        return self.size

    def maxFrameRate(self) -> float:  # noqa: N802
        return self.fps

    def __repr__(self) -> str:
        return f"{self.size.width()}x{self.size.height()}@{self.fps}"


def test_best_format_prefers_full_hd_with_a_fluent_frame_rate() -> None:
    formats = [Format(640, 480, 30), Format(1280, 720, 30), Format(1920, 1080, 30), Format(1920, 1080, 5),
               Format(3840, 2160, 30), Format(2592, 1944, 15)]
    chosen = best_format(formats)
    assert chosen is formats[2]
    assert best_format([Format(1920, 1080, 5), Format(1280, 720, 5)]) is not None  # slow but all there is
    assert best_format([Format(3840, 2160, 30), Format(2592, 1944, 30)]).size == QSize(2592, 1944)
    assert best_format([]) is None


def test_real_source_without_a_webcam_reports_no_camera(qtbot) -> None:  # noqa: ANN001
    source = QtCameraSource()
    if source.available():
        pytest.skip("this machine has a camera")
    reason = source.unavailable_reason()
    assert reason == MSG_NO_CAMERA or reason.startswith("O suporte a câmera não está disponível")
    assert source.cameras() == [] and source.current_camera() is None
    source.start()  # nothing to start: harmless
    assert not source.is_active()
    with qtbot.waitSignal(source.failed) as failed:
        source.capture()
    assert failed.args == [MSG_NOT_STARTED]
    source.stop()


def test_real_source_when_qtmultimedia_cannot_load(monkeypatch) -> None:  # noqa: ANN001
    def broken() -> None:
        raise ImportError("libpulse.so.0: cannot open shared object file: No such file or directory")

    monkeypatch.setattr(camera, "_import_multimedia", broken)
    source = QtCameraSource()
    assert not source.available()
    assert source.unavailable_reason() == (
        "O suporte a câmera não está disponível neste computador: libpulse.so.0: cannot open shared "
        "object file: No such file or directory. Importe a foto de um arquivo.")
    assert source.cameras() == []
    source.select_camera("qualquer")
    source.start()
    source.stop()
    assert not source.is_active()


def test_the_multimedia_module_is_not_loaded_by_importing_the_camera_module() -> None:
    import subprocess
    import sys

    code = ("import sys; import motodesk.ui.photo_dialog, motodesk.ui.camera; "
            "print('PySide6.QtMultimedia' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert out.stdout.strip() == "False"


def test_fake_source_sends_frames_and_captures(qtbot) -> None:  # noqa: ANN001
    still = QImage(400, 300, QImage.Format.Format_RGB32)
    still.fill(QColor(10, 20, 30))
    source = FakeFrameSource(ASTRONAUT, still=still, interval_ms=20)
    assert source.available() and source.unavailable_reason() == ""
    assert source.cameras() == [CameraChoice("fake-0", "Câmera de teste")]
    with qtbot.waitSignal(source.frameReady) as frame:
        source.start()
    assert source.is_active() and source.current_camera() == "fake-0"
    assert frame.args[0].size() == QSize(512, 512)
    with qtbot.waitSignal(source.captured) as captured:
        source.capture()
    assert captured.args[0].size() == QSize(400, 300) and source.captures == 1
    source.stop()
    with qtbot.waitSignal(source.failed) as failed:
        source.capture()
    assert failed.args == [MSG_NOT_STARTED]


def test_fake_source_unplugged_and_unavailable(qtbot) -> None:  # noqa: ANN001
    source = FakeFrameSource(ASTRONAUT, interval_ms=20)
    source.start()
    with qtbot.waitSignals([source.failed, source.camerasChanged]):
        source.set_cameras(())
    assert not source.available() and source.unavailable_reason() == MSG_NO_CAMERA and not source.is_active()
    none = FakeFrameSource(ASTRONAUT, reason="O suporte a câmera não está disponível neste computador: x.")
    none.start()
    assert not none.is_active() and none.unavailable_reason().endswith(": x.")
    with pytest.raises(ValueError):
        FakeFrameSource(ASTRONAUT.with_name("nao-existe.png"))


def test_the_remembered_camera_is_chosen_when_starting() -> None:
    assert remembered_camera() is None
    remember_camera("fake-1")
    assert remembered_camera() == "fake-1"
    source = FakeFrameSource(ASTRONAUT, cameras=(CameraChoice("fake-0", "A"), CameraChoice("fake-1", "B")))
    source.start()
    assert source.current_camera() == "fake-1"
    source.stop()
    remember_camera("sumiu")  # a camera no longer plugged in: the first one
    other = FakeFrameSource(ASTRONAUT, cameras=(CameraChoice("fake-0", "A"),))
    other.start()
    assert other.current_camera() == "fake-0"
    other.stop()
    assert MSG_CAMERA_GONE.startswith("A câmera foi desconectada")
