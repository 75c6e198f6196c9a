"""The mototáxi tender (licitação, Art. 6º and 10, I): ranked candidates, called one by one.

A tender is registered with its number and, once the result is homologated, its homologation date:
from that day the called candidates have 30 days to present the medical certificate (Art. 5º, § 2º),
which the eligibility rules check when their application is approved and issued.

Candidates come typed or from an xlsx sheet (columns "Classificação", "CPF", "Nome"). Calling the next
candidate takes the best-ranked one still waiting, and only while the quota (Art. 10, I) has a place
not already promised to another called candidate. A candidate's life: ``waiting`` → ``called`` →
``accepted`` (permit issued) or ``declined`` (gave up) or ``eliminated`` (e.g. missed the deadline).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from motodesk.models import Application, Permit, Person, Tender, TenderCandidate
from motodesk.rules import tenders as tender_rules
from motodesk.rules.common import PermitState, Role, ServiceType, Verdict
from motodesk.rules.eligibility import tender_medical_deadline
from motodesk.rules.tenders import (
    TenderCandidateFacts,
    check_candidacy_status_change,
    check_candidacy_tie,
    tender_requirement,
)
from motodesk.rules.text import fold, format_date
from motodesk.rules.validators import validate_cpf
from motodesk.services.clock import local_today
from motodesk.services.context import READERS, AppContext, current_row, requires
from motodesk.services.errors import (
    InvalidInputError,
    NotFoundError,
    RuleViolationError,
)
from motodesk.services.facts import quota_counts
from motodesk.services.judged import judged
from motodesk.services.settings import law_settings
from motodesk.services.text import clean_name, name_problem

MANAGERS = (Role.SUPERVISOR,)
MAX_IMPORT_ROWS = 5000
MAX_IMPORT_BYTES = 20 * 1024 * 1024
#: Reading stops after this many consecutive empty lines (as the register import does).
EMPTY_ROWS_STOP = 1000

CANDIDATE_STATUSES = {
    "waiting": "Aguardando convocação",
    "called": "Convocado",
    "accepted": "Permissão emitida",
    "declined": "Desistente",
    "eliminated": "Eliminado",
}

_INTEGRITY = {
    "uq_tenders_number": "Já existe uma licitação com este número.",
    "cols:tenders.number": "Já existe uma licitação com este número.",
    "uq_tender_candidates_tender_rank": "Já existe um candidato nesta classificação nesta licitação.",
    "cols:tender_candidates.tender_id, tender_candidates.rank":
        "Já existe um candidato nesta classificação nesta licitação.",
    "uq_tender_candidates_tender_cpf": "Este CPF já está entre os candidatos desta licitação.",
    "cols:tender_candidates.tender_id, tender_candidates.cpf":
        "Este CPF já está entre os candidatos desta licitação.",
}


@dataclass(frozen=True)
class TenderRow:
    id: int
    number: str
    description: str | None
    homologated_on: date | None
    medical_deadline: date | None  # Art. 5º, § 2º: 30 days after homologation
    candidates: int
    waiting: int
    called: int
    version: int


@dataclass(frozen=True)
class CandidateRow:
    id: int
    tender_id: int
    rank: int
    cpf: str
    name: str
    status: str
    called_on: date | None
    person_id: int | None
    application_id: int | None
    application_state: PermitState | None
    version: int

    @property
    def status_label(self) -> str:
        return CANDIDATE_STATUSES.get(self.status, self.status)


@dataclass(frozen=True)
class CandidateInput:
    rank: int
    cpf: str
    name: str


# --- tenders ---------------------------------------------------------------------------------


def _medical_deadline(ctx: AppContext, homologated_on: date | None) -> date | None:
    if homologated_on is None:
        return None
    return tender_medical_deadline(homologated_on, law_settings(ctx))


def _clean_number(number: str) -> str:
    clean = " ".join((number or "").split())
    if not clean:
        raise InvalidInputError("Informe o número da licitação.", {"number": "Obrigatório."})
    if len(clean) > 32:
        raise InvalidInputError("Número da licitação longo demais (até 32 caracteres).", {"number": "Longo demais."})
    return clean


@requires(*MANAGERS)
def create_tender(ctx: AppContext, number: str, *, description: str | None = None,
                  homologated_on: date | None = None) -> int:
    number = _clean_number(number)
    if homologated_on is not None and homologated_on > local_today():
        raise InvalidInputError("A data de homologação está no futuro.", {"homologated_on": "Data no futuro."})
    with ctx.write(_INTEGRITY) as s:
        tender = Tender(number=number, description=(description or "").strip() or None,
                        homologated_on=homologated_on)
        s.add(tender)
        s.flush()
        return tender.id


@requires(*MANAGERS)
def update_tender(ctx: AppContext, tender_id: int, *, homologated_on: date | None,
                  description: str | None = None, expected_version: int | None = None) -> None:
    """Record (or correct) the homologation date, from which the 30 days of Art. 5º, § 2º run."""
    if homologated_on is not None and homologated_on > local_today():
        raise InvalidInputError("A data de homologação está no futuro.", {"homologated_on": "Data no futuro."})
    with ctx.write(_INTEGRITY) as s:
        tender = current_row(s, Tender, tender_id, expected_version, "A licitação não existe mais.")
        tender.homologated_on = homologated_on
        if description is not None:
            tender.description = description.strip() or None


@requires(*READERS)
def list_tenders(ctx: AppContext) -> list[TenderRow]:
    with ctx.read() as s:
        tenders = list(s.scalars(select(Tender).order_by(Tender.id.desc())))
        counts: dict[tuple[int, str], int] = {
            (tid, status): n for tid, status, n in s.execute(
                select(TenderCandidate.tender_id, TenderCandidate.status, func.count())
                .group_by(TenderCandidate.tender_id, TenderCandidate.status))
        }
    rows = []
    for t in tenders:
        total = sum(n for (tid, _), n in counts.items() if tid == t.id)
        rows.append(TenderRow(t.id, t.number, t.description, t.homologated_on,
                              _medical_deadline(ctx, t.homologated_on), total,
                              counts.get((t.id, "waiting"), 0), counts.get((t.id, "called"), 0), t.version))
    return rows


# --- candidates ------------------------------------------------------------------------------


def _validate_candidate(item: CandidateInput) -> tuple[CandidateInput, dict[str, str]]:
    errors: dict[str, str] = {}
    rank = item.rank
    if isinstance(rank, bool) or not isinstance(rank, int) or rank < 1:
        errors["rank"] = "A classificação deve ser um número inteiro a partir de 1."
    cpf = validate_cpf(item.cpf)
    if not cpf.ok:
        errors["cpf"] = cpf.message or "CPF inválido."
    name = clean_name(item.name)
    if len(name.split(" ")) < 2:
        errors["name"] = "Informe o nome completo do candidato."
    elif len(name) > 200:
        errors["name"] = "Nome longo demais (até 200 caracteres)."
    elif problem := name_problem(name):
        errors["name"] = problem
    return CandidateInput(rank, cpf.value if cpf.ok and cpf.value else item.cpf, name), errors


@requires(*MANAGERS)
def add_candidate(ctx: AppContext, tender_id: int, rank: int, cpf: str, name: str) -> int:
    clean, errors = _validate_candidate(CandidateInput(rank, cpf, name))
    if errors:
        raise InvalidInputError("Corrija os dados do candidato.", errors)
    with ctx.write(_INTEGRITY) as s:
        if s.get(Tender, tender_id) is None:
            raise NotFoundError("A licitação não existe mais.")
        candidate = TenderCandidate(tender_id=tender_id, rank=clean.rank, cpf=clean.cpf, name=clean.name,
                                    status="waiting", person_id=_person_id(s, clean.cpf))
        s.add(candidate)
        s.flush()
        return candidate.id


def _person_id(s: Session, cpf: str) -> int | None:
    return s.scalar(select(Person.id).where(Person.cpf == cpf))


@requires(*READERS)
def list_candidates(ctx: AppContext, tender_id: int) -> list[CandidateRow]:
    with ctx.read() as s:
        rows = s.execute(
            select(TenderCandidate, Application.id, Application.state)
            .outerjoin(Application, Application.tender_candidate_id == TenderCandidate.id)
            .where(TenderCandidate.tender_id == tender_id)
            .order_by(TenderCandidate.rank, Application.id.desc())
        ).all()
    seen: set[int] = set()
    result = []
    for c, app_id, app_state in rows:
        if c.id in seen:  # the newest application of a candidate is the one shown
            continue
        seen.add(c.id)
        result.append(CandidateRow(c.id, c.tender_id, c.rank, c.cpf, c.name, c.status, c.called_on,
                                   c.person_id, app_id, PermitState(app_state) if app_state else None,
                                   c.version))
    return result


def _cell_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value).strip()


_HEADERS = {
    "rank": ("classificacao", "classificação", "posicao", "posição", "ordem", "colocacao", "colocação", "rank"),
    "cpf": ("cpf",),
    "name": ("nome", "nome completo", "candidato"),
}


def _header_key(value: object) -> str | None:
    text = fold(_cell_text(value)).strip().rstrip(":")
    for key, names in _HEADERS.items():
        if text in {fold(n) for n in names}:
            return key
    return None


def read_candidates_xlsx(data: bytes | str | os.PathLike[str]) -> list[CandidateInput]:
    """The ranked candidates of an xlsx sheet; InvalidInputError listing every bad line (nothing half-read).

    The file is opened by the one guarded reader every spreadsheet read goes through
    (:func:`motodesk.exports.spreadsheet.open_workbook`: encrypted, empty, .xls, CSV and zip bombs
    are refused there in pt_BR); only the first visible sheet is read. ``data`` is the file's bytes or
    its path (the screen passes the path: a file over the size limit is refused without being read).
    """
    from motodesk.exports.spreadsheet import SpreadsheetRefused, open_workbook

    try:
        with open_workbook(data, max_bytes=MAX_IMPORT_BYTES) as wb:
            return _read_candidates(wb)
    except SpreadsheetRefused as refused:
        raise InvalidInputError(refused.message, code="tender.file_refused") from None


def _read_candidates(wb: Any) -> list[CandidateInput]:
    from motodesk.exports.spreadsheet import visible_sheets

    sheets = visible_sheets(wb)
    if not sheets:
        raise InvalidInputError("A planilha não tem nenhuma aba visível.", code="tender.no_visible_sheet")
    ws = sheets[0]
    ws.reset_dimensions()  # never trust the stored dimension (it may claim 1,000,000 rows)
    columns: dict[str, int] = {}
    header_row = 0
    rows = ws.iter_rows(values_only=True)
    empty_run = 0
    items: list[CandidateInput] = []
    problems: list[str] = []
    rank_lines: dict[int, int] = {}
    cpf_lines: dict[str, int] = {}
    for line_no, row in enumerate(rows, start=1):
        if not columns:
            found = {k: i for i, v in enumerate(row) if (k := _header_key(v))}
            if len(found) == 3:
                columns, header_row = found, line_no
            elif line_no >= 10:
                break
            continue
        values = [row[i] if i < len(row) else None for i in (columns["rank"], columns["cpf"], columns["name"])]
        if all(_cell_text(v) == "" for v in values):
            empty_run += 1
            if empty_run >= EMPTY_ROWS_STOP:  # formatting down to the bottom of the sheet
                break
            continue
        empty_run = 0
        if any(isinstance(v, str) and v.startswith("=") for v in values):
            problems.append(f"Linha {line_no}: fórmulas não são aceitas.")
            continue
        raw_rank = _cell_text(values[0])
        try:
            rank = int(raw_rank.rstrip("ºª°."))
        except ValueError:
            problems.append(f"Linha {line_no}: classificação “{raw_rank}” não é um número.")
            continue
        clean, errors = _validate_candidate(CandidateInput(rank, _cell_text(values[1]), _cell_text(values[2])))
        problems.extend(f"Linha {line_no}: {reason}" for reason in errors.values())
        if rank in rank_lines:
            problems.append(f"Linha {line_no}: classificação {rank} repetida (já na linha {rank_lines[rank]}).")
            errors["rank"] = "repetida"
        rank_lines.setdefault(rank, line_no)
        if "cpf" not in errors:
            if clean.cpf in cpf_lines:
                problems.append(f"Linha {line_no}: CPF repetido (já na linha {cpf_lines[clean.cpf]}).")
                errors["cpf"] = "repetido"
            cpf_lines.setdefault(clean.cpf, line_no)
        if not errors:
            items.append(clean)
        if len(items) + len(problems) > MAX_IMPORT_ROWS:
            raise InvalidInputError(f"A planilha tem mais de {MAX_IMPORT_ROWS} candidatos.")
    if not columns:
        raise InvalidInputError("A planilha não tem as colunas “Classificação”, “CPF” e “Nome” nas primeiras linhas.",
                                code="tender.sheet_columns")
    if problems:
        raise InvalidInputError(
            f"A planilha tem {len(problems)} problema(s); nada foi importado.",
            {f"linha_{i}": p for i, p in enumerate(problems[:50], start=1)}, code="tender.sheet_refused",
        )
    if not items:
        raise InvalidInputError(f"A planilha não tem candidatos abaixo do cabeçalho (linha {header_row}).")
    return items


@requires(*MANAGERS)
def import_candidates(ctx: AppContext, tender_id: int, data: bytes | str | os.PathLike[str]) -> int:
    """Add the candidates of an xlsx sheet in one transaction; returns how many."""
    items = read_candidates_xlsx(data)
    with ctx.write(_INTEGRITY) as s:
        if s.get(Tender, tender_id) is None:
            raise NotFoundError("A licitação não existe mais.")
        for item in items:
            s.add(TenderCandidate(tender_id=tender_id, rank=item.rank, cpf=item.cpf, name=item.name,
                                  status="waiting", person_id=_person_id(s, item.cpf)))
    return len(items)


@requires(*MANAGERS)
def call_next_candidate(ctx: AppContext, tender_id: int, *, on: date | None = None) -> CandidateRow:
    """Call the best-ranked waiting candidate, if the quota has a place not promised to another one."""
    on = on or local_today()
    with ctx.write() as s:
        tender = current_row(s, Tender, tender_id, None, "A licitação não existe mais.")
        if tender.homologated_on is None:
            raise RuleViolationError([tender_rules.not_homologated(tender.number)])
        quota = quota_counts(s)
        open_places = quota[2] if quota else 0
        pending = int(s.scalar(select(func.count(TenderCandidate.id)).where(TenderCandidate.status == "called"))
                      or 0)
        if open_places - pending <= 0:
            raise RuleViolationError([tender_rules.no_place_to_call(open_places, pending)])
        candidate = s.scalar(select(TenderCandidate).where(TenderCandidate.tender_id == tender_id,
                                                           TenderCandidate.status == "waiting")
                             .order_by(TenderCandidate.rank).limit(1))
        if candidate is None:
            raise InvalidInputError(f"Não há candidatos aguardando convocação na licitação {tender.number}.",
                                    code="tender.no_waiting_candidate")
        # Judged above (homologation, Art. 6º; a place under the quota, Art. 10, I): the call, and the
        # candidacy tied to the person its CPF already names, are one judged step.
        called = [tender_rules.place_to_call(open_places, pending)]
        with judged(s, called, TenderCandidate.status, TenderCandidate.person_id):
            candidate.status = "called"
            candidate.called_on = on
            if candidate.person_id is None:
                candidate.person_id = _person_id(s, candidate.cpf)
        return CandidateRow(candidate.id, tender_id, candidate.rank, candidate.cpf, candidate.name,
                            candidate.status, candidate.called_on, candidate.person_id, None, None,
                            candidate.version)


@requires(*MANAGERS)
def set_candidate_status(ctx: AppContext, candidate_id: int, status: str, *,
                         expected_version: int | None = None) -> None:
    """A called candidate gives up (declined) or is eliminated; the next one can then be called."""
    if status not in ("declined", "eliminated", "waiting"):
        raise InvalidInputError(f"Situação de candidato inválida: {status!r}.")
    with ctx.write() as s:
        candidate = current_row(s, TenderCandidate, candidate_id, expected_version, "O candidato não existe mais.")
        if candidate.status == "accepted":
            raise InvalidInputError("O candidato já tem permissão emitida; use as ações da permissão.",
                                    code="tender.permit_issued")
        with judged(s, check_candidacy_status_change(candidate.status, status), TenderCandidate.status):
            candidate.status = status


@requires(Role.CLERK, Role.SUPERVISOR)
def link_application(ctx: AppContext, application_id: int, candidate_id: int) -> None:
    """Tie a mototáxi application to the called candidate whose CPF it bears (Art. 6º)."""
    with ctx.write() as s:
        app = s.get(Application, application_id)
        candidate = s.get(TenderCandidate, candidate_id)
        if app is None or candidate is None:
            raise NotFoundError("O requerimento ou o candidato não existe mais.")
        person = s.get(Person, app.person_id)
        assert person is not None
        if app.service_type is not ServiceType.MOTOTAXI:
            raise InvalidInputError("Só requerimentos de mototáxi dependem de licitação (Art. 6º).")
        if person.cpf != candidate.cpf:
            raise InvalidInputError(
                f"O CPF do requerente não é o do candidato {candidate.rank}º ({candidate.name}).",
                code="tender.cpf_mismatch")
        if candidate.status not in ("called",):
            raise RuleViolationError([tender_rules.candidate_not_called(candidate.rank,
                                                                        CANDIDATE_STATUSES.get(candidate.status))])
        issued = s.scalar(select(Permit.id).where(Permit.application_id == app.id))
        if issued is not None:
            raise InvalidInputError("O requerimento já virou permissão.")
        app.tender_candidate_id = candidate.id
        with judged(s, check_candidacy_tie(candidate.cpf, person.cpf, candidate.status), TenderCandidate.person_id):
            candidate.person_id = person.id


@dataclass(frozen=True)
class TenderStanding:
    """Where a person stands in the mototáxi tenders, and the dossier's requirement (Art. 6º; Art. 10, I)."""

    candidate: TenderCandidateFacts | None
    open_tenders: tuple[str, ...]
    verdict: Verdict


