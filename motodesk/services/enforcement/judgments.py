"""The final criminal conviction that revokes a permit (Art. 35).

“A permissão, concessão e/ou credenciamento será cassada em caso de condenação criminal transitado em
julgado”: the supervisor records the court, the case number and the date the judgment became final, from
the court's certificate; the judgment is stored, the permit is revoked through its state machine in the
same transaction, and the permit's history shows the judgment in the reason of its cassação.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import select

from motodesk.models import CriminalJudgment, Permit
from motodesk.rules.enforcement import (
    MAX_COURT,
    ConvictionFacts,
    check_final_conviction,
    format_case_number,
)
from motodesk.rules.text import format_date
from motodesk.services import permits
from motodesk.services.clock import local_today
from motodesk.services.context import READERS, AppContext, current_row, requires
from motodesk.services.enforcement._common import DECIDERS, MAX_TEXT, _text
from motodesk.services.errors import InvalidInputError, RuleViolationError


@dataclass
class ConvictionInput:
    """What the court's certificate says (certidão de trânsito em julgado)."""

    court: str
    case_number: str
    final_on: date | None
    notes: str = ""


@dataclass(frozen=True)
class ConvictionRecorded:
    id: int
    permit_number: str
    case_number: str
    final_on: date
    revoked_on: date


@dataclass(frozen=True)
class ConvictionView:
    id: int
    court: str
    case_number: str
    final_on: date
    notes: str | None
    recorded_by: str
    recorded_at: datetime


_FIELDS = {"conviction_court": "court", "conviction_case": "case_number", "conviction_final": "final_on"}


def conviction_reason(court: str, case_number: str, final_on: date) -> str:
    """How the cassação reads in the permit's history."""
    return (f"Condenação criminal transitada em julgado em {format_date(final_on)} — {court}, processo nº "
            f"{case_number} (Art. 35)")


@requires(*DECIDERS)
def record_final_conviction(ctx: AppContext, permit_id: int, data: ConvictionInput, *, today: date | None = None,
                            expected_version: int | None = None) -> ConvictionRecorded:
    """Record the holder's final criminal conviction and revoke the permit (Art. 35), in one transaction."""
    today = today or local_today()
    errors: dict[str, str] = {}
    notes = _text(data.notes, MAX_TEXT, "notes", "as observações", errors)
    if errors:
        raise InvalidInputError("Corrija os campos marcados.", errors)
    court = " ".join((data.court or "").split())
    with ctx.write() as s:
        permit = current_row(s, Permit, permit_id, expected_version, "A permissão não existe mais.")
        verdicts = check_final_conviction(ConvictionFacts(court, data.case_number or "", data.final_on, today,
                                                          permit.state.in_force))
        if verdicts:
            keyed = {_FIELDS[v.rule_id.removeprefix("enforcement_")]: v.message for v in verdicts
                     if v.rule_id.removeprefix("enforcement_") in _FIELDS}
            if len(keyed) == len(verdicts):
                raise InvalidInputError("Art. 35: corrija os dados da condenação.", keyed)
            raise RuleViolationError(verdicts)
        assert data.final_on is not None
        case_number = format_case_number(data.case_number)
        judgment = CriminalJudgment(permit_id=permit.id, person_id=permit.person_id, court=court[:MAX_COURT],
                                    case_number=case_number, final_on=data.final_on, notes=notes,
                                    recorded_by=ctx.user.login)
        s.add(judgment)
        s.flush()
        permits.apply_revoke(s, ctx.user, permit, reason=conviction_reason(court, case_number, data.final_on),
                             on=today, conviction=judgment)
        s.flush()
        return ConvictionRecorded(judgment.id, permit.number, case_number, data.final_on, today)


@requires(*READERS)
def convictions_of_permit(ctx: AppContext, permit_id: int) -> list[ConvictionView]:
    """The Art. 35 judgments recorded against a permit, oldest first."""
    with ctx.read() as s:
        rows = list(s.scalars(select(CriminalJudgment).where(CriminalJudgment.permit_id == permit_id)
                              .order_by(CriminalJudgment.id)))
        return [ConvictionView(j.id, j.court, j.case_number, j.final_on, j.notes, j.recorded_by, j.recorded_at)
                for j in rows]
