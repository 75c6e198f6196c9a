"""Documents tell the truth on the day they print (Art. 4º § 1º, 5º § 3º–§ 4º, 6º § 1º, 7º).

The registration certificate (Art. 4º, § 1º), the transit authorization (Art. 5º, § 3º; Art. 12, I)
and the badge of the holder or of the deputy (Art. 5º, § 4º; Art. 14) each state that, on the day
they are printed, the holder may work with that vehicle.  :func:`check_document` refuses to let them
say so unless, on that day:

* the permit is **in force** (not suspended, Art. 34, III; not ended) and its registration
  certificate and term still run (Art. 4º, § 1º; Art. 6º);
* it is printed for **the person the permit was granted to** (Art. 6º, § 1º; Art. 7º: personal and
  non-transferable) — the permit's holder is the one of its application, the vehicle is the holder's,
  a print request naming someone else is refused, and a deputy badge bears the linked deputy;
* the vehicle is **within its useful life** (Art. 3º, II), its **CRLV** is current (Art. 5º, § 1º,
  I) and its **mandatory insurance** (DPVAT/SPVAT) is in force in the holder's name (Art. 5º, § 1º,
  I; § 5º) — the vehicle rules' own verdicts (:mod:`motodesk.rules.vehicle`);
* its **required inspection** is valid: the last concluded one approved it and its validity for the
  service has not run out (Art. 5º, § 6º; Art. 23; :func:`check_inspection_valid`);
* no **safety-compromising accident** waits for its accident inspection (Art. 31, Grupo 4, I;
  :mod:`motodesk.rules.accidents`);
* the holder's — and, on a deputy badge, the deputy's — yearly **medical certificate** (Art. 5º,
  VII and § 2º) and five-year negative **criminal certificates** (Art. 5º, XI) are current, counted
  by the same period helpers as the dossier (:mod:`motodesk.rules.eligibility`).

A refusal lists **every** failing article, not only the first.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from enum import StrEnum

from motodesk.rules import documents_declared
from motodesk.rules.accidents import check_accidents
from motodesk.rules.common import PermitState, ServiceType, Status, Verdict, not_met
from motodesk.rules.deadlines import inspection_valid_until
from motodesk.rules.deputies import deputy_requirements
from motodesk.rules.documents_declared import DEPUTY, HOLDER
from motodesk.rules.eligibility import (
    check_cnh,
    check_deputy,
    criminal_certificates_valid_until,
    medical_valid_until,
)
from motodesk.rules.facts import InspectionFacts, PermitFacts, PersonFacts
from motodesk.rules.replacement import documents_wait_for_replacement
from motodesk.rules.settings import LawSettings
from motodesk.rules.text import format_date, plural
from motodesk.rules.vehicle import check_vehicle

ART_PERSONAL = "Art. 6º, § 1º; Art. 7º"
ART_INSPECTION = "Art. 5º, § 6º; Art. 23"
ART_MEDICAL = "Art. 5º, VII e § 2º"
ART_CRIMINAL = "Art. 5º, XI"
ART_CNH = "Art. 5º, II"
#: The documents that name the linked deputy besides the deputy's own badge (the registration
#: certificate and the transit authorization list who may drive the vehicle, Art. 14).
NAME_THE_DEPUTY = frozenset({"registration_certificate", "transit_authorization", "deputy_badge"})


class Document(StrEnum):
    REGISTRATION_CERTIFICATE = "registration_certificate"
    TRANSIT_AUTHORIZATION = "transit_authorization"
    BADGE = "badge"
    DEPUTY_BADGE = "deputy_badge"

    @property
    def label(self) -> str:
        return {
            "registration_certificate": "o certificado de registro cadastral",
            "transit_authorization": "a autorização de trânsito",
            "badge": "o crachá",
            "deputy_badge": "o crachá do preposto",
        }[self.value]

    @property
    def noun(self) -> str:
        return {
            "registration_certificate": "certificado de registro cadastral",
            "transit_authorization": "autorização de trânsito",
            "badge": "crachá",
            "deputy_badge": "crachá de preposto",
        }[self.value]

    @property
    def article(self) -> str:
        return {
            "registration_certificate": "Art. 4º, § 1º",
            "transit_authorization": "Art. 5º, § 3º",
            "badge": "Art. 5º, § 4º",
            "deputy_badge": "Art. 5º, § 4º; Art. 14",
        }[self.value]


@dataclass(frozen=True)
class DocumentFacts:
    """Everything :func:`check_document` looks at: the permit's complete facts (:mod:`motodesk.rules.facts`,
    loaded once by the printing service in its transaction) and what the print request adds."""

    document: Document
    permit: PermitFacts
    #: The person the print request names, when it names one.
    requested_person_id: int | None = None
    #: The deputy judged again by the holder's rules today (Art. 14, § 2º), as
    #: :func:`motodesk.rules.deputies.deputy_requirements` gives them.
    deputy_requirements: tuple[Verdict, ...] = ()


def _not_met(rule_id: str, article: str, sentence: str) -> Verdict:
    return not_met(rule_id, article, f"{sentence}.")


def document_facts_of(permit: PermitFacts, document: Document, on: date, settings: LawSettings,
                      requested_person_id: int | None = None) -> DocumentFacts:
    """What :func:`check_document` looks at for ``document`` of ``permit``, from the permit's complete facts."""
    deputy = permit.deputy
    requirements: tuple[Verdict, ...] = ()
    if deputy is not None and document.value in NAME_THE_DEPUTY:
        requirements = tuple(deputy_requirements(check_deputy(deputy.person.dossier, permit.service, on, settings),
                                                 deputy.person.name))
    return DocumentFacts(document, permit, requested_person_id, requirements)


