"""The register import's writing (issue 28, split from :mod:`motodesk.services.imports`): the plans of
the importable lines turned into ORM updates and bulk inserts (:func:`_write`), part by part; without the
write lock into prepared, packed inserts (:class:`_Sink`) that the write transaction only runs, and the
cheap stamp of the register that says whether they still hold (:func:`_register_version`)."""

from __future__ import annotations

import typing
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import Table, func, select, update
from sqlalchemy.orm import Session

from motodesk.models import (
    AuditCheckpoint,
    AuditEvent,
    Base,
    Decree,
    Permit,
    PermitEvent,
    Person,
    PersonDocument,
    QuotaCounter,
    Vehicle,
)
from motodesk.models.audit import (
    PreparedInsert,
    bulk_insert,
    chain_prepared,
    prepare_bulk_insert,
    reserve_ids,
)
from motodesk.rules.common import PermitState, ServiceType
from motodesk.rules.dossier import DocumentKind
from motodesk.services.errors import MotodeskError
from motodesk.services.import_known import IN_FORCE
from motodesk.services.import_known import among_values as _among
from motodesk.services.import_known import chunks as _chunks
from motodesk.services.import_known import imported_documents as _imported_documents
from motodesk.services.import_plan import ImportLine, _field_names, _Packed, _with_plan
from motodesk.services.text import fold


def _fields(data: Any) -> dict[str, Any]:
    """A dataclass's fields as a dict, shallow (dataclasses.asdict deep-copies every value)."""
    return {name: getattr(data, name) for name in _field_names(type(data))}


def _apply_fields(obj: Any, values: dict[str, Any]) -> None:
    for key, value in values.items():
        if value is not None and getattr(obj, key) != value:
            setattr(obj, key, value)


def _decree_number(raw: str) -> str:
    return " ".join(raw.split())[:32]


_DECREE_SUBJECT = ("Outorga de permissão/autorização (importada do cadastro anterior; data do Decreto igual à da "
                   "emissão)")


@dataclass
class _BulkPlan:
    """The rows an import writes, built before the write transaction begins.

    New people, their documents, vehicles and permits are plain dicts for Core ``insert`` executemany
    statements (their ids are taken inside the write transaction); what changes an existing row stays
    an ORM update (an import of changes is small, and the flush audits it column by column)."""

    file_name: str
    user: str
    work: list[ImportLine]
    new_people: list[tuple[ImportLine, dict[str, Any]]] = field(default_factory=list)
    updates: list[ImportLine] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.work

    @classmethod
    def build(cls, lines: Sequence[ImportLine], file_name: str, user: str) -> _BulkPlan:
        plan = cls(file_name, user, [line for line in lines if line.importable])
        for line in plan.work:
            assert line.person is not None
            if line.person_id is None:
                values = _fields(line.person)
                values["name_search"] = fold(line.person.full_name)
                plan.new_people.append((line, values))
            else:
                plan.updates.append(line)
        return plan


@dataclass
class _Sink:
    """A dry run of :func:`_write` in a READ transaction (issue 28): the inserts it would make are
    prepared (ids reserved from what that transaction saw, statements, value tuples, audit payloads)
    instead of executed; the write transaction then checks that nothing moved and only runs them."""

    prepared: list[PreparedInsert] = field(default_factory=list)
    places: int = 0
    packed: _Packed = field(default_factory=lambda: _Packed(1))  # one part per part of the plans
    next_ids: dict[str, int] = field(default_factory=dict)  # SQLite: the next free id, table by table
    decrees: dict[str, int] = field(default_factory=dict)  # decrees prepared by earlier parts
    #: SQLite: the audit chain's tip the prepared rows are hashed from (:func:`chain_prepared`), the
    #: instant and user they are hashed with; None: hashed under the lock (PostgreSQL: its triggers).
    tip: tuple[int, str] | None = None
    at: datetime | None = None
    user: str = ""

    def reserve(self, s: Session, table: Table, n: int) -> list[int]:
        """``n`` ids of ``table`` none of the earlier parts took (SQLite: after the largest this transaction
        saw; PostgreSQL: from the sequence)."""
        if s.get_bind().dialect.name != "sqlite" or n <= 0:
            return reserve_ids(s, table, n)
        start = self.next_ids.get(table.name)
        if start is None:
            start = reserve_ids(s, table, 1)[0]
        self.next_ids[table.name] = start + n
        return list(range(start, start + n))

    def seal(self) -> None:
        """This part's prepared inserts, their audit rows hashed ahead on SQLite, packed (their table by name)."""
        if self.tip is not None and self.at is not None:
            self.tip = chain_prepared(self.prepared, self.tip, self.user, self.at)
        self.packed.append([(p.table.name, p.columns, p.statement, p.values, p.audit, p.redact, p.chained)
                            for p in self.prepared])
        self.prepared = []


