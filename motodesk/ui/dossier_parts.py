"""The dossier's pieces that are not the window: the person's field labels, the document boxes' fields
(from ``rules.documents_declared``), the choices of its combo boxes, how a version is flattened and a
value shown for comparing two versions, access keys and the window's size on the screen, and the
records of one document box and of everything a dossier shows."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import date
from typing import Any

from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QWidget,
)

from motodesk.rules import documents_declared
from motodesk.rules.common import Role
from motodesk.rules.dossier import DocumentKind
from motodesk.rules.settings import LawSettings
from motodesk.services import attachments, people, photos
from motodesk.services.applications import ApplicationInfo, PermitInfo
from motodesk.services.people import DocumentInput, Dossier, PersonInput
from motodesk.services.tenders import TenderStanding
from motodesk.ui.attachments import AttachmentList
from motodesk.ui.formatting import format_date

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
    # Shallow: the fields are plain values (asdict copies each one deeply, a keystroke at a time).
    flat: dict[str, Any] = {f.name: getattr(person, f.name) for f in dataclasses.fields(person)}
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
        self.read: tuple[tuple[Any, ...], dict[str, Any]] | None = None  # (the fields as typed, their values read)


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
