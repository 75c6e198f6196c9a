"""Signed checkpoints of the audit trail's head: where the chain ended, sealed with the badge key.

The hash chain of :mod:`motodesk.models.audit` proves that no row was changed, inserted or removed in
the middle, but not that the newest rows are all there: deleting the last rows leaves a shorter chain
that still links. A checkpoint records the head -- how many rows, the last id and its hash -- at each
``motodesk daily``, each backup and each publication of the status list, signed (Ed25519, the badges'
key) and chained to the checkpoint before it. Append-only like the trail (triggers on both databases,
``APPEND_ONLY_TABLES``); not itself audited, so writing one does not move the head it seals. Written
and checked by :mod:`motodesk.services.audit`.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from motodesk.models.base import Base, UTCDateTime, utcnow

CHECKPOINTS_TABLE = "audit_checkpoints"


class AuditCheckpoint(Base):
    """One signed head of the audit trail. ``id`` is the checkpoint's sequence number (1, 2, ...),
    also inside the signed ``body``; the other columns only help to read it."""

    __tablename__ = CHECKPOINTS_TABLE

    id: Mapped[int] = mapped_column(primary_key=True)  # given explicitly: seq = the newest + 1
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    reason: Mapped[str] = mapped_column(String(16))  # daily / backup / publish
    last_id: Mapped[int] = mapped_column(Integer)  # the newest audit row sealed (also in the body)
    body: Mapped[str] = mapped_column(Text)  # canonical JSON, exactly the bytes signed
    signature: Mapped[str] = mapped_column(String(128))  # base64 Ed25519
