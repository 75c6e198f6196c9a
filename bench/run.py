"""One command for every benchmark: prints each table and writes bench/results.md.

    .venv/bin/python bench/run.py                 # the full set (about 20–40 minutes; seeds cached)
    .venv/bin/python bench/run.py --quick         # smaller sizes, a few minutes: every figure of issue 20 runs
    .venv/bin/python bench/run.py --with-million  # adds 1,000,000 people: search (both databases), start-up, memory
    .venv/bin/python bench/run.py --issue28 [--with-million]  # only the figures of issue 28's table

Every run ends with issue 28's table: each of its figures beside the baseline measured in the same run
(the step that measures it, parsed from its own output), the target and whether it is met.

Every figure is measured beside its baseline in the same run (see each script's docstring); the
machine is shared, so each script also prints CPU time or load where it matters. Seeded databases
are cached under ~/.cache/motodesk-bench (SQLite files, and motodesk_bench_* PostgreSQL databases).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

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


def commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=HERE,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"


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


def issue28_plan(million: bool) -> list[tuple[str, list[str]]]:
    """Only the steps behind issue 28's table (a shared 2-core machine: the full set takes an hour)."""
    people = "1000000" if million else "100000"
    growth = [(f"Crescimento: busca, {n} pessoas ({backend})", ["bench_search.py", "--backend", backend, "--people", n])
              for n in ("10000", "100000") for backend in ("postgresql", "sqlite")] if million else []
    return [
        *growth,
        ("Busca por tecla – PostgreSQL", ["bench_search.py", "--backend", "postgresql", "--people", people]),
        ("Busca por tecla – SQLite", ["bench_search.py", "--backend", "sqlite", "--people", people]),
        ("Dossiê: reconferência por tecla, como a pessoa vê (estilos, relayout, pintura)",
         ["bench_dossier_recheck.py"]),
        ("Início a frio e memória (SQLite)", ["bench_startup.py", "--people", "100000", "--runs", "5"]),
        ("Importação: prévia + gravação (SQLite e PostgreSQL), trava de escrita, memória",
         ["bench_import.py", "--repeat", "1"]),
    ]


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
    if (HERE / "bench_dossier_recheck.py").exists():
        steps.append(("Dossiê: reconferência por tecla, como a pessoa vê (estilos, relayout, pintura)",
                      ["bench_dossier_recheck.py"] + (["--keys", "200"] if quick else [])))
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


# --- issue 28's table: each row beside its baseline, from the steps' own output ---------------------

_SEARCH_ROW = re.compile(r"^(nome \(prefixo\)|nome \(meio\)|CPF|placa|permissão|RENAVAM)\s+\d+\s+([\d.]+)\s+"
                         r"([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)", re.M)


def _people(cmd: list[str]) -> int:
    return int(cmd[cmd.index("--people") + 1]) if "--people" in cmd else 100_000


def _search(outputs: list[tuple[list[str], str]], backend: str) -> tuple[int, dict[str, tuple[float, float]]] | None:
    """(people, kind -> (p95, floor p95)) of the largest search run on ``backend``."""
    runs = [(cmd, out) for cmd, out in outputs if cmd[0] == "bench_search.py" and backend in cmd]
    if not runs:
        return None
    cmd, out = max(runs, key=lambda r: _people(r[0]))
    kinds = {m.group(1): (float(m.group(3)), float(m.group(6))) for m in _SEARCH_ROW.finditer(out)}
    return (_people(cmd), kinds) if kinds else None


def _first(pattern: str, text: str) -> re.Match[str] | None:
    return re.search(pattern, text, re.M)


