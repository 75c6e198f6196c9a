"""Realistic pt_BR demo data: people, documents, vehicles, permits in every state, inspections, notices.

Rows go in through bulk Core inserts (no per-row audit), so 100,000 people take about a minute.

Only into an empty register (never the live one: :func:`seed_demo` refuses a database that holds people
or permits), and every seeded permit is judged, on its complete facts built in memory by the same mappers
that read a stored permit (:mod:`motodesk.rules.facts`), by the rule functions issue and the document gate
use (:func:`motodesk.rules.acts.seeded_permit_verdicts`: the holder's age and criminal certificates,
Art. 5º, I and XI; the CNH of a permit in force, Art. 5º, II; the engine, Art. 3º, I; the tender of the
mototáxi, Art. 6º; Art. 10, I) and written through the judged step; a person the rules refuse gets no
permit and stays an applicant (``counts["refused"]``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from types import SimpleNamespace
from typing import Any

from sqlalchemy import func, insert, select, text
from sqlalchemy.orm import Session
from validate_docbr import CNH, CPF, PIS, RENAVAM, TituloEleitoral

from motodesk.models import (
    Application,
    Decision,
    Decree,
    InfractionNotice,
    Inspection,
    Permit,
    PermitEvent,
    Person,
    PersonDocument,
    QuotaCounter,
    Tender,
    TenderCandidate,
    User,
    Vehicle,
)
from motodesk.rules.acts import seeded_permit_verdicts
from motodesk.rules.common import PermitState, Role, ServiceType, Verdict
from motodesk.rules.deadlines import inspection_valid_months, inspection_valid_until
from motodesk.rules.dossier import DocumentKind
from motodesk.rules.facts import (
    InspectionFacts,
    PermitFacts,
    PersonFacts,
    VehicleOnPermit,
    dossier_facts,
    register_vehicle_facts,
)
from motodesk.rules.penalty_evidence import DecisionOnFile, NoticeEvidence
from motodesk.rules.periods import add_years, completed_years
from motodesk.rules.tenders import TenderCandidateFacts
from motodesk.services.auth import hash_password
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext, requires
from motodesk.services.errors import InvalidInputError, MotodeskError
from motodesk.services.judged import judged
from motodesk.services.maintenance import analyze
from motodesk.services.settings import law_settings
from motodesk.services.text import fold

DEMO_PASSWORD = "motodesk123"
DEMO_USERS = (
    ("admin", "Administrador do Sistema", Role.ADMIN),
    ("atendente", "Ana Paula Rezende", Role.CLERK),
    ("vistoriador", "Carlos Henrique Borges", Role.INSPECTOR),
    ("supervisor", "Marta Lúcia Fonseca", Role.SUPERVISOR),
)
INSPECTOR_NAME = next(name for _login, name, role in DEMO_USERS if role is Role.INSPECTOR)
MAKES = (("Honda", "CG 160 Titan", 162), ("Honda", "CG 160 Fan", 162), ("Yamaha", "Factor 150", 149),
         ("Yamaha", "Fazer 250", 249), ("Honda", "Bros 160", 162),
         ("Suzuki", "Yes 125", 125), ("Yamaha", "Crosser 150", 149))  # Art. 3º, I: 125 to 250 cc
DISTRICTS = ("Centro", "São Vicente", "Santa Terezinha", "Morada Nova", "Serra Negra", "Enéas", "Marciano Brandão",
             "Cidade Jardim", "Santo Antônio", "Constantino", "Carajás", "São Francisco", "Nações")
BATCH = 5000


def _plates(rng: random.Random) -> Iterator[str]:
    seen: set[str] = set()
    letters = "ABCDEFGHJKLMNPRSTUVWXYZ"
    while True:
        head = "".join(rng.choice(letters) for _ in range(3))
        if rng.random() < 0.5:
            plate = f"{head}{rng.randint(0, 9999):04d}"
        else:
            plate = f"{head}{rng.randint(0, 9)}{rng.choice(letters)}{rng.randint(0, 99):02d}"
        if plate not in seen:
            seen.add(plate)
            yield plate


def _unique(gen: Callable[[], str]) -> Iterator[str]:
    seen: set[str] = set()
    while True:
        value = gen()
        if value not in seen:
            seen.add(value)
            yield value


_DOCUMENT_FIELDS = ("number", "issuer", "issuer_uf", "issue_date", "presented_on", "valid_until", "reference_date",
                   "categories", "flag", "result", "school")
_VEHICLE_FIELDS = ("vin", "passenger_insurance_valid_until", "insurance_number")


def _row(data: dict[str, Any], fields: tuple[str, ...]) -> SimpleNamespace:
    """An in-memory row read by attribute, as the mappers of :mod:`motodesk.rules.facts` read a stored one."""
    return SimpleNamespace(**{**dict.fromkeys(fields), **data})


def _last_concluded(inspections: list[dict[str, Any]], service: str) -> InspectionFacts | None:
    """The last concluded inspection for the service, as :func:`motodesk.services.facts.vehicles_facts`
    picks it from the stored rows."""
    done = [i for i in inspections if i["service_type"] == service and i["status"] in ("approved", "failed")
            and i.get("performed_at") is not None]
    if not done:
        return None
    last = max(done, key=lambda i: i["performed_at"])
    return InspectionFacts(last["performed_at"].date(), last["status"] == "approved")


def seeded_permit_facts(person: dict[str, Any], documents: list[dict[str, Any]], vehicle: dict[str, Any],
                        permit: dict[str, Any], inspections: list[dict[str, Any]] | None = None) -> PermitFacts:
    """The complete facts of a seeded permit from its rows before they are written, by the same mappers
    (:func:`~motodesk.rules.facts.dossier_facts`, :func:`~motodesk.rules.facts.register_vehicle_facts`)
    that read a stored one — so the seed is judged from memory, with no query per person."""
    docs = {DocumentKind(d["kind"]): _row(d, _DOCUMENT_FIELDS) for d in documents}
    holder_row = _row(person, ())
    holder = PersonFacts(person["id"], person["full_name"], person["cpf"], dossier_facts(holder_row, docs))
    car = VehicleOnPermit(vehicle["id"], vehicle["plate"], vehicle["holder_id"], vehicle["active"],
                          register_vehicle_facts(_row(vehicle, _VEHICLE_FIELDS)),
                          last_inspection=_last_concluded(inspections or [], permit["service_type"]))
    return PermitFacts(
        permit_id=permit["id"], number=permit["number"], service=ServiceType(permit["service_type"]),
        state=PermitState(permit["state"]), issued_on=permit["issued_on"], term_end=permit["term_end"],
        extended=permit["extended"], certificate_valid_until=permit["certificate_valid_until"], holder=holder,
        suspended_until=permit["suspended_until"], vehicle=car, imported=True)


def _penalty_rows(state: PermitState, permit: dict[str, Any], vehicle: dict[str, Any], name: str, cpf: str,
                  seq: int, notice_id: int, inspector_id: int | None, now: datetime, *,
                  place: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The decided notice of infraction and its decision behind a seeded suspension or cassação."""
    revoked = state is PermitState.REVOKED
    decided_on = permit["ended_on"] if revoked else permit["suspended_until"] - timedelta(days=90)
    occurred = datetime.combine(decided_on - timedelta(days=40), datetime.min.time(), tzinfo=UTC)
    code, article = ("30.4.II", "Art. 30, Grupo 4, II") if revoked else ("30.3.I", "Art. 30, Grupo 3, I")
    notice = {
        "id": notice_id, "number": f"AI-{seq:04d}/{occurred.year}", "year": occurred.year, "seq": seq,
        "infraction_code": code, "article": article, "severity": "gravissima" if revoked else "grave",
        "occurred_at": occurred, "place": place,
        "person_id": permit["person_id"], "permit_id": permit["id"], "offender_kind": "holder", "offender_name": name,
        "offender_cpf": cpf, "vehicle_id": vehicle["id"], "plate": vehicle["plate"],
        "description": "Dados de demonstração.", "inspector_id": inspector_id,
        "inspector_login": "vistoriador", "inspector_name": INSPECTOR_NAME,
        "notified_on": occurred.date(), "notification_method": "on_the_spot", "signed": True,
        "refused_to_sign": False, "vehicle_seized": False, "status": "closed" if revoked else "decided",
        "defence_due": occurred.date() + timedelta(days=15), "version": 1, "created_at": now,
        "updated_at": now, "closed_at": now if revoked else None,
        "closed_by": "supervisor" if revoked else None,
    }
    days = None if revoked else 90
    decision = {
        "notice_id": notice_id, "stage": "first", "outcome": "upheld", "decided_by": "supervisor",
        "decided_at": datetime.combine(decided_on, datetime.min.time(), tzinfo=UTC),
        "severity": "gravissima" if revoked else "grave",
        "penalty": "revocation" if revoked else "suspension", "suspension_days": days,
        "suspension_start": decided_on if days else None,
        "suspension_end": permit["suspended_until"] if days else None,
        "grounds": "Dados de demonstração.", "appeal_due": decided_on + timedelta(days=30),
        "permit_effect": "revoked" if revoked else "suspended",
    }
    return notice, decision


