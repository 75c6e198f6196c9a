"""The real print queue: badges and documents printed from Qt's print dialog to a CUPS queue, read back.

The session fixture sets up a virtual PDF printer (Debian's ``cups`` and ``printer-driver-cups-pdf``,
installed by ``WITH_TEST=1 scripts/setup.sh``): it starts cupsd when it is not running and adds a
cups-pdf queue writing into a folder of the test run, with the job's id in each file's name. Outside
CI (neither ``CI`` nor ``MOTODESK_REQUIRE_PG`` set) a machine without CUPS skips, saying why; in CI it
fails.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import zxingcpp
from permit_factory import make_dossier  # type: ignore[import-not-found]
from PIL import Image
from pypdf import PdfReader
from PySide6.QtPrintSupport import QPrinter
from PySide6.QtWidgets import QMessageBox

from motodesk.rules.common import PermitState, ServiceType
from motodesk.services import badges, card_stock, permits
from motodesk.services.badges import BadgeStatus
from motodesk.services.context import AppContext
from motodesk.ui import badge_print, pdfpreview
from motodesk.ui.app import create_application
from motodesk.ui.badge_print import BadgePrintDialog

MM_PER_PT = 25.4 / 72
STRICT = bool(os.environ.get("CI") or os.environ.get("MOTODESK_REQUIRE_PG"))


@dataclass(frozen=True)
class PdfQueue:
    name: str
    out: Path

    def printed(self, job_id: str, timeout: float = 30) -> bytes:
        """The file cups-pdf wrote for the job (its name carries ``job_N``)."""
        number = job_id.rsplit("-", 1)[-1]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pending = _run("lpstat", "-o", self.name).stdout.split()
            found = sorted(self.out.glob(f"*job_{number}.pdf"))
            if job_id not in pending and found:  # the job is done: ghostscript closed the file
                data = found[0].read_bytes()
                if data.rstrip().endswith(b"%%EOF"):
                    return data
            time.sleep(0.1)
        raise AssertionError(f"cups-pdf wrote nothing for {job_id} in {self.out}: {list(self.out.iterdir())}")


def _unavailable(reason: str) -> None:
    if STRICT:
        pytest.fail(f"the CUPS PDF queue is required in CI: {reason}")
    pytest.skip(f"no CUPS PDF queue: {reason} (WITH_TEST=1 scripts/setup.sh installs cups and "
                "printer-driver-cups-pdf)")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), capture_output=True, text=True, timeout=60, check=False,
                          env={**os.environ, "LC_ALL": "C"})


@pytest.fixture(scope="session")
def cups_pdf(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PdfQueue]:
    for tool in ("cupsd", "lpadmin", "lpinfo", "lp", "lpstat", "pdftoppm", "pdfimages"):
        if shutil.which(tool) is None and not Path("/usr/sbin", tool).exists():
            _unavailable(f"{tool} is not installed")
    if _run("lpstat", "-r").stdout.strip() != "scheduler is running":
        started = _run(shutil.which("cupsd") or "/usr/sbin/cupsd")
        if started.returncode != 0:
            _unavailable(f"cupsd did not start: {started.stderr.strip()[:200]}")
        for _ in range(50):
            if _run("lpstat", "-r").stdout.strip() == "scheduler is running":
                break
            time.sleep(0.1)
    models = [line.split()[0] for line in _run("lpinfo", "-m").stdout.splitlines() if "CUPS-PDF_opt" in line]
    if not models:
        _unavailable("printer-driver-cups-pdf's PPD is not installed (lpinfo -m)")
    name = f"MotoDeskPDF_{uuid.uuid4().hex[:6]}"
    out = tmp_path_factory.mktemp("cups-pdf")
    out.chmod(0o1777)
    conf = Path("/etc/cups") / f"cups-pdf-{name}.conf"
    try:
        # Label 2: every file is named with its job id; the output folder is this run's.
        conf.write_text(f"Out {out}\nAnonDirName {out}\nLabel 2\nUserUMask 0000\n", encoding="utf-8")
    except OSError as exc:
        _unavailable(f"cannot write {conf}: {exc}")
    added = _run("lpadmin", "-p", name, "-E", "-v", f"cups-pdf:/{name}", "-m", models[0])
    if added.returncode != 0:
        conf.unlink(missing_ok=True)
        _unavailable(f"lpadmin refused the queue: {added.stderr.strip()[:200]}")
    yield PdfQueue(name, out)
    _run("lpadmin", "-x", name)
    conf.unlink(missing_ok=True)


@pytest.fixture
def queue(cups_pdf: PdfQueue) -> Iterator[PdfQueue]:
    """The queue, on and accepting again after each test."""
    yield cups_pdf
    _run("cupsenable", cups_pdf.name)
    _run("cupsaccept", cups_pdf.name)


def _system_print_dialog(monkeypatch: pytest.MonkeyPatch, module: object, printer_name: str) -> list[QPrinter]:
    """Qt's print dialog with ``printer_name`` chosen and OK pressed (a modal dialog cannot be
    clicked from the test): the QPrinter stays a native one, i.e. the system queue."""
    chosen: list[QPrinter] = []

    class ChosenPrinter:
        def __init__(self, printer: QPrinter, parent: object = None) -> None:
            printer.setPrinterName(printer_name)
            chosen.append(printer)

        def setWindowTitle(self, _title: str) -> None:  # noqa: N802
            pass

        def setMinMax(self, _low: int, _high: int) -> None:  # noqa: N802
            pass

        def exec(self) -> int:
            return 1

    monkeypatch.setattr(module, "QPrintDialog", ChosenPrinter)
    return chosen


def _boxes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    shown: list[str] = []

    def exec_(box: QMessageBox) -> int:
        shown.append(f"{box.windowTitle()}: {box.text()}")
        return int(QMessageBox.StandardButton.Ok)

    monkeypatch.setattr(QMessageBox, "exec", exec_)
    return shown


def _page_mm(pdf: bytes) -> list[tuple[float, float]]:
    return [(float(p.mediabox.width) * MM_PER_PT, float(p.mediabox.height) * MM_PER_PT)
            for p in PdfReader(io.BytesIO(pdf)).pages]


def _image_dpi(pdf: bytes) -> list[tuple[int, int]]:
    """(x-ppi, y-ppi) of every image, as poppler's pdfimages measures them on the page."""
    done = subprocess.run(["pdfimages", "-list", "-"], input=pdf, capture_output=True, check=False)
    if done.returncode != 0:  # older poppler reads no stdin
        path = Path(os.environ.get("TMPDIR", "/tmp")) / f"motodesk-{uuid.uuid4().hex}.pdf"
        path.write_bytes(pdf)
        try:
            done = subprocess.run(["pdfimages", "-list", str(path)], capture_output=True, check=True)
        finally:
            path.unlink()
    rows = done.stdout.decode().splitlines()[2:]
    return [(int(cols[12]), int(cols[13])) for cols in (row.split() for row in rows) if len(cols) > 13]


