"""The dossier window of a person (applicant, holder or deputy).

Personal data, the documents of Art. 5 as a checklist with their scans, the 3x4 photo, and the
person's applications and permits; beside them, the law's verdict on every requirement for the
chosen service, recomputed as the clerk types, with "Imprimir pendências".

Saving writes the person and the changed documents in one transaction, off the GUI thread. If
another workstation saved the same dossier first, :class:`ConflictDialog` offers to reload or to
review both versions field by field; what the clerk typed stays in the form until they choose.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeyEvent, QKeySequence, QPixmap, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from motodesk.errors import DatabaseError
from motodesk.rules import documents_declared
from motodesk.rules.common import Role, ServiceType, Status, Verdict
from motodesk.rules.dossier import DocumentKind
from motodesk.rules.eligibility import (
    BRAZILIAN_UFS,
    MILITARY_OBLIGATION_LAST_AGE,
    check_applicant,
    check_deputy,
    completeness,
)
from motodesk.rules.settings import LawSettings
from motodesk.rules.validators import format_cpf
from motodesk.services import applications, attachments, fees, people, photos, tenders
from motodesk.services.applications import ApplicationInfo, PermitInfo
from motodesk.services.clock import local_now, local_today
from motodesk.services.context import AppContext
from motodesk.services.errors import ConflictError, InvalidInputError, MotodeskError
from motodesk.services.people import DocumentInput, Dossier, DossierSaved, PersonInput
from motodesk.services.settings import law_settings
from motodesk.services.tenders import TenderStanding
from motodesk.ui import live
from motodesk.ui.attachments import AttachmentList
from motodesk.ui.errors import show_error, show_unexpected
from motodesk.ui.formatting import format_date, format_datetime
from motodesk.ui.guard import Answer, ask_unsaved, confirm
from motodesk.ui.ops import ServiceOp, load_into
from motodesk.ui.payment_dialog import FEE_REFUSAL_HINT, record_payment, recorded_message
from motodesk.ui.tablemodel import Column, RowTableModel
from motodesk.ui.widgets import (
    STATUS_COLOURS,
    STATUS_SYMBOLS,
    DateField,
    FormattedLineEdit,
    VerdictList,
    mark_field,
)

log = logging.getLogger(__name__)

EDITOR_ROLES = (Role.CLERK, Role.SUPERVISOR)
PHOTO_SIZE = (120, 160)  # 3x4
PHOTO_FILTER = "Imagens (*.jpg *.jpeg *.png *.heic *.webp *.bmp *.tif *.tiff);;Todos os arquivos (*)"

PERSON_LABELS = {
    "full_name": "Nome completo", "cpf": "CPF", "birth_date": "Data de nascimento", "sex": "Sexo",
    "mother_name": "Nome da mãe", "phone": "Telefone", "email": "E-mail", "address": "Endereço",
    "district": "Bairro", "city": "Cidade", "uf": "UF", "zip_code": "CEP",
    "declares_no_other_permit": "Declara não deter permissão de táxi, escolar ou coletivo (Art. 8º)",
    "notes": "Observações",
}


@dataclass(frozen=True)
class FieldSpec:
    name: str
    label: str
    kind: str  # text, date, bool, result, uf, note


def document_fields() -> dict[DocumentKind, tuple[FieldSpec, ...]]:
    """The boxes of the documents tab and their fields, from the declarations (``documents_declared``)."""
    return {DocumentKind(d.kind): tuple(FieldSpec(f.name, f.label, f.widget) for f in d.fields)
            for d in documents_declared.declared()}


def document_note(kind: DocumentKind, settings: LawSettings) -> str | None:
    """The note under a document box, with the periods of the settings in force."""
    found = documents_declared.declaration(kind.value)
    return found.note_text(settings) if found is not None else None


BOOL_CHOICES = (("—", None), ("Sim", True), ("Não", False))
#: Document numbers typed grouped, like the CPF (FormattedLineEdit kinds).
FORMATTED_NUMBERS = {(DocumentKind.INSS, "number"): "nit", (DocumentKind.ELECTORAL, "number"): "titulo"}
RESULT_CHOICES = (("—", None), ("Negativas", "negative"), ("Positivas", "positive"))
SEX_CHOICES = (("—", None), ("Masculino", "M"), ("Feminino", "F"))


def _choice_combo(choices: tuple[tuple[str, Any], ...]) -> QComboBox:
    combo = QComboBox()
    for label, value in choices:
        combo.addItem(label, value)
    return combo


def _combo_value(combo: QComboBox) -> Any:
    return combo.currentData()


def _set_combo(combo: QComboBox, value: Any) -> None:
    index = combo.findData(value)
    combo.setCurrentIndex(index if index >= 0 else 0)


def _text(widget: QLineEdit | QPlainTextEdit) -> str | None:
    value = widget.toPlainText() if isinstance(widget, QPlainTextEdit) else widget.text()
    return value if value.strip() else None


def flatten(person: PersonInput, documents: dict[DocumentKind, DocumentInput]) -> dict[str, Any]:
    """Every field of a dossier as ``{"cpf": …, "cnh.number": …}`` (for comparing two versions)."""
    flat: dict[str, Any] = dict(dataclasses.asdict(person))
    for kind, specs in document_fields().items():
        doc = documents.get(kind) or DocumentInput(kind)
        for f in specs:
            flat[f"{kind.value}.{f.name}"] = getattr(doc, f.name)
    return flat


def field_label(key: str) -> str:
    if "." not in key:
        return PERSON_LABELS.get(key, key)
    kind, name = key.split(".", 1)
    spec = next((f for f in document_fields().get(DocumentKind(kind), ()) if f.name == name), None)
    return f"{DocumentKind(kind).label}: {spec.label if spec else name}"


def show_value(value: Any) -> str:
    if value is None or value == "":
        return "(vazio)"
    if isinstance(value, bool):
        return "Sim" if value else "Não"
    if isinstance(value, date):
        return format_date(value)
    if value in ("negative", "positive"):
        return "Negativas" if value == "negative" else "Positivas"
    if value in ("M", "F"):
        return "Masculino" if value == "M" else "Feminino"
    return str(value)


def _buddy(text: str, widget: QWidget) -> QLabel:
    """A field label whose access key (the & letter) takes the focus to ``widget``."""
    label = QLabel(text)
    label.setBuddy(widget)
    return label


#: Access keys of what stays visible on every tab (Foto, Salvar, Fechar, Serviço, Imprimir).
WINDOW_KEYS = frozenset("fshvr")


def with_access_key(text: str, used: set[str]) -> str:
    """``text`` with an ``&`` before its first letter not yet in ``used`` (which it joins); when
    every letter is taken, before the first letter not kept for the window (Alt+letter then cycles
    through the fields that share it, as Qt does for a repeated access key)."""
    for index, ch in enumerate(text):
        if ch.isascii() and ch.isalpha() and ch.lower() not in used:
            used.add(ch.lower())
            return text[:index] + "&" + text[index:]
    for index, ch in enumerate(text):
        if ch.isascii() and ch.isalpha() and ch.lower() not in WINDOW_KEYS:
            return text[:index] + "&" + text[index:]
    return text


def fit_to_screen(window: QWidget, width: int, height: int) -> None:
    """Open at ``width`` x ``height``, or smaller to stay inside the screen's available area (the
    window frame included), centred on it."""
    screen = window.screen() or QApplication.primaryScreen()
    if screen is None:
        window.resize(width, height)
        return
    area = screen.availableGeometry()
    frame_w, frame_h = 16, 40  # title bar and borders the window manager adds
    w, h = min(width, area.width() - frame_w), min(height, area.height() - frame_h)
    window.resize(w, h)
    window.move(area.x() + max(0, (area.width() - w - frame_w) // 2), area.y() + max(0, (area.height() - h - frame_h) // 2))


# --- conflict dialogs -------------------------------------------------------------------------


class ConflictDialog(QMessageBox):
    """Another workstation saved first: reload theirs, review both, or keep editing."""

    REVIEW, RELOAD, CANCEL = "review", "reload", "cancel"

    def __init__(self, parent: QWidget | None, who: str) -> None:
        super().__init__(parent)
        self.setObjectName("conflict_dialog")
        self.setIcon(QMessageBox.Icon.Warning)
        self.setWindowTitle("Dossiê alterado por outra estação")
        self.setText(f"Outra estação salvou este dossiê depois que você o abriu{who}.\n\n"
                     "Nada do que você digitou foi gravado, e tudo continua no formulário.")
        self.setInformativeText("Revise as duas versões para escolher, campo a campo, o que fica; ou "
                                "recarregue a versão gravada, descartando as suas alterações.")
        self.review_button = self.addButton("Revisar as duas versões", QMessageBox.ButtonRole.AcceptRole)
        self.reload_button = self.addButton("Recarregar a versão gravada", QMessageBox.ButtonRole.DestructiveRole)
        self.cancel_button = self.addButton("Continuar editando", QMessageBox.ButtonRole.RejectRole)
        self.setDefaultButton(self.review_button)
        self.setEscapeButton(self.cancel_button)

    def choice(self) -> str:
        clicked = self.clickedButton()
        if clicked is self.review_button:
            return self.REVIEW
        if clicked is self.reload_button:
            return self.RELOAD
        return self.CANCEL

    def ask(self) -> str:
        self.exec()
        return self.choice()


class ReviewDialog(QDialog):
    """Both versions side by side; a tick takes the stored value for that field."""

    def __init__(self, parent: QWidget | None, mine: dict[str, Any], stored: dict[str, Any], who: str) -> None:
        super().__init__(parent)
        self.setObjectName("review_dialog")
        self.setWindowTitle("Revisar as duas versões do dossiê")
        self.resize(860, 420)
        self.keys = [k for k in mine if mine[k] != stored.get(k)]
        intro = QLabel(f"Campos em que a sua versão difere da gravada{who}. Marque os campos em que a versão "
                       "gravada deve ficar; os demais ficam como você digitou. Depois, salve.")
        intro.setWordWrap(True)
        self.table = QTableWidget(len(self.keys), 4)
        self.table.setObjectName("differences")
        self.table.setHorizontalHeaderLabels(["Campo", "Sua versão", "Versão gravada", "Usar a gravada"])
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.checks: dict[str, QCheckBox] = {}
        for row, key in enumerate(self.keys):
            self.table.setItem(row, 0, QTableWidgetItem(field_label(key)))
            self.table.setItem(row, 1, QTableWidgetItem(show_value(mine[key])))
            self.table.setItem(row, 2, QTableWidgetItem(show_value(stored.get(key))))
            check = QCheckBox()
            check.setObjectName(f"use_stored_{key}")
            self.checks[key] = check
            self.table.setCellWidget(row, 3, check)
        if not self.keys:
            intro.setText("A versão gravada tem os mesmos valores que você digitou. Salve para confirmar.")
        buttons = QDialogButtonBox()
        self.save_button = buttons.addButton("Salvar com estas escolhas", QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton("Cancelar", QDialogButtonBox.ButtonRole.RejectRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)

    def take_stored(self) -> set[str]:
        return {k for k, check in self.checks.items() if check.isChecked()}


class NameChangeDialog(QDialog):
    """A supervisor changes a tied person's name: the new name, the reason, the supporting document."""

    def __init__(self, parent: QWidget | None, current_name: str) -> None:
        super().__init__(parent)
        self.setObjectName("name_change_dialog")
        self.setWindowTitle("Alterar nome")
        intro = QLabel(f"Nome atual: <b>{current_name}</b>. A permissão é pessoal e intransferível (Art. 6º, § 1º; "
                       "Art. 7º): o nome muda só por casamento, retificação judicial ou motivo semelhante, com o "
                       "documento anexado. A alteração aparece no histórico da permissão.")
        intro.setWordWrap(True)
        self.name_edit = QLineEdit()
        self.name_edit.setObjectName("new_name")
        self.reason_edit = QPlainTextEdit()
        self.reason_edit.setObjectName("reason")
        self.reason_edit.setTabChangesFocus(True)
        self.reason_edit.setMaximumHeight(80)
        self.file_edit = QLineEdit()
        self.file_edit.setObjectName("document_file")
        self.file_edit.setPlaceholderText("Certidão de casamento, decisão judicial… (PDF, JPEG ou PNG)")
        self.browse_button = QPushButton("&Escolher…")
        self.browse_button.setObjectName("browse")
        self.browse_button.setAutoDefault(False)
        self.browse_button.clicked.connect(self.browse)
        file_row = QHBoxLayout()
        file_row.addWidget(self.file_edit, 1)
        file_row.addWidget(self.browse_button)
        self.error_label = QLabel("")
        self.error_label.setObjectName("error")
        self.error_label.setStyleSheet("color: #c62828;")
        self.error_label.setWordWrap(True)
        self.error_label.hide()
        form = QFormLayout()
        name_label = QLabel("&Novo nome:")
        name_label.setBuddy(self.name_edit)
        reason_label = QLabel("&Motivo:")
        reason_label.setBuddy(self.reason_edit)
        file_label = QLabel("&Documento:")
        file_label.setBuddy(self.file_edit)
        form.addRow(name_label, self.name_edit)
        form.addRow(reason_label, self.reason_edit)
        form.addRow(file_label, file_row)
        buttons = QDialogButtonBox()
        self.ok_button = buttons.addButton("&Alterar o nome", QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.error_label)
        layout.addWidget(buttons)
        QWidget.setTabOrder(self.name_edit, self.reason_edit)
        QWidget.setTabOrder(self.reason_edit, self.file_edit)
        QWidget.setTabOrder(self.file_edit, self.browse_button)
        self.name_edit.setFocus()

    def browse(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, "Documento da alteração de nome", "",
                                              "Documentos (*.pdf *.jpg *.jpeg *.png);;Todos os arquivos (*)")
        if name:
            self.file_edit.setText(name)

    def values(self) -> tuple[str, str, str]:
        return self.name_edit.text(), self.reason_edit.toPlainText(), self.file_edit.text().strip()

    def show_error(self, message: str) -> None:
        self.error_label.setText(message)
        self.error_label.setVisible(bool(message))


