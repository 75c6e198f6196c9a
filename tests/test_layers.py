"""The arrows of docs/architecture.md: only motodesk/ui imports PySide6 (and no model); rules import no database."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "motodesk"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _modules(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.py"))


def test_only_ui_imports_pyside6() -> None:
    offenders = [
        str(p.relative_to(PACKAGE.parent))
        for p in _modules(PACKAGE)
        if "ui" not in p.relative_to(PACKAGE).parts[:1]
        and any(n == "PySide6" or n.startswith("PySide6.") for n in _imports(p))
    ]
    assert offenders == []


def test_rules_import_nothing_of_the_database_or_other_layers() -> None:
    forbidden = ("sqlalchemy", "alembic", "psycopg", "PySide6", "motodesk.models", "motodesk.services",
                 "motodesk.ui", "motodesk.printing", "motodesk.exports", "motodesk.imaging")
    offenders = {
        str(p.relative_to(PACKAGE.parent)): sorted(n for n in _imports(p) if n.startswith(forbidden))
        for p in _modules(PACKAGE / "rules")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_ui_imports_no_model_nor_the_database_library() -> None:
    """The screens reach the database through services only (motodesk.services.connection opens
    it): a model imported by a screen is a query waiting to run on the GUI thread."""
    offenders = {
        str(p.relative_to(PACKAGE.parent)): sorted(n for n in _imports(p)
                                                   if n.startswith(("motodesk.models", "sqlalchemy", "alembic")))
        for p in _modules(PACKAGE / "ui")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_checker_sees_an_import_inside_a_function(tmp_path: Path) -> None:
    sample = tmp_path / "x.py"
    sample.write_text("def f():\n    from motodesk.models.db import Database\n")
    assert "motodesk.models.db" in _imports(sample)


def test_pure_layers_do_not_touch_the_database() -> None:
    for layer in ("printing", "exports", "imaging"):
        for p in _modules(PACKAGE / layer):
            bad = [n for n in _imports(p) if n.startswith(("sqlalchemy", "motodesk.models", "motodesk.services"))]
            assert bad == [], f"{p} imports {bad}"


def test_the_checker_sees_a_real_import(tmp_path: Path) -> None:
    sample = tmp_path / "x.py"
    sample.write_text("from PySide6.QtWidgets import QWidget\nimport sqlalchemy.orm\n")
    assert {"PySide6.QtWidgets", "sqlalchemy.orm"} <= _imports(sample)


def test_the_plan_these_arrows_come_from_is_the_repositorys_own() -> None:
    """The architecture these tests cite lives in the repository, and says what they check."""
    plan = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert "only ui imports PySide6; ui imports no model" in plan
    assert "`rules` imports nothing of\nthe database" in plan or "`rules` imports nothing of the database" in plan
