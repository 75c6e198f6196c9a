"""The inspection (vistoria) checklist per service, and when the next inspection falls due.

Built from the equipment the law requires of the vehicle and of the rider:

* every service: condition (Art. 3º, II; Art. 13, V), rental plate (Art. 5º,
  § 1º, V), colour and tank sign (Art. 5º, § 1º, IV), antenna and leg guard
  (Art. 5º, § 7º), vest and helmet with retroreflective devices (Art. 5º, IV),
  helmet with the plate and a visor or goggles (Art. 13, VIII), helmet colours
  (Art. 13, IX–X), identification matching the CRLV (Art. 5º, § 1º, II);
* mototáxi: Art. 19 I–V (handles, insulated exhaust, footrests, rain cape,
  mirrors), the passenger's helmet (Art. 13, VIII) and the copy of the
  passenger insurance policy (Art. 19, § 2º);
* motoboy: the bag or INMETRO-certified compartment (Art. 22, § 1º);
* moto-frete: the cargo device and its limits (Art. 23, § 1º), mirrors not
  obstructed (§ 2º), no sound advertising (§ 6º), retroreflective strips on
  sidecar and semi-trailer (§ 4º) and never both together (§ 5º).

Each item is answered OK, NOT_OK or NOT_APPLICABLE.  Only items that depend on
optional equipment (the sidecar of Art. 23 § 4º–§ 5º) admit NOT_APPLICABLE;
for the others the law requires the equipment of every vehicle, so "not
applicable" counts as not OK.  An inspection with unanswered items cannot
conclude; a concluded one is approved when no item is pending.

Next inspection (:func:`next_inspection_due`): moto-frete yearly (Art. 23);
mototáxi and motoboy when the secretariat schedules periodic inspections
(Art. 5º, § 6º, "semestrais … quando lhe aprouver": setting
``periodic_inspection_months``); a failed vehicle is inspected again within
``reinspection_days``.  A vehicle repaired after an accident that compromised
its safety must be inspected again (Art. 31, Grupo 4, I) — that inspection is
opened by the service recording the accident.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from enum import StrEnum

from motodesk.rules.common import ServiceType
from motodesk.rules.periods import add_days, add_months, add_years
from motodesk.rules.settings import LawSettings


class InspectionKind(StrEnum):
    REGULAR = "regular"
    SEMESTRAL = "semestral"
    ANNUAL = "annual"
    REINSPECTION = "reinspection"
    ACCIDENT = "accident"

    @property
    def label(self) -> str:
        return {
            "regular": "Vistoria",
            "semestral": "Vistoria semestral (Art. 5º, § 6º)",
            "annual": "Inspeção anual (Art. 23)",
            "reinspection": "Nova vistoria dos itens pendentes",
            "accident": "Vistoria após acidente (Art. 31, Grupo 4, I)",
        }[self.value]


class InspectionStatus(StrEnum):
    SCHEDULED = "scheduled"
    DRAFT = "draft"
    APPROVED = "approved"
    FAILED = "failed"
    SUPERSEDED = "superseded"
    CANCELLED = "cancelled"

    @property
    def label(self) -> str:
        return {
            "scheduled": "Agendada",
            "draft": "Em preenchimento",
            "approved": "Aprovada",
            "failed": "Reprovada",
            "superseded": "Substituída",
            "cancelled": "Cancelada",
        }[self.value]

    @property
    def open(self) -> bool:
        return self in (InspectionStatus.SCHEDULED, InspectionStatus.DRAFT)

    @property
    def concluded(self) -> bool:
        return self in (InspectionStatus.APPROVED, InspectionStatus.FAILED, InspectionStatus.SUPERSEDED)


#: Art. 23: moto-frete "inspeção anual".
MOTOFRETE_INSPECTION_YEARS = 1


@dataclass(frozen=True)
class ChecklistItem:
    """One thing the inspector looks at, with the article that requires it."""

    code: str
    article: str
    text: str
    allows_not_applicable: bool = False


class ItemResult(StrEnum):
    OK = "ok"
    NOT_OK = "not_ok"
    NOT_APPLICABLE = "not_applicable"

    @property
    def label(self) -> str:
        return {"ok": "Conforme", "not_ok": "Não conforme", "not_applicable": "Não se aplica"}[self.value]


_COMMON: tuple[ChecklistItem, ...] = (
    ChecklistItem(
        "A5-1-II-IDENT",
        "Art. 5º, § 1º, II",
        "Placa, chassi e motor conferem com o CRLV",
    ),
    ChecklistItem(
        "A3-II-CONDITION",
        "Art. 3º, II; Art. 13, V",
        "Veículo em perfeito estado de conservação e funcionamento, com todos os equipamentos operando",
    ),
    ChecklistItem(
        "A5-1-V-PLATE", "Art. 5º, § 1º, V", "Placa de aluguel conforme o Código de Trânsito Brasileiro"
    ),
    ChecklistItem("A5-7-ANTENNA", "Art. 5º, § 7º", "Aparador de linha (antena corta-pipas) fixado no guidom"),
    ChecklistItem(
        "A5-7-GUARD",
        "Art. 5º, § 7º",
        "Protetor de motor e pernas (mata-cachorro) fixado na estrutura do veículo",
    ),
    ChecklistItem("A5-IV-VEST", "Art. 5º, IV", "Colete de segurança com dispositivos retrorrefletivos"),
    ChecklistItem("A5-IV-HELMET", "Art. 5º, IV", "Capacete com dispositivos retrorrefletivos"),
    ChecklistItem(
        "A13-VIII-PLATE",
        "Art. 13, VIII",
        "Capacete do condutor com a identificação da placa do veículo",
    ),
    ChecklistItem("A13-VIII-VISOR", "Art. 13, VIII", "Capacete dotado de viseira ou óculos de proteção"),
)

_MOTOTAXI: tuple[ChecklistItem, ...] = (
    ChecklistItem("A5-1-IV-COLOUR-MT", "Art. 5º, § 1º, IV", "Veículo na cor amarela topázio Y 198"),
    ChecklistItem(
        "A5-1-IV-SIGN-MT",
        "Art. 5º, § 1º, IV",
        "Dístico “MOTOTÁXI” no tanque de combustível, na cor preta",
    ),
    ChecklistItem(
        "A13-IX-HELMETS",
        "Art. 13, IX",
        "Capacetes na cor amarela, com a placa do veículo e dísticos na cor preta",
    ),
    ChecklistItem(
        "A13-VIII-PASSENGER",
        "Art. 13, VIII",
        "Capacete para o passageiro, com a identificação da placa e viseira ou óculos de proteção",
    ),
    ChecklistItem(
        "A19-I-HANDLES",
        "Art. 19, I",
        "Alças metálicas, traseira e lateral, de apoio e segurança do passageiro",
    ),
    ChecklistItem(
        "A19-II-EXHAUST", "Art. 19, II", "Cano de escapamento revestido por material isolante térmico"
    ),
    ChecklistItem("A19-III-FOOTREST", "Art. 19, III", "Suporte para os pés do passageiro"),
    ChecklistItem("A19-IV-RAINCAPE", "Art. 19, IV", "Capa de chuva"),
    ChecklistItem("A19-V-MIRRORS", "Art. 19, V", "Espelho retrovisor de ambos os lados"),
    ChecklistItem(
        "A19-2-POLICY",
        "Art. 19, §§ 1º e 2º",
        "Cópia da apólice de seguro de acidentes dos passageiros entregue e em vigor",
    ),
)


def _black_with_yellow_signs(code: str, sign: str) -> tuple[ChecklistItem, ...]:
    """Art. 5º, § 1º, IV and Art. 13, X: the motoboy's and the moto-frete's vehicle is black, its
    sign and the helmet's yellow; ``code`` ends the items' codes, ``sign`` is the word on the tank."""
    return (
        ChecklistItem(f"A5-1-IV-COLOUR-{code}", "Art. 5º, § 1º, IV", "Veículo na cor preta"),
        ChecklistItem(
            f"A5-1-IV-SIGN-{code}",
            "Art. 5º, § 1º, IV",
            f"Dístico “{sign}” no tanque de combustível, na cor amarela topázio Y 198",
        ),
        ChecklistItem(
            "A13-X-HELMETS",
            "Art. 13, X",
            "Capacete na cor preta, com a placa do veículo e dísticos na cor amarela",
        ),
    )


_MOTOBOY: tuple[ChecklistItem, ...] = (
    *_black_with_yellow_signs("MB", "MOTOBOY"),
    ChecklistItem(
        "A22-1-CONTAINER",
        "Art. 22, § 1º",
        "Mochila, bolsa ou compartimento certificado pelo INMETRO, com volume e massa compatíveis "
        "com o veículo",
    ),
)

_MOTOFRETE: tuple[ChecklistItem, ...] = (
    *_black_with_yellow_signs("MF", "MOTO-FRETE"),
    ChecklistItem(
        "A23-1-DEVICE",
        "Art. 23, caput e § 1º",
        "Dispositivo de carga (baú, grelha, alforjes, bolsas ou caixas laterais) dentro das dimensões do "
        "CONTRAN e do peso máximo do fabricante",
    ),
    ChecklistItem(
        "A23-2-MIRRORS",
        "Art. 23, § 2º",
        "Dispositivo de transporte e carga não comprometem a eficiência dos espelhos retrovisores",
    ),
    ChecklistItem(
        "A23-4-STRIPS",
        "Art. 23, § 4º",
        "Sidecar e semirreboque com faixas retrorrefletivas",
        allows_not_applicable=True,
    ),
    ChecklistItem(
        "A23-5-NOT-BOTH",
        "Art. 23, § 5º",
        "Sidecar e semirreboque não usados simultaneamente",
        allows_not_applicable=True,
    ),
    ChecklistItem(
        "A23-6-NO-SOUND",
        "Art. 23, § 6º",
        "Sem equipamento de propaganda por serviço de som",
    ),
)

_BY_SERVICE: dict[ServiceType, tuple[ChecklistItem, ...]] = {
    ServiceType.MOTOTAXI: _MOTOTAXI,
    ServiceType.MOTOBOY: _MOTOBOY,
    ServiceType.MOTOFRETE: _MOTOFRETE,
}


def checklist_for(service: ServiceType) -> list[ChecklistItem]:
    """The items of the inspection of a vehicle of ``service``: common items, then the service's."""
    return [*_COMMON, *_BY_SERVICE[service]]


