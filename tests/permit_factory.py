"""Complete dossiers for the permit tests: a person meeting every requirement, a vehicle, an approved
inspection, a called tender candidate (mototáxi) and an application, written straight to the database.

Importable from any test as ``permit_factory`` (like ``tests_helpers``). Dates are relative to the
reference date ``on`` (today by default), so the tests never go stale.
"""

from __future__ import annotations

import hashlib
import io
import itertools
from dataclasses import dataclass, fields
from datetime import UTC, date, datetime, timedelta

from PIL import Image, ImageDraw
from sqlalchemy.orm import Session
from tests_helpers import existing_register, valid_cpf  # type: ignore[import-not-found]

from motodesk.models import (
    Application,
    Blob,
    Inspection,
    Person,
    PersonDocument,
    Photo,
    Tender,
    TenderCandidate,
    Vehicle,
)
from motodesk.rules import documents_declared
from motodesk.rules.common import PermitState, ServiceType
from motodesk.rules.dossier import DocumentKind
from motodesk.services.context import AppContext
from motodesk.services.people import DocumentInput
from motodesk.services.text import fold

_plates = itertools.count(1)
_LETTERS = "ABCDEFGHJKLMNPRSTUVWXYZ"


def next_plate() -> str:
    """A fresh Mercosul plate, never the same twice in a test run."""
    n = next(_plates)
    return f"T{_LETTERS[n // 2300 % 23]}{_LETTERS[n // 100 % 23]}{n % 10}{_LETTERS[n // 10 % 10]}{n % 100:02d}"


def photo_jpeg(seed: int = 0) -> bytes:
    """A 354 × 472 3x4 JPEG, different for every seed."""
    im = Image.new("RGB", (354, 472), (70 + seed * 37 % 150, 120 + seed * 13 % 100, 190))
    draw = ImageDraw.Draw(im)
    draw.ellipse((106, 90, 248, 260), fill=(224, 182, 150))
    draw.rectangle((70, 300, 284, 472), fill=(40, 60 + seed % 100, 90))
    buffer = io.BytesIO()
    im.save(buffer, "JPEG", quality=85, dpi=(300, 300))
    return buffer.getvalue()


@dataclass(frozen=True)
class Dossier:
    person_id: int
    cpf: str
    name: str
    vehicle_id: int
    application_id: int
    candidate_id: int | None
    photo: bytes


def complete_documents(on: date, *, cnh_number: str = "34046871254", cnh_expiry: date | None = None,
                       medical: date | None = None, nit: str = "12056789010",
                       voter_title: str = "428703010213") -> list[DocumentInput]:
    """Every document of the dossier filled so that each requirement is met on ``on`` — the one
    "complete applicant" of the tests.  A document judged by its declaration alone
    (``documents_declared.generic()``, one a Decree or a test adds) is filled from its declaration."""
    docs = [
        DocumentInput(DocumentKind.CNH, number=cnh_number, categories="AB",
                      reference_date=on - timedelta(days=5 * 365), valid_until=cnh_expiry or on + timedelta(days=3 * 365),
                      flag=True, issuer="DETRAN", issuer_uf="MG"),
        DocumentInput(DocumentKind.COURSE, number="2025/0193", school="CFC Alto Paranaíba",
                      reference_date=on - timedelta(days=100)),
        DocumentInput(DocumentKind.IDENTITY, number="MG-14.325.876", issuer="SSP", issuer_uf="MG"),
        DocumentInput(DocumentKind.MILITARY, number="123456789012"),
        DocumentInput(DocumentKind.ELECTORAL, number=voter_title, flag=True),
        DocumentInput(DocumentKind.MEDICAL, issue_date=medical or on - timedelta(days=5),
                      presented_on=medical or on - timedelta(days=5)),
        DocumentInput(DocumentKind.INSS, number=nit),
        DocumentInput(DocumentKind.RESIDENCE, issue_date=on - timedelta(days=10)),
        DocumentInput(DocumentKind.CRIMINAL, issue_date=on - timedelta(days=30), result="negative"),
    ]
    return docs + [declared_complete(d, on) for d in documents_declared.generic()]


def declared_complete(doc: documents_declared.DeclaredDocument, on: date) -> DocumentInput:
    """A declared document filled from its declaration so that its generic rule is met on ``on``."""
    names = {f.name for f in doc.fields}
    values: dict[str, object] = {}
    if "number" in names:
        values["number"] = f"{doc.kind.upper()}-0001"
    if "issue_date" in names:
        values["issue_date"] = on - timedelta(days=1)
    if "valid_until" in names:
        values["valid_until"] = on + timedelta(days=365)
    if "result" in names:
        values["result"] = "negative"
    return DocumentInput(DocumentKind(doc.kind), **values)  # type: ignore[arg-type]


def requirement_count(service: ServiceType = ServiceType.MOTOBOY, *, deputy: bool = False) -> int:
    """How many requirements the dossier panel lists for ``service`` — from the declarations, never typed."""
    from motodesk.rules.eligibility import ApplicantFacts, check_applicant, check_deputy
    from motodesk.rules.settings import LawSettings

    judge = check_deputy if deputy else check_applicant
    return len(judge(ApplicantFacts(), service, date.today(), LawSettings()))


