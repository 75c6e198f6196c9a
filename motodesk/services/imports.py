"""Import of the secretariat's existing register (xlsx): preview first, then all confirmed rows or none.

:func:`preview_import` reads the file with :func:`motodesk.exports.importer.read_import` (format,
validators, dates, formulas, duplicates in the sheet) and checks every row against the rules and the
database, writing nothing:

* the person, by CPF: a new person, an update (which fields change), or "já existe, sem alterações";
  the fields go through :func:`motodesk.services.people.validate_person` and
  :func:`~motodesk.services.people.validate_document` — the dossier's own checks;
* the law: 21 years of age (Art. 5º, I) and category A held for 2 years (Art. 5º, II) refuse a row;
  what simply falls due (an expired CNH, a vehicle past its useful life) is a warning and shows up
  in Prazos after the import;
* the vehicle (when a plate is given), linked to the holder: a plate on another holder's active
  vehicle, or a holder who already has another active vehicle (Art. 6º, § 2º), refuse the row;
  125–250 cc (Art. 3º, I);
* the permit (when a number is given): its code must match the service, the number must not belong
  to someone else, the holder may have no other permit in force (Art. 6º, § 2º), and a mototáxi
  permit in force needs a place in the quota (Art. 10, I).

:func:`apply_import` then writes the rows the clerk confirmed, in ONE transaction: it plans them
again against the database as it is now (another workstation may have moved on since the
preview), and if any confirmed row would now be refused, nothing at all is written. Rows are upserted
by CPF, so importing the same file again creates nothing and — when nothing changed — writes
nothing. An empty cell never erases what the register holds.

Permits come in as they stand in the secretariat's books: in force until the end of the 5-year
term (Art. 6º), expired after it; their registration certificate counts as valid until the next
anniversary of issue (the books do not say when it was last renewed). Each one gets an "import"
event naming the file and the line.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import pickle
import time
import typing
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from sqlalchemy import Table, func, select, update
from sqlalchemy.orm import Session

from motodesk.exports.importer import ImportRow, read_import
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
from motodesk.models.audit import PreparedInsert, bulk_insert, prepare_bulk_insert, reserve_ids, run_prepared
from motodesk.rules import acts, documents_declared
from motodesk.rules.common import PermitState, Role, ServiceType, Status, Verdict
from motodesk.rules.dossier import DocumentKind
from motodesk.rules.eligibility import ApplicantFacts, check_age_and_cnh
from motodesk.rules.lifecycle import permit_term_end
from motodesk.rules.periods import add_years
from motodesk.rules.settings import LawSettings
from motodesk.rules.validators import format_cpf, format_plate
from motodesk.rules.vehicle import check_vehicle
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext, requires
from motodesk.services.errors import InvalidInputError, MotodeskError
from motodesk.services.facts import permits_facts
from motodesk.services.import_known import IN_FORCE
from motodesk.services.import_known import FileKeys as _FileKeys
from motodesk.services.import_known import Known as _Known
from motodesk.services.import_known import among_values as _among
from motodesk.services.import_known import chunks as _chunks
from motodesk.services.import_known import imported_documents as _imported_documents
from motodesk.services.import_known import load_known as _load_known
from motodesk.services.import_known import permit_key as _permit_key
from motodesk.services.judged import judged
from motodesk.services.maintenance import analyze
from motodesk.services.people import (
    DocumentInput,
    PersonInput,
    name_locked_message,
    validate_document,
    validate_person,
)
from motodesk.services.settings import law_settings
from motodesk.services.text import digits, fold
from motodesk.services.vehicles import VehicleInput, plate_forms, validate_vehicle, vehicle_facts

__all__ = [
    "ImportLine",
    "ImportPreview",
    "ImportSummary",
    "Outcome",
    "apply_import",
    "preview_import",
    "render_preview",
    "render_summary",
]

IMPORTERS = (Role.CLERK, Role.SUPERVISOR)

# pt_BR names of what a row may change, as the report lists them.
_PERSON_FIELDS = {"full_name": "nome", "birth_date": "data de nascimento", "sex": "sexo", "phone": "telefone",
                  "email": "e-mail", "address": "endereço"}


_VEHICLE_FIELDS = {"renavam": "RENAVAM", "vin": "chassi", "year_manufacture": "ano de fabricação",
                   "engine_cc": "cilindrada", "service_type": "serviço do veículo"}


class Outcome(StrEnum):
    NEW = "new"
    UPDATE = "update"
    UNCHANGED = "unchanged"
    REFUSED = "refused"

    @property
    def label(self) -> str:
        """What the preview says will happen to the row."""
        return {"new": "será incluída", "update": "atualizará o cadastro", "unchanged": "já existe, sem alterações",
                "refused": "recusada"}[self.value]

    @property
    def done_label(self) -> str:
        """What the summary says happened."""
        return {"new": "incluída", "update": "atualizada", "unchanged": "já existia, sem alterações",
                "refused": "recusada"}[self.value]


@dataclass
class _PermitPlan:
    number: str
    service: ServiceType
    year: int
    seq: int
    issued_on: date
    state: PermitState
    term_end: date
    certificate_valid_until: date
    decree: str | None


@dataclass
class ImportLine:
    """One data line of the sheet and what importing it does (or why it is refused)."""

    line: int
    name: str
    cpf: str | None
    outcome: Outcome
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)
    # the plan (None on refused lines)
    person: PersonInput | None = None
    person_id: int | None = None
    documents: list[DocumentInput] = field(default_factory=list)
    vehicle: VehicleInput | None = None
    vehicle_id: int | None = None
    permit: _PermitPlan | None = None
    #: The permit's number, kept on the line when its plan is packed away (the findings judge it).
    permit_number: str | None = None

    @property
    def importable(self) -> bool:
        return self.outcome in (Outcome.NEW, Outcome.UPDATE)

    @property
    def status(self) -> str:
        return self.outcome.label

    @property
    def reason(self) -> str:
        """The pt_BR explanation shown beside the status: why refused, or what changes."""
        if self.outcome is Outcome.REFUSED:
            return "; ".join(e.rstrip(".") for e in self.errors)
        return ", ".join(self.changes)


#: Lines per packed part: what is unpacked, planned or prepared at a time.
PART_LINES = 2000


class _Packed:
    """Objects kept pickled and compressed, ``size`` at a time, read back in order one part at a time.

    Issue 28: a 50,000-line import held its parsed rows, every line's plan and every prepared insert as
    Python objects at once (890 MB). Packed, each is a few bytes a line and only the part being worked
    on is unpacked. Only what this process packed is ever unpacked."""

    def __init__(self, size: int | None = None) -> None:
        self.size = size or PART_LINES
        self._parts: list[bytes] = []
        self._open: list[Any] = []
        self._n = 0

    @classmethod
    def of(cls, items: Iterable[Any], size: int | None = None) -> _Packed:
        packed = cls(size)
        for item in items:
            packed.append(item)
        return packed

    def append(self, item: Any) -> None:
        self._open.append(item)
        self._n += 1
        if len(self._open) >= self.size:
            self._seal()

    def _seal(self) -> None:
        if self._open:
            self._parts.append(zlib.compress(pickle.dumps(self._open, protocol=pickle.HIGHEST_PROTOCOL), 1))
            self._open = []

    def parts(self) -> Iterator[list[Any]]:
        for blob in self._parts:
            yield pickle.loads(zlib.decompress(blob))  # noqa: S301 - packed by this process, above
        if self._open:
            yield list(self._open)

    def __iter__(self) -> Iterator[Any]:
        for part in self.parts():
            yield from part

    def __len__(self) -> int:
        return self._n

    @property
    def packed_bytes(self) -> int:
        return sum(len(blob) for blob in self._parts)


#: A line's plan as packed: (line, person, documents, vehicle, permit).
_Plan = tuple[int, PersonInput | None, list[DocumentInput], VehicleInput | None, "_PermitPlan | None"]


def _with_plan(line: ImportLine, plan: _Plan) -> ImportLine:
    """The summary ``line`` with its packed plan attached again (a copy)."""
    return dataclasses.replace(line, person=plan[1], documents=plan[2], vehicle=plan[3], permit=plan[4])


@dataclass
class ImportPreview:
    """What importing ``path`` would do; nothing has been written."""

    path: Path
    sheet_name: str | None
    file_errors: list[str]
    file_warnings: list[str]
    lines: list[ImportLine]  # a short summary per line; the plans of importable lines are in ``plans``
    notes: list[str] = field(default_factory=list)
    rows: _Packed = field(default_factory=_Packed, repr=False)  # as read, packed: the apply may plan them again
    plans: _Packed = field(default_factory=_Packed, repr=False)  # each importable line's plan (_Plan), packed
    # what the judgement depended on: the apply reuses it when none of it has changed
    known: _Known | None = field(default=None, repr=False)
    today: date | None = None
    settings: LawSettings | None = field(default=None, repr=False)
    keys: _FileKeys | None = field(default=None, repr=False)  # the preview's rows' CPFs, plates, numbers
    version: tuple[Any, ...] | None = field(default=None, repr=False)  # the register's stamp (SQLite)

    @property
    def file_ok(self) -> bool:
        return not self.file_errors

    def planned(self, number: int) -> ImportLine:
        """Line ``number`` with its plan (person, documents, vehicle, permit) unpacked."""
        line = next(line for line in self.lines if line.line == number)
        plan = next((plan for plan in self.plans if plan[0] == number), None)
        return _with_plan(line, plan) if plan is not None else line

    def count(self, outcome: Outcome) -> int:
        return sum(1 for line in self.lines if line.outcome is outcome)

    @property
    def importable(self) -> list[ImportLine]:
        return [line for line in self.lines if line.importable]

    @property
    def refused(self) -> list[ImportLine]:
        return [line for line in self.lines if line.outcome is Outcome.REFUSED]


@dataclass(frozen=True)
class ImportSummary:
    created: int
    updated: int
    unchanged: int
    vehicles: int
    permits: int
    lines: tuple[ImportLine, ...]
    #: Seconds spent inside the one write transaction (on SQLite: the write lock held).
    write_seconds: float = 0.0
    #: Today's facts of each permit recorded from the register, judged by the same rules as every act:
    #: (holder, permit number, the articles not met), one entry per holder with a non-conformity.
    findings: tuple[tuple[str, str, tuple[str, ...]], ...] = ()

    @property
    def written(self) -> int:
        return self.created + self.updated


# --- planning (shared by the preview and the apply) ----------------------------------------------


def _phone(value: str | None) -> str | None:
    """Digits from the importer shown as the dossier shows them: (34) 99876-5432."""
    d = digits(value)
    if len(d) == 11:
        return f"({d[:2]}) {d[2:7]}-{d[7:]}"
    if len(d) == 10:
        return f"({d[:2]}) {d[2:6]}-{d[6:]}"
    return value


def _same(key: str, old: Any, new: Any) -> bool:
    if key == "phone":
        return digits(old) == digits(new)
    if key == "email":
        return (old or "").casefold() == (new or "").casefold()
    if key == "full_name":
        return " ".join((old or "").split()) == new
    return bool(old == new)


def _next_anniversary(issued_on: date, today: date) -> date:
    years = 1
    while (when := add_years(issued_on, years)) < today:
        years += 1
    return when


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(kind: type) -> tuple[str, ...]:
    """A dataclass's field names, looked up once per class (``dataclasses.fields`` per row was ~5 %
    of a preview: the memo keys every row's person, documents and vehicle by them)."""
    names = _FIELD_NAMES.get(kind)
    if names is None:
        names = _FIELD_NAMES[kind] = tuple(f.name for f in dataclasses.fields(kind))
    return names


