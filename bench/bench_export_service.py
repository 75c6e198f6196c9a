"""Benchmark of the whole export path — database query → rows → xlsx — and of the import.

    .venv/bin/python bench/bench_export_service.py                 # 100,000 people, best of 3
    .venv/bin/python bench/bench_export_service.py --people 20000 --repeat 1

The first run seeds SQLite databases with ``motodesk seed-demo --people N`` and keeps them in
``~/.cache/motodesk-bench/export-N.sqlite3`` (``--reseed`` starts again).

1. Time: ``services.reports.export(ctx, "permits")`` and ``export(ctx, "people")`` against a plain
   openpyxl write-only script that runs the same SQL (same columns, same order, same cursor
   batches) and appends the fetched values as they come, in the same run, interleaved, best of N.
   The ratio is what MotoDesk adds over the plain script: CPF formatting, enum labels, date and
   number styles, formula escaping, the title and header rows, autofilter, atomic save.
   Target: ratio <= 1.3.
2. Memory: peak resident memory (``ru_maxrss``; VmHWM on Linux, which survives no execve) of a fresh
   subprocess per measurement, exporting the permits of the 10,000-people and of the
   100,000-people database: flat as rows grow means the rows are streamed, not held.
3. Import: ``preview_import`` + ``apply_import`` of a 10,000-row register into an empty database,
   then the re-import of the same file (preview only: every row "sem alterações").
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from openpyxl import Workbook  # noqa: E402

from motodesk.models.db import Database  # noqa: E402
from motodesk.rules.common import Role  # noqa: E402
from motodesk.services import reports  # noqa: E402
from motodesk.services.context import AppContext, CurrentUser  # noqa: E402
from motodesk.services.settings import ensure_defaults  # noqa: E402

BENCH_USER = CurrentUser(id=None, login="bench", full_name="Benchmark", role=Role.SUPERVISOR)
TARGET_RATIO = 1.3


def cache_dir() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    folder = base / "motodesk-bench"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def seeded(people: int, reseed: bool) -> Path:
    """A SQLite database of ``people`` demo people, made once with the CLI and kept."""
    path = cache_dir() / f"export-{people}.sqlite3"
    if reseed:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
    if not path.exists():
        print(f"seeding {people:,} people into {path} (once)…", file=sys.stderr, flush=True)
        start = time.perf_counter()
        from motodesk.services.demo import DEMO_PASSWORD

        url = f"sqlite:///{path}"
        login = f"{DEMO_PASSWORD}\n"  # the first administrator, then seed-demo as that administrator
        for args in (("init-db",), ("create-user", "admin", "--role", "admin"),
                     ("seed-demo", "--people", str(people), "--user", "admin")):
            subprocess.run([sys.executable, "-m", "motodesk", *args, "--database", url], check=True,
                           stdout=subprocess.DEVNULL, input=login, text=True)
        print(f"  seeded in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return path


def context(path: Path) -> AppContext:
    db = Database.open(f"sqlite:///{path}")
    db.prepare()
    ctx = AppContext(db)
    ensure_defaults(ctx)
    return ctx.as_user(BENCH_USER)


# --- the plain script: the same SQL, the fetched values appended as they come ----------------------


def _query(kind: str) -> Any:
    """The select the service runs for ``kind``."""
    return reports.permits_query() if kind == "permits" else reports.people_query()


def plain_export(ctx: AppContext, kind: str, out: Path) -> int:
    spec = {"permits": reports.xk.PERMITS, "people": reports.xk.PEOPLE}[kind]
    query = _query(kind)
    wb = Workbook(write_only=True)
    ws = wb.create_sheet(spec.sheet_name)
    ws.append([f"{spec.title} — exportado em {datetime.now():%d/%m/%Y %H:%M} por bench"])
    ws.append(list(spec.headers))
    n = 0
    with ctx.read() as s:
        for row in s.execute(query.execution_options(yield_per=reports.BATCH)):
            ws.append(list(row))
            n += 1
    wb.save(out)
    return n


def service_export(ctx: AppContext, kind: str, out: Path) -> int:
    return reports.export(ctx, kind, out)


# --- memory: one fresh process per measurement ------------------------------------------------------


def _status_kib(field: str) -> int:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def child(kind: str, db_path: str, out: str) -> None:
    ctx = context(Path(db_path))
    start = _status_kib("VmRSS")
    t0 = time.perf_counter()
    n = service_export(ctx, "permits", Path(out)) if kind == "service" else plain_export(ctx, "permits", Path(out))
    seconds = time.perf_counter() - t0
    peak = _status_kib("VmHWM") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"rows": n, "start_kib": start, "peak_kib": peak, "seconds": seconds}))


def measure_memory(kind: str, db_path: Path, folder: Path) -> dict[str, Any]:
    out = subprocess.run([sys.executable, __file__, "--child", kind, str(db_path), str(folder / f"mem-{kind}.xlsx")],
                         check=True, capture_output=True, text=True)
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


# --- import ---------------------------------------------------------------------------------------


def write_register(path: Path, n: int, *, first_permit: int = 1) -> None:
    """``n`` valid rows of the template: new people with a vehicle and a motoboy/moto-frete permit, every
    document number different (so no check is answered from the memo of an identical row). Permits are
    numbered from ``first_permit`` (bench_import starts above any demo seed's, so a seeded register
    refuses none of them); plates stay distinct up to 5 million rows."""
    from validate_docbr import CNH, CPF, PIS

    from motodesk.exports.importer import TEMPLATE_COLUMNS

    gen, cnh, pis = CPF(), CNH(), PIS()
    cpfs: set[str] = set()
    while len(cpfs) < n:
        cpfs.add(gen.generate())
    letters = "ABCDEFGHJKLMNPRSTUVWXYZ"
    today = date.today()
    wb = Workbook(write_only=True)
    ws = wb.create_sheet("Cadastro")
    ws.append([c.header for c in TEMPLATE_COLUMNS])
    for i, cpf in enumerate(sorted(cpfs)):
        service = "Motoboy" if i % 3 else "Moto-frete"
        code = "MB" if i % 3 else "MF"
        issued = today - timedelta(days=30 + i % 1500)
        values = {
            "full_name": f"Pessoa Importada Número {i}", "cpf": cpf,
            "birth_date": date(1960, 1, 1) + timedelta(days=i % 9000), "sex": "Feminino" if i % 2 else "Masculino",
            "phone": "(34) 99876-5432", "email": f"pessoa{i}@exemplo.com.br", "address": "Rua Goiás, 100, Centro",
            "cnh": cnh.generate(), "cnh_categories": "AB",
            "cnh_first_a_date": (date(2005, 1, 1) + timedelta(days=i % 3000)).strftime("%d/%m/%Y"),
            "cnh_expiry": today + timedelta(days=700), "service": service,
            "plate": f"{letters[i // 52900 % 23]}{letters[i // 2300 % 23]}{letters[i // 100 % 23]}{i % 10}"
                     f"{letters[i // 10 % 10]}{i % 100:02d}",
            "manufacture_year": today.year - i % 4, "engine_cc": 150 + i % 90, "nit": pis.generate(),
            "permit_number": f"{code}-{first_permit + i:04d}/{issued.year}", "issued_on": issued,
            "decree": f"Decreto {1000 + i % 50}/{issued.year}",
        }
        ws.append([values.get(c.key) for c in TEMPLATE_COLUMNS])
    wb.save(path)


def bench_import(n: int, folder: Path) -> dict[str, float]:
    from motodesk.services.imports import apply_import, preview_import

    register = folder / "cadastro.xlsx"
    write_register(register, n)
    db_path = folder / "import.sqlite3"
    ctx = context(db_path).as_user(CurrentUser(id=None, login="bench", full_name="Benchmark", role=Role.CLERK))
    t0 = time.perf_counter()
    preview = preview_import(ctx, register)
    t1 = time.perf_counter()
    assert not preview.refused, [line.reason for line in preview.refused[:3]]
    summary = apply_import(ctx, preview)
    t2 = time.perf_counter()
    again = preview_import(ctx, register)
    t3 = time.perf_counter()
    assert summary.created == n and len(again.lines) == n and not again.importable
    return {"preview": t1 - t0, "apply": t2 - t1, "reimport_preview": t3 - t2}


# --- main -----------------------------------------------------------------------------------------


def best_of(repeat: int, runs: dict[str, Callable[[], int]]) -> dict[str, tuple[float, int]]:
    best = {name: (float("inf"), 0) for name in runs}
    for _ in range(repeat):  # interleaved: a busy machine slows every contender alike
        for name, fn in runs.items():
            start = time.perf_counter()
            rows = fn()
            elapsed = time.perf_counter() - start
            if elapsed < best[name][0]:
                best[name] = (elapsed, rows)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--people", type=int, default=100_000)
    parser.add_argument("--small", type=int, default=10_000, help="people of the second memory point")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--import-rows", type=int, default=10_000)
    parser.add_argument("--reseed", action="store_true")
    parser.add_argument("--child", nargs=3, metavar=("KIND", "DB", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return

    big = seeded(args.people, args.reseed)
    small = seeded(args.small, args.reseed)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    with tempfile.TemporaryDirectory(prefix="motodesk-bench-") as tmp:
        folder = Path(tmp)
        ctx = context(big)
        runs: dict[str, Callable[[], int]] = {}
        for kind in ("permits", "people"):
            runs[f"plain {kind}"] = lambda k=kind: plain_export(ctx, k, folder / f"plain-{k}.xlsx")
            runs[f"service {kind}"] = lambda k=kind: service_export(ctx, k, folder / f"service-{k}.xlsx")
        cpu0 = time.process_time()
        best = best_of(args.repeat, runs)
        cpu = time.process_time() - cpu0
        print(f"\nExport from SQLite, {args.people:,} people (best of {args.repeat}; Python "
              f"{sys.version.split()[0]}; load average {load:.2f}; CPU {cpu:.0f} s over all rounds)\n")
        print(f"{'what':<40} {'rows':>8} {'seconds':>8} {'ratio':>6} {'rows/s':>9}")
        print("-" * 76)
        for kind in ("permits", "people"):
            t_plain, rows = best[f"plain {kind}"]
            t_service, rows_service = best[f"service {kind}"]
            assert rows == rows_service, (rows, rows_service)
            print(f"{'plain openpyxl, same query: ' + kind:<40} {rows:>8,} {t_plain:8.2f} {1:6.2f} "
                  f"{rows / t_plain:9,.0f}")
            verdict = "ok" if t_service / t_plain <= TARGET_RATIO else f"ABOVE {TARGET_RATIO}"
            print(f"{'reports.export(' + kind + ')':<40} {rows:>8,} {t_service:8.2f} {t_service / t_plain:6.2f} "
                  f"{rows / t_service:9,.0f}  {verdict}")
        ctx.db.dispose()

        print("\nPeak memory of a fresh process exporting the permits (ru_maxrss / VmHWM)\n")
        print(f"{'what':<22} {'people':>8} {'rows':>8} {'RSS start MiB':>14} {'RSS peak MiB':>13} {'seconds':>8}")
        print("-" * 78)
        for kind in ("plain", "service"):
            for people, path in ((args.small, small), (args.people, big)):
                copy = folder / f"{kind}-{people}.sqlite3"
                shutil.copy(path, copy)
                m = measure_memory(kind, copy, folder)
                print(f"{kind:<22} {people:>8,} {m['rows']:>8,} {m['start_kib'] / 1024:14.1f} "
                      f"{m['peak_kib'] / 1024:13.1f} {m['seconds']:8.2f}")

        print(f"\nImport of {args.import_rows:,} rows (person, CNH, NIT, vehicle, permit) into an empty database\n")
        t = bench_import(args.import_rows, folder)
        print(f"{'preview_import (read + judge)':<40} {t['preview']:8.2f} s")
        print(f"{'apply_import (one transaction)':<40} {t['apply']:8.2f} s")
        print(f"{'total':<40} {t['preview'] + t['apply']:8.2f} s")
        print(f"{'re-import: preview, all unchanged':<40} {t['reimport_preview']:8.2f} s")


if __name__ == "__main__":
    main()