def _advance_sequences(session: Session) -> None:
    """People, vehicles, permits and notices go in with explicit ids; PostgreSQL's serials must move
    past them in the same transaction, or a crash between the two would leave them behind."""
    if session.get_bind().dialect.name != "postgresql":
        return
    for table in ("people", "vehicles", "permits", "infraction_notices"):
        session.execute(text(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                             f"(SELECT COALESCE(MAX(id), 0) + 1 FROM {table}), false)"))


@dataclass
class _Seed:
    """What the seed carries from one person to the next: its random sources, the day, the rows it
    hangs on (inspector, decree, tender), the next ids and numbers, the mototáxi places and the counts."""
    rng: random.Random
    fake: Any
    today: date
    now: datetime
    settings: Any
    inspector_id: int | None
    decree_id: int
    tender_id: int
    tender_number: str
    homologated: date | None
    next_vid: int
    seq: dict[ServiceType, int]
    notice_seq: int
    next_permit_id: int
    next_notice_id: int
    mototaxi_places: int
    mototaxi_in_force: int
    rank: int = 0
    cpfs: Iterator[str] = field(default_factory=lambda: _unique(CPF().generate))
    renavams: Iterator[str] = field(default_factory=lambda: _unique(RENAVAM().generate))
    cnhs: Iterator[str] = field(default_factory=lambda: _unique(CNH().generate))
    pis: PIS = field(default_factory=PIS)
    titulo: TituloEleitoral = field(default_factory=TituloEleitoral)
    counts: dict[str, int] = field(default_factory=lambda: {
        "people": 0, "vehicles": 0, "permits": 0, "applications": 0, "inspections": 0, "notices": 0,
        "refused": 0})
    plates: Iterator[str] = field(init=False)

    def __post_init__(self) -> None:
        self.plates = _plates(self.rng)


