"""Benchmark: the people list scrolled end to end at N people — peak memory (issue 20, target 2).

Run from the repository root::

    python bench/bench_list_memory.py --backend sqlite --people 1000000
    python bench/bench_list_memory.py --backend postgresql --people 1000000

Uses the database that ``bench/bench_search.py`` seeds and caches (seed it first with
``bench/bench_search.py --backend B --people N --seed-only``).

Each figure is measured in a process of its own (peak RSS, ``ru_maxrss``, is per process), with
an offscreen ``QTableView`` of the people page's columns scrolled from the first row to the last:

* ``real``: the people page's model (``PeopleSearchModel``) over the real search service, page
  after page as the view asks for them (``fetchMore``), the view scrolled to the bottom each time;
* ``ids`` (the baseline): a bare ``QAbstractTableModel`` over a Python list of the same ids, read
  in one query, that shows the id as its only text — the least a list of N rows can hold;
* ``tuples``: a bare model over a list of (id, name, CPF) tuples of every row — what a list that
  keeps every row it fetched holds, at the least.

Target: ``real`` <= 250 MB peak at 1,000,000 people.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

TARGET_MB = 250.0


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def current_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def open_db(backend: str, people: int, pg_url: str) -> Any:
    from sqlalchemy import make_url

    from bench.bench_search import cache_dir
    from motodesk.models.db import Database

    if backend == "sqlite":
        path = cache_dir() / f"search-{people}.sqlite3"
        if not path.exists():
            raise SystemExit(f"{path} is missing: seed it with bench/bench_search.py --people {people} --seed-only")
        return Database.open(f"sqlite:///{path}")
    return Database.open(make_url(pg_url).set(database=f"motodesk_bench_{people}").render_as_string(hide_password=False))


def measure(mode: str, backend: str, people: int, pg_url: str) -> dict[str, Any]:
    from PySide6.QtCore import QAbstractTableModel, QModelIndex, QThreadPool
    from PySide6.QtWidgets import QApplication, QTableView
    from sqlalchemy import select

    from motodesk.models import Person
    from motodesk.services.context import AppContext

    app = QApplication.instance() or QApplication([])
    db = open_db(backend, people, pg_url)
    ctx = AppContext(db)
    view = QTableView()
    view.resize(1000, 700)
    view.verticalHeader().setVisible(False)
    view.show()
    started = time.perf_counter()
    model: Any
    if mode == "real":
        from motodesk.ui.screens.people import PeopleSearchModel

        model = PeopleSearchModel(ctx)
        view.setModel(model)

        def settle() -> None:
            while model.busy:
                QThreadPool.globalInstance().waitForDone(5)
                app.processEvents()

        model.set_query("")
        settle()
        while True:
            settle()  # the view may have asked for the next page itself: wait for it first
            if not model.canFetchMore(QModelIndex()):
                break
            model.fetchMore(QModelIndex())
            settle()
            view.scrollToBottom()
            app.processEvents()
        rows = model.rowCount()
        view.scrollToTop()  # and back: rows long dropped are fetched again by id
        app.processEvents()
        first = model.data(model.index(0, 0))
    else:
        with db.engine.connect() as conn:
            if mode == "ids":
                data: list[Any] = list(conn.execute(select(Person.id).order_by(Person.name_search, Person.id))
                                       .scalars())
            else:
                data = [tuple(r) for r in conn.execute(select(Person.id, Person.full_name, Person.cpf)
                                                       .order_by(Person.name_search, Person.id))]

        class Bare(QAbstractTableModel):
            def rowCount(self, parent: Any = QModelIndex()) -> int:  # noqa: B008, N802
                return 0 if parent.isValid() else len(data)

            def columnCount(self, parent: Any = QModelIndex()) -> int:  # noqa: B008, N802
                return 0 if parent.isValid() else 6

            def data(self, index: Any, role: int = 0) -> Any:
                if role != 0:
                    return None
                row = data[index.row()]
                return str(row if mode == "ids" else row[min(index.column(), 2)])

        model = Bare()
        view.setModel(model)
        bar = view.verticalScrollBar()
        page = max(1, bar.pageStep())
        for value in range(0, bar.maximum() + page, page * 200):  # the same 200-row steps, end to end
            bar.setValue(value)
            app.processEvents()
        view.scrollToBottom()
        app.processEvents()
        rows = model.rowCount()
        view.scrollToTop()
        app.processEvents()
        first = model.data(model.index(0, 0))
    seconds = time.perf_counter() - started
    result = {"mode": mode, "rows": rows, "peak_mb": round(peak_mb(), 1), "end_mb": round(current_mb(), 1),
              "seconds": round(seconds, 1), "first": str(first)}
    if mode == "real":
        held = model._rows
        result["cached_rows"] = held.cached_rows() if hasattr(held, "cached_rows") else len(held)
    db.dispose()
    return result


def main() -> int:
    from bench.bench_search import DEFAULT_PG

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--people", type=int, default=1_000_000)
    parser.add_argument("--pg-url", default=DEFAULT_PG)
    parser.add_argument("--mode", choices=("real", "ids", "tuples"), help="measure one, in this process (JSON)")
    parser.add_argument("--modes", default="ids,tuples,real")
    args = parser.parse_args()
    if args.mode:
        print(json.dumps(measure(args.mode, args.backend, args.people, args.pg_url)))
        return 0
    results = {}
    for mode in args.modes.split(","):
        out = subprocess.run([sys.executable, __file__, "--mode", mode, "--backend", args.backend, "--people",
                              str(args.people), "--pg-url", args.pg_url], capture_output=True, text=True,
                             check=False, env={**os.environ, "PYTHONPATH": str(ROOT)})
        if out.returncode:
            print(out.stdout, out.stderr, file=sys.stderr)
            return out.returncode
        results[mode] = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"\nlista de pessoas rolada do início ao fim: {args.backend}, {args.people:,} pessoas".replace(",", "."))
    print(f"{'modelo':<10}{'linhas':>10}{'pico MB':>10}{'final MB':>10}{'s':>8}{'× base':>8}")
    base = results.get("ids", {}).get("peak_mb")
    for mode, r in results.items():
        ratio = f"{r['peak_mb'] / base:.2f}" if base else "—"
        print(f"{mode:<10}{r['rows']:>10,}{r['peak_mb']:>10.1f}{r['end_mb']:>10.1f}{r['seconds']:>8.1f}{ratio:>8}")
    ok = "real" not in results or results["real"]["peak_mb"] <= TARGET_MB
    if "real" in results:
        print(f"linhas guardadas pelo modelo real ao fim: {results['real']['cached_rows']:,}")
    print(f"meta: real <= {TARGET_MB:.0f} MB de pico: " + ("atingida" if ok else "NÃO atingida"))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