def _key(data: Any) -> tuple[Any, ...]:
    return (type(data).__name__, *(getattr(data, name) for name in _field_names(type(data))))


class _Memo:
    """Results of the pure checks (validators, rules) by their inputs.

    The preview fills it and hands it to the apply, which plans the rows again against the
    database but need not repeat what does not depend on it.
    """

    LIMIT = 4096  # results kept at most (issue 28: unbounded, a 50,000-line file's memo was 90 MB)

    def __init__(self) -> None:
        self.store: dict[tuple[Any, ...], Any] = {}

    def __call__(self, key: tuple[Any, ...], compute: Callable[[], Any]) -> Any:
        try:
            return self.store[key]
        except KeyError:
            if len(self.store) >= self.LIMIT:
                self.store.clear()
            value = self.store[key] = compute()
            return value


class _Planner:
    """Judges rows one after the other, remembering what earlier rows of the file claim."""

    def __init__(self, known: _Known, settings: LawSettings, today: date, memo: _Memo,
                 forms: dict[str, tuple[str, ...]] | None = None) -> None:
        self.known = known
        self.forms = dict(forms or {})  # plate -> its forms, parsed once (_FileKeys); a copy: it grows
        self.settings = settings
        self.today = today
        self.memo = memo
        self.plates: dict[str, tuple[int, str]] = {}  # plate form -> (line, cpf) claimed earlier in the file
        self.numbers: dict[str, int] = {}  # permit number -> line
        self.quota_taken = 0

    def plan(self, row: ImportRow) -> ImportLine:
        v = row.values
        name = v.get("full_name") or ""
        line = ImportLine(row.line, name, row.key, Outcome.REFUSED, list(row.errors), list(row.warnings))
        if not row.ok:
            return line
        service = ServiceType(v["service"])
        existing = self.known.people.get(row.key) if row.key else None
        person_id = existing.id if existing is not None else None

        # --- the person, through the dossier's own validation
        given = PersonInput(full_name=v["full_name"], cpf=v["cpf"], birth_date=v.get("birth_date"),
                            sex=v.get("sex"), phone=_phone(v.get("phone")), email=v.get("email"),
                            address=v.get("address"))
        merged = given
        if existing is not None:  # an empty cell keeps what the register holds
            merged = dataclasses.replace(given, **{k: getattr(existing, k) for k in _PERSON_FIELDS
                                                   if getattr(given, k) is None})
        clean, errors = self.memo(("person", *_key(merged)), lambda: validate_person(merged))
        line.errors += list(errors.values())
        changes: list[str] = []
        if existing is None:
            changes.append("nova pessoa")
        else:
            changes += [label for key, label in _PERSON_FIELDS.items()
                        if getattr(given, key) is not None and not _same(key, getattr(existing, key),
                                                                         getattr(clean, key))]
            if existing.id in self.known.tied and not _same("full_name", existing.full_name, clean.full_name):
                line.errors.append(name_locked_message(existing.full_name))

        # --- documents: every declared document the sheet has columns for (``documents_declared``)
        docs: list[DocumentInput] = []
        doc = DocumentInput(DocumentKind.CNH)  # the CNH, as the rules below read it
        for declared_doc, cols in _imported_documents():
            kind = DocumentKind(declared_doc.kind)
            doc_given = {f.name: v.get(f.column) for f in cols if f.column is not None}
            old = self.known.docs.get((person_id, kind)) if person_id else None
            base = {name: getattr(old, name) for name in doc_given} if old is not None else {}
            if any(value is not None for value in doc_given.values()):
                new_input = DocumentInput(kind, **{**base, **{k: val for k, val in doc_given.items() if val is not None}})
                clean_doc, doc_errors = self.memo(_key(new_input), functools.partial(validate_document, new_input))
                line.errors += list(doc_errors.values())
                changed = [documents_declared.change_label(declared_doc, f) for f in cols
                           if doc_given[f.name] is not None
                           and (old is None or getattr(old, f.name) != getattr(clean_doc, f.name))]
                if changed:
                    docs.append(clean_doc)
                    if existing is not None:
                        changes += changed
            else:
                clean_doc = DocumentInput(kind, **base)
            if kind is DocumentKind.CNH:
                doc = clean_doc

        # --- the law: age and category A (Art. 5º, I and II) refuse; what falls due only warns
        facts = ApplicantFacts(birth_date=clean.birth_date, cpf=clean.cpf, cnh_number=doc.number,
                               cnh_categories=doc.categories, cnh_first_a_date=doc.reference_date)
        # The memo keeps only the verdicts a row can be refused for (a row's full list of verdicts,
        # with their pt_BR texts, is ~10 KB: 500 MB at the importer's 50,000 rows).
        verdicts = self.memo(("rules", service, self.today, self.settings, *_key(facts)),
                             lambda: [verdict for verdict in check_age_and_cnh(facts, service, self.today,
                                                                               subject="o titular")
                                      if verdict.rule_id in ("art5_i_age", "art5_ii_cnh")
                                      and verdict.status is Status.NOT_MET])
        for verdict in verdicts:
            if verdict.rule_id in ("art5_i_age", "art5_ii_cnh") and verdict.status is Status.NOT_MET:
                # The sheet has no column for what the verdict may also miss (the EAR remark): say only why
                # the row fails, not what the dossier will still need.
                line.errors.append(verdict.message.split(" Falta também:", 1)[0])
        if doc.valid_until is not None and doc.valid_until < self.today:
            line.warnings.append(f"CNH vencida em {doc.valid_until:%d/%m/%Y} (Art. 5º, II): aparecerá em Prazos.")

        # --- the vehicle, linked to the holder
        vehicle, vehicle_id = self._vehicle(v, row, service, person_id, clean, line, changes)

        # --- the permit
        permit = self._permit(v, row, service, person_id, line, changes)

        if line.errors:
            line.outcome = Outcome.REFUSED
            return line
        # Only now does the row claim its plate, its permit number and a quota place.
        if v.get("plate"):
            for form in self._forms(v["plate"]):
                self.plates[form] = (row.line, row.key or "")
        if permit is not None:
            self.numbers[permit.number] = row.line
            if (permit.service is ServiceType.MOTOTAXI and permit.state in IN_FORCE
                    and not self._permit_exists(permit)):
                self.quota_taken += 1
        line.person, line.person_id, line.documents = clean, person_id, docs
        line.vehicle, line.vehicle_id, line.permit = vehicle, vehicle_id, permit
        line.permit_number = permit.number if permit is not None else None
        line.changes = changes
        if existing is None:
            line.outcome = Outcome.NEW
        elif len(changes) > 0:
            line.outcome = Outcome.UPDATE
        else:
            line.outcome = Outcome.UNCHANGED
        return line

    def _judge_vehicle(self, data: VehicleInput, service: ServiceType, cpf: str | None) -> tuple[Any, ...]:
        clean, errors = validate_vehicle(data, self.today)
        errors = {k: v for k, v in errors.items() if k != "holder_id"}  # linked below, to the row's person
        verdicts = [] if errors else check_vehicle(vehicle_facts(clean), service, self.today, self.settings, cpf)
        kept = ("art3_i_engine", "art3_ii_useful_life", "art5_1_i_insurance")  # what the import acts on
        return clean, errors, [v for v in verdicts if v.status is Status.NOT_MET and v.rule_id in kept]

    def _forms(self, plate: str) -> tuple[str, ...]:
        forms = self.forms.get(plate)
        if forms is None:
            forms = self.forms[plate] = tuple(plate_forms(plate))
        return forms

    def _permit_exists(self, permit: _PermitPlan) -> bool:
        return permit.number in self.known.permits_by_number

    def _vehicle(self, v: dict[str, Any], row: ImportRow, service: ServiceType, person_id: int | None,
                 person: PersonInput, line: ImportLine, changes: list[str]) -> tuple[VehicleInput | None, int | None]:
        if not v.get("plate"):
            return None, None
        data = VehicleInput(plate=v["plate"], holder_id=person_id or 0, service_type=service,
                            renavam=v.get("renavam"), vin=v.get("vin"), year_manufacture=v.get("manufacture_year"),
                            engine_cc=v.get("engine_cc"), insurance_valid_until=v.get("insurance_valid_until"),
                            insurance_insured_cpf=v.get("insurance_insured_cpf"))
        current = self.known.vehicles_by_holder.get(person_id) if person_id else None
        if current is not None and current.plate in self._forms(v["plate"]):
            # the same vehicle: only the cells given replace what is stored
            data = dataclasses.replace(data, **{k: getattr(current, k) for k in _VEHICLE_FIELDS
                                                if getattr(data, k) is None})
        clean, errors, verdicts = self.memo(("vehicle", self.today, self.settings, row.key, *_key(data)),
                                            lambda: self._judge_vehicle(data, service, row.key))
        line.errors += list(errors.values())
        if errors:
            return None, None
        for verdict in verdicts:
            if verdict.status is not Status.NOT_MET:
                continue
            if verdict.rule_id == "art3_i_engine":
                line.errors.append(verdict.message)
            elif verdict.rule_id == "art3_ii_useful_life":
                line.warnings.append(verdict.message + " Aparecerá em Prazos.")
            elif verdict.rule_id == "art5_1_i_insurance":
                line.warnings.append(verdict.message)
        forms = self._forms(clean.plate)
        shown = format_plate(clean.plate)
        for form in forms:
            other = self.known.vehicles_by_plate.get(form)
            if other is not None and (person_id is None or other.holder_id != person_id):
                whose = f" de {other.full_name}" if other.full_name else ""
                line.errors.append(f"A placa {shown} já está no veículo ativo{whose}: uma placa só pode estar em "
                                   "um veículo ativo.")
                return None, None
            claimed = self.plates.get(form)
            if claimed is not None and claimed[1] != row.key:
                line.errors.append(f"A placa {shown} já foi usada na linha {claimed[0]} por outra pessoa.")
                return None, None
        if current is not None:
            if current.plate not in forms:
                line.errors.append(
                    f"Art. 6º, § 2º: o titular já tem o veículo ativo {format_plate(current.plate)}; cada titular tem "
                    "um só veículo. A troca exige autorização do supervisor (Art. 31, Grupo 3, II) na tela "
                    "Veículos.")
                return None, None
            changed = [label for key, label in _VEHICLE_FIELDS.items() if getattr(current, key) != getattr(clean, key)]
            changes += [f"veículo ({label})" for label in changed]
            return (clean if changed else None), current.id
        changes.append(f"veículo {shown}")
        return clean, None

    def _permit(self, v: dict[str, Any], row: ImportRow, service: ServiceType, person_id: int | None,
                line: ImportLine, changes: list[str]) -> _PermitPlan | None:
        raw = v.get("permit_number")
        if not raw:
            return None
        key = _permit_key(raw)
        if key is None:
            line.errors.append(f"Permissão: “{raw}” não está no formato MT-0007/2021 (MT mototáxi, MB motoboy, "
                               "MF moto-frete).")
            return None
        kind, seq, year, number = key
        if kind is not service:
            line.errors.append(f"Permissão: {number} é de {kind.label}, mas o serviço informado é {service.label}.")
            return None
        issued = v.get("issued_on")
        if issued is None:
            line.errors.append("Data de emissão: obrigatória quando a permissão é informada (Art. 6º).")
            return None
        too_new = acts.imported_permit_date(number, issued, self.today)
        if too_new is not None:
            line.errors.append(too_new.message)
            return None
        if issued.year != year:
            line.warnings.append(f"Permissão {number} emitida em {issued:%d/%m/%Y}: o ano do número é {year}; confira.")
        earlier = self.numbers.get(number)
        if earlier is not None:
            line.errors.append(f"A permissão {number} já aparece na linha {earlier}.")
            return None
        stored = self.known.permits_by_number.get(number)
        if stored is not None:
            if stored.person_id != person_id:
                line.errors.append(f"A permissão {number} já pertence a {stored.full_name}.")
                return None
            if stored.issued_on != issued:
                line.errors.append(f"A permissão {number} está cadastrada com emissão em {stored.issued_on:%d/%m/%Y}, "
                                   f"não {issued:%d/%m/%Y}: corrija-a na tela Permissões, não pela planilha.")
                return None
            return _PermitPlan(number, kind, year, seq, issued, PermitState.ACTIVE, permit_term_end(issued, False),
                               issued, v.get("decree"))  # already registered: nothing to write
        in_force = self.known.permits_in_force.get(person_id) if person_id else None
        if in_force is not None:
            line.errors.append(f"Art. 6º, § 2º: {line.name} já tem a permissão {in_force.number} em vigor; cada "
                               "titular tem uma só permissão ou autorização.")
            return None
        term_end = permit_term_end(issued, False)
        state = PermitState.ACTIVE
        if term_end < self.today:
            state = PermitState.EXPIRED
            line.warnings.append(f"Permissão {number}: o prazo de 5 anos terminou em {term_end:%d/%m/%Y} (Art. 6º); "
                                 "será importada como expirada.")
        elif kind is ServiceType.MOTOTAXI and self.known.quota_open is not None \
                and self.quota_taken >= self.known.quota_open:
            line.errors.append(
                f"Art. 10, I: não há vaga de mototáxi para a permissão {number} — as "
                f"{self.known.quota_open} vagas abertas já foram ocupadas por linhas anteriores ou pelo cadastro. "
                "Confira a população em Configurações.")
            return None
        changes.append(f"permissão {number}" + (" (expirada)" if state is PermitState.EXPIRED else ""))
        return _PermitPlan(number, kind, year, seq, issued, state, term_end, _next_anniversary(issued, self.today),
                           v.get("decree"))


