"""What issue, renewal and extension ask of the facts loaded once (:mod:`motodesk.rules.facts`).

The services load a permit's (or an application's) complete facts in the act's transaction and give
them here; these functions turn them into the verdicts :func:`motodesk.rules.lifecycle.check_transition`
judges, so the three acts and the document gate read the same facts:

* :func:`holder_verdicts` — Art. 5º, 6º § 1º and 8º on the holder's dossier (CNH validity and
  category A included);
* :func:`vehicle_verdicts` — the vehicle's documents and characteristics (Art. 3º, 5º § 1º, § 5º,
  § 8º, Art. 19 passenger policy) and, when asked, the validity of its inspection (Art. 5º, § 6º;
  Art. 23); a permit or application with no vehicle is refused (Art. 5º, § 1º);
* :func:`deputy_verdicts` — the linked deputy judged again by the holder's rules (Art. 14, § 2º) and
  the link's state: a deputy whose registration was cassado is not carried into a renewed term
  (Art. 34, IV);
* :func:`quota_full` — no mototáxi place left at the instant of the claim (Art. 10, I).
* :func:`issue_context` and :func:`renewal_context` — what the issue and the renewal of the
  registration certificate are judged on, built once for the services and the seed;
* :func:`seeded_permit_verdicts` — a demo-seeded permit judged by the transitions a real one in its
  state went through (issue, renewal, the penalty step), on facts built in memory by the same mappers;
* :func:`vehicle_release_due` and :func:`vehicle_release_verdicts` — the vehicle's baixa after its
  permit ends (Art. 31, Grupo 4, II), refused while a permit in force names it (Art. 31, Grupo 3, II).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import date

from motodesk.rules.common import PermitState, Role, ServiceType, Status, Verdict, not_met
from motodesk.rules.deputies import deputy_requirements
from motodesk.rules.document_gate import Document, check_document, check_inspection_valid, document_facts_of
from motodesk.rules.eligibility import check_applicant, check_deputy
from motodesk.rules.facts import DeputyOnPermit, InspectionFacts, PermitFacts, PersonFacts, VehicleOnPermit
from motodesk.rules.lifecycle import TransitionContext, check_transition
from motodesk.rules.penalty_evidence import NoticeEvidence
from motodesk.rules.quota import ARTICLE as ART_QUOTA
from motodesk.rules.settings import LawSettings
from motodesk.rules.tenders import TenderCandidateFacts, called_candidate, check_tender, tender_required
from motodesk.rules.text import format_date, format_int, plural
from motodesk.rules.vehicle import check_vehicle

ART_VEHICLE = "Art. 5º, § 1º"


def holder_verdicts(holder: PersonFacts, service: ServiceType, on: date, settings: LawSettings) -> list[Verdict]:
    """Every requirement of the holder on ``on`` (Art. 5º, 6º § 1º, 8º), from the dossier loaded once."""
    return check_applicant(holder.dossier, service, on, settings)


def no_vehicle() -> Verdict:
    return not_met("vehicle_missing", ART_VEHICLE,
                   "nenhum veículo está vinculado; cadastre a motocicleta do requerente.")


def vehicle_verdicts(vehicle: VehicleOnPermit | None, service: ServiceType, on: date, settings: LawSettings,
                     holder_cpf: str | None, *, inspection: str = "none") -> list[Verdict]:
    """The vehicle's own verdicts and, by ``inspection``, its inspection's validity.

    ``inspection``: ``"none"`` (the transition's own rule judges it), ``"valid"`` (the last concluded
    inspection approved the vehicle and still runs) or ``"expiry"`` (only an approved inspection
    whose validity ran out — for the acts whose rule already refuses a vehicle never inspected).
    """
    if vehicle is None:
        return [no_vehicle()]
    verdicts = check_vehicle(vehicle.facts, service, on, settings, holder_cpf)
    last = vehicle.last_inspection
    if inspection == "valid" or (inspection == "expiry" and last is not None and last.approved):
        verdicts += check_inspection_valid(service, last, on, settings)
    return verdicts


def inspection_approved(vehicle: VehicleOnPermit | None) -> bool | None:
    """The outcome of the vehicle's last concluded inspection for the service (None: never inspected)."""
    if vehicle is None or vehicle.last_inspection is None:
        return None
    return vehicle.last_inspection.approved


