"""The yearly re-registration campaign ("Recadastramento"; Art. 4º, § 1º; Art. 5º, § 2º; Art. 30, Grupo 1, I–II).

A supervisor opens a campaign for a period (:func:`open_campaign`): in one transaction, every holder of a
permit in force and every deputy linked to one whose certificates fall due by the period's last day gets
an appointment at the counter, on the business days and inside the opening hours of the settings
(:mod:`motodesk.rules.campaign` decides who and when). The counter prints the call letters
(:func:`call_letters`), exports the schedule (:func:`export_schedule`), marks attendance
(:func:`mark_attendance`) and reschedules (:func:`reschedule`); every mark and every new slot is a row of
``campaign_appointment_events``, so the history is never overwritten. At the close (:func:`close_campaign`)
the appointments still pending become *faltou*, and :func:`absent_list` gives each absent person with the
infraction of Art. 30, Grupo 1 their absence supports, ready for a notice (:func:`notice_input`,
:func:`open_notice_for_absence`). :func:`progress` feeds the dashboard.

Every change is audited by the audit trail (the new tables are audited like the others).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session

from motodesk.models import (
    AppointmentEvent,
    Campaign,
    CampaignAppointment,
    DeputyLink,
    Permit,
    Person,
    PersonDocument,
)
from motodesk.rules import campaign as rules
from motodesk.rules import documents_declared
from motodesk.rules.campaign import AppointmentState, CertificateKind, DriverRole, DueCertificate
from motodesk.rules.common import PermitState, Role, ServiceType, Status
from motodesk.rules.dossier import DocumentKind
from motodesk.rules.enforcement import OffenderKind, Signature
from motodesk.rules.settings import LawSettings, opening_windows
from motodesk.rules.text import format_date, join_words
from motodesk.rules.validators import mask_cpf
from motodesk.services import enforcement
from motodesk.services.clock import LOCAL_TZ, local_time, local_today
from motodesk.services.context import READERS, AppContext, requires
from motodesk.services.deadlines import _address_line
from motodesk.services.enforcement import NoticeInput
from motodesk.services.errors import (
    ConflictError,
    InvalidInputError,
    MotodeskError,
    NotFoundError,
    RuleViolationError,
)
from motodesk.services.settings import law_settings
from motodesk.services.text import fold

if TYPE_CHECKING:
    from motodesk.services.enforcement import NoticeCreated, NoticeInput

IN_FORCE = (PermitState.ACTIVE, PermitState.SUSPENDED)
COUNTER = (Role.CLERK, Role.SUPERVISOR)
MAX_REASON = 500

_OPEN_MESSAGES = {
    "uq_campaigns_one_open": "Já há um recadastramento aberto: encerre-o antes de abrir outro.",
    "cols:campaigns.state": "Já há um recadastramento aberto: encerre-o antes de abrir outro.",
}


# --- what screens and the CLI receive -----------------------------------------------------------------


@dataclass(frozen=True)
class CampaignInfo:
    id: int
    period_start: date
    period_end: date
    state: str  # open / closed
    opened_at: datetime  # local
    opened_by: str
    closed_at: datetime | None
    closed_by: str | None
    version: int

    @property
    def is_open(self) -> bool:
        return self.state == "open"

    @property
    def label(self) -> str:
        status = "aberto" if self.is_open else "encerrado"
        return f"Recadastramento de {format_date(self.period_start)} a {format_date(self.period_end)} ({status})"


@dataclass(frozen=True)
class AppointmentRow:
    id: int
    campaign_id: int
    person_id: int
    name: str
    cpf: str
    phone: str | None
    role: DriverRole
    permit_id: int
    permit_number: str
    service: ServiceType
    due: tuple[DueCertificate, ...]
    slot: datetime  # local, naive
    state: AppointmentState
    version: int

    @property
    def due_text(self) -> str:
        return "; ".join(f"{d.label} ({d.shown_due()})" for d in self.due)

    @property
    def masked_cpf(self) -> str:
        return mask_cpf(self.cpf)


@dataclass(frozen=True)
class HistoryRow:
    at: datetime  # local
    by_user: str
    from_state: AppointmentState | None
    to_state: AppointmentState
    from_slot: datetime | None  # local
    to_slot: datetime | None  # local
    reason: str | None


@dataclass(frozen=True)
class CampaignOpened:
    campaign: CampaignInfo
    appointments: int
    first_slot: datetime
    last_slot: datetime


@dataclass(frozen=True)
class AbsentRow:
    """One person who did not come, with what their absence supports (Art. 30, Grupo 1, I–II)."""

    appointment: AppointmentRow
    no_shows: tuple[rules.NoShow, ...]

    @property
    def infractions(self) -> tuple[rules.Infraction, ...]:
        return tuple(n.infraction for n in self.no_shows if n.supports_notice)

    @property
    def infraction_text(self) -> str:
        """``"Art. 30, Grupo 1, I: atestado médico … vencido em 16/12/2026"``; the still valid ones apart."""
        parts = []
        for n in self.no_shows:
            cert = n.certificate
            if n.supports_notice:
                when = f"vencido em {cert.shown_due()}" if cert.due else "sem registro no cadastro"
                parts.append(f"{n.infraction.article}: {cert.label.lower()} {when}")
        pending = [f"{n.certificate.label.lower()} válido até {n.certificate.shown_due()}" for n in self.no_shows
                   if not n.supports_notice]
        text = "; ".join(parts) if parts else "nenhuma ainda"
        return text + (f" (aguardando: {'; '.join(pending)})" if pending else "")


@dataclass(frozen=True)
class CampaignClosed:
    campaign: CampaignInfo
    marked_absent: int
    absent: list[AbsentRow]


@dataclass(frozen=True)
class CampaignProgress:
    campaign: CampaignInfo
    scheduled: int  # every appointment of the campaign
    attended: int
    missed: int
    pending: int  # agendado or reagendado
    today: int  # appointments of today (any state)

    @property
    def done_ratio(self) -> float:
        return (self.attended + self.missed) / self.scheduled if self.scheduled else 0.0


# --- encoding ----------------------------------------------------------------------------------------


def _encode_due(due: Sequence[DueCertificate]) -> str:
    return ";".join(f"{d.kind.value}:{d.due.isoformat() if d.due else ''}" for d in due)


def _decode_due(text: str) -> tuple[DueCertificate, ...]:
    out = []
    for part in filter(None, text.split(";")):
        kind, _, when = part.partition(":")
        out.append(DueCertificate(CertificateKind(kind), date.fromisoformat(when) if when else None))
    return tuple(out)


def _aware(local: datetime) -> datetime:
    return local.replace(tzinfo=LOCAL_TZ)


def _info(c: Campaign) -> CampaignInfo:
    return CampaignInfo(c.id, c.period_start, c.period_end, c.state, local_time(c.opened_at), c.opened_by,
                        local_time(c.closed_at) if c.closed_at else None, c.closed_by, c.version)


def _rows_query():  # noqa: ANN202
    return (select(CampaignAppointment, Person.full_name, Person.cpf, Person.phone, Permit.number,
                   Permit.service_type)
            .join(Person, Person.id == CampaignAppointment.person_id)
            .join(Permit, Permit.id == CampaignAppointment.permit_id))


def _row(a: CampaignAppointment, name: str, cpf: str, phone: str | None, number: str,
         service: ServiceType) -> AppointmentRow:
    return AppointmentRow(a.id, a.campaign_id, a.person_id, name, cpf, phone, a.role, a.permit_id, number, service,
                          _decode_due(a.due), local_time(a.slot_at), a.state, a.version)


def _load_campaign(s: Session, campaign_id: int, *, for_update: bool = False) -> Campaign:
    q = select(Campaign).where(Campaign.id == campaign_id)
    if for_update:
        q = q.with_for_update()
    campaign = s.scalars(q).first()
    if campaign is None:
        raise NotFoundError("Recadastramento não encontrado: pode ter sido excluído por outra estação.")
    return campaign


def _load_appointment(s: Session, appointment_id: int, version: int | None) -> CampaignAppointment:
    appointment = s.scalars(select(CampaignAppointment).where(CampaignAppointment.id == appointment_id)
                            .with_for_update()).first()
    if appointment is None:
        raise NotFoundError("Atendimento não encontrado.")
    if version is not None and appointment.version != version:
        raise ConflictError("Outra estação alterou este atendimento depois que você o abriu. Nada foi gravado: "
                            "recarregue a lista.")
    return appointment


def _refuse(verdict: rules.Verdict) -> RuleViolationError:
    return RuleViolationError([verdict])


# --- who falls due -------------------------------------------------------------------------------------


def _drivers(s: Session, today: date) -> list[rules.DriverFacts]:
    """Holders of a permit in force and the deputies linked to one, with the dates the campaign reads."""
    holders = select(Permit.person_id).where(Permit.state.in_(IN_FORCE))
    linked = select(DeputyLink.deputy_person_id).where(or_(DeputyLink.end_on.is_(None), DeputyLink.end_on >= today))
    medical = {pid: issued for pid, issued in s.execute(
        select(PersonDocument.person_id, PersonDocument.issue_date)
        .where(PersonDocument.kind == DocumentKind.MEDICAL,
               or_(PersonDocument.person_id.in_(holders), PersonDocument.person_id.in_(linked))))}
    out: list[rules.DriverFacts] = []
    permits = s.execute(select(Permit.id, Permit.number, Permit.service_type, Permit.person_id,
                               Permit.certificate_valid_until, Person.full_name)
                        .join(Person, Person.id == Permit.person_id)
                        .where(Permit.state.in_(IN_FORCE))).all()
    for p in permits:
        out.append(rules.DriverFacts(p.person_id, p.full_name, DriverRole.HOLDER, p.id, p.number, p.service_type,
                                     p.certificate_valid_until, medical.get(p.person_id)))
    deputies = s.execute(select(DeputyLink.deputy_person_id, Person.full_name, Permit.id, Permit.number,
                                Permit.service_type, Permit.certificate_valid_until)
                         .join(Permit, Permit.id == DeputyLink.permit_id)
                         .join(Person, Person.id == DeputyLink.deputy_person_id)
                         .where(Permit.state.in_(IN_FORCE), DeputyLink.revoked.is_(False),
                                or_(DeputyLink.end_on.is_(None), DeputyLink.end_on >= today))).all()
    for d in deputies:
        out.append(rules.DriverFacts(d.deputy_person_id, d.full_name, DriverRole.DEPUTY, d.id, d.number,
                                     d.service_type, d.certificate_valid_until, medical.get(d.deputy_person_id)))
    return out


@requires(*READERS)
def preview(ctx: AppContext, period_start: date, period_end: date) -> list[rules.Summons]:
    """Who a campaign for this period would call (nothing is written)."""
    settings = law_settings(ctx)
    with ctx.read() as s:
        return rules.who_falls_due(_drivers(s, local_today()), period_start, period_end, settings)


def _check_period(period_start: date | None, period_end: date | None, today: date) -> tuple[date, date]:
    errors: dict[str, str] = {}
    if period_start is None:
        errors["period_start"] = "Informe o primeiro dia."
    if period_end is None:
        errors["period_end"] = "Informe o último dia."
    if period_start and period_end:
        if period_end < period_start:
            errors["period_end"] = "O último dia é anterior ao primeiro."
        elif period_end < today:
            errors["period_end"] = "O período já terminou: escolha datas a partir de hoje."
        elif (period_end - period_start).days > 366:
            errors["period_end"] = "Um recadastramento anual dura no máximo um ano."
    if errors:
        raise InvalidInputError("Corrija o período do recadastramento.", errors)
    assert period_start is not None and period_end is not None
    return period_start, period_end


@requires(Role.SUPERVISOR)
def open_campaign(ctx: AppContext, period_start: date | None, period_end: date | None, *,
                  today: date | None = None, now: datetime | None = None) -> CampaignOpened:
    """Open the campaign and book every person called, in one transaction (all or nothing)."""
    today = today or local_today()
    now = now or datetime.now(UTC)
    start, end = _check_period(period_start, period_end, today)
    settings = law_settings(ctx)
    with ctx.write(_OPEN_MESSAGES) as s:
        if s.scalar(select(func.count()).select_from(Campaign).where(Campaign.state == "open")):
            raise MotodeskError(_OPEN_MESSAGES["uq_campaigns_one_open"], code="campaign.already_open")
        called = rules.who_falls_due(_drivers(s, today), start, end, settings)
        if not called:
            raise InvalidInputError(f"Ninguém tem certificado vencendo até {format_date(end)}: não há quem convocar.",
                                    {"period_end": "Ninguém a convocar neste período."})
        first_day = max(start, today + timedelta(days=1))  # letters need time to arrive: never today
        slots = rules.allocate_slots(len(called), first_day, end, settings)
        if len(slots) < len(called):
            room = rules.capacity(first_day, end, settings)
            raise InvalidInputError(
                f"O período comporta {room} atendimento(s) ({settings.campaign_slots_per_day} por dia útil), mas "
                f"{len(called)} pessoa(s) devem ser convocadas: amplie o período ou o número de atendimentos por dia "
                "nas configurações.", {"period_end": "Período curto demais para todos os convocados."})
        campaign = Campaign(period_start=start, period_end=end, state="open", opened_at=now, opened_by=ctx.user.login)
        s.add(campaign)
        s.flush()
        appointments = []
        for summons, slot in zip(called, slots, strict=True):
            f = summons.facts
            appointment = CampaignAppointment(campaign_id=campaign.id, person_id=f.person_id, role=f.role,
                                              permit_id=f.permit_id, due=_encode_due(summons.due),
                                              slot_at=_aware(slot), state=AppointmentState.SCHEDULED)
            appointments.append(appointment)
        s.add_all(appointments)
        s.flush()
        s.add_all([AppointmentEvent(appointment_id=a.id, at=now, by_user=ctx.user.login, from_state=None,
                                    to_state=AppointmentState.SCHEDULED.value, to_slot=a.slot_at,
                                    reason="Convocação do recadastramento") for a in appointments])
        s.flush()
        return CampaignOpened(_info(campaign), len(appointments), slots[0], slots[-1])


# --- reading ------------------------------------------------------------------------------------------


@requires(*READERS)
def list_campaigns(ctx: AppContext) -> list[CampaignInfo]:
    with ctx.read() as s:
        return [_info(c) for c in s.scalars(select(Campaign).order_by(Campaign.id.desc()))]


@requires(*READERS)
def current_campaign(ctx: AppContext) -> CampaignInfo | None:
    """The open campaign, else the last one closed; None before the first."""
    with ctx.read() as s:
        c = s.scalars(select(Campaign).order_by((Campaign.state == "open").desc(), Campaign.id.desc())
                      .limit(1)).first()
        return _info(c) if c else None


@requires(*READERS)
def get_campaign(ctx: AppContext, campaign_id: int) -> CampaignInfo:
    with ctx.read() as s:
        return _info(_load_campaign(s, campaign_id))


@requires(*READERS)
def list_appointments(ctx: AppContext, campaign_id: int, *, day: date | None = None,
                      states: Sequence[AppointmentState] | None = None, text: str = "") -> list[AppointmentRow]:
    """The campaign's appointments in slot order; ``day`` narrows to one local day, ``text`` to a name or CPF."""
    q = _rows_query().where(CampaignAppointment.campaign_id == campaign_id)
    if day is not None:
        begin = _aware(datetime.combine(day, datetime.min.time()))
        q = q.where(CampaignAppointment.slot_at >= begin, CampaignAppointment.slot_at < begin + timedelta(days=1))
    if states:
        q = q.where(CampaignAppointment.state.in_(list(states)))
    wanted = text.strip()
    if wanted:
        only_digits = "".join(c for c in wanted if c.isdigit())
        if only_digits and not any(c.isalpha() for c in wanted):
            q = q.where(Person.cpf.startswith(only_digits, autoescape=True))
        else:
            q = q.where(Person.name_search.contains(fold(wanted), autoescape=True))
    with ctx.read() as s:
        return [_row(*r) for r in s.execute(q.order_by(CampaignAppointment.slot_at, CampaignAppointment.id))]


