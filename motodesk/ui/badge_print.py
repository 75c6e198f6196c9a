"""Print badges: preview, card printer (CR80) or A4 sheet with crop marks, calibration per workstation,
and the pre-numbered card each badge is printed on.

The preview's QR is an unsigned placeholder (see :func:`motodesk.services.badges.preview_badges`);
only "Imprimir…" and "Salvar PDF…" sign, number and log the badges, after the person has chosen the
printer or the file.  Each page is painted at its true size (:func:`motodesk.ui.pdfpreview.print_pdf`).

**The card.**  On the card printer each badge takes one blank pre-numbered card
(:mod:`motodesk.services.card_stock`): the dialog suggests the next free serial (selected, so typing
or a USB barcode scanner — which types the number and Enter — replaces it), checks it on Enter, and
the print is refused for a card already used, spoiled or outside the batches.  "Cartão inutilizado…"
records a spoiled blank card; after a print it records the misprinted card and prints the same
badge again on the next card (nothing re-signed, no new copy).

Card printers rarely feed the card exactly where the driver thinks: the offsets (mm, x to the right,
y down) move everything printed and are kept per layout in this workstation's QSettings.

The dialog fits a 1366×768 screen with its preview, works from the keyboard alone (an access key on
every field and button), and Esc with a reason or a card typed but not printed asks first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtCore import QBuffer, QEvent, QObject, QSettings, QSizeF, Qt, QTimer
from PySide6.QtGui import QGuiApplication, QPageSize
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
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from motodesk.printing.badge import CARD_HEIGHT_MM, CARD_WIDTH_MM
from motodesk.services import badges, card_stock
from motodesk.services.badges import BadgeRequest, PrintedBadges
from motodesk.services.card_stock import CardState
from motodesk.services.context import AppContext
from motodesk.services.errors import InvalidInputError, MotodeskError
from motodesk.ui import formkit
from motodesk.ui.errors import show_error
from motodesk.ui.formkit import wrapped_label
from motodesk.ui.guard import GuardedDialog
from motodesk.ui.ops import ServiceOp
from motodesk.ui.pdfpreview import load_pdf
from motodesk.ui.printqueue import PrintQueueError, Receipt, queue_problem, send_pdf
from motodesk.ui.widgets import mark_field

LAYOUTS = (("card", "Impressora de cartões (CR80, frente e verso)"),
           ("a4", "Folha A4 com marcas de corte (8 por folha)"))
MAX_OFFSET_MM = 10.0
SETTINGS_GROUP = "badge_print"
NOTHING_SPENT = "Nenhum crachá foi registrado e nenhum cartão foi gasto."
PREVIEW_NOTE = "Prévia: o código QR só é assinado e numerado ao imprimir ou salvar."
SPOIL_REASONS = ("Erro de impressão", "Cartão danificado", "Cartão atolado na impressora",
                 "Cartão extraviado", "Impressão desalinhada")
#: The screen the dialog must fit (the counter's workstations).
MAX_SIZE = (1366, 768)


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


def fit_screen(dialog: QDialog, width: int, height: int) -> None:
    """Size the dialog for the counter's screen (1366×768), smaller when the screen is."""
    screen = dialog.screen() or QGuiApplication.primaryScreen()
    if screen is not None:
        room = screen.availableGeometry()
        width, height = min(width, room.width() - 20), min(height, room.height() - 60)
    dialog.resize(min(width, MAX_SIZE[0] - 20), min(height, MAX_SIZE[1] - 60))


