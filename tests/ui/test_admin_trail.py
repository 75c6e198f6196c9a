"""Administração shows the trail (issue 26, item 8): after a day of work done through the services, the
audit trail and the access log show it, filter it (who, when, what, which record) and export it to xlsx."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import openpyxl
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QFileDialog, QWidget
from tests_helpers import (  # type: ignore[import-not-found]
    SCREENSHOTS,
    drain_events,
    fits_screen,
    missing_access_keys,
    no_button_down,
    valid_cpf,
)

from motodesk.rules.common import Role
from motodesk.services import access_log, audit, auth, people, users
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext
from motodesk.ui.app import build_main_window, create_application
from motodesk.ui.screens import admin as admin_screen
from motodesk.ui.widgets import field_error

pytestmark = pytest.mark.qt_log_ignore("Keyboard event not accepted")


@pytest.fixture
def admin_ctx(ctx: AppContext) -> AppContext:
    create_application()
    row = users.create_user(ctx, "rita", "Rita Nogueira", Role.ADMIN, "senha-forte-1")
    return ctx.as_user(auth.CurrentUser(id=row.id, login=row.login, full_name=row.full_name, role=row.role))


def _day_of_work(clerk: AppContext) -> tuple[int, str, int]:
    """Two people registered, one of them corrected and her dossier read: (her id, her CPF, the other's id)."""
    cpf, other_cpf = valid_cpf(), valid_cpf()
    ana = people.save_person(clerk, people.PersonInput(full_name="Ana Trilha Souza", cpf=cpf,
                                                       birth_date=date(1980, 5, 2)))
    other = people.save_person(clerk, people.PersonInput(full_name="Bruno Trilha Lima", cpf=other_cpf,
                                                         birth_date=date(1979, 1, 9)))
    people.save_person(clerk, people.PersonInput(full_name="Ana Trilha Souza", cpf=cpf, birth_date=date(1980, 5, 2),
                                                 phone="(34) 99999-0000"), person_id=ana.id)
    people.get_dossier(clerk, ana.id, screen="dossier")
    return ana.id, cpf, other.id


def _alt(qtbot, key: Qt.Key) -> None:  # noqa: ANN001
    qtbot.keyClick(QApplication.focusWidget(), key, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(no_button_down)  # the access key's animated click has fired
    drain_events()


def _open(qtbot, ctx: AppContext, wait_ops) -> tuple[QWidget, admin_screen.AdminPage]:  # noqa: ANN001
    window = build_main_window(ctx)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    page = window.show_section("admin")
    assert isinstance(page, admin_screen.AdminPage)
    wait_ops()
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    return window, page


def _save_as(monkeypatch: pytest.MonkeyPatch, path: Path) -> list[str]:
    asked: list[str] = []

    def save_name(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        asked.append(str(args[2]))
        return str(path), ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(save_name))
    return asked


def _sheet_rows(path: Path) -> list[tuple]:
    book = openpyxl.load_workbook(path, read_only=True)
    try:
        return [tuple(row) for row in book.worksheets[0].iter_rows(min_row=3, values_only=True)]
    finally:
        book.close()


def test_the_trail_shows_filters_and_exports_a_day_of_work(qtbot, admin_ctx: AppContext, clerk: AppContext,  # noqa: ANN001
                                                           wait_ops, monkeypatch: pytest.MonkeyPatch,
                                                           tmp_path: Path) -> None:
    ana_id, cpf, other_id = _day_of_work(clerk)
    window, page = _open(qtbot, admin_ctx, wait_ops)
    _alt(qtbot, Qt.Key.Key_I)  # Trilha de auditoria
    wait_ops()
    tab = page.audit
    assert page.tabs.currentWidget() is tab
    assert fits_screen(window) == [] and missing_access_keys(tab) == []
    entries = tab.model.rows()
    mine = [e for e in entries if e.user_login == "clerk" and e.table_name == "people"]
    assert {(e.row_key, e.action) for e in mine} == {(str(ana_id), "insert"), (str(other_id), "insert"),
                                                    (str(ana_id), "update")}
    assert [e.id for e in entries] == sorted((e.id for e in entries), reverse=True)  # newest first
    update = next(e for e in mine if e.action == "update")
    assert "99999-0000" in update.summary and update.action_label == "alteração"
    assert update.table_label == "Pessoa"
    assert "registro(s) da trilha" in tab.count.text()
    window.grab().save(str(SCREENSHOTS / "admin-5-trilha.png"))

    # who: the administrator's own creation of the user is hers, not the clerk's
    _alt(qtbot, Qt.Key.Key_Q)
    assert QApplication.focusWidget() is tab.who
    qtbot.keyClicks(tab.who, "CLERK")
    qtbot.keyClick(tab.who, Qt.Key.Key_Return)
    wait_ops()
    assert tab.model.rowCount() > 0 and {e.user_login for e in tab.model.rows()} == {"clerk"}
    # which record: a CPF names the person's own rows
    _alt(qtbot, Qt.Key.Key_G)
    qtbot.keyClicks(tab.record, cpf)
    # what: the operation
    tab.action.setCurrentIndex(tab.action.findData("update"))
    _alt(qtbot, Qt.Key.Key_B)
    wait_ops()
    assert [(e.row_key, e.action) for e in tab.model.rows()] == [(str(ana_id), "update")]
    tab.action.setCurrentIndex(0)
    tab.what.setCurrentIndex(tab.what.findData("people"))
    tab.filter_button.click()
    wait_ops()
    assert sorted(e.action for e in tab.model.rows()) == ["insert", "update"]
    assert {e.row_key for e in tab.model.rows()} == {str(ana_id)}

    # when: tomorrow on shows nothing, today shows it; an impossible day is refused on its field
    tab.record.clear()
    tab.since.setText((local_today() + timedelta(days=1)).strftime("%d/%m/%Y"))
    tab.filter_button.click()
    wait_ops()
    assert tab.model.rowCount() == 0
    tab.since.setText("31/02/2024")
    tab.filter_button.click()
    wait_ops()
    assert field_error(tab.since) and tab.model.rowCount() == 0
    tab.since.setText(local_today().strftime("%d/%m/%Y"))
    tab.until.setText(local_today().strftime("%d/%m/%Y"))
    tab.filter_button.click()
    wait_ops()
    assert field_error(tab.since) is None
    assert {e.row_key for e in tab.model.rows()} == {str(ana_id), str(other_id)}
    shown = {(e.id, e.action) for e in tab.model.rows()}

    # export: the filtered trail, every row, read back
    target = tmp_path / "trilha.xlsx"
    asked = _save_as(monkeypatch, target)
    tab.export_button.setFocus()
    _alt(qtbot, Qt.Key.Key_X)
    wait_ops()
    assert asked and asked[0].endswith(".xlsx")
    rows = _sheet_rows(target)
    assert {(r[0], {"inclusão": "insert", "alteração": "update"}[r[4]]) for r in rows} == shown
    assert {r[2] for r in rows} == {"clerk"} and {r[3] for r in rows} == {"Pessoa"}
    assert any("99999-0000" in (r[6] or "") for r in rows)
    assert (target.stat().st_mode & 0o777) == 0o600
    assert "exportado(s)" in tab.count.text()


def test_the_access_log_shows_filters_and_exports_the_reads(qtbot, admin_ctx: AppContext, clerk: AppContext,  # noqa: ANN001
                                                            wait_ops, monkeypatch: pytest.MonkeyPatch,
                                                            tmp_path: Path) -> None:
    ana_id, cpf, _other = _day_of_work(clerk)
    people.get_dossier(admin_ctx, ana_id, screen="administração")
    window, page = _open(qtbot, admin_ctx, wait_ops)
    _alt(qtbot, Qt.Key.Key_R)
    wait_ops()
    tab = page.access
    assert fits_screen(window) == [] and missing_access_keys(tab) == []
    assert {(e.user_login, e.person_name, e.data_kind) for e in tab.model.rows()} == {
        ("clerk", "Ana Trilha Souza", access_log.DOSSIER), ("rita", "Ana Trilha Souza", access_log.DOSSIER)}
    _alt(qtbot, Qt.Key.Key_Q)
    qtbot.keyClicks(tab.who, "clerk")
    qtbot.keyClick(tab.who, Qt.Key.Key_Return)
    wait_ops()
    assert [(e.user_login, e.screen) for e in tab.model.rows()] == [("clerk", "dossier")]
    tab.until.setText((local_today() - timedelta(days=1)).strftime("%d/%m/%Y"))
    tab.filter_button.click()
    wait_ops()
    assert tab.model.rowCount() == 0
    tab.until.clear()
    tab.filter_button.click()
    wait_ops()
    window.grab().save(str(SCREENSHOTS / "admin-4-acessos-quem.png"))

    target = tmp_path / "acessos.xlsx"
    _save_as(monkeypatch, target)
    _alt(qtbot, Qt.Key.Key_X)
    wait_ops()
    rows = _sheet_rows(target)
    assert [(r[1], r[2], r[3]) for r in rows] == [("clerk", "Ana Trilha Souza", cpf)]
    assert (target.stat().st_mode & 0o777) == 0o600
    # the service's filters are the tab's
    assert len(access_log.list_access(admin_ctx, user_login="rita")) == 1
    assert audit.list_audit(admin_ctx, audit.AuditFilter(user_login="nobody")) == []


def test_the_trail_is_read_a_page_at_a_time(qtbot, admin_ctx: AppContext, clerk: AppContext, wait_ops,  # noqa: ANN001
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    _day_of_work(clerk)
    monkeypatch.setattr(audit, "AUDIT_PAGE", 2)
    window, page = _open(qtbot, admin_ctx, wait_ops)
    tab = page.audit
    page.tabs.setCurrentWidget(tab)
    wait_ops()
    tab.who.setText("clerk")
    tab.filter_button.click()
    wait_ops()
    assert tab.model.rowCount() == 2 and tab.more_button.isEnabled() and "há mais antigos" in tab.count.text()
    first = [e.id for e in tab.model.rows()]
    tab.more_button.click()
    wait_ops()
    ids = [e.id for e in tab.model.rows()]
    assert ids[:2] == first and len(ids) == 3  # the clerk's three rows, none twice, newest first
    assert ids == sorted(ids, reverse=True) and len(set(ids)) == 3
    assert not tab.more_button.isEnabled()
    assert {e.user_login for e in tab.model.rows()} == {"clerk"}  # the next page keeps the filter