@dataclass
class _Batch:
    """The rows of one batch of people, written together, and the verdicts that judged its permits."""
    people: list[dict[str, Any]] = field(default_factory=list)
    docs: list[dict[str, Any]] = field(default_factory=list)
    vehicles: list[dict[str, Any]] = field(default_factory=list)
    permits: list[dict[str, Any]] = field(default_factory=list)
    apps: list[dict[str, Any]] = field(default_factory=list)
    insp: list[dict[str, Any]] = field(default_factory=list)
    notices: list[dict[str, Any]] = field(default_factory=list)
    decisions: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    candidates: list[dict[str, Any]] = field(default_factory=list)
    accepted: list[Verdict] = field(default_factory=list)


def _faker(seed: int) -> Any:
    """The seeded pt_BR Faker, or a refusal naming the optional extra when it is not installed."""
    try:
        from faker import Faker  # the "demo" extra: a counter PC installs MotoDesk without it
    except ImportError as exc:
        raise InvalidInputError(
            "Os dados de demonstração precisam do pacote opcional 'demo' "
            "(pip install 'motodesk[demo]'); o banco não foi alterado.", code="demo.extra_missing") from exc
    fake = Faker("pt_BR")
    fake.seed_instance(seed)
    return fake


def _users_and_decree(s: Session) -> tuple[int | None, int]:
    """The demo users (those missing) and the demo decree; the inspector's id and the decree's."""
    existing = set(s.scalars(select(User.login)))
    pw = hash_password(DEMO_PASSWORD)
    for login, name, role in DEMO_USERS:
        if login not in existing:
            s.add(User(login=login, full_name=name, role=role, password_hash=pw))
    s.flush()
    inspector_id = s.scalar(select(User.id).where(User.role == Role.INSPECTOR).order_by(User.id))
    decree = s.scalar(select(Decree).where(Decree.number == "DEMO-1/2024"))
    if decree is None:
        decree = Decree(number="DEMO-1/2024", signed_on=date(2024, 3, 1),
                        subject="Outorga de permissões e autorizações (dados de demonstração)")
        s.add(decree)
        s.flush()
    return inspector_id, decree.id