# --- the window -------------------------------------------------------------------------------


class _DocumentRow:
    """The widgets of one document kind: its fields, attachments and verdict mark."""

    def __init__(self, kind: DocumentKind, box: QGroupBox, inputs: dict[str, QWidget],
                 attachments_widget: AttachmentList) -> None:
        self.kind = kind
        self.box = box
        self.inputs = inputs
        self.attachments = attachments_widget
        self.shown: tuple[str, str] | None = None  # the (status, message) the box shows now
        self.note: QLabel | None = None  # the note under the fields, from the settings in force


@dataclass
class _Loaded:
    """Everything a dossier shows, read in one go off the GUI thread."""

    dossier: Dossier
    files: dict[DocumentKind, list[attachments.AttachmentInfo]]
    photo: photos.PhotoInfo | None
    applications: list[ApplicationInfo]
    permits: list[PermitInfo]
    deputy_of: list[str]
    locks: list[str]
    tender: TenderStanding | None
    name_changes: list[people.NameChangeRow]
    settings: LawSettings
    pending: list[people.PermitPending] = dataclasses.field(default_factory=list)


class DossierWindow(QWidget):
    """One person's dossier; ``person_id=None`` opens a blank one (new person).

    A stored dossier is read in the background: the form is disabled until :attr:`loaded` is
    emitted."""

    saved = Signal(int)  # person id, after every successful save
    closed = Signal(object)
    loaded = Signal(int)  # person id, once a stored dossier is shown

    def __init__(self, ctx: AppContext, person_id: int | None = None, parent: QWidget | None = None, *,
                 on_new_person: Callable[[], object] | None = None,
                 on_find: Callable[[], object] | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("dossier")
        self.ctx = ctx
        self.person_id = person_id
        self.editable = ctx.user.role in EDITOR_ROLES
        self.settings = LawSettings()  # the law's defaults until the settings in force are read
        self.person_version: int | None = None
        self.doc_versions: dict[DocumentKind, int | None] = {}
        self.base: dict[str, Any] = {}
        self.photo: photos.PhotoInfo | None = None
        self.applications: list[ApplicationInfo] = []
        self.permits: list[PermitInfo] = []
        self.deputy_of: list[str] = []  # permits this person is the deputy of (Art. 14)
        self.locks: list[str] = []  # what ties the CPF and the name (Art. 6º, § 1º; Art. 7º)
        self.tender: TenderStanding | None = None  # the person in the mototáxi tenders (Art. 6º; Art. 10, I)
        self.verdicts: list[Verdict] = []
        self.saving = False
        self._tried_save = False
        self._close_after_save = False
        self._loading = False
        self.person_inputs: dict[str, QWidget] = {}
        self.error_labels: dict[str, QLabel] = {}
        self.documents: dict[DocumentKind, _DocumentRow] = {}
        self._recheck_timer = QTimer(self)
        self._recheck_timer.setSingleShot(True)
        self._recheck_timer.setInterval(120)
        self._recheck_timer.timeout.connect(self.recheck)
        self._build()
        fit_to_screen(self, 1280, 840)
        self._build_actions(on_new_person, on_find)
        if person_id is not None:
            self.load(person_id)
        else:
            self._set_base()
            self._refresh_header()
            self.recheck()
            load_into(self, lambda: law_settings(ctx), self._settings_loaded, key="settings")
        self._apply_role()
        self.person_inputs["full_name"].setFocus()
        # Another workstation saved this person while the dossier is open: say so before Salvar.
        live.follow_record(self, "person", lambda: self.person_id, self.changed_elsewhere.show_change)

    def prefill(self, *, full_name: str | None = None, cpf: str | None = None) -> None:
        """A new person's name or CPF as the clerk searched it (carried forward from the search box); the
        cursor goes to the first field still empty. Only a new dossier's empty fields are filled."""
        if self.person_id is not None:
            return
        for key, value in (("full_name", full_name), ("cpf", cpf)):
            widget = self.person_inputs[key]
            if value and isinstance(widget, QLineEdit) and not widget.text().strip("._- "):
                widget.setText(format_cpf(value) if key == "cpf" else value)
        self._set_base()  # carried forward, not typed: closing untouched asks nothing
        self._refresh_header()
        self.recheck()
        for key in ("full_name", "cpf", "birth_date"):
            widget = self.person_inputs[key]
            if isinstance(widget, QLineEdit) and not widget.text().strip("._-/ "):
                widget.setFocus(Qt.FocusReason.OtherFocusReason)
                break

    # -- building ---------------------------------------------------------------------------
    def _build(self) -> None:
        self.banner = QLabel()
        self.banner.setObjectName("banner")
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet("background: #fff8e1; border: 1px solid #f0c36d; padding: 6px;")
        self.banner.hide()

        # Header: photo slot, name, CPF, situation.
        self.photo_label = QLabel("Sem foto")
        self.photo_label.setObjectName("photo")
        self.photo_label.setFixedSize(*PHOTO_SIZE)
        self.photo_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.photo_label.setStyleSheet("border: 1px solid #9e9e9e; background: #f5f5f5; color: #616161;")
        self.photo_caption = QLabel("")
        self.photo_caption.setObjectName("photo_caption")
        self.photo_caption.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.photo_button = QPushButton("&Foto 3x4…")
        self.photo_button.setObjectName("photo_button")
        self.photo_button.setToolTip("Importar ou capturar a foto 3x4 (Art. 5º, IX)")
        self.photo_button.clicked.connect(self.request_photo)
        self.photo_button.setAutoDefault(False)
        photo_box = QVBoxLayout()
        photo_box.addWidget(self.photo_label)
        photo_box.addWidget(self.photo_caption)
        photo_box.addWidget(self.photo_button)
        photo_box.addStretch(1)

        self.title_label = QLabel()
        self.title_label.setObjectName("title")
        self.title_label.setTextFormat(Qt.TextFormat.RichText)
        self.subtitle_label = QLabel()
        self.subtitle_label.setObjectName("subtitle")
        header_text = QVBoxLayout()
        header_text.addWidget(self.title_label)
        header_text.addWidget(self.subtitle_label)
        header_text.addStretch(1)

        self.tabs = QTabWidget()
        self.tabs.setObjectName("tabs")
        # Alt+1/2/3 (Ctrl+Tab too): the letters are the fields'.
        self.tabs.addTab(self._build_personal(), "&1 Dados pessoais")
        self.tabs.addTab(self._build_documents(), "&2 Documentos (Art. 5º)")
        self.tabs.addTab(self._build_applications(), "&3 Requerimentos e permissões")
        self.tabs.tabBar().setFocusPolicy(Qt.FocusPolicy.NoFocus)  # no Tab stop: Alt+n or Ctrl+Tab
        self.tabs.currentChanged.connect(self._tab_shown)

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        top = QHBoxLayout()
        top.addLayout(photo_box)
        top.addLayout(header_text, 1)
        left_layout.addLayout(top)
        left_layout.addWidget(self.tabs, 1)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(self._build_eligibility())
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setSizes([760, 500])

        self.status = QLabel()
        self.status.setObjectName("status")
        self.save_button = QPushButton("&Salvar")
        self.save_button.setObjectName("save")
        self.save_button.setToolTip("Salvar o dossiê (Ctrl+S)")
        self.save_button.clicked.connect(self.save)
        self.close_button = QPushButton("Fec&har")
        self.close_button.setObjectName("close")
        self.close_button.setToolTip("Fechar o dossiê (Esc)")
        self.close_button.clicked.connect(self.close)
        bottom = QHBoxLayout()
        bottom.addWidget(self.status, 1)
        bottom.addWidget(self.save_button)
        bottom.addWidget(self.close_button)

        self.changed_elsewhere = live.ChangedElsewhereBanner("Este dossiê")
        self.changed_elsewhere.reload.connect(self.reload_stored)
        layout = QVBoxLayout(self)
        layout.addWidget(self.changed_elsewhere)
        layout.addWidget(self.banner)
        layout.addWidget(splitter, 1)
        layout.addLayout(bottom)

    def _tab_shown(self, index: int) -> None:
        """A tab chosen from the keyboard puts the cursor in its first field (not on a hidden one)."""
        focus = QApplication.focusWidget()
        shown = self.tabs.widget(index)
        if focus is not None and shown is not None and shown.isAncestorOf(focus):
            return
        page = self.tabs.widget(index)
        if page is None:
            return
        first = page.nextInFocusChain()
        while first is not None and first is not page and not (
                page.isAncestorOf(first) and first.focusPolicy() & Qt.FocusPolicy.TabFocus
                and first.isEnabled() and first.isVisibleTo(page)
                and not (isinstance(first, QLineEdit) and first.isReadOnly())):
            first = first.nextInFocusChain()
        if first is not None and first is not page:
            first.setFocus(Qt.FocusReason.TabFocusReason)

    def _line(self, key: str, placeholder: str = "", kind: str | None = None) -> QLineEdit:
        edit = FormattedLineEdit(kind) if kind else QLineEdit()
        edit.setObjectName(key)
        edit.setPlaceholderText(placeholder)
        edit.textChanged.connect(self._changed)
        edit.editingFinished.connect(lambda k=key: self._validate_person_field(k))
        self.person_inputs[key] = edit
        return edit

    def _with_error(self, key: str, widget: QWidget) -> QWidget:
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(1)
        layout.addWidget(widget)
        label = QLabel()
        label.setObjectName(f"error_{key}")
        label.setStyleSheet("color: #c62828;")
        label.setWordWrap(True)
        label.hide()
        layout.addWidget(label)
        self.error_labels[key] = label
        return box

    def _build_personal(self) -> QWidget:
        page = QWidget()
        outer = QVBoxLayout(page)
        form = QFormLayout()
        outer.addLayout(form)
        outer.addStretch(1)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        self.name_change_button = QPushButton("A&lterar nome…")
        self.name_change_button.setObjectName("change_name")
        self.name_change_button.setToolTip("Alteração de nome por casamento ou retificação judicial, com o motivo e o "
                                           "documento (supervisor; Art. 6º, § 1º; Art. 7º)")
        self.name_change_button.setAutoDefault(False)
        self.name_change_button.clicked.connect(self.change_name)
        self.name_change_button.hide()
        name_row = QHBoxLayout()
        name_row.addWidget(self._with_error("full_name", self._line("full_name", "Como no documento de identidade")), 1)
        name_row.addWidget(self.name_change_button, 0, Qt.AlignmentFlag.AlignTop)
        name_label = QLabel("&Nome completo:")
        name_label.setBuddy(self.person_inputs["full_name"])
        form.addRow(name_label, name_row)
        cpf = self._line("cpf", "000.000.000-00", "cpf")
        self.cpf_input = cpf  # reformatted after a save
        form.addRow(_buddy("&CPF:", cpf), self._with_error("cpf", cpf))
        birth = DateField()
        birth.setObjectName("birth_date")
        birth.valueChanged.connect(self._changed)
        self.person_inputs["birth_date"] = birth
        sex = _choice_combo(SEX_CHOICES)
        sex.setObjectName("sex")
        sex.currentIndexChanged.connect(self._changed)
        self.person_inputs["sex"] = sex
        row = QHBoxLayout()
        row.addWidget(self._with_error("birth_date", birth))
        sex_label = QLabel("Se&xo:")
        sex_label.setBuddy(sex)
        row.addWidget(sex_label)
        row.addWidget(sex)
        row.addStretch(1)
        birth_label = QLabel("&Data de nascimento:")
        birth_label.setBuddy(birth)
        form.addRow(birth_label, row)
        mother = self._line("mother_name")
        form.addRow(_buddy("Nome da &mãe:", mother), self._with_error("mother_name", mother))
        contact = QHBoxLayout()
        contact.addWidget(self._with_error("phone", self._line("phone", "(34) 99999-9999", "phone")))
        email = self._line("email")
        contact.addWidget(_buddy("E-mai&l:", email))
        contact.addWidget(self._with_error("email", email), 1)
        phone_label = QLabel("&Telefone:")
        phone_label.setBuddy(self.person_inputs["phone"])
        form.addRow(phone_label, contact)
        address = self._line("address", "Rua, número, complemento")
        form.addRow(_buddy("&Endereço:", address), self._with_error("address", address))
        place = QHBoxLayout()
        place.addWidget(self._with_error("district", self._line("district")), 2)
        city = self._line("city")
        place.addWidget(_buddy("C&idade:", city))
        place.addWidget(self._with_error("city", city), 2)
        uf = self._uf_combo("uf")
        self.person_inputs["uf"] = uf
        place.addWidget(_buddy("&UF:", uf))
        place.addWidget(self._with_error("uf", uf))
        zip_code = self._line("zip_code", "38740-000", "cep")
        zip_code.setMaximumWidth(110)
        place.addWidget(_buddy("CE&P:", zip_code))
        place.addWidget(self._with_error("zip_code", zip_code))
        district_label = QLabel("&Bairro:")
        district_label.setBuddy(self.person_inputs["district"])
        form.addRow(district_label, place)
        notes = QPlainTextEdit()
        notes.setObjectName("notes")
        notes.setTabChangesFocus(True)
        notes.setMaximumHeight(90)
        notes.textChanged.connect(self._changed)
        self.person_inputs["notes"] = notes
        form.addRow(_buddy("&Observações:", notes), self._with_error("notes", notes))
        return page

    def _build_documents(self) -> QWidget:
        self._doc_keys: set[str] = set(WINDOW_KEYS)
        container = QWidget()
        layout = QVBoxLayout(container)
        hint = QLabel("Num campo de um documento: Ctrl+Insert anexa a digitalização; Ctrl+↓ vai à lista de "
                      "anexos (Enter mostra, Delete remove).")
        hint.setObjectName("documents_hint")
        hint.setStyleSheet("color: #616161;")
        hint.setWordWrap(True)
        layout.addWidget(hint)
        for kind, specs in document_fields().items():
            box = QGroupBox()
            box.setObjectName(f"doc_{kind.value}")
            grid = QGridLayout(box)
            inputs: dict[str, QWidget] = {}
            cells: list[tuple[QLabel, QWidget]] = []
            for spec in specs:
                widget = self._document_input(kind, spec)
                inputs[spec.name] = widget
                label = QLabel(with_access_key(spec.label, self._doc_keys) + ":")
                label.setBuddy(widget)
                cells.append((label, self._with_error(f"{kind.value}.{spec.name}", widget)))
            if kind is DocumentKind.DECLARATION_ART8:
                declares = _choice_combo(BOOL_CHOICES)
                declares.setObjectName("declares_no_other_permit")
                declares.currentIndexChanged.connect(self._changed)
                self.person_inputs["declares_no_other_permit"] = declares
                label = QLabel(with_access_key("Declara não deter táxi, escolar ou coletivo", self._doc_keys) + ":")
                label.setToolTip(PERSON_LABELS["declares_no_other_permit"])
                label.setBuddy(declares)
                cells.append((label, declares))
            per_row = 3
            for i, (label, widget) in enumerate(cells):
                row, column = 2 * (i // per_row), i % per_row
                grid.addWidget(label, row, column)
                grid.addWidget(widget, row + 1, column)
            next_row = 2 * ((len(cells) + per_row - 1) // per_row)
            note_text = document_note(kind, self.settings)
            note: QLabel | None = None
            if note_text is not None:
                note = QLabel(note_text)
                note.setObjectName(f"note_{kind.value}")
                note.setStyleSheet("color: #616161;")
                note.setWordWrap(True)
                grid.addWidget(note, next_row, 0, 1, per_row)
                next_row += 1
            files = AttachmentList(self.ctx, functools.partial(self._attach, kind), name=kind.value)
            files.changed.connect(lambda: self._set_status("Anexos atualizados."))
            # Not a Tab stop (a dozen lists would be a dozen wasted keys between the fields): from
            # any field of the box, Ctrl+Insert attaches a scan and Ctrl+↓ goes to the list.
            files.list.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
            for widget in inputs.values():
                widget.installEventFilter(self)
                widget.setProperty("document_kind", kind.value)
            if not inputs:
                files.list.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # the CPF copy: only the list
            grid.addWidget(files, next_row, 0, 1, per_row)
            for column in range(per_row):
                grid.setColumnStretch(column, 1)
            layout.addWidget(box)
            self.documents[kind] = _DocumentRow(kind, box, inputs, files)
            self.documents[kind].note = note
        layout.addStretch(1)
        container.setStyleSheet("".join(
            f'QGroupBox[verdict="{status.name.lower()}"]::title {{ color: {colour}; }}'
            for status, colour in STATUS_COLOURS.items()))
        area = QScrollArea()
        area.setObjectName("documents_area")
        area.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the fields are the stops; the area follows them
        area.setWidget(container)
        area.setWidgetResizable(True)
        area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        return area

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        kind = watched.property("document_kind") if isinstance(watched, QWidget) else None
        if kind and event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent) \
                and event.modifiers() == Qt.KeyboardModifier.ControlModifier:
            files = self.documents[DocumentKind(kind)].attachments
            if event.key() == Qt.Key.Key_Insert and files.add_button.isEnabled():
                files.add_from_file()
                return True
            if event.key() == Qt.Key.Key_Down:
                files.list.setFocus(Qt.FocusReason.ShortcutFocusReason)
                return True
        return super().eventFilter(watched, event)

    def _uf_combo(self, name: str) -> QComboBox:
        """The UF, chosen (typing "MG" picks it)."""
        combo = QComboBox()
        combo.setObjectName(name)
        combo.addItem("—", None)
        for uf in sorted(BRAZILIAN_UFS):
            combo.addItem(uf, uf)
        combo.currentIndexChanged.connect(self._changed)
        return combo

    def _document_input(self, kind: DocumentKind, spec: FieldSpec) -> QWidget:
        name = f"{kind.value}.{spec.name}"
        widget: QWidget
        if spec.kind == "date":
            widget = DateField()
            widget.valueChanged.connect(self._changed)
        elif spec.kind == "bool":
            widget = _choice_combo(BOOL_CHOICES)
            widget.currentIndexChanged.connect(self._changed)
        elif spec.kind == "result":
            widget = _choice_combo(RESULT_CHOICES)
            widget.currentIndexChanged.connect(self._changed)
        elif spec.kind == "uf":
            widget = self._uf_combo(name)
        else:
            formatted = FORMATTED_NUMBERS.get((kind, spec.name))
            widget = FormattedLineEdit(formatted) if formatted else QLineEdit()
            widget.textChanged.connect(self._changed)
            widget.editingFinished.connect(lambda n=name: self._validate_document_field(n))
        widget.setObjectName(name)
        return widget

    def _build_applications(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        self.applications_model: RowTableModel[ApplicationInfo] = RowTableModel([
            Column("number", "Nº", lambda a: a.number),
            Column("service", "Serviço", lambda a: a.service.label),
            Column("state", "Situação", lambda a: a.state.label),
            Column("opened_on", "Aberto em", lambda a: a.opened_on),
            Column("opened_by", "Por", lambda a: a.opened_by),
        ], parent=self)
        self.permits_model: RowTableModel[PermitInfo] = RowTableModel([
            Column("number", "Número", lambda p: p.number),
            Column("service", "Serviço", lambda p: f"{p.service.label} ({p.service.instrument})"),
            Column("state", "Situação", lambda p: p.state.label),
            Column("issued_on", "Emitida em", lambda p: p.issued_on),
            Column("term_end", "Vigência até", lambda p: p.term_end),
            Column("certificate", "Certificado até", lambda p: p.certificate_valid_until),
        ], parent=self)
        self.applications_view = self._small_table(self.applications_model, "applications")
        self.permits_view = self._small_table(self.permits_model, "permits")
        self.open_application_button = QPushButton()
        self.open_application_button.setAutoDefault(False)
        self.open_application_button.setObjectName("open_application")
        self.open_application_button.clicked.connect(self.open_application)
        row = QHBoxLayout()
        row.addWidget(QLabel("<b>Requerimentos</b>"))
        row.addStretch(1)
        row.addWidget(self.open_application_button)
        self.payment_button = QPushButton("Registrar pa&gamento…")  # Art. 6º, § 6º: application, issue, inspection
        self.payment_button.setObjectName("record_payment")
        self.payment_button.clicked.connect(self.record_payment)
        row.addWidget(self.payment_button)
        layout.addLayout(row)
        layout.addWidget(self.applications_view, 1)
        layout.addWidget(QLabel("<b>Permissões e autorizações</b>"))
        layout.addWidget(self.permits_view, 1)
        self.permit_pending_label = QLabel("")  # the permit in force judged on today's facts (gate's rules)
        self.permit_pending_label.setObjectName("permit_pending")
        self.permit_pending_label.setWordWrap(True)
        self.permit_pending_label.setTextFormat(Qt.TextFormat.PlainText)
        self.permit_pending_label.hide()
        layout.addWidget(self.permit_pending_label)
        self.name_history_label = QLabel("")
        self.name_history_label.setObjectName("name_history")
        self.name_history_label.setWordWrap(True)
        self.name_history_label.setTextFormat(Qt.TextFormat.PlainText)
        self.name_history_label.hide()
        layout.addWidget(self.name_history_label)
        return page

    def _show_permit_pending(self, pending: list[people.PermitPending]) -> None:
        """What today's facts do not vouch for of each permit in force, each item with its article."""
        lines = [f"Pendências da permissão {p.number}{' (importada do cadastro anterior)' if p.imported else ''}:\n"
                 + "\n".join(f"• {v.message}" for v in p.verdicts) for p in pending]
        self.permit_pending_label.setText("\n".join(lines))
        self.permit_pending_label.setVisible(bool(lines))

    def _show_name_history(self, changes: list[people.NameChangeRow]) -> None:
        """The person's name changes (Art. 6º, § 1º; Art. 7º), oldest first."""
        lines = [f"{format_datetime(c.at)} — de “{c.old_name}” para “{c.new_name}”: {c.reason} (por {c.by_user})"
                 for c in changes]
        self.name_history_label.setText("Alterações de nome:\n" + "\n".join(lines) if lines else "")
        self.name_history_label.setVisible(bool(lines))

    def _small_table(self, model: RowTableModel[Any], name: str) -> QTableView:
        view = QTableView()
        view.setObjectName(name)
        view.setModel(model)
        view.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        view.setEditTriggers(QTableView.EditTrigger.NoEditTriggers)
        view.verticalHeader().setVisible(False)
        view.horizontalHeader().setStretchLastSection(True)
        view.setAlternatingRowColors(True)
        return view

    def _build_eligibility(self) -> QWidget:
        panel = QGroupBox("Requisitos do requerente (Art. 5º, 6º § 1º e 8º)")
        panel.setObjectName("eligibility")
        self.service_combo = QComboBox()
        self.service_combo.setObjectName("service")
        for service in ServiceType:
            self.service_combo.addItem(service.label, service)
        _set_combo(self.service_combo, ServiceType.MOTOBOY)
        self.service_combo.currentIndexChanged.connect(self._service_changed)
        self.meter = QProgressBar()
        self.meter.setObjectName("completeness")
        self.meter.setRange(0, 100)
        self.meter.setFormat("Dossiê %p% completo")
        self.summary = QLabel()
        self.summary.setObjectName("summary")
        self.summary.setWordWrap(True)
        self.reference_label = QLabel()
        self.reference_label.setObjectName("reference")
        self.reference_label.setStyleSheet("color: #616161;")
        self.reference_label.setWordWrap(True)
        self.verdict_list = VerdictList()
        self.verdict_list.setObjectName("verdicts")
        self.verdict_list.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # read, not a Tab stop
        self.print_button = QPushButton("Imp&rimir pendências…")
        self.print_button.setObjectName("print_pending")
        self.print_button.setToolTip("Comunicado ao requerente com o que falta e o artigo que o exige (A4)")
        self.print_button.clicked.connect(self.print_pending)
        layout = QVBoxLayout(panel)
        row = QHBoxLayout()
        service_label = QLabel("Ser&viço:")
        service_label.setBuddy(self.service_combo)
        row.addWidget(service_label)
        row.addWidget(self.service_combo, 1)
        layout.addLayout(row)
        layout.addWidget(self.meter)
        layout.addWidget(self.summary)
        layout.addWidget(self.reference_label)
        layout.addWidget(self.verdict_list, 1)
        layout.addWidget(self.print_button)
        return panel

    def _build_actions(self, on_new_person: Callable[[], object] | None,
                       on_find: Callable[[], object] | None) -> None:
        from motodesk.ui.actions import ActionCollection

        actions = ActionCollection(self)
        self.save_action: QAction = actions["save"]
        self.save_action.triggered.connect(self.save)
        self.addAction(self.save_action)
        if on_new_person is not None:
            actions["new_person"].triggered.connect(on_new_person)
            self.addAction(actions["new_person"])
        if on_find is not None:
            actions["find"].triggered.connect(on_find)
            self.addAction(actions["find"])
        escape = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        escape.activated.connect(self.close)

    def _apply_role(self) -> None:
        editable = self.editable
        for widget in [*self.person_inputs.values(),
                       *(w for row in self.documents.values() for w in row.inputs.values())]:
            if isinstance(widget, (QLineEdit, QPlainTextEdit)):
                widget.setReadOnly(not editable)
            else:
                widget.setEnabled(editable)
        for row in self.documents.values():
            row.attachments.set_editable(editable and self.person_id is not None)
        self.save_button.setVisible(editable)
        self.save_action.setEnabled(editable)
        # A permit is personal and non-transferable (Art. 6º, § 1º; Art. 7º): a tied CPF and name are read-only.
        tied = bool(self.locks)
        why = ("Não pode ser alterado enquanto houver " + ", ".join(self.locks) +
               " (Art. 6º, § 1º; Art. 7º).") if tied else ""
        for key in ("cpf", "full_name"):
            widget = self.person_inputs[key]
            assert isinstance(widget, QLineEdit)
            widget.setReadOnly(not editable or tied)
            widget.setToolTip(why)
        self.name_change_button.setVisible(tied and self.ctx.user.role is Role.SUPERVISOR)
        self.photo_button.setEnabled(editable and self.person_id is not None)
        self.open_application_button.setEnabled(editable and self.person_id is not None)
        self.payment_button.setEnabled(self.person_id is not None and self.ctx.user.role in fees.RECORDERS)
        if not editable:
            self.banner.setText(f"Somente leitura: o perfil {self.ctx.user.role.label} consulta os dossiês, "
                                "mas não os altera.")
            self.banner.show()
        elif self.person_id is None:
            self.banner.setText("Pessoa nova: salve os dados pessoais para anexar documentos, foto e requerimentos.")
            self.banner.show()
        else:
            self.banner.hide()
        self._update_application_button()

    # -- loading ----------------------------------------------------------------------------
    def load(self, person_id: int, then: Callable[[], None] | None = None) -> ServiceOp:
        """Read the stored dossier into the form (discarding what the form held), off the GUI
        thread with the form disabled meanwhile; ``then`` runs once it is shown."""
        ctx = self.ctx

        def read() -> _Loaded:
            return _Loaded(
                dossier=people.get_dossier(ctx, person_id),
                files=attachments.person_document_attachments(ctx, person_id),
                photo=photos.newest_photo(ctx, person_id),
                applications=applications.list_applications(ctx, person_id),
                permits=applications.list_permits(ctx, person_id),
                deputy_of=applications.deputy_of(ctx, person_id),
                locks=people.identity_locks(ctx, person_id),
                tender=tenders.tender_standing(ctx, person_id),
                name_changes=people.name_changes(ctx, person_id),
                settings=law_settings(ctx),
                pending=people.permit_pending(ctx, person_id))

        def shown(loaded: _Loaded) -> None:
            self._show_loaded(person_id, loaded)
            if then is not None:
                then()

        self._set_status("Carregando o dossiê…")
        return ServiceOp(self, read, busy="Carregando o dossiê…", title="Não foi possível abrir o dossiê") \
            .success(shown).run()

    def _settings_loaded(self, settings: LawSettings) -> None:
        self.settings = settings
        self._show_notes()
        self.recheck()

    def _show_notes(self) -> None:
        """The boxes' notes state the periods of the settings in force (not the defaults)."""
        for kind, row in self.documents.items():
            text = document_note(kind, self.settings)
            if row.note is not None and text is not None and row.note.text() != text:
                row.note.setText(text)

    def _show_loaded(self, person_id: int, loaded: _Loaded) -> None:
        self.settings = loaded.settings
        self._show_notes()
        self.photo = loaded.photo
        self.applications = loaded.applications
        self.permits = loaded.permits
        self.deputy_of = loaded.deputy_of
        self.locks = loaded.locks
        self.tender = loaded.tender
        self._show_name_history(loaded.name_changes)
        self._show_permit_pending(loaded.pending)
        self.person_id = person_id
        self._choose_service()
        self._fill(loaded.dossier)
        for kind, row in self.documents.items():
            row.attachments.set_items(loaded.files.get(kind, []))
        self.applications_model.set_rows(self.applications)
        self.permits_model.set_rows(self.permits)
        self._show_photo()
        self._refresh_header()
        self._apply_role()
        self.recheck()
        self._set_status("")
        self.changed_elsewhere.clear()
        self.loaded.emit(person_id)

    def _choose_service(self) -> None:
        """A reopened dossier is judged for the person's own service: the open application's, else
        the permit in force's, else the newest application's or permit's (the default otherwise)."""
        open_apps = [a for a in self.applications if a.is_open]
        in_force = [p for p in self.permits if p.state.in_force]
        for service in (*(a.service for a in open_apps), *(p.service for p in in_force),
                        *(a.service for a in self.applications), *(p.service for p in self.permits)):
            self.service_combo.blockSignals(True)
            _set_combo(self.service_combo, service)
            self.service_combo.blockSignals(False)
            self._update_application_button()
            return

    def _fill(self, dossier: Dossier) -> None:
        self._loading = True
        try:
            self._put_person(dossier.person)
            for kind, row in self.documents.items():
                self._put_document(row, dossier.document(kind))
        finally:
            self._loading = False
        self.person_version = dossier.version
        self.doc_versions = {kind: record.version for kind, record in dossier.documents.items()}
        self._set_base()
        for key in list(self.error_labels):
            self._mark(key, None)

    def _put_person(self, person: PersonInput) -> None:
        values = dataclasses.asdict(person)
        values["cpf"] = format_cpf(person.cpf) if person.cpf else ""
        for key, widget in self.person_inputs.items():
            self._put(widget, values.get(key))

    def _put_document(self, row: _DocumentRow, doc: DocumentInput) -> None:
        for name, widget in row.inputs.items():
            self._put(widget, getattr(doc, name))

    @staticmethod
    def _put(widget: QWidget, value: Any) -> None:
        if isinstance(widget, DateField):
            widget.set_value(value)
        elif isinstance(widget, QComboBox):
            _set_combo(widget, value)
        elif isinstance(widget, QPlainTextEdit):
            widget.setPlainText(value or "")
        elif isinstance(widget, QLineEdit):
            widget.setText("" if value is None else str(value))

    @staticmethod
    def _get(widget: QWidget) -> Any:
        if isinstance(widget, DateField):
            return widget.value()
        if isinstance(widget, FormattedLineEdit) and widget.kind in FORMATTED_NUMBERS.values():
            # Shown grouped like a CPF, kept as its digits (what was stored, imported and is searched)
            text = widget.text().strip()
            digits = "".join(ch for ch in text if ch.isdigit())
            return (digits if text and all(ch.isdigit() or ch in ". -" for ch in text) else text) or None
        if isinstance(widget, QComboBox):
            return _combo_value(widget)
        if isinstance(widget, (QLineEdit, QPlainTextEdit)):
            return _text(widget)
        return None

    # -- the form's values --------------------------------------------------------------------
    def person_input(self) -> PersonInput:
        values = {key: self._get(widget) for key, widget in self.person_inputs.items()}
        values["full_name"] = values.get("full_name") or ""
        values["cpf"] = values.get("cpf") or ""
        return PersonInput(**values)

    def document_inputs(self) -> dict[DocumentKind, DocumentInput]:
        result = {}
        for kind, row in self.documents.items():
            result[kind] = DocumentInput(kind, **{name: self._get(w) for name, w in row.inputs.items()})
        return result

    def values(self) -> dict[str, Any]:
        return flatten(self._comparable_person(self.person_input()), self.document_inputs())

    @staticmethod
    def _comparable_person(person: PersonInput) -> PersonInput:
        # The form shows the CPF formatted; compare digits with digits.
        digits = "".join(ch for ch in person.cpf if ch.isdigit())
        return dataclasses.replace(person, cpf=digits if len(digits) == 11 else person.cpf)

    def _set_base(self) -> None:
        self.base = self.values()
        self._update_title()

    def is_dirty(self) -> bool:
        return self.editable and self.values() != self.base

    # -- live checks ----------------------------------------------------------------------------
    def _changed(self, *_args: object) -> None:
        if self._loading:
            return
        self._update_title()
        self._recheck_timer.start()
        if self._tried_save:
            self._validate_all(show=True)
        else:
            self._clear_if_fixed(self.sender())

    def _key_of(self, widget: object) -> str | None:
        for key, candidate in self.person_inputs.items():
            if candidate is widget:
                return key
        for kind, row in self.documents.items():
            for name, candidate in row.inputs.items():
                if candidate is widget:
                    return f"{kind.value}.{name}"
        return None

    def _clear_if_fixed(self, widget: object) -> None:
        """A field that says it is wrong stops saying so the moment it is right (new messages wait
        until the field is left)."""
        key = self._key_of(widget) if widget is not None else None
        if key is None or not self.field_message(key):
            return
        if "." in key:
            kind_value, name = key.split(".", 1)
            doc = self.document_inputs()[DocumentKind(kind_value)]
            wrong = people.validate_document(doc)[1].get(name) or people.document_warnings(doc).get(name)
        else:
            wrong = people.validate_person(self.person_input())[1].get(key)
            if wrong and self._get(self.person_inputs[key]) is None:
                wrong = None  # emptied: an empty required field waits for the save
        if not wrong:
            self._mark(key, None)

    def _in_teardown(self) -> bool:
        """Qt may report a field's "editing finished" while the window is being destroyed."""
        return not all(shiboken6.isValid(w) for w in (self, *self.person_inputs.values()))

    def _validate_person_field(self, key: str) -> None:
        """On leaving a field: mark it if it is wrong (an empty required field waits for the save)."""
        if self._in_teardown():
            return
        _clean, errors = people.validate_person(self.person_input())
        message = errors.get(key)
        widget = self.person_inputs[key]
        if message and not self._tried_save and self._get(widget) is None:
            message = None
        self._mark(key, message)
        if key == "cpf" and not message and self.editable and self.person_input().cpf:
            self._check_cpf_owner()

    def _check_cpf_owner(self) -> ServiceOp:
        """Whether someone else has this CPF — asked off the GUI thread; the mark comes when it answers."""
        ctx, cpf, person_id = self.ctx, self.person_input().cpf, self.person_id

        def owner() -> tuple[int, str] | None:
            try:
                return people.cpf_owner(ctx, cpf, except_person_id=person_id)
            except MotodeskError:
                return None

        def show(found: tuple[int, str] | None) -> None:
            if found is not None and self.person_input().cpf == cpf:
                self._mark("cpf", f"Já existe uma pessoa cadastrada com este CPF: {found[1]}.")

        return ServiceOp(self, owner, lock=False, key="cpf_owner").success(show).run()

    def _validate_document_field(self, key: str) -> None:
        if self._in_teardown() or not all(shiboken6.isValid(w) for row in self.documents.values()
                                          for w in row.inputs.values()):
            return
        kind_value, name = key.split(".", 1)
        doc = self.document_inputs()[DocumentKind(kind_value)]
        _clean, errors = people.validate_document(doc)
        warnings = people.document_warnings(doc)
        self._mark(key, errors.get(name) or warnings.get(name))

    def _validate_all(self, *, show: bool) -> dict[str, str]:
        _clean, errors = people.validate_person(self.person_input())
        for kind, doc in self.document_inputs().items():
            _c, doc_errors = people.validate_document(doc)
            errors.update({f"{kind.value}.{k}": v for k, v in doc_errors.items()})
        if show:
            for key in self.error_labels:
                kind_value, _, name = key.partition(".")
                message = errors.get(key)
                if not message and name:
                    message = people.document_warnings(self.document_inputs()[DocumentKind(kind_value)]).get(name)
                self._mark(key, message)
        return errors

    def _mark(self, key: str, message: str | None) -> None:
        widget = self.person_inputs.get(key) or self._document_widget(key)
        if widget is not None:
            mark_field(widget, message)
        label = self.error_labels.get(key)
        if label is not None:
            label.setText(message or "")
            label.setVisible(bool(message))

    def _document_widget(self, key: str) -> QWidget | None:
        if "." not in key:
            return None
        kind_value, name = key.split(".", 1)
        row = self.documents.get(DocumentKind(kind_value))
        return row.inputs.get(name) if row else None

    def field_message(self, key: str) -> str:
        """The error shown under a field ('' if none): what the clerk reads."""
        label = self.error_labels.get(key)
        return label.text() if label is not None and label.isVisible() else ""

    def service(self) -> ServiceType:
        return ServiceType(self.service_combo.currentData())

    def _service_changed(self) -> None:
        self._update_application_button()
        self.recheck()

    def _reference(self) -> tuple[date, ApplicationInfo | None]:
        application = applications.open_application_for(self.applications, self.service())
        return (application.opened_on if application else local_today()), application

    def recheck(self) -> None:
        """Judge the form as it is now, for the chosen service."""
        on, application = self._reference()
        homologated = application.tender_homologation_date if application else None
        mototaxi = self.service() is ServiceType.MOTOTAXI
        if mototaxi and homologated is None and self.tender is not None and self.tender.candidate is not None:
            homologated = self.tender.candidate.homologated_on
        facts = people.applicant_facts(
            self.person_input(), self.document_inputs(),
            photo_date=self.photo.local_date if self.photo else None,
            tender_homologation_date=homologated)
        # A deputy meets the holder's requirements (Art. 14, § 2º): the same rules, speaking of "o preposto".
        as_deputy = bool(self.deputy_of) and application is None
        judge = check_deputy if as_deputy else check_applicant
        self.verdicts = judge(facts, self.service(), on, self.settings)
        if mototaxi and not as_deputy and self.tender is not None:
            # Whether a tender is under way and the applicant a called candidate (Art. 6º; Art. 10, I).
            self.verdicts.append(self.tender.verdict)
        self.verdicts = self._invalid_dates_named(self.verdicts)
        self.verdict_list.set_verdicts(self.verdicts)
        share = completeness(self.verdicts)
        met = sum(v.status is Status.MET for v in self.verdicts)
        missing = sum(v.status is Status.PENDING for v in self.verdicts)
        failed = sum(v.status is Status.NOT_MET for v in self.verdicts)
        self.meter.setValue(round(share * 100))
        # Complete means every requirement met: with one red, the bar says what is informed and what fails.
        self.meter.setFormat("Dossiê %p% completo" if not failed else
                             f"Dossiê %p% informado · {failed} requisito(s) não atendido(s)")
        self.summary.setText(f"{met} de {len(self.verdicts)} requisitos atendidos · {missing} pendentes · "
                             f"{failed} não atendidos")
        where = f"data do requerimento nº {application.number}" if application else "hoje"
        self.reference_label.setText(f"Verificado em {format_date(on)} ({where}). A vistoria do veículo e os "
                                     "equipamentos (Art. 5º, IV) são verificados na vistoria.")
        self.print_button.setEnabled(self.person_id is not None and met < len(self.verdicts))
        by_rule = {v.rule_id: v for v in self.verdicts}
        rules_of = people.rule_of_document()
        for kind, row in self.documents.items():
            self._mark_box(row, by_rule.get(rules_of.get(kind, "")))
        self._show_military_box(on)

    def military_required(self, on: date) -> bool:
        """Whether the law asks this person for the reservist certificate (Art. 5º, VI; Lei 4.375/1964,
        art. 5º): men until the year they turn 45. Unknown sex or birth date: asked (the rule says what
        is missing)."""
        person = self.person_input()
        sex = (person.sex or "").strip().upper()
        if sex == "F":
            return False
        birth = person.birth_date
        return not (sex == "M" and birth is not None and on.year > birth.year + MILITARY_OBLIGATION_LAST_AGE)

    def _show_military_box(self, on: date) -> None:
        """The reservist box only for those the law asks it of — or when something is already in it."""
        row = self.documents.get(DocumentKind.MILITARY)
        if row is None:
            return
        filled = any(self._get(widget) not in (None, "") for widget in row.inputs.values()) \
            or bool(getattr(row.attachments, "items", None))
        shown = self.military_required(on) or filled
        if row.box.isHidden() == shown:
            row.box.setVisible(shown)

    def _invalid_dates(self) -> dict[str, list[str]]:
        """By rule: the date fields holding something that is not a date, and why (what the field says)."""
        found: dict[str, list[str]] = {}
        birth = self.person_inputs.get("birth_date")
        if isinstance(birth, DateField) and birth.problem():
            found.setdefault("art5_i_age", []).append(f"{PERSON_LABELS['birth_date']}: {birth.problem()}")
        rules_of = people.rule_of_document()
        specs = document_fields()
        for kind, row in self.documents.items():
            labels = {spec.name: spec.label for spec in specs.get(kind, ())}
            for name, widget in row.inputs.items():
                problem = widget.problem() if isinstance(widget, DateField) else None
                if problem and kind in rules_of:
                    label = labels.get(name, name).rstrip(":")
                    found.setdefault(rules_of[kind], []).append(f"{kind.label}, {label}: {problem}")
        return found

    def _invalid_dates_named(self, verdicts: list[Verdict]) -> list[Verdict]:
        """A requirement whose date was typed wrong says "data inválida" and why — never that it is missing."""
        invalid = self._invalid_dates()
        if not invalid:
            return verdicts
        named = []
        for verdict in verdicts:
            problems = invalid.get(verdict.rule_id)
            if problems and verdict.status is not Status.MET:
                verdict = dataclasses.replace(verdict, status=Status.PENDING,
                                              message="data inválida — " + "; ".join(problems))
            named.append(verdict)
        return named

    def _mark_box(self, row: _DocumentRow, verdict: Verdict | None) -> None:
        """The document box's title mark and colour — touched only when they change (issue #20: a
        style sheet set on a group box repolishes every widget in it, 12 boxes per keystroke)."""
        kind = row.kind
        title = f"{kind.label} — {kind.article}" if kind.article else kind.label
        status = verdict.status.name.lower() if verdict is not None else ""
        shown = (status, verdict.message if verdict is not None else "")
        if row.shown == shown:
            return
        row.box.setTitle(f"{STATUS_SYMBOLS[verdict.status]}  {title}" if verdict is not None else title)
        row.box.setToolTip(shown[1])
        if row.shown is None or row.shown[0] != status:
            # One rule on the documents' container colours the title by this property.
            row.box.setProperty("verdict", status)
            row.box.style().unpolish(row.box)
            row.box.style().polish(row.box)
            row.box.update()
        row.shown = shown

    # -- header, title, photo ---------------------------------------------------------------
    def _refresh_header(self) -> None:
        person = self.person_input()
        name = person.full_name.strip() or "Pessoa nova"
        from html import escape

        self.title_label.setText(f"<h2>{escape(name)}</h2>")
        parts = []
        if person.cpf:
            parts.append(f"CPF {format_cpf(person.cpf)}")
        in_force = [p for p in self.permits if p.state.in_force]
        if in_force:
            p = in_force[0]
            parts.append(f"{p.service.label}: {p.number} ({p.state.label.lower()})")
        if self.deputy_of:
            parts.append("Preposto de " + ", ".join(self.deputy_of))
        open_apps = [a for a in self.applications if a.is_open]
        if open_apps:
            parts.append(f"Requerimento {open_apps[0].number} – {open_apps[0].service.label} "
                         f"({open_apps[0].state.label.lower()})")
        self.subtitle_label.setText(" · ".join(parts) or "Sem requerimento")
        self._update_title()

    def _update_title(self) -> None:
        name = (self.base.get("full_name") or "").strip() or "Pessoa nova"
        mark = " *" if self.is_dirty() else ""
        self.setWindowTitle(f"Dossiê – {name}{mark}")

    def _show_photo(self) -> None:
        if self.photo is None or not self.photo.jpeg:
            self.photo_label.setPixmap(QPixmap())
            self.photo_label.setText("Sem foto")
            self.photo_caption.setText("")
            return
        pixmap = QPixmap()
        pixmap.loadFromData(self.photo.jpeg)
        self.photo_label.setPixmap(pixmap.scaled(*PHOTO_SIZE, Qt.AspectRatioMode.KeepAspectRatio,
                                                 Qt.TransformationMode.SmoothTransformation))
        self.photo_caption.setText(f"Foto de {format_date(self.photo.local_date)}")

    def request_photo(self) -> bool:
        """Get a new 3x4 photo of the person and store it; True when one was stored.

        The photo dialog (``motodesk.ui.photo_dialog.take_photo``: camera or file, face-centred
        crop, quality checks) does the work; without it, :meth:`photo_from_file` imports a file.
        """
        if self.person_id is None or not self.editable:
            return False
        try:
            from motodesk.ui.photo_dialog import take_photo
        except ImportError:  # pragma: no cover - the dialog ships with the app
            return self.photo_from_file()
        stored = take_photo(self.ctx, self.person_id, self, person_name=str(self.base.get("full_name") or ""))
        if stored is None:
            return False
        ctx, person_id = self.ctx, self.person_id

        def shown(photo: photos.PhotoInfo | None) -> None:
            self.photo = photo
            self._show_photo()
            self.recheck()
            self._set_status("Foto guardada.")

        ServiceOp(self, lambda: photos.newest_photo(ctx, person_id), busy="Lendo a foto…").success(shown).run()
        return True

    def photo_from_file(self) -> bool:
        """Choose an image file, crop it to 3x4 (``imaging.upload.process_upload``) and store it off the
        GUI thread; True when the work was started."""
        if self.person_id is None or not self.editable:
            return False
        name, _ = QFileDialog.getOpenFileName(self, "Foto 3x4", "", PHOTO_FILTER)
        if not name:
            return False
        try:
            data = Path(name).read_bytes()
        except OSError as exc:
            show_error(self, MotodeskError(f"Não foi possível ler o arquivo: {exc.strerror or exc}."))
            return False
        ctx, person_id = self.ctx, self.person_id

        def work() -> tuple[photos.PhotoInfo, tuple[Any, ...]]:
            warnings: tuple[Any, ...] = ()
            try:
                from motodesk.imaging.upload import process_upload
            except ImportError:  # pragma: no cover - the imaging package ships with the app
                jpeg = data
            else:
                from motodesk.imaging.loading import PhotoError

                try:
                    processed = process_upload(data)
                except PhotoError as exc:
                    raise InvalidInputError(exc.message) from exc
                jpeg, warnings = processed.jpeg, processed.warnings
            return photos.store_photo(ctx, person_id, jpeg, "file"), warnings

        def stored(result: tuple[photos.PhotoInfo, tuple[Any, ...]]) -> None:
            self.photo, warnings = result
            self._show_photo()
            self.recheck()
            notes = "; ".join(str(getattr(w, "message", w)) for w in warnings)
            self._set_status("Foto guardada." + (f" Atenção: {notes}" if notes else ""))

        def refused(exc: BaseException) -> bool:
            if not isinstance(exc, MotodeskError):
                return False  # unexpected: ServiceOp shows the details
            show_error(self, exc, "Foto recusada" if isinstance(exc, InvalidInputError) else None)
            return True

        ServiceOp(self, work, busy="Guardando a foto…", change="person").success(stored).failure(refused).run()
        return True

    # -- attachments and applications -------------------------------------------------------
    def _attach(self, kind: DocumentKind, filename: str, data: bytes) -> attachments.AttachmentInfo | None:
        if self.person_id is None:
            raise MotodeskError("Salve o dossiê antes de anexar documentos.")
        result = attachments.attach_to_document(self.ctx, self.person_id, kind, filename, data)
        if self.doc_versions.get(kind) is None:
            self.doc_versions[kind] = result.document_version  # the row now exists, still empty
        return result.attachment

    def _update_application_button(self) -> None:
        service = self.service()
        self.open_application_button.setText(f"Abrir re&querimento de {service.label}…")

    def open_application(self) -> ServiceOp | None:
        """Open an application for the chosen service off the GUI thread; the started call, or None."""
        if self.person_id is None or not self.editable:
            return None
        service = self.service()
        if not confirm(
            self, "Abrir requerimento",
            f"Abrir um requerimento de {service.label} ({service.instrument}) para "
            f"{self.base.get('full_name')}?"):
            return None
        ctx, person_id = self.ctx, self.person_id

        def work() -> tuple[ApplicationInfo, list[ApplicationInfo]]:
            info = applications.open_application(ctx, person_id, service)
            return info, applications.list_applications(ctx, person_id)

        def opened(result: tuple[ApplicationInfo, list[ApplicationInfo]]) -> None:
            info, self.applications = result
            self.applications_model.set_rows(self.applications)
            self._refresh_header()
            self.recheck()
            self._set_status(f"Requerimento nº {info.number} aberto.")

        def refused(exc: BaseException) -> bool:
            if not isinstance(exc, MotodeskError):
                return False  # unexpected: ServiceOp shows the details
            show_error(self, exc)
            if fees.is_fee_refusal(exc):
                self._set_status(FEE_REFUSAL_HINT)
            return True

        return ServiceOp(self, work, busy="Abrindo o requerimento…", change="permit") \
            .success(opened).failure(refused).run()

    def record_payment(self) -> None:
        """The guia/DAM of the application, of the open application's issue or of the vehicle's inspection
        (the payable acts are looked up off the GUI thread, then the dialog opens)."""
        if self.person_id is None:
            return
        application = applications.open_application_for(self.applications, self.service())
        record_payment(self.ctx, self, application_id=application.id if application else None,
                       person_id=None if application else self.person_id,
                       on_recorded=lambda payment: self._set_status(recorded_message(payment)))

    def change_name(self) -> bool:
        """A supervisor changes the name of a tied person (marriage, court correction), with the document."""
        if self.person_id is None or self.ctx.user.role is not Role.SUPERVISOR:
            return False
        if self.is_dirty():
            QMessageBox.information(self, "Alterar nome", "Salve ou descarte as alterações do dossiê antes de "
                                    "alterar o nome.")
            return False
        dialog = NameChangeDialog(self, str(self.base.get("full_name") or ""))
        return self._submit_name_change(dialog)

    def _submit_name_change(self, dialog: NameChangeDialog) -> bool:
        """Ask (again, with the reason of a refusal) and change the name off the GUI thread; True when
        a change was sent."""
        while self._exec_name_change(dialog):
            new_name, reason, path = dialog.values()
            data = b""
            if path:
                try:
                    data = Path(path).read_bytes()
                except OSError as exc:
                    dialog.show_error(f"Não foi possível ler o arquivo: {exc.strerror or exc}.")
                    continue
            self._send_name_change(dialog, new_name, reason, Path(path).name if path else "", data)
            return True
        return False

    def _send_name_change(self, dialog: NameChangeDialog, new_name: str, reason: str, filename: str,
                          data: bytes) -> None:
        ctx, person_id, version = self.ctx, self.person_id, self.person_version
        assert person_id is not None

        def changed(_result: object) -> None:
            self.load(person_id, then=lambda: self._set_status(
                "Nome alterado; a alteração consta do histórico da permissão."))
            self.saved.emit(person_id)

        def refused(exc: BaseException) -> bool:
            if not isinstance(exc, MotodeskError):
                return False  # unexpected: ServiceOp shows the details
            fields = getattr(exc, "fields", None) or {}
            dialog.show_error(" ".join(fields.values()) if fields and not isinstance(exc, ConflictError)
                              else str(exc))
            self._submit_name_change(dialog)  # the dialog again, saying why
            return True

        ServiceOp(self, lambda: people.change_name(ctx, person_id, new_name, reason, filename, data,
                                                   expected_version=version),
                  busy="Alterando o nome…", change="person").success(changed).failure(refused).run()

    def _exec_name_change(self, dialog: NameChangeDialog) -> bool:
        return dialog.exec() == QDialog.DialogCode.Accepted

    def print_pending(self) -> bool:
        if self.person_id is None:
            return False
        if self.is_dirty():
            QMessageBox.information(self, "Imprimir pendências",
                                    "Salve o dossiê antes de imprimir: o comunicado lista as pendências "
                                    "dos dados gravados.")
            return False
        ctx, person_id, service = self.ctx, self.person_id, self.service()
        name = self.base.get("full_name") or "requerente"

        def show(pdf: bytes) -> None:
            from motodesk.ui import pdfpreview

            pdfpreview.preview_pdf(self, pdf, f"Pendências – {name}")

        ServiceOp(self, lambda: applications.pending_letter(ctx, person_id, service),
                  busy="Gerando o comunicado de pendências…").success(show).run()
        return True

    # -- saving ------------------------------------------------------------------------------
    def save(self) -> bool:
        """Save in the background; False when nothing was started (read-only, errors, busy)."""
        if not self.editable or self.saving:
            return False
        if self.changed_elsewhere.stale:  # the save would only fail: offer the stored version now
            self._set_status("Não salvo: outra estação alterou o dossiê.", error=True)
            self.resolve_conflict()
            return False
        self._tried_save = True
        errors = self._validate_all(show=True)
        if errors:
            first = next(iter(errors))
            self._focus_field(first)
            self._set_status(f"Corrija os campos marcados antes de salvar ({len(errors)}).", error=True)
            return False
        person = self.person_input()
        documents = self.document_inputs()
        changed = self._changed_documents(documents)
        person_id, person_version = self.person_id, self.person_version
        versions = {kind: self.doc_versions.get(kind) for kind in changed}
        self.saving = True
        self.save_button.setEnabled(False)
        self._set_status("Salvando…")

        ctx = self.ctx

        def work() -> tuple[DossierSaved, TenderStanding | None]:
            saved = people.save_dossier(ctx, person, [documents[k] for k in changed], person_id=person_id,
                                        person_version=person_version, document_versions=versions)
            try:  # a CPF just typed may be a tender candidate's (Art. 6º); a save never changes the ties
                standing = tenders.tender_standing(ctx, saved.person_id)
            except MotodeskError:
                standing = None
            return saved, standing

        ServiceOp(self, work, busy="Salvando o dossiê…", change="person") \
            .success(lambda done: self._saved(*done)).failure(self._save_failed).run()
        return True

    def _changed_documents(self, documents: dict[DocumentKind, DocumentInput]) -> list[DocumentKind]:
        changed = []
        for kind, specs in document_fields().items():
            keys = [f"{kind.value}.{f.name}" for f in specs]
            if any(getattr(documents[kind], k.split(".", 1)[1]) != self.base.get(k) for k in keys):
                changed.append(kind)
        return changed

    def _saved(self, result: DossierSaved, standing: TenderStanding | None = None) -> None:
        self.saving = False
        self.save_button.setEnabled(True)
        was_new = self.person_id is None
        self.person_id = result.person_id
        self.person_version = result.version
        for kind, (_id, version) in result.documents.items():
            self.doc_versions[kind] = version
        self._loading = True
        self.cpf_input.setText(format_cpf(self.person_input().cpf))
        self._loading = False
        self._set_base()
        self._refresh_header()
        self.tender = standing
        if was_new:
            self._apply_role()
            for row in self.documents.values():
                row.attachments.set_items([])
        self.recheck()
        self._set_status(f"Dossiê salvo às {_now_hm()}.")
        self.saved.emit(result.person_id)
        if self._close_after_save:
            self._close_after_save = False
            self.close()

    def _save_failed(self, exc: BaseException) -> bool:
        """What a failed save shows (the ServiceOp's failure hook: True, all dealt with here)."""
        self.saving = False
        self.save_button.setEnabled(True)
        self._close_after_save = False
        if isinstance(exc, ConflictError):
            self._set_status("Não salvo: outra estação alterou o dossiê.", error=True)
            self.resolve_conflict()
            return True
        if isinstance(exc, InvalidInputError):
            for key, message in exc.fields.items():
                self._mark(key, message)
            if exc.fields:
                self._focus_field(next(iter(exc.fields)))
        if isinstance(exc, (MotodeskError, DatabaseError)):
            self._set_status(f"Não salvo: {exc}", error=True)
            show_error(self, exc, "Não foi possível salvar o dossiê")
            return True
        details = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        log.error("saving a dossier failed\n%s", details)
        self._set_status("Não salvo: erro inesperado.", error=True)
        show_unexpected(self, details)
        return True

    @staticmethod
    def _who_saved(ctx: AppContext, person_id: int) -> str:
        """Who saved the dossier last (worker thread)."""
        try:
            change = people.last_change(ctx, person_id)
        except MotodeskError:
            return ""
        if change is None:
            return ""
        return f" (por {change.user_login}, em {format_datetime(change.at)})"

    def reload_stored(self) -> ServiceOp | None:
        """Recarregar on the changed-elsewhere notice: the stored version replaces the form; with
        unsaved edits, the conflict's choice (review both versions, reload, keep editing)."""
        if self.person_id is None:
            return None
        if self.is_dirty():
            return self.resolve_conflict()
        return self.load(self.person_id, then=lambda: self._set_status("Versão gravada recarregada."))

    def resolve_conflict(self) -> ServiceOp | None:
        """After a conflicting save: read who saved and the stored version, then ask what to do."""
        if self.person_id is None:
            return None
        ctx, person_id = self.ctx, self.person_id
        return ServiceOp(self, lambda: (self._who_saved(ctx, person_id), people.get_dossier(ctx, person_id)),
                         busy="Lendo a versão gravada…").success(self._conflict_read).run()

    def _conflict_read(self, got: tuple[str, Dossier]) -> None:
        self._ask_conflict(*got)

    def _ask_conflict(self, who: str, stored: Dossier) -> str:
        choice = ConflictDialog(self, who).ask()
        if choice == ConflictDialog.RELOAD and self.person_id is not None:
            self.load(self.person_id, then=lambda: self._set_status("Versão gravada recarregada."))
        elif choice == ConflictDialog.REVIEW:
            self._review(stored, who)
        return choice

    def review_versions(self, who: str = "") -> ServiceOp | None:
        """Both versions side by side; the clerk's choices go into the form, which is saved again."""
        if self.person_id is None:
            return None
        ctx, person_id = self.ctx, self.person_id
        return ServiceOp(self, lambda: people.get_dossier(ctx, person_id), busy="Lendo a versão gravada…") \
            .success(functools.partial(self._review_read, who)).run()

    def _review_read(self, who: str, stored: Dossier) -> None:
        self._review(stored, who)

    def _review(self, stored: Dossier, who: str) -> bool:
        stored_docs = {kind: stored.document(kind) for kind in document_fields()}
        stored_flat = flatten(self._comparable_person(stored.person), stored_docs)
        dialog = ReviewDialog(self, self.values(), stored_flat, who)
        if not self._exec_review(dialog):
            return False
        take = dialog.take_stored()
        self._loading = True
        try:
            for key in take:
                widget = self.person_inputs.get(key) or self._document_widget(key)
                if widget is not None:
                    value = stored_flat[key]
                    self._put(widget, format_cpf(value) if key == "cpf" and value else value)
        finally:
            self._loading = False
        # The stored versions become the base: saving now overwrites them with the chosen values.
        mine = self.values()
        self.person_version = stored.version
        self.doc_versions = {kind: record.version for kind, record in stored.documents.items()}
        self.base = stored_flat
        self.changed_elsewhere.clear()
        self._update_title()
        self.recheck()
        if mine == stored_flat:
            self._set_status("As versões agora são iguais: nada a salvar.")
            return True
        return self.save()

    def _exec_review(self, dialog: ReviewDialog) -> bool:
        return dialog.exec() == QDialog.DialogCode.Accepted

    # -- closing -----------------------------------------------------------------------------
    def confirm_close(self) -> bool:
        """True when the window may close: nothing unsaved, or the clerk chose to discard."""
        if self.saving:
            QMessageBox.information(self, "Dossiê", "Aguarde: o dossiê está sendo salvo.")
            return False
        if not self.is_dirty():
            return True
        name = (self.base.get("full_name") or self.person_input().full_name or "pessoa nova").strip()
        answer = ask_unsaved(self, f"O dossiê de {name} tem alterações que não foram salvas.")
        if answer is Answer.DISCARD:
            return True
        if answer is Answer.SAVE:
            self._close_after_save = self.save()
        return False

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        if not self.confirm_close():
            event.ignore()
            return
        self._recheck_timer.stop()
        self.closed.emit(self)
        event.accept()

    # -- small things ------------------------------------------------------------------------
    def _focus_field(self, key: str) -> None:
        widget = self.person_inputs.get(key) or self._document_widget(key)
        if widget is None:
            return
        on_first_tab = key in self.person_inputs and key != "declares_no_other_permit"
        self.tabs.setCurrentIndex(0 if on_first_tab else 1)
        widget.setFocus()

    def _set_status(self, text: str, *, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setStyleSheet("color: #c62828;" if error else "")


def _now_hm() -> str:

    return local_now().strftime("%H:%M")