@requires(*READERS)
def get_appointment(ctx: AppContext, appointment_id: int) -> AppointmentRow:
    with ctx.read() as s:
        r = s.execute(_rows_query().where(CampaignAppointment.id == appointment_id)).first()
        if r is None:
            raise NotFoundError("Atendimento não encontrado.")
        return _row(*r)


@requires(*READERS)
def appointment_history(ctx: AppContext, appointment_id: int) -> list[HistoryRow]:
    with ctx.read() as s:
        events = s.scalars(select(AppointmentEvent).where(AppointmentEvent.appointment_id == appointment_id)
                           .order_by(AppointmentEvent.id))
        return [HistoryRow(local_time(e.at), e.by_user,
                           AppointmentState(e.from_state) if e.from_state else None, AppointmentState(e.to_state),
                           local_time(e.from_slot) if e.from_slot else None,
                           local_time(e.to_slot) if e.to_slot else None, e.reason) for e in events]


# --- the counter ----------------------------------------------------------------------------------------


def _reason(reason: str) -> str | None:
    text = " ".join((reason or "").split())
    if len(text) > MAX_REASON:
        raise InvalidInputError(f"O motivo tem mais de {MAX_REASON} caracteres.", {"reason": "Motivo longo demais."})
    return text or None


@requires(*COUNTER)
def mark_attendance(ctx: AppContext, appointment_id: int, attended: bool, *, version: int | None = None,
                    reason: str = "", now: datetime | None = None) -> AppointmentRow:
    """Compareceu or faltou. Faltou only once the slot's time has come."""
    now = now or datetime.now(UTC)
    new = AppointmentState.ATTENDED if attended else AppointmentState.MISSED
    note = _reason(reason)
    with ctx.write() as s:
        a = _load_appointment(s, appointment_id, version)
        campaign = _load_campaign(s, a.campaign_id)
        verdict = rules.check_transition(a.state, new, campaign_open=campaign.state == "open")
        if verdict.status is not Status.MET:
            raise _refuse(verdict)
        if not attended and a.slot_at > now:
            raise InvalidInputError(f"O horário agendado ({local_time(a.slot_at):%d/%m/%Y %H:%M}) ainda não chegou: "
                                    "não se marca falta antes dele.", code="campaign.not_yet_time")
        s.add(AppointmentEvent(appointment_id=a.id, at=now, by_user=ctx.user.login, from_state=a.state.value,
                               to_state=new.value, from_slot=a.slot_at, to_slot=a.slot_at, reason=note))
        a.state, a.marked_at, a.marked_by = new, now, ctx.user.login
        s.flush()
    return get_appointment(ctx, appointment_id)


