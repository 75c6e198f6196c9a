"""motodesk.rules is pure: stdlib, validate_docbr, holidays and itself; no I/O."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import motodesk.rules

RULES = Path(motodesk.rules.__file__).parent
ALLOWED_THIRD_PARTY = {"validate_docbr", "holidays"}
FORBIDDEN_CALLS = {"open", "print", "input", "exec", "eval"}


def _modules() -> list[Path]:
    return sorted(RULES.glob("*.py"))


def test_imports_only_the_stdlib_the_allowed_libraries_and_itself() -> None:
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                allowed = (
                    top in sys.stdlib_module_names
                    or top in ALLOWED_THIRD_PARTY
                    or name == "motodesk.rules"
                    or name.startswith("motodesk.rules.")
                )
                assert allowed, f"{path.name} imports {name}"


def _checked_nodes(path: Path) -> list[ast.AST]:
    """Every node, except the body of ``document.main`` (which writes docs/rules.md to stdout)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    exempt: set[int] = set()
    if path.name == "document.py":
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name == "main":
                exempt |= {id(child) for child in ast.walk(node)}
    return [node for node in ast.walk(tree) if id(node) not in exempt]


def test_no_io() -> None:
    for path in _modules():
        for node in _checked_nodes(path):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in FORBIDDEN_CALLS, f"{path.name} calls {node.func.id}()"
            if isinstance(node, ast.Name):
                assert node.id not in {"sys", "os"}, f"{path.name} uses {node.id}"
