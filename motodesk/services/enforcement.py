"""Enforcement: notices of infraction, the right of defence, decisions, appeals and penalties (Art. 29–35).

Who does what:

* inspectors (fiscais) and supervisors write notices (Art. 29, § 1º); the inspector is the logged-in
  user, kept on the notice by login and name as printed;
* clerks and supervisors record what the offender files at the counter: a defence or its waiver
  (Art. 29, § 3º), an appeal or its waiver (Art. 34, parágrafo único);
* only supervisors decide (first decision and appeal) and close a process.

Life of a process::

    open ──decide: dismissed──────────────────────────────► closed
      │
      └─decide: upheld──► decided ──record_appeal──► appealed ──decide──► closed
                            └──close_process (appeal period over, or appeal waived)──► closed

* **Notice.** Numbered per year, ``AI-0001/2026``: the sequence is ``max + 1`` inside the write
  transaction, inserted in a savepoint and retried when another workstation took the same number
  (the unique constraint on ``year, seq`` decides). ``occurred_at`` is an aware datetime stored in
  UTC; a notice dated in the future is refused. The defence period (``defence_period_days``) runs
  from the day the notice is written (``notified_on``) and its last day is stored on the notice, as
  printed. Art. 32 (mototáxi without permit) is recorded against a person and a plate even when
  neither is registered, with the vehicle seized and the fine fixed by the law at 5 UFM.
* **Decision.** Refused before the defence period is over unless a defence or its waiver is on
  file. Upheld decisions carry a penalty the (possibly reclassified, Art. 33, parágrafo único)
  classification admits (``LawSettings.penalties_*``); a fine is stored in UFM and in reais with the
  UFM value used, as they were on the day of the decision.
* **Effects on the permit** go through :mod:`motodesk.services.permits` (``suspend``, ``reinstate``,
  ``revoke``), i.e. through the rules' state machine and its PermitEvents. A suspension takes effect
  on the day of the decision (the appeal has no suspensive effect unless the law says so — Lei federal
  nº 9.784/1999, art. 61, applied in the silence of the Decree); a revocation, which the state machine
  cannot undo, takes effect when the decision is final: at the appeal's decision, or when the process
  is closed after the appeal period (art. 61, parágrafo único: "prejuízo de difícil ou incerta
  reparação"). Those services own their transactions, so the decision is written first and, should
  the permit step fail, taken back before the error is shown. Penalties of a deputy (Art. 34, III and
  IV: "do condutor auxiliar") are recorded on the decision; the holder's permit is not touched.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from enum import StrEnum
from typing import Any

from sqlalchemy import Select, func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from motodesk.models import (
    Attachment,
    Decision,
    Defence,
    DeputyLink,
    InfractionNotice,
    Permit,
    Person,
    PersonDocument,
    Vehicle,
)
from motodesk.models.base import utcnow
from motodesk.printing.documents import (
    InfractionNoticeData,
    PersonInfo,
    RefusalCertificateData,
    VehicleInfo,
    render_infraction_notice,
    render_refusal_certificate,
)
from motodesk.rules.common import PermitState, Role, ServiceType, Status, Verdict
from motodesk.rules.deadlines import Deadline, appeal_due, days_until_due, defence_due
from motodesk.rules.dossier import DocumentKind
from motodesk.rules.infractions import (
    CATALOGUE,
    Infraction,
    Penalty,
    ReclassificationError,
    Severity,
    allowed_penalties_for,
    find_infractions,
    fine_for,
    infraction_by_code,
    is_repeat_offence,
    reclassify,
)
from motodesk.rules.lifecycle import TransitionContext, check_transition
from motodesk.rules.settings import LawSettings
from motodesk.rules.text import format_brl, format_date, format_ufm, join_words
from motodesk.rules.validators import format_cpf, format_plate, mercosul_plate, validate_cpf, validate_plate
from motodesk.services import attachments, permits
from motodesk.services.clock import LOCAL_TZ, local_time, local_today
from motodesk.services.context import CONFLICT_MESSAGE, AppContext, requires
from motodesk.services.errors import (
    ConflictError,
    InvalidInputError,
    MotodeskError,
    NotFoundError,
    PermissionDeniedError,
    RuleViolationError,
)
from motodesk.services.settings import law_settings
from motodesk.services.text import (
    LIKE_ESCAPE,
    clean_name,
    contains_pattern,
    digits,
    fold,
    prefix_pattern,
    search_text,
    text_problem,
)

WRITERS = (Role.INSPECTOR, Role.SUPERVISOR)
RECORDERS = (Role.CLERK, Role.SUPERVISOR)
DECIDERS = (Role.SUPERVISOR,)
READERS = (Role.CLERK, Role.INSPECTOR, Role.SUPERVISOR, Role.ADMIN)

DEFENCE_OWNER = "defences"
MAX_PLACE = 300
MAX_TEXT = 4000
MAX_NAME = 200
MAX_VEHICLE_DESCRIPTION = 120
#: A suspension longer than the permit's whole term (Art. 6º: 5 years) is a typing error.
MAX_SUSPENSION_DAYS = 5 * 366
NUMBER_ATTEMPTS = 20

ART_NOTICE = "Art. 29, § 1º"
ART_DEFENCE = "Art. 29, § 3º"
ART_APPEAL = "Art. 34, parágrafo único"
ART_RECLASSIFY = "Art. 33, parágrafo único"
ART_UNLICENSED = "Art. 32"


def notice_number(seq: int, year: int) -> str:
    """``AI-0001/2026``: sequence of the year, then the year."""
    return f"AI-{seq:04d}/{year}"


# --- vocabulary ------------------------------------------------------------------------------


class OffenderKind(StrEnum):
    HOLDER = "holder"
    DEPUTY = "deputy"
    UNREGISTERED = "unregistered"

    @property
    def label(self) -> str:
        return {"holder": "Titular", "deputy": "Preposto", "unregistered": "Sem permissão (Art. 32)"}[self.value]

    @property
    def printed(self) -> str:
        return {"holder": "titular", "deputy": "preposto", "unregistered": "não permissionário"}[self.value]


class Signature(StrEnum):
    """What happened when the notice was handed over (Art. 29, § 2º)."""

    SIGNED = "signed"
    REFUSED = "refused"
    ABSENT = "absent"

    @property
    def label(self) -> str:
        return {
            "signed": "Assinou e recebeu cópia",
            "refused": "Recusou-se a assinar (certidão do fiscal)",
            "absent": "Autuado ausente (notificação posterior)",
        }[self.value]


class NoticeStatus(StrEnum):
    OPEN = "open"
    DECIDED = "decided"
    APPEALED = "appealed"
    CLOSED = "closed"

    @property
    def label(self) -> str:
        return {"open": "Em defesa", "decided": "Decidido", "appealed": "Em recurso", "closed": "Encerrado"}[
            self.value
        ]


#: Filters of the notices list, with their pt_BR labels.
STATUS_FILTERS: tuple[tuple[str, str], ...] = (
    ("in_progress", "Em andamento"),
    ("open", NoticeStatus.OPEN.label),
    ("decided", NoticeStatus.DECIDED.label),
    ("appealed", NoticeStatus.APPEALED.label),
    ("closed", NoticeStatus.CLOSED.label),
    ("all", "Todos"),
)


class Outcome(StrEnum):
    DISMISSED = "dismissed"
    UPHELD = "upheld"

    @property
    def label(self) -> str:
        return {"dismissed": "Improcedente (arquivado)", "upheld": "Procedente (penalidade aplicada)"}[self.value]


class Stage(StrEnum):
    FIRST = "first"
    APPEAL = "appeal"

    @property
    def label(self) -> str:
        return {"first": "1ª instância", "appeal": "Recurso"}[self.value]


class PermitEffect(StrEnum):
    SUSPENDED = "suspended"
    REVOKED = "revoked"
    REINSTATED = "reinstated"
    PENDING_REVOCATION = "pending_revocation"
    NOT_APPLICABLE = "not_applicable"  # a deputy's or an unregistered offender's penalty

    @property
    def label(self) -> str:
        return {
            "suspended": "Permissão suspensa",
            "revoked": "Permissão cassada",
            "reinstated": "Suspensão encerrada",
            "pending_revocation": "Cassação quando a decisão for definitiva",
            "not_applicable": "Sem efeito sobre permissão",
        }[self.value]


# --- inputs and outputs ----------------------------------------------------------------------


@dataclass
class NoticeInput:
    """What the inspector's form submits. ``occurred_at`` is aware (the form converts local time)."""

    infraction_code: str
    occurred_at: datetime | None
    place: str
    offender_kind: OffenderKind
    person_id: int | None = None
    permit_id: int | None = None
    offender_name: str = ""
    offender_cpf: str = ""
    vehicle_id: int | None = None
    plate: str = ""
    vehicle_description: str = ""
    description: str = ""
    signature: Signature = Signature.SIGNED


