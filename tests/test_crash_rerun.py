"""The GUI tests' rerun (tests/crash_rerun.py) takes back a crashed worker's test once, and never a
test that fails: run for real, in a small suite of its own under pytest-xdist."""

from __future__ import annotations

from pathlib import Path

from tests_helpers import run_small_suite  # type: ignore[import-not-found]

SUITE = '''
import os
import signal
from pathlib import Path

FLAG = Path(__file__).with_name("crashed-once")


def test_crashes_its_worker_the_first_time():
    if not FLAG.exists():
        FLAG.write_text("x")
        os.kill(os.getpid(), signal.SIGSEGV)  # what PySide did: the process is gone, nothing raised


def test_fails_every_time():
    runs = Path(__file__).with_name("failed-runs")
    runs.write_text(runs.read_text() + "x" if runs.exists() else "x")
    assert False, "a real failure"
'''

CONFTEST = '''
import crash_rerun


def pytest_collection_modifyitems(items):
    for item in items:
        item.add_marker(crash_rerun.crash_only_marker())  # as for every test under tests/ui
'''


def test_a_crashed_worker_reruns_once_and_a_failure_never(tmp_path: Path) -> None:
    done = run_small_suite(tmp_path, {"test_suite.py": SUITE, "conftest.py": CONFTEST}, "-n", "1")
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert "1 failed, 1 passed, 1 rerun" in out, out
    assert (tmp_path / "crashed-once").exists()
    assert (tmp_path / "failed-runs").read_text() == "x", "a failing test was run again"
