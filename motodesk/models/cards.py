"""Card stock (issue 19, part 2): batches of blank pre-numbered PVC cards, the card each badge print
used, and the cards spoiled.

**Serial numbers.**  A serial is an optional fixed prefix of capital letters (and ``-``, ``/`` or
``.``) followed by digits: ``000123``, ``PTC-000123``.  A batch keeps its prefix, its first and last
number and the number of digits (``width``, from the first serial as received), so a serial is
stored in one canonical form, the prefix then the number zero-padded to the width; a typed
``ptc-123`` is the same card as ``PTC-000123`` (see :mod:`motodesk.services.card_stock`).  Batches
with the same prefix never overlap; different prefixes are different series.

The uses and spoils name their serial as text and the batch it belonged to (NULL only when a serial
outside every batch was written by other means than the services; the report shows it).  A serial
used twice is refused by the service, not by a unique index, so a double that reached the data some
other way (an import, a repair by hand) stays visible and the report names it.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Date, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from motodesk.models.base import Base, UTCDateTime, utcnow


class CardBatch(Base):
    """Blank cards received from the supplier: serials ``prefix + first_no .. prefix + last_no``."""

    __tablename__ = "card_batches"
    __table_args__ = (Index("ix_card_batches_prefix_first", "prefix", "first_no"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    prefix: Mapped[str] = mapped_column(String(16), default="")
    first_no: Mapped[int] = mapped_column(Integer)
    last_no: Mapped[int] = mapped_column(Integer)
    width: Mapped[int] = mapped_column(Integer)  # digits of the number part, zero-padded
    received_on: Mapped[date] = mapped_column(Date)
    note: Mapped[str | None] = mapped_column(Text)
    recorded_by: Mapped[str] = mapped_column(String(64))
    recorded_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class CardUse(Base):
    """The card a badge was printed on: one per :class:`~motodesk.models.permits.BadgePrint`."""

    __tablename__ = "card_uses"

    id: Mapped[int] = mapped_column(primary_key=True)
    serial: Mapped[str] = mapped_column(String(40), index=True)
    batch_id: Mapped[int | None] = mapped_column(ForeignKey("card_batches.id"), index=True)
    badge_print_id: Mapped[int] = mapped_column(ForeignKey("badge_prints.id"), unique=True)
    used_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    used_by: Mapped[str] = mapped_column(String(64))


class SpoiledCard(Base):
    """A blank card lost to a misprint, a jam, damage…: it leaves the stock with its reason."""

    __tablename__ = "spoiled_cards"

    id: Mapped[int] = mapped_column(primary_key=True)
    serial: Mapped[str] = mapped_column(String(40), index=True)
    batch_id: Mapped[int | None] = mapped_column(ForeignKey("card_batches.id"), index=True)
    reason: Mapped[str] = mapped_column(Text)
    spoiled_by: Mapped[str] = mapped_column(String(64))
    spoiled_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
