"""The inspection checklist: each item with its article, Conforme / Não conforme / Não se aplica, a note
and photos; the result computed as the inspector answers; draft, conclusion and the laudo."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtGui import QColor, QIcon, QImage, QKeyEvent, QPixmap
from PySide6.QtWidgets import (
    QAbstractButton,
    QButtonGroup,
    QDialog,
    QFileDialog,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from motodesk.rules.checklist import ItemResult, evaluate_checklist, next_inspection_due
from motodesk.rules.settings import LawSettings
from motodesk.services import inspections
from motodesk.services.context import AppContext
from motodesk.services.errors import ConflictError, InvalidInputError, MotodeskError
from motodesk.services.inspections import (
    InspectionKind,
    InspectionStatus,
    InspectionView,
    ItemAnswer,
    ItemView,
)
from motodesk.services.vehicles import LOCAL_TZ
from motodesk.ui.dossier import fit_to_screen
from motodesk.ui.errors import show_error
from motodesk.ui.formatting import format_date, format_datetime
from motodesk.ui.formkit import push_button, wrapped_label
from motodesk.ui.guard import confirm
from motodesk.ui.ops import ServiceOp, load_into
from motodesk.ui.pdfpreview import preview_pdf
from motodesk.ui.widgets import mark_field

RESULT_CHOICES = (
    (ItemResult.OK, "Conforme", "ok"),
    (ItemResult.NOT_OK, "Não conforme", "not_ok"),
    (ItemResult.NOT_APPLICABLE, "Não se aplica", "na"),
)
GREEN, RED, ORANGE = "#1b6e2e", "#b3261e", "#ef6c00"
CHOICE_WIDTH = 104  # one column per answer, the same under the header
#: Keys that answer the item in focus, then go to the next one (the inspector's hands stay on the keys).
ANSWER_KEYS = {Qt.Key.Key_1: ItemResult.OK, Qt.Key.Key_2: ItemResult.NOT_OK, Qt.Key.Key_3: ItemResult.NOT_APPLICABLE}


def choice_header() -> QFrame:
    """The answers' column titles, aligned with each row's three radio buttons."""
    frame = QFrame()
    layout = QHBoxLayout(frame)
    layout.setContentsMargins(2, 0, 2, 0)
    for number, (_result, label, _prefix) in enumerate(RESULT_CHOICES, start=1):
        title = QLabel(f"<b>{label}</b><br><small>tecla {number}</small>")
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        title.setFixedWidth(CHOICE_WIDTH)
        title.setWordWrap(True)  # a larger system font wraps it within the radio buttons' column
        layout.addWidget(title)
    return frame
IMAGE_FILTER = "Imagens (*.jpg *.jpeg *.png *.webp *.bmp *.tif *.tiff)"


class ItemRow:
    """The widgets of one checklist item."""

    def __init__(self, item: ItemView) -> None:
        self.item = item
        self.group = QButtonGroup()
        self.group.setExclusive(True)
        self.buttons: dict[ItemResult, QRadioButton] = {}
        self.box = QFrame()
        self.box.setObjectName(f"answer_{item.code}")
        box_layout = QHBoxLayout(self.box)
        box_layout.setContentsMargins(2, 0, 2, 0)
        for number, (result, label, prefix) in enumerate(RESULT_CHOICES, start=1):
            # The column header names the answer; the row answers with 1/2/3 or the arrows.
            button = QRadioButton()
            button.setAccessibleName(f"{label} (tecla {number})")
            button.setToolTip(f"{label} — tecla {number}")
            button.setFixedWidth(CHOICE_WIDTH)
            button.setStyleSheet("QRadioButton { padding-left: 42px; }")
            button.setObjectName(f"{prefix}_{item.code}")
            if result is ItemResult.NOT_APPLICABLE and not item.allows_not_applicable:
                button.setEnabled(False)
                button.setToolTip("A lei exige este item de todo veículo: “não se aplica” não é admitido.")
            self.group.addButton(button)
            self.buttons[result] = button
            box_layout.addWidget(button)
        if item.result is not None:
            self.buttons[item.result].setChecked(True)
        self.note = QLineEdit(item.note or "")
        self.note.setObjectName(f"note_{item.code}")
        self.note.setPlaceholderText("Observação")
        self.note.setMaxLength(inspections.MAX_NOTE)
        self.photos = QToolButton()  # F2 in the row opens them: no Tab stop of its own
        self.photos.setObjectName(f"photos_{item.code}")
        self.photos.setAutoRaise(True)
        self.photos.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.photos.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.photos.setToolTip("Fotos do item (F2 na linha)")
        self.set_photo_count(item.photo_count)
        self.article = QLabel(item.article)
        self.article.setObjectName(f"article_{item.code}")
        self.text = wrapped_label(item.text)
        self.text.setMinimumWidth(280)

    def set_photo_count(self, count: int) -> None:
        self.photos.setText(f"Fotos ({count})…" if count else "Fotos…")

    def result(self) -> ItemResult | None:
        for result, button in self.buttons.items():
            if button.isChecked():
                return result
        return None

    def answer(self) -> ItemAnswer:
        return ItemAnswer(self.item.code, self.result(), self.note.text().strip() or None)

    def set_editable(self, editable: bool) -> None:
        for result, button in self.buttons.items():
            button.setEnabled(editable and (result is not ItemResult.NOT_APPLICABLE
                                            or self.item.allows_not_applicable))
        self.note.setReadOnly(not editable)


#: What a checklist shows (the inspection with its items, the settings in force): read off the GUI
#: thread by whoever opens the dialog, and handed to it as ``loaded``.
read_checklist = inspections.checklist_view


class ChecklistDialog(QDialog):
    """Fill, save as draft, conclude; a concluded inspection opens read-only with its laudo."""

    def __init__(self, ctx: AppContext, inspection_id: int, parent: QWidget | None = None, *,
                 loaded: tuple[InspectionView, LawSettings]) -> None:
        """``loaded``: the inspection and the settings (:func:`read_checklist`), read off the GUI thread
        by the opener (the dialog itself never waits for the database to show)."""
        super().__init__(parent)
        self.setObjectName("checklist")
        self.ctx = ctx
        view, self.settings = loaded
        self.inspection_id = inspection_id
        self.view: InspectionView = view
        self.rows: dict[str, ItemRow] = {}
        self.dirty = False
        self.resize(1180, 860)

        self._build_header()
        scroll = self._build_items()
        self._build_notes_and_result()
        self._build_buttons()
        self._lay_out(scroll)
        self._unanswered_message = False  # the message names how many items are left
        self.apply_state()
        fit_to_screen(self, 1180, 860)

    def _build_header(self) -> None:
        """The inspection's header and banner."""
        self.header = QLabel()
        self.header.setObjectName("header")
        self.header.setWordWrap(True)
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.banner = QLabel()
        self.banner.setObjectName("banner")
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet("background: #fff8e1; border: 1px solid #f0c36d; padding: 6px;")

    def _build_items(self) -> QScrollArea:
        """Every checklist item on a row of its own (answer, note, photos), in a scrolling grid."""
        grid_host = QWidget()
        self.grid = QGridLayout(grid_host)
        self.grid.setHorizontalSpacing(10)
        for col, title in enumerate(("#", "Artigo", "Item verificado", "", "Observação", "")):
            self.grid.addWidget(choice_header() if col == 3 else QLabel(f"<b>{title}</b>"), 0, col)
        for n, item in enumerate(self.view.items, start=1):
            row = ItemRow(item)
            self.rows[item.code] = row
            self.grid.addWidget(QLabel(str(n)), n, 0, Qt.AlignmentFlag.AlignTop)
            self.grid.addWidget(row.article, n, 1, Qt.AlignmentFlag.AlignTop)
            self.grid.addWidget(row.text, n, 2)
            self.grid.addWidget(row.box, n, 3)
            self.grid.addWidget(row.note, n, 4)
            self.grid.addWidget(row.photos, n, 5)
            row.group.buttonToggled.connect(self._answer_changed)
            row.note.textEdited.connect(self._changed)
            row.photos.clicked.connect(lambda _c=False, code=item.code: self.open_photos(code))
            for widget in (*row.buttons.values(), row.note):
                widget.installEventFilter(self)
                widget.setProperty("item_code", item.code)
        self.grid.setColumnStretch(2, 3)
        self.grid.setColumnStretch(4, 2)
        self.grid.setRowStretch(len(self.view.items) + 1, 1)
        scroll = QScrollArea()
        self.items_area = scroll
        scroll.setObjectName("items")
        scroll.setWidgetResizable(True)
        scroll.setWidget(grid_host)
        return scroll

    def _build_notes_and_result(self) -> None:
        """Mark the unanswered as conforming, the general notes, the result, the pending items and the message."""
        self.all_ok = QPushButton("&Marcar os sem resposta como conformes")
        self.all_ok.setObjectName("mark_unanswered_ok")
        self.all_ok.clicked.connect(self.mark_unanswered_ok)
        self.notes = QPlainTextEdit(self.view.notes or "")
        self.notes.setObjectName("notes")
        self.notes.setPlaceholderText("Observações gerais da vistoria")
        self.notes.setFixedHeight(50)
        self.notes.setTabChangesFocus(True)
        self.notes.textChanged.connect(self._changed)

        self.result_label = QLabel()
        self.result_label.setObjectName("result")
        self.result_label.setTextFormat(Qt.TextFormat.RichText)
        self.pending = QListWidget()
        self.pending.setObjectName("pending")
        self.pending.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # read, not a Tab stop
        self.pending.setMaximumHeight(110)
        self.message = QLabel()
        self.message.setObjectName("message")
        self.message.setWordWrap(True)

    def _build_buttons(self) -> None:
        """Save the draft, conclude, see the report and close."""
        self.all_ok.setAutoDefault(False)
        self.save_button = push_button("&Salvar rascunho", "save_draft", self.save_draft, auto_default=False)
        self.conclude_button = push_button("&Concluir vistoria", "conclude", self.conclude, auto_default=False)
        self.report_button = push_button("Ver &laudo…", "show_report", self.show_report, auto_default=False)
        self.close_button = push_button("Fec&har", "close", self.reject, auto_default=False)

    def _lay_out(self, scroll: QScrollArea) -> None:
        """Header, banner, the items, notes, result, pending, message and buttons, top to bottom."""
        buttons = QHBoxLayout()
        buttons.addWidget(self.all_ok)
        buttons.addStretch(1)
        for button in (self.save_button, self.conclude_button, self.report_button, self.close_button):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.header)
        layout.addWidget(self.banner)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.notes)
        layout.addWidget(self.result_label)
        layout.addWidget(self.pending)
        layout.addWidget(self.message)
        layout.addLayout(buttons)
        notes_label = QLabel("Ob&servações gerais:")
        notes_label.setBuddy(self.notes)
        layout.insertWidget(layout.indexOf(self.notes), notes_label)

    # --- state -----------------------------------------------------------------------------------
    @property
    def editable(self) -> bool:
        """A draft, opened by an inspector or a supervisor."""
        return self.view.editable and self.ctx.user.role in inspections.RECORDERS

    def apply_state(self) -> None:
        v = self.view
        editable = self.editable
        self.setWindowTitle(f"Vistoria nº {v.id:06d} – {v.plate}")
        inspector = self.ctx.user.full_name if v.editable else (v.inspector_name or "—")
        when = datetime.now(UTC) if v.editable else v.performed_at
        self.header.setText(
            f"<h3>{v.kind.label} nº {v.id:06d} – {v.status.label}</h3>"
            f"<b>Veículo:</b> {v.plate} · {v.make_model or 'marca/modelo não informados'} · "
            f"{v.service_type.label} &nbsp; <b>Titular:</b> {v.holder_name or '—'} ({v.holder_cpf or 'sem CPF'})<br>"
            f"<b>Vistoriador(a):</b> {inspector} &nbsp; <b>Data e hora:</b> {format_datetime(when)}"
        )
        banner = []
        if v.kind is InspectionKind.REINSPECTION and v.parent_id:
            banner.append(f"Nova vistoria dos itens pendentes da vistoria nº {v.parent_id:06d}: "
                          "só os itens pendentes são mostrados.")
        if v.supersedes_id:
            banner.append(f"Esta vistoria substituirá a vistoria aprovada nº {v.supersedes_id:06d}. "
                          f"Motivo: {v.supersedes_reason}")
        if v.status is InspectionStatus.SUPERSEDED:
            banner.append(f"Substituída pela vistoria nº {v.superseded_by_id:06d}. Motivo: {v.supersede_reason}")
        elif v.status is InspectionStatus.APPROVED and v.superseded_by_id:
            banner.append(f"Em substituição pela vistoria nº {v.superseded_by_id:06d}. Motivo: {v.supersede_reason}")
        if v.status in (InspectionStatus.APPROVED, InspectionStatus.FAILED):
            banner.append("Vistoria concluída: não pode ser alterada.")
        self.banner.setText("<br>".join(banner))
        self.banner.setVisible(bool(banner))
        for row in self.rows.values():
            row.set_editable(editable)
            row.photos.setEnabled(editable or row.item.photo_count > 0)
        self.notes.setReadOnly(not editable)
        self.all_ok.setVisible(editable)
        self.save_button.setVisible(editable)
        self.conclude_button.setVisible(editable)
        self.report_button.setVisible(v.report_available)
        self.update_result()

    def answers(self) -> list[ItemAnswer]:
        return [row.answer() for row in self.rows.values()]

    def update_result(self) -> None:
        items = [row.item.checklist_item() for row in self.rows.values()]
        outcome = evaluate_checklist(items, {row.item.code: row.result() for row in self.rows.values()})
        total = len(items)
        if self.view.status in (InspectionStatus.APPROVED, InspectionStatus.FAILED, InspectionStatus.SUPERSEDED):
            approved = self.view.status is InspectionStatus.APPROVED or (
                self.view.status is InspectionStatus.SUPERSEDED and outcome.approved)
            due = self.view.next_due
        else:
            approved = outcome.approved
            due = (next_inspection_due(self.view.service_type, datetime.now(LOCAL_TZ).date(), approved, self.settings)
                   if outcome.complete else None)
        next_text = f" &nbsp; Próxima vistoria: <b>{format_date(due)}</b>" if due else ""
        if not outcome.complete:
            n = len(outcome.unanswered)
            self.result_label.setText(f'<span style="color:{ORANGE}"><b>Em preenchimento</b>: '
                                f"{'falta 1 item' if n == 1 else f'faltam {n} itens'} de {total}.</span>")
        elif approved:
            self.result_label.setText(f'<span style="color:{GREEN}; font-size:14pt"><b>✔ Resultado: APROVADO</b></span>'
                                f"{next_text}")
        else:
            self.result_label.setText(f'<span style="color:{RED}; font-size:14pt"><b>✖ Resultado: REPROVADO</b></span>'
                                f" – {len(outcome.pending)} pendência(s){next_text}")
        self.pending.clear()
        for item in outcome.pending:
            entry = QListWidgetItem(f"✖ Pendente: {item.text} ({item.article})")  # not by its colour alone
            entry.setForeground(QColor(RED))
            entry.setData(Qt.ItemDataRole.UserRole, item.code)
            self.pending.addItem(entry)
        self.pending.setVisible(bool(outcome.pending))
        if self._unanswered_message:  # "Faltam responder n itens" follows the answers, and goes when none is left
            n = len(outcome.unanswered)
            if n:
                self.message.setText(self._unanswered_text(n))
            else:
                self._unanswered_message = False
                self.message.clear()

    @staticmethod
    def _unanswered_text(n: int) -> str:
        return (f"{'Falta responder 1 item' if n == 1 else f'Faltam responder {n} itens'}"
                ": salve como rascunho ou responda todos antes de concluir.")

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        """In an item's row: 1/2/3 answer it and go to the next item; F2 opens its photos."""
        code = watched.property("item_code") if isinstance(watched, QWidget) else None
        if code and event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent) \
                and not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            row = self.rows.get(str(code))
            if row is not None and event.key() == Qt.Key.Key_F2 and row.photos.isEnabled():
                self.open_photos(row.item.code)
                return True
            result = ANSWER_KEYS.get(Qt.Key(event.key()))
            if row is not None and result is not None and isinstance(watched, QRadioButton) \
                    and row.buttons[result].isEnabled():
                row.buttons[result].setChecked(True)
                self._focus_next_item(row.item.code)
                return True
        return super().eventFilter(watched, event)

    def _focus_next_item(self, code: str) -> None:
        codes = list(self.rows)
        index = codes.index(code)
        if index + 1 < len(codes):
            row = self.rows[codes[index + 1]]
            answered = row.result()
            target = row.buttons[answered] if answered is not None else row.buttons[ItemResult.OK]
            target.setFocus(Qt.FocusReason.TabFocusReason)
            self.items_area.ensureWidgetVisible(target)
        else:
            self.conclude_button.setFocus(Qt.FocusReason.TabFocusReason)

    def pending_codes(self) -> list[str]:
        return [self.pending.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.pending.count())]

    def _answer_changed(self, _button: QAbstractButton, checked: bool) -> None:
        if checked:
            for row in self.rows.values():
                if row.result() is not None:
                    mark_field(row.box, None)
            self._changed()
            self.update_result()

    def _changed(self) -> None:
        self.dirty = True

    def mark_unanswered_ok(self) -> None:
        for row in self.rows.values():
            if row.result() is None:
                row.buttons[ItemResult.OK].setChecked(True)

    # --- actions ---------------------------------------------------------------------------------
    def _reload(self) -> None:
        ctx, inspection_id = self.ctx, self.inspection_id
        load_into(self, lambda: inspections.get_inspection(ctx, inspection_id), self._apply_view)

    def _apply_view(self, view: InspectionView) -> None:
        self.view = view
        for item in self.view.items:
            row = self.rows[item.code]
            row.item = item
            row.set_photo_count(item.photo_count)
        self.dirty = False
        self.apply_state()

    def _failed(self, exc: BaseException) -> bool:
        """A refused save or conclusion: the reason under the items (and on the item rows); a
        conflict also offers to reload (ServiceOp), anything unexpected goes to ServiceOp."""
        if not isinstance(exc, MotodeskError):
            return False
        if isinstance(exc, InvalidInputError):
            for code in exc.fields:
                if code in self.rows:
                    mark_field(self.rows[code].box, exc.fields[code])
        conflict = isinstance(exc, ConflictError)
        self._error(exc, box=not conflict)
        return not conflict  # a conflict: ServiceOp offers "Recarregar"

    def save_draft(self, then: Callable[[], None] | None = None) -> ServiceOp:
        """Save the answers as a draft off the GUI thread; ``then`` runs once it is saved."""
        ctx, inspection_id, answers = self.ctx, self.inspection_id, self.answers()
        notes, version = self.notes.toPlainText(), self.view.version

        def saved(new_version: int) -> None:
            self.view.version = new_version
            self.dirty = False
            self._unanswered_message = False
            self.message.setStyleSheet("color: #1b6e2e")
            self.message.setText(f"Rascunho salvo às {datetime.now(LOCAL_TZ):%H:%M}. A vistoria pode ser "
                                 "concluída quando todos os itens tiverem resposta.")
            if then is not None:
                then()

        return ServiceOp(self, lambda: inspections.save_draft(ctx, inspection_id, answers, notes,
                                                              expected_version=version),
                         busy="Salvando o rascunho…", change="inspection", on_conflict=self._reload) \
            .success(saved).failure(self._failed).run()

    def conclude(self) -> bool:
        unanswered = [row for row in self.rows.values() if row.result() is None]
        if unanswered:
            for row in unanswered:
                mark_field(row.box, "Item sem resposta.")
            self._error(InvalidInputError(self._unanswered_text(len(unanswered))))
            self._unanswered_message = True
            return False
        if not confirm(
                self, "Concluir vistoria",
                "Concluir a vistoria? Depois de concluída ela não pode ser alterada; o laudo será emitido."):
            return False
        ctx, inspection_id, answers = self.ctx, self.inspection_id, self.answers()
        notes, version = self.notes.toPlainText(), self.view.version

        def work() -> InspectionView:
            inspections.conclude_inspection(ctx, inspection_id, answers, notes, expected_version=version)
            return inspections.get_inspection(ctx, inspection_id)  # concluded: the view with its laudo

        def concluded(view: InspectionView) -> None:
            self._apply_view(view)
            self.message.setStyleSheet("")
            self.message.setText("Vistoria concluída. O laudo foi gravado com a vistoria.")
            self.show_report()

        ServiceOp(self, work, busy="Concluindo a vistoria…", change="inspection", on_conflict=self._reload) \
            .success(concluded).failure(self._failed).run()
        return True

    def show_report(self) -> None:
        ctx, inspection_id, title = self.ctx, self.inspection_id, f"Laudo de Vistoria {self.view.report_number}"
        ServiceOp(self, lambda: inspections.inspection_report(ctx, inspection_id), busy="Gerando o laudo…") \
            .success(lambda pdf: preview_pdf(self, pdf, title)).run()

    def open_photos(self, code: str) -> None:
        row = self.rows[code]
        dialog = ItemPhotosDialog(self.ctx, self.view, row.item, self, editable=self.editable)
        dialog.exec()
        row.set_photo_count(dialog.count())

    def _error(self, exc: MotodeskError, *, box: bool = True) -> None:
        self.message.setStyleSheet(f"color: {RED}")
        fields = getattr(exc, "fields", None) or {}
        extra = [reason for code, reason in fields.items() if code not in self.rows]
        self.message.setText(" ".join([str(exc), *extra]))
        if box and not isinstance(exc, InvalidInputError):
            show_error(self, exc)

    def reject(self) -> None:
        """Closing (button, Esc or the window's X) offers to save unsaved answers first."""
        if self.dirty and self.editable:
            answer = QMessageBox.question(
                self, "Fechar a vistoria", "Há respostas não salvas. Salvar o rascunho antes de fechar?",
                QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Save)
            if answer == QMessageBox.StandardButton.Cancel:
                return
            if answer == QMessageBox.StandardButton.Save:
                self.save_draft(then=lambda: QDialog.reject(self))  # closes once the draft is saved
                return
        super().reject()


