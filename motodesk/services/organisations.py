"""Organisations of holders (Art. 9º): cooperatives, centrals, associations and operators, and who belongs.

- An organisation has a valid CNPJ (numeric or alphanumeric, unique in the register), an address and
  a contact (phone or e-mail): it is a business subject to the law of commercial establishments (§ 4º).
- Holders inform the secretariat when they join (§ 2º): :func:`join_organisation` records it for a
  holder of a permit in force, from a date. The organisation never binds the permit (caput): nothing
  here touches permits.
- Leaving is a right at any time (§ 3º): :func:`leave_organisation` asks nothing but the date, whatever
  the state of the permit or of the organisation.
- The register lists the members of each organisation and exports them to a spreadsheet
  (:data:`motodesk.exports.kinds.ORGANISATION_MEMBERS`).

Roles: clerks and supervisors keep the register (the holder informs at the counter); the export of
members, like every spreadsheet of the secretariat, is a supervisor's (or an administrator's).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from motodesk.exports.kinds import ORGANISATION_MEMBERS
from motodesk.exports.xlsx import write_workbook
from motodesk.models import Affiliation, Organisation, Permit, Person
from motodesk.rules import acts
from motodesk.rules.common import PermitState, Role, ServiceType
from motodesk.rules.text import format_date
from motodesk.rules.validators import format_cnpj, validate_cnpj
from motodesk.services.clock import local_today
from motodesk.services.context import EDITORS, READERS, AppContext, current_row, requires
from motodesk.services.errors import (
    InvalidInputError,
    MotodeskError,
    NotFoundError,
    RuleViolationError,
)
from motodesk.services.refusals import check_period_end, refuse_marked
from motodesk.services.text import clean_name, digits, search_text, text_problem

EXPORTERS = (Role.SUPERVISOR, Role.ADMIN)
_LIMITS = {"name": 200, "address": 300, "phone": 32, "email": 200, "contact_name": 200}
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class OrganisationKind(StrEnum):
    """The forms of organisation Art. 9º names."""

    COOPERATIVE = "cooperative"
    CENTRAL = "central"
    ASSOCIATION = "association"
    OPERATOR = "operator"

    @property
    def label(self) -> str:
        return {"cooperative": "Cooperativa", "central": "Central de Serviço", "association": "Associação",
                "operator": "Operadora de Serviço"}[self.value]


@dataclass
class OrganisationInput:
    kind: OrganisationKind | str
    name: str
    cnpj: str
    address: str | None = None
    phone: str | None = None
    email: str | None = None
    contact_name: str | None = None


@dataclass(frozen=True)
class OrganisationRow:
    id: int
    version: int
    kind: OrganisationKind
    name: str
    cnpj: str
    address: str | None
    phone: str | None
    email: str | None
    contact_name: str | None
    members: int  # current members

    @property
    def cnpj_formatted(self) -> str:
        return format_cnpj(self.cnpj)

    @property
    def contact(self) -> str:
        return " · ".join(p for p in (self.contact_name, self.phone, self.email) if p)


def validate_organisation(data: OrganisationInput) -> tuple[OrganisationInput, dict[str, str]]:
    """Normalise and check an organisation's fields: (clean data, field -> pt_BR reason)."""
    errors: dict[str, str] = {}
    try:
        kind: OrganisationKind | str = OrganisationKind(data.kind)
    except ValueError:
        kind = data.kind
        errors["kind"] = "Escolha o tipo: cooperativa, central, associação ou operadora (Art. 9º)."
    values: dict[str, str | None] = {}
    for key, limit in _LIMITS.items():
        raw = clean_name(getattr(data, key) or "")
        values[key] = raw or None
        if len(raw) > limit:
            errors[key] = f"Texto longo demais: no máximo {limit} caracteres."
        elif _CONTROL.search(raw):
            errors[key] = "O texto contém caracteres de controle: digite-o de novo."
        elif problem := text_problem(raw):
            errors[key] = problem
    if not values["name"]:
        errors.setdefault("name", "Informe a razão social.")
    cnpj = validate_cnpj(data.cnpj)
    if not cnpj.ok:
        errors["cnpj"] = cnpj.message or "CNPJ inválido."
    if not values["address"]:
        errors.setdefault("address", "Informe o endereço (Art. 9º, § 4º: é estabelecimento comercial).")
    if not values["phone"] and not values["email"]:
        errors.setdefault("phone", "Informe um contato: telefone ou e-mail.")
    phone = values["phone"]
    if phone and "phone" not in errors and not 10 <= len(digits(phone)) <= 13:
        errors["phone"] = "Telefone com DDD: 10 ou 11 dígitos."
    email = values["email"]
    if email and "email" not in errors:
        values["email"] = email = email.lower()
        if not _EMAIL.fullmatch(email):
            errors["email"] = "E-mail inválido."
    clean = OrganisationInput(kind=kind, name=values["name"] or "", cnpj=cnpj.value or data.cnpj,
                              address=values["address"], phone=phone, email=values["email"],
                              contact_name=values["contact_name"])
    return clean, errors


