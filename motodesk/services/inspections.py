"""Inspections (vistorias): schedule, fill the checklist, conclude with the laudo, re-inspect, supersede.

Life of an inspection::

    scheduled ──start──► draft ──conclude──► approved ──supersede (reason)──► superseded
        │                  │                    failed  ──reopen──► a re-inspection of the pending items
        └──cancel──► cancelled ◄──cancel──┘

* Only inspectors and supervisors record inspections; clerks may also schedule and cancel a
  scheduled one (they book the holder's time at the counter).
* A draft may be saved half-filled; it concludes only with every item answered.
* A concluded inspection is never edited: a failed one is followed by a re-inspection showing
  only its pending items; an approved one can only be superseded by a new full inspection, with
  a written reason, recorded on the old one.  The laudo (A4 PDF) is rendered when the inspection
  concludes and stored with it (``report_sha256`` → ``blobs``).
* Item photos are attachments of the item (``owner_table = "inspection_items"``), added while
  the inspection is a draft.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from sqlalchemy import ColumnElement, and_, func, or_, select
from sqlalchemy.orm import Session, aliased, selectinload

from motodesk.models import Attachment, Blob, Inspection, InspectionItem, Person, Vehicle
from motodesk.printing.documents import (
    InspectionItem as ReportItem,
)
from motodesk.printing.documents import (
    InspectionReportData,
    PersonInfo,
    VehicleInfo,
    render_inspection_report,
)
from motodesk.rules.checklist import (
    ChecklistItem,
    ChecklistOutcome,
    InspectionKind,
    InspectionStatus,
    ItemResult,
    checklist_for,
    evaluate_checklist,
)
from motodesk.rules.common import Role, ServiceType
from motodesk.rules.deadlines import inspection_due
from motodesk.rules.fees import FeeAct
from motodesk.rules.periods import next_business_day
from motodesk.rules.settings import LawSettings
from motodesk.rules.validators import format_cpf, format_plate
from motodesk.services import fees
from motodesk.services.applications import permit_or_application_number
from motodesk.services.clock import LOCAL_TZ, local_today
from motodesk.services.context import CONFLICT_MESSAGE, READERS, AppContext, current_row, requires
from motodesk.services.errors import (
    ConflictError,
    InvalidInputError,
    MotodeskError,
    NotFoundError,
)
from motodesk.services.settings import law_settings
from motodesk.services.text import LIKE_ESCAPE, contains_pattern, digits, fold, prefix_pattern, search_text
from motodesk.services.vehicles import ReplacementOutcome, apply_replacement, plate_forms, required_reason

RECORDERS = (Role.INSPECTOR, Role.SUPERVISOR)
SCHEDULERS = (Role.CLERK, Role.INSPECTOR, Role.SUPERVISOR)
MAX_NOTE = 1000
MAX_PHOTO_BYTES = 25 * 1024 * 1024
PHOTO_LONG_SIDE = 1600
ITEM_OWNER = "inspection_items"




OPEN = (InspectionStatus.SCHEDULED.value, InspectionStatus.DRAFT.value)
CONCLUDED = (InspectionStatus.APPROVED.value, InspectionStatus.FAILED.value)


@dataclass
class ItemAnswer:
    """The inspector's answer for one item: result (None = not yet answered) and a note."""

    code: str
    result: ItemResult | None
    note: str | None = None


@dataclass(frozen=True)
class ItemView:
    id: int
    position: int
    code: str
    article: str
    text: str
    result: ItemResult | None
    note: str | None
    allows_not_applicable: bool
    photo_count: int = 0

    def checklist_item(self) -> ChecklistItem:
        return ChecklistItem(self.code, self.article, self.text, self.allows_not_applicable)


@dataclass
class InspectionView:
    """An inspection as the checklist screen shows it."""

    id: int
    version: int
    vehicle_id: int
    plate: str
    make_model: str
    service_type: ServiceType
    holder_id: int | None
    holder_name: str | None
    holder_cpf: str | None
    kind: InspectionKind
    status: InspectionStatus
    scheduled_for: date | None
    performed_at: datetime | None
    inspector_name: str | None
    next_due: date | None
    parent_id: int | None
    superseded_by_id: int | None
    supersede_reason: str | None
    supersedes_id: int | None
    supersedes_reason: str | None
    report_available: bool
    notes: str | None
    items: list[ItemView] = field(default_factory=list)

    @property
    def editable(self) -> bool:
        return self.status is InspectionStatus.DRAFT

    @property
    def report_number(self) -> str:
        year = (self.performed_at or datetime.now(UTC)).astimezone(LOCAL_TZ).year
        return f"{self.id:06d}/{year}"

    def outcome(self) -> ChecklistOutcome:
        return evaluate_checklist([i.checklist_item() for i in self.items], {i.code: i.result for i in self.items})


@dataclass(frozen=True)
class InspectionRow:
    id: int
    vehicle_id: int
    plate: str
    holder_name: str | None
    service_type: ServiceType
    kind: InspectionKind
    status: InspectionStatus
    scheduled_for: date | None
    performed_at: datetime | None
    inspector_name: str | None
    next_due: date | None


