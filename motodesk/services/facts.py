"""Complete facts, loaded once: what the law asks about holders, deputies, vehicles and permits.

Session steps only (no role check, no commit).  Each loader reads, in the caller's transaction and in
a few chunked queries whatever the number of rows, everything the rules judge about the people,
vehicles and permits asked for, and returns the frozen facts of :mod:`motodesk.rules.facts`:

* :func:`people_facts` — the dossier (documents with their dates: CNH validity, categories and EAR,
  medical and criminal certificates, the declared documents, the newest photo), the recorded
  convictions (Art. 35) and the decided notices (Art. 34);
* :func:`vehicles_facts` — the CRLV, engine size, category, colour and owner, the mandatory insurance
  and the Art. 19 passenger policy, the last concluded inspection for the service, the inspections
  still open, the accidents and the accident inspections passed;
* :func:`permits_facts` — the permit with its holder, vehicle and linked deputy (the link's state),
  the holder's other permits in force and the fees paid and waiting.

The document gate (:mod:`motodesk.services.document_checks`), issue, renewal and extension
(:mod:`motodesk.services.permits`), the deputy's nomination, the import of the existing register and
the demo seed judge what these return, so the checks of every act read the same facts.
"""

from __future__ import annotations

import typing
from collections.abc import Iterable, Sequence
from datetime import date
from typing import Any

from sqlalchemy import Table, bindparam, func, select
from sqlalchemy.orm import Session

from motodesk.models import (
    Application,
    CriminalJudgment,
    Decision,
    DeputyLink,
    FeePayment,
    InfractionNotice,
    Inspection,
    Permit,
    PermitEvent,
    Person,
    PersonDocument,
    Photo,
    QuotaCounter,
    Vehicle,
    VehicleAccident,
)
from motodesk.rules.accidents import AccidentFacts
from motodesk.rules.common import PermitState, ServiceType
from motodesk.rules.dossier import DocumentKind
from motodesk.rules.facts import (
    DeputyOnPermit,
    InspectionFacts,
    PenaltyFacts,
    PermitFacts,
    PersonFacts,
    VehicleOnPermit,
    dossier_facts,
    register_vehicle_facts,
)
from motodesk.rules.fees import FeeAct
from motodesk.rules.penalty_evidence import ConvictionEvidence
from motodesk.services.clock import LOCAL_TZ

_CHUNK = 500
_QUOTA_TABLE = typing.cast(Table, QuotaCounter.__table__)
_IN_FORCE = (PermitState.ACTIVE, PermitState.SUSPENDED)
#: Accident inspections that passed: approved, or approved and later superseded by another one.
_PASSED = ("approved", "superseded")
_OPEN_INSPECTION = ("scheduled", "draft")
_BOOKKEEPING = ("created_at", "updated_at", "version")  # the row's own, no fact of the law


def _chunks(ids: Iterable[int]) -> list[list[int]]:
    ordered = sorted(set(ids))
    return [ordered[i:i + _CHUNK] for i in range(0, len(ordered), _CHUNK)]


def _rows(s: Session, model: Any, *where: Any, plain: bool = False, order: Sequence[Any] = ()) -> Iterable[Any]:
    """The rows of ``model`` that match: session objects, or with ``plain`` the table's rows as read (the same
    column values under the same names, as every loader here reads them by attribute; no identity map, no
    instance state: a third of the CPU of loading the 50,000 objects of 10,000 imported permits, issue 28).
    ``plain`` is for a session that holds no pending change (the import's findings, read after its commit):
    plain rows are what the database holds, not what the session would flush."""
    if plain:  # every column but the row's own bookkeeping, which no fact reads (and costs a datetime parse)
        columns = [c for c in model.__table__.c if c.name not in _BOOKKEEPING]
        return s.execute(select(*columns).where(*where).order_by(*order))
    return s.scalars(select(model).where(*where).order_by(*order))


def _in(column: Any, ids: Sequence[int]) -> Any:
    """``column IN (ids)`` with the ids as one expanding parameter: the statement is built and cached once,
    not coerced id by id (issue 28: building the IN lists of 500 literals was a fifth of loading the facts
    of 10,000 imported permits)."""
    return column.in_(bindparam(None, value=list(ids), expanding=True, type_=column.type))


def _by_id(s: Session, model: Any, ids: Iterable[int], plain: bool = False) -> dict[int, Any]:
    found: dict[int, Any] = {}
    for chunk in _chunks(ids):
        found.update({row.id: row for row in _rows(s, model, _in(model.id, chunk), plain=plain)})
    return found


def _local(moment: Any) -> date:
    return moment.astimezone(LOCAL_TZ).date()


# --- people ------------------------------------------------------------------------------------