@dataclass(frozen=True)
class NoticeCreated:
    id: int
    number: str
    notified_on: date
    defence_due: date
    refused_to_sign: bool
    vehicle_seized: bool


@dataclass
class FiledDocument:
    """A defence or an appeal received at the counter, or its waiver, with scanned files."""

    received_on: date | None = None
    text: str = ""
    waived: bool = False
    files: Sequence[tuple[str, bytes]] = ()


@dataclass(frozen=True)
class FiledRecorded:
    id: int
    stage: str
    late: bool
    attachment_ids: list[int]


@dataclass
class DecisionInput:
    outcome: Outcome
    grounds: str = ""
    penalty: Penalty | None = None
    severity: Severity | None = None  # a classification other than the catalogue's (Art. 33, §ún.)
    reclassification_reason: str = ""
    suspension_days: int | None = None


@dataclass(frozen=True)
class DecisionOptions:
    """What the decision dialog offers for one classification."""

    catalogue_severity: Severity
    severity: Severity
    reclassifiable: bool
    penalty_fixed_by_law: bool
    allowed: list[Penalty]
    fine_ufm: Decimal | None
    fine_brl: Decimal | None
    ufm_value_brl: Decimal
    vehicle_seizure: bool
    permit_affected: bool  # suspension/revocation reach a permit (holder offenders only)


@dataclass(frozen=True)
class DecisionResult:
    id: int
    stage: Stage
    outcome: Outcome
    severity: Severity | None
    penalty: Penalty | None
    fine_ufm: Decimal | None
    fine_brl: Decimal | None
    ufm_value_brl: Decimal | None
    suspension_start: date | None
    suspension_end: date | None
    appeal_due: date | None
    permit_effect: PermitEffect | None
    status: NoticeStatus


@dataclass(frozen=True)
class AttachmentRef:
    id: int
    filename: str
    media_type: str
    size: int


@dataclass(frozen=True)
class FiledView:
    id: int
    stage: str  # defence / appeal
    received_on: date
    text: str | None
    waived: bool
    received_by: str
    late: bool
    attachments: list[AttachmentRef]

    @property
    def label(self) -> str:
        what = "Defesa" if self.stage == "defence" else "Recurso"
        if self.waived:
            return f"Renúncia ao {'prazo de defesa' if self.stage == 'defence' else 'recurso'}"
        return what + (" (fora do prazo)" if self.late else "")


@dataclass(frozen=True)
class DecisionView:
    id: int
    stage: Stage
    outcome: Outcome
    decided_at: datetime
    decided_by: str
    severity: Severity | None
    reclassification_reason: str | None
    penalty: Penalty | None
    fine_ufm: Decimal | None
    ufm_value_brl: Decimal | None
    fine_brl: Decimal | None
    suspension_days: int | None
    suspension_start: date | None
    suspension_end: date | None
    grounds: str | None
    appeal_due: date | None
    permit_effect: PermitEffect | None

    @property
    def summary(self) -> str:
        return describe_penalty(self.outcome, self.penalty, self.fine_ufm, self.fine_brl, self.suspension_days,
                                self.suspension_end)


@dataclass(frozen=True)
class NoticeRow:
    """One line of the notices list or of an offender's record."""

    id: int
    number: str
    year: int
    seq: int
    occurred_at: datetime
    infraction_code: str
    article: str
    infraction_text: str
    severity: Severity
    offender_kind: OffenderKind
    offender_name: str
    offender_cpf: str | None
    person_id: int | None
    plate: str | None
    status: NoticeStatus
    defence_due: date
    appeal_due: date | None
    penalty_summary: str
    inspector_name: str
    vehicle_seized: bool
    repeat: bool = False

    @property
    def next_due(self) -> date | None:
        """The deadline that runs now: defence while open, appeal once decided."""
        if self.status is NoticeStatus.OPEN:
            return self.defence_due
        if self.status is NoticeStatus.DECIDED:
            return self.appeal_due
        return None

    @property
    def next_due_label(self) -> str:
        if self.status is NoticeStatus.OPEN:
            return "Defesa até"
        if self.status is NoticeStatus.DECIDED:
            return "Recurso até"
        return ""


@dataclass(frozen=True)
class RepeatOffence:
    """Earlier upheld notices of the same offender within the window (Art. 33, §ún.; Art. 34)."""

    window_days: int
    previous: list[NoticeRow]

    @property
    def is_repeat(self) -> bool:
        return bool(self.previous)

    @property
    def message(self) -> str:
        if not self.previous:
            return ""
        numbers = join_words([f"{r.number} ({r.article}, {format_date(local_time(r.occurred_at).date())})"
                              for r in self.previous])
        return (f"Reincidência: infração(ões) anterior(es) com penalidade aplicada nos últimos "
                f"{self.window_days} dias — {numbers}.")


@dataclass(frozen=True)
class NoticeView:
    id: int
    version: int
    number: str
    status: NoticeStatus
    infraction: Infraction
    severity: Severity
    occurred_at: datetime
    place: str
    offender_kind: OffenderKind
    offender_name: str
    offender_cpf: str | None
    person_id: int | None
    permit_id: int | None
    permit_number: str | None
    permit_state: PermitState | None
    service: ServiceType | None
    vehicle_id: int | None
    plate: str | None
    vehicle_description: str | None
    description: str | None
    inspector_login: str
    inspector_name: str
    signature: Signature
    vehicle_seized: bool
    notified_on: date
    defence_due: date
    appeal_due: date | None
    closed_at: datetime | None
    closed_by: str | None
    filed: list[FiledView]
    decisions: list[DecisionView]
    repeat: RepeatOffence

    @property
    def defence_on_file(self) -> bool:
        return any(f.stage == "defence" for f in self.filed)

    @property
    def appeal_waived(self) -> bool:
        return any(f.stage == "appeal" and f.waived for f in self.filed)

    @property
    def final_decision(self) -> DecisionView | None:
        return self.decisions[-1] if self.decisions else None

    def next_step(self, today: date) -> str:
        """What the process waits for, in pt_BR."""
        if self.status is NoticeStatus.OPEN:
            if self.defence_on_file:
                return "Aguardando decisão (defesa registrada)."
            if today <= self.defence_due:
                left = (self.defence_due - today).days
                return (f"Prazo de defesa até {format_date(self.defence_due)} "
                        f"({'último dia' if left == 0 else f'faltam {left} dia(s)'}).")
            return f"Prazo de defesa encerrado em {format_date(self.defence_due)}: aguardando decisão."
        if self.status is NoticeStatus.DECIDED:
            if self.appeal_waived:
                return "Recurso renunciado: o processo pode ser encerrado."
            if self.appeal_due and today <= self.appeal_due:
                return f"Prazo de recurso até {format_date(self.appeal_due)}."
            return "Prazo de recurso encerrado: o processo pode ser encerrado."
        if self.status is NoticeStatus.APPEALED:
            return "Recurso registrado: aguardando decisão do supervisor."
        return "Processo encerrado."


@dataclass(frozen=True)
class ProcessDeadline:
    """A deadline of an open administrative process, for the deadlines view (Prazos)."""

    deadline: Deadline
    notice_id: int
    notice_number: str
    person_id: int | None
    person_name: str
    article: str
    days_left: int


@dataclass(frozen=True)
class OffenderChoice:
    """A person the inspector may name on a notice, with the permit and vehicle that go with it."""

    person_id: int
    name: str
    cpf: str
    kind: OffenderKind | None  # None: registered, but neither holder nor deputy of a permit in force
    permit_id: int | None
    permit_number: str | None
    service: ServiceType | None
    vehicle_id: int | None
    plate: str | None

    @property
    def label(self) -> str:
        parts = [self.name, format_cpf(self.cpf)]
        if self.kind is not None and self.permit_number:
            parts.append(f"{self.kind.label} de {self.permit_number}")
        else:
            parts.append("sem permissão em vigor")
        if self.plate:
            parts.append(self.plate)
        return " · ".join(parts)


def describe_penalty(outcome: Outcome | None, penalty: Penalty | None, fine_ufm: Decimal | None,
                     fine_brl: Decimal | None, suspension_days: int | None, suspension_end: date | None) -> str:
    if outcome is None:
        return ""
    if outcome is Outcome.DISMISSED:
        return "Improcedente"
    if penalty is Penalty.FINE and fine_ufm is not None and fine_brl is not None:
        return f"Multa de {format_ufm(fine_ufm)} ({format_brl(fine_brl)})"
    if penalty is Penalty.SUSPENSION and suspension_days:
        until = f" até {format_date(suspension_end)}" if suspension_end else ""
        return f"Suspensão por {suspension_days} dia(s){until}"
    return penalty.label if penalty else ""


