"""Payments of the counter's fees (Art. 6º, § 6º): one guia/DAM per act, used once."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import Date, Index, Integer, Numeric, String
from sqlalchemy.orm import Mapped, mapped_column

from motodesk.models.base import Base, UTCDateTime, Versioned, utcnow
from motodesk.models.types import enum_column
from motodesk.rules.fees import FeeAct


class FeePayment(Versioned, Base):
    """A paid guia/DAM recorded for (act, subject); ``used_at`` is set by the act it paid for.

    The subject is the id of what the act is about (see :mod:`motodesk.rules.fees`): the person for
    an application, the application for an issue, the permit for a renewal, extension or badge
    copy, the vehicle for an inspection. The number is unique: a DAM pays for one act.
    """

    __tablename__ = "fee_payments"
    __table_args__ = (Index("ix_fee_payments_act_subject", "act", "subject_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    act: Mapped[FeeAct] = mapped_column(enum_column(FeeAct, 16))
    subject_id: Mapped[int] = mapped_column(Integer)
    number: Mapped[str] = mapped_column(String(40), unique=True)
    paid_on: Mapped[date] = mapped_column(Date)
    amount: Mapped[Decimal] = mapped_column(Numeric(12, 2))
    legal_basis: Mapped[str] = mapped_column(String(200))
    recorded_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    recorded_by: Mapped[str] = mapped_column(String(64))
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    used_by: Mapped[str | None] = mapped_column(String(64))
