"""Modules a person can hold (issue 27, item 4): no module under ``motodesk/`` grows past
:data:`LIMIT` lines. The modules longer than that today are listed in :data:`EXCEPTIONS`, each with
its length today as its ceiling: a listed module may shrink but not grow, a new long module fails,
and an entry whose module is back under the limit must go (the list only shrinks).

Split a module by what it does (one module per concern, the old import path re-exporting what its
callers import), as ``ui/dossier.py``, ``ui/screens/admin.py``, ``ui/photo_dialog.py`` and
``services/backup.py``, ``services/permits.py``, ``services/badges.py`` and ``exports/importer.py`` were.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "motodesk"

#: Lines a module may have.
LIMIT = 700

#: The modules longer than :data:`LIMIT` today, with their length today (the ceiling they may not pass).
EXCEPTIONS: dict[str, int] = {
    # Not split yet.
    "ui/screens/permits.py": 864,
    "services/search.py": 918,
    "services/inspections.py": 900,
    "printing/documents.py": 870,
    "rules/document.py": 859,
    "services/vehicles.py": 790,
    "models/db.py": 735,
    "services/people.py": 723,
    "services/campaigns.py": 719,
    # A shipped migration is never edited (a schema change is a new revision).
    "models/migrations/versions/0001_first_schema.py": 914,
}


def module_lengths(package: Path) -> dict[str, int]:
    """Lines of every ``.py`` file under ``package``, by its path relative to it (``/`` separated)."""
    return {path.relative_to(package).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
            for path in sorted(package.rglob("*.py"))}


def over_the_limit(lengths: dict[str, int], limit: int, exceptions: dict[str, int], *, kind: str = "module",
                   advice: str = "split it by what it does") -> dict[str, str]:
    """What breaks the rule, by module (or function: tests/test_function_size.py): too long and not
    listed, longer than its ceiling, or listed but no longer over the limit or gone (a stale entry)."""
    found: dict[str, str] = {}
    for name, lines in lengths.items():
        ceiling = exceptions.get(name)
        if ceiling is None and lines > limit:
            found[name] = f"{lines} lines, over the limit of {limit}: {advice}"
        elif ceiling is not None and lines > ceiling:
            found[name] = f"{lines} lines, over its ceiling of {ceiling}: a listed {kind} may not grow"
    for name in exceptions:
        lines = lengths.get(name)
        if lines is None:
            found[name] = "listed in EXCEPTIONS but no longer exists: remove the entry"
        elif lines <= limit:
            found[name] = f"{lines} lines, within the limit of {limit}: remove its entry from EXCEPTIONS"
    return found


def test_no_module_grows_past_the_limit() -> None:
    assert over_the_limit(module_lengths(PACKAGE), LIMIT, EXCEPTIONS) == {}


def test_the_split_modules_stay_under_the_limit() -> None:
    lengths = module_lengths(PACKAGE)
    split = ["ui/dossier.py", "ui/screens/admin.py", "ui/photo_dialog.py", "services/backup.py",
             "services/permits.py", "services/badges.py"]
    assert {name: lengths[name] for name in split if lengths[name] > LIMIT} == {}
    assert not set(split) & set(EXCEPTIONS)


def test_the_check_sees_a_long_module_a_grown_one_and_a_stale_entry(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "long.py").write_text("x = 1\n" * 11, encoding="utf-8")
    (tmp_path / "grown.py").write_text("x = 1\n" * 13, encoding="utf-8")
    (tmp_path / "short.py").write_text("x = 1\n" * 3, encoding="utf-8")
    lengths = module_lengths(tmp_path)
    assert lengths == {"grown.py": 13, "short.py": 3, "sub/long.py": 11}
    found = over_the_limit(lengths, 10, {"grown.py": 12, "short.py": 20, "gone.py": 40})
    assert sorted(found) == ["gone.py", "grown.py", "short.py", "sub/long.py"]
    assert "ceiling of 12" in found["grown.py"] and "remove its entry" in found["short.py"]
    assert over_the_limit(lengths, 10, {"grown.py": 13, "sub/long.py": 11}) == {}
