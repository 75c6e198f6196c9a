"""Every dialog of the application, built for the keyboard tests (tests/ui/test_keyboard_walk.py and
test_access_keys.py), and the dialog classes found by introspection."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable
from datetime import timedelta

from PySide6.QtWidgets import QApplication, QDialog, QMessageBox, QWidget

import motodesk.ui
from motodesk.rules.common import Role, ServiceType
from motodesk.services import auth
from motodesk.services.context import AppContext


def shown(qtbot, widget: QWidget) -> QWidget:  # noqa: ANN001
    """``widget`` shown, exposed and the active window, its first focus placed (the keyboard tests)."""
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    widget.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is widget, timeout=3000)
    qtbot.wait(20)  # the first focus is placed once the window is shown
    return widget


def _user(ctx: AppContext, role: Role, login: str) -> AppContext:
    auth.create_user(ctx, login, f"Usuária {login}", role, "senha-certa-9")
    return ctx.as_user(auth.authenticate(ctx, login, "senha-certa-9"))


def describe_widget(widget: QWidget | None) -> str:
    """A widget as a failing keyboard test names it: its class, object name and the start of its text."""
    if widget is None:
        return "nada"
    text = widget.text() if hasattr(widget, "text") and callable(widget.text) else ""
    return f"{type(widget).__name__} {widget.objectName()!r} {str(text)[:30]!r}"


#: The counter's screen (issue #18): every window is tested at this size.
COUNTER_SCREEN = (1366, 768)


def counter_window(qtbot, ctx: AppContext, role: Role, login: str) -> QWidget:  # noqa: ANN001
    """The main window of a new user of ``role``, at the counter's screen size, shown and active,
    over a register with one dossier (so that its lists have a row)."""
    from permit_factory import make_dossier  # type: ignore[import-not-found]

    from motodesk.ui.app import build_main_window

    make_dossier(ctx, ServiceType.MOTOTAXI)
    window = build_main_window(_user(ctx, role, login))
    window.resize(*COUNTER_SCREEN)
    return shown(qtbot, window)



#: Dialog classes this test does not build, and why (each is walked by its own screen's tests or is
#: made of pieces walked here).
NOT_BUILT = {
    "GuardedDialog": "the base class of the dialogs below",
    "PickerDialog": "generic: built as the person picker by the screens' tests",
    "ConflictDialog": "a QMessageBox: Qt's buttons and keys",
    "ReviewDialog": "shown only on an edit conflict (test_dossier)",
    "ItemPhotosDialog": "needs a stored inspection photo list (test_inspections)",
    "BadgePrintDialog": "needs printable permits (test_badge_print)",
    "NominateDialog": "needs a permit row (test_deputies)",
    "EndLinkDialog": "needs a deputy (test_deputies)",
    "DeputyDialog": "needs a permit with a deputy (test_deputies)",
    "PaymentDialog": "needs payables (test_payment_dialog)",
    "FiledDialog": "needs a notice at the defence stage (test_infractions)",
    "NotificationDialog": "needs a notice refused signature (test_infractions)",
    "ImageViewer": "a picture and a Fechar button",
    "PhotoDialog": "needs a camera source (test_photo_dialog)",
    "RowActionDialog": "needs a campaign appointment (test_campaign_page)",
    "RescheduleDialog": "needs an appointment or inspection row (test_campaign_page, test_inspections)",
    "HistoryDialog": "needs an appointment history (test_campaign_page)",
    "PasswordDialog": "needs a user row (test_admin)",
    "StepDialog": "needs a permit step (test_permits_page)",
    "ConvictionDialog": "needs a permit row (test_permits_page)",
    "BackupDialog": "writes a backup (test_wizard_backup)",
}


#: Where a dialog that is not its first empty field opens, and why.
EXPECTED_FOCUS = {
    # a stored vehicle is edited from its first field; its first empty one is the notes at the bottom
    "VehicleForm (edição)": "service_type",
    # a notice is written in the order of the paper form: the infraction first, then when, where and
    # who (the offender search comes after the description in its Tab order; bench_counter's walk)
    "NoticeForm": "infraction_search",
}


def discovered_dialogs() -> set[str]:
    """Every QDialog subclass defined in motodesk.ui (its screens included)."""
    names: set[str] = set()
    for info in pkgutil.walk_packages(motodesk.ui.__path__, "motodesk.ui."):
        module = importlib.import_module(info.name)
        for name, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, QDialog) and cls.__module__ == module.__name__ and not issubclass(cls, QMessageBox):
                names.add(name)
    return names


def _dialogs(ctx: AppContext) -> list[tuple[str, Callable[[], QWidget]]]:
    from enforcement_factory import add_holder, an_hour_ago  # type: ignore[import-not-found]
    from permit_factory import make_dossier  # type: ignore[import-not-found]

    from motodesk.printing.documents import (
        InspectionItem,
        InspectionReportData,
        PersonInfo,
        VehicleInfo,
        render_inspection_report,
    )
    from motodesk.services import enforcement, inspections
    from motodesk.services.enforcement import NoticeInput, OffenderKind
    from motodesk.ui.accident_dialog import AccidentDialog
    from motodesk.ui.badge_print import SpoilCardDialog
    from motodesk.ui.badge_verify import BadgeVerifyDialog
    from motodesk.ui.card_stock import CardStockDialog
    from motodesk.ui.checklist import ChecklistDialog
    from motodesk.ui.db_settings import DatabaseSettingsDialog
    from motodesk.ui.decision_dialog import DecisionDialog
    from motodesk.ui.dossier import DossierWindow, NameChangeDialog
    from motodesk.ui.import_dialog import ImportDialog
    from motodesk.ui.infraction_picker import InfractionPickerDialog
    from motodesk.ui.login import LoginDialog
    from motodesk.ui.notice_form import NoticeForm
    from motodesk.ui.own_password import OwnPasswordDialog
    from motodesk.ui.pdfpreview import PdfPreviewDialog
    from motodesk.ui.screens.admin import UserDialog
    from motodesk.ui.screens.deadlines import RenewalDialog
    from motodesk.ui.screens.inspections import CampaignDialog, ScheduleDialog
    from motodesk.ui.screens.organisations import DateDialog, OrganisationDialog
    from motodesk.ui.screens.permits import CandidateDialog, TenderDialog
    from motodesk.ui.screens.stands import StandDialog
    from motodesk.ui.vehicle_form import VehicleForm
    from motodesk.ui.wizard import FirstRunWizard

    admin = _user(ctx, Role.ADMIN, "adm")
    clerk = _user(ctx, Role.CLERK, "bal")
    inspector = _user(ctx, Role.INSPECTOR, "fis")
    supervisor = _user(ctx, Role.SUPERVISOR, "sup")
    dossier = make_dossier(ctx, ServiceType.MOTOTAXI)

    def decision() -> QWidget:
        holder = add_holder(ctx)
        created = enforcement.create_notice(inspector, NoticeInput(
            "30.2.VI", an_hour_ago(), "Centro", OffenderKind.HOLDER, person_id=holder.person_id, description="x"))
        view = enforcement.get_notice(supervisor, created.id)
        return DecisionDialog(supervisor, view, today=created.defence_due + timedelta(days=1))

    def preview() -> QWidget:
        from datetime import datetime

        pdf = render_inspection_report(InspectionReportData(
            report_number="000001/2026", service=ServiceType.MOTOTAXI,
            holder=PersonInfo("José Carlos Ferreira", "123.456.789-09"), vehicle=VehicleInfo("ABC-1234"),
            items=[InspectionItem("Art. 1º", "Item", "ok")], approved=True, inspector_name="Carlos",
            inspected_at=datetime(2026, 3, 2, 9, 30)), generated_at=datetime(2026, 3, 2, 9, 31))
        return PdfPreviewDialog(pdf, "Laudo de Vistoria 000001/2026")

    return [
        ("LoginDialog", lambda: LoginDialog(ctx)),
        ("FirstRunWizard", lambda: FirstRunWizard(ctx=AppContext(ctx.db), keyring_available=False)),
        ("DatabaseSettingsDialog", lambda: DatabaseSettingsDialog(admin, keyring_available=False)),
        ("DossierWindow", lambda: DossierWindow(clerk, dossier.person_id)),
        ("DossierWindow (nova pessoa)", lambda: DossierWindow(clerk, None)),
        ("NameChangeDialog", lambda: NameChangeDialog(None, "João da Silva")),
        ("VehicleForm", lambda: VehicleForm(clerk)),
        ("VehicleForm (edição)", lambda: VehicleForm(clerk, vehicle_id=dossier.vehicle_id)),
        ("ChecklistDialog", lambda: ChecklistDialog(inspector, iid := inspections.start_inspection(
            inspector, vehicle_id=dossier.vehicle_id), loaded=inspections.checklist_view(inspector, iid))),
        ("NoticeForm", lambda: NoticeForm(inspector)),
        ("DecisionDialog", decision),
        ("InfractionPickerDialog", lambda: InfractionPickerDialog(query="desacatar")),
        ("BadgeVerifyDialog", lambda: BadgeVerifyDialog(inspector)),
        ("ImportDialog", lambda: ImportDialog(admin)),
        ("CardStockDialog", lambda: CardStockDialog(admin)),
        ("SpoilCardDialog", lambda: SpoilCardDialog(admin)),
        ("OwnPasswordDialog", lambda: OwnPasswordDialog(clerk)),
        ("AccidentDialog", lambda: AccidentDialog(inspector, dossier.vehicle_id, "ABC1D23")),
        ("PdfPreviewDialog", preview),
        ("UserDialog", lambda: UserDialog(admin)),
        ("RenewalDialog", lambda: RenewalDialog(3)),
        ("ScheduleDialog", lambda: ScheduleDialog(supervisor)),
        ("CampaignDialog", lambda: CampaignDialog(supervisor)),
        ("OrganisationDialog", lambda: OrganisationDialog(admin)),
        ("DateDialog", lambda: DateDialog("Encerrar", "Encerrar a organização", "&Data:")),
        ("CandidateDialog", lambda: CandidateDialog()),
        ("TenderDialog", lambda: TenderDialog()),
        ("StandDialog", lambda: StandDialog(admin)),
    ]


