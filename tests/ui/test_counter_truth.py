"""Nothing the counter's screens say is the opposite of the truth, and what is known is carried forward
(issue 26, items 5, 6 and 10), at 1366x768 on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

import pytest
from permit_factory import add_person  # type: ignore[import-not-found]
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox
from tests_helpers import SCREENSHOTS  # type: ignore[import-not-found]

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
    assert age.message.startswith("data inválida") and "Data de nascimento" in age.message
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