def _in_force(document: Document, permit: PermitFacts, on: date) -> list[Verdict]:
    instrument = f"a {permit.service.instrument} {permit.number}"
    if permit.state is PermitState.SUSPENDED:
        until = f" até {format_date(permit.suspended_until)}" if permit.suspended_until else ""
        return [_not_met("document_state", "Art. 34, III",
                         f"{instrument} está suspensa{until}; não se imprime {document.noun} "
                         "durante a suspensão")]
    if permit.state is not PermitState.ACTIVE:
        return [_not_met("document_state", document.article,
                         f"{instrument} está “{permit.state.label}”; só se imprime {document.noun} "
                         "de permissão em vigor")]
    found = []
    if permit.term_end < on:
        found.append(_not_met("document_term", "Art. 6º",
                              f"o prazo de {instrument} terminou em {format_date(permit.term_end)}"))
    if permit.certificate_valid_until < on:
        found.append(_not_met("document_certificate", "Art. 4º, § 1º",
                              f"o certificado de registro de {permit.number} venceu em "
                              f"{format_date(permit.certificate_valid_until)}; renove o registro antes de "
                              f"imprimir {document.label}"))
    return found


def _personal(facts: DocumentFacts) -> list[Verdict]:
    permit, holder, deputy = facts.permit, facts.permit.holder, facts.permit.deputy
    vehicle_holder_id = permit.vehicle.holder_id if permit.vehicle is not None else None
    found = []
    if permit.granted_person_id is not None and permit.granted_person_id != holder.person_id:
        found.append(_not_met("document_personal_grant", ART_PERSONAL,
                              f"{permit.number} foi outorgada a outra pessoa, não a {holder.name}; "
                              "a permissão é pessoal e intransferível"))
    if vehicle_holder_id is not None and vehicle_holder_id != holder.person_id:
        found.append(_not_met("document_personal_vehicle", ART_PERSONAL,
                              f"o veículo de {permit.number} está cadastrado para outra pessoa, não para "
                              f"o titular {holder.name}"))
    if facts.document is Document.DEPUTY_BADGE:
        if deputy is None:
            found.append(_not_met("document_deputy", "Art. 14",
                                  f"{permit.number} não tem preposto vinculado"))
        elif facts.requested_person_id is not None and facts.requested_person_id != deputy.person.person_id:
            found.append(_not_met("document_personal_bearer", ART_PERSONAL,
                                  f"o crachá de preposto de {permit.number} só é emitido para o preposto "
                                  f"vinculado, {deputy.person.name}"))
    elif facts.requested_person_id is not None and facts.requested_person_id != holder.person_id:
        found.append(_not_met("document_personal_bearer", ART_PERSONAL,
                              f"{facts.document.noun} de {permit.number} só se imprime para o titular, "
                              f"{holder.name}; a permissão é pessoal e intransferível"))
    return found


