"""Dependencies earn their place: what a counter PC installs, and what only the demo and tests need."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _runtime_dependencies() -> set[str]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    names = set()
    for spec in data["project"]["dependencies"]:
        names.add(spec.split(">")[0].split("<")[0].split("=")[0].split("[")[0].strip().lower())
    return names


def test_the_demo_data_generator_is_an_extra_not_a_counter_dependency() -> None:
    deps = _runtime_dependencies()
    assert "faker" not in deps
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert any(s.startswith("faker") for s in extras["demo"])
    assert any(s.startswith("faker") for s in extras["test"])  # the suite seeds demo data


def test_faker_is_imported_only_inside_the_demo_seeding() -> None:
    """A module-level import would make every command need the extra."""
    offenders = []
    for path in (ROOT / "motodesk").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:  # module level only
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(n.split(".")[0] == "faker" for n in names):
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def test_no_direct_use_of_dateutil() -> None:
    assert "python-dateutil" not in _runtime_dependencies()
    for path in (ROOT / "motodesk").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                assert not any(n.split(".")[0] == "dateutil" for n in names), path


def test_openpyxl_parses_with_defusedxml() -> None:
    from openpyxl.xml import DEFUSEDXML

    assert DEFUSEDXML is True


def test_seed_demo_without_the_demo_extra_says_so_and_writes_nothing(ctx, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import sys

    from sqlalchemy import func, select
    from tests_helpers import raises_code  # type: ignore[import-not-found]

    from motodesk.models import Person
    from motodesk.services.demo import seed_demo
    from motodesk.services.errors import InvalidInputError

    monkeypatch.setitem(sys.modules, "faker", None)  # what a counter PC without the extra has
    with raises_code(InvalidInputError, "demo.extra_missing"):
        seed_demo(ctx, 3)
    with ctx.read() as s:
        assert s.scalar(select(func.count()).select_from(Person)) == 0
