"""Applications, permits and their life cycle; decrees, tenders, deputies, organisations, stands."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    Date,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from motodesk.models.base import Base, Timestamps, UTCDateTime, Versioned, utcnow
from motodesk.models.types import enum_column
from motodesk.rules.common import PermitState, ServiceType

IN_FORCE_SQL = "state IN ('active', 'suspended')"


def _one_open(index: str, *columns: str) -> tuple[Index, CheckConstraint]:
    """The table args of a period row (``start_on`` … ``end_on``, open while ``end_on`` is NULL): at most
    one open row per ``columns`` (a partial unique index named ``index``), and no end before the start."""
    return (Index(index, *columns, unique=True,
                  sqlite_where=text("end_on IS NULL"), postgresql_where=text("end_on IS NULL")),
            CheckConstraint("end_on IS NULL OR end_on >= start_on", name="ends_after_start"))


class Decree(Versioned, Base):
    """A municipal Decree: grants permits (Art. 6), sets stands (Art. 17), fines (Art. 34 §ún.)."""

    __tablename__ = "decrees"

    id: Mapped[int] = mapped_column(primary_key=True)
    number: Mapped[str] = mapped_column(String(32), unique=True)
    signed_on: Mapped[date] = mapped_column(Date)
    subject: Mapped[str | None] = mapped_column(Text)


class Application(Versioned, Timestamps, Base):
    """A requerimento: from opening to approval or refusal; once issued it points to its permit."""

    __tablename__ = "applications"

    id: Mapped[int] = mapped_column(primary_key=True)
    person_id: Mapped[int] = mapped_column(ForeignKey("people.id"), index=True)
    service_type: Mapped[ServiceType] = mapped_column(enum_column(ServiceType))
    state: Mapped[PermitState] = mapped_column(enum_column(PermitState), default=PermitState.REQUESTED)
    opened_on: Mapped[date] = mapped_column(Date)
    opened_by: Mapped[str] = mapped_column(String(64))
    vehicle_id: Mapped[int | None] = mapped_column(ForeignKey("vehicles.id"))
    decree_id: Mapped[int | None] = mapped_column(ForeignKey("decrees.id"))
    tender_candidate_id: Mapped[int | None] = mapped_column(ForeignKey("tender_candidates.id"))
    decided_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    decided_by: Mapped[str | None] = mapped_column(String(64))
    reason: Mapped[str | None] = mapped_column(Text)


class Permit(Versioned, Timestamps, Base):
    """A permissão (mototáxi) or autorização (motoboy, moto-frete), personal and non-transferable."""

    __tablename__ = "permits"
    __table_args__ = (
        UniqueConstraint("service_type", "year", "seq", name="uq_permits_service_year_seq"),
        # Art. 6 §2 and SPEC: one permit in force per person.
        Index("uq_permits_person_in_force", "person_id", unique=True,
              sqlite_where=text(IN_FORCE_SQL), postgresql_where=text(IN_FORCE_SQL)),
        Index("ix_permits_state", "state"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    number: Mapped[str] = mapped_column(String(16), unique=True)  # MT-0007/2026
    service_type: Mapped[ServiceType] = mapped_column(enum_column(ServiceType))
    year: Mapped[int] = mapped_column(Integer)
    seq: Mapped[int] = mapped_column(Integer)
    person_id: Mapped[int] = mapped_column(ForeignKey("people.id"))
    application_id: Mapped[int | None] = mapped_column(ForeignKey("applications.id"))
    vehicle_id: Mapped[int | None] = mapped_column(ForeignKey("vehicles.id"))
    decree_id: Mapped[int | None] = mapped_column(ForeignKey("decrees.id"))
    state: Mapped[PermitState] = mapped_column(enum_column(PermitState), default=PermitState.ACTIVE)
    issued_on: Mapped[date] = mapped_column(Date)
    term_end: Mapped[date] = mapped_column(Date)  # Art. 6: 5 years
    extended: Mapped[bool] = mapped_column(Boolean, default=False)  # Art. 6: once, 5 more years
    certificate_valid_until: Mapped[date] = mapped_column(Date)  # Art. 4 §1: yearly
    suspended_until: Mapped[date | None] = mapped_column(Date)
    badge_issue_no: Mapped[int] = mapped_column(Integer, default=0)
    ended_on: Mapped[date | None] = mapped_column(Date)
    end_reason: Mapped[str | None] = mapped_column(Text)


class PermitEvent(Base):
    """Every transition of an application or permit: who, when, why (SPEC §4)."""

    __tablename__ = "permit_events"

    id: Mapped[int] = mapped_column(primary_key=True)
    application_id: Mapped[int | None] = mapped_column(ForeignKey("applications.id"), index=True)
    permit_id: Mapped[int | None] = mapped_column(ForeignKey("permits.id"), index=True)
    transition: Mapped[str] = mapped_column(String(32))
    from_state: Mapped[str | None] = mapped_column(String(16))
    to_state: Mapped[str] = mapped_column(String(16))
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    by_user: Mapped[str] = mapped_column(String(64))
    reason: Mapped[str | None] = mapped_column(Text)
    decree_id: Mapped[int | None] = mapped_column(ForeignKey("decrees.id"))


class QuotaCounter(Versioned, Base):
    """Places of a service with a quota (mototáxi, Art. 10 I) and how many permits hold one.

    Issuing claims a place with one conditional UPDATE (``in_force < places``), which the database
    serialises: two workstations can never both take the last place.
    """

    __tablename__ = "quota_counters"
    __table_args__ = (CheckConstraint("in_force >= 0", name="in_force_not_negative"),)

    service_type: Mapped[ServiceType] = mapped_column(enum_column(ServiceType), primary_key=True)
    places: Mapped[int] = mapped_column(Integer)
    in_force: Mapped[int] = mapped_column(Integer, default=0)


class BadgePrint(Base):
    """Each print and reprint of a badge, with its reason; a reprint raises the issue number."""

    __tablename__ = "badge_prints"

    id: Mapped[int] = mapped_column(primary_key=True)
    permit_id: Mapped[int] = mapped_column(ForeignKey("permits.id"), index=True)
    deputy_link_id: Mapped[int | None] = mapped_column(ForeignKey("deputy_links.id"))
    issue_no: Mapped[int] = mapped_column(Integer)
    printed_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    printed_by: Mapped[str] = mapped_column(String(64))
    reason: Mapped[str] = mapped_column(Text)
    layout: Mapped[str] = mapped_column(String(8))
    claim_sha256: Mapped[str | None] = mapped_column(String(64))  # what was signed (NULL before 0008)
    key_id: Mapped[str | None] = mapped_column(String(16))  # which key signed it


class Tender(Versioned, Base):
    """Licitação for mototáxi permits (Art. 6, 10 I)."""

    __tablename__ = "tenders"

    id: Mapped[int] = mapped_column(primary_key=True)
    number: Mapped[str] = mapped_column(String(32), unique=True)
    description: Mapped[str | None] = mapped_column(Text)
    homologated_on: Mapped[date | None] = mapped_column(Date)

    candidates: Mapped[list[TenderCandidate]] = relationship(order_by="TenderCandidate.rank")


class TenderCandidate(Versioned, Base):
    __tablename__ = "tender_candidates"
    __table_args__ = (
        UniqueConstraint("tender_id", "rank", name="uq_tender_candidates_tender_rank"),
        UniqueConstraint("tender_id", "cpf", name="uq_tender_candidates_tender_cpf"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    tender_id: Mapped[int] = mapped_column(ForeignKey("tenders.id", ondelete="CASCADE"))
    rank: Mapped[int] = mapped_column(Integer)
    cpf: Mapped[str] = mapped_column(String(11))
    name: Mapped[str] = mapped_column(String(200))
    person_id: Mapped[int | None] = mapped_column(ForeignKey("people.id"))
    status: Mapped[str] = mapped_column(String(16), default="waiting")  # waiting/called/accepted/declined/eliminated
    called_on: Mapped[date | None] = mapped_column(Date)


class DeputyLink(Versioned, Timestamps, Base):
    """A holder's deputy (preposto, Art. 14): one at a time, with a work schedule."""

    __tablename__ = "deputy_links"
    __table_args__ = _one_open("uq_deputy_links_active_permit", "permit_id")

    id: Mapped[int] = mapped_column(primary_key=True)
    permit_id: Mapped[int] = mapped_column(ForeignKey("permits.id"), index=True)
    deputy_person_id: Mapped[int] = mapped_column(ForeignKey("people.id"), index=True)
    start_on: Mapped[date] = mapped_column(Date)
    end_on: Mapped[date | None] = mapped_column(Date)
    end_reason: Mapped[str | None] = mapped_column(Text)
    schedule: Mapped[str | None] = mapped_column(Text)  # JSON: [{weekday, start, end, driver}] (Art. 14 § 3º)
    badge_issue_no: Mapped[int] = mapped_column(Integer, default=0)
    # A penalty decided against the deputy (Art. 34, III–IV): suspended until a date (the calendar lifts it),
    # or cassação, which also ends the link (end_on).
    suspended_until: Mapped[date | None] = mapped_column(Date)
    revoked: Mapped[bool] = mapped_column(Boolean, default=False)


