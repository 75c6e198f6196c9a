"""What the offender files at the counter: the defence (Art. 29, § 3º) and the appeal (Art. 34, §ún.)."""

from __future__ import annotations

from datetime import date

from sqlalchemy.orm import Session

from motodesk.models import (
    Defence,
    InfractionNotice,
)
from motodesk.rules import enforcement as law
from motodesk.rules.enforcement import (
    ART_APPEAL,
    ART_DEFENCE,
    NoticeStatus,
)
from motodesk.rules.text import format_date
from motodesk.services import attachments
from motodesk.services.clock import local_time, local_today
from motodesk.services.context import AppContext, requires
from motodesk.services.enforcement._common import (
    DEFENCE_OWNER,
    MAX_TEXT,
    RECORDERS,
    FiledDocument,
    FiledRecorded,
    _load_notice,
    _text,
    _touch,
)
from motodesk.services.errors import (
    RuleViolationError,
)
from motodesk.services.refusals import refuse_marked

# --- defence and appeal at the counter -------------------------------------------------------------


def _check_filed(data: FiledDocument, notice: InfractionNotice, today: date, what: str) -> tuple[date, str | None]:
    errors: dict[str, str] = {}
    received_on = data.received_on or today
    if received_on > today:
        errors["received_on"] = f"A data de recebimento ({format_date(received_on)}) está no futuro."
    elif notice.notified_on is not None and received_on < notice.notified_on:
        errors["received_on"] = (f"A data de recebimento ({format_date(received_on)}) é anterior à notificação "
                                 f"({format_date(notice.notified_on)}).")
    elif received_on < local_time(notice.occurred_at).date():
        errors["received_on"] = (f"A data de recebimento ({format_date(received_on)}) é anterior à autuação.")
    text = _text(data.text, MAX_TEXT, "text", f"o texto {what}", errors)
    if not data.waived and not text and not data.files:
        errors["text"] = f"Informe o texto {what} ou anexe o documento apresentado, ou registre a renúncia."
    refuse_marked(errors, "registrar")
    return received_on, text


def _check_scans(data: FiledDocument) -> None:
    """Refuse a scan by its content (services.attachments) before anything is read or written."""
    for filename, content in data.files:
        attachments.check_content(filename, content)


def _file(s: Session, ctx: AppContext, notice: InfractionNotice, stage: str, received_on: date, text: str | None,
          data: FiledDocument) -> tuple[Defence, list[int]]:
    """Session step: the defence or appeal filed with the notice, and its scans (checked by content in
    services.attachments, stored once)."""
    filed = Defence(notice_id=notice.id, stage=stage, received_on=received_on, text=text,
                    waived=data.waived, received_by=ctx.user.login)
    s.add(filed)
    s.flush()
    ids = [attachments.store_attachment(s, ctx, DEFENCE_OWNER, filed.id, filename, content).id
           for filename, content in data.files]
    return filed, ids


@requires(*RECORDERS)
def record_defence(ctx: AppContext, notice_id: int, data: FiledDocument, *, today: date | None = None,
                   expected_version: int | None = None) -> FiledRecorded:
    """The offender's defence (text and scans), or the waiver of the defence period (Art. 29, § 3º)."""
    today = today or local_today()
    _check_scans(data)
    with ctx.write() as s:
        notice = _load_notice(s, notice_id, expected_version)
        if notice.status != NoticeStatus.OPEN:
            raise RuleViolationError([law.defence_after_decision(ART_DEFENCE, notice.number)])
        received_on, text = _check_filed(data, notice, today, "da defesa")
        defence, ids = _file(s, ctx, notice, "defence", received_on, text, data)
        _touch(notice)
        late = notice.defence_due is not None and received_on > notice.defence_due
        return FiledRecorded(defence.id, "defence", late, ids)


@requires(*RECORDERS)
def record_appeal(ctx: AppContext, notice_id: int, data: FiledDocument, *, today: date | None = None,
                  expected_version: int | None = None) -> FiledRecorded:
    """The offender's appeal against an upheld decision, or its waiver (Art. 34, parágrafo único)."""
    today = today or local_today()
    _check_scans(data)
    with ctx.write() as s:
        notice = _load_notice(s, notice_id, expected_version)
        if notice.status != NoticeStatus.DECIDED:
            state = NoticeStatus(notice.status)
            reason = {
                NoticeStatus.OPEN: "ainda não há decisão da qual recorrer",
                NoticeStatus.APPEALED: "já há recurso registrado, aguardando decisão",
                NoticeStatus.CLOSED: "o processo está encerrado",
            }[state]
            raise RuleViolationError([law.appeal_not_open(ART_APPEAL, notice.number, reason)])
        received_on, text = _check_filed(data, notice, today, "do recurso")
        # The period runs from the decision's notification (Art. 34, §ún.); none runs before it is recorded.
        if notice.appeal_due is not None and received_on > notice.appeal_due and not data.waived:
            raise RuleViolationError([law.appeal_late(ART_APPEAL, notice.number, format_date(notice.appeal_due),
                                                      format_date(received_on))])
        appeal, ids = _file(s, ctx, notice, "appeal", received_on, text, data)
        if not data.waived:
            notice.status = NoticeStatus.APPEALED.value
        _touch(notice)
        return FiledRecorded(appeal.id, "appeal", False, ids)