def issue_table(outputs: list[tuple[list[str], str]]) -> str:
    """Issue 28's table (figure | MotoDesk | baseline in the same run | target | met), from what
    the steps printed; a figure whose step did not run says so."""
    rows: list[tuple[str, str, str, str, str]] = []

    def verdict(ok: bool | None) -> str:
        return "–" if ok is None else ("sim" if ok else "NÃO")

    kinds = (("nome (prefixo)", "name prefix"), ("nome (meio)", "surname infix"), ("CPF", "CPF"),
             ("placa", "plate"), ("permissão", "permit"))
    pg = _search(outputs, "postgresql")
    if pg:
        people, found = pg
        for kind, english in kinds:
            if kind in found:
                p95, floor = found[kind]
                rows.append((f"PG search p95, {english} ({people:,} people)", f"{p95:.1f} ms",
                             f"one indexed statement: {floor:.1f} ms", "≤ 20 ms, ≤ 1.5× the statement",
                             verdict(p95 <= 20 and p95 <= 1.5 * floor)))
    else:
        rows.append(("PG search p95", "not run", "", "≤ 20 ms, ≤ 1.5×", "–"))
    lite = _search(outputs, "sqlite")
    if lite:
        people, found = lite
        for kind, english in (("CPF", "CPF"), ("permissão", "permit")):
            if kind in found:
                p95, floor = found[kind]
                rows.append((f"SQLite search p95, {english} ({people:,} people)", f"{p95:.1f} ms",
                             f"one statement: {floor:.1f} ms", "≤ 50 ms", verdict(p95 <= 50)))
    else:
        rows.append(("SQLite search p95", "not run", "", "≤ 50 ms", "–"))
    imports = [out for cmd, out in outputs if cmd[0] == "bench_import.py" and "--existing" not in cmd
               and "--load" not in cmd]
    if imports:
        out = imports[0]
        size = _first(r"^Import of ([\d,]+) valid new rows", out)
        base = _first(r"^baseline: openpyxl read-only pass.*?\s([\d.]+)\s+1\.00", out)
        total = _first(r"^sqlite: preview \+ apply\s+([\d.]+)\s+([\d.]+)", out)
        if base and total:
            rows.append((f"import {size.group(1) if size else '?'} rows (SQLite, preview + apply)",
                         f"{float(total.group(1)):.2f} s ({float(total.group(2)):.2f}×)",
                         f"openpyxl read-only: {float(base.group(1)):.2f} s", "≤ 3× openpyxl",
                         verdict(float(total.group(2)) <= 3)))
        pg_total = _first(r"^postgresql: preview \+ apply\s+[\d.]+\s+[\d.]+\s+([\d.]+)\s+([\d.]+)", out)
        pg_held = _first(r"^postgresql: write transaction held\s+([\d.]+)", out)
        if pg_total and pg_held:
            rows.append((f"import {size.group(1) if size else '?'} rows (PostgreSQL): client CPU / write transaction",
                         f"{float(pg_total.group(2)):.2f}× openpyxl's CPU / {float(pg_held.group(1)):.2f} s",
                         f"openpyxl read-only: {float(base.group(1)):.2f} s" if base else "—",
                         "≤ 3× openpyxl; ≤ 3 s",
                         verdict(float(pg_total.group(2)) <= 3 and float(pg_held.group(1)) <= 3)))
        held = _first(r"^sqlite: write transaction held\s+([\d.]+)", out)
        if held:
            rows.append((f"SQLite write lock held during the {size.group(1) if size else '?'}-row import",
                         f"{float(held.group(1)):.2f} s", "—", "≤ 3 s", verdict(float(held.group(1)) <= 3)))
        wait = _first(r"^sqlite: longest wait of another writer meanwhile\s+([\d.]+)", out)
        if wait:
            rows.append(("SQLite write lock: longest wait of another writer during the import",
                         f"{float(wait.group(1)):.2f} s", "—", "≤ 3 s", verdict(float(wait.group(1)) <= 3)))
        floor = _first(r"^sqlite: floor, the same rows copied by SQLite alone\s+([\d.]+)", out)
        if floor and held:
            rows.append((f"SQLite write lock, {size.group(1) if size else '?'} rows, against SQLite alone",
                         f"{float(held.group(1)):.2f} s", f"the same rows copied by SQLite alone: "
                         f"{float(floor.group(1)):.2f} s", "≤ 3 s", verdict(float(held.group(1)) <= 3)))
        big = out.split("\nImport of ", 2)[-1] if "rows on SQLite in a fresh process" in out else ""
        big_rows = _first(r"^([\d,]+) rows on SQLite in a fresh process", big)
        big_held = _first(r"^sqlite: write transaction held\s+([\d.]+)", big)
        big_wait = _first(r"^sqlite: longest wait of another writer meanwhile\s+([\d.]+)", big)
        big_floor = _first(r"^sqlite: floor, the same rows copied by SQLite alone\s+([\d.]+)", big)
        if big_held and big_wait:
            rows.append((f"SQLite write lock during the {big_rows.group(1) if big_rows else '?'}-row import: held / "
                         "another writer's longest wait", f"{float(big_held.group(1)):.2f} s / "
                         f"{float(big_wait.group(1)):.2f} s",
                         f"the same rows copied by SQLite alone: {float(big_floor.group(1)):.2f} s" if big_floor
                         else "—", "≤ 3 s",
                         verdict(max(float(big_held.group(1)), float(big_wait.group(1))) <= 3)))
        peak = _first(r"^preview \+ apply\s+(\d+) MB", out)
        peak_rows = big_rows or _first(r"^Peak RSS of a fresh process, ([\d,]+) rows", out)
        peak_base = _first(r"^openpyxl read-only pass \(baseline\)\s+(\d+) MB", out)
        if peak:
            rows.append((f"import {peak_rows.group(1) if peak_rows else '?'} rows, peak RSS",
                         f"{peak.group(1)} MB", f"openpyxl: {peak_base.group(1)} MB" if peak_base else "—",
                         "≤ 300 MB", verdict(int(peak.group(1)) <= 300)))
    else:
        rows.append(("import", "not run", "", "≤ 3× openpyxl; lock ≤ 3 s; ≤ 300 MB", "–"))
    starts = [(cmd, out) for cmd, out in outputs if cmd[0] == "bench_startup.py" and "--load" not in cmd]
    if starts:
        cmd, out = starts[0]
        wait_row = _first(r"^\| cold start: the clerk's wait[^|]*\| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|", out)
        ready = _first(r"^\| launch to the database ready[^|]*\| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|", out)
        if wait_row:
            rows.append((f"clerk's wait (Entrar → list painted; {_people(cmd):,} people, SQLite)",
                         f"{wait_row.group(1)} s ({wait_row.group(3)}×)", f"bare window + table: {wait_row.group(2)} s",
                         "≤ 2.0×", verdict(float(wait_row.group(3)) <= 2.0)))
        if ready:
            rows.append(("launch → database ready", f"{ready.group(1)} s ({ready.group(3)}×)",
                         f"bare window: {ready.group(2)} s", "≤ 4×", verdict(float(ready.group(3)) <= 4.0)))
    else:
        rows.append(("start-up", "not run", "", "≤ 2.0×; ≤ 4×", "–"))
    dossier = [out for cmd, out in outputs if cmd[0] == "bench_dossier_recheck.py"]
    if dossier:
        seen = _first(r"^… \+ estilos, relayout e pintura\s+([\d.]+)ms\s+([\d.]+)ms", dossier[0])
        bare = _first(r"^regras sozinhas \(linha de base\)\s+([\d.]+)ms\s+([\d.]+)ms", dossier[0])
        if seen and bare:
            rows.append(("dossier re-check per keystroke, as seen (styles, relayout, paint)",
                         f"{float(seen.group(1)):.2f} ms median, {float(seen.group(2)):.2f} ms p95",
                         f"bare rules: {float(bare.group(1)):.2f} ms median", "≤ 2 ms p95",
                         verdict(float(seen.group(2)) <= 2.0)))
    else:
        rows.append(("dossier re-check", "not run", "", "≤ 2 ms p95", "–"))
    lines = ["| figure | MotoDesk | baseline (same run) | target | met |", "|---|---|---|---|---|"]
    lines += [f"| {' | '.join(row)} |" for row in rows]
    return "\n".join(lines)