def _taken(s: Session, campaign_id: int, excluding: int | None = None) -> set[datetime]:
    q = select(CampaignAppointment.slot_at).where(CampaignAppointment.campaign_id == campaign_id)
    if excluding is not None:
        q = q.where(CampaignAppointment.id != excluding)
    return {local_time(t) for t in s.scalars(q)}


@requires(*COUNTER)
def free_slots(ctx: AppContext, campaign_id: int, *, after: datetime | None = None, limit: int = 20) -> list[datetime]:
    """The next free slots (local) of the campaign, from ``after`` (now by default)."""
    settings = law_settings(ctx)
    start = after or local_time(datetime.now(UTC))
    with ctx.read() as s:
        campaign = _load_campaign(s, campaign_id)
        taken = _taken(s, campaign_id)
    found = rules.allocate_slots(limit + settings.campaign_slots_per_day, max(start.date(), campaign.period_start),
                                 campaign.period_end,
                                 settings, taken)
    return [slot for slot in found if slot > start][:limit]


@requires(*COUNTER)
def reschedule(ctx: AppContext, appointment_id: int, new_slot: datetime | None = None, *,
               version: int | None = None, reason: str = "", now: datetime | None = None) -> AppointmentRow:
    """Move an appointment to ``new_slot`` (local), or to the next free slot; the old slot stays in the history."""
    now = now or datetime.now(UTC)
    settings = law_settings(ctx)
    note = _reason(reason)
    with ctx.write() as s:
        a = _load_appointment(s, appointment_id, version)
        campaign = _load_campaign(s, a.campaign_id, for_update=True)  # slots of one campaign: one writer at a time
        verdict = rules.check_transition(a.state, AppointmentState.RESCHEDULED, campaign_open=campaign.state == "open")
        if verdict.status is not Status.MET:
            raise _refuse(verdict)
        taken = _taken(s, campaign.id, excluding=a.id)
        current = local_time(now)
        if new_slot is None:
            candidates = [t for t in rules.allocate_slots(settings.campaign_slots_per_day + 1,
                                                          max(current.date(), campaign.period_start), campaign.period_end,
                                                          settings, taken) if t > current]
            if not candidates:
                raise InvalidInputError(f"Não há horário livre até {format_date(campaign.period_end)}, o fim do "
                                        "recadastramento.", {"slot": "Sem horário livre."})
            new_slot = candidates[0]
        new_slot = new_slot.replace(second=0, microsecond=0, tzinfo=None)
        problem = None
        if new_slot <= current:
            problem = "O novo horário já passou."
        elif not campaign.period_start <= new_slot.date() <= campaign.period_end:
            problem = (f"O novo horário está fora do recadastramento ({format_date(campaign.period_start)} a "
                       f"{format_date(campaign.period_end)}).")
        elif not rules.is_slot(new_slot, settings):
            problem = ("O novo horário não é um horário de atendimento: dia útil, dentro do horário do balcão e no "
                       f"início de um atendimento de {settings.campaign_slot_minutes} minutos.")
        elif new_slot in taken:
            problem = "Este horário já está ocupado por outra pessoa."
        if problem:
            raise InvalidInputError(problem, {"slot": problem})
        s.add(AppointmentEvent(appointment_id=a.id, at=now, by_user=ctx.user.login, from_state=a.state.value,
                               to_state=AppointmentState.RESCHEDULED.value, from_slot=a.slot_at,
                               to_slot=_aware(new_slot), reason=note))
        a.state, a.slot_at = AppointmentState.RESCHEDULED, _aware(new_slot)
        a.marked_at, a.marked_by = now, ctx.user.login
        s.flush()
    return get_appointment(ctx, appointment_id)


