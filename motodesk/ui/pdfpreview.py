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

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import (
    QGuiApplication,
    QKeyEvent,
    QKeySequence,
    QPageLayout,
    QPageSize,
    QPainter,
    QShortcut,
)
from PySide6.QtPdf import QPdfDocument
from PySide6.QtPdfWidgets import QPdfView
from PySide6.QtPrintSupport import QPrintDialog, QPrinter
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,  # noqa: F401 - tests replace its static dialogs
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


def print_pdf_bytes(pdf_bytes: bytes, printer: QPrinter) -> int:
    """:func:`print_pdf` with a document of its own: safe to run on a worker thread (the preview's
    document belongs to the GUI thread), so a slow or absent printer never freezes the window."""
    document = QPdfDocument()
    buffer = QBuffer()
    load_pdf(document, buffer, pdf_bytes)
    try:
        return print_pdf(document, printer)
    finally:
        document.close()
        buffer.close()


def suggested_filename(title: str) -> str:
    """"Laudo de Vistoria 000012/2026" → "laudo-de-vistoria-000012-2026.pdf"."""
    plain = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", plain.lower()).strip("-")
    return f"{slug or 'documento'}.pdf"


class PdfPreviewDialog(QDialog):
    """The document on screen, with "Imprimir…", "Salvar PDF…" and "Fechar".

    It opens inside the screen, a whole page tall as the screen allows; PgUp/PgDn turn the pages,
    Ctrl+P prints, Ctrl+S saves, Esc closes. Printing runs off the GUI thread."""

    def __init__(self, pdf_bytes: bytes, title: str, parent: QWidget | None = None,
                 filename: str | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("pdf_preview")
        self.setWindowTitle(title)
        self.pdf_bytes = pdf_bytes
        self.title = title
        self.filename = filename or suggested_filename(title)
        self.document = QPdfDocument(self)
        self._buffer = QBuffer(self)
        load_pdf(self.document, self._buffer, pdf_bytes)
        self.printing = False

        self.view = QPdfView(self)
        self.view.setObjectName("pdf_view")
        self.view.setDocument(self.document)
        self.view.setPageMode(QPdfView.PageMode.MultiPage)
        self.view.setZoomMode(QPdfView.ZoomMode.FitInView)
        self.view.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

        pages = self.document.pageCount()
        self.info = QLabel(f"{pages} página{'s' if pages != 1 else ''}")
        self.info.setObjectName("page_count")
        self.keys = QLabel("PgUp/PgDn: páginas · Ctrl+P: imprimir · Esc: fechar")
        self.keys.setObjectName("keys")
        self.keys.setStyleSheet("color: #555;")
        self.print_button = QPushButton("&Imprimir…")
        self.print_button.setObjectName("print")
        self.print_button.setShortcut(QKeySequence("Ctrl+P"))
        self.save_button = QPushButton("&Salvar PDF…")
        self.save_button.setObjectName("save_pdf")
        self.save_button.setShortcut(QKeySequence("Ctrl+S"))
        self.close_button = QPushButton("&Fechar")
        self.close_button.setObjectName("close")
        self.print_button.clicked.connect(self.print_document)
        self.save_button.clicked.connect(self.save_as)
        self.close_button.clicked.connect(self.accept)
        for key, step in ((Qt.Key.Key_PageDown, 1), (Qt.Key.Key_PageUp, -1)):
            shortcut = QShortcut(QKeySequence(key), self)
            shortcut.activated.connect(lambda step=step: self.turn(step))

        buttons = QHBoxLayout()
        buttons.addWidget(self.info)
        buttons.addSpacing(12)
        buttons.addWidget(self.keys)
        buttons.addStretch(1)
        buttons.addWidget(self.print_button)
        buttons.addWidget(self.save_button)
        buttons.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.view, 1)
        layout.addLayout(buttons)
        self.close_button.setDefault(True)
        self.resize(self.fitting_size())
        self.view.setFocus()

    def fitting_size(self) -> QSize:
        """A whole page as tall as the screen allows (the window's frame and the buttons counted)."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        room = screen.availableGeometry() if screen is not None else None
        height = min(980, room.height() - 60) if room is not None else 980
        page = self.document.pagePointSize(0)
        ratio = page.width() / page.height() if page.height() > 0 else 0.7
        width = round((height - 70) * ratio) + 40
        width = max(width, 640)
        if room is not None:
            width = min(width, room.width() - 20)
        return QSize(width, height)

    def current_page(self) -> int:
        return self.view.pageNavigator().currentPage()

    def turn(self, step: int) -> None:
        """PgDn/PgUp: the next or previous page."""
        navigator = self.view.pageNavigator()
        page = max(0, min(self.document.pageCount() - 1, navigator.currentPage() + step))
        navigator.jump(page, QPointF(), navigator.currentZoom())

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        if event.key() in (Qt.Key.Key_PageDown, Qt.Key.Key_PageUp):
            self.turn(1 if event.key() == Qt.Key.Key_PageDown else -1)
            return
        super().keyPressEvent(event)

    def print_document(self) -> bool:
        """The print dialog, then the job on a worker thread; True when the job was started."""
        from motodesk.ui.ops import ServiceOp

        if self.printing:
            return False
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
        pdf_bytes = self.pdf_bytes
        self.printing = True
        self.info.setText("Enviando à impressora…")

        def printed(pages: int) -> None:
            self.info.setText(f"{pages} página{'s' if pages != 1 else ''} enviada{'s' if pages != 1 else ''} "
                              "à impressora")

        def failed(exc: BaseException) -> bool:
            if isinstance(exc, PdfError):
                QMessageBox.warning(self, "Impressão", str(exc))
                return True
            return False

        def finished() -> None:
            self.printing = False

        from motodesk.ui.printqueue import send_pdf

        title = self.title
        ServiceOp(self, lambda: send_pdf(pdf_bytes, printer, title).pages, busy="Enviando à impressora…",
                  lock=self.print_button, title="Impressão") \
            .success(printed).failure(failed).finally_(finished).run()
        return True

    def save_as(self) -> Path | None:
        from motodesk.ui.listpage import save_file_name

        path = save_file_name(self, "Salvar PDF", self.filename, "Documentos PDF (*.pdf)", ".pdf")
        if path is None:
            return None
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
