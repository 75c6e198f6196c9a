"""The fault suite, run as in CI, summarised for bench/results.md beside the speed tables.

    .venv/bin/python bench/bench_faults.py

    .venv/bin/python bench/bench_faults.py tests/faults/test_backup_faults.py   # only these tests

Runs the fault and race tests on SQLite and PostgreSQL (PostgreSQL required), prints how many
passed per file with the time each took, the table of what each fault does (bench/faults.md),
then the table of issue 17's guarantees counted from the run: per guarantee, how many faults were
tried (test cases, both databases), refused or survived (passed), and lost (failed or errored).
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

# Issue 17's guarantees: (test of tests/faults, fault tried, "refused" or "survived" when it passes).
# A passing case counts as refused (the fault is turned down with a pt_BR message, nothing written)
# or survived (the data come through intact); a failing or erroring case counts as lost.
BACKUPS = "tests/faults/test_backup_faults.py"
GUARANTEES: list[tuple[str, str, str]] = [
    (f"{BACKUPS}::test_a_damaged_sqlite_database_is_not_backed_up",
     "3. backup of a damaged SQLite file (a broken foreign key; a page overwritten)", "refused"),
    (f"{BACKUPS}::test_a_damaged_postgresql_database_is_not_backed_up",
     "3. backup of a PostgreSQL database with an orphan row", "refused"),
    (f"{BACKUPS}::test_a_copy_damaged_on_the_way_is_not_kept",
     "3. the copy damaged while written (SQLite page; PostgreSQL file that loses data), read back", "refused"),
    (f"{BACKUPS}::test_forged_unsigned_or_foreign_backups_are_refused",
     "4. edited manifest, no signature, edited data, extra member, unknown key (then trusted)", "refused"),
    (f"{BACKUPS}::test_a_schema_other_than_the_migrations_is_refused",
     "4. validly re-signed backup with an extra trigger/table/function, a missing index/constraint", "refused"),
    (f"{BACKUPS}::test_table_contents_that_do_not_match_their_hash_are_refused",
     "4. validly re-signed backup whose table content differs from its hash", "refused"),
    (f"{BACKUPS}::test_table_hashes_are_the_same_on_both_databases",
     "4. per-table hashes: SQLite source = PostgreSQL restore = manifest", "survived"),
    (f"{BACKUPS}::test_code_planted_in_a_postgresql_backup_does_not_run",
     "5. planted function + trigger with COPY … TO PROGRAM, SQL in data and in a table name", "refused"),
    (f"{BACKUPS}::test_the_format_that_ran_pg_restore_is_refused",
     "5. an old pg_dump backup (the format restored with pg_restore)", "refused"),
    (f"{BACKUPS}::test_audit_rows_are_restored_verbatim_with_the_triggers_back",
     "5. audit rows restored verbatim, no trigger writes for restored data, triggers back", "survived"),
    (f"{BACKUPS}::test_truncated_and_corrupted_files_are_refused",
     "6. truncated zip (3 cuts), bad CRC: pt_BR naming the file, target left empty", "refused"),
    (f"{BACKUPS}::test_truncated_and_corrupted_files_are_named_from_the_command_line",
     "6. the same from the command line: exit 1, never 3", "refused"),
    (f"{BACKUPS}::test_a_full_disk_is_named_and_leaves_nothing_behind",
     "6. full disk (ENOSPC at the write) while backing up and while extracting", "refused"),
    (f"{BACKUPS}::test_a_file_size_limit_during_a_command_line_backup",
     "6. file-size limit (RLIMIT_FSIZE) in a command-line backup", "refused"),
    (f"{BACKUPS}::test_backups_and_key_files_are_readable_by_their_owner_only",
     "13. backup zip, its members, key files, restored SQLite file: mode 0600 under umask 0", "survived"),
]


def guarantee_rows(tree: ET.ElementTree) -> list[str]:
    """The guarantees' table: tried / refused / survived / lost, counted from the junit report."""
    counts: dict[str, list[int]] = {test: [0, 0, 0, 0] for test, _fault, _kind in GUARANTEES}
    for case in tree.iter("testcase"):
        path = case.get("classname", "").replace(".", "/") + ".py"
        test = f"{path}::{case.get('name', '').split('[')[0]}"
        if test not in counts or any(child.tag == "skipped" for child in case):
            continue
        row = counts[test]
        row[0] += 1
        lost = any(child.tag in ("failure", "error") for child in case)
        kind = next(k for t, _f, k in GUARANTEES if t == test)
        row[3 if lost else 1 if kind == "refused" else 2] += 1
    lines = ["| guarantee (issue 17) | test | tried | refused | survived | lost |", "|---|---|---|---|---|---|"]
    for test, fault, _kind in GUARANTEES:
        tried, refused, survived, lost = counts[test]
        lines.append(f"| {fault} | `{test.split('::')[1]}` | {tried} | {refused} | {survived} | {lost} |")
    return lines


def main() -> int:
    only = sys.argv[1:]
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "faults.xml"
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "MOTODESK_REQUIRE_PG": "1"}
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}",
                               *(only or SUITE)], cwd=ROOT, env=env, capture_output=True, text=True)
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
    print()
    print("\n".join(guarantee_rows(tree)))
    if proc.returncode != 0:
        print(proc.stdout[-3000:], file=sys.stderr)
    return 0 if proc.returncode == 0 and total_bad == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