_DUPLICATE_CNPJ = "Já existe uma organização cadastrada com este CNPJ."
_INTEGRITY = {
    "uq_organisations_cnpj": _DUPLICATE_CNPJ,
    "cols:organisations.cnpj": _DUPLICATE_CNPJ,
    "uq_affiliations_active_member": "O titular já é filiado a esta organização (outra estação acabou de registrar).",
    "cols:affiliations.organisation_id, affiliations.person_id":
        "O titular já é filiado a esta organização (outra estação acabou de registrar).",
    "ends_after_start": "A data de saída não pode ser anterior à de entrada.",
}


def _members_count(s: Session, ids: Sequence[int]) -> dict[int, int]:
    if not ids:
        return {}
    rows = s.execute(select(Affiliation.organisation_id, func.count(Affiliation.id))
                     .where(Affiliation.organisation_id.in_(ids), Affiliation.end_on.is_(None))
                     .group_by(Affiliation.organisation_id)).all()
    return {oid: int(n) for oid, n in rows}


def _row(o: Organisation, members: int) -> OrganisationRow:
    return OrganisationRow(o.id, o.version, OrganisationKind(o.kind), o.name, o.cnpj, o.address, o.phone, o.email,
                           o.contact_name, members)


@requires(*READERS)
def list_organisations(ctx: AppContext, search: str = "") -> list[OrganisationRow]:
    """Every organisation (by name), with its current number of members; ``search`` by name or CNPJ."""
    with ctx.read() as s:
        stmt = select(Organisation).order_by(Organisation.name, Organisation.id)
        text = search_text(search)
        if text:
            clauses = [func.lower(Organisation.name).contains(text.lower(), autoescape=True)]
            if digits(text):
                clauses.append(Organisation.cnpj.contains(re.sub(r"[.\-/\s]", "", text).upper(), autoescape=True))
            stmt = stmt.where(or_(*clauses))
        rows = list(s.scalars(stmt))
        counts = _members_count(s, [o.id for o in rows])
        return [_row(o, counts.get(o.id, 0)) for o in rows]


@requires(*READERS)
def get_organisation(ctx: AppContext, organisation_id: int) -> OrganisationRow:
    with ctx.read() as s:
        o = current_row(s, Organisation, organisation_id, None, "Organização não encontrada.")
        return _row(o, _members_count(s, [o.id]).get(o.id, 0))


@requires(*EDITORS)
def save_organisation(ctx: AppContext, data: OrganisationInput, *, organisation_id: int | None = None,
                      expected_version: int | None = None) -> OrganisationRow:
    """Create (no id) or update an organisation; an invalid CNPJ, a missing address or contact is refused."""
    clean, errors = validate_organisation(data)
    refuse_marked(errors)
    with ctx.write(_INTEGRITY) as s:
        duplicate = s.scalar(select(Organisation.name).where(Organisation.cnpj == clean.cnpj,
                                                             Organisation.id != (organisation_id or 0)))
        if duplicate is not None:
            raise InvalidInputError(f"{_DUPLICATE_CNPJ} ({duplicate})", {"cnpj": _DUPLICATE_CNPJ})
        if organisation_id is None:
            o = Organisation()
            s.add(o)
        else:
            o = current_row(s, Organisation, organisation_id, expected_version, "A organização não existe mais no cadastro.")
        for key in ("name", "cnpj", "address", "phone", "email", "contact_name"):
            value = getattr(clean, key)
            if getattr(o, key) != value:
                setattr(o, key, value)
        kind = OrganisationKind(clean.kind).value
        if o.kind != kind:
            o.kind = kind
        s.flush()
        return _row(o, _members_count(s, [o.id]).get(o.id, 0))


