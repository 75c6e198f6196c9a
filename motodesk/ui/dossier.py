"""The dossier window of a person (applicant, holder or deputy).

Personal data, the documents of Art. 5 as a checklist with their scans, the 3x4 photo, and the
person's applications and permits; beside them, the law's verdict on every requirement for the
chosen service, recomputed as the clerk types, with "Imprimir pendências".

Saving writes the person and the changed documents in one transaction, off the GUI thread. If
another workstation saved the same dossier first, :class:`ConflictDialog` offers to reload or to
review both versions field by field; what the clerk typed stays in the form until they choose.

This module holds the window's life (open, load, save, conflicts, close); the rest of
:class:`DossierWindow` comes from its mixins, one module each: :mod:`~motodesk.ui.dossier_form`
(building it), :mod:`~motodesk.ui.dossier_values` (the form's values, validation and verdicts) and
:mod:`~motodesk.ui.dossier_actions` (photo, scans, application, payment, name change, pending list);
its dialogs are in :mod:`~motodesk.ui.dossier_dialogs`, its declarations in :mod:`~motodesk.ui.dossier_parts`.
"""

from __future__ import annotations

import functools
import logging
import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QWidget,
)

from motodesk.errors import DatabaseError
from motodesk.rules.common import Verdict
from motodesk.rules.dossier import DocumentKind
from motodesk.rules.settings import LawSettings
from motodesk.rules.validators import format_cpf
from motodesk.services import applications, attachments, people, photos, tenders
from motodesk.services.applications import ApplicationInfo, PermitInfo
from motodesk.services.clock import local_now
from motodesk.services.context import AppContext
from motodesk.services.errors import ConflictError, InvalidInputError, MotodeskError
from motodesk.services.people import DocumentInput, Dossier, DossierSaved
from motodesk.services.settings import law_settings
from motodesk.services.tenders import TenderStanding
from motodesk.ui import live
from motodesk.ui.attachments import AttachmentList
from motodesk.ui.dossier_actions import DossierActionsMixin
from motodesk.ui.dossier_dialogs import ConflictDialog, NameChangeDialog, ReviewDialog
from motodesk.ui.dossier_form import DossierFormMixin
from motodesk.ui.dossier_parts import (
    EDITOR_ROLES,
    _DocumentRow,
    _Loaded,
    _set_combo,
    document_fields,
    document_note,
    fit_to_screen,
    flatten,
    with_access_key,
)
from motodesk.ui.dossier_values import DossierValuesMixin
from motodesk.ui.errors import show_error, show_unexpected
from motodesk.ui.formatting import format_datetime
from motodesk.ui.guard import Answer, ask_unsaved
from motodesk.ui.ops import ServiceOp, load_into
from motodesk.ui.widgets import one_shot_timer

log = logging.getLogger(__name__)


class DossierWindow(DossierFormMixin, DossierValuesMixin, DossierActionsMixin, QWidget):
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
        self._recheck_timer = one_shot_timer(self, 120, self.recheck)
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


#: What callers import from here: the window, its dialogs and the helpers other forms share (tests
#: also replace ``ask_unsaved`` and ``QFileDialog``'s methods through this module).
__all__ = ["AttachmentList", "ConflictDialog", "DossierWindow", "NameChangeDialog", "QFileDialog", "ReviewDialog",
           "ask_unsaved", "fit_to_screen", "with_access_key"]
