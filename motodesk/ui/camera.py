"""Where the photo dialog's pictures come from: a camera behind one small interface.

:class:`FrameSource` is what :class:`~motodesk.ui.photo_dialog.PhotoDialog` talks to:

* ``available()`` / ``unavailable_reason()``: whether there is anything to show, and if not,
  a pt_BR sentence for the clerk (the dialog then offers file import only);
* ``cameras()`` / ``current_camera()`` / ``select_camera(id)``: the chooser;
* ``start()`` / ``stop()`` / ``is_active()``: live frames arrive as ``frameReady(QImage)``;
* ``capture()``: asynchronous, because a real camera delivers its still later. The still
  arrives as ``captured(QImage)``; any problem as ``failed(str)`` (pt_BR).
* ``camerasChanged()`` when a camera is plugged in or out.

:class:`QtCameraSource` is the real one (QtMultimedia: ``QMediaDevices`` → ``QCamera`` →
``QMediaCaptureSession`` with a ``QVideoSink`` for the live frames and a ``QImageCapture`` for the
still). QtMultimedia is imported only when a ``QtCameraSource`` is made, and any failure to load it
(a missing ``libpulse0`` on Debian, a frozen build that lost the multimedia backend) becomes
"unavailable" with the reason, never an exception: the application starts without a camera.

:class:`FakeFrameSource` feeds a fixed picture on a timer; the tests and the benchmark use it, as
no CI machine has a webcam.

The last camera chosen on this workstation is kept in ``QSettings`` (:func:`remembered_camera`).
"""

from __future__ import annotations

import importlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from PySide6.QtCore import QLoggingCategory, QObject, QSettings, QTimer, Signal
from PySide6.QtGui import QImage

log = logging.getLogger(__name__)

SETTINGS_KEY = "photo/camera"

MSG_NO_MULTIMEDIA = (
    "O suporte a câmera não está disponível neste computador: {detail}. "
    "Importe a foto de um arquivo."
)
MSG_NO_CAMERA = "Nenhuma câmera encontrada. Conecte uma webcam ou importe a foto de um arquivo."
MSG_CAMERA_ERROR = "A câmera informou um erro: {detail}. Escolha outra câmera ou importe a foto de um arquivo."
MSG_CAMERA_GONE = "A câmera foi desconectada. Conecte-a de novo, escolha outra ou importe a foto de um arquivo."
MSG_NOT_STARTED = "A câmera não está ligada."
MSG_NO_FRAME = "A câmera ainda não enviou nenhuma imagem. Aguarde um instante e tente de novo."
MSG_CAPTURE_FAILED = "A câmera não conseguiu tirar a foto: {detail}."

# Live frames are converted to QImage at most this often: the preview needs no more, and a
# counter PC then spends its time on the face detection rather than on the viewfinder.
PREVIEW_INTERVAL_MS = 66
# The camera format: the largest up to Full HD that still gives a fluent preview. 1080 px of
# height is more than twice the 472 px badge photo; bigger formats only slow the viewfinder.
MAX_FORMAT_PIXELS = 1920 * 1080
MIN_FRAME_RATE = 10.0
# A still that has not arrived after this long is replaced by the last live frame.
CAPTURE_TIMEOUT_MS = 4000


@dataclass(frozen=True)
class CameraChoice:
    """One entry of the chooser: a stable id (kept in QSettings) and the name the system gives it."""

    id: str
    name: str


def remembered_camera() -> str | None:
    """The camera chosen last on this workstation, if any."""
    value = QSettings().value(SETTINGS_KEY, "")
    return str(value) if value else None


def remember_camera(camera_id: str) -> None:
    settings = QSettings()
    settings.setValue(SETTINGS_KEY, camera_id)
    settings.sync()