# --- helpers -----------------------------------------------------------------------------------


def _text(value: str | None, limit: int, key: str, label: str, errors: dict[str, str], *,
          required: bool = False) -> str | None:
    cleaned = (value or "").strip()
    if required and not cleaned:
        errors[key] = f"Informe {label}."
    elif len(cleaned) > limit:
        errors[key] = f"Texto longo demais: no máximo {limit} caracteres (recebidos {len(cleaned)})."
    elif problem := text_problem(cleaned, multiline=True):
        errors[key] = problem
    return cleaned or None


def _verdict(rule: str, article: str, sentence: str) -> Verdict:
    return Verdict(rule, article, Status.NOT_MET, f"{article}: {sentence}")


def _refuse(rule: str, article: str, sentence: str, intro: str | None = None) -> RuleViolationError:
    return RuleViolationError([_verdict(rule, article, sentence)], intro)


def _load_notice(s: Session, notice_id: int, expected_version: int | None = None) -> InfractionNotice:
    notice = s.get(InfractionNotice, notice_id)
    if notice is None:
        raise NotFoundError("O auto de infração não existe mais.")
    if expected_version is not None and notice.version != expected_version:
        raise ConflictError(CONFLICT_MESSAGE)
    return notice


def _touch(notice: InfractionNotice) -> None:
    """Change the notice row so its version moves: two workstations cannot act on the same state."""
    notice.updated_at = utcnow()


def _plate_forms(plate: str | None) -> set[str]:
    result = validate_plate(plate)
    if not result.ok or result.value is None:
        return set()
    forms = {result.value}
    mercosul = mercosul_plate(result.value)
    if mercosul:
        forms.add(mercosul)
    fifth = result.value[4]
    if fifth in "ABCDEFGHIJ":
        forms.add(result.value[:4] + str("ABCDEFGHIJ".index(fifth)) + result.value[5:])
    return forms


def _in_force_permit_of(s: Session, person_id: int) -> Permit | None:
    return s.scalar(select(Permit).where(Permit.person_id == person_id,
                                         Permit.state.in_((PermitState.ACTIVE, PermitState.SUSPENDED)))
                    .order_by(Permit.id.desc()))


def _deputy_link_of(s: Session, person_id: int) -> tuple[DeputyLink, Permit] | None:
    row = s.execute(
        select(DeputyLink, Permit).join(Permit, Permit.id == DeputyLink.permit_id)
        .where(DeputyLink.deputy_person_id == person_id, DeputyLink.end_on.is_(None),
               Permit.state.in_((PermitState.ACTIVE, PermitState.SUSPENDED)))
        .order_by(DeputyLink.id.desc())
    ).first()
    return (row[0], row[1]) if row else None


# --- finding the offender ----------------------------------------------------------------------


@requires(*READERS)
def find_offenders(ctx: AppContext, text: str, *, limit: int = 20) -> list[OffenderChoice]:
    """People to name on a notice, by CPF, name or plate; each with their permit in force, if any."""
    text = search_text(text)
    if not text:
        return []
    query = select(Person)
    forms = _plate_forms(text)
    number = digits(text)
    if forms:
        query = query.join(Vehicle, Vehicle.holder_id == Person.id).where(Vehicle.plate.in_(forms),
                                                                          Vehicle.active.is_(True))
    elif number and len(number) == len(re.sub(r"[\s.\-]", "", text)):
        query = query.where(Person.cpf.like(prefix_pattern(number), escape=LIKE_ESCAPE))
    elif any(ch.isalpha() for ch in text):
        query = query.where(Person.name_search.like(contains_pattern(fold(text)), escape=LIKE_ESCAPE))
    else:
        return []
    with ctx.read() as s:
        people = list(s.scalars(query.order_by(Person.name_search, Person.id).limit(limit)))
        return [_choice(s, person) for person in people]


def _choice(s: Session, person: Person) -> OffenderChoice:
    permit = _in_force_permit_of(s, person.id)
    kind: OffenderKind | None = None
    if permit is not None:
        kind = OffenderKind.HOLDER
    else:
        link = _deputy_link_of(s, person.id)
        if link is not None:
            permit = link[1]
            kind = OffenderKind.DEPUTY
    vehicle = s.get(Vehicle, permit.vehicle_id) if permit is not None and permit.vehicle_id else None
    if vehicle is None:
        vehicle = s.scalar(select(Vehicle).where(Vehicle.holder_id == person.id, Vehicle.active.is_(True)))
    return OffenderChoice(
        person_id=person.id, name=person.full_name, cpf=person.cpf, kind=kind,
        permit_id=permit.id if permit else None, permit_number=permit.number if permit else None,
        service=permit.service_type if permit else None,
        vehicle_id=vehicle.id if vehicle else None, plate=format_plate(vehicle.plate) if vehicle else None,
    )


# --- writing a notice ------------------------------------------------------------------------------


@dataclass
class _Offender:
    kind: OffenderKind
    person_id: int | None
    permit_id: int | None
    name: str
    cpf: str | None
    vehicle_id: int | None
    plate: str | None


def _check_occurred_at(occurred_at: datetime | None, now: datetime, errors: dict[str, str]) -> None:
    if occurred_at is None:
        errors["occurred_at"] = "Informe a data e a hora da infração."
        return
    if occurred_at.tzinfo is None:
        raise ValueError("occurred_at must be an aware datetime")
    if occurred_at > now:
        shown = local_time(occurred_at).strftime("%d/%m/%Y %H:%M")
        errors["occurred_at"] = (f"{ART_NOTICE}: o auto formaliza uma irregularidade já constatada; a data e hora "
                                 f"informadas ({shown}) estão no futuro.")


def _resolve_offender(s: Session, data: NoticeInput, infraction: Infraction,
                      errors: dict[str, str]) -> _Offender | None:
    """Who is named on the notice, with the permit and vehicle; refusals name their article."""
    unlicensed = infraction.code == "32"
    kind = OffenderKind(data.offender_kind)
    if unlicensed and kind is not OffenderKind.UNREGISTERED:
        raise _refuse("art32_kind", ART_UNLICENSED,
                      "o Art. 32 trata de quem exerce o mototáxi sem permissão; marque o autuado como "
                      "“sem permissão”.")
    if not unlicensed and kind is OffenderKind.UNREGISTERED:
        raise _refuse("unregistered_kind", infraction.article,
                      "as infrações dos Arts. 15, 30 e 31 são de permissionários, autorizatários e seus "
                      "prepostos; quem exerce o mototáxi sem permissão responde pelo Art. 32.")
    if infraction.article.startswith(("Art. 31", "Art. 15")) and kind is OffenderKind.DEPUTY:
        raise _refuse("holder_only", infraction.article.split(",")[0],
                      "esta infração é do permissionário ou autorizatário (o titular), não do preposto.")

    if kind is OffenderKind.UNREGISTERED:
        return _unregistered(s, data, errors)

    if data.person_id is None:
        errors["person"] = "Escolha o autuado (titular ou preposto) no cadastro."
        return None
    person = s.get(Person, data.person_id)
    if person is None:
        raise NotFoundError("A pessoa escolhida não existe mais no cadastro.")
    if kind is OffenderKind.HOLDER:
        permit = _in_force_permit_of(s, person.id)
        if permit is None:
            raise _refuse("no_permit", infraction.article.split(",")[0],
                          f"{person.full_name} não é titular de permissão ou autorização em vigor; se exercia o "
                          "mototáxi sem permissão, o enquadramento é o Art. 32.")
    else:
        link = _deputy_link_of(s, person.id)
        if link is None:
            raise _refuse("no_link", "Art. 14",
                          f"{person.full_name} não é preposto vinculado a uma permissão ou autorização em vigor.")
        permit = link[1]
    if data.permit_id is not None and data.permit_id != permit.id:
        raise ConflictError("A permissão do autuado mudou depois que o formulário foi aberto; escolha o autuado "
                            "de novo.")
    vehicle_id = data.vehicle_id or permit.vehicle_id
    plate: str | None = None
    if vehicle_id is not None:
        vehicle = s.get(Vehicle, vehicle_id)
        if vehicle is None:
            raise NotFoundError("O veículo escolhido não existe mais no cadastro.")
        plate = vehicle.plate
    elif data.plate.strip():
        result = validate_plate(data.plate)
        if not result.ok:
            errors["plate"] = result.message or "Placa inválida."
        plate = result.value
    return _Offender(kind, person.id, permit.id, person.full_name, person.cpf, vehicle_id, plate)


