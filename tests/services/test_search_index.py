"""Issue 20, target 3: the search's indexes and round trips, on SQLite and PostgreSQL.

* every lookup kind lists exactly the people a plain scan of the register finds, in order;
* SQLite's trigram table (revision 0012) follows every insert, change of name, delete and
  anonymisation;
* PostgreSQL answers a keystroke in at most 3 round trips (counted on the wire);
* ``seed_demo`` leaves fresh planner statistics.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from datetime import date

import pytest
from sqlalchemy import event, make_url, select, text

from motodesk.models import Permit, Person, Vehicle
from motodesk.models.db import Database
from motodesk.rules.common import Role
from motodesk.services import people, search
from motodesk.services.context import AppContext, CurrentUser
from motodesk.services.demo import seed_demo
from motodesk.services.maintenance import analyze
from motodesk.services.text import fold


def _all_pages(ctx: AppContext, typed: str, *, limit: int = 37, descending: bool = False) -> list[int]:
    ids: list[int] = []
    page = search.search_people(ctx, typed, limit=limit, descending=descending)
    while True:
        ids += [h.person_id for h in page.hits]
        if page.next is None:
            return ids
        page = search.search_people(ctx, typed, limit=limit, descending=descending, after=page.next)


@pytest.fixture
def register(ctx: AppContext) -> AppContext:
    seed_demo(ctx, 400, seed=20, today=date(2026, 12, 1))
    return ctx


def _expected(ctx: AppContext, typed: str) -> list[int]:
    """What the search box must list for ``typed``: a plain scan of every row, in Python."""
    q = search.classify(typed)
    with ctx.read() as s:
        everyone = sorted((name, pid) for pid, name in s.execute(select(Person.id, Person.name_search)))
        cpfs = dict(s.execute(select(Person.id, Person.cpf)).all())
        vehicles = s.execute(select(Vehicle.holder_id, Vehicle.plate, Vehicle.renavam, Vehicle.active)).all()
        numbers = s.execute(select(Permit.person_id, Permit.number)).all()
    if q.kind is search.QueryKind.EVERYONE:
        return [pid for _name, pid in everyone]
    if q.kind is search.QueryKind.NAME:
        starts = [pid for name, pid in everyone if name.startswith(q.text)]
        contains: list[int] = []
        if any(len(w) >= 3 for w in q.words) and (len(q.words) == 1 or len(q.words[-1]) >= 3):
            contains = [pid for name, pid in everyone
                        if not name.startswith(q.text) and all(w in name for w in q.words)]
        return starts + contains
    if q.kind is search.QueryKind.DIGITS:
        by_cpf = [pid for _name, pid in everyone if cpfs[pid].startswith(q.text)]
        by_renavam: list[int] = []
        if len(q.text) >= 4:
            holders = {h for h, _p, renavam, _a in vehicles if renavam and renavam.startswith(q.text)}
            by_renavam = [pid for _name, pid in everyone if pid in holders and pid not in by_cpf]
        return by_cpf + by_renavam
    if q.kind is search.QueryKind.PLATE:
        holders = {h for h, plate, _r, active in vehicles
                   if active and any(plate.startswith(f) for f in (q.text, *q.alternatives))}
        return [pid for _name, pid in everyone if pid in holders]
    assert q.kind is search.QueryKind.PERMIT
    holders = {h for h, number in numbers if any(number.startswith(f) for f in (q.text, *q.alternatives))}
    return [pid for _name, pid in everyone if pid in holders]


def test_every_lookup_kind_lists_what_a_plain_scan_finds(register: AppContext) -> None:
    with register.read() as s:
        person = s.execute(select(Person.id, Person.full_name, Person.cpf).order_by(Person.id).offset(7)).first()
        assert person is not None
        active = s.execute(select(Vehicle.plate, Vehicle.renavam).where(Vehicle.active.is_(True))
                           .order_by(Vehicle.id)).all()
        old = next(v for v in active if v.plate[4].isdigit())
        mercosul = next(v.plate for v in active if not v.plate[4].isdigit())
        number = s.scalar(select(Permit.number).order_by(Permit.id).offset(3))
    assert old is not None and mercosul is not None and number is not None
    words = fold(person.full_name).split(" ")
    cpf = person.cpf
    typed = [
        "", words[0][:1], words[0][:3], f"{words[0]} {words[1][:2]}", f"{words[0]} {words[1][:4]}",  # name prefix
        words[-1], words[-1][1:4], words[1][-3:], f"{words[1][:3]} {words[-1][:3]}",  # middle of a name
        "ana", "SILVA", "xyz qwv",
        cpf[:1], cpf[:3], cpf, f"{cpf[:3]}.{cpf[3:6]}.{cpf[6:9]}-{cpf[9:]}", f"{cpf[:3]}.{cpf[3:5]}",  # CPF
        old.renavam[:5], old.renavam,  # RENAVAM
        f"{old.plate[:3]}-{old.plate[3:]}", old.plate[:5], mercosul, mercosul[:5], f"{mercosul[:3]}-{mercosul[3]}",
        number, number[:4], number[:2] + " " + number[3:7].lstrip("0"),  # permit, also without the zeros
    ]
    for text_ in typed:
        expected = _expected(register, text_)
        assert _all_pages(register, text_) == expected, text_
        assert _all_pages(register, text_, descending=True, limit=53) == _descending(register, text_, expected), text_
    assert _all_pages(register, words[-1]), "a surname is found in the middle of names"


def _descending(ctx: AppContext, typed: str, ascending: list[int]) -> list[int]:
    """Descending order reverses each part (names starting with the text stay first)."""
    q = search.classify(typed)
    if q.kind is search.QueryKind.NAME:
        with ctx.read() as s:
            names = dict(s.execute(select(Person.id, Person.name_search)).all())
        starts = [p for p in ascending if names[p].startswith(q.text)]
        return starts[::-1] + [p for p in ascending if p not in set(starts)][::-1]
    if q.kind is search.QueryKind.DIGITS:
        with ctx.read() as s:
            cpfs = dict(s.execute(select(Person.id, Person.cpf)).all())
        first = [p for p in ascending if cpfs[p].startswith(q.text)]
        return first[::-1] + [p for p in ascending if p not in set(first)][::-1]
    return ascending[::-1]


# --- SQLite: the trigram table follows the people table -------------------------------------------


def _fts_ids(db: Database, phrase: str) -> set[int]:
    with db.engine.connect() as conn:
        return {r[0] for r in conn.execute(text("SELECT rowid FROM people_fts WHERE people_fts MATCH :q"),
                                           {"q": f'"{phrase}"'})}


def _fts_consistent(db: Database) -> None:
    with db.engine.begin() as conn:  # raises when the index and the people table disagree
        conn.exec_driver_sql("INSERT INTO people_fts(people_fts, rank) VALUES ('integrity-check', 1)")


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_the_trigram_table_follows_inserts_renames_deletes_and_anonymisation(ctx: AppContext) -> None:
    from tests_helpers import valid_cpf  # type: ignore[import-not-found]

    from motodesk.services import retention

    clerk = ctx.as_user(CurrentUser(None, "atendente", "Atendente", Role.CLERK))
    first = people.save_person(clerk, people.PersonInput(full_name="Quitéria Zabulon Prado", cpf=valid_cpf())).id
    second = people.save_person(clerk, people.PersonInput(full_name="Ubirajara Zabulon", cpf=valid_cpf())).id
    assert _fts_ids(ctx.db, "zabulon") == {first, second}
    assert [h.person_id for h in search.search_people(ctx, "abulo").hits] == [first, second]
    _fts_consistent(ctx.db)

    with ctx.write() as s:  # a change of name (people.rename_person needs a document; the row is what counts)
        row = s.get(Person, first)
        assert row is not None
        row.full_name, row.name_search = "Quitéria Xenofonte Prado", "quiteria xenofonte prado"
    assert _fts_ids(ctx.db, "zabulon") == {second}
    assert _fts_ids(ctx.db, "xenofonte") == {first}
    assert [h.person_id for h in search.search_people(ctx, "nofont").hits] == [first]
    _fts_consistent(ctx.db)

    with ctx.write() as s:
        row = s.get(Person, second)
        s.delete(row)
    assert _fts_ids(ctx.db, "zabulon") == set()
    assert search.search_people(ctx, "abulo").hits == []
    _fts_consistent(ctx.db)

    # Anonymisation rewrites the name: the old one is gone from the index, the placeholder is in it.
    with ctx.write() as s:
        s.execute(text("UPDATE people SET created_at = '2010-01-01', updated_at = '2010-01-01'"))
    report = retention.anonymise_inactive(ctx, today=date(2026, 12, 1))
    assert first in report.anonymised
    assert _fts_ids(ctx.db, "xenofonte") == set()
    assert search.search_people(ctx, "xenofonte").hits == []
    assert _fts_ids(ctx.db, "anonimizada") == {first}
    _fts_consistent(ctx.db)


# --- PostgreSQL: round trips per keystroke --------------------------------------------------------


class CountingProxy:
    """A TCP relay to the server that counts the client's messages: each send of the client that
    the server answers is one round trip (the query protocol's messages go out in one write)."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.sends = 0
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            threading.Thread(target=self._pipe, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, False), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket, counted: bool) -> None:
        try:
            while data := src.recv(1 << 20):
                if counted:
                    with self.lock:
                        self.sends += 1
                dst.sendall(data)
        except OSError:
            pass
        finally:
            try:
                dst.shutdown(socket.SHUT_WR)
            except OSError:
                pass

    def close(self) -> None:
        self.listener.close()


