"""The counter benchmark (issue #18): a day at the counter from the keyboard only, counted per role.

Run from the repository root (no display needed: Qt's offscreen platform at 1366x768)::

    PYTHONPATH=$PWD .venv/bin/python bench/bench_counter.py [--backend sqlite|postgresql] [--out table.md]

It runs ``tests/ui/test_counter_day.py`` (pytest-qt, key events only to the focused widget) and
prints, per role, the fields filled, the characters of data typed, the navigation keys (every other
key: Tab, Enter, Alt+letter, arrows, Esc) and the wall time. The baseline is the floor of one
navigation key per field filled (a Tab between fields): the target for the clerk's complete
dossier is navigation keys ≤ 1.25 × fields filled. ``MOTODESK_SCREENSHOTS=1`` refreshes
``docs/screenshots/counter-NN-*.png`` on the way.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = 1.25
ROLE_LABELS = {"atendente": "Atendente (dossiê, foto, requerimento, veículo)", "vistoriador": "Vistoriador (checklist)",
               "supervisor": "Supervisor (convocação, decreto, emissão, crachá)"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--out", type=Path, help="also write the table (Markdown) to this file")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "counter.json"
        env = dict(os.environ, MOTODESK_COUNTER_REPORT=str(report), PYTHONPATH=str(ROOT),
                   QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
        run = subprocess.run([sys.executable, "-m", "pytest", "tests/ui/test_counter_day.py", "-q", "-x",
                              "-p", "no:cacheprovider", "-k", f"keyboard and {args.backend}"],
                             cwd=ROOT, env=env, capture_output=True, text=True)
        if not report.exists():
            print(run.stdout[-4000:], run.stderr[-2000:], sep="\n")
            print("o dia no balcão não chegou ao fim: sem tabela")
            return 1
        rows = json.loads(report.read_text(encoding="utf-8"))

    lines = [f"Dia no balcão, só teclado, 1366x768 offscreen ({args.backend})", "",
             "| papel | campos preenchidos | caracteres de dados | teclas de navegação | navegação ÷ campos | tempo |",
             "|---|---:|---:|---:|---:|---:|"]
    for row in rows:
        ratio = row["navigation_per_field"]
        lines.append(f"| {ROLE_LABELS.get(row['role'], row['role'])} | {row['fields']} | {row['characters']} | "
                     f"{row['navigation']} | {'—' if ratio is None else f'{ratio:.2f}'} | {row['seconds']:.1f} s |")
    clerk = next((r for r in rows if r["role"] == "atendente"), None)
    lines.append("")
    if clerk:
        ratio = clerk["navigation"] / clerk["fields"]
        verdict = "atendida" if ratio <= TARGET else "NÃO atendida"
        lines.append(f"Meta do atendente: navegação ≤ {TARGET} × campos (piso: 1 tecla por campo) — "
                     f"{ratio:.2f}× — {verdict}.")
    lines.append(f"Teste: {'passou' if run.returncode == 0 else 'FALHOU (código ' + str(run.returncode) + ')'}.")
    for row in rows:
        lines.append(f"Teclas de navegação ({row['role']}): {' '.join(row['keys'])}")
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0 if run.returncode == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
