"""Art. 5º, IX: the 3x4 photo judged before it is stored, whatever its source."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest

from motodesk.rules.photo import PhotoFacts, check_photo
from motodesk.rules.settings import LawSettings

TODAY = date(2026, 3, 10)
GOOD = PhotoFacts(width=354, height=472, colour=True, mode="RGB", taken_on=TODAY, rendered=True)


def test_the_finished_badge_photo_of_today_is_accepted() -> None:
    judged = check_photo(GOOD, TODAY, LawSettings())
    assert judged.acceptable and judged.refusals == () and judged.warnings == ()


@pytest.mark.parametrize(
    ("changes", "rule_id", "words"),
    [
        ({"width": 512, "height": 512}, "art5_ix_photo_size", "esta tem 512×512"),
        ({"width": 472, "height": 354}, "art5_ix_photo_size", "esta tem 472×354"),
        ({"rendered": False, "width": 300, "height": 300}, "art5_ix_photo_proportion", "proporção 3x4"),
        ({"colour": False, "mode": "L"}, "art5_ix_photo_colour", "tons de cinza"),
        ({"colour": False, "mode": "CMYK"}, "art5_ix_photo_colour", "colorida (RGB)"),
        ({"rendered": False, "taken_on": date(2025, 9, 10)}, "art5_ix_photo_recent", "há 181 dias"),
        ({"rendered": False, "taken_on": date(2026, 3, 11)}, "art5_ix_photo_recent", "dado impossível"),
    ],
)
def test_refusals_name_art5_ix(changes: dict[str, object], rule_id: str, words: str) -> None:
    judged = check_photo(replace(GOOD, **changes), TODAY, LawSettings())
    assert [v.rule_id for v in judged.refusals] == [rule_id]
    assert judged.refusals[0].message.startswith("Art. 5º, IX: ") and words in judged.refusals[0].message


def test_an_imported_photo_needs_only_the_proportion_not_the_badge_size() -> None:
    legacy = replace(GOOD, rendered=False, width=300, height=400, taken_on=date(2025, 9, 11))
    assert check_photo(legacy, TODAY, LawSettings()).refusals == ()  # 180 days: the last accepted day


def test_recent_follows_the_setting() -> None:
    old = replace(GOOD, rendered=False, taken_on=date(2025, 12, 10))
    assert check_photo(old, TODAY, LawSettings()).refusals == ()
    assert check_photo(old, TODAY, LawSettings(photo_max_age_days=30)).refusals[0].rule_id == "art5_ix_photo_recent"


def test_quality_warnings_are_warnings_not_refusals() -> None:
    judged = check_photo(replace(GOOD, quality_warnings=("Foto muito escura: melhore a iluminação.",)), TODAY,
                         LawSettings())
    assert judged.refusals == () and not judged.acceptable
    assert [v.message for v in judged.warnings] == ["Art. 5º, IX: Foto muito escura: melhore a iluminação."]