def deputy_verdicts(deputy: DeputyOnPermit | None, service: ServiceType, on: date,
                    settings: LawSettings) -> list[Verdict]:
    """The linked deputy on ``on``: the holder's requirements (Art. 14, § 2º) and the link's state."""
    if deputy is None:
        return []
    found = deputy_requirements(check_deputy(deputy.person.dossier, service, on, settings), deputy.person.name)
    if deputy.revoked:
        found.append(not_met("deputy_link_revoked", "Art. 34, IV",
                             f"o registro do preposto {deputy.person.name} foi cassado; encerre o vínculo antes "
                             "de renovar."))
    return found


def quota_full(places: int, in_force: int, population: int) -> Verdict:
    """Art. 10, I: the claim of a place found none left (another workstation may have taken the last)."""
    return not_met(
        "art10_i_quota", ART_QUOTA,
        f"não há vaga de mototáxi — {plural(places, 'permissão', 'permissões')} para "
        f"{format_int(population)} habitantes, {format_int(in_force)} em vigor (a última vaga pode "
        "ter sido ocupada por outra estação neste instante).")


def one_open_application(name: str, number: str, service: ServiceType, state: PermitState) -> Verdict:
    """Art. 6º, §§ 1º e 2º: one application at a time per person."""
    return not_met("one_open_application", "Art. 6º, §§ 1º e 2º",
                   f"{name} já tem o requerimento nº {number} ({service.label}, {state.label.lower()}) em aberto; "
                   "conclua-o ou cancele-o antes de abrir outro.")


def one_permit_in_force(name: str, number: str, service: ServiceType, state: PermitState) -> Verdict:
    """Art. 6º, § 2º: one vehicle and one permit or authorization per holder."""
    return not_met("one_permit_in_force", "Art. 6º, § 2º",
                   f"{name} já detém a {service.instrument} {number} ({service.label}, {state.label.lower()}); "
                   "cada detentor tem um único veículo e uma única permissão ou autorização.")


def affiliate_without_permit(name: str) -> Verdict:
    """Art. 9º: the organisations gather holders of permits or authorizations in force."""
    return not_met("art9_holder", "Art. 9º",
                   f"organizam-se os permissionários e autorizatários; {name} não tem permissão ou autorização "
                   "em vigor.")


# --- the import of the existing register ----------------------------------------------------------------

ART_GRANTED_BEFORE = "Art. 6º"


def imported_permit_date(number: str, issued: date, today: date) -> Verdict | None:
    """The import records permits *granted before* (their original number and dates); a permit dated
    today or later was not granted before — it is issued here, by application, Decree, inspection and
    fee (Art. 6º)."""
    if issued < today:
        return None
    return not_met("import_granted_before", ART_GRANTED_BEFORE,
                   f"a permissão {number} tem emissão em {format_date(issued)}; a importação registra só "
                   "permissões outorgadas antes de hoje, com a data original. Uma permissão nova segue o "
                   "requerimento, o Decreto, a vistoria e a taxa.")


def imported_permit_findings(permit: PermitFacts, on: date, settings: LawSettings) -> list[Verdict]:
    """What today's facts say of a permit recorded from the earlier register: every article its
    documents could not vouch for today (the document gate's own verdicts on the registration
    certificate), so the import lists each non-conformity per holder instead of accepting it silently."""
    if not permit.state.in_force:
        return []
    return check_document(document_facts_of(permit, Document.REGISTRATION_CERTIFICATE, on, settings), on, settings)


def import_line_refused(line: int, reason: str) -> Verdict:
    """A line of the register's sheet the rules refused (Art. 4º; Art. 5º), with the reasons they gave."""
    return Verdict("import_line", "Art. 4º; Art. 5º", Status.NOT_MET, f"Linha {line}: {reason}")


# --- the demo seed --------------------------------------------------------------------------------------