class Organisation(Versioned, Timestamps, Base):
    """Cooperative, central, association or operator (Art. 9)."""

    __tablename__ = "organisations"

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))  # cooperative / central / association / operator
    name: Mapped[str] = mapped_column(String(200))
    cnpj: Mapped[str] = mapped_column(String(14), unique=True)
    address: Mapped[str | None] = mapped_column(String(300))
    phone: Mapped[str | None] = mapped_column(String(32))
    email: Mapped[str | None] = mapped_column(String(200))
    contact_name: Mapped[str | None] = mapped_column(String(200))


class Affiliation(Versioned, Base):
    """A holder's membership of an organisation (Art. 9º § 2º), which he may end at any time (§ 3º)."""

    __tablename__ = "affiliations"
    __table_args__ = _one_open("uq_affiliations_active_member", "organisation_id", "person_id")

    id: Mapped[int] = mapped_column(primary_key=True)
    organisation_id: Mapped[int] = mapped_column(ForeignKey("organisations.id"), index=True)
    person_id: Mapped[int] = mapped_column(ForeignKey("people.id"), index=True)
    start_on: Mapped[date] = mapped_column(Date)
    end_on: Mapped[date | None] = mapped_column(Date)


class Stand(Versioned, Timestamps, Base):
    """A ponto set by Decree with its places (Art. 17); never a bus or taxi stop (Art. 18)."""

    __tablename__ = "stands"
    __table_args__ = (
        CheckConstraint("NOT is_bus_or_taxi_stop", name="not_bus_or_taxi_stop"),
        CheckConstraint("max_places > 0", name="max_places_positive"),
        CheckConstraint("occupied >= 0 AND occupied <= max_places", name="occupied_within_places"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    decree_id: Mapped[int] = mapped_column(ForeignKey("decrees.id"))
    name: Mapped[str] = mapped_column(String(200))
    address: Mapped[str] = mapped_column(String(300))
    services: Mapped[str] = mapped_column(String(64))  # comma-separated ServiceType values
    max_places: Mapped[int] = mapped_column(Integer)
    occupied: Mapped[int] = mapped_column(Integer, default=0)
    is_bus_or_taxi_stop: Mapped[bool] = mapped_column(Boolean, default=False)
    active: Mapped[bool] = mapped_column(Boolean, default=True)


class StandAssignment(Versioned, Base):
    __tablename__ = "stand_assignments"
    __table_args__ = _one_open("uq_stand_assignments_active_permit", "permit_id")

    id: Mapped[int] = mapped_column(primary_key=True)
    stand_id: Mapped[int] = mapped_column(ForeignKey("stands.id"), index=True)
    permit_id: Mapped[int] = mapped_column(ForeignKey("permits.id"))
    start_on: Mapped[date] = mapped_column(Date)
    end_on: Mapped[date | None] = mapped_column(Date)
