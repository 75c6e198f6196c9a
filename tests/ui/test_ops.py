"""The one way a screen runs a service: off the GUI thread, the form locked, errors where they belong,
and a window that keeps painting and taking Esc while the database server stops answering."""

from __future__ import annotations

import threading
import time

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QLineEdit, QMessageBox, QPushButton, QVBoxLayout, QWidget
from tests_helpers import drain_events, wait_seconds  # type: ignore[import-not-found]

from motodesk.services.errors import ConflictError, InvalidInputError, NotFoundError
from motodesk.ui.changes import change_bus, follow_changes, notify_changed
from motodesk.ui.ops import BUSY_DELAY_MS, ServiceOp
from motodesk.ui.widgets import DateField, field_error


def form(qtbot) -> tuple[QWidget, QLineEdit, DateField]:  # noqa: ANN001
    widget = QWidget()
    layout = QVBoxLayout(widget)
    name, day = QLineEdit(), DateField()
    layout.addWidget(name)
    layout.addWidget(day)
    qtbot.addWidget(widget)
    widget.show()
    return widget, name, day


def test_the_call_runs_off_the_gui_thread_with_the_form_locked_and_announces_the_change(qtbot, wait_ops) -> None:  # noqa: ANN001
    widget, _name, _day = form(qtbot)
    seen: dict[str, object] = {}
    changes: list[str] = []
    change_bus().changed.connect(changes.append)
    release = threading.Event()

    def work() -> int:
        seen["thread"] = threading.current_thread() is threading.main_thread()
        release.wait(5)
        return 42

    ServiceOp(widget, work, change="person").success(lambda r: seen.setdefault("result", r)).run()
    qtbot.waitUntil(lambda: "thread" in seen)
    assert not widget.isEnabled() and ServiceOp.running() == 1
    release.set()
    wait_ops()
    assert seen == {"thread": False, "result": 42}
    assert widget.isEnabled() and changes == ["person"]


def test_field_errors_go_on_their_widgets_and_the_rest_through_a_message(qtbot, wait_ops, monkeypatch) -> None:  # noqa: ANN001
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "exec", lambda box: shown.append(box.text()) or 0)
    widget, name, _day = form(qtbot)

    def invalid() -> None:
        raise InvalidInputError("Dados inválidos.", {"full_name": "Informe o nome completo."})

    ServiceOp(widget, invalid, fields={"full_name": name}).run()
    wait_ops()
    assert field_error(name) == "Informe o nome completo." and shown == []
    ServiceOp(widget, lambda: (_ for _ in ()).throw(NotFoundError("Pessoa não encontrada."))).run()
    wait_ops()
    assert shown == ["Pessoa não encontrada."]


def test_a_conflict_offers_to_reload(qtbot, wait_ops, monkeypatch) -> None:  # noqa: ANN001
    widget, _name, _day = form(qtbot)
    reloaded: list[bool] = []

    def answer(box: QMessageBox) -> int:
        reload = next(b for b in box.buttons() if b.text() == "&Recarregar")
        reload.click()
        return 0

    monkeypatch.setattr(QMessageBox, "exec", answer)
    ServiceOp(widget, lambda: (_ for _ in ()).throw(ConflictError("Outra estação salvou.")),
              on_conflict=lambda: reloaded.append(True)).run()
    wait_ops()
    assert reloaded == [True]


def test_an_impossible_date_in_the_form_stops_the_call_and_says_why(qtbot, wait_ops) -> None:  # noqa: ANN001
    widget, _name, day = form(qtbot)
    day.setText("31/02/2020")
    ran: list[bool] = []
    ServiceOp(widget, lambda: ran.append(True)).run()
    wait_ops()
    assert ran == [] and "Data inexistente" in (field_error(day) or "")


def test_a_busy_notice_shows_after_a_moment_and_esc_stops_waiting(qtbot, wait_ops, monkeypatch) -> None:  # noqa: ANN001
    widget, name, _day = form(qtbot)
    widget.activateWindow()
    release = threading.Event()
    delivered: list[object] = []
    ServiceOp(widget, lambda: release.wait(10), busy="Salvando…").success(delivered.append).run()
    qtbot.waitUntil(lambda: widget.findChild(QWidget, "busy_overlay") is not None, timeout=BUSY_DELAY_MS * 10)
    assert "Salvando" in widget.findChild(QWidget, "busy_overlay").text()
    qtbot.keyClick(QApplication.focusWidget() or widget, Qt.Key.Key_Escape)
    assert widget.isEnabled()  # the clerk has the form back at once
    release.set()
    wait_ops()
    assert delivered == []  # an abandoned wait delivers nothing to the form


def test_pages_follow_changes_now_if_shown_and_on_show_if_hidden(qtbot) -> None:  # noqa: ANN001
    shown_page, hidden_page = QWidget(), QWidget()
    qtbot.addWidget(shown_page)
    qtbot.addWidget(hidden_page)
    shown_page.show()
    reloads = {"shown": 0, "hidden": 0}
    follow_changes(shown_page, lambda: reloads.__setitem__("shown", reloads["shown"] + 1), kinds={"permit"})
    follow_changes(hidden_page, lambda: reloads.__setitem__("hidden", reloads["hidden"] + 1))
    notify_changed("permit")
    notify_changed("permit")  # coalesced into one reload
    notify_changed("vehicle")  # not a kind the first page shows
    drain_events()
    assert reloads == {"shown": 1, "hidden": 0}
    hidden_page.show()
    qtbot.waitUntil(lambda: reloads["hidden"] == 1)


