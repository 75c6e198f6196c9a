"""Administração at the counter's screen, from the keyboard: users, the law's settings, backups, access log."""

from __future__ import annotations

from datetime import date, time
from decimal import Decimal
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDialog, QMessageBox, QSpinBox, QWidget
from tests_helpers import (  # type: ignore[import-not-found]
    SCREENSHOTS,
    drain_events,
    fits_screen,
    missing_access_keys,
    names_in,
    no_button_down,
)

from motodesk.rules.common import Role
from motodesk.services import access_log, administration, auth, users
from motodesk.services import backup as backups
from motodesk.services.context import AppContext
from motodesk.services.settings import law_settings
from motodesk.ui.app import build_main_window, create_application
from motodesk.ui.screens import admin as admin_screen
from motodesk.ui.widgets import field_error

# Enter on a table emits `activated` and leaves the key to the parent, as Qt's item views do; QTest
# then warns that nobody accepted the event.
pytestmark = pytest.mark.qt_log_ignore("Keyboard event not accepted")


@pytest.fixture
def admin_ctx(ctx: AppContext) -> AppContext:
    create_application()
    row = users.create_user(ctx, "rita", "Rita Nogueira", Role.ADMIN, "senha-forte-1")
    return ctx.as_user(auth.CurrentUser(id=row.id, login=row.login, full_name=row.full_name, role=row.role))


@pytest.fixture
def messages(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every message box is answered with its first button and its text kept."""
    shown: list[str] = []

    def exec_(box: QMessageBox) -> int:
        shown.append(f"{box.text()} {box.informativeText()}".strip())
        buttons = box.buttons()
        if buttons:
            buttons[0].click()
        return 0

    monkeypatch.setattr(QMessageBox, "exec", exec_)
    return shown


def _open(qtbot, ctx: AppContext, wait_ops):  # noqa: ANN001, ANN202
    window = build_main_window(ctx)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    page = window.show_section("admin")
    assert isinstance(page, admin_screen.AdminPage)
    wait_ops()
    _activate(qtbot, window)
    return window, page


def _activate(qtbot, window: QWidget) -> None:  # noqa: ANN001
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)


def _alt(qtbot, widget: QWidget, key: Qt.Key) -> None:  # noqa: ANN001
    """An access key (Alt+letter) typed where the focus is: a button so pressed clicks itself after
    Qt's 100 ms animation."""
    qtbot.keyClick(QApplication.focusWidget() or widget, key, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(no_button_down)


def test_every_tab_fits_and_has_access_keys(qtbot, admin_ctx: AppContext, wait_ops, messages) -> None:  # noqa: ANN001
    window, page = _open(qtbot, admin_ctx, wait_ops)
    names = ["usuarios", "configuracoes", "copias", "acessos"]
    for index, name in enumerate(names):
        page.tabs.setCurrentIndex(index)
        wait_ops()
        drain_events()
        assert fits_screen(window) == [], name
        assert missing_access_keys(page.tabs.currentWidget()) == [], name
        window.grab().save(str(SCREENSHOTS / f"admin-{index + 1}-{name}.png"))
    assert page.users.model.rowCount() == 1
    assert len(page.settings.editors) == len(administration.settings_form(admin_ctx))


def test_a_user_created_edited_and_unlocked_from_the_keyboard(qtbot, admin_ctx: AppContext, wait_ops,  # noqa: ANN001
                                                              monkeypatch: pytest.MonkeyPatch, messages) -> None:
    window, page = _open(qtbot, admin_ctx, wait_ops)
    seen: list[QDialog] = []

    def drive(dialog: QDialog) -> bool:
        seen.append(dialog)
        dialog.show()
        dialog.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog)
        assert fits_screen(dialog) == [] and missing_access_keys(dialog) == []
        if isinstance(dialog, admin_screen.UserDialog) and dialog.existing is None:
            qtbot.keyClicks(dialog.login, "maria")
            qtbot.keyClick(dialog.login, Qt.Key.Key_Tab)
            qtbot.keyClicks(QApplication.focusWidget(), "Maria da Silva")
            qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
            qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Down)  # Atendente -> Vistoriador/Fiscal
            qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
            qtbot.keyClicks(QApplication.focusWidget(), "curta")
            qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
            qtbot.keyClicks(QApplication.focusWidget(), "curta")
            qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Return)
            wait_ops()
            assert dialog.isVisible() and field_error(dialog.password) == "Senha curta demais."
            dialog.grab().save(str(SCREENSHOTS / "admin-novo-usuario.png"))
            for edit in (dialog.password, dialog.repeat):
                edit.setFocus()
                edit.selectAll()
                qtbot.keyClicks(edit, "abcdefgh")
            qtbot.keyClick(dialog.repeat, Qt.Key.Key_Return)
        elif isinstance(dialog, admin_screen.PasswordDialog):
            qtbot.keyClicks(dialog.password, "nova-senha-9")
            qtbot.keyClick(dialog.password, Qt.Key.Key_Tab)
            qtbot.keyClicks(QApplication.focusWidget(), "nova-senha-9")
            qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Return)
        elif isinstance(dialog, admin_screen.UserDialog):
            assert dialog.login.isReadOnly() and QApplication.focusWidget() is dialog.full_name
            dialog.full_name.selectAll()
            qtbot.keyClicks(dialog.full_name, "Maria S. Souza")
            _alt(qtbot, dialog, Qt.Key.Key_S)
        wait_ops()
        return dialog.result() == QDialog.DialogCode.Accepted

    monkeypatch.setattr(admin_screen, "exec_dialog", drive)
    page.tabs.setCurrentWidget(page.users)
    _alt(qtbot, page.users.table, Qt.Key.Key_N)
    wait_ops()
    assert len(seen) == 1
    assert [(r.login, r.role) for r in users.list_users(admin_ctx)] == [("maria", Role.INSPECTOR), ("rita", Role.ADMIN)]
    assert page.users.selected().login == "maria"
    assert "maria criado" in page.users.status.text()

    page.users.table.setFocus()
    qtbot.keyClick(page.users.table, Qt.Key.Key_Return)  # Enter opens the selected user
    wait_ops()
    assert len(seen) == 2 and users.list_users(admin_ctx)[0].full_name == "Maria S. Souza"
    _activate(qtbot, window)
    page.users.table.setFocus()
    _alt(qtbot, page.users.table, Qt.Key.Key_S)  # Redefinir senha…
    wait_ops()
    assert len(seen) == 3 and "Senha de maria redefinida" in page.users.status.text()
    assert auth.authenticate(admin_ctx, "maria", "nova-senha-9").login == "maria"

    for _ in range(auth.MAX_FAILED_LOGINS):
        with pytest.raises(auth.AuthenticationError):
            auth.authenticate(admin_ctx, "maria", "errada-123")
    page.users.reload("maria")
    wait_ops()
    _activate(qtbot, window)
    page.users.table.setFocus()
    assert page.users.unlock_button.isEnabled() and "Bloqueado" in page.users.selected().status
    _alt(qtbot, page.users.table, Qt.Key.Key_D)
    wait_ops()
    assert users.list_users(admin_ctx)[0].locked is False
    _alt(qtbot, page.users.table, Qt.Key.Key_T)  # Desativar
    wait_ops()
    assert users.list_users(admin_ctx)[0].active is False
    assert page.users.active_button.text() == "A&tivar"

    # The administrator cannot disable himself: refused in pt_BR, nothing changed.
    page.users.table.selectRow(1)
    _alt(qtbot, page.users.table, Qt.Key.Key_T)
    wait_ops()
    assert any("próprio usuário" in m for m in messages)
    assert users.list_users(admin_ctx)[1].active is True


