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
from PySide6.QtCore import Qt
from PySide6.QtPrintSupport import QPrinter
from tests_helpers import SCREENSHOTS, fits_screen, missing_access_keys  # type: ignore[import-not-found]

from motodesk.rules.common import PermitState, Role, ServiceType
from motodesk.services import badges, card_stock, permits
from motodesk.services.badges import BadgeStatus
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext, CurrentUser
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


# --- the card each badge is printed on ------------------------------------------------------------

def _second_permit(ctx: AppContext, supervisor: AppContext) -> int:
    dossier = make_dossier(ctx, ServiceType.MOTOBOY, state=PermitState.APPROVED, name="Otávio Reis Mendes",
                           photo_seed=3)
    return permits.issue(supervisor, dossier.application_id).id


def test_the_card_serial_typed_from_the_keyboard_is_checked_and_logged(  # noqa: ANN001
        opened, wait_ops, qtbot, monkeypatch, tmp_path: Path, clerk: AppContext, supervisor: AppContext,
        permit_id: int) -> None:
    card_stock.record_batch(supervisor, "PTC-000101", "PTC-000110")
    other = _second_permit(clerk, supervisor)
    badges.print_badges(clerk, [other], card_serials=["PTC-000101"])  # another counter took the first card
    dialog = opened(clerk, [permit_id])
    assert dialog.serial.isEnabled() and dialog.serial.text() == "PTC-000102"  # the next free card, suggested
    assert "Próximo cartão livre: PTC-000102" in dialog.card_note.text()
    # Typing or scanning replaces it: the suggestion is selected whenever the field gets the focus,
    # also when a background call hands the focus back (Qt itself selects only on Tab).
    dialog.activateWindow()
    qtbot.waitUntil(dialog.isActiveWindow)
    dialog.print_button.setFocus(Qt.FocusReason.OtherFocusReason)
    qtbot.waitUntil(dialog.print_button.hasFocus)
    dialog.serial.deselect()
    dialog.serial.setFocus(Qt.FocusReason.OtherFocusReason)
    qtbot.waitUntil(lambda: dialog.serial.selectedText() == "PTC-000102", timeout=3000)
    assert not dialog.has_changes()

    # Typed like a scanner does (the number, then Enter): a card already used is refused on the field.
    dialog.serial.setFocus()
    qtbot.keyClicks(dialog.serial, "ptc-101")
    qtbot.keyClick(dialog.serial, Qt.Key.Key_Return)
    wait_ops()
    assert "PTC-000101 já foi usado no crachá de" in (field_error(dialog.serial) or "")
    assert "já foi usado" in dialog.card_note.text() and dialog.has_changes()
    dialog.serial.selectAll()
    qtbot.keyClicks(dialog.serial, "PTC-000105")
    qtbot.keyClick(dialog.serial, Qt.Key.Key_Return)
    wait_ops()
    assert field_error(dialog.serial) is None and "PTC-000105 livre" in dialog.card_note.text()
    assert dialog.focusWidget() is dialog.print_button  # Enter after the scan leads to the print button

    out = tmp_path / "impressora.pdf"
    _fake_print_dialog(monkeypatch, out)
    qtbot.keyClick(dialog.print_button, Qt.Key.Key_Space)  # the keyboard alone
    wait_ops()
    assert out.exists()
    assert [(r.issue_no, r.card_serial) for r in badges.print_log(clerk, permit_id)] == [(1, "PTC-000105")]
    assert "no cartão PTC-000105" in dialog.note.text() and dialog.printed_serials == ["PTC-000105"]
    assert dialog.serial.text() == "PTC-000106"  # the next card is suggested again
    assert not dialog.has_changes()