def _vehicle(permit: PermitFacts, on: date, settings: LawSettings) -> list[Verdict]:
    if permit.vehicle is None:
        return [_not_met("document_vehicle", "Art. 5º, § 1º",
                         f"{permit.number} não tem veículo vinculado")]
    # Every fact of the vehicle the document states: identification, engine size, useful life, rental
    # category, CRLV, mandatory insurance, owner, colour, use and the Art. 19 passenger policy.
    verdicts = check_vehicle(permit.vehicle.facts, permit.service, on, settings, permit.holder.cpf)
    return [v if v.status is Status.NOT_MET else _not_met(v.rule_id, v.article, _pending_sentence(v))
            for v in verdicts if v.status is not Status.MET]


def _pending_sentence(verdict: Verdict) -> str:
    """A pending verdict refuses the document: what it still lacks, as a refusal."""
    text = verdict.message.removeprefix(f"{verdict.article}: ").rstrip(".")
    return f"{text} — não se imprime documento com esse fato em aberto"


def check_inspection_valid(service: ServiceType, last: InspectionFacts | None, on: date,
                           settings: LawSettings) -> list[Verdict]:
    """The vehicle's required inspection is valid on ``on`` (Art. 5º, § 6º; Art. 23); empty = valid.

    Valid means: the last concluded inspection for the service approved the vehicle, and ``on`` is
    within its validity (:func:`~motodesk.rules.deadlines.inspection_valid_until`).
    """
    if last is None:
        return [Verdict("inspection_valid", ART_INSPECTION, Status.PENDING,
                        f"{ART_INSPECTION}: pendente — o veículo não tem vistoria aprovada.", ("inspection",))]
    if not last.approved:
        return [_not_met("inspection_valid", ART_INSPECTION,
                         f"a última vistoria ({format_date(last.performed_on)}) reprovou o veículo; é preciso "
                         "vistoria aprovada")]
    until = inspection_valid_until(service, last.performed_on, settings)
    if on > until:
        return [_not_met("inspection_valid", ART_INSPECTION,
                         f"a vistoria de {format_date(last.performed_on)} valeu até {format_date(until)}; "
                         "é preciso nova vistoria aprovada")]
    return []


def _declared(person: PersonFacts, who: str, role: str, service: ServiceType, on: date,
              settings: LawSettings) -> list[Verdict]:
    """The declared documents the gate checks (``gate=True``) with no rule of their own: missing,
    expired or positive refuses — except, for a document added after the holders were registered,
    before the start date of its transition (then it is a pending item of the dossier only)."""
    found = []
    evidence = dict(person.dossier.declared)
    for doc in documents_declared.generic():
        if not doc.gate or not doc.applies(service, role) or documents_declared.in_transition(doc, on, settings):
            continue
        verdict = documents_declared.check_declared(doc, evidence.get(doc.kind), on, settings)
        if verdict.status is Status.PENDING:
            found.append(_not_met(verdict.rule_id, doc.article, f"não há {doc.label.lower()} {who}"))
        elif verdict.status is Status.NOT_MET:
            found.append(Verdict(verdict.rule_id, doc.article, Status.NOT_MET, verdict.message))
    return found