@dataclass(frozen=True)
class QueueRow:
    """A line of the inspector's queue: scheduled for today, late, in progress, or due and unscheduled."""

    vehicle_id: int
    plate: str
    holder_name: str | None
    service_type: ServiceType
    kind: InspectionKind
    due: date | None
    situation: str
    days_late: int
    inspection_id: int | None = None
    status: InspectionStatus | None = None


@dataclass(frozen=True)
class Concluded:
    id: int
    version: int
    status: InspectionStatus
    pending: list[ChecklistItem]
    next_due: date | None
    report_sha256: str
    #: for a replacement vehicle: whether the holder's permit now names it (Art. 31, Grupo 3, II)
    replacement: ReplacementOutcome = ReplacementOutcome()


@dataclass(frozen=True)
class PhotoRef:
    id: int
    item_code: str
    filename: str
    added_at: datetime
    added_by: str


# --- helpers -------------------------------------------------------------------------------------


def _allows_na(service: ServiceType) -> dict[str, bool]:
    return {item.code: item.allows_not_applicable for item in checklist_for(service)}


def _load(s: Session, inspection_id: int, *, lock_version: int | None = None,
          status: InspectionStatus | None = None, refusal: str = "") -> Inspection:
    """The inspection with its items; with ``status``, one in another status is refused with ``refusal``."""
    inspection = s.scalar(select(Inspection).options(selectinload(Inspection.items))
                          .where(Inspection.id == inspection_id))
    if inspection is None:
        raise NotFoundError("Vistoria não encontrada.")
    if lock_version is not None and inspection.version != lock_version:
        raise ConflictError(CONFLICT_MESSAGE)
    if status is not None and inspection.status != status:
        raise MotodeskError(refusal)
    return inspection


def _refuse_past(on: date, today: date) -> None:
    if on < today:
        raise InvalidInputError("A data da vistoria não pode estar no passado.",
                                {"scheduled_for": f"Escolha hoje ({today:%d/%m/%Y}) ou uma data futura."})


def _active_vehicle(s: Session, vehicle_id: int) -> Vehicle:
    vehicle = current_row(s, Vehicle, vehicle_id, None, "Veículo não encontrado.")
    if not vehicle.active:
        raise MotodeskError("Este veículo foi substituído: só o veículo ativo do titular é vistoriado.", code="inspection.vehicle_replaced")
    if vehicle.service_type is None:
        raise InvalidInputError("Informe no cadastro do veículo o serviço para o qual ele é autorizado.",
                                {"service_type": "Serviço do veículo não informado."})
    return vehicle


def _service(vehicle: Vehicle) -> ServiceType:
    """The service of a vehicle that `_active_vehicle` accepted (never None there)."""
    assert vehicle.service_type is not None
    return vehicle.service_type


def _open_of(s: Session, vehicle_id: int) -> Inspection | None:
    return s.scalar(select(Inspection).where(Inspection.vehicle_id == vehicle_id,
                                             Inspection.status.in_(OPEN)).order_by(Inspection.id))


def _refuse_second_open(s: Session, vehicle_id: int, allowed: int | None = None) -> None:
    other = _open_of(s, vehicle_id)
    if other is not None and other.id != allowed:
        when = f" para {other.scheduled_for:%d/%m/%Y}" if other.scheduled_for else ""
        state = InspectionStatus(other.status).label.lower()
        raise InvalidInputError(
            f"Este veículo já tem uma vistoria aberta ({state}{when}). Abra-a na fila do vistoriador "
            "ou cancele-a antes de abrir outra.",
            {"vehicle": "Vistoria aberta já existente."},
        )


def _touch(inspection: Inspection) -> None:
    """Make the inspection row itself change, so its version guards edits of its items too."""
    inspection.updated_at = datetime.now(UTC)


def _fill_items(inspection: Inspection, items: Sequence[ChecklistItem]) -> None:
    inspection.items = [
        InspectionItem(position=n, code=item.code, article=item.article, text=item.text)
        for n, item in enumerate(items, start=1)
    ]


def _new_draft(s: Session, vehicle_id: int, service_type: str, kind: InspectionKind, parent_id: int,
               items: Sequence[ChecklistItem]) -> Inspection:
    """Session step: a new inspection in preparation today, of ``items``, that follows ``parent_id``."""
    inspection = Inspection(vehicle_id=vehicle_id, service_type=service_type, kind=kind.value,
                            status=InspectionStatus.DRAFT.value, scheduled_for=local_today(), parent_id=parent_id)
    _fill_items(inspection, items)
    s.add(inspection)
    s.flush()
    return inspection


def _clean_note(note: str | None) -> str | None:
    text = " ".join((note or "").split())
    return text or None


def _apply_answers(inspection: Inspection, answers: Sequence[ItemAnswer]) -> None:
    by_code = {item.code: item for item in inspection.items}
    errors: dict[str, str] = {}
    for answer in answers:
        item = by_code.get(answer.code)
        if item is None:
            errors[answer.code] = "Item que não pertence a esta vistoria."
            continue
        note = _clean_note(answer.note)
        if note and len(note) > MAX_NOTE:
            errors[answer.code] = f"Observação longa demais: no máximo {MAX_NOTE} caracteres."
            continue
        item.result = ItemResult(answer.result).value if answer.result is not None else None
        item.note = note
    if errors:
        raise InvalidInputError("Algumas respostas não puderam ser gravadas.", errors)


