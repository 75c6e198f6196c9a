"""Small helpers for tests (importable as `tests_helpers` from any test)."""

from __future__ import annotations

import contextlib
import functools
import os
import re
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from types import FrameType
from typing import TypeVar

import pytest
from validate_docbr import CPF
from wording_table import WORDING  # type: ignore[import-not-found]

from motodesk.models.db import Database
from motodesk.rules.common import Role, Status, Verdict
from motodesk.services.context import AppContext, CurrentUser
from motodesk.services.error_codes import CODES
from motodesk.services.errors import RuleViolationError

T = TypeVar("T")

_cpf = CPF()
_seen: set[str] = set()


def valid_cpf() -> str:
    """A fresh valid CPF (digits only), never the same twice in a test run."""
    while True:
        value = _cpf.generate()
        if value not in _seen and len(set(value)) > 1:
            _seen.add(value)
            return value


def race(db_url: str, actions: Sequence[Callable[[AppContext], T]], role: Role = Role.CLERK,
         timeout: float = 120) -> tuple[list[T], list[BaseException]]:
    """Run every action at the same instant, each from its own workstation (own engine and connection,
    released together by a barrier); returns (results, exceptions)."""
    barrier = threading.Barrier(len(actions))
    won: list[T] = []
    lost: list[BaseException] = []
    lock = threading.Lock()

    def workstation(n: int, action: Callable[[AppContext], T]) -> None:
        db = Database.open(db_url)
        ctx = AppContext(db, CurrentUser(id=None, login=f"estacao{n}", full_name=f"Estação {n}", role=role))
        try:
            with db.engine.connect():
                pass  # connected before the start, as a workstation would be
            barrier.wait(timeout=60)
            result = action(ctx)
            with lock:
                won.append(result)
        except BaseException as exc:  # noqa: BLE001 - collected for the test to judge
            with lock:
                lost.append(exc)
        finally:
            db.dispose()

    threads = [threading.Thread(target=workstation, args=(n, a)) for n, a in enumerate(actions)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout)
    assert not any(t.is_alive() for t in threads), "a workstation hung"
    return won, lost


# -- waits that hold on a busy machine ------------------------------------------------------------
#: The longest a wait grows on a loaded machine (load 16 on 2 cores: a 5 s wait becomes 40 s).
MAX_SLOWDOWN = 8.0


def slowdown() -> float:
    """How much slower than a quiet machine this one runs now: ``MOTODESK_TEST_SLOWDOWN`` (a factor,
    for a slow CI runner) times the load per core of the last minute (at least 1, at most
    :data:`MAX_SLOWDOWN` in all)."""
    try:
        factor = float(os.environ.get("MOTODESK_TEST_SLOWDOWN", "1") or 1)
    except ValueError:
        factor = 1.0
    try:
        per_core = os.getloadavg()[0] / (os.cpu_count() or 1)
    except (AttributeError, OSError):  # Windows has no load average
        per_core = 1.0
    return min(MAX_SLOWDOWN, max(1.0, factor) * max(1.0, per_core))


def wait_timeout(ms: int = 5_000) -> int:
    """The timeout (milliseconds) of a wait on a condition — ``qtbot.waitUntil``, ``waitSignal``,
    a thread's join — that takes ``ms`` on a quiet machine, scaled by :func:`slowdown`. Every GUI
    test waits through it: a bare number failed the suite on a busy machine (issue #27, item 7)."""
    return int(ms * slowdown())


def wait_seconds(seconds: float = 5.0) -> float:
    """:func:`wait_timeout` in seconds (``Event.wait``, ``Thread.join``, a polling deadline)."""
    return wait_timeout(int(seconds * 1000)) / 1000


#: pytest-qt's waits that take a ``timeout`` (milliseconds, 5 000 when not given).
QTBOT_WAITS = ("waitUntil", "waitSignal", "waitSignals", "waitCallback", "waitExposed", "waitActive")