def test_settings_saved_refused_on_their_fields_and_guarded(qtbot, admin_ctx: AppContext, wait_ops,  # noqa: ANN001
                                                            monkeypatch: pytest.MonkeyPatch, messages) -> None:
    window, page = _open(qtbot, admin_ctx, wait_ops)
    _alt(qtbot, page, Qt.Key.Key_L)
    wait_ops()
    assert page.tabs.currentWidget() is page.settings
    settings = page.settings
    population = settings.editors["population"].input
    assert isinstance(population, QSpinBox) and population.value() == 89_826
    assert "Art. 10, I" in settings.findChild(QWidget, "article_population").text()
    population.setFocus()
    population.selectAll()
    qtbot.keyClicks(population, "4000")
    holidays = settings.editors["municipal_holidays"].input
    holidays.setFocus()
    qtbot.keyClicks(holidays, "20/01/2027; 15/08/2027")
    assert settings.has_changes()
    _alt(qtbot, settings, Qt.Key.Key_S)
    wait_ops()
    stored = law_settings(admin_ctx)
    assert stored.population == 4_000
    assert stored.municipal_holidays == (date(2027, 1, 20), date(2027, 8, 15))
    assert "2 configuração(ões) salva(s)" in settings.message.text()
    assert not settings.has_changes()

    # A fee with an amount but no legal basis: the rules refuse, both fields are marked.
    amount = settings.editors["fee_issue_brl"].input
    basis = settings.editors["fee_issue_basis"].input
    amount.setFocus()
    amount.selectAll()
    qtbot.keyClicks(amount, "50,00")
    basis.setFocus()
    basis.selectAll()
    qtbot.keyClick(basis, Qt.Key.Key_Delete)
    _alt(qtbot, settings, Qt.Key.Key_S)
    wait_ops()
    assert law_settings(admin_ctx).fee_issue_brl == Decimal("0.00")
    assert "base legal" in (field_error(basis) or "") and "base legal" in (field_error(amount) or "")
    assert "base legal" in settings.message.text()
    window.grab().save(str(SCREENSHOTS / "admin-configuracoes-recusada.png"))

    # Closing the window with the refused edits asks first; Cancelar keeps it open.
    asked: list[str] = []

    def answer(parent: QWidget, what: str = "") -> admin_screen.Answer:
        asked.append(what)
        return admin_screen.Answer.CANCEL

    monkeypatch.setattr(admin_screen, "ask_unsaved", answer)
    assert window.close() is False and asked
    monkeypatch.setattr(admin_screen, "ask_unsaved", lambda *a, **k: admin_screen.Answer.DISCARD)
    _alt(qtbot, settings, Qt.Key.Key_D)  # Desfazer alterações
    wait_ops()
    assert not settings.has_changes() and settings.editors["fee_issue_basis"].input.text()