def people_facts(s: Session, person_ids: Iterable[int], *,
                 tender_homologation: dict[int, date] | None = None, plain: bool = False) -> dict[int, PersonFacts]:
    """The facts of each person asked for (a person not stored is left out).

    ``tender_homologation`` gives, per person, the homologation of the tender their application
    follows (mototáxi: the medical certificate's 30 days run from it, Art. 5º, § 2º). ``plain``: see
    :func:`_rows` (the same facts, read as plain rows).
    """
    ids = set(person_ids)
    people: dict[int, Person] = _by_id(s, Person, ids, plain)
    documents: dict[int, dict[DocumentKind, PersonDocument]] = {pid: {} for pid in people}
    photos: dict[int, date] = {}
    convictions: dict[int, list[ConvictionEvidence]] = {pid: [] for pid in people}
    penalties: dict[int, list[PenaltyFacts]] = {pid: [] for pid in people}
    for chunk in _chunks(people):
        for row in _rows(s, PersonDocument, _in(PersonDocument.person_id, chunk), plain=plain):
            documents[row.person_id][DocumentKind(row.kind)] = row
        for person_id, newest in s.execute(select(Photo.person_id, func.max(Photo.captured_at))
                                           .where(_in(Photo.person_id, chunk)).group_by(Photo.person_id)):
            photos[person_id] = _local(newest)
        for j in _rows(s, CriminalJudgment, _in(CriminalJudgment.person_id, chunk), plain=plain,
                       order=(CriminalJudgment.final_on.desc(), CriminalJudgment.id.desc())):
            convictions[j.person_id].append(ConvictionEvidence(True, j.permit_id, j.person_id, j.case_number or "",
                                                               j.final_on))
        decided = s.execute(
            select(InfractionNotice.person_id, InfractionNotice.number, InfractionNotice.status,
                   InfractionNotice.permit_id, Decision.penalty, Decision.suspension_end)
            .join(Decision, Decision.notice_id == InfractionNotice.id)
            .where(_in(InfractionNotice.person_id, chunk), Decision.outcome == "upheld")
            .order_by(InfractionNotice.id, Decision.id))
        last: dict[tuple[int, str], PenaltyFacts] = {}
        for d in decided:  # the latest decision of each notice is the one in force
            if d.person_id is not None:
                last[(d.person_id, d.number)] = PenaltyFacts(d.number, d.status, d.penalty, d.permit_id,
                                                             d.suspension_end)
        for (person_id, _number), penalty in last.items():
            penalties[person_id].append(penalty)
    homologation = tender_homologation or {}
    out = {}
    for pid, person in people.items():
        dossier = dossier_facts(person, documents[pid], photo_date=photos.get(pid),
                                tender_homologation_date=homologation.get(pid))
        out[pid] = PersonFacts(pid, person.full_name, person.cpf, dossier, tuple(convictions[pid]),
                               tuple(penalties[pid]))
    return out


def person_facts(s: Session, person_id: int, *, tender_homologation: date | None = None) -> PersonFacts:
    """One person's facts (the person must be stored)."""
    found = people_facts(s, [person_id], tender_homologation=(
        {person_id: tender_homologation} if tender_homologation else None))
    return found[person_id]


# --- vehicles ----------------------------------------------------------------------------------


def vehicles_facts(s: Session, wanted: Iterable[tuple[int, ServiceType]], *,
                   plain: bool = False) -> dict[int, VehicleOnPermit]:
    """The facts of each (vehicle id, service its inspection is judged for) asked for (``plain``: :func:`_rows`)."""
    services = dict(wanted)
    vehicles: dict[int, Vehicle] = _by_id(s, Vehicle, services, plain)
    successors: dict[int, Vehicle] = _by_id(
        s, Vehicle, {v.replaced_by_id for v in vehicles.values() if not v.active and v.replaced_by_id}, plain)
    inspections: dict[int, list[Inspection]] = {vid: [] for vid in vehicles}
    accidents: dict[int, list[AccidentFacts]] = {vid: [] for vid in vehicles}
    for chunk in _chunks(vehicles):
        for i in _rows(s, Inspection, _in(Inspection.vehicle_id, chunk), plain=plain):
            inspections[i.vehicle_id].append(i)
        for a in _rows(s, VehicleAccident, _in(VehicleAccident.vehicle_id, chunk), plain=plain,
                       order=(VehicleAccident.happened_on, VehicleAccident.id)):
            accidents[a.vehicle_id].append(AccidentFacts(a.happened_on, a.reported_on, a.safety_compromised))
    out = {}
    for vid, vehicle in vehicles.items():
        done = inspections[vid]
        concluded = sorted((i for i in done if i.service_type == services[vid]
                            and i.status in ("approved", "failed") and i.performed_at is not None),
                           key=lambda i: (i.performed_at, i.id))
        last = (InspectionFacts(_local(concluded[-1].performed_at), concluded[-1].status == "approved")
                if concluded else None)
        passed = tuple(sorted(_local(i.performed_at) for i in done
                              if i.kind == "accident" and i.status in _PASSED and i.performed_at))
        successor = successors.get(vehicle.replaced_by_id) if not vehicle.active and vehicle.replaced_by_id else None
        out[vid] = VehicleOnPermit(
            vehicle_id=vid, plate=vehicle.plate, holder_id=vehicle.holder_id, active=vehicle.active,
            facts=register_vehicle_facts(vehicle),
            last_inspection=last,
            open_inspections=sum(1 for i in done if i.status in _OPEN_INSPECTION),
            accidents=tuple(accidents[vid]), approved_accident_inspections=passed,
            successor_plate=successor.plate if successor is not None else None)
    return out


