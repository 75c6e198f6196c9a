"""Start-up: the login dialog first, the database opening behind it, the window built while the
password is checked, "Trocar de usuário", and the start path free of SQLAlchemy and reportlab."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable

import pytest
from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox, QTableView, QWidget
from sqlalchemy import select

from motodesk.errors import DatabaseError
from motodesk.rules.common import Role
from motodesk.services import auth
from motodesk.services.context import AppContext
from motodesk.ui import app as app_module
from motodesk.ui.app import create_application, run_gui
from motodesk.ui.login import LoginDialog


def _dialog(qtbot, ctx: AppContext | None, **kwargs) -> LoginDialog:  # noqa: ANN001, ANN003
    create_application()
    dialog = LoginDialog(ctx, **kwargs)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def _type(qtbot, dialog: LoginDialog, login: str, password: str) -> None:  # noqa: ANN001
    qtbot.keyClicks(dialog.login_edit, login)
    qtbot.keyClicks(dialog.password_edit, password)
    qtbot.keyClick(dialog.password_edit, Qt.Key.Key_Return)


def test_enter_before_the_database_opens_waits_for_it(qtbot, ctx: AppContext) -> None:  # noqa: ANN001
    auth.create_user(ctx, "ana", "Ana Paula Rezende", Role.CLERK, "senha-certa-1")
    dialog = _dialog(qtbot, None)
    _type(qtbot, dialog, "ana", "senha-certa-1")
    assert dialog.message.text().startswith("Abrindo o banco de dados…")
    assert not dialog.enter_button.isEnabled()
    assert dialog.result() != LoginDialog.DialogCode.Accepted and dialog.user is None

    dialog.database_ready(ctx)
    assert dialog.result() == LoginDialog.DialogCode.Accepted
    assert dialog.user is not None and dialog.user.login == "ana"


def test_a_database_that_does_not_open_closes_the_dialog_with_its_reason(qtbot) -> None:  # noqa: ANN001
    dialog = _dialog(qtbot, None)
    failure = DatabaseError("O banco de dados não respondeu.")
    dialog.database_failed(failure)
    assert dialog.result() == LoginDialog.DialogCode.Rejected
    assert dialog.open_error is failure and dialog.user is None


def test_the_window_built_during_the_check_is_kept_only_for_that_user(qtbot, ctx: AppContext) -> None:  # noqa: ANN001
    auth.create_user(ctx, "bia", "Beatriz Lopes", Role.INSPECTOR, "senha-certa-2")
    built: list[QWidget] = []
    destroyed: list[bool] = []

    def prepare(context: AppContext, user: auth.CurrentUser) -> QWidget:
        assert context is ctx
        widget = QWidget()
        widget.setObjectName(f"window_for_{user.login}_{user.role.value}")
        widget.destroyed.connect(lambda: destroyed.append(True))
        built.append(widget)
        return widget

    dialog = _dialog(qtbot, ctx, prepare=prepare)
    _type(qtbot, dialog, "bia", "senha-errada")
    assert "Usuário ou senha incorretos" in dialog.message.text()
    from motodesk.models import User

    with ctx.read() as s:  # counted once, not twice
        assert s.scalar(select(User.failed_logins).where(User.login == "bia")) == 1
    assert len(built) == 1 and dialog.prepared is None
    qtbot.waitUntil(lambda: destroyed == [True])  # the unauthenticated window is thrown away

    qtbot.keyClicks(dialog.password_edit, "senha-certa-2")
    qtbot.keyClick(dialog.password_edit, Qt.Key.Key_Return)
    assert dialog.result() == LoginDialog.DialogCode.Accepted
    assert len(built) == 2 and dialog.prepared is built[1]
    assert dialog.prepared.objectName() == "window_for_bia_inspector"
    built[1].deleteLater()


def test_unknown_or_locked_logins_build_nothing(qtbot, ctx: AppContext) -> None:  # noqa: ANN001
    auth.create_user(ctx, "caio", "Caio Mendes", Role.CLERK, "senha-certa-3")
    calls: list[str] = []
    dialog = _dialog(qtbot, ctx, prepare=lambda c, u: calls.append(u.login) or QWidget())
    _type(qtbot, dialog, "ninguem", "qualquer-coisa")
    assert "Usuário ou senha incorretos" in dialog.message.text()
    for _ in range(auth.MAX_FAILED_LOGINS):
        dialog.login_edit.setText("caio")
        dialog.password_edit.setText("senha-errada")
        dialog.try_login()
    assert dialog.message.text() == auth.WRONG_CREDENTIALS  # locked, and it reads like a wrong password
    built_before = len(calls)
    dialog.password_edit.setText("senha-certa-3")
    dialog.try_login()
    assert dialog.message.text() == auth.WRONG_CREDENTIALS and len(calls) == built_before
    assert auth.find_login(ctx, "caio") is None and auth.find_login(ctx, "ninguem") is None
    assert calls.count("caio") == auth.MAX_FAILED_LOGINS  # only while the login named an open account


class Driver:
    """Plays the clerk from a timer while `run_gui` runs its own dialogs and event loop."""

    def __init__(self, steps: list[Callable[[], bool]]) -> None:
        self.steps = steps
        self.seen: list[str] = []
        self.timer = QTimer()
        self.timer.setInterval(5)
        self.timer.timeout.connect(self.tick)
        self.deadline = time.monotonic() + 60
        self.timer.start()

    def tick(self) -> None:
        if time.monotonic() > self.deadline:
            self.timer.stop()
            for widget in QApplication.topLevelWidgets():
                widget.close()
            raise AssertionError(f"the start-up did not get past step {len(self.seen)}")
        if self.steps and self.steps[0]():
            self.steps.pop(0)
            self.seen.append("ok")
        if not self.steps:
            self.timer.stop()


def _visible(name: str) -> QWidget | None:
    return next((w for w in QApplication.topLevelWidgets() if type(w).__name__ == name and w.isVisible()), None)


class FirstShow(QObject):
    """Records the login dialog's database at the moment it is first shown (not at the driver's next tick,
    which a loaded machine may delay past the moment the database opens behind it)."""

    def __init__(self, record: dict) -> None:
        super().__init__()
        self.record = record

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.Show and isinstance(watched, LoginDialog):
            self.record.setdefault("ctx_at_first_sight", watched.ctx)
        return False


def _log_in(login: str, password: str, record: dict) -> Callable[[], bool]:
    def step() -> bool:
        dialog = _visible("LoginDialog")
        if dialog is None:
            return False
        dialog.login_edit.setText(login)
        dialog.password_edit.setText(password)
        dialog.enter_button.click()
        return True

    return step


def _window_with_list(record: dict, key: str, then: Callable[[QWidget], None]) -> Callable[[], bool]:
    def step() -> bool:
        window = _visible("MainWindow")
        if window is None or not window.page_by_key.is_built("people"):
            return False
        if window.page_by_key["people"].findChild(QTableView).model().rowCount() == 0:
            return False
        record[key] = window.windowTitle()
        QTimer.singleShot(0, lambda: then(window))
        return True

    return step


def test_the_app_opens_the_database_behind_the_login_and_switches_user(qtbot, ctx: AppContext) -> None:  # noqa: ANN001
    from tests_helpers import valid_cpf

    from motodesk.services.people import PersonInput, save_person

    auth.create_user(ctx, "ana", "Ana Paula Rezende", Role.CLERK, "senha-certa-1")
    auth.create_user(ctx, "rui", "Rui Fonseca", Role.SUPERVISOR, "senha-certa-4")
    save_person(ctx.as_user(auth.find_login(ctx, "ana")), PersonInput(full_name="Maria das Dores", cpf=valid_cpf()))
    url = ctx.db.url.render_as_string(hide_password=False)
    record: dict = {}
    driver = Driver([
        _log_in("ana", "senha-certa-1", record),
        _window_with_list(record, "first", lambda w: w.action_collection["logout"].trigger()),
        _log_in("rui", "senha-certa-4", record),
        _window_with_list(record, "second", lambda w: w.close()),
    ])
    first_show = FirstShow(record)
    create_application().installEventFilter(first_show)
    try:
        assert run_gui(url) == 0
    finally:
        QApplication.instance().removeEventFilter(first_show)
    assert driver.steps == []
    assert record["ctx_at_first_sight"] is None  # the dialog was up before the database
    assert "Ana Paula Rezende" in record["first"] and "Rui Fonseca" in record["second"]


def test_a_named_database_that_does_not_open_is_explained(qtbot, monkeypatch: pytest.MonkeyPatch,  # noqa: ANN001
                                                          tmp_path) -> None:  # noqa: ANN001
    told: list[str] = []
    monkeypatch.setattr(QMessageBox, "critical", lambda parent, title, text: told.append(text))
    (tmp_path / "not-a-database.sqlite3").write_bytes(b"isto nao e um banco de dados " * 100)
    Driver([lambda: _visible("LoginDialog") is not None])
    create_application()
    assert run_gui(f"sqlite:///{tmp_path / 'not-a-database.sqlite3'}") == 1
    assert len(told) == 1 and "banco" in told[0].lower()


def test_the_configured_database_failure_is_shown_without_a_second_try(qtbot, monkeypatch: pytest.MonkeyPatch,  # noqa: ANN001
                                                                       tmp_path) -> None:  # noqa: ANN001
    from motodesk import config
    from motodesk.ui import wizard

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    choice = config.DatabaseChoice(kind="sqlite", path=str(tmp_path / "x.sqlite3"))
    monkeypatch.setattr(config, "load_choice", lambda: choice)
    monkeypatch.setattr(wizard, "open_choice", lambda *a: pytest.fail("opened again before the clerk asked"))
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "exec", lambda box: shown.append(box.text()) or 0)
    create_application()
    assert wizard.open_configured_context(failed=DatabaseError("O servidor recusou a conexão.")) is None
    assert len(shown) == 1 and shown[0].startswith("O servidor recusou a conexão.")


def test_the_window_start_path_loads_neither_sqlalchemy_nor_reportlab() -> None:
    """What runs before the login dialog shows: the database library loads behind it."""
    code = (
        "import sys\n"
        "from motodesk.cli import _parse\n"
        "_parse(['--database', 'sqlite:///x.sqlite3'])\n"
        "import motodesk.logs, motodesk.ui.app, motodesk.ui.login, motodesk.ui.ops\n"
        "heavy = sorted(m for m in ('sqlalchemy', 'reportlab', 'openpyxl', 'PIL', 'cv2', 'alembic') if m in sys.modules)\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == ""


def test_a_command_still_gets_the_whole_parser() -> None:
    from motodesk.cli import _parse

    args = _parse(["daily", "--database", "sqlite:///x.sqlite3"])
    assert args.command == "daily" and callable(args.handler)
    assert _parse(["--demo"]).command is None


def test_start_up_work_disposes_the_database_when_it_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    disposed: list[bool] = []

    class FakeDb:
        def dispose(self) -> None:
            disposed.append(True)

    class FakeCtx:
        db = FakeDb()

    monkeypatch.setattr(app_module, "_run_calendar", lambda ctx: None)
    monkeypatch.setattr(app_module, "warm_up", lambda: (_ for _ in ()).throw(DatabaseError("falhou")))
    with pytest.raises(DatabaseError):
        app_module._start_up_work(lambda: FakeCtx())()  # type: ignore[arg-type, return-value]
    assert disposed == [True]


def test_a_window_that_fails_to_build_early_does_not_stop_the_login(qtbot, ctx: AppContext) -> None:  # noqa: ANN001
    from motodesk.services.errors import DatabaseUnavailableError

    auth.create_user(ctx, "dora", "Dora Vieira", Role.CLERK, "senha-certa-5")

    def prepare(_ctx: AppContext, _user: auth.CurrentUser) -> QWidget:
        raise DatabaseUnavailableError("Não foi possível conectar ao servidor de banco de dados.")

    dialog = _dialog(qtbot, ctx, prepare=prepare)
    _type(qtbot, dialog, "dora", "senha-certa-5")
    assert dialog.result() == LoginDialog.DialogCode.Accepted
    assert dialog.user is not None and dialog.user.login == "dora" and dialog.prepared is None
