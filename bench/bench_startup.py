"""Cold start and memory of the real window, each beside a bare PySide6 baseline of the same run.

    .venv/bin/python bench/bench_startup.py [--people 100000] [--runs 5]

1. Cold start: a fresh process from `python` to the interactive main window, logged in, with the
   people list showing its first rows — against a fresh process showing a bare QMainWindow with a
   QTableView of 50 rows. Median of N runs each, interleaved; target ratio ≤ 2.5.
2. Memory: peak resident memory (ru_maxrss) of a process that opens the window on the seeded
   database and scrolls the people list from the first row to the last; target ≤ 250 MB. The bare
   window's peak is printed beside it.

Both use the offscreen Qt platform so the figures do not depend on an X server. The seeded SQLite
database is cached (see bench_search.cache_dir).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))

TARGET_RATIO = 2.5
TARGET_MB = 250.0
LOGIN, PASSWORD = "bench.atendente", "bench-senha-123"


def _wait(app, predicate, timeout: float = 120.0) -> None:  # noqa: ANN001
    deadline = time.monotonic() + timeout
    while not predicate():
        app.processEvents()
        if time.monotonic() > deadline:
            raise SystemExit("timeout")
        time.sleep(0.001)


def child_bare(start: float, scroll: bool) -> None:
    from PySide6.QtGui import QStandardItem, QStandardItemModel
    from PySide6.QtWidgets import QApplication, QMainWindow, QTableView

    app = QApplication(sys.argv[:1])
    window = QMainWindow()
    view = QTableView()
    model = QStandardItemModel(50, 6)
    for r in range(50):
        for c in range(6):
            model.setItem(r, c, QStandardItem(f"{r}:{c}"))
    view.setModel(model)
    window.setCentralWidget(view)
    window.resize(1200, 760)
    window.show()
    _wait(app, lambda: window.isVisible() and view.viewport().isVisible())
    app.processEvents()
    elapsed = time.time() - start
    if scroll:
        view.scrollToBottom()
        app.processEvents()
    _report(elapsed)


def child_motodesk(start: float, url: str, scroll: bool) -> None:
    from PySide6.QtWidgets import QTableView

    from motodesk.services.auth import authenticate
    from motodesk.ui.app import build_main_window, create_application, open_context

    app = create_application()
    ctx = open_context(url)
    user = authenticate(ctx, LOGIN, PASSWORD)
    window = build_main_window(ctx.as_user(user))
    window.show()
    page = window.page_by_key["people"]
    view = page.findChild(QTableView)
    model = view.model()
    _wait(app, lambda: model.rowCount() > 0)
    app.processEvents()
    elapsed = time.time() - start
    if scroll:
        from PySide6.QtCore import QModelIndex

        def busy() -> bool:
            return bool(getattr(model, "busy", False))

        while model.canFetchMore(QModelIndex()) or busy():
            before = model.rowCount()
            if model.canFetchMore(QModelIndex()):
                model.fetchMore(QModelIndex())
            _wait(app, lambda b=before: model.rowCount() > b or not (busy() or model.canFetchMore(QModelIndex())), 300)
            view.scrollToBottom()
        app.processEvents()
        print(f"ROWS {model.rowCount()}", flush=True)
    _report(elapsed)


def child_login_dialog(start: float, url: str) -> None:
    """What a clerk sees first: the login dialog, ready for the password (database opened)."""
    from motodesk.ui.app import create_application, open_context
    from motodesk.ui.login import LoginDialog

    app = create_application()
    ctx = open_context(url)
    dialog = LoginDialog(ctx)
    dialog.show()
    _wait(app, lambda: dialog.isVisible() and dialog.password_edit.isVisible())
    app.processEvents()
    elapsed = time.time() - start
    dialog.login_edit.setText(LOGIN)
    dialog.password_edit.setText(PASSWORD)
    from PySide6.QtWidgets import QTableView

    from motodesk.ui.app import build_main_window

    t_enter = time.time()
    dialog.try_login()
    window = build_main_window(ctx.as_user(dialog.user))
    window.show()
    view = window.page_by_key["people"].findChild(QTableView)
    _wait(app, lambda: view.model().rowCount() > 0)
    app.processEvents()
    print(f"AFTER_ENTER {time.time() - t_enter:.4f}", flush=True)
    _report(elapsed)


def _report(elapsed: float) -> None:
    import resource

    print(f"ELAPSED {elapsed:.4f}", flush=True)
    print(f"MAXRSS_KB {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}", flush=True)


def spawn(kind: str, url: str = "", scroll: bool = False) -> dict[str, float]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "BENCH_START": repr(time.time())}
    env.pop("MOTODESK_DATABASE_URL", None)
    start = time.time()
    env["BENCH_START"] = repr(start)
    out = subprocess.run([sys.executable, __file__, "--child", kind, "--url", url] + (["--scroll"] if scroll else []),
                         capture_output=True, text=True, env=env, timeout=900)
    if out.returncode != 0:
        raise SystemExit(f"{kind} failed:\n{out.stderr[-3000:]}")
    values: dict[str, float] = {}
    for line in out.stdout.splitlines():
        key, _, value = line.partition(" ")
        if key in ("ELAPSED", "MAXRSS_KB", "ROWS", "AFTER_ENTER"):
            values[key] = float(value)
    return values


def prepare_database(people: int) -> str:
    from bench_search import open_database, prepare  # type: ignore[import-not-found]

    from motodesk.rules.common import Role
    from motodesk.services.auth import create_user

    db = open_database("sqlite", people, "", False)
    ctx = prepare(db, people)
    try:
        create_user(ctx, LOGIN, "Atendente do Benchmark", Role.CLERK, PASSWORD)
    except Exception:  # noqa: BLE001 - already there from an earlier run
        pass
    url = db.url.render_as_string(hide_password=False)
    db.dispose()
    return url


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--child", default=None)
    parser.add_argument("--url", default="")
    parser.add_argument("--scroll", action="store_true")
    args = parser.parse_args()
    if args.child:
        start = float(os.environ["BENCH_START"])
        if args.child == "bare":
            child_bare(start, args.scroll)
        elif args.child == "login":
            child_login_dialog(start, args.url)
        else:
            child_motodesk(start, args.url, args.scroll)
        return 0

    url = prepare_database(args.people)
    spawn("motodesk", url)  # warm the OS file cache once: a clerk's second start, not a cold disk
    bare, app = [], []
    for _ in range(args.runs):
        bare.append(spawn("bare")["ELAPSED"])
        app.append(spawn("motodesk", url)["ELAPSED"])
    login = [spawn("login", url) for _ in range(args.runs)]
    to_dialog = statistics.median(x["ELAPSED"] for x in login)
    after_enter = statistics.median(x["AFTER_ENTER"] for x in login)
    bare_mem = spawn("bare", scroll=True)
    app_mem = spawn("motodesk", url, scroll=True)
    b, a = statistics.median(bare), statistics.median(app)
    ratio = a / b
    mem_mb = app_mem["MAXRSS_KB"] / 1024
    print(f"\nStart-up and memory ({args.people:,} people, SQLite, offscreen, median of {args.runs})")
    print("| figure | MotoDesk | bare PySide6 | ratio | target | met |")
    print("|---|---|---|---|---|---|")
    print(f"| cold start to main window with list (s) | {a:.2f} | {b:.2f} | {ratio:.2f} | ≤ {TARGET_RATIO} | "
          f"{'yes' if ratio <= TARGET_RATIO else 'NO'} |")
    print(f"| of which: launch to the login dialog (s) | {to_dialog:.2f} | {b:.2f} | {to_dialog / b:.2f} | – | – |")
    print(f"| of which: Enter to the list (argon2id check, window, first page) (s) | {after_enter:.2f} | – | – | – | – |")
    print(f"| peak memory, list scrolled end to end (MB; {int(app_mem.get('ROWS', 0)):,} rows) | {mem_mb:.0f} | "
          f"{bare_mem['MAXRSS_KB'] / 1024:.0f} | – | ≤ {TARGET_MB:.0f} MB | {'yes' if mem_mb <= TARGET_MB else 'NO'} |")
    return 0 if ratio <= TARGET_RATIO and mem_mb <= TARGET_MB else 1


if __name__ == "__main__":
    raise SystemExit(main())
