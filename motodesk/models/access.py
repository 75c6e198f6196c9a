"""The LGPD access log: who read a person's sensitive data (criminal, medical, a whole dossier), when.

Reading, not changing: the audit trail (:mod:`motodesk.models.audit`) records changes; this table
records reads of the data LGPD art. 11 calls sensitive (health) and of criminal certificates, and of
whole dossiers. Like the audit trail it is append-only: triggers of migration 0009 refuse UPDATE and
DELETE on both databases. Rows are written by :func:`motodesk.services.access_log.record_access`
inside the reading service's own transaction, with a Core INSERT (the table is not itself audited).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from motodesk.models.base import Base, UTCDateTime, utcnow

ACCESS_LOG_TABLE = "access_log"


class AccessRecord(Base):
    """One read of sensitive personal data. Append-only."""

    __tablename__ = ACCESS_LOG_TABLE
    __table_args__ = (Index("ix_access_log_person_at", "person_id", "at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    user_login: Mapped[str] = mapped_column(String(64))
    # No foreign key: the log outlives anything it names and must never block a change elsewhere.
    person_id: Mapped[int | None] = mapped_column(Integer)
    data_kind: Mapped[str] = mapped_column(String(24))  # dossier / criminal / medical / criminal_scan / medical_scan
    record_key: Mapped[str | None] = mapped_column(String(64))  # e.g. "attachments:12"
    screen: Mapped[str] = mapped_column(String(64))  # the service or screen that read it
    workstation: Mapped[str | None] = mapped_column(String(128))
