"""The dossier of a person: personal data and the documents of Art. 5, saved together or not at all.

A dossier form holds the person's fields and one row per document kind. :func:`get_dossier`
reads all of it (with each row's version); :func:`save_dossier` writes the person and the changed
documents in one transaction, refusing with :class:`ConflictError` when another workstation saved
any of them since the form was opened. :func:`applicant_facts` turns what the form holds into the
:class:`~motodesk.rules.eligibility.ApplicantFacts` the rules judge, so the eligibility panel can
judge the form as it is typed, before anything is saved.

A permit is personal and non-transferable (Art. 6º, § 1º; Art. 7º): while a person holds a permit
that has not ended, has an application open or is a deputy, :func:`identity_locks` names what ties
them, and no save (the dossier, the import) changes their CPF or their name. A name changes only
through :func:`change_name` — a supervisor, a reason and the supporting document — which the
permit's history and :func:`name_changes` show.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session, selectinload

from motodesk.models import (
    Application,
    AuditEvent,
    DeputyLink,
    Permit,
    PermitEvent,
    Person,
    PersonDocument,
    PersonNameChange,
)
from motodesk.models.base import utcnow
from motodesk.rules import acts, documents_declared
from motodesk.rules.common import OPEN_APPLICATION_STATES, PermitState, Role, ServiceType, Verdict
from motodesk.rules.dossier import DocumentKind, check_certificate_change
from motodesk.rules.eligibility import BRAZILIAN_UFS, ApplicantFacts, check_applicant
from motodesk.rules.facts import dossier_facts
from motodesk.rules.text import application_number
from motodesk.rules.validators import (
    validate_cnh,
    validate_cpf,
    validate_nit,
    validate_titulo,
)
from motodesk.services import access_log
from motodesk.services.access_log import record_access
from motodesk.services.attachments import check_content, store_attachment
from motodesk.services.clock import local_today
from motodesk.services.context import CONFLICT_MESSAGE, EDITORS, READERS, AppContext, current_row, requires
from motodesk.services.errors import ConflictError, InvalidInputError, NotFoundError
from motodesk.services.facts import permits_facts
from motodesk.services.judged import judged
from motodesk.services.photos import newest_photo
from motodesk.services.refusals import refuse_marked
from motodesk.services.settings import law_settings
from motodesk.services.tenders import tender_standing
from motodesk.services.text import clean_name, fold, name_problem, text_problem

MAX_NAME = 200
MAX_TEXT = 4000
MAX_AGE_YEARS = 120  # a birth date further back is a typing error, not a person

# Control characters have no place in a form field (and PostgreSQL refuses NUL); line breaks are
# allowed only in the free-text notes.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_LINE_BREAK = re.compile(r"[\r\n\t]")


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
    presented_on: date | None = None  # medical certificate: the day it was presented (Art. 5º, § 2º)
    valid_until: date | None = None
    reference_date: date | None = None
    categories: str | None = None
    flag: bool | None = None
    result: str | None = None
    school: str | None = None
    notes: str | None = None

    def is_empty(self) -> bool:
        return all(v in (None, "") for k, v in dataclasses.asdict(self).items() if k != "kind")


@dataclass
class PersonSaved:
    id: int
    version: int
    errors: dict[str, str] = field(default_factory=dict)


_LIMITS = {"full_name": MAX_NAME, "mother_name": MAX_NAME, "phone": 32, "email": 200, "address": 300,
           "district": 100, "city": 100, "uf": 2, "zip_code": 8, "notes": MAX_TEXT}
DOCUMENT_LIMITS = {"number": 64, "issuer": 100, "issuer_uf": 2, "categories": 8, "result": 32,
                   "school": 200, "notes": MAX_TEXT}
CRIMINAL_RESULTS = ("negative", "positive")


def _text_problem(key: str, value: str, limit: int) -> str | None:
    if len(value) > limit:
        return f"Texto longo demais: no máximo {limit} caracteres (recebidos {len(value)})."
    if _CONTROL.search(value) or (key != "notes" and _LINE_BREAK.search(value)):
        return "O texto contém caracteres de controle (quebra de linha, tabulação ou invisíveis): digite-o de novo."
    if key in ("full_name", "mother_name"):
        return name_problem(value)  # the one name cleaner of every path (marks no script needs too)
    return text_problem(value, multiline=key == "notes")


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
    if data.birth_date and data.birth_date > local_today():
        errors["birth_date"] = "A data de nascimento está no futuro."
    elif data.birth_date and data.birth_date.year < local_today().year - MAX_AGE_YEARS:
        errors["birth_date"] = (f"Data de nascimento impossível ({data.birth_date:%d/%m/%Y}): "
                                f"mais de {MAX_AGE_YEARS} anos. Confira o documento.")
    if data.sex not in (None, "", "M", "F"):
        errors["sex"] = "Sexo deve ser M ou F."
    values = {name: getattr(data, name) for name in _PERSON_FIELDS}  # shallow: every field is immutable
    values["full_name"] = name
    if isinstance(values.get("zip_code"), str):
        values["zip_code"] = re.sub(r"[\s.\-]", "", values["zip_code"])
    _strip_texts(values, _LIMITS, errors)  # a problem there says more than "informe o nome completo"
    values["full_name"] = name
    values["cpf"] = cpf.value if cpf.ok else data.cpf
    if values.get("uf"):
        values["uf"] = values["uf"].upper()
        if values["uf"] not in BRAZILIAN_UFS and "uf" not in errors:
            errors["uf"] = f"UF desconhecida: “{values['uf']}”."
    zip_code = values.get("zip_code")
    if zip_code and not (zip_code.isascii() and zip_code.isdigit() and len(zip_code) == 8):
        errors["zip_code"] = "O CEP deve ter 8 dígitos."
    if values.get("sex") == "":
        values["sex"] = None
    return PersonInput(**values), errors


def _strip_texts(values: dict[str, Any], limits: Mapping[str, int], errors: dict[str, str]) -> None:
    """Each text of ``limits`` in ``values`` stripped (empty: None); its problem (too long, a bad character) in ``errors``."""
    for key, limit in limits.items():
        value = values.get(key)
        if isinstance(value, str):
            value = value.strip()
            values[key] = value or None
            problem = _text_problem(key, value, limit) if value else None
            if problem:
                errors[key] = problem


def validate_document(doc: DocumentInput) -> tuple[DocumentInput, dict[str, str]]:
    """Normalise a document row; refuse only what cannot be stored (field -> pt_BR reason).

    Check digits are not refused here: some real CNHs fail them (a supervisor may accept them);
    :func:`document_warnings` shows them on the field and the rules judge them.
    """
    errors: dict[str, str] = {}
    values = {name: getattr(doc, name) for name in _DOCUMENT_FIELDS}  # shallow: every field is immutable
    _strip_texts(values, DOCUMENT_LIMITS, errors)
    if values.get("issuer_uf"):
        values["issuer_uf"] = values["issuer_uf"].upper()
        if values["issuer_uf"] not in BRAZILIAN_UFS and "issuer_uf" not in errors:
            errors["issuer_uf"] = f"UF desconhecida: “{values['issuer_uf']}”."
    if values.get("categories"):
        values["categories"] = values["categories"].upper().replace(" ", "")
    if values.get("result") is not None and values["result"] not in CRIMINAL_RESULTS:
        errors.setdefault("result", "Resultado deve ser negativa ou positiva.")
    today = local_today()
    for key in ("issue_date", "presented_on", "reference_date"):
        value = values.get(key)
        if value is not None and value > today:
            errors[key] = "A data está no futuro."
    presented, issued = values.get("presented_on"), values.get("issue_date")
    if presented is not None and issued is not None and presented < issued and "presented_on" not in errors:
        errors["presented_on"] = "O documento não pode ter sido apresentado antes de ser emitido."
    values["kind"] = DocumentKind(doc.kind)
    return DocumentInput(**values), errors


_NUMBER_CHECKS = {DocumentKind.CNH: validate_cnh, DocumentKind.INSS: validate_nit,
                  DocumentKind.ELECTORAL: validate_titulo}


def document_warnings(doc: DocumentInput) -> dict[str, str]:
    """What looks wrong but may still be saved: a number whose check digits do not match."""
    check = _NUMBER_CHECKS.get(doc.kind)
    if check is None or not (doc.number or "").strip():
        return {}
    result = check(doc.number)
    return {} if result.ok else {"number": result.message or "Número inválido."}


# --- reading -----------------------------------------------------------------------------------


@dataclass
class DocumentRecord:
    """A stored document row: its values and the version the form started from."""

    id: int
    version: int
    data: DocumentInput


@dataclass
class Dossier:
    person_id: int
    version: int
    person: PersonInput
    documents: dict[DocumentKind, DocumentRecord]
    updated_at: datetime | None = None

    def document(self, kind: DocumentKind) -> DocumentInput:
        record = self.documents.get(kind)
        return record.data if record else DocumentInput(kind)


_PERSON_FIELDS = tuple(f.name for f in dataclasses.fields(PersonInput))
_DOCUMENT_FIELDS = tuple(f.name for f in dataclasses.fields(DocumentInput))


def _person_input(person: Person) -> PersonInput:
    return PersonInput(**{name: getattr(person, name) for name in _PERSON_FIELDS})


def _document_input(row: PersonDocument) -> DocumentInput:
    return DocumentInput(**{name: getattr(row, name) for name in _DOCUMENT_FIELDS})


@requires(*READERS)
def get_person(ctx: AppContext, person_id: int, *, screen: str = "people.get_person") -> Person:
    """The person with every document row (a whole dossier: the read is in the LGPD access log)."""
    with ctx.write() as s:
        person = s.scalar(select(Person).options(selectinload(Person.documents)).where(Person.id == person_id))
        if person is None:
            raise NotFoundError("Pessoa não encontrada.")
        record_access(s, ctx.user, person.id, access_log.DOSSIER, screen=screen, record_key=f"people:{person.id}")
        return person


def _load_dossier(s: Session, ctx: AppContext, person_id: int, screen: str) -> Dossier:
    """Session step: the dossier, and its read recorded in the LGPD access log (same transaction)."""
    person = s.scalar(select(Person).options(selectinload(Person.documents)).where(Person.id == person_id))
    if person is None:
        raise NotFoundError("Pessoa não encontrada: ela pode ter sido removida por outra estação.")
    documents = {row.kind: DocumentRecord(row.id, row.version, _document_input(row)) for row in person.documents}
    record_access(s, ctx.user, person.id, access_log.DOSSIER, screen=screen, record_key=f"people:{person.id}")
    return Dossier(person.id, person.version, _person_input(person), documents, person.updated_at)


@requires(*READERS)
def get_dossier(ctx: AppContext, person_id: int, *, screen: str = "people.get_dossier") -> Dossier:
    """The person and every document row, with the versions a later save must match.

    The read is recorded in the LGPD access log (:mod:`motodesk.services.access_log`) in the same
    transaction; ``screen`` names the screen or service that asked, for that record.
    """
    with ctx.write() as s:
        return _load_dossier(s, ctx, person_id, screen)


@requires(*READERS)
def cpf_owner(ctx: AppContext, cpf: str, *, except_person_id: int | None = None) -> tuple[int, str] | None:
    """(id, name) of the person registered with this CPF, other than ``except_person_id``."""
    result = validate_cpf(cpf)
    if not result.ok:
        return None
    with ctx.read() as s:
        row = s.execute(select(Person.id, Person.full_name).where(Person.cpf == result.value)).first()
    if row is None or row.id == except_person_id:
        return None
    return row.id, row.full_name


@dataclass(frozen=True)
class LastChange:
    user_login: str
    at: datetime


@requires(*READERS)
def last_change(ctx: AppContext, person_id: int) -> LastChange | None:
    """Who last saved the person's data or documents, and when (from the audit trail)."""
    with ctx.read() as s:
        doc_ids = [str(i) for i in s.scalars(select(PersonDocument.id).where(PersonDocument.person_id == person_id))]
        clauses = [(AuditEvent.table_name == "people") & (AuditEvent.row_key == str(person_id))]
        if doc_ids:
            clauses.append((AuditEvent.table_name == "person_documents") & AuditEvent.row_key.in_(doc_ids))
        row = s.execute(select(AuditEvent.user_login, AuditEvent.at).where(or_(*clauses))
                        .order_by(AuditEvent.id.desc()).limit(1)).first()
    return LastChange(row.user_login, row.at) if row else None


