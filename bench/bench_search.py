"""Benchmark: the search box, keystroke by keystroke, on a database of N demo people.

Run from the repository root::

    python bench/bench_search.py --backend sqlite --people 100000
    python bench/bench_search.py --backend postgresql --people 1000000 [--pg-url URL]

The first run seeds the database with ``seed_demo`` (about a minute per 100,000 people) and keeps
it for the next runs: SQLite in ``~/.cache/motodesk-bench/search-N.sqlite3``, PostgreSQL in a
database ``motodesk_bench_N`` beside the one of ``--pg-url`` (default: MOTODESK_TEST_PG_URL or the
local server). ``--reseed`` starts again.

It then types, one character at a time, what a clerk types, and times every call of
``search_people`` (the query, and the three lookups that fill the page's Serviço/Permissão/
Situação/Placa columns) — the time the result list waits for after the debounce:

* name prefix: first name and the start of the surname of a person ("Maria Apa…");
* name infix: a surname alone ("souza" is also in the middle of other names);
* CPF: formatted as typed, "123.456.789-09";
* plate: "ABC-1234" / "ABC1D23" of an active vehicle;

* permit: "MB-0012/2024"; RENAVAM: its 11 digits;

and the first page of the people list (empty query), which the list shows on opening.

Beside each kind, the floor: the same keystrokes answered by one hand-written SQL query each
(:func:`floor_query`: the page of 200 and its name, CPF, permit, application and plate columns,
written the plain way a DBA would, on the driver's own connection, no SQLAlchemy), and the ratio
of the service's p95 to the floor's. On PostgreSQL it also counts the round trips of every
keystroke on the wire (a counting TCP relay in front of the server) and the statements sent.

Targets (issue 20): p95 <= 20 ms per keystroke on PostgreSQL and <= 50 ms on SQLite at 1,000,000
people, <= 3 round trips per keystroke on PostgreSQL; first page of the list <= 100 ms.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import create_engine, func, make_url, select  # noqa: E402

from motodesk.models import Permit, Person, Vehicle  # noqa: E402
from motodesk.models.db import QUICK_READ_OPTIONS as QUICK_OPTIONS  # noqa: E402
from motodesk.models.db import Database  # noqa: E402
from motodesk.services import search  # noqa: E402
from motodesk.services.context import AppContext  # noqa: E402
from motodesk.services.settings import ensure_defaults  # noqa: E402

TARGET_KEYSTROKE_MS = {"sqlite": 50.0, "postgresql": 20.0}
TARGET_ROUND_TRIPS = 3
TARGET_FIRST_PAGE_MS = 100.0
DEFAULT_PG = os.environ.get("MOTODESK_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def cache_dir() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    folder = base / "motodesk-bench"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def open_database(backend: str, people: int, pg_url: str, reseed: bool) -> Database:
    if backend == "sqlite":
        path = cache_dir() / f"search-{people}.sqlite3"
        if reseed:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
        return Database.open(f"sqlite:///{path}")
    name = f"motodesk_bench_{people}"
    admin = create_engine(pg_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        exists = conn.exec_driver_sql("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).scalar()
        if exists and reseed:
            conn.exec_driver_sql(f'DROP DATABASE "{name}"')
            exists = None
        if not exists:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    admin.dispose()
    return Database.open(make_url(pg_url).set(database=name).render_as_string(hide_password=False))


def prepare(db: Database, people: int) -> AppContext:
    db.prepare(allow_upgrade_shared=True)
    ctx = AppContext(db)
    ensure_defaults(ctx)
    with ctx.read() as s:
        have = s.scalar(select(func.count(Person.id))) or 0
    if have == 0:
        from bench.seed_bulk import seed

        print(f"seeding {people:,} people ({db.url.get_backend_name()})…", flush=True)
        seed(db, people, progress=lambda line: print(line, flush=True),
             pg_indexes=None if db.is_sqlite else search_indexes())
    elif have < people:
        raise SystemExit(f"the cached database holds {have:,} people, fewer than {people:,}: use --reseed")
    elif have > people:
        print(f"note: the cached database holds {have:,} people", flush=True)
    return ctx


def search_indexes() -> dict[str, str]:
    """name -> CREATE INDEX of the PostgreSQL search indexes the migrations leave (0002's, less
    those 0020 replaced, and 0020's): the same statements, built after the bulk load."""
    import importlib.util

    def load(filename: str):  # noqa: ANN202
        path = ROOT / "motodesk/models/migrations/versions" / filename
        spec = importlib.util.spec_from_file_location(f"search_indexes_{path.stem}", path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    first = load("0002_search_indexes.py")
    found = dict(zip(first.PG_INDEX_NAMES, first.PG_INDEXES, strict=True))
    covering = ROOT / "motodesk/models/migrations/versions/0020_speed_search_indexes.py"
    if covering.exists():
        later = load(covering.name)
        for name in later.PG_REPLACED:
            found.pop(name, None)
        found.update(zip(later.PG_INDEX_NAMES, later.PG_INDEXES, strict=True))
    return found


def keystrokes(text: str) -> list[str]:
    """What the box holds after each key: 'Ana' -> ['A', 'An', 'Ana']."""
    return [text[:i] for i in range(1, len(text) + 1)]


def samples(ctx: AppContext, count: int, rng: random.Random) -> dict[str, list[list[str]]]:
    with ctx.read() as s:
        top = s.scalar(select(func.max(Person.id))) or 1
        ids = [rng.randint(1, top) for _ in range(count * 3)]
        people = s.execute(select(Person.full_name, Person.cpf).where(Person.id.in_(ids)).limit(count)).all()
        vtop = s.scalar(select(func.max(Vehicle.id))) or 1
        vids = [rng.randint(1, vtop) for _ in range(count * 3)]
        plates = list(
            s.scalars(
                select(Vehicle.plate).where(Vehicle.id.in_(vids), Vehicle.active.is_(True)).limit(count)
            )
        )
        renavams = list(s.scalars(select(Vehicle.renavam).where(Vehicle.id.in_(vids), Vehicle.renavam.is_not(None))
                                  .limit(count)))
        ptop = s.scalar(select(func.max(Permit.id))) or 1
        numbers = list(s.scalars(select(Permit.number).where(Permit.id.in_([rng.randint(1, ptop)
                                                                            for _ in range(count * 3)])).limit(count)))
    prefix, infix, cpf = [], [], []
    for name, number in people:
        words = name.split(" ")
        prefix.append(keystrokes(f"{words[0]} {words[1][:4]}"))
        infix.append(keystrokes(words[-1].lower()))
        cpf.append(keystrokes(f"{number[:3]}.{number[3:6]}.{number[6:9]}-{number[9:]}"))
    plate = [keystrokes(f"{p[:3]}-{p[3:]}" if p[4].isdigit() else p) for p in plates]
    return {"nome (prefixo)": prefix, "nome (meio)": infix, "CPF": cpf, "placa": plate,
            "permissão": [keystrokes(n) for n in numbers], "RENAVAM": [keystrokes(r) for r in renavams if r]}


def timed(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


def first_page_cold(db: Database) -> float:
    """The people list on opening: a new connection pool, nothing compiled or cached in this process."""
    fresh = Database.open(db.url.render_as_string(hide_password=False))
    try:
        return timed(lambda: search.search_people(AppContext(fresh), ""))
    finally:
        fresh.dispose()


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


def run(
    ctx: AppContext, typed: dict[str, list[list[str]]], repeat: int = 1,
    answer: Callable[[str], object] | None = None,
) -> list[tuple[str, list[float], tuple[str, float]]]:
    ask = answer or (lambda t: search.search_people(ctx, t))
    rows = []
    for kind, sequences in typed.items():
        times: list[float] = []
        worst = ("", 0.0)
        for sequence in sequences:
            for text in sequence:
                ms = min(timed(lambda t=text: ask(t)) for _ in range(repeat))
                times.append(ms)
                if ms > worst[1]:
                    worst = (text, ms)
        rows.append((kind, times, worst))
    return rows


def report(
    title: str, backend: str, rows: list[tuple[str, list[float], tuple[str, float]]],
    floor: list[tuple[str, list[float], tuple[str, float]]], first_page: list[float],
    trips: dict[str, tuple[float, int, float]] | None,
) -> bool:
    target = TARGET_KEYSTROKE_MS[backend]
    print(f"\n{title}")
    print(f"{'busca':<16}{'teclas':>7}{'p50 ms':>8}{'p95 ms':>8}{'máx ms':>8}{'piso p50':>9}{'piso p95':>9}"
          f"{'× piso':>7}" + (f"{'idas/tecla':>11}{'máx':>5}{'instr.':>7}" if trips else "") + "  pior tecla")
    ok = True
    floors = {kind: times for kind, times, _worst in floor}
    for kind, times, worst in rows:
        p95 = percentile(times, 95)
        ok &= p95 <= target
        f95 = percentile(floors[kind], 95)
        line = (f"{kind:<16}{len(times):>7}{statistics.median(times):>8.1f}{p95:>8.1f}{max(times):>8.1f}"
                f"{statistics.median(floors[kind]):>9.1f}{f95:>9.1f}{p95 / f95:>7.2f}")
        if trips:
            mean, most, statements = trips[kind]
            ok &= most <= TARGET_ROUND_TRIPS
            line += f"{mean:>11.2f}{most:>5}{statements:>7.2f}"
        print(line + f"  {worst[0]!r}")
    p95 = percentile(first_page, 95)
    ok &= p95 <= TARGET_FIRST_PAGE_MS
    print(
        f"{'lista (1ª pág.)':<16}{len(first_page):>7}{statistics.median(first_page):>8.1f}{p95:>8.1f}"
        f"{max(first_page):>8.1f}"
    )
    every = [t for _k, times, _w in rows for t in times]
    every_floor = [t for _k, times, _w in floor for t in times]
    print(f"{'todas':<16}{len(every):>7}{statistics.median(every):>8.1f}{percentile(every, 95):>8.1f}"
          f"{max(every):>8.1f}{statistics.median(every_floor):>9.1f}{percentile(every_floor, 95):>9.1f}"
          f"{percentile(every, 95) / percentile(every_floor, 95):>7.2f}")
    print(
        f"metas: p95 <= {target:.0f} ms por tecla"
        + (f", <= {TARGET_ROUND_TRIPS} idas e voltas por tecla" if trips else "")
        + f", 1ª página <= {TARGET_FIRST_PAGE_MS:.0f} ms: " + ("atingidas" if ok else "NÃO atingidas")
    )
    return ok


# --- the floor: one hand-written query per keystroke ------------------------------------------


def floor_query(typed: str, pg: bool, limit: int = search.PAGE_SIZE) -> tuple[str, dict[str, object]]:
    """The page for ``typed`` and its columns as one plain SQL query (same classification, same
    parts in the same order, planned by the database alone)."""
    q = search.classify(typed)
    c = ' COLLATE "C"' if pg else ""
    n = limit + 1
    params: dict[str, object] = {}

    def mark(name: str, value: object) -> str:
        params[name] = value
        return f"%({name})s" if pg else f":{name}"

    def prefix(column: str, value: str, name: str) -> str:
        upper = search.prefix_upper_bound(value)
        cond = f"{column}{c} >= {mark(name + '_lo', value)}"
        return cond + (f" AND {column}{c} < {mark(name + '_hi', upper)}" if upper else "")

    def part(seg: int, where: str) -> str:
        return (f"SELECT * FROM (SELECT id, name_search{c} AS k, {seg} AS seg FROM people WHERE {where} "
                f"ORDER BY name_search{c}, id LIMIT {n}) AS p{seg}")

    parts: list[str] = []
    if q.kind is search.QueryKind.EVERYONE:
        parts.append(part(0, "TRUE" if pg else "1"))
    elif q.kind is search.QueryKind.NAME:
        starts = prefix("name_search", q.text, "n")
        parts.append(part(0, starts))
        if any(len(w) >= 3 for w in q.words) and (len(q.words) == 1 or len(q.words[-1]) >= 3):
            likes = " AND ".join(f"name_search LIKE {mark(f'w{i}', '%' + search.escape_like(w) + '%')} ESCAPE '\\'"
                                 for i, w in enumerate(q.words))
            if not pg:
                match = " ".join('"' + w.replace('"', '""') + '"' for w in q.words if len(w) >= 3)
                likes += f" AND id IN (SELECT rowid FROM people_fts WHERE people_fts MATCH {mark('m', match)})"
            parts.append(part(1, f"{likes} AND NOT ({starts})"))
    elif q.kind is search.QueryKind.DIGITS and len(q.text) <= 11:
        by_cpf = prefix("cpf", q.text, "c")
        parts.append(part(0, by_cpf))
        if len(q.text) >= 4:
            parts.append(part(1, f"id IN (SELECT holder_id FROM vehicles WHERE {prefix('renavam', q.text, 'r')}) "
                                 f"AND NOT ({by_cpf})"))
    elif q.kind is search.QueryKind.PLATE:
        active = "active" if pg else "active = 1"
        forms = " OR ".join(f"({prefix('plate', p, f'p{i}')} AND {active})"
                            for i, p in enumerate((q.text, *q.alternatives)))
        parts.append(part(0, f"id IN (SELECT holder_id FROM vehicles WHERE {forms})"))
    elif q.kind is search.QueryKind.PERMIT:
        forms = " OR ".join(f"({prefix('number', p, f'm{i}')})" for i, p in enumerate((q.text, *q.alternatives)))
        parts.append(part(0, f"id IN (SELECT person_id FROM permits WHERE {forms})"))
    if not parts:
        parts.append(part(0, "FALSE" if pg else "0"))
    in_force = "('active', 'suspended')"
    sql = f"""
        SELECT page.id, people.full_name, people.cpf,
          (SELECT number FROM permits WHERE person_id = page.id
            ORDER BY state IN {in_force} DESC, issued_on DESC, id DESC LIMIT 1) AS permit,
          (SELECT state FROM permits WHERE person_id = page.id
            ORDER BY state IN {in_force} DESC, issued_on DESC, id DESC LIMIT 1) AS permit_state,
          (SELECT state FROM applications WHERE person_id = page.id ORDER BY opened_on DESC, id DESC LIMIT 1) AS app,
          (SELECT plate FROM vehicles WHERE holder_id = page.id AND {'active' if pg else 'active = 1'} LIMIT 1) AS plate
        FROM (SELECT * FROM ({' UNION ALL '.join(parts)}) AS parts ORDER BY seg, k, id LIMIT {n}) AS page
        JOIN people ON people.id = page.id
        ORDER BY page.seg, page.k, page.id"""
    return sql, params


def floor_runner(db: Database) -> tuple[Callable[[str], object], Callable[[], None]]:
    """Runs :func:`floor_query` on a plain driver connection; returns (answer, close)."""
    pg = not db.is_sqlite
    if pg:
        import psycopg

        url = db.url
        conn = psycopg.connect(host=url.host, port=url.port or 5432, user=url.username, password=url.password,
                               dbname=url.database, autocommit=True, options=QUICK_OPTIONS)
    else:
        import sqlite3

        conn = sqlite3.connect(str(db.sqlite_path))

    def answer(typed: str) -> object:
        sql, params = floor_query(typed, pg)
        cur = conn.cursor()
        cur.execute(sql, params)
        rows = cur.fetchall()
        cur.close()
        return rows

    return answer, conn.close


# --- round trips on PostgreSQL ---------------------------------------------------------------------


class CountingRelay:
    """TCP relay in front of the server counting the client's sends (each one answered: a round trip)."""

    def __init__(self, host: str, port: int) -> None:
        import socket
        import threading

        self._socket, self._threading = socket, threading
        self.target = (host, port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.sends = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = self._socket.create_connection(self.target)
            for a, b, counted in ((client, upstream, True), (upstream, client, False)):
                self._threading.Thread(target=self._pipe, args=(a, b, counted), daemon=True).start()

    def _pipe(self, src: object, dst: object, counted: bool) -> None:
        try:
            while data := src.recv(1 << 20):  # type: ignore[attr-defined]
                if counted:
                    self.sends += 1
                dst.sendall(data)  # type: ignore[attr-defined]
        except OSError:
            pass

    def close(self) -> None:
        self.listener.close()


def round_trips(db: Database, typed: dict[str, list[list[str]]]) -> dict[str, tuple[float, int, float]]:
    """kind -> (mean round trips per keystroke, most, statements per keystroke), through a relay."""
    from sqlalchemy import event

    relay = CountingRelay(db.url.host or "127.0.0.1", db.url.port or 5432)
    proxied = Database.open(db.url.set(host="127.0.0.1", port=relay.port).render_as_string(hide_password=False))
    ctx = AppContext(proxied)
    statements = [0]
    try:
        search.search_people(ctx, "aquecimento")  # the connection's start-up, once per pool connection
        assert proxied._reader is not None
        event.listen(proxied._reader, "before_cursor_execute", lambda *_a: statements.__setitem__(0, statements[0] + 1))
        found = {}
        for kind, sequences in typed.items():
            counts, sent = [], 0
            for sequence in sequences:
                for text in sequence:
                    before, statements_before = relay.sends, statements[0]
                    search.search_people(ctx, text)
                    counts.append(relay.sends - before)
                    sent += statements[0] - statements_before
            found[kind] = (statistics.mean(counts), max(counts), sent / len(counts))
        return found
    finally:
        proxied.dispose()
        relay.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--people", type=int, default=100_000)
    parser.add_argument("--pg-url", default=DEFAULT_PG)
    parser.add_argument("--samples", type=int, default=30, help="people typed per kind of search")
    parser.add_argument("--reseed", action="store_true")
    parser.add_argument("--seed-only", action="store_true", help="seed (or upgrade) the cached database and stop")
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="time each keystroke N times and keep the fastest (a busy shared machine)",
    )
    args = parser.parse_args()

    db = open_database(args.backend, args.people, args.pg_url, args.reseed)
    try:
        ctx = prepare(db, args.people)
        if args.seed_only:
            return 0
        with ctx.read() as s:
            total = s.scalar(select(func.count(Person.id))) or 0
        typed = samples(ctx, args.samples, random.Random(4883))
        answer, close = floor_runner(db)
        try:
            run(ctx, {k: v[:3] for k, v in typed.items()})  # warm the caches and the connection pool
            run(ctx, {k: v[:3] for k, v in typed.items()}, answer=answer)
            rows = run(ctx, typed, args.repeat)
            floor = run(ctx, typed, args.repeat, answer=answer)
        finally:
            close()
        first_page = [timed(lambda: search.search_people(ctx, "")) for _ in range(30)]
        first_page.append(first_page_cold(db))
        trips = None if db.is_sqlite else round_trips(db, typed)
        people = f"{total:,}".replace(",", ".")
        ok = report(f"{db.url.get_backend_name()}: {people} pessoas (repetições: {args.repeat}, a mais rápida)",
                    args.backend, rows, floor, first_page, trips)
    finally:
        db.dispose()
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
