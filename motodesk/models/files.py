"""Stored files: content-addressed blobs, attachments to any record, and 3x4 photos."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, Integer, LargeBinary, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from motodesk.models.base import Base, UTCDateTime, utcnow


class Blob(Base):
    """File bytes keyed by their SHA-256, stored once however often attached."""

    __tablename__ = "blobs"

    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    size: Mapped[int] = mapped_column(Integer)
    data: Mapped[bytes] = mapped_column(LargeBinary)


class Attachment(Base):
    """A scan (PDF/JPEG/PNG) attached to a record: who attached it, when, and its removal."""

    __tablename__ = "attachments"
    __table_args__ = (Index("ix_attachments_owner", "owner_table", "owner_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    owner_table: Mapped[str] = mapped_column(String(64))
    owner_id: Mapped[int] = mapped_column(Integer)
    blob_sha256: Mapped[str] = mapped_column(ForeignKey("blobs.sha256"))
    filename: Mapped[str] = mapped_column(String(255))
    media_type: Mapped[str] = mapped_column(String(64))
    size: Mapped[int] = mapped_column(Integer)
    added_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    added_by: Mapped[str] = mapped_column(String(64))
    removed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    removed_by: Mapped[str | None] = mapped_column(String(64))
    removed_reason: Mapped[str | None] = mapped_column(Text)

    blob: Mapped[Blob] = relationship(lazy="select")


class Photo(Base):
    """A 3x4 photo of a person (Art. 5º, IX); the newest is the one on the badge."""

    __tablename__ = "photos"

    id: Mapped[int] = mapped_column(primary_key=True)
    person_id: Mapped[int] = mapped_column(ForeignKey("people.id", ondelete="CASCADE"), index=True)
    blob_sha256: Mapped[str] = mapped_column(ForeignKey("blobs.sha256"))
    captured_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    captured_by: Mapped[str] = mapped_column(String(64))
    source: Mapped[str] = mapped_column(String(16))  # camera / file / import
    width: Mapped[int] = mapped_column(Integer)
    height: Mapped[int] = mapped_column(Integer)
    # Art. 5º, IX: why a photo with quality warnings was kept anyway, and the warnings it covered.
    override_reason: Mapped[str | None] = mapped_column(Text)

    blob: Mapped[Blob] = relationship(lazy="select")