# --- closing --------------------------------------------------------------------------------------------


@requires(Role.SUPERVISOR)
def close_campaign(ctx: AppContext, campaign_id: int, *, version: int | None = None,
                   now: datetime | None = None) -> CampaignClosed:
    """Close the campaign: every appointment still pending becomes *faltou*; the absent are listed.

    Refused while an appointment still pending has its time ahead (nobody is marked absent in advance).
    """
    now = now or datetime.now(UTC)
    with ctx.write() as s:
        campaign = _load_campaign(s, campaign_id, for_update=True)
        if version is not None and campaign.version != version:
            raise ConflictError("Outra estação alterou este recadastramento. Recarregue a página.")
        if campaign.state != "open":
            raise MotodeskError("Este recadastramento já foi encerrado.", code="campaign.closed")
        pending = list(s.scalars(select(CampaignAppointment).where(
            CampaignAppointment.campaign_id == campaign.id,
            CampaignAppointment.state.in_([AppointmentState.SCHEDULED, AppointmentState.RESCHEDULED]))))
        ahead = sorted(a.slot_at for a in pending if a.slot_at > now)
        if ahead:
            raise InvalidInputError(
                f"Ainda há {len(ahead)} atendimento(s) por vir (o último em {local_time(ahead[-1]):%d/%m/%Y %H:%M}): "
                "marque ou reagende antes de encerrar.", code="campaign.appointments_ahead")
        for a in pending:
            s.add(AppointmentEvent(appointment_id=a.id, at=now, by_user=ctx.user.login, from_state=a.state.value,
                                   to_state=AppointmentState.MISSED.value, from_slot=a.slot_at, to_slot=a.slot_at,
                                   reason="Encerramento do recadastramento: não compareceu"))
            a.state, a.marked_at, a.marked_by = AppointmentState.MISSED, now, ctx.user.login
        campaign.state, campaign.closed_at, campaign.closed_by = "closed", now, ctx.user.login
        s.flush()
        info = _info(campaign)
    return CampaignClosed(info, len(pending), absent_list(ctx, campaign_id, on=local_time(now).date()))