def _unregistered(s: Session, data: NoticeInput, errors: dict[str, str]) -> _Offender | None:
    """Art. 32: a person and a vehicle, registered or not."""
    person: Person | None = None
    if data.person_id is not None:
        person = s.get(Person, data.person_id)
        if person is None:
            raise NotFoundError("A pessoa escolhida não existe mais no cadastro.")
    cpf: str | None = None
    if person is None and data.offender_cpf.strip():
        result = validate_cpf(data.offender_cpf)
        if not result.ok:
            errors["offender_cpf"] = result.message or "CPF inválido."
        else:
            cpf = result.value
            person = s.scalar(select(Person).where(Person.cpf == cpf))
    if person is not None:
        name, cpf = person.full_name, person.cpf
        permit = _in_force_permit_of(s, person.id)
        if permit is not None and permit.service_type is ServiceType.MOTOTAXI:
            raise _refuse("art32_has_permit", ART_UNLICENSED,
                          f"{person.full_name} tem permissão de mototáxi em vigor ({permit.number}); o Art. 32 é "
                          "para quem exerce o serviço sem permissão — use o item cabível dos Arts. 30 ou 31.")
    else:
        name = clean_name(data.offender_name)
        if not name:
            errors["offender_name"] = "Informe o nome do autuado."
        elif len(name) > MAX_NAME:
            errors["offender_name"] = f"Nome longo demais: no máximo {MAX_NAME} caracteres."
        elif problem := text_problem(name):
            errors["offender_name"] = problem
    plate_result = validate_plate(data.plate)
    plate: str | None = None
    vehicle_id: int | None = None
    if not plate_result.ok:
        errors["plate"] = (f"{ART_UNLICENSED}: o veículo é apreendido; informe a placa. "
                           f"{plate_result.message or ''}").strip()
    else:
        plate = plate_result.value
        vehicle = s.scalar(select(Vehicle).where(Vehicle.plate.in_(_plate_forms(plate)), Vehicle.active.is_(True)))
        vehicle_id = vehicle.id if vehicle is not None else None
    return _Offender(OffenderKind.UNREGISTERED, person.id if person else None, None, name, cpf, vehicle_id,
                     plate)


def _is_number_clash(exc: IntegrityError) -> bool:
    return "infraction_notices" in str(exc.orig) or "uq_infraction_notices" in str(exc.orig)


def _last_seq(s: Session, year: int) -> int:
    return int(s.scalar(select(func.max(InfractionNotice.seq)).where(InfractionNotice.year == year)) or 0)


def _insert_numbered(s: Session, values: dict[str, Any], year: int) -> InfractionNotice:
    """Insert with the next number of the year; another workstation's number in between → try the next."""
    for _attempt in range(NUMBER_ATTEMPTS):
        seq = _last_seq(s, year) + 1
        notice = InfractionNotice(year=year, seq=seq, number=notice_number(seq, year), **values)
        try:
            with s.begin_nested():
                s.add(notice)
                s.flush()
        except IntegrityError as exc:
            if not _is_number_clash(exc):
                raise
            continue
        return notice
    raise ConflictError("Outras estações estão numerando autos neste instante; nada foi gravado. Tente de novo.")


@requires(*WRITERS)
def create_notice(ctx: AppContext, data: NoticeInput, *, now: datetime | None = None) -> NoticeCreated:
    """Write a notice of infraction (Art. 29, § 1º): numbered, with its defence deadline (Art. 29, § 3º)."""
    now = now or datetime.now(UTC)
    settings = law_settings(ctx)
    errors: dict[str, str] = {}
    try:
        infraction = infraction_by_code(data.infraction_code or "")
    except KeyError:
        raise InvalidInputError("Escolha a infração no catálogo (Arts. 15, 30, 31 ou 32).",
                                {"infraction": "Escolha a infração."}) from None
    _check_occurred_at(data.occurred_at, now, errors)
    place = _text(data.place, MAX_PLACE, "place", "o local da infração", errors, required=True)
    description = _text(data.description, MAX_TEXT, "description", "o relato do fiscal", errors, required=True)
    vehicle_description = _text(data.vehicle_description, MAX_VEHICLE_DESCRIPTION, "vehicle_description",
                                "o veículo", errors)
    signature = Signature(data.signature)
    with ctx.write() as s:
        offender = _resolve_offender(s, data, infraction, errors)
        if errors or offender is None:
            raise InvalidInputError("Corrija os campos marcados antes de lavrar o auto.", errors)
        assert data.occurred_at is not None
        notified_on = now.astimezone(LOCAL_TZ).date()
        due = defence_due(notified_on, settings).due
        values: dict[str, Any] = dict(
            infraction_code=infraction.code,
            article=infraction.article,
            severity=infraction.severity.value,
            occurred_at=data.occurred_at,
            place=place,
            person_id=offender.person_id,
            permit_id=offender.permit_id,
            offender_kind=offender.kind.value,
            offender_name=offender.name,
            offender_cpf=offender.cpf,
            vehicle_id=offender.vehicle_id,
            plate=offender.plate,
            vehicle_description=vehicle_description,
            description=description,
            inspector_id=ctx.user.id,
            inspector_login=ctx.user.login,
            inspector_name=ctx.user.full_name,
            signed=signature is Signature.SIGNED,
            refused_to_sign=signature is Signature.REFUSED,
            vehicle_seized=infraction.vehicle_seizure,
            status=NoticeStatus.OPEN.value,
            notified_on=notified_on,
            defence_due=due,
        )
        notice = _insert_numbered(s, values, notified_on.year)
        return NoticeCreated(notice.id, notice.number, notified_on, due, notice.refused_to_sign,
                             notice.vehicle_seized)


# --- defence and appeal at the counter -------------------------------------------------------------


def _check_filed(data: FiledDocument, notice: InfractionNotice, today: date, what: str) -> tuple[date, str | None]:
    errors: dict[str, str] = {}
    received_on = data.received_on or today
    if received_on > today:
        errors["received_on"] = f"A data de recebimento ({format_date(received_on)}) está no futuro."
    elif received_on < notice.notified_on:
        errors["received_on"] = (f"A data de recebimento ({format_date(received_on)}) é anterior à notificação "
                                 f"({format_date(notice.notified_on)}).")
    text = _text(data.text, MAX_TEXT, "text", f"o texto {what}", errors)
    if not data.waived and not text and not data.files:
        errors["text"] = f"Informe o texto {what} ou anexe o documento apresentado, ou registre a renúncia."
    if errors:
        raise InvalidInputError("Corrija os campos marcados antes de registrar.", errors)
    return received_on, text


def _store_files(s: Session, ctx: AppContext, owner_id: int, files: Sequence[tuple[str, bytes]]) -> list[int]:
    """Scans filed with a defence or appeal: checked by content (services.attachments), stored once."""
    return [attachments.store_attachment(s, ctx, DEFENCE_OWNER, owner_id, filename, content).id
            for filename, content in files]


@requires(*RECORDERS)
def record_defence(ctx: AppContext, notice_id: int, data: FiledDocument, *, today: date | None = None,
                   expected_version: int | None = None) -> FiledRecorded:
    """The offender's defence (text and scans), or the waiver of the defence period (Art. 29, § 3º)."""
    today = today or local_today()
    for filename, content in data.files:
        attachments.check_content(filename, content)
    with ctx.write() as s:
        notice = _load_notice(s, notice_id, expected_version)
        if notice.status != NoticeStatus.OPEN:
            raise _refuse("defence_after_decision", ART_DEFENCE,
                          f"o auto {notice.number} já foi decidido; a defesa não pode mais ser registrada — "
                          "registre um recurso.")
        received_on, text = _check_filed(data, notice, today, "da defesa")
        defence = Defence(notice_id=notice.id, stage="defence", received_on=received_on, text=text,
                          waived=data.waived, received_by=ctx.user.login)
        s.add(defence)
        s.flush()
        ids = _store_files(s, ctx, defence.id, data.files)
        _touch(notice)
        return FiledRecorded(defence.id, "defence", received_on > notice.defence_due, ids)