def _start(ctx: AppContext, seed: int, today: date) -> tuple[_Seed, int]:
    """Refuse a register with data, write what the seed hangs on, and read the next ids and numbers;
    the seed's state and the first person's id."""
    fake = _faker(seed)
    now = datetime.now(UTC)
    with ctx.write() as s:
        held = (s.scalar(select(func.count(Person.id))) or 0, s.scalar(select(func.count(Permit.id))) or 0)
        if any(held):
            raise MotodeskError(
                f"O banco de dados já tem dados ({held[0]} pessoa(s), {held[1]} permissão(ões)): os dados de "
                "demonstração só são gravados num banco vazio, nunca no cadastro em uso. Crie um banco novo "
                "para a demonstração.", code="demo.database_not_empty")
        inspector_id, decree_id = _users_and_decree(s)
        start_id = (s.scalar(select(func.max(Person.id))) or 0) + 1
        next_vid = (s.scalar(select(func.max(Vehicle.id))) or 0) + 1
        seq = {st: (s.scalar(select(func.max(Permit.seq)).where(Permit.service_type == st)) or 0)
               for st in ServiceType}
        notice_seq = s.scalar(select(func.max(InfractionNotice.seq))) or 0
        next_permit_id = (s.scalar(select(func.max(Permit.id))) or 0) + 1
        next_notice_id = (s.scalar(select(func.max(InfractionNotice.id))) or 0) + 1
        quota = s.get(QuotaCounter, ServiceType.MOTOTAXI)
        # Art. 6º: the mototáxi permissions follow a tender, homologated before the oldest seeded permit.
        tender = Tender(number=f"DEMO-LIC/{today.year - 6}", description="Licitação de demonstração",
                        homologated_on=today - timedelta(days=6 * 365))
        s.add(tender)
        s.flush()
        sd = _Seed(rng=random.Random(seed), fake=fake, today=today, now=now, settings=None,
                   inspector_id=inspector_id, decree_id=decree_id, tender_id=tender.id,
                   tender_number=tender.number, homologated=tender.homologated_on, next_vid=next_vid, seq=seq,
                   notice_seq=notice_seq, next_permit_id=next_permit_id, next_notice_id=next_notice_id,
                   mototaxi_places=quota.places if quota else 44,
                   mototaxi_in_force=quota.in_force if quota else 0)
    sd.settings = law_settings(ctx)
    return sd, start_id


def _person(sd: _Seed, b: _Batch, pid: int) -> tuple[dict[str, Any], list[dict[str, Any]], date, date]:
    """One person and their dossier's documents; their row, their documents, birth and first CNH day."""
    rng, fake, today = sd.rng, sd.fake, sd.today
    sex = "M" if rng.random() < 0.82 else "F"
    first = fake.first_name_male() if sex == "M" else fake.first_name_female()
    name = f"{first} {fake.last_name()} {fake.last_name()}"
    birth = today - timedelta(days=rng.randint(19 * 365, 62 * 365))
    cpf = next(sd.cpfs)
    b.people.append({
        "id": pid, "full_name": name, "name_search": fold(name), "cpf": cpf, "birth_date": birth,
        "sex": sex, "mother_name": f"{fake.first_name_female()} {fake.last_name()}",
        "phone": f"(34) 9{rng.randint(8000, 9999)}-{rng.randint(0, 9999):04d}",
        "email": None, "address": f"Rua {fake.last_name()} {fake.last_name()}, {rng.randint(1, 2500)}",
        "district": rng.choice(DISTRICTS), "city": "Patrocínio", "uf": "MG", "zip_code": "38740000",
        "declares_no_other_permit": True, "version": 1, "created_at": sd.now, "updated_at": sd.now,
    })
    first_a = birth + timedelta(days=rng.randint(18 * 365, 30 * 365))
    first_a = min(first_a, today - timedelta(days=rng.randint(30, 900)))
    b.docs += [
        {"person_id": pid, "kind": DocumentKind.CNH.value, "number": next(sd.cnhs), "categories": rng.choice(["A", "AB", "AB", "AC"]),
         "reference_date": first_a, "valid_until": today + timedelta(days=rng.randint(-60, 5 * 365)),
         "flag": rng.random() < 0.9, "issuer": "DETRAN", "issuer_uf": "MG", "version": 1},
        {"person_id": pid, "kind": DocumentKind.MEDICAL.value, "issue_date": today - timedelta(days=rng.randint(0, 380)),
         "version": 1},
        {"person_id": pid, "kind": DocumentKind.RESIDENCE.value, "issue_date": today - timedelta(days=rng.randint(0, 92)),
         "version": 1},
        {"person_id": pid, "kind": DocumentKind.INSS.value, "number": sd.pis.generate(), "version": 1},
        {"person_id": pid, "kind": DocumentKind.ELECTORAL.value, "number": sd.titulo.generate(), "flag": True, "version": 1},
        {"person_id": pid, "kind": DocumentKind.CRIMINAL.value, "issue_date": today - timedelta(days=rng.randint(0, 1500)),
         "result": "negative" if rng.random() < 0.98 else "positive", "version": 1},
    ]
    if sex == "M":
        b.docs.append({"person_id": pid, "kind": DocumentKind.MILITARY.value,
                       "number": f"{rng.randint(10**9, 10**12 - 1)}", "version": 1})
    documents = b.docs[-7:] if sex == "M" else b.docs[-6:]
    return b.people[-1], documents, birth, first_a