def _outcome(inspection: Inspection) -> ChecklistOutcome:
    allows = _allows_na(inspection.service_type)
    items = [ChecklistItem(i.code, i.article, i.text, allows.get(i.code, False)) for i in inspection.items]
    results = {i.code: ItemResult(i.result) if i.result else None for i in inspection.items}
    return evaluate_checklist(items, results)


def _require_draft(inspection: Inspection) -> None:
    status = InspectionStatus(inspection.status)
    if status is InspectionStatus.DRAFT:
        return
    if status is InspectionStatus.APPROVED:
        raise MotodeskError("Uma vistoria aprovada não pode ser alterada. Para corrigi-la, substitua-a por "
                            "uma nova vistoria, informando o motivo.", code="inspection.approved_locked")
    if status is InspectionStatus.FAILED:
        raise MotodeskError("Uma vistoria reprovada não pode ser alterada. Abra uma nova vistoria dos "
                            "itens pendentes.", code="inspection.failed_locked")
    if status is InspectionStatus.SCHEDULED:
        raise MotodeskError("A vistoria ainda não foi iniciada.")
    raise MotodeskError(f"Esta vistoria está {status.label.lower()} e não pode ser alterada.")


# --- scheduling ----------------------------------------------------------------------------------


@requires(*SCHEDULERS)
def schedule_inspection(ctx: AppContext, vehicle_id: int, on: date, kind: InspectionKind = InspectionKind.REGULAR,
                        notes: str | None = None, *, today: date | None = None) -> int:
    """Book an inspection of the vehicle for ``on`` (today or later)."""
    today = today or local_today()
    kind = InspectionKind(kind)
    if kind is InspectionKind.REINSPECTION:
        raise InvalidInputError("A nova vistoria dos itens pendentes é aberta a partir da vistoria reprovada.",
                                {"kind": "Tipo de vistoria não agendável."})
    _refuse_past(on, today)
    with ctx.write() as s:
        vehicle = _active_vehicle(s, vehicle_id)
        _refuse_second_open(s, vehicle.id)
        inspection = Inspection(vehicle_id=vehicle.id, service_type=vehicle.service_type, kind=kind.value,
                                status=InspectionStatus.SCHEDULED.value, scheduled_for=on, notes=_clean_note(notes))
        s.add(inspection)
        s.flush()
        return inspection.id


@requires(*SCHEDULERS)
def reschedule_inspection(ctx: AppContext, inspection_id: int, on: date, *, expected_version: int | None = None,
                          today: date | None = None) -> int:
    today = today or local_today()
    _refuse_past(on, today)
    with ctx.write() as s:
        inspection = _load(s, inspection_id, lock_version=expected_version, status=InspectionStatus.SCHEDULED,
                           refusal="Só uma vistoria agendada (ainda não iniciada) pode mudar de data.")
        inspection.scheduled_for = on
        s.flush()
        return inspection.version


@requires(*SCHEDULERS)
def cancel_inspection(ctx: AppContext, inspection_id: int, reason: str, *,
                      expected_version: int | None = None) -> None:
    """Cancel a scheduled inspection, or (inspectors and supervisors) a draft, with the reason."""
    reason = required_reason(reason, "Informe o motivo do cancelamento.")
    with ctx.write() as s:
        inspection = _load(s, inspection_id, lock_version=expected_version)
        status = InspectionStatus(inspection.status)
        if not status.open:
            raise MotodeskError(f"Uma vistoria {status.label.lower()} não pode ser cancelada.")
        if status is InspectionStatus.DRAFT and ctx.user.role not in RECORDERS:
            raise MotodeskError("Só o vistoriador ou o supervisor cancela uma vistoria em preenchimento.")
        inspection.status = InspectionStatus.CANCELLED.value
        inspection.notes = ((inspection.notes or "") + f"\nCancelada por {ctx.user.login}: {reason}").strip()
        old = s.scalar(select(Inspection).where(Inspection.superseded_by_id == inspection.id))
        if old is not None and old.status == InspectionStatus.APPROVED:
            old.superseded_by_id = None
            old.supersede_reason = None


@dataclass(frozen=True)
class CampaignScheduled:
    """What a call for periodic inspections booked."""

    count: int
    skipped: int  # vehicles that already had an open inspection
    first_day: date | None
    last_day: date | None


MAX_PER_DAY = 500