def _qr_texts(pdf: bytes, page: int) -> list[str]:
    out = subprocess.run(["pdftoppm", "-f", str(page), "-l", str(page), "-r", "300", "-png", "-"], input=pdf,
                         capture_output=True, check=True)
    image = Image.open(io.BytesIO(out.stdout)).convert("RGB")
    return [b.text for b in zxingcpp.read_barcodes(image) if b.format == zxingcpp.BarcodeFormat.QRCode]


@pytest.fixture
def permit_id(ctx: AppContext, supervisor: AppContext) -> int:
    dossier = make_dossier(ctx, ServiceType.MOTOBOY, state=PermitState.APPROVED, name="Helena Batista Couto")
    return permits.issue(supervisor, dossier.application_id).id


def _open(qtbot, wait_ops, ctx: AppContext, permit_ids: list[int]) -> BadgePrintDialog:  # noqa: ANN001
    create_application()
    dialog = BadgePrintDialog(ctx, permit_ids)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    wait_ops()
    return dialog


def test_a_badge_prints_through_the_cups_queue_on_a_cr80_card_at_300_dpi(
        queue: PdfQueue, qtbot, wait_ops, monkeypatch, clerk: AppContext, supervisor: AppContext,  # noqa: ANN001
        permit_id: int) -> None:
    card_stock.record_batch(supervisor, "000001", "000005")
    dialog = _open(qtbot, wait_ops, clerk, [permit_id])
    _system_print_dialog(monkeypatch, badge_print, queue.name)
    shown = _boxes(monkeypatch)
    dialog.print_badges()
    wait_ops(60_000)
    assert shown == []
    receipt = dialog.receipt
    assert receipt is not None and receipt.printer == queue.name and receipt.job_id
    assert f"trabalho {receipt.job_id}" in dialog.note.text()
    printed = queue.printed(receipt.job_id)
    sizes = _page_mm(printed)
    assert len(sizes) == 2  # front and back, each on the card printer's CR80 page, landscape
    for width, height in sizes:
        assert width == pytest.approx(85.60, abs=0.15) and height == pytest.approx(53.98, abs=0.15)
    dpis = _image_dpi(printed)
    assert dpis and all(dpi == (300, 300) for dpi in dpis), dpis
    tokens = _qr_texts(printed, 2)
    assert len(tokens) == 1 and badges.verify_badge(clerk, tokens[0]).status is BadgeStatus.VALID
    log = badges.print_log(clerk, permit_id)
    assert [(r.issue_no, r.layout, r.card_serial) for r in log] == [(1, "card", "000001")]