#: Of the holder and the vehicle on the issue date, what the register can still judge of a seeded permit:
#: the holder was 21 (Art. 5º, I), the engine is of 125 to 250 cc (Art. 3º, I), the vehicle was within
#: its useful life (Art. 3º, II). The documents on file are today's — the ones the issue saw are not
#: kept, as for a permit recorded by the import — so they are judged today, by the renewal's gate.
SEED_AT_ISSUE = frozenset({"art5_i_age", "art3_i_engine", "art3_ii_useful_life"})

#: The penalty step that put a seeded permit in its state, by state.
SEED_PENALTY_STEP = {PermitState.SUSPENDED: "suspend", PermitState.REVOKED: "revoke"}


def issue_context(holder: PersonFacts, vehicle: VehicleOnPermit | None, service: ServiceType, on: date,
                  settings: LawSettings, *, tender: Sequence[Verdict] = (), quota_open_places: int | None,
                  holder_permits_in_force: int, holder_rules: frozenset[str] | None = None) -> TransitionContext:
    """What the issue of a permit is judged on (:func:`check_transition` ``"issue"``), from the facts
    loaded once: the holder's and the vehicle's verdicts on ``on`` (with, for a mototáxi, the tender's,
    Art. 6º), the last concluded inspection, the quota place (Art. 10, I), the holder's permits in
    force (Art. 6º, § 2º) and a recorded conviction (Art. 35). ``holder_rules`` keeps only those rule
    ids of the holder's and vehicle's verdicts (the seed: what the issue date still tells)."""
    eligibility = holder_verdicts(holder, service, on, settings)
    car = vehicle_verdicts(vehicle, service, on, settings, holder.cpf, inspection="expiry")
    if holder_rules is not None:
        eligibility = [v for v in eligibility if v.rule_id in holder_rules]
        car = [v for v in car if v.rule_id in holder_rules or v.rule_id == "vehicle_missing"]
    return TransitionContext(
        on=on, service=service, eligibility=[*tender, *eligibility], vehicle=car,
        inspection_approved=inspection_approved(vehicle), quota_open_places=quota_open_places,
        holder_permits_in_force=holder_permits_in_force,
        conviction=holder.conviction)  # Art. 35: a cassação is not undone by a new issue


def renewal_context(permit: PermitFacts, on: date, settings: LawSettings) -> TransitionContext:
    """What the yearly renewal of the registration certificate is judged on (Art. 4º, § 1º): the
    holder's and the vehicle's verdicts on ``on`` with a valid inspection, the linked deputy's
    (Art. 14, § 2º) and a recorded conviction (Art. 35)."""
    return TransitionContext(
        on=on, service=permit.service,
        eligibility=holder_verdicts(permit.holder, permit.service, on, settings),
        vehicle=vehicle_verdicts(permit.vehicle, permit.service, on, settings, permit.holder.cpf,
                                 inspection="valid"),
        deputy_requirements=deputy_verdicts(permit.deputy, permit.service, on, settings),
        conviction=permit.holder.conviction)