@requires(*READERS)
def absent_list(ctx: AppContext, campaign_id: int, *, on: date | None = None) -> list[AbsentRow]:
    """Who did not come, each with the infraction of Art. 30, Grupo 1 (I medical, II registration) the
    absence supports on ``on`` (today by default)."""
    on = on or local_today()
    rows = list_appointments(ctx, campaign_id, states=[AppointmentState.MISSED])
    return [AbsentRow(r, tuple(rules.no_show_verdicts(r.state, r.due, on))) for r in rows]


def notice_input(row: AbsentRow, code: str, settings: LawSettings) -> NoticeInput:
    """What the notice form needs for this absent person and this infraction code (a NoticeInput)."""
    a = row.appointment
    no_show = next((n for n in row.no_shows if n.infraction.code == code and n.supports_notice), None)
    if no_show is None:
        raise InvalidInputError("A falta desta pessoa não sustenta esta infração (certificado ainda válido ou não "
                                "convocado para ele).")
    cert = no_show.certificate
    when = f"vencido em {cert.shown_due()}" if cert.due else "sem registro no cadastro"
    return NoticeInput(
        infraction_code=code,
        occurred_at=_aware(a.slot),
        place=settings.campaign_place,
        offender_kind=OffenderKind.HOLDER if a.role is DriverRole.HOLDER else OffenderKind.DEPUTY,
        person_id=a.person_id,
        permit_id=a.permit_id,
        description=(f"Convocado(a) ao recadastramento anual para {a.slot:%d/%m/%Y às %H:%M}, não compareceu; "
                     f"{cert.label.lower()} {when} não foi renovado ({cert.article})."),
        signature=Signature.ABSENT,
    )


