"""Issue 27, item 2: every expected error carries a stable code, registered with its pt_BR meaning,
and the command line shows it (tests name refusals by code or rule_id, not by wording)."""

from __future__ import annotations

import argparse
import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import motodesk
from motodesk import cli
from motodesk.rules.common import Status, Verdict
from motodesk.services.error_codes import CODES, code_of
from motodesk.services.errors import InvalidInputError, MotodeskError, RuleViolationError

ROOT = Path(motodesk.__file__).resolve().parent


def _all_subclasses() -> list[type[MotodeskError]]:
    for path in sorted(ROOT.rglob("*.py")):  # services is a namespace package: walk the files
        name = ".".join(("motodesk", *path.relative_to(ROOT).with_suffix("").parts)).removesuffix(".__init__")
        if "migrations" in path.parts or name == "motodesk.__main__":
            continue  # alembic scripts run only inside alembic
        if name.startswith("motodesk.ui.") and name != "motodesk.ui.printqueue":
            continue  # the window's modules define no error but the print queue's
        importlib.import_module(name)
    found: list[type[MotodeskError]] = []
    todo = [MotodeskError]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


#: Helpers that raise a MotodeskError with the ``code="…"`` they are given.
RAISING_HELPERS = frozenset({"check_period_end"})  # in services/refusals.py


def _codes_at_raises() -> dict[str, list[str]]:
    """``code="…"`` given to an ``…Error(...)`` (or a raising helper) anywhere in motodesk: code -> where."""
    where: dict[str, list[str]] = {}
    for path in sorted(ROOT.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            if not name.endswith("Error") and name not in RAISING_HELPERS:
                continue
            for kw in node.keywords:
                if kw.arg == "code":
                    if path.name == "refusals.py" and isinstance(kw.value, ast.Name) and kw.value.id == "code":
                        continue  # a raising helper passes its caller's code on
                    assert isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str), \
                        f"{path.name}:{node.lineno}: a code is a literal string"
                    where.setdefault(kw.value.value, []).append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return where


def test_every_error_class_has_its_own_registered_code() -> None:
    classes = _all_subclasses()
    assert len(classes) >= 14  # the services' errors, the guarded state's and the print queue's
    by_code: dict[str, list[str]] = {}
    for cls in classes:
        by_code.setdefault(cls.code, []).append(cls.__qualname__)
    assert {c: n for c, n in by_code.items() if len(n) > 1} == {}
    assert [c for c in by_code if c not in CODES] == []


def test_every_code_named_at_a_raise_is_registered_and_every_registered_code_is_used() -> None:
    at_raises = _codes_at_raises()
    assert {c: w for c, w in at_raises.items() if c not in CODES} == {}
    used = {cls.code for cls in _all_subclasses()} | set(at_raises) | {"database"}  # database: code_of
    assert sorted(set(CODES) - used) == []


def test_codes_are_short_stable_names_with_a_portuguese_meaning() -> None:
    for code, meaning in CODES.items():
        assert code.replace(".", "_").replace("_", "").isalnum() and code == code.lower(), code
        assert meaning.endswith(".") and len(meaning) > 20, code


def test_a_raise_may_name_a_finer_code_than_its_class() -> None:
    assert InvalidInputError("x").code == "invalid_input"
    assert InvalidInputError("x", {"cpf": "y"}, code="conflict").code == "conflict"
    assert InvalidInputError("x").code == "invalid_input"  # the class's own is untouched
    refusal = RuleViolationError([Verdict("quota.vacancy", "Art. 10, I", Status.NOT_MET, "Art. 10, I: sem vaga")])
    assert (refusal.code, refusal.rule_ids) == ("rule_violation", ("quota.vacancy",))
    assert code_of(ValueError()) == "database" and code_of(refusal) == "rule_violation"


def _run_failing(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], exc: Exception) -> tuple[int, str]:
    def handler(args: argparse.Namespace) -> int:
        raise exc

    namespace = argparse.Namespace(self_test=False, command="teste", handler=handler)
    monkeypatch.setattr(cli, "_parse", lambda argv: namespace)
    status = cli.main([])
    return status, capsys.readouterr().err


def test_the_command_line_prints_the_code_and_keeps_its_exit_status(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    status, err = _run_failing(monkeypatch, capsys, InvalidInputError("CPF inválido.", {"cpf": "dígito errado"}))
    assert status == cli.EXIT_ERROR
    assert err.splitlines() == ["motodesk: erro: CPF inválido.", "  cpf: dígito errado", "  código: invalid_input"]
    refusal = RuleViolationError([Verdict("quota.vacancy", "Art. 10, I", Status.NOT_MET, "Art. 10, I: sem vaga"),
                                  Verdict("tender.called", "Art. 6º", Status.NOT_MET, "Art. 6º: não convocado")])
    status, err = _run_failing(monkeypatch, capsys, refusal)
    assert status == cli.EXIT_ERROR
    assert err.splitlines()[-1] == "  código: rule_violation (regras: quota.vacancy, tender.called)"


def test_a_real_command_prints_the_code(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'nada.sqlite3'}"
    out = subprocess.run([sys.executable, "-m", "motodesk", "create-user", "x", "--role", "clerk", "--database", url,
                          "--user", "ninguem"], input="senha\n", capture_output=True, text=True, timeout=120)
    assert out.returncode in (1,), out.stderr
    assert "  código: " in out.stderr