def _plan_with(known: _Known, rows: Iterable[ImportRow], settings: LawSettings, today: date,
               keys: _FileKeys | None = None) -> tuple[list[ImportLine], _Packed]:
    """Judge ``rows`` on ``known`` (which may hold more of the register than they ask about: every
    look-up is by a row's own CPF, plate or number): a short summary per line, and the plans of the
    importable lines packed (issue 28: only the summary stays a Python object)."""
    planner = _Planner(known, settings, today, _Memo(), keys.forms if keys is not None else None)
    lines: list[ImportLine] = []
    plans = _Packed()
    for row in rows:
        line = planner.plan(row)
        if line.importable:
            plans.append((line.line, line.person, line.documents, line.vehicle, line.permit))
        line.person, line.documents, line.vehicle, line.permit = None, [], None, None
        lines.append(line)
    return lines, plans


@contextmanager
def _gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while an import builds its hundreds of thousands of small objects.

    Every few thousand allocations CPython walks the whole heap — here the file's rows, lines and
    memo — for cycles there are none of: about half of an apply's time, and of the write lock held.
    Reference counting still frees everything; collection resumes at the end."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


# --- the two actions -----------------------------------------------------------------------------


@requires(*IMPORTERS)
def preview_import(ctx: AppContext, path: str | Path, *, today: date | None = None,
                   progress: Callable[[int], None] | None = None) -> ImportPreview:
    """Read and judge the file; writes nothing. A bad file gives ``file_errors`` and no lines."""
    path = Path(path)
    today = today or local_today()
    with _gc_paused():
        report = read_import(path, today=today, progress=progress)
    if report.file_errors:
        return ImportPreview(path, report.sheet_name, list(report.file_errors), list(report.file_warnings), [])
    settings = law_settings(ctx)
    with _gc_paused():
        keys = _FileKeys.of([r for r in report.rows if r.ok])
        with ctx.read() as s:
            version = _register_version(s)
            known = _load_known(s, keys)
        lines, plans = _plan_with(known, report.rows, settings, today, keys)
        rows = _Packed.of(report.rows)
    sheet, warnings = report.sheet_name, list(report.file_warnings)
    del report  # the parsed rows are packed now
    notes = []
    if any(line.permit_number is not None and line.outcome is not Outcome.REFUSED for line in lines):
        notes.append("Permissões importadas: o certificado de registro conta como válido até o próximo aniversário "
                     "da emissão (Art. 4º, § 1º); confira na renovação anual.")
    return ImportPreview(path, sheet, [], warnings, lines, notes, rows, plans, known, today, settings, keys, version)