# --- members ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class MemberRow:
    affiliation_id: int
    version: int
    organisation_id: int
    organisation: str
    person_id: int
    name: str
    cpf: str
    permit_number: str | None
    service: ServiceType | None
    permit_state: PermitState | None
    joined_on: date
    left_on: date | None

    @property
    def current(self) -> bool:
        return self.left_on is None


def _main_permits(s: Session, person_ids: Sequence[int]) -> dict[int, tuple[str, ServiceType, PermitState]]:
    """Each person's permit in force, else the most recently issued."""
    best: dict[int, tuple[tuple[bool, date, int], tuple[str, ServiceType, PermitState]]] = {}
    ids = sorted(set(person_ids))
    for start in range(0, len(ids), 500):
        for p in s.execute(select(Permit.person_id, Permit.id, Permit.number, Permit.service_type, Permit.state,
                                  Permit.issued_on).where(Permit.person_id.in_(ids[start:start + 500]))):
            key = (p.state.in_force, p.issued_on, p.id)
            if p.person_id not in best or key > best[p.person_id][0]:
                best[p.person_id] = (key, (p.number, p.service_type, p.state))
    return {pid: value for pid, (_key, value) in best.items()}


def _member_rows(s: Session, stmt: Any) -> list[MemberRow]:
    rows = s.execute(stmt).all()
    permits = _main_permits(s, [r.person_id for r in rows])
    out = []
    for r in rows:
        number, service, state = permits.get(r.person_id, (None, None, None))
        out.append(MemberRow(r.id, r.version, r.organisation_id, r.organisation, r.person_id, r.full_name, r.cpf,
                             number, service, state, r.start_on, r.end_on))
    return out


def _members_stmt() -> Any:
    return (select(Affiliation.id, Affiliation.version, Affiliation.organisation_id, Affiliation.person_id,
                   Affiliation.start_on, Affiliation.end_on, Organisation.name.label("organisation"),
                   Person.full_name, Person.cpf)
            .join(Organisation, Organisation.id == Affiliation.organisation_id)
            .join(Person, Person.id == Affiliation.person_id))


@requires(*READERS)
def list_members(ctx: AppContext, organisation_id: int, *, include_former: bool = False) -> list[MemberRow]:
    """The organisation's members by name; with ``include_former`` also those who left, after them."""
    stmt = _members_stmt().where(Affiliation.organisation_id == organisation_id)
    if not include_former:
        stmt = stmt.where(Affiliation.end_on.is_(None))
    stmt = stmt.order_by(Affiliation.end_on.is_not(None), Person.name_search, Affiliation.start_on.desc(),
                         Affiliation.id)
    with ctx.read() as s:
        return _member_rows(s, stmt)


@requires(*READERS)
def person_affiliations(ctx: AppContext, person_id: int) -> list[MemberRow]:
    """A holder's affiliations, current first, with their dates."""
    stmt = (_members_stmt().where(Affiliation.person_id == person_id)
            .order_by(Affiliation.end_on.is_not(None), Affiliation.start_on.desc(), Affiliation.id.desc()))
    with ctx.read() as s:
        return _member_rows(s, stmt)


def _check_date(on: date, today: date, field: str, what: str) -> None:
    if on > today:
        raise InvalidInputError(f"A data de {what} ({format_date(on)}) é posterior a hoje.", {field: "Data no futuro."})


