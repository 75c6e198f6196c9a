"""LawSettings: defaults, documentation of each field, validation."""

from __future__ import annotations

import dataclasses
import typing
from decimal import Decimal

import pytest

from motodesk.rules.infractions import Penalty, Severity
from motodesk.rules.settings import PLACEHOLDER_FIELDS, LawSettings, describe_settings


def test_defaults() -> None:
    settings = LawSettings()
    assert (settings.municipality, settings.uf) == ("Patrocínio", "MG")
    assert (settings.population, settings.population_year) == (89_826, 2022)
    assert settings.proof_of_residence_max_days == 90
    assert settings.photo_max_age_days == 180
    assert settings.medical_valid_years == 1
    assert settings.criminal_valid_years == 5
    assert settings.defence_period_days == 15
    assert settings.business_days is False
    assert settings.municipal_holidays == ()
    assert settings.fine_ufm(Severity.GRAVISSIMA) == Decimal("4")
    assert settings.penalties(Severity.LEVE) == (Penalty.WARNING, Penalty.FINE)


def test_every_field_names_its_article_and_label() -> None:
    rows = describe_settings()
    assert [row.name for row in rows] == [f.name for f in dataclasses.fields(LawSettings)]
    for row in rows:
        assert row.article and row.label, row.name
        assert ("Art. " in row.article) or ("Lei" in row.article)
    assert {row.name for row in rows if row.placeholder} == set(PLACEHOLDER_FIELDS)


def test_type_hints_resolve() -> None:
    """The settings service decodes stored values from these hints."""
    hints = typing.get_type_hints(LawSettings)
    assert hints["ufm_value_brl"] is Decimal
    assert hints["penalties_leve"] == tuple[Penalty, ...]


def test_settings_are_frozen_and_hashable() -> None:
    settings = LawSettings()
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.population = 1  # type: ignore[misc]
    assert hash(settings) == hash(LawSettings())
