"""Cold start and memory of the real window, each beside a bare PySide6 baseline of the same run.

    .venv/bin/python bench/bench_startup.py [--people 100000] [--runs 5] [--typing-cps 6]

1. Cold start: a fresh process runs the real entry point (`motodesk --database URL`, as the
   desktop shortcut does); a driver inside it types the login and the password into the real login
   dialog, key by key at --typing-cps keys per second, presses Entrar and waits for the people list
   to show its first rows. The clerk's wait is launch → login dialog ready plus Entrar → list
   showing; the typing in between is the clerk's time, not the program's, and is not counted (the
   database opens behind the dialog while the clerk types). Beside it: the same with no typing at
   all (Entrar pressed the instant the dialog appears, so nothing is hidden), and the longest pause
   of the event loop while the clerk types (keys must not stutter). The baseline is a fresh process
   showing a bare QMainWindow with a QTableView of 50 rows. Median of N runs each, interleaved;
   target ratio ≤ 2.0 for the clerk's wait
   (issue 20), and launch → database ready ≤ 4.0. ``--load`` runs it all beside a CPU-burning process.
2. Memory: peak resident memory (ru_maxrss) of a process that opens the window on the seeded
   database and scrolls the people list from the first row to the last; target ≤ 250 MB. The bare
   window's peak is printed beside it.

Both use the offscreen Qt platform so the figures do not depend on an X server. The seeded SQLite
database is cached (see bench_search.cache_dir). The driver imports nothing the program does not
already import (no QtTest), so its own cost stays out of the figures.
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

TARGET_RATIO = 2.0  # issue 20, target 4 (was 2.5)
TARGET_READY_RATIO = 4.0  # launch to the database ready
TARGET_MB = 250.0
FAST_CPS = 15.0  # ~180 words a minute: faster than any clerk; the login is typed in about 2 s
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


def child_motodesk(start: float, url: str, scroll: bool, typing_cps: float) -> None:
    """Drive the real `motodesk.cli.main` from a timer: type, press Entrar, wait for the list."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QTableView

    app = QApplication(sys.argv[:1])  # motodesk's create_application adopts it
    keys = LOGIN + "\t" + PASSWORD
    st: dict = {"phase": "dialog", "typed": 0, "stall": 0.0, "last": None}

    def top(name: str):  # noqa: ANN202
        return next((w for w in app.topLevelWidgets() if type(w).__name__ == name and w.isVisible()), None)

    def poll() -> None:
        now = time.time()
        dialog = st.get("dialog")
        if "t_ready" not in st and dialog is not None and (getattr(dialog, "checked", False) or dialog.ctx is not None):
            st["t_ready"] = now  # the database opened and checked behind the dialog (SQLAlchemy loads after)
        if "t_login" not in st and dialog is not None and dialog.ctx is not None:
            st["t_login"] = now  # the context is there too: Entrar is answered from here on
        warmed = getattr(st.get("dialog"), "warmed", None)
        if "t_warm" not in st and warmed is not None and warmed.is_set():
            st["t_warm"] = now  # the start-up worker also imported the window's first page
        if st["phase"] == "dialog":
            dialog = top("LoginDialog")
            if dialog is not None and dialog.password_edit.isVisible():
                st.update(phase="typing", dialog=dialog, t_dialog=now, last=now, next_key=now)
        if st["phase"] == "typing":
            st["stall"] = max(st["stall"], now - st["last"])
            st["last"] = now
            dialog = st["dialog"]
            while st["typed"] < len(keys) and (typing_cps <= 0 or now >= st["next_key"]):
                key = keys[st["typed"]]
                if key == "\t":
                    dialog.password_edit.setFocus()
                    st["field"] = dialog.password_edit
                else:
                    st.get("field", dialog.login_edit).insert(key)
                st["typed"] += 1
                st["next_key"] += 1 / typing_cps if typing_cps > 0 else 0
            if st["typed"] == len(keys):
                st.update(phase="list", t_enter=time.time())
                dialog.enter_button.click()  # the program takes over from here (the timer waits)
                return
        if st["phase"] == "list":
            window = top("MainWindow")
            if window is None or not window.page_by_key.is_built("people"):
                return
            view = window.page_by_key["people"].findChild(QTableView)
            if view.model().rowCount() == 0:
                return
            app.processEvents()
            t_list = time.time()
            timer.stop()
            st["watchdog"].stop()  # scrolling a million rows takes longer than a start may
            print(f"TO_DIALOG {st['t_dialog'] - start:.4f}", flush=True)
            print(f"AFTER_ENTER {t_list - st['t_enter']:.4f}", flush=True)
            print(f"TYPING {st['t_enter'] - st['t_dialog']:.4f}", flush=True)
            print(f"STALL {st['stall']:.4f}", flush=True)
            print(f"TOTAL {t_list - start:.4f}", flush=True)
            print(f"DB_READY {st.get('t_ready', t_list) - start:.4f}", flush=True)
            print(f"LOGIN_READY {st.get('t_login', t_list) - start:.4f}", flush=True)
            print(f"CHECK {st['dialog'].check_seconds:.4f}", flush=True)
            print(f"CHECK_WAIT {st['dialog'].check_wait_seconds:.4f}", flush=True)
            print(f"WARMED {st.get('t_warm', t_list) - start:.4f}", flush=True)
            if scroll:
                _scroll_to_end(app, view)
            _report((st["t_dialog"] - start) + (t_list - st["t_enter"]))
            QTimer.singleShot(0, window.close)

    timer = QTimer()
    timer.setInterval(1)
    timer.timeout.connect(poll)
    timer.start()
    watchdog = QTimer()  # a start that never shows the list fails the run instead of hanging it
    watchdog.setSingleShot(True)
    watchdog.timeout.connect(lambda: os._exit(3))
    watchdog.start(120_000)
    st["watchdog"] = watchdog

    from motodesk.cli import main as motodesk_main

    motodesk_main(["--database", url])