def _person(person: PersonFacts, role: str, on: date, settings: LawSettings,
            service: ServiceType | None = None) -> list[Verdict]:
    found = []
    who = f"{role} {person.name}"
    dossier = person.dossier
    cnh = check_cnh(dossier, on, "o preposto" if role == "do preposto" else "o titular")
    if cnh.status is not Status.MET:
        said = cnh.message.removeprefix(f"{cnh.article}: ").rstrip(".")
        if cnh.status is Status.PENDING:
            said = f"{said} — não se imprime documento com esse fato em aberto"
        bound = " (Art. 14, § 2º: as mesmas exigências do titular)" if role == "do preposto" else ""
        found.append(_not_met("document_cnh", ART_CNH, f"CNH {who}{bound}: {said}"))
    if dossier.medical_date is None:
        found.append(_not_met("document_medical", ART_MEDICAL, f"não há atestado médico {who}"))
    else:
        until = medical_valid_until(dossier.medical_date, settings)
        if on > until:
            found.append(_not_met("document_medical", ART_MEDICAL,
                                  f"o atestado médico {who} venceu em {format_date(until)}; vale por "
                                  f"{plural(settings.medical_valid_years, 'ano', 'anos')}"))
    result = (dossier.criminal_result or "").strip().lower()
    if dossier.criminal_certificates_date is None or not result:
        found.append(_not_met("document_criminal", ART_CRIMINAL, f"não há certidões criminais {who}"))
    else:
        until = criminal_certificates_valid_until(dossier.criminal_certificates_date, settings)
        if result != "negative":
            found.append(_not_met("document_criminal", ART_CRIMINAL,
                                  f"as certidões criminais {who} não são negativas"))
        elif on > until:
            found.append(_not_met("document_criminal", ART_CRIMINAL,
                                  f"as certidões criminais {who} venceram em {format_date(until)}; são "
                                  f"renovadas a cada {plural(settings.criminal_valid_years, 'ano', 'anos')}"))
    if service is not None:
        found += _declared(person, who, DEPUTY if role == "do preposto" else HOLDER, service, on, settings)
    return found


def check_document(facts: DocumentFacts, on: date, settings: LawSettings) -> list[Verdict]:
    """Every reason ``facts.document`` may not print on ``on``; empty = it may print."""
    document, permit, vehicle, deputy = facts.document, facts.permit, facts.permit.vehicle, facts.permit.deputy
    found = [*_in_force(document, permit, on), *_personal(facts), *_vehicle(permit, on, settings),
             *check_inspection_valid(permit.service, vehicle.last_inspection if vehicle else None, on, settings),
             *check_accidents(vehicle.accidents if vehicle else (),
                              vehicle.approved_accident_inspections if vehicle else ()),
             *_person(permit.holder, "do titular", on, settings, permit.service)]
    if vehicle is not None and not vehicle.active:
        found.append(documents_wait_for_replacement(vehicle.plate, vehicle.successor_plate))
    if document.value in NAME_THE_DEPUTY and deputy is not None:
        # Every document that names the deputy vouches for the deputy too (Art. 14, § 2º).
        name = deputy.person.name
        if deputy.revoked:
            found.append(_not_met("document_deputy_revoked", "Art. 34, IV",
                                  f"o registro do preposto {name} foi cassado; {document.noun} não pode nomeá-lo"))
        if deputy.suspended_until is not None and deputy.suspended_on(on):
            found.append(_not_met("document_deputy_suspended", "Art. 34, III",
                                  f"o preposto {name} está suspenso até {format_date(deputy.suspended_until)}; "
                                  f"não se imprime {document.noun} que o nomeia durante a suspensão"))
        found += _person(deputy.person, "do preposto", on, settings, permit.service)
        # The rest of the holder's requirements (Art. 14, § 2º): what the certificates above did not say.
        said = {v.article for v in found}
        waiting = {d.rule for d in documents_declared.generic() if documents_declared.in_transition(d, on, settings)}
        found += [v for v in facts.deputy_requirements
                  if v.article not in said and v.rule_id.removeprefix("deputy_") not in waiting]
    return found
