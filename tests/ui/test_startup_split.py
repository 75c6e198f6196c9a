"""The start-up worker says "database ready" once the database is open, before the day's calendar and its
warm-up (issue 28); the window
is built only once the warm-up is over, so no widget is made while the worker imports PySide6
(the segfault undone in a0da068)."""

from __future__ import annotations

import threading

import pytest

from motodesk.errors import DatabaseError
from motodesk.ui import app as app_module


class FakeDb:
    def __init__(self) -> None:
        self.disposed = False

    def dispose(self) -> None:
        self.disposed = True


class FakeCtx:
    def __init__(self) -> None:
        self.db = FakeDb()


def test_ready_is_reported_before_the_calendar_and_the_warm_up(monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[str] = []
    warmed = threading.Event()
    ctx = FakeCtx()
    monkeypatch.setattr(app_module, "_run_calendar", lambda c: events.append("calendar"))
    monkeypatch.setattr(app_module, "warm_up", lambda: events.append(f"warm-up (warmed={warmed.is_set()})"))
    work = app_module._start_up_work(lambda: events.append("open") or ctx, warmed)  # type: ignore[arg-type, func-returns-value]

    def report(done: int, total: int) -> None:
        events.append(f"ready {done}/{total} (shared={work.shared == [ctx]}, warmed={warmed.is_set()})")  # type: ignore[attr-defined]

    assert work(report, lambda: False) is ctx
    assert events == ["open", "ready 1/2 (shared=True, warmed=False)", "calendar", "warm-up (warmed=False)"]
    assert warmed.is_set() and not ctx.db.disposed


def test_a_warm_up_that_fails_after_ready_only_logs_and_still_lets_the_window_build(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    warmed = threading.Event()
    ctx = FakeCtx()
    monkeypatch.setattr(app_module, "_run_calendar", lambda c: None)
    monkeypatch.setattr(app_module, "warm_up", lambda: (_ for _ in ()).throw(ImportError("sem módulo")))
    work = app_module._start_up_work(lambda: ctx, warmed)  # type: ignore[arg-type, return-value]
    assert work(lambda done, total: None, lambda: False) is ctx
    assert warmed.is_set() and not ctx.db.disposed
    assert "start-up warm-up failed" in caplog.text


def test_a_database_that_fails_to_open_still_ends_the_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    warmed = threading.Event()

    def refuse() -> FakeCtx:
        raise DatabaseError("O banco de dados não respondeu.")

    work = app_module._start_up_work(refuse, warmed)  # type: ignore[arg-type]
    with pytest.raises(DatabaseError):
        work(lambda done, total: None, lambda: False)
    assert warmed.is_set()


def test_the_window_is_built_only_after_the_warm_up(monkeypatch: pytest.MonkeyPatch) -> None:
    warmed = threading.Event()
    seen: list[bool] = []
    monkeypatch.setattr(app_module, "_prepare_window", lambda ctx, user: seen.append(warmed.is_set()) or "janela")
    prepare = app_module._prepare_when_warmed(warmed)
    release = threading.Timer(0.05, warmed.set)
    release.start()
    try:
        assert prepare(FakeCtx(), object()) == "janela"  # type: ignore[arg-type]
    finally:
        release.cancel()
    assert seen == [True]


def test_a_probe_says_ready_before_sqlalchemy_and_the_models_load(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28: open and check the database first (the driver's probe), then load the rest."""
    events: list[str] = []
    ctx = FakeCtx()
    monkeypatch.setattr(app_module, "_run_calendar", lambda c: events.append("calendar"))
    monkeypatch.setattr(app_module, "warm_up", lambda: events.append("warm-up"))
    for answer in (True, False):
        events.clear()
        work = app_module._start_up_work(lambda: events.append("open") or ctx, threading.Event(),  # type: ignore[arg-type, func-returns-value]
                                         lambda a=answer: events.append("probe") or a)  # type: ignore[func-returns-value]
        assert work(lambda done, total: events.append(f"report {done}/{total}"), lambda: False) is ctx
        expected = ["probe", "report 0/2"] if answer else ["probe"]
        assert events == [*expected, "open", "report 1/2", "calendar", "warm-up"]


def test_the_dialog_counts_the_database_checked_before_its_context(qtbot) -> None:  # noqa: ANN001
    from motodesk.ui.app import create_application
    from motodesk.ui.login import LoginDialog

    create_application()
    dialog = LoginDialog(None)
    qtbot.addWidget(dialog)
    assert not dialog.checked
    dialog.database_checked()
    assert dialog.checked and dialog.ctx is None
    dialog.login_edit.setText("ana")
    dialog.try_login()  # the context is not there yet: Entrar waits for it, as before the probe
    assert dialog.message.text().startswith("Abrindo o banco de dados…")
    assert not dialog.enter_button.isEnabled()
