"""Deputies (prepostos, Art. 14): nomination in writing, the same requirements as the holder, the work
schedule of holder and deputy, and the end of the link with its 15-day deregistration deadline.

- **Nomination** (:func:`nominate_deputy`): the holder of a permit in force nominates one deputy at a
  time (Art. 14, caput), in writing — the signed nomination is attached to the link (§ 1º) — and the
  deputy's stored dossier is judged by :func:`motodesk.rules.eligibility.check_deputy`, the holder's
  own rules (§ 2º), on the nomination date. "One at a time" is a partial unique index on
  ``deputy_links`` (one link without ``end_on`` per permit): two workstations nominating at the same
  instant cannot both succeed.
- **Schedule** (:func:`set_work_schedule`, :func:`work_schedule_pdf`): days and hours of holder and
  deputy, filed with the secretariat (§ 3º). One vehicle per holder (Art. 6º, § 2º) and only holder
  and deputy drive it (Art. 11), so two shifts never overlap, whoever drives them.
- **End** (:func:`end_deputy_link`): the date the link ended and why; the holder has 15 days from it to
  deregister the deputy (Art. 31, Grupo 1, I), which the deadlines view lists. A permit that leaves
  force ends its link in :mod:`motodesk.services.permits`.
- **Badge**: :func:`motodesk.services.badges.print_badges` with ``BadgeRequest(permit_id, deputy=True)``;
  the deputy's badge verifies only while the link is open and the permit is active.

Roles: the counter receives the nomination and the schedule and records the end of the link, so clerks
and supervisors (the dossier's editors) may do all of it; everyone who reads permits may read deputies.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time

from sqlalchemy import select
from sqlalchemy.orm import Session

from motodesk.models import DeputyLink, InfractionNotice, Permit, PermitEvent, Person, Vehicle
from motodesk.rules.common import PermitState, ServiceType, Verdict
from motodesk.rules.deadlines import deputy_deregistration_due
from motodesk.rules.deputies import (
    check_deputy_step,
    check_link_end,
    check_no_deputy_cassation,
    check_nomination,
    holder_keeps_hours,
    one_deputy_at_a_time,
    suspension_runs_until,
)
from motodesk.rules.eligibility import blocking, check_deputy
from motodesk.rules.penalty_evidence import check_notice_basis
from motodesk.rules.text import format_date
from motodesk.rules.validators import format_cpf, format_plate
from motodesk.services.attachments import (
    AttachmentInfo,
    attachment_info,
    check_content,
    list_attachments,
    store_attachment,
)
from motodesk.services.clock import local_today
from motodesk.services.context import EDITORS, READERS, AppContext, CurrentUser, current_row, requires
from motodesk.services.errors import (
    InvalidInputError,
    MotodeskError,
    NotFoundError,
    RuleViolationError,
)
from motodesk.services.evidence import notice_evidence
from motodesk.services.facts import person_facts
from motodesk.services.judged import judged
from motodesk.services.refusals import check_period_end
from motodesk.services.settings import law_settings

OWNER_TABLE = "deputy_links"
DRIVERS = {"titular": "Titular", "preposto": "Preposto(a)"}
WEEKDAY_NAMES = ("segunda-feira", "terça-feira", "quarta-feira", "quinta-feira", "sexta-feira", "sábado",
                 "domingo")
MAX_SHIFTS = 60
MAX_REASON = 2000
MINUTES_PER_WEEK = 7 * 24 * 60

_ONE_DEPUTY = ("Art. 14: o titular indica um preposto; já há preposto vinculado a esta permissão. "
               "Encerre o vínculo atual antes de indicar outro.")
_INTEGRITY = {
    "uq_deputy_links_active_permit": _ONE_DEPUTY,
    "cols:deputy_links.permit_id": _ONE_DEPUTY,
    "ends_after_start": "O fim do vínculo não pode ser anterior ao seu início.",
}


# --- the schedule -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shift:
    """One period of the week when ``driver`` (titular or preposto) works with the vehicle.

    ``end`` earlier than or equal to ``start`` means the shift ends the next day (22:00 – 06:00).
    """

    weekday: int  # 0 = segunda-feira … 6 = domingo, as date.weekday()
    start: time
    end: time
    driver: str  # "titular" | "preposto"

    @property
    def minutes(self) -> int:
        length = (self.end.hour * 60 + self.end.minute) - (self.start.hour * 60 + self.start.minute)
        return length if length > 0 else length + 24 * 60

    @property
    def label(self) -> str:
        text = f"{self.start:%H:%M} – {self.end:%H:%M}"
        return text + " (dia seguinte)" if self.end <= self.start else text

    def describe(self) -> str:
        return f"{WEEKDAY_NAMES[self.weekday]}, {self.label} ({DRIVERS[self.driver].lower()})"

    def _span(self) -> tuple[int, int]:
        start = self.weekday * 24 * 60 + self.start.hour * 60 + self.start.minute
        return start, start + self.minutes


def _overlap(a: Shift, b: Shift) -> bool:
    """Whether two shifts share a minute of the week (Sunday night runs into Monday)."""
    a0, a1 = a._span()
    b0, b1 = b._span()
    return any(a0 < b1 + k and b0 + k < a1 for k in (-MINUTES_PER_WEEK, 0, MINUTES_PER_WEEK))


def validate_schedule(shifts: Sequence[Shift]) -> list[Shift]:
    """The shifts sorted by week time, or InvalidInputError with every problem in pt_BR.

    A shift must have a length, and no two shifts may overlap: the holder has one vehicle (Art. 6º,
    § 2º) and only the holder and the deputy drive it (Art. 11).  A schedule that gives the deputy
    hours must give the holder some too (:func:`motodesk.rules.deputies.holder_keeps_hours`).
    """
    problems: list[str] = []
    if len(shifts) > MAX_SHIFTS:
        raise InvalidInputError(f"A escala tem {len(shifts)} turnos; o máximo é {MAX_SHIFTS}.")
    for n, shift in enumerate(shifts, 1):
        if not isinstance(shift.weekday, int) or not 0 <= shift.weekday <= 6:
            problems.append(f"Turno {n}: dia da semana inválido.")
        elif shift.driver not in DRIVERS:
            problems.append(f"Turno {n}: o condutor deve ser o titular ou o preposto.")
        elif shift.start == shift.end:
            problems.append(f"Turno {n} ({WEEKDAY_NAMES[shift.weekday]}): o início e o fim são iguais.")
        elif shift.start.second or shift.end.second or shift.start.microsecond or shift.end.microsecond:
            problems.append(f"Turno {n}: informe os horários em horas e minutos.")
    if problems:
        raise InvalidInputError("A escala tem turnos inválidos:\n" + "\n".join(problems),
                                {"schedule": problems[0]})
    ordered = sorted(shifts, key=lambda sh: (sh._span()[0], sh.driver))
    for i, a in enumerate(ordered):
        for b in ordered[i + 1:]:
            if _overlap(a, b):
                if a.driver == b.driver:
                    problems.append(f"Turnos sobrepostos: {a.describe()} e {b.describe()}.")
                else:
                    problems.append(f"Art. 11 e Art. 6º, § 2º: titular e preposto dividem um só veículo e não "
                                    f"podem estar escalados ao mesmo tempo: {a.describe()} e {b.describe()}.")
    if problems:
        raise InvalidInputError("A escala tem turnos sobrepostos:\n" + "\n".join(problems),
                                {"schedule": problems[0]})
    totals = weekly_minutes(ordered)
    refusal = holder_keeps_hours(totals["titular"], totals["preposto"])
    if refusal is not None:
        raise InvalidInputError(refusal.message, {"schedule": refusal.message})
    return ordered


def weekly_minutes(shifts: Sequence[Shift]) -> dict[str, int]:
    """Minutes a week of each driver: {"titular": …, "preposto": …}."""
    totals = dict.fromkeys(DRIVERS, 0)
    for shift in shifts:
        totals[shift.driver] += shift.minutes
    return totals


def format_hours(minutes: int) -> str:
    """``450`` → ``"7h30"``; ``480`` → ``"8h"``."""
    hours, rest = divmod(minutes, 60)
    return f"{hours}h{rest:02d}" if rest else f"{hours}h"


def _schedule_json(shifts: Sequence[Shift]) -> str | None:
    if not shifts:
        return None
    return json.dumps([{"weekday": sh.weekday, "start": f"{sh.start:%H:%M}", "end": f"{sh.end:%H:%M}",
                        "driver": sh.driver} for sh in shifts], ensure_ascii=False)


def _parse_schedule(raw: str | None) -> list[Shift]:
    if not raw:
        return []
    try:
        items = json.loads(raw)
        return [Shift(int(i["weekday"]), time.fromisoformat(i["start"]), time.fromisoformat(i["end"]),
                      str(i["driver"])) for i in items]
    except (ValueError, KeyError, TypeError):
        return []  # an unreadable schedule shows as none; saving a new one replaces it


# --- reading ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class DeputyInfo:
    """A deputy link as the screens show it."""

    link_id: int
    version: int
    permit_id: int
    permit_number: str
    service: ServiceType
    permit_state: PermitState
    holder_name: str
    deputy_person_id: int
    deputy_name: str
    deputy_cpf: str
    start_on: date
    end_on: date | None
    end_reason: str | None
    badge_issue_no: int
    schedule: list[Shift]
    nomination: list[AttachmentInfo]
    deregistration_due: date | None  # Art. 31, Grupo 1, I: end + 15 days
    suspended_until: date | None = None  # a penalty of the deputy (Art. 34, III)
    revoked: bool = False  # cassação of the deputy (Art. 34, IV): the link ended with it

    @property
    def active(self) -> bool:
        return self.end_on is None

    @property
    def weekly_minutes(self) -> dict[str, int]:
        return weekly_minutes(self.schedule)


def _deputy_info(link: DeputyLink, permit: Permit, holder: Person, deputy: Person,
                 nomination: list[AttachmentInfo], due: date | None) -> DeputyInfo:
    return DeputyInfo(link.id, link.version, permit.id, permit.number, permit.service_type, permit.state,
                      holder.full_name, deputy.id, deputy.full_name, deputy.cpf, link.start_on, link.end_on,
                      link.end_reason, link.badge_issue_no, _parse_schedule(link.schedule), nomination, due,
                      link.suspended_until, link.revoked)


@requires(*READERS)
def deputy_history(ctx: AppContext, permit_id: int) -> list[DeputyInfo]:
    """Every deputy of a permit, the current one (if any) first, then the past ones newest first."""
    settings = law_settings(ctx)
    with ctx.read() as s:
        permit = current_row(s, Permit, permit_id, None, "Permissão não encontrada.")
        holder = s.get(Person, permit.person_id)
        assert holder is not None
        rows = s.execute(select(DeputyLink, Person).join(Person, Person.id == DeputyLink.deputy_person_id)
                         .where(DeputyLink.permit_id == permit_id)
                         .order_by(DeputyLink.end_on.is_not(None), DeputyLink.start_on.desc(),
                                   DeputyLink.id.desc())).all()
    attachments: dict[int, list[AttachmentInfo]] = {}
    for info in list_attachments(ctx, OWNER_TABLE, [link.id for link, _p in rows]):
        attachments.setdefault(info.owner_id, []).append(info)
    return [_deputy_info(link, permit, holder, person, attachments.get(link.id, []),
                         deputy_deregistration_due(link.end_on, settings).due if link.end_on else None)
            for link, person in rows]


@requires(*READERS)
def current_deputy(ctx: AppContext, permit_id: int) -> DeputyInfo | None:
    """The permit's deputy while the link is open, else None."""
    history = deputy_history(ctx, permit_id)
    return history[0] if history and history[0].active else None


