"""The 3x4 photo dialog (Lei nº 4.883/2017, Art. 5º, IX): capture or import, crop, check, store.

Left, the camera's live picture with the 3:4 area and a head guide drawn over it ("Capturar",
"Tirar outra", "Importar arquivo…", and the camera chooser, which remembers the last camera of the
workstation). Right, the proposed crop as it will be printed: drag it to move, wheel or slider to
zoom, arrow keys and +/- from the keyboard. Under it the quality warnings in pt_BR; when there are
any, "Usar mesmo assim" must be ticked to accept. "Aceitar" renders the 354 × 472 JPEG and keeps it
with ``services.photos.store_photo``; Esc cancels. The "Histórico" tab lists the earlier photos.

Every heavy step (turning a 12 MP frame into the working image, face detection, quality checks,
decoding an imported file, rendering and storing) runs off the GUI thread through
:class:`~motodesk.ui.ops.ServiceOp`; results of an analysis the clerk has already
abandoned (by retaking or importing again) are dropped by a generation counter.

A camera frame is reduced with Qt's smooth scaling to the imaging package's working size *before*
it becomes a Pillow image: on a 12 MP still that is about ten times cheaper than letting
``photo_from_image`` resample it with LANCZOS, and the working image is the same size either way
(``LoadedPhoto.original_size`` keeps the camera's real size, so the resolution check is unchanged).
"""

from __future__ import annotations

import dataclasses
import io
import logging
import math
import sys
import time
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image
from PySide6.QtCore import QModelIndex, QPointF, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QImage,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QPixmap,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSlider,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from motodesk.errors import DatabaseError
from motodesk.imaging import (
    Box,
    CropProposal,
    FaceDetector,
    LoadedPhoto,
    PhotoError,
    QualityWarning,
    check_quality,
    detect_faces,
    load_photo,
    move_crop,
    photo_from_image,
    preview,
    propose_crop,
    render_3x4,
    zoom_crop,
)
from motodesk.imaging.geometry import MIN_CROP_UNIT, max_crop_unit
from motodesk.imaging.loading import ACCEPTED_FORMATS, WORKING_SHORT_SIDE
from motodesk.imaging.quality import MESSAGES, QualityCode, looks_grey
from motodesk.services import photos
from motodesk.services.context import AppContext
from motodesk.services.errors import MotodeskError
from motodesk.services.photos import PhotoInfo
from motodesk.ui.camera import FrameSource, default_frame_source, remember_camera, remembered_camera
from motodesk.ui.errors import show_error, show_unexpected
from motodesk.ui.ops import ServiceOp
from motodesk.ui.tablemodel import Column, RowTableModel

log = logging.getLogger(__name__)

FILE_FILTER = ("Imagens (*.jpg *.jpeg *.png *.webp *.bmp *.tif *.tiff *.JPG *.JPEG *.PNG);;"
               "Todos os arquivos (*)")
MAX_FILE_BYTES = 60 * 1024 * 1024
DISPLAY_MAX_SIDE = 1024  # the source picture on the left never needs more
CROP_VIEW_SIZE = QSize(270, 360)
ZOOM_STEPS = 1000
WHEEL_ZOOM = 1.12  # per wheel notch
KEY_ZOOM = 1.08
QUALITY_DELAY_MS = 150

# Where the head sits in the proposed crop (imaging.cropping: eye line at 45 % of the height, head
# 65 % of it): crown at 13 %, chin at 78 %, the face about 58 % of the width. Drawn as a guide.
HEAD_TOP, HEAD_BOTTOM, HEAD_WIDTH, EYE_LINE = 0.133, 0.783, 0.58, 0.45

MSG_READ_FAILED = "Não foi possível ler o arquivo: {detail}."
MSG_FILE_TOO_BIG = "O arquivo tem {mb:.0f} MB; o limite para uma foto é {limit} MB."
MSG_CMYK = "A imagem estava em CMYK (cores de gráfica) e foi convertida para cores de tela (sRGB)."
MSG_16_BIT = "A imagem tinha 16 bits por canal e foi convertida para 8 bits."
MSG_GREY = MESSAGES[QualityCode.GREY]
MSG_NO_FACE_CROP = "Nenhum rosto encontrado: o recorte foi centralizado; ajuste manualmente."
MSG_REFUSED = "Foto recusada: {message}"
MSG_PLACEHOLDER_CROP = "O recorte 3x4 aparece aqui depois de capturar ou importar a foto."
GREY_CODE = "grey"
SOURCE_LABELS = photos.SOURCES


# -- QImage ⇄ Pillow ------------------------------------------------------------------------------
_LITTLE = sys.byteorder == "little"
_RAW_MODES: dict[QImage.Format, tuple[str, str]] = {
    QImage.Format.Format_RGB32: ("RGB", "BGRX" if _LITTLE else "XRGB"),
    QImage.Format.Format_ARGB32: ("RGB", "BGRX" if _LITTLE else "XRGB"),
    QImage.Format.Format_ARGB32_Premultiplied: ("RGB", "BGRX" if _LITTLE else "XRGB"),
    QImage.Format.Format_RGBX8888: ("RGB", "RGBX"),
    QImage.Format.Format_RGBA8888: ("RGB", "RGBX"),
    QImage.Format.Format_RGBA8888_Premultiplied: ("RGB", "RGBX"),
    QImage.Format.Format_RGB888: ("RGB", "RGB"),
    QImage.Format.Format_BGR888: ("RGB", "BGR"),
    QImage.Format.Format_Grayscale8: ("L", "L"),
}


def working_size(size: tuple[int, int]) -> tuple[int, int]:
    """The size a frame is reduced to before analysis (the imaging package's working size), or
    ``size`` itself when reducing would save little (short side under 1.25 × 1500 px)."""
    width, height = size
    short = min(width, height)
    if short < 1.25 * WORKING_SHORT_SIDE:
        return size
    factor = WORKING_SHORT_SIDE / short
    return (max(1, round(width * factor)), max(1, round(height * factor)))