@pytest.fixture
def proxied(ctx: AppContext) -> Iterator[tuple[AppContext, CountingProxy]]:
    url = ctx.db.url
    proxy = CountingProxy(url.host or "127.0.0.1", url.port or 5432)
    db = Database.open(make_url(url.render_as_string(hide_password=False)).set(
        host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False))
    try:
        yield AppContext(db, CurrentUser(None, "atendente", "Atendente", Role.CLERK)), proxy
    finally:
        db.dispose()
        proxy.close()


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
def test_a_keystroke_is_at_most_three_round_trips_on_postgresql(
        register: AppContext, proxied: tuple[AppContext, CountingProxy]) -> None:
    ctx, proxy = proxied
    typed = ["", "m", "ma", "mar", "maria", "maria s", "silva", "ana", "5", "529.98", "52998224725",
             "ABC", "ABC-1", "ABC1C3", "MB-", "MB-0001", "zzzz qqq"]
    search.search_people(ctx, "warm up")  # the connection's start-up and the server's version queries
    statements: list[str] = []
    assert ctx.db._reader is not None
    event.listen(ctx.db._reader, "before_cursor_execute",
                 lambda _c, _cur, statement, *_a: statements.append(statement))
    for text_ in typed:
        before, statements_before = proxy.sends, len(statements)
        page = search.search_people(ctx, text_)
        next_page = search.search_people(ctx, text_, after=page.next) if page.next else None
        trips = proxy.sends - before
        assert trips <= (3 if next_page is None else 6), (text_, trips)
        assert len(statements) - statements_before == (1 if next_page is None else 2), text_
    per_keystroke = proxy.sends
    assert per_keystroke > 0


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
def test_a_dropped_connection_is_replaced_without_an_error(register: AppContext) -> None:
    search.search_people(register, "ana")
    with register.db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.exec_driver_sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                             "WHERE datname = current_database() AND pid <> pg_backend_pid() "
                             "AND application_name = '' AND state = 'idle'")
    assert search.search_people(register, "ana").hits  # no ping: the read ran again on a new connection


