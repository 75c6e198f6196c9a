"""The badge print dialog: preview without a valid QR, printing through QPrinter at true size, the A4
sheet, a reprint's reason, and the calibration kept per workstation."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pytest
import zxingcpp
from enforcement_factory import suspend_through_process  # type: ignore[import-not-found]
from permit_factory import make_dossier  # type: ignore[import-not-found]
from PIL import Image
from pypdf import PdfReader
from PySide6.QtPrintSupport import QPrinter

from motodesk.rules.common import PermitState, ServiceType
from motodesk.services import badges, permits
from motodesk.services.badges import BadgeStatus
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext
from motodesk.ui import badge_print
from motodesk.ui.app import create_application
from motodesk.ui.badge_print import BadgePrintDialog, load_offsets
from motodesk.ui.widgets import field_error

MM_PER_PT = 25.4 / 72


@pytest.fixture
def permit_id(ctx: AppContext, supervisor: AppContext) -> int:
    dossier = make_dossier(ctx, ServiceType.MOTOBOY, state=PermitState.APPROVED, name="Helena Batista Couto")
    return permits.issue(supervisor, dossier.application_id).id


@pytest.fixture
def opened(qtbot, wait_ops):  # noqa: ANN001, ANN201
    """``opened(ctx, permit_ids, **kw)``: the dialog shown, its preview and card stock loaded."""

    def open_dialog(ctx: AppContext, permit_ids: list[int], **kwargs: object) -> BadgePrintDialog:
        create_application()
        dialog = BadgePrintDialog(ctx, permit_ids, **kwargs)  # type: ignore[arg-type]
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitExposed(dialog)
        wait_ops()
        return dialog

    return open_dialog


def _fake_print_dialog(monkeypatch: pytest.MonkeyPatch, out: Path, *, accept: bool = True) -> list[QPrinter]:
    opened: list[QPrinter] = []

    class FakePrintDialog:
        def __init__(self, printer: QPrinter, parent: object = None) -> None:
            printer.setOutputFormat(QPrinter.OutputFormat.PdfFormat)
            printer.setOutputFileName(str(out))
            printer.setResolution(300)
            opened.append(printer)

        def setWindowTitle(self, _title: str) -> None:  # noqa: N802
            pass

        def exec(self) -> int:
            return 1 if accept else 0

    monkeypatch.setattr(badge_print, "QPrintDialog", FakePrintDialog)
    return opened


def _qr_texts(pdf: bytes, page: int) -> list[str]:
    tool = shutil.which("pdftoppm")
    if tool is None:
        pytest.skip("pdftoppm (poppler-utils) is not installed")
    out = subprocess.run([tool, "-f", str(page), "-l", str(page), "-r", "300", "-png", "-"], input=pdf,
                         capture_output=True, check=True)
    image = Image.open(io.BytesIO(out.stdout)).convert("RGB")
    return [b.text for b in zxingcpp.read_barcodes(image) if b.format == zxingcpp.BarcodeFormat.QRCode]


def test_preview_then_print_at_true_card_size(opened, wait_ops, monkeypatch, tmp_path: Path,  # noqa: ANN001
                                              clerk: AppContext, permit_id: int) -> None:
    dialog = opened(clerk, [permit_id])
    assert dialog.document.pageCount() == 2  # front and back
    assert "Prévia" in dialog.note.text()
    assert badges.print_log(clerk, permit_id) == []  # previewing logs nothing

    out = tmp_path / "impressora.pdf"
    _fake_print_dialog(monkeypatch, out)
    dialog.print_badges()
    wait_ops()
    printed = out.read_bytes()
    reader = PdfReader(io.BytesIO(printed))
    assert len(reader.pages) == 2
    for page in reader.pages:  # the card printer's page is the CR80 card, at true size
        width, height = float(page.mediabox.width) * MM_PER_PT, float(page.mediabox.height) * MM_PER_PT
        # (Qt's PDF printer rounds the page to whole points: 85.6 mm is written as 243 pt = 85.7 mm.)
        assert width == pytest.approx(85.60, abs=0.2) and height == pytest.approx(53.98, abs=0.2)
    # The QR on the printed back (rendered by Qt for the printer, read again at 300 dpi) verifies.
    tokens = _qr_texts(printed, 2)
    assert len(tokens) == 1
    assert badges.verify_badge(clerk, tokens[0]).status is BadgeStatus.VALID
    log = badges.print_log(clerk, permit_id)
    assert [(r.issue_no, r.reason, r.layout) for r in log] == [(1, "Primeira via", "card")]
    assert "1ª via" in dialog.note.text()


def test_a_cancelled_print_dialog_signs_and_logs_nothing(opened, wait_ops, monkeypatch, tmp_path: Path,  # noqa: ANN001
                                                         clerk: AppContext, permit_id: int) -> None:
    dialog = opened(clerk, [permit_id])
    _fake_print_dialog(monkeypatch, tmp_path / "x.pdf", accept=False)
    dialog.print_badges()
    wait_ops()
    assert badges.print_log(clerk, permit_id) == [] and dialog.result_badges is None


def test_a4_sheet_and_reprint_reason(opened, wait_ops, qtbot, monkeypatch, tmp_path: Path,  # noqa: ANN001
                                     clerk: AppContext, permit_id: int) -> None:
    badges.print_badges(clerk, [permit_id])
    dialog = opened(clerk, [permit_id], reprint=True)
    dialog.layout_box.setCurrentIndex(dialog.layout_box.findData("a4"))
    wait_ops()
    saved = tmp_path / "crachas.pdf"
    monkeypatch.setattr(badge_print.QFileDialog, "getSaveFileName", lambda *a, **k: (str(saved), ""))
    dialog.save_pdf()  # no reason for the reprint: the field says so
    wait_ops()
    assert field_error(dialog.reason) == "Obrigatório para reimpressão." and not saved.exists()
    qtbot.keyClicks(dialog.reason, "Dano no cartao")
    dialog.save_pdf()
    wait_ops()
    assert dialog.saved_path == saved
    reader = PdfReader(io.BytesIO(saved.read_bytes()))
    sizes = {(round(float(p.mediabox.width) * MM_PER_PT), round(float(p.mediabox.height) * MM_PER_PT))
             for p in reader.pages}
    assert sizes == {(210, 297)}
    log = badges.print_log(clerk, permit_id)
    assert [(r.issue_no, r.reason, r.layout) for r in log][0] == (2, "Dano no cartao", "a4")


def test_calibration_is_kept_per_workstation_and_layout(opened, clerk: AppContext, permit_id: int) -> None:  # noqa: ANN001
    dialog = opened(clerk, [permit_id])
    dialog.offset_x.setValue(1.5)
    dialog.offset_y.setValue(-0.7)
    assert load_offsets("card") == pytest.approx((1.5, -0.7))
    assert load_offsets("a4") == (0.0, 0.0)
    dialog.layout_box.setCurrentIndex(dialog.layout_box.findData("a4"))
    assert (dialog.offset_x.value(), dialog.offset_y.value()) == (0.0, 0.0)
    again = opened(clerk, [permit_id])
    assert (again.offset_x.value(), again.offset_y.value()) == pytest.approx((1.5, -0.7))
    dialog.layout_box.setCurrentIndex(dialog.layout_box.findData("card"))
    dialog.offset_x.setValue(0.0)
    dialog.offset_y.setValue(0.0)


def test_a_suspended_permit_has_no_preview(opened, clerk: AppContext, supervisor: AppContext,  # noqa: ANN001
                                           permit_id: int) -> None:
    from datetime import timedelta

    suspend_through_process(supervisor, permit_id, local_today() + timedelta(days=10))
    dialog = opened(clerk, [permit_id])
    assert "Art. 34, III" in dialog.note.text()
    assert not dialog.print_button.isEnabled() and not dialog.save_button.isEnabled()