@requires(*EDITORS)
def join_organisation(ctx: AppContext, organisation_id: int, person_id: int, *, on: date | None = None) -> MemberRow:
    """Record that a holder joined the organisation on ``on`` (Art. 9º, § 2º: the holder informs).

    Only holders organise (Art. 9º, caput): the person must hold a permit in force.
    """
    today = local_today()
    on = on or today
    _check_date(on, today, "joined_on", "entrada")
    with ctx.write(_INTEGRITY) as s:
        organisation = current_row(s, Organisation, organisation_id, None, "Organização não encontrada.")
        person = current_row(s, Person, person_id, None, "Pessoa não encontrada.")
        in_force = s.scalar(select(func.count(Permit.id)).where(
            Permit.person_id == person_id, Permit.state.in_((PermitState.ACTIVE, PermitState.SUSPENDED))))
        if not in_force:
            raise RuleViolationError([acts.affiliate_without_permit(person.full_name)])
        current = s.scalar(select(Affiliation).where(Affiliation.organisation_id == organisation_id,
                                                     Affiliation.person_id == person_id,
                                                     Affiliation.end_on.is_(None)))
        if current is not None:
            raise MotodeskError(f"{person.full_name} já é filiado(a) a {organisation.name} desde "
                                f"{format_date(current.start_on)}.", code="organisation.already_member")
        affiliation = Affiliation(organisation_id=organisation_id, person_id=person_id, start_on=on)
        s.add(affiliation)
        s.flush()
        rows = _member_rows(s, _members_stmt().where(Affiliation.id == affiliation.id))
        return rows[0]


@requires(*EDITORS)
def leave_organisation(ctx: AppContext, affiliation_id: int, *, on: date | None = None) -> MemberRow:
    """The holder left the organisation on ``on``: a right at any time (Art. 9º, § 3º), never refused
    for the state of the permit or anything the organisation says."""
    today = local_today()
    on = on or today
    _check_date(on, today, "left_on", "saída")
    with ctx.write(_INTEGRITY) as s:
        affiliation = current_row(s, Affiliation, affiliation_id, None, "Filiação não encontrada.")
        check_period_end(affiliation.start_on, affiliation.end_on, on, code="organisation.already_left",
                         ended="A saída já foi registrada em {end}.",
                         early="A data de saída ({on}) é anterior à entrada ({start}).",
                         field="left_on", short="Anterior à entrada.")
        affiliation.end_on = on
        s.flush()
        return _member_rows(s, _members_stmt().where(Affiliation.id == affiliation.id))[0]


# --- export -----------------------------------------------------------------------------------


def _export_rows(rows: Sequence[MemberRow], kinds: dict[int, tuple[str, str]]) -> Iterator[dict[str, Any]]:
    for r in rows:
        kind, cnpj = kinds[r.organisation_id]
        yield {"organisation": r.organisation, "organisation_kind": kind, "cnpj": cnpj, "member_name": r.name,
               "cpf": r.cpf, "permit_number": r.permit_number, "service": r.service.label if r.service else None,
               "joined_on": r.joined_on, "left_on": r.left_on}


@requires(*EXPORTERS)
def export_members(ctx: AppContext, path: Path | str, *, organisation_id: int | None = None,
                   include_former: bool = True, progress: Callable[[int], None] | None = None,
                   cancel: Callable[[], bool] | None = None) -> int:
    """Write the members (of one organisation, or of all) to an xlsx file; returns the number of rows."""
    with ctx.read() as s:
        stmt = _members_stmt()
        if organisation_id is not None:
            if s.get(Organisation, organisation_id) is None:
                raise NotFoundError("Organização não encontrada.")
            stmt = stmt.where(Affiliation.organisation_id == organisation_id)
        if not include_former:
            stmt = stmt.where(Affiliation.end_on.is_(None))
        stmt = stmt.order_by(func.lower(Organisation.name), Organisation.id, Affiliation.end_on.is_not(None),
                             Person.name_search, Affiliation.start_on)
        rows = _member_rows(s, stmt)
        kinds = {o.id: (OrganisationKind(o.kind).label, format_cnpj(o.cnpj)) for o in s.scalars(
            select(Organisation).where(Organisation.id.in_({r.organisation_id for r in rows})))}
    try:
        return write_workbook(path, [(ORGANISATION_MEMBERS, _export_rows(rows, kinds))],
                              exported_by=ctx.user.full_name, exported_at=datetime.now(UTC),
                              progress=progress, cancel=cancel, total=len(rows))
    except OSError as exc:
        raise MotodeskError(f"Não foi possível gravar a planilha: {exc.strerror or exc}.") from exc