def test_a_print_with_a_used_card_is_refused_and_logs_nothing(opened, wait_ops, qtbot, monkeypatch,  # noqa: ANN001
                                                              tmp_path: Path, clerk: AppContext,
                                                              supervisor: AppContext, permit_id: int) -> None:
    card_stock.record_batch(supervisor, "000001", "000005")
    other = _second_permit(clerk, supervisor)
    dialog = opened(clerk, [permit_id])
    badges.print_badges(clerk, [other], card_serials=["000001"])  # meanwhile, at another counter
    _fake_print_dialog(monkeypatch, tmp_path / "x.pdf")
    dialog.print_badges()  # the suggestion it showed, 000001, is gone now
    wait_ops()
    assert "já foi usado" in (field_error(dialog.serial) or "") and dialog.result_badges is None
    assert badges.print_log(clerk, permit_id) == []
    dialog.layout_box.setCurrentIndex(dialog.layout_box.findData("a4"))
    assert not dialog.serial.isEnabled() and "A4 não usa" in dialog.card_note.text()


def test_a_misprinted_card_is_spoiled_and_the_badge_printed_on_the_next(opened, wait_ops, qtbot,  # noqa: ANN001
                                                                        monkeypatch, tmp_path: Path,
                                                                        clerk: AppContext, supervisor: AppContext,
                                                                        permit_id: int) -> None:
    card_stock.record_batch(supervisor, "000001", "000005")
    dialog = opened(clerk, [permit_id])
    printers = _fake_print_dialog(monkeypatch, tmp_path / "primeira.pdf")
    dialog.print_badges()
    wait_ops()
    assert dialog.printed_serials == ["000001"]

    def fill_and_save(spoil: badge_print.SpoilCardDialog) -> int:
        assert spoil.new_serial.text() == "000002" and spoil.badge_box.count() == 1
        spoil.show()
        assert missing_access_keys(spoil) == [] and fits_screen(spoil) == []
        spoil.reason.setEditText("Erro de impressão: faixa sem cor")
        spoil.save_and_close()
        qtbot.waitUntil(lambda: spoil.result() == 1, timeout=10_000)
        return spoil.result()

    monkeypatch.setattr(badge_print.SpoilCardDialog, "exec", fill_and_save)
    qtbot.mouseClick(dialog.spoil_button, Qt.MouseButton.LeftButton)
    wait_ops()
    assert [(r.issue_no, r.card_serial) for r in badges.print_log(clerk, permit_id)] == [(1, "000002")]
    assert "passa ao cartão 000002" in dialog.note.text() and len(printers) == 2
    assert (printers[1].fromPage(), printers[1].toPage()) == (1, 2)  # only that badge's two faces again
    report = card_stock.stock_report(clerk.as_user(CurrentUser(None, "chefe", "Chefe", Role.SUPERVISOR)),
                                    local_today(), local_today())
    assert (report.printed, report.spoiled, report.left, report.anomalies) == (1, 1, 3, [])


def test_esc_with_a_typed_reason_asks_first(opened, qtbot, monkeypatch, clerk: AppContext,  # noqa: ANN001
                                            permit_id: int) -> None:
    from motodesk.ui import guard

    dialog = opened(clerk, [permit_id], reprint=True)
    asked: list[bool] = []
    monkeypatch.setattr(guard, "ask_unsaved", lambda *_a, **_k: asked.append(True) or guard.Answer.CANCEL)
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert asked == [] and not dialog.isVisible()  # nothing typed: Esc just closes
    dialog = opened(clerk, [permit_id], reprint=True)
    qtbot.keyClicks(dialog.reason, "Perda")
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert asked == [True] and dialog.isVisible()


def test_fits_the_counter_screen_and_every_control_has_an_access_key(opened, qtbot, clerk: AppContext,  # noqa: ANN001
                                                                      supervisor: AppContext, permit_id: int) -> None:
    from PySide6.QtWidgets import QLabel

    card_stock.record_batch(supervisor, "PTC-000101", "PTC-000600")
    dialog = opened(clerk, [permit_id], labels=["MB-0001/2026"])
    assert fits_screen(dialog) == [] and missing_access_keys(dialog) == []
    assert dialog.view.width() >= 500 and dialog.view.height() >= 400  # room for the preview
    buddies = {label.buddy() for label in dialog.findChildren(QLabel) if label.buddy() is not None}
    for field in (dialog.layout_box, dialog.reason, dialog.serial, dialog.offset_x, dialog.offset_y, dialog.view):
        assert field in buddies, field.objectName()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    qtbot.wait(800)  # QPdfView paints its pages in the background
    dialog.grab().save(str(SCREENSHOTS / "badge_print_card_serial.png"))
