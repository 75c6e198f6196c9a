"""Screens anyone can use (Lei 13.146/2015, eMAG; issue #29 item 2).

Every visible input of every window and dialog is announced by a screen reader with a name (read back
through QAccessible, as Orca or NVDA would), and inputs that explain themselves with a tool tip carry
it as their accessible description.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible, QImage
from PySide6.QtWidgets import QApplication, QLabel, QLineEdit, QWidget

from motodesk.rules.common import Role, ServiceType
from motodesk.services import auth
from motodesk.services.context import AppContext
from motodesk.ui.accessible import clean_label, is_input, name_inputs
from motodesk.ui.app import create_application

SQLITE_ONLY = pytest.mark.parametrize("backend", ["sqlite"])  # the screens do not depend on the database


@pytest.fixture(autouse=True)
def _app() -> None:
    create_application()


def unnamed_inputs(window: QWidget) -> list[str]:
    """Visible inputs of a window that a screen reader would announce without a name."""
    offenders = []
    for widget in [window, *window.findChildren(QWidget)]:
        if not is_input(widget) or not widget.isVisibleTo(window) or widget.window() is not window:
            continue
        interface = QAccessible.queryAccessibleInterface(widget)
        name = interface.text(QAccessible.Text.Name) if interface is not None else ""
        if not (name or "").strip():
            offenders.append(f"{type(window).__name__}: {type(widget).__name__} {widget.objectName()!r}")
    return offenders


def undescribed_inputs(window: QWidget) -> list[str]:
    """Visible inputs with a tool tip that is not their accessible description."""
    return [f"{type(window).__name__}: {type(w).__name__} {w.objectName()!r}"
            for w in window.findChildren(QWidget)
            if is_input(w) and w.isVisibleTo(window) and w.toolTip() and w.window() is window
            and not w.accessibleDescription() and w.accessibleName() != clean_label(w.toolTip())]


def _shown(qtbot, widget: QWidget) -> QWidget:  # noqa: ANN001
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def _check(qtbot, widget: QWidget) -> list[str]:  # noqa: ANN001
    qtbot.wait(10)
    return unnamed_inputs(widget) + undescribed_inputs(widget)


# --- the generic pass ------------------------------------------------------------------------------


def test_label_text_becomes_a_name_without_access_key_or_colon() -> None:
    assert clean_label("&Nome completo:") == "Nome completo"
    assert clean_label("CPF *:") == "CPF"
    assert clean_label("<b>Placa</b>:") == "Placa"
    assert clean_label("Prazo && multa:") == "Prazo & multa"


def test_a_dialog_names_its_inputs_from_buddies_form_rows_and_placeholders(qtbot) -> None:  # noqa: ANN001
    from PySide6.QtWidgets import QComboBox, QDialog, QFormLayout, QHBoxLayout, QPushButton, QVBoxLayout

    dialog = QDialog()
    column = QVBoxLayout(dialog)
    buddy_label = QLabel("&Placa:")
    plate = QLineEdit()
    plate.setToolTip("Placa Mercosul do veículo (Art. 8º)")
    buddy_label.setBuddy(plate)
    column.addWidget(buddy_label)
    column.addWidget(plate)
    form = QFormLayout()
    kind = QComboBox()
    row = QHBoxLayout()
    cpf = QLineEdit()
    row.addWidget(cpf)
    row.addWidget(QPushButton("&Buscar"))
    form.addRow("&Serviço:", kind)
    form.addRow("C&PF:", row)
    column.addLayout(form)
    search = QLineEdit()
    search.setPlaceholderText("Buscar por nome ou CPF")
    column.addWidget(search)
    preset = QLineEdit()
    preset.setAccessibleName("Dado pela tela")
    column.addWidget(preset)
    lonely = QLineEdit()
    column.addWidget(lonely)
    _shown(qtbot, dialog)  # the application's filter names them on show
    assert plate.accessibleName() == "Placa" and plate.accessibleDescription() == "Placa Mercosul do veículo (Art. 8º)"
    assert kind.accessibleName() == "Serviço" and cpf.accessibleName() == "CPF"
    assert search.accessibleName() == "Buscar por nome ou CPF"
    assert preset.accessibleName() == "Dado pela tela"  # never overwritten
    assert unnamed_inputs(dialog) == [f"QDialog: QLineEdit {lonely.objectName()!r}"]  # the check can fail
    lonely.setAccessibleName("Observação")
    assert unnamed_inputs(dialog) == []
    assert name_inputs(dialog) == 0  # a second pass changes nothing


# --- every window and dialog -----------------------------------------------------------------------


@SQLITE_ONLY
def test_every_page_of_the_main_window_names_its_inputs(qtbot, ctx: AppContext, wait_ops,  # noqa: ANN001
                                                        _never_ask_unsaved: None) -> None:
    """Every section, and on it every tab and stacked page (Administração's users, settings groups,
    backups and access log included)."""
    from motodesk.ui.app import build_main_window
    from motodesk.ui.mainwindow import SECTIONS

    auth.create_user(ctx, "acesso", "Ana Acessível", Role.ADMIN, "senha-certa-9")
    window = _shown(qtbot, build_main_window(ctx.as_user(auth.authenticate(ctx, "acesso", "senha-certa-9"))))
    offenders: list[str] = []
    for key, _label in SECTIONS:
        page = window.show_section(key)
        wait_ops()
        offenders += _walk(qtbot, key, window, wait_ops, within=page)
    assert offenders == [], "\n".join(offenders)


def accessible_description(widget: QWidget) -> str:
    interface = QAccessible.queryAccessibleInterface(widget)
    return (interface.text(QAccessible.Text.Description) if interface is not None else "") or ""


@SQLITE_ONLY
def test_every_law_setting_is_described_by_its_article(qtbot, ctx: AppContext, wait_ops) -> None:  # noqa: ANN001
    """Administração > Configurações: each input reads back its label as name and its article as
    description (what a screen reader says on request)."""
    from PySide6.QtWidgets import QAbstractButton

    from motodesk.ui.screens.admin import SettingsTab

    auth.create_user(ctx, "lei", "Lia Legal", Role.ADMIN, "senha-certa-9")
    tab = _shown(qtbot, SettingsTab(ctx.as_user(auth.authenticate(ctx, "lei", "senha-certa-9"))))
    tab.reload()
    wait_ops()
    qtbot.waitUntil(lambda: len(tab.editors) > 10)
    qtbot.wait(10)
    problems = []
    for name, editor in tab.editors.items():
        article = editor.field.article
        assert article
        inputs = [editor.input, *[w for w in editor.widget.findChildren(QAbstractButton) if w.text()]]
        for widget in inputs:
            if article not in accessible_description(widget):
                problems.append(f"{name}: {type(widget).__name__} described as {accessible_description(widget)!r}")
        if is_input(editor.input) and not editor.input.accessibleName():
            problems.append(f"{name}: no name")
        elif is_input(editor.input):
            assert editor.input.accessibleName() == clean_label(tab.findChild(QLabel, f"label_{name}").text())
    assert problems == [], "\n".join(problems)


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


def _qualname(widget: QWidget) -> str:
    return f"{type(widget).__module__}.{type(widget).__qualname__}"


def _dialogs(ctx: AppContext) -> list[tuple[str, Callable[[], QWidget]]]:  # noqa: PLR0915 - one table
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
        return checklist.ChecklistDialog(inspector, inspections.start_inspection(inspector,
                                                                                 vehicle_id=dossier.vehicle_id))

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


def _walk(qtbot, label: str, dialog: QWidget, wait_ops, within: QWidget | None = None) -> list[str]:  # noqa: ANN001
    """Unnamed inputs of a dialog on every page it has: wizard pages, tabs, stacked pages (those under
    ``within`` only, when given)."""
    from PySide6.QtWidgets import QStackedWidget, QTabWidget

    within = within or dialog

    offenders = [f"[{label}] {o}" for o in _check(qtbot, dialog)]
    pages = getattr(dialog, "pageIds", None)
    if pages is not None:  # a wizard: every page
        for _ in pages()[1:]:
            dialog.next()  # type: ignore[attr-defined]
            wait_ops()
            offenders += [f"[{label} p{dialog.currentId()}] {o}" for o in _check(qtbot, dialog)]  # type: ignore[attr-defined]
    for tabs in within.findChildren(QTabWidget):
        for index in range(1, tabs.count()):
            tabs.setCurrentIndex(index)
            wait_ops()
            offenders += [f"[{label} tab {tabs.tabText(index)!r}] {o}" for o in _check(qtbot, dialog)]
    for stack in within.findChildren(QStackedWidget):
        if stack.parentWidget() is not None and isinstance(stack.parentWidget(), QTabWidget):
            continue
        for index in range(stack.count()):
            if not stack.isVisibleTo(dialog) or index == stack.currentIndex():
                continue
            stack.setCurrentIndex(index)
            wait_ops()
            offenders += [f"[{label} page {index}] {o}" for o in _check(qtbot, dialog)]
    return list(dict.fromkeys(offenders))


@pytest.fixture
def _never_ask_unsaved(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dialog closed with something typed must not wait for "Salvar / Descartar"."""
    import sys

    from motodesk.ui import guard

    dialog_classes()  # every module imported, so that every copy of the name is replaced
    original = guard.ask_unsaved
    for name, module in list(sys.modules.items()):
        if name.startswith("motodesk.ui") and getattr(module, "ask_unsaved", None) is original:
            monkeypatch.setattr(module, "ask_unsaved", lambda *a, **k: guard.Answer.DISCARD)


