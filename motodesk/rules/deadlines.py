"""Deadlines the secretariat tracks, each computed from the facts with its article.

``Deadline.due`` is always the **last day** on which the obligation is still
met: a medical certificate due 10/03/2027 is valid on 10/03/2027 and overdue
on 11/03/2027 (:func:`is_overdue`).  How each period is counted is explained
in :mod:`motodesk.rules.periods` (years end on the anniversary, 29 February on
1 March; days exclude the first day; procedural days may be business days).

=============================  ==========================================  =============================
kind                           rule                                        article
=============================  ==========================================  =============================
medical                        issue + ``medical_valid_years``             Art. 5º, VII, § 2º; Art. 30 G1 I
registration_certificate       issue or renewal + 1 year                   Art. 4º, § 1º; Art. 30 G1 II
criminal_certificates          issue + ``criminal_valid_years``            Art. 5º, XI
vehicle_useful_life            31/12 of year of manufacture + 5            Art. 3º, II; Art. 31 G2 IV
inspection                     approved: + ``inspection_valid_months_*``   Art. 5º, § 6º; Art. 23
                               (or the periodic summons, if sooner);
                               failed: + ``reinspection_days``
permit_term                    issue + 5 years (+ 5 if extended)           Art. 6º
cnh                            expiry printed on the CNH                   Art. 5º, II
passenger_insurance            end of the policy                           Art. 19, § 1º
deputy_deregistration          end of the link + 15 days                   Art. 31 G1 I
accident_report                accident + 5 days                           Art. 31 G2 II
defence_period                 notice + ``defence_period_days``            Art. 29, § 3º
appeal_period                  decision + ``appeal_period_days``           Art. 34, parágrafo único
=============================  ==========================================  =============================
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from enum import StrEnum

from motodesk.rules.checklist import next_inspection_due
from motodesk.rules.common import ServiceType
from motodesk.rules.eligibility import criminal_certificates_valid_until, medical_valid_until
from motodesk.rules.lifecycle import permit_term_end, registration_certificate_valid_until
from motodesk.rules.periods import add_calendar_days, add_days, add_months
from motodesk.rules.settings import LawSettings
from motodesk.rules.vehicle import vehicle_useful_life_end

__all__ = [
    "ACCIDENT_REPORT_DAYS",
    "DEPUTY_DEREGISTRATION_DAYS",
    "Deadline",
    "DeadlineKind",
    "accident_report_due",
    "add_days",
    "appeal_due",
    "cnh_due",
    "criminal_certificates_due",
    "days_until_due",
    "defence_due",
    "deputy_deregistration_due",
    "due_within",
    "inspection_due",
    "inspection_valid_until",
    "is_overdue",
    "medical_due",
    "passenger_insurance_due",
    "permit_term_due",
    "registration_certificate_due",
    "vehicle_useful_life_due",
]

#: Art. 31, Grupo 1, I: deregister a deputy "no prazo máximo de 15 (quinze) dias".
DEPUTY_DEREGISTRATION_DAYS = 15
#: Art. 31, Grupo 2, II: report an accident "no prazo de 05 (cinco) dias".
ACCIDENT_REPORT_DAYS = 5


class DeadlineKind(StrEnum):
    MEDICAL = "medical"
    REGISTRATION_CERTIFICATE = "registration_certificate"
    CRIMINAL_CERTIFICATES = "criminal_certificates"
    VEHICLE_USEFUL_LIFE = "vehicle_useful_life"
    INSPECTION = "inspection"
    PERMIT_TERM = "permit_term"
    CNH = "cnh"
    PASSENGER_INSURANCE = "passenger_insurance"
    DEPUTY_DEREGISTRATION = "deputy_deregistration"
    ACCIDENT_REPORT = "accident_report"
    DEFENCE_PERIOD = "defence_period"
    APPEAL_PERIOD = "appeal_period"
    NEW_DOCUMENT = "new_document"  # a document a Decree added: to be brought by its start date

    @property
    def label(self) -> str:
        return _KIND_LABELS[self]

    @property
    def article(self) -> str:
        return _KIND_ARTICLES[self]


_KIND_LABELS: dict[DeadlineKind, str] = {
    DeadlineKind.MEDICAL: "Renovação do atestado médico",
    DeadlineKind.REGISTRATION_CERTIFICATE: "Renovação do certificado de registro cadastral",
    DeadlineKind.CRIMINAL_CERTIFICATES: "Renovação das certidões criminais",
    DeadlineKind.VEHICLE_USEFUL_LIFE: "Fim da vida útil do veículo",
    DeadlineKind.INSPECTION: "Vistoria do veículo",
    DeadlineKind.PERMIT_TERM: "Fim do prazo da permissão/autorização",
    DeadlineKind.CNH: "Validade da CNH",
    DeadlineKind.PASSENGER_INSURANCE: "Validade do seguro de passageiros",
    DeadlineKind.DEPUTY_DEREGISTRATION: "Baixa do preposto",
    DeadlineKind.ACCIDENT_REPORT: "Comunicação de acidente",
    DeadlineKind.DEFENCE_PERIOD: "Prazo de defesa",
    DeadlineKind.APPEAL_PERIOD: "Prazo de recurso",
    DeadlineKind.NEW_DOCUMENT: "Documento novo exigido",
}

_KIND_ARTICLES: dict[DeadlineKind, str] = {
    DeadlineKind.MEDICAL: "Art. 5º, VII e § 2º",
    DeadlineKind.REGISTRATION_CERTIFICATE: "Art. 4º, § 1º",
    DeadlineKind.CRIMINAL_CERTIFICATES: "Art. 5º, XI",
    DeadlineKind.VEHICLE_USEFUL_LIFE: "Art. 3º, II",
    DeadlineKind.INSPECTION: "Art. 5º, § 6º; Art. 23",
    DeadlineKind.PERMIT_TERM: "Art. 6º",
    DeadlineKind.CNH: "Art. 5º, II",
    DeadlineKind.PASSENGER_INSURANCE: "Art. 19, § 1º",
    DeadlineKind.DEPUTY_DEREGISTRATION: "Art. 31, Grupo 1, I",
    DeadlineKind.ACCIDENT_REPORT: "Art. 31, Grupo 2, II",
    DeadlineKind.DEFENCE_PERIOD: "Art. 29, § 3º",
    DeadlineKind.APPEAL_PERIOD: "Art. 34, parágrafo único",
    DeadlineKind.NEW_DOCUMENT: "Art. 5º",
}


@dataclass(frozen=True)
class Deadline:
    """One obligation's last day, with its article and a pt_BR label."""

    kind: DeadlineKind
    article: str
    due: date
    label: str


