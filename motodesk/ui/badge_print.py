"""Print badges: preview, card printer (CR80) or A4 sheet with crop marks, calibration per workstation.

The preview's QR is an unsigned placeholder (see :func:`motodesk.services.badges.preview_badges`);
only "Imprimir…" and "Salvar PDF…" sign, number and log the badges, after the person has chosen the
printer or the file.  Each page is painted at its true size (:func:`motodesk.ui.pdfpreview.print_pdf`).

Card printers rarely feed the card exactly where the driver thinks: the offsets (mm, x to the right,
y down) move everything printed and are kept per layout in this workstation's QSettings.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QBuffer, QSettings, QSizeF
from PySide6.QtGui import QPageSize
from PySide6.QtPdf import QPdfDocument
from PySide6.QtPdfWidgets import QPdfView
from PySide6.QtPrintSupport import QPrintDialog, QPrinter
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from motodesk.printing.badge import CARD_HEIGHT_MM, CARD_WIDTH_MM
from motodesk.services import badges
from motodesk.services.badges import BadgeRequest, PrintedBadges
from motodesk.services.context import AppContext
from motodesk.services.errors import MotodeskError
from motodesk.ui.errors import show_error
from motodesk.ui.pdfpreview import PdfError, load_pdf, print_pdf

LAYOUTS = (("card", "Impressora de cartões (CR80, frente e verso)"),
           ("a4", "Folha A4 com marcas de corte (8 por folha)"))
MAX_OFFSET_MM = 10.0
SETTINGS_GROUP = "badge_print"


def load_offsets(layout: str) -> tuple[float, float]:
    """This workstation's calibration for ``layout`` (mm), (0, 0) when never set."""
    settings = QSettings()

    def value(key: str) -> float:
        try:
            number = float(str(settings.value(f"{SETTINGS_GROUP}/{layout}/{key}", 0.0)))
        except (TypeError, ValueError):
            return 0.0
        return max(-MAX_OFFSET_MM, min(MAX_OFFSET_MM, number))

    return value("offset_x_mm"), value("offset_y_mm")


def save_offsets(layout: str, offsets: tuple[float, float]) -> None:
    settings = QSettings()
    settings.setValue(f"{SETTINGS_GROUP}/{layout}/offset_x_mm", float(offsets[0]))
    settings.setValue(f"{SETTINGS_GROUP}/{layout}/offset_y_mm", float(offsets[1]))
    settings.sync()


def page_size(layout: str) -> QPageSize:
    """The paper: CR80 is defined upright (53.98 × 85.60 mm), as card printer drivers do; the card is
    printed across it in landscape (:func:`motodesk.ui.pdfpreview.print_pdf` turns the page)."""
    if layout == "card":
        return QPageSize(QSizeF(CARD_HEIGHT_MM, CARD_WIDTH_MM), QPageSize.Unit.Millimeter, "CR80",
                         QPageSize.SizeMatchPolicy.ExactMatch)
    return QPageSize(QPageSize.PageSizeId.A4)


