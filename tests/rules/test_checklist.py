"""The inspection checklist per service and the next inspection (Art. 5º IV, § 6º, § 7º; 13; 19; 22; 23)."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest

from motodesk.rules.checklist import (
    ChecklistItem,
    ItemResult,
    checklist_for,
    evaluate_checklist,
    next_inspection_due,
)
from motodesk.rules.common import ServiceType
from motodesk.rules.settings import LawSettings

MT, MB, MF = ServiceType.MOTOTAXI, ServiceType.MOTOBOY, ServiceType.MOTOFRETE


def codes(service: ServiceType) -> set[str]:
    return {item.code for item in checklist_for(service)}


@pytest.mark.parametrize("service", list(ServiceType))
def test_every_service_has_the_common_items(service: ServiceType) -> None:
    assert {
        "A5-IV-VEST",
        "A5-IV-HELMET",
        "A5-7-ANTENNA",
        "A5-7-GUARD",
        "A13-VIII-PLATE",
        "A13-VIII-VISOR",
        "A3-II-CONDITION",
        "A5-1-V-PLATE",
    } <= codes(service)


@pytest.mark.parametrize("service", list(ServiceType))
def test_codes_are_unique_and_every_item_cites_an_article(service: ServiceType) -> None:
    items = checklist_for(service)
    assert len({item.code for item in items}) == len(items)
    assert all(item.article.startswith("Art. ") and item.text for item in items)


def test_mototaxi_items_of_art_19_and_yellow_helmets() -> None:
    assert {
        "A19-I-HANDLES",
        "A19-II-EXHAUST",
        "A19-III-FOOTREST",
        "A19-IV-RAINCAPE",
        "A19-V-MIRRORS",
    } <= codes(MT)
    assert {"A19-2-POLICY", "A13-IX-HELMETS", "A13-VIII-PASSENGER", "A5-1-IV-COLOUR-MT"} <= codes(MT)
    assert not any(code.startswith(("A22", "A23", "A13-X")) for code in codes(MT))


def test_motoboy_bag_and_black_helmets() -> None:
    assert {"A22-1-CONTAINER", "A13-X-HELMETS", "A5-1-IV-COLOUR-MB"} <= codes(MB)
    assert not any(code.startswith(("A19", "A23", "A13-IX")) for code in codes(MB))


def test_motofrete_cargo_equipment_of_art_23() -> None:
    assert {"A23-1-DEVICE", "A23-2-MIRRORS", "A23-4-STRIPS", "A23-5-NOT-BOTH", "A23-6-NO-SOUND"} <= codes(MF)
    assert not any(code.startswith(("A19", "A22")) for code in codes(MF))


def test_only_optional_equipment_admits_not_applicable() -> None:
    optional = {
        item.code for service in ServiceType for item in checklist_for(service) if item.allows_not_applicable
    }
    assert optional == {"A23-4-STRIPS", "A23-5-NOT-BOTH"}


def test_all_ok_approves() -> None:
    items = checklist_for(MF)
    outcome = evaluate_checklist(items, {item.code: ItemResult.OK for item in items})
    assert outcome.complete and outcome.approved
    assert outcome.pending == [] and outcome.unanswered == []


def test_a_not_ok_item_fails_with_its_pending() -> None:
    items = checklist_for(MT)
    results: dict[str, ItemResult | None] = {item.code: ItemResult.OK for item in items}
    results["A19-IV-RAINCAPE"] = ItemResult.NOT_OK
    outcome = evaluate_checklist(items, results)
    assert outcome.complete and not outcome.approved
    assert [item.code for item in outcome.pending] == ["A19-IV-RAINCAPE"]


def test_unanswered_items_cannot_conclude() -> None:
    items = checklist_for(MB)
    results: dict[str, ItemResult | None] = {item.code: ItemResult.OK for item in items}
    results["A5-7-ANTENNA"] = None
    del results["A5-7-GUARD"]
    outcome = evaluate_checklist(items, results)
    assert not outcome.complete and not outcome.approved
    assert [item.code for item in outcome.unanswered] == ["A5-7-ANTENNA", "A5-7-GUARD"]


def test_not_applicable_where_the_law_allows_it_and_where_it_does_not() -> None:
    items = checklist_for(MF)
    results: dict[str, ItemResult | None] = {item.code: ItemResult.OK for item in items}
    results["A23-4-STRIPS"] = ItemResult.NOT_APPLICABLE  # no sidecar
    results["A23-5-NOT-BOTH"] = ItemResult.NOT_APPLICABLE
    assert evaluate_checklist(items, results).approved
    results["A5-7-ANTENNA"] = ItemResult.NOT_APPLICABLE  # the law requires it of every vehicle
    outcome = evaluate_checklist(items, results)
    assert not outcome.approved
    assert [item.code for item in outcome.pending] == ["A5-7-ANTENNA"]


def test_unknown_codes_are_ignored() -> None:
    items = [ChecklistItem("X", "Art. 1º", "x")]
    assert evaluate_checklist(items, {"X": ItemResult.OK, "Y": ItemResult.NOT_OK}).approved


@pytest.mark.parametrize(
    ("service", "approved", "periodic", "due"),
    [
        (MF, True, None, date(2027, 3, 10)),  # Art. 23: yearly
        (MT, True, None, None),  # Art. 5º § 6º: only when the secretariat schedules
        (MB, True, None, None),
        (MT, True, 6, date(2026, 9, 10)),  # semestral
        (MF, True, 6, date(2026, 9, 10)),  # the sooner of the two
        (MF, True, 18, date(2027, 3, 10)),
        (MT, False, None, date(2026, 4, 9)),  # failed: re-inspection within 30 days
        (MF, False, 6, date(2026, 4, 9)),
    ],
)
def test_next_inspection_due(
    settings: LawSettings, service: ServiceType, approved: bool, periodic: int | None, due: date | None
) -> None:
    configured = replace(settings, periodic_inspection_months=periodic)
    assert next_inspection_due(service, date(2026, 3, 10), approved, configured) == due


def test_yearly_inspection_from_29_february(settings: LawSettings) -> None:
    assert next_inspection_due(MF, date(2028, 2, 29), True, settings) == date(2029, 3, 1)