def seeded_permit_verdicts(permit: PermitFacts, today: date, settings: LawSettings,
                           candidacy: TenderCandidateFacts | None, *, issue_inspection: InspectionFacts | None,
                           quota_open_places: int | None, penalty: tuple[date, NoticeEvidence] | None = None,
                           ) -> list[Verdict]:
    """What refuses a demo-seeded permit, by the transitions a real permit in its state went through,
    judged by :func:`check_transition` on its complete facts (built in memory by the mappers of
    :mod:`motodesk.rules.facts`):

    * the **issue** on its date (:func:`issue_context`): the inspection approved before it
      (``issue_inspection``), the mototáxi's tender (Art. 6º) and quota place (Art. 10, I), one permit
      per holder (Art. 6º, § 2º), no recorded conviction (Art. 35), and :data:`SEED_AT_ISSUE`;
    * while it is in force, the **renewal** of its registration certificate today
      (:func:`renewal_context`), the act whose certificate the seed writes: every requirement the
      facts on file do not meet refuses; evidence the demo does not generate (course, identity, photo,
      VIN) stays pending on the dossier, as for a permit recorded by the import;
    * a suspended or revoked permit, the **penalty step** on the decision's date, from the decided
      notice the seed writes with it (``penalty``: the date and the notice as evidence, Art. 29, § 3º;
      Art. 34) — no penalty without its process.

    Empty: the seed may write the permit.
    """
    tender: list[Verdict] = []
    if tender_required(permit.service):
        tender = check_tender(candidacy is not None, candidacy) or [called_candidate()]
    at_issue = (dataclasses.replace(permit.vehicle, last_inspection=issue_inspection)
                if permit.vehicle is not None else None)
    issue = issue_context(permit.holder, at_issue, permit.service, permit.issued_on, settings, tender=tender,
                          quota_open_places=quota_open_places,
                          holder_permits_in_force=permit.holder_other_permits_in_force, holder_rules=SEED_AT_ISSUE)
    found = check_transition("issue", PermitState.APPROVED, Role.SUPERVISOR, issue)
    if permit.state.in_force:
        renewal = check_transition("renew_registration", PermitState.ACTIVE, Role.SUPERVISOR,
                                   renewal_context(permit, today, settings))
        found += [v for v in renewal if v.status is Status.NOT_MET]
    step = SEED_PENALTY_STEP.get(permit.state)
    if step is not None:
        decided_on, notice = penalty if penalty is not None else (None, None)
        tctx = TransitionContext(on=decided_on, service=permit.service, permit_id=permit.permit_id,
                                 penalty_notice=notice, reason="Dados de demonstração.",
                                 suspension_end=permit.suspended_until)
        found += check_transition(step, PermitState.ACTIVE, Role.SUPERVISOR, tctx)
    return found


# --- Art. 31, Grupo 4, II: the vehicle's baixa after the permit ends ---------------------------------------

ART_RELEASE = "Art. 31, Grupo 4, II"
#: The permit's end that obliges the holder to take the vehicle out of the service (Art. 31, Grupo 4, II:
#: "cancelamento da permissão ou da autorização, cassação"; the end of the term ends it too, Art. 6º).
RELEASE_AFTER = (PermitState.CANCELLED, PermitState.REVOKED, PermitState.EXPIRED)


def vehicle_release_due(plate: str, number: str, state: PermitState, ended_on: date | None) -> Verdict:
    """Art. 31, Grupo 4, II: the vehicle of a permit that ended is still registered in the service — the
    holder has to give it baixa (a gravíssima infraction while it is not)."""
    since = f" em {format_date(ended_on)}" if ended_on else ""
    return not_met("art31_g4_ii_vehicle_release", ART_RELEASE,
                   f"o veículo {plate} continua cadastrado no serviço, mas a permissão {number} terminou{since} "
                   f"({state.label.lower()}); registre a baixa do veículo.")


def vehicle_release_verdicts(plate: str, permits_in_force: list[str]) -> list[Verdict]:
    """The baixa of a vehicle from the service: refused while a permit in force names it — taking that
    vehicle out is a replacement, authorised and inspected (Art. 31, Grupo 3, II)."""
    if not permits_in_force:
        return []
    return [not_met("vehicle_release_in_force", "Art. 31, Grupo 3, II",
                    f"o veículo {plate} serve a permissão em vigor {', '.join(permits_in_force)}; a troca do "
                    "veículo é a substituição autorizada, com nova vistoria, não uma baixa.")]


def vehicle_release_without_end(plate: str) -> Verdict:
    """The baixa of Art. 31, Grupo 4, II follows the end of a permit: a vehicle no ended permit names
    (registered for an application still open) is not taken out of the service by it."""
    return not_met("vehicle_release_no_end", ART_RELEASE,
                   f"nenhuma permissão cancelada, cassada ou com prazo encerrado tem o veículo {plate}; a baixa "
                   "do serviço segue o fim da permissão.")


def vehicle_release_reason(plate: str, number: str, state: PermitState) -> str:
    """What the permit's history says of the baixa (pt_BR)."""
    return (f"Baixa do veículo {plate} do serviço após a permissão {number} ({state.label.lower()}) — "
            f"{ART_RELEASE}")
