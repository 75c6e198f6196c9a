"""Nothing the counter's screens say is the opposite of the truth, and what is known is carried forward
(issue 26, items 5, 6 and 10), at 1366x768 on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from permit_factory import add_person  # type: ignore[import-not-found]
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox
from tests_helpers import SCREENSHOTS, check_wording  # type: ignore[import-not-found]

from motodesk.rules.common import Role, Status
from motodesk.rules.dossier import DocumentKind
from motodesk.services import auth, users
from motodesk.services import backup as backups
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext
from motodesk.ui import dossier as dossier_module
from motodesk.ui.app import create_application
from motodesk.ui.db_settings import BackupDialog
from motodesk.ui.dossier import DossierWindow
from motodesk.ui.guard import Answer
from motodesk.ui.ops import ServiceOp
from motodesk.ui.widgets import DateField, field_error

pytestmark = pytest.mark.qt_log_ignore("Keyboard event not accepted")
TODAY = local_today()


@pytest.fixture(autouse=True)
def never_block_on_close(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    monkeypatch.setattr(dossier_module, "ask_unsaved", lambda *a, **k: Answer.DISCARD)


def _settle(qtbot) -> None:  # noqa: ANN001
    qtbot.waitUntil(lambda: ServiceOp.running() == 0, timeout=15_000)
    qtbot.wait(1)


def _dossier(qtbot, clerk: AppContext, person_id: int | None = None) -> DossierWindow:  # noqa: ANN001
    create_application()
    window = DossierWindow(clerk, person_id)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    _settle(qtbot)
    if person_id is not None:
        qtbot.waitUntil(lambda: window.person_id == person_id, timeout=15_000)
    return window


def _retype(qtbot, field: DateField, text: str) -> None:  # noqa: ANN001
    field.setFocus()
    field.selectAll()
    qtbot.keyClicks(field, text)


def _verdict(window: DossierWindow, rule_id: str):  # noqa: ANN202
    return next(v for v in window.verdicts if v.rule_id == rule_id)


# -- item 6: "Dossiê 100% completo" never beside a red requirement -------------------------------------
def test_a_complete_dossier_with_a_red_requirement_is_not_called_complete(qtbot, ctx: AppContext,  # noqa: ANN001
                                                                          clerk: AppContext) -> None:
    with ctx.write() as s:
        person, _ = add_person(s, TODAY, name="Caio Jovem Prado")
        person_id = person.id
    window = _dossier(qtbot, clerk, person_id)
    window.recheck()
    assert all(v.status is Status.MET for v in window.verdicts), [v.message for v in window.verdicts
                                                                  if v.status is not Status.MET]
    assert window.meter.text() == "Dossiê 100% completo"
    birth = window.person_inputs["birth_date"]
    assert isinstance(birth, DateField)
    _retype(qtbot, birth, (TODAY - timedelta(days=365 * 20)).strftime("%d/%m/%Y"))  # 19 or 20: under 21
    window.recheck()
    assert _verdict(window, "art5_i_age").status is Status.NOT_MET
    assert window.meter.value() == 100  # every requirement has its evidence ...
    assert "completo" not in window.meter.text()  # ... but the dossier is not complete
    failed = sum(v.status is Status.NOT_MET for v in window.verdicts)
    assert f"{failed} requisito(s) não atendido(s)" in window.meter.text()
    window.grab().save(str(SCREENSHOTS / "dossier-informado-nao-atendido.png"))


# -- item 6: an impossible date says why, on the field and in the requirement -----------------------------
@pytest.mark.parametrize("typed", ["31/02/2024", "29/02/2023"])
def test_an_impossible_date_says_so_on_the_field_and_in_the_requirement(qtbot, ctx: AppContext,  # noqa: ANN001
                                                                        clerk: AppContext, typed: str) -> None:
    with ctx.write() as s:
        person, _ = add_person(s, TODAY, name="Dora Datas Lemos")
        person_id = person.id
    window = _dossier(qtbot, clerk, person_id)
    birth = window.person_inputs["birth_date"]
    assert isinstance(birth, DateField)
    _retype(qtbot, birth, typed)
    window.recheck()
    assert "Data inexistente" in (field_error(birth) or "")
    age = _verdict(window, "art5_i_age")
    check_wording("art5_i_age", age.message)  # "data inválida" and the field, never "falta"
    assert "falta" not in age.message.lower()
    assert "100%" not in window.meter.text()

    window.tabs.setCurrentIndex(1)
    medical = window.documents[DocumentKind.MEDICAL].inputs["issue_date"]
    assert isinstance(medical, DateField)
    stored = medical.text()
    _retype(qtbot, medical, typed)
    window.recheck()
    assert "Data inexistente" in (field_error(medical) or "")
    verdict = _verdict(window, "art5_vii_medical")
    assert verdict.message.startswith("data inválida") and "falta" not in verdict.message.lower()
    assert verdict.status is Status.PENDING
    assert verdict.message in window.documents[DocumentKind.MEDICAL].box.toolTip()
    # fixed: the field's message goes, and the requirement is judged again
    _retype(qtbot, medical, stored)
    window.recheck()
    assert field_error(medical) is None
    assert _verdict(window, "art5_vii_medical").status is Status.MET


# -- item 6: the backup dialog saves only what was typed ------------------------------------------------
def _admin(ctx: AppContext) -> AppContext:
    row = users.create_user(ctx, "rita", "Rita Nogueira", Role.ADMIN, "senha-forte-1")
    return ctx.as_user(auth.CurrentUser(id=row.id, login=row.login, full_name=row.full_name, role=row.role))


def test_the_backup_dialog_never_saves_a_reminder_nobody_typed(qtbot, ctx: AppContext,  # noqa: ANN001
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    create_application()
    admin = _admin(ctx)
    backups.set_reminder_days(admin, 9)
    monkeypatch.setattr(BackupDialog, "refresh", lambda self: None)  # the stored period comes late
    dialog = BackupDialog(admin)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog)
    dialog.days.setFocus()  # the field holds the focus when the stored period arrives
    assert dialog.days.hasFocus() and dialog.days.value() == 0
    monkeypatch.undo()
    dialog.refresh()
    _settle(qtbot)
    assert dialog.days.value() == 9  # shown, though focused
    qtbot.keyClick(dialog.days, Qt.Key.Key_Tab)  # leaving it: editingFinished
    _settle(qtbot)
    assert backups.reminder_days(admin) == 9
    dialog.reject()
    _settle(qtbot)
    assert backups.reminder_days(admin) == 9

    typed = BackupDialog(admin)
    qtbot.addWidget(typed)
    typed.show()
    qtbot.waitExposed(typed)
    typed.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is typed)
    _settle(qtbot)
    typed.days.setFocus()
    typed.days.selectAll()
    qtbot.keyClicks(typed.days, "4")
    qtbot.keyClick(typed.days, Qt.Key.Key_Return)
    _settle(qtbot)
    assert backups.reminder_days(admin) == 4


def test_a_period_typed_before_the_stored_one_arrives_is_kept_and_saved(qtbot, ctx: AppContext,  # noqa: ANN001
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    create_application()
    admin = _admin(ctx)
    backups.set_reminder_days(admin, 9)
    monkeypatch.setattr(BackupDialog, "refresh", lambda self: None)  # the summary is late
    dialog = BackupDialog(admin)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog)
    dialog.days.setFocus()
    dialog.days.selectAll()
    qtbot.keyClicks(dialog.days, "12")
    dialog.make.setFocus()  # left before the stored period arrived: nothing to compare with yet
    _settle(qtbot)
    assert backups.reminder_days(admin) == 9
    monkeypatch.undo()
    dialog.refresh()
    _settle(qtbot)
    assert dialog.days.value() == 12  # not overwritten by the stored 9 ...
    _settle(qtbot)
    assert backups.reminder_days(admin) == 12  # ... and saved, as typed
    assert QApplication.instance() is not None


# -- item 6: a focused button's label is whole ------------------------------------------------------------
def clipped_when_focused(root) -> list[str]:  # noqa: ANN001
    """Visible push buttons whose label does not fit their content box once they have the focus."""
    from PySide6.QtWidgets import QPushButton, QStyle, QStyleOptionButton

    clipped = []
    for button in root.findChildren(QPushButton):
        if not button.isVisibleTo(root) or not button.text() or not button.isEnabled():
            continue
        button.setFocus(Qt.FocusReason.TabFocusReason)
        QApplication.processEvents()
        option = QStyleOptionButton()
        button.initStyleOption(option)
        room = button.style().subElementRect(QStyle.SubElement.SE_PushButtonContents, option, button).width()
        label = button.text().replace("&&", "\0").replace("&", "").replace("\0", "&")
        needed = button.fontMetrics().horizontalAdvance(label)
        if not option.icon.isNull():
            needed += option.iconSize.width() + 4
        if needed > room:
            clipped.append(f"{label!r}: {needed} > {room}")
    return clipped


def test_no_button_label_is_clipped_when_focused(qtbot, ctx: AppContext, wait_ops) -> None:  # noqa: ANN001
    from motodesk.ui.app import build_main_window

    create_application()
    admin = _admin(ctx)
    window = build_main_window(admin)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    seen = 0
    for name in ("people", "vehicles", "permits", "inspections", "infractions", "campaign", "stands",
                 "organisations", "deadlines", "reports", "admin"):
        page = window.show_section(name)
        wait_ops()
        tabs = getattr(page, "tabs", None)
        for index in range(tabs.count() if tabs is not None else 1):
            if tabs is not None:
                tabs.setCurrentIndex(index)
                wait_ops()
            problems = clipped_when_focused(window)
            assert problems == [], (name, index, problems)
            seen += 1
    assert seen > 11
    dialog = BackupDialog(admin)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog)
    wait_ops()
    assert clipped_when_focused(dialog) == []


# -- item 6: the campaign's close asks what it does; its bar counts who came ---------------------------------
def test_the_campaign_close_confirmation_says_what_close_does(qtbot, supervisor: AppContext,  # noqa: ANN001
                                                             clerk: AppContext, wait_ops,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    import re

    from reports_factory import holder  # type: ignore[import-not-found]

    from motodesk.services import campaigns
    from motodesk.ui.mainwindow import MainWindow
    from motodesk.ui.screens import campaign as screen

    asked: list[str] = []
    errors: list[str] = []
    monkeypatch.setattr(screen, "confirm", lambda _p, _title, text: asked.append(text) or True)
    monkeypatch.setattr(screen, "inform", lambda *_a: None)
    monkeypatch.setattr("motodesk.ui.ops.show_error", lambda _p, exc, *a: errors.append(str(exc)))
    t = TODAY - timedelta(days=70)
    for name in ("Ana Paula Vieira", "Bruno Souza Lima", "Carla Mendes Rocha"):
        holder(supervisor, name, today=t, issued_on=t - timedelta(days=340))
    opened = campaigns.open_campaign(supervisor, t + timedelta(days=1), t + timedelta(days=45), today=t)
    rows = campaigns.list_appointments(clerk, opened.campaign.id)
    assert len(rows) == 3
    campaigns.mark_attendance(clerk, rows[0].id, True)
    campaigns.mark_attendance(clerk, rows[1].id, False)

    create_application()
    window = MainWindow(supervisor)
    qtbot.addWidget(window)
    window.showMaximized()
    qtbot.waitExposed(window)
    page = window.show_section("campaign")
    assert isinstance(page, screen.CampaignPage)
    wait_ops()
    # one came, one did not, one is pending: "1 de 3", never "2 de 3 concluídos"
    assert (page.progress_bar.value(), page.progress_bar.maximum()) == (1, 3)
    assert page.progress_bar.text().startswith("1 de 3 compareceram") and "1 falta(s)" in page.progress_bar.text()
    assert "concluídos" not in page.progress_bar.text()

    page.close_button.click()
    wait_ops()
    assert errors == [] and len(asked) == 1
    promised = int(re.search(r"(\d+) atendimento\(s\) pendente", asked[0]).group(1))
    closed = page.closed_result
    assert closed is not None and promised == closed.marked_absent == 1
    assert "nenhum atendimento pode ser marcado ou reagendado" in asked[0]
    assert "só quando o certificado está vencido" in asked[0]
    assert not page.attended_button.isEnabled() and not page.reschedule_button.isEnabled()
    assert sorted(r.appointment.name for r in page.absent_model.rows()) == sorted(
        r.name for r in rows[1:])


def test_a_close_refused_for_appointments_ahead_asks_nothing(qtbot, supervisor: AppContext, wait_ops,  # noqa: ANN001
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from reports_factory import holder  # type: ignore[import-not-found]

    from motodesk.services import campaigns
    from motodesk.ui.mainwindow import MainWindow
    from motodesk.ui.screens import campaign as screen

    asked: list[str] = []
    errors: list[str] = []
    monkeypatch.setattr(screen, "confirm", lambda _p, _title, text: asked.append(text) or True)
    monkeypatch.setattr("motodesk.ui.ops.show_error", lambda _p, exc, *a: errors.append(str(exc)))
    holder(supervisor, "Ana Paula Vieira", today=TODAY, issued_on=TODAY - timedelta(days=340))
    campaigns.open_campaign(supervisor, TODAY + timedelta(days=1), TODAY + timedelta(days=30))
    create_application()
    window = MainWindow(supervisor)
    qtbot.addWidget(window)
    window.showMaximized()
    qtbot.waitExposed(window)
    page = window.show_section("campaign")
    wait_ops()
    page.close_button.click()
    wait_ops()
    assert asked == []  # no promise that pending people become absences: the close will not happen
    assert errors and "por vir" in errors[-1]
    assert page.close_button.isEnabled()


# -- item 5: what is known is carried forward -------------------------------------------------------------
@pytest.mark.parametrize("searched", ["maria  das dores", "cpf"])
def test_the_searched_name_or_cpf_fills_nova_pessoa(qtbot, clerk: AppContext, wait_ops, searched: str) -> None:  # noqa: ANN001
    from tests_helpers import valid_cpf  # type: ignore[import-not-found]

    from motodesk.rules.validators import format_cpf
    from motodesk.ui.mainwindow import MainWindow
    from motodesk.ui.screens.people import PeoplePage

    create_application()
    window = MainWindow(clerk)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    page = window.show_section("people")
    assert isinstance(page, PeoplePage)
    cpf = valid_cpf()
    typed = format_cpf(cpf) if searched == "cpf" else searched
    qtbot.keyClicks(page.search_box, typed)
    wait_ops()
    dossier = page.new_person()
    assert dossier is not None
    qtbot.waitExposed(dossier)
    name_edit, cpf_edit = dossier.person_inputs["full_name"], dossier.person_inputs["cpf"]
    if searched == "cpf":
        assert "".join(ch for ch in cpf_edit.text() if ch.isdigit()) == cpf and name_edit.text() == ""
        assert dossier.focusWidget() is name_edit  # the cursor where the clerk types next
    else:
        assert name_edit.text() == "maria das dores" and not cpf_edit.text().strip("._- ")
        assert dossier.focusWidget() is cpf_edit
    assert not dossier.is_dirty()  # carried, not typed: closing it untouched asks nothing
    # a search that is neither (a plate, or one word: a fragment) carries nothing
    for fragment in ("ABC1D23", "ana"):
        page.search_box.setText(fragment)
        other = page.new_person()
        assert other is not None and other.person_inputs["full_name"].text() == "", fragment
        other.close()


def test_the_vehicle_form_knows_the_holder_and_the_service_of_the_open_application(qtbot, clerk: AppContext,  # noqa: ANN001
                                                                                    wait_ops) -> None:
    from tests_helpers import valid_cpf  # type: ignore[import-not-found]

    from motodesk.rules.common import ServiceType
    from motodesk.rules.validators import format_cpf
    from motodesk.services import applications, people
    from motodesk.ui.vehicle_form import VehicleForm

    cpf = valid_cpf()
    pid = people.save_person(clerk, people.PersonInput(full_name="Rafael Frete Costa", cpf=cpf)).id
    applications.open_application(clerk, pid, ServiceType.MOTOFRETE)
    create_application()
    by_id = VehicleForm(clerk, None, holder_id=pid)
    qtbot.addWidget(by_id)
    by_id.show()
    wait_ops()
    assert by_id.holder is not None and by_id.holder_name.text() == "Rafael Frete Costa"
    assert by_id.service.currentData() == ServiceType.MOTOFRETE.value
    assert not by_id.has_changes()

    typed = VehicleForm(clerk, None)
    qtbot.addWidget(typed)
    typed.show()
    qtbot.waitExposed(typed)
    wait_ops()
    assert typed.service.currentData() is None
    typed.holder_cpf.setFocus()
    qtbot.keyClicks(typed.holder_cpf, format_cpf(cpf))
    typed.holder_cpf.editingFinished.emit()
    wait_ops()
    qtbot.waitUntil(lambda: typed.service.currentData() == ServiceType.MOTOFRETE.value, timeout=5000)
    assert typed.holder_name.text() == "Rafael Frete Costa"
    # a service the clerk chose is never replaced
    typed.service.setCurrentIndex(typed.service.findData(ServiceType.MOTOBOY.value))
    typed.holder_cpf.editingFinished.emit()
    wait_ops()
    assert typed.service.currentData() == ServiceType.MOTOBOY.value


def test_a_candidate_added_by_a_registered_cpf_gets_the_name(qtbot, supervisor: AppContext, wait_ops) -> None:  # noqa: ANN001
    from tests_helpers import valid_cpf  # type: ignore[import-not-found]

    from motodesk.rules.validators import format_cpf
    from motodesk.services import people
    from motodesk.ui.screens.permits import CandidateDialog

    known = valid_cpf()
    people.save_person(supervisor, people.PersonInput(full_name="Sônia Candidata Reis", cpf=known))
    create_application()
    dialog = CandidateDialog(None, supervisor)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    qtbot.keyClicks(dialog.cpf, format_cpf(known))
    wait_ops()
    assert dialog.name.text() == "Sônia Candidata Reis" and "Cadastrado" in dialog.registered.text()
    # another CPF, unknown: the name it brought goes, and the dialog says so
    dialog.cpf.clear()
    qtbot.keyClicks(dialog.cpf, format_cpf(valid_cpf()))
    wait_ops()
    assert "sem cadastro" in dialog.registered.text()
    assert dialog.name.text() == "Sônia Candidata Reis"  # kept until replaced: nothing typed is lost
    # a name the clerk typed is never overwritten
    dialog.name.setText("Nome Digitado")
    dialog.cpf.clear()
    qtbot.keyClicks(dialog.cpf, format_cpf(known))
    wait_ops()
    assert dialog.name.text() == "Nome Digitado"


def test_the_login_of_a_restarted_app_prefills_the_last_user_and_counts_only_the_typed_one(  # noqa: ANN001
        qtbot, ctx: AppContext, monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    from sqlalchemy import select

    from motodesk import config
    from motodesk.models.admin import User
    from motodesk.ui import app as app_module
    from motodesk.ui.login import LoginDialog

    create_application()
    users.create_user(ctx, "rita", "Rita Nogueira", Role.ADMIN, "senha-forte-1")
    users.create_user(ctx, "maria", "Maria Lima", Role.CLERK, "senha-forte-2")
    monkeypatch.setattr(config, "config_dir", lambda: tmp_path / "config")  # this test's own
    first = LoginDialog(ctx, remember=True)
    qtbot.addWidget(first)
    qtbot.keyClicks(first.login_edit, "rita")
    qtbot.keyClicks(first.password_edit, "senha-forte-1")
    first.try_login()
    assert first.user is not None and config.load_last_login() == "rita"

    tries: list[str] = []
    after_wrong: dict[str, int] = {}

    def drive(dialog: LoginDialog) -> int:
        dialog.show()
        qtbot.waitExposed(dialog)
        dialog.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog)
        tries.append(dialog.login_edit.text())
        assert QApplication.focusWidget() is dialog.password_edit  # the user is known: the password next
        qtbot.keyClick(dialog.password_edit, Qt.Key.Key_Backtab)
        assert QApplication.focusWidget() is dialog.login_edit
        qtbot.keyClicks(dialog.login_edit, "MARIA")  # another user, typed over the pre-filled one
        qtbot.keyClick(dialog.login_edit, Qt.Key.Key_Tab)
        qtbot.keyClicks(dialog.password_edit, "errada")
        dialog.try_login()
        tries.append(dialog.message.text())
        with ctx.read() as s:
            after_wrong.update(dict(s.execute(select(User.login, User.failed_logins)).all()))
        dialog.password_edit.clear()
        qtbot.keyClicks(dialog.password_edit, "senha-forte-2")
        dialog.try_login()
        return 1

    monkeypatch.setattr(LoginDialog, "exec", drive)
    monkeypatch.setattr(app_module, "_prepare_when_warmed", lambda _w: None)
    _ctx, dialog, _error = app_module.login(ctx, login_name=config.load_last_login())
    assert tries[0] == "rita" and tries[1]  # pre-filled; the wrong password said so
    assert after_wrong == {"rita": 0, "maria": 1}  # the wrong try is the typed user's, never the pre-filled
    assert dialog.user is not None and dialog.user.login == "maria"
    with ctx.read() as s:
        failed = dict(s.execute(select(User.login, User.failed_logins)).all())
    assert failed["rita"] == 0  # the pre-filled user was not counted against
    assert failed["maria"] == 0  # her own wrong try, then her right one (which clears it)
    assert config.load_last_login() == "maria"



# -- item 10: smaller ones ---------------------------------------------------------------------------------
def _choose(combo, value) -> None:  # noqa: ANN001
    index = combo.findData(value)
    assert index >= 0, value
    combo.setCurrentIndex(index)


def test_the_reservist_box_only_for_those_the_law_asks_it_of(qtbot, clerk: AppContext) -> None:  # noqa: ANN001
    window = _dossier(qtbot, clerk)
    window.tabs.setCurrentIndex(1)
    box = window.documents[DocumentKind.MILITARY].box
    sex, birth = window.person_inputs["sex"], window.person_inputs["birth_date"]
    assert isinstance(birth, DateField)
    window.recheck()
    assert box.isVisibleTo(window)  # sex unknown: asked
    _choose(sex, "F")
    window.recheck()
    assert not box.isVisibleTo(window)  # women: Art. 5º, VI asks no reservist certificate
    assert "reservist_number" not in _verdict(window, "art5_vi_military_elect").missing  # the rule agrees
    _choose(sex, "M")
    birth.set_value(date(TODAY.year - 30, 3, 1))
    window.recheck()
    assert box.isVisibleTo(window)  # a man of 30
    birth.set_value(date(TODAY.year - 50, 3, 1))
    window.recheck()
    assert not box.isVisibleTo(window)  # past the year he turned 45
    # something already typed in it is never hidden away
    box.setVisible(True)
    number = window.documents[DocumentKind.MILITARY].inputs["number"]
    number.setText("123456")
    window.recheck()
    assert box.isVisibleTo(window)


def test_nit_and_titulo_are_typed_like_a_cpf_and_kept_as_digits(qtbot, clerk: AppContext) -> None:  # noqa: ANN001
    from motodesk.ui.widgets import FormattedLineEdit

    window = _dossier(qtbot, clerk)
    nit = window.documents[DocumentKind.INSS].inputs["number"]
    title = window.documents[DocumentKind.ELECTORAL].inputs["number"]
    assert isinstance(nit, FormattedLineEdit) and isinstance(title, FormattedLineEdit)
    qtbot.keyClicks(nit, "12054646786")
    qtbot.keyClicks(title, "123456780191")
    assert nit.text() == "120.5464.678-6" and title.text() == "1234 5678 0191"
    documents = window.document_inputs()
    assert documents[DocumentKind.INSS].number == "12054646786"
    assert documents[DocumentKind.ELECTORAL].number == "123456780191"
    nit.setText("12054646786")  # a stored number is shown grouped too
    assert nit.text() == "120.5464.678-6"


def test_a_field_message_goes_the_moment_the_field_is_fixed(qtbot, clerk: AppContext) -> None:  # noqa: ANN001
    window = _dossier(qtbot, clerk)
    cpf = window.person_inputs["cpf"]
    cpf.setFocus()
    qtbot.keyClicks(cpf, "11111111111")
    window._validate_person_field("cpf")  # leaving the field marks it
    assert window.field_message("cpf")
    from tests_helpers import valid_cpf  # type: ignore[import-not-found]

    cpf.selectAll()
    qtbot.keyClicks(cpf, valid_cpf())  # fixed: no need to leave the field to see it is right
    assert window.field_message("cpf") == "" and field_error(cpf) is None
    # a wrong value typed does not nag until the field is left
    cpf.selectAll()
    qtbot.keyClicks(cpf, "22222222222")
    assert window.field_message("cpf") == ""


def test_a_login_typed_in_capitals_says_how_it_is_kept(qtbot, ctx: AppContext) -> None:  # noqa: ANN001
    from motodesk.ui.screens.admin import UserDialog

    create_application()
    dialog = UserDialog(_admin(ctx))
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    qtbot.keyClicks(dialog.login, "maria")
    assert not dialog.login_note.isVisible()
    dialog.login.clear()
    qtbot.keyClicks(dialog.login, "Maria.Lima")
    assert dialog.login_note.isVisible() and "“maria.lima”" in dialog.login_note.text()
    row = users.create_user(ctx, dialog.login.text(), "Maria Lima", Role.CLERK, "senha-forte-3")
    assert row.login == "maria.lima"  # what the note said


# -- item 9: a page answers at once; keys typed while it loads are not lost -------------------------------
def _main(qtbot, ctx: AppContext):  # noqa: ANN001, ANN202
    from motodesk.ui.mainwindow import MainWindow

    create_application()
    window = MainWindow(ctx)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    return window


@pytest.mark.parametrize("key", ["vehicles", "permits", "infractions", "organisations"])
def test_keys_typed_right_after_choosing_a_page_land_in_its_search_field(qtbot, clerk: AppContext,  # noqa: ANN001
                                                                        wait_ops, key: str) -> None:
    from motodesk.ui.mainwindow import SECTIONS, LoadingPage, typing_target

    window = _main(qtbot, clerk)
    window.page_by_key["people"].search_box.setFocus()
    assert not window.page_by_key.is_built(key)
    window.nav.setCurrentRow([k for k, _ in SECTIONS].index(key))  # chosen (a shortcut, a click)
    # answered at once: the page's loading state shows, before the page exists, and holds the keys
    placeholder = window.loading[key]
    assert isinstance(placeholder, LoadingPage) and placeholder.isVisible()
    assert "Carregando" in placeholder.text() and not window.page_by_key.is_built(key)
    assert QApplication.focusWidget() is placeholder
    qtbot.keyClicks(placeholder, "ABC1")
    qtbot.keyClick(placeholder, Qt.Key.Key_Backspace)
    qtbot.keyClicks(placeholder, "2")
    qtbot.waitUntil(lambda: window.page_by_key.is_built(key), timeout=10_000)
    page = window.page_by_key[key]
    target = typing_target(page)
    assert isinstance(target, type(window.page_by_key["people"].search_box))
    assert target.text() == "ABC2"  # every key, in order, in the page's search field
    assert window.focusWidget() is target
    import shiboken6

    assert key not in window.loading and (not shiboken6.isValid(placeholder) or not placeholder.isVisible())
    wait_ops()


def test_enter_in_the_navigation_goes_into_the_loading_page(qtbot, clerk: AppContext, wait_ops) -> None:  # noqa: ANN001
    window = _main(qtbot, clerk)
    window.nav.setFocus()
    qtbot.keyClick(window.nav, Qt.Key.Key_Down)  # browsing the sections keeps the focus in the list
    assert window.nav.hasFocus() and "vehicles" in window.loading
    qtbot.keyClick(window.nav, Qt.Key.Key_Return)
    if "vehicles" in window.loading:
        assert QApplication.focusWidget() is window.loading["vehicles"]
        qtbot.keyClicks(QApplication.focusWidget(), "XYZ")
    else:  # built already: straight into its search field
        qtbot.keyClicks(QApplication.focusWidget(), "XYZ")
    qtbot.waitUntil(lambda: window.page_by_key.is_built("vehicles"), timeout=10_000)
    from motodesk.ui.mainwindow import typing_target

    assert typing_target(window.page_by_key["vehicles"]).text() == "XYZ"
    wait_ops()