# --- personal and non-transferable (Art. 6º, § 1º; Art. 7º) ------------------------------------

PERSONAL_ARTICLE = "Art. 6º, § 1º; Art. 7º"
ENDED_PERMIT_STATES = (PermitState.EXPIRED, PermitState.CANCELLED, PermitState.REVOKED)
MAX_REASON = 500


def locks_of(s: Session, person_id: int) -> list[str]:
    """Session step: what ties the person's identity (pt_BR phrases), empty when nothing does.

    A permit or authorization in any state that has not ended, an open application, a current
    deputy link: each is personal and non-transferable (Art. 6º, § 1º; Art. 7º).
    """
    found: list[str] = []
    for number, service in s.execute(select(Permit.number, Permit.service_type)
                                     .where(Permit.person_id == person_id,
                                            Permit.state.not_in(ENDED_PERMIT_STATES))
                                     .order_by(Permit.id)):
        found.append(f"a {ServiceType(service).instrument} {number}")
    for app_id, opened_on in s.execute(select(Application.id, Application.opened_on)
                                       .where(Application.person_id == person_id,
                                              Application.state.in_(OPEN_APPLICATION_STATES))
                                       .order_by(Application.id)):
        found.append(f"o requerimento nº {application_number(app_id, opened_on)} em aberto")
    for number in s.scalars(select(Permit.number).join(DeputyLink, DeputyLink.permit_id == Permit.id)
                            .where(DeputyLink.deputy_person_id == person_id, DeputyLink.end_on.is_(None))
                            .order_by(Permit.number)):
        found.append(f"o vínculo de preposto da permissão {number}")
    return found