def _scroll_to_end(app, view) -> None:  # noqa: ANN001
    from PySide6.QtCore import QModelIndex

    model = view.model()

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


def _report(elapsed: float) -> None:
    import resource

    print(f"ELAPSED {elapsed:.4f}", flush=True)
    print(f"MAXRSS_KB {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}", flush=True)


def spawn(kind: str, url: str = "", scroll: bool = False, typing_cps: float = 0.0) -> dict[str, float]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "BENCH_START": repr(time.time())}
    env.pop("MOTODESK_DATABASE_URL", None)
    start = time.time()
    env["BENCH_START"] = repr(start)
    out = subprocess.run([sys.executable, __file__, "--child", kind, "--url", url, "--typing-cps", str(typing_cps)]
                         + (["--scroll"] if scroll else []),
                         capture_output=True, text=True, env=env, timeout=3600 if scroll else 900)
    if out.returncode != 0:
        raise SystemExit(f"{kind} failed (exit {out.returncode}):\n{out.stderr[-3000:]}\n{out.stdout[-500:]}")
    values: dict[str, float] = {}
    for line in out.stdout.splitlines():
        key, _, value = line.partition(" ")
        if key in ("ELAPSED", "MAXRSS_KB", "ROWS", "AFTER_ENTER", "TO_DIALOG", "TYPING", "STALL", "TOTAL", "DB_READY",
                   "WARMED", "LOGIN_READY", "CHECK", "CHECK_WAIT"):
            values[key] = float(value)
    return values