@SQLITE_ONLY
def test_every_dialog_class_of_the_application_is_checked(qtbot, ctx: AppContext, wait_ops,  # noqa: ANN001
                                                          _never_ask_unsaved: None) -> None:
    """Found by introspection: a dialog that no entry opens (and that is not listed, with a reason, as
    not a dialog of its own) fails this test, so a new one cannot be forgotten."""
    built: set[str] = set()
    for _label, build in _dialogs(ctx):
        dialog = build()
        built.add(_qualname(dialog))
        qtbot.addWidget(dialog)
        dialog.close()
    found = dialog_classes()
    assert "motodesk.ui.screens.admin.UserDialog" in found and "motodesk.ui.photo_dialog.PhotoDialog" in found
    assert found - built - set(NOT_BUILT) == set(), "dialogs no accessibility check opens"
    assert set(NOT_BUILT) <= found, "a stale entry in NOT_BUILT"


@SQLITE_ONLY
def test_every_dialog_names_its_inputs(qtbot, ctx: AppContext, wait_ops, _never_ask_unsaved: None) -> None:  # noqa: ANN001
    offenders: list[str] = []
    opened = 0
    for label, build in _dialogs(ctx):
        dialog = _shown(qtbot, build())
        wait_ops()
        offenders += _walk(qtbot, label, dialog, wait_ops)
        opened += 1
        dialog.close()
    assert opened >= 50
    assert offenders == [], "\n".join(offenders)


