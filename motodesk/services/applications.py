"""A person's applications (requerimentos) and permits, as the dossier shows them.

Opening an application is the clerk's first act of SPEC §4; the later transitions (review,
approval, issue…) belong to the permit workflow. :func:`pending_letter` prints the letter that
tells an applicant what is missing, each item with its article.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from motodesk.models import Application, DeputyLink, Permit, PermitEvent, Person, Tender, TenderCandidate
from motodesk.rules import acts
from motodesk.rules.common import IN_FORCE_STATES, PermitState, ServiceType, Status, Verdict
from motodesk.rules.common import OPEN_APPLICATION_STATES as OPEN_STATES
from motodesk.rules.fees import FeeAct
from motodesk.rules.text import application_number
from motodesk.services import fees
from motodesk.services.clock import local_today
from motodesk.services.context import EDITORS, READERS, AppContext, requires
from motodesk.services.errors import InvalidInputError, NotFoundError, RuleViolationError
from motodesk.services.people import check_dossier, get_dossier
from motodesk.services.settings import law_settings


@dataclass(frozen=True)
class ApplicationInfo:
    id: int
    number: str
    service: ServiceType
    state: PermitState
    opened_on: date
    opened_by: str
    decided_at: datetime | None = None
    reason: str | None = None
    tender_homologation_date: date | None = None

    @property
    def is_open(self) -> bool:
        return self.state in OPEN_STATES


@dataclass(frozen=True)
class PermitInfo:
    id: int
    number: str
    service: ServiceType
    state: PermitState
    issued_on: date
    term_end: date
    certificate_valid_until: date
    ended_on: date | None = None


def _application_info(app: Application, homologated: date | None = None) -> ApplicationInfo:
    return ApplicationInfo(app.id, application_number(app.id, app.opened_on), app.service_type, app.state,
                           app.opened_on, app.opened_by, app.decided_at, app.reason, homologated)


@requires(*EDITORS)
def open_application(ctx: AppContext, person_id: int, service: ServiceType | str, *,
                     opened_on: date | None = None) -> ApplicationInfo:
    """Open a requerimento of ``service`` for the person.

    Refused while the person has another application open, or a permit in force: a permit is
    personal, for one vehicle, one per holder (Art. 6º, § 1º and § 2º).
    """
    try:
        service = ServiceType(service)
    except ValueError:
        raise InvalidInputError(f"Serviço desconhecido: {service!r}.") from None
    opened_on = opened_on or local_today()
    settings = law_settings(ctx)
    with ctx.write() as s:
        person = s.get(Person, person_id, with_for_update=True)  # serialises two clerks opening at once
        if person is None:
            raise NotFoundError("A pessoa não existe mais no cadastro.")
        blocking: list[Verdict] = []
        for app in s.scalars(select(Application).where(Application.person_id == person_id,
                                                       Application.state.in_(OPEN_STATES))):
            blocking.append(acts.one_open_application(person.full_name, application_number(app.id, app.opened_on),
                                                      app.service_type, app.state))
        for permit in s.scalars(select(Permit).where(Permit.person_id == person_id,
                                                     Permit.state.in_([PermitState.ACTIVE, PermitState.SUSPENDED]))):
            blocking.append(acts.one_permit_in_force(person.full_name, permit.number, permit.service_type,
                                                     permit.state))
        if blocking:
            raise RuleViolationError(blocking, "Não é possível abrir o requerimento:")
        fees.require_payment(s, settings, FeeAct.APPLICATION, person_id)  # Art. 6º, § 6º
        app = Application(person_id=person_id, service_type=service, state=PermitState.REQUESTED,
                          opened_on=opened_on, opened_by=ctx.user.login)
        s.add(app)
        s.flush()
        s.add(PermitEvent(application_id=app.id, transition="open", from_state=None,
                          to_state=PermitState.REQUESTED.value, by_user=ctx.user.login,
                          reason=f"Requerimento de {service.label} aberto no balcão"))
        s.flush()
        return _application_info(app)


@requires(*READERS)
def list_applications(ctx: AppContext, person_id: int) -> list[ApplicationInfo]:
    """The person's applications, newest first, with the tender's homologation date if any."""
    with ctx.read() as s:
        rows = s.execute(
            select(Application, Tender.homologated_on)
            .outerjoin(TenderCandidate, TenderCandidate.id == Application.tender_candidate_id)
            .outerjoin(Tender, Tender.id == TenderCandidate.tender_id)
            .where(Application.person_id == person_id)
            .order_by(Application.opened_on.desc(), Application.id.desc())
        ).all()
        return [_application_info(app, homologated) for app, homologated in rows]


@requires(*READERS)
def list_permits(ctx: AppContext, person_id: int) -> list[PermitInfo]:
    """The person's permits and authorizations, newest first."""
    with ctx.read() as s:
        permits = s.scalars(select(Permit).where(Permit.person_id == person_id)
                            .order_by(Permit.issued_on.desc(), Permit.id.desc()))
        return [PermitInfo(p.id, p.number, p.service_type, p.state, p.issued_on, p.term_end,
                           p.certificate_valid_until, p.ended_on) for p in permits]


