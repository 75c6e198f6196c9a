"""The yearly re-registration campaign (Art. 4º, § 1º; Art. 30, Grupo 1, I–II): the campaign, one
appointment per person called, and the history of every mark and reschedule of an appointment."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import CheckConstraint, Date, ForeignKey, Index, String, Text, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from motodesk.models.base import Base, UTCDateTime, Versioned, utcnow
from motodesk.models.types import enum_column
from motodesk.rules.campaign import AppointmentState, DriverRole

OPEN_SQL = "state = 'open'"


class Campaign(Versioned, Base):
    """A campaign for a period, opened by a supervisor; at most one open at a time."""

    __tablename__ = "campaigns"
    __table_args__ = (
        Index("uq_campaigns_one_open", "state", unique=True,
              sqlite_where=text(OPEN_SQL), postgresql_where=text(OPEN_SQL)),
        CheckConstraint("period_end >= period_start", name="period_in_order"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    period_start: Mapped[date] = mapped_column(Date)
    period_end: Mapped[date] = mapped_column(Date)
    state: Mapped[str] = mapped_column(String(8), default="open")  # open / closed
    opened_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    opened_by: Mapped[str] = mapped_column(String(64))
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    closed_by: Mapped[str | None] = mapped_column(String(64))
    notes: Mapped[str | None] = mapped_column(Text)


class CampaignAppointment(Versioned, Base):
    """One person called: holder or deputy of a permit, what falls due, the slot at the counter."""

    __tablename__ = "campaign_appointments"
    __table_args__ = (
        UniqueConstraint("campaign_id", "person_id", "permit_id", name="uq_campaign_appointments_person"),
        Index("ix_campaign_appointments_slot", "campaign_id", "slot_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"), index=True)
    person_id: Mapped[int] = mapped_column(ForeignKey("people.id"), index=True)
    role: Mapped[DriverRole] = mapped_column(enum_column(DriverRole, 8))
    permit_id: Mapped[int] = mapped_column(ForeignKey("permits.id"))
    # What falls due: "registration:2027-01-10;medical:" (empty date: never recorded).
    due: Mapped[str] = mapped_column(String(120))
    slot_at: Mapped[datetime] = mapped_column(UTCDateTime)
    state: Mapped[AppointmentState] = mapped_column(enum_column(AppointmentState, 12),
                                                    default=AppointmentState.SCHEDULED)
    marked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    marked_by: Mapped[str | None] = mapped_column(String(64))


class AppointmentEvent(Base):
    """Every change of an appointment: scheduled, marked, rescheduled (old and new slot), by whom, why."""

    __tablename__ = "campaign_appointment_events"

    id: Mapped[int] = mapped_column(primary_key=True)
    appointment_id: Mapped[int] = mapped_column(ForeignKey("campaign_appointments.id"), index=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    by_user: Mapped[str] = mapped_column(String(64))
    from_state: Mapped[str | None] = mapped_column(String(12))
    to_state: Mapped[str] = mapped_column(String(12))
    from_slot: Mapped[datetime | None] = mapped_column(UTCDateTime)
    to_slot: Mapped[datetime | None] = mapped_column(UTCDateTime)
    reason: Mapped[str | None] = mapped_column(Text)