def test_the_application_filter_is_installed_once() -> None:
    app = QApplication.instance()
    first = app._motodesk_accessibility  # type: ignore[attr-defined]
    create_application()
    assert app._motodesk_accessibility is first  # type: ignore[attr-defined]


# --- colour is never the only signal ---------------------------------------------------------------


def test_requirements_differ_by_symbol_and_word_not_only_colour(qtbot) -> None:  # noqa: ANN001
    from motodesk.rules.common import Status, Verdict
    from motodesk.ui.widgets import VerdictList

    panel = VerdictList()
    qtbot.addWidget(panel)
    panel.set_verdicts([Verdict("r", "Art. 3º, I", status, "Motocicleta até 300 cc") for status in Status])
    texts = [panel.item(i).text() for i in range(panel.count())]
    assert len(set(texts)) == len(texts) == 3  # the same sentence reads differently in each state
    assert texts[0].startswith("✔") and "Atendido" in texts[0]
    assert texts[1].startswith("✘") and "Não atendido" in texts[1]
    assert "Pendente" in texts[2]
    from PySide6.QtCore import Qt
    assert "Não atendido" in panel.item(1).data(Qt.ItemDataRole.AccessibleTextRole)


def _is_symbol(ch: str) -> bool:
    return not ch.isalnum() and not ch.isspace()


