"""One command for every benchmark: prints each table and writes bench/results.md.

    .venv/bin/python bench/run.py                 # the full set (about 20–40 minutes; seeds cached)
    .venv/bin/python bench/run.py --quick         # smaller sizes, a few minutes: every figure of issue 20 runs
    .venv/bin/python bench/run.py --with-million  # adds 1,000,000 people: search (both databases), start-up, memory

Every figure is measured beside its baseline in the same run (see each script's docstring); the
machine is shared, so each script also prints CPU time or load where it matters. Seeded databases
are cached under ~/.cache/motodesk-bench (SQLite files, and motodesk_bench_* PostgreSQL databases).
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent


def machine() -> str:
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        kib = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f"{kib / 1024 / 1024:.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    return (f"{platform.node()} · {platform.system()} {platform.release()} · {cpu} · {os.cpu_count()} cores · "
            f"{mem} RAM · Python {platform.python_version()} · load average at start {load}")


def calibrate() -> float:
    """Milliseconds for a fixed pure-Python loop, best of 5: how fast this shared machine is right
    now. Figures of runs on different days compare only after this (a slower machine slows them all)."""
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        acc: dict[int, int] = {}
        for i in range(300_000):
            acc[i % 1000] = acc.get(i % 1000, 0) + i * 3 // 7
        best = min(best, time.perf_counter() - t0)
    return best * 1000


def plan(quick: bool, million: bool) -> list[tuple[str, list[str]]]:
    """Every figure of issue 20 (and the older ones), each step beside its own baseline; ``--quick``
    shrinks the sizes so the whole run takes a few minutes."""
    people = "10000" if quick else "100000"
    runs = "2" if quick else "5"
    rows = ["--rows", "2000", "--memory-rows", "10000", "--repeat", "1"] if quick else ["--repeat", "2"]
    steps = [
        # issue 20, target 1: import, both databases, the write lock, 50,000-row memory
        ("Importação: prévia + gravação (SQLite e PostgreSQL), trava de escrita, memória",
         ["bench_import.py", *rows]),
        ("Importação com um segundo processo ocupando a CPU (SQLite)",
         ["bench_import.py", "--backend", "sqlite", "--load", "--memory-rows", "0",
          *(["--rows", "2000", "--repeat", "1"] if quick else ["--repeat", "1"])]),
        # issue 20, target 4: start-up, quiet and beside a busy process
        ("Início a frio e memória (SQLite)", ["bench_startup.py", "--people", people, "--runs", runs]),
        ("Início a frio com um segundo processo ocupando a CPU (SQLite)",
         ["bench_startup.py", "--people", people, "--runs", runs, "--load", "--no-memory"]),
        ("Busca por tecla – SQLite", ["bench_search.py", "--backend", "sqlite", "--people", people]),
        ("Busca por tecla – PostgreSQL", ["bench_search.py", "--backend", "postgresql", "--people", people]),
        ("Crachás em lote (500, PDF)", ["bench_badges.py"]),
        ("Crachás pelo serviço (banco + PDF)", ["bench_badge_service.py", "--count", "100" if quick else "500"]),
        ("Exportação xlsx e leitura da planilha", ["bench_export.py"] + (["--rows", "20000", "--repeat", "1"]
                                                                       if quick else [])),
        ("Foto 3x4 (12 MP)", ["bench_photo.py"] + (["--runs", "5"] if quick else [])),
    ]
    # the other helpers' figures of issue 20 (targets 2, 3 and 5), when their benches are in this tree
    if (HERE / "bench_list_memory.py").exists():
        steps.insert(4, ("Lista de pessoas rolada até o fim: memória", ["bench_list_memory.py"]
                         + (["--people", "100000"] if quick else [])))
    if (HERE / "bench_dossier.py").exists():
        steps.append(("Dossiê: reconferência por tecla", ["bench_dossier.py"]))
    if (HERE / "bench_export_service.py").exists():
        steps.insert(8, ("Exportação pelo serviço (banco → xlsx)", ["bench_export_service.py"]
                         + (["--people", "10000", "--repeat", "1"] if quick else [])))
    if (HERE / "bench_photo_dialog.py").exists() and not quick:
        steps.append(("Foto: captura até a prévia no diálogo", ["bench_photo_dialog.py"]))
    if not quick:  # the growth table of the README: the same figures at 10,000 (and 1,000,000)
        steps += [
            ("Crescimento: importação de 10.000 linhas num cadastro de 100.000 pessoas (SQLite)",
             ["bench_import.py", "--existing", "100000", "--memory-rows", "0", "--repeat", "1"]),
            ("Crescimento: início a frio e memória, 10.000 pessoas (SQLite)",
             ["bench_startup.py", "--people", "10000", "--runs", "3"]),
            ("Crescimento: busca, 10.000 pessoas (SQLite)", ["bench_search.py", "--backend", "sqlite", "--people", "10000"]),
            ("Crescimento: busca, 10.000 pessoas (PostgreSQL)",
             ["bench_search.py", "--backend", "postgresql", "--people", "10000"]),
        ]
        steps.append(("Fault suite (tests/faults, the races, roles, audit, passwords, transparency; SQLite and "
                      "PostgreSQL)", ["bench_faults.py"]))
    if million:
        steps.insert(3, ("Busca por tecla – PostgreSQL, 1.000.000 de pessoas",
                         ["bench_search.py", "--backend", "postgresql", "--people", "1000000"]))
        steps.append(("Crescimento: importação de 10.000 linhas num cadastro de 1.000.000 de pessoas (SQLite)",
                      ["bench_import.py", "--existing", "1000000", "--memory-rows", "0", "--repeat", "1"]))
        steps.append(("Crescimento: início a frio e memória, 1.000.000 de pessoas (SQLite)",
                      ["bench_startup.py", "--people", "1000000", "--runs", "3"]))
        steps.append(("Crescimento: busca, 1.000.000 de pessoas (SQLite)",
                      ["bench_search.py", "--backend", "sqlite", "--people", "1000000"]))
        if (HERE / "bench_list_memory.py").exists():
            steps.append(("Crescimento: lista rolada até o fim, 1.000.000 de pessoas",
                          ["bench_list_memory.py", "--people", "1000000"]))
    return steps


def main() -> int:
    parser = argparse.ArgumentParser(description="Runs every MotoDesk benchmark and writes bench/results.md")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--with-million", action="store_true")
    parser.add_argument("--out", default=str(HERE / "results.md"))
    parser.add_argument("--only", default="", help="run only steps whose script name contains this text")
    args = parser.parse_args()

    started = datetime.now()
    sections: list[str] = []
    failures: list[str] = []
    header = machine()
    speed_before = calibrate()
    print(f"CPU calibration before: {speed_before:.1f} ms", flush=True)
    print(header, flush=True)
    for title, cmd in plan(args.quick, args.with_million):
        if args.only and args.only not in cmd[0]:
            continue
        print(f"\n=== {title}: {' '.join(cmd)}", flush=True)
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, str(HERE / cmd[0]), *cmd[1:]], capture_output=True, text=True,
                              env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
        elapsed = time.perf_counter() - t0
        out = proc.stdout.strip()
        print(out, flush=True)
        status = "ok" if proc.returncode == 0 else f"exit {proc.returncode} (a target missed or an error)"
        if proc.returncode != 0:
            failures.append(title)
            print(proc.stderr[-2000:], file=sys.stderr, flush=True)
        sections.append(f"## {title}\n\n`python bench/{' '.join(cmd)}` — {elapsed:,.0f} s, {status}\n\n"
                        f"```text\n{out}\n```\n")
    body = (f"# MotoDesk benchmark results\n\nRun on {started:%d/%m/%Y %H:%M} with `python bench/run.py"
            f"{' --quick' if args.quick else ''}{' --with-million' if args.with_million else ''}`.\n\n"
            f"Machine: {header}\n\n"
            f"Machine speed while it ran: a fixed Python loop took {speed_before:.1f} ms before and "
            f"{calibrate():.1f} ms after (lower is faster; compare runs of different days by it).\n\n"
            + "\n".join(sections))
    Path(args.out).write_text(body, encoding="utf-8")
    print(f"\nwritten to {args.out}" + (f"; steps that missed a target or failed: {', '.join(failures)}" if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