def _service_of(sd: _Seed) -> ServiceType | None:
    """The service the person works in, or None for a person with only a dossier."""
    roll = sd.rng.random()
    if roll < 0.15:
        return None
    if roll < 0.72:
        service = ServiceType.MOTOBOY
    elif roll < 0.92:
        service = ServiceType.MOTOFRETE
    else:
        service = ServiceType.MOTOTAXI
    if service is ServiceType.MOTOTAXI and sd.mototaxi_in_force >= sd.mototaxi_places:
        service = ServiceType.MOTOBOY  # Art. 10, I: no mototáxi place left; the demo fills the others
    return service


def _vehicle(sd: _Seed, b: _Batch, person: dict[str, Any], service: ServiceType) -> dict[str, Any]:
    """The person's motorcycle, registered for the service."""
    rng, today = sd.rng, sd.today
    year_mf = today.year - rng.randint(0, 5)
    make, model, cc = rng.choice(MAKES)
    vid = sd.next_vid
    sd.next_vid += 1
    name, cpf = person["full_name"], person["cpf"]
    b.vehicles.append({
        "id": vid, "plate": next(sd.plates), "renavam": next(sd.renavams), "vin": None, "make": make, "model": model,
        "year_manufacture": year_mf, "year_model": min(year_mf + rng.randint(0, 1), today.year + 1), "engine_cc": cc,
        "colour": "Amarela" if service is ServiceType.MOTOTAXI else "Preta", "category": "aluguel",
        "crlv_year": today.year, "crlv_municipality": "Patrocínio", "crlv_uf": "MG", "owner_name": name,
        "owner_cpf": cpf, "insurance_valid_until": today + timedelta(days=rng.randint(-30, 365)),
        "insurance_insured_cpf": cpf, "insurance_insured_name": name,
        "passenger_insurance_valid_until": (today + timedelta(days=rng.randint(-10, 365))
                                            if service is ServiceType.MOTOTAXI else None),
        "service_type": service.value, "holder_id": person["id"], "active": True, "version": 1,
        "created_at": sd.now, "updated_at": sd.now,
    })
    sd.counts["vehicles"] += 1
    return b.vehicles[-1]


def _application(sd: _Seed, b: _Batch, pid: int, service: ServiceType, vid: int, state: PermitState,
                 opened_on: date) -> None:
    """An application for the service, in the given state."""
    b.apps.append({"person_id": pid, "service_type": service.value, "vehicle_id": vid, "state": state.value,
                   "opened_on": opened_on, "opened_by": "atendente", "version": 1, "created_at": sd.now,
                   "updated_at": sd.now})
    sd.counts["applications"] += 1


def _state_of(sd: _Seed, b: _Batch, pid: int, service: ServiceType, vid: int) -> PermitState | None:
    """The state of the person's permit, or None when they have an application under way instead."""
    rng = sd.rng
    state_roll = rng.random()
    if state_roll < 0.08:
        _application(sd, b, pid, service, vid, rng.choice([PermitState.REQUESTED, PermitState.UNDER_REVIEW]),
                     sd.today - timedelta(days=rng.randint(0, 60)))
        return None
    if state_roll < 0.80:
        return PermitState.ACTIVE
    if state_roll < 0.84:
        return PermitState.SUSPENDED
    if state_roll < 0.92:
        return PermitState.EXPIRED
    if state_roll < 0.97:
        return PermitState.CANCELLED
    return PermitState.REVOKED