def colour_only_cells(model) -> list[str]:  # noqa: ANN001
    """Where a table says a state by colour alone: a coloured row with no cell of it starting with a
    symbol followed by words, or one column where two colours (or a colour and none) share a symbol."""
    from PySide6.QtCore import Qt

    problems = []
    symbols: dict[tuple[int, str], set[str]] = {}  # (column, colour) -> leading symbols
    for row in range(model.rowCount()):
        said = False
        coloured = False
        for column in range(model.columnCount()):
            index = model.index(row, column)
            colour = index.data(Qt.ItemDataRole.ForegroundRole) or index.data(Qt.ItemDataRole.BackgroundRole)
            text = str(index.data(Qt.ItemDataRole.DisplayRole) or "")
            if colour is not None and hasattr(colour, "color"):  # a QBrush
                colour = colour.color()
            name = colour.name() if colour is not None else ""
            lead = text[:1] if text and _is_symbol(text[0]) else ""
            symbols.setdefault((column, name), set()).add(lead)
            if colour is not None:
                coloured = True
                said = said or bool(lead and any(ch.isalpha() for ch in text))
        if coloured and not said:
            texts = [str(model.index(row, c).data() or "") for c in range(model.columnCount())]
            problems.append(f"row {row} coloured, no symbol and word: {texts}")
    for (column, name), leads in symbols.items():
        for (other_column, other), other_leads in symbols.items():
            if other_column == column and other != name and leads & other_leads - {""}:
                problems.append(f"column {column}: {name or 'no colour'} and {other or 'no colour'} share "
                                f"{sorted(leads & other_leads)}")
    return sorted(set(problems))


def test_the_colour_check_can_fail() -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QColor, QStandardItem, QStandardItemModel

    model = QStandardItemModel()
    red = QStandardItem("Vencido")
    red.setForeground(QColor("#b00020"))
    model.appendRow([red, QStandardItem("Maria")])
    model.appendRow([QStandardItem("Em dia"), QStandardItem("João")])
    assert colour_only_cells(model) != []
    red.setText("✖ Vencido")
    assert colour_only_cells(model) == []
    model.item(1, 0).setText("✖ Em dia")  # the same symbol without the colour says nothing
    assert colour_only_cells(model) != []
    assert model.item(0, 0).data(Qt.ItemDataRole.DisplayRole) == "✖ Vencido"


def test_deadlines_overdue_and_soon_carry_a_symbol_and_words() -> None:
    from datetime import date

    from motodesk.rules.deadlines import Deadline, DeadlineKind
    from motodesk.services.deadlines import DeadlineRow
    from motodesk.ui.screens.deadlines import DeadlinesModel

    model = DeadlinesModel()
    kind = next(iter(DeadlineKind))
    model.set_rows([DeadlineRow(Deadline(kind, "Art. 10", date.today(), "Vistoria anual"), days, 1, "Ana", None,
                                None, "MT-0001/2026") for days in (-3, -1, 0, 2, 7, 8, 30)])
    assert colour_only_cells(model) == []
    column = [c.key for c in model.columns].index("days_left")
    texts = [model.index(r, column).data() for r in range(model.rowCount())]
    assert texts[0] == "✖ Vencido há 3 dias" and texts[2] == "⚠ Vence hoje" and texts[4] == "⚠ Faltam 7 dias"
    assert texts[-1] == "Faltam 30 dias"  # no colour, no symbol


def test_import_rows_say_their_outcome_with_a_symbol_and_words() -> None:
    from motodesk.services.imports import ImportLine, Outcome
    from motodesk.ui.import_dialog import ImportLinesModel

    model = ImportLinesModel()
    model.set_rows([ImportLine(n, "Ana", None, outcome) for n, outcome in enumerate(Outcome, 1)])
    assert colour_only_cells(model) == []
    column = [c.key for c in model.columns].index("status")
    assert len({model.index(r, column).data()[0] for r in range(model.rowCount())}) == len(Outcome)