@pytest.mark.slow
def test_the_window_paints_and_takes_esc_while_the_server_stops_answering(qtbot, request, wait_ops,  # noqa: ANN001
                                                                         monkeypatch) -> None:  # noqa: ANN001
    from conftest import _truncate_all, user_ctx  # type: ignore[import-not-found]
    from tcp_proxy import TcpProxy  # type: ignore[import-not-found]

    from motodesk.models.db import Database
    from motodesk.rules.common import Role
    from motodesk.services import search
    from motodesk.services.context import AppContext

    monkeypatch.setattr(QMessageBox, "exec", lambda box: 0)
    base = Database.open(request.getfixturevalue("pg_migrated"))
    _truncate_all(base)
    proxy = TcpProxy(base.url.host or "127.0.0.1", base.url.port or 5432)
    db = Database.open(base.url.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False))
    clerk = user_ctx(AppContext(db), Role.CLERK)
    try:
        search.search_people(clerk, "a")  # the pool holds a live connection through the proxy
        widget = QWidget()
        qtbot.addWidget(widget)
        button = QPushButton("&Buscar", widget)
        widget.resize(400, 200)
        widget.show()
        qtbot.waitExposed(widget)
        widget.activateWindow()
        paints = {"ticks": 0}
        ticker = QTimer()
        ticker.timeout.connect(lambda: paints.__setitem__("ticks", paints["ticks"] + 1) or widget.grab())
        ticker.start(50)
        delivered: list[object] = []
        proxy.stall()  # the server stops answering: no error, no reply
        started = time.monotonic()
        ServiceOp(widget, lambda: search.search_people(clerk, "Maria")).success(delivered.append).run()
        qtbot.waitUntil(lambda: paints["ticks"] >= 10 and widget.findChild(QWidget, "busy_overlay") is not None)
        assert paints["ticks"] >= 10, "the GUI thread must keep running while the query hangs"
        assert widget.findChild(QWidget, "busy_overlay") is not None and not button.isEnabled()
        qtbot.keyClick(widget, Qt.Key.Key_Escape)
        assert button.isEnabled() and time.monotonic() - started < wait_seconds(5)
        ticker.stop()
    finally:
        proxy.cut()  # the hung query fails now, and its thread ends
        wait_ops(30_000)
        db.dispose()
        base.dispose()
    assert delivered == []


def test_a_page_load_delivers_only_the_newest_result(qtbot, wait_ops) -> None:  # noqa: ANN001
    from motodesk.ui.ops import load_into

    page = QWidget()
    qtbot.addWidget(page)
    slow = threading.Event()
    shown: list[str] = []
    load_into(page, lambda: slow.wait(5) and "old query", shown.append)
    load_into(page, lambda: "new query", shown.append)
    qtbot.waitUntil(lambda: shown == ["new query"])
    slow.set()
    wait_ops()
    assert shown == ["new query"]  # the older answer arrived later and was dropped
    load_into(page, lambda: "again", shown.append)
    wait_ops()
    assert shown == ["new query", "again"]


def test_long_work_reports_progress_on_the_gui_thread_and_stops_when_cancelled(qtbot, wait_ops) -> None:  # noqa: ANN001
    """What BackgroundOp did, now ServiceOp's: progress=True hands fn (report, cancelled)."""
    widget, _name, _day = form(qtbot)
    steps: list[tuple[int, int, bool]] = []
    refused: list[BaseException] = []
    done: list[object] = []
    started = threading.Event()

    class Stopped(Exception):
        pass

    def work(report, cancelled) -> str:  # noqa: ANN001
        for n in range(1, 1001):
            report(n, 1000)
            if n == 3:
                started.set()
            if cancelled():
                raise Stopped(n)
            time.sleep(0.005)
        return "finished"

    op = ServiceOp(widget, work, progress=True, lock=False, change="person") \
        .progress(lambda d, t: steps.append((d, t, threading.current_thread() is threading.main_thread()))) \
        .success(done.append).failure(lambda exc: refused.append(exc) or True)
    changes: list[str] = []
    change_bus().changed.connect(changes.append)
    op.run()
    qtbot.waitUntil(lambda: len(steps) >= 3)
    assert not op.cancelled
    op.cancel()
    wait_ops()
    assert op.cancelled and done == [] and len(refused) == 1 and isinstance(refused[0], Stopped)
    assert steps[:3] == [(1, 1000, True), (2, 1000, True), (3, 1000, True)]
    assert [d for d, _t, _g in steps] == sorted(d for d, _t, _g in steps) and len(steps) < 1000
    assert changes == []  # nothing was written: nothing is announced

    with pytest.raises(TypeError):
        ServiceOp(widget, lambda: None).progress(lambda d, t: None)  # fn() takes no report


def test_a_model_runs_its_reads_and_is_never_locked(qtbot, wait_ops) -> None:  # noqa: ANN001
    from PySide6.QtCore import QObject

    model = QObject()
    got: list[int] = []
    ServiceOp(model, lambda: 7, lock=False).success(got.append).run()
    wait_ops()
    assert got == [7]
    with pytest.raises(TypeError):
        ServiceOp(model, lambda: 7)  # a model has no window to lock