class BadgePrintDialog(QDialog):
    """Badges of the chosen permits: preview, then print or save (each logged with its reason)."""

    def __init__(self, ctx: AppContext, permit_ids: Sequence[int], *, labels: Sequence[str] = (),
                 reprint: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.permit_ids = list(permit_ids)
        self.result_badges: PrintedBadges | None = None
        self.setObjectName("badge_print")
        self.setWindowTitle("Imprimir crachá" if len(self.permit_ids) == 1 else "Imprimir crachás")
        self.resize(760, 760)

        self.layout_box = QComboBox()
        self.layout_box.setObjectName("layout")
        for key, label in LAYOUTS:
            self.layout_box.addItem(label, key)
        self.deputy = QCheckBox("Crachá do preposto (em vez do titular)")
        self.deputy.setObjectName("deputy")
        self.reason = QLineEdit()
        self.reason.setObjectName("reason")
        self.reason.setMaxLength(badges.MAX_REASON)
        self.reason.setPlaceholderText("Perda, roubo, dano, renovação do registro…" if reprint else
                                       "Primeira via (opcional)")
        self.offset_x = self._offset_box("offset_x")
        self.offset_y = self._offset_box("offset_y")
        offsets = QHBoxLayout()
        offsets.addWidget(QLabel("horizontal"))
        offsets.addWidget(self.offset_x)
        offsets.addWidget(QLabel("vertical (para baixo)"))
        offsets.addWidget(self.offset_y)
        offsets.addStretch(1)
        form = QFormLayout()
        who = ", ".join(labels[:6]) + ("…" if len(labels) > 6 else "")
        if who:
            form.addRow("Crachás:", QLabel(who))
        form.addRow("Impressão:", self.layout_box)
        form.addRow("", self.deputy)
        form.addRow("Motivo da reimpressão:" if reprint else "Motivo:", self.reason)
        form.addRow("Ajuste desta estação (mm):", offsets)

        self.note = QLabel("Prévia: o código QR só é assinado e numerado ao imprimir ou salvar.")
        self.note.setObjectName("note")
        self.document = QPdfDocument(self)
        self._buffer: QBuffer | None = None
        self.view = QPdfView(self)
        self.view.setObjectName("badge_preview")
        self.view.setDocument(self.document)
        self.view.setPageMode(QPdfView.PageMode.MultiPage)
        self.view.setZoomMode(QPdfView.ZoomMode.FitToWidth)

        self.print_button = QPushButton("Imprimir…")
        self.print_button.setObjectName("print")
        self.save_button = QPushButton("Salvar PDF…")
        self.save_button.setObjectName("save_pdf")
        close = QPushButton("Fechar")
        close.setObjectName("close")
        self.print_button.clicked.connect(self.print_badges)
        self.save_button.clicked.connect(self.save_pdf)
        close.clicked.connect(self.reject)
        buttons = QHBoxLayout()
        buttons.addWidget(self.note, 1)
        buttons.addWidget(self.print_button)
        buttons.addWidget(self.save_button)
        buttons.addWidget(close)

        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.view, 1)
        layout.addLayout(buttons)

        self._load_offsets()
        self.layout_box.currentIndexChanged.connect(lambda _i: self._layout_changed())
        self.deputy.toggled.connect(lambda _c: self.refresh_preview())
        self.offset_x.valueChanged.connect(self._offsets_changed)
        self.offset_y.valueChanged.connect(self._offsets_changed)
        self.refresh_preview()

    def _offset_box(self, name: str) -> QDoubleSpinBox:
        box = QDoubleSpinBox()
        box.setObjectName(name)
        box.setRange(-MAX_OFFSET_MM, MAX_OFFSET_MM)
        box.setSingleStep(0.1)
        box.setDecimals(1)
        box.setSuffix(" mm")
        return box

    # --- state -------------------------------------------------------------------------------
    def layout_key(self) -> str:
        return str(self.layout_box.currentData())

    def offsets(self) -> tuple[float, float]:
        return self.offset_x.value(), self.offset_y.value()

    def requests(self) -> list[BadgeRequest]:
        return [BadgeRequest(pid, deputy=self.deputy.isChecked()) for pid in self.permit_ids]

    def _load_offsets(self) -> None:
        x, y = load_offsets(self.layout_key())
        for box, value in ((self.offset_x, x), (self.offset_y, y)):
            box.blockSignals(True)
            box.setValue(value)
            box.blockSignals(False)

    def _layout_changed(self) -> None:
        self._load_offsets()
        self.refresh_preview()

    def _offsets_changed(self) -> None:
        save_offsets(self.layout_key(), self.offsets())
        self.refresh_preview()

    def _show_pdf(self, pdf: bytes) -> None:
        self.document.close()
        self._buffer = QBuffer(self)
        load_pdf(self.document, self._buffer, pdf)

    def refresh_preview(self) -> bool:
        try:
            pdf = badges.preview_badges(self.ctx, self.requests(), layout=self.layout_key(),  # type: ignore[arg-type]
                                        offset_mm=self.offsets())
        except MotodeskError as exc:
            self.document.close()
            self.note.setText(str(exc).splitlines()[-1])
            self.print_button.setEnabled(False)
            self.save_button.setEnabled(False)
            return False
        self._show_pdf(pdf)
        self.note.setText("Prévia: o código QR só é assinado e numerado ao imprimir ou salvar.")
        self.print_button.setEnabled(True)
        self.save_button.setEnabled(True)
        return True

    # --- printing ----------------------------------------------------------------------------
    def _sign(self) -> PrintedBadges | None:
        try:
            printed = badges.print_badges(self.ctx, self.requests(), reason=self.reason.text(),
                                          layout=self.layout_key(), offset_mm=self.offsets())  # type: ignore[arg-type]
        except MotodeskError as exc:
            show_error(self, exc)
            return None
        self.result_badges = printed
        self._show_pdf(printed.pdf)
        vias = ", ".join(f"{b.permit_number} ({b.issue_no}ª via)" for b in printed.badges[:4])
        self.note.setText(f"Registrado: {vias}{'…' if len(printed.badges) > 4 else ''}.")
        return printed

    def print_badges(self) -> bool:
        printer = QPrinter(QPrinter.PrinterMode.HighResolution)
        printer.setDocName(self.windowTitle())
        printer.setPageSize(page_size(self.layout_key()))
        printer.setFullPage(True)
        dialog = QPrintDialog(printer, self)
        dialog.setWindowTitle("Imprimir crachás")
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return False
        printed = self._sign()
        if printed is None:
            return False
        printer.setFromTo(0, 0)
        printer.setPrintRange(QPrinter.PrintRange.AllPages)
        try:
            print_pdf(self.document, printer)
        except PdfError as exc:
            QMessageBox.warning(
                self, "Impressão",
                f"{exc}\nOs crachás já foram registrados como impressos; salve o PDF ou reimprima com o motivo.")
            return False
        return True

    def save_pdf(self) -> Path | None:
        name, _ = QFileDialog.getSaveFileName(self, "Salvar crachás em PDF", "crachas.pdf", "Documentos PDF (*.pdf)")
        if not name:
            return None
        path = Path(name)
        if path.suffix.lower() != ".pdf":
            path = path.with_suffix(".pdf")
        printed = self._sign()
        if printed is None:
            return None
        try:
            path.write_bytes(printed.pdf)
        except OSError as exc:
            QMessageBox.warning(self, "Salvar PDF", f"Não foi possível salvar o arquivo:\n{exc.strerror or exc}\n"
                                "Os crachás já foram registrados como impressos.")
            return None
        return path