@requires(*READERS)
def deputy_verdicts(ctx: AppContext, person_id: int, service: ServiceType, *, on: date | None = None) -> list[Verdict]:
    """The deputy's stored dossier judged by the holder's rules (Art. 14, § 2º) on ``on``.

    The same evidence :func:`motodesk.services.people.check_dossier` reads — the stored dossier and
    the newest photo — judged by :func:`~motodesk.rules.eligibility.check_deputy`.
    """
    with ctx.read() as s:
        if s.get(Person, person_id) is None:
            raise NotFoundError("Pessoa não encontrada: ela pode ter sido removida por outra estação.")
        facts = person_facts(s, person_id)
    return check_deputy(facts.dossier, service, on or local_today(), law_settings(ctx))


# --- nomination -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Nominated:
    link_id: int
    version: int
    start_on: date
    nomination: AttachmentInfo


def _check_permit(permit: Permit | None, deputy_person_id: int, on: date, today: date) -> Permit:
    if permit is None:
        raise NotFoundError("Permissão não encontrada: ela pode ter sido removida por outra estação.")
    refused = check_nomination(permit.service_type, permit.number, permit.state,
                               holder_is_deputy=permit.person_id == deputy_person_id)
    if refused:
        raise RuleViolationError(refused)
    if on > today:
        raise InvalidInputError(f"A data da indicação ({format_date(on)}) é posterior a hoje.",
                                {"start_on": "Data no futuro."})
    if on < permit.issued_on:
        raise InvalidInputError(f"A data da indicação ({format_date(on)}) é anterior à emissão de "
                                f"{permit.number} ({format_date(permit.issued_on)}).", {"start_on": "Data inválida."})
    return permit


