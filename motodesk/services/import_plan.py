"""The register import's judging (issue 28, split from :mod:`motodesk.services.imports`): each row of
the sheet planned against what the register holds (:class:`_Planner`, through the dossier's own validation
and :mod:`motodesk.rules`), a short summary per line (:class:`ImportLine`) and the plans packed
(:class:`_Packed`) so that a 50,000-line file is not held as Python objects."""

from __future__ import annotations

import dataclasses
import gc
import pickle
import tempfile
import threading
import weakref
import zlib
from collections.abc import Collection, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from enum import StrEnum
from typing import Any

from motodesk.exports.importer import ImportRow
from motodesk.rules import acts, documents_declared
from motodesk.rules.common import PermitState, ServiceType, Status
from motodesk.rules.dossier import DocumentKind
from motodesk.rules.eligibility import ApplicantFacts, check_age_and_cnh
from motodesk.rules.lifecycle import permit_term_end
from motodesk.rules.periods import add_years
from motodesk.rules.settings import LawSettings
from motodesk.rules.validators import format_plate
from motodesk.rules.vehicle import check_vehicle
from motodesk.services.import_known import IN_FORCE
from motodesk.services.import_known import FileKeys as _FileKeys
from motodesk.services.import_known import Known as _Known
from motodesk.services.import_known import imported_documents as _imported_documents
from motodesk.services.import_known import permit_key as _permit_key
from motodesk.services.people import (
    DocumentInput,
    PersonInput,
    name_locked_message,
    validate_document,
    validate_person,
)
from motodesk.services.text import digits
from motodesk.services.vehicles import VehicleInput, plate_forms, validate_vehicle, vehicle_facts

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


@dataclass(slots=True)
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
PART_LINES = 1000


#: Packed parts beyond this many bytes go to a temporary file, not memory.
SPILL_BYTES = 1 << 20


class _Packed(Collection[Any]):
    """Objects kept pickled and compressed, ``size`` at a time, read back in order one part at a time.

    Issue 28: a 50,000-line import held its parsed rows, every line's plan and every prepared insert as
    Python objects at once (890 MB). Packed, each is a few bytes a line and only the part being worked
    on is unpacked; past :data:`SPILL_BYTES` the packed bytes are kept in a temporary file (the 50,000
    lines' prepared inserts and their audit hashes are 24 MB, read back once, from the page cache).
    Only what this process packed is ever unpacked."""

    def __init__(self, size: int | None = None) -> None:
        self.size = size or PART_LINES
        self._memory = bytearray()  # the packed bytes, until they pass SPILL_BYTES
        self._file: Any = None  # then the temporary file that holds them (closed with self)
        self._spans: list[tuple[int, int]] = []
        self._end = 0
        self._lock = threading.Lock()  # a part is read by seek and read: one reader at a time
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
            blob = zlib.compress(pickle.dumps(self._open, protocol=pickle.HIGHEST_PROTOCOL), 1)
            with self._lock:
                if self._file is None and self._end + len(blob) > SPILL_BYTES:
                    self._file = tempfile.TemporaryFile()  # noqa: SIM115 - closed by the finalizer
                    weakref.finalize(self, self._file.close)
                    self._file.write(self._memory)
                    self._memory = bytearray()
                if self._file is None:
                    self._memory += blob
                else:
                    self._file.seek(self._end)
                    self._file.write(blob)
            self._spans.append((self._end, len(blob)))
            self._end += len(blob)
            self._open = []

    def _blob(self, start: int, length: int) -> bytes:
        with self._lock:
            if self._file is None:
                return bytes(self._memory[start:start + length])
            self._file.seek(start)
            return bytes(self._file.read(length))

    def parts(self) -> Iterator[list[Any]]:
        for start, length in list(self._spans):
            yield pickle.loads(zlib.decompress(self._blob(start, length)))  # noqa: S301 - packed by this process
        if self._open:
            yield list(self._open)

    def __iter__(self) -> Iterator[Any]:
        for part in self.parts():
            yield from part

    def __len__(self) -> int:
        return self._n

    def __contains__(self, item: object) -> bool:
        return any(x == item for x in self)

    @property
    def packed_bytes(self) -> int:
        return self._end