def tied_people(s: Session, person_ids: Sequence[int]) -> set[int]:
    """Session step: which of ``person_ids`` are tied by a permit, an application or a deputy link."""
    ids = list(person_ids)
    if not ids:
        return set()
    tied = set(s.scalars(select(Permit.person_id).where(Permit.person_id.in_(ids),
                                                       Permit.state.not_in(ENDED_PERMIT_STATES))))
    tied |= set(s.scalars(select(Application.person_id).where(Application.person_id.in_(ids),
                                                             Application.state.in_(OPEN_APPLICATION_STATES))))
    tied |= set(s.scalars(select(DeputyLink.deputy_person_id).where(DeputyLink.deputy_person_id.in_(ids),
                                                                    DeputyLink.end_on.is_(None))))
    return tied


def name_locked_message(name: str) -> str:
    """Why an import or a save may not rename a tied person (Art. 6º, § 1º; Art. 7º)."""
    return (f"{PERSONAL_ARTICLE}: {name} tem permissão, requerimento em aberto ou vínculo de preposto; o nome "
            "só é alterado pelo supervisor em “Alterar nome…”, com o motivo e o documento.")


@requires(*READERS)
def identity_locks(ctx: AppContext, person_id: int) -> list[str]:
    """What keeps the person's CPF and name from an ordinary save (see :func:`locks_of`)."""
    with ctx.read() as s:
        return locks_of(s, person_id)


