"""Benchmark of the spreadsheet writer and importer (plain script, prints a table).

    .venv/bin/python bench/bench_export.py            # 100,000 rows, best of 3
    .venv/bin/python bench/bench_export.py --rows 20000 --repeat 1

1. Time: 100,000 permit rows with ``write_workbook(PERMITS)`` against a plain
   openpyxl write-only script writing the same cell values (title, headers,
   rows), in the same run, best of N.  Both get the same pre-built list of rows
   whose values are already what the cell shows (CPF formatted, labels), so the
   ratio is the writer's own cost: converters, escaping, CPF transform, date and
   money styles, autofilter, atomic save.  A second line times the writer fed
   the way the services layer feeds it (CPF digits, enums).
2. Memory: peak resident memory of a fresh subprocess per measurement, rows
   generated lazily, at 10,000 and 100,000 rows: it should stay flat.
3. Import: ``read_import`` of a 10,000-row register, best of N.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator
from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from openpyxl import Workbook  # noqa: E402

from motodesk.exports.importer import TEMPLATE_COLUMNS, read_import  # noqa: E402
from motodesk.exports.kinds import PERMITS  # noqa: E402
from motodesk.exports.xlsx import title_line, write_workbook  # noqa: E402
from motodesk.rules.common import PermitState, ServiceType  # noqa: E402

AT = datetime(2026, 3, 2, 14, 5)
SERVICES = list(ServiceType)


def cpf_digits(seed: int) -> str:
    base = [int(d) for d in f"{(seed * 7919 + 123456) % 10**9:09d}"]
    if len(set(base)) == 1:
        base[0] = (base[0] + 1) % 10
    for n in (10, 11):
        total = sum(d * w for d, w in zip(base, range(n, 1, -1), strict=False))
        digit = (total * 10) % 11
        base.append(0 if digit == 10 else digit)
    return "".join(map(str, base))


def service_row(i: int) -> dict:
    """A permit row as the services layer gives it: CPF digits, enums, dates."""
    service = SERVICES[i % 3]
    issued = date(2021, 1, 4) + timedelta(days=i % 1500)
    return {
        "number": f"{service.code}-{i % 10000:04d}/{issued.year}",
        "service": service,
        "holder_name": f"Pessoa de Teste Número {i}",
        "cpf": cpf_digits(i),
        "plate": f"ABC{i % 10}D{i % 100:02d}",
        "state": PermitState.ACTIVE if i % 7 else PermitState.SUSPENDED,
        "issued_on": issued,
        "certificate_valid_until": issued + timedelta(days=365),
        "term_ends_on": issued + timedelta(days=5 * 365),
        "decree": f"Decreto {1000 + i % 500}/{issued.year}",
        # the fee columns of the permits export (Art. 6 §6): the issue fee paid, no renewal yet
        "issue_fee": Decimal("85.40"), "issue_fee_number": f"DAM {20210000 + i}", "issue_fee_paid_on": issued,
        "renewal_fee": None, "renewal_fee_number": None, "renewal_fee_paid_on": None,
    }


def shown_row(i: int) -> dict:
    """The same row with the values the cells show (what the plain script writes)."""
    row = service_row(i)
    cpf = row["cpf"]
    row["cpf"] = f"{cpf[:3]}.{cpf[3:6]}.{cpf[6:9]}-{cpf[9:]}"
    row["service"] = row["service"].label
    row["state"] = row["state"].label
    return row


def plain_openpyxl(path: Path, rows) -> None:
    keys = PERMITS.keys
    wb = Workbook(write_only=True)
    ws = wb.create_sheet(PERMITS.sheet_name)
    ws.append([title_line(PERMITS.title, "bench", AT)])
    ws.append(list(PERMITS.headers))
    for row in rows:
        ws.append([row[k] for k in keys])
    wb.save(path)


def motodesk_writer(path: Path, rows) -> None:
    write_workbook(path, [(PERMITS, rows)], exported_by="bench", exported_at=AT)


def best_of(repeat: int, fn: Callable[[], None]) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


# ------------------------------------------------------------------ memory child


def _status_kib(field: str) -> int:
    """A figure of /proc/self/status in KiB (Linux); VmHWM is this address space's peak."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def child(kind: str, n: int, path: str, trace: bool) -> None:
    rows: Iterator[dict] = (service_row(i) if kind == "writer" else shown_row(i) for i in range(n))
    start = _status_kib("VmRSS")
    if trace:
        tracemalloc.start()
    if kind == "writer":
        motodesk_writer(Path(path), rows)
    else:
        plain_openpyxl(Path(path), rows)
    traced = tracemalloc.get_traced_memory()[1] if trace else 0
    # ru_maxrss survives execve on Linux (the parent's peak would leak in); VmHWM
    # belongs to the new address space.  ru_maxrss is the fallback elsewhere.
    peak = _status_kib("VmHWM") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"start_kib": start, "peak_kib": peak, "traced_peak_bytes": traced}))


