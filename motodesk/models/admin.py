"""Users, settings and the append-only audit trail."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, Index, Integer, String, Text, false
from sqlalchemy.orm import Mapped, mapped_column

from motodesk.models.base import Base, Timestamps, UTCDateTime, Versioned, utcnow
from motodesk.models.types import enum_column
from motodesk.rules.common import Role


class User(Versioned, Timestamps, Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    login: Mapped[str] = mapped_column(String(64), unique=True)
    full_name: Mapped[str] = mapped_column(String(200))
    role: Mapped[Role] = mapped_column(enum_column(Role))
    password_hash: Mapped[str] = mapped_column(String(255))
    failed_logins: Mapped[int] = mapped_column(Integer, default=0)
    locked: Mapped[bool] = mapped_column(Boolean, default=False)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    last_login_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # A password an administrator chose (a reset, a new user): its owner replaces it at the next login.
    must_change_password: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class Setting(Versioned, Base):
    """A value the law leaves to a decree or the secretariat decides (JSON text)."""

    __tablename__ = "settings"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class AuditEvent(Base):
    """Append-only: triggers refuse UPDATE and DELETE on both databases. Each row is sealed into a
    hash chain (``row_hash`` = SHA-256 of the row and ``prev_hash``): see ``motodesk.models.audit``."""

    __tablename__ = "audit_events"
    __table_args__ = (Index("ix_audit_events_table_key", "table_name", "row_key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    user_login: Mapped[str] = mapped_column(String(64))
    table_name: Mapped[str] = mapped_column(String(64))
    row_key: Mapped[str] = mapped_column(String(128))
    action: Mapped[str] = mapped_column(String(8))  # insert / update / delete
    changes: Mapped[str] = mapped_column(Text)  # JSON {field: [old, new]}
    prev_hash: Mapped[str | None] = mapped_column(String(64))
    row_hash: Mapped[str | None] = mapped_column(String(64))