_INTEGRITY = {
    "uq_people_cpf": "Outra estação cadastrou agora uma das pessoas da planilha (mesmo CPF); nada foi importado. "
                     "Confira a planilha de novo.",
    "cols:people.cpf": "Outra estação cadastrou agora uma das pessoas da planilha (mesmo CPF); nada foi importado. "
                       "Confira a planilha de novo.",
    "uq_vehicles_active_plate": "Uma das placas da planilha foi cadastrada agora em outra estação; nada foi importado.",
    "uq_permits": "Uma das permissões da planilha foi cadastrada agora em outra estação; nada foi importado.",
    "cols:permits": "Uma das permissões da planilha foi cadastrada agora em outra estação; nada foi importado.",
}


@requires(*IMPORTERS)
def apply_import(ctx: AppContext, preview: ImportPreview, confirmed_lines: Iterable[int] | None = None, *,
                 today: date | None = None) -> ImportSummary:
    """Write the confirmed lines (default: every importable line) in one transaction: all or none.

    The rows are judged again (validators, rules, the database as it is now) in a READ transaction,
    and every row to insert is built there too; the write transaction then only re-reads what the
    judgement depended on — the file's people, plates and permit numbers, the quota — and, when the
    register has not moved, writes the plan with a few bulk statements (the audit rows in bulk too).
    If the register did move meanwhile, the rows are judged once more inside the write transaction,
    as before: a row that would now be refused refuses the whole import. So SQLite's write lock is
    held for the writing, not for the judging (``ImportSummary.write_seconds``).
    """
    if preview.file_errors:
        raise InvalidInputError("O arquivo foi recusado: nada a importar.\n" + "\n".join(preview.file_errors), code="import.file_refused")
    by_line = {line.line: line for line in preview.lines}
    wanted = sorted(set(confirmed_lines)) if confirmed_lines is not None else [
        line.line for line in preview.lines if line.outcome is not Outcome.REFUSED]
    problems = [n for n in wanted if n not in by_line or by_line[n].outcome is Outcome.REFUSED]
    if problems:
        raise InvalidInputError("Linhas recusadas ou inexistentes não podem ser confirmadas: "
                                + ", ".join(str(n) for n in problems) + ". Nada foi importado.", code="import.rows_not_confirmable")
    today = today or local_today()
    chosen = set(wanted)
    settings = law_settings(ctx)
    # Every line the preview found importable, the same day and settings: if the register still holds
    # what the preview read, the preview's judgement is the judgement (it is a function of the rows,
    # what it read, the settings and the day; a refused line never claims a plate, a number or a
    # place, so leaving it out changes no other line).
    whole = (preview.known is not None and today == preview.today and settings == preview.settings
             and chosen == {line.line for line in preview.lines if line.outcome is not Outcome.REFUSED})
    chosen_rows: list[ImportRow] | None = None

    def rows() -> list[ImportRow]:  # the values the clerk saw in the preview, unpacked only to judge again
        nonlocal chosen_rows
        if chosen_rows is None:
            chosen_rows = [r for r in preview.rows if r.line in chosen]
        return chosen_rows

    # The rows' keys are parsed once (the preview's, when every line goes in): the transactions below only
    # look them up.
    keys = preview.keys if whole and preview.keys is not None else _FileKeys.of([r for r in rows() if r.ok])
    file_name, user = preview.path.name, ctx.user.login
    with _gc_paused():  # judged outside the write lock
        with ctx.read() as s:
            version = _register_version(s)  # first: the stamp of the snapshot the judgement reads
            if whole and version is not None and version == preview.version and preview.known is not None:
                known = preview.known  # on SQLite: nothing at all was written since the preview read it
            else:
                known = _load_known(s, keys)
        if whole and known == preview.known:
            lines, plans = [line for line in preview.lines if line.outcome is not Outcome.REFUSED], preview.plans
        else:
            lines, plans = _plan_with(known, rows(), settings, today, keys)
        _refuse_changed(lines)
        work = {line.line: line for line in lines if line.importable}
        sink: _Sink | None = None
        if work and not any(line.outcome is Outcome.UPDATE for line in work.values()):
            # New rows only: build every insert here, in a read transaction (ids reserved from what it saw,
            # value tuples, audit payloads, packed part by part), so the write lock holds only the inserts
            # and the chain's hashes.
            sink = _Sink()
            with ctx.read() as s:
                last_ids = _last_ids(s)
                prepared_counts = _write_parts(s, work, plans, file_name, user, sink)
    if not work:  # the register already holds the sheet: no write transaction at all
        return ImportSummary(0, 0, len(lines), 0, 0, tuple(lines))
    started = time.perf_counter()
    with _gc_paused(), ctx.write(_INTEGRITY) as s:
        # On SQLite (the write lock is held from here) a cheap stamp says whether anything was written since
        # the judging read the register; only then are the file's keys read again. On PostgreSQL they are.
        stamp = _register_version(s)
        if stamp is not None and stamp == version:
            moved = False
        else:
            now = _load_known(s, keys)
            moved = now != known
        if moved:  # another workstation moved on: judge again, here, on what this transaction read
            lines, plans = _plan_with(now, rows(), settings, today, keys)
            _refuse_changed(lines)
            work = {line.line: line for line in lines if line.importable}
        # The judged step of the import: every line judged importable in this transaction's facts; it records
        # permits granted before and their holders' certificates, never a vehicle in service (Art. 31, G3, II).
        with judged(s, _line_verdicts(lines), Permit, PersonDocument):
            if sink is not None and not moved and (stamp[3] if stamp is not None else _last_ids(s)) == last_ids:
                # Nothing moved since the inserts were prepared: the same judgement, the same ids.
                for part in sink.packed:  # one part of the plans' prepared inserts at a time
                    run_prepared(s, [_unpack_prepared(p) for p in part])
                if sink.places:
                    _claim_places(s, sink.places)
                vehicles, permits = prepared_counts
            else:
                vehicles, permits = _write_parts(s, work, plans, file_name, user)
    written = time.perf_counter() - started
    sink = plans = None  # type: ignore[assignment]  # the prepared rows go before the findings load their facts
    _refresh_statistics(ctx)
    return ImportSummary(
        created=sum(1 for line in lines if line.outcome is Outcome.NEW),
        updated=sum(1 for line in lines if line.outcome is Outcome.UPDATE),
        unchanged=sum(1 for line in lines if line.outcome is Outcome.UNCHANGED),
        vehicles=vehicles, permits=permits, lines=tuple(lines), write_seconds=written,
        findings=_findings(ctx, [line.permit_number for line in lines if line.permit_number is not None],
                           settings, today),
    )