@requires(Role.SUPERVISOR)
def schedule_campaign(ctx: AppContext, service: ServiceType, start: date, per_day: int, *,
                      kind: InspectionKind = InspectionKind.SEMESTRAL, today: date | None = None) -> CampaignScheduled:
    """Call every active vehicle of ``service`` to a periodic inspection (Art. 5º, § 6º; Art. 23).

    ``per_day`` vehicles a business day from ``start`` on, in plate order; a vehicle with an
    inspection already open keeps it and is skipped.
    """
    today = today or local_today()
    kind = InspectionKind(kind)
    errors: dict[str, str] = {}
    if start < today:
        errors["start"] = f"Escolha hoje ({today:%d/%m/%Y}) ou uma data futura."
    if not 1 <= per_day <= MAX_PER_DAY:
        errors["per_day"] = f"Informe de 1 a {MAX_PER_DAY} vistorias por dia."
    if kind in (InspectionKind.REINSPECTION, InspectionKind.ACCIDENT):
        errors["kind"] = "Convocação só para vistorias periódicas."
    if errors:
        raise InvalidInputError("Corrija os dados da convocação.", errors)
    settings = law_settings(ctx)
    with ctx.write() as s:
        open_vehicles = select(Inspection.vehicle_id).where(Inspection.status.in_(OPEN))
        candidates = list(s.scalars(
            select(Vehicle.id).where(Vehicle.active.is_(True), Vehicle.service_type == service)
            .order_by(Vehicle.plate)))
        busy = set(s.scalars(open_vehicles.where(Inspection.vehicle_id.in_(candidates)))) if candidates else set()
        day = next_business_day(start, settings)
        first: date | None = None
        booked = 0
        rows = []
        for vehicle_id in candidates:
            if vehicle_id in busy:
                continue
            if booked and booked % per_day == 0:
                day = next_business_day(day + timedelta(days=1), settings)
            first = first or day
            rows.append(Inspection(vehicle_id=vehicle_id, service_type=service, kind=kind.value,
                                   status=InspectionStatus.SCHEDULED.value, scheduled_for=day,
                                   notes=f"Convocação de {ctx.user.login} ({kind.label})."))
            booked += 1
        s.add_all(rows)
        s.flush()
        return CampaignScheduled(booked, len(busy), first, day if booked else None)


# --- recording -----------------------------------------------------------------------------------


@requires(*RECORDERS)
def start_inspection(ctx: AppContext, *, inspection_id: int | None = None, vehicle_id: int | None = None,
                     kind: InspectionKind = InspectionKind.REGULAR) -> int:
    """Open the checklist: of a scheduled inspection, or a new one of the vehicle (e.g. after an accident).

    A vehicle with an inspection already scheduled opens that one; an open draft is returned as it is.
    """
    with ctx.write() as s:
        if inspection_id is None:
            if vehicle_id is None:
                raise InvalidInputError("Escolha o veículo a vistoriar.", {"vehicle": "Veículo não informado."})
            vehicle = _active_vehicle(s, vehicle_id)
            existing = _open_of(s, vehicle.id)
            if existing is not None:
                inspection = _load(s, existing.id)
            else:
                kind = InspectionKind(kind)
                if kind is InspectionKind.REINSPECTION:
                    raise InvalidInputError("A nova vistoria dos itens pendentes é aberta a partir da vistoria "
                                            "reprovada.", {"kind": "Tipo inválido aqui."})
                inspection = Inspection(vehicle_id=vehicle.id, service_type=vehicle.service_type, kind=kind.value,
                                        status=InspectionStatus.SCHEDULED.value, scheduled_for=local_today())
                s.add(inspection)
        else:
            inspection = _load(s, inspection_id)
            vehicle = _active_vehicle(s, inspection.vehicle_id)
        status = InspectionStatus(inspection.status)
        if status is InspectionStatus.SCHEDULED:
            inspection.service_type = _service(vehicle)
            _fill_items(inspection, checklist_for(_service(vehicle)))
            inspection.status = InspectionStatus.DRAFT.value
        elif status is not InspectionStatus.DRAFT:
            raise MotodeskError(f"Esta vistoria está {status.label.lower()}: não pode ser reaberta.")
        s.flush()
        return inspection.id


@requires(*RECORDERS)
def save_draft(ctx: AppContext, inspection_id: int, answers: Sequence[ItemAnswer], notes: str | None = None,
               *, expected_version: int | None = None) -> int:
    """Store the answers so far (any may be missing); returns the new version."""
    with ctx.write() as s:
        inspection = _load(s, inspection_id, lock_version=expected_version)
        _require_draft(inspection)
        _apply_answers(inspection, answers)
        inspection.notes = _clean_note(notes) if notes is not None else inspection.notes
        _touch(inspection)
        s.flush()
        return inspection.version


