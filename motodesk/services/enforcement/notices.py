"""Writing a notice of infraction (Art. 29, § 1º) and finding whom it names; its later notification (§ 2º)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, NoReturn, TypeVar

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from motodesk.models import (
    InfractionNotice,
    Organisation,
    Person,
    Vehicle,
)
from motodesk.rules import enforcement as law
from motodesk.rules.common import ServiceType, Verdict
from motodesk.rules.employer import OrganisationOffenderFacts, check_organisation_offender
from motodesk.rules.enforcement import (
    ART_NOTICE,
    ART_UNLICENSED,
    DecisionNotificationFacts,
    NoticeStatus,
    NotificationFacts,
    NotificationMethod,
    OffenderKind,
    Signature,
    appeal_period_end,
    check_decision_notification,
    check_notification,
    defence_period_end,
    notified_when_written,
)
from motodesk.rules.infractions import (
    Infraction,
    infraction_by_code,
)
from motodesk.rules.settings import LawSettings
from motodesk.rules.validators import format_cnpj, format_plate, validate_cpf, validate_plate
from motodesk.services.clock import LOCAL_TZ, local_time, local_today
from motodesk.services.context import READERS, AppContext, current_row, requires
from motodesk.services.enforcement._common import (
    MAX_NAME,
    MAX_PLACE,
    MAX_TEXT,
    MAX_VEHICLE_DESCRIPTION,
    NUMBER_ATTEMPTS,
    RECORDERS,
    WRITERS,
    NoticeCreated,
    NoticeInput,
    OffenderChoice,
    _deputy_link_of,
    _in_force_permit_of,
    _load_notice,
    _plate_forms,
    _text,
    _touch,
    notice_number,
)
from motodesk.services.errors import (
    ConflictError,
    InvalidInputError,
    RuleViolationError,
)
from motodesk.services.settings import law_settings
from motodesk.services.text import (
    LIKE_ESCAPE,
    clean_name,
    contains_pattern,
    digits,
    fold,
    name_problem,
    prefix_pattern,
    search_text,
)

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
    organisation_id: int | None = None


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
    organisation = s.get(Organisation, data.organisation_id) if data.organisation_id is not None else None
    if wrong := check_organisation_offender(OrganisationOffenderFacts(infraction, kind, data.organisation_id,
                                                                      registered=organisation is not None)):
        raise RuleViolationError(wrong)
    if kind is OffenderKind.ORGANISATION:
        return _organisation(organisation, data, errors)
    if unlicensed and kind is not OffenderKind.UNREGISTERED:
        raise RuleViolationError([law.unlicensed_offender_kind(ART_UNLICENSED)])
    if not unlicensed and kind is OffenderKind.UNREGISTERED:
        raise RuleViolationError([law.registered_offender_only(infraction.article)])
    if infraction.article.startswith(("Art. 31", "Art. 15")) and kind is OffenderKind.DEPUTY:
        raise RuleViolationError([law.holder_offence_only(infraction.article.split(",")[0])])

    if kind is OffenderKind.UNREGISTERED:
        return _unregistered(s, data, errors)

    if data.person_id is None:
        errors["person"] = "Escolha o autuado (titular ou preposto) no cadastro."
        return None
    person = current_row(s, Person, data.person_id, None, "A pessoa escolhida não existe mais no cadastro.")
    if kind is OffenderKind.HOLDER:
        permit = _in_force_permit_of(s, person.id)
        if permit is None:
            raise RuleViolationError([law.offender_without_permit(infraction.article.split(",")[0],
                                                                  person.full_name)])
    else:
        link = _deputy_link_of(s, person.id)
        if link is None:
            raise RuleViolationError([law.offender_not_deputy(person.full_name)])
        permit = link[1]
    if data.permit_id is not None and data.permit_id != permit.id:
        raise ConflictError("A permissão do autuado mudou depois que o formulário foi aberto; escolha o autuado "
                            "de novo.")
    vehicle_id = data.vehicle_id or permit.vehicle_id
    plate: str | None = None
    if vehicle_id is not None:
        vehicle = current_row(s, Vehicle, vehicle_id, None, "O veículo escolhido não existe mais no cadastro.")
        plate = vehicle.plate
    elif data.plate.strip():
        result = validate_plate(data.plate)
        if not result.ok:
            errors["plate"] = result.message or "Placa inválida."
        plate = result.value
    return _Offender(kind, person.id, permit.id, person.full_name, person.cpf, vehicle_id, plate)


def _organisation(organisation: Organisation | None, data: NoticeInput, errors: dict[str, str]) -> _Offender | None:
    """Art. 25, parágrafo único: the employer or contractor, from the register of organisations (the rule
    refused one that is not there).

    The notice names the organisation and keeps its name and CNPJ as printed (the CPF column holds a
    person's CPF only).
    """
    if organisation is None:
        errors["organisation"] = "Escolha a empresa autuada (empregador ou contratante) no cadastro."
        return None
    name = f"{organisation.name} (CNPJ {format_cnpj(organisation.cnpj)})"[:MAX_NAME]
    plate: str | None = None
    if data.plate.strip():
        result = validate_plate(data.plate)
        if not result.ok:
            errors["plate"] = result.message or "Placa inválida."
        plate = result.value
    return _Offender(OffenderKind.ORGANISATION, None, None, name, None, data.vehicle_id, plate, organisation.id)


def _unregistered(s: Session, data: NoticeInput, errors: dict[str, str]) -> _Offender | None:
    """Art. 32: a person and a vehicle, registered or not."""
    person: Person | None = None
    if data.person_id is not None:
        person = current_row(s, Person, data.person_id, None, "A pessoa escolhida não existe mais no cadastro.")
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
            raise RuleViolationError([law.unlicensed_but_holder(ART_UNLICENSED, person.full_name, permit.number)])
    else:
        name = clean_name(data.offender_name)
        if not name:
            errors["offender_name"] = "Informe o nome do autuado."
        elif len(name) > MAX_NAME:
            errors["offender_name"] = f"Nome longo demais: no máximo {MAX_NAME} caracteres."
        elif problem := name_problem(name):
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
        raise InvalidInputError("Escolha a infração no catálogo (Arts. 15, 25, 30, 31 ou 32).",
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
        written_on = now.astimezone(LOCAL_TZ).date()
        # Art. 29, § 2º: a signed notice notifies on the spot; a refusal or an absence waits for the later
        # notification, and the defence period (§ 3º) starts only then.
        notified_on = written_on if notified_when_written(signature) else None
        due = defence_period_end(notified_on, settings) if notified_on is not None else None
        values: dict[str, Any] = dict(
            infraction_code=infraction.code,
            article=infraction.article,
            severity=infraction.severity.value,
            occurred_at=data.occurred_at,
            place=place,
            person_id=offender.person_id,
            permit_id=offender.permit_id,
            organisation_id=offender.organisation_id,
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
            notification_method=NotificationMethod.ON_THE_SPOT.value if notified_on is not None else None,
        )
        notice = _insert_numbered(s, values, written_on.year)
        return NoticeCreated(notice.id, notice.number, notified_on, due, notice.refused_to_sign,
                             notice.vehicle_seized)


# --- the later notification (Art. 29, § 2º) ---------------------------------------------------------------


@dataclass
class NotificationInput:
    """How and when an offender who refused to sign, or was absent, was notified afterwards."""

    method: NotificationMethod | None
    notified_on: date | None
    reference: str = ""  # the AR's number, the edital's publication (journal and page)


MAX_REFERENCE = 120
_Notified = TypeVar("_Notified")
FIX_NOTIFICATION = "Corrija os campos marcados antes de registrar a notificação."


def _notification_reference(data: NotificationInput) -> str | None:
    """The notification's reference (the AR's number, the edital's publication), checked before anything is read."""
    errors: dict[str, str] = {}
    reference = _text(data.reference, MAX_REFERENCE, "reference", "a referência", errors)
    if errors:
        raise InvalidInputError(FIX_NOTIFICATION, errors)
    return reference


@dataclass(frozen=True)
class _NotificationWay:
    """What differs between recording the notice's notification and the decision's: the columns
    (``{prefix}notified_on``, ``{prefix}notification_method`` …, and the rule ids the same way), the
    period that runs from it and the rule that judges it."""

    prefix: str
    due: str
    period_end: Callable[[date, LawSettings], date]
    judge: Callable[[InfractionNotice, NotificationMethod | None, date | None, date], list[Verdict]]


def _record_notified(ctx: AppContext, notice_id: int, data: NotificationInput, way: _NotificationWay,
                     result: Callable[[InfractionNotice], _Notified], *, today: date | None,
                     expected_version: int | None) -> _Notified:
    """Judge and record a notification the ``way`` says; ``result`` reads the saved notice."""
    today = today or local_today()
    settings = law_settings(ctx)
    reference = _notification_reference(data)
    with ctx.write() as s:
        notice = _load_notice(s, notice_id, expected_version)
        method = NotificationMethod(data.method) if data.method else None
        verdicts = way.judge(notice, method, data.notified_on, today)
        if verdicts:
            _refuse_notification(verdicts, {f"{way.prefix}notification_method": "method",
                                            f"{way.prefix}notification_date": "notified_on"})
        assert data.notified_on is not None and method is not None
        setattr(notice, f"{way.prefix}notified_on", data.notified_on)
        setattr(notice, way.due, way.period_end(data.notified_on, settings))
        setattr(notice, f"{way.prefix}notification_method", method.value)
        setattr(notice, f"{way.prefix}notification_reference", reference)
        setattr(notice, f"{way.prefix}notification_recorded_by", ctx.user.login)
        _touch(notice)
        s.flush()
        return result(notice)


def _judge_notification(notice: InfractionNotice, method: NotificationMethod | None, notified_on: date | None,
                        today: date) -> list[Verdict]:
    return check_notification(NotificationFacts(
        number=notice.number, status=NoticeStatus(notice.status),
        signature=(Signature.SIGNED if notice.signed else Signature.REFUSED if notice.refused_to_sign
                   else Signature.ABSENT),
        written_on=local_time(notice.occurred_at).date(), already_notified_on=notice.notified_on,
        method=method, notified_on=notified_on, today=today))


_NOTICE_NOTIFIED = _NotificationWay("", "defence_due", defence_period_end, _judge_notification)


@requires(*RECORDERS)
def record_notification(ctx: AppContext, notice_id: int, data: NotificationInput, *, today: date | None = None,
                        expected_version: int | None = None) -> NoticeCreated:
    """Record the later notification of the offender; the defence period runs from it (Art. 29, §§ 2º–3º)."""
    return _record_notified(
        ctx, notice_id, data, _NOTICE_NOTIFIED,
        lambda notice: NoticeCreated(notice.id, notice.number, notice.notified_on, notice.defence_due,
                                     notice.refused_to_sign, notice.vehicle_seized),
        today=today, expected_version=expected_version)


def _refuse_notification(verdicts: list[Verdict], fields: dict[str, str]) -> NoReturn:
    """A refused notification: on its fields (rule id → input) when every refusal names one, else whole."""
    keyed = {fields[v.rule_id.removeprefix("enforcement_")]: v.message for v in verdicts
             if v.rule_id.removeprefix("enforcement_") in fields}
    if keyed and len(keyed) == len(verdicts):
        raise InvalidInputError(FIX_NOTIFICATION, keyed)
    raise RuleViolationError(verdicts)


# --- the decision's notification (Art. 29, § 2º; the appeal period, Art. 34, §ún.) -----------------------


@dataclass(frozen=True)
class DecisionNotified:
    notice_id: int
    number: str
    notified_on: date
    appeal_due: date


def _judge_decision_notification(notice: InfractionNotice, method: NotificationMethod | None,
                                 notified_on: date | None, today: date) -> list[Verdict]:
    return check_decision_notification(DecisionNotificationFacts(
        number=notice.number, status=NoticeStatus(notice.status),
        decided=any(d.stage == "first" for d in notice.decisions),
        notice_notified_on=notice.notified_on, already_notified_on=notice.decision_notified_on,
        method=method, notified_on=notified_on, today=today))


def _decision_notified(notice: InfractionNotice) -> DecisionNotified:
    assert notice.decision_notified_on is not None and notice.appeal_due is not None  # both just recorded
    return DecisionNotified(notice.id, notice.number, notice.decision_notified_on, notice.appeal_due)


_DECISION_NOTIFIED = _NotificationWay("decision_", "appeal_due", appeal_period_end, _judge_decision_notification)


@requires(*RECORDERS)
def record_decision_notification(ctx: AppContext, notice_id: int, data: NotificationInput, *,
                                 today: date | None = None,
                                 expected_version: int | None = None) -> DecisionNotified:
    """Record how and when the first decision reached the offender; the appeal period runs from it
    (Art. 29, §§ 2º–3º; Art. 34, §ún.), and the process closes only after that period."""
    return _record_notified(
        ctx, notice_id, data, _DECISION_NOTIFIED,
        _decision_notified, today=today, expected_version=expected_version)
