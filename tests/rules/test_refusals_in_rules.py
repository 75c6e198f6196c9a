"""Issue 24, item 4: the law's refusals live in ``motodesk.rules``; services load, call the rules and write.

An AST scan of ``motodesk/services`` counts the ``Verdict(...)`` constructions and the local refusal
helpers that remain, per file. The allow-list can only shrink: a new refusal written inside a service
fails here and belongs in a rule function with its article. ``Verdict`` is constructed through one
"not met" helper (:func:`motodesk.rules.common.not_met`) in the rules.
"""

from __future__ import annotations

import ast
from pathlib import Path

from motodesk.rules.common import Status, not_met

ROOT = Path(__file__).resolve().parents[2] / "motodesk"
SERVICES = ROOT / "services"
HELPER_NAMES = {"_refuse", "_not_met", "_verdict", "_no", "_link_no"}

#: file -> (Verdict constructions, local refusal helpers) still in services, each with its reason.
ALLOWED = {
    # wraps a rule's verdict into the error (no text, no article of its own)
    "campaigns.py": (0, 1),
}


def _counts() -> dict[str, tuple[int, int]]:
    found = {}
    for path in sorted(SERVICES.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        verdicts = helpers = 0
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
                verdicts += name == "Verdict"
            elif isinstance(node, ast.FunctionDef) and node.name in HELPER_NAMES:
                helpers += 1
        if verdicts or helpers:
            found[str(path.relative_to(SERVICES))] = (verdicts, helpers)
    return found


def test_services_construct_no_verdict_beyond_the_allow_list() -> None:
    grown = {f: n for f, n in _counts().items()
             if n[0] > ALLOWED.get(f, (0, 0))[0] or n[1] > ALLOWED.get(f, (0, 0))[1]}
    assert not grown, f"refusals written in services (move them to a rule function with its article): {grown}"


def test_the_allow_list_only_shrinks() -> None:
    """An entry that is no longer needed is removed, so the count can only go down."""
    found = _counts()
    assert {f: n for f, n in ALLOWED.items() if found.get(f, (0, 0)) != n} == {}


def test_one_not_met_helper_in_the_rules() -> None:
    copies = []
    for path in sorted((ROOT / "rules").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name in HELPER_NAMES:
                body = ast.unparse(node)
                if "Verdict(" in body and "Status.NOT_MET" in body:
                    copies.append(f"{path.name}:{node.name}")
    assert copies == []
    verdict = not_met("x", "Art. 9º", "frase")
    assert (verdict.status, verdict.message) == (Status.NOT_MET, "Art. 9º: frase")
