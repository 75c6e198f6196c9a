"""The motorcycle: Art. 3º, Art. 5º § 1º (I, IV, V), § 5º, § 8º and Art. 19 § 1º.

:func:`check_vehicle` returns one verdict per requirement of the vehicle's
documents.  What can only be seen on the vehicle itself (condition, antenna,
leg guard, handles, tank sign, helmets…) is the inspection checklist's
(:mod:`motodesk.rules.checklist`).

==========================  ===============================================================
rule_id                     requirement
==========================  ===============================================================
``vehicle_identification``  valid plate, RENAVAM and chassis (VIN) on the CRLV
``art3_i_engine``           engine from 125 cc to 250 cc, both inclusive (Art. 3º, I)
``art3_ii_useful_life``     at most 5 years of useful life (Art. 3º, II)
``art3_rental_category``    registered in the rental category, rental plate (Art. 3º, p. ún.; Art. 5º, § 1º, V)
``art5_1_i_crlv``           CRLV of the current year, registered in Patrocínio (Art. 5º, § 1º, I)
``art5_1_i_insurance``      mandatory insurance (DPVAT/SPVAT) in force, in the holder's name (Art. 5º, § 1º, I; § 5º)
``art5_5_holder_name``      CRV/CRLV in the holder's name (Art. 5º, § 5º)
``art5_1_iv_colour``        mototáxi yellow, motoboy and moto-frete black (Art. 5º, § 1º, IV)
``art5_8_passenger_cargo``  authorised for passengers or for cargo, never both (Art. 5º, § 8º)
``art19_1_insurance``       mototáxi: passenger insurance policy in force (Art. 19, § 1º–§ 2º)
==========================  ===============================================================

**Useful life (Art. 3º, II).**  The law says "ter no máximo 05 (cinco) anos de
vida útil" without saying from when.  The CRLV shows only the *year* of
manufacture, not the day, so the age of a vehicle is counted in calendar
years: ``age = reference year − year of manufacture``, and the vehicle may
operate while its age is at most 5, that is, **until 31 December of the year
of manufacture + 5** (:func:`vehicle_useful_life_end`).  A motorcycle made in
2021 serves until 31/12/2026 and is out of service on 01/01/2027.  This is the
reading most favourable to the holder that the documents allow (any
manufacturing day of 2021 would give an earlier end), and it is the one
municipal transport laws commonly write out ("idade do veículo = ano em curso
menos ano de fabricação").  The model year is not used (it may be the year
after manufacture), except to flag an impossible pair.

**Engine (Art. 3º, I).**  "mínima de 125 cc; máxima de 250 cc": both limits
are allowed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from motodesk.rules.common import ServiceType, Status, Verdict
from motodesk.rules.evidence import Findings, as_clause
from motodesk.rules.settings import LawSettings
from motodesk.rules.text import fold, format_date, join_words
from motodesk.rules.validators import validate_cpf, validate_plate, validate_renavam, validate_vin

#: Art. 3º, I, a: "mínima de 125 cc".
MIN_ENGINE_CC = 125
#: Art. 3º, I, b: "máxima de 250 cc".
MAX_ENGINE_CC = 250
#: Art. 3º, II: "no máximo 05 (cinco) anos de vida útil".
USEFUL_LIFE_YEARS = 5
#: The first motorcycles registered in Brazil are far later than this; earlier years are typing errors.
EARLIEST_PLAUSIBLE_YEAR = 1900

#: Art. 5º, § 1º, IV: colour of the vehicle per service.
REQUIRED_COLOUR: dict[ServiceType, str] = {
    ServiceType.MOTOTAXI: "amarela topázio Y 198",
    ServiceType.MOTOBOY: "preta",
    ServiceType.MOTOFRETE: "preta",
}
_COLOUR_STEMS: dict[ServiceType, tuple[str, ...]] = {
    ServiceType.MOTOTAXI: ("amarel",),
    ServiceType.MOTOBOY: ("pret",),
    ServiceType.MOTOFRETE: ("pret",),
}

#: Art. 5º, § 8º and Art. 22 § 2º / Art. 23 § 6º: what each service carries.
REQUIRED_USE: dict[ServiceType, str] = {
    ServiceType.MOTOTAXI: "passengers",
    ServiceType.MOTOBOY: "cargo",
    ServiceType.MOTOFRETE: "cargo",
}
USE_LABELS: dict[str, str] = {"passengers": "passageiros", "cargo": "carga", "both": "passageiros e carga"}


@dataclass
class VehicleFacts:
    """What the CRV/CRLV and the insurance policy say about the motorcycle.  ``None`` = not provided."""

    plate: str | None = None
    renavam: str | None = None
    vin: str | None = None
    year_manufacture: int | None = None
    year_model: int | None = None
    engine_cc: int | None = None
    colour: str | None = None  # as on the CRLV: "AMARELA", "PRETA"
    category: str | None = None  # as on the CRLV: "ALUGUEL", "PARTICULAR"…
    crlv_year: int | None = None  # exercício of the CRLV
    crlv_municipality: str | None = None
    crlv_uf: str | None = None
    owner_cpf: str | None = None
    owner_name: str | None = None
    # Art. 19, § 1º: mototáxi passenger accident insurance policy.
    insurance_valid_until: date | None = None
    insurance_policy_number: str | None = None
    # Art. 5º, § 8º: "passengers", "cargo", or "both" (which the law forbids).
    authorised_for: str | None = None
    # Art. 5º, § 1º, I and § 5º: the seguro obrigatório (DPVAT/SPVAT), in force and in the holder's name.
    mandatory_insurance_valid_until: date | None = None
    mandatory_insurance_number: str | None = None
    mandatory_insurance_insured_cpf: str | None = None
    mandatory_insurance_insured_name: str | None = None


#: pt_BR names of the fields of :class:`VehicleFacts`, as listed in ``Verdict.missing``.
FIELD_LABELS: dict[str, str] = {
    "plate": "a placa",
    "renavam": "o RENAVAM",
    "vin": "o chassi",
    "year_manufacture": "o ano de fabricação",
    "year_model": "o ano do modelo",
    "engine_cc": "a cilindrada",
    "colour": "a cor",
    "category": "a categoria do CRLV",
    "crlv_year": "o exercício do CRLV",
    "crlv_municipality": "o município do CRLV",
    "crlv_uf": "a UF do CRLV",
    "owner_cpf": "o CPF do proprietário",
    "owner_name": "o nome do proprietário",
    "insurance_valid_until": "a validade do seguro de passageiros",
    "insurance_policy_number": "o número da apólice de seguro",
    "authorised_for": "a finalidade autorizada (passageiros ou carga)",
    "holder_cpf": "o CPF do titular",
    "mandatory_insurance_valid_until": "a validade do seguro obrigatório (DPVAT/SPVAT)",
    "mandatory_insurance_number": "o número do seguro obrigatório",
    "mandatory_insurance_insured_cpf": "o CPF do segurado do seguro obrigatório",
    "mandatory_insurance_insured_name": "o nome do segurado do seguro obrigatório",
}


def vehicle_useful_life_end(year_manufacture: int) -> date:
    """Last day a vehicle made in ``year_manufacture`` may serve: 31/12 of that year + 5 (Art. 3º, II)."""
    return date(year_manufacture + USEFUL_LIFE_YEARS, 12, 31)


def check_vehicle(
    facts: VehicleFacts,
    service: ServiceType,
    on: date,
    settings: LawSettings,
    holder_cpf: str | None,
) -> list[Verdict]:
    """Every documentary requirement of the vehicle for ``service``, checked on ``on``.

    ``holder_cpf`` is the CPF of the holder (or applicant) the vehicle must
    belong to (Art. 5º, § 5º).  Never raises: missing evidence is PENDING,
    impossible data NOT_MET with the reason.
    """
    verdicts = [
        _identification(facts),
        _engine(facts),
        _useful_life(facts, on),
        _rental_category(facts),
        _crlv(facts, on, settings),
        mandatory_insurance_verdict(facts, on, holder_cpf),
        _holder_name(facts, holder_cpf),
        _colour(facts, service),
        _passengers_or_cargo(facts, service),
    ]
    if service is ServiceType.MOTOTAXI:
        verdicts.append(_passenger_insurance(facts, on))
    return verdicts


def _identification(facts: VehicleFacts) -> Verdict:
    found = Findings("vehicle_identification", "Art. 5º, § 1º, I", FIELD_LABELS)
    said: list[str] = []
    for name, validate, label in (
        ("plate", validate_plate, "placa"),
        ("renavam", validate_renavam, "RENAVAM"),
        ("vin", validate_vin, "chassi"),
    ):
        raw = getattr(facts, name)
        if raw is None or not raw.strip():
            found.need(name)
            continue
        result = validate(raw)
        if result.ok:
            said.append(f"{label} {result.value}")
        else:
            found.fail(as_clause(result.message or f"{label} inválido"))
    return found.verdict(", ".join(said))


def _engine(facts: VehicleFacts) -> Verdict:
    found = Findings("art3_i_engine", "Art. 3º, I", FIELD_LABELS)
    cc = facts.engine_cc
    if cc is None:
        found.need("engine_cc")
    elif cc <= 0:
        found.impossible_data(f"a cilindrada informada ({cc} cc) não existe")
    elif not MIN_ENGINE_CC <= cc <= MAX_ENGINE_CC:
        found.fail(f"o motor tem {cc} cc; o permitido é de {MIN_ENGINE_CC} cc a {MAX_ENGINE_CC} cc")
    if not found.clear:
        return found.verdict()
    return found.verdict(f"o motor tem {cc} cc, entre {MIN_ENGINE_CC} cc e {MAX_ENGINE_CC} cc")


def _useful_life(facts: VehicleFacts, on: date) -> Verdict:
    found = Findings("art3_ii_useful_life", "Art. 3º, II", FIELD_LABELS)
    made = facts.year_manufacture
    if made is None:
        found.need("year_manufacture")
        return found.verdict()
    if made > on.year:
        found.impossible_data(f"o ano de fabricação ({made}) é posterior ao ano de referência ({on.year})")
    elif made < EARLIEST_PLAUSIBLE_YEAR:
        found.impossible_data(f"o ano de fabricação ({made}) não é plausível")
    model = facts.year_model
    if model is not None and not made <= model <= made + 1:
        found.impossible_data(f"o ano do modelo ({model}) deve ser o de fabricação ({made}) ou o seguinte")
    if found.impossible:
        return found.verdict()
    end = vehicle_useful_life_end(made)
    if on > end:
        found.fail(
            f"fabricado em {made}, a vida útil de {USEFUL_LIFE_YEARS} anos terminou em {format_date(end)}"
        )
    return found.verdict(f"fabricado em {made}, vida útil até {format_date(end)}")


def _rental_category(facts: VehicleFacts) -> Verdict:
    found = Findings("art3_rental_category", "Art. 3º, parágrafo único; Art. 5º, § 1º, V", FIELD_LABELS)
    if facts.category is None or not facts.category.strip():
        found.need("category")
    elif fold(facts.category).strip() != "aluguel":
        found.fail(
            f"o veículo está registrado na categoria “{facts.category}”; é exigida a categoria aluguel"
        )
    return found.verdict("registrado na categoria aluguel, com placa de aluguel")


def crlv_is_current(crlv_year: int, on: date, settings: LawSettings) -> bool:
    """CRLV "atualizado" (Art. 5º, § 1º, I): of the current year, or of the previous one early in the year.

    DETRAN-MG's licensing calendar lets the previous year's CRLV run into the
    first months of the year; how far is the setting
    ``crlv_previous_year_accepted_until_month``.
    """
    if crlv_year >= on.year:
        return True
    return crlv_year == on.year - 1 and on.month <= settings.crlv_previous_year_accepted_until_month


def _crlv(facts: VehicleFacts, on: date, settings: LawSettings) -> Verdict:
    found = Findings("art5_1_i_crlv", "Art. 5º, § 1º, I", FIELD_LABELS)
    year = facts.crlv_year
    if year is None:
        found.need("crlv_year")
    elif year > on.year:
        found.impossible_data(f"o exercício do CRLV ({year}) é posterior ao ano de referência ({on.year})")
    elif facts.year_manufacture is not None and year < facts.year_manufacture:
        found.impossible_data(
            f"o exercício do CRLV ({year}) é anterior ao ano de fabricação ({facts.year_manufacture})"
        )
    elif not crlv_is_current(year, on, settings):
        found.fail(f"o CRLV é do exercício {year}; não está atualizado para {on.year}")

    place: list[str] = []
    if facts.crlv_municipality is None or not facts.crlv_municipality.strip():
        found.need("crlv_municipality")
    elif fold(facts.crlv_municipality).strip() != fold(settings.municipality):
        place.append(f"no município de {facts.crlv_municipality.strip()}")
    if facts.crlv_uf is None or not facts.crlv_uf.strip():
        found.need("crlv_uf")
    elif facts.crlv_uf.strip().upper() != settings.uf.upper():
        place.append(f"na UF {facts.crlv_uf.strip().upper()}")
    if place:
        found.fail(
            f"o veículo está registrado {join_words(place)}; deve estar registrado em "
            f"{settings.municipality}-{settings.uf}"
        )
    if not found.clear:
        return found.verdict()
    return found.verdict(f"CRLV do exercício {year}, registrado em {settings.municipality}-{settings.uf}")


ART_MANDATORY_INSURANCE = "Art. 5º, § 1º, I; Art. 5º, § 5º"


def mandatory_insurance_verdict(facts: VehicleFacts, on: date, holder_cpf: str | None) -> Verdict:
    """The seguro obrigatório (DPVAT/SPVAT): in force on ``on`` and in the holder's name.

    Art. 5º, § 1º, I asks for the CRLV "com o seguro obrigatório"; § 5º wants "o DPVAT em nome do
    permissionário".  Like the CRLV (:func:`_holder_name`), the holder is matched by CPF; the policy
    runs to the end of its last day.
    """
    found = Findings("art5_1_i_insurance", ART_MANDATORY_INSURANCE, FIELD_LABELS)
    until = facts.mandatory_insurance_valid_until
    found.in_force("mandatory_insurance_valid_until", "o seguro obrigatório (DPVAT/SPVAT)", until, on)
    insured = facts.mandatory_insurance_insured_cpf
    if insured is None or not insured.strip():
        found.need("mandatory_insurance_insured_cpf")
    elif holder_cpf is None or not holder_cpf.strip():
        found.need("holder_cpf")
    else:
        insured_cpf = validate_cpf(insured)
        holder = validate_cpf(holder_cpf)
        if not insured_cpf.ok:
            found.fail(f"CPF do segurado: {as_clause(insured_cpf.message or 'inválido')}")
        elif holder.ok and insured_cpf.value != holder.value:
            found.fail("o seguro obrigatório não está em nome do titular (o CPF do segurado é outro)")
    if not found.clear or until is None:
        return found.verdict()
    return found.verdict(f"seguro obrigatório em nome do titular, válido até {format_date(until)}")


def _holder_name(facts: VehicleFacts, holder_cpf: str | None) -> Verdict:
    found = Findings("art5_5_holder_name", "Art. 5º, § 5º", FIELD_LABELS)
    if holder_cpf is None or not holder_cpf.strip():
        found.need("holder_cpf")
    if facts.owner_cpf is None or not facts.owner_cpf.strip():
        found.need("owner_cpf")
    if not found.clear:
        return found.verdict()
    owner = validate_cpf(facts.owner_cpf)
    holder = validate_cpf(holder_cpf)
    if not owner.ok:
        found.fail(f"CPF do proprietário: {as_clause(owner.message or 'inválido')}")
    elif not holder.ok:
        found.fail(f"CPF do titular: {as_clause(holder.message or 'inválido')}")
    elif owner.value != holder.value:
        found.fail("o CRV/CRLV não está em nome do titular (o CPF do proprietário é outro)")
    return found.verdict("CRV/CRLV em nome do titular")


def _colour(facts: VehicleFacts, service: ServiceType) -> Verdict:
    found = Findings("art5_1_iv_colour", "Art. 5º, § 1º, IV", FIELD_LABELS)
    required = REQUIRED_COLOUR[service]
    if facts.colour is None or not facts.colour.strip():
        found.need("colour")
    elif not fold(facts.colour).startswith(_COLOUR_STEMS[service]):
        found.fail(f"o veículo é da cor “{facts.colour.strip()}”; para {service.label} a cor é {required}")
    return found.verdict(f"cor {required}, como exige o serviço de {service.label}")


def _passengers_or_cargo(facts: VehicleFacts, service: ServiceType) -> Verdict:
    found = Findings("art5_8_passenger_cargo", "Art. 5º, § 8º", FIELD_LABELS)
    use = (facts.authorised_for or "").strip().lower()
    required = REQUIRED_USE[service]
    if not use:
        found.need("authorised_for")
    elif use not in USE_LABELS:
        found.impossible_data(f"finalidade “{facts.authorised_for}” não reconhecida")
    elif use == "both":
        found.fail("o veículo não pode ser autorizado para passageiros e carga ao mesmo tempo")
    elif use != required:
        found.fail(
            f"o veículo está autorizado para {USE_LABELS[use]}; {service.label} exige {USE_LABELS[required]}"
        )
    return found.verdict(f"autorizado somente para {USE_LABELS[required]}")


def _passenger_insurance(facts: VehicleFacts, on: date) -> Verdict:
    found = Findings("art19_1_insurance", "Art. 19, §§ 1º e 2º", FIELD_LABELS)
    until = found.in_force("insurance_valid_until", "o seguro de acidentes dos passageiros",
                           facts.insurance_valid_until, on)
    if until is None:
        return found.verdict()
    return found.verdict(f"seguro de acidentes dos passageiros válido até {format_date(until)}")


def service_missing() -> Verdict:
    """Art. 5º, § 8º: what the vehicle carries follows the service it is registered for; none yet."""
    return Verdict("vehicle_service", "Art. 5º, § 8º", Status.PENDING,
                   "Art. 5º, § 8º: pendente — falta o serviço para o qual o veículo é autorizado.", ("service_type",))
