"""The infraction catalogue against the law's text, classification and penalties (Art. 15, 30–34)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from tests_helpers import check_wording  # type: ignore[import-not-found]

from motodesk.rules.infractions import (
    CATALOGUE,
    Infraction,
    Penalty,
    ReclassificationError,
    Severity,
    allowed_penalties,
    allowed_penalties_for,
    find_infractions,
    fine_amount,
    fine_for,
    infraction_by_code,
    is_repeat_offence,
    reclassify,
)
from motodesk.rules.settings import LawSettings

LAW_FILE = Path("/work/shared/law/lei-4883-2017.txt")

#: Counted by reading the law: Art. 30 groups 1–4, Art. 31 groups 1–4.
EXPECTED_COUNTS = {
    (30, 1): 8,
    (30, 2): 7,
    (30, 3): 6,
    (30, 4): 6,
    (31, 1): 5,
    (31, 2): 4,
    (31, 3): 3,
    (31, 4): 5,
}


def _normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().rstrip(";.").strip()


def parse_law_groups(law: str) -> dict[tuple[int, int], list[str]]:
    """Items of Art. 30 and 31 by (article, group), from the law's plain text."""
    lines = [
        line
        for line in law.splitlines()
        if line.strip() not in ("PREFEITURA MUNICIPAL DE PATROCÍNIO", "ESTADO DE MINAS GERAIS")
        and not line.strip().isdigit()
    ]
    text = "\n".join(lines)
    sections = {
        30: text[text.index("Art. 30 -") : text.index("Art. 31 -")],
        31: text[text.index("Art. 31 -") : text.index("Art. 32 -")],
    }
    items: dict[tuple[int, int], list[str]] = {}
    for article, section in sections.items():
        for match in re.finditer(r"GRUPO (\d)\n(.*?)(?=GRUPO \d\n|\Z)", section, flags=re.S):
            group, body = int(match.group(1)), match.group(2)
            parts = re.split(r"^([IVX]+) - ", body, flags=re.M)[1:]
            items[(article, group)] = [_normalise(parts[i + 1]) for i in range(0, len(parts), 2)]
    return items


def test_hard_counts_per_article_and_group() -> None:
    counts = Counter((int(i.code.split(".")[0]), i.group) for i in CATALOGUE if i.group)
    assert dict(counts) == EXPECTED_COUNTS
    assert sum(EXPECTED_COUNTS.values()) == 44
    assert [i.code for i in CATALOGUE if not i.group] == ["32", "15"]


@pytest.mark.skipif(not LAW_FILE.exists(), reason="law text not available")
def test_catalogue_reproduces_the_law_item_by_item() -> None:
    law = parse_law_groups(LAW_FILE.read_text(encoding="utf-8"))
    assert {key: len(texts) for key, texts in law.items()} == EXPECTED_COUNTS
    romans = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII")
    for (article, group), texts in law.items():
        for index, text in enumerate(texts):
            item = infraction_by_code(f"{article}.{group}.{romans[index]}")
            assert _normalise(item.text) == text, item.code


@pytest.mark.skipif(not LAW_FILE.exists(), reason="law text not available")
def test_art_32_and_art_15_texts_are_the_laws() -> None:
    law = re.sub(r"\s+", " ", LAW_FILE.read_text(encoding="utf-8"))
    for code in ("32", "15"):
        assert infraction_by_code(code).text in law


def test_codes_articles_and_severities_agree() -> None:
    assert len({i.code for i in CATALOGUE}) == len(CATALOGUE)
    for item in CATALOGUE:
        if item.group:
            article, group, roman = item.code.split(".")
            assert item.article == f"Art. {article}, Grupo {group}, {roman}"
            assert item.severity.group == item.group == int(group)


def test_severity_per_art_33() -> None:
    assert [s.group for s in Severity] == [1, 2, 3, 4]
    assert [s.label for s in Severity] == ["Leve", "Média", "Grave", "Gravíssima"]
    assert Severity.from_group(3) is Severity.GRAVE
    with pytest.raises(ValueError):  # its sentence: tests/rules/test_wording.py
        Severity.from_group(5)
    with pytest.raises(ValueError):
        Severity.from_group(0)


def test_penalties_in_increasing_order_per_art_34() -> None:
    assert [p.rank for p in Penalty] == [1, 2, 3, 4]
    assert [p.label for p in Penalty] == ["Advertência por escrito", "Multa", "Suspensão", "Cassação"]
    assert [p.article for p in Penalty] == ["Art. 34, I", "Art. 34, II", "Art. 34, III", "Art. 34, IV"]


@pytest.mark.parametrize(
    ("query", "codes"),
    [
        ("troco", ["30.2.VI"]),
        ("TROCO", ["30.2.VI"]),
        ("30.2.VI", ["30.2.VI"]),
        ("Art. 30, Grupo 2, VI", ["30.2.VI"]),
        ("embriaguez", ["30.4.IV"]),
        ("embriaguéz", ["30.4.IV"]),
        ("ponto de onibus", ["30.4.VI"]),
        ("acidente", ["31.2.II", "31.4.I"]),
        ("sem permissao", ["32"]),
        ("31.3", ["31.3.I", "31.3.II", "31.3.III"]),
        ("nothing like this", []),
    ],
)
def test_find_infractions(query: str, codes: list[str]) -> None:
    assert [i.code for i in find_infractions(query)] == codes


