"""The application shell: QApplication in pt_BR, log, exception hook, database, login, main window."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

from PySide6.QtCore import QLibraryInfo, QLocale, QTranslator
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QMessageBox

from motodesk.models.db import ENV_URL, Database, DatabaseError
from motodesk.services.context import AppContext, CurrentUser
from motodesk.services.errors import MotodeskError
from motodesk.ui.errors import install_excepthook

log = logging.getLogger(__name__)
DEMO_PEOPLE = 300


def create_application(argv: list[str] | None = None) -> QApplication:
    """The QApplication with pt_BR locale and Qt's own pt_BR translations (Cancelar, Sim, Não)."""
    app = QApplication.instance()
    if app is None:
        app = QApplication(argv if argv is not None else sys.argv[:1])
    assert isinstance(app, QApplication)
    app.setApplicationName("MotoDesk")
    app.setOrganizationName("SESTRAN Patrocinio")
    locale = QLocale(QLocale.Language.Portuguese, QLocale.Country.Brazil)
    QLocale.setDefault(locale)
    if not getattr(app, "_motodesk_translator", None):
        translator = QTranslator(app)
        if translator.load(locale, "qtbase", "_", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
            app.installTranslator(translator)
            app._motodesk_translator = translator  # type: ignore[attr-defined]
        else:
            log.warning("qtbase_pt_BR translation not found")
    from motodesk.resources import resource_path

    app.setWindowIcon(QIcon(str(resource_path("icons", "motodesk.svg"))))
    return app


def demo_database_url() -> str:
    from platformdirs import user_data_dir

    folder = Path(user_data_dir("MotoDesk", "SESTRAN Patrocinio"))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'demonstracao.sqlite3'}"


def open_context(database: str | None, *, demo: bool = False) -> AppContext:
    """Open and prepare the database; a demo database is seeded on first use."""
    from motodesk.services.auth import count_users
    from motodesk.services.settings import ensure_defaults

    db = Database.open(demo_database_url() if demo and not database else database)
    try:
        db.prepare()
        ctx = AppContext(db)
        ensure_defaults(ctx)
    except BaseException:
        db.dispose()  # a refused database (outdated, too new, unreachable) leaves no connection open
        raise
    if demo and count_users(ctx) == 0:
        from motodesk.services.demo import seed_demo

        seed_demo(ctx, DEMO_PEOPLE)
    return ctx


def login(ctx: AppContext, *, demo: bool, login_name: str | None = None) -> CurrentUser | None:
    from motodesk.services.demo import DEMO_PASSWORD
    from motodesk.ui.login import LoginDialog

    hint = (f"Banco de demonstração: entre como atendente, vistoriador, supervisor ou admin, "
            f"senha {DEMO_PASSWORD}.") if demo else None
    dialog = LoginDialog(ctx, hint=hint)
    if demo or login_name:
        dialog.login_edit.setText(login_name or "atendente")
        dialog.password_edit.setFocus()
    if dialog.exec() != LoginDialog.DialogCode.Accepted:
        return None
    return dialog.user


def build_main_window(ctx: AppContext):  # noqa: ANN201
    from motodesk.ui.mainwindow import MainWindow

    return MainWindow(ctx)


def _run_calendar(ctx: AppContext) -> None:
    """Lift ended suspensions and record ended terms before anyone looks (never blocks the start)."""
    from motodesk.services.permits import run_calendar

    try:
        result = run_calendar(ctx)
    except (DatabaseError, MotodeskError):
        log.exception("daily calendar run failed")
        return
    if result.reinstated or result.expired:
        log.info("calendar: reinstated %s; expired %s", result.reinstated, result.expired)


def run_gui(database: str | None = None, *, demo: bool = False) -> int:
    app = create_application()
    install_excepthook()
    first_login = None
    try:
        if database or demo or os.environ.get(ENV_URL):
            ctx = open_context(database, demo=demo)
        else:  # this workstation's configured database, or the first-run wizard
            from motodesk.ui.wizard import open_configured_context

            opened = open_configured_context()
            if opened is None:
                return 0
            ctx, first_login = opened
    except (DatabaseError, MotodeskError) as exc:
        QMessageBox.critical(None, "MotoDesk – banco de dados", str(exc))
        return 1
    user = login(ctx, demo=demo, login_name=first_login)
    if user is None:
        return 0
    _run_calendar(ctx)
    window = build_main_window(ctx.as_user(user))
    window.show()
    return app.exec()