@SQLITE_ONLY
def test_notices_overdue_and_repeat_offences_carry_a_symbol_and_words(qtbot, ctx: AppContext,  # noqa: ANN001
                                                                       wait_ops) -> None:
    from dataclasses import replace

    from enforcement_factory import add_holder, an_hour_ago  # type: ignore[import-not-found]

    from motodesk.services import enforcement
    from motodesk.services.enforcement import NoticeInput, OffenderKind
    from motodesk.ui.screens.infractions import HISTORY_COLUMNS, HistoryModel, InfractionsPage

    auth.create_user(ctx, "fiscal", "Fábio Fiscal", Role.INSPECTOR, "senha-certa-9")
    auth.create_user(ctx, "chefe", "Sara Chefe", Role.SUPERVISOR, "senha-certa-9")
    inspector = ctx.as_user(auth.authenticate(ctx, "fiscal", "senha-certa-9"))
    supervisor = ctx.as_user(auth.authenticate(ctx, "chefe", "senha-certa-9"))
    holder = add_holder(ctx)
    for text in ("primeira", "segunda"):
        enforcement.create_notice(inspector, NoticeInput("30.2.VI", an_hour_ago(), "Centro", OffenderKind.HOLDER,
                                                         person_id=holder.person_id, description=text))
    page = _shown(qtbot, InfractionsPage(supervisor))
    wait_ops()
    model = page.panel.model
    assert model.rowCount() == 2
    due = next(r.next_due for r in model.rows() if r.next_due)
    assert colour_only_cells(model) == []  # nothing overdue yet
    page.today = lambda: due + timedelta(days=1)
    page.reload()
    wait_ops()
    column = [c.key for c in model.columns].index("defence_due")
    assert model.index(0, column).data(Qt.ItemDataRole.ForegroundRole) is not None  # now red …
    assert model.index(0, column).data().startswith("✖") and "vencido" in model.index(0, column).data()  # … and said
    assert colour_only_cells(model) == []
    history = HistoryModel(HISTORY_COLUMNS)
    history.set_rows([replace(model.rows()[0], repeat=True), replace(model.rows()[1], repeat=False)])
    assert colour_only_cells(history) == []


# --- text scales with the system font size ---------------------------------------------------------


def clipped_buttons(window: QWidget) -> list[str]:
    """Visible buttons narrower than their own text (a clipped label)."""
    from PySide6.QtWidgets import QPushButton

    clipped = []
    for button in window.findChildren(QPushButton):
        if not button.isVisibleTo(window) or not button.text():
            continue
        text = button.text().replace("&&", "\0").replace("&", "").replace("\0", "&")
        needed = button.fontMetrics().horizontalAdvance(text)
        if button.width() < needed or button.sizeHint().width() < needed:
            clipped.append(f"{type(window).__name__}: {text!r} {button.width()}px < {needed}px")
    return clipped


@SQLITE_ONLY
def test_a_larger_system_font_still_fits_the_counter_screen(qtbot, ctx: AppContext, wait_ops) -> None:  # noqa: ANN001
    from permit_factory import make_dossier  # type: ignore[import-not-found]
    from tests_helpers import fits_screen  # type: ignore[import-not-found]

    from motodesk.ui.app import build_main_window
    from motodesk.ui.dossier import DossierWindow
    from motodesk.ui.mainwindow import SECTIONS
    from motodesk.ui.vehicle_form import VehicleForm

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    original = app.font()
    larger = app.font()
    larger.setPointSizeF(original.pointSizeF() * 1.25)
    app.setFont(larger)
    try:
        auth.create_user(ctx, "grande", "Letra Grande", Role.ADMIN, "senha-certa-9")
        user_ctx = ctx.as_user(auth.authenticate(ctx, "grande", "senha-certa-9"))
        dossier = make_dossier(ctx, ServiceType.MOTOTAXI)
        problems: list[str] = []
        window = _shown(qtbot, build_main_window(user_ctx))
        assert window.font().pointSizeF() == larger.pointSizeF()
        for key, _label in SECTIONS:
            window.show_section(key)
            wait_ops()
            qtbot.wait(10)
            problems += [f"[{key}] {p}" for p in fits_screen(window) + clipped_buttons(window)]
        for build in (lambda: DossierWindow(user_ctx, dossier.person_id), lambda: VehicleForm(user_ctx)):
            dialog = _shown(qtbot, build())
            wait_ops()
            qtbot.wait(10)
            problems += fits_screen(dialog) + clipped_buttons(dialog)
            dialog.close()
    finally:
        app.setFont(original)
    assert problems == [], "\n".join(problems)
