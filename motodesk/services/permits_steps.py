"""What every step of an application or permit shares (:mod:`motodesk.services.permits`): the facts
the rules look at, asking the state machine, recording the :class:`PermitEvent`, loading a row at
the version the screen showed.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from motodesk.models import Application, Decree, Permit, PermitEvent, Person, Tender, TenderCandidate, Vehicle
from motodesk.rules.common import PermitState, Verdict
from motodesk.rules.lifecycle import TransitionContext, check_transition
from motodesk.rules.tenders import TenderCandidateFacts, check_candidacy_tie, check_tender, tender_required
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext, CurrentUser, current_row
from motodesk.services.decrees import find_or_record_decree
from motodesk.services.errors import (
    InvalidInputError,
    PermissionDeniedError,
    RuleViolationError,
)
from motodesk.services.judged import judged

MAX_REASON = 2000


# --- facts the rules look at ----------------------------------------------------------------


def _vehicle_id_for(s: Session, app: Application) -> int | None:
    """The application's vehicle, or else the applicant's one active vehicle (Art. 6º, § 2º)."""
    if app.vehicle_id is not None:
        return app.vehicle_id
    return s.scalar(select(Vehicle.id).where(Vehicle.holder_id == app.person_id, Vehicle.active.is_(True))
                    .order_by(Vehicle.id.desc()).limit(1))


def _tender_verdicts(s: Session, app: Application) -> tuple[list[Verdict], date | None]:
    """Mototáxi: the permission follows a tender (Art. 6º); the candidate must have been called.

    Gathers the tied candidate and their tender for :func:`motodesk.rules.tenders.check_tender`;
    also returns the tender's homologation date (the medical certificate's window runs from it).
    """
    if not tender_required(app.service_type):
        return [], None
    if app.tender_candidate_id is None:
        # The applicant is a called candidate of a tender: tie them together (the usual case, no clicks).
        person_cpf = select(Person.cpf).where(Person.id == app.person_id).scalar_subquery()
        called = s.scalar(select(TenderCandidate).where(TenderCandidate.cpf == person_cpf,
                                                        TenderCandidate.status == "called")
                          .order_by(TenderCandidate.called_on.desc(), TenderCandidate.id.desc()).limit(1))
        if called is not None:
            app.tender_candidate_id = called.id
            person_cpf_value = s.scalar(select(Person.cpf).where(Person.id == app.person_id))
            with judged(s, check_candidacy_tie(called.cpf, person_cpf_value, called.status),
                        TenderCandidate.person_id):
                called.person_id = app.person_id
    if app.tender_candidate_id is None:
        return check_tender(False, None), None
    candidate = s.get(TenderCandidate, app.tender_candidate_id)
    tender = s.get(Tender, candidate.tender_id) if candidate else None
    if candidate is None or tender is None:
        return check_tender(True, None), None
    facts = TenderCandidateFacts(rank=candidate.rank, status=candidate.status, tender_number=tender.number,
                                 homologated_on=tender.homologated_on)
    return check_tender(True, facts), tender.homologated_on


def _holder_permits_in_force(s: Session, person_id: int, *, besides: int | None = None) -> int:
    stmt = select(func.count(Permit.id)).where(Permit.person_id == person_id,
                                               Permit.state.in_((PermitState.ACTIVE, PermitState.SUSPENDED)))
    if besides is not None:
        stmt = stmt.where(Permit.id != besides)
    return int(s.scalar(stmt) or 0)


# --- checking and recording a step -----------------------------------------------------------


def _check(ctx: AppContext, name: str, state: PermitState, tctx: TransitionContext, intro: str) -> list[Verdict]:
    """The rules' verdicts on the transition (empty: accepted), for the judged step that writes it."""
    return _check_as(ctx.user, name, state, tctx, intro)


def _check_as(user: CurrentUser, name: str, state: PermitState, tctx: TransitionContext,
              intro: str) -> list[Verdict]:
    """:func:`_check` for ``user``: the penalties' session steps run as the process's user, not a context's."""
    verdicts = check_transition(name, state, user.role, tctx)
    if not verdicts:
        return verdicts
    if any(v.rule_id == "transition_role" for v in verdicts):
        raise PermissionDeniedError(verdicts[0].message)
    raise RuleViolationError(verdicts, intro)


def _record(s: Session, ctx: AppContext, name: str, from_state: PermitState | None, to_state: PermitState, *,
            application_id: int | None = None, permit_id: int | None = None, reason: str | None = None,
            decree_id: int | None = None) -> None:
    s.add(PermitEvent(application_id=application_id, permit_id=permit_id, transition=name,
                      from_state=from_state.value if from_state else None, to_state=to_state.value,
                      at=datetime.now(UTC), by_user=ctx.user.login, reason=reason, decree_id=decree_id))


def _clean_reason(reason: str | None) -> str | None:
    cleaned = (reason or "").strip()
    if len(cleaned) > MAX_REASON:
        raise InvalidInputError(f"O motivo é longo demais: no máximo {MAX_REASON} caracteres.",
                                {"reason": "Motivo longo demais."})
    return cleaned or None


def _load(s: Session, model: type[Any], row_id: int, expected_version: int | None, what: str) -> Any:
    return current_row(s, model, row_id, expected_version, f"{what} não existe mais.")


def _today(on: date | None) -> date:
    return on or local_today()


def _decree(s: Session, number: str, signed_on: date | None, on: date) -> Decree:
    """The Decree of the approval or extension (Art. 6º): the one registered with this number, or a new one."""
    return find_or_record_decree(s, number, signed_on, on, article="Art. 6º",
                                 subject="Outorga de permissão/autorização (Art. 6º)",
                                 missing_number="Informe o número do Decreto (Art. 6º).")


def _permit(s: Session, permit_id: int, expected_version: int | None) -> Permit:
    permit: Permit = _load(s, Permit, permit_id, expected_version, "A permissão")
    return permit
