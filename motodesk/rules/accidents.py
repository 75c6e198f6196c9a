"""Accidents of the vehicle (Art. 31, Grupo 2, II; Grupo 4, I).

* The holder reports an accident to the secretariat "no prazo de 05 (cinco) dias" (Art. 31, Grupo 2,
  II): calendar days after the day it happened (Código Civil, art. 132: the first day excluded), moved
  to the next business day when the settings say so (:func:`~motodesk.rules.deadlines.accident_report_due`).
  A report after that is **flagged for a notice of infraction** (média, Art. 33, II): the rule does
  not write the notice, an inspector does, but the register shows the flag.
* An accident that compromised the vehicle's safety means the vehicle may not circulate "sem
  vistoria" (Art. 31, Grupo 4, I): until an **accident inspection approved on or after the day of the
  accident**, no document of the permit prints (:mod:`motodesk.rules.document_gate`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date

from motodesk.rules.common import Status, Verdict
from motodesk.rules.deadlines import ACCIDENT_REPORT_DAYS, accident_report_due
from motodesk.rules.settings import LawSettings
from motodesk.rules.text import format_date

ART_REPORT = "Art. 31, Grupo 2, II"
ART_INSPECTION = "Art. 31, Grupo 4, I"
#: The flag the register shows for a late report, as the counter says it.
LATE_REPORT_FLAG = f"comunicado após {ACCIDENT_REPORT_DAYS} dias — Art. 31, G2, II"


@dataclass(frozen=True)
class AccidentFacts:
    """One accident as recorded at the counter."""

    happened_on: date
    reported_on: date
    safety_compromised: bool


def check_accident_report(accident: AccidentFacts, settings: LawSettings) -> list[Verdict]:
    """The report itself: impossible dates, or a report after the 5 days (flagged for a notice).

    Empty: reported in time.  A late report is a NOT_MET verdict that does not block recording the
    accident (the service records it and returns the flag).
    """
    if accident.reported_on < accident.happened_on:
        return [Verdict("art31_g2_ii_accident_dates", ART_REPORT, Status.NOT_MET,
                        f"{ART_REPORT}: dado impossível — a comunicação ({format_date(accident.reported_on)}) "
                        f"é anterior ao acidente ({format_date(accident.happened_on)}).")]
    due = accident_report_due(accident.happened_on, settings).due
    if accident.reported_on > due:
        return [Verdict("art31_g2_ii_accident_report", ART_REPORT, Status.NOT_MET,
                        f"{ART_REPORT}: acidente de {format_date(accident.happened_on)} {LATE_REPORT_FLAG} "
                        f"(prazo até {format_date(due)}, comunicado em {format_date(accident.reported_on)}); "
                        "cabe auto de infração.")]
    return []


def report_is_late(accident: AccidentFacts, settings: LawSettings) -> bool:
    """True when the accident was reported after the 5 days of Art. 31, Grupo 2, II."""
    return accident.reported_on > accident_report_due(accident.happened_on, settings).due


def accidents_awaiting_inspection(
    accidents: Iterable[AccidentFacts], approved_accident_inspections: Sequence[date]
) -> list[AccidentFacts]:
    """Safety-compromising accidents with no accident inspection approved on or after their day."""
    return [
        a for a in accidents
        if a.safety_compromised and not any(day >= a.happened_on for day in approved_accident_inspections)
    ]


def check_accidents(
    accidents: Iterable[AccidentFacts], approved_accident_inspections: Sequence[date]
) -> list[Verdict]:
    """Art. 31, Grupo 4, I: one blocking verdict per safety-compromising accident not yet re-inspected."""
    return [
        Verdict("art31_g4_i_accident_inspection", ART_INSPECTION, Status.NOT_MET,
                f"{ART_INSPECTION}: o acidente de {format_date(a.happened_on)} comprometeu a segurança do "
                "veículo; nenhum documento é emitido até a vistoria após acidente ser aprovada.")
        for a in accidents_awaiting_inspection(accidents, approved_accident_inspections)
    ]


#: What to do with the vehicle's open inspection when a safety-compromising accident is recorded.
SCHEDULE, BECOMES_ACCIDENT, REPLACED = "schedule", "becomes_accident", "replaced"


def accident_inspection_way(open_kind: str | None) -> str:
    """The way out of Art. 31, Grupo 4, I when an inspection is already open (one open at a time).

    * none open: an accident inspection is scheduled (``SCHEDULE``);
    * a full inspection open (regular, semestral, annual) or already an accident one: it checks every
      item of the vehicle after the accident, so it becomes the accident inspection (``BECOMES_ACCIDENT``);
    * a re-inspection of pending items only: it does not look at the whole vehicle, so it is cancelled
      and a full accident inspection takes its place (``REPLACED``) — it covers the pending items too.
    """
    if open_kind is None:
        return SCHEDULE
    if open_kind == "reinspection":
        return REPLACED
    return BECOMES_ACCIDENT
