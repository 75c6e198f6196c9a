"""Loading the evidence a penalty step stands on, from the register, in the step's transaction.

The steps (``permits.apply_suspend`` …, ``deputies.apply_deputy_suspend`` …) take the notice of
infraction or the Art. 35 judgment as a loaded row; these functions turn the row into the facts
:mod:`motodesk.rules.penalty_evidence` judges. A row that is not stored in the register (made up, or
never saved) is evidence of nothing: ``recorded`` is false and the rules refuse it.
"""

from __future__ import annotations

from sqlalchemy import inspect as sa_inspect
from sqlalchemy import select
from sqlalchemy.orm import Session

from motodesk.models import CriminalJudgment, Decision, InfractionNotice
from motodesk.rules.penalty_evidence import ConvictionEvidence, DecisionOnFile, NoticeEvidence


def _stored(s: Session, row: object, model: type, row_id: int | None) -> bool:
    if row_id is None:
        return False
    state = sa_inspect(row)
    return bool(state.persistent and state.session is s) and s.get(model, row_id) is row


def notice_evidence(s: Session, notice: InfractionNotice | None) -> NoticeEvidence | None:
    if notice is None:
        return None
    recorded = _stored(s, notice, InfractionNotice, notice.id)
    decisions: tuple[DecisionOnFile, ...] = ()
    if recorded:
        decisions = tuple(DecisionOnFile(d.stage, d.outcome, d.penalty) for d in s.scalars(
            select(Decision).where(Decision.notice_id == notice.id).order_by(Decision.id)))
    return NoticeEvidence(number=notice.number or "", recorded=recorded, status=notice.status or "open",
                          permit_id=notice.permit_id, offender_kind=notice.offender_kind or "",
                          person_id=notice.person_id, decisions=decisions)


def conviction_evidence(s: Session, judgment: CriminalJudgment | None) -> ConvictionEvidence | None:
    if judgment is None:
        return None
    return ConvictionEvidence(recorded=_stored(s, judgment, CriminalJudgment, judgment.id),
                              permit_id=judgment.permit_id, person_id=judgment.person_id,
                              case_number=judgment.case_number or "", final_on=judgment.final_on)


def conviction_of_person(s: Session, person_id: int) -> ConvictionEvidence | None:
    """The newest final criminal judgment recorded against the person (Art. 35), if any."""
    judgment = s.scalar(select(CriminalJudgment).where(CriminalJudgment.person_id == person_id)
                        .order_by(CriminalJudgment.final_on.desc(), CriminalJudgment.id.desc()).limit(1))
    return conviction_evidence(s, judgment)