class BadgePrintDialog(GuardedDialog):
    """Badges of the chosen permits: preview, then print or save (each logged with its reason and card)."""

    def __init__(self, ctx: AppContext, permit_ids: Sequence[int], *, labels: Sequence[str] = (),
                 reprint: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.permit_ids = list(permit_ids)
        self.result_badges: PrintedBadges | None = None
        self.printed_serials: list[str] = []  # the card of each printed badge ([] without cards)
        self.receipt: Receipt | None = None  # the print queue's answer to the last job
        self.saved_path: Path | None = None
        self.card_state: CardState | None = None
        self._suggested = ""
        self._generations: dict[str, int] = {}
        self.setObjectName("badge_print")
        self.setWindowTitle("Imprimir crachá" if len(self.permit_ids) == 1 else "Imprimir crachás")

        self._build_fields(reprint)
        form = self._build_form(labels, reprint)
        preview_label = self._build_preview()
        buttons = self._build_buttons()
        self._lay_out(form, buttons, preview_label)

        # Calibration and layout are this workstation's settings, saved as they change: not "unsaved work".
        for widget in (self.layout_box, self.deputy, self.offset_x, self.offset_y):
            widget.setProperty("guard_ignore", True)
        self._load_offsets()
        self.layout_box.currentIndexChanged.connect(lambda _i: self._layout_changed())
        self.deputy.toggled.connect(lambda _c: self.refresh_preview())
        self.offset_x.valueChanged.connect(self._offsets_changed)
        self.offset_y.valueChanged.connect(self._offsets_changed)
        self.refresh_preview()
        self.load_cards()
        self.mark_clean()

    def _build_fields(self, reprint: bool) -> None:
        """The layout, deputy, reason, card serial (one line per badge) and printer offset fields."""
        self.layout_box = QComboBox()
        self.layout_box.setObjectName("layout")
        for key, label in LAYOUTS:
            self.layout_box.addItem(label, key)
        self.deputy = QCheckBox("Crachá do pr&eposto (em vez do titular)")
        self.deputy.setObjectName("deputy")
        self.reason = QLineEdit()
        self.reason.setObjectName("reason")
        self.reason.setMaxLength(badges.MAX_REASON)
        self.reason.setPlaceholderText("Perda, roubo, dano, renovação do registro…" if reprint else
                                       "Primeira via (opcional)")
        # The card: one line for one badge (Enter checks it), one line per badge otherwise.
        self.serial: QLineEdit | QPlainTextEdit
        if len(self.permit_ids) == 1:
            self.serial = QLineEdit()
            self.serial.setMaxLength(40)
            self.serial.returnPressed.connect(self.check_serial)
        else:
            self.serial = QPlainTextEdit()
            self.serial.setTabChangesFocus(True)
            self.serial.setMaximumHeight(90)
        self.serial.setObjectName("card_serial")
        self._suggestion: str | None = None  # the serial the dialog put in the field, not yet typed over
        self.serial.installEventFilter(self)
        self.serial.setToolTip("Digite o número impresso no cartão em branco ou leia-o com o leitor de código "
                               "de barras (Enter confere).")
        self.card_note = QLabel("Consultando o estoque de cartões…")
        self.card_note.setObjectName("card_note")
        self.card_note.setWordWrap(True)
        self.offset_x = self._offset_box("offset_x")
        self.offset_y = self._offset_box("offset_y")

    def _build_form(self, labels: Sequence[str], reprint: bool) -> QFormLayout:
        """The fields' form, under the names of the badges it prints."""
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)  # a larger system font: field below its label
        who = ", ".join(labels[:6]) + ("…" if len(labels) > 6 else "")
        if who:
            shown = wrapped_label(who)
            form.addRow(QLabel("Crachás:"), shown)  # a value shown, not a field: no access key
        form.addRow("Im&pressão:", self.layout_box)
        form.addRow(self.deputy)  # the whole row: a larger system font does not clip it
        form.addRow("&Motivo da reimpressão:" if reprint else "&Motivo:", self.reason)
        form.addRow("&Número do cartão:" if len(self.permit_ids) == 1 else "&Números dos cartões\n(um por linha):",
                    self.serial)
        form.addRow(self.card_note)  # the whole row, its wrapped height followed when the text changes
        form.addRow("Ajuste &horizontal:", self.offset_x)
        form.addRow("Ajuste &vertical (para baixo):", self.offset_y)
        return form

    def _build_preview(self) -> QLabel:
        """The note and the PDF preview; the preview's label."""
        self.note = QLabel(PREVIEW_NOTE)
        self.note.setObjectName("note")
        self.note.setWordWrap(True)
        self.document = QPdfDocument(self)
        self._buffer: QBuffer | None = None
        self.view = QPdfView(self)
        self.view.setObjectName("badge_preview")
        self.view.setDocument(self.document)
        self.view.setPageMode(QPdfView.PageMode.MultiPage)
        self.view.setZoomMode(QPdfView.ZoomMode.FitToWidth)
        self.view.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        preview_label = QLabel("P&révia:")
        preview_label.setBuddy(self.view)
        return preview_label

    def _build_buttons(self) -> QHBoxLayout:
        """Print, save, spoiled card and close."""
        self.print_button = formkit.push_button("&Imprimir…", "print", self.print_badges, auto_default=False)
        self.save_button = formkit.push_button("&Salvar PDF…", "save_pdf", self.save_pdf, auto_default=False)
        self.spoil_button = formkit.push_button(
            "Cartão inu&tilizado…", "spoil", self.spoil_card, auto_default=False,
            tooltip="Registra um cartão em branco perdido (erro de impressão, dano…); depois de imprimir, passa o "
                    "crachá para o próximo cartão.")
        close = formkit.push_button("&Fechar", "close", self.reject, auto_default=False)
        return formkit.row(self.print_button, self.save_button, self.spoil_button, 1, close)

    def _lay_out(self, form: QFormLayout, buttons: QHBoxLayout, preview_label: QLabel) -> None:
        """The form, note and buttons on the left, the preview on the right."""
        left = QVBoxLayout()
        left.addLayout(form)
        left.addWidget(self.note)
        left.addStretch(1)
        left.addLayout(buttons)
        left_box = QWidget()
        left_box.setLayout(left)
        left_box.setMinimumWidth(480)
        left_box.setMaximumWidth(560)
        right = QVBoxLayout()
        right.addWidget(preview_label)
        right.addWidget(self.view, 1)
        layout = QHBoxLayout(self)
        layout.addWidget(left_box)
        layout.addLayout(right, 1)
        fit_screen(self, 1180, 640)

    def _offset_box(self, name: str) -> QDoubleSpinBox:
        box = QDoubleSpinBox()
        box.setObjectName(name)
        box.setRange(-MAX_OFFSET_MM, MAX_OFFSET_MM)
        box.setSingleStep(0.1)
        box.setDecimals(1)
        box.setSuffix(" mm")
        box.setMaximumWidth(120)
        return box

    # --- state -------------------------------------------------------------------------------
    def layout_key(self) -> str:
        return str(self.layout_box.currentData())

    def offsets(self) -> tuple[float, float]:
        return self.offset_x.value(), self.offset_y.value()

    def requests(self) -> list[BadgeRequest]:
        return [BadgeRequest(pid, deputy=self.deputy.isChecked()) for pid in self.permit_ids]

    def serial_text(self) -> str:
        return self.serial.text() if isinstance(self.serial, QLineEdit) else self.serial.toPlainText()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        """Whenever the card field gets the focus holding the suggested serial, the serial is selected:
        typing or scanning replaces it, however the focus came (Tab, Alt+key, the dialog itself)."""
        if watched is self.serial and event.type() == QEvent.Type.FocusIn \
                and self._suggestion is not None and self.serial_text() == self._suggestion:
            QTimer.singleShot(0, self._select_suggestion)
        return super().eventFilter(watched, event)

    def _select_suggestion(self) -> None:
        if shiboken6.isValid(self.serial) and self.serial_text() == self._suggestion:
            self.serial.selectAll()

    def _set_serial_text(self, value: str) -> None:
        self._suggestion = value
        if isinstance(self.serial, QLineEdit):
            self.serial.setText(value)
            self.serial.selectAll()  # typing or scanning replaces the suggestion
        else:
            self.serial.setPlainText(value)
            self.serial.selectAll()

    def card_serials(self) -> list[str] | None:
        """The serials typed, one per badge; None when this print takes no card (A4, or no stock)."""
        if self.layout_key() != "card" or not self.serial.isEnabled():
            return None
        serials = [line.strip() for line in self.serial_text().splitlines() if line.strip()]
        return serials or None

    def has_changes(self) -> bool:
        """A reason or a card typed and not printed yet (the suggestion alone is no change)."""
        if self.result_badges is not None:
            return False
        typed = self.serial_text().strip()
        return bool(self.reason.text().strip()) or (bool(typed) and typed != self._suggested.strip())

    def save_and_close(self) -> None:
        """"Salvar" when closing with changes: print them (the dialog closes once printed)."""
        self.print_badges(close_after=True)

    def _load_offsets(self) -> None:
        x, y = load_offsets(self.layout_key())
        for box, value in ((self.offset_x, x), (self.offset_y, y)):
            box.blockSignals(True)
            box.setValue(value)
            box.blockSignals(False)

    def _layout_changed(self) -> None:
        self._load_offsets()
        self._show_card_state()
        self.refresh_preview()

    def _offsets_changed(self) -> None:
        save_offsets(self.layout_key(), self.offsets())
        self.refresh_preview()

    def _show_pdf(self, pdf: bytes) -> None:
        self.document.close()
        self._buffer = QBuffer(self)
        load_pdf(self.document, self._buffer, pdf)

    # --- the preview -------------------------------------------------------------------------
    def _newest(self, op: ServiceOp, purpose: str, success: Callable[[Any], None],
                failure: Callable[[BaseException], bool]) -> None:
        """Run ``op`` delivering only the newest call of ``purpose``: an older call's result (a preview
        of offsets changed again since) is dropped."""
        generation = self._generations.get(purpose, 0) + 1
        self._generations[purpose] = generation

        def current() -> bool:
            return self._generations.get(purpose) == generation

        op.success(lambda value: success(value) if current() else None) \
            .failure(lambda exc: failure(exc) if current() else True).run()

    def refresh_preview(self) -> None:
        requests, layout, offsets = self.requests(), self.layout_key(), self.offsets()
        op = ServiceOp(self, lambda: badges.preview_badges(self.ctx, requests, layout=layout,  # type: ignore[arg-type]
                                                           offset_mm=offsets), lock=False)
        self._newest(op, "preview", self._previewed, self._preview_failed)

    def _previewed(self, pdf: bytes) -> None:
        self._show_pdf(pdf)
        if self.result_badges is None:
            self.note.setText(PREVIEW_NOTE)
        self.print_button.setEnabled(True)
        self.save_button.setEnabled(True)

    def _preview_failed(self, exc: BaseException) -> bool:
        if not isinstance(exc, MotodeskError):
            return False
        self.document.close()
        self.note.setText(str(exc).splitlines()[-1])
        self.print_button.setEnabled(False)
        self.save_button.setEnabled(False)
        return True

    # --- the card ----------------------------------------------------------------------------
    def load_cards(self) -> None:
        count = len(self.permit_ids)
        op = ServiceOp(self, lambda: card_stock.print_card_state(self.ctx, count), lock=False)
        self._newest(op, "cards", self._cards_loaded, self._card_state_failed)

    def _cards_loaded(self, state: CardState) -> None:
        typed = self.serial_text().strip()
        untouched = not typed or typed == self._suggested.strip()
        self.card_state = state
        self._suggested = "\n".join(state.suggested)
        if untouched:
            self._set_serial_text(self._suggested)
        self._show_card_state()

    def _card_state_failed(self, exc: BaseException) -> bool:
        if not isinstance(exc, MotodeskError):
            return False
        self.card_note.setText(f"Estoque de cartões indisponível: {exc}")
        return True

    def _show_card_state(self) -> None:
        state = self.card_state
        if state is None:
            return
        if self.layout_key() != "card":
            self.serial.setEnabled(False)
            self.card_note.setText("A folha A4 não usa cartões numerados.")
            return
        if not state.stock:
            self.serial.setEnabled(False)
            self.card_note.setText("Nenhum lote de cartões registrado: a impressão não controla o estoque "
                                   "(Ferramentas › Estoque de cartões).")
            return
        self.serial.setEnabled(True)
        count = len(self.permit_ids)
        if len(state.suggested) < count:
            self.card_note.setText(f"Estoque insuficiente: restam {state.left} cartão(ões) para {count} crachá(s). "
                                   "Registre o lote recebido.")
        else:
            need = "obrigatório" if state.required else "opcional (exigência desligada)"
            self.card_note.setText(f"Próximo cartão livre: {state.suggested[0]} · {state.left} em estoque · "
                                   f"número {need}.")

    def check_serial(self) -> None:
        """Enter in the card field (a scanner ends with it): is this card free, in a batch?"""
        typed = self.serial_text().strip()
        if not typed or not self.serial.isEnabled():
            return
        op = ServiceOp(self, lambda: card_stock.check_serial(self.ctx, typed), lock=False)
        self._newest(op, "check", self._serial_ok, self._serial_refused)

    def _serial_ok(self, serial: str) -> None:
        mark_field(self.serial, None)
        if isinstance(self.serial, QLineEdit) and self.serial.text().strip() != serial:
            self.serial.setText(serial)
        self.card_note.setText(f"Cartão {serial} livre no estoque. Alt+I imprime.")
        self.print_button.setFocus(Qt.FocusReason.OtherFocusReason)

    def _serial_refused(self, exc: BaseException) -> bool:
        if not isinstance(exc, MotodeskError):
            return False
        mark_field(self.serial, str(exc))
        self.card_note.setText(str(exc))
        self.serial.setFocus(Qt.FocusReason.OtherFocusReason)
        if isinstance(self.serial, QLineEdit):
            self.serial.selectAll()
        return True

    # --- printing ----------------------------------------------------------------------------
    def _sign(self, then: Callable[[PrintedBadges], None], printer: QPrinter | None = None) -> None:
        """Sign, number and log the badges off the GUI thread, then ``then`` with the result.

        With ``printer`` the job goes to its queue inside the transaction that logs the badges and
        their cards: a printer that is missing, off or out of cards (asked first, before anything
        is signed) or a queue that refuses the job leaves nothing recorded and no card spent.
        """
        requests, reason, layout, offsets = self.requests(), self.reason.text(), self.layout_key(), self.offsets()
        serials = self.card_serials()
        mark_field(self.serial, None)
        mark_field(self.reason, None)
        title = self.windowTitle()

        def spool(pdf: bytes) -> None:
            assert printer is not None
            self.receipt = send_pdf(pdf, printer, title)

        def call() -> PrintedBadges:
            try:
                if printer is not None:
                    problem = queue_problem(printer)
                    if problem:
                        raise PrintQueueError(problem)
                return badges.print_badges(self.ctx, requests, reason=reason, layout=layout,  # type: ignore[arg-type]
                                           offset_mm=offsets, card_serials=serials,
                                           spool=spool if printer is not None else None)
            except PrintQueueError as exc:
                raise PrintQueueError(f"{exc}\n\n{NOTHING_SPENT}") from exc

        def refused(exc: BaseException) -> bool:
            if isinstance(exc, InvalidInputError) and "card_serial" in exc.fields:
                return self._serial_refused(exc)
            return False

        def done(printed: PrintedBadges) -> None:
            self._signed(printed, serials)
            then(printed)

        ServiceOp(self, call, busy="Assinando e registrando os crachás…", fields={"reason": self.reason},
                  change="permit", title="Crachá não impresso").success(done).failure(refused).run()

    def _signed(self, printed: PrintedBadges, serials: Sequence[str] | None) -> None:
        self.result_badges = printed
        self.printed_serials = list(serials or [])
        self._show_pdf(printed.pdf)
        vias = ", ".join(f"{b.permit_number} ({b.issue_no}ª via)" for b in printed.badges[:4])
        cards = f" no cartão {', '.join(self.printed_serials[:4])}" if self.printed_serials else ""
        self.note.setText(f"Registrado: {vias}{'…' if len(printed.badges) > 4 else ''}{cards}.")
        self._set_serial_text("")  # those cards are taken: the next free ones are suggested
        self.mark_clean()
        self.load_cards()

    def _printer(self) -> QPrinter | None:
        printer = QPrinter(QPrinter.PrinterMode.HighResolution)
        printer.setDocName(self.windowTitle())
        printer.setPageSize(page_size(self.layout_key()))
        printer.setFullPage(True)
        dialog = QPrintDialog(printer, self)
        dialog.setWindowTitle("Imprimir crachás")
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        return printer

    def print_badges(self, *, close_after: bool = False) -> None:
        """Choose the printer, then sign, log and queue the badges in one go (off the GUI thread)."""
        printer = self._printer()
        if printer is None:
            return

        def sent(_printed: PrintedBadges) -> None:
            self._queued()
            if close_after:
                self.accept()

        self._sign(sent, printer)

    def _queued(self) -> None:
        receipt = self.receipt
        if receipt is not None and receipt.job_id:
            self.note.setText(f"{self.note.text()} Enviado à impressora {receipt.printer} (trabalho {receipt.job_id}).")

    def _send(self, printer: QPrinter, *, pages: tuple[int, int] | None = None, close_after: bool = False) -> bool:
        """The badges already logged, to the printer again (a misprinted card's badge on the next card)."""
        printed = self.result_badges
        if printed is None:
            return False
        if pages is None:
            printer.setFromTo(0, 0)
            printer.setPrintRange(QPrinter.PrintRange.AllPages)
        else:
            printer.setPrintRange(QPrinter.PrintRange.PageRange)
            printer.setFromTo(pages[0], pages[1])
        pdf, title = printed.pdf, self.windowTitle()

        def done(receipt: Receipt) -> None:
            self.receipt = receipt
            self._queued()
            if close_after:
                self.accept()

        ServiceOp(self, lambda: send_pdf(pdf, printer, title), busy="Enviando à impressora…",
                  title="Crachá não impresso").success(done).run()
        return True

    def save_pdf(self) -> None:
        name, _ = QFileDialog.getSaveFileName(self, "Salvar crachás em PDF", "crachas.pdf", "Documentos PDF (*.pdf)")
        if not name:
            return
        path = Path(name)
        if path.suffix.lower() != ".pdf":
            path = path.with_suffix(".pdf")
        self._sign(lambda printed: self._write(path, printed))

    def _write(self, path: Path, printed: PrintedBadges) -> None:
        try:
            path.write_bytes(printed.pdf)
        except OSError as exc:
            QMessageBox.warning(self, "Salvar PDF", f"Não foi possível salvar o arquivo:\n{exc.strerror or exc}\n"
                                "Os crachás já foram registrados como impressos.")
            return
        self.saved_path = path

    # --- spoiled cards -----------------------------------------------------------------------
    def spoil_card(self) -> None:
        """A spoiled blank card; after a print with cards, the misprinted card of one badge."""
        printed = self.result_badges if self.printed_serials else None
        first_line = (self.serial_text().splitlines() or [""])[0].strip()
        dialog = SpoilCardDialog(self.ctx, self, serial=first_line, printed=printed,
                                 printed_serials=self.printed_serials,
                                 next_serial=self._suggested.splitlines()[0] if self._suggested else "")
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        self.load_cards()
        if dialog.moved is None or printed is None:
            self.card_note.setText(f"Cartão {dialog.spoiled_serial} registrado como inutilizado.")
            return
        index, serial = dialog.moved
        self.printed_serials[index] = serial
        badge = printed.badges[index]
        self.note.setText(f"Cartão {dialog.spoiled_serial} inutilizado; o crachá de {badge.permit_number} "
                          f"({badge.issue_no}ª via) passa ao cartão {serial}. Imprima de novo.")
        printer = self._printer()
        if printer is None:
            return
        pages = (2 * index + 1, 2 * index + 2) if printed.layout == "card" else None
        self._send(printer, pages=pages)