def _active_link(s: Session, permit_id: int) -> tuple[DeputyLink, str] | None:
    row = s.execute(select(DeputyLink, Person.full_name).join(Person, Person.id == DeputyLink.deputy_person_id)
                    .where(DeputyLink.permit_id == permit_id, DeputyLink.end_on.is_(None))).first()
    return (row[0], row[1]) if row else None


def _revoked_links(s: Session, deputy_person_id: int) -> list[str]:
    """Numbers of the permits whose link with this person ended in his cassação (Art. 34, IV)."""
    return list(s.scalars(select(Permit.number).join(DeputyLink, DeputyLink.permit_id == Permit.id)
                          .where(DeputyLink.deputy_person_id == deputy_person_id, DeputyLink.revoked.is_(True))
                          .order_by(Permit.number)))


def _refuse_second(link: DeputyLink, name: str) -> RuleViolationError:
    return RuleViolationError([one_deputy_at_a_time(name, format_date(link.start_on))])


@requires(*EDITORS)
def nominate_deputy(ctx: AppContext, permit_id: int, deputy_person_id: int,
                    nomination_file: tuple[bytes, str] | None, schedule: Sequence[Shift] | None = None, *,
                    on: date | None = None) -> Nominated:
    """Link ``deputy_person_id`` as the deputy of the permit from ``on`` (today by default).

    ``nomination_file`` is the written nomination (bytes, file name), Art. 14, § 1º: a scan checked by
    content like every attachment and stored with the link. The deputy's dossier must meet every
    requirement of the holder on ``on`` (Art. 14, § 2º): otherwise :class:`RuleViolationError` carries
    the verdicts that block. ``schedule`` may be given now or later (:func:`set_work_schedule`).
    """
    today = local_today()
    on = on or today
    if not nomination_file or not nomination_file[0]:
        raise InvalidInputError("Art. 14, § 1º: a indicação do preposto é feita por escrito; anexe o documento "
                                "de indicação assinado pelo titular.", {"nomination": "Anexe a indicação."})
    data, filename = nomination_file
    media_type = check_content(filename, data)
    shifts = validate_schedule(schedule or [])

    with ctx.read() as s:
        permit = _check_permit(s.get(Permit, permit_id), deputy_person_id, on, today)
        service = permit.service_type
        if s.get(Person, deputy_person_id) is None:
            raise NotFoundError("O preposto indicado não está cadastrado: cadastre o seu dossiê em Pessoas.")
        current = _active_link(s, permit_id)
        if current is not None:
            raise _refuse_second(*current)
        cassado = check_no_deputy_cassation(_revoked_links(s, deputy_person_id))
        if cassado:
            raise RuleViolationError(cassado, "O preposto não pode ser aceito:")
    not_met = blocking(deputy_verdicts(ctx, deputy_person_id, service, on=on))
    if not_met:
        raise RuleViolationError(not_met, "O preposto não pode ser aceito: deve cumprir as mesmas exigências do "
                                          "titular (Art. 14, § 2º).")

    with ctx.write(_INTEGRITY) as s:
        permit = _check_permit(s.get(Permit, permit_id), deputy_person_id, on, today)  # it may have changed
        current = _active_link(s, permit_id)
        if current is not None:
            raise _refuse_second(*current)
        revoked = _revoked_links(s, deputy_person_id)
        # Art. 14, § 2º is judged again here, in the transaction that writes the link.
        deputy = person_facts(s, deputy_person_id)
        accepted = [*check_no_deputy_cassation(revoked),
                    *blocking(check_deputy(deputy.dossier, service, on, law_settings(ctx)))]
        with judged(s, accepted, DeputyLink, intro="O preposto não pode ser aceito:"):
            link = DeputyLink(permit_id=permit_id, deputy_person_id=deputy_person_id, start_on=on,
                              schedule=_schedule_json(shifts), badge_issue_no=0)
            s.add(link)
        attachment = store_attachment(s, ctx, OWNER_TABLE, link.id, filename, data, media_type)
        return Nominated(link.id, link.version, on, attachment_info(attachment))


