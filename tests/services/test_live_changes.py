"""Two workstations on one PostgreSQL database: a change committed at one is announced to the other.

No Qt here: the listener's core (:mod:`motodesk.services.live`) on its own thread and connection.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Iterator
from dataclasses import replace
from datetime import date

import pytest
from conftest import _truncate_all, user_ctx  # type: ignore[import-not-found]
from sqlalchemy import text
from tcp_proxy import TcpProxy  # type: ignore[import-not-found]
from tests_helpers import valid_cpf, wait_seconds  # type: ignore[import-not-found]

from motodesk.models.db import Database
from motodesk.rules.common import Role
from motodesk.services import live, people
from motodesk.services.context import AppContext
from motodesk.services.live import ANY, Announcement, ChangeListener
from motodesk.services.people import PersonInput

WAIT = 5.0


def complete_person() -> PersonInput:
    return PersonInput(full_name="José Carlos D'Ávila-Souza", cpf=valid_cpf(), birth_date=date(1988, 7, 14),
                       sex="M", address="Rua Presidente Vargas, 1200", district="Centro", city="Patrocínio",
                       uf="MG", zip_code="38740-000", declares_no_other_permit=True)


def _next(got: queue.Queue[Announcement], kind: str, timeout: float = WAIT) -> Announcement:
    """The next announcement naming ``kind`` (a reconnection's ``*`` is passed over)."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"no announcement of {kind!r} within {timeout} s")
        try:
            item = got.get(timeout=left)
        except queue.Empty:
            continue
        if kind in item.kinds:
            return item


@pytest.fixture
def two_stations(request: pytest.FixtureRequest) -> Iterator[tuple[AppContext, AppContext]]:
    """Two workstations: two engines, two contexts (two origins), one PostgreSQL database."""
    from motodesk.services.settings import ensure_defaults

    url = request.getfixturevalue("pg_migrated")
    db_a, db_b = Database.open(url), Database.open(url)
    _truncate_all(db_a)
    ensure_defaults(AppContext(db_a))
    a = user_ctx(AppContext(db_a), Role.CLERK, "ana")
    b = user_ctx(AppContext(db_b), Role.SUPERVISOR, "bruno")
    yield a, b
    db_a.dispose()
    db_b.dispose()


def _listen(ctx: AppContext, got: queue.Queue[Announcement], url: object = None) -> ChangeListener:
    listener = live.listen(url or ctx.db.url, ctx.origin, got.put)  # type: ignore[arg-type]
    assert listener is not None
    assert listener.connected.wait(WAIT), "the listener did not connect"
    return listener


def test_a_commit_at_one_station_reaches_the_other_with_author_kind_and_id(
        two_stations: tuple[AppContext, AppContext]) -> None:
    a, b = two_stations
    assert a.origin != b.origin
    got_b: queue.Queue[Announcement] = queue.Queue()
    got_a: queue.Queue[Announcement] = queue.Queue()
    listener_b, listener_a = _listen(b, got_b), _listen(a, got_a)
    try:
        saved = people.save_person(a, complete_person())
        committed = time.monotonic()  # the save returns once its transaction committed
        news = _next(got_b, "person")
        assert time.monotonic() - committed < wait_seconds(1.0)  # 1 s on a quiet machine, scaled by its load
        assert news.author == "ana" and news.origin == a.origin and not news.resync
        assert news.touches("person", saved.id)
        assert not news.touches("person", saved.id + 1000)
        assert not news.touches("permit", saved.id)
        # The author's own listener drops its own change: its pages already have it.
        time.sleep(0.5)
        assert got_a.empty()
        # as_user keeps the window's origin: the same window under another login is still itself.
        assert a.as_user(b.user).origin == a.origin
    finally:
        listener_a.stop()
        listener_b.stop()
    assert not listener_a.running and not listener_b.running


def test_a_rolled_back_change_is_never_announced(two_stations: tuple[AppContext, AppContext]) -> None:
    from motodesk.models import Person

    a, b = two_stations
    person_id = people.save_person(a, complete_person()).id
    got: queue.Queue[Announcement] = queue.Queue()
    listener = _listen(b, got)
    try:
        with pytest.raises(RuntimeError), a.write() as s:
            stored = s.get(Person, person_id)
            assert stored is not None
            stored.district = "Nunca Gravado"
            s.flush()
            raise RuntimeError("the unit of work fails after its flush")
        time.sleep(0.8)
        assert got.empty()
        people.save_person(a, complete_person())  # the next commit is announced alone
        news = _next(got, "person")
        assert news.author == "ana" and not news.touches("person", person_id)
        assert got.empty()
    finally:
        listener.stop()


def test_the_announcement_is_sent_inside_the_writing_transaction(two_stations: tuple[AppContext, AppContext]) -> None:
    """Until COMMIT the other station hears nothing; at COMMIT it hears the change."""
    from motodesk.models import Person

    a, b = two_stations
    person_id = people.save_person(a, complete_person()).id
    got: queue.Queue[Announcement] = queue.Queue()
    listener = _listen(b, got)
    try:
        with a.write() as s:
            stored = s.get(Person, person_id)
            assert stored is not None
            stored.district = "Cidade Jardim"
            s.flush()
            time.sleep(0.6)
            assert got.empty(), "nothing may be heard before the commit"
        assert _next(got, "person").touches("person", person_id)
    finally:
        listener.stop()


def test_a_bulk_statement_announces_its_kind_without_ids(two_stations: tuple[AppContext, AppContext]) -> None:
    from sqlalchemy import update

    from motodesk.models import Person

    a, b = two_stations
    people.save_person(a, complete_person())
    got: queue.Queue[Announcement] = queue.Queue()
    listener = _listen(b, got)
    try:
        with a.write() as s:
            s.execute(update(Person).values(district="Centro"))
        news = _next(got, "person")
        assert news.ids("person") is None and news.touches("person", 123456)
    finally:
        listener.stop()


def test_sqlite_sends_nothing_and_listens_to_nothing(tmp_path, sqlite_template) -> None:  # noqa: ANN001
    import shutil

    path = tmp_path / "one.sqlite3"
    shutil.copy(sqlite_template, path)
    db = Database.open(f"sqlite:///{path}")
    try:
        assert live.listen(db.url, "x", lambda _a: None) is None
        ctx = user_ctx(AppContext(db), Role.CLERK)
        people.save_person(ctx, complete_person())  # the hooks stay quiet (no pg_notify on SQLite)
    finally:
        db.dispose()


def test_the_listener_reconnects_after_the_server_goes_away(two_stations: tuple[AppContext, AppContext]) -> None:
    a, b = two_stations
    proxy = TcpProxy(b.db.url.host or "127.0.0.1", b.db.url.port or 5432)
    through_proxy = b.db.url.set(host="127.0.0.1", port=proxy.port)
    got: queue.Queue[Announcement] = queue.Queue()
    states: list[bool] = []
    listener = live.listen(through_proxy, b.origin, got.put, states.append)
    assert listener is not None
    try:
        assert listener.connected.wait(WAIT)
        people.save_person(a, complete_person())
        assert _next(got, "person").author == "ana"

        proxy.cut()  # the server "restarts": the connection drops, new ones are refused
        deadline = time.monotonic() + WAIT
        while listener.connected.is_set() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not listener.connected.is_set(), "the drop must be noticed"
        time.sleep(1.0)  # a few refused attempts
        assert listener.connections == 1
        proxy.restore()
        assert listener.connected.wait(10), "the listener must reconnect by itself"
        assert listener.connections == 2
        # Whatever was announced while away is lost: the listener says "anything may have changed".
        resync = got.get(timeout=WAIT)
        assert ANY in resync.kinds and resync.resync
        saved = people.save_person(a, complete_person())
        news = _next(got, "person")
        assert news.touches("person", saved.id) and news.author == "ana"
        assert states[:3] == [True, False, True]
    finally:
        listener.stop()
        proxy.cut()


def test_a_foreign_or_broken_payload_is_ignored(two_stations: tuple[AppContext, AppContext]) -> None:
    a, b = two_stations
    got: queue.Queue[Announcement] = queue.Queue()
    listener = _listen(b, got)
    try:
        with a.db.engine.begin() as conn:
            conn.execute(text("SELECT pg_notify(:c, 'not json')"), {"c": live.CHANNEL})
        people.save_person(a, complete_person())
        assert _next(got, "person").author == "ana"  # the broken one did not stop the listening
    finally:
        listener.stop()


def test_announcement_ids_are_capped() -> None:
    payload = live.encode({"person": set(range(live.MAX_IDS + 5)), "permit": {3}}, "ana", "o1")
    news = live.decode(payload)
    assert news is not None
    assert news.ids("person") is None and news.ids("permit") == frozenset({3})
    assert replace(news, kinds={ANY: None}).touches("vehicle", 9)
