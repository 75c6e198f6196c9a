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

This module holds the dialog; its tabs are built in :mod:`motodesk.ui.photo_dialog_form`, the work off
the GUI thread is in :mod:`motodesk.ui.photo_analysis`, the source, crop and history views in
:mod:`motodesk.ui.photo_views` (what callers import of them is re-exported here).
"""

from __future__ import annotations

import dataclasses
import logging
import traceback
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QModelIndex, QRectF, Qt, Signal
from PySide6.QtGui import (
    QImage,
    QKeyEvent,
    QPixmap,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from motodesk.errors import DatabaseError
from motodesk.imaging import (
    Box,
    FaceDetector,
    PhotoError,
    QualityWarning,
    check_quality,
    detect_faces,
    move_crop,
    preview,
    zoom_crop,
)
from motodesk.services import photos
from motodesk.services.context import AppContext
from motodesk.services.errors import MotodeskError
from motodesk.services.photos import PhotoInfo
from motodesk.ui.camera import FrameSource, default_frame_source, remember_camera, remembered_camera
from motodesk.ui.errors import show_error, show_unexpected
from motodesk.ui.ops import ServiceOp
from motodesk.ui.photo_analysis import (
    MAX_FILE_BYTES,
    MSG_16_BIT,
    MSG_CMYK,
    MSG_GREY,
    Analysis,
    analyse_file,
    analyse_frame,
    frame_to_pil,
    pil_to_qimage,
    render_and_store,
    slider_value,
    unit_for_slider,
)
from motodesk.ui.photo_dialog_form import PhotoDialogFormMixin
from motodesk.ui.photo_views import (
    CROP_VIEW_SIZE,
)
from motodesk.ui.widgets import one_shot_timer

log = logging.getLogger(__name__)

FILE_FILTER = ("Imagens (*.jpg *.jpeg *.png *.webp *.bmp *.tif *.tiff *.JPG *.JPEG *.PNG);;"
               "Todos os arquivos (*)")
QUALITY_DELAY_MS = 150
MSG_NO_FACE_CROP = "Nenhum rosto encontrado: o recorte foi centralizado; ajuste manualmente."
MSG_REFUSED = "Foto recusada: {message}"
GREY_CODE = "grey"


# -- the dialog ----------------------------------------------------------------------------------
SourceFactory = Callable[[QWidget], FrameSource]


class PhotoDialog(PhotoDialogFormMixin, QDialog):
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
        self._quality_timer = one_shot_timer(self, QUALITY_DELAY_MS, self._recheck)
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

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802
        super().showEvent(event)
        if not self.tabs.tabBar().hasFocus() and self.focusWidget() not in (None, self.tabs.tabBar()):
            return  # a field the clerk is already in
        # the first key does something: Capturar with a camera, Importar arquivo… without (never the tab bar)
        for button in (self.capture_button, self.import_button):
            if button.isEnabled() and button.isVisible():
                button.setFocus(Qt.FocusReason.OtherFocusReason)
                return

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


#: What callers import from here: the dialog, and what tests and benches take of its analysis.
__all__ = ["MAX_FILE_BYTES", "MSG_16_BIT", "MSG_CMYK", "MSG_GREY", "PhotoDialog", "frame_to_pil", "pil_to_qimage",
           "take_photo"]
