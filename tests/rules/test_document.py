"""docs/rules.md is generated from the rules and kept in the repository."""

from __future__ import annotations

from pathlib import Path

from motodesk.rules.document import REGENERATE, render_rules_markdown
from motodesk.rules.infractions import CATALOGUE
from motodesk.rules.lifecycle import TRANSITIONS

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def test_docs_rules_md_is_up_to_date() -> None:
    expected = render_rules_markdown()
    actual = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
    assert actual == expected, f"docs/rules.md is out of date; regenerate it with: {REGENERATE}"


def test_document_covers_every_rule() -> None:
    text = render_rules_markdown()
    for item in CATALOGUE:
        assert f"`{item.code}`" in text
    for move in TRANSITIONS:
        assert f"`{move.name}`" in text
    for heading in (
        "## Requerente",
        "## Veículo",
        "## Vistoria",
        "## Prazos",
        "## Cota",
        "## Infrações",
        "## Ciclo",
    ):
        assert heading in text
