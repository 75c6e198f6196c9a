"""A PDF to the printer Qt's print dialog chose, through the system's queue, off the GUI thread.

:func:`send_pdf` is safe on a worker thread (it makes its own QPdfDocument). Each page is rendered
at its true size (:func:`motodesk.ui.pdfpreview.print_pdf`, 300 dpi images) and then:

* with CUPS (Linux): written as a PDF of the dialog's paper (A4, or CR80 85.6 × 54 mm for the card
  printer) and handed to the queue with ``lp`` (:mod:`motodesk.printing.spool`), which answers
  with the job's id — the job is *accepted* — or refuses it;
* on Windows: painted on the dialog's printer, i.e. the spooler, which refuses at the start of the
  job when the printer is missing;
* "Imprimir em arquivo (PDF)" of the dialog: written to that file.

:func:`queue_problem` says beforehand, in pt_BR, why the chosen printer cannot take a job (missing,
off, out of cards, refusing): callers ask it before anything is signed or numbered.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from PySide6.QtGui import QPageLayout
from PySide6.QtPrintSupport import QPrinter, QPrinterInfo

from motodesk.printing import spool
from motodesk.printing.spool import Receipt, SpoolError
from motodesk.services.errors import MotodeskError
from motodesk.ui import pdfpreview

__all__ = ["PrintQueueError", "Receipt", "queue_problem", "send_pdf"]


class PrintQueueError(MotodeskError):
    """The printer cannot take the job, or its queue refused it (pt_BR message)."""


def _to_file(printer: QPrinter) -> bool:
    return printer.outputFormat() == QPrinter.OutputFormat.PdfFormat


def queue_problem(printer: QPrinter) -> str | None:
    """Why the dialog's printer cannot take a job now (pt_BR), or None."""
    if _to_file(printer):
        return None
    name = printer.printerName()
    if spool.available():
        try:
            return spool.problem(name)
        except SpoolError as exc:  # CUPS itself does not answer
            return str(exc)
    info = QPrinterInfo.printerInfo(name) if name else QPrinterInfo()
    if info.isNull():
        return spool.describe(spool.QueueState(name or "(nenhuma)", exists=False))
    if info.state() == QPrinter.PrinterState.Error:
        return spool.describe(spool.QueueState(name, exists=True, enabled=False))
    return None


def send_pdf(pdf_bytes: bytes, printer: QPrinter, title: str = "MotoDesk") -> Receipt:
    """Print the PDF on the dialog's printer; returns once the queue accepted the job.

    Raises :class:`PrintQueueError` (pt_BR) when the queue cannot take it or refused it."""
    if _to_file(printer) or not spool.available():
        problem = queue_problem(printer)
        if problem:
            raise PrintQueueError(problem)
        try:  # the spooler (or the file): the job's start refuses a printer that is missing
            pages = pdfpreview.print_pdf_bytes(pdf_bytes, printer)
        except pdfpreview.PdfError as exc:
            raise PrintQueueError(str(exc)) from exc
        return Receipt(printer.printerName() or printer.outputFileName(), None, pages)
    name = printer.printerName()
    problem = queue_problem(printer)
    if problem:
        raise PrintQueueError(problem)
    with tempfile.TemporaryDirectory(prefix="motodesk-print-") as folder:
        path = Path(folder) / "job.pdf"
        job = QPrinter(QPrinter.PrinterMode.HighResolution)
        job.setOutputFormat(QPrinter.OutputFormat.PdfFormat)
        job.setOutputFileName(str(path))
        job.setResolution(pdfpreview.MAX_PRINT_DPI)
        job.setDocName(title)
        job.setPageSize(printer.pageLayout().pageSize())
        job.setPrintRange(printer.printRange())
        job.setFromTo(printer.fromPage(), printer.toPage())
        pages = pdfpreview.print_pdf_bytes(pdf_bytes, job)  # turns the page to the document's orientation
        size = job.pageLayout().fullRect(QPageLayout.Unit.Millimeter)
        media = spool.media_name(size.width(), size.height())
        try:
            job_id = spool.submit(name, path, title, copies=printer.copyCount(), media=media)
        except SpoolError as exc:
            raise PrintQueueError(str(exc)) from exc
    return Receipt(name, job_id, pages)