def test_every_kind_of_setting_has_an_input(qtbot) -> None:  # noqa: ANN001
    """A field another helper adds (a time, a list of times, a URL) gets its input without editing the screen."""
    from motodesk.rules.infractions import Penalty

    keys = admin_screen.AccessKeys()

    def field(kind: str, value: object, **extra: object) -> administration.SettingField:
        return administration.SettingField(name=f"x_{kind}", label=f"Campo {kind}", article="Art. 1º", group="G",
                                           kind=kind, value=value, default=value, placeholder=False, damaged=False,
                                           **extra)  # type: ignore[arg-type]

    cases = [
        (field(administration.TIME, time(7, 30)), time(7, 30)),
        (field(administration.TIMES, (time(8, 0), time(13, 30))), (time(8, 0), time(13, 30))),
        (field(administration.TEXT, "https://verifica.example/"), "https://verifica.example/"),
        (field(administration.TEXTS, ("08:00-11:30", "13:00-17:00")), ("08:00-11:30", "13:00-17:00")),
        (field(administration.OPTIONAL_INT, None, minimum=0, maximum=12), None),
        (field(administration.ENUM_SET, (Penalty.FINE,), enum=Penalty), (Penalty.FINE,)),
        (field(administration.OTHER, {"a": 1}), {"a": 1}),
    ]
    for f, expected in cases:
        editor = admin_screen.SettingEditor(f, keys)
        qtbot.addWidget(editor.widget)
        assert editor.value() == expected, f.kind
        assert not editor.changed()
    assert administration.kind_of(tuple[time, ...]) == (administration.TIMES, None)
    assert administration.kind_of(str) == (administration.TEXT, None)
    assert administration.kind_of(tuple[str, ...]) == (administration.TEXTS, None)
    bad = admin_screen.SettingEditor(field(administration.TIMES, ()), keys)
    qtbot.addWidget(bad.widget)
    bad.widget.setText("25:99")
    with pytest.raises(ValueError) as refused:
        bad.value()
    names_in(refused.value, "25:99")  # the part typed wrong


def test_backups_tab_reminder_backup_and_audit_check(qtbot, admin_ctx: AppContext, wait_ops, tmp_path: Path,  # noqa: ANN001
                                                     monkeypatch: pytest.MonkeyPatch, messages) -> None:
    window, page = _open(qtbot, admin_ctx, wait_ops)
    _alt(qtbot, page, Qt.Key.Key_C)
    wait_ops()
    tab = page.backups
    assert tab.last.text() == "nenhuma registrada" and tab.days.value() == backups.DEFAULT_REMINDER_DAYS
    _alt(qtbot, tab, Qt.Key.Key_D)
    assert QApplication.focusWidget() is tab.days
    tab.days.selectAll()
    qtbot.keyClicks(tab.days, "14")
    _alt(qtbot, tab, Qt.Key.Key_E)
    wait_ops()
    assert backups.reminder_days(admin_ctx) == 14 and "14 dia(s)" in tab.message.text()

    from PySide6.QtWidgets import QFileDialog

    from motodesk.ui import db_settings

    chosen: list[object] = []

    def save_name(*args: object, **kwargs: object) -> tuple[str, str]:
        chosen.append(kwargs.get("options"))
        assert str(args[2]).startswith(db_settings.documents_folder())
        return str(tmp_path / "copia"), ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(save_name))
    monkeypatch.setattr(QMessageBox, "information", staticmethod(lambda *a: messages.append(a[2])))
    _alt(qtbot, tab, Qt.Key.Key_P)
    qtbot.waitUntil(lambda: "gravada em" in tab.message.text(), timeout=60_000)
    wait_ops()
    assert chosen == [QFileDialog.Option.DontUseNativeDialog]
    assert (tmp_path / "copia.zip").is_file() and "copia.zip" in tab.last.text()
    from motodesk.ui.db_settings import BackupReminderBar

    assert not window.findChild(BackupReminderBar, "backup_reminder").isVisible()
    _activate(qtbot, window)
    tab.days.setFocus()
    _alt(qtbot, tab, Qt.Key.Key_T)
    wait_ops()
    assert "íntegra" in tab.message.text()
    window.grab().save(str(SCREENSHOTS / "admin-3-copias-feita.png"))