@requires(*RECORDERS)
def record_appeal(ctx: AppContext, notice_id: int, data: FiledDocument, *, today: date | None = None,
                  expected_version: int | None = None) -> FiledRecorded:
    """The offender's appeal against an upheld decision, or its waiver (Art. 34, parágrafo único)."""
    today = today or local_today()
    for filename, content in data.files:
        attachments.check_content(filename, content)
    with ctx.write() as s:
        notice = _load_notice(s, notice_id, expected_version)
        if notice.status != NoticeStatus.DECIDED:
            state = NoticeStatus(notice.status)
            reason = {
                NoticeStatus.OPEN: "ainda não há decisão da qual recorrer",
                NoticeStatus.APPEALED: "já há recurso registrado, aguardando decisão",
                NoticeStatus.CLOSED: "o processo está encerrado",
            }[state]
            raise _refuse("appeal_state", ART_APPEAL, f"auto {notice.number}: {reason}.")
        first = notice.decisions[-1]
        received_on, text = _check_filed(data, notice, today, "do recurso")
        if first.appeal_due is not None and received_on > first.appeal_due and not data.waived:
            raise _refuse("appeal_late", ART_APPEAL,
                          f"o prazo de recurso do auto {notice.number} terminou em {format_date(first.appeal_due)}; "
                          f"o recurso recebido em {format_date(received_on)} é intempestivo.")
        appeal = Defence(notice_id=notice.id, stage="appeal", received_on=received_on, text=text,
                         waived=data.waived, received_by=ctx.user.login)
        s.add(appeal)
        s.flush()
        ids = _store_files(s, ctx, appeal.id, data.files)
        if not data.waived:
            notice.status = NoticeStatus.APPEALED.value
        _touch(notice)
        return FiledRecorded(appeal.id, "appeal", False, ids)


# --- deciding --------------------------------------------------------------------------------------


def _severity_for(infraction: Infraction, data: DecisionInput) -> tuple[Severity, str | None]:
    """The catalogue's classification, or another one with its written reason (Art. 33, §ún.)."""
    if data.severity is None or data.severity is infraction.severity:
        return infraction.severity, None
    try:
        return (reclassify(infraction, data.severity, data.reclassification_reason),
                data.reclassification_reason.strip())
    except ReclassificationError as exc:
        raise RuleViolationError([Verdict("reclassification", ART_RECLASSIFY, Status.NOT_MET, str(exc))]) from None


def _options(infraction: Infraction, severity: Severity, settings: LawSettings,
             offender_kind: OffenderKind) -> DecisionOptions:
    fine = fine_for(infraction, settings, severity)
    return DecisionOptions(
        catalogue_severity=infraction.severity,
        severity=severity,
        reclassifiable=not infraction.penalty_fixed_by_law,
        penalty_fixed_by_law=infraction.penalty_fixed_by_law,
        allowed=allowed_penalties_for(infraction, settings, severity),
        fine_ufm=fine[0] if fine else None,
        fine_brl=fine[1] if fine else None,
        ufm_value_brl=settings.ufm_value_brl,
        vehicle_seizure=infraction.vehicle_seizure,
        permit_affected=offender_kind is OffenderKind.HOLDER,
    )


@requires(*READERS)
def decision_options(ctx: AppContext, notice_id: int, severity: Severity | None = None) -> DecisionOptions:
    """Penalties and fine for the notice's classification, or for ``severity`` if reclassified."""
    settings = law_settings(ctx)
    with ctx.read() as s:
        notice = _load_notice(s, notice_id)
        infraction = infraction_by_code(notice.infraction_code)
        kind = OffenderKind(notice.offender_kind)
    chosen = infraction.severity if (severity is None or infraction.penalty_fixed_by_law) else severity
    return _options(infraction, chosen, settings, kind)


def _check_penalty(infraction: Infraction, severity: Severity, penalty: Penalty | None,
                   allowed: list[Penalty]) -> Penalty:
    if penalty is None:
        raise InvalidInputError("Escolha a penalidade (Art. 34).", {"penalty": "Escolha a penalidade."})
    if penalty in allowed:
        return penalty
    names = join_words([p.label.lower() for p in allowed])
    if infraction.penalty_fixed_by_law:
        raise _refuse("penalty_fixed", infraction.article,
                      f"a penalidade é fixada pela própria lei: {names}; “{penalty.label}” não se aplica.")
    raise _refuse("penalty_not_allowed", penalty.article,
                  f"a penalidade “{penalty.label}” não é admitida para infração {severity.label.lower()} "
                  f"({severity.article}); admitidas: {names} (Art. 34, parágrafo único; configurações).")


@dataclass
class _Plan:
    stage: Stage
    outcome: Outcome
    grounds: str
    severity: Severity | None
    reclassification_reason: str | None
    penalty: Penalty | None
    fine_ufm: Decimal | None = None
    ufm_value_brl: Decimal | None = None
    fine_brl: Decimal | None = None
    suspension_days: int | None = None
    suspension_start: date | None = None
    suspension_end: date | None = None
    appeal_due: date | None = None
    steps: list[tuple[str, date | None]] = field(default_factory=list)  # permit transitions, in order
    effect: PermitEffect | None = None


def _plan(notice: InfractionNotice, permit: Permit | None, data: DecisionInput, settings: LawSettings,
          today: date) -> _Plan:
    infraction = infraction_by_code(notice.infraction_code)
    kind = OffenderKind(notice.offender_kind)
    stage = Stage.FIRST if notice.status == NoticeStatus.OPEN else Stage.APPEAL
    previous = notice.decisions[-1] if notice.decisions else None
    errors: dict[str, str] = {}
    grounds = _text(data.grounds, MAX_TEXT, "grounds", "a fundamentação da decisão", errors, required=True)
    if errors or grounds is None:
        raise InvalidInputError("A decisão deve ser fundamentada (Art. 29, § 3º; Lei nº 9.784/1999, art. 50).",
                                errors)
    outcome = Outcome(data.outcome)
    if outcome is Outcome.DISMISSED:
        plan = _Plan(stage, outcome, grounds, None, None, None)
    else:
        severity, reason = _severity_for(infraction, data)
        options = _options(infraction, severity, settings, kind)
        penalty = _check_penalty(infraction, severity, data.penalty, options.allowed)
        plan = _Plan(stage, outcome, grounds, severity, reason, penalty)
        if penalty is Penalty.FINE:
            plan.fine_ufm, plan.fine_brl = options.fine_ufm, options.fine_brl
            plan.ufm_value_brl = settings.ufm_value_brl
        if penalty is Penalty.SUSPENSION:
            days = data.suspension_days
            if days is None or days < 1 or days > MAX_SUSPENSION_DAYS:
                raise InvalidInputError(
                    f"Art. 34, III: informe por quantos dias vale a suspensão (de 1 a {MAX_SUSPENSION_DAYS}).",
                    {"suspension_days": "Informe os dias de suspensão."})
            # On appeal, a suspension that replaces the first one counts from the same first day.
            start = today
            if previous is not None and previous.permit_effect == PermitEffect.SUSPENDED and previous.suspension_start:
                start = previous.suspension_start
            plan.suspension_days = days
            plan.suspension_start = start
            plan.suspension_end = start + timedelta(days=days)
    if stage is Stage.FIRST and outcome is Outcome.UPHELD:
        plan.appeal_due = appeal_due(today, settings).due
    _plan_permit_steps(notice, permit, previous, plan, today)
    return plan


def _plan_permit_steps(notice: InfractionNotice, permit: Permit | None, previous: Decision | None, plan: _Plan,
                       today: date) -> None:
    """Which permit transitions this decision takes, given what the previous decision already did."""
    kind = OffenderKind(notice.offender_kind)
    penalty = plan.penalty if plan.outcome is Outcome.UPHELD else None
    if kind is not OffenderKind.HOLDER or permit is None:
        if penalty in (Penalty.SUSPENSION, Penalty.REVOCATION):
            plan.effect = PermitEffect.NOT_APPLICABLE
        return
    # Still suspended by the previous decision of this process (not since reinstated, nor re-suspended)?
    still_ours = (previous is not None and previous.permit_effect == PermitEffect.SUSPENDED
                  and permit.state is PermitState.SUSPENDED and permit.suspended_until == previous.suspension_end)
    if penalty is Penalty.REVOCATION:
        if plan.stage is Stage.FIRST:
            plan.effect = PermitEffect.PENDING_REVOCATION
        else:
            plan.steps.append(("revoke", None))
            plan.effect = PermitEffect.REVOKED
        return
    if penalty is Penalty.SUSPENSION:
        assert plan.suspension_end is not None
        if still_ours and permit.suspended_until == plan.suspension_end:
            plan.effect = PermitEffect.SUSPENDED  # confirmed as it is
            return
        if still_ours:
            plan.steps.append(("reinstate", None))
        if plan.suspension_end > today:
            plan.steps.append(("suspend", plan.suspension_end))
            plan.effect = PermitEffect.SUSPENDED
        else:
            plan.effect = PermitEffect.REINSTATED if still_ours else None  # already served
        return
    if still_ours:
        plan.steps.append(("reinstate", None))
        plan.effect = PermitEffect.REINSTATED