@requires(*RECORDERS)
def conclude_inspection(ctx: AppContext, inspection_id: int, answers: Sequence[ItemAnswer],
                        notes: str | None = None, *, expected_version: int | None = None,
                        now: datetime | None = None) -> Concluded:
    """Conclude with every item answered: approved, or failed with its pending items; the laudo is stored."""
    now = now or datetime.now(UTC)
    settings = law_settings(ctx)
    with ctx.write() as s:
        inspection = _load(s, inspection_id, lock_version=expected_version)
        _require_draft(inspection)
        _apply_answers(inspection, answers)
        if notes is not None:
            inspection.notes = _clean_note(notes)
        outcome = _outcome(inspection)
        if not outcome.complete:
            n = len(outcome.unanswered)
            raise InvalidInputError(
                f"{'Falta responder 1 item' if n == 1 else f'Faltam responder {n} itens'} da vistoria. "
                "Salve como rascunho para continuar depois, ou responda todos antes de concluir.",
                {item.code: "Item sem resposta." for item in outcome.unanswered}, code="inspection.unanswered",
            )
        vehicle = s.get(Vehicle, inspection.vehicle_id)
        assert vehicle is not None
        fees.require_payment(s, settings, FeeAct.INSPECTION, vehicle.id)  # Art. 6º, § 6º
        performed_on = now.astimezone(LOCAL_TZ).date()
        inspection.status = (InspectionStatus.APPROVED if outcome.approved else InspectionStatus.FAILED).value
        inspection.performed_at = now
        inspection.inspector_id = ctx.user.id
        inspection.inspector_name = ctx.user.full_name
        # An approved inspection is due again when its validity for the service ends (Art. 5º, § 6º; Art. 23).
        due = inspection_due(inspection.service_type, performed_on, outcome.approved, settings)
        inspection.next_due = due.due if due else None
        old = s.scalar(select(Inspection).where(Inspection.superseded_by_id == inspection.id))
        if old is not None:
            old.status = InspectionStatus.SUPERSEDED.value
        s.flush()
        replacement = apply_replacement(s, vehicle, inspection_approved=outcome.approved, on=performed_on,
                                        settings=settings)
        pdf = render_inspection_report(_report_data(s, inspection, vehicle, outcome, settings),
                                       generated_at=now.astimezone(LOCAL_TZ).replace(tzinfo=None))
        inspection.report_sha256 = _store_blob(s, pdf)
        s.flush()
        return Concluded(inspection.id, inspection.version, InspectionStatus(inspection.status),
                         outcome.pending, inspection.next_due, inspection.report_sha256, replacement)


@requires(*RECORDERS)
def reopen_as_reinspection(ctx: AppContext, failed_id: int) -> int:
    """A new inspection of the failed one's pending items only (kind: re-inspection)."""
    with ctx.write() as s:
        failed = _load(s, failed_id, status=InspectionStatus.FAILED,
                       refusal="Só uma vistoria reprovada pode ser reaberta para nova vistoria dos pendentes.")
        vehicle = _active_vehicle(s, failed.vehicle_id)
        later = s.scalar(select(Inspection).where(
            Inspection.vehicle_id == vehicle.id, Inspection.id > failed.id,
            Inspection.status != InspectionStatus.CANCELLED))
        if later is not None and InspectionStatus(later.status).open and later.parent_id == failed.id:
            return later.id
        if later is not None:
            raise MotodeskError("Há uma vistoria mais recente deste veículo: a reprovação já foi seguida.")
        _refuse_second_open(s, vehicle.id)
        # A failure recorded without its items (imported, or from before MotoDesk) is re-inspected in full.
        pending = _outcome(failed).pending if failed.items else checklist_for(_service(vehicle))
        return _new_draft(s, vehicle.id, failed.service_type, InspectionKind.REINSPECTION, failed.id, pending).id


@requires(*RECORDERS)
def supersede_inspection(ctx: AppContext, approved_id: int, reason: str, *,
                         expected_version: int | None = None) -> int:
    """Open a new full inspection that, once concluded, replaces an approved one; the reason is kept."""
    reason = required_reason(reason, "Informe o motivo da substituição da vistoria.")
    with ctx.write() as s:
        old = _load(s, approved_id, lock_version=expected_version, status=InspectionStatus.APPROVED,
                    refusal="Só uma vistoria aprovada é substituída por outra.")
        if old.superseded_by_id is not None:
            raise MotodeskError("Já existe uma vistoria em preenchimento para substituir esta.", code="inspection.replacement_open")
        vehicle = _active_vehicle(s, old.vehicle_id)
        _refuse_second_open(s, vehicle.id)
        kind = InspectionKind.REGULAR if old.kind == InspectionKind.REINSPECTION else InspectionKind(old.kind)
        new = _new_draft(s, vehicle.id, _service(vehicle), kind, old.id, checklist_for(_service(vehicle)))
        old.superseded_by_id = new.id
        old.supersede_reason = reason
        s.flush()
        return new.id


# --- photos of items -----------------------------------------------------------------------------


def _photo_jpeg(data: bytes) -> bytes:
    from motodesk.imaging import PhotoError, load_photo

    if len(data) > MAX_PHOTO_BYTES:
        raise InvalidInputError(f"A foto tem mais de {MAX_PHOTO_BYTES // (1024 * 1024)} MB.",
                                {"photo": "Arquivo grande demais."})
    try:
        photo = load_photo(data)
    except PhotoError as exc:
        raise InvalidInputError(exc.message, {"photo": exc.message}) from None
    image = photo.image.copy()
    image.thumbnail((PHOTO_LONG_SIDE, PHOTO_LONG_SIDE))
    out = io.BytesIO()
    image.convert("RGB").save(out, "JPEG", quality=85)
    return out.getvalue()


def _store_blob(s: Session, data: bytes) -> str:
    digest = hashlib.sha256(data).hexdigest()
    if s.get(Blob, digest) is None:
        s.add(Blob(sha256=digest, size=len(data), data=data))
        s.flush()
    return digest


