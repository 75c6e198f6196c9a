"""The application shell: QApplication in pt_BR, log, exception hook, database, login, main window.

Start-up order (what the clerk waits for is only Qt and the login dialog): the dialog shows first;
a worker thread imports SQLAlchemy and the models, opens and prepares the database, runs the day's
calendar and imports the first page's screen while the clerk types. Enter pressed before that work
is done waits for it; a database that does not open closes the dialog with the same pt_BR
explanation (and, for this workstation's configured database, the same retry and settings) as
before. Only this module's functions below `run_gui` import the database layer, inside functions.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QLibraryInfo, QLocale, QTranslator
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QMainWindow, QMessageBox, QWidget

from motodesk.errors import ENV_URL, DatabaseError
from motodesk.services.errors import MotodeskError
from motodesk.ui.errors import install_excepthook

if TYPE_CHECKING:
    from motodesk.config import DatabaseChoice
    from motodesk.services.context import AppContext, CurrentUser
    from motodesk.ui.login import LoginDialog

log = logging.getLogger(__name__)
DEMO_PEOPLE = 300

#: The focus is plainly visible on every input, button, list and table (keyboard-only work).
FOCUS_COLOUR = "#1565c0"
#: A button has the same box (border + padding) with and without the focus, so the focus never
#: clips its label: Qt sizes a button once, for the unfocused state.
FOCUS_STYLE = f"""
QPushButton {{
    border: 1px solid #8c8c8c; border-radius: 4px; padding: 5px 11px; background: #f6f6f6; min-height: 14px;
}}
QPushButton:default {{ border-color: #4d4d4d; }}
QPushButton:hover {{ background: #eef4fb; }}
QPushButton:pressed, QPushButton:checked {{ background: #cfe3f8; }}
QPushButton:disabled {{ color: #8a8a8a; background: #efefef; border-color: #c4c4c4; }}
QPushButton:focus {{
    border: 2px solid {FOCUS_COLOUR}; border-radius: 4px; padding: 4px 10px; background: #e3f2fd;
}}
QToolButton:focus {{
    border: 2px solid {FOCUS_COLOUR}; border-radius: 4px; padding: 4px 10px; background: #e3f2fd;
}}
QLineEdit:focus, QComboBox:focus, QAbstractSpinBox:focus, QPlainTextEdit:focus, QTextEdit:focus {{
    border: 2px solid {FOCUS_COLOUR}; border-radius: 3px;
}}
QTableView:focus, QListView:focus, QTreeView:focus, QScrollArea:focus {{
    border: 2px solid {FOCUS_COLOUR};
}}
QCheckBox:focus, QRadioButton:focus {{
    background: #bbdefb; border: 1px solid {FOCUS_COLOUR}; border-radius: 3px;
}}
QTabBar::tab:focus {{
    background: #bbdefb;
}}
"""


class AccessKeyTranslator(QTranslator):
    """Qt's strings that gained an access key after the pt_BR catalogue was made ("&Look in:",
    "Files of &type:" in the file dialog): translated from the catalogue's entry without the "&",
    with the access key put back in front. Without it those labels stay in English."""

    def __init__(self, catalogue: QTranslator, parent: QApplication) -> None:
        super().__init__(parent)
        self.catalogue = catalogue

    def translate(self, context: str, source: str, disambiguation: str | None = None, n: int = -1) -> str:
        if not source or "&" not in source:
            return ""
        plain = source.replace("&&", "\0").replace("&", "").replace("\0", "&&")
        text = self.catalogue.translate(context, plain, disambiguation, n)
        return f"&{text}" if text else ""

    def isEmpty(self) -> bool:  # noqa: N802
        return False


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
            supplement = AccessKeyTranslator(translator, app)
            app.installTranslator(supplement)  # asked after qtbase (Qt asks the last installed first)
            app.installTranslator(translator)
            app._motodesk_translator = (translator, supplement)  # type: ignore[attr-defined]
        else:
            log.warning("qtbase_pt_BR translation not found")
    from motodesk.ui import accessible, collector, focus_watch, keyboard

    collector.install(app)  # cycles are freed on the GUI thread, never in a worker (a Qt object there crashed)
    accessible.install(app)
    keyboard.install(app)  # Tab stops, first focus, access keys, Enter (issue #26)
    focus_watch.install(app)  # the focused widget scrolled into view; MOTODESK_FOCUS_TRACE (issue #26)
    if FOCUS_STYLE not in (app.styleSheet() or ""):
        app.setStyleSheet((app.styleSheet() or "") + FOCUS_STYLE)
    from motodesk.resources import resource_path

    app.setWindowIcon(QIcon(str(resource_path("icons", "motodesk.svg"))))
    return app


def demo_database_url() -> str:
    from platformdirs import user_data_dir

    folder = Path(user_data_dir("MotoDesk", "SESTRAN Patrocinio"))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'demonstracao.sqlite3'}"


def open_context(database: str | None, *, demo: bool = False) -> AppContext:
    """Open and prepare the database; a demo database is seeded on first use (off the GUI thread)."""
    from motodesk.services import connection

    return connection.open_context(demo_database_url() if demo and not database else database,
                                   demo_people=DEMO_PEOPLE if demo else 0)


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


class NeedsInteraction(Exception):
    """The configured database needs the clerk first (a password to ask, a first administrator)."""


def _configured_opener(choice: DatabaseChoice) -> Callable[[], AppContext]:
    def open_configured() -> AppContext:
        from motodesk import config
        from motodesk.services.auth import count_users
        from motodesk.ui.wizard import open_choice

        password = config.load_password(choice) if choice.kind == "postgresql" else None
        if choice.kind == "postgresql" and password is None:
            raise NeedsInteraction("password")
        ctx = open_choice(choice, password)
        if count_users(ctx) == 0:
            ctx.db.dispose()
            raise NeedsInteraction("first administrator")
        return ctx

    return open_configured


def _probe_of(url: str) -> Callable[[], bool]:
    def probe() -> bool:
        from motodesk.probe import database_is_current

        return database_is_current(url)

    return probe


def warm_up(first_page: str = "people") -> None:
    """What the first seconds after Enter would otherwise import: the window, its first page and
    the mapper configuration of the first query (run on the start-up worker, no widget made)."""
    import motodesk.services.auth  # noqa: F401  (argon2 and the login query)
    import motodesk.ui.db_settings  # noqa: F401  (the window's admin tools)
    from motodesk.services.connection import configure_models
    from motodesk.ui.mainwindow import load_page_module

    configure_models()
    load_page_module(first_page)


def _start_up_work(open_fn: Callable[[], AppContext],
                   warmed: threading.Event | None = None,
                   probe: Callable[[], bool] | None = None) -> Callable[..., AppContext]:
    """The worker's start-up: open and check the database, run the day's calendar, then warm the
    window's modules. Run with ``report`` (a ``progress=True`` ServiceOp's callback) it first says
    "database ready" (``report(0, 2)``) when ``probe`` (`motodesk.probe`: the driver alone, before
    SQLAlchemy loads) finds the database open and of this version (issue 28: open and check the
    database first); then, once SQLAlchemy, the models and the context are loaded, it hands over the
    context (``report(1, 2)``; an Entrar pressed before waits for it), so the login waits neither for
    the calendar nor for imports that are the window's, not the database's; the window is still
    built only after both (``warmed``). A probe that says no (a new or older file, an unreachable
    server) changes nothing: the full open says "ready" or explains the failure as before.
    ``warmed`` is set once the work is over (done or failed):
    the GUI thread builds no window before that (see `login`), so it never makes widgets while this
    thread is still importing the same PySide6 modules (the segfault reverted in a0da068). A warm-up
    that fails after "ready" only logs: the window imports the same modules itself and reports a
    real failure there."""
    shared: list[AppContext] = []

    def work(report: Callable[[int, int], None] | None = None,
             cancelled: Callable[[], bool] | None = None) -> AppContext:
        try:
            if report is not None and probe is not None and probe():
                report(0, 2)  # opened and checked by the driver: SQLAlchemy and the models load next
            ctx = open_fn()
            if report is None:
                try:
                    _run_calendar(ctx)
                    warm_up()
                except BaseException:
                    ctx.db.dispose()
                    raise
                return ctx
            shared.append(ctx)
            # The database is open and checked: the GUI thread takes the context from ``shared`` and
            # the password check may start. The day's calendar (issue 28: a third of the wait for
            # "ready") runs next, still before any window is built (the window waits for ``warmed``).
            report(1, 2)
            try:
                _run_calendar(ctx)  # logs the database's refusals itself
            except Exception:  # noqa: BLE001 - the calendar never blocks the start
                log.exception("daily calendar run failed")
            try:
                warm_up()
            except Exception:  # noqa: BLE001 - an optimisation only
                log.exception("start-up warm-up failed")
            return ctx
        finally:
            if warmed is not None:
                warmed.set()

    work.shared = shared  # type: ignore[attr-defined]
    return work


def _prepare_window(ctx: AppContext, user: CurrentUser) -> QWidget:
    return build_main_window(ctx.as_user(user))


def _prepare_when_warmed(warmed: threading.Event) -> Callable[[AppContext, CurrentUser], QWidget]:
    """`_prepare_window` that first waits for the start-up worker's warm-up to end: Entrar pressed in
    the database-ready-but-still-warming gap waits here (the GUI thread already waits for the
    password check at this point), and no widget is made while the worker imports PySide6."""
    def prepare(ctx: AppContext, user: CurrentUser) -> QWidget:
        if not warmed.is_set():
            warmed.wait()
        return _prepare_window(ctx, user)

    return prepare


def login(ctx: AppContext | None, *, hint: str | None = None, login_name: str | None = None,
          open_fn: Callable[[], AppContext] | None = None,
          opening: str = "Abrindo o banco de dados…",
          probe: Callable[[], bool] | None = None) -> tuple[AppContext | None, LoginDialog, BaseException | None]:
    """The login dialog; with `open_fn` (and no context) the database opens behind it while the
    clerk types (`probe`, when given, checks it first with the driver alone: `_start_up_work`).
    Returns (context, dialog, the error that kept the database from opening)."""
    from motodesk.ui.login import LoginDialog
    from motodesk.ui.ops import ServiceOp

    warmed = threading.Event()
    if open_fn is None:
        warmed.set()
    dialog = LoginDialog(ctx, hint=hint, opening=opening, prepare=_prepare_when_warmed(warmed),
                         login_name=login_name, remember=True)
    dialog.warmed = warmed  # type: ignore[attr-defined]  # read by bench/bench_startup.py
    opened: list[AppContext] = [ctx] if ctx is not None else []
    if open_fn is not None:
        def ready(ctx: AppContext) -> None:
            if not opened:
                opened.append(ctx)
                dialog.database_ready(ctx)

        def failed(exc: BaseException) -> bool:
            dialog.database_failed(exc)
            return True  # the dialog closes and run_gui explains it (or the wizard takes over)

        def progressed(done: int, _total: int) -> None:
            if done == 0:
                dialog.database_checked()
            else:
                ready(start_up.shared[0])  # type: ignore[attr-defined]

        start_up = _start_up_work(open_fn, warmed, probe)
        work = (ServiceOp(dialog, start_up, progress=True, lock=False)
                .progress(progressed).success(ready).failure(failed))
        # Started once the dialog is on screen: the worker holds Python's GIL for most of its
        # imports, and the dialog should not wait for them.
        dialog.painted.connect(work.run)
    dialog.exec()
    return (opened[0] if opened else None), dialog, dialog.open_error


def _demo_hint() -> str:
    from motodesk.services.demo import DEMO_PASSWORD

    return (f"Banco de demonstração: entre como atendente, vistoriador, supervisor ou admin, "
            f"senha {DEMO_PASSWORD}.")


def run_gui(database: str | None = None, *, demo: bool = False) -> int:
    app = create_application()
    install_excepthook()
    hint = login_name = None
    opening = "Abrindo o banco de dados…"
    configured: DatabaseChoice | None = None
    open_fn: Callable[[], AppContext] | None = None
    if not demo:  # a restarted window: the user who last entered here
        from motodesk import config as workstation

        login_name = workstation.load_last_login()
    probe: Callable[[], bool] | None = None
    if database or demo or os.environ.get(ENV_URL):
        def open_fn() -> AppContext:
            return open_context(database, demo=demo)

        url = database or (None if demo else os.environ.get(ENV_URL))
        if url:
            probe = _probe_of(url)

        if demo:
            hint, login_name, opening = _demo_hint(), "atendente", "Preparando o banco de demonstração…"
    else:  # this workstation's configured database, or the first-run wizard
        from motodesk import config

        configured = config.load_choice()
        if configured is not None:
            open_fn = _configured_opener(configured)
            if configured.kind == "sqlite":  # a server's password is read by the opener itself
                probe = _probe_of(configured.url())

    ctx: AppContext | None = None
    dialog: LoginDialog | None = None
    failure: BaseException | None = None
    if open_fn is not None:
        ctx, dialog, failure = login(None, hint=hint, login_name=login_name, open_fn=open_fn, opening=opening,
                                     probe=probe)
        if failure is None and dialog.user is None:
            return 0  # the clerk closed the login dialog
        if failure is not None and not isinstance(failure, NeedsInteraction | DatabaseError | MotodeskError):
            raise failure  # a bug: the exception hook explains it
        if failure is not None and configured is None:  # named by --database or the environment
            QMessageBox.critical(None, "MotoDesk – banco de dados", str(failure))
            return 1
    if ctx is None:  # first run, a password to ask, or the configured database refused: the wizard's way
        from motodesk.ui.wizard import off_gui_thread, open_configured_context

        opened = open_configured_context(failed=None if isinstance(failure, NeedsInteraction) else failure)
        if opened is None:
            return 0
        ctx, login_name = opened
        opened_ctx = ctx
        off_gui_thread(None, lambda: _run_calendar(opened_ctx))
        dialog = None
    while True:
        if dialog is None or dialog.user is None:
            _ctx, dialog, _failure = login(ctx, hint=hint, login_name=login_name)
            if dialog.user is None:
                return 0
        window = dialog.prepared or _prepare_window(ctx, dialog.user)
        window.show()
        from motodesk.ui.live import start_live_updates

        live = start_live_updates(window, ctx) if isinstance(window, QMainWindow) else None  # other stations' changes
        code = app.exec()
        if live is not None:
            live.stop()
        if not getattr(window, "switch_user_requested", False):
            return code
        window.deleteLater()  # "Trocar de usuário": the window closed, the login dialog again
        login_name, dialog = None, None
