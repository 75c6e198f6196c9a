"""Functions a person can hold (issue 27, item 4): no function or method under ``motodesk/`` grows
past :data:`LIMIT` lines (``end_lineno - lineno + 1`` of its ``def``, decorators not counted). The
functions longer than that today are listed in :data:`EXCEPTIONS` by ``"module:qualname"``, each
with its length today as its ceiling: a listed function may shrink but not grow, a new long function
fails, and an entry whose function is back under the limit (or gone) must go (the list only shrinks).

Shrink a long function into well-named steps (``services/demo.py``'s ``seed_demo`` is a list of
them) or, for a hand-built form, into a declared one (``ui/formkit``). The shipped migrations in
``models/migrations/versions/`` are frozen (a schema change is a new revision), so they are not
measured.
"""

from __future__ import annotations

import ast
from pathlib import Path

from test_module_size import over_the_limit as module_over_the_limit  # type: ignore[import-not-found]

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "motodesk"

#: Lines a function may have.
LIMIT = 80

#: Folders (relative to the package, ``/`` separated) whose modules are not measured.
FROZEN = ("models/migrations/versions/",)

#: The functions longer than :data:`LIMIT` today, with their length today (the ceiling they may not
#: pass), by ``"module:qualname"`` (nested functions as ``outer.<locals>.inner``). Empty since issue 27:
#: every function is within the limit, and a new long one fails.
EXCEPTIONS: dict[str, int] = {}


def source_function_lengths(source: str, module: str) -> dict[str, int]:
    """Lines of every function and method in ``source``, by ``"module:qualname"``. Two definitions
    with one qualname (a property's getter and setter, overloads) count as the longer of them."""
    lengths: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                qualname = prefix + child.name
                assert child.end_lineno is not None
                key = f"{module}:{qualname}"
                lengths[key] = max(lengths.get(key, 0), child.end_lineno - child.lineno + 1)
                visit(child, qualname + ".<locals>.")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return lengths


def function_lengths(package: Path) -> dict[str, int]:
    """Lines of every function and method in the ``.py`` files under ``package`` (the frozen
    folders aside), by ``"module:qualname"``, the module relative to ``package``."""
    lengths: dict[str, int] = {}
    for path in sorted(package.rglob("*.py")):
        module = path.relative_to(package).as_posix()
        if not module.startswith(FROZEN):
            lengths.update(source_function_lengths(path.read_text(encoding="utf-8"), module))
    return lengths


def over_the_limit(lengths: dict[str, int], limit: int, exceptions: dict[str, int]) -> dict[str, str]:
    """What breaks the rule, by function: the module-size check's verdict, worded for functions."""
    return module_over_the_limit(lengths, limit, exceptions, kind="function", advice="split it into smaller steps")


def test_no_function_grows_past_the_limit() -> None:
    assert over_the_limit(function_lengths(PACKAGE), LIMIT, EXCEPTIONS) == {}


def test_the_frozen_migrations_are_not_measured() -> None:
    lengths = function_lengths(PACKAGE)
    assert lengths, "no function measured"
    assert not [name for name in lengths if name.startswith(FROZEN)]
    assert not [name for name in EXCEPTIONS if name.startswith(FROZEN)]


def test_the_measure_names_methods_nested_functions_and_counts_def_to_end() -> None:
    source = (
        "import functools\n"
        "@functools.cache\n"          # a decorator is not counted
        "def top():\n"
        "    def inner():\n"
        "        return 1\n"
        "    return inner\n"
        "class Box:\n"
        "    async def open(self):\n"
        "        pass\n"
        "    class Lid:\n"
        "        def shut(self):\n"
        "\n"
        "            return 2\n"
    )
    assert source_function_lengths(source, "pkg/mod.py") == {
        "pkg/mod.py:top": 4, "pkg/mod.py:top.<locals>.inner": 2,
        "pkg/mod.py:Box.open": 2, "pkg/mod.py:Box.Lid.shut": 3,
    }


def test_the_check_sees_a_long_function_a_grown_one_and_a_stale_entry(tmp_path: Path) -> None:
    def function(name: str, body_lines: int) -> str:
        return f"def {name}():\n" + "    x = 1\n" * (body_lines - 1)

    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "long.py").write_text(function("new_long", 11), encoding="utf-8")
    (tmp_path / "grown.py").write_text(function("grown", 13) + function("short", 3), encoding="utf-8")
    (tmp_path / "models" / "migrations" / "versions").mkdir(parents=True)
    (tmp_path / "models" / "migrations" / "versions" / "0001_x.py").write_text(
        function("upgrade", 50), encoding="utf-8")
    lengths = function_lengths(tmp_path)
    assert lengths == {"grown.py:grown": 13, "grown.py:short": 3, "sub/long.py:new_long": 11}
    found = over_the_limit(lengths, 10, {"grown.py:grown": 12, "grown.py:short": 20, "gone.py:f": 40})
    assert sorted(found) == ["gone.py:f", "grown.py:grown", "grown.py:short", "sub/long.py:new_long"]
    assert "over the limit of 10" in found["sub/long.py:new_long"]
    assert "ceiling of 12" in found["grown.py:grown"]
    assert "remove its entry" in found["grown.py:short"] and "no longer exists" in found["gone.py:f"]
    assert over_the_limit(lengths, 10, {"grown.py:grown": 13, "sub/long.py:new_long": 11}) == {}