@requires(*RECORDERS)
def add_item_photo(ctx: AppContext, inspection_id: int, item_code: str, filename: str, data: bytes) -> int:
    """Attach a photo (JPEG/PNG/…, stored as a reduced JPEG) to an item of a draft inspection."""
    jpeg = _photo_jpeg(data)
    with ctx.write() as s:
        inspection = _load(s, inspection_id)
        _require_draft(inspection)
        item = next((i for i in inspection.items if i.code == item_code), None)
        if item is None:
            raise NotFoundError("Item não encontrado nesta vistoria.")
        digest = _store_blob(s, jpeg)
        name = (filename or "foto").rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
        stem = name.rsplit(".", 1)[0][:200] or "foto"
        attachment = Attachment(owner_table=ITEM_OWNER, owner_id=item.id, blob_sha256=digest,
                                filename=f"{stem}.jpg", media_type="image/jpeg", size=len(jpeg),
                                added_by=ctx.user.login)
        s.add(attachment)  # photos are rows of their own: the draft's version (its answers) is untouched
        s.flush()
        return attachment.id


@requires(*READERS)
def item_photos(ctx: AppContext, inspection_id: int, item_code: str | None = None) -> list[PhotoRef]:
    with ctx.read() as s:
        query = (select(Attachment, InspectionItem.code)
                 .join(InspectionItem, and_(Attachment.owner_table == ITEM_OWNER,
                                            Attachment.owner_id == InspectionItem.id))
                 .where(InspectionItem.inspection_id == inspection_id, Attachment.removed_at.is_(None))
                 .order_by(Attachment.id))
        if item_code is not None:
            query = query.where(InspectionItem.code == item_code)
        return [PhotoRef(a.id, code, a.filename, a.added_at, a.added_by) for a, code in s.execute(query)]


@requires(*READERS)
def photo_bytes(ctx: AppContext, attachment_id: int) -> bytes:
    with ctx.read() as s:
        attachment = s.get(Attachment, attachment_id)
        if attachment is None or attachment.owner_table != ITEM_OWNER:
            raise NotFoundError("Foto não encontrada.")
        return bytes(attachment.blob.data)


@requires(*RECORDERS)
def remove_item_photo(ctx: AppContext, attachment_id: int, reason: str = "Removida pelo vistoriador") -> None:
    with ctx.write() as s:
        attachment = s.get(Attachment, attachment_id)
        if attachment is None or attachment.owner_table != ITEM_OWNER or attachment.removed_at is not None:
            raise NotFoundError("Foto não encontrada.")
        item = s.get(InspectionItem, attachment.owner_id)
        assert item is not None
        _require_draft(_load(s, item.inspection_id))
        attachment.removed_at = datetime.now(UTC)
        attachment.removed_by = ctx.user.login
        attachment.removed_reason = reason


# --- reading -------------------------------------------------------------------------------------


@requires(*READERS)
def get_inspection(ctx: AppContext, inspection_id: int) -> InspectionView:
    with ctx.read() as s:
        inspection = _load(s, inspection_id)
        vehicle = s.get(Vehicle, inspection.vehicle_id)
        assert vehicle is not None
        holder = s.get(Person, vehicle.holder_id) if vehicle.holder_id else None
        allows = _allows_na(inspection.service_type)
        counts = dict(s.execute(
            select(Attachment.owner_id, func.count(Attachment.id))
            .where(Attachment.owner_table == ITEM_OWNER, Attachment.removed_at.is_(None),
                   Attachment.owner_id.in_([i.id for i in inspection.items] or [-1]))
            .group_by(Attachment.owner_id)).all())
        supersedes = s.scalar(select(Inspection).where(Inspection.superseded_by_id == inspection.id))
        return InspectionView(
            id=inspection.id, version=inspection.version, vehicle_id=vehicle.id, plate=format_plate(vehicle.plate),
            make_model=" ".join(x for x in (vehicle.make, vehicle.model) if x),
            service_type=inspection.service_type, holder_id=vehicle.holder_id,
            holder_name=holder.full_name if holder else None,
            holder_cpf=format_cpf(holder.cpf) if holder else None,
            kind=InspectionKind(inspection.kind), status=InspectionStatus(inspection.status),
            scheduled_for=inspection.scheduled_for, performed_at=inspection.performed_at,
            inspector_name=inspection.inspector_name, next_due=inspection.next_due,
            parent_id=inspection.parent_id, superseded_by_id=inspection.superseded_by_id,
            supersede_reason=inspection.supersede_reason,
            supersedes_id=supersedes.id if supersedes else None,
            supersedes_reason=supersedes.supersede_reason if supersedes else None,
            report_available=inspection.report_sha256 is not None, notes=inspection.notes,
            items=[ItemView(i.id, i.position, i.code, i.article, i.text,
                            ItemResult(i.result) if i.result else None, i.note,
                            allows.get(i.code, False), counts.get(i.id, 0)) for i in inspection.items],
        )


@requires(*READERS)
def checklist_view(ctx: AppContext, inspection_id: int) -> tuple[InspectionView, LawSettings]:
    """What a checklist shows: the inspection with its items, and the settings in force."""
    return get_inspection(ctx, inspection_id), law_settings(ctx)


