"""Frame sources: the real QtMultimedia one as far as a machine without a webcam allows, and the fake."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from PySide6.QtCore import QByteArray, QObject, QSettings, QSize, Signal
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


# -- QtCameraSource's logic against a stand-in for QtMultimedia (no webcam in CI) ------------------
class FakeDevice:
    def __init__(self, ident: bytes, name: str, formats: list[Format] | None = None) -> None:
        self.ident, self.name, self.formats = ident, name, formats or []

    def id(self) -> QByteArray:
        return QByteArray(self.ident)

    def description(self) -> str:
        return self.name

    def videoFormats(self) -> list[Format]:  # noqa: N802
        return self.formats

    def isNull(self) -> bool:  # noqa: N802
        return False


class FakeMediaDevices(QObject):
    videoInputsChanged = Signal()  # noqa: N815
    inputs: list[FakeDevice] = []
    made: list[FakeMediaDevices] = []

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        FakeMediaDevices.made.append(self)

    @staticmethod
    def videoInputs() -> list[FakeDevice]:  # noqa: N802
        return list(FakeMediaDevices.inputs)

    @staticmethod
    def defaultVideoInput() -> FakeDevice:  # noqa: N802
        return FakeMediaDevices.inputs[0]


class FakeCamera(QObject):
    errorOccurred = Signal(object, str)  # noqa: N815

    def __init__(self, device: FakeDevice, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.device, self.format, self.active = device, None, False

    def setCameraFormat(self, fmt: Format) -> None:  # noqa: N802
        self.format = fmt

    def start(self) -> None:
        self.active = True

    def stop(self) -> None:
        self.active = False

    def isActive(self) -> bool:  # noqa: N802
        return self.active


class FakeSession(QObject):
    def setVideoSink(self, sink: QObject) -> None:  # noqa: N802
        self.sink = sink

    def setImageCapture(self, capture: QObject) -> None:  # noqa: N802
        self.capture = capture

    def setCamera(self, camera: FakeCamera | None) -> None:  # noqa: N802
        self.camera = camera


class FakeSink(QObject):
    videoFrameChanged = Signal(object)  # noqa: N815


class FakeImageCapture(QObject):
    imageCaptured = Signal(int, QImage)  # noqa: N815
    imageAvailable = Signal(int, object)  # noqa: N815
    errorOccurred = Signal(int, object, str)  # noqa: N815

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.ready, self.requests = True, 0

    def isReadyForCapture(self) -> bool:  # noqa: N802
        return self.ready

    def capture(self) -> int:
        self.requests += 1
        return self.requests


class FakeVideoFrame:
    def __init__(self, image: QImage) -> None:
        self.image = image

    def isValid(self) -> bool:  # noqa: N802
        return not self.image.isNull()

    def toImage(self) -> QImage:  # noqa: N802
        return self.image


def solid(colour: str, size: tuple[int, int] = (64, 48)) -> QImage:
    image = QImage(*size, QImage.Format.Format_RGB32)
    image.fill(QColor(colour))
    return image


@pytest.fixture
def multimedia(monkeypatch) -> SimpleNamespace:  # noqa: ANN001
    FakeMediaDevices.inputs = [
        FakeDevice(b"/dev/video0", "Webcam integrada", [Format(640, 480, 30), Format(1280, 720, 30)]),
        FakeDevice(b"/dev/video2", "Câmera USB HD", [Format(640, 480, 30), Format(1920, 1080, 30),
                                                     Format(3840, 2160, 5)]),
    ]
    FakeMediaDevices.made = []
    module = SimpleNamespace(QMediaDevices=FakeMediaDevices, QMediaCaptureSession=FakeSession, QVideoSink=FakeSink,
                             QImageCapture=FakeImageCapture, QCamera=FakeCamera)
    monkeypatch.setattr(camera, "_import_multimedia", lambda: module)
    return module


def test_qt_source_lists_chooses_and_remembers_cameras(multimedia: SimpleNamespace) -> None:
    usb = b"/dev/video2".hex()
    remember_camera(usb)
    source = QtCameraSource()
    assert source.available() and source.unavailable_reason() == ""
    assert [c.name for c in source.cameras()] == ["Webcam integrada", "Câmera USB HD"]
    source.start()
    assert source.is_active() and source.current_camera() == usb
    cam = source._camera
    assert cam.active and cam.format.size == QSize(1920, 1080)  # Full HD, not the slow 4K
    source.select_camera(b"/dev/video0".hex())  # switching while running restarts on the other one
    assert not cam.active and source._camera.active and source._camera.format.size == QSize(1280, 720)
    source.stop()
    assert not source.is_active() and not source._camera.active


def test_qt_source_frames_still_and_fallbacks(qtbot, multimedia: SimpleNamespace, monkeypatch) -> None:  # noqa: ANN001
    source = QtCameraSource()
    source.start()
    sink, capture = source._sink, source._image_capture
    with qtbot.waitSignal(source.frameReady) as frame:
        sink.videoFrameChanged.emit(FakeVideoFrame(solid("red")))
    assert frame.args[0].pixelColor(0, 0) == QColor("red")
    with qtbot.assertNotEmitted(source.frameReady):  # 30 fps from the driver, ~15 to the preview
        sink.videoFrameChanged.emit(FakeVideoFrame(solid("blue")))

    # The still arrives from QImageCapture.
    source.capture()
    with qtbot.waitSignal(source.captured) as still:
        capture.imageCaptured.emit(capture.requests, solid("green", (400, 300)))
    assert still.args[0].size() == QSize(400, 300)
    # A still that fails becomes the last live frame.
    source.capture()
    with qtbot.waitSignal(source.captured) as fallback:
        capture.errorOccurred.emit(capture.requests, None, "erro do driver")
    assert fallback.args[0].pixelColor(0, 0) == QColor("red")
    # A driver without a still pipeline: the live frame at once.
    capture.ready = False
    with qtbot.waitSignal(source.captured):
        source.capture()
    # A still that never comes: the live frame after the timeout.
    capture.ready = True
    monkeypatch.setattr(camera, "CAPTURE_TIMEOUT_MS", 20)
    with qtbot.waitSignal(source.captured, timeout=2000):
        source.capture()
    # Restarted and no frame yet: the clerk is told to wait.
    source.stop()
    source.start()
    capture.ready = False
    with qtbot.waitSignal(source.failed) as failed:
        source.capture()
    assert failed.args == [camera.MSG_NO_FRAME]


def test_qt_source_errors_and_unplugging(qtbot, multimedia: SimpleNamespace) -> None:  # noqa: ANN001
    source = QtCameraSource()
    source.start()
    with qtbot.waitSignal(source.failed) as failed:
        source._camera.errorOccurred.emit(None, "Device or resource busy.")
    assert failed.args == ["A câmera informou um erro: Device or resource busy. Escolha outra câmera ou importe "
                           "a foto de um arquivo."]
    FakeMediaDevices.inputs = FakeMediaDevices.inputs[1:]  # the built-in webcam (in use) is gone
    messages: list[str] = []
    source.failed.connect(messages.append)
    with qtbot.waitSignal(source.camerasChanged):
        FakeMediaDevices.made[-1].videoInputsChanged.emit()
    assert messages == [MSG_CAMERA_GONE]
    assert not source.is_active() and source.current_camera() is None
    FakeMediaDevices.inputs = []
    assert not source.available() and source.unavailable_reason() == MSG_NO_CAMERA