def test_a_document_prints_through_the_cups_queue_on_a4(queue: PdfQueue, qtbot, monkeypatch) -> None:  # noqa: ANN001
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    from motodesk.ui.ops import ServiceOp

    create_application()
    buffer = io.BytesIO()
    page = canvas.Canvas(buffer, pagesize=A4)
    page.drawString(72, 760, "Certidão de teste")
    page.showPage()
    page.drawString(72, 760, "Página 2")
    page.save()
    dialog = pdfpreview.PdfPreviewDialog(buffer.getvalue(), "Certidão de teste")
    qtbot.addWidget(dialog)
    _system_print_dialog(monkeypatch, pdfpreview, queue.name)
    shown = _boxes(monkeypatch)
    jobs: list[str] = []
    from motodesk.ui import printqueue

    real_send = printqueue.send_pdf

    def tracked(pdf: bytes, printer: QPrinter, title: str = "MotoDesk") -> printqueue.Receipt:
        receipt = real_send(pdf, printer, title)
        jobs.append(receipt.job_id or "")
        return receipt

    monkeypatch.setattr(printqueue, "send_pdf", tracked)
    assert dialog.print_document()
    qtbot.waitUntil(lambda: ServiceOp.running() == 0 and not dialog.printing, timeout=60_000)
    assert shown == [] and jobs and jobs[0]
    assert "2 páginas enviadas" in dialog.info.text()
    printed = queue.printed(jobs[0])
    assert [(round(w), round(h)) for w, h in _page_mm(printed)] == [(210, 297), (210, 297)]
    assert all(dpi == (300, 300) for dpi in _image_dpi(printed))


@pytest.mark.parametrize("backend", ["sqlite"])
@pytest.mark.parametrize(("break_it", "expected"), [
    (("cupsdisable", "-r", "desligada para manutenção"), "está desligada ou com a fila pausada"),
    (("cupsdisable", "-r", "media-empty-error: sem cartões na bandeja"), "está sem cartões"),
    (("cupsreject", "-r", "fila fechada"), "não está aceitando trabalhos"),
], ids=["off", "out-of-cards", "refusing"])
def test_a_printer_that_cannot_print_says_why_and_spends_no_card(
        queue: PdfQueue, qtbot, wait_ops, monkeypatch, clerk: AppContext, supervisor: AppContext,  # noqa: ANN001
        permit_id: int, break_it: tuple[str, ...], expected: str) -> None:
    card_stock.record_batch(supervisor, "000001", "000005")
    dialog = _open(qtbot, wait_ops, clerk, [permit_id])
    _system_print_dialog(monkeypatch, badge_print, queue.name)
    shown = _boxes(monkeypatch)
    assert _run(*break_it, queue.name).returncode == 0
    before = set(queue.out.iterdir())
    dialog.print_badges()
    wait_ops(60_000)
    assert len(shown) == 1 and expected in shown[0] and queue.name in shown[0]
    assert "nenhum cartão foi gasto" in shown[0]
    assert badges.print_log(clerk, permit_id) == []
    assert card_stock.next_free_serials(clerk, 1) == ["000001"]  # the card is still free
    assert dialog.receipt is None and set(queue.out.iterdir()) == before


