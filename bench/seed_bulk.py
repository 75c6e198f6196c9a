"""The benchmarks' bulk seeder: a million people for the search box and the people list, fast.

``seed_demo`` (the services' demo data) fills every table a clerk looks at and takes about ten
minutes per million people here; the search benchmarks only need what the search reads: people
(name, CPF), their active vehicle (plate, RENAVAM), their permit or open application. Those rows
are generated with the same distributions as ``seed_demo`` (pt_BR names from Faker's lists, valid
CPFs, old and Mercosul plates, MB/MF/MT permit numbers) and written with the fastest bulk path of
each database: ``COPY`` on PostgreSQL (triggers off, search indexes built after the load, as a DBA
would load a register), one ``executemany`` transaction on SQLite.

It writes straight into the tables, under the services (no audit rows): a benchmark fixture, not
a way to fill a real register.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

from faker.providers.person.pt_BR import Provider as Names

from motodesk.models.db import Database
from motodesk.services.text import fold

BATCH = 50_000
LETTERS = "ABCDEFGHJKLMNPRSTUVWXYZ"
SERVICE_CODES = {"motoboy": "MB", "motofrete": "MF", "mototaxi": "MT"}


def _cpf(base: int) -> str:
    digits = [int(c) for c in f"{base:09d}"]
    for length in (9, 10):
        total = sum(d * w for d, w in zip(digits, range(length + 1, 1, -1), strict=True))
        check = (total * 10) % 11
        digits.append(0 if check == 10 else check)
    return "".join(map(str, digits))


def _renavam(base: int) -> str:
    body = f"{base:010d}"
    total = sum(int(d) * w for d, w in zip(body[::-1], (2, 3, 4, 5, 6, 7, 8, 9, 2, 3), strict=True))
    check = (total * 10) % 11
    return body + str(0 if check == 10 else check)


def _plates(rng: random.Random) -> Iterator[str]:
    seen: set[str] = set()
    while True:
        head = "".join(rng.choices(LETTERS, k=3))
        if rng.random() < 0.5:
            plate = f"{head}{rng.randint(0, 9999):04d}"
        else:
            plate = f"{head}{rng.randint(0, 9)}{rng.choice(LETTERS)}{rng.randint(0, 99):02d}"
        if plate not in seen:
            seen.add(plate)
            yield plate


def generate(people: int, seed: int = 4883, today: date | None = None) -> Iterator[dict[str, list[tuple[Any, ...]]]]:
    """Rows by table, in batches of :data:`BATCH` people (ids from 1)."""
    today = today or date.today()
    rng = random.Random(seed)
    now = datetime.now(UTC).replace(tzinfo=None)
    males, females, surnames = Names.first_names_male, Names.first_names_female, Names.last_names
    cpf_bases = rng.sample(range(1, 10**9), people)
    renavam_bases = rng.sample(range(10**8, 10**10), people)
    plates = _plates(rng)
    seq = {"motoboy": 0, "motofrete": 0, "mototaxi": 0}
    vid = permit_id = 0
    for start in range(0, people, BATCH):
        out: dict[str, list[tuple[Any, ...]]] = {"people": [], "vehicles": [], "permits": [], "applications": []}
        for pid in range(start + 1, min(start + BATCH, people) + 1):
            sex = "M" if rng.random() < 0.82 else "F"
            first = rng.choice(males if sex == "M" else females)
            name = f"{first} {rng.choice(surnames)} {rng.choice(surnames)}"
            cpf = _cpf(cpf_bases[pid - 1])
            out["people"].append((pid, name, fold(name), cpf, today - timedelta(days=rng.randint(19 * 365, 62 * 365)),
                                  sex, "Patrocínio", "MG", True, 1, now, now))
            roll = rng.random()
            if roll < 0.15:
                continue  # only a dossier
            service = "motoboy" if roll < 0.72 else "motofrete" if roll < 0.97 else "mototaxi"
            vid += 1
            out["vehicles"].append((vid, next(plates), _renavam(renavam_bases[pid - 1]), "Honda", "CG 160 Titan",
                                    service, pid, True, 1, now, now))
            state_roll = rng.random()
            if state_roll < 0.08:
                out["applications"].append((pid, service, vid, rng.choice(("requested", "under_review")),
                                            today - timedelta(days=rng.randint(0, 60)), "atendente", 1, now, now))
                continue
            state = ("active" if state_roll < 0.80 else "suspended" if state_roll < 0.84 else
                     "expired" if state_roll < 0.92 else "cancelled" if state_roll < 0.97 else "revoked")
            issued = today - timedelta(days=rng.randint(10, 5 * 365))
            seq[service] += 1
            permit_id += 1
            ended = today - timedelta(days=rng.randint(1, 300)) if state not in ("active", "suspended") else None
            out["permits"].append((permit_id, f"{SERVICE_CODES[service]}-{seq[service]:04d}/{issued.year}", service,
                                   issued.year, seq[service], pid, vid, state, issued,
                                   issued.replace(year=issued.year + 5) if (issued.month, issued.day) != (2, 29)
                                   else issued + timedelta(days=5 * 365 + 1),
                                   False, today + timedelta(days=200), 1, ended, 1, now, now))
        yield out


COLUMNS = {
    "people": ("id", "full_name", "name_search", "cpf", "birth_date", "sex", "city", "uf",
               "declares_no_other_permit", "version", "created_at", "updated_at"),
    "vehicles": ("id", "plate", "renavam", "make", "model", "service_type", "holder_id", "active", "version",
                 "created_at", "updated_at"),
    "permits": ("id", "number", "service_type", "year", "seq", "person_id", "vehicle_id", "state", "issued_on",
                "term_end", "extended", "certificate_valid_until", "badge_issue_no", "ended_on", "version",
                "created_at", "updated_at"),
    "applications": ("person_id", "service_type", "vehicle_id", "state", "opened_on", "opened_by", "version",
                     "created_at", "updated_at"),
}


def seed(db: Database, people: int, *, progress: Callable[[str], None] = print,
         pg_indexes: dict[str, str] | None = None) -> None:
    """Fill an empty, migrated database with ``people`` people (and their vehicles, permits, applications)."""
    started = time.perf_counter()
    pooled = db.engine.raw_connection()
    raw: Any = pooled.dbapi_connection
    try:
        cur = raw.cursor()
        if db.is_sqlite:
            cur.execute("PRAGMA synchronous=OFF")
            cur.execute("BEGIN IMMEDIATE")
        else:
            cur.execute("SET session_replication_role = replica")  # no audit triggers, no FK checks
            for name in pg_indexes or {}:
                cur.execute(f"DROP INDEX IF EXISTS {name}")
        done = 0
        for batch in generate(people):
            for table, rows in batch.items():
                if not rows:
                    continue
                cols = COLUMNS[table]
                if db.is_sqlite:
                    marks = ", ".join("?" * len(cols))
                    cur.executemany(f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({marks})", rows)
                else:
                    with cur.copy(f"COPY {table} ({', '.join(cols)}) FROM STDIN") as copy:
                        for row in rows:
                            copy.write_row(row)
            done += len(batch["people"])
            rate = done / (time.perf_counter() - started)
            progress(f"  {done:,}/{people:,} ({rate:,.0f}/s)")
        if not db.is_sqlite:
            for table in ("people", "vehicles", "permits", "applications"):
                cur.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                            f"(SELECT COALESCE(MAX(id), 0) + 1 FROM {table}), false)")
            for statement in (pg_indexes or {}).values():
                progress(f"  {statement.split(' ON ')[0]}…")
                cur.execute(statement)
            cur.execute("SET session_replication_role = origin")
        if db.is_sqlite:
            cur.execute("COMMIT")
            cur.execute("ANALYZE")
            cur.execute("PRAGMA synchronous=NORMAL")
        else:
            raw.commit()
            raw.autocommit = True
            cur.execute("VACUUM ANALYZE")
            raw.autocommit = False
        cur.close()
    finally:
        pooled.close()
    progress(f"seeded {people:,} people in {time.perf_counter() - started:,.0f} s")