@requires(Role.INSPECTOR, Role.SUPERVISOR)
def open_notice_for_absence(ctx: AppContext, appointment_id: int, code: str) -> NoticeCreated:
    """Lavrar the notice of infraction this absence supports (through the enforcement service, which
    numbers it and leaves the defence period to the later notification: the person is absent)."""
    with ctx.read() as s:
        campaign_id = s.scalar(select(CampaignAppointment.campaign_id).where(CampaignAppointment.id == appointment_id))
    if campaign_id is None:
        raise NotFoundError("Atendimento não encontrado.")
    row = next((r for r in absent_list(ctx, campaign_id) if r.appointment.id == appointment_id), None)
    if row is None:
        raise InvalidInputError("Esta pessoa não consta como ausente no recadastramento.")
    data = notice_input(row, code, law_settings(ctx))
    return enforcement.create_notice(ctx, data)


# --- progress (the dashboard) ------------------------------------------------------------------------------


@requires(*READERS)
def progress(ctx: AppContext, campaign_id: int | None = None, *, today: date | None = None) -> CampaignProgress | None:
    """Scheduled, attended, missed and pending of the campaign (the current one by default)."""
    today = today or local_today()
    with ctx.read() as s:
        if campaign_id is None:
            c = s.scalars(select(Campaign).order_by((Campaign.state == "open").desc(), Campaign.id.desc())
                          .limit(1)).first()
        else:
            c = _load_campaign(s, campaign_id)
        if c is None:
            return None
        counts = {state: int(n) for state, n in s.execute(
            select(CampaignAppointment.state, func.count()).where(CampaignAppointment.campaign_id == c.id)
            .group_by(CampaignAppointment.state))}
        begin = _aware(datetime.combine(today, datetime.min.time()))
        today_count = s.scalar(select(func.count()).select_from(CampaignAppointment).where(
            and_(CampaignAppointment.campaign_id == c.id, CampaignAppointment.slot_at >= begin,
                 CampaignAppointment.slot_at < begin + timedelta(days=1)))) or 0
        info = _info(c)
    pending = counts.get(AppointmentState.SCHEDULED, 0) + counts.get(AppointmentState.RESCHEDULED, 0)
    return CampaignProgress(info, sum(counts.values()), counts.get(AppointmentState.ATTENDED, 0),
                            counts.get(AppointmentState.MISSED, 0), pending, int(today_count))