def test_empty_query_lists_everything() -> None:
    assert find_infractions("  ") == list(CATALOGUE)


# --- Art. 33 parágrafo único: reclassification ----------------------------------------------------


def test_reclassify_up_or_down_with_a_reason() -> None:
    change = infraction_by_code("30.2.VI")
    assert reclassify(change, Severity.LEVE, "primeira ocorrência, valor irrisório") is Severity.LEVE
    assert (
        reclassify(change, Severity.GRAVISSIMA, "reincidência com ameaça ao usuário") is Severity.GRAVISSIMA
    )
    assert reclassify(Severity.LEVE, Severity.GRAVE, "consequências graves") is Severity.GRAVE


@pytest.mark.parametrize("reason", ["", "   "])
def test_reclassify_needs_a_reason(reason: str) -> None:
    with pytest.raises(ReclassificationError) as refused:
        reclassify(infraction_by_code("30.1.IV"), Severity.MEDIA, reason)
    check_wording("reclassification", str(refused.value))


def test_reclassify_to_the_same_classification_is_refused() -> None:
    with pytest.raises(ReclassificationError) as refused:
        reclassify(infraction_by_code("30.1.IV"), Severity.LEVE, "motivo")
    assert f"({Severity.LEVE.label})" in str(refused.value)  # names the classification it already has
    check_wording("reclassification", str(refused.value))


@pytest.mark.parametrize("code", ["32", "15"])
def test_penalties_fixed_by_law_cannot_be_reclassified(code: str) -> None:
    with pytest.raises(ReclassificationError) as refused:
        reclassify(infraction_by_code(code), Severity.LEVE, "motivo")
    assert str(refused.value).startswith(infraction_by_code(code).article)  # the article that fixes it
    check_wording("reclassification", str(refused.value))


# --- Art. 34: penalties and fines -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("severity", "penalties"),
    [
        (Severity.LEVE, [Penalty.WARNING, Penalty.FINE]),
        (Severity.MEDIA, [Penalty.WARNING, Penalty.FINE]),
        (Severity.GRAVE, [Penalty.FINE, Penalty.SUSPENSION]),
        (Severity.GRAVISSIMA, [Penalty.FINE, Penalty.SUSPENSION, Penalty.REVOCATION]),
    ],
)
def test_default_penalties_per_classification(severity: Severity, penalties: list[Penalty]) -> None:
    assert allowed_penalties(severity, LawSettings()) == penalties


def test_penalties_follow_the_settings_mildest_first() -> None:
    settings = LawSettings(penalties_leve=(Penalty.FINE, Penalty.WARNING, Penalty.FINE))
    assert allowed_penalties(Severity.LEVE, settings) == [Penalty.WARNING, Penalty.FINE]


def test_penalties_of_items_fixed_by_law(settings: LawSettings) -> None:
    assert allowed_penalties_for(infraction_by_code("32"), settings) == [Penalty.FINE]
    assert allowed_penalties_for(infraction_by_code("15"), settings) == [Penalty.REVOCATION]
    reclassified = allowed_penalties_for(infraction_by_code("30.1.IV"), settings, Severity.GRAVISSIMA)
    assert reclassified == [Penalty.FINE, Penalty.SUSPENSION, Penalty.REVOCATION]


def test_fine_amounts_in_ufm_and_reais() -> None:
    settings = LawSettings(ufm_value_brl=Decimal("4.5678"), fine_ufm_grave=Decimal("3"))
    assert fine_amount(Severity.GRAVE, settings) == (Decimal("3"), Decimal("13.70"))


def test_art_32_fine_is_five_ufm_with_seizure(settings: LawSettings) -> None:
    art32 = infraction_by_code("32")
    assert art32.vehicle_seizure
    assert fine_for(art32, replace(settings, ufm_value_brl=Decimal("120.00"))) == (
        Decimal("5"),
        Decimal("600.00"),
    )
    assert fine_for(infraction_by_code("15"), settings) is None
    assert fine_for(infraction_by_code("30.2.VI"), settings) == fine_amount(Severity.MEDIA, settings)


def test_repeat_offence_window(settings: LawSettings) -> None:
    on = date(2026, 3, 10)
    assert is_repeat_offence([date(2025, 3, 10)], on, settings)  # 365 days before
    assert not is_repeat_offence([date(2025, 3, 9)], on, settings)
    assert not is_repeat_offence([on, date(2026, 4, 1)], on, settings)  # same day or later
    assert not is_repeat_offence([], on, settings)


def test_infraction_is_immutable() -> None:
    item = CATALOGUE[0]
    with pytest.raises(AttributeError):
        item.text = "x"  # type: ignore[misc]
    assert isinstance(item, Infraction)
