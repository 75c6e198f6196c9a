"""A GUI test whose worker process crashed reruns once; a GUI test that fails never reruns.

A plugin of ``tests/conftest.py`` (``pytest_plugins``). Now and then, under load, a process running
the GUI tests died inside PySide (SIGSEGV in ``Shiboken::BindingManager::releaseWrapper`` while the
event loop ran deferred deletes: the page walks of tests/ui, and an xdist worker in CI). The op
machinery no longer makes or deletes Qt objects per call (``motodesk.ui.ops._Hub``), which removed
the one deferred delete of a timer that the crashes were seen in; should another one remain, the
lost worker's test runs again once (pytest-rerunfailures reschedules a crashed item), and the
run's summary shows it as ``R``. Nothing else reruns: the marker's ``only_rerun`` pattern matches
no exception, so an assertion, an error or a timeout fails at its first run as it always did.
"""

from __future__ import annotations

from pathlib import Path

import pytest

UI_TESTS = Path(__file__).resolve().parent / "ui"
#: A pattern no exception's text can match: only a lost process (which raises nothing) is rerun.
CRASH_ONLY = r"(?!)"
CRASH_RERUNS = 1


def crash_only_marker() -> pytest.MarkDecorator:
    return pytest.mark.flaky(reruns=CRASH_RERUNS, only_rerun=[CRASH_ONLY])


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if UI_TESTS in Path(str(item.path)).resolve().parents:
            item.add_marker(crash_only_marker())