def add_person(s: Session, on: date, *, name: str = "João da Silva Araújo", cpf: str | None = None,
               cnh_expiry: date | None = None, medical: date | None = None, photo_seed: int = 0,
               with_photo: bool = True) -> tuple[Person, bytes]:
    cpf = cpf or valid_cpf()
    person = Person(full_name=name, name_search=fold(name), cpf=cpf, birth_date=date(1990, 5, 17), sex="M",
                    address="Rua Presidente Vargas, 1200", district="Centro", city="Patrocínio", uf="MG",
                    zip_code="38740000", declares_no_other_permit=True)
    s.add(person)
    s.flush()
    for doc in complete_documents(on, cnh_expiry=cnh_expiry, medical=medical):
        s.add(PersonDocument(person_id=person.id, **{f.name: getattr(doc, f.name) for f in fields(doc)}))
    data = photo_jpeg(photo_seed)
    if with_photo:
        sha = hashlib.sha256(data).hexdigest()
        if s.get(Blob, sha) is None:
            s.add(Blob(sha256=sha, size=len(data), data=data))
            s.flush()
        captured = datetime.combine(on - timedelta(days=10), datetime.min.time(), tzinfo=UTC) + timedelta(hours=15)
        s.add(Photo(person_id=person.id, blob_sha256=sha, captured_at=captured, captured_by="atendente",
                    source="camera", width=354, height=472))
    s.flush()
    return person, data


def add_vehicle(s: Session, person: Person, service: ServiceType, on: date, *, inspection: str | None = "approved",
                plate: str | None = None) -> Vehicle:
    existing_register(s)
    vehicle = Vehicle(
        plate=plate or next_plate(), renavam="89038149178", vin="9C2KC2200LR012345", make="Honda",
        model="CG 160 Titan", year_manufacture=on.year - 1, year_model=on.year, engine_cc=160,
        colour="AMARELA" if service is ServiceType.MOTOTAXI else "PRETA", category="aluguel",
        crlv_year=on.year, crlv_municipality="Patrocínio", crlv_uf="MG", owner_name=person.full_name,
        owner_cpf=person.cpf, insurance_valid_until=on + timedelta(days=300), insurance_number="SPVAT-2026-0001",
        insurance_insured_name=person.full_name, insurance_insured_cpf=person.cpf,
        passenger_insurance_valid_until=on + timedelta(days=300), service_type=service, holder_id=person.id,
        active=True,
    )
    s.add(vehicle)
    s.flush()
    if inspection is not None:
        s.add(Inspection(vehicle_id=vehicle.id, service_type=service, kind="regular", status=inspection,
                         performed_at=datetime.now(UTC) - timedelta(days=3), next_due=on + timedelta(days=180)))
        s.flush()
    return vehicle


def add_tender(s: Session, on: date, number: str = "PL-001/2026", *, homologated_days_ago: int = 20) -> Tender:
    tender = Tender(number=number, description="Concorrência para permissões de mototáxi",
                    homologated_on=on - timedelta(days=homologated_days_ago))
    s.add(tender)
    s.flush()
    return tender


def make_dossier(ctx: AppContext, service: ServiceType = ServiceType.MOTOBOY, *, on: date | None = None,
                 state: PermitState = PermitState.UNDER_REVIEW, tender_id: int | None = None, rank: int | None = None,
                 name: str = "João da Silva Araújo", inspection: str | None = "approved",
                 cnh_expiry: date | None = None, photo_seed: int = 0, with_photo: bool = True,
                 candidate_status: str | None = "called") -> Dossier:
    """A person who meets every requirement, with a vehicle and an application in ``state``.

    Mototáxi: the person is also a tender candidate with ``candidate_status`` (None: no candidate).
    """
    on = on or date.today()
    with ctx.write() as s:
        existing_register(s)
        person, photo = add_person(s, on, name=name, cnh_expiry=cnh_expiry, photo_seed=photo_seed,
                                   with_photo=with_photo)
        vehicle = add_vehicle(s, person, service, on, inspection=inspection)
        candidate_id = None
        if service is ServiceType.MOTOTAXI and candidate_status is not None:
            if tender_id is None:
                tender_id = add_tender(s, on, f"PL-{person.id:04d}/{on.year}").id
            candidate = TenderCandidate(tender_id=tender_id, rank=rank or person.id, cpf=person.cpf,
                                        name=name, person_id=person.id, status=candidate_status,
                                        called_on=on - timedelta(days=15))
            s.add(candidate)
            s.flush()
            candidate_id = candidate.id
        app = Application(person_id=person.id, service_type=service, state=state, opened_on=on - timedelta(days=7),
                          opened_by="atendente", vehicle_id=vehicle.id, tender_candidate_id=candidate_id)
        s.add(app)
        s.flush()
        return Dossier(person.id, person.cpf, name, vehicle.id, app.id, candidate_id, photo)
