"""How the photo dialog's tabs are built: the camera's column (chooser, live picture, Capturar, Tirar outra,
Importar) beside the crop's (the proposed 3x4 with its zoom, the refusal, the quality warnings and
"Usar mesmo assim" with its reason), and the history tab. A mixin of
:class:`~motodesk.ui.photo_dialog.PhotoDialog`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from motodesk.services import photos
from motodesk.ui.formkit import buddy, column, push_button, row, wrapped_label
from motodesk.ui.photo_analysis import (
    ZOOM_STEPS,
)
from motodesk.ui.photo_views import (
    CROP_VIEW_SIZE,
    CropView,
    PhotoHistoryModel,
    SourceView,
)
from motodesk.ui.widgets import rows_table

if TYPE_CHECKING:  # the methods run on a PhotoDialog: what they use of it is typed there
    _Window = Any
else:
    _Window = object


class PhotoDialogFormMixin(_Window):
    """Builds the photo tab and the history tab (called from ``PhotoDialog._build``)."""

    def _build_photo_tab(self) -> QWidget:
        """The camera's column on the left, the crop's on the right (built in that order: the tab order)."""
        page = QWidget()
        left = self._build_source_column()
        right_box = self._build_crop_column()
        row((left, 1), right_box, parent=page)
        return page

    def _build_source_column(self) -> QVBoxLayout:
        """The camera chooser, the live picture, the camera's message and Capturar/Tirar outra/Importar."""
        self.camera_combo = QComboBox()
        self.camera_combo.setObjectName("camera_combo")
        self.camera_combo.currentIndexChanged.connect(self._camera_chosen)
        chooser = row(buddy("&Câmera:", self.camera_combo), (self.camera_combo, 1))
        self.source_view = SourceView()
        self.camera_message = wrapped_label("", "camera_message")
        self.camera_message.setStyleSheet("color: #b71c1c;")
        self.camera_message.hide()
        self.capture_button = push_button("Ca&pturar", "capture_button", self.capture, auto_default=False,
                                          tooltip="Tirar a foto com a câmera (Enter)")
        self.retake_button = push_button("&Tirar outra", "retake_button", self.retake, auto_default=False)
        self.import_button = push_button("&Importar arquivo…", "import_button", self.import_file, auto_default=False,
                                         tooltip="Usar uma foto trazida pelo requerente (JPEG, PNG, WebP, BMP ou TIFF)")
        actions = row(self.capture_button, self.retake_button, 1, self.import_button)
        left = column(chooser, (self.source_view, 1), self.camera_message, actions)
        return left

    def _build_crop_column(self) -> QWidget:
        """The proposed crop with its zoom and reset, the refusal, the warnings and the override."""
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
        self.reset_button = push_button("&Recorte automático", "reset_button", self.reset_crop, auto_default=False)
        zoom = QHBoxLayout()
        zoom.addWidget(zoom_label)
        zoom.addWidget(self.zoom_slider, 1)
        self.crop_note = QLabel("")
        self.crop_note.setObjectName("crop_note")
        self.crop_note.setWordWrap(True)
        self._build_warnings()
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
        return right_box

    def _build_warnings(self) -> None:
        """The refusal, the quality warnings and "Usar mesmo assim" with its reason, hidden until needed."""
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

    def _build_history_tab(self) -> QWidget:
        page = QWidget()
        self.history_model = PhotoHistoryModel(parent=self)
        self.history_view = rows_table("history", self.history_model)
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
        self.history_note = wrapped_label("", "history_note")
        row((self.history_view, 1), column(self.history_photo, self.history_note, 1), parent=page)
        return page