def new_document_due(label: str, article: str, start: date) -> Deadline:
    """A document added to the dossier after the holders were registered: bring it by its start date
    (``documents_declared``; setting ``requirement_starts``)."""
    return Deadline(DeadlineKind.NEW_DOCUMENT, article or DeadlineKind.NEW_DOCUMENT.article, start, label)


def _deadline(kind: DeadlineKind, due: date) -> Deadline:
    return Deadline(kind=kind, article=kind.article, due=due, label=kind.label)


def medical_due(medical_date: date, settings: LawSettings) -> Deadline:
    """The medical certificate is renewed yearly (Art. 5º, VII, § 2º; failing is Art. 30 G1 I)."""
    return _deadline(DeadlineKind.MEDICAL, medical_valid_until(medical_date, settings))


def registration_certificate_due(issued_or_renewed_on: date) -> Deadline:
    """The registration certificate is valid 1 year (Art. 4º, § 1º; failing is Art. 30 G1 II)."""
    return _deadline(
        DeadlineKind.REGISTRATION_CERTIFICATE, registration_certificate_valid_until(issued_or_renewed_on)
    )


def criminal_certificates_due(issued_on: date, settings: LawSettings) -> Deadline:
    """Criminal certificates are renewed every 5 years (Art. 5º, XI)."""
    return _deadline(
        DeadlineKind.CRIMINAL_CERTIFICATES, criminal_certificates_valid_until(issued_on, settings)
    )


def vehicle_useful_life_due(year_manufacture: int) -> Deadline:
    """Last day of service of the vehicle (Art. 3º, II; Art. 31 G2 IV)."""
    return _deadline(DeadlineKind.VEHICLE_USEFUL_LIFE, vehicle_useful_life_end(year_manufacture))


_INSPECTION_VALID_MONTHS: dict[ServiceType, str] = {
    ServiceType.MOTOTAXI: "inspection_valid_months_mototaxi",
    ServiceType.MOTOBOY: "inspection_valid_months_motoboy",
    ServiceType.MOTOFRETE: "inspection_valid_months_motofrete",
}