def test_access_log_filtered(qtbot, admin_ctx: AppContext, wait_ops, messages) -> None:  # noqa: ANN001
    from tests_helpers import valid_cpf  # type: ignore[import-not-found]


    cpf = valid_cpf()
    from motodesk.models import Person

    with admin_ctx.write() as s:
        person = Person(full_name="João Teste", name_search="joao teste", cpf=cpf, birth_date=date(1990, 1, 1))
        s.add(person)
        s.flush()
        access_log.record_access(s, admin_ctx.user, person.id, access_log.MEDICAL, screen="dossier")
        access_log.record_access(s, admin_ctx.user, None, access_log.DOSSIER, screen="relatorio")
    window, page = _open(qtbot, admin_ctx, wait_ops)
    _alt(qtbot, page, Qt.Key.Key_R)
    wait_ops()
    tab = page.access
    assert tab.model.rowCount() == 2 and "2 acesso(s)" in tab.count.text()
    _alt(qtbot, tab, Qt.Key.Key_P)
    qtbot.keyClicks(tab.cpf, cpf)
    qtbot.keyClick(tab.cpf, Qt.Key.Key_Return)
    wait_ops()
    assert tab.model.rowCount() == 1 and tab.model.row_at(0).person_name == "João Teste"
    assert not tab.table.tabKeyNavigation()
    window.grab().save(str(SCREENSHOTS / "admin-4-acessos-filtrado.png"))


def test_page_refused_to_others(qtbot, ctx: AppContext) -> None:  # noqa: ANN001
    from tests.conftest import user_ctx

    create_application()
    page = admin_screen.admin_page(user_ctx(ctx, Role.SUPERVISOR), QWidget())
    qtbot.addWidget(page)
    assert not isinstance(page, admin_screen.AdminPage)


def test_keyed_loads_deliver_the_newest_only(qtbot, wait_ops) -> None:  # noqa: ANN001
    """The tabs load with `load_into`: one load delivers; of two overlapping ones, only the newer."""
    import threading

    from motodesk.ui.ops import load_into

    widget = QWidget()
    qtbot.addWidget(widget)
    got: list[str] = []
    load_into(widget, lambda: "one", got.append, key="k")
    wait_ops()
    assert got == ["one"]
    release = threading.Event()
    load_into(widget, lambda: (release.wait(5), "old")[1], got.append, key="k")
    load_into(widget, lambda: "new", got.append, key="k")
    qtbot.waitUntil(lambda: got[-1] == "new")
    release.set()
    wait_ops()
    assert got == ["one", "new"]


def test_a_field_another_helper_added_is_judged_on_its_input(qtbot, admin_ctx: AppContext, wait_ops,  # noqa: ANN001
                                                             messages) -> None:
    window, page = _open(qtbot, admin_ctx, wait_ops)
    page.tabs.setCurrentWidget(page.settings)
    wait_ops()
    editors = page.settings.editors
    assert "campaign_opening_hours" in editors  # declared in LawSettings: its editor must be on the tab
    hours = editors["campaign_opening_hours"].input
    page.settings.show_field(hours)
    assert hours.isVisible() and hours.text() == "08:00-11:30; 13:00-17:00"
    hours.selectAll()
    qtbot.keyClicks(hours, "17:00-08:00")
    _alt(qtbot, page.settings, Qt.Key.Key_S)
    wait_ops()
    assert "termina antes de começar" in (field_error(hours) or "")
    assert law_settings(admin_ctx).campaign_opening_hours == ("08:00-11:30", "13:00-17:00")
    window.grab().save(str(SCREENSHOTS / "admin-configuracoes-recadastramento.png"))