def _issue_dates(sd: _Seed, state: PermitState, birth: date, first_a: date,
                 vehicle: dict[str, Any]) -> tuple[date, date | None]:
    """The permit's issue day and the day it ended (None while in force); the motorcycle made no later
    than the issue."""
    rng, today = sd.rng, sd.today
    if state is PermitState.EXPIRED:  # Art. 6º: it expired the day after its five-year term
        issued = today - timedelta(days=rng.randint(5 * 365 + 3, 7 * 365))
        ended_on: date | None = add_years(issued, 5) + timedelta(days=1)
    else:
        issued = today - timedelta(days=rng.randint(10, 5 * 365))
        # the holder was 21 and held category A for two years on the issue date (Art. 5º, I and II)
        issued = max(issued, add_years(birth, 21), add_years(first_a, 2) + timedelta(days=1))
        ended_on = (None if state.in_force
                    else today - timedelta(days=rng.randint(1, max(1, (today - issued).days - 1))))
    if vehicle["year_manufacture"] > issued.year:  # the bike was on the road when issued
        vehicle["year_manufacture"] = issued.year - rng.randint(0, 1)
        vehicle["year_model"] = vehicle["year_manufacture"] + 1
    return issued, ended_on


def _permit_row(sd: _Seed, service: ServiceType, state: PermitState, pid: int, vid: int, issued: date,
                ended_on: date | None) -> dict[str, Any]:
    """The permit's row (not yet judged)."""
    today = sd.today
    number = f"{service.code}-{sd.seq[service] + 1:04d}/{issued.year}"
    suspended_until = today + timedelta(days=sd.rng.randint(5, 60)) if state is PermitState.SUSPENDED else None
    return {
        "id": sd.next_permit_id, "number": number, "service_type": service.value,
        "year": issued.year, "seq": sd.seq[service] + 1, "person_id": pid, "vehicle_id": vid,
        "decree_id": sd.decree_id, "state": state.value, "issued_on": issued,
        "term_end": add_years(issued, 5),
        "extended": False,
        "certificate_valid_until": min(add_years(issued, completed_years(issued, ended_on or today) + 1),
                                       add_years(issued, 5)),
        "suspended_until": suspended_until,
        "badge_issue_no": 1, "ended_on": ended_on,
        "end_reason": ("Cancelada a pedido expresso do titular (dados de demonstração)."
                       if state is PermitState.CANCELLED else None),
        "version": 1, "created_at": sd.now, "updated_at": sd.now,
    }


def _inspections(sd: _Seed, service: ServiceType, state: PermitState, vid: int,
                 issued: date) -> tuple[list[dict[str, Any]], date]:
    """The vehicle's inspections: the approved one the issue needed, and while the permit is in force
    the periodic one its certificate's renewal needed (Art. 5º, § 6º; Art. 23); and the issue's day."""
    rng, today, now = sd.rng, sd.today, sd.now
    issue_inspected = issued - timedelta(days=rng.randint(1, 2))
    rows: list[dict[str, Any]] = [{
        "vehicle_id": vid, "service_type": service.value, "kind": "regular", "status": "approved",
        "scheduled_for": issued - timedelta(days=rng.randint(3, 20)),
        "performed_at": datetime.combine(issue_inspected, datetime.min.time(), tzinfo=UTC) + timedelta(hours=12),
        "inspector_id": sd.inspector_id, "inspector_name": INSPECTOR_NAME, "version": 1,
        "created_at": now, "updated_at": now,
    }]
    if state.in_force and (today - issued).days > 30:
        months = inspection_valid_months(service, sd.settings)
        performed = max(issued + timedelta(days=1), today - timedelta(days=rng.randint(0, months * 28)))
        rows.append({
            "vehicle_id": vid, "service_type": service.value,
            "kind": "annual" if service is ServiceType.MOTOFRETE else "semestral", "status": "approved",
            "scheduled_for": performed, "inspector_id": sd.inspector_id, "inspector_name": INSPECTOR_NAME,
            "performed_at": datetime.combine(performed, datetime.min.time(), tzinfo=UTC) + timedelta(hours=12),
            "next_due": inspection_valid_until(service, performed, sd.settings), "version": 1,
            "created_at": now, "updated_at": now,
        })
    return rows, issue_inspected


