"""What the start-up worker imports to open the database and run the day's calendar (issue 20,
target 4): the models and services on that path must not drag in the writers and readers of files
(openpyxl with numpy and PIL, reportlab), nor every country's holiday calendar. Each is imported
by the function that uses it; a fresh interpreter shows whether a top-level import came back."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

START_PATH = """
import json, sys
import motodesk.models.db, motodesk.services.context, motodesk.services.settings, motodesk.services.auth
import motodesk.services.permits, motodesk.services.deputies, motodesk.services.access_log
import motodesk.exports.xlsx, motodesk.rules.periods
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in {names})))
"""

HEAVY = ("openpyxl", "reportlab", "numpy", "cv2", "holidays")


def test_the_start_path_imports_no_file_writer_nor_holiday_calendar() -> None:
    code = START_PATH.replace("{names}", repr(set(HEAVY)))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
                         check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def test_the_services_still_write_and_count_once_imported_lazily(tmp_path: Path) -> None:
    from datetime import UTC, date, datetime

    from openpyxl import load_workbook

    from motodesk.exports.xlsx import Column, SheetSpec, write_workbook
    from motodesk.rules.periods import _state_holidays

    spec = SheetSpec("Teste", "Planilha", [Column("a", "A", "text", 10), Column("d", "D", "date", 12)])
    written = write_workbook(tmp_path / "t.xlsx", [(spec, [{"a": "=1+1", "d": date(2026, 12, 1)}])],
                             exported_by="admin", exported_at=datetime(2026, 12, 1, 12, tzinfo=UTC))
    assert written == 1
    sheet = load_workbook(tmp_path / "t.xlsx").active
    assert sheet is not None
    assert sheet["A3"].value == "'=1+1"  # still escaped as text, not a formula
    assert date(2026, 12, 25) in _state_holidays("MG", 2026)  # Natal


def test_the_error_literals_spelled_out_match_openpyxl() -> None:
    from openpyxl.cell.cell import ERROR_CODES

    from motodesk.exports.xlsx import _ERROR_LITERALS

    assert frozenset(ERROR_CODES) == _ERROR_LITERALS
