"""The vehicle's documentary requirements (Art. 3º, 5º § 1º, § 5º, § 8º, 19 § 1º)."""

from __future__ import annotations

import dataclasses
from dataclasses import replace
from datetime import date
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests_helpers import names_in  # type: ignore[import-not-found]

from motodesk.rules.common import ServiceType, Status, Verdict
from motodesk.rules.settings import LawSettings
from motodesk.rules.vehicle import VehicleFacts, check_vehicle, crlv_is_current, vehicle_useful_life_end

MT, MB, MF = ServiceType.MOTOTAXI, ServiceType.MOTOBOY, ServiceType.MOTOFRETE
HOLDER = "52998224725"


def check(
    facts: VehicleFacts, on: date, rule_id: str, service: ServiceType = MT, holder: str | None = HOLDER
) -> Verdict:
    (found,) = [v for v in check_vehicle(facts, service, on, LawSettings(), holder) if v.rule_id == rule_id]
    return found


def cargo(vehicle: VehicleFacts) -> VehicleFacts:
    return replace(vehicle, colour="PRETA", authorised_for="cargo", insurance_valid_until=None)


def test_a_complete_vehicle_meets_everything(vehicle: VehicleFacts, on: date, settings: LawSettings) -> None:
    verdicts = check_vehicle(vehicle, MT, on, settings, HOLDER)
    assert all(v.ok for v in verdicts), [v.message for v in verdicts if not v.ok]
    assert verdicts[-1].rule_id == "art19_1_insurance"
    for service in (MB, MF):
        others = check_vehicle(cargo(vehicle), service, on, settings, HOLDER)
        assert all(v.ok for v in others), [v.message for v in others if not v.ok]
        assert "art19_1_insurance" not in [v.rule_id for v in others]


# --- Art. 3º, I: engine ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cc", "status", "message"),
    [
        (124, Status.NOT_MET, "Art. 3º, I: o motor tem 124 cc; o permitido é de 125 cc a 250 cc."),
        (125, Status.MET, "Art. 3º, I: o motor tem 125 cc, entre 125 cc e 250 cc."),
        (250, Status.MET, "Art. 3º, I: o motor tem 250 cc, entre 125 cc e 250 cc."),
        (251, Status.NOT_MET, "Art. 3º, I: o motor tem 251 cc; o permitido é de 125 cc a 250 cc."),
        (-150, Status.NOT_MET, "Art. 3º, I: dado impossível — a cilindrada informada (-150 cc) não existe."),
        (0, Status.NOT_MET, "Art. 3º, I: dado impossível — a cilindrada informada (0 cc) não existe."),
        (None, Status.PENDING, "Art. 3º, I: pendente — falta a cilindrada."),
    ],
)
def test_art3_i_engine(vehicle: VehicleFacts, on: date, cc: int | None, status: Status, message: str) -> None:
    verdict = check(replace(vehicle, engine_cc=cc), on, "art3_i_engine")
    assert (verdict.status, verdict.message) == (status, message)


# --- Art. 3º, II: useful life ---------------------------------------------------------------------


def test_useful_life_ends_on_31_december_of_the_fifth_year() -> None:
    assert vehicle_useful_life_end(2021) == date(2026, 12, 31)


@pytest.mark.parametrize(
    ("on", "status", "message"),
    [
        (date(2026, 12, 31), Status.MET, "Art. 3º, II: fabricado em 2021, vida útil até 31/12/2026."),
        (
            date(2027, 1, 1),
            Status.NOT_MET,
            "Art. 3º, II: fabricado em 2021, a vida útil de 5 anos terminou em 31/12/2026.",
        ),
    ],
)
def test_art3_ii_last_day_of_the_fifth_year_and_the_day_after(
    vehicle: VehicleFacts, on: date, status: Status, message: str
) -> None:
    facts = replace(vehicle, year_manufacture=2021, year_model=2022, crlv_year=on.year)
    verdict = check(facts, on, "art3_ii_useful_life")
    assert (verdict.status, verdict.message) == (status, message)