def vehicle_facts_of(s: Session, vehicle_id: int | None, service: ServiceType) -> VehicleOnPermit | None:
    if vehicle_id is None:
        return None
    return vehicles_facts(s, [(vehicle_id, service)]).get(vehicle_id)


# --- permits -----------------------------------------------------------------------------------


def permits_facts(s: Session, permit_ids: Sequence[int], *, plain: bool = False) -> dict[int, PermitFacts]:
    """The facts of each permit asked for, with its holder, vehicle and linked deputy (``plain``: :func:`_rows`)."""
    permits: dict[int, Permit] = _by_id(s, Permit, permit_ids, plain)
    links: dict[int, DeputyLink] = {}
    others: dict[int, int] = {}
    waiting: dict[int, set[FeeAct]] = {pid: set() for pid in permits}
    imported: set[int] = set()
    holder_ids = {p.person_id for p in permits.values()}
    for chunk in _chunks(permits):
        links.update({link.permit_id: link for link in _rows(
            s, DeputyLink, _in(DeputyLink.permit_id, chunk), DeputyLink.end_on.is_(None), plain=plain)})
        for act, subject in s.execute(select(FeePayment.act, FeePayment.subject_id).where(
                _in(FeePayment.subject_id, chunk), FeePayment.used_at.is_(None),
                FeePayment.act.in_((FeeAct.RENEWAL, FeeAct.EXTENSION, FeeAct.BADGE_COPY)))):
            waiting[subject].add(FeeAct(act))
        imported.update(s.scalars(select(PermitEvent.permit_id).where(_in(PermitEvent.permit_id, chunk),
                                                                       PermitEvent.transition == "import")))
    for chunk in _chunks(holder_ids):
        for (person_id,) in s.execute(select(Permit.person_id).where(
                _in(Permit.person_id, chunk), Permit.state.in_(_IN_FORCE))):
            others[person_id] = others.get(person_id, 0) + 1
    applications: dict[int, Application] = _by_id(
        s, Application, {p.application_id for p in permits.values() if p.application_id}, plain)
    people = people_facts(s, holder_ids | {link.deputy_person_id for link in links.values()}, plain=plain)
    vehicles = vehicles_facts(s, [(p.vehicle_id, p.service_type) for p in permits.values() if p.vehicle_id],
                              plain=plain)
    out = {}
    for pid, permit in permits.items():
        link = links.get(pid)
        application = applications.get(permit.application_id) if permit.application_id else None
        in_force_here = 1 if permit.state in _IN_FORCE else 0
        out[pid] = PermitFacts(
            permit_id=pid, number=permit.number, service=permit.service_type, state=permit.state,
            issued_on=permit.issued_on, term_end=permit.term_end, extended=bool(permit.extended),
            certificate_valid_until=permit.certificate_valid_until, holder=people[permit.person_id],
            suspended_until=permit.suspended_until,
            granted_person_id=application.person_id if application else None,
            vehicle=vehicles.get(permit.vehicle_id) if permit.vehicle_id else None,
            deputy=DeputyOnPermit(link.id, people[link.deputy_person_id], link.start_on, link.suspended_until,
                                  bool(link.revoked)) if link else None,
            holder_other_permits_in_force=others.get(permit.person_id, 0) - in_force_here,
            fees_waiting=tuple(sorted(waiting[pid])),
            imported=pid in imported,
        )
    return out


def permit_facts(s: Session, permit_id: int) -> PermitFacts:
    """One permit's facts (the permit must be stored)."""
    return permits_facts(s, [permit_id])[permit_id]


# --- the quota ---------------------------------------------------------------------------------


def quota_counts(s: Session) -> tuple[int, int, int] | None:
    """(places, in force, open places) of the mototáxi quota, read fresh from the database."""
    row = s.execute(
        select(_QUOTA_TABLE.c.places, _QUOTA_TABLE.c.in_force)
        .where(_QUOTA_TABLE.c.service_type == ServiceType.MOTOTAXI)
    ).first()
    if row is None:
        return None
    places, in_force = int(row.places), int(row.in_force)
    return places, in_force, max(0, places - in_force)