# --- schedule and end -------------------------------------------------------------------------


def _load_link(s: Session, link_id: int, expected_version: int | None) -> DeputyLink:
    return current_row(s, DeputyLink, link_id, expected_version, "Vínculo de preposto não encontrado.")


@requires(*EDITORS)
def set_work_schedule(ctx: AppContext, link_id: int, shifts: Sequence[Shift], *,
                      expected_version: int | None = None) -> int:
    """Record the schedule of holder and deputy (Art. 14, § 3º); returns the link's new version."""
    ordered = validate_schedule(shifts)
    with ctx.write(_INTEGRITY) as s:
        link = _load_link(s, link_id, expected_version)
        if link.end_on is not None:
            raise MotodeskError(f"O vínculo deste preposto terminou em {format_date(link.end_on)}; "
                                "a escala não pode mais ser alterada.", code="deputy.link_ended")
        link.schedule = _schedule_json(ordered)
        s.flush()
        return link.version


@dataclass(frozen=True)
class EndedLink:
    link_id: int
    end_on: date
    deregistration_due: date  # Art. 31, Grupo 1, I
    recorded_late: bool  # recorded after the 15 days

    @property
    def notice(self) -> str:
        due = format_date(self.deregistration_due)
        if self.recorded_late:
            return (f"Baixa registrada fora do prazo de 15 dias, encerrado em {due} (Art. 31, Grupo 1, I: "
                    "infração leve do titular).")
        return f"Baixa registrada dentro do prazo de 15 dias ({due}; Art. 31, Grupo 1, I)."