def _penalty(sd: _Seed, state: PermitState, permit: dict[str, Any], vehicle: dict[str, Any],
             person: dict[str, Any]) -> tuple[dict[str, Any] | None, dict[str, Any] | None, Any]:
    """Behind a suspension or cassação, the decided notice, its decision and the evidence the rules
    judge them by; None for the others."""
    if state not in (PermitState.SUSPENDED, PermitState.REVOKED):
        return None, None, None
    notice_row, decision_row = _penalty_rows(
        state, permit, vehicle, person["full_name"], person["cpf"], sd.notice_seq + 1, sd.next_notice_id,
        sd.inspector_id, sd.now, place=f"Av. {sd.fake.last_name()}, {sd.rng.randint(1, 900)}")
    penalty = (decision_row["decided_at"].date(), NoticeEvidence(
        notice_row["number"], True, notice_row["status"], sd.next_permit_id, "holder", person["id"],
        (DecisionOnFile("first", "upheld", decision_row["penalty"]),)))
    return notice_row, decision_row, penalty


def _penalty_process(sd: _Seed, b: _Batch, state: PermitState, permit: dict[str, Any],
                     notice_row: dict[str, Any], decision_row: dict[str, Any]) -> None:
    """No penalty without its process (Art. 29, § 3º; Art. 34): the decided notice behind it, its
    decision and the permit's event."""
    sd.notice_seq += 1
    sd.next_notice_id += 1
    b.notices.append(notice_row)
    b.decisions.append(decision_row)
    revoked = state is PermitState.REVOKED
    reason = (f"Auto de infração {notice_row['number']} ({notice_row['article']}): decisão — "
              f"{'Cassação' if revoked else 'Suspensão'}")
    b.events.append({
        "permit_id": permit["id"], "transition": "revoke" if revoked else "suspend", "from_state": "active",
        "to_state": state.value, "at": sd.now, "by_user": "supervisor", "reason": reason,
    })
    if revoked:
        permit["end_reason"] = reason


def _open_notice(sd: _Seed, b: _Batch, person: dict[str, Any], vehicle: dict[str, Any], permit_id: int) -> None:
    """An open notice of infraction on the permit, not yet decided."""
    rng, now = sd.rng, sd.now
    sd.notice_seq += 1
    sd.next_notice_id += 1
    occurred = now - timedelta(days=rng.randint(0, 360), hours=rng.randint(0, 12))
    b.notices.append({
        "id": sd.next_notice_id - 1, "permit_id": permit_id, "notification_method": "on_the_spot",
        "closed_at": None, "closed_by": None,
        "number": f"AI-{sd.notice_seq:04d}/{occurred.year}", "year": occurred.year, "seq": sd.notice_seq,
        "infraction_code": "30.2.VI", "article": "Art. 30, Grupo 2, VI", "severity": "media",
        "occurred_at": occurred, "place": f"Av. {sd.fake.last_name()}, {rng.randint(1, 900)} – {rng.choice(DISTRICTS)}",
        "person_id": person["id"], "offender_kind": "holder", "offender_name": person["full_name"],
        "offender_cpf": person["cpf"], "vehicle_id": vehicle["id"], "plate": vehicle["plate"],
        "description": "Dados de demonstração.",
        "inspector_id": sd.inspector_id, "inspector_login": "vistoriador",
        "inspector_name": "Carlos Henrique Borges", "notified_on": occurred.date(),
        "signed": True, "refused_to_sign": False, "vehicle_seized": False,
        "status": "open", "defence_due": (occurred + timedelta(days=15)).date(), "version": 1,
        "created_at": now, "updated_at": now,
    })