@pytest.mark.parametrize("backend", ["sqlite"])
def test_a_printer_removed_after_it_was_chosen_says_so_and_spends_no_card(
        cups_pdf: PdfQueue, qtbot, wait_ops, monkeypatch, clerk: AppContext, supervisor: AppContext,  # noqa: ANN001
        permit_id: int) -> None:
    gone = f"MotoDeskGone_{uuid.uuid4().hex[:6]}"
    model = next(line.split()[0] for line in _run("lpinfo", "-m").stdout.splitlines() if "CUPS-PDF_opt" in line)
    assert _run("lpadmin", "-p", gone, "-E", "-v", f"cups-pdf:/{gone}", "-m", model).returncode == 0
    card_stock.record_batch(supervisor, "000001", "000005")
    dialog = _open(qtbot, wait_ops, clerk, [permit_id])
    chosen = _system_print_dialog(monkeypatch, badge_print, gone)
    real_printer = badge_print.BadgePrintDialog._printer

    def chosen_then_removed(self: BadgePrintDialog) -> QPrinter | None:
        printer = real_printer(self)
        _run("lpadmin", "-x", gone)  # unplugged and removed between the dialog and the job
        return printer

    monkeypatch.setattr(badge_print.BadgePrintDialog, "_printer", chosen_then_removed)
    shown = _boxes(monkeypatch)
    dialog.print_badges()
    wait_ops(60_000)
    assert chosen and chosen[0].printerName() == gone
    assert len(shown) == 1 and "não está instalada neste computador" in shown[0], shown
    assert badges.print_log(clerk, permit_id) == []
    assert card_stock.next_free_serials(clerk, 1) == ["000001"]


NO_CARDS_BACKEND = """#!/bin/sh
# A card printer out of cards: the driver tells CUPS so and stops the queue (the job waits).
if [ $# -eq 0 ]; then echo 'direct {name} "Unknown" "MotoDesk test card printer without cards"'; exit 0; fi
echo "STATE: +media-empty-error" >&2
echo "ERROR: Sem cartoes na bandeja" >&2
exit 4
"""


@pytest.fixture
def out_of_cards(cups_pdf: PdfQueue) -> Iterator[str]:
    """A queue whose printer reported media-empty on its last job (CUPS stopped it)."""
    folder = Path("/usr/lib/cups/backend")
    backend = f"motodesk-nocards-{uuid.uuid4().hex[:6]}"
    script = folder / backend
    try:
        script.write_text(NO_CARDS_BACKEND.format(name=backend), encoding="utf-8")
        script.chmod(0o755)
    except OSError as exc:
        _unavailable(f"cannot install a test backend in {folder}: {exc}")
    name = f"MotoDeskNoCards_{uuid.uuid4().hex[:6]}"
    model = next(line.split()[0] for line in _run("lpinfo", "-m").stdout.splitlines() if "CUPS-PDF_opt" in line)
    try:
        assert _run("lpadmin", "-p", name, "-E", "-v", f"{backend}:/", "-m", model).returncode == 0
        primer = Path(cups_pdf.out) / "primer.txt"
        primer.write_text("cartão anterior\n", encoding="utf-8")
        assert _run("lp", "-d", name, str(primer)).returncode == 0
        deadline = time.monotonic() + 30
        while "media-empty" not in _run("lpstat", "-l", "-p", name).stdout and time.monotonic() < deadline:
            time.sleep(0.2)
        assert "media-empty" in _run("lpstat", "-l", "-p", name).stdout, "the backend did not stop the queue"
        yield name
    finally:
        _run("cancel", "-a", name)
        _run("lpadmin", "-x", name)
        script.unlink(missing_ok=True)


@pytest.mark.parametrize("backend", ["sqlite"])
def test_a_card_printer_that_ran_out_of_cards_says_so_and_spends_no_card(
        out_of_cards: str, qtbot, wait_ops, monkeypatch, clerk: AppContext, supervisor: AppContext,  # noqa: ANN001
        permit_id: int) -> None:
    card_stock.record_batch(supervisor, "000001", "000005")
    dialog = _open(qtbot, wait_ops, clerk, [permit_id])
    _system_print_dialog(monkeypatch, badge_print, out_of_cards)
    shown = _boxes(monkeypatch)
    dialog.print_badges()
    wait_ops(60_000)
    assert len(shown) == 1 and "está sem cartões ou sem papel" in shown[0] and out_of_cards in shown[0], shown
    assert "nenhum cartão foi gasto" in shown[0]
    assert badges.print_log(clerk, permit_id) == []
    assert card_stock.next_free_serials(clerk, 1) == ["000001"]
