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

and the first page of the people list (empty query), which the list shows on opening.

Target: p95 <= 50 ms per keystroke at 100,000 people on both databases and at 1,000,000 on
PostgreSQL; first page of the list <= 100 ms at any size.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import create_engine, func, make_url, select  # noqa: E402

from motodesk.models import Person, Vehicle  # noqa: E402
from motodesk.models.db import Database  # noqa: E402
from motodesk.services import search  # noqa: E402
from motodesk.services.context import AppContext  # noqa: E402
from motodesk.services.settings import ensure_defaults  # noqa: E402

TARGET_KEYSTROKE_MS = 50.0
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
    """name -> CREATE INDEX of migration 0002's PostgreSQL indexes (the same statements)."""
    import importlib.util

    path = ROOT / "motodesk/models/migrations/versions/0002_search_indexes.py"
    spec = importlib.util.spec_from_file_location("search_indexes_0002", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return dict(zip(module.PG_INDEX_NAMES, module.PG_INDEXES, strict=True))


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
    prefix, infix, cpf = [], [], []
    for name, number in people:
        words = name.split(" ")
        prefix.append(keystrokes(f"{words[0]} {words[1][:4]}"))
        infix.append(keystrokes(words[-1].lower()))
        cpf.append(keystrokes(f"{number[:3]}.{number[3:6]}.{number[6:9]}-{number[9:]}"))
    plate = [keystrokes(f"{p[:3]}-{p[3:]}" if p[4].isdigit() else p) for p in plates]
    return {"nome (prefixo)": prefix, "nome (meio)": infix, "CPF": cpf, "placa": plate}


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
    ctx: AppContext, typed: dict[str, list[list[str]]], repeat: int = 1
) -> list[tuple[str, list[float], float]]:
    rows = []
    for kind, sequences in typed.items():
        times: list[float] = []
        worst = ("", 0.0)
        for sequence in sequences:
            for text in sequence:
                ms = min(timed(lambda t=text: search.search_people(ctx, t)) for _ in range(repeat))
                times.append(ms)
                if ms > worst[1]:
                    worst = (text, ms)
        rows.append((kind, times, worst))
    return rows


def report(
    title: str, rows: Iterable[tuple[str, list[float], tuple[str, float]]], first_page: list[float]
) -> bool:
    print(f"\n{title}")
    print(f"{'busca':<16}{'consultas':>10}{'p50 ms':>9}{'p95 ms':>9}{'máx ms':>9}  pior tecla")
    ok = True
    for kind, times, worst in rows:
        p95 = percentile(times, 95)
        ok &= p95 <= TARGET_KEYSTROKE_MS
        print(
            f"{kind:<16}{len(times):>10}{statistics.median(times):>9.1f}{p95:>9.1f}{max(times):>9.1f}"
            f"  {worst[0]!r}"
        )
    p95 = percentile(first_page, 95)
    ok &= p95 <= TARGET_FIRST_PAGE_MS
    print(
        f"{'lista (1ª pág.)':<16}{len(first_page):>10}{statistics.median(first_page):>9.1f}{p95:>9.1f}"
        f"{max(first_page):>9.1f}"
    )
    print(
        f"metas: p95 <= {TARGET_KEYSTROKE_MS:.0f} ms por tecla, 1ª página <= {TARGET_FIRST_PAGE_MS:.0f} ms: "
        + ("atingidas" if ok else "NÃO atingidas")
    )
    return ok


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
        run(ctx, {k: v[:3] for k, v in typed.items()})  # warm the caches and the connection pool
        rows = run(ctx, typed, args.repeat)
        first_page = [timed(lambda: search.search_people(ctx, "")) for _ in range(30)]
        first_page.append(first_page_cold(db))
        people = f"{total:,}".replace(",", ".")
        ok = report(f"{db.url.get_backend_name()}: {people} pessoas", rows, first_page)
    finally:
        db.dispose()
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
