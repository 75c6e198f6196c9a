"""Notices of infraction, defences and decisions (Art. 29–35)."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    Date,
    ForeignKey,
    Integer,
    Numeric,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from motodesk.models.base import Base, Timestamps, UTCDateTime, Versioned, utcnow

#: A notice naming an organisation (Art. 25) is an organisation's notice and names no person or permit.
ORGANISATION_OFFENDER_CHECK = (
    "organisation_id IS NULL OR (offender_kind = 'organisation' AND person_id IS NULL AND permit_id IS NULL)"
)


class InfractionNotice(Versioned, Timestamps, Base):
    """Auto de Infração e/ou Notificação (Art. 29), numbered per year."""

    __tablename__ = "infraction_notices"
    __table_args__ = (
        UniqueConstraint("year", "seq", name="uq_infraction_notices_year_seq"),
        # Art. 25, parágrafo único: an organisation's notice names the organisation, never a person or a permit.
        CheckConstraint(ORGANISATION_OFFENDER_CHECK, name="organisation_offender"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    number: Mapped[str] = mapped_column(String(16), unique=True)  # AI-0001/2026
    year: Mapped[int] = mapped_column(Integer)
    seq: Mapped[int] = mapped_column(Integer)
    infraction_code: Mapped[str] = mapped_column(String(16))  # 30.2.VI
    article: Mapped[str] = mapped_column(String(64))
    severity: Mapped[str] = mapped_column(String(16))
    occurred_at: Mapped[datetime] = mapped_column(UTCDateTime)
    place: Mapped[str] = mapped_column(String(300))
    person_id: Mapped[int | None] = mapped_column(ForeignKey("people.id"), index=True)
    permit_id: Mapped[int | None] = mapped_column(ForeignKey("permits.id"), index=True)
    offender_kind: Mapped[str] = mapped_column(String(16))  # holder / deputy / unregistered / organisation
    # The employer or contractor of a continued moto-frete service an Art. 25 notice names (revision 0022).
    organisation_id: Mapped[int | None] = mapped_column(ForeignKey("organisations.id"), index=True)
    offender_name: Mapped[str] = mapped_column(String(200))
    offender_cpf: Mapped[str | None] = mapped_column(String(11), index=True)
    vehicle_id: Mapped[int | None] = mapped_column(ForeignKey("vehicles.id"))
    plate: Mapped[str | None] = mapped_column(String(7), index=True)
    # An unregistered vehicle as seen (Art. 32): make, model, colour.
    vehicle_description: Mapped[str | None] = mapped_column(String(120))
    description: Mapped[str | None] = mapped_column(Text)
    inspector_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    # As printed on the notice: who wrote it, kept if the user is renamed.
    inspector_login: Mapped[str] = mapped_column(String(64))
    inspector_name: Mapped[str] = mapped_column(String(200))
    signed: Mapped[bool] = mapped_column(Boolean, default=False)
    refused_to_sign: Mapped[bool] = mapped_column(Boolean, default=False)
    vehicle_seized: Mapped[bool] = mapped_column(Boolean, default=False)  # Art. 32
    status: Mapped[str] = mapped_column(String(16), default="open")  # open / decided / appealed / closed
    # The defence period runs from the notification (Art. 29 §§ 2º–3º): the day the notice was signed, or
    # the later notification of an offender who refused to sign or was absent (NULL until recorded).
    notified_on: Mapped[date | None] = mapped_column(Date)
    defence_due: Mapped[date | None] = mapped_column(Date)
    notification_method: Mapped[str | None] = mapped_column(String(16))  # on_the_spot / in_person / post_ar / edital
    notification_reference: Mapped[str | None] = mapped_column(String(120))  # AR number, edital's publication
    notification_recorded_by: Mapped[str | None] = mapped_column(String(64))
    # The first decision reaches the offender the same ways (Art. 29, § 2º): the appeal period runs from that
    # notification, not from the day of the decision (Art. 29, § 3º; Art. 34, §ún.). NULL until recorded; kept
    # on the notice (the process), which the secretariat writes, not on the supervisor's decision row.
    decision_notified_on: Mapped[date | None] = mapped_column(Date)
    decision_notification_method: Mapped[str | None] = mapped_column(String(16))  # in_person / post_ar / edital
    decision_notification_reference: Mapped[str | None] = mapped_column(String(120))
    decision_notification_recorded_by: Mapped[str | None] = mapped_column(String(64))
    appeal_due: Mapped[date | None] = mapped_column(Date)  # last day to appeal, counted from that notification
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    closed_by: Mapped[str | None] = mapped_column(String(64))

    defences: Mapped[list[Defence]] = relationship(order_by="Defence.id")
    decisions: Mapped[list[Decision]] = relationship(order_by="Decision.id")


class Defence(Base):
    """The offender's defence (Art. 29 §3), or a recorded waiver; attachments via Attachment."""

    __tablename__ = "defences"

    id: Mapped[int] = mapped_column(primary_key=True)
    notice_id: Mapped[int] = mapped_column(ForeignKey("infraction_notices.id"), index=True)
    stage: Mapped[str] = mapped_column(String(8), default="defence")  # defence / appeal
    received_on: Mapped[date] = mapped_column(Date)
    text: Mapped[str | None] = mapped_column(Text)
    waived: Mapped[bool] = mapped_column(Boolean, default=False)
    received_by: Mapped[str] = mapped_column(String(64))
    received_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class Decision(Base):
    """A supervisor's decision on a notice, first instance or appeal (Art. 33, 34)."""

    __tablename__ = "decisions"

    id: Mapped[int] = mapped_column(primary_key=True)
    notice_id: Mapped[int] = mapped_column(ForeignKey("infraction_notices.id"), index=True)
    stage: Mapped[str] = mapped_column(String(8), default="first")  # first / appeal
    outcome: Mapped[str] = mapped_column(String(16))  # dismissed / upheld
    decided_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    decided_by: Mapped[str] = mapped_column(String(64))
    severity: Mapped[str | None] = mapped_column(String(16))
    reclassification_reason: Mapped[str | None] = mapped_column(Text)
    penalty: Mapped[str | None] = mapped_column(String(16))  # warning / fine / suspension / revocation
    fine_ufm: Mapped[Decimal | None] = mapped_column(Numeric(12, 2))
    ufm_value_brl: Mapped[Decimal | None] = mapped_column(Numeric(12, 2))
    fine_brl: Mapped[Decimal | None] = mapped_column(Numeric(12, 2))
    suspension_days: Mapped[int | None] = mapped_column(Integer)
    suspension_start: Mapped[date | None] = mapped_column(Date)
    suspension_end: Mapped[date | None] = mapped_column(Date)
    grounds: Mapped[str | None] = mapped_column(Text)
    # Before revision 0021: the last day to appeal counted from the decision. Now NULL: the appeal period runs
    # from the decision's notification (InfractionNotice.appeal_due).
    appeal_due: Mapped[date | None] = mapped_column(Date)
    # What it did to the permit (holder) or the deputy's link (deputy): suspended / revoked / reinstated /
    # pending_suspension / pending_revocation / not_applicable.
    permit_effect: Mapped[str | None] = mapped_column(String(24))


class CriminalJudgment(Base):
    """A final criminal conviction of the holder, which revokes the permit (Art. 35)."""

    __tablename__ = "criminal_judgments"

    id: Mapped[int] = mapped_column(primary_key=True)
    permit_id: Mapped[int] = mapped_column(ForeignKey("permits.id"), index=True)
    person_id: Mapped[int] = mapped_column(ForeignKey("people.id"), index=True)
    court: Mapped[str] = mapped_column(String(200))
    case_number: Mapped[str] = mapped_column(String(40))
    final_on: Mapped[date] = mapped_column(Date)  # trânsito em julgado
    notes: Mapped[str | None] = mapped_column(Text)
    recorded_by: Mapped[str] = mapped_column(String(64))
    recorded_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
