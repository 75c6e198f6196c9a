"""The dossier's actions beside saving: the 3x4 photo (the photo dialog or a file), a document's scan,
the application of the chosen service, a fee's payment, a change of name, and the printed list of what
is pending. A mixin of :class:`~motodesk.ui.dossier.DossierWindow`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QMessageBox,
)

from motodesk.rules.common import Role
from motodesk.rules.dossier import DocumentKind
from motodesk.services import applications, attachments, fees, people, photos
from motodesk.services.applications import ApplicationInfo
from motodesk.services.errors import ConflictError, InvalidInputError, MotodeskError
from motodesk.ui.dossier_dialogs import NameChangeDialog
from motodesk.ui.dossier_parts import PHOTO_FILTER, PHOTO_SIZE
from motodesk.ui.errors import show_error
from motodesk.ui.formatting import format_date
from motodesk.ui.guard import confirm
from motodesk.ui.ops import ServiceOp
from motodesk.ui.payment_dialog import FEE_REFUSAL_HINT, record_payment, recorded_message

if TYPE_CHECKING:  # the methods run on a DossierWindow: what they use of it is typed there
    _Window = Any
else:
    _Window = object


class DossierActionsMixin(_Window):
    """Photo, scans, application, payment, name change and the pending list."""

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