def frame_to_pil(image: QImage) -> tuple[Image.Image, tuple[int, int]]:
    """A camera frame as an 8-bit Pillow image, already reduced to the working size, and the
    frame's own size. Camera frames are opaque: any alpha channel is ignored."""
    original = (image.width(), image.height())
    target = working_size(original)
    if target != original:
        image = image.scaled(target[0], target[1], Qt.AspectRatioMode.IgnoreAspectRatio,
                             Qt.TransformationMode.SmoothTransformation)
    modes = _RAW_MODES.get(image.format())
    if modes is None:
        image = image.convertToFormat(QImage.Format.Format_RGB32)
        modes = _RAW_MODES[QImage.Format.Format_RGB32]
    mode, raw = modes
    size = (image.width(), image.height())
    pil = Image.frombuffer(mode, size, image.constBits(), "raw", raw, image.bytesPerLine(), 1)  # type: ignore[arg-type]
    if pil.readonly:
        # Pillow mapped the QImage's memory instead of decoding it (it does for "L", "RGBX" and
        # "RGBA" raw data, in the raw data's own mode): make an image of our own, in our mode.
        pil = pil.convert(mode) if pil.mode != mode else pil.copy()
    return pil, original


def pil_to_qimage(img: Image.Image) -> QImage:
    """A Pillow image as a QImage that owns its pixels."""
    rgb = img if img.mode == "RGB" else img.convert("RGB")
    data = rgb.tobytes()
    return QImage(data, rgb.width, rgb.height, 3 * rgb.width, QImage.Format.Format_RGB888).copy()


# -- analysis (runs in a worker thread) ---------------------------------------------------------------
@dataclass(frozen=True)
class Analysis:
    """A captured or imported photo ready for the crop editor."""

    photo: LoadedPhoto
    proposal: CropProposal
    warnings: tuple[QualityWarning, ...]
    source: str  # "camera" or "file" (services.photos.SOURCES)
    display: QImage  # the working image reduced for the left view
    display_scale: float  # display pixels per working-image pixel
    notes: tuple[str, ...] = ()  # what was converted on the way (CMYK, 16 bits)
    grey: bool = False
    seconds: float = 0.0


def conversion_notes(data: bytes) -> tuple[str, ...]:
    """What :func:`load_photo` will convert silently and the clerk should know about."""
    notes: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with Image.open(io.BytesIO(data), formats=ACCEPTED_FORMATS) as im:
                mode = im.mode
                raw = str(im.tile[0].args) if im.tile else ""
        except Exception:  # noqa: BLE001 - load_photo refuses it with the proper message
            return ()
    if mode == "CMYK":
        notes.append(MSG_CMYK)
    if mode.startswith("I;16") or mode in ("I", "F") or ";16" in raw:
        notes.append(MSG_16_BIT)
    return tuple(notes)


def _analyse(photo: LoadedPhoto, source: str, notes: tuple[str, ...], detector: FaceDetector,
             started: float) -> Analysis:
    proposal = propose_crop(photo, detector)
    found = tuple(check_quality(photo, proposal))
    # The left view needs no more than DISPLAY_MAX_SIDE pixels: an integer box reduction is a few
    # milliseconds where a resampling filter on the working image costs tens.
    step = math.ceil(max(photo.size) / DISPLAY_MAX_SIDE)
    small = photo.image.reduce(step) if step > 1 else photo.image
    return Analysis(photo=photo, proposal=proposal, warnings=found, source=source,
                    display=pil_to_qimage(small), display_scale=small.width / photo.size[0], notes=notes,
                    grey=looks_grey(small), seconds=time.perf_counter() - started)


def analyse_frame(image: QImage, detector: FaceDetector = detect_faces) -> Analysis:
    """A camera still: reduce, normalise, propose the crop, check it."""
    started = time.perf_counter()
    if image.isNull():
        raise PhotoError("A câmera enviou uma imagem vazia. Tire a foto novamente.", "empty")
    pil, original = frame_to_pil(image)
    photo = photo_from_image(pil)
    if photo.size != original:
        photo = dataclasses.replace(photo, original_size=original, scale=photo.size[0] / original[0])
    return _analyse(photo, "camera", (), detector, started)