#: A line's plan as packed: (line, person, documents, vehicle, permit).
_Plan = tuple[int, PersonInput | None, list[DocumentInput], VehicleInput | None, "_PermitPlan | None"]


def _with_plan(line: ImportLine, plan: _Plan) -> ImportLine:
    """The summary ``line`` with its packed plan attached again (a copy)."""
    return dataclasses.replace(line, person=plan[1], documents=plan[2], vehicle=plan[3], permit=plan[4])


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
    of a preview)."""
    names = _FIELD_NAMES.get(kind)
    if names is None:
        names = _FIELD_NAMES[kind] = tuple(f.name for f in dataclasses.fields(kind))
    return names


class _Planner:
    """Judges rows one after the other, remembering what earlier rows of the file claim."""

    def __init__(self, known: _Known, settings: LawSettings, today: date,
                 forms: dict[str, tuple[str, ...]] | None = None) -> None:
        self.known = known
        self.forms = dict(forms or {})  # plate -> its forms, parsed once (_FileKeys); a copy: it grows
        self.settings = settings
        self.today = today
        self.documents = _imported_documents()  # the sheet's declared documents, looked up once per file
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
        clean, changes = self._person(v, existing, line)
        docs, cnh = self._documents(v, person_id, existing is not None, line, changes)
        self._check_law(clean, cnh, service, line)
        vehicle, vehicle_id = self._vehicle(v, row, service, person_id, clean, line, changes)
        permit = self._permit(v, row, service, person_id, line, changes)
        if line.errors:
            line.outcome = Outcome.REFUSED
            return line
        self._claim(v, row, permit)
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

    def _person(self, v: dict[str, Any], existing: Any, line: ImportLine) -> tuple[PersonInput, list[str]]:
        """The row's person through the dossier's own validation, and what it changes of ``existing``."""
        given = PersonInput(full_name=v["full_name"], cpf=v["cpf"], birth_date=v.get("birth_date"),
                            sex=v.get("sex"), phone=_phone(v.get("phone")), email=v.get("email"),
                            address=v.get("address"))
        merged = given
        if existing is not None:  # an empty cell keeps what the register holds
            merged = dataclasses.replace(given, **{k: getattr(existing, k) for k in _PERSON_FIELDS
                                                   if getattr(given, k) is None})
        # Each check runs once per row, on the row's own values: a memo of whole rows never hit (every row has
        # its own CPF, CNH and plate) and cost a tenth of the judging in keys (issue 28); the validators
        # underneath remember each text they checked (motodesk.rules.validators).
        clean, errors = validate_person(merged)
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
        return clean, changes

    def _documents(self, v: dict[str, Any], person_id: int | None, existing: bool, line: ImportLine,
                   changes: list[str]) -> tuple[list[DocumentInput], DocumentInput]:
        """Every declared document the sheet has columns for (``documents_declared``): the ones the row
        changes, and the CNH as the rules read it."""
        docs: list[DocumentInput] = []
        doc = DocumentInput(DocumentKind.CNH)  # the CNH, as the rules below read it
        for declared_doc, cols in self.documents:
            kind = DocumentKind(declared_doc.kind)
            doc_given = {f.name: v.get(f.column) for f in cols if f.column is not None}
            old = self.known.docs.get((person_id, kind)) if person_id else None
            base = {name: getattr(old, name) for name in doc_given} if old is not None else {}
            if any(value is not None for value in doc_given.values()):
                new_input = DocumentInput(kind, **{**base, **{k: val for k, val in doc_given.items() if val is not None}})
                clean_doc, doc_errors = validate_document(new_input)
                line.errors += list(doc_errors.values())
                changed = [documents_declared.change_label(declared_doc, f) for f in cols
                           if doc_given[f.name] is not None
                           and (old is None or getattr(old, f.name) != getattr(clean_doc, f.name))]
                if changed:
                    docs.append(clean_doc)
                    if existing:
                        changes += changed
            else:
                clean_doc = DocumentInput(kind, **base)
            if kind is DocumentKind.CNH:
                doc = clean_doc
        return docs, doc

    def _check_law(self, clean: PersonInput, doc: DocumentInput, service: ServiceType, line: ImportLine) -> None:
        """Age and category A (Art. 5º, I and II) refuse the row; what falls due only warns."""
        facts = ApplicantFacts(birth_date=clean.birth_date, cpf=clean.cpf, cnh_number=doc.number,
                               cnh_categories=doc.categories, cnh_first_a_date=doc.reference_date)
        for verdict in check_age_and_cnh(facts, service, self.today, subject="o titular"):
            if verdict.rule_id in ("art5_i_age", "art5_ii_cnh") and verdict.status is Status.NOT_MET:
                # The sheet has no column for what the verdict may also miss (the EAR remark): say only why
                # the row fails, not what the dossier will still need.
                line.errors.append(verdict.message.split(" Falta também:", 1)[0])
        if doc.valid_until is not None and doc.valid_until < self.today:
            line.warnings.append(f"CNH vencida em {doc.valid_until:%d/%m/%Y} (Art. 5º, II): aparecerá em Prazos.")

    def _claim(self, v: dict[str, Any], row: ImportRow, permit: _PermitPlan | None) -> None:
        """An importable row claims its plate, its permit number and a quota place (never a refused one)."""
        if v.get("plate"):
            for form in self._forms(v["plate"]):
                self.plates[form] = (row.line, row.key or "")
        if permit is not None:
            self.numbers[permit.number] = row.line
            if (permit.service is ServiceType.MOTOTAXI and permit.state in IN_FORCE
                    and not self._permit_exists(permit)):
                self.quota_taken += 1

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
        clean, errors, verdicts = self._judge_vehicle(data, service, row.key)
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


def _plan_with(known: _Known, rows: list[ImportRow], settings: LawSettings, today: date,
               keys: _FileKeys | None = None, pack_rows: _Packed | None = None) -> tuple[list[ImportLine], _Packed]:
    """Judge ``rows`` on ``known`` (which may hold more of the register than they ask about: every
    look-up is by a row's own CPF, plate or number): a short summary per line, and the plans of the
    importable lines packed (issue 28: only the summary stays a Python object). With ``pack_rows`` each
    row is packed there once judged and leaves ``rows``, so the file's rows shrink as the lines grow."""
    planner = _Planner(known, settings, today, keys.forms if keys is not None else None)
    lines: list[ImportLine] = []
    plans = _Packed()
    for index, row in enumerate(rows):
        line = planner.plan(row)
        if pack_rows is not None:
            pack_rows.append(row)
            rows[index] = None  # type: ignore[call-overload]  # packed: the list no longer holds it
            if index % TRIM_EVERY == TRIM_EVERY - 1:
                _release_freed_memory()  # the packed rows' dicts, freed, go back before the lines outgrow them
        if line.importable:
            plans.append((line.line, line.person, line.documents, line.vehicle, line.permit))
        line.person, line.documents, line.vehicle, line.permit = None, [], None, None
        lines.append(line)
    return lines, plans


#: Rows judged between two :func:`_release_freed_memory` calls while the preview packs them.
TRIM_EVERY = 5000


def _release_freed_memory() -> None:
    """Give freed heap back to the system: python-calamine's grid after the reader, the parsed rows'
    dicts as the preview packs them (glibc keeps a freed heap for its own reuse, tens of MB at 50,000
    rows; Python's small objects do not reuse it). A no-op where there is no glibc."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


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