def _seed_person(sd: _Seed, b: _Batch, pid: int) -> None:
    """One person: a dossier, and for most a motorcycle and an application or a permit judged by the
    rules (a refused one leaves an application), with its inspections and notices."""
    person, documents, birth, first_a = _person(sd, b, pid)
    service = _service_of(sd)
    if service is None:
        return  # a person with only a dossier
    vehicle = _vehicle(sd, b, person, service)
    vid = vehicle["id"]
    state = _state_of(sd, b, pid, service, vid)
    if state is None:
        return  # an application under way
    issued, ended_on = _issue_dates(sd, state, birth, first_a, vehicle)
    candidacy = (TenderCandidateFacts(rank=sd.rank + 1, status="called", tender_number=sd.tender_number,
                                      homologated_on=sd.homologated)
                 if service is ServiceType.MOTOTAXI else None)
    permit = _permit_row(sd, service, state, pid, vid, issued, ended_on)
    insp_rows, issue_inspected = _inspections(sd, service, state, vid, issued)
    facts = seeded_permit_facts(person, documents, vehicle, permit, insp_rows)
    notice_row, decision_row, penalty = _penalty(sd, state, permit, vehicle, person)
    verdicts = seeded_permit_verdicts(facts, sd.today, sd.settings, candidacy,
                                      issue_inspection=InspectionFacts(issue_inspected, True),
                                      quota_open_places=(sd.mototaxi_places - sd.mototaxi_in_force
                                                         if service is ServiceType.MOTOTAXI else None),
                                      penalty=penalty)
    if verdicts:  # the rules refuse this permit: the person stays an applicant
        sd.counts["refused"] += 1
        _application(sd, b, pid, service, vid, PermitState.REQUESTED, sd.today)
        return
    b.accepted += verdicts  # nothing blocking: the judged step writes it
    if service is ServiceType.MOTOTAXI and state.in_force:
        sd.mototaxi_in_force += 1
    b.insp += insp_rows
    if candidacy is not None:
        sd.rank += 1
        b.candidates.append({"tender_id": sd.tender_id, "rank": sd.rank, "cpf": person["cpf"],
                             "name": person["full_name"], "person_id": pid, "status": "accepted",
                             "called_on": issued, "version": 1})
    sd.seq[service] += 1
    permit_id = sd.next_permit_id
    sd.next_permit_id += 1
    b.permits.append(permit)
    sd.counts["permits"] += 1
    if notice_row is not None and decision_row is not None:
        _penalty_process(sd, b, state, permit, notice_row, decision_row)
    if state.in_force and sd.rng.random() < 0.05:
        b.insp.append({
            "vehicle_id": vid, "service_type": service.value, "status": "scheduled",
            "kind": "annual" if service is ServiceType.MOTOFRETE else "semestral",
            "scheduled_for": sd.today + timedelta(days=sd.rng.randint(-10, 30)), "version": 1,
            "created_at": sd.now, "updated_at": sd.now,
        })
    if sd.rng.random() < 0.03:
        _open_notice(sd, b, person, vehicle, permit_id)


def _write_batch(ctx: AppContext, b: _Batch) -> None:
    """A batch's rows in one transaction, by bulk Core inserts; its permits through the judged step."""
    with ctx.write() as s:
        s.execute(insert(Person), b.people)
        s.execute(insert(PersonDocument), b.docs)
        if b.vehicles:
            s.execute(insert(Vehicle), b.vehicles)
        if b.permits:
            with judged(s, b.accepted, Permit, TenderCandidate):  # each one judged above, by the rules
                s.execute(insert(Permit), b.permits)
                if b.candidates:
                    s.execute(insert(TenderCandidate), b.candidates)
        for model, rows in ((Application, b.apps), (Inspection, b.insp), (InfractionNotice, b.notices),
                            (Decision, b.decisions), (PermitEvent, b.events)):
            if rows:
                s.execute(insert(model), rows)
        _advance_sequences(s)


def _count_mototaxi_places(ctx: AppContext, sd: _Seed) -> None:
    """The mototáxi quota counts the seeded permits in force."""
    with ctx.write() as s:
        quota = s.get(QuotaCounter, ServiceType.MOTOTAXI)
        if quota is None:
            s.add(QuotaCounter(service_type=ServiceType.MOTOTAXI, places=sd.mototaxi_places,
                               in_force=sd.mototaxi_in_force))
        else:
            quota.in_force = sd.mototaxi_in_force


@requires(Role.ADMIN)
def seed_demo(ctx: AppContext, people: int, *, seed: int = 4883, today: date | None = None,
              progress: Callable[[int, int], None] | None = None) -> dict[str, int]:
    """Fill the database with `people` demo people and what hangs on them; returns counts."""
    sd, start_id = _start(ctx, seed, today or local_today())
    done = 0
    while done < people:
        n = min(BATCH, people - done)
        batch = _Batch()
        for i in range(n):
            _seed_person(sd, batch, start_id + done + i)
        _write_batch(ctx, batch)
        sd.counts["people"] += n
        sd.counts["inspections"] += len(batch.insp)
        sd.counts["notices"] += len(batch.notices)
        done += n
        if progress:
            progress(done, people)
    _count_mototaxi_places(ctx, sd)
    analyze(ctx)  # fresh planner statistics for the rows just written (issue 20)
    return sd.counts