class SpoilCardDialog(GuardedDialog):
    """"Cartão inutilizado": a blank card out of the stock with its reason; or, after a print, the
    misprinted card of a badge and the next card it will be printed on."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None, *, serial: str = "",
                 printed: PrintedBadges | None = None, printed_serials: Sequence[str] = (),
                 next_serial: str = "") -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.printed = printed
        self.printed_serials = list(printed_serials)
        self.moved: tuple[int, str] | None = None
        self.spoiled_serial = ""
        self.setObjectName("spoil_card")
        self.setWindowTitle("Cartão inutilizado")
        form = QFormLayout(self)
        self.badge_box = QComboBox()
        self.badge_box.setObjectName("printed_badge")
        self.serial = QLineEdit(serial)
        self.serial.setObjectName("spoiled_serial")
        self.new_serial = QLineEdit(next_serial)
        self.new_serial.setObjectName("new_serial")
        if printed is not None:
            for index, (badge, used) in enumerate(zip(printed.badges, self.printed_serials, strict=False)):
                self.badge_box.addItem(f"{used} — crachá de {badge.permit_number} ({badge.issue_no}ª via)", index)
            form.addRow(QLabel("O crachá saiu com defeito: o cartão dele fica registrado como inutilizado e o "
                               "mesmo crachá é impresso de novo no próximo cartão."))
            form.addRow("&Cartão com defeito:", self.badge_box)
            form.addRow("&Novo cartão:", self.new_serial)
            self.serial.hide()
        else:
            form.addRow(QLabel("O cartão em branco sai do estoque com o motivo (não pode mais ser usado)."))
            form.addRow("&Cartão:", self.serial)
            self.new_serial.hide()
        self.reason = QComboBox()
        self.reason.setObjectName("reason")
        self.reason.setEditable(True)
        self.reason.addItems(SPOIL_REASONS)
        self.reason.setCurrentIndex(-1)
        self.reason.setEditText("")
        form.addRow("&Motivo:", self.reason)
        self.save_button = QPushButton("&Registrar")
        self.save_button.setObjectName("save")
        self.save_button.setDefault(True)
        cancel = QPushButton("&Cancelar")
        cancel.setObjectName("cancel")
        self.save_button.clicked.connect(self.save_and_close)
        cancel.clicked.connect(self.reject)
        form.addRow(formkit.row(1, self.save_button, cancel))
        self.resize(520, self.sizeHint().height())
        self.mark_clean()

    def save_and_close(self) -> None:
        reason = self.reason.currentText()
        if self.printed is not None:
            index = int(self.badge_box.currentData() or 0)
            badge = self.printed.badges[index]
            new_serial = self.new_serial.text()
            ServiceOp(self, lambda: card_stock.replace_card(self.ctx, badge.permit_id, badge.issue_no,
                                                            deputy=badge.holder_kind == "preposto",
                                                            new_serial=new_serial, reason=reason),
                      busy="Registrando o cartão inutilizado…", change="card_stock",
                      fields={"new_serial": self.new_serial, "reason": self.reason}) \
                .success(lambda result: self._done(result[0].serial, (index, result[1]))) \
                .failure(self._refused).run()
            return
        serial = self.serial.text()
        ServiceOp(self, lambda: card_stock.spoil_card(self.ctx, serial, reason),
                  busy="Registrando o cartão inutilizado…", change="card_stock",
                  fields={"card_serial": self.serial, "reason": self.reason}) \
            .success(lambda row: self._done(row.serial, None)).failure(self._refused).run()

    def _refused(self, exc: BaseException) -> bool:
        if isinstance(exc, InvalidInputError):
            show_error(self, exc)  # the whole sentence (which lot, which badge used it)
            return True
        return False

    def _done(self, serial: str, moved: tuple[int, str] | None) -> None:
        self.spoiled_serial = serial
        self.moved = moved
        self.accept()
