"""The shared PDF preview: shows the pages, prints them at true size through QPrinter, saves the bytes."""

from __future__ import annotations

import io
import threading
from datetime import datetime
from pathlib import Path

import pytest
from pypdf import PdfReader
from PySide6.QtCore import Qt
from PySide6.QtPrintSupport import QPrinter
from PySide6.QtWidgets import QDialog

from motodesk.printing.documents import (
    InspectionItem,
    InspectionReportData,
    PersonInfo,
    VehicleInfo,
    render_inspection_report,
)
from motodesk.rules.common import ServiceType
from motodesk.ui import pdfpreview
from motodesk.ui.pdfpreview import PdfPreviewDialog, suggested_filename

A4_POINTS = (595.28, 841.89)


@pytest.fixture(scope="module")
def two_pages() -> bytes:
    items = [InspectionItem(f"Art. {n}º", f"Item verificado número {n}", "ok" if n % 7 else "not_ok")
             for n in range(1, 40)]
    return render_inspection_report(InspectionReportData(
        report_number="000001/2026", service=ServiceType.MOTOTAXI,
        holder=PersonInfo("José Carlos Ferreira", "123.456.789-09"), vehicle=VehicleInfo("ABC-1234"),
        items=items, approved=False, inspector_name="Carlos Henrique Borges",
        inspected_at=datetime(2026, 3, 2, 9, 30)), generated_at=datetime(2026, 3, 2, 9, 31))


def test_preview_shows_every_page_with_the_three_buttons(qtbot, two_pages: bytes) -> None:  # noqa: ANN001
    dialog = PdfPreviewDialog(two_pages, "Laudo de Vistoria 000001/2026")
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert dialog.document.pageCount() == len(PdfReader(io.BytesIO(two_pages)).pages) >= 2
    assert dialog.info.text() == f"{dialog.document.pageCount()} páginas"
    assert [b.text().replace("&", "") for b in (dialog.print_button, dialog.save_button, dialog.close_button)] == [
        "Imprimir…", "Salvar PDF…", "Fechar"]
    assert dialog.filename == "laudo-de-vistoria-000001-2026.pdf"
    dialog.close_button.click()
    assert dialog.result() == QDialog.DialogCode.Accepted


def test_print_renders_every_page_at_true_size(qtbot, monkeypatch, tmp_path: Path,  # noqa: ANN001
                                               two_pages: bytes, wait_ops) -> None:
    out = tmp_path / "impresso.pdf"
    opened: list[QPrinter] = []

    class FakePrintDialog:
        def __init__(self, printer: QPrinter, parent: object = None) -> None:
            printer.setOutputFormat(QPrinter.OutputFormat.PdfFormat)
            printer.setOutputFileName(str(out))
            printer.setResolution(150)
            opened.append(printer)

        def setWindowTitle(self, title: str) -> None:  # noqa: N802
            assert "Laudo" in title

        def setMinMax(self, low: int, high: int) -> None:  # noqa: N802
            pass

        def exec(self) -> int:
            return QDialog.DialogCode.Accepted

    monkeypatch.setattr(pdfpreview, "QPrintDialog", FakePrintDialog)
    jobs: list[tuple[int, bool]] = []
    real_print = pdfpreview.print_pdf_bytes

    def tracked(data: bytes, printer: QPrinter) -> int:
        jobs.append((threading.get_ident(), dialog.printing))
        return real_print(data, printer)

    monkeypatch.setattr(pdfpreview, "print_pdf_bytes", tracked)
    dialog = PdfPreviewDialog(two_pages, "Laudo de Vistoria 000001/2026")
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.activateWindow()
    qtbot.waitUntil(dialog.isActiveWindow)
    qtbot.keyClick(dialog.view, Qt.Key.Key_P, Qt.KeyboardModifier.ControlModifier)  # Ctrl+P
    qtbot.waitUntil(lambda: bool(opened) and bool(jobs))  # a button's shortcut clicks it after its short animation
    wait_ops()
    # The job ran on a worker thread, with the dialog saying it was printing: the window was free meanwhile.
    assert len(jobs) == 1 and jobs[0][0] != threading.get_ident() and jobs[0][1] is True
    assert out.exists() and not dialog.printing and "enviadas à impressora" in dialog.info.text()
    printed = PdfReader(out)
    assert len(printed.pages) == dialog.document.pageCount()
    for page in printed.pages:
        size = (float(page.mediabox.width), float(page.mediabox.height))
        assert size == pytest.approx(A4_POINTS, abs=1.5)
        assert page.images, "each page is painted as the rendered PDF page"


def test_cancelled_print_dialog_prints_nothing(qtbot, monkeypatch, two_pages: bytes) -> None:  # noqa: ANN001
    class Cancel:
        def __init__(self, *args: object) -> None:
            pass

        def setWindowTitle(self, title: str) -> None:  # noqa: N802
            pass

        def setMinMax(self, low: int, high: int) -> None:  # noqa: N802
            pass

        def exec(self) -> int:
            return QDialog.DialogCode.Rejected

    monkeypatch.setattr(pdfpreview, "QPrintDialog", Cancel)
    dialog = PdfPreviewDialog(two_pages, "Laudo")
    qtbot.addWidget(dialog)
    assert dialog.print_document() is False


def test_save_writes_the_same_bytes(qtbot, monkeypatch, tmp_path: Path, two_pages: bytes) -> None:  # noqa: ANN001
    target = tmp_path / "meu laudo"
    monkeypatch.setattr(pdfpreview.QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(target), "Documentos PDF (*.pdf)"))
    dialog = PdfPreviewDialog(two_pages, "Laudo")
    qtbot.addWidget(dialog)
    assert dialog.save_as() == target.with_suffix(".pdf")
    assert target.with_suffix(".pdf").read_bytes() == two_pages


def test_the_preview_fits_the_screen_and_turns_pages_from_the_keyboard(qtbot, two_pages: bytes) -> None:  # noqa: ANN001
    from tests_helpers import SCREENSHOTS, fits_screen, missing_access_keys  # type: ignore[import-not-found]

    dialog = PdfPreviewDialog(two_pages, "Laudo de Vistoria 000001/2026")
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert fits_screen(dialog) == [] and missing_access_keys(dialog) == []
    screen = dialog.screen().availableGeometry()
    assert dialog.height() >= screen.height() - 120  # as tall as the screen allows
    assert dialog.current_page() == 0
    qtbot.keyClick(dialog.view, Qt.Key.Key_PageDown)
    assert dialog.current_page() == 1
    qtbot.keyClick(dialog.view, Qt.Key.Key_PageUp)
    assert dialog.current_page() == 0
    qtbot.wait(400)  # QPdfView renders the pages in the background
    dialog.grab().save(str(SCREENSHOTS / "pdf_preview.png"))
    qtbot.keyClick(dialog.view, Qt.Key.Key_Escape)
    assert not dialog.isVisible()


def test_not_a_pdf_is_refused(qtbot) -> None:  # noqa: ANN001
    with pytest.raises(pdfpreview.PdfError):
        PdfPreviewDialog(b"not a pdf", "Laudo")
    assert suggested_filename("Autorização de Trânsito nº 7/2026") == "autorizacao-de-transito-no-7-2026.pdf"