def _findings(ctx: AppContext, numbers: Sequence[str], settings: LawSettings,
              today: date) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """Every permit of the sheet judged on today's complete facts (:mod:`motodesk.services.facts`), 2,000
    permits at a time (issue 28: the facts of 50,000 permits at once were a fifth of the import's memory)."""
    out = []
    with ctx.read() as s:
        for part in _chunks(sorted(set(numbers)), 2000):  # in order of number, as the report lists them
            ids: list[int] = []
            for among in _among(s, Permit.number, part):
                ids += list(s.scalars(select(Permit.id).where(among)))
            for permit in sorted(permits_facts(s, ids).values(), key=lambda p: p.number):
                verdicts = acts.imported_permit_findings(permit, today, settings)
                if verdicts:
                    out.append((permit.holder.name, permit.number, tuple(v.message for v in verdicts)))
            s.expunge_all()  # this part's rows leave the session before the next part loads
    return tuple(out)


def _line_verdicts(lines: Sequence[ImportLine]) -> list[Verdict]:
    """The import's judgement of its lines as verdicts: one refusal per line the rules refused."""
    return [acts.import_line_refused(line.line, line.reason) for line in lines if line.outcome is Outcome.REFUSED]


def _refuse_changed(lines: Sequence[ImportLine]) -> None:
    refused = [line for line in lines if line.outcome is Outcome.REFUSED]
    if refused:
        detail = "\n".join(f"Linha {line.line}: {line.reason}" for line in refused)
        raise InvalidInputError("O cadastro mudou desde a conferência e algumas linhas confirmadas agora seriam "
                                "recusadas; nada foi importado.\n" + detail, code="import.register_changed")


