"""Preview a PDF in the app, print it on the local printer at true size, or save it.

``preview_pdf(parent, pdf_bytes, title)`` is what every screen calls for its documents (laudo,
certificates, notices…).  The PDF is shown with QtPdf; printing renders each page with
``QPdfDocument.render`` and paints it on the ``QPrinter`` page at its real size (an A4 page
prints as A4, never "fit to page"), so the printed sheet matches the saved PDF.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, QSize
from PySide6.QtGui import QPageLayout, QPageSize, QPainter
from PySide6.QtPdf import QPdfDocument
from PySide6.QtPdfWidgets import QPdfView
from PySide6.QtPrintSupport import QPrintDialog, QPrinter
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

#: Pages are rasterised for the printer at most at this resolution (a 1200 dpi A4 page would be ~0.5 GB).
MAX_PRINT_DPI = 300


class PdfError(Exception):
    """The bytes are not a PDF QtPdf can open."""


def load_pdf(document: QPdfDocument, buffer: QBuffer, pdf_bytes: bytes) -> None:
    buffer.setData(QByteArray(pdf_bytes))
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    document.load(buffer)
    if document.status() != QPdfDocument.Status.Ready or document.pageCount() == 0:
        raise PdfError("Não foi possível abrir o documento PDF.")


def print_pdf(document: QPdfDocument, printer: QPrinter) -> int:
    """Paint every page (or the range chosen in the print dialog) at true size; returns pages printed."""
    count = document.pageCount()
    first, last = 0, count - 1
    if printer.printRange() == QPrinter.PrintRange.PageRange and printer.fromPage() > 0:
        first = max(0, printer.fromPage() - 1)
        last = min(count - 1, max(first, printer.toPage() - 1))
    size = document.pagePointSize(first)
    orientation = (QPageLayout.Orientation.Landscape if size.width() > size.height()
                   else QPageLayout.Orientation.Portrait)
    printer.setPageOrientation(orientation)
    printer.setFullPage(True)  # the painter's origin is the paper's corner: no margin shift
    painter = QPainter()
    if not painter.begin(printer):
        raise PdfError("A impressora não aceitou o trabalho de impressão.")
    try:
        dpi = printer.resolution()
        raster_dpi = min(dpi, MAX_PRINT_DPI)
        for index in range(first, last + 1):
            if index > first:
                printer.newPage()
            points = document.pagePointSize(index)
            image = document.render(index, QSize(round(points.width() * raster_dpi / 72),
                                                 round(points.height() * raster_dpi / 72)))
            target = QRectF(0, 0, points.width() * dpi / 72, points.height() * dpi / 72)
            painter.drawImage(target, image)
    finally:
        painter.end()
    return last - first + 1


def suggested_filename(title: str) -> str:
    """"Laudo de Vistoria 000012/2026" → "laudo-de-vistoria-000012-2026.pdf"."""
    plain = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", plain.lower()).strip("-")
    return f"{slug or 'documento'}.pdf"


class PdfPreviewDialog(QDialog):
    """The document on screen, with "Imprimir…", "Salvar PDF…" and "Fechar"."""

    def __init__(self, pdf_bytes: bytes, title: str, parent: QWidget | None = None,
                 filename: str | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("pdf_preview")
        self.setWindowTitle(title)
        self.resize(860, 980)
        self.pdf_bytes = pdf_bytes
        self.title = title
        self.filename = filename or suggested_filename(title)
        self.document = QPdfDocument(self)
        self._buffer = QBuffer(self)
        load_pdf(self.document, self._buffer, pdf_bytes)

        self.view = QPdfView(self)
        self.view.setObjectName("pdf_view")
        self.view.setDocument(self.document)
        self.view.setPageMode(QPdfView.PageMode.MultiPage)
        self.view.setZoomMode(QPdfView.ZoomMode.FitToWidth)

        pages = self.document.pageCount()
        self.info = QLabel(f"{pages} página{'s' if pages != 1 else ''}")
        self.info.setObjectName("page_count")
        self.print_button = QPushButton("Imprimir…")
        self.print_button.setObjectName("print")
        self.save_button = QPushButton("Salvar PDF…")
        self.save_button.setObjectName("save_pdf")
        self.close_button = QPushButton("Fechar")
        self.close_button.setObjectName("close")
        self.print_button.clicked.connect(self.print_document)
        self.save_button.clicked.connect(self.save_as)
        self.close_button.clicked.connect(self.accept)

        buttons = QHBoxLayout()
        buttons.addWidget(self.info)
        buttons.addStretch(1)
        buttons.addWidget(self.print_button)
        buttons.addWidget(self.save_button)
        buttons.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.view, 1)
        layout.addLayout(buttons)
        self.close_button.setDefault(True)

    def print_document(self) -> bool:
        printer = QPrinter(QPrinter.PrinterMode.HighResolution)
        printer.setDocName(self.title)
        size = self.document.pagePointSize(0)
        printer.setPageSize(QPageSize(size, QPageSize.Unit.Point, "", QPageSize.SizeMatchPolicy.FuzzyMatch))
        printer.setFromTo(1, self.document.pageCount())
        dialog = QPrintDialog(printer, self)
        dialog.setWindowTitle("Imprimir – " + self.title)
        dialog.setMinMax(1, self.document.pageCount())
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return False
        try:
            print_pdf(self.document, printer)
        except PdfError as exc:
            QMessageBox.warning(self, "Impressão", str(exc))
            return False
        return True

    def save_as(self) -> Path | None:
        name, _ = QFileDialog.getSaveFileName(self, "Salvar PDF", self.filename, "Documentos PDF (*.pdf)")
        if not name:
            return None
        path = Path(name)
        if path.suffix.lower() != ".pdf":
            path = path.with_suffix(".pdf")
        try:
            path.write_bytes(self.pdf_bytes)
        except OSError as exc:
            QMessageBox.warning(self, "Salvar PDF", f"Não foi possível salvar o arquivo:\n{exc.strerror or exc}")
            return None
        return path


def preview_pdf(parent: QWidget | None, pdf_bytes: bytes, title: str, filename: str | None = None) -> None:
    """Show the PDF modally; the person prints, saves or closes it."""
    try:
        dialog = PdfPreviewDialog(pdf_bytes, title, parent, filename)
    except PdfError as exc:
        QMessageBox.warning(parent, title, str(exc))
        return
    dialog.exec()
    dialog.deleteLater()