_FIRST_PAGE = re.compile(r"^lista \(1ª pág\.\)\s+\d+\s+([\d.]+)\s+([\d.]+)", re.M)
_ALL_KEYS = re.compile(r"^todas\s+\d+\s+([\d.]+)\s+([\d.]+)\s+[\d.]+\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)", re.M)


def growth_table(outputs: list[tuple[list[str], str]]) -> str:
    """The README's growth table: search p95 per keystroke at every size this run measured, PostgreSQL with
    SQLite in brackets, and the people list's first page; "–" where a size or database was not run."""
    runs: dict[tuple[int, str], str] = {}
    for cmd, out in outputs:
        if cmd[0] == "bench_search.py":
            runs[(_people(cmd), "sqlite" if "sqlite" in cmd else "postgresql")] = out
    sizes = sorted({size for size, _ in runs})
    if not sizes:
        return "(no search run)"

    def cell(size: int, pick: Any) -> str:
        pg, lite = (pick(runs[(size, b)]) if (size, b) in runs else None for b in ("postgresql", "sqlite"))
        return f"{pg or '–'} ({lite or '–'})"

    def kind(name: str) -> Any:
        def pick(out: str) -> str | None:
            found = {m.group(1): m.group(3) for m in _SEARCH_ROW.finditer(out)}
            return f"{float(found[name]):.1f} ms" if name in found else None
        return pick

    def page(out: str) -> str | None:
        m = _FIRST_PAGE.search(out)
        return f"{float(m.group(2)):.1f} ms" if m else None

    def every(out: str) -> str | None:
        m = _ALL_KEYS.search(out)
        return f"{float(m.group(2)):.1f} ms, {float(m.group(5)):.2f}×" if m else None

    lines = ["| figure | " + " | ".join(f"{n:,}" for n in sizes) + " |", "|---|" + "---|" * len(sizes)]
    for label, pick in [(f"search p95, {english}", kind(name)) for name, english in (
            ("nome (prefixo)", "name prefix"), ("nome (meio)", "surname infix"), ("CPF", "CPF"), ("placa", "plate"),
            ("permissão", "permit"), ("RENAVAM", "RENAVAM"))] + [
            ("search p95, every keystroke, ratio to one hand-written statement each", every),
            ("people list, first page (p95)", page)]:
        lines.append(f"| {label} | " + " | ".join(cell(n, pick) for n in sizes) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description="Runs every MotoDesk benchmark and writes bench/results.md")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--with-million", action="store_true")
    parser.add_argument("--issue28", action="store_true",
                        help="only the steps behind issue 28's table (search at 100,000, or 1,000,000 with "
                             "--with-million; dossier; start-up; import)")
    parser.add_argument("--out", default=str(HERE / "results.md"))
    parser.add_argument("--only", default="", help="run only steps whose script name contains this text (several: comma-separated)")
    args = parser.parse_args()

    started = datetime.now()
    sections: list[str] = []
    failures: list[str] = []
    header = machine()
    speed_before = calibrate()
    print(f"CPU calibration before: {speed_before:.1f} ms", flush=True)
    print(header, flush=True)
    outputs: list[tuple[list[str], str]] = []
    for title, cmd in (issue28_plan(args.with_million) if args.issue28 else plan(args.quick, args.with_million)):
        if args.only and not any(part and part in cmd[0] for part in args.only.split(",")):
            continue
        print(f"\n=== {title}: {' '.join(cmd)}", flush=True)
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, str(HERE / cmd[0]), *cmd[1:]], capture_output=True, text=True,
                              env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
        elapsed = time.perf_counter() - t0
        out = proc.stdout.strip()
        outputs.append((cmd, out))
        print(out, flush=True)
        status = "ok" if proc.returncode == 0 else f"exit {proc.returncode} (a target missed or an error)"
        if proc.returncode != 0:
            failures.append(title)
            print(proc.stderr[-2000:], file=sys.stderr, flush=True)
        sections.append(f"## {title}\n\n`python bench/{' '.join(cmd)}` — {elapsed:,.0f} s, {status}\n\n"
                        f"```text\n{out}\n```\n")
    table = issue_table(outputs)
    print("\n=== Issue 28: each figure beside its baseline (same run)\n" + table, flush=True)
    growth = growth_table(outputs)
    print("\n=== How the figures grow with the register (the README's table)\n" + growth, flush=True)
    body = (f"# MotoDesk benchmark results\n\nRun on {started:%d/%m/%Y %H:%M} with `python bench/run.py"
            f"{' --quick' if args.quick else ''}{' --issue28' if args.issue28 else ''}"
            f"{' --with-million' if args.with_million else ''}"
            f"{' --only ' + args.only if args.only else ''}` at commit {commit()}.\n\n"
            f"Machine: {header}\n\n"
            f"## Issue 28: each figure beside its baseline (same run)\n\n{table}\n\n"
            f"## How the figures grow with the register (the README's table; PostgreSQL, SQLite in brackets)\n\n"
            f"{growth}\n\n"
            f"Machine speed while it ran: a fixed Python loop took {speed_before:.1f} ms before and "
            f"{calibrate():.1f} ms after (lower is faster; compare runs of different days by it).\n\n"
            + "\n".join(sections))
    Path(args.out).write_text(body, encoding="utf-8")
    print(f"\nwritten to {args.out}" + (f"; steps that missed a target or failed: {', '.join(failures)}" if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