@pytest.mark.parametrize(("made", "model"), [(2027, None), (1850, None), (2024, 2023), (2024, 2026)])
def test_art3_ii_impossible_years(vehicle: VehicleFacts, on: date, made: int, model: int | None) -> None:
    """Refused as impossible data; which year each names: tests/rules/test_wording.py."""
    verdict = check(replace(vehicle, year_manufacture=made, year_model=model), on, "art3_ii_useful_life")
    assert verdict.status is Status.NOT_MET and verdict.missing == ()


def test_art3_ii_a_vehicle_made_this_year(vehicle: VehicleFacts, on: date) -> None:
    facts = replace(vehicle, year_manufacture=2026, year_model=2027)
    assert check(facts, on, "art3_ii_useful_life").status is Status.MET


# --- Art. 3º parágrafo único / Art. 5º § 1º V: rental category -----------------------------------


@pytest.mark.parametrize(
    ("category", "status"),
    [
        ("ALUGUEL", Status.MET),
        ("aluguel ", Status.MET),
        ("PARTICULAR", Status.NOT_MET),
        (None, Status.PENDING),
    ],
)
def test_rental_category(vehicle: VehicleFacts, on: date, category: str | None, status: Status) -> None:
    assert check(replace(vehicle, category=category), on, "art3_rental_category").status is status


# --- Art. 5º § 1º I: CRLV -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("crlv_year", "on", "current"),
    [
        (2026, date(2026, 3, 10), True),
        (2025, date(2026, 3, 31), True),  # previous year's CRLV runs to the end of March (setting)
        (2025, date(2026, 4, 1), False),
        (2024, date(2026, 1, 2), False),
    ],
)
def test_crlv_is_current(crlv_year: int, on: date, current: bool, settings: LawSettings) -> None:
    assert crlv_is_current(crlv_year, on, settings) is current


@pytest.mark.parametrize(
    ("changes", "status", "fragment"),
    [
        ({"crlv_municipality": "Patrocínio"}, Status.MET, "registrado em Patrocínio-MG"),
        ({"crlv_municipality": "Uberlândia"}, Status.NOT_MET, "registrado no município de Uberlândia"),
        ({"crlv_uf": "SP"}, Status.NOT_MET, "registrado na UF SP"),
        ({"crlv_year": 2024}, Status.NOT_MET, "o CRLV é do exercício 2024; não está atualizado para 2026"),
        ({"crlv_year": 2027}, Status.NOT_MET, "dado impossível"),
        ({"crlv_year": 2022, "year_manufacture": 2023}, Status.NOT_MET, "dado impossível"),
        ({"crlv_uf": None}, Status.PENDING, "falta a UF do CRLV"),
    ],
)
def test_art5_1_i_crlv(
    vehicle: VehicleFacts, on: date, changes: dict[str, Any], status: Status, fragment: str
) -> None:
    verdict = check(replace(vehicle, **changes), on, "art5_1_i_crlv")
    assert verdict.status is status
    assert fragment in verdict.message


# --- Art. 5º § 5º: in the holder's name -----------------------------------------------------------


@pytest.mark.parametrize(
    ("owner", "holder", "status"),
    [
        ("529.982.247-25", HOLDER, Status.MET),
        ("78939909291", HOLDER, Status.NOT_MET),
        ("52998224726", HOLDER, Status.NOT_MET),
        (HOLDER, None, Status.PENDING),
        (None, HOLDER, Status.PENDING),
    ],
)
def test_art5_5_documents_in_the_holders_name(
    vehicle: VehicleFacts, on: date, owner: str | None, holder: str | None, status: Status
) -> None:
    verdict = check(replace(vehicle, owner_cpf=owner), on, "art5_5_holder_name", holder=holder)
    assert verdict.status is status