def _ties(locks: Sequence[str]) -> str:
    from motodesk.rules.text import join_words

    return join_words(list(locks))


def check_identity_unchanged(s: Session, stored: Person, cpf: str, full_name: str) -> None:
    """Session step: refuse a new CPF or name for a person whose identity is tied (Art. 6º, § 1º; Art. 7º).

    Every path that writes a person calls it: the dossier, the import. The name still changes
    through :func:`change_name`; the CPF never does while the person is tied.
    """
    cpf_changes = cpf != stored.cpf
    name_changes = clean_name(full_name) != clean_name(stored.full_name)
    if not (cpf_changes or name_changes):
        return
    locks = locks_of(s, stored.id)
    if not locks:
        return
    errors: dict[str, str] = {}
    if cpf_changes:
        errors["cpf"] = (f"{PERSONAL_ARTICLE}: o CPF de {stored.full_name} não pode ser alterado enquanto houver "
                         f"{_ties(locks)}: a permissão é pessoal e intransferível.")
    if name_changes:
        errors["full_name"] = (f"{PERSONAL_ARTICLE}: o nome de {stored.full_name} não pode ser alterado no "
                               f"cadastro enquanto houver {_ties(locks)}; a alteração de nome (casamento, "
                               "retificação judicial) é feita pelo supervisor em “Alterar nome…”, com o motivo "
                               "e o documento.")
    raise InvalidInputError("\n".join(errors.values()), errors)


