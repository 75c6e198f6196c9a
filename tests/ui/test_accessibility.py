"""Screens anyone can use (Lei 13.146/2015, eMAG; issue #29 item 2).

Every visible input of every window and dialog is announced by a screen reader with a name (read back
through QAccessible, as Orca or NVDA would), and inputs that explain themselves with a tool tip carry
it as their accessible description.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import QApplication, QLabel, QLineEdit, QWidget
from tests_helpers import drain_events  # type: ignore[import-not-found]

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
    drain_events()
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
def test_every_page_of_the_main_window_names_its_inputs(qtbot, ctx: AppContext, wait_ops) -> None:  # noqa: ANN001
    from motodesk.ui.app import build_main_window
    from motodesk.ui.mainwindow import SECTIONS

    auth.create_user(ctx, "acesso", "Ana Acessível", Role.ADMIN, "senha-certa-9")
    window = _shown(qtbot, build_main_window(ctx.as_user(auth.authenticate(ctx, "acesso", "senha-certa-9"))))
    offenders: list[str] = []
    for key, _label in SECTIONS:
        window.show_section(key)
        wait_ops()
        offenders += [f"[{key}] {o}" for o in _check(qtbot, window)]
    assert offenders == [], "\n".join(offenders)


def _dialogs(ctx: AppContext) -> list[tuple[str, Callable[[], QWidget]]]:
    from enforcement_factory import add_holder, an_hour_ago  # type: ignore[import-not-found]
    from permit_factory import make_dossier  # type: ignore[import-not-found]

    from motodesk.services import enforcement, inspections
    from motodesk.services.enforcement import NoticeInput, OffenderKind
    from motodesk.ui.badge_verify import BadgeVerifyDialog
    from motodesk.ui.checklist import ChecklistDialog
    from motodesk.ui.db_settings import DatabaseSettingsDialog
    from motodesk.ui.decision_dialog import DecisionDialog
    from motodesk.ui.dossier import DossierWindow
    from motodesk.ui.import_dialog import ImportDialog
    from motodesk.ui.infraction_picker import InfractionPickerDialog
    from motodesk.ui.login import LoginDialog
    from motodesk.ui.notice_form import NoticeForm
    from motodesk.ui.vehicle_form import VehicleForm
    from motodesk.ui.wizard import FirstRunWizard

    def as_role(role: Role, login: str) -> AppContext:
        auth.create_user(ctx, login, f"Usuária {login}", role, "senha-certa-9")
        return ctx.as_user(auth.authenticate(ctx, login, "senha-certa-9"))

    admin = as_role(Role.ADMIN, "adm")
    clerk = as_role(Role.CLERK, "bal")
    inspector = as_role(Role.INSPECTOR, "fis")
    supervisor = as_role(Role.SUPERVISOR, "sup")
    dossier = make_dossier(ctx, ServiceType.MOTOTAXI)

    def decision() -> QWidget:
        holder = add_holder(ctx)
        created = enforcement.create_notice(inspector, NoticeInput(
            "30.2.VI", an_hour_ago(), "Centro", OffenderKind.HOLDER, person_id=holder.person_id, description="x"))
        view = enforcement.get_notice(supervisor, created.id)
        return DecisionDialog(supervisor, view, today=created.defence_due + timedelta(days=1))

    return [
        ("login", lambda: LoginDialog(ctx)),
        ("wizard", lambda: FirstRunWizard(ctx=AppContext(ctx.db), keyring_available=False)),
        ("db settings", lambda: DatabaseSettingsDialog(admin, keyring_available=False)),
        ("dossier", lambda: DossierWindow(clerk, dossier.person_id)),
        ("vehicle form", lambda: VehicleForm(clerk)),
        ("vehicle form (edit)", lambda: VehicleForm(clerk, vehicle_id=dossier.vehicle_id)),
        ("checklist", lambda: ChecklistDialog(inspector, iid := inspections.start_inspection(
            inspector, vehicle_id=dossier.vehicle_id), loaded=inspections.checklist_view(inspector, iid))),
        ("notice form", lambda: NoticeForm(inspector)),
        ("decision", decision),
        ("infraction picker", lambda: InfractionPickerDialog(query="desacatar")),
        ("badge verify", lambda: BadgeVerifyDialog(inspector)),
        ("import", lambda: ImportDialog(admin)),
    ]


@SQLITE_ONLY
def test_every_dialog_names_its_inputs(qtbot, ctx: AppContext, wait_ops) -> None:  # noqa: ANN001
    offenders: list[str] = []
    opened = 0
    for label, build in _dialogs(ctx):
        dialog = _shown(qtbot, build())
        wait_ops()
        offenders += [f"[{label}] {o}" for o in _check(qtbot, dialog)]
        pages = getattr(dialog, "pageIds", None)
        if pages is not None:  # a wizard: every page
            for _ in pages()[1:]:
                dialog.next()
                wait_ops()
                offenders += [f"[{label} p{dialog.currentId()}] {o}" for o in _check(qtbot, dialog)]
        opened += 1
        dialog.close()
    assert opened >= 12
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
            drain_events()
            problems += [f"[{key}] {p}" for p in fits_screen(window) + clipped_buttons(window)]
        for build in (lambda: DossierWindow(user_ctx, dossier.person_id), lambda: VehicleForm(user_ctx)):
            dialog = _shown(qtbot, build())
            wait_ops()
            drain_events()
            problems += fits_screen(dialog) + clipped_buttons(dialog)
            dialog.close()
    finally:
        app.setFont(original)
    assert problems == [], "\n".join(problems)