class FrameSource(QObject):
    """The interface the photo dialog uses; see the module docstring."""

    frameReady = Signal(QImage)  # noqa: N815 - Qt naming
    captured = Signal(QImage)
    failed = Signal(str)
    camerasChanged = Signal()  # noqa: N815

    def available(self) -> bool:
        raise NotImplementedError

    def unavailable_reason(self) -> str:
        """Why nothing can be shown (pt_BR), or "" when available."""
        raise NotImplementedError

    def cameras(self) -> list[CameraChoice]:
        raise NotImplementedError

    def current_camera(self) -> str | None:
        raise NotImplementedError

    def select_camera(self, camera_id: str) -> None:
        raise NotImplementedError

    def start(self) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def is_active(self) -> bool:
        raise NotImplementedError

    def capture(self) -> None:
        """Take a still; it arrives as ``captured`` (or ``failed``)."""
        raise NotImplementedError


def _import_multimedia() -> ModuleType:
    # Loading the backend logs a warning for every optional library it does not find
    # (PipeWire, VA-API...): noise for the clerk's log, and not actionable.
    QLoggingCategory.setFilterRules("qt.multimedia.symbolsresolver.warning=false")
    return importlib.import_module("PySide6.QtMultimedia")


def _device_id(device: Any) -> str:
    return bytes(device.id().data()).hex()


def best_format(formats: list[Any]) -> Any | None:
    """The camera format to use: the largest up to :data:`MAX_FORMAT_PIXELS` with a fluent frame
    rate; failing that, the smallest of the bigger ones; ``None`` when there is nothing to choose."""
    def pixels(fmt: Any) -> int:
        size = fmt.resolution()
        return size.width() * size.height()

    fluent = [f for f in formats if f.maxFrameRate() >= MIN_FRAME_RATE] or list(formats)
    fitting = [f for f in fluent if pixels(f) <= MAX_FORMAT_PIXELS]
    if fitting:
        return max(fitting, key=lambda f: (pixels(f), f.maxFrameRate()))
    return min(fluent, key=pixels) if fluent else None