@dataclass(frozen=True)
class NameChangeRow:
    id: int
    person_id: int
    old_name: str
    new_name: str
    reason: str
    attachment_id: int
    at: datetime
    by_user: str


def _name_change_row(row: PersonNameChange) -> NameChangeRow:
    return NameChangeRow(row.id, row.person_id, row.old_name, row.new_name, row.reason, row.attachment_id,
                         row.at, row.by_user)


@requires(Role.SUPERVISOR)
def change_name(ctx: AppContext, person_id: int, new_name: str, reason: str, document_filename: str,
                document: bytes, *, expected_version: int | None = None) -> NameChangeRow:
    """Change a person's name (marriage, court correction): a supervisor, a reason, the document.

    One transaction: the scan is attached to the person, the change recorded with the old and the
    new name, and a step ``change_name`` written in the history of every permit that has not ended
    and every open application of the person (Art. 6º, § 1º; Art. 7º: the permit stays with the
    same person, now under the new name).
    """
    name = clean_name(new_name)
    errors: dict[str, str] = {}
    if not name or len(name.split(" ")) < 2:
        errors["full_name"] = "Informe o novo nome completo (nome e sobrenome)."
    elif (problem := _text_problem("full_name", name, MAX_NAME)) is not None:
        errors["full_name"] = problem
    why = " ".join((reason or "").split())
    if not why:
        errors["reason"] = "Informe o motivo da alteração (por exemplo, casamento ou retificação judicial)."
    elif len(why) > MAX_REASON:
        errors["reason"] = f"Motivo longo demais: no máximo {MAX_REASON} caracteres."
    if not document:
        errors["document"] = "Anexe o documento que comprova o novo nome (certidão de casamento, decisão judicial)."
    if errors:
        raise InvalidInputError("Corrija os campos marcados: " + " ".join(errors.values()), errors)
    try:
        media_type = check_content(document_filename, document)
    except InvalidInputError as exc:
        raise InvalidInputError(exc.message, {"document": exc.message}) from None
    with ctx.write() as s:
        person = s.get(Person, person_id, with_for_update=True)
        if person is None:
            raise NotFoundError("A pessoa não existe mais no cadastro.")
        if expected_version is not None and person.version != expected_version:
            raise ConflictError(CONFLICT_MESSAGE)
        old = person.full_name
        if name == clean_name(old):
            raise InvalidInputError("O novo nome é igual ao atual.", {"full_name": "O nome não mudou."})
        attachment = store_attachment(s, ctx, "people", person.id, document_filename, document, media_type)
        change = PersonNameChange(person_id=person.id, old_name=old, new_name=name, reason=why,
                                  attachment_id=attachment.id, at=utcnow(), by_user=ctx.user.login)
        s.add(change)
        person.full_name = name
        person.name_search = fold(name)
        note = f"Nome alterado de “{old}” para “{name}”: {why} (documento: {attachment.filename})"
        for permit in s.scalars(select(Permit).where(Permit.person_id == person.id,
                                                     Permit.state.not_in(ENDED_PERMIT_STATES))):
            s.add(PermitEvent(permit_id=permit.id, application_id=permit.application_id, transition="change_name",
                              from_state=permit.state.value, to_state=permit.state.value, at=change.at,
                              by_user=ctx.user.login, reason=note))
        for app in s.scalars(select(Application).where(Application.person_id == person.id,
                                                       Application.state.in_(OPEN_APPLICATION_STATES))):
            s.add(PermitEvent(application_id=app.id, transition="change_name", from_state=app.state.value,
                              to_state=app.state.value, at=change.at, by_user=ctx.user.login, reason=note))
        s.flush()
        return _name_change_row(change)