def standing_of(s: Session, person_id: int) -> TenderStanding:
    """Session step: the candidate tied to the person's open mototáxi application, or else their newest
    place by CPF (a called one first), and the tenders still calling candidates."""
    person = current_row(s, Person, person_id, None, "A pessoa não existe mais no cadastro.")
    linked = s.scalar(select(Application.tender_candidate_id)
                      .where(Application.person_id == person_id, Application.service_type == ServiceType.MOTOTAXI,
                             Application.state.in_((PermitState.REQUESTED, PermitState.UNDER_REVIEW,
                                                    PermitState.APPROVED)),
                             Application.tender_candidate_id.is_not(None))
                      .order_by(Application.id.desc()).limit(1))
    row = None
    if linked is not None:
        row = s.execute(select(TenderCandidate, Tender).join(Tender, Tender.id == TenderCandidate.tender_id)
                        .where(TenderCandidate.id == linked)).first()
    if row is None:
        rows = s.execute(select(TenderCandidate, Tender).join(Tender, Tender.id == TenderCandidate.tender_id)
                         .where(TenderCandidate.cpf == person.cpf)
                         .order_by(TenderCandidate.id.desc())).all()
        row = next((r for r in rows if r[0].status == "called"), rows[0] if rows else None)
    candidate = None
    if row is not None:
        c, tender = row
        candidate = TenderCandidateFacts(rank=c.rank, status=c.status, tender_number=tender.number,
                                         homologated_on=tender.homologated_on)
    still_calling = select(TenderCandidate.tender_id).where(TenderCandidate.status.in_(("waiting", "called")))
    any_candidate = select(TenderCandidate.tender_id)
    open_tenders = tuple(s.scalars(select(Tender.number)
                                   .where(Tender.id.in_(still_calling) | Tender.id.not_in(any_candidate))
                                   .order_by(Tender.id)))
    return TenderStanding(candidate, open_tenders, tender_requirement(candidate, open_tenders))


@requires(*READERS)
def tender_standing(ctx: AppContext, person_id: int) -> TenderStanding:
    """Whether a mototáxi tender is under way and the person a called candidate (the dossier shows it)."""
    with ctx.read() as s:
        return standing_of(s, person_id)


def medical_deadline_text(row: TenderRow) -> str:
    """pt_BR sentence of the 30-day window of Art. 5º, § 2º, for the tender tab."""
    if row.medical_deadline is None:
        return "Atestado médico: prazo de 30 dias a contar da homologação (ainda não homologada)."
    state = "encerrado" if row.medical_deadline < local_today() else "até"
    return f"Atestado médico (Art. 5º, § 2º): prazo {state} {format_date(row.medical_deadline)}."