def _unpack_prepared(item: tuple[Any, ...]) -> PreparedInsert:
    name, columns, statement, values, audit, redact, chained = item
    return PreparedInsert(Base.metadata.tables[name], columns, statement, values, audit, redact, chained)


def _write_parts(s: Session, work: dict[int, ImportLine], plans: _Packed, file_name: str, user: str,
                 sink: _Sink | None = None) -> tuple[int, int]:
    """:func:`_write` the importable lines ``work`` part by part of their packed ``plans``: only one part's
    plans (and, with a ``sink``, its prepared inserts until they are packed) are Python objects at a time."""
    vehicles = permits = 0
    for part in plans.parts():
        chunk = [_with_plan(work[plan[0]], plan) for plan in part if plan[0] in work]
        if not chunk:
            continue
        v, n = _write(s, _BulkPlan.build(chunk, file_name, user), sink)
        vehicles, permits = vehicles + v, permits + n
        if sink is not None:
            sink.seal()
    return vehicles, permits


def _insert(s: Session, model: Any, rows: list[dict[str, Any]], sink: _Sink | None = None) -> None:
    """Bulk inserts of complete rows, audited in bulk (:func:`motodesk.models.audit.bulk_insert`), 5,000
    at a time so the driver's parameters and the audit rows of one batch are all that is held at once."""
    table = typing.cast(Table, model.__table__)
    if sink is not None and rows and not all(c.name in rows[0] for c in table.primary_key.columns):
        rows = [{**row, "id": new_id} for row, new_id in zip(rows, sink.reserve(s, table, len(rows)), strict=True)]
    for start in range(0, len(rows), 5000):
        if sink is not None:
            sink.prepared.append(prepare_bulk_insert(s, table, rows[start:start + 5000]))
        else:
            bulk_insert(s, table, rows[start:start + 5000])


_ID_TABLES = (Person, PersonDocument, Vehicle, Decree, Permit, PermitEvent)


def _last_ids(s: Session) -> tuple[int, ...]:
    """The largest id of every table the import inserts into: the prepared ids stay free while these do."""
    return tuple(int(s.scalar(select(func.max(m.id))) or 0) for m in _ID_TABLES)


def _register_version(s: Session) -> tuple[Any, ...] | None:
    """A cheap stamp of the whole register on SQLite, or None elsewhere (issue 28).

    Every write to a business table appends an audit row in the same transaction (on SQLite the chain is
    written by the application: :mod:`motodesk.models.audit`), and audit ids only go up, never reused
    (a sealed checkpoint keeps them going past deleted rows): so while the largest audit id, the newest
    checkpoint's, the quota counters and the largest id of each table the import inserts into are the
    same, nothing the judgement read has moved. Seven indexed look-ups, in place of reading the file's
    people, plates and permits again inside the write lock. On PostgreSQL ids from a sequence can commit
    out of order, so there the file's keys are read again (:func:`load_known`)."""
    if s.get_bind().dialect.name != "sqlite":
        return None
    audit = s.scalar(select(func.max(AuditEvent.id)))
    sealed = s.scalar(select(func.max(AuditCheckpoint.last_id)))
    quota = tuple(tuple(r) for r in s.execute(select(QuotaCounter.service_type, QuotaCounter.in_force,
                                                      QuotaCounter.places).order_by(QuotaCounter.service_type)))
    return (audit, sealed, quota, _last_ids(s))


def _write(s: Session, plan: _BulkPlan, sink: _Sink | None = None) -> tuple[int, int]:
    """Persist the plan: ORM updates of existing rows (one flush), then Core inserts of the new ones.

    With a ``sink`` (only for a plan without updates) nothing is written: the inserts are prepared."""
    assert sink is None or not plan.updates
    take = sink.reserve if sink is not None else reserve_ids
    person_of: dict[int, int] = {}  # line -> person id
    new_docs = _update_people(s, plan.updates, person_of)
    _insert_people(s, plan, take, person_of, new_docs, sink)
    vehicle_of = _insert_vehicles(s, plan, take, person_of, sink)
    permit_lines = _new_permit_lines(s, plan.work)
    decrees = _insert_decrees(s, permit_lines, take, sink)
    permits, mototaxi_in_force = _insert_permits(s, plan, permit_lines, take, person_of, vehicle_of, decrees, sink)
    if sink is not None:
        sink.places += mototaxi_in_force
    elif mototaxi_in_force:
        _claim_places(s, mototaxi_in_force)
    return len(vehicle_of), permits