@requires(*READERS)
def name_changes(ctx: AppContext, person_id: int) -> list[NameChangeRow]:
    """The person's name changes, oldest first."""
    with ctx.read() as s:
        rows = s.scalars(select(PersonNameChange).where(PersonNameChange.person_id == person_id)
                         .order_by(PersonNameChange.at, PersonNameChange.id))
        return [_name_change_row(row) for row in rows]


# --- writing -----------------------------------------------------------------------------------


_INTEGRITY = {
    "uq_people_cpf": "Já existe uma pessoa cadastrada com este CPF.",
    "cols:people.cpf": "Já existe uma pessoa cadastrada com este CPF.",
    "uq_person_documents_person_kind": CONFLICT_MESSAGE,
    "cols:person_documents.person_id, person_documents.kind": CONFLICT_MESSAGE,
}


def _apply_person(person: Person, clean: PersonInput) -> None:
    for key, value in dataclasses.asdict(clean).items():
        if getattr(person, key) != value:
            setattr(person, key, value)
    name_search = fold(clean.full_name)
    if person.name_search != name_search:
        person.name_search = name_search


def _apply_document(row: PersonDocument, clean: DocumentInput) -> None:
    for key, value in dataclasses.asdict(clean).items():
        if key != "kind" and getattr(row, key) != value:
            setattr(row, key, value)


def _holds_permit_in_force(s: Session, person_id: int | None) -> bool:
    if person_id is None:
        return False
    return s.scalar(select(Permit.id).where(Permit.person_id == person_id,
                                            Permit.state.in_((PermitState.ACTIVE, PermitState.SUSPENDED)))
                    .limit(1)) is not None


def _apply_document_judged(s: Session, row: PersonDocument, clean: DocumentInput, holder_in_force: bool) -> None:
    """Write the document's facts through the judged step: for a holder in force, a certificate already
    judged changes only by a newer one (:func:`motodesk.rules.dossier.check_certificate_change`)."""
    changed = any(key != "kind" and getattr(row, key) != value for key, value in dataclasses.asdict(clean).items())
    verdicts = check_certificate_change(
        clean.kind, holder_in_force=holder_in_force and row.id is not None, old_issue=row.issue_date,
        new_issue=clean.issue_date, old_result=row.result, new_result=clean.result, changed=changed)
    with judged(s, verdicts, PersonDocument, intro=f"{clean.kind.label}:"):
        _apply_document(row, clean)


def _person_to_save(s: Session, person_id: int | None, expected_version: int | None, clean: PersonInput,
                    missing: str) -> Person:
    """The row a save writes the person into: a new one (no id), or the stored one at the version the
    form was loaded with (``missing`` when another station removed it), its identity unchanged."""
    if person_id is None:
        person = Person()
        s.add(person)
        return person
    stored = current_row(s, Person, person_id, expected_version, missing)
    check_identity_unchanged(s, stored, clean.cpf, clean.full_name)
    return stored


