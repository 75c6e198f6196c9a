"""The dossier of a person: personal data and the documents of Art. 5."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import date

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from motodesk.models import Person, PersonDocument
from motodesk.rules.common import Role
from motodesk.rules.dossier import DocumentKind
from motodesk.rules.validators import validate_cpf
from motodesk.services.context import CONFLICT_MESSAGE, AppContext, requires
from motodesk.services.errors import ConflictError, InvalidInputError, NotFoundError
from motodesk.services.text import clean_name, fold

MAX_NAME = 200
MAX_TEXT = 4000
EDITORS = (Role.CLERK, Role.SUPERVISOR)
READERS = (Role.CLERK, Role.SUPERVISOR, Role.INSPECTOR, Role.ADMIN)


@dataclass
class PersonInput:
    """What the dossier form (or an import row) submits."""

    full_name: str
    cpf: str
    birth_date: date | None = None
    sex: str | None = None
    mother_name: str | None = None
    phone: str | None = None
    email: str | None = None
    address: str | None = None
    district: str | None = None
    city: str | None = None
    uf: str | None = None
    zip_code: str | None = None
    declares_no_other_permit: bool | None = None
    notes: str | None = None


@dataclass
class DocumentInput:
    kind: DocumentKind
    number: str | None = None
    issuer: str | None = None
    issuer_uf: str | None = None
    issue_date: date | None = None
    valid_until: date | None = None
    reference_date: date | None = None
    categories: str | None = None
    flag: bool | None = None
    result: str | None = None
    school: str | None = None
    notes: str | None = None


@dataclass
class PersonSaved:
    id: int
    version: int
    errors: dict[str, str] = field(default_factory=dict)


_LIMITS = {"full_name": MAX_NAME, "mother_name": MAX_NAME, "phone": 32, "email": 200, "address": 300,
           "district": 100, "city": 100, "uf": 2, "zip_code": 8, "notes": MAX_TEXT}


def validate_person(data: PersonInput) -> tuple[PersonInput, dict[str, str]]:
    """Normalise and check a person's fields: (clean data, field -> pt_BR reason)."""
    errors: dict[str, str] = {}
    name = clean_name(data.full_name)
    if not name:
        errors["full_name"] = "Informe o nome completo."
    elif len(name.split(" ")) < 2:
        errors["full_name"] = "Informe o nome completo (nome e sobrenome)."
    cpf = validate_cpf(data.cpf)
    if not cpf.ok:
        errors["cpf"] = cpf.message or "CPF inválido."
    if data.birth_date and data.birth_date > date.today():
        errors["birth_date"] = "A data de nascimento está no futuro."
    if data.sex not in (None, "", "M", "F"):
        errors["sex"] = "Sexo deve ser M ou F."
    values = dataclasses.asdict(data)
    for key, limit in _LIMITS.items():
        value = values.get(key)
        if isinstance(value, str):
            value = value.strip()
            values[key] = value or None
            if value and len(value) > limit:
                errors[key] = f"Texto longo demais: no máximo {limit} caracteres (recebidos {len(value)})."
    values["full_name"] = name
    values["cpf"] = cpf.value if cpf.ok else data.cpf
    if values.get("uf"):
        values["uf"] = values["uf"].upper()
    if values.get("sex") == "":
        values["sex"] = None
    return PersonInput(**values), errors


_INTEGRITY = {
    "uq_people_cpf": "Já existe uma pessoa cadastrada com este CPF.",
    "cols:people.cpf": "Já existe uma pessoa cadastrada com este CPF.",
}


@requires(*EDITORS)
def save_person(ctx: AppContext, data: PersonInput, *, person_id: int | None = None,
                expected_version: int | None = None) -> PersonSaved:
    """Create (no id) or update a person; a stale `expected_version` raises ConflictError."""
    clean, errors = validate_person(data)
    if errors:
        raise InvalidInputError("Corrija os campos marcados antes de salvar.", errors)
    with ctx.write(_INTEGRITY) as s:
        if person_id is None:
            person = Person()
            s.add(person)
        else:
            person = s.get(Person, person_id)
            if person is None:
                raise NotFoundError("A pessoa não existe mais no cadastro.")
            if expected_version is not None and person.version != expected_version:
                raise ConflictError(CONFLICT_MESSAGE)
        for key, value in dataclasses.asdict(clean).items():
            setattr(person, key, value)
        person.name_search = fold(clean.full_name)
        s.flush()
        return PersonSaved(person.id, person.version)


@requires(*EDITORS)
def save_document(ctx: AppContext, person_id: int, doc: DocumentInput,
                  expected_version: int | None = None) -> int:
    """Create or update the person's document of this kind; returns its version."""
    with ctx.write() as s:
        row = s.scalar(select(PersonDocument).where(PersonDocument.person_id == person_id,
                                                    PersonDocument.kind == doc.kind))
        if row is None:
            if s.get(Person, person_id) is None:
                raise NotFoundError("A pessoa não existe mais no cadastro.")
            row = PersonDocument(person_id=person_id, kind=doc.kind)
            s.add(row)
        elif expected_version is not None and row.version != expected_version:
            raise ConflictError(CONFLICT_MESSAGE)
        for key, value in dataclasses.asdict(doc).items():
            if key != "kind":
                setattr(row, key, value.strip() or None if isinstance(value, str) else value)
        s.flush()
        return row.version


@requires(*READERS)
def get_person(ctx: AppContext, person_id: int) -> Person:
    with ctx.read() as s:
        person = s.scalar(select(Person).options(selectinload(Person.documents)).where(Person.id == person_id))
        if person is None:
            raise NotFoundError("Pessoa não encontrada.")
        return person
