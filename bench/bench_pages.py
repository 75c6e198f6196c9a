"""Page chosen → first paint, for every page of the real window, beside a bare-window baseline (issue 26, item 9).

    PYTHONPATH=$PWD .venv/bin/python bench/bench_pages.py [--people 2000] [--runs 3] [--load]

For each page (first visit, in a fresh window each run): the time from choosing it in the
navigation to the first paint of what then shows (the page's loading state, or the page), to the
page built, and to its data delivered (every ServiceOp done). The baseline is a bare QMainWindow
whose QStackedWidget switches to a new QLabel: its first paint is the floor of "the page answered".
Target: first paint ≤ 300 ms on every page. Median of --runs runs; ``--load`` runs it all beside a
CPU-burning process (the counter's PC shares its two cores). Offscreen Qt platform at 1366x768.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
TARGET_MS = 300.0


class _Painted:
    """An event filter that notes the first paint of any widget it watches."""

    def __init__(self) -> None:
        from PySide6.QtCore import QEvent, QObject

        class Filter(QObject):
            def __init__(self, owner: _Painted) -> None:
                super().__init__()
                self.owner = owner

            def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
                if event.type() == QEvent.Type.Paint and self.owner.at is None:
                    self.owner.at = time.perf_counter()
                return False

        self.at: float | None = None
        self.filter = Filter(self)


def _spin(app, predicate, timeout: float = 60.0) -> float:  # noqa: ANN001
    deadline = time.monotonic() + timeout
    while not predicate():
        app.processEvents()
        if time.monotonic() > deadline:
            raise SystemExit("timeout")
    return time.perf_counter()


def bare(app, runs: int) -> list[float]:  # noqa: ANN001
    from PySide6.QtWidgets import QLabel, QMainWindow, QStackedWidget

    out = []
    for _ in range(runs):
        window = QMainWindow()
        stack = QStackedWidget()
        stack.addWidget(QLabel("início"))
        window.setCentralWidget(stack)
        window.resize(1280, 720)
        window.show()
        _spin(app, lambda w=window: w.isVisible())
        app.processEvents()
        painted = _Painted()
        t0 = time.perf_counter()
        label = QLabel("<h2>Página</h2><p>Carregando…</p>")
        label.installEventFilter(painted.filter)
        stack.addWidget(label)
        stack.setCurrentWidget(label)
        _spin(app, lambda p=painted: p.at is not None, 10)
        out.append((painted.at - t0) * 1000)  # type: ignore[operator]
        window.close()
        window.deleteLater()
        app.processEvents()
    return out


def pages(app, ctx, runs: int) -> dict[str, list[tuple[float, float, float]]]:  # noqa: ANN001
    from PySide6.QtWidgets import QApplication

    from motodesk.ui.mainwindow import SECTIONS, MainWindow, section_visible
    from motodesk.ui.ops import ServiceOp

    found: dict[str, list[tuple[float, float, float]]] = {}
    for _ in range(runs):
        for key, _label in SECTIONS[1:]:
            if not section_visible(key, ctx.user.role):
                continue
            window = MainWindow(ctx)
            window.show()
            _spin(app, lambda w=window: w.isVisible() and ServiceOp.running() == 0)
            window.page_by_key["people"].search_box.setFocus()
            app.processEvents()
            painted = _Painted()
            t0 = time.perf_counter()
            window.nav.setCurrentRow([k for k, _ in SECTIONS].index(key))
            # what the page area now shows: the page's loading state, or (built at once) the page
            shown = window.loading.get(key) if hasattr(window, "loading") else None
            (shown or window.page_by_key[key]).installEventFilter(painted.filter)
            _spin(app, lambda p=painted: p.at is not None, 30)
            built = _spin(app, lambda w=window, k=key: w.page_by_key.is_built(k))
            loaded = _spin(app, lambda: ServiceOp.running() == 0)
            found.setdefault(key, []).append(((painted.at - t0) * 1000, (built - t0) * 1000,  # type: ignore[operator]
                                              (loaded - t0) * 1000))
            window.close()
            window.deleteLater()
            QApplication.processEvents()
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--load", action="store_true", help="beside a CPU-burning process")
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen:configfile=" + str(ROOT / "tests" / "data"
                                                                            / "screen-1366x768.json"))
    os.environ.setdefault("MOTODESK_BADGE_KEY_DIR", tempfile.mkdtemp(prefix="bench-keys-"))
    burner = None
    if args.load:
        burner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        from motodesk.rules.common import Role
        from motodesk.services.context import CurrentUser
        from motodesk.services.demo import seed_demo
        from motodesk.ui.app import create_application, open_context

        folder = Path(tempfile.mkdtemp(prefix="bench-pages-"))
        ctx = open_context(f"sqlite:///{folder / 'bench.sqlite3'}")
        seed_demo(ctx, args.people)
        admin = ctx.as_user(CurrentUser(id=None, login="bench.admin", full_name="Bench", role=Role.ADMIN))
        app = create_application()
        baseline = bare(app, args.runs)
        found = pages(app, admin, args.runs)
    finally:
        if burner is not None:
            burner.kill()
    base = statistics.median(baseline)
    load = " (com carga de CPU)" if args.load else ""
    print(f"Página escolhida → primeira pintura, {args.people} pessoas, mediana de {args.runs}{load}\n")
    print("| página | primeira pintura | ÷ janela nua | página montada | dados entregues |")
    print("|---|---:|---:|---:|---:|")
    print(f"| janela nua (QStackedWidget → QLabel) | {base:.1f} ms | 1.0 | — | — |")
    worst = 0.0
    for key, rows in found.items():
        first, built, loaded = (statistics.median(r[i] for r in rows) for i in range(3))
        worst = max(worst, first)
        print(f"| {key} | {first:.1f} ms | {first / base:.1f} | {built:.0f} ms | {loaded:.0f} ms |")
    verdict = "atende" if worst <= TARGET_MS else "NÃO atende"
    print(f"\nPior primeira pintura: {worst:.1f} ms — {verdict} a meta de {TARGET_MS:.0f} ms.")
    return 0 if worst <= TARGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
