"""The secretariat's calendar for services (see :mod:`motodesk.clock`, which every layer may use)."""

from __future__ import annotations

from motodesk.clock import LOCAL_TZ, local_now, local_time, local_today

__all__ = ["LOCAL_TZ", "local_now", "local_time", "local_today"]