def scale_qtbot_waits() -> None:
    """Every ``qtbot`` wait on a condition times out after :func:`wait_timeout` of its timeout: the
    default 5 s and a test's own ``timeout=10_000`` alike mean "on a quiet machine". Installed once
    for the run by ``tests/conftest.py``; ``qtbot.wait(ms)`` (a fixed pause) is left alone — a test
    waits on a condition instead."""
    try:
        from pytestqt.qtbot import QtBot
    except ImportError:  # no GUI tests in this environment
        return
    if getattr(QtBot, "_motodesk_scaled", False):
        return
    for name in QTBOT_WAITS:
        original = getattr(QtBot, name)

        def scaled(self: object, *args: object, _original: Callable[..., object] = original,
                   timeout: int | None = 5_000, **kwargs: object) -> object:
            if timeout:  # None or 0: pytest-qt's "no timeout"
                timeout = wait_timeout(timeout)
            return _original(self, *args, timeout=timeout, **kwargs)

        functools.update_wrapper(scaled, original)
        setattr(QtBot, name, scaled)
    QtBot._motodesk_scaled = True  # type: ignore[attr-defined]


# -- waiting on the GUI's own state, not on a guessed number of milliseconds ------------------------
#: A single-shot timer of a window at most this long is work about to happen (a debounced search,
#: a coalesced reload, a live re-check); longer ones (reminders, idle locks) are not waited for.
SHORT_TIMER_MS = 1_000


def drain_events() -> None:
    """Deliver what is already posted to the GUI thread — queued results, due timers, layout and
    paint requests: what a short ``qtbot.wait(N)`` was for, without guessing ``N``."""
    from PySide6.QtCore import QCoreApplication, QEventLoop

    for _ in range(3):
        QCoreApplication.sendPostedEvents()
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents)


def no_button_down() -> bool:
    """No button is held down: an access key's animated click (Qt fires it 100 ms after Alt+letter)
    has fired."""
    from PySide6.QtWidgets import QAbstractButton, QApplication

    return not any(b.isDown() for w in QApplication.topLevelWidgets() for b in w.findChildren(QAbstractButton))