def _precheck_steps(ctx: AppContext, s: Session, notice: InfractionNotice, steps: list[tuple[str, date | None]],
                    today: date, reason: str) -> None:
    """Ask the state machine about every permit step before anything is written."""
    if not steps:
        return
    permit = s.get(Permit, notice.permit_id)
    if permit is None:
        raise NotFoundError("A permissão do autuado não existe mais.")
    state = permit.state
    suspended_until = permit.suspended_until
    for name, until in steps:
        tctx = TransitionContext(on=today, service=permit.service_type, reason=reason,
                                 suspension_end=until if name == "suspend" else suspended_until)
        verdicts = check_transition(name, state, ctx.user.role, tctx)
        if verdicts:
            if any(v.rule_id == "transition_role" for v in verdicts):
                raise PermissionDeniedError(verdicts[0].message)
            raise RuleViolationError(verdicts, f"A decisão não pode ser aplicada à {permit.service_type.instrument} "
                                               f"{permit.number}:")
        state = {"suspend": PermitState.SUSPENDED, "reinstate": PermitState.ACTIVE,
                 "revoke": PermitState.REVOKED}[name]
        suspended_until = until if name == "suspend" else None


def _permit_reason(notice: InfractionNotice, plan: _Plan) -> str:
    what = describe_penalty(plan.outcome, plan.penalty, plan.fine_ufm, plan.fine_brl, plan.suspension_days,
                            plan.suspension_end)
    stage = "decisão em recurso" if plan.stage is Stage.APPEAL else "decisão"
    return f"Auto de infração {notice.number} ({notice.article}): {stage} — {what}"


def _apply_steps(ctx: AppContext, permit_id: int, steps: list[tuple[str, date | None]], today: date,
                 reason: str) -> None:
    for name, until in steps:
        if name == "suspend":
            permits.suspend(ctx, permit_id, reason, until, on=today)
        elif name == "reinstate":
            permits.reinstate(ctx, permit_id, reason=reason, on=today)
        elif name == "revoke":
            permits.revoke(ctx, permit_id, reason, on=today)


def _undo_decision(ctx: AppContext, notice_id: int, decision_id: int, status: str) -> None:
    """Take back a decision whose permit step failed (the permit services own their transactions)."""
    with ctx.write() as s:
        decision = s.get(Decision, decision_id)
        if decision is not None:
            s.delete(decision)
        notice = s.get(InfractionNotice, notice_id)
        if notice is not None:
            notice.status = status
            notice.closed_at = None
            notice.closed_by = None
            _touch(notice)


@requires(*DECIDERS)
def decide(ctx: AppContext, notice_id: int, data: DecisionInput, *, today: date | None = None,
           expected_version: int | None = None) -> DecisionResult:
    """A supervisor's decision: first instance on an open notice, or the appeal on an appealed one."""
    today = today or local_today()
    settings = law_settings(ctx)
    with ctx.read() as s:
        notice = _load_notice(s, notice_id, expected_version)
        if notice.status not in (NoticeStatus.OPEN, NoticeStatus.APPEALED):
            if notice.status == NoticeStatus.DECIDED:
                raise _refuse("already_decided", ART_APPEAL,
                              f"o auto {notice.number} já foi decidido; nova decisão só em recurso, registrado "
                              "no prazo.")
            raise _refuse("closed", ART_APPEAL, f"o processo do auto {notice.number} está encerrado.")
        if notice.status == NoticeStatus.OPEN and today <= notice.defence_due:
            filed = [d for d in notice.defences if d.stage == "defence"]
            if not filed:
                raise _refuse("defence_period", ART_DEFENCE,
                              f"o prazo de defesa do auto {notice.number} vai até {format_date(notice.defence_due)} "
                              "e não há defesa nem renúncia registrada; a decisão só pode ser tomada depois "
                              "desse dia.")
        permit = s.get(Permit, notice.permit_id) if notice.permit_id else None
        plan = _plan(notice, permit, data, settings, today)
        reason = _permit_reason(notice, plan)
        _precheck_steps(ctx, s, notice, plan.steps, today, reason)
        previous_status = notice.status
        version = notice.version
        permit_id = notice.permit_id

    closes = plan.outcome is Outcome.DISMISSED or plan.stage is Stage.APPEAL
    new_status = NoticeStatus.CLOSED if closes else NoticeStatus.DECIDED
    with ctx.write() as s:
        notice = _load_notice(s, notice_id, version)
        decision = Decision(
            notice_id=notice.id, stage=plan.stage.value, outcome=plan.outcome.value, decided_at=utcnow(),
            decided_by=ctx.user.login, severity=plan.severity.value if plan.severity else None,
            reclassification_reason=plan.reclassification_reason,
            penalty=plan.penalty.value if plan.penalty else None, fine_ufm=plan.fine_ufm,
            ufm_value_brl=plan.ufm_value_brl, fine_brl=plan.fine_brl, suspension_days=plan.suspension_days,
            suspension_start=plan.suspension_start, suspension_end=plan.suspension_end,
            grounds=plan.grounds, appeal_due=plan.appeal_due,
            permit_effect=plan.effect.value if plan.effect else None,
        )
        s.add(decision)
        notice.status = new_status.value
        if closes:
            notice.closed_at = utcnow()
            notice.closed_by = ctx.user.login
        _touch(notice)
        s.flush()
        decision_id = decision.id

    if plan.steps and permit_id is not None:
        try:
            _apply_steps(ctx, permit_id, plan.steps, today, reason)
        except MotodeskError:
            _undo_decision(ctx, notice_id, decision_id, previous_status)
            raise
    return DecisionResult(decision_id, plan.stage, plan.outcome, plan.severity, plan.penalty, plan.fine_ufm,
                          plan.fine_brl, plan.ufm_value_brl, plan.suspension_start, plan.suspension_end,
                          plan.appeal_due, plan.effect, new_status)


@dataclass(frozen=True)
class ProcessClosed:
    notice_id: int
    permit_effect: PermitEffect | None


@requires(*DECIDERS)
def close_process(ctx: AppContext, notice_id: int, *, today: date | None = None,
                  expected_version: int | None = None) -> ProcessClosed:
    """Close a decided process once the appeal period is over (or the appeal was waived).

    A revocation decided in first instance takes effect here, through the permit's state machine.
    """
    today = today or local_today()
    with ctx.read() as s:
        notice = _load_notice(s, notice_id, expected_version)
        if notice.status != NoticeStatus.DECIDED:
            raise _refuse("close_state", ART_APPEAL,
                          f"só se encerra por aqui um processo decidido e sem recurso pendente; o auto "
                          f"{notice.number} está “{NoticeStatus(notice.status).label}”.")
        decision = notice.decisions[-1]
        waived = any(d.stage == "appeal" and d.waived for d in notice.defences)
        if not waived and decision.appeal_due is not None and today <= decision.appeal_due:
            raise _refuse("appeal_period", ART_APPEAL,
                          f"o prazo de recurso do auto {notice.number} vai até {format_date(decision.appeal_due)} "
                          "e não há renúncia registrada; o processo só se encerra depois desse dia.")
        steps: list[tuple[str, date | None]] = []
        if decision.permit_effect == PermitEffect.PENDING_REVOCATION and notice.permit_id is not None:
            steps.append(("revoke", None))
        penalty = Penalty(decision.penalty) if decision.penalty else None
        reason = (f"Auto de infração {notice.number} ({notice.article}): decisão definitiva — "
                  f"{penalty.label if penalty else ''}")
        _precheck_steps(ctx, s, notice, steps, today, reason)
        version, permit_id, decision_id = notice.version, notice.permit_id, decision.id

    with ctx.write() as s:
        notice = _load_notice(s, notice_id, version)
        notice.status = NoticeStatus.CLOSED.value
        notice.closed_at = utcnow()
        notice.closed_by = ctx.user.login
        _touch(notice)
        if steps:
            decision_row = s.get(Decision, decision_id)
            assert decision_row is not None
            decision_row.permit_effect = PermitEffect.REVOKED.value
    if steps and permit_id is not None:
        try:
            _apply_steps(ctx, permit_id, steps, today, reason)
        except MotodeskError:
            with ctx.write() as s:
                reopened = s.get(InfractionNotice, notice_id)
                if reopened is not None:
                    reopened.status = NoticeStatus.DECIDED.value
                    reopened.closed_at = None
                    reopened.closed_by = None
                    _touch(reopened)
                decision_row = s.get(Decision, decision_id)
                if decision_row is not None:
                    decision_row.permit_effect = PermitEffect.PENDING_REVOCATION.value
            raise
        return ProcessClosed(notice_id, PermitEffect.REVOKED)
    return ProcessClosed(notice_id, None)


# --- reading ---------------------------------------------------------------------------------------


