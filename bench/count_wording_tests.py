"""Count the tests that assert Portuguese wording instead of a code or a rule_id (issue 27, item 2).

A test function counts when it holds a ``pytest.raises(..., match="plain text")`` (a string
constant with a letter in it) or an ``assert "text" in str(exc)``-style check: a string constant
``in`` / ``==`` ``str(...)``, ``….message``, ``….value`` or ``….args``. ``tests/rules/test_wording.py``
and ``tests/services/test_wording.py`` are the one place meant for wording and are not counted.

    python bench/count_wording_tests.py [--list] [--at REV] [DIR ...]     (default: tests)

``--at REV`` counts the files as they were at a git revision (the "before" figure, e.g. the
commit this work started from), without checking it out.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORDING_HOMES = {"tests/rules/test_wording.py", "tests/services/test_wording.py"}


def _plain(node: ast.AST | None) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return any(c.isalpha() for c in node.value)
    if isinstance(node, ast.JoinedStr):
        return any(_plain(v) for v in node.values)
    return False


def _is_raises(call: ast.Call) -> bool:
    f = call.func
    return (isinstance(f, ast.Attribute) and f.attr == "raises") or (isinstance(f, ast.Name) and f.id == "raises")


def _text_of_exc(node: ast.AST) -> bool:
    """``str(x)``, ``x.message``, ``x.value``, ``x.args``: where an error's wording is read."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "str":
        return True
    return isinstance(node, ast.Attribute) and node.attr in {"message", "value", "args"}


def scan(tree: ast.AST) -> tuple[list[str], int, int]:
    """(names of wording tests, plain ``match=`` patterns, wording asserts) in one module."""
    tests: list[str] = []
    matches = asserts = 0
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef) or not fn.name.startswith("test"):
            continue
        m = a = 0
        for node in ast.walk(fn):
            if isinstance(node, ast.Call) and _is_raises(node):
                m += sum(1 for k in node.keywords if k.arg == "match" and _plain(k.value))
            elif isinstance(node, ast.Compare) and len(node.ops) == 1:
                op, right = node.ops[0], node.comparators[0]
                if isinstance(op, ast.In | ast.NotIn) and _plain(node.left) and _text_of_exc(right):
                    a += 1
                elif isinstance(op, ast.Eq) and ((_plain(node.left) and _text_of_exc(right))
                                                 or (_plain(right) and _text_of_exc(node.left))):
                    a += 1
        matches += m
        asserts += a
        if m or a:
            tests.append(fn.name)
    return tests, matches, asserts


def _sources(dirs: list[str], rev: str | None) -> list[tuple[str, str]]:
    """(path relative to the repository, text) of every test module under ``dirs``."""
    if rev is None:
        return [(p.relative_to(ROOT).as_posix(), p.read_text(encoding="utf-8"))
                for d in dirs for p in sorted((ROOT / d).rglob("test_*.py"))]
    names = subprocess.run(["git", "ls-tree", "-r", "--name-only", rev, "--", *dirs], cwd=ROOT, check=True,
                           capture_output=True, text=True).stdout.split()
    return [(n, subprocess.run(["git", "show", f"{rev}:{n}"], cwd=ROOT, check=True, capture_output=True,
                               text=True).stdout)
            for n in sorted(names) if n.rsplit("/", 1)[-1].startswith("test_") and n.endswith(".py")]


def main(argv: list[str]) -> int:
    listing = "--list" in argv
    rev = argv[argv.index("--at") + 1] if "--at" in argv else None
    dirs = [a for i, a in enumerate(argv) if not a.startswith("--") and (i == 0 or argv[i - 1] != "--at")]
    dirs = dirs or ["tests"]
    per_dir: Counter[str] = Counter()
    total_tests = total_matches = total_asserts = 0
    for rel, text in _sources(dirs, rev):
        if rel in WORDING_HOMES:
            continue
        tests, matches, asserts = scan(ast.parse(text))
        if not tests:
            continue
        per_dir["/".join(rel.split("/")[:2])] += len(tests)
        total_tests += len(tests)
        total_matches += matches
        total_asserts += asserts
        if listing:
            print(f"{rel}: {len(tests)} tests, {matches} match=, {asserts} asserts")
    for d, n in sorted(per_dir.items()):
        print(f"  {d}: {n}")
    print(f"wording tests: {total_tests} functions; plain match= patterns: {total_matches}; "
          f"wording asserts: {total_asserts}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