def inspection_valid_months(service: ServiceType, settings: LawSettings) -> int:
    """How many months an approved inspection of ``service`` is valid (Art. 5º, § 6º; Art. 23)."""
    months: int = getattr(settings, _INSPECTION_VALID_MONTHS[service])
    return months


def inspection_valid_until(service: ServiceType, performed_on: date, settings: LawSettings) -> date:
    """Last day an inspection approved on ``performed_on`` is valid (Art. 5º, § 6º; Art. 23).

    Months are counted as the Código Civil counts them (art. 132, § 3º: :func:`add_months`), like the
    registration certificate's year: a moto-frete inspected on 10/03/2026 is valid through
    10/03/2027 (Art. 23: "anualmente") and not on 11/03/2027.
    """
    return add_months(performed_on, inspection_valid_months(service, settings))


def inspection_due(
    service: ServiceType, performed_on: date, approved: bool, settings: LawSettings
) -> Deadline | None:
    """Next inspection (Art. 5º, § 6º; Art. 23).

    Approved: the end of its validity, or the periodic summons of :func:`next_inspection_due` when that
    comes sooner.  Failed: the re-inspection period.
    """
    due = next_inspection_due(service, performed_on, approved, settings)
    if approved:
        valid_until = inspection_valid_until(service, performed_on, settings)
        due = valid_until if due is None else min(due, valid_until)
    return _deadline(DeadlineKind.INSPECTION, due) if due is not None else None


def permit_term_due(issued_on: date, extended: bool) -> Deadline:
    """End of the 5-year term, or of the 10 years with the one extension (Art. 6º)."""
    return _deadline(DeadlineKind.PERMIT_TERM, permit_term_end(issued_on, extended))


def cnh_due(cnh_expiry: date) -> Deadline:
    """The CNH must be valid to keep meeting Art. 5º, II."""
    return _deadline(DeadlineKind.CNH, cnh_expiry)


def passenger_insurance_due(valid_until: date) -> Deadline:
    """The mototáxi passenger insurance must be kept up to date (Art. 19, § 1º)."""
    return _deadline(DeadlineKind.PASSENGER_INSURANCE, valid_until)


def deputy_deregistration_due(link_end: date, settings: LawSettings | None = None) -> Deadline:
    """15 days after the deputy's link ends, to deregister him (Art. 31, Grupo 1, I).

    Calendar days; with ``settings``, a due date on a non-business day moves forward.
    """
    return _deadline(
        DeadlineKind.DEPUTY_DEREGISTRATION, add_calendar_days(link_end, DEPUTY_DEREGISTRATION_DAYS, settings)
    )


def accident_report_due(accident_date: date, settings: LawSettings | None = None) -> Deadline:
    """5 days after an accident, to report it to the secretariat (Art. 31, Grupo 2, II).

    Calendar days; with ``settings``, a due date on a non-business day moves forward.
    """
    return _deadline(
        DeadlineKind.ACCIDENT_REPORT, add_calendar_days(accident_date, ACCIDENT_REPORT_DAYS, settings)
    )


def defence_due(notice_date: date, settings: LawSettings) -> Deadline:
    """Last day of the defence after the notice of infraction (Art. 29, § 3º; period by Decree)."""
    return _deadline(
        DeadlineKind.DEFENCE_PERIOD, add_days(notice_date, settings.defence_period_days, settings)
    )


def appeal_due(decision_date: date, settings: LawSettings) -> Deadline:
    """Last day of the appeal after the decision (Art. 34, parágrafo único; period by Decree)."""
    return _deadline(
        DeadlineKind.APPEAL_PERIOD, add_days(decision_date, settings.appeal_period_days, settings)
    )


def days_until_due(deadline: Deadline, today: date) -> int:
    """Days from ``today`` to the due date: 0 on the last day, negative once overdue."""
    return (deadline.due - today).days


def is_overdue(deadline: Deadline, today: date) -> bool:
    """True from the day after the due date."""
    return today > deadline.due


def due_within(
    deadlines: Iterable[Deadline], today: date, days: int, *, include_overdue: bool = True
) -> list[Deadline]:
    """Deadlines falling due from ``today`` to ``today + days`` (and the overdue ones), soonest first."""
    horizon = today + timedelta(days=days)
    return sorted(
        (d for d in deadlines if d.due <= horizon and (include_overdue or d.due >= today)),
        key=lambda d: (d.due, d.kind.value),
    )