def _refresh_statistics(ctx: AppContext) -> None:
    """Fresh planner statistics after a bulk write (issue 20: a fresh register must not wait for
    autovacuum). Outside the import's transaction: statistics are no part of the all-or-nothing."""
    analyze(ctx)


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
        """This part's prepared inserts, packed (their table by name)."""
        self.packed.append([(p.table.name, p.columns, p.statement, p.values, p.audit, p.redact)
                            for p in self.prepared])
        self.prepared = []


def _unpack_prepared(item: tuple[Any, ...]) -> PreparedInsert:
    name, columns, statement, values, audit, redact = item
    return PreparedInsert(Base.metadata.tables[name], columns, statement, values, audit, redact)


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
    people_t = typing.cast(Table, Person.__table__)
    vehicles_t, permits_t, decrees_t = (typing.cast(Table, m.__table__) for m in (Vehicle, Permit, Decree))
    person_of: dict[int, int] = {}  # line -> person id

    # --- existing people: update what the sheet changes (ORM; the flush audits each column)
    existing_ids = [line.person_id for line in plan.updates if line.person_id is not None]
    people: dict[int, Person] = {}
    docs: dict[tuple[int, DocumentKind], PersonDocument] = {}
    for chunk in _chunks(existing_ids):
        people.update({p.id: p for p in s.scalars(select(Person).where(Person.id.in_(chunk)))})
        docs.update({(d.person_id, d.kind): d for d in s.scalars(
            select(PersonDocument).where(PersonDocument.person_id.in_(chunk),
                                         PersonDocument.kind.in_(
                                             [DocumentKind(k.kind) for k, _ in _imported_documents()])))})
    vehicle_ids = [line.vehicle_id for line in plan.updates if line.vehicle_id is not None and line.vehicle]
    vehicles_by_id: dict[int, Vehicle] = {}
    for chunk in _chunks(vehicle_ids):
        vehicles_by_id.update({v.id: v for v in s.scalars(select(Vehicle).where(Vehicle.id.in_(chunk)))})
    new_docs: list[dict[str, Any]] = []
    for line in plan.updates:
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

    # --- new people, then their documents
    ids = take(s, people_t, len(plan.new_people))
    new_people = []
    for (line, values), new_id in zip(plan.new_people, ids, strict=True):
        person_of[line.line] = new_id
        new_people.append({**values, "id": new_id})
        for doc in line.documents:
            new_docs.append({"person_id": new_id, "kind": doc.kind,
                             **{k: val for k, val in _fields(doc).items() if k != "kind"}})
    _insert(s, Person, new_people, sink)
    _insert(s, PersonDocument, new_docs, sink)

    # --- vehicles
    new_vehicle_lines = [line for line in plan.work if line.vehicle is not None and line.vehicle_id is None]
    vehicle_of: dict[int, int] = {}
    rows = []
    for line, new_id in zip(new_vehicle_lines, take(s, vehicles_t, len(new_vehicle_lines)), strict=True):
        assert line.vehicle is not None
        vehicle_of[line.line] = new_id
        rows.append({**_fields(line.vehicle), "id": new_id, "holder_id": person_of[line.line], "active": True})
    _insert(s, Vehicle, rows, sink)

    # --- decrees and permits (a number already registered is left as it is)
    permit_lines = [line for line in plan.work if line.permit is not None]
    existing_numbers: set[str] = set()
    for among in _among(s, Permit.number, [line.permit.number for line in permit_lines if line.permit is not None]):
        existing_numbers.update(s.scalars(select(Permit.number).where(among)))
    permit_lines = [line for line in permit_lines if line.permit is not None
                    and line.permit.number not in existing_numbers]
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
    for (number, on), new_id in zip(signed.items(), take(s, decrees_t, len(signed)), strict=True):
        decrees[number] = new_id
        rows.append({"id": new_id, "number": number, "signed_on": on, "subject": _DECREE_SUBJECT})
    _insert(s, Decree, rows, sink)
    if sink is not None:
        sink.decrees.update(decrees)

    active_vehicle: dict[int, int] = {}  # holders who keep their registered vehicle
    holders = [person_of[line.line] for line in permit_lines if line.line not in vehicle_of]
    for among in _among(s, Vehicle.holder_id, holders):
        for vehicle_id, holder_id in s.execute(select(Vehicle.id, Vehicle.holder_id)
                                               .where(among, Vehicle.active.is_(True))):
            if holder_id is not None:
                active_vehicle[holder_id] = vehicle_id
    permit_rows: list[dict[str, Any]] = []
    event_rows: list[dict[str, Any]] = []
    mototaxi_in_force = 0
    now = datetime.now(UTC)
    for line, new_id in zip(permit_lines, take(s, permits_t, len(permit_lines)), strict=True):
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
    if sink is not None:
        sink.places += mototaxi_in_force
    elif mototaxi_in_force:
        _claim_places(s, mototaxi_in_force)
    return len(new_vehicle_lines), len(permit_rows)