def _update_people(s: Session, updates: list[ImportLine], person_of: dict[int, int]) -> list[dict[str, Any]]:
    """Existing people: update what the sheet changes (ORM; the flush audits each column). Returns the
    documents they did not have yet, as rows to insert."""
    existing_ids = [line.person_id for line in updates if line.person_id is not None]
    people: dict[int, Person] = {}
    docs: dict[tuple[int, DocumentKind], PersonDocument] = {}
    for chunk in _chunks(existing_ids):
        people.update({p.id: p for p in s.scalars(select(Person).where(Person.id.in_(chunk)))})
        docs.update({(d.person_id, d.kind): d for d in s.scalars(
            select(PersonDocument).where(PersonDocument.person_id.in_(chunk),
                                         PersonDocument.kind.in_(
                                             [DocumentKind(k.kind) for k, _ in _imported_documents()])))})
    vehicle_ids = [line.vehicle_id for line in updates if line.vehicle_id is not None and line.vehicle]
    vehicles_by_id: dict[int, Vehicle] = {}
    for chunk in _chunks(vehicle_ids):
        vehicles_by_id.update({v.id: v for v in s.scalars(select(Vehicle).where(Vehicle.id.in_(chunk)))})
    new_docs: list[dict[str, Any]] = []
    for line in updates:
        assert line.person is not None and line.person_id is not None
        person = people[line.person_id]
        _apply_fields(person, _fields(line.person))
        if person.name_search != fold(person.full_name):
            person.name_search = fold(person.full_name)
        person_of[line.line] = person.id
        for doc in line.documents:
            values = {k: val for k, val in _fields(doc).items() if k != "kind"}
            row = docs.get((person.id, doc.kind))
            if row is None:
                new_docs.append({"person_id": person.id, "kind": doc.kind, **values})
            else:
                _apply_fields(row, values)
        if line.vehicle is not None and line.vehicle_id is not None:
            _apply_fields(vehicles_by_id[line.vehicle_id], {**_fields(line.vehicle), "holder_id": person.id})
    s.flush()
    return new_docs


_Take = typing.Callable[[Session, Table, int], list[int]]


def _insert_people(s: Session, plan: _BulkPlan, take: _Take, person_of: dict[int, int],
                   new_docs: list[dict[str, Any]], sink: _Sink | None) -> None:
    """New people, then their documents (and the new documents of existing people, ``new_docs``)."""
    ids = take(s, typing.cast(Table, Person.__table__), len(plan.new_people))
    new_people = []
    for (line, values), new_id in zip(plan.new_people, ids, strict=True):
        person_of[line.line] = new_id
        new_people.append({**values, "id": new_id})
        for doc in line.documents:
            new_docs.append({"person_id": new_id, "kind": doc.kind,
                             **{k: val for k, val in _fields(doc).items() if k != "kind"}})
    _insert(s, Person, new_people, sink)
    _insert(s, PersonDocument, new_docs, sink)


def _insert_vehicles(s: Session, plan: _BulkPlan, take: _Take, person_of: dict[int, int],
                     sink: _Sink | None) -> dict[int, int]:
    """The new vehicles, each linked to its line's person: line -> vehicle id."""
    new_vehicle_lines = [line for line in plan.work if line.vehicle is not None and line.vehicle_id is None]
    vehicle_of: dict[int, int] = {}
    rows = []
    ids = take(s, typing.cast(Table, Vehicle.__table__), len(new_vehicle_lines))
    for line, new_id in zip(new_vehicle_lines, ids, strict=True):
        assert line.vehicle is not None
        vehicle_of[line.line] = new_id
        rows.append({**_fields(line.vehicle), "id": new_id, "holder_id": person_of[line.line], "active": True})
    _insert(s, Vehicle, rows, sink)
    return vehicle_of


def _new_permit_lines(s: Session, work: list[ImportLine]) -> list[ImportLine]:
    """The lines with a permit whose number is not registered yet (a registered one is left as it is)."""
    permit_lines = [line for line in work if line.permit is not None]
    existing_numbers: set[str] = set()
    for among in _among(s, Permit.number, [line.permit.number for line in permit_lines if line.permit is not None]):
        existing_numbers.update(s.scalars(select(Permit.number).where(among)))
    return [line for line in permit_lines if line.permit is not None and line.permit.number not in existing_numbers]