# --- fresh statistics -----------------------------------------------------------------------------


def test_seed_demo_and_analyze_leave_fresh_statistics(ctx: AppContext) -> None:
    def analysed() -> set[str]:
        with ctx.db.engine.connect() as conn:
            if ctx.db.is_sqlite:
                if not conn.exec_driver_sql("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'").first():
                    return set()
                return {r[0] for r in conn.exec_driver_sql("SELECT DISTINCT tbl FROM sqlite_stat1")}
            return {r[0] for r in conn.exec_driver_sql(
                "SELECT relname FROM pg_stat_user_tables WHERE last_analyze IS NOT NULL")}

    if ctx.db.is_sqlite:
        assert "people" not in analysed()
    seed_demo(ctx, 50, seed=3, today=date(2026, 12, 1))
    assert {"people", "vehicles", "permits"} <= analysed()
    analyze(ctx)  # again, at any time
    assert {"people", "vehicles", "permits"} <= analysed()


def test_people_by_ids_gives_the_rows_of_the_list_in_the_order_asked(register: AppContext) -> None:
    page = search.search_people(register, "", limit=60)
    wanted = [h.person_id for h in page.hits][::-2] + [999_999]  # one unknown
    again = search.people_by_ids(register, wanted)
    assert again == [h for h in page.hits[::-1] if h.person_id in set(wanted)][: len(wanted)]
    assert [h.person_id for h in again] == wanted[:-1]
