"""One clock: every "today" and every time shown comes from motodesk.clock (America/Sao_Paulo)."""

from __future__ import annotations

import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "motodesk"
NAIVE_NOW = re.compile(r"\b(?:date\.today\(\)|datetime\.now\(\)|datetime\.utcnow\(|QDate\.currentDate\(|"
                       r"QDateTime\.currentDateTime\(|time\.localtime\(|\.astimezone\(\))")


def test_nothing_reads_the_workstations_own_clock_or_time_zone() -> None:
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if path.name == "clock.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if NAIVE_NOW.search(line):
                offenders.append(f"{path.relative_to(PACKAGE.parent)}:{number}: {line.strip()}")
    assert offenders == []


def test_the_clock_is_the_secretariats(monkeypatch) -> None:  # noqa: ANN001
    import time
    from datetime import UTC, datetime

    import time_machine

    from motodesk.clock import local_now, local_today
    from motodesk.printing.typesetting import format_datetime
    from motodesk.ui.formatting import format_datetime as shown

    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        with time_machine.travel(datetime(2026, 3, 3, 2, 30, tzinfo=UTC), tick=False):
            assert str(local_today()) == "2026-03-02"  # 23:30 of the 2nd in Patrocínio
            assert local_now().strftime("%H:%M") == "23:30"
            moment = datetime(2026, 3, 3, 2, 30, tzinfo=UTC)
            assert format_datetime(moment) == "02/03/2026 às 23:30"
            assert shown(moment) == "02/03/2026 23:30"
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