def _insert_decrees(s: Session, permit_lines: list[ImportLine], take: _Take, sink: _Sink | None) -> dict[str, int]:
    """The permits' decrees, the registered ones found and the others inserted: number -> decree id."""
    decrees: dict[str, int] = dict(sink.decrees) if sink is not None else {}
    wanted_decrees = sorted({_decree_number(line.permit.decree) for line in permit_lines
                             if line.permit is not None and line.permit.decree} - decrees.keys())
    for among in _among(s, Decree.number, wanted_decrees):
        decrees.update({number: did for did, number in s.execute(select(Decree.id, Decree.number).where(among))})
    signed: dict[str, date] = {}
    for line in permit_lines:
        assert line.permit is not None
        if line.permit.decree:
            number = _decree_number(line.permit.decree)
            if number not in decrees:
                signed.setdefault(number, line.permit.issued_on)
    rows = []
    for (number, on), new_id in zip(signed.items(), take(s, typing.cast(Table, Decree.__table__), len(signed)),
                                    strict=True):
        decrees[number] = new_id
        rows.append({"id": new_id, "number": number, "signed_on": on, "subject": _DECREE_SUBJECT})
    _insert(s, Decree, rows, sink)
    if sink is not None:
        sink.decrees.update(decrees)
    return decrees


def _active_vehicles(s: Session, holders: list[int]) -> dict[int, int]:
    """Holders who keep their registered vehicle: holder id -> active vehicle id."""
    active_vehicle: dict[int, int] = {}
    for among in _among(s, Vehicle.holder_id, holders):
        for vehicle_id, holder_id in s.execute(select(Vehicle.id, Vehicle.holder_id)
                                               .where(among, Vehicle.active.is_(True))):
            if holder_id is not None:
                active_vehicle[holder_id] = vehicle_id
    return active_vehicle


def _insert_permits(s: Session, plan: _BulkPlan, permit_lines: list[ImportLine], take: _Take,
                    person_of: dict[int, int], vehicle_of: dict[int, int], decrees: dict[str, int],
                    sink: _Sink | None) -> tuple[int, int]:
    """The new permits and their "import" events: (permits, mototáxi permits in force among them)."""
    active_vehicle = _active_vehicles(s, [person_of[line.line] for line in permit_lines
                                          if line.line not in vehicle_of])
    permit_rows: list[dict[str, Any]] = []
    event_rows: list[dict[str, Any]] = []
    mototaxi_in_force = 0
    now = datetime.now(UTC)
    ids = take(s, typing.cast(Table, Permit.__table__), len(permit_lines))
    for line, new_id in zip(permit_lines, ids, strict=True):
        p = line.permit
        assert p is not None
        person_id = person_of[line.line]
        decree_id = decrees.get(_decree_number(p.decree)) if p.decree else None
        expired = p.state is PermitState.EXPIRED
        permit_rows.append({
            "id": new_id, "number": p.number, "service_type": p.service, "year": p.year, "seq": p.seq,
            "person_id": person_id, "vehicle_id": vehicle_of.get(line.line, active_vehicle.get(person_id)),
            "decree_id": decree_id, "state": p.state, "issued_on": p.issued_on, "term_end": p.term_end,
            "extended": False, "certificate_valid_until": p.certificate_valid_until, "badge_issue_no": 0,
            "ended_on": p.term_end if expired else None,
            "end_reason": "Prazo encerrado (importada do cadastro anterior)." if expired else None})
        event_rows.append({"permit_id": new_id, "transition": "import", "from_state": None,
                           "to_state": p.state.value, "at": now, "by_user": plan.user, "decree_id": decree_id,
                           "reason": f"Importada da planilha {plan.file_name}, linha {line.line}."})
        if p.service is ServiceType.MOTOTAXI and p.state in IN_FORCE:
            mototaxi_in_force += 1
    _insert(s, Permit, permit_rows, sink)
    _insert(s, PermitEvent, event_rows, sink)
    return len(permit_rows), mototaxi_in_force


def _claim_places(s: Session, n: int) -> None:
    """Take ``n`` mototáxi places in one conditional UPDATE, or refuse the whole import (Art. 10, I)."""
    result = s.execute(update(QuotaCounter).where(QuotaCounter.service_type == ServiceType.MOTOTAXI,
                                                  QuotaCounter.in_force + n <= QuotaCounter.places)
                       .values(in_force=QuotaCounter.in_force + n)
                       .execution_options(synchronize_session=False))
    if getattr(result, "rowcount", 0) != 1:
        raise MotodeskError("Art. 10, I: as vagas de mototáxi foram ocupadas por outra estação durante a "
                            "importação; nada foi importado.")