def _claim_places(s: Session, n: int) -> None:
    """Take ``n`` mototáxi places in one conditional UPDATE, or refuse the whole import (Art. 10, I)."""
    result = s.execute(update(QuotaCounter).where(QuotaCounter.service_type == ServiceType.MOTOTAXI,
                                                  QuotaCounter.in_force + n <= QuotaCounter.places)
                       .values(in_force=QuotaCounter.in_force + n)
                       .execution_options(synchronize_session=False))
    if getattr(result, "rowcount", 0) != 1:
        raise MotodeskError("Art. 10, I: as vagas de mototáxi foram ocupadas por outra estação durante a "
                            "importação; nada foi importado.")


# --- reports ---------------------------------------------------------------------------------------


def _who(line: ImportLine) -> str:
    cpf = f" (CPF {format_cpf(line.cpf)})" if line.cpf else ""
    return f"{line.name}{cpf}" if line.name else cpf.strip(" ()")


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def render_preview(preview: ImportPreview) -> str:
    """The pt_BR report of the preview: a summary, then one line per data line, refusals with the reason."""
    out: list[str] = []
    name = preview.path.name
    if preview.file_errors:
        out.append(f"Arquivo {name} recusado; nada foi importado.")
        out += [f"- {e}" for e in preview.file_errors]
        out += [f"- Aviso: {w}" for w in preview.file_warnings]
        return "\n".join(out) + "\n"
    total = len(preview.lines)
    new, upd = preview.count(Outcome.NEW), preview.count(Outcome.UPDATE)
    same, refused = preview.count(Outcome.UNCHANGED), preview.count(Outcome.REFUSED)
    sheet = f', aba "{preview.sheet_name}"' if preview.sheet_name else ""
    out.append(f"Arquivo {name}{sheet}: {_plural(total, 'linha lida', 'linhas lidas')} — "
               f"{_plural(new, 'nova', 'novas')}, {_plural(upd, 'atualização', 'atualizações')}, "
               f"{same} sem alterações, {_plural(refused, 'recusada', 'recusadas')}.")
    out += [f"Aviso: {w}" for w in preview.file_warnings]
    out += [f"Observação: {n}" for n in preview.notes]
    for line in preview.lines:
        text = f"Linha {line.line}: {line.outcome.label}"
        if line.outcome is Outcome.REFUSED:
            text += f" — {line.reason}"
        else:
            text += f" — {_who(line)}"
            if line.outcome is not Outcome.UNCHANGED and line.changes:
                text += ": " + ", ".join(line.changes)
        if line.warnings:
            text += " — aviso: " + "; ".join(w.rstrip(".") for w in line.warnings)
        out.append(text)
    return "\n".join(out) + "\n"


def render_summary(summary: ImportSummary) -> str:
    out = [f"Importação concluída: {_plural(summary.created, 'pessoa incluída', 'pessoas incluídas')}, "
           f"{_plural(summary.updated, 'atualizada', 'atualizadas')}, {summary.unchanged} sem alterações; "
           f"{_plural(summary.vehicles, 'veículo novo', 'veículos novos')}, "
           f"{_plural(summary.permits, 'permissão nova', 'permissões novas')}."]
    if not summary.written:
        out.append("Nada foi gravado: o cadastro já estava igual à planilha.")
    for line in summary.lines:
        out.append(f"Linha {line.line}: {line.outcome.done_label} — {_who(line)}"
                   + (": " + ", ".join(line.changes) if line.outcome is Outcome.UPDATE and line.changes else ""))
    if summary.findings:
        out.append(f"Não conformidades de hoje ({_plural(len(summary.findings), 'titular', 'titulares')}); "
                   "os documentos dessas permissões não são emitidos até que sejam sanadas:")
        for holder, number, messages in summary.findings:
            out.append(f"{holder} — {number}:")
            out += [f"  • {message}" for message in messages]
    return "\n".join(out) + "\n"
