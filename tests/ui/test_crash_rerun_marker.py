"""Every GUI test carries the crash-only rerun of tests/crash_rerun.py (and nothing that reruns failures)."""

from __future__ import annotations

import re

import pytest
from crash_rerun import CRASH_ONLY, CRASH_RERUNS  # type: ignore[import-not-found]


def test_this_gui_test_reruns_a_crash_only(request: pytest.FixtureRequest) -> None:
    marker = request.node.get_closest_marker("flaky")
    assert marker is not None and marker.kwargs == {"reruns": CRASH_RERUNS, "only_rerun": [CRASH_ONLY]}
    for text in ("AssertionError: assert 1 == 2", "TimeoutError: waitUntil timed out", "", "RuntimeError"):
        assert re.search(CRASH_ONLY, text) is None