# --- documents ---------------------------------------------------------------------------------------------

DOCUMENTS_TO_BRING = {
    CertificateKind.REGISTRATION: "Documento de identidade (RG) e CPF, e o certificado de registro cadastral atual",
    CertificateKind.MEDICAL: "Atestado médico de sanidade física e mental recente (Art. 5º, VII)",
}


def _new_documents_missing(s: Session, person_ids: set[int], settings: LawSettings
                           ) -> dict[int, list[tuple[documents_declared.DeclaredDocument, date]]]:
    """The documents added after the register was made (a transition start date is set, ``documents_declared``)
    that each person has not brought yet: the call letter asks for them."""
    added = [(d, start) for d in documents_declared.generic() if (start := settings.requirement_start(d.kind))]
    if not added or not person_ids:
        return {}
    has = {(pid, str(kind)) for pid, kind in s.execute(
        select(PersonDocument.person_id, PersonDocument.kind).where(
            PersonDocument.person_id.in_(person_ids),
            PersonDocument.kind.in_([DocumentKind(d.kind) for d, _ in added])))}
    return {pid: [(d, start) for d, start in added if (pid, d.kind) not in has] for pid in person_ids}


@requires(*COUNTER)
def call_letters(ctx: AppContext, campaign_id: int, appointment_ids: Sequence[int] | None = None, *,
                 today: date | None = None) -> bytes:
    """The call letters (one A4 page each, one PDF) of the campaign, or of the chosen appointments."""
    from motodesk.printing.documents import RenewalItem, RenewalLetterData, render_renewal_letters

    today = today or local_today()
    settings = law_settings(ctx)
    rows = list_appointments(ctx, campaign_id)
    if appointment_ids is not None:
        wanted = set(appointment_ids)
        rows = [r for r in rows if r.id in wanted]
    rows = [r for r in rows if r.state.pending]
    if not rows:
        raise InvalidInputError("Nenhum atendimento pendente para convocar.")
    with ctx.read() as s:
        campaign = _load_campaign(s, campaign_id)
        addresses = {p.id: _address_line(p.address, p.district, p.city, p.uf, p.zip_code) for p in s.execute(
            select(Person.id, Person.address, Person.district, Person.city, Person.uf, Person.zip_code)
            .where(Person.id.in_({r.person_id for r in rows})))}
        missing = _new_documents_missing(s, {r.person_id for r in rows}, settings)
    hours = join_words([f"das {a:%H:%M} às {b:%H:%M}" for a, b in opening_windows(settings.campaign_opening_hours)])
    letters = []
    for r in rows:
        items = [RenewalItem(d.label, d.article, d.due) for d in r.due if d.due is not None]
        items += [RenewalItem(f"{d.label} (sem registro no cadastro)", d.article, campaign.period_end)
                  for d in r.due if d.due is None]
        items += [RenewalItem(f"Apresentar: {doc.label} (exigido a partir de {format_date(start)})", doc.article,
                              start) for doc, start in missing.get(r.person_id, [])]
        who = "" if r.role is DriverRole.HOLDER else " – preposto"
        letters.append(RenewalLetterData(
            holder_name=r.name + who, permit_number=r.permit_number, service=r.service, letter_date=today,
            deadline=campaign.period_end, items=items, place=settings.campaign_place,
            holder_address=addresses.get(r.person_id, ""), opening_hours=f"dias úteis, {hours}",
            appointment=r.slot, documents_to_bring=[DOCUMENTS_TO_BRING[d.kind] for d in r.due] + [
                doc.to_bring or doc.label for doc, _ in missing.get(r.person_id, [])],
            signatory_name=ctx.user.full_name,
        ))
    return render_renewal_letters(letters)