def _row(notice: InfractionNotice, decisions: Sequence[Decision]) -> NoticeRow:
    infraction = infraction_by_code(notice.infraction_code)
    last = decisions[-1] if decisions else None
    first = next((d for d in decisions if d.stage == Stage.FIRST), None)
    summary = describe_penalty(
        Outcome(last.outcome) if last else None, Penalty(last.penalty) if last and last.penalty else None,
        last.fine_ufm if last else None, last.fine_brl if last else None,
        last.suspension_days if last else None, last.suspension_end if last else None)
    return NoticeRow(
        id=notice.id, number=notice.number, year=notice.year, seq=notice.seq, occurred_at=notice.occurred_at,
        infraction_code=notice.infraction_code, article=notice.article, infraction_text=infraction.text,
        severity=Severity(last.severity) if last and last.severity else Severity(notice.severity),
        offender_kind=OffenderKind(notice.offender_kind), offender_name=notice.offender_name,
        offender_cpf=notice.offender_cpf, person_id=notice.person_id,
        plate=format_plate(notice.plate) if notice.plate else None, status=NoticeStatus(notice.status),
        defence_due=notice.defence_due, appeal_due=first.appeal_due if first else None,
        penalty_summary=summary, inspector_name=notice.inspector_name, vehicle_seized=notice.vehicle_seized,
    )


def _decisions_of(s: Session, ids: Sequence[int]) -> dict[int, list[Decision]]:
    found: dict[int, list[Decision]] = {i: [] for i in ids}
    if ids:
        for d in s.scalars(select(Decision).where(Decision.notice_id.in_(list(ids))).order_by(Decision.id)):
            found[d.notice_id].append(d)
    return found


_NUMBER = re.compile(r"^(?:AI[\s-]*)?0*(\d{1,6})\s*/\s*(\d{4})$", re.IGNORECASE)
_SORT = {
    "number": (InfractionNotice.year, InfractionNotice.seq),
    "occurred_at": (InfractionNotice.occurred_at,),
    "article": (InfractionNotice.infraction_code,),
    "offender_name": (InfractionNotice.offender_name,),
    "plate": (InfractionNotice.plate,),
    "status": (InfractionNotice.status,),
    "defence_due": (InfractionNotice.defence_due,),
    "inspector_name": (InfractionNotice.inspector_name,),
}


def _search(query: Select[Any], text: str) -> Select[Any]:
    text = search_text(text)
    if not text:
        return query
    match = _NUMBER.match(text)
    if match:
        return query.where(InfractionNotice.seq == int(match.group(1)), InfractionNotice.year == int(match.group(2)))
    conditions: list[Any] = []
    forms = _plate_forms(text)
    if forms:
        conditions.append(InfractionNotice.plate.in_(forms))
    number = digits(text)
    if number and len(number) == len(re.sub(r"[\s.\-/]", "", text)):
        conditions.append(InfractionNotice.offender_cpf.like(prefix_pattern(number), escape=LIKE_ESCAPE))
        conditions.append(InfractionNotice.seq == int(number[:9]))
    codes = [item.code for item in find_infractions(text)] if len(text) >= 2 else []
    if codes and len(codes) < len(CATALOGUE):
        conditions.append(InfractionNotice.infraction_code.in_(codes))
    if any(ch.isalpha() for ch in text):
        conditions.append(Person.name_search.like(contains_pattern(fold(text)), escape=LIKE_ESCAPE))
        conditions.append(func.lower(InfractionNotice.offender_name).like(contains_pattern(text.lower()),
                                                                          escape=LIKE_ESCAPE))
    return query.where(or_(*conditions)) if conditions else query.where(InfractionNotice.id < 0)


def _status_filter(query: Select[Any], status: str | None) -> Select[Any]:
    if status in (None, "", "all"):
        return query
    if status == "in_progress":
        return query.where(InfractionNotice.status != NoticeStatus.CLOSED.value)
    return query.where(InfractionNotice.status == NoticeStatus(status).value)


@requires(*READERS)
def list_notices(ctx: AppContext, text: str = "", *, status: str | None = "all", offset: int = 0,
                 limit: int = 200, sort_key: str = "number", descending: bool = True) -> list[NoticeRow]:
    """A page of notices, searched by number, CPF, name, plate, article or words of the infraction."""
    query = select(InfractionNotice).outerjoin(Person, Person.id == InfractionNotice.person_id)
    query = _status_filter(_search(query, text), status)
    columns = _SORT.get(sort_key, _SORT["number"])
    order = [c.desc() if descending else c.asc() for c in columns]
    query = query.order_by(*order, InfractionNotice.id.desc() if descending else InfractionNotice.id)
    with ctx.read() as s:
        notices = list(s.scalars(query.offset(offset).limit(limit)))
        decisions = _decisions_of(s, [n.id for n in notices])
        return [_row(n, decisions[n.id]) for n in notices]


def _same_offender(notice: InfractionNotice) -> Any:
    conditions: list[Any] = []
    if notice.person_id is not None:
        conditions.append(InfractionNotice.person_id == notice.person_id)
    if notice.offender_cpf:
        conditions.append(InfractionNotice.offender_cpf == notice.offender_cpf)
    if not conditions and notice.plate:
        conditions.append(InfractionNotice.plate.in_(_plate_forms(notice.plate) or {notice.plate}))
    return or_(*conditions) if conditions else None


def _upheld(decisions: Sequence[Decision]) -> bool:
    return bool(decisions) and decisions[-1].outcome == Outcome.UPHELD


def _repeat(s: Session, notice: InfractionNotice, settings: LawSettings) -> RepeatOffence:
    condition = _same_offender(notice)
    if condition is None:
        return RepeatOffence(settings.repeat_offence_window_days, [])
    others = list(s.scalars(select(InfractionNotice).where(condition, InfractionNotice.id != notice.id,
                                                           InfractionNotice.occurred_at < notice.occurred_at)
                            .order_by(InfractionNotice.occurred_at)))
    decisions = _decisions_of(s, [o.id for o in others])
    on = local_time(notice.occurred_at).date()
    previous = [
        _row(o, decisions[o.id]) for o in others
        if _upheld(decisions[o.id]) and is_repeat_offence([local_time(o.occurred_at).date()], on, settings)
    ]
    return RepeatOffence(settings.repeat_offence_window_days, previous)


def _attachments_of(s: Session, filed_ids: Sequence[int]) -> dict[int, list[AttachmentRef]]:
    found: dict[int, list[AttachmentRef]] = {i: [] for i in filed_ids}
    if filed_ids:
        for a in s.scalars(select(Attachment).where(Attachment.owner_table == DEFENCE_OWNER,
                                                    Attachment.owner_id.in_(list(filed_ids)),
                                                    Attachment.removed_at.is_(None)).order_by(Attachment.id)):
            found[a.owner_id].append(AttachmentRef(a.id, a.filename, a.media_type, a.size))
    return found


def _decision_view(d: Decision) -> DecisionView:
    return DecisionView(
        id=d.id, stage=Stage(d.stage), outcome=Outcome(d.outcome), decided_at=d.decided_at,
        decided_by=d.decided_by, severity=Severity(d.severity) if d.severity else None,
        reclassification_reason=d.reclassification_reason, penalty=Penalty(d.penalty) if d.penalty else None,
        fine_ufm=d.fine_ufm, ufm_value_brl=d.ufm_value_brl, fine_brl=d.fine_brl,
        suspension_days=d.suspension_days, suspension_start=d.suspension_start,
        suspension_end=d.suspension_end, grounds=d.grounds, appeal_due=d.appeal_due,
        permit_effect=PermitEffect(d.permit_effect) if d.permit_effect else None,
    )


@requires(*READERS)
def get_notice(ctx: AppContext, notice_id: int) -> NoticeView:
    settings = law_settings(ctx)
    with ctx.read() as s:
        notice = _load_notice(s, notice_id)
        infraction = infraction_by_code(notice.infraction_code)
        permit = s.get(Permit, notice.permit_id) if notice.permit_id else None
        filed_rows = list(notice.defences)
        files = _attachments_of(s, [d.id for d in filed_rows])
        first = next((d for d in notice.decisions if d.stage == Stage.FIRST), None)
        filed = [
            FiledView(d.id, d.stage, d.received_on, d.text, d.waived, d.received_by,
                      late=(d.stage == "defence" and not d.waived and d.received_on > notice.defence_due),
                      attachments=files[d.id])
            for d in filed_rows
        ]
        last = notice.decisions[-1] if notice.decisions else None
        signature = (Signature.SIGNED if notice.signed else Signature.REFUSED if notice.refused_to_sign
                     else Signature.ABSENT)
        return NoticeView(
            id=notice.id, version=notice.version, number=notice.number, status=NoticeStatus(notice.status),
            infraction=infraction,
            severity=Severity(last.severity) if last and last.severity else infraction.severity,
            occurred_at=notice.occurred_at, place=notice.place, offender_kind=OffenderKind(notice.offender_kind),
            offender_name=notice.offender_name, offender_cpf=notice.offender_cpf, person_id=notice.person_id,
            permit_id=notice.permit_id, permit_number=permit.number if permit else None,
            permit_state=permit.state if permit else None, service=permit.service_type if permit else None,
            vehicle_id=notice.vehicle_id, plate=format_plate(notice.plate) if notice.plate else None,
            vehicle_description=notice.vehicle_description, description=notice.description,
            inspector_login=notice.inspector_login, inspector_name=notice.inspector_name, signature=signature,
            vehicle_seized=notice.vehicle_seized, notified_on=notice.notified_on, defence_due=notice.defence_due,
            appeal_due=first.appeal_due if first else None, closed_at=notice.closed_at, closed_by=notice.closed_by,
            filed=filed, decisions=[_decision_view(d) for d in notice.decisions],
            repeat=_repeat(s, notice, settings),
        )