@requires(*EDITORS)
def save_person(ctx: AppContext, data: PersonInput, *, person_id: int | None = None,
                expected_version: int | None = None) -> PersonSaved:
    """Create (no id) or update a person; a stale `expected_version` raises ConflictError."""
    clean, errors = validate_person(data)
    refuse_marked(errors)
    with ctx.write(_INTEGRITY) as s:
        person = _person_to_save(s, person_id, expected_version, clean, "A pessoa não existe mais no cadastro.")
        _apply_person(person, clean)
        s.flush()
        return PersonSaved(person.id, person.version)


@requires(*EDITORS)
def save_document(ctx: AppContext, person_id: int, doc: DocumentInput,
                  expected_version: int | None = None) -> int:
    """Create or update the person's document of this kind; returns its version."""
    clean, errors = validate_document(doc)
    if errors:
        raise InvalidInputError("Corrija os campos marcados antes de salvar.",
                                {f"{doc.kind.value}.{k}": v for k, v in errors.items()})
    with ctx.write(_INTEGRITY) as s:
        row = s.scalar(select(PersonDocument).where(PersonDocument.person_id == person_id,
                                                    PersonDocument.kind == doc.kind))
        if row is None:
            if s.get(Person, person_id) is None:
                raise NotFoundError("A pessoa não existe mais no cadastro.")
            row = PersonDocument(person_id=person_id, kind=doc.kind)
            s.add(row)
        elif expected_version is not None and row.version != expected_version:
            raise ConflictError(CONFLICT_MESSAGE)
        _apply_document_judged(s, row, clean, _holds_permit_in_force(s, person_id))
        s.flush()
        return row.version


@dataclass
class DossierSaved:
    person_id: int
    version: int
    documents: dict[DocumentKind, tuple[int, int]]  # kind -> (id, version) of every row saved


@requires(*EDITORS)
def save_dossier(ctx: AppContext, person: PersonInput, documents: Sequence[DocumentInput] = (), *,
                 person_id: int | None = None, person_version: int | None = None,
                 document_versions: Mapping[DocumentKind, int | None] | None = None) -> DossierSaved:
    """Save the person and the given documents in one transaction: all of it, or nothing.

    ``person_version`` and ``document_versions`` are the versions the form was loaded with (None
    for a row the form believed new). If any stored row has moved on, nothing is written and
    :class:`ConflictError` is raised. An empty document the database does not hold is skipped.
    Field errors are keyed ``full_name``, ``cpf``… for the person and ``cnh.number``… for documents.
    """
    versions = dict(document_versions or {})
    clean_person, errors = validate_person(person)
    clean_docs: list[DocumentInput] = []
    seen: set[DocumentKind] = set()
    for doc in documents:
        if doc.kind in seen:
            raise InvalidInputError(f"O documento {doc.kind.label} foi enviado duas vezes.")
        seen.add(doc.kind)
        clean, doc_errors = validate_document(doc)
        errors.update({f"{doc.kind.value}.{k}": v for k, v in doc_errors.items()})
        clean_docs.append(clean)
    refuse_marked(errors)
    with ctx.write(_INTEGRITY) as s:
        row_person = _person_to_save(s, person_id, person_version, clean_person,
                                     "A pessoa não existe mais no cadastro: outra estação a removeu.")
        existing: dict[DocumentKind, PersonDocument] = {} if person_id is None else {
            d.kind: d for d in s.scalars(select(PersonDocument).where(PersonDocument.person_id == person_id))}
        _apply_person(row_person, clean_person)
        s.flush()
        saved: dict[DocumentKind, PersonDocument] = {}
        in_force = _holds_permit_in_force(s, person_id)
        for clean in clean_docs:
            row = existing.get(clean.kind)
            expected = versions.get(clean.kind)
            if row is None:
                if expected is not None:
                    raise ConflictError(CONFLICT_MESSAGE)  # the form had it; someone removed it
                if clean.is_empty():
                    continue
                row = PersonDocument(person_id=row_person.id, kind=clean.kind)
                s.add(row)
            elif expected is None or row.version != expected:
                raise ConflictError(CONFLICT_MESSAGE)
            _apply_document_judged(s, row, clean, in_force)
            saved[clean.kind] = row
        s.flush()
        return DossierSaved(row_person.id, row_person.version,
                            {kind: (row.id, row.version) for kind, row in saved.items()})