def analyse_file(path: Path, detector: FaceDetector = detect_faces) -> Analysis:
    """An imported file: read (size-limited), decode with EXIF orientation, propose, check."""
    started = time.perf_counter()
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise PhotoError(MSG_FILE_TOO_BIG.format(mb=size / 1e6, limit=MAX_FILE_BYTES // 2**20), "too_large")
        data = path.read_bytes()
    except OSError as exc:
        raise PhotoError(MSG_READ_FAILED.format(detail=exc.strerror or exc), "unreadable") from exc
    notes = conversion_notes(data)
    return _analyse(load_photo(data), "file", notes, detector, started)


def render_and_store(ctx: AppContext, person_id: int, analysis: Analysis, box: Box,
                     override_reason: str | None = None) -> PhotoInfo:
    """The badge JPEG of ``box`` kept as the person's newest photo (worker thread).

    The service judges the photo again (Art. 5º, IX); ``override_reason`` is the clerk's reason for
    "Usar mesmo assim", which it requires when it finds quality warnings."""
    jpeg = render_3x4(analysis.photo, box)
    return photos.store_photo(ctx, person_id, jpeg, "camera" if analysis.source == "camera" else "file",
                              override_reason=override_reason)


# -- zoom slider ⇄ crop size ---------------------------------------------------------------------
def _unit_range(image_size: tuple[int, int]) -> tuple[int, int]:
    high = max_crop_unit(image_size)
    return min(MIN_CROP_UNIT, high), high


def slider_value(box: Box, image_size: tuple[int, int]) -> int:
    """0 = the largest crop (zoomed out), ZOOM_STEPS = the smallest (zoomed in), logarithmic."""
    low, high = _unit_range(image_size)
    if high <= low:
        return 0
    unit = min(high, max(low, box.width / 3))
    return round(math.log(high / unit) / math.log(high / low) * ZOOM_STEPS)


def unit_for_slider(value: int, image_size: tuple[int, int]) -> int:
    low, high = _unit_range(image_size)
    return max(low, min(high, round(high * (low / high) ** (value / ZOOM_STEPS))))


# -- widgets -------------------------------------------------------------------------------------
def _fit(image_size: QSize, area: QRectF) -> QRectF:
    """The rectangle an image of ``image_size`` takes when fitted and centred in ``area``."""
    if image_size.isEmpty():
        return QRectF()
    scale = min(area.width() / image_size.width(), area.height() / image_size.height())
    w, h = image_size.width() * scale, image_size.height() * scale
    return QRectF(area.x() + (area.width() - w) / 2, area.y() + (area.height() - h) / 2, w, h)


def _head_guide(painter: QPainter, rect: QRectF) -> None:
    """Dashed oval where the head should be and the eye line, in a 3:4 ``rect``."""
    pen = QPen(QColor(255, 255, 255, 170), 1.5, Qt.PenStyle.DashLine)
    painter.setPen(pen)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    w = rect.width() * HEAD_WIDTH
    painter.drawEllipse(QRectF(rect.center().x() - w / 2, rect.top() + rect.height() * HEAD_TOP,
                               w, rect.height() * (HEAD_BOTTOM - HEAD_TOP)))
    y = rect.top() + rect.height() * EYE_LINE
    painter.drawLine(QPointF(rect.left() + rect.width() * 0.15, y), QPointF(rect.right() - rect.width() * 0.15, y))


class SourceView(QWidget):
    """The camera picture (or the imported file) with the 3:4 area over it.

    Live, the overlay is the largest centred 3:4 area with a head guide; once a photo is captured
    or imported, it is the crop being edited (``set_crop`` in the picture's pixels)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("source_view")
        self.setMinimumSize(480, 360)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.image = QImage()
        self.crop: QRectF | None = None
        self.message = ""

    def set_frame(self, image: QImage, crop: QRectF | None = None) -> None:
        self.image = image
        self.crop = crop
        self.update()

    def set_message(self, text: str) -> None:
        self.message = text
        self.update()

    def clear(self) -> None:
        self.image = QImage()
        self.crop = None
        self.update()

    def overlay_rect(self) -> QRectF:
        """Where the 3:4 overlay is drawn, in widget coordinates (empty without a picture)."""
        target = _fit(self.image.size(), QRectF(self.rect()))
        if target.isEmpty():
            return QRectF()
        if self.crop is not None:
            sx = target.width() / self.image.width()
            return QRectF(target.x() + self.crop.x() * sx, target.y() + self.crop.y() * sx,
                          self.crop.width() * sx, self.crop.height() * sx)
        h = min(target.height(), target.width() * 4 / 3)
        w = h * 3 / 4
        return QRectF(target.center().x() - w / 2, target.center().y() - h / 2, w, h)

    def paintEvent(self, _event: QPaintEvent) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        painter.fillRect(self.rect(), QColor("#1e1e1e"))
        if self.image.isNull():
            painter.setPen(QColor("#e0e0e0"))
            painter.drawText(QRectF(self.rect()).adjusted(24, 24, -24, -24),
                             int(Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap), self.message)
            return
        target = _fit(self.image.size(), QRectF(self.rect()))
        painter.drawImage(target, self.image)
        area = QRectF(self.overlay_rect().intersected(target).toAlignedRect())
        target = QRectF(target.toAlignedRect())
        shade = QColor(0, 0, 0, 130)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)  # no seams between the strips
        painter.fillRect(QRectF(target.left(), target.top(), target.width(), area.top() - target.top()), shade)
        painter.fillRect(QRectF(target.left(), area.bottom(), target.width(), target.bottom() - area.bottom()), shade)
        painter.fillRect(QRectF(target.left(), area.top(), area.left() - target.left(), area.height()), shade)
        painter.fillRect(QRectF(area.right(), area.top(), target.right() - area.right(), area.height()), shade)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(QColor("#ffd54f"), 2))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(area)
        if self.crop is None:
            _head_guide(painter, area)


class CropView(QWidget):
    """The crop as it will be printed. Dragging moves the photo under the frame, the wheel zooms
    around the pointer; arrows move (Shift: more), + and - zoom. The dialog does the arithmetic."""

    dragStarted = Signal()  # noqa: N815
    dragged = Signal(float, float)  # total movement since the press, in widget pixels
    wheelZoomed = Signal(float, float, float)  # noqa: N815 - factor, pointer x and y as fractions
    nudged = Signal(float, float)  # movement as a fraction of the crop
    keyZoomed = Signal(float)  # noqa: N815
    shown = Signal()  # a new preview was painted

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("crop_view")
        self.setFixedSize(CROP_VIEW_SIZE)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setToolTip("Arraste para mover a foto; use a roda do mouse ou o controle de zoom para aproximar.")
        self.image = QImage()
        self._press: QPointF | None = None
        self._fresh = False

    def set_image(self, image: QImage) -> None:
        self.image = image
        self._fresh = True
        self.setCursor(Qt.CursorShape.OpenHandCursor if not image.isNull() else Qt.CursorShape.ArrowCursor)
        self.update()

    def paintEvent(self, _event: QPaintEvent) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        rect = QRectF(self.rect())
        if self.image.isNull():
            painter.fillRect(rect, QColor("#f0f0f0"))
            painter.setPen(QColor("#616161"))
            painter.drawText(rect.adjusted(20, 20, -20, -20),
                             int(Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap), MSG_PLACEHOLDER_CROP)
        else:
            painter.drawImage(rect, self.image)
            _head_guide(painter, rect)
        painter.setPen(QPen(QColor("#9e9e9e"), 1))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(rect.adjusted(0.5, 0.5, -0.5, -0.5))
        if self.hasFocus():
            painter.setPen(QPen(self.palette().highlight().color(), 2))
            painter.drawRect(rect.adjusted(1, 1, -1, -1))
        painter.end()
        if self._fresh and not self.image.isNull():
            self._fresh = False
            self.shown.emit()

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        if event.button() == Qt.MouseButton.LeftButton and not self.image.isNull():
            self._press = event.position()
            self.setCursor(Qt.CursorShape.ClosedHandCursor)
            self.dragStarted.emit()
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        if self._press is not None:
            delta = event.position() - self._press
            self.dragged.emit(delta.x(), delta.y())

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        if self._press is not None and event.button() == Qt.MouseButton.LeftButton:
            self._press = None
            self.setCursor(Qt.CursorShape.OpenHandCursor)

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802
        steps = event.angleDelta().y() / 120
        if steps and not self.image.isNull():
            pos = event.position()
            self.wheelZoomed.emit(WHEEL_ZOOM ** steps, pos.x() / self.width(), pos.y() / self.height())
            event.accept()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        step = 0.10 if event.modifiers() & Qt.KeyboardModifier.ShiftModifier else 0.02
        moves = {Qt.Key.Key_Left: (-step, 0.0), Qt.Key.Key_Right: (step, 0.0),
                 Qt.Key.Key_Up: (0.0, -step), Qt.Key.Key_Down: (0.0, step)}
        key = Qt.Key(event.key())
        if self.image.isNull():
            super().keyPressEvent(event)
        elif key in moves:
            self.nudged.emit(*moves[key])
        elif key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.keyZoomed.emit(KEY_ZOOM)
        elif key == Qt.Key.Key_Minus:
            self.keyZoomed.emit(1 / KEY_ZOOM)
        else:
            super().keyPressEvent(event)


class PhotoHistoryModel(RowTableModel[PhotoInfo]):
    """The person's photos, newest (the one on the badge) first, with a thumbnail."""

    THUMB = QSize(45, 60)

    def __init__(self, rows: list[PhotoInfo] | None = None, parent: Any = None) -> None:
        super().__init__([
            Column("photo", "Foto", lambda p: "", sortable=False),
            Column("captured_at", "Tirada em", lambda p: p.captured_at),
            Column("captured_by", "Por", lambda p: p.captured_by),
            Column("source", "Origem", lambda p: SOURCE_LABELS.get(p.source, p.source)),
            Column("use", "Uso", lambda p: "No crachá" if p is self._newest else "Anterior", sortable=False),
        ], rows or [], parent)
        self._thumbs: dict[int, QPixmap] = {}

    @property
    def _newest(self) -> PhotoInfo | None:
        rows = self.rows()
        return max(rows, key=lambda p: (p.captured_at, p.id)) if rows else None

    def data(self, index: Any, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if (role == Qt.ItemDataRole.DecorationRole and index.isValid() and index.column() == 0
                and 0 <= index.row() < self.rowCount()):
            return self.thumbnail(self.row_at(index.row()))
        if role == Qt.ItemDataRole.SizeHintRole and index.isValid() and index.column() == 0:
            return QSize(self.THUMB.width() + 8, self.THUMB.height() + 6)
        return super().data(index, role)

    def thumbnail(self, info: PhotoInfo) -> QPixmap:
        pixmap = self._thumbs.get(info.id)
        if pixmap is None:
            pixmap = QPixmap()
            if info.jpeg:
                pixmap.loadFromData(info.jpeg)
                pixmap = pixmap.scaled(self.THUMB, Qt.AspectRatioMode.KeepAspectRatio,
                                       Qt.TransformationMode.SmoothTransformation)
            self._thumbs[info.id] = pixmap
        return pixmap


# -- the dialog ----------------------------------------------------------------------------------
SourceFactory = Callable[[QWidget], FrameSource]


class PhotoDialog(QDialog):
    """Take or import the person's 3x4 photo; ``stored`` holds the new photo after ``Accepted``."""

    cropPreviewShown = Signal()  # noqa: N815 - the crop of a new capture/import is on screen

    def __init__(self, ctx: AppContext, person_id: int, parent: QWidget | None = None, *,
                 person_name: str = "", source_factory: SourceFactory = default_frame_source,
                 detector: FaceDetector = detect_faces) -> None:
        super().__init__(parent)
        self.setObjectName("photo_dialog")
        self.setWindowTitle(f"Foto 3x4 – {person_name}" if person_name else "Foto 3x4")
        self.ctx = ctx
        self.person_id = person_id
        self.detector = detector
        self.can_store = ctx.user.role in photos.EDITORS
        self.analysis: Analysis | None = None
        self.box: Box | None = None
        self.stored: PhotoInfo | None = None
        self.quality: list[QualityWarning] = []
        self.mode = "live"  # live | capturing | analysing | review | saving | no_camera
        self._generation = 0
        self._finished = False
        self._drag_start: Box | None = None
        self._codes: tuple[str, ...] = ()
        self.service_warnings: list[str] = []  # what the service found on the finished photo (Art. 5º, IX)
        self._build()
        self.source = source_factory(self)
        self.source.frameReady.connect(self._on_frame)
        self.source.captured.connect(self._on_captured)
        self.source.failed.connect(self._on_source_failed)
        self.source.camerasChanged.connect(self._on_cameras_changed)
        self._quality_timer = QTimer(self)
        self._quality_timer.setSingleShot(True)
        self._quality_timer.setInterval(QUALITY_DELAY_MS)
        self._quality_timer.timeout.connect(self._recheck)
        self._load_history()
        self._start_camera()

    # -- layout --------------------------------------------------------------------------------
    def _build(self) -> None:
        self.tabs = QTabWidget()
        self.tabs.addTab(self._build_photo_tab(), "&Foto")
        self.tabs.addTab(self._build_history_tab(), "&Histórico")
        self.buttons = QDialogButtonBox()
        self.accept_button = self.buttons.addButton("&Aceitar", QDialogButtonBox.ButtonRole.AcceptRole)
        self.accept_button.setObjectName("accept_button")
        self.cancel_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.cancel_button.setText("Ca&ncelar")  # Esc too; an access key like every button (issue #18)
        self.accept_button.clicked.connect(self.accept_photo)
        self.cancel_button.clicked.connect(self.reject)
        self.accept_button.setAutoDefault(False)
        self.cancel_button.setAutoDefault(False)
        self.status = QLabel("")
        self.status.setObjectName("status")
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)
        self.progress.setMaximumWidth(140)
        self.progress.hide()
        bottom = QHBoxLayout()
        bottom.addWidget(self.progress)
        bottom.addWidget(self.status, 1)
        bottom.addWidget(self.buttons)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs, 1)
        layout.addLayout(bottom)
        self.resize(1000, 640)

    def _build_photo_tab(self) -> QWidget:
        page = QWidget()
        self.camera_combo = QComboBox()
        self.camera_combo.setObjectName("camera_combo")
        self.camera_combo.currentIndexChanged.connect(self._camera_chosen)
        camera_label = QLabel("&Câmera:")
        camera_label.setBuddy(self.camera_combo)
        chooser = QHBoxLayout()
        chooser.addWidget(camera_label)
        chooser.addWidget(self.camera_combo, 1)
        self.source_view = SourceView()
        self.camera_message = QLabel("")
        self.camera_message.setObjectName("camera_message")
        self.camera_message.setWordWrap(True)
        self.camera_message.setStyleSheet("color: #b71c1c;")
        self.camera_message.hide()
        self.capture_button = QPushButton("Ca&pturar")
        self.capture_button.setObjectName("capture_button")
        self.capture_button.setToolTip("Tirar a foto com a câmera (Enter)")
        self.retake_button = QPushButton("&Tirar outra")
        self.retake_button.setObjectName("retake_button")
        self.import_button = QPushButton("&Importar arquivo…")
        self.import_button.setObjectName("import_button")
        self.import_button.setToolTip("Usar uma foto trazida pelo requerente (JPEG, PNG, WebP, BMP ou TIFF)")
        for button in (self.capture_button, self.retake_button, self.import_button):
            button.setAutoDefault(False)
        self.capture_button.clicked.connect(self.capture)
        self.retake_button.clicked.connect(self.retake)
        self.import_button.clicked.connect(self.import_file)
        actions = QHBoxLayout()
        actions.addWidget(self.capture_button)
        actions.addWidget(self.retake_button)
        actions.addStretch(1)
        actions.addWidget(self.import_button)
        left = QVBoxLayout()
        left.addLayout(chooser)
        left.addWidget(self.source_view, 1)
        left.addWidget(self.camera_message)
        left.addLayout(actions)

        self.crop_view = CropView()
        self.crop_view.dragStarted.connect(self._drag_started)
        self.crop_view.dragged.connect(self._dragged)
        self.crop_view.wheelZoomed.connect(self._wheel_zoomed)
        self.crop_view.nudged.connect(self._nudged)
        self.crop_view.keyZoomed.connect(self._key_zoomed)
        self.crop_view.shown.connect(self._crop_shown)
        self.zoom_slider = QSlider(Qt.Orientation.Horizontal)
        self.zoom_slider.setObjectName("zoom_slider")
        self.zoom_slider.setRange(0, ZOOM_STEPS)
        self.zoom_slider.setPageStep(ZOOM_STEPS // 20)
        self.zoom_slider.valueChanged.connect(self._slider_moved)
        zoom_label = QLabel("&Zoom:")
        zoom_label.setBuddy(self.zoom_slider)
        self.reset_button = QPushButton("&Recorte automático")
        self.reset_button.setObjectName("reset_button")
        self.reset_button.setAutoDefault(False)
        self.reset_button.clicked.connect(self.reset_crop)
        zoom = QHBoxLayout()
        zoom.addWidget(zoom_label)
        zoom.addWidget(self.zoom_slider, 1)
        self.crop_note = QLabel("")
        self.crop_note.setObjectName("crop_note")
        self.crop_note.setWordWrap(True)
        self.refusal = QLabel("")
        self.refusal.setObjectName("refusal")
        self.refusal.setWordWrap(True)
        self.refusal.setStyleSheet("color: #b71c1c; font-weight: bold;")
        self.refusal.hide()
        self.warning_list = QListWidget()
        self.warning_list.setObjectName("warnings")
        self.warning_list.setWordWrap(True)
        self.warning_list.setStyleSheet("QListWidget { color: #8a4b00; }")
        self.warning_list.setMaximumHeight(110)
        self.warning_list.hide()
        self.override = QCheckBox("&Usar mesmo assim")
        self.override.setObjectName("override")
        self.override.setToolTip("Aceitar a foto apesar dos avisos acima")
        self.override.toggled.connect(self._update_controls)
        self.override.hide()
        self.override_reason = QLineEdit()
        self.override_reason.setObjectName("override_reason")
        self.override_reason.setPlaceholderText("Por que usar esta foto apesar dos avisos")
        self.override_reason.setMaxLength(photos.MAX_OVERRIDE_REASON)
        self.override_reason.textChanged.connect(self._update_controls)
        self.override_reason_label = QLabel("&Motivo (fica na auditoria):")
        self.override_reason_label.setBuddy(self.override_reason)
        self.override_reason.hide()
        self.override_reason_label.hide()
        right = QVBoxLayout()
        crop_title = QLabel("<b>Foto 3x4 do crachá</b> (354 × 472 px, 3 × 4 cm)")
        crop_title.setWordWrap(True)  # a larger system font wraps it in the fixed-width column
        right.addWidget(crop_title)
        right.addWidget(self.crop_view, 0, Qt.AlignmentFlag.AlignHCenter)
        right.addLayout(zoom)
        right.addWidget(self.reset_button, 0, Qt.AlignmentFlag.AlignRight)
        right.addWidget(self.crop_note)
        right.addWidget(self.refusal)
        right.addWidget(self.warning_list)
        right.addWidget(self.override)
        right.addWidget(self.override_reason_label)
        right.addWidget(self.override_reason)
        right.addStretch(1)
        right_box = QWidget()
        right_box.setLayout(right)
        right_box.setFixedWidth(CROP_VIEW_SIZE.width() + 60)
        row = QHBoxLayout(page)
        row.addLayout(left, 1)
        row.addWidget(right_box)
        return page

    def _build_history_tab(self) -> QWidget:
        page = QWidget()
        self.history_model = PhotoHistoryModel(parent=self)
        self.history_view = QTableView()
        self.history_view.setObjectName("history")
        self.history_view.setModel(self.history_model)
        self.history_view.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.history_view.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        self.history_view.setIconSize(PhotoHistoryModel.THUMB)
        self.history_view.verticalHeader().hide()
        self.history_view.verticalHeader().setDefaultSectionSize(PhotoHistoryModel.THUMB.height() + 8)
        self.history_view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.history_view.horizontalHeader().setStretchLastSection(True)
        self.history_view.selectionModel().currentRowChanged.connect(self._history_selected)
        self.history_photo = QLabel("")
        self.history_photo.setObjectName("history_photo")
        self.history_photo.setFixedSize(177, 236)
        self.history_photo.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.history_photo.setStyleSheet("border: 1px solid #9e9e9e; background: #f5f5f5;")
        self.history_note = QLabel("")
        self.history_note.setObjectName("history_note")
        self.history_note.setWordWrap(True)
        side = QVBoxLayout()
        side.addWidget(self.history_photo)
        side.addWidget(self.history_note)
        side.addStretch(1)
        row = QHBoxLayout(page)
        row.addWidget(self.history_view, 1)
        row.addLayout(side)
        return page

    # -- history -------------------------------------------------------------------------------
    def _load_history(self) -> None:
        """The earlier photos (with their bytes) read off the GUI thread; the capture tab stays usable."""
        ctx, person_id = self.ctx, self.person_id

        def failed(exc: BaseException) -> bool:
            if not isinstance(exc, (MotodeskError, DatabaseError)):
                return False  # unexpected: ServiceOp shows the details
            self.history_note.setText(str(exc))
            self._show_history([])
            return True

        ServiceOp(self, lambda: photos.photo_history(ctx, person_id, with_bytes=True), lock=False,
                  key="history").success(self._show_history).failure(failed).run()

    def _show_history(self, rows: list[PhotoInfo]) -> None:
        self.history_model.set_rows(rows)
        self.tabs.setTabText(1, f"&Histórico ({len(rows)})")
        if not rows:
            self.history_note.setText(self.history_note.text() or "Nenhuma foto guardada ainda.")
        else:
            self.history_note.setText("A mais recente é a usada no crachá; as anteriores ficam guardadas.")
            self.history_view.selectRow(0)

    def _history_selected(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not current.isValid():
            self.history_photo.clear()
            return
        info = self.history_model.row_at(current.row())
        pixmap = QPixmap()
        if info.jpeg:
            pixmap.loadFromData(info.jpeg)
        self.history_photo.setPixmap(pixmap.scaled(self.history_photo.size(), Qt.AspectRatioMode.KeepAspectRatio,
                                                   Qt.TransformationMode.SmoothTransformation))

    # -- camera --------------------------------------------------------------------------------
    def _start_camera(self) -> None:
        self._fill_cameras()
        if not self.source.available():
            self.mode = "no_camera"
            reason = self.source.unavailable_reason()
            self.source_view.clear()
            self.source_view.set_message(reason)
            self._show_camera_message(reason)
        else:
            self.mode = "live"
            self._show_camera_message("")
            self.source_view.set_message("Ligando a câmera…")
            self.source.start()
            self._fill_cameras()  # the source settled on a camera when it started
        self._update_controls()

    def _fill_cameras(self) -> None:
        cameras = self.source.cameras() if self.source.available() else []
        wanted = self.source.current_camera() or remembered_camera()
        self.camera_combo.blockSignals(True)
        self.camera_combo.clear()
        for camera in cameras:
            self.camera_combo.addItem(camera.name, camera.id)
        index = self.camera_combo.findData(wanted) if wanted else -1
        self.camera_combo.setCurrentIndex(index if index >= 0 else (0 if cameras else -1))
        self.camera_combo.blockSignals(False)
        self.camera_combo.setEnabled(len(cameras) > 1)

    def _camera_chosen(self, index: int) -> None:
        camera_id = self.camera_combo.itemData(index)
        if not camera_id:
            return
        remember_camera(camera_id)
        self.source.select_camera(camera_id)
        if self.mode == "live":
            self.source.start()

    def _on_cameras_changed(self) -> None:
        if self._finished:
            return
        was_live = self.mode in ("live", "no_camera")
        self._fill_cameras()
        if was_live:
            self._start_camera()

    def _show_camera_message(self, text: str) -> None:
        self.camera_message.setText(text)
        self.camera_message.setVisible(bool(text))

    def _on_frame(self, image: QImage) -> None:
        if self.mode == "live" and not self._finished:
            self.source_view.set_frame(image)
            if not self.capture_button.isEnabled():  # the first frame after a (re)start
                self._update_controls()

    def _on_source_failed(self, message: str) -> None:
        if self._finished:
            return
        self._show_camera_message(message)
        if self.mode in ("live", "capturing"):
            self.mode = "live" if self.source.available() and self.source.is_active() else "no_camera"
            if self.mode == "no_camera":
                self.source_view.clear()
                self.source_view.set_message(message)
            self._set_busy("")
        self._update_controls()

    # -- actions -------------------------------------------------------------------------------
    def capture(self) -> None:
        """Take the still (the analysis starts when the camera delivers it)."""
        if self.mode != "live" or not self.source.is_active():
            return
        self.mode = "capturing"
        self._set_busy("Capturando…")
        self._update_controls()
        self.source.capture()

    def _on_captured(self, image: QImage) -> None:
        if self._finished or self.mode != "capturing":
            return
        self.source.stop()
        self.source_view.set_frame(image)
        self._show_camera_message("")
        self._analyse(lambda: analyse_frame(image, self.detector), "Procurando o rosto…")

    def import_file(self) -> None:
        if self.mode in ("saving", "capturing"):
            return
        name, _ = QFileDialog.getOpenFileName(self, "Importar foto 3x4", "", FILE_FILTER)
        if not name:
            return
        self.source.stop()
        path = Path(name)
        self._analyse(lambda: analyse_file(path, self.detector), f"Abrindo {path.name}…")

    def retake(self) -> None:
        """Back to the live camera; the current photo is dropped."""
        if self.mode == "saving":
            return
        self._generation += 1  # an analysis still running is of no use now
        self._clear_photo()
        self._set_busy("")
        self._start_camera()

    def reset_crop(self) -> None:
        if self.analysis is not None:
            self._set_box(self.analysis.proposal.box)

    # -- analysis ------------------------------------------------------------------------------
    def _analyse(self, work: Callable[[], Analysis], busy_text: str) -> None:
        self._generation += 1
        generation = self._generation
        self._clear_photo()
        self.mode = "analysing"
        self._set_busy(busy_text)
        self._update_controls()
        (ServiceOp(self, work, lock=False)
         .success(lambda result: self._analysed(generation, result))
         .failure(lambda exc: self._analysis_failed(generation, exc))
         .run())

    def _analysed(self, generation: int, analysis: Analysis) -> None:
        if self._finished or generation != self._generation:
            return
        log.info("photo analysed in %.0f ms (%s, %d×%d)", analysis.seconds * 1000, analysis.source,
                 *analysis.photo.original_size)
        self.analysis = analysis
        self.mode = "review"
        self._set_busy("")
        self._show_camera_message("")  # a photo is in: "Nenhuma câmera" no longer says anything true
        self.quality = list(analysis.warnings)
        notes = list(analysis.notes)
        if analysis.proposal.message:
            notes.insert(0, analysis.proposal.message)
        self.crop_note.setText("\n".join(notes))
        self._codes = ()
        self._set_box(analysis.proposal.box, recheck=False)
        self._show_warnings()
        self.crop_view.setFocus()
        self._update_controls()

    def _analysis_failed(self, generation: int, exc: BaseException) -> bool:
        if self._finished or generation != self._generation:
            return True
        self.mode = "no_camera" if not self.source.available() else "review"
        self._set_busy("")
        if isinstance(exc, PhotoError):
            self.refusal.setText(MSG_REFUSED.format(message=exc.message))
            self.refusal.show()
        else:
            log.error("photo analysis failed", exc_info=exc)
            show_unexpected(self, "".join(traceback.format_exception(exc)))
        self._update_controls()
        return True

    def _clear_photo(self) -> None:
        self.analysis = None
        self.box = None
        self.quality = []
        self._codes = ()
        self.crop_view.set_image(QImage())
        self.crop_note.setText("")
        self.refusal.hide()
        self.warning_list.clear()
        self.warning_list.hide()
        self.override.setChecked(False)
        self.override.hide()
        self.override_reason.clear()
        self.override_reason.hide()
        self.override_reason_label.hide()
        self.service_warnings = []
        self._quality_timer.stop()

    # -- crop editing --------------------------------------------------------------------------
    def _set_box(self, box: Box, *, recheck: bool = True) -> None:
        analysis = self.analysis
        if analysis is None:
            return
        self.box = box
        self.service_warnings = []  # a new crop is a new photo for the service to judge
        side = max(4, round(CROP_VIEW_SIZE.height() * self.crop_view.devicePixelRatioF()))
        self.crop_view.set_image(pil_to_qimage(preview(analysis.photo, box, side)))
        s = analysis.display_scale
        self.source_view.set_frame(analysis.display, QRectF(box.left * s, box.top * s, box.width * s, box.height * s))
        self.zoom_slider.blockSignals(True)
        self.zoom_slider.setValue(slider_value(box, analysis.photo.size))
        self.zoom_slider.blockSignals(False)
        if recheck:
            self._quality_timer.start()

    def _drag_started(self) -> None:
        self._drag_start = self.box

    def _dragged(self, dx: float, dy: float) -> None:
        if self.analysis is None or self._drag_start is None or self.mode != "review":
            return
        per_pixel = self._drag_start.width / self.crop_view.width()
        self._set_box(move_crop(self._drag_start, -round(dx * per_pixel), -round(dy * per_pixel),
                                self.analysis.photo.size))

    def _nudged(self, fx: float, fy: float) -> None:
        if self.analysis is None or self.box is None or self.mode != "review":
            return
        self._set_box(move_crop(self.box, round(fx * self.box.width), round(fy * self.box.height),
                                self.analysis.photo.size))

    def _zoom(self, factor: float, anchor: tuple[float, float] | None = None) -> None:
        if self.analysis is None or self.box is None or self.mode != "review":
            return
        self._set_box(zoom_crop(self.box, factor, self.analysis.photo.size, anchor))

    def _wheel_zoomed(self, factor: float, fx: float, fy: float) -> None:
        if self.box is not None:
            self._zoom(factor, (self.box.left + fx * self.box.width, self.box.top + fy * self.box.height))

    def _key_zoomed(self, factor: float) -> None:
        self._zoom(factor)

    def _slider_moved(self, value: int) -> None:
        if self.analysis is None or self.box is None or self.mode != "review":
            return
        unit = unit_for_slider(value, self.analysis.photo.size)
        self._zoom(self.box.width / 3 / unit)

    def _crop_shown(self) -> None:
        if self.analysis is not None:
            self.cropPreviewShown.emit()

    # -- quality -------------------------------------------------------------------------------
    def _recheck(self) -> None:
        if self.analysis is None or self.box is None:
            return
        proposal = dataclasses.replace(self.analysis.proposal, box=self.box)
        self.quality = check_quality(self.analysis.photo, proposal)
        self._show_warnings()
        self._update_controls()

    def warning_texts(self) -> list[str]:
        """Everything the clerk is warned about, in order (what the list shows)."""
        texts = [w.message for w in self.quality]
        if self.analysis is not None and self.analysis.grey:
            texts.append(MSG_GREY)
        texts += [t for t in self.service_warnings if t not in texts]
        return texts

    def _show_warnings(self) -> None:
        texts = self.warning_texts()
        codes = tuple(str(w.code) for w in self.quality) + ((GREY_CODE,) if self.analysis and self.analysis.grey
                                                              else ()) + tuple(self.service_warnings)
        if codes != self._codes:  # a different set of problems needs a fresh decision
            self._codes = codes
            self.override.setChecked(False)
        self.warning_list.clear()
        for text in texts:
            self.warning_list.addItem(f"⚠ {text}")
        self.warning_list.setVisible(bool(texts))
        self.override.setVisible(bool(texts))
        self.override_reason.setVisible(bool(texts))
        self.override_reason_label.setVisible(bool(texts))

    # -- accepting -----------------------------------------------------------------------------
    def overridden(self) -> bool:
        """"Usar mesmo assim" ticked with a reason: what the service needs to keep a photo with warnings."""
        return self.override.isChecked() and bool(self.override_reason.text().strip())

    def accept_allowed(self) -> bool:
        return (self.mode == "review" and self.analysis is not None and self.box is not None
                and self.can_store and (not self.warning_texts() or self.overridden()))

    def accept_photo(self) -> None:
        """Render the badge JPEG and store it; the dialog closes when it is kept."""
        self._quality_timer.stop()
        if self.analysis is not None and self.box is not None:
            self._recheck()  # the override must cover the warnings of the crop being accepted
        if not self.accept_allowed():
            return
        analysis, box = self.analysis, self.box
        assert analysis is not None and box is not None
        reason = self.override_reason.text().strip() if self.warning_texts() and self.overridden() else None
        self.mode = "saving"
        self._set_busy("Guardando a foto…")
        self._update_controls()
        ctx, person_id = self.ctx, self.person_id
        # The dossier and the lists show the new photo (and its badge's state) at once.
        (ServiceOp(self, lambda: render_and_store(ctx, person_id, analysis, box, reason), lock=False,
                   change="person")
         .success(self._stored)
         .failure(self._store_failed)
         .run())

    def _stored(self, info: PhotoInfo) -> None:
        self.stored = info
        self.mode = "review"
        self._set_busy("")
        self.accept()

    def _store_failed(self, exc: BaseException) -> bool:
        self.mode = "review"
        self._set_busy("")
        self._update_controls()
        if self._finished:
            return True
        if isinstance(exc, photos.PhotoQualityError):
            # The service found what the dialog did not: show it and ask for the override and its reason.
            self.service_warnings = [v.message.removeprefix("Art. 5º, IX: ") for v in exc.verdicts]
            self._show_warnings()
            self._update_controls()
            (self.override_reason if self.override.isChecked() else self.override).setFocus()
            return True
        if isinstance(exc, (MotodeskError, DatabaseError)):
            show_error(self, exc, "Foto recusada")
        else:
            log.error("storing the photo failed", exc_info=exc)
            show_unexpected(self, "".join(traceback.format_exception(exc)))
        return True

    # -- state ---------------------------------------------------------------------------------
    def _set_busy(self, text: str) -> None:
        self.status.setText(text)
        self.progress.setVisible(bool(text))

    def _update_controls(self) -> None:
        live = self.mode == "live" and self.source.is_active()
        self.capture_button.setEnabled(live)
        self.retake_button.setEnabled(self.mode in ("review", "analysing") and self.source.available())
        self.import_button.setEnabled(self.mode not in ("saving", "capturing"))
        self.camera_combo.setEnabled(self.mode in ("live",) and self.camera_combo.count() > 1)
        editing = self.mode == "review" and self.analysis is not None
        self.zoom_slider.setEnabled(editing)
        self.reset_button.setEnabled(editing)
        self.override.setEnabled(editing)
        self.override_reason.setEnabled(editing and self.override.isChecked())
        self.accept_button.setEnabled(self.accept_allowed())
        if not self.can_store:
            self.accept_button.setToolTip("Somente o atendimento e a supervisão guardam fotos.")
        elif self.warning_texts() and not self.overridden():
            self.accept_button.setToolTip("Há avisos sobre a foto: marque \"Usar mesmo assim\" e informe o motivo "
                                          "para aceitar.")
        else:
            self.accept_button.setToolTip("")

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        # Return must not accept by accident while the camera is live: it captures instead.
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.mode == "live":
            self.capture()
            return
        super().keyPressEvent(event)

    def reject(self) -> None:
        if self.mode == "saving":  # the photo is being written: let it finish
            return
        super().reject()

    def done(self, result: int) -> None:
        self._finished = True
        self._generation += 1
        self._quality_timer.stop()
        self.source.stop()
        super().done(result)


def take_photo(ctx: AppContext, person_id: int, parent: QWidget | None = None, *, person_name: str = "",
               source_factory: SourceFactory = default_frame_source) -> PhotoInfo | None:
    """Open the photo dialog modally: the newly stored photo, or None when the clerk cancelled.

    This is what the dossier's ``request_photo`` hook calls."""
    dialog = PhotoDialog(ctx, person_id, parent, person_name=person_name, source_factory=source_factory)
    try:
        dialog.exec()
        return dialog.stored
    finally:
        dialog.deleteLater()