# --- Art. 5º § 1º IV: colour ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("service", "colour", "status"),
    [
        (MT, "AMARELA", Status.MET),
        (MT, "Amarelo", Status.MET),
        (MT, "PRETA", Status.NOT_MET),
        (MB, "PRETA", Status.MET),
        (MF, "preto", Status.MET),
        (MF, "AMARELA", Status.NOT_MET),
        (MB, None, Status.PENDING),
    ],
)
def test_art5_1_iv_colour(
    vehicle: VehicleFacts, on: date, service: ServiceType, colour: str | None, status: Status
) -> None:
    assert check(replace(vehicle, colour=colour), on, "art5_1_iv_colour", service).status is status


def test_art5_1_iv_colour_message(vehicle: VehicleFacts, on: date) -> None:
    verdict = check(replace(vehicle, colour="PRETA"), on, "art5_1_iv_colour")
    assert verdict.status is Status.NOT_MET  # its sentence: tests/rules/test_wording.py
    names_in(verdict.message, "“PRETA”", "Mototáxi", "Y 198")  # the colour found and the one required


# --- Art. 5º § 8º: passengers or cargo, never both ------------------------------------------------


@pytest.mark.parametrize(
    ("service", "use", "status"),
    [
        (MT, "passengers", Status.MET),
        (MT, "cargo", Status.NOT_MET),
        (MT, "both", Status.NOT_MET),
        (MB, "cargo", Status.MET),
        (MF, "both", Status.NOT_MET),
        (MF, "passengers", Status.NOT_MET),
        (MF, "everything", Status.NOT_MET),
        (MF, None, Status.PENDING),
    ],
)
def test_art5_8_passengers_or_cargo(
    vehicle: VehicleFacts, on: date, service: ServiceType, use: str | None, status: Status
) -> None:
    assert check(replace(vehicle, authorised_for=use), on, "art5_8_passenger_cargo", service).status is status


def test_art5_8_both_is_refused_with_the_reason(vehicle: VehicleFacts, on: date) -> None:
    verdict = check(replace(vehicle, authorised_for="both"), on, "art5_8_passenger_cargo")
    assert verdict.status is Status.NOT_MET and verdict.article == "Art. 5º, § 8º"  # sentence: test_wording.py


# --- Art. 19 § 1º: mototáxi passenger insurance ---------------------------------------------------


@pytest.mark.parametrize(
    ("until", "status"),
    [(date(2026, 3, 10), Status.MET), (date(2026, 3, 9), Status.NOT_MET), (None, Status.PENDING)],
)
def test_art19_1_passenger_insurance(
    vehicle: VehicleFacts, on: date, until: date | None, status: Status
) -> None:
    assert check(replace(vehicle, insurance_valid_until=until), on, "art19_1_insurance").status is status


# --- Identification and robustness ----------------------------------------------------------------


def test_identification(vehicle: VehicleFacts, on: date) -> None:
    names_in(check(vehicle, on, "vehicle_identification").message,  # the plate written the Mercosul way
             "HMG4B83", "89038149178", "9C2KC2200LR012345")
    bad = check(replace(vehicle, vin="9C2KC2200LR0123I5", plate=None), on, "vehicle_identification")
    assert bad.status is Status.NOT_MET
    assert bad.missing == ("plate",)


@given(
    facts=st.builds(
        VehicleFacts,
        **{
            f.name: (
                st.none() | st.integers(-10_000, 10_000)
                if f.name in ("year_manufacture", "year_model", "engine_cc", "crlv_year")
                else st.none() | st.dates()
                if f.name in ("insurance_valid_until", "mandatory_insurance_valid_until")
                else st.none() | st.text(max_size=20)
            )
            for f in dataclasses.fields(VehicleFacts)
        },
    ),
    on=st.dates(date(2000, 1, 1), date(2100, 12, 31)),
    service=st.sampled_from(ServiceType),
    holder=st.none() | st.text(max_size=14),
)
def test_never_crashes_on_any_data(
    facts: VehicleFacts, on: date, service: ServiceType, holder: str | None
) -> None:
    for v in check_vehicle(facts, service, on, LawSettings(), holder):
        assert v.message.startswith(v.article)
        assert (v.status is Status.PENDING) <= bool(v.missing)