@requires(*READERS)
def inspection_report(ctx: AppContext, inspection_id: int) -> bytes:
    """The laudo stored when the inspection concluded (the same bytes every time)."""
    with ctx.read() as s:
        inspection = current_row(s, Inspection, inspection_id, None, "Vistoria não encontrada.")
        if inspection.report_sha256 is None:
            if InspectionStatus(inspection.status).concluded:
                raise MotodeskError("Esta vistoria não tem laudo gravado (registro importado ou anterior ao "
                                    "MotoDesk).")
            raise MotodeskError("Esta vistoria ainda não foi concluída: o laudo é emitido na conclusão.")
        blob = s.get(Blob, inspection.report_sha256)
        assert blob is not None
        return bytes(blob.data)


def _inspection_row(i: Inspection, v: Vehicle, p: Person | None) -> InspectionRow:
    return InspectionRow(i.id, v.id, format_plate(v.plate), p.full_name if p else None, i.service_type,
                         InspectionKind(i.kind), InspectionStatus(i.status), i.scheduled_for, i.performed_at,
                         i.inspector_name, i.next_due)


_SORT = {
    "id": (Inspection.id,),
    "plate": (Vehicle.plate,),
    "holder_name": (Person.name_search,),
    "service_type": (Inspection.service_type,),
    "kind": (Inspection.kind,),
    "status": (Inspection.status,),
    "scheduled_for": (Inspection.scheduled_for,),
    "performed_at": (Inspection.performed_at,),
    "inspector_name": (Inspection.inspector_name,),
    "next_due": (Inspection.next_due,),
}


@requires(*READERS)
def list_inspections(ctx: AppContext, text: str = "", *, vehicle_id: int | None = None, offset: int = 0,
                     limit: int = 200, sort_key: str = "id", descending: bool = True) -> list[InspectionRow]:
    """Inspections, newest first by default, searched by plate (either form) or holder name."""
    query = (select(Inspection, Vehicle, Person).join(Vehicle, Vehicle.id == Inspection.vehicle_id)
             .outerjoin(Person, Person.id == Vehicle.holder_id))
    if vehicle_id is not None:
        query = query.where(Inspection.vehicle_id == vehicle_id)
    text = search_text(text)
    if text:
        forms = plate_forms(text)
        if forms:
            query = query.where(Vehicle.plate.in_(forms))
        else:
            compact = text.replace("-", "").replace(" ", "").upper()
            conditions: list[ColumnElement[bool]] = [
                Person.name_search.like(contains_pattern(fold(text)), escape=LIKE_ESCAPE)]
            if compact.isalnum() and len(compact) <= 7:
                conditions.append(Vehicle.plate.like(prefix_pattern(compact), escape=LIKE_ESCAPE))
            if digits(text) and digits(text) == compact:
                conditions.append(Inspection.id == int(compact[:9]))
            query = query.where(or_(*conditions))
    columns = _SORT.get(sort_key, _SORT["id"])
    query = query.order_by(*[c.desc() if descending else c.asc() for c in columns],
                           Inspection.id.desc() if descending else Inspection.id)
    with ctx.read() as s:
        return [_inspection_row(i, v, p) for i, v, p in s.execute(query.offset(offset).limit(limit))]


@requires(*READERS)
def inspector_queue(ctx: AppContext, today: date | None = None, *, limit: int = 2000) -> list[QueueRow]:
    """Today's work: inspections in progress, scheduled for today or late, and vehicles due but unscheduled.

    Due dates come from the last concluded inspection (``next_due``): moto-frete yearly (Art. 23),
    periodic ones when the secretariat sets them (Art. 5º, § 6º), re-inspection after a failure.
    """
    today = today or local_today()
    rows: list[QueueRow] = []
    with ctx.read() as s:
        opened = s.execute(
            select(Inspection, Vehicle, Person).join(Vehicle, Vehicle.id == Inspection.vehicle_id)
            .outerjoin(Person, Person.id == Vehicle.holder_id)
            .where(Vehicle.active.is_(True))
            .where(or_(Inspection.status == InspectionStatus.DRAFT,
                       and_(Inspection.status == InspectionStatus.SCHEDULED, Inspection.scheduled_for <= today)))
            .order_by(Inspection.scheduled_for, Inspection.id).limit(limit))
        for i, v, p in opened:
            status = InspectionStatus(i.status)
            late = (today - i.scheduled_for).days if i.scheduled_for else 0
            if status is InspectionStatus.DRAFT:
                situation = "Em preenchimento"
            elif late > 0:
                situation = f"Agendada – atrasada {late} dia{'s' if late > 1 else ''}"
            else:
                situation = "Agendada para hoje"
            rows.append(QueueRow(v.id, format_plate(v.plate), p.full_name if p else None, i.service_type,
                                 InspectionKind(i.kind), i.scheduled_for, situation, max(late, 0), i.id, status))
        later = aliased(Inspection)
        newer = (select(later.id).where(later.vehicle_id == Inspection.vehicle_id, later.id != Inspection.id,
                                        or_(later.status.in_(OPEN),
                                            and_(later.status.in_(CONCLUDED), later.id > Inspection.id)))
                 .exists())
        due = s.execute(
            select(Inspection, Vehicle, Person).join(Vehicle, Vehicle.id == Inspection.vehicle_id)
            .outerjoin(Person, Person.id == Vehicle.holder_id)
            .where(Vehicle.active.is_(True), Inspection.status.in_(CONCLUDED),
                   Inspection.next_due.is_not(None), Inspection.next_due <= today, ~newer)
            .order_by(Inspection.next_due, Inspection.id).limit(limit))
        for i, v, p in due:
            if i.status == InspectionStatus.FAILED:
                kind = InspectionKind.REINSPECTION
            elif v.service_type is ServiceType.MOTOFRETE:
                kind = InspectionKind.ANNUAL
            else:
                kind = InspectionKind.SEMESTRAL
            assert i.next_due is not None
            late = (today - i.next_due).days
            situation = "Vence hoje – não agendada" if late == 0 else f"Vencida há {late} dia{'s' if late > 1 else ''} – não agendada"
            rows.append(QueueRow(v.id, format_plate(v.plate), p.full_name if p else None,
                                 v.service_type or i.service_type, kind, i.next_due, situation, late,
                                 i.id if kind is InspectionKind.REINSPECTION else None,
                                 InspectionStatus(i.status) if kind is InspectionKind.REINSPECTION else None))
    rows.sort(key=lambda r: (r.status is not InspectionStatus.DRAFT, -r.days_late, r.plate))
    return rows


