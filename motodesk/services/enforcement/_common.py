"""What the stages of the enforcement process share: roles, limits, inputs and views, helpers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import select
from sqlalchemy.orm import Session

from motodesk.models import (
    DeputyLink,
    InfractionNotice,
    Permit,
)
from motodesk.models.base import utcnow
from motodesk.rules.common import PermitState, Role, ServiceType
from motodesk.rules.deadlines import Deadline
from motodesk.rules.enforcement import (
    NoticeStatus,
    NotificationMethod,
    OffenderKind,
    Outcome,
    PermitEffect,
    Signature,
    Stage,
    Target,
    target_of,
)
from motodesk.rules.infractions import (
    Infraction,
    Penalty,
    Severity,
)
from motodesk.rules.text import format_brl, format_date, format_ufm, join_words
from motodesk.rules.validators import format_cpf, mercosul_plate, validate_plate
from motodesk.services.clock import local_time
from motodesk.services.context import current_row
from motodesk.services.text import text_problem

WRITERS = (Role.INSPECTOR, Role.SUPERVISOR)
RECORDERS = (Role.CLERK, Role.SUPERVISOR)
DECIDERS = (Role.SUPERVISOR,)

DEFENCE_OWNER = "defences"
MAX_PLACE = 300
MAX_TEXT = 4000
MAX_NAME = 200
MAX_VEHICLE_DESCRIPTION = 120
NUMBER_ATTEMPTS = 20


def notice_number(seq: int, year: int) -> str:
    """``AI-0001/2026``: sequence of the year, then the year."""
    return f"AI-{seq:04d}/{year}"


#: Filters of the notices list, with their pt_BR labels.
STATUS_FILTERS: tuple[tuple[str, str], ...] = (
    ("in_progress", "Em andamento"),
    ("open", NoticeStatus.OPEN.label),
    ("decided", NoticeStatus.DECIDED.label),
    ("appealed", NoticeStatus.APPEALED.label),
    ("closed", NoticeStatus.CLOSED.label),
    ("all", "Todos"),
)


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
    organisation_id: int | None = None  # the employer or contractor named by an Art. 25 notice


@dataclass(frozen=True)
class NoticeCreated:
    id: int
    number: str
    notified_on: date | None  # None: refused or absent, until the later notification is recorded
    defence_due: date | None
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
    permit_affected: bool  # suspension/revocation reach a permit (holder) or the deputy's link (deputy)
    target: Target = Target.PERMIT  # what a suspension or cassação reaches (Art. 34, III–IV)
    # The Decree's choice (Art. 34, parágrafo único): whether each takes effect at the first decision.
    suspension_effective_now: bool = True
    revocation_effective_now: bool = False


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
    target: Target = Target.PERMIT


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
    target: Target = Target.PERMIT

    @property
    def effect_label(self) -> str:
        """What the decision did to the permit or the deputy, in pt_BR ("" for none)."""
        return self.permit_effect.label_for(self.target) if self.permit_effect else ""

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
    defence_due: date | None  # None: waiting for the later notification (Art. 29, § 2º)
    appeal_due: date | None
    penalty_summary: str
    inspector_name: str
    vehicle_seized: bool
    repeat: bool = False
    organisation_id: int | None = None  # the employer or contractor an Art. 25 notice names

    @property
    def offender_label(self) -> str:
        """Who the notice names, as the list shows it: an organisation (Art. 25) says so."""
        if self.offender_kind is OffenderKind.ORGANISATION:
            return f"Empresa (Art. 25): {self.offender_name}"
        return self.offender_name

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
    notified_on: date | None  # None: refused or absent, waiting for the later notification (Art. 29, § 2º)
    defence_due: date | None
    appeal_due: date | None
    closed_at: datetime | None
    closed_by: str | None
    filed: list[FiledView]
    decisions: list[DecisionView]
    repeat: RepeatOffence
    notification_method: NotificationMethod | None = None
    notification_reference: str | None = None
    written_on: date | None = None
    # When and how the first decision reached the offender; the appeal period runs from it (Art. 34, §ún.).
    decision_notified_on: date | None = None
    decision_notification_method: NotificationMethod | None = None
    decision_notification_reference: str | None = None
    organisation_id: int | None = None  # the employer or contractor an Art. 25 notice names

    @property
    def target(self) -> Target:
        return target_of(self.offender_kind)

    @property
    def awaiting_notification(self) -> bool:
        return self.status is NoticeStatus.OPEN and self.notified_on is None

    @property
    def awaiting_decision_notification(self) -> bool:
        """Decided, and the decision's notification not yet recorded: no appeal period runs yet."""
        return self.status is NoticeStatus.DECIDED and self.decision_notified_on is None

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
            if self.defence_due is None:
                return ("Aguardando a notificação do autuado (recusou-se a assinar ou estava ausente): o prazo "
                        "de defesa começa quando ela for registrada (Art. 29, §§ 2º e 3º).")
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
            if self.decision_notified_on is None or self.appeal_due is None:
                return ("Aguardando a notificação da decisão ao autuado: o prazo de recurso começa quando ela for "
                        "registrada (Art. 29, §§ 2º e 3º; Art. 34, parágrafo único).")
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


def _load_notice(s: Session, notice_id: int, expected_version: int | None = None) -> InfractionNotice:
    return current_row(s, InfractionNotice, notice_id, expected_version, "O auto de infração não existe mais.")


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
