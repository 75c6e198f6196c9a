"""What the database holds about an import file's people, plates and permit numbers (issue 28: split from
:mod:`motodesk.services.imports`): the file's keys are parsed once from its rows (:class:`FileKeys`, no
database), then looked up in batches in every transaction that judges the rows (:func:`load_known`)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import ColumnElement, any_, bindparam, select
from sqlalchemy.dialects import postgresql
from sqlalchemy.orm import Session

from motodesk.exports.importer import ImportRow
from motodesk.models import Permit, Person, PersonDocument, Vehicle
from motodesk.rules import documents_declared
from motodesk.rules.common import IN_FORCE_STATES as IN_FORCE
from motodesk.rules.common import ServiceType
from motodesk.rules.dossier import DocumentKind
from motodesk.services.facts import quota_counts
from motodesk.services.people import tied_people
from motodesk.services.vehicles import plate_forms

CHUNK = 500
_PERMIT_NUMBER = re.compile(r"(MT|MB|MF)\s*-?\s*0*(\d{1,6})\s*/\s*(\d{4})", re.IGNORECASE)
_CODES = {s.code: s for s in ServiceType}


def imported_documents() -> list[tuple[documents_declared.DeclaredDocument, list[documents_declared.DocField]]]:
    """The declared documents the import sheet carries, each with its fields that have a column."""
    found: dict[str, tuple[documents_declared.DeclaredDocument, list[documents_declared.DocField]]] = {}
    for d, f in documents_declared.columns():
        found.setdefault(d.kind, (d, []))[1].append(f)
    return list(found.values())


@dataclass
class Known:
    """What the database holds about the file's people, plates and permits (read in batches)."""

    people: dict[str, Any] = field(default_factory=dict)  # cpf -> Person row (plain columns)
    docs: dict[tuple[int, DocumentKind], Any] = field(default_factory=dict)
    vehicles_by_holder: dict[int, Any] = field(default_factory=dict)
    vehicles_by_plate: dict[str, Any] = field(default_factory=dict)
    permits_by_number: dict[str, Any] = field(default_factory=dict)
    permits_in_force: dict[int, Any] = field(default_factory=dict)
    holder_names: dict[int, str] = field(default_factory=dict)
    quota_open: int | None = None
    tied: set[int] = field(default_factory=set)  # people whose name only change_name changes (Art. 7º)


def chunks(items: Sequence[Any], size: int = CHUNK) -> Iterable[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def permit_key(raw: Any) -> tuple[ServiceType, int, int, str] | None:
    m = _PERMIT_NUMBER.fullmatch(str(raw).strip()) if raw else None
    if m is None:
        return None
    service = _CODES[m.group(1).upper()]
    seq, year = int(m.group(2)), int(m.group(3))
    return service, seq, year, f"{service.code}-{seq:04d}/{year}"


def among_values(s: Session, column: Any, values: Sequence[Any]) -> Iterator[ColumnElement[bool]]:
    """``column IN values`` as few statements as the database allows: on PostgreSQL one statement
    with a single array parameter (``= ANY(%s)``: no 500-placeholder statement to compile and send
    per chunk, which is most of the preview's queries' cost there); on SQLite chunks of CHUNK."""
    if not values:
        return
    if s.get_bind().dialect.name == "postgresql":
        yield column == any_(bindparam(None, list(values), type_=postgresql.ARRAY(column.type)))
        return
    for chunk in chunks(values):
        yield column.in_(chunk)


@dataclass(frozen=True)
class FileKeys:
    """What the file's rows ask the database about, parsed from them once (pure: no database) and then
    looked up in every transaction that judges them — inside the write transaction too."""

    cpfs: list[str]
    forms: dict[str, tuple[str, ...]]  # plate as read -> every form of it (old and Mercosul)
    numbers: list[str]  # permit numbers, canonical

    @classmethod
    def of(cls, rows: Sequence[ImportRow]) -> FileKeys:
        forms = {r.values["plate"]: tuple(plate_forms(r.values["plate"])) for r in rows if r.values.get("plate")}
        numbers = {key[3] for r in rows if (key := permit_key(r.values.get("permit_number")))}
        return cls(sorted({r.key for r in rows if r.key}), forms, sorted(numbers))


def load_known(s: Session, keys: FileKeys) -> Known:
    known = Known()
    cpfs = keys.cpfs
    for among in among_values(s, Person.cpf, cpfs):
        for p in s.execute(select(Person.id, Person.cpf, Person.full_name, Person.birth_date, Person.sex,
                                  Person.phone, Person.email, Person.address).where(among)):
            known.people[p.cpf] = p
    ids = sorted(p.id for p in known.people.values())
    for among in among_values(s, PersonDocument.person_id, ids):
        imported = imported_documents()
        names = sorted({f.name for _, cols in imported for f in cols})
        for d in s.execute(select(PersonDocument.person_id, PersonDocument.kind,
                                  *(getattr(PersonDocument, name) for name in names))
                           .where(among, PersonDocument.kind.in_([DocumentKind(k.kind) for k, _ in imported]))):
            known.docs[(d.person_id, d.kind)] = d
    for among in among_values(s, Vehicle.holder_id, ids):
        for v in s.execute(select(Vehicle.id, Vehicle.plate, Vehicle.holder_id, Vehicle.renavam, Vehicle.vin,
                                  Vehicle.year_manufacture, Vehicle.engine_cc, Vehicle.service_type)
                           .where(among, Vehicle.active.is_(True))):
            known.vehicles_by_holder[v.holder_id] = v
    for among in among_values(s, Permit.person_id, ids):
        for held in s.execute(select(Permit.id, Permit.number, Permit.person_id, Permit.issued_on, Permit.state)
                              .where(among, Permit.state.in_(IN_FORCE))):
            known.permits_in_force[held.person_id] = held
    for chunk in chunks(ids):
        known.tied |= tied_people(s, chunk)
    for among in among_values(s, Vehicle.plate, sorted(set().union(*keys.forms.values()))):
        for other in s.execute(select(Vehicle.id, Vehicle.plate, Vehicle.holder_id, Person.full_name)
                               .outerjoin(Person, Person.id == Vehicle.holder_id)
                               .where(among, Vehicle.active.is_(True))):
            known.vehicles_by_plate[other.plate] = other
            if other.holder_id is not None:
                known.holder_names[other.holder_id] = other.full_name
    for among in among_values(s, Permit.number, keys.numbers):
        for numbered in s.execute(select(Permit.id, Permit.number, Permit.person_id, Permit.issued_on,
                                         Person.full_name)
                                  .join(Person, Person.id == Permit.person_id).where(among)):
            known.permits_by_number[numbered.number] = numbered
    quota = quota_counts(s)
    known.quota_open = quota[2] if quota else None
    return known
