"""Every dialog and window of motodesk.ui, opened with what it needs: the table the accessibility and
font-size tests walk (importable from any test as ``a11y_dialogs``, like ``permit_factory``).

`dialog_classes()` finds the QDialog subclasses by import, so a test can fail when a new dialog has no
entry in `dialogs()`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from PySide6.QtGui import QImage
from PySide6.QtWidgets import QWidget

from motodesk.rules.common import Role, ServiceType
from motodesk.services import auth
from motodesk.services.context import AppContext

# A window of its own that is not a QDialog (the dossier opens in a window beside the main one).
OTHER_WINDOWS = ("motodesk.ui.dossier.DossierWindow",)
# Dialog classes no factory below builds, each with the reason; anything else found must be built.
NOT_BUILT = {
    "motodesk.ui.guard.GuardedDialog": "a base class: its subclasses are the dialogs built below",
}


def dialog_classes() -> set[str]:
    """Every QDialog subclass (QWizard, QMessageBox included) defined in motodesk.ui, by import, plus the
    other windows: a new dialog is found without anyone adding it to a list."""
    import importlib
    import inspect
    import pkgutil

    from PySide6.QtWidgets import QDialog

    import motodesk.ui

    found = set(OTHER_WINDOWS)
    for info in pkgutil.walk_packages(motodesk.ui.__path__, "motodesk.ui."):
        module = importlib.import_module(info.name)
        for _name, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__ and issubclass(cls, QDialog):
                found.add(f"{cls.__module__}.{cls.__qualname__}")
    return found


def qualname(widget: QWidget) -> str:
    return f"{type(widget).__module__}.{type(widget).__qualname__}"


def dialogs(ctx: AppContext) -> list[tuple[str, Callable[[], QWidget]]]:  # noqa: PLR0915 - one table
    """How to open each dialog with what it needs; every entry is a real dialog of the application."""
    import io
    from datetime import date, datetime

    from enforcement_factory import add_holder, an_hour_ago  # type: ignore[import-not-found]
    from permit_factory import make_dossier, photo_jpeg  # type: ignore[import-not-found]
    from PySide6.QtGui import QPageSize, QPainter, QPdfWriter

    from motodesk.rules.campaign import AppointmentState, CertificateKind, DriverRole, DueCertificate
    from motodesk.rules.common import PermitState
    from motodesk.rules.fees import FeeAct
    from motodesk.services import campaigns, deputies, enforcement, fees, inspections, permits, users
    from motodesk.services.enforcement import NoticeInput, OffenderKind, Signature
    from motodesk.ui import (
        accident_dialog,
        attachments,
        badge_print,
        badge_verify,
        card_stock,
        checklist,
        db_settings,
        decision_dialog,
        defence_dialog,
        deputy_dialog,
        import_dialog,
        infraction_picker,
        login,
        notice_form,
        own_password,
        payment_dialog,
        pdfpreview,
        person_picker,
        photo_dialog,
        vehicle_form,
        wizard,
    )
    from motodesk.ui import (
        dossier as dossier_ui,
    )
    from motodesk.ui.camera import FakeFrameSource
    from motodesk.ui.screens import admin as admin_ui
    from motodesk.ui.screens import campaign as campaign_ui
    from motodesk.ui.screens import deadlines, organisations, stands
    from motodesk.ui.screens import inspections as inspections_ui
    from motodesk.ui.screens import permits as permits_ui

    def as_role(role: Role, login_name: str) -> AppContext:
        auth.create_user(ctx, login_name, f"Usuária {login_name}", role, "senha-certa-9")
        return ctx.as_user(auth.authenticate(ctx, login_name, "senha-certa-9"))

    admin = as_role(Role.ADMIN, "adm")
    clerk = as_role(Role.CLERK, "bal")
    inspector = as_role(Role.INSPECTOR, "fis")
    supervisor = as_role(Role.SUPERVISOR, "sup")
    holder = add_holder(ctx)  # before the permit issued below: its number comes next
    dossier = make_dossier(ctx, ServiceType.MOTOTAXI)
    issued = permits.issue(supervisor, make_dossier(ctx, ServiceType.MOTOTAXI, state=PermitState.APPROVED,
                                                    name="Tomás Ribeiro Gonçalves", photo_seed=2).application_id)
    permit_row = next(r for r in permits.list_permits(clerk, search=issued.number) if r.id == issued.id)
    fees.set_fee(supervisor, FeeAct.ISSUE, "87,50", "Decreto nº 5.001/2026")

    def notice(signature: Signature | None = None) -> enforcement.NoticeView:
        created = enforcement.create_notice(inspector, NoticeInput(
            "30.2.VI", an_hour_ago(), "Centro", OffenderKind.HOLDER, person_id=holder.person_id, description="x",
            **({"signature": signature} if signature is not None else {})))
        return enforcement.get_notice(supervisor, created.id)

    def decision() -> QWidget:
        view = notice()
        return decision_dialog.DecisionDialog(supervisor, view, today=view.defence_due + timedelta(days=1))

    def checklist_dialog() -> checklist.ChecklistDialog:
        iid = inspections.start_inspection(inspector, vehicle_id=dossier.vehicle_id)
        return checklist.ChecklistDialog(inspector, iid, loaded=inspections.checklist_view(inspector, iid))

    def item_photos() -> QWidget:
        parent = checklist_dialog()
        item = next(iter(parent.rows.values())).item
        return checklist.ItemPhotosDialog(inspector, parent.view, item, parent)

    def pdf() -> bytes:
        buffer = io.BytesIO()
        from PySide6.QtCore import QBuffer, QByteArray, QIODevice
        data = QByteArray()
        device = QBuffer(data)
        device.open(QIODevice.OpenModeFlag.WriteOnly)
        writer = QPdfWriter(device)
        writer.setPageSize(QPageSize(QPageSize.PageSizeId.A4))
        painter = QPainter(writer)
        painter.drawText(100, 100, "Certidão de teste")
        painter.end()
        device.close()
        buffer.write(bytes(data.data()))
        return buffer.getvalue()

    def photo() -> QWidget:
        image = QImage()
        image.loadFromData(photo_jpeg(3))
        return photo_dialog.PhotoDialog(clerk, dossier.person_id, person_name="Eileen Marie Collins",
                                        source_factory=lambda parent: FakeFrameSource(image, parent, interval_ms=100))

    def deputy_info() -> deputies.DeputyInfo:
        from dataclasses import fields
        values = {f.name: None for f in fields(deputies.DeputyInfo)}
        values.update(link_id=1, version=1, permit_id=issued.id, permit_number=issued.number,
                      service=ServiceType.MOTOTAXI, permit_state=PermitState.ACTIVE, holder_name="Tomás Ribeiro",
                      deputy_person_id=dossier.person_id, deputy_name="Paulo Henrique Nunes",
                      deputy_cpf="52998224725", start_on=date.today())
        return deputies.DeputyInfo(**values)  # type: ignore[arg-type]

    appointment = campaigns.AppointmentRow(
        id=1, campaign_id=1, person_id=dossier.person_id, name="Ana Paula Rezende", cpf="52998224725", phone=None,
        role=DriverRole.HOLDER, permit_id=issued.id, permit_number=issued.number, service=ServiceType.MOTOTAXI,
        due=(DueCertificate(next(iter(CertificateKind)), date.today()),),
        slot=datetime.combine(date.today(), datetime.min.time()).replace(hour=9), state=AppointmentState.SCHEDULED,
        version=1)
    history = [campaigns.HistoryRow(datetime.now(), "Usuária bal", None, AppointmentState.SCHEDULED,
                                    None, appointment.slot, None)]
    inspection_row = inspections.InspectionRow(
        id=1, vehicle_id=dossier.vehicle_id, plate="ABC1D23", holder_name="Ana", service_type=ServiceType.MOTOTAXI,
        kind=next(iter(inspections.InspectionKind)), status=next(iter(inspections.InspectionStatus)),
        scheduled_for=date.today() + timedelta(days=3), performed_at=None, inspector_name=None, next_due=None)
    user_row = next(r for r in users.list_users(admin) if r.login == "bal")
    mine = {"full_name": "Ana Paula", "phone": "(34) 99999-0000"}
    stored = {"full_name": "Ana Paula Rezende", "phone": "(34) 99999-0000"}

    return [
        ("login", lambda: login.LoginDialog(ctx)),
        ("wizard", lambda: wizard.FirstRunWizard(ctx=AppContext(ctx.db), keyring_available=False)),
        ("db settings", lambda: db_settings.DatabaseSettingsDialog(admin, keyring_available=False)),
        ("backup", lambda: db_settings.BackupDialog(admin)),
        ("own password", lambda: own_password.OwnPasswordDialog(clerk)),
        ("dossier", lambda: dossier_ui.DossierWindow(clerk, dossier.person_id)),
        ("dossier conflict", lambda: dossier_ui.ConflictDialog(None, " por Usuária sup")),
        ("dossier review", lambda: dossier_ui.ReviewDialog(None, mine, stored, " por Usuária sup")),
        ("name change", lambda: dossier_ui.NameChangeDialog(None, "Ana Paula Rezende")),
        ("image viewer", lambda: attachments.ImageViewer(photo_jpeg(1), "rg.jpg")),
        ("photo", photo),
        ("payment", lambda: payment_dialog.PaymentDialog(clerk, fees.payable_acts(
            clerk, application_id=dossier.application_id))),
        ("vehicle form", lambda: vehicle_form.VehicleForm(clerk)),
        ("vehicle form (edit)", lambda: vehicle_form.VehicleForm(clerk, vehicle_id=dossier.vehicle_id)),
        ("accident", lambda: accident_dialog.AccidentDialog(clerk, dossier.vehicle_id, "ABC-1234")),
        ("checklist", checklist_dialog),
        ("item photos", item_photos),
        ("notice form", lambda: notice_form.NoticeForm(inspector)),
        ("notification", lambda: notice_form.NotificationDialog(supervisor, notice(Signature.REFUSED))),
        ("defence", lambda: defence_dialog.FiledDialog(supervisor, notice(), "defence")),
        ("appeal", lambda: defence_dialog.FiledDialog(supervisor, notice(), "appeal")),
        ("decision", decision),
        ("infraction picker", lambda: infraction_picker.InfractionPickerDialog(query="desacatar")),
        ("person picker", lambda: person_picker.people_picker(clerk, "Escolher a pessoa")),
        ("badge verify", lambda: badge_verify.BadgeVerifyDialog(inspector)),
        ("badge print", lambda: badge_print.BadgePrintDialog(clerk, [issued.id])),
        ("spoil card", lambda: badge_print.SpoilCardDialog(clerk, serial="000001")),
        ("card stock", lambda: card_stock.CardStockDialog(supervisor)),
        ("import", lambda: import_dialog.ImportDialog(admin)),
        ("pdf preview", lambda: pdfpreview.PdfPreviewDialog(pdf(), "Certidão de teste")),
        ("deputy", lambda: deputy_dialog.DeputyDialog(clerk, issued.id)),
        ("nominate deputy", lambda: deputy_dialog.NominateDialog(clerk, permit_row)),
        ("end deputy link", lambda: deputy_dialog.EndLinkDialog(deputy_info())),
        ("admin: new user", lambda: admin_ui.UserDialog(admin)),
        ("admin: edit user", lambda: admin_ui.UserDialog(admin, existing=user_row)),
        ("admin: password", lambda: admin_ui.PasswordDialog(admin, user_row)),
        ("campaign: row", lambda: campaign_ui.RowActionDialog(appointment)),
        ("campaign: reschedule", lambda: campaign_ui.RescheduleDialog(
            appointment, [appointment.slot + timedelta(days=1)])),
        ("campaign: history", lambda: campaign_ui.HistoryDialog(appointment, history)),
        ("renewal letters", lambda: deadlines.RenewalDialog(3)),
        ("schedule", lambda: inspections_ui.ScheduleDialog(clerk)),
        ("inspection campaign", lambda: inspections_ui.CampaignDialog(supervisor)),
        ("inspection reschedule", lambda: inspections_ui.RescheduleDialog(inspection_row)),
        ("organisation", lambda: organisations.OrganisationDialog(clerk)),
        ("organisation date", lambda: organisations.DateDialog(
            "Filiação", "Maria informa a filiação (Art. 9º, § 2º).", "Filiado &desde:")),
        ("permit step", lambda: permits_ui.StepDialog(
            "Prorrogar por 5 anos", "Prorrogar por mais 5 anos, uma única vez (Art. 6º).",
            decree="Decreto nº (se houver):", reason="Observação:", until="Até:", express_request=True)),
        ("conviction", lambda: permits_ui.ConvictionDialog(permit_row)),
        ("tender candidate", lambda: permits_ui.CandidateDialog()),
        ("tender", lambda: permits_ui.TenderDialog()),
        ("stand", lambda: stands.StandDialog(clerk)),
    ]