@requires(*READERS)
def offender_history(ctx: AppContext, *, person_id: int | None = None, cpf: str | None = None,
                     plate: str | None = None) -> list[NoticeRow]:
    """Every notice of a person (by id or CPF) or, for an unidentified offender, of a plate; newest first.

    Each row says whether it was a repeat offence (an earlier upheld notice within the window).
    """
    conditions: list[Any] = []
    if person_id is not None:
        conditions.append(InfractionNotice.person_id == person_id)
    cpf_digits = digits(cpf)
    if cpf_digits:
        conditions.append(InfractionNotice.offender_cpf == cpf_digits)
    if plate:
        forms = _plate_forms(plate)
        if forms:
            conditions.append(InfractionNotice.plate.in_(forms))
    if not conditions:
        return []
    settings = law_settings(ctx)
    with ctx.read() as s:
        if person_id is not None and not cpf_digits:
            person = s.get(Person, person_id)
            if person is not None:
                conditions.append(InfractionNotice.offender_cpf == person.cpf)
        notices = list(s.scalars(select(InfractionNotice).where(or_(*conditions))
                                 .order_by(InfractionNotice.occurred_at)))
        decisions = _decisions_of(s, [n.id for n in notices])
        rows: list[NoticeRow] = []
        upheld_dates: list[date] = []
        for n in notices:
            on = local_time(n.occurred_at).date()
            repeat = is_repeat_offence(upheld_dates, on, settings)
            row = _row(n, decisions[n.id])
            rows.append(dataclasses.replace(row, repeat=repeat))
            if _upheld(decisions[n.id]):
                upheld_dates.append(on)
        return list(reversed(rows))


@requires(*READERS)
def open_process_deadlines(ctx: AppContext, today: date | None = None) -> list[ProcessDeadline]:
    """For each open process: the defence deadline while it awaits a decision, the appeal deadline once
    decided (until it is closed). Overdue ones too: they ask for a decision or a closing. Soonest first."""
    today = today or local_today()
    settings = law_settings(ctx)
    query = (select(InfractionNotice)
             .where(InfractionNotice.status.in_((NoticeStatus.OPEN.value, NoticeStatus.DECIDED.value)))
             .order_by(InfractionNotice.id))
    found: list[ProcessDeadline] = []
    with ctx.read() as s:
        notices = list(s.scalars(query))
        decisions = _decisions_of(s, [n.id for n in notices])
        for n in notices:
            if n.status == NoticeStatus.OPEN:
                deadline = defence_due(n.notified_on, settings)
                deadline = Deadline(deadline.kind, deadline.article, n.defence_due, deadline.label)
            else:
                first = next((d for d in decisions[n.id] if d.stage == Stage.FIRST), None)
                if first is None or first.appeal_due is None:
                    continue
                decided_on = local_time(first.decided_at).date()
                template = appeal_due(decided_on, settings)
                deadline = Deadline(template.kind, template.article, first.appeal_due, template.label)
            found.append(ProcessDeadline(deadline, n.id, n.number, n.person_id, n.offender_name, n.article,
                                         days_until_due(deadline, today)))
    return sorted(found, key=lambda d: (d.deadline.due, d.notice_number))


# --- printing --------------------------------------------------------------------------------------


def _cnh_of(s: Session, person_id: int | None) -> str:
    if person_id is None:
        return ""
    number = s.scalar(select(PersonDocument.number).where(PersonDocument.person_id == person_id,
                                                          PersonDocument.kind == DocumentKind.CNH))
    return number or ""


def _address_of(person: Person | None) -> str:
    if person is None:
        return ""
    town = f"{person.city}-{person.uf}" if person.city and person.uf else person.city
    return ", ".join(p for p in (person.address, person.district, town) if p)


def _notice_data(s: Session, notice: InfractionNotice) -> InfractionNoticeData:
    infraction = infraction_by_code(notice.infraction_code)
    person = s.get(Person, notice.person_id) if notice.person_id else None
    permit = s.get(Permit, notice.permit_id) if notice.permit_id else None
    vehicle = s.get(Vehicle, notice.vehicle_id) if notice.vehicle_id else None
    if vehicle is not None:
        vehicle_info = VehicleInfo(plate=format_plate(vehicle.plate),
                                   make_model=" ".join(p for p in (vehicle.make, vehicle.model) if p),
                                   colour=vehicle.colour or "", renavam=vehicle.renavam or "")
    elif notice.plate:
        vehicle_info = VehicleInfo(plate=format_plate(notice.plate), make_model=notice.vehicle_description or "")
    else:
        vehicle_info = None
    text = infraction.text
    if infraction.fixed_fine_ufm is not None:
        text += (f". Penalidade fixada em lei: multa de {format_ufm(infraction.fixed_fine_ufm)}"
                 + (" e apreensão do veículo" if infraction.vehicle_seizure else ""))
    elif infraction.fixed_penalty is not None:
        text += f". Penalidade fixada em lei: {infraction.fixed_penalty.label.lower()}"
    description = notice.description or ""
    if notice.vehicle_seized:
        description += "\nVeículo apreendido (Art. 32)."
    return InfractionNoticeData(
        notice_number=notice.number,
        article=notice.article,
        infraction_text=text,
        group=infraction.group,
        occurred_at=local_time(notice.occurred_at),
        place=notice.place,
        offender=PersonInfo(name=notice.offender_name,
                            cpf=format_cpf(notice.offender_cpf) if notice.offender_cpf else "não informado",
                            address=_address_of(person), cnh=_cnh_of(s, notice.person_id)),
        description=description,
        inspector_name=notice.inspector_name,
        offender_role=OffenderKind(notice.offender_kind).printed,
        permit_number=permit.number if permit else "",
        service=permit.service_type if permit else (ServiceType.MOTOTAXI if infraction.code == "32" else None),
        vehicle=vehicle_info,
        refused_to_sign=notice.refused_to_sign,
        defence_deadline=notice.defence_due,
    )


@requires(*READERS)
def notice_pdf(ctx: AppContext, notice_id: int) -> bytes:
    """The notice as an A4 PDF in two copies: the offender's and the process file's (Art. 29, § 2º)."""
    with ctx.read() as s:
        data = _notice_data(s, _load_notice(s, notice_id))
    return render_infraction_notice(data)


@requires(*READERS)
def refusal_certificate_pdf(ctx: AppContext, notice_id: int) -> bytes:
    """The inspector's certificate that the offender refused to sign (Art. 29, § 2º)."""
    with ctx.read() as s:
        notice = _load_notice(s, notice_id)
        if not notice.refused_to_sign:
            raise _refuse("no_refusal", "Art. 29, § 2º",
                          f"no auto {notice.number} não consta recusa de assinatura; não há certidão a emitir.")
        data = RefusalCertificateData(
            notice_number=notice.number,
            offender_name=notice.offender_name,
            offender_cpf=format_cpf(notice.offender_cpf) if notice.offender_cpf else "não informado",
            refused_at=local_time(notice.occurred_at),
            place=notice.place,
            inspector_name=notice.inspector_name,
        )
    return render_refusal_certificate(data)


@requires(*READERS)
def notice_documents(ctx: AppContext, notice_id: int) -> list[tuple[str, bytes]]:
    """What "Imprimir" prints: the notice, and the certificate of refusal when the offender refused."""
    with ctx.read() as s:
        notice = _load_notice(s, notice_id)
        number, refused = notice.number, notice.refused_to_sign
    documents = [(f"Auto de Infração {number}", notice_pdf(ctx, notice_id))]
    if refused:
        documents.append((f"Certidão de recusa de assinatura – {number}", refusal_certificate_pdf(ctx, notice_id)))
    return documents


@requires(*READERS)
def defence_attachment(ctx: AppContext, attachment_id: int) -> tuple[str, str, bytes]:
    """(file name, media type, bytes) of a scan filed with a defence or an appeal."""
    info, content = attachments.attachment_content(ctx, attachment_id)
    if info.owner_table != DEFENCE_OWNER:
        raise NotFoundError("Anexo não encontrado.")
    return info.filename, info.media_type, content
