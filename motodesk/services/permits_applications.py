"""An application's steps up to its permit (Art. 4º, 6º, 10): analysis, approval by Decree, refusal,
withdrawal and the issue, with its number and its quota place (:mod:`motodesk.services.permits`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime

from sqlalchemy import func, select, text
from sqlalchemy.orm import Session

from motodesk.models import Application, Permit, Person, TenderCandidate
from motodesk.rules import acts
from motodesk.rules.common import PermitState, Role, ServiceType
from motodesk.rules.fees import FeeAct
from motodesk.rules.lifecycle import TransitionContext, permit_term_end, registration_certificate_valid_until
from motodesk.services import fees
from motodesk.services.context import AppContext, requires
from motodesk.services.errors import InvalidInputError, RuleViolationError
from motodesk.services.facts import person_facts, quota_counts, vehicle_facts_of
from motodesk.services.judged import judged
from motodesk.services.permits_quota import _claim_quota_place
from motodesk.services.permits_steps import (
    _check,
    _clean_reason,
    _decree,
    _holder_permits_in_force,
    _load,
    _record,
    _tender_verdicts,
    _today,
    _vehicle_id_for,
)
from motodesk.services.settings import law_settings

#: First key of the PostgreSQL advisory lock that serialises permit numbering (the law's number).
_NUMBERING_LOCK = 4883

_ONE_IN_FORCE = (
    "Art. 6º, § 2º: o titular já tem permissão ou autorização em vigor; admite-se o cadastramento "
    "de um só veículo por titular."
)
_INTEGRITY = {
    "uq_permits_person_in_force": _ONE_IN_FORCE,
    "cols:permits.person_id": _ONE_IN_FORCE,
    "uq_permits_number": "Outra estação emitiu uma permissão com o mesmo número; tente novamente.",
    "uq_permits_service_year_seq": "Outra estação emitiu uma permissão com o mesmo número; tente novamente.",
}


@dataclass(frozen=True)
class IssuedPermit:
    id: int
    number: str
    service: ServiceType
    issued_on: date
    term_end: date
    certificate_valid_until: date


@requires(Role.CLERK, Role.SUPERVISOR)
def start_review(ctx: AppContext, application_id: int, *, expected_version: int | None = None) -> None:
    """The clerk takes the application into analysis (Art. 4º)."""
    with ctx.write() as s:
        app = _load(s, Application, application_id, expected_version, "O requerimento")
        _check(ctx, "start_review", app.state, TransitionContext(), "Não é possível iniciar a análise:")
        _record(s, ctx, "start_review", app.state, PermitState.UNDER_REVIEW, application_id=app.id)
        app.state = PermitState.UNDER_REVIEW


@requires(Role.SUPERVISOR)
def approve(ctx: AppContext, application_id: int, decree_number: str, decree_date: date | None, *,
            on: date | None = None, expected_version: int | None = None) -> None:
    """A supervisor approves by Decree (Art. 6º): dossier, vehicle, inspection and quota are checked."""
    on = _today(on)
    settings = law_settings(ctx)
    with ctx.write({"uq_decrees_number": "Outra estação cadastrou este Decreto agora; tente novamente.",
                    "cols:decrees.number": "Outra estação cadastrou este Decreto agora; tente novamente."}) as s:
        app = _load(s, Application, application_id, expected_version, "O requerimento")
        person = s.get(Person, app.person_id)
        assert person is not None
        tender, homologation = _tender_verdicts(s, app)
        quota = quota_counts(s) if app.service_type is ServiceType.MOTOTAXI else None
        vehicle_id = _vehicle_id_for(s, app)
        holder = person_facts(s, person.id, tender_homologation=homologation)
        vehicle = vehicle_facts_of(s, vehicle_id, app.service_type)
        tctx = TransitionContext(
            on=on,
            service=app.service_type,
            decree_number=decree_number,
            eligibility=[*tender, *acts.holder_verdicts(holder, app.service_type, on, settings)],
            vehicle=acts.vehicle_verdicts(vehicle, app.service_type, on, settings, person.cpf),
            inspection_approved=acts.inspection_approved(vehicle),
            quota_open_places=quota[2] if quota else None,
        )
        _check(ctx, "approve", app.state, tctx, "O requerimento não pode ser aprovado:")
        decree = _decree(s, decree_number, decree_date, on)
        _record(s, ctx, "approve", app.state, PermitState.APPROVED, application_id=app.id, decree_id=decree.id)
        app.state = PermitState.APPROVED
        app.decree_id = decree.id
        app.vehicle_id = vehicle_id
        app.decided_at = datetime.now(UTC)
        app.decided_by = ctx.user.login


@requires(Role.SUPERVISOR)
def refuse(ctx: AppContext, application_id: int, reason: str, *, expected_version: int | None = None) -> None:
    """The application is refused, with its written reason (Art. 6º)."""
    reason_ = _clean_reason(reason)
    with ctx.write() as s:
        app = _load(s, Application, application_id, expected_version, "O requerimento")
        _check(ctx, "refuse", app.state, TransitionContext(reason=reason_), "O requerimento não pode ser indeferido:")
        _record(s, ctx, "refuse", app.state, PermitState.REFUSED, application_id=app.id, reason=reason_)
        app.state = PermitState.REFUSED
        app.reason = reason_
        app.decided_at = datetime.now(UTC)
        app.decided_by = ctx.user.login


@requires(Role.CLERK, Role.SUPERVISOR)
def cancel_application(ctx: AppContext, application_id: int, reason: str | None, *, express_request: bool,
                       expected_version: int | None = None) -> None:
    """The applicant withdraws, by express request (Art. 6º, § 7º)."""
    reason_ = _clean_reason(reason)
    with ctx.write() as s:
        app = _load(s, Application, application_id, expected_version, "O requerimento")
        if s.scalar(select(Permit.id).where(Permit.application_id == app.id)) is not None:
            raise InvalidInputError("Este requerimento já virou permissão: cancele a permissão.")
        _check(ctx, "cancel", app.state, TransitionContext(express_request=express_request, reason=reason_),
               "O requerimento não pode ser cancelado:")
        _record(s, ctx, "cancel", app.state, PermitState.CANCELLED, application_id=app.id, reason=reason_)
        app.state = PermitState.CANCELLED
        app.reason = reason_


def _next_seq(s: Session, service: ServiceType, year: int) -> int:
    if s.get_bind().dialect.name == "postgresql":
        index = list(ServiceType).index(service)
        s.execute(text("SELECT pg_advisory_xact_lock(CAST(:a AS integer), CAST(:b AS integer))"),
                  {"a": _NUMBERING_LOCK, "b": year * 10 + index})
    last = s.scalar(select(func.max(Permit.seq)).where(Permit.service_type == service, Permit.year == year))
    return int(last or 0) + 1


def permit_number(service: ServiceType, seq: int, year: int) -> str:
    """``MT-0007/2026``: service code, sequence of the year, year of issue."""
    return f"{service.code}-{seq:04d}/{year}"


@requires(Role.SUPERVISOR)
def issue(ctx: AppContext, application_id: int, *, on: date | None = None,
          expected_version: int | None = None) -> IssuedPermit:
    """Issue the permit of an approved application: number, 5-year term, 1-year certificate.

    For mototáxi a quota place is claimed by a conditional UPDATE in this transaction; when none is
    left, :class:`RuleViolationError` names Art. 10, I and nothing is written.
    """
    on = _today(on)
    settings = law_settings(ctx)
    with ctx.write(_INTEGRITY) as s:
        app = _load(s, Application, application_id, expected_version, "O requerimento")
        person = s.get(Person, app.person_id)
        assert person is not None
        service = app.service_type
        tender, homologation = _tender_verdicts(s, app)
        quota = quota_counts(s) if service is ServiceType.MOTOTAXI else None
        vehicle_id = _vehicle_id_for(s, app)
        holder = person_facts(s, person.id, tender_homologation=homologation)
        vehicle = vehicle_facts_of(s, vehicle_id, service)
        tctx = acts.issue_context(holder, vehicle, service, on, settings, tender=tender,
                                  quota_open_places=quota[2] if quota else None,
                                  holder_permits_in_force=_holder_permits_in_force(s, person.id))
        intro = "A permissão não pode ser emitida:" if service is ServiceType.MOTOTAXI else \
            "A autorização não pode ser emitida:"
        accepted = _check(ctx, "issue", app.state, tctx, intro)
        fees.require_payment(s, settings, FeeAct.ISSUE, app.id)  # Art. 6º, § 6º
        if service is ServiceType.MOTOTAXI and not _claim_quota_place(s):
            places, in_force, _open = quota_counts(s) or (0, 0, 0)
            raise RuleViolationError([acts.quota_full(places, in_force, settings.population)], intro)
        seq = _next_seq(s, service, on.year)
        with judged(s, accepted, Permit, TenderCandidate.status):
            permit = Permit(
                number=permit_number(service, seq, on.year),
                service_type=service,
                year=on.year,
                seq=seq,
                person_id=person.id,
                application_id=app.id,
                vehicle_id=vehicle_id,
                decree_id=app.decree_id,
                state=PermitState.ACTIVE,
                issued_on=on,
                term_end=permit_term_end(on, False),
                extended=False,
                certificate_valid_until=registration_certificate_valid_until(on),
                badge_issue_no=0,
            )
            s.add(permit)
            s.flush()
            _record(s, ctx, "issue", app.state, PermitState.ACTIVE, application_id=app.id, permit_id=permit.id,
                    decree_id=app.decree_id)
            app.state = PermitState.ACTIVE
            app.vehicle_id = vehicle_id
            if app.tender_candidate_id is not None:
                candidate = s.get(TenderCandidate, app.tender_candidate_id)
                if candidate is not None and candidate.status == "called":
                    candidate.status = "accepted"
        return IssuedPermit(permit.id, permit.number, service, permit.issued_on, permit.term_end,
                            permit.certificate_valid_until)