def gui_settled() -> bool:
    """Nothing of the windows is still on its way: no animated click, no service call running, no
    short single-shot timer (:data:`SHORT_TIMER_MS`) waiting to fire."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from motodesk.ui.ops import ServiceOp

    if ServiceOp.running() or not no_button_down():
        return False
    return not any(t.isActive() and t.isSingleShot() and t.interval() <= SHORT_TIMER_MS
                   for w in QApplication.topLevelWidgets() for t in w.findChildren(QTimer))


def settle_gui(qtbot: object) -> None:
    """Wait until :func:`gui_settled` holds twice in a row with the posted events delivered between
    (a result that starts the next call — a save, then the list's reload — is waited for too)."""
    def settled() -> bool:
        if not gui_settled():
            return False
        drain_events()
        return gui_settled()

    qtbot.waitUntil(settled, timeout=10_000)  # type: ignore[attr-defined]


# -- the GUI thread opens no database session (tests/gui_guard.py) -----------------------------
#: Where MotoDesk's UI code lives: a frame of a file under it is UI code.
UI = str(Path(__file__).resolve().parents[1] / "motodesk" / "ui") + os.sep
TESTS = str(Path(__file__).resolve().parent) + os.sep
#: (module file under motodesk/ui, function) of the UI code allowed to wait for the database on the
#: GUI thread: the login's check of the typed user (the clerk waits for it to enter anyway).
GUI_DB_ALLOWED = {("login.py", "try_login")}


def _on_gui_thread() -> bool:
    from PySide6.QtCore import QCoreApplication, QThread

    app = QCoreApplication.instance()
    if app is None:
        return threading.current_thread() is threading.main_thread()
    return QThread.currentThread() is app.thread()


def _ui_caller(frame: FrameType | None) -> tuple[str, int, str] | None:
    """The innermost frame of motodesk/ui on the stack: (file, line, function); None when test code
    is nearer (a test's timer that checks the database while a dialog runs its own event loop)."""
    while frame is not None:
        filename = frame.f_code.co_filename
        if filename.startswith(TESTS) and not filename.endswith(os.sep + "tests_helpers.py"):
            return None
        if filename.startswith(UI):
            return filename[len(UI):], frame.f_lineno, frame.f_code.co_name
        frame = frame.f_back
    return None


class GuiThreadDatabase:
    """What a test's UI asked of the database on the GUI thread."""

    def __init__(self) -> None:
        self.sites: dict[str, int] = {}

    def check(self, what: str) -> None:
        if not _on_gui_thread():
            return
        caller = _ui_caller(sys._getframe(2))
        if caller is None:
            return  # the test's own set-up or check
        filename, line, function = caller
        if (filename, function) in GUI_DB_ALLOWED:
            return
        site = f"motodesk/ui/{filename}:{line} in {function} ({what})"
        self.sites[site] = self.sites.get(site, 0) + 1


def _screenshot_dir() -> Path:
    """Where tests save what a person should look at.

    `docs/screenshots/` when MOTODESK_SCREENSHOTS=1 (to refresh the committed pictures), otherwise a
    scratch folder, so a test run never rewrites tracked files.
    """
    if os.environ.get("MOTODESK_SCREENSHOTS") == "1":
        return Path(__file__).resolve().parents[1] / "docs" / "screenshots"
    folder = Path(tempfile.gettempdir()) / "motodesk-screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


SCREENSHOTS = _screenshot_dir()


# -- the counter's screen: fits 1366x768, reachable from the keyboard --------------------------------
def fits_screen(window: object) -> list[str]:
    """What of a shown top-level window lies outside the screen: the window itself, or any visible
    button (its buttons must be visible without moving the window). Empty when it fits."""
    from PySide6.QtWidgets import QAbstractButton, QApplication, QWidget

    assert isinstance(window, QWidget)
    screen = (window.screen() or QApplication.primaryScreen()).availableGeometry()
    problems = []
    frame = window.frameGeometry()
    if not screen.contains(frame):
        problems.append(f"{type(window).__name__} {frame.width()}x{frame.height()} at ({frame.x()},{frame.y()}) "
                        f"outside the {screen.width()}x{screen.height()} screen")
    for button in window.findChildren(QAbstractButton):
        if not button.isVisibleTo(window) or button.window() is not window:
            continue
        rect = button.rect().translated(button.mapTo(window, button.rect().topLeft()))
        if not window.rect().contains(rect):
            problems.append(f"button {button.text()!r} cut off at {rect.getRect()}")
            continue
        seen = button.visibleRegion().boundingRect()
        if not seen.isEmpty() and seen.width() < button.width():
            # clipped sideways by a scroll area or a parent too narrow for it: the page is wider than
            # its place (scrolling up and down a long form is fine; a clerk never scrolls sideways)
            problems.append(f"button {button.text()!r} cut off at the side: {seen.width()} of {button.width()} px "
                            "in view")
    return problems


def missing_access_keys(root: object) -> list[str]:
    """Visible buttons with neither an access key (&) nor a shortcut, and visible form labels with an
    input but no access key: the things a clerk would need the mouse for."""
    from PySide6.QtWidgets import QAbstractButton, QLabel, QToolButton, QWidget

    assert isinstance(root, QWidget)
    missing = []
    for button in root.findChildren(QAbstractButton):
        if not button.isVisibleTo(root) or not button.text() or isinstance(button, QToolButton) and button.autoRaise():
            continue
        if button.parent() is not None and type(button.parent()).__name__ in ("QCalendarWidget", "QTabBar"):
            continue
        if "&" not in button.text().replace("&&", "") and button.shortcut().isEmpty():
            missing.append(f"button {button.text()!r}")
    for label in root.findChildren(QLabel):
        buddy = label.buddy()
        if buddy is not None and label.isVisibleTo(root) and "&" not in label.text().replace("&&", ""):
            missing.append(f"label {label.text()!r}")
    return missing


def existing_register(session: object) -> None:
    """Test fixtures only: this session writes the register *as it already is* (permits issued, links made,
    certificates judged long ago, by steps the test does not replay), so the guard of legal state
    (:mod:`motodesk.models.guarded`) lets it write every guarded column until the session ends. The
    program itself never does this: its writes pass :func:`motodesk.services.judged.judged`.
    """
    from motodesk.models.guarded import GUARDED, INSERT, JUDGED_KEY

    keys = {key for g in GUARDED for key in g.keys()} | {f"{g.table}.{INSERT}" for g in GUARDED}
    session.info.setdefault(JUDGED_KEY, []).append(keys)  # type: ignore[attr-defined]


# -- refusals named by their code, not their wording ------------------------------------------------
E = TypeVar("E", bound=BaseException)


def check_wording(key: str, text: str) -> None:
    """The pt_BR sentence of a refusal, checked against the one wording table
    (``tests/wording_table.py``: rule_id or code -> the patterns its sentences follow)."""
    patterns = WORDING.get(key)
    if patterns is not None:
        assert any(re.search(p, text) for p in patterns), \
            f"the wording of {key!r} follows none of its patterns in tests/wording_table.py: {text}"


def names_in(said: BaseException | str, *names: object) -> None:
    """The data an error or a report names (a file, a table, a login, an id), not its wording: each
    of ``names`` appears in the message, whatever the sentence around it says."""
    text = str(said)
    missing = [str(n) for n in names if str(n) not in text]
    assert not missing, f"{missing} not named in: {text}"


@contextlib.contextmanager
def raises_code(exc_type: type[E], code: str, *, fields: Sequence[str] = ()) -> Iterator[pytest.ExceptionInfo[E]]:
    """``pytest.raises(exc_type)`` that also asserts the error's stable ``code`` (see
    :mod:`motodesk.services.error_codes`) and, for bad input, that each of ``fields`` has a reason;
    the wording is checked in the wording tables only."""
    assert code in CODES, f"code {code!r} is not registered in motodesk.services.error_codes"
    with pytest.raises(exc_type) as info:
        yield info
    got = getattr(info.value, "code", None)
    assert got == code, f"code {got!r}, expected {code!r}: {info.value}"
    reasons = getattr(info.value, "fields", {})
    missing = [f for f in fields if f not in reasons]
    assert not missing, f"no reason for {missing}; reasons for {sorted(reasons)}: {info.value}"
    key = f"{code}:{fields[0]}" if fields else code
    check_wording(key, "\n".join([str(info.value), *reasons.values()]))


@contextlib.contextmanager
def raises_rule(*rule_ids: str, exc_type: type[RuleViolationError] = RuleViolationError,
                ) -> Iterator[pytest.ExceptionInfo[RuleViolationError]]:
    """The law refused: a :class:`RuleViolationError` (or ``exc_type``) whose blocking verdicts
    include every one of ``rule_ids``."""
    assert rule_ids, "name at least one rule_id"
    with pytest.raises(exc_type) as info:
        yield info
    found = info.value.rule_ids
    missing = [r for r in rule_ids if r not in found]
    assert not missing, f"rules {missing} not among the refusal's {list(found)}: {info.value}"
    for rule_id in rule_ids:
        check_wording(rule_id, "\n".join(v.message for v in info.value.verdicts if v.rule_id == rule_id))


def assert_refused(verdicts: Iterable[Verdict], *rule_ids: str) -> None:
    """Each of ``rule_ids`` is among the not-met verdicts of a rule function's answer."""
    refused = [v for v in verdicts if v.status is Status.NOT_MET]
    missing = [r for r in rule_ids if r not in {v.rule_id for v in refused}]
    assert not missing, f"rules {missing} not refused; refused: {[v.rule_id for v in refused]}"
    for rule_id in rule_ids:
        check_wording(rule_id, "\n".join(v.message for v in refused if v.rule_id == rule_id))


def run_small_suite(folder: Path, files: Mapping[str, str], *args: str,
                    timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """A pytest suite of its own: ``files`` (name → text) written into ``folder`` and run there by a new
    process, with this tests folder and the project on its path and the offscreen screen; ``args`` go
    to pytest (``-n 1``, say). For the tests of the suite's own plugins (a crash, a hang at teardown)."""
    for name, text in files.items():
        (folder / name).write_text(text)
    tests = Path(__file__).resolve().parent
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen",
           "PYTHONPATH": os.pathsep.join([str(tests), str(tests.parent), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "pytest", *args, "-q", "-p", "no:cacheprovider",
                           "--rootdir", str(folder), "-c", os.devnull, str(folder)],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=timeout, check=False)