@dataclass(frozen=True)
class ChecklistOutcome:
    """Whether the inspection can conclude (``complete``) and whether it approves the vehicle."""

    complete: bool
    approved: bool
    pending: list[ChecklistItem]  # answered NOT_OK, or NOT_APPLICABLE where the law admits no exception
    unanswered: list[ChecklistItem]


def evaluate_checklist(
    items: Sequence[ChecklistItem], results: Mapping[str, ItemResult | None]
) -> ChecklistOutcome:
    """Conclude an inspection from the inspector's answers, keyed by item code.

    Unanswered items (absent or None) make the inspection incomplete: it
    cannot conclude, and is not approved.  Answers for codes not in ``items``
    are ignored.
    """
    pending: list[ChecklistItem] = []
    unanswered: list[ChecklistItem] = []
    for item in items:
        result = results.get(item.code)
        if result is None:
            unanswered.append(item)
        elif result is ItemResult.NOT_OK or (
            result is ItemResult.NOT_APPLICABLE and not item.allows_not_applicable
        ):
            pending.append(item)
    complete = not unanswered
    return ChecklistOutcome(
        complete=complete, approved=complete and not pending, pending=pending, unanswered=unanswered
    )


def next_inspection_due(
    service: ServiceType, performed_on: date, approved: bool, settings: LawSettings
) -> date | None:
    """When the vehicle must next be inspected, or None when only a summons will say.

    * failed → re-inspection within ``settings.reinspection_days``;
    * moto-frete → one year later (Art. 23), or sooner if periodic
      inspections are scheduled (Art. 5º, § 6º);
    * mototáxi and motoboy → after ``settings.periodic_inspection_months``
      when set (Art. 5º, § 6º), otherwise None.
    """
    if not approved:
        return add_days(performed_on, settings.reinspection_days, settings)
    candidates: list[date] = []
    if service is ServiceType.MOTOFRETE:
        candidates.append(add_years(performed_on, MOTOFRETE_INSPECTION_YEARS))
    if settings.periodic_inspection_months:
        candidates.append(add_months(performed_on, settings.periodic_inspection_months))
    return min(candidates) if candidates else None
