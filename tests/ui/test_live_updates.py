"""Two workstations on one PostgreSQL database, seen from the second one's window.

Station A (the clerk "ana") writes through the services; station B's window has its own listener
(:class:`motodesk.ui.live.LiveUpdates`): its shown page refreshes within a second, a hidden one when
it is shown, and an open dossier of the person A changed says so and offers Recarregar.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from conftest import _truncate_all, user_ctx  # type: ignore[import-not-found]
from PySide6.QtWidgets import QMessageBox, QWidget
from tests_helpers import slowdown, valid_cpf, wait_seconds  # type: ignore[import-not-found]

from motodesk.models.db import Database
from motodesk.rules.common import Role
from motodesk.services import people
from motodesk.services.context import AppContext
from motodesk.services.people import PersonInput
from motodesk.ui import dossier as dossier_module
from motodesk.ui.app import create_application
from motodesk.ui.changes import follow_changes
from motodesk.ui.dossier import ConflictDialog, DossierWindow
from motodesk.ui.guard import Answer
from motodesk.ui.live import LiveUpdates
from motodesk.ui.ops import ServiceOp
from motodesk.ui.screens.people import PeoplePage


@pytest.fixture
def stations(request: pytest.FixtureRequest, qtbot) -> Iterator[tuple[AppContext, AppContext, LiveUpdates]]:  # noqa: ANN001
    from motodesk.services.settings import ensure_defaults

    create_application()
    url = request.getfixturevalue("pg_migrated")
    db_a, db_b = Database.open(url), Database.open(url)
    _truncate_all(db_a)
    ensure_defaults(AppContext(db_a))
    a = user_ctx(AppContext(db_a), Role.CLERK, "ana")
    b = user_ctx(AppContext(db_b), Role.CLERK, "bia")
    updates = LiveUpdates(b)
    assert updates.active and updates.listener is not None
    assert updates.listener.connected.wait(5)
    qtbot.waitUntil(lambda: updates.online, timeout=5000)
    yield a, b, updates
    updates.stop()
    qtbot.waitUntil(lambda: ServiceOp.running() == 0, timeout=15_000)
    db_a.dispose()
    db_b.dispose()


def _names(page: PeoplePage) -> list[str]:
    return [page.model.index(r, 0).data() for r in range(page.model.rowCount())]


def test_a_shown_page_refreshes_within_a_second_and_a_hidden_one_when_shown(
        qtbot, stations: tuple[AppContext, AppContext, LiveUpdates]) -> None:  # noqa: ANN001
    a, b, updates = stations
    people.save_person(a, PersonInput(full_name="Maria Aparecida Souza", cpf=valid_cpf()))
    qtbot.waitUntil(lambda: updates.received == 1, timeout=3000)
    shown, hidden = PeoplePage(b), PeoplePage(b)
    qtbot.addWidget(shown)
    qtbot.addWidget(hidden)
    shown.show()
    qtbot.waitExposed(shown)
    qtbot.waitUntil(lambda: _names(shown) == ["Maria Aparecida Souza"] == _names(hidden), timeout=5000)

    people.save_person(a, PersonInput(full_name="João da Silva", cpf=valid_cpf()))
    committed = time.monotonic()
    qtbot.waitUntil(lambda: "João da Silva" in _names(shown), timeout=3000)
    delay = time.monotonic() - committed
    assert delay < 1.0 * slowdown(), f"the shown page took {delay:.2f} s"
    assert updates.received == 2
    qtbot.wait(300)  # a fixed wait on purpose: time for a wrong reload of the hidden page to show
    assert _names(hidden) == ["Maria Aparecida Souza"]  # a hidden page waits for its next show
    hidden.show()
    qtbot.waitUntil(lambda: _names(hidden) == ["João da Silva", "Maria Aparecida Souza"], timeout=3000)


def test_this_windows_own_change_is_not_applied_twice(qtbot, stations: tuple[AppContext, AppContext, LiveUpdates]) -> None:  # noqa: ANN001
    _a, b, updates = stations
    page = QWidget()
    qtbot.addWidget(page)
    page.show()
    reloads: list[int] = []
    follow_changes(page, lambda: reloads.append(1), kinds={"person"})
    ServiceOp(page, lambda: people.save_person(b, PersonInput(full_name="Bia Própria", cpf=valid_cpf())),
              change="person").run()
    qtbot.waitUntil(lambda: ServiceOp.running() == 0 and reloads == [1], timeout=5000)
    qtbot.wait(600)  # time enough for the listener to hear it, had it not dropped it
    assert reloads == [1] and updates.received == 0


def _open_dossier(qtbot, ctx: AppContext, person_id: int) -> DossierWindow:  # noqa: ANN001
    window = DossierWindow(ctx, person_id)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: ServiceOp.running() == 0 and window.person_inputs["full_name"].text() != "",
                    timeout=10_000)
    return window


def test_an_open_dossier_says_who_changed_it_elsewhere_and_reloads(
        qtbot, stations: tuple[AppContext, AppContext, LiveUpdates], monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setattr(dossier_module, "ask_unsaved", lambda *a, **k: Answer.DISCARD)
    a, b, _updates = stations
    pid = people.save_person(a, PersonInput(full_name="Carlos Eduardo Lima", cpf=valid_cpf())).id
    other = people.save_person(a, PersonInput(full_name="Outra Pessoa Qualquer", cpf=valid_cpf())).id
    window = _open_dossier(qtbot, b, pid)
    banner = window.changed_elsewhere
    assert banner.isHidden()

    people.save_person(a, PersonInput(full_name="Outra Pessoa Qualquer", cpf=people.get_dossier(a, other).person.cpf,
                                      district="Enéas"), person_id=other)
    qtbot.wait(700)  # a fixed wait on purpose: time for a wrong banner to show, had it been raised
    assert banner.isHidden(), "another person's change is not this dossier's"

    stored = people.get_dossier(a, pid)
    stored.person.district = "Cidade Jardim"
    people.save_dossier(a, stored.person, person_id=pid, person_version=stored.version)
    qtbot.waitUntil(banner.isVisible, timeout=8000)  # that it shows, not how fast: the shown-page test times it
    assert "alterado por ana em outra estação" in banner.text.text()
    assert banner.reload_button.text() == "&Recarregar"

    # Salvar does not go to the server to fail: it offers the stored version at once.
    qtbot.keyClicks(window.person_inputs["phone"], "(34) 99999-2222")
    saves: list[bool] = []
    monkeypatch.setattr(people, "save_dossier", lambda *a, **k: saves.append(True))
    asked: list[str] = []

    def answer(dialog: ConflictDialog) -> str:
        asked.append(dialog.text())
        return ConflictDialog.CANCEL

    monkeypatch.setattr(ConflictDialog, "ask", answer)
    monkeypatch.setattr(QMessageBox, "exec", lambda _box: 0)
    assert window.save() is False
    qtbot.waitUntil(lambda: ServiceOp.running() == 0 and len(asked) == 1, timeout=5000)
    assert "por ana" in asked[0] and saves == []
    assert banner.isVisible()  # "continuar editando": the notice stays

    monkeypatch.setattr(ConflictDialog, "ask", lambda _d: ConflictDialog.RELOAD)
    banner.reload_button.click()  # unsaved edits: the same choice, here "reload the stored version"
    qtbot.waitUntil(lambda: ServiceOp.running() == 0 and window.person_inputs["district"].text() == "Cidade Jardim",
                    timeout=5000)
    assert banner.isHidden() and not window.is_dirty()


def test_the_window_says_when_live_updates_reconnect_and_never_waits_for_them(qtbot, request) -> None:  # noqa: ANN001
    from dataclasses import replace

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QLabel, QMainWindow
    from tcp_proxy import TcpProxy  # type: ignore[import-not-found]

    from motodesk.services.settings import ensure_defaults
    from motodesk.ui.live import OFFLINE_TEXT, start_live_updates

    create_application()
    url = request.getfixturevalue("pg_migrated")
    db_a, db_b = Database.open(url), Database.open(url)
    _truncate_all(db_a)
    ensure_defaults(AppContext(db_a))
    a = user_ctx(AppContext(db_a), Role.CLERK, "ana")
    proxy = TcpProxy(db_b.url.host or "127.0.0.1", db_b.url.port or 5432)
    b = replace(user_ctx(AppContext(db_b), Role.CLERK, "bia"),
                db=Database.open(db_b.url.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)))
    window = QMainWindow()
    qtbot.addWidget(window)
    page = PeoplePage(b)
    window.setCentralWidget(page)
    window.show()
    qtbot.waitExposed(window)
    updates = start_live_updates(window, b)
    assert updates is not None
    state = window.findChild(QLabel, "live_updates_state")
    try:
        qtbot.waitUntil(lambda: updates.online, timeout=5000)
        assert state.text() == ""
        ticks = {"n": 0}
        ticker = QTimer()
        ticker.timeout.connect(lambda: ticks.__setitem__("n", ticks["n"] + 1))
        ticker.start(50)
        proxy.cut()
        qtbot.waitUntil(lambda: not updates.online, timeout=5000)
        assert state.text() == OFFLINE_TEXT
        ticks["n"] = 0
        qtbot.waitUntil(lambda: ticks["n"] >= 15)  # the GUI thread does not wait for the reconnection
        assert not updates.online
        proxy.restore()
        qtbot.waitUntil(lambda: updates.online, timeout=10_000)
        assert state.text() == ""
        people.save_person(a, PersonInput(full_name="Depois da Queda", cpf=valid_cpf()))
        qtbot.waitUntil(lambda: "Depois da Queda" in _names(page), timeout=3000)
        ticker.stop()
    finally:
        updates.stop()
        qtbot.waitUntil(lambda: ServiceOp.running() == 0, timeout=15_000)
        proxy.cut()
        b.db.dispose()
        db_a.dispose()
        db_b.dispose()


def test_the_supervisors_permits_page_shows_the_clerks_step_from_the_next_desk(
        qtbot, request) -> None:  # noqa: ANN001
    """Issue 29's example: a step taken at one desk shows on the other desk's permits page, no F5."""
    from permit_factory import make_dossier  # type: ignore[import-not-found]

    from motodesk.rules.common import PermitState
    from motodesk.services import permits
    from motodesk.services.settings import ensure_defaults
    from motodesk.ui.screens.permits import PermitsPage

    create_application()
    url = request.getfixturevalue("pg_migrated")
    db_a, db_b = Database.open(url), Database.open(url)
    _truncate_all(db_a)
    ensure_defaults(AppContext(db_a))
    clerk = user_ctx(AppContext(db_a), Role.CLERK, "ana")
    supervisor = user_ctx(AppContext(db_b), Role.SUPERVISOR, "bruno")
    dossier = make_dossier(AppContext(db_a), state=PermitState.REQUESTED, name="Helena Batista Couto")
    updates = LiveUpdates(supervisor)
    try:
        page = PermitsPage(supervisor)
        qtbot.addWidget(page)
        page.resize(1280, 720)
        page.show()
        qtbot.waitExposed(page)

        def states() -> list[PermitState]:
            return [row.state for row in page.permits_tab.model.rows()]

        qtbot.waitUntil(lambda: ServiceOp.running() == 0 and states() == [PermitState.REQUESTED], timeout=10_000)
        qtbot.waitUntil(lambda: updates.online, timeout=5000)
        permits.start_review(clerk, dossier.application_id)  # at the clerk's desk
        committed = time.monotonic()
        qtbot.waitUntil(lambda: states() == [PermitState.UNDER_REVIEW], timeout=3000)
        assert time.monotonic() - committed < wait_seconds(1.0)
    finally:
        updates.stop()
        qtbot.waitUntil(lambda: ServiceOp.running() == 0, timeout=15_000)
        db_a.dispose()
        db_b.dispose()