@requires(*READERS)
def deputy_of(ctx: AppContext, person_id: int) -> list[str]:
    """Numbers of the permits the person is the current deputy (preposto) of (Art. 14)."""
    with ctx.read() as s:
        return list(s.scalars(select(Permit.number).join(DeputyLink, DeputyLink.permit_id == Permit.id)
                              .where(DeputyLink.deputy_person_id == person_id, DeputyLink.end_on.is_(None))
                              .order_by(Permit.number)))


def open_application_for(applications: list[ApplicationInfo], service: ServiceType) -> ApplicationInfo | None:
    return next((a for a in applications if a.service is service and a.is_open), None)


@requires(*READERS)
def pending_letter(ctx: AppContext, person_id: int, service: ServiceType, *, on: date | None = None,
                   deadline: date | None = None) -> bytes:
    """The A4 letter to the applicant listing what the stored dossier still lacks, by article."""
    from motodesk.printing.documents import PendingItem, PendingLetterData, render_pending_letter

    on = on or local_today()
    dossier = get_dossier(ctx, person_id)
    application = open_application_for(list_applications(ctx, person_id), service)
    homologated = application.tender_homologation_date if application else None
    verdicts = check_dossier(ctx, person_id, service, on=on, tender_homologation_date=homologated)
    items = [PendingItem(v.article, v.message) for v in verdicts if v.status is not Status.MET]
    if not items:
        raise InvalidInputError("O dossiê não tem pendências para este serviço: não há comunicado a imprimir.")
    person = dossier.person
    address = ", ".join(p for p in (person.address, person.district, person.city, person.uf) if p)
    data = PendingLetterData(
        application_number=application.number if application else "(a abrir)",
        service=service,
        applicant_name=person.full_name,
        letter_date=on,
        items=items,
        applicant_address=address,
        deadline=deadline,
        signatory_name=ctx.user.full_name,
    )
    return render_pending_letter(data)


def permit_or_application_number(s: Session, person_id: int | None) -> str:
    """What a laudo's "Permissão / requerimento nº" names: the person's permit in force, else the
    person's open requerimento (a new vehicle is inspected before the permit exists), else nothing."""
    if person_id is None:
        return ""
    permit = s.scalar(select(Permit).where(
        Permit.person_id == person_id,
        Permit.state.in_(IN_FORCE_STATES)).order_by(Permit.id.desc()))
    if permit is not None:
        return permit.number or ""
    application = s.scalar(select(Application).where(
        Application.person_id == person_id, Application.state.in_(OPEN_STATES)).order_by(Application.id.desc()))
    return application_number(application.id, application.opened_on) if application is not None else ""