SCHEDULE_COLUMNS = (
    ("slot", "Data e hora", "datetime"),
    ("name", "Nome", "text"),
    ("cpf", "CPF", "text"),
    ("role", "Condição", "text"),
    ("permit", "Permissão/autorização", "text"),
    ("service", "Serviço", "text"),
    ("due", "Vence", "text"),
    ("phone", "Telefone", "text"),
    ("state", "Situação", "text"),
)


@requires(*COUNTER)
def export_schedule(ctx: AppContext, campaign_id: int, path: str | os.PathLike[str]) -> int:
    """The schedule as an xlsx sheet (the house's layout: title, headers, typed cells); the number of rows."""
    from motodesk.exports.xlsx import Column, SheetSpec, write_workbook

    info = get_campaign(ctx, campaign_id)
    rows = list_appointments(ctx, campaign_id)
    spec = SheetSpec(f"{info.label} – agenda do balcão", "Agenda",
                     [Column(key, header, kind, width=40 if key in ("due", "name") else None)  # type: ignore[arg-type]
                      for key, header, kind in SCHEDULE_COLUMNS])
    data = [{"slot": r.slot, "name": r.name, "cpf": r.masked_cpf, "role": r.role.label, "permit": r.permit_number,
             "service": r.service.label, "due": r.due_text, "phone": r.phone or "", "state": r.state.label}
            for r in rows]
    return write_workbook(Path(path), [(spec, data)], exported_by=ctx.user.full_name,
                          exported_at=local_time(datetime.now(UTC)))
