"""The field checks of the vehicle form, no database: the steps of
:func:`motodesk.services.vehicles.validate_vehicle` (texts squashed and bounded; plate, RENAVAM,
chassis and the owner's and insured's CPF and name normalised; years and engine plausible). Each step
normalises ``values`` in place and records a pt_BR reason by field in ``errors``."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any

from motodesk.rules.text import format_int
from motodesk.rules.validators import validate_cpf, validate_plate, validate_renavam, validate_vin
from motodesk.rules.vehicle import EARLIEST_PLAUSIBLE_YEAR
from motodesk.services.text import clean_name, name_problem

if TYPE_CHECKING:
    from motodesk.services.vehicles import VehicleInput

#: The largest engine of a motorcycle sold in Brazil is under 2,500 cc: above this it is a typing error.
MAX_PLAUSIBLE_CC = 3000

_LIMITS = {"make": 60, "model": 60, "colour": 40, "category": 20, "crlv_municipality": 100,
           "owner_name": 200, "notes": 4000, "insurance_number": 40, "insurance_insured_name": 200}


def _year_error(label: str, year: int, today: date, *, allow_next: bool = False) -> str | None:
    latest = today.year + (1 if allow_next else 0)
    if year < EARLIEST_PLAUSIBLE_YEAR:
        return f"{label} impossível: {year}. Informe o ano com 4 dígitos, como no CRLV."
    if year > latest:
        return f"{label} impossível: {year} é posterior a {latest}."
    return None


def squash_texts(values: dict[str, Any], errors: dict[str, str]) -> None:
    """Every text with its runs of white space squashed (empty → None), and too long a one refused."""
    for key, value in list(values.items()):
        if isinstance(value, str):
            value = " ".join(value.split())
            values[key] = value or None
            limit = _LIMITS.get(key)
            if limit and value and len(value) > limit:
                errors[key] = f"Texto longo demais: no máximo {limit} caracteres (recebidos {len(value)})."


def _check_person(values: dict[str, Any], errors: dict[str, str], cpf_key: str, name_key: str,
                  whose: str) -> None:
    """A person named on the vehicle's papers (owner, insured): the CPF checked, the name cleaned."""
    if values[cpf_key]:
        cpf = validate_cpf(values[cpf_key])
        if cpf.ok:
            values[cpf_key] = cpf.value
        else:
            errors[cpf_key] = f"CPF do {whose}: {cpf.message}"
    if values[name_key]:
        values[name_key] = clean_name(values[name_key])
        if problem := name_problem(values[name_key]):
            errors[name_key] = problem


def check_numbers(data: VehicleInput, values: dict[str, Any], errors: dict[str, str]) -> None:
    """The plate, RENAVAM and chassis, and the owner's and insured's CPF and name, normalised or refused."""
    plate = validate_plate(data.plate)
    if plate.ok:
        values["plate"] = plate.value
    else:
        errors["plate"] = plate.message or "Placa inválida."
        values["plate"] = (data.plate or "").strip().upper()
    for key, validate in (("renavam", validate_renavam), ("vin", validate_vin)):
        if values[key]:
            result = validate(values[key])
            if result.ok:
                values[key] = result.value
            else:
                errors[key] = result.message or "Valor inválido."
    _check_person(values, errors, "owner_cpf", "owner_name", "proprietário")
    _check_person(values, errors, "insurance_insured_cpf", "insurance_insured_name", "segurado")


def check_years_and_engine(data: VehicleInput, today: date, errors: dict[str, str]) -> None:
    """The years of manufacture, model and CRLV (plausible, and in their order) and the engine's cc."""
    made = data.year_manufacture
    if made is not None and (problem := _year_error("Ano de fabricação", made, today)):
        errors["year_manufacture"] = problem
        made = None
    if data.year_model is not None:
        problem = _year_error("Ano do modelo", data.year_model, today, allow_next=True)
        if problem is None and made is not None and not made <= data.year_model <= made + 1:
            problem = (f"O ano do modelo ({data.year_model}) deve ser o de fabricação ({made}) "
                       f"ou o seguinte ({made + 1}).")
        if problem:
            errors["year_model"] = problem
    if data.crlv_year is not None:
        problem = _year_error("Exercício do CRLV", data.crlv_year, today)
        if problem is None and made is not None and data.crlv_year < made:
            problem = f"O exercício do CRLV ({data.crlv_year}) é anterior ao ano de fabricação ({made})."
        if problem:
            errors["crlv_year"] = problem
    cc = data.engine_cc
    if cc is not None:
        if cc <= 0:
            errors["engine_cc"] = f"Cilindrada impossível: {cc} cc. Informe a cilindrada do CRLV, em cc."
        elif cc > MAX_PLAUSIBLE_CC:
            errors["engine_cc"] = (f"Cilindrada impossível para uma motocicleta: {format_int(cc)} cc "
                                   f"(o máximo plausível é {format_int(MAX_PLAUSIBLE_CC)} cc).")
