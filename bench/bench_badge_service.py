"""Benchmark: 500 badges with photos into one PDF through the service, end to end, vs plain reportlab.

Run from the repository root::

    .venv/bin/python bench/bench_badge_service.py [--count 500] [--backend sqlite|postgresql] [--pg-url URL]

``services.badges.print_badges`` does more than draw: it reads the permits, people, vehicles and
each person's newest photo from the database, signs one token per badge (Ed25519), renders the PDF
(``printing.badge.render_badges``), then, in one transaction, checks and raises 500 issue numbers and
writes 500 print-log rows.  This times that whole call (best of 3; the 2nd and 3rd are reprints with
a reason) against ``plain_reportlab`` of ``bench/bench_badges.py`` (the same badge drawn with
reportlab alone, no database) on the very same badge data, and against ``render_badges`` alone, so
the cost of the database and the signatures shows apart from the drawing.

The database is made for the run: a temporary SQLite file, or a fresh PostgreSQL database
``motodesk_bench_badges`` beside ``--pg-url`` (default: MOTODESK_TEST_PG_URL or the local server),
dropped at the end.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import importlib.util
import os
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, insert, make_url
from validate_docbr import CPF

from motodesk.models import Blob, Inspection, Permit, Person, PersonDocument, Photo, Vehicle
from motodesk.models.db import Database
from motodesk.printing.badge import render_badges
from motodesk.rules.common import PermitState, Role, ServiceType
from motodesk.rules.dossier import DocumentKind
from motodesk.rules.lifecycle import permit_term_end, registration_certificate_valid_until
from motodesk.rules.settings import LawSettings
from motodesk.services import badges
from motodesk.services.context import AppContext, CurrentUser
from motodesk.services.settings import ensure_defaults
from motodesk.services.text import fold

HERE = Path(__file__).resolve().parent
SERVICES = (ServiceType.MOTOTAXI, ServiceType.MOTOBOY, ServiceType.MOTOFRETE)


def _bench_badges() -> Any:
    """The printing engineer's benchmark module (photos and the plain reportlab script)."""
    spec = importlib.util.spec_from_file_location("bench_badges", HERE / "bench_badges.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def seed(ctx: AppContext, count: int, photos: list[bytes]) -> list[int]:
    """``count`` permits in force, each holder with their own photo; returns the permit ids."""
    today = date.today()
    now = datetime.now(UTC)
    cpfs: set[str] = set()
    generator = CPF()
    while len(cpfs) < count:
        cpfs.add(generator.generate())
    people, blobs, shots, vehicles, permits = [], [], [], [], []
    inspections: list[dict[str, Any]] = []
    documents: list[dict[str, Any]] = []
    seq = dict.fromkeys(SERVICES, 0)
    for i, cpf in enumerate(sorted(cpfs)):
        pid = i + 1
        name = f"Titular Número {i:04d} da Conceição Araújo"
        people.append({"id": pid, "full_name": name, "name_search": fold(name), "cpf": cpf, "version": 1,
                       "created_at": now, "updated_at": now})
        sha = hashlib.sha256(photos[i]).hexdigest()
        blobs.append({"sha256": sha, "size": len(photos[i]), "data": photos[i]})
        shots.append({"person_id": pid, "blob_sha256": sha, "captured_at": now - timedelta(days=3),
                      "captured_by": "bench", "source": "file", "width": 354, "height": 472})
        service = SERVICES[i % 3]
        # Everything a badge vouches for (document gate, issue 16): vehicle documents, inspection, certificates.
        vehicles.append({"id": pid, "plate": f"BEN{i % 10}A{i % 100:02d}"[:3] + f"{i:04d}", "service_type": service.value,
                         "holder_id": pid, "active": True, "version": 1, "created_at": now, "updated_at": now,
                         "year_manufacture": today.year - 1, "year_model": today.year, "crlv_year": today.year,
                         "crlv_municipality": "Patrocínio", "crlv_uf": "MG", "owner_cpf": cpf,
                         "insurance_valid_until": today + timedelta(days=300), "insurance_insured_cpf": cpf})
        inspections.append({"vehicle_id": pid, "service_type": service.value, "kind": "regular",
                            "status": "approved", "performed_at": now - timedelta(days=3), "version": 1,
                            "created_at": now, "updated_at": now})
        documents.append({"person_id": pid, "kind": DocumentKind.MEDICAL.value, "issue_date": today - timedelta(days=5),
                          "version": 1})
        documents.append({"person_id": pid, "kind": DocumentKind.CRIMINAL.value, "result": "negative",
                          "issue_date": today - timedelta(days=30), "version": 1})
        seq[service] += 1
        permits.append({"number": f"{service.code}-{seq[service]:04d}/{today.year}", "service_type": service.value,
                        "year": today.year, "seq": seq[service], "person_id": pid, "vehicle_id": pid,
                        "state": PermitState.ACTIVE.value, "issued_on": today,
                        "term_end": permit_term_end(today, False),
                        "certificate_valid_until": registration_certificate_valid_until(today),
                        "badge_issue_no": 0, "extended": False, "version": 1, "created_at": now, "updated_at": now})
    with ctx.write() as s:
        s.execute(insert(Person), people)
        s.execute(insert(Blob), blobs)
        s.execute(insert(Photo), shots)
        s.execute(insert(Vehicle), vehicles)
        s.execute(insert(Inspection), inspections)
        s.execute(insert(PersonDocument), documents)
        s.execute(insert(Permit), permits)
    with ctx.read() as s:
        return [row[0] for row in s.query(Permit.id).order_by(Permit.id)]


def timed(runs: int, fn: Callable[[int], bytes]) -> tuple[float, float, bytes]:
    best_wall = best_cpu = float("inf")
    out = b""
    for run in range(runs):
        gc.collect()
        wall, cpu = time.perf_counter(), time.process_time()
        out = fn(run)
        best_cpu = min(best_cpu, time.process_time() - cpu)
        best_wall = min(best_wall, time.perf_counter() - wall)
    return best_wall, best_cpu, out


def open_database(backend: str, pg_url: str | None) -> tuple[Database, Callable[[], None]]:
    if backend == "sqlite":
        folder = tempfile.mkdtemp(prefix="motodesk-bench-badges-")
        db = Database.open(f"sqlite:///{folder}/bench.sqlite3")

        def cleanup() -> None:
            db.dispose()

        return db, cleanup
    admin_url = pg_url or os.environ.get("MOTODESK_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
    name = "motodesk_bench_badges"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}"')
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    db = Database.open(make_url(admin_url).set(database=name).render_as_string(hide_password=False))

    def cleanup_pg() -> None:
        db.dispose()
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}"')
        admin.dispose()

    return db, cleanup_pg


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=500)
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--pg-url", default=None)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    reference = _bench_badges()

    db, cleanup = open_database(args.backend, args.pg_url)
    try:
        db.prepare(allow_upgrade_shared=True)
        ctx = AppContext(db, CurrentUser(None, "bench", "Bancada", Role.CLERK))
        ensure_defaults(AppContext(db))
        print(f"seeding {args.count} permits with distinct 354x472 JPEG photos on {args.backend}...")
        ids = seed(ctx, args.count, reference.make_photos(args.count))
        import os
        import tempfile

        os.environ.setdefault("MOTODESK_BADGE_KEY_DIR", tempfile.mkdtemp(prefix="bench-badge-key-"))
        badges.register_printing_station(AppContext(db))  # a workstation registered to print

        def service(run: int) -> bytes:
            printed = badges.print_badges(ctx, ids, reason=None if run == 0 else "Reimpressão (bancada)")
            return printed.pdf

        rows = [("print_badges, end to end", *timed(args.runs, service))]
        with ctx.read() as s:  # the same badges, data only, for the two drawing-only cases
            private_pem, _ = badges._key_pair(ctx)
            data = [p.data for p in badges._plan(s, [badges.BadgeRequest(i) for i in ids], private_pem,
                                                 date.today(), LawSettings(), reason="x", preview=False)]
        rows.append(("render_badges only", *timed(args.runs, lambda _r: render_badges(data))))
        rows.append(("plain reportlab", *timed(args.runs, lambda _r: reference.plain_reportlab(data))))
        with ctx.read() as s:
            from sqlalchemy import func, select

            from motodesk.models import BadgePrint

            logged = s.scalar(select(func.count(BadgePrint.id)))
    finally:
        cleanup()

    count = args.count
    print()
    print(f"{'case':<28}{'wall (s)':>10}{'CPU (s)':>10}{'badges/s (wall)':>17}{'PDF (MB)':>10}")
    print("-" * 75)
    for name, wall, cpu, pdf in rows:
        print(f"{name:<28}{wall:>10.2f}{cpu:>10.2f}{count / wall:>17.1f}{len(pdf) / 1e6:>10.2f}")
    print("-" * 75)
    service_row, render_row, plain_row = rows
    print(f"ratio end to end / plain reportlab: wall {service_row[1] / plain_row[1]:.2f}, "
          f"CPU {service_row[2] / plain_row[2]:.2f}")
    print(f"ratio render_badges / plain reportlab: wall {render_row[1] / plain_row[1]:.2f}, "
          f"CPU {render_row[2] / plain_row[2]:.2f}")
    print(f"print-log rows written: {logged} ({args.runs} runs x {count})")
    print(f"load average: {os.getloadavg()[0]:.1f} (the machine may be shared)")


if __name__ == "__main__":
    sys.exit(main())
