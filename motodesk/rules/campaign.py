"""The yearly re-registration campaign (recadastramento): who is called, when, and what a no-show supports.

The law asks two things of every driver each year:

* the **registration certificate** "com validade de 01 (um) ano, facultada a renovação por igual
  período" (Art. 4º, § 1º) — not renewing it is Art. 30, Grupo 1, II;
* the **medical certificate** "renovado anualmente" (Art. 5º, VII and § 2º) — not renewing it is
  Art. 30, Grupo 1, I.

Both are years of the Código Civil (art. 132, § 3º), counted with
:func:`~motodesk.rules.periods.add_years`, never as 365 days.

A supervisor opens a campaign for a period (first and last day). Every holder of a permit in force,
and every deputy (preposto) linked to one, whose certificates fall due by the last day of the period
(or are already overdue, or were never recorded) is called (:func:`falling_due`). The deputy drives
under the holder's registration (Art. 14, § 2º), so the permit's registration certificate falls due
for him too, beside his own medical certificate.

Appointments go to the counter's business days (:func:`~motodesk.rules.periods.is_business_day`:
Monday to Friday, national and Minas Gerais holidays of the ``holidays`` package, the municipal
holidays of the settings), inside the opening hours, at most
:attr:`~motodesk.rules.settings.LawSettings.campaign_slots_per_day` a day (:func:`allocate_slots`).

The appointment's life: *agendado* → *compareceu* | *faltou* | *reagendado*; a *reagendado* one is
pending again at its new time; a *faltou* one may be given a new time while the campaign is open
(:func:`check_transition`). At the close, every appointment still pending becomes *faltou*, and each
absent person's certificates that are past due support the infraction of Art. 30, Grupo 1, I or II
(:func:`no_show_verdicts`) — a notice the inspector still writes and the process still judges
(Art. 29): the absence is evidence, not a penalty.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from enum import StrEnum

from motodesk.rules.common import ServiceType, Status, Verdict
from motodesk.rules.eligibility import medical_valid_until
from motodesk.rules.infractions import Infraction, infraction_by_code
from motodesk.rules.periods import is_business_day
from motodesk.rules.settings import LawSettings, opening_windows
from motodesk.rules.text import format_date

__all__ = [
    "AppointmentState",
    "CertificateKind",
    "DueCertificate",
    "DriverFacts",
    "DriverRole",
    "NoShow",
    "Summons",
    "allocate_slots",
    "capacity",
    "check_transition",
    "day_slots",
    "falling_due",
    "is_slot",
    "no_show_verdicts",
    "who_falls_due",
]


class CertificateKind(StrEnum):
    REGISTRATION = "registration"
    MEDICAL = "medical"

    @property
    def label(self) -> str:
        return {"registration": "Certificado de registro cadastral",
                "medical": "Atestado médico de sanidade física e mental"}[self.value]

    @property
    def article(self) -> str:
        return {"registration": "Art. 4º, § 1º", "medical": "Art. 5º, VII e § 2º"}[self.value]

    @property
    def infraction_code(self) -> str:
        """Art. 30, Grupo 1: I the medical certificate, II the registration."""
        return {"registration": "30.1.II", "medical": "30.1.I"}[self.value]

    @property
    def infraction(self) -> Infraction:
        return infraction_by_code(self.infraction_code)


class DriverRole(StrEnum):
    HOLDER = "holder"
    DEPUTY = "deputy"

    @property
    def label(self) -> str:
        return {"holder": "Titular", "deputy": "Preposto"}[self.value]


class AppointmentState(StrEnum):
    SCHEDULED = "agendado"
    ATTENDED = "compareceu"
    MISSED = "faltou"
    RESCHEDULED = "reagendado"

    @property
    def label(self) -> str:
        return {"agendado": "Agendado", "compareceu": "Compareceu", "faltou": "Faltou",
                "reagendado": "Reagendado"}[self.value]

    @property
    def pending(self) -> bool:
        """Still waiting for the person at the counter."""
        return self in (AppointmentState.SCHEDULED, AppointmentState.RESCHEDULED)


@dataclass(frozen=True)
class DriverFacts:
    """What the campaign needs to know of one holder or deputy on one permit in force."""

    person_id: int
    name: str
    role: DriverRole
    permit_id: int
    permit_number: str
    service: ServiceType
    registration_valid_until: date  # the permit's certificate (Art. 4º, § 1º)
    medical_issued_on: date | None  # None: no medical certificate on record


@dataclass(frozen=True)
class DueCertificate:
    kind: CertificateKind
    due: date | None  # last valid day; None: never recorded

    @property
    def label(self) -> str:
        return self.kind.label

    @property
    def article(self) -> str:
        return self.kind.article

    def shown_due(self) -> str:
        return format_date(self.due) if self.due is not None else "sem registro"


@dataclass(frozen=True)
class Summons:
    """One person called by the campaign, with what falls due."""

    facts: DriverFacts
    due: tuple[DueCertificate, ...]

    @property
    def earliest_due(self) -> date | None:
        dates = [d.due for d in self.due if d.due is not None]
        return min(dates) if dates else None


def falling_due(facts: DriverFacts, period_end: date, settings: LawSettings) -> tuple[DueCertificate, ...]:
    """The certificates of ``facts`` whose last valid day is on or before ``period_end`` (overdue
    included), and a medical certificate never recorded."""
    due: list[DueCertificate] = []
    if facts.registration_valid_until <= period_end:
        due.append(DueCertificate(CertificateKind.REGISTRATION, facts.registration_valid_until))
    if facts.medical_issued_on is None:
        due.append(DueCertificate(CertificateKind.MEDICAL, None))
    else:
        medical_due = medical_valid_until(facts.medical_issued_on, settings)  # add_years: CC art. 132, § 3º
        if medical_due <= period_end:
            due.append(DueCertificate(CertificateKind.MEDICAL, medical_due))
    return tuple(due)


def who_falls_due(drivers: Iterable[DriverFacts], period_start: date, period_end: date,
                  settings: LawSettings) -> list[Summons]:
    """Everyone with something falling due by ``period_end``: soonest due first, then by name.

    ``period_start`` only checks the period (a campaign looks ahead; the overdue are called too).
    """
    if period_end < period_start:
        raise ValueError("O último dia do recadastramento é anterior ao primeiro.")
    called = [Summons(f, due) for f in drivers if (due := falling_due(f, period_end, settings))]
    return sorted(called, key=lambda c: (c.earliest_due or date.min, c.facts.name, c.facts.role.value))


# --- the counter's slots --------------------------------------------------------------------------


def day_slots(day: date, settings: LawSettings) -> list[datetime]:
    """Local start times of the appointments of ``day``: none on a day without office hours; otherwise
    every ``campaign_slot_minutes`` inside the opening hours (an appointment never runs past a window's
    end), at most ``campaign_slots_per_day``."""
    if not is_business_day(day, settings):
        return []
    step = timedelta(minutes=settings.campaign_slot_minutes)
    slots: list[datetime] = []
    for start, end in opening_windows(settings.campaign_opening_hours):
        at, close = datetime.combine(day, start), datetime.combine(day, end)
        while at + step <= close and len(slots) < settings.campaign_slots_per_day:
            slots.append(at)
            at += step
    return slots


def allocate_slots(count: int, first_day: date, last_day: date, settings: LawSettings,
                   taken: Collection[datetime] = ()) -> list[datetime]:
    """The first ``count`` free slots from ``first_day`` to ``last_day`` (local times, in order).

    ``taken`` are slots already booked (one person per slot). Returns fewer than ``count`` when the
    period has no more room: the caller decides what to say.
    """
    booked = set(taken)
    out: list[datetime] = []
    day = first_day
    while len(out) < count and day <= last_day:
        for slot in day_slots(day, settings):
            if slot not in booked:
                out.append(slot)
                if len(out) == count:
                    break
        day += timedelta(days=1)
    return out


def capacity(first_day: date, last_day: date, settings: LawSettings) -> int:
    """How many appointments the period holds."""
    total, day = 0, first_day
    while day <= last_day:
        total += len(day_slots(day, settings))
        day += timedelta(days=1)
    return total


def is_slot(at: datetime, settings: LawSettings) -> bool:
    """True when ``at`` (local) is the start of an appointment slot of its day."""
    return at in day_slots(at.date(), settings)


# --- the appointment's life -------------------------------------------------------------------------

_ALLOWED: dict[AppointmentState, frozenset[AppointmentState]] = {
    AppointmentState.SCHEDULED: frozenset({AppointmentState.ATTENDED, AppointmentState.MISSED,
                                           AppointmentState.RESCHEDULED}),
    AppointmentState.RESCHEDULED: frozenset({AppointmentState.ATTENDED, AppointmentState.MISSED,
                                             AppointmentState.RESCHEDULED}),
    AppointmentState.MISSED: frozenset({AppointmentState.RESCHEDULED, AppointmentState.ATTENDED}),
    AppointmentState.ATTENDED: frozenset(),
}


def check_transition(current: AppointmentState, new: AppointmentState, *, campaign_open: bool) -> Verdict:
    """May an appointment go from ``current`` to ``new``? MET or NOT_MET with the reason in pt_BR."""
    rule = "campaign_appointment"
    article = "Art. 4º, § 1º"
    if not campaign_open:
        return Verdict(rule, article, Status.NOT_MET,
                       "O recadastramento está encerrado: os atendimentos não podem mais ser alterados.")
    if new not in _ALLOWED[current]:
        if current is AppointmentState.ATTENDED:
            why = "a pessoa já compareceu; o atendimento está concluído"
        else:
            why = f"não se passa de '{current.label}' para '{new.label}'"
        return Verdict(rule, article, Status.NOT_MET, f"Atendimento não alterado: {why}.")
    return Verdict(rule, article, Status.MET, f"{current.label} → {new.label}.")


@dataclass(frozen=True)
class NoShow:
    """What one absence supports: the infraction (Art. 30, Grupo 1, I or II) per certificate."""

    certificate: DueCertificate
    verdict: Verdict
    infraction: Infraction

    @property
    def supports_notice(self) -> bool:
        return self.verdict.status is Status.NOT_MET


def no_show_verdicts(state: AppointmentState, due: Sequence[DueCertificate], on: date) -> list[NoShow]:
    """For an absent person (``state`` *faltou*): each certificate past due on ``on`` supports its
    infraction of Art. 30, Grupo 1 (NOT_MET); one still valid on ``on`` is PENDING (no infraction yet).
    Nothing for someone who came."""
    if state is not AppointmentState.MISSED:
        return []
    out: list[NoShow] = []
    for cert in due:
        infraction = cert.kind.infraction
        article = infraction.article
        if cert.due is None or cert.due < on:
            when = f"vencido em {format_date(cert.due)}" if cert.due else "sem registro no cadastro"
            message = (f"{article}: {infraction.text} — {cert.label.lower()} {when}, não renovado, e a pessoa "
                       f"faltou ao recadastramento.")
            status = Status.NOT_MET
        else:
            message = (f"{article}: {cert.label.lower()} ainda válido até {format_date(cert.due)}; a falta só "
                       f"sustenta a infração se não for renovado até lá.")
            status = Status.PENDING
        out.append(NoShow(cert, Verdict(f"art30_g1_{cert.kind.value}", article, status, message), infraction))
    return out