@requires(*EDITORS)
def end_deputy_link(ctx: AppContext, link_id: int, end_on: date | None, reason: str, *,
                    expected_version: int | None = None) -> EndedLink:
    """The link ended on ``end_on`` (today by default) for ``reason``: the deputy's badge stops verifying,
    and the deregistration deadline (end + 15 days, Art. 31, Grupo 1, I) is the one the holder kept or
    missed. Recording it is the deregistration (baixa) itself."""
    today = local_today()
    end_on = end_on or today
    reason = " ".join((reason or "").split())
    if len(reason) < 3:
        raise InvalidInputError("Informe o motivo do fim do vínculo.", {"reason": "Informe o motivo."})
    if len(reason) > MAX_REASON:
        raise InvalidInputError(f"O motivo é longo demais (até {MAX_REASON} caracteres).", {"reason": "Longo demais."})
    if end_on > today:
        raise InvalidInputError(f"O fim do vínculo ({format_date(end_on)}) é posterior a hoje: registre-o quando "
                                "acontecer.", {"end_on": "Data no futuro."})
    settings = law_settings(ctx)
    with ctx.write(_INTEGRITY) as s:
        link = _load_link(s, link_id, expected_version)
        check_period_end(link.start_on, link.end_on, end_on, code="deputy.link_ended",
                         ended="O vínculo deste preposto já terminou em {end}.",
                         early="O fim do vínculo ({on}) é anterior ao seu início ({start}).",
                         field="end_on", short="Anterior ao início.")
        with judged(s, check_link_end(format_date(link.start_on), format_date(end_on), end_on >= link.start_on),
                    DeputyLink.end_on):
            link.end_on = end_on
            link.end_reason = reason
    due = deputy_deregistration_due(end_on, settings).due
    return EndedLink(link_id, end_on, due, today > due)


