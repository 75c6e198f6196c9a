"""The fault suite, run as in CI, summarised for bench/results.md beside the speed tables.

    .venv/bin/python bench/bench_faults.py

Runs the fault and race tests on SQLite and PostgreSQL (PostgreSQL required), prints how many
passed per file with the time each took, then the table of what each fault does (bench/faults.md).
Exit 1 when any test failed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUITE = [
    "tests/faults",
    "tests/services/test_permits_quota_race.py",
    "tests/services/test_stands.py",
    "tests/services/test_roles.py",
    "tests/services/test_foundation.py",
    "tests/ui/test_startup.py",
    "tests/services/test_reports.py::test_transparency_files_mask_every_cpf",
]


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "faults.xml"
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "MOTODESK_REQUIRE_PG": "1"}
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}",
                               *SUITE], cwd=ROOT, env=env, capture_output=True, text=True)
        if not report.exists():
            print(proc.stdout[-3000:], proc.stderr[-3000:])
            return 1
        tree = ET.parse(report)
    per_file: dict[str, list[float]] = defaultdict(lambda: [0, 0, 0.0])
    for case in tree.iter("testcase"):
        name = case.get("classname", "").replace(".", "/")
        key = name.split("::")[0]
        row = per_file[key]
        failed = any(child.tag in ("failure", "error") for child in case)
        skipped = any(child.tag == "skipped" for child in case)
        row[1 if failed or skipped else 0] += 1
        row[2] += float(case.get("time", 0))
    print("| tests | passed | failed or skipped | seconds |")
    print("|---|---|---|---|")
    for key in sorted(per_file):
        ok, bad, seconds = per_file[key]
        print(f"| `{key}` | {ok:.0f} | {bad:.0f} | {seconds:.1f} |")
    total_ok = sum(r[0] for r in per_file.values())
    total_bad = sum(r[1] for r in per_file.values())
    print(f"| all | {total_ok:.0f} | {total_bad:.0f} | {sum(r[2] for r in per_file.values()):.1f} |")
    print()
    print((ROOT / "bench" / "faults.md").read_text(encoding="utf-8").strip())
    if proc.returncode != 0:
        print(proc.stdout[-3000:], file=sys.stderr)
    return 0 if proc.returncode == 0 and total_bad == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
