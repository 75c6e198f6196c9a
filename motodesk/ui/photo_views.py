"""The photo dialog's views: the camera's live picture with the 3:4 area and a head guide drawn over it
(:class:`SourceView`), the proposed crop as it will be printed, moved by dragging and zoomed by the
wheel or the keyboard (:class:`CropView`), and the history table with thumbnails
(:class:`PhotoHistoryModel`)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
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
    QSizePolicy,
    QWidget,
)

from motodesk.services import photos
from motodesk.services.photos import PhotoInfo
from motodesk.ui.tablemodel import Column, RowTableModel

CROP_VIEW_SIZE = QSize(270, 360)
WHEEL_ZOOM = 1.12  # per wheel notch
KEY_ZOOM = 1.08


# Where the head sits in the proposed crop (imaging.cropping: eye line at 45 % of the height, head
# 65 % of it): crown at 13 %, chin at 78 %, the face about 58 % of the width. Drawn as a guide.
HEAD_TOP, HEAD_BOTTOM, HEAD_WIDTH, EYE_LINE = 0.133, 0.783, 0.58, 0.45
MSG_PLACEHOLDER_CROP = "O recorte 3x4 aparece aqui depois de capturar ou importar a foto."
SOURCE_LABELS = photos.SOURCES


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
