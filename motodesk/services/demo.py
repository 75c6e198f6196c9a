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


@requires(Role.ADMIN)
def seed_demo(ctx: AppContext, people: int, *, seed: int = 4883, today: date | None = None,
              progress: Callable[[int, int], None] | None = None) -> dict[str, int]:
    """Fill the database with `people` demo people and what hangs on them; returns counts."""
    today = today or local_today()
    rng = random.Random(seed)
    try:
        from faker import Faker  # the "demo" extra: a counter PC installs MotoDesk without it
    except ImportError as exc:
        raise InvalidInputError(
            "Os dados de demonstração precisam do pacote opcional 'demo' "
            "(pip install 'motodesk[demo]'); o banco não foi alterado.") from exc
    fake = Faker("pt_BR")
    fake.seed_instance(seed)
    cpfs = _unique(CPF().generate)
    renavams = _unique(RENAVAM().generate)
    cnhs = _unique(CNH().generate)
    pis = PIS()
    titulo = TituloEleitoral()
    plates = _plates(rng)
    now = datetime.now(UTC)
    counts = {"people": 0, "vehicles": 0, "permits": 0, "applications": 0, "inspections": 0, "notices": 0,
              "refused": 0}

    with ctx.write() as s:
        held = (s.scalar(select(func.count(Person.id))) or 0, s.scalar(select(func.count(Permit.id))) or 0)
        if any(held):
            raise MotodeskError(
                f"O banco de dados já tem dados ({held[0]} pessoa(s), {held[1]} permissão(ões)): os dados de "
                "demonstração só são gravados num banco vazio, nunca no cadastro em uso. Crie um banco novo "
                "para a demonstração.", code="demo.database_not_empty")
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
        start_id = (s.scalar(select(func.max(Person.id))) or 0) + 1
        next_vid = (s.scalar(select(func.max(Vehicle.id))) or 0) + 1
        seq = {st: (s.scalar(select(func.max(Permit.seq)).where(Permit.service_type == st)) or 0)
               for st in ServiceType}
        notice_seq = s.scalar(select(func.max(InfractionNotice.seq))) or 0
        next_permit_id = (s.scalar(select(func.max(Permit.id))) or 0) + 1
        next_notice_id = (s.scalar(select(func.max(InfractionNotice.id))) or 0) + 1
        quota = s.get(QuotaCounter, ServiceType.MOTOTAXI)
        mototaxi_places = quota.places if quota else 44
        mototaxi_in_force = quota.in_force if quota else 0
        # Art. 6º: the mototáxi permissions follow a tender, homologated before the oldest seeded permit.
        tender = Tender(number=f"DEMO-LIC/{today.year - 6}", description="Licitação de demonstração",
                        homologated_on=today - timedelta(days=6 * 365))
        s.add(tender)
        s.flush()
        tender_id, tender_number, homologated = tender.id, tender.number, tender.homologated_on
    settings = law_settings(ctx)
    rank = 0

    done = 0
    while done < people:
        n = min(BATCH, people - done)
        rows_people: list[dict[str, Any]] = []
        rows_docs: list[dict[str, Any]] = []
        rows_vehicles: list[dict[str, Any]] = []
        rows_permits: list[dict[str, Any]] = []
        rows_apps: list[dict[str, Any]] = []
        rows_insp: list[dict[str, Any]] = []
        rows_notices: list[dict[str, Any]] = []
        rows_decisions: list[dict[str, Any]] = []
        rows_events: list[dict[str, Any]] = []
        rows_candidates: list[dict[str, Any]] = []
        accepted: list[Verdict] = []
        for i in range(n):
            pid = start_id + done + i
            sex = "M" if rng.random() < 0.82 else "F"
            first = fake.first_name_male() if sex == "M" else fake.first_name_female()
            name = f"{first} {fake.last_name()} {fake.last_name()}"
            birth = today - timedelta(days=rng.randint(19 * 365, 62 * 365))
            cpf = next(cpfs)
            rows_people.append({
                "id": pid, "full_name": name, "name_search": fold(name), "cpf": cpf, "birth_date": birth,
                "sex": sex, "mother_name": f"{fake.first_name_female()} {fake.last_name()}",
                "phone": f"(34) 9{rng.randint(8000, 9999)}-{rng.randint(0, 9999):04d}",
                "email": None, "address": f"Rua {fake.last_name()} {fake.last_name()}, {rng.randint(1, 2500)}",
                "district": rng.choice(DISTRICTS), "city": "Patrocínio", "uf": "MG", "zip_code": "38740000",
                "declares_no_other_permit": True, "version": 1, "created_at": now, "updated_at": now,
            })
            first_a = birth + timedelta(days=rng.randint(18 * 365, 30 * 365))
            first_a = min(first_a, today - timedelta(days=rng.randint(30, 900)))
            rows_docs += [
                {"person_id": pid, "kind": DocumentKind.CNH.value, "number": next(cnhs), "categories": rng.choice(["A", "AB", "AB", "AC"]),
                 "reference_date": first_a, "valid_until": today + timedelta(days=rng.randint(-60, 5 * 365)),
                 "flag": rng.random() < 0.9, "issuer": "DETRAN", "issuer_uf": "MG", "version": 1},
                {"person_id": pid, "kind": DocumentKind.MEDICAL.value, "issue_date": today - timedelta(days=rng.randint(0, 380)),
                 "version": 1},
                {"person_id": pid, "kind": DocumentKind.RESIDENCE.value, "issue_date": today - timedelta(days=rng.randint(0, 92)),
                 "version": 1},
                {"person_id": pid, "kind": DocumentKind.INSS.value, "number": pis.generate(), "version": 1},
                {"person_id": pid, "kind": DocumentKind.ELECTORAL.value, "number": titulo.generate(), "flag": True, "version": 1},
                {"person_id": pid, "kind": DocumentKind.CRIMINAL.value, "issue_date": today - timedelta(days=rng.randint(0, 1500)),
                 "result": "negative" if rng.random() < 0.98 else "positive", "version": 1},
            ]
            if sex == "M":
                rows_docs.append({"person_id": pid, "kind": DocumentKind.MILITARY.value,
                                  "number": f"{rng.randint(10**9, 10**12 - 1)}", "version": 1})
            documents = rows_docs[-7:] if sex == "M" else rows_docs[-6:]
            roll = rng.random()
            if roll < 0.15:
                continue  # a person with only a dossier
            if roll < 0.72:
                service = ServiceType.MOTOBOY
            elif roll < 0.92:
                service = ServiceType.MOTOFRETE
            else:
                service = ServiceType.MOTOTAXI
            if service is ServiceType.MOTOTAXI and mototaxi_in_force >= mototaxi_places:
                service = ServiceType.MOTOBOY  # Art. 10, I: no mototáxi place left; the demo fills the others
            year_mf = today.year - rng.randint(0, 5)
            make, model, cc = rng.choice(MAKES)
            vid = next_vid
            next_vid += 1
            rows_vehicles.append({
                "id": vid, "plate": next(plates), "renavam": next(renavams), "vin": None, "make": make, "model": model,
                "year_manufacture": year_mf, "year_model": min(year_mf + rng.randint(0, 1), today.year + 1), "engine_cc": cc,
                "colour": "Amarela" if service is ServiceType.MOTOTAXI else "Preta", "category": "aluguel",
                "crlv_year": today.year, "crlv_municipality": "Patrocínio", "crlv_uf": "MG", "owner_name": name,
                "owner_cpf": cpf, "insurance_valid_until": today + timedelta(days=rng.randint(-30, 365)),
                "insurance_insured_cpf": cpf, "insurance_insured_name": name,
                "passenger_insurance_valid_until": (today + timedelta(days=rng.randint(-10, 365))
                                                    if service is ServiceType.MOTOTAXI else None),
                "service_type": service.value, "holder_id": pid, "active": True, "version": 1,
                "created_at": now, "updated_at": now,
            })
            counts["vehicles"] += 1
            state_roll = rng.random()
            if state_roll < 0.08:
                rows_apps.append({"person_id": pid, "service_type": service.value, "vehicle_id": vid,
                                  "state": rng.choice([PermitState.REQUESTED, PermitState.UNDER_REVIEW]).value,
                                  "opened_on": today - timedelta(days=rng.randint(0, 60)), "opened_by": "atendente",
                                  "version": 1, "created_at": now, "updated_at": now})
                counts["applications"] += 1
                continue
            if state_roll < 0.80:
                state = PermitState.ACTIVE
            elif state_roll < 0.84:
                state = PermitState.SUSPENDED
            elif state_roll < 0.92:
                state = PermitState.EXPIRED
            elif state_roll < 0.97:
                state = PermitState.CANCELLED
            else:
                state = PermitState.REVOKED
            if state is PermitState.EXPIRED:  # Art. 6º: it expired the day after its five-year term
                issued = today - timedelta(days=rng.randint(5 * 365 + 3, 7 * 365))
                ended_on: date | None = add_years(issued, 5) + timedelta(days=1)
            else:
                issued = today - timedelta(days=rng.randint(10, 5 * 365))
                # the holder was 21 and held category A for two years on the issue date (Art. 5º, I and II)
                issued = max(issued, add_years(birth, 21), add_years(first_a, 2) + timedelta(days=1))
                ended_on = (None if state.in_force
                            else today - timedelta(days=rng.randint(1, max(1, (today - issued).days - 1))))
            if rows_vehicles[-1]["year_manufacture"] > issued.year:  # the bike was on the road when issued
                rows_vehicles[-1]["year_manufacture"] = issued.year - rng.randint(0, 1)
                rows_vehicles[-1]["year_model"] = rows_vehicles[-1]["year_manufacture"] + 1
            candidacy = (TenderCandidateFacts(rank=rank + 1, status="called", tender_number=tender_number,
                                              homologated_on=homologated)
                         if service is ServiceType.MOTOTAXI else None)
            number = f"{service.code}-{seq[service] + 1:04d}/{issued.year}"
            suspended_until = today + timedelta(days=rng.randint(5, 60)) if state is PermitState.SUSPENDED else None
            permit_row = {
                "id": next_permit_id, "number": number, "service_type": service.value,
                "year": issued.year, "seq": seq[service] + 1, "person_id": pid, "vehicle_id": vid,
                "decree_id": decree.id, "state": state.value, "issued_on": issued,
                "term_end": add_years(issued, 5),
                "extended": False,
                "certificate_valid_until": min(add_years(issued, completed_years(issued, ended_on or today) + 1),
                                               add_years(issued, 5)),
                "suspended_until": suspended_until,
                "badge_issue_no": 1, "ended_on": ended_on,
                "end_reason": ("Cancelada a pedido expresso do titular (dados de demonstração)."
                               if state is PermitState.CANCELLED else None),
                "version": 1, "created_at": now, "updated_at": now,
            }
            # The vehicle's inspections: the approved one the issue needed, and while the permit is in
            # force the periodic one its certificate's renewal needed (Art. 5º, § 6º; Art. 23).
            issue_inspected = issued - timedelta(days=rng.randint(1, 2))
            insp_rows: list[dict[str, Any]] = [{
                "vehicle_id": vid, "service_type": service.value, "kind": "regular", "status": "approved",
                "scheduled_for": issued - timedelta(days=rng.randint(3, 20)),
                "performed_at": datetime.combine(issue_inspected, datetime.min.time(), tzinfo=UTC) + timedelta(hours=12),
                "inspector_id": inspector_id, "inspector_name": INSPECTOR_NAME, "version": 1,
                "created_at": now, "updated_at": now,
            }]
            if state.in_force and (today - issued).days > 30:
                months = inspection_valid_months(service, settings)
                performed = max(issued + timedelta(days=1), today - timedelta(days=rng.randint(0, months * 28)))
                insp_rows.append({
                    "vehicle_id": vid, "service_type": service.value,
                    "kind": "annual" if service is ServiceType.MOTOFRETE else "semestral", "status": "approved",
                    "scheduled_for": performed, "inspector_id": inspector_id, "inspector_name": INSPECTOR_NAME,
                    "performed_at": datetime.combine(performed, datetime.min.time(), tzinfo=UTC) + timedelta(hours=12),
                    "next_due": inspection_valid_until(service, performed, settings), "version": 1,
                    "created_at": now, "updated_at": now,
                })
            facts = seeded_permit_facts(rows_people[-1], documents, rows_vehicles[-1], permit_row, insp_rows)
            penalty, notice_row, decision_row = None, None, None
            if state in (PermitState.SUSPENDED, PermitState.REVOKED):
                notice_row, decision_row = _penalty_rows(
                    state, permit_row, rows_vehicles[-1], name, cpf, notice_seq + 1, next_notice_id, inspector_id,
                    now, place=f"Av. {fake.last_name()}, {rng.randint(1, 900)}")
                penalty = (decision_row["decided_at"].date(), NoticeEvidence(
                    notice_row["number"], True, notice_row["status"], next_permit_id, "holder", pid,
                    (DecisionOnFile("first", "upheld", decision_row["penalty"]),)))
            issue_inspection = InspectionFacts(issue_inspected, True)
            verdicts = seeded_permit_verdicts(facts, today, settings, candidacy, issue_inspection=issue_inspection,
                                              quota_open_places=(mototaxi_places - mototaxi_in_force
                                                                 if service is ServiceType.MOTOTAXI else None),
                                              penalty=penalty)
            if verdicts:  # the rules refuse this permit: the person stays an applicant
                counts["refused"] += 1
                rows_apps.append({"person_id": pid, "service_type": service.value, "vehicle_id": vid,
                                  "state": PermitState.REQUESTED.value, "opened_on": today, "opened_by": "atendente",
                                  "version": 1, "created_at": now, "updated_at": now})
                counts["applications"] += 1
                continue
            accepted += verdicts  # nothing blocking: the judged step below writes it
            if service is ServiceType.MOTOTAXI and state.in_force:
                mototaxi_in_force += 1
            rows_insp += insp_rows
            if candidacy is not None:
                rank += 1
                rows_candidates.append({"tender_id": tender_id, "rank": rank, "cpf": cpf, "name": name,
                                        "person_id": pid, "status": "accepted", "called_on": issued, "version": 1})
            seq[service] += 1
            permit_id = next_permit_id
            next_permit_id += 1
            rows_permits.append(permit_row)
            counts["permits"] += 1
            if notice_row is not None and decision_row is not None:
                # No penalty without its process (Art. 29, § 3º; Art. 34): the decided notice behind it.
                notice_seq += 1
                next_notice_id += 1
                rows_notices.append(notice_row)
                rows_decisions.append(decision_row)
                revoked = state is PermitState.REVOKED
                reason = (f"Auto de infração {notice_row['number']} ({notice_row['article']}): decisão — "
                          f"{'Cassação' if revoked else 'Suspensão'}")
                rows_events.append({
                    "permit_id": permit_id, "transition": "revoke" if revoked else "suspend", "from_state": "active",
                    "to_state": state.value, "at": now, "by_user": "supervisor", "reason": reason,
                })
                if revoked:
                    permit_row["end_reason"] = reason
            if state.in_force and rng.random() < 0.05:
                rows_insp.append({
                    "vehicle_id": vid, "service_type": service.value, "status": "scheduled",
                    "kind": "annual" if service is ServiceType.MOTOFRETE else "semestral",
                    "scheduled_for": today + timedelta(days=rng.randint(-10, 30)), "version": 1,
                    "created_at": now, "updated_at": now,
                })
            if rng.random() < 0.03:
                notice_seq += 1
                next_notice_id += 1
                occurred = now - timedelta(days=rng.randint(0, 360), hours=rng.randint(0, 12))
                rows_notices.append({
                    "id": next_notice_id - 1, "permit_id": permit_id, "notification_method": "on_the_spot",
                    "closed_at": None, "closed_by": None,
                    "number": f"AI-{notice_seq:04d}/{occurred.year}", "year": occurred.year, "seq": notice_seq,
                    "infraction_code": "30.2.VI", "article": "Art. 30, Grupo 2, VI", "severity": "media",
                    "occurred_at": occurred, "place": f"Av. {fake.last_name()}, {rng.randint(1, 900)} – {rng.choice(DISTRICTS)}",
                    "person_id": pid, "offender_kind": "holder", "offender_name": name, "offender_cpf": cpf,
                    "vehicle_id": vid, "plate": rows_vehicles[-1]["plate"], "description": "Dados de demonstração.",
                    "inspector_id": inspector_id, "inspector_login": "vistoriador",
                    "inspector_name": "Carlos Henrique Borges", "notified_on": occurred.date(),
                    "signed": True, "refused_to_sign": False, "vehicle_seized": False,
                    "status": "open", "defence_due": (occurred + timedelta(days=15)).date(), "version": 1,
                    "created_at": now, "updated_at": now,
                })
        with ctx.write() as s:
            s.execute(insert(Person), rows_people)
            s.execute(insert(PersonDocument), rows_docs)
            if rows_vehicles:
                s.execute(insert(Vehicle), rows_vehicles)
            if rows_permits:
                with judged(s, accepted, Permit, TenderCandidate):  # each one judged above, by the rules
                    s.execute(insert(Permit), rows_permits)
                    if rows_candidates:
                        s.execute(insert(TenderCandidate), rows_candidates)
            if rows_apps:
                s.execute(insert(Application), rows_apps)
            if rows_insp:
                s.execute(insert(Inspection), rows_insp)
            if rows_notices:
                s.execute(insert(InfractionNotice), rows_notices)
            if rows_decisions:
                s.execute(insert(Decision), rows_decisions)
            if rows_events:
                s.execute(insert(PermitEvent), rows_events)
            _advance_sequences(s)
        counts["people"] += n
        counts["inspections"] += len(rows_insp)
        counts["notices"] += len(rows_notices)
        done += n
        if progress:
            progress(done, people)

    with ctx.write() as s:
        quota = s.get(QuotaCounter, ServiceType.MOTOTAXI)
        if quota is None:
            s.add(QuotaCounter(service_type=ServiceType.MOTOTAXI, places=mototaxi_places, in_force=mototaxi_in_force))
        else:
            quota.in_force = mototaxi_in_force
    analyze(ctx)  # fresh planner statistics for the rows just written (issue 20)
    return counts