# --- the printable schedule ---------------------------------------------------------------------


@requires(*READERS)
def work_schedule_pdf(ctx: AppContext, link_id: int, *, signed_on: date | None = None) -> bytes:
    """The escala of holder and deputy as an A4 PDF to sign and file (Art. 14, § 3º).

    A link without a schedule prints an empty table, to be filled in by hand at the counter.
    """
    # reportlab is imported here, not at the top: the day's calendar imports this module at
    # start-up (issue 20, target 4).
    from motodesk.printing.documents import PersonInfo, WorkScheduleData, WorkShift, render_work_schedule

    with ctx.read() as s:
        link = current_row(s, DeputyLink, link_id, None, "Vínculo de preposto não encontrado.")
        permit = s.get(Permit, link.permit_id)
        assert permit is not None
        holder = s.get(Person, permit.person_id)
        deputy = s.get(Person, link.deputy_person_id)
        assert holder is not None and deputy is not None
        plate = s.scalar(select(Vehicle.plate).where(Vehicle.id == permit.vehicle_id)) if permit.vehicle_id else None
        data = WorkScheduleData(
            permit_number=permit.number,
            service=permit.service_type,
            holder=PersonInfo(name=holder.full_name, cpf=format_cpf(holder.cpf)),
            deputy=PersonInfo(name=deputy.full_name, cpf=format_cpf(deputy.cpf)),
            plate=format_plate(plate) if plate else "—",
            shifts=[WorkShift(sh.weekday, sh.start, sh.end, sh.driver)  # type: ignore[arg-type]
                    for sh in _parse_schedule(link.schedule)],
            valid_from=link.start_on,
            notes=_totals_note(_parse_schedule(link.schedule)),
            signed_on=signed_on,
        )
    return render_work_schedule(data)


def _totals_note(shifts: Sequence[Shift]) -> str:
    if not shifts:
        return ""
    totals = weekly_minutes(shifts)
    return (f"Horas por semana: titular {format_hours(totals['titular'])}; "
            f"preposto(a) {format_hours(totals['preposto'])}.")


# --- the link's state under a penalty (Art. 34, III–IV: "do condutor auxiliar") -------------------
#
# Session steps of the enforcement process: a decided notice against the deputy suspends the link until
# a date or, for cassação, ends it. No role check, no commit; each step is also written in the holder's
# permit history. The calendar lifts a suspension whose days are over.


def _deputy_event(s: Session, user: CurrentUser, link: DeputyLink, name: str, reason: str) -> None:
    permit = s.get(Permit, link.permit_id)
    assert permit is not None
    s.add(PermitEvent(permit_id=permit.id, transition=name, from_state=permit.state.value,
                      to_state=permit.state.value, at=datetime.now(UTC), by_user=user.login, reason=reason))