class ItemPhotosDialog(QDialog):
    """The photos of one item: thumbnails, add from a file, remove (while the inspection is a draft)."""

    def __init__(self, ctx: AppContext, view: InspectionView, item: ItemView, parent: QWidget | None = None,
                 *, editable: bool = True) -> None:
        super().__init__(parent)
        self.setObjectName("item_photos")
        self.ctx = ctx
        self.inspection_id = view.id
        self.code = item.code
        self.setWindowTitle(f"Fotos – {item.text}")
        self.resize(720, 460)
        self.list = QListWidget()
        self.list.setObjectName("photos")
        self.list.setViewMode(QListWidget.ViewMode.IconMode)
        self.list.setIconSize(QSize(200, 150))
        self.list.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.add_button = QPushButton("&Adicionar foto…")
        self.add_button.setObjectName("add_photo")
        self.remove_button = QPushButton("&Remover")
        self.remove_button.setObjectName("remove_photo")
        close = QPushButton("&Fechar")
        self.add_button.clicked.connect(self.add_photo)
        self.remove_button.clicked.connect(self.remove_photo)
        close.clicked.connect(self.accept)
        self.add_button.setVisible(editable)
        self.remove_button.setVisible(editable)
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        buttons.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(f"<b>{item.article}</b> – {item.text}"))
        layout.addWidget(self.list, 1)
        layout.addLayout(buttons)
        self.reload()

    def reload(self) -> None:
        ctx, inspection_id, code = self.ctx, self.inspection_id, self.code

        def fetch() -> list[tuple[inspections.PhotoRef, bytes]]:
            return [(ref, inspections.photo_bytes(ctx, ref.id))
                    for ref in inspections.item_photos(ctx, inspection_id, code)]

        load_into(self, fetch, self._show_photos)

    def _show_photos(self, photos: list[tuple[inspections.PhotoRef, bytes]]) -> None:
        self.list.clear()
        for ref, data in photos:
            image = QImage.fromData(data)
            icon = QIcon(QPixmap.fromImage(image.scaled(200, 150, Qt.AspectRatioMode.KeepAspectRatio,
                                                        Qt.TransformationMode.SmoothTransformation)))
            entry = QListWidgetItem(icon, f"{ref.filename}\n{format_datetime(ref.added_at)} – {ref.added_by}")
            entry.setData(Qt.ItemDataRole.UserRole, ref.id)
            self.list.addItem(entry)

    def count(self) -> int:
        return self.list.count()

    def add_photo(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, "Adicionar foto do item", "", IMAGE_FILTER)
        if not name:
            return
        try:
            data = Path(name).read_bytes()
        except OSError as exc:
            QMessageBox.warning(self, "Foto", f"Não foi possível ler o arquivo:\n{exc.strerror or exc}")
            return
        ctx, inspection_id, code = self.ctx, self.inspection_id, self.code
        ServiceOp(self, lambda: inspections.add_item_photo(ctx, inspection_id, code, Path(name).name, data),
                  busy="Gravando a foto…", change="inspection").success(lambda _id: self.reload()).run()

    def remove_photo(self) -> None:
        entry = self.list.currentItem()
        if entry is None:
            return
        ctx, photo_id = self.ctx, entry.data(Qt.ItemDataRole.UserRole)
        ServiceOp(self, lambda: inspections.remove_item_photo(ctx, photo_id), busy="Removendo a foto…",
                  change="inspection").success(lambda _r: self.reload()).run()