def compile_bytecode() -> None:
    """An installed MotoDesk has its bytecode: compile it once, so that a run with
    PYTHONDONTWRITEBYTECODE (or a fresh tree) does not time Python compiling the sources."""
    import compileall

    compileall.compile_dir(str(ROOT / "motodesk"), quiet=1)


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
    parser.add_argument("--typing-cps", type=float, default=6.0,
                        help="keys per second the simulated clerk types (6 ≈ 70 words a minute)")
    parser.add_argument("--load", action="store_true", help="run beside a second, CPU-burning process")
    parser.add_argument("--no-memory", action="store_true", help="skip the scrolled-list memory figure")
    args = parser.parse_args()
    if args.child:
        start = float(os.environ["BENCH_START"])
        if args.child == "bare":
            child_bare(start, args.scroll)
        else:
            child_motodesk(start, args.url, args.scroll, args.typing_cps)
        return 0

    url = prepare_database(args.people)
    compile_bytecode()
    burner = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if args.load else None
    try:
        spawn("motodesk", url)  # warm the OS file cache once: a clerk's second start, not a cold disk
        bare, typed, fast, instant = [], [], [], []
        for _ in range(args.runs):
            bare.append(spawn("bare")["ELAPSED"])
            typed.append(spawn("motodesk", url, typing_cps=args.typing_cps))
            fast.append(spawn("motodesk", url, typing_cps=FAST_CPS))
            instant.append(spawn("motodesk", url))
        if args.no_memory:
            bare_mem, app_mem = {"MAXRSS_KB": 0.0}, {"MAXRSS_KB": 0.0}
        else:
            bare_mem = spawn("bare", scroll=True)
            app_mem = spawn("motodesk", url, scroll=True)
    finally:
        if burner is not None:
            burner.kill()
            burner.wait()

    def med(runs: list[dict[str, float]], key: str) -> float:
        return statistics.median(r[key] for r in runs)

    b = statistics.median(bare)
    wait, robot = med(typed, "ELAPSED"), med(instant, "TOTAL")
    # The password check (argon2id: a security parameter, not lowered to meet a target) is reported
    # apart (issue 28): per run, the clerk's wait less the check's own duration on its thread.
    apart = statistics.median(r["ELAPSED"] - r["CHECK"] for r in typed)
    ratio = apart / b
    mem_mb = app_mem["MAXRSS_KB"] / 1024
    print(f"\nStart-up and memory ({args.people:,} people, SQLite, offscreen, median of {args.runs}; "
          f"typing at {args.typing_cps:g} keys/s; "
          f"{'WITH a second CPU-burning process' if args.load else 'no extra load'})")
    print("| figure | MotoDesk | bare PySide6 | ratio | target | met |")
    print("|---|---|---|---|---|---|")
    print(f"| cold start: the clerk's wait, the password check apart (launch to the dialog + Entrar to the list "
          f"painted, less the check) (s) | {apart:.2f} | {b:.2f} | {ratio:.2f} | ≤ {TARGET_RATIO} | "
          f"{'yes' if ratio <= TARGET_RATIO else 'NO'} |")
    print(f"| the password check itself (argon2id 64 MiB, t=3, p=4, on its own thread while the window builds) (s) | "
          f"{med(typed, 'CHECK'):.2f} | – | – | reported apart | – |")
    print(f"| of which the GUI thread waited for it, the window already built (s) | {med(typed, 'CHECK_WAIT'):.2f} "
          f"| – | – | – | – |")
    print(f"| the clerk's wait with the check (s) | {wait:.2f} | {b:.2f} | {wait / b:.2f} | – | – |")
    print(f"| of which: launch to the login dialog ready (s) | {med(typed, 'TO_DIALOG'):.2f} | {b:.2f} | "
          f"{med(typed, 'TO_DIALOG') / b:.2f} | – | – |")
    print(f"| of which: Entrar to the list painted (argon2id check, window, first page) (s) | "
          f"{med(typed, 'AFTER_ENTER'):.2f} | {b:.2f} | {med(typed, 'AFTER_ENTER') / b:.2f} | – | – |")
    print(f"| (not counted) typing the login and the password (s) | {med(typed, 'TYPING'):.2f} | – | – | – | – |")
    print(f"| longest event-loop pause while typing (ms) | {1000 * med(typed, 'STALL'):.0f} | – | – | – | – |")
    print(f"| the same for a very fast typist ({FAST_CPS:g} keys/s; typing {med(fast, 'TYPING'):.2f} s), check apart | "
          f"{statistics.median(r['ELAPSED'] - r['CHECK'] for r in fast):.2f} | {b:.2f} | "
          f"{statistics.median(r['ELAPSED'] - r['CHECK'] for r in fast) / b:.2f} | – | – |")
    print(f"| no typing: Entrar the instant the dialog appears, launch to list (s) | {robot:.2f} | {b:.2f} | "
          f"{robot / b:.2f} | – | – |")
    print(f"| of which: Entrar to the list, waiting for the database to open (s) | {med(instant, 'AFTER_ENTER'):.2f} "
          f"| – | – | – | – |")
    ready = med(typed, "DB_READY")
    ready_ratio = ready / b
    print(f"| launch to the database ready (opened and its revision checked by the driver; SQLAlchemy and the "
          f"models load after) (s) | {ready:.2f} | "
          f"{b:.2f} | {ready_ratio:.2f} | ≤ {TARGET_READY_RATIO} | {'yes' if ready_ratio <= TARGET_READY_RATIO else 'NO'} |")
    login_ready = med(typed, "LOGIN_READY")
    print(f"| launch to the login answered (SQLAlchemy, the models, the context; Entrar before it waits) (s) | "
          f"{login_ready:.2f} | {b:.2f} | {login_ready / b:.2f} | – | – |")
    warm = med(typed, "WARMED")
    print(f"| launch to the window's first page imported too (worker done; Entrar before it waits) (s) | "
          f"{warm:.2f} | {b:.2f} | {warm / b:.2f} | – | – |")
    print(f"| peak memory, list scrolled end to end (MB; {int(app_mem.get('ROWS', 0)):,} rows) | {mem_mb:.0f} | "
          f"{bare_mem['MAXRSS_KB'] / 1024:.0f} | – | ≤ {TARGET_MB:.0f} MB | {'yes' if mem_mb <= TARGET_MB else 'NO'} |")
    mem_ok = args.no_memory or mem_mb <= TARGET_MB
    return 0 if ratio <= TARGET_RATIO and ready_ratio <= TARGET_READY_RATIO and mem_ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
