"""Holders, deputies and permits in force for the enforcement tests (importable as `enforcement_factory`)."""

from __future__ import annotations

import itertools
import random
import string
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from sqlalchemy import update
from tests_helpers import existing_register, valid_cpf  # type: ignore[import-not-found]

from motodesk.models import BadgePrint, DeputyLink, Permit, Person, QuotaCounter, Vehicle
from motodesk.rules.common import PermitState, ServiceType
from motodesk.rules.lifecycle import permit_term_end, registration_certificate_valid_until
from motodesk.services.context import AppContext
from motodesk.services.text import fold

_letters = "".join(random.sample(string.ascii_uppercase, 2))
_plates = itertools.count(1000)
_seqs = itertools.count(1)


def next_plate() -> str:
    """A fresh old-format plate (``ABC1234``) never used in this test run."""
    return f"Q{_letters}{next(_plates)}"


@dataclass(frozen=True)
class Holder:
    person_id: int
    name: str
    cpf: str
    permit_id: int
    permit_number: str
    vehicle_id: int
    plate: str
    service: ServiceType


def add_person(ctx: AppContext, name: str, cpf: str | None = None) -> tuple[int, str]:
    cpf = cpf or valid_cpf()
    with ctx.write() as s:
        existing_register(s)
        person = Person(full_name=name, name_search=fold(name), cpf=cpf, address="Rua Goiás, 120",
                        district="Centro", city="Patrocínio", uf="MG")
        s.add(person)
        s.flush()
        return person.id, cpf


def add_holder(ctx: AppContext, name: str = "José Carlos Pereira", *,
               service: ServiceType = ServiceType.MOTOTAXI, issued_on: date | None = None,
               state: PermitState = PermitState.ACTIVE) -> Holder:
    """A person with a vehicle and a permit in force, its badge printed once (issue 1)."""
    issued_on = issued_on or date.today() - timedelta(days=200)
    person_id, cpf = add_person(ctx, name)
    plate = next_plate()
    seq = next(_seqs)
    with ctx.write() as s:
        existing_register(s)
        vehicle = Vehicle(plate=plate, make="Honda", model="CG 160 Titan", year_manufacture=date.today().year - 1,
                          year_model=date.today().year, engine_cc=160, colour="Amarela", category="aluguel",
                          renavam="00123456789", service_type=service, holder_id=person_id, active=True)
        s.add(vehicle)
        s.flush()
        permit = Permit(number=f"{service.code}-{seq:04d}/{issued_on.year}", service_type=service,
                        year=issued_on.year, seq=seq, person_id=person_id, vehicle_id=vehicle.id, state=state,
                        issued_on=issued_on, term_end=permit_term_end(issued_on, False),
                        certificate_valid_until=registration_certificate_valid_until(issued_on),
                        badge_issue_no=1)
        s.add(permit)
        s.flush()
        # Its print log (as before the log kept each claim's digest: verification compares the fields).
        s.add(BadgePrint(permit_id=permit.id, issue_no=1, printed_by="fabrica", reason="Primeira via",
                         layout="card"))
        if service is ServiceType.MOTOTAXI and state.in_force:
            s.execute(update(QuotaCounter).where(QuotaCounter.service_type == ServiceType.MOTOTAXI)
                      .values(in_force=QuotaCounter.in_force + 1))
        s.flush()
        return Holder(person_id, name, cpf, permit.id, permit.number, vehicle.id, plate, service)


def add_deputy(ctx: AppContext, holder: Holder, name: str = "Marcos Antônio Ribeiro") -> tuple[int, str]:
    person_id, cpf = add_person(ctx, name)
    with ctx.write() as s:
        existing_register(s)
        s.add(DeputyLink(permit_id=holder.permit_id, deputy_person_id=person_id,
                         start_on=date.today() - timedelta(days=30)))
    return person_id, cpf


def an_hour_ago() -> datetime:
    return datetime.now(UTC) - timedelta(hours=1)


# --- penalties through the process (Art. 29, § 3º; Art. 34): the only way a permit is suspended or revoked ---

GRAVE = "30.3.I"  # Art. 30, Grupo 3, I: desacatar a fiscalização (grave: fine or suspension)
GRAVISSIMA = "30.4.II"  # Art. 30, Grupo 4, II: arma no veículo (gravíssima: up to cassação)


def _holder_notice(supervisor: AppContext, permit_id: int, code: str, *, deputy_person_id: int | None = None,
                   on: date | None = None) -> int:
    from motodesk.services import enforcement
    from motodesk.services.enforcement import FiledDocument, NoticeInput, OffenderKind

    with supervisor.read() as s:
        permit = s.get(Permit, permit_id)
        assert permit is not None
        person_id = permit.person_id
    kind = OffenderKind.DEPUTY if deputy_person_id is not None else OffenderKind.HOLDER
    created = enforcement.create_notice(supervisor, NoticeInput(
        infraction_code=code, occurred_at=an_hour_ago(), place="Praça Honorato Borges, Centro",
        offender_kind=kind, person_id=deputy_person_id or person_id,
        description="Constatado pelo fiscal em serviço."))
    enforcement.record_defence(supervisor, created.id, FiledDocument(waived=True, received_on=on), today=on)
    return created.id


def suspend_through_process(supervisor: AppContext, permit_id: int, until: date, *, on: date | None = None,
                            deputy_person_id: int | None = None) -> str:
    """A notice against the holder (or his deputy), the defence waived, decided with a suspension to ``until``.

    Returns the notice's number, the basis of the suspension in the permit's history.
    """
    from motodesk.rules.infractions import Penalty
    from motodesk.services import enforcement
    from motodesk.services.enforcement import DecisionInput, Outcome

    on = on or date.today()
    notice_id = _holder_notice(supervisor, permit_id, GRAVE, deputy_person_id=deputy_person_id, on=on)
    enforcement.decide(supervisor, notice_id, DecisionInput(
        Outcome.UPHELD, "Desacato presenciado por dois fiscais.", Penalty.SUSPENSION,
        suspension_days=(until - on).days), today=on)
    return enforcement.get_notice(supervisor, notice_id).number


def revoke_through_process(supervisor: AppContext, permit_id: int, *, on: date | None = None,
                           deputy_person_id: int | None = None) -> str:
    """A notice against the holder (or his deputy) decided with cassação, made final by the appeal's waiver."""
    from motodesk.rules.infractions import Penalty
    from motodesk.services import enforcement
    from motodesk.services.enforcement import DecisionInput, FiledDocument, Outcome

    on = on or date.today()
    notice_id = _holder_notice(supervisor, permit_id, GRAVISSIMA, deputy_person_id=deputy_person_id, on=on)
    enforcement.decide(supervisor, notice_id, DecisionInput(
        Outcome.UPHELD, "Revólver encontrado sob o banco.", Penalty.REVOCATION), today=on)
    enforcement.record_appeal(supervisor, notice_id, FiledDocument(waived=True, received_on=on), today=on)
    enforcement.close_process(supervisor, notice_id, today=on)
    return enforcement.get_notice(supervisor, notice_id).number