def _deputy_verdicts(s: Session, step: str, link: DeputyLink, on: date, *, until: date | None = None,
                     notice: InfractionNotice | None = None) -> list[Verdict]:
    """The rules on a penalty step of the deputy: the link's state, and the notice as the register holds it."""
    current = link.suspended_until if (link.suspended_until is not None and link.suspended_until > on) else None
    found = check_deputy_step(
        step, end_on=format_date(link.end_on) if link.end_on else None,
        suspended_until=(format_date(link.suspended_until) if step == "reinstate" and link.suspended_until
                         else (format_date(current) if current else None)),
        on_text=format_date(on), until_text=format_date(until) if until else None,
        until_after_on=until is None or until > on)
    if found:
        return found
    early = step == "reinstate" and link.suspended_until is not None and on < link.suspended_until
    if step in ("suspend", "revoke") or early:
        if early and notice is None and link.suspended_until is not None:
            return [suspension_runs_until(format_date(link.suspended_until))]
        found = check_notice_basis(step, notice_evidence(s, notice), permit_id=link.permit_id,
                                   offender_kind="deputy", person_id=link.deputy_person_id)
    return found


def apply_deputy_suspend(s: Session, user: CurrentUser, link: DeputyLink, until: date, *,
                         notice: InfractionNotice, reason: str, on: date) -> None:
    """Suspend the deputy's link until ``until`` for the decided ``notice`` against him (Art. 34, III)."""
    with judged(s, _deputy_verdicts(s, "suspend", link, on, until=until, notice=notice), DeputyLink.suspended_until):
        link.suspended_until = until
    _deputy_event(s, user, link, "deputy_suspend", f"{reason} (até {format_date(until)})")


def apply_deputy_reinstate(s: Session, user: CurrentUser, link: DeputyLink, *, reason: str, on: date,
                           notice: InfractionNotice | None = None) -> None:
    """End the deputy's suspension: its days are over, or the appeal decision of ``notice`` ends it."""
    with judged(s, _deputy_verdicts(s, "reinstate", link, on, notice=notice), DeputyLink.suspended_until):
        link.suspended_until = None
    _deputy_event(s, user, link, "deputy_reinstate", reason)


def apply_deputy_revoke(s: Session, user: CurrentUser, link: DeputyLink, *, notice: InfractionNotice, reason: str,
                        on: date) -> None:
    """Cassação of the deputy for the decided ``notice`` (Art. 34, IV): the link ends today, for good."""
    with judged(s, _deputy_verdicts(s, "revoke", link, on, notice=notice),
                DeputyLink.end_on, DeputyLink.suspended_until, DeputyLink.revoked):
        link.end_on = max(on, link.start_on)
        link.end_reason = reason
        link.suspended_until = None
        link.revoked = True
    _deputy_event(s, user, link, "deputy_revoke", reason)


def lift_ended_deputy_suspensions(ctx: AppContext, on: date) -> list[str]:
    """The calendar's step for deputies: lift every suspension whose last day is before ``on``.

    Returns "MT-0007/2026 (preposto)" for each one, one transaction per link.
    """
    with ctx.read() as s:
        due = list(s.execute(select(DeputyLink.id, Permit.number).join(Permit, Permit.id == DeputyLink.permit_id)
                             .where(DeputyLink.suspended_until.is_not(None), DeputyLink.suspended_until <= on,
                                    DeputyLink.end_on.is_(None)).order_by(DeputyLink.id)).all())
    lifted: list[str] = []
    for link_id, number in due:
        with ctx.write() as s:
            link = s.get(DeputyLink, link_id)
            if link is not None and link.suspended_until is not None and link.suspended_until <= on:
                apply_deputy_reinstate(s, ctx.user, link, reason="Fim do prazo da suspensão do preposto", on=on)
                lifted.append(f"{number} (preposto)")
    return lifted
