"""Reading notices: the list, one notice, an offender's record, the deadlines of open processes."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from datetime import date
from typing import Any

from sqlalchemy import Select, func, or_, select
from sqlalchemy.orm import Session

from motodesk.models import (
    Attachment,
    Decision,
    InfractionNotice,
    Organisation,
    Permit,
    Person,
)
from motodesk.rules.deadlines import Deadline, appeal_due, days_until_due, defence_due
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
    ALL_INFRACTIONS,
    Penalty,
    Severity,
    find_infractions,
    infraction_by_code,
    is_repeat_offence,
)
from motodesk.rules.settings import LawSettings
from motodesk.rules.validators import format_plate
from motodesk.services.clock import local_time, local_today
from motodesk.services.context import READERS, AppContext, requires
from motodesk.services.enforcement._common import (
    DEFENCE_OWNER,
    AttachmentRef,
    DecisionView,
    FiledView,
    NoticeRow,
    NoticeView,
    ProcessDeadline,
    RepeatOffence,
    _load_notice,
    _plate_forms,
    describe_penalty,
)
from motodesk.services.settings import law_settings
from motodesk.services.text import LIKE_ESCAPE, contains_pattern, digits, fold, prefix_pattern, search_text

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
        defence_due=notice.defence_due, appeal_due=notice.appeal_due if first else None,
        penalty_summary=summary, inspector_name=notice.inspector_name, vehicle_seized=notice.vehicle_seized,
        organisation_id=notice.organisation_id,
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
        conditions.append(InfractionNotice.organisation_id.in_(  # an employer's notices by its CNPJ (Art. 25)
            select(Organisation.id).where(Organisation.cnpj.like(prefix_pattern(number), escape=LIKE_ESCAPE))))
    codes = [item.code for item in find_infractions(text, ALL_INFRACTIONS)] if len(text) >= 2 else []
    if codes and len(codes) < len(ALL_INFRACTIONS):
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
    if notice.organisation_id is not None:  # an employer's earlier notices (Art. 25)
        conditions.append(InfractionNotice.organisation_id == notice.organisation_id)
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


def _decision_view(d: Decision, target: Target = Target.PERMIT) -> DecisionView:
    return DecisionView(
        id=d.id, stage=Stage(d.stage), outcome=Outcome(d.outcome), decided_at=d.decided_at,
        decided_by=d.decided_by, severity=Severity(d.severity) if d.severity else None,
        reclassification_reason=d.reclassification_reason, penalty=Penalty(d.penalty) if d.penalty else None,
        fine_ufm=d.fine_ufm, ufm_value_brl=d.ufm_value_brl, fine_brl=d.fine_brl,
        suspension_days=d.suspension_days, suspension_start=d.suspension_start,
        suspension_end=d.suspension_end, grounds=d.grounds, appeal_due=d.appeal_due,
        permit_effect=PermitEffect(d.permit_effect) if d.permit_effect else None, target=target,
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
                      late=(d.stage == "defence" and not d.waived and notice.defence_due is not None
                            and d.received_on > notice.defence_due),
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
            appeal_due=notice.appeal_due if first else None, closed_at=notice.closed_at, closed_by=notice.closed_by,
            filed=filed, decisions=[_decision_view(d, target_of(OffenderKind(notice.offender_kind))) for d in notice.decisions],
            repeat=_repeat(s, notice, settings),
            notification_method=(NotificationMethod(notice.notification_method)
                                 if notice.notification_method else None),
            notification_reference=notice.notification_reference,
            written_on=local_time(notice.created_at).date(),
            decision_notified_on=notice.decision_notified_on,
            decision_notification_method=(NotificationMethod(notice.decision_notification_method)
                                          if notice.decision_notification_method else None),
            decision_notification_reference=notice.decision_notification_reference,
            organisation_id=notice.organisation_id,
        )


@requires(*READERS)
def offender_history(ctx: AppContext, *, person_id: int | None = None, cpf: str | None = None,
                     plate: str | None = None, organisation_id: int | None = None) -> list[NoticeRow]:
    """Every notice of a person (by id or CPF), of an organisation (Art. 25) or, for an unidentified offender,
    of a plate; newest first.

    Each row says whether it was a repeat offence (an earlier upheld notice within the window).
    """
    conditions: list[Any] = []
    if organisation_id is not None:
        conditions.append(InfractionNotice.organisation_id == organisation_id)
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
                if n.notified_on is None or n.defence_due is None:
                    continue  # no period runs until the offender is notified (Art. 29, §§ 2º–3º)
                deadline = defence_due(n.notified_on, settings)
                deadline = Deadline(deadline.kind, deadline.article, n.defence_due, deadline.label)
            else:
                first = next((d for d in decisions[n.id] if d.stage == Stage.FIRST), None)
                if first is None or n.appeal_due is None or n.decision_notified_on is None:
                    continue  # no appeal period runs until the decision's notification (Art. 34, §ún.)
                template = appeal_due(n.decision_notified_on, settings)
                deadline = Deadline(template.kind, template.article, n.appeal_due, template.label)
            found.append(ProcessDeadline(deadline, n.id, n.number, n.person_id, n.offender_name, n.article,
                                         days_until_due(deadline, today)))
    return sorted(found, key=lambda d: (d.deadline.due, d.notice_number))