@requires(*READERS)
def upcoming_inspections(ctx: AppContext, today: date | None = None, days: int = 30) -> list[InspectionRow]:
    """Scheduled inspections of the coming days (after today)."""
    today = today or local_today()
    with ctx.read() as s:
        result = s.execute(
            select(Inspection, Vehicle, Person).join(Vehicle, Vehicle.id == Inspection.vehicle_id)
            .outerjoin(Person, Person.id == Vehicle.holder_id)
            .where(Inspection.status == InspectionStatus.SCHEDULED, Inspection.scheduled_for > today,
                   Inspection.scheduled_for <= today + timedelta(days=days))
            .order_by(Inspection.scheduled_for, Inspection.id))
        return [_inspection_row(i, v, p) for i, v, p in result]


# --- the laudo -----------------------------------------------------------------------------------


def _report_data(s: Session, inspection: Inspection, vehicle: Vehicle, outcome: ChecklistOutcome,
                 settings: LawSettings) -> InspectionReportData:
    holder = s.get(Person, vehicle.holder_id) if vehicle.holder_id else None
    address = ""
    if holder is not None:
        address = ", ".join(x for x in (holder.address, holder.district,
                                        f"{holder.city}-{holder.uf}" if holder.city and holder.uf else holder.city)
                            if x)
    permit_number = permit_or_application_number(s, vehicle.holder_id)
    pending_codes = {i.code for i in outcome.pending}
    items = []
    extra_pending = []
    for item in inspection.items:
        result = ItemResult(item.result) if item.result else None
        printed = {"ok": "ok", "not_ok": "not_ok", "not_applicable": "na"}[result.value if result else "not_ok"]
        items.append(ReportItem(article=item.article, description=item.text, result=printed,  # type: ignore[arg-type]
                                note=item.note or ""))
        if item.code in pending_codes and result is ItemResult.NOT_APPLICABLE:
            extra_pending.append(f"{item.text} ({item.article}) – marcado “não se aplica”, mas a lei "
                                 "exige o item de todo veículo")
    years = "/".join(str(y) for y in (vehicle.year_manufacture, vehicle.year_model) if y)
    kind = InspectionKind(inspection.kind)
    kind_label = kind.label
    if kind is InspectionKind.REINSPECTION and inspection.parent_id:
        kind_label = f"{kind.label} da vistoria nº {inspection.parent_id:06d}"
    superseded = s.scalar(select(Inspection).where(Inspection.superseded_by_id == inspection.id))
    notes = inspection.notes or ""
    if superseded is not None:
        notes = (f"Substitui a vistoria nº {superseded.id:06d}. Motivo: {superseded.supersede_reason}\n"
                 + notes).strip()
    performed = (inspection.performed_at or datetime.now(UTC)).astimezone(LOCAL_TZ)
    return InspectionReportData(
        report_number=f"{inspection.id:06d}/{performed.year}",
        service=inspection.service_type,
        holder=PersonInfo(name=holder.full_name if holder else "—",
                          cpf=format_cpf(holder.cpf) if holder else "", address=address),
        vehicle=VehicleInfo(plate=format_plate(vehicle.plate),
                            make_model=" ".join(x for x in (vehicle.make, vehicle.model) if x),
                            year=years, colour=vehicle.colour or "", renavam=vehicle.renavam or "",
                            chassis=vehicle.vin or "", engine_cc=vehicle.engine_cc),
        items=items,
        approved=outcome.approved,
        inspector_name=inspection.inspector_name or "",
        inspected_at=performed.replace(tzinfo=None),
        next_due=inspection.next_due,
        permit_number=permit_number,
        place=f"{settings.municipality} – {settings.uf}",
        pending=extra_pending,
        notes=notes,
        kind=kind_label,
    )