# --- what the rules see ------------------------------------------------------------------------


def applicant_facts(person: PersonInput, documents: Mapping[DocumentKind, DocumentInput], *,
                    photo_date: date | None = None,
                    tender_homologation_date: date | None = None) -> ApplicantFacts:
    """The evidence of a dossier as the rules of Art. 5º, 6º § 1º and 8º read it — the one mapping
    (:func:`motodesk.rules.facts.dossier_facts`) the stored facts are read through too."""
    return dossier_facts(person, documents, photo_date=photo_date, tender_homologation_date=tender_homologation_date)


def rule_of_document() -> dict[DocumentKind, str]:
    """Which rule of :func:`check_applicant` judges each document box of the checklist (from the declarations)."""
    return {DocumentKind(kind): rule for kind, rule in documents_declared.rule_of_document().items()}


@requires(*READERS)
def check_dossier(ctx: AppContext, person_id: int, service: ServiceType, *, on: date | None = None,
                  tender_homologation_date: date | None = None) -> list[Verdict]:
    """The verdicts of the stored dossier for ``service`` on ``on`` (today by default).

    For mototáxi the list ends with the tender requirement (``art6_tender``, Art. 6º; Art. 10, I):
    whether a tender is under way and the applicant a called candidate of it.
    """
    dossier = get_dossier(ctx, person_id, screen="people.check_dossier")
    photo = newest_photo(ctx, person_id, with_bytes=False)
    standing = tender_standing(ctx, person_id) if service is ServiceType.MOTOTAXI else None
    if standing is not None and tender_homologation_date is None and standing.candidate is not None:
        tender_homologation_date = standing.candidate.homologated_on
    facts = applicant_facts(dossier.person, {k: r.data for k, r in dossier.documents.items()},
                            photo_date=photo.local_date if photo else None,
                            tender_homologation_date=tender_homologation_date)
    verdicts = check_applicant(facts, service, on or local_today(), law_settings(ctx))
    if standing is not None:
        verdicts.append(standing.verdict)
    return verdicts


@dataclass(frozen=True)
class PermitPending:
    """A permit in force of the person and what today's facts do not vouch for: its pending items."""

    number: str
    imported: bool
    verdicts: tuple[Verdict, ...]


@requires(*READERS)
def permit_pending(ctx: AppContext, person_id: int, *, on: date | None = None) -> list[PermitPending]:
    """The person's permits in force judged on ``on``'s complete facts (today by default) by the
    document gate's rules on the registration certificate — the judgement the import lists per holder
    (:func:`motodesk.rules.acts.imported_permit_findings`), so each non-conformity is pending on the
    dossier, with its article, until the fact that clears it is recorded. Permits with none are left out."""
    today = on or local_today()
    settings = law_settings(ctx)
    with ctx.read() as s:
        ids = list(s.scalars(select(Permit.id).where(
            Permit.person_id == person_id,
            Permit.state.in_((PermitState.ACTIVE, PermitState.SUSPENDED))).order_by(Permit.id)))
        loaded = permits_facts(s, ids)
    out = []
    for permit_id in ids:
        permit = loaded[permit_id]
        verdicts = acts.imported_permit_findings(permit, today, settings)
        if verdicts:
            out.append(PermitPending(permit.number, permit.imported, tuple(verdicts)))
    return out