class QtCameraSource(FrameSource):
    """The workstation's webcams through QtMultimedia (see the module docstring)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._mm: ModuleType | None = None
        self._reason = ""
        self._camera: Any = None
        self._device: Any = None
        self._running = False
        self._pending: int | None = None
        self._last_image = QImage()  # the last frame sent: the photo when there is no still
        self._frame_sent_at = 0.0  # time.monotonic() of the last frameReady
        self._capture_timer = QTimer(self)
        self._capture_timer.setSingleShot(True)
        self._capture_timer.timeout.connect(self._capture_timed_out)
        try:
            mm = _import_multimedia()
        except (ImportError, OSError) as exc:  # a missing libpulse0 surfaces as ImportError
            log.warning("QtMultimedia unavailable: %s", exc)
            self._reason = MSG_NO_MULTIMEDIA.format(detail=str(exc).rstrip(".") or type(exc).__name__)
            return
        self._mm = mm
        self._devices = mm.QMediaDevices(self)
        self._devices.videoInputsChanged.connect(self._inputs_changed)
        self._session = mm.QMediaCaptureSession(self)
        self._sink = mm.QVideoSink(self)
        self._session.setVideoSink(self._sink)
        self._image_capture = mm.QImageCapture(self)
        self._session.setImageCapture(self._image_capture)
        self._sink.videoFrameChanged.connect(self._on_frame)
        self._image_capture.imageCaptured.connect(self._on_still_image)
        self._image_capture.imageAvailable.connect(self._on_still_frame)
        self._image_capture.errorOccurred.connect(self._on_capture_error)

    # -- what there is ---------------------------------------------------------------------
    def _inputs(self) -> list[Any]:
        return list(self._mm.QMediaDevices.videoInputs()) if self._mm is not None else []

    def available(self) -> bool:
        return self._mm is not None and bool(self._inputs())

    def unavailable_reason(self) -> str:
        if self._mm is None:
            return self._reason
        return "" if self._inputs() else MSG_NO_CAMERA

    def cameras(self) -> list[CameraChoice]:
        return [CameraChoice(_device_id(d), d.description()) for d in self._inputs()]

    def current_camera(self) -> str | None:
        return _device_id(self._device) if self._device is not None else None

    def select_camera(self, camera_id: str) -> None:
        if self._mm is None:
            return
        inputs = self._inputs()
        device = next((d for d in inputs if _device_id(d) == camera_id), None)
        if device is None:
            default = self._mm.QMediaDevices.defaultVideoInput()
            device = default if not default.isNull() else (inputs[0] if inputs else None)
        if device is None:
            return
        if self._device is not None and _device_id(self._device) == _device_id(device) \
                and self._camera is not None:
            return
        self._close_camera()
        self._device = device
        camera = self._mm.QCamera(device, self)
        fmt = best_format(list(device.videoFormats()))
        if fmt is not None:
            camera.setCameraFormat(fmt)
        camera.errorOccurred.connect(self._on_camera_error)
        self._session.setCamera(camera)
        self._camera = camera
        if self._running:
            camera.start()

    # -- running ---------------------------------------------------------------------------
    def start(self) -> None:
        if not self.available():
            return
        if self._camera is None:
            self.select_camera(remembered_camera() or "")
        self._running = True
        self._last_image = QImage()
        if self._camera is not None:
            self._camera.start()

    def stop(self) -> None:
        self._running = False
        self._capture_timer.stop()
        if self._camera is not None:
            self._camera.stop()

    def is_active(self) -> bool:
        # Started, not necessarily streaming yet: a capture before the first frame says so.
        return self._running and self._camera is not None

    def capture(self) -> None:
        if not self.is_active():
            self.failed.emit(MSG_NOT_STARTED)
            return
        if self._image_capture.isReadyForCapture():
            self._pending = self._image_capture.capture()
            self._capture_timer.start(CAPTURE_TIMEOUT_MS)
        else:  # some drivers have no still pipeline: the live frame is the photo
            self._deliver_last_image()

    def _close_camera(self) -> None:
        if self._camera is not None:
            self._camera.stop()
            self._session.setCamera(None)
            self._camera.deleteLater()
        self._camera = None
        self._device = None
        self._pending = None
        self._last_image = QImage()

    # -- Qt callbacks ----------------------------------------------------------------------
    def _on_frame(self, frame: Any) -> None:
        # Only converted frames are kept: holding a QVideoFrame would hold one of the driver's
        # few capture buffers.
        if not self._running or not frame.isValid():
            return
        now = time.monotonic()
        if (now - self._frame_sent_at) * 1000 < PREVIEW_INTERVAL_MS:
            return
        image = frame.toImage()
        if not image.isNull():
            self._frame_sent_at = now
            self._last_image = image
            self.frameReady.emit(image)

    def _finish_capture(self, image: QImage) -> None:
        self._pending = None
        self._capture_timer.stop()
        self.captured.emit(image)

    def _on_still_image(self, request: int, image: QImage) -> None:
        if request == self._pending and not image.isNull():
            self._finish_capture(image)

    def _on_still_frame(self, request: int, frame: Any) -> None:
        if request == self._pending:
            image = frame.toImage()
            if not image.isNull():
                self._finish_capture(image)

    def _on_capture_error(self, request: int, _error: Any, text: str) -> None:
        if request != self._pending:
            return
        log.warning("still capture failed (%s); using the live frame", text)
        self._pending = None
        self._capture_timer.stop()
        if self._last_image.isNull():
            self.failed.emit(MSG_CAPTURE_FAILED.format(detail=text or "erro desconhecido"))
        else:
            self._deliver_last_image()

    def _capture_timed_out(self) -> None:
        if self._pending is not None:
            log.warning("still capture timed out; using the live frame")
            self._pending = None
            self._deliver_last_image()

    def _deliver_last_image(self) -> None:
        if self._last_image.isNull():
            self.failed.emit(MSG_NO_FRAME)
        else:
            self.captured.emit(self._last_image)

    def _on_camera_error(self, _error: Any, text: str) -> None:
        log.warning("camera error: %s", text)
        self.failed.emit(MSG_CAMERA_ERROR.format(detail=text.rstrip(".") or "erro desconhecido"))

    def _inputs_changed(self) -> None:
        if self._device is not None and self.current_camera() not in {c.id for c in self.cameras()}:
            self.stop()
            self._close_camera()
            self.failed.emit(MSG_CAMERA_GONE)
        self.camerasChanged.emit()


class FakeFrameSource(FrameSource):
    """A camera that shows one picture: for tests, the benchmark and demonstrations.

    ``image`` is the live frame (a QImage or a file); ``still`` is what ``capture()`` returns
    (default: the same picture), so a small viewfinder and a big still can be imitated. An empty
    ``cameras`` list or a ``reason`` makes it unavailable, like a workstation without a webcam.
    """

    def __init__(self, image: QImage | str | Path, parent: QObject | None = None, *,
                 still: QImage | str | Path | None = None,
                 cameras: tuple[CameraChoice, ...] = (CameraChoice("fake-0", "Câmera de teste"),),
                 interval_ms: int = 40, reason: str = "") -> None:
        super().__init__(parent)
        self.image = image if isinstance(image, QImage) else QImage(str(image))
        if self.image.isNull():
            raise ValueError(f"not a readable image: {image}")
        self.still = self.image if still is None else (still if isinstance(still, QImage) else QImage(str(still)))
        self._cameras = list(cameras)
        self._current: str | None = None
        self._reason = reason
        self.frames_sent = 0
        self.captures = 0
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._send_frame)
        # Deferred deliveries use timer objects, not QTimer.singleShot(ms, callable): PySide6 6.12.0
        # on Python 3.11 drops a reference to None on every call of a void Qt method (6.11.x does
        # not), and a test or benchmark calls the fake camera thousands of times.
        self._first_frame = _one_shot(self, self._send_frame)
        self._still_timer = _one_shot(self, self._send_still)

    def available(self) -> bool:
        return not self._reason and bool(self._cameras)

    def unavailable_reason(self) -> str:
        if self._reason:
            return self._reason
        return "" if self._cameras else MSG_NO_CAMERA

    def cameras(self) -> list[CameraChoice]:
        return list(self._cameras)

    def current_camera(self) -> str | None:
        return self._current

    def select_camera(self, camera_id: str) -> None:
        ids = [c.id for c in self._cameras]
        if ids:
            self._current = camera_id if camera_id in ids else ids[0]

    def set_cameras(self, cameras: tuple[CameraChoice, ...]) -> None:
        """Imitate plugging or unplugging cameras."""
        self._cameras = list(cameras)
        if self._current not in {c.id for c in cameras}:
            self._current = None
            if self._timer.isActive():
                self.stop()
                self.failed.emit(MSG_CAMERA_GONE)
        self.camerasChanged.emit()

    def start(self) -> None:
        if not self.available():
            return
        if self._current is None:
            self.select_camera(remembered_camera() or "")
        self._timer.start()
        self._first_frame.start(0)

    def stop(self) -> None:
        self._timer.stop()
        self._first_frame.stop()

    def is_active(self) -> bool:
        return self._timer.isActive()

    def capture(self) -> None:
        if not self.is_active():
            self.failed.emit(MSG_NOT_STARTED)
            return
        self.captures += 1
        self._still_timer.start(0)

    def fail(self, message: str) -> None:
        """Imitate a camera error."""
        self.stop()
        self.failed.emit(message)

    def _send_still(self) -> None:
        self.captured.emit(self.still)

    def _send_frame(self) -> None:
        if self._timer.isActive():
            self.frames_sent += 1
            self.frameReady.emit(self.image)


def _one_shot(parent: QObject, slot: Callable[[], None]) -> QTimer:
    timer = QTimer(parent)
    timer.setSingleShot(True)
    timer.timeout.connect(slot)
    return timer


def default_frame_source(parent: QObject | None = None) -> FrameSource:
    """The workstation's cameras (possibly none: see :meth:`FrameSource.unavailable_reason`)."""
    return QtCameraSource(parent)