def measure_memory(kind: str, n: int, folder: Path) -> dict:
    """Two fresh processes: one for resident memory, one under tracemalloc (slower)."""
    result: dict = {}
    for trace in ("rss", "trace"):
        out = subprocess.run(
            [sys.executable, __file__, "--child", kind, str(n), str(folder / f"mem-{kind}-{n}.xlsx"), trace],
            check=True,
            capture_output=True,
            text=True,
        )
        figures = json.loads(out.stdout.strip().splitlines()[-1])
        if trace == "trace":
            result["traced_peak_bytes"] = figures["traced_peak_bytes"]
        else:
            result.update(start_kib=figures["start_kib"], peak_kib=figures["peak_kib"])
    return result


# ---------------------------------------------------------------------- import


def write_register(path: Path, n: int) -> None:
    wb = Workbook(write_only=True)
    ws = wb.create_sheet("Cadastro")
    ws.append([c.header for c in TEMPLATE_COLUMNS])
    for i in range(n):
        base = service_row(i)
        values = {
            "full_name": base["holder_name"],
            "cpf": base["cpf"],
            "birth_date": date(1970, 1, 1) + timedelta(days=i % 12000),
            "sex": "Feminino" if i % 2 else "Masculino",
            "phone": "(34) 99876-5432",
            "email": f"pessoa{i}@exemplo.com.br",
            "address": "Rua Goiás, 100, Centro",
            "cnh": "02650306461",
            "cnh_categories": "AB",
            "cnh_first_a_date": "01/06/2010",
            "cnh_expiry": date(2028, 6, 1),
            "service": base["service"].label,
            "plate": f"ABC{i % 10000:04d}",
            "renavam": "00639884962",
            "vin": "9C2KC1670HR000001",
            "manufacture_year": 2022,
            "engine_cc": 160,
            "nit": "120.5464.678-6",
            "permit_number": base["number"],
            "issued_on": base["issued_on"],
            "decree": base["decree"],
        }
        ws.append([values.get(c.key) for c in TEMPLATE_COLUMNS])  # a column not filled here stays empty
    wb.save(path)


# ------------------------------------------------------------------------ main


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--import-rows", type=int, default=10_000)
    parser.add_argument("--child", nargs=4, metavar=("KIND", "N", "PATH", "MODE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]), args.child[2], args.child[3] == "trace")
        return

    with tempfile.TemporaryDirectory(prefix="motodesk-bench-") as tmp:
        folder = Path(tmp)
        n = args.rows
        shown = [shown_row(i) for i in range(n)]
        services = [service_row(i) for i in range(n)]
        # Interleaved rounds, so a busy machine slows every contender alike.
        contenders = {
            "plain": lambda: plain_openpyxl(folder / "plain.xlsx", shown),
            "writer": lambda: motodesk_writer(folder / "writer.xlsx", shown),
            "services": lambda: motodesk_writer(folder / "services.xlsx", services),
        }
        best = dict.fromkeys(contenders, float("inf"))
        for _ in range(args.repeat):
            for name, fn in contenders.items():
                best[name] = min(best[name], best_of(1, fn))
        t_plain, t_writer, t_services = best["plain"], best["writer"], best["services"]

        print(f"\nExport of {n:,} permit rows (best of {args.repeat}; Python {sys.version.split()[0]})\n")
        print(f"{'what':<46} {'seconds':>8} {'ratio':>6} {'rows/s':>9}")
        print("-" * 72)
        for label, t in (
            ("plain openpyxl write-only, same values", t_plain),
            ("write_workbook(PERMITS), same values", t_writer),
            ("write_workbook(PERMITS), CPF digits + enums", t_services),
        ):
            print(f"{label:<46} {t:8.2f} {t / t_plain:6.2f} {n / t:9,.0f}")
        size = (folder / "writer.xlsx").stat().st_size
        print(
            f"\nfile size: {size / 1e6:.1f} MB (writer), {(folder / 'plain.xlsx').stat().st_size / 1e6:.1f} MB (plain)"
        )

        print("\nPeak memory, fresh process per measurement, rows generated lazily\n")
        print(
            f"{'what':<18} {'rows':>8} {'RSS start MiB':>14} {'RSS peak MiB':>13} {'tracemalloc peak MiB':>21}"
        )
        print("-" * 78)
        for kind in ("plain", "writer"):
            for rows in (max(1, n // 10), n):  # 10,000 and 100,000 by default
                m = measure_memory(kind, rows, folder)
                print(
                    f"{'plain openpyxl' if kind == 'plain' else 'write_workbook':<18} {rows:>8,} "
                    f"{m['start_kib'] / 1024:14.1f} {m['peak_kib'] / 1024:13.1f} "
                    f"{m['traced_peak_bytes'] / 2**20:21.2f}"
                )

        register = folder / "cadastro.xlsx"
        write_register(register, args.import_rows)
        result = {}

        def run_import() -> None:
            result["report"] = read_import(register)

        t_import = best_of(args.repeat, run_import)
        report = result["report"]
        ok = sum(r.ok for r in report.rows)
        print(f"\nImport of {args.import_rows:,} rows with read_import (best of {args.repeat})\n")
        print(f"{'seconds':>8} {'rows/s':>9} {'accepted':>9} {'refused':>8} file_errors")
        print("-" * 72)
        print(
            f"{t_import:8.2f} {args.import_rows / t_import:9,.0f} {ok:9,} {len(report.rows) - ok:8,} "
            f"{len(report.file_errors)}"
        )
        print(f"\nCPU count: {os.cpu_count()}")


if __name__ == "__main__":
    main()
