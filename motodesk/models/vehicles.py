"""Motorcycles and their inspections (Art. 3, 5 §1, 19, 22, 23)."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Boolean, Date, ForeignKey, Index, Integer, String, Text, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from motodesk.models.base import Base, Timestamps, UTCDateTime, Versioned
from motodesk.models.types import enum_column
from motodesk.rules.common import ServiceType


class Vehicle(Versioned, Timestamps, Base):
    __tablename__ = "vehicles"
    __table_args__ = (
        # Art. 6 §2: one vehicle per holder; a plate belongs to one active vehicle.
        Index("uq_vehicles_active_holder", "holder_id", unique=True,
              sqlite_where=text("active = 1"), postgresql_where=text("active")),
        Index("uq_vehicles_active_plate", "plate", unique=True,
              sqlite_where=text("active = 1"), postgresql_where=text("active")),
        Index("ix_vehicles_renavam", "renavam"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    plate: Mapped[str] = mapped_column(String(7))
    renavam: Mapped[str | None] = mapped_column(String(11))
    vin: Mapped[str | None] = mapped_column(String(17))
    make: Mapped[str | None] = mapped_column(String(60))
    model: Mapped[str | None] = mapped_column(String(60))
    year_manufacture: Mapped[int | None] = mapped_column(Integer)
    year_model: Mapped[int | None] = mapped_column(Integer)
    engine_cc: Mapped[int | None] = mapped_column(Integer)
    colour: Mapped[str | None] = mapped_column(String(40))
    category: Mapped[str | None] = mapped_column(String(20))  # aluguel / particular
    crlv_year: Mapped[int | None] = mapped_column(Integer)
    crlv_municipality: Mapped[str | None] = mapped_column(String(100))
    crlv_uf: Mapped[str | None] = mapped_column(String(2))
    owner_name: Mapped[str | None] = mapped_column(String(200))
    owner_cpf: Mapped[str | None] = mapped_column(String(11))
    # Seguro obrigatório (DPVAT/SPVAT, Art. 5º, § 1º, I and § 5º): its validity, number and insured person.
    insurance_valid_until: Mapped[date | None] = mapped_column(Date)
    insurance_number: Mapped[str | None] = mapped_column(String(40))
    insurance_insured_name: Mapped[str | None] = mapped_column(String(200))
    insurance_insured_cpf: Mapped[str | None] = mapped_column(String(11))
    passenger_insurance_valid_until: Mapped[date | None] = mapped_column(Date)
    service_type: Mapped[ServiceType | None] = mapped_column(enum_column(ServiceType))
    holder_id: Mapped[int | None] = mapped_column(ForeignKey("people.id"), index=True)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    replaced_by_id: Mapped[int | None] = mapped_column(ForeignKey("vehicles.id"))
    replacement_authorised_by: Mapped[str | None] = mapped_column(String(64))
    replacement_authorised_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    replacement_reason: Mapped[str | None] = mapped_column(Text)
    notes: Mapped[str | None] = mapped_column(Text)


class Inspection(Versioned, Timestamps, Base):
    """A vistoria: scheduled, then a draft, then approved or failed; never edited once approved."""

    __tablename__ = "inspections"

    id: Mapped[int] = mapped_column(primary_key=True)
    vehicle_id: Mapped[int] = mapped_column(ForeignKey("vehicles.id"), index=True)
    service_type: Mapped[ServiceType] = mapped_column(enum_column(ServiceType))
    kind: Mapped[str] = mapped_column(String(16))  # regular / reinspection / accident / semestral / annual
    status: Mapped[str] = mapped_column(String(16))  # scheduled / draft / approved / failed / superseded
    scheduled_for: Mapped[date | None] = mapped_column(Date, index=True)
    performed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    inspector_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    # As printed on the laudo: the name of the user who concluded it, kept if the user is renamed.
    inspector_name: Mapped[str | None] = mapped_column(String(200))
    next_due: Mapped[date | None] = mapped_column(Date)
    parent_id: Mapped[int | None] = mapped_column(ForeignKey("inspections.id"))
    superseded_by_id: Mapped[int | None] = mapped_column(ForeignKey("inspections.id"))
    supersede_reason: Mapped[str | None] = mapped_column(Text)
    report_sha256: Mapped[str | None] = mapped_column(ForeignKey("blobs.sha256"))
    notes: Mapped[str | None] = mapped_column(Text)

    items: Mapped[list[InspectionItem]] = relationship(
        back_populates="inspection", cascade="all, delete-orphan", order_by="InspectionItem.position"
    )


class InspectionItem(Base):
    __tablename__ = "inspection_items"
    __table_args__ = (UniqueConstraint("inspection_id", "code", name="uq_inspection_items_inspection_code"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    inspection_id: Mapped[int] = mapped_column(ForeignKey("inspections.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    code: Mapped[str] = mapped_column(String(32))
    article: Mapped[str] = mapped_column(String(64))
    text: Mapped[str] = mapped_column(Text)
    result: Mapped[str | None] = mapped_column(String(16))  # ok / not_ok / not_applicable
    note: Mapped[str | None] = mapped_column(Text)

    inspection: Mapped[Inspection] = relationship(back_populates="items")


class VehicleAccident(Timestamps, Base):
    """An accident of the vehicle (Art. 31, Grupo 2, II; Grupo 4, I): when it happened and was reported.

    ``safety_compromised`` accidents block every document of the permit until an accident
    inspection approves the vehicle after ``happened_on`` (:mod:`motodesk.rules.document_gate`).
    """

    __tablename__ = "vehicle_accidents"

    id: Mapped[int] = mapped_column(primary_key=True)
    vehicle_id: Mapped[int] = mapped_column(ForeignKey("vehicles.id"), index=True)
    happened_on: Mapped[date] = mapped_column(Date)
    reported_on: Mapped[date] = mapped_column(Date)
    safety_compromised: Mapped[bool] = mapped_column(Boolean)
    description: Mapped[str | None] = mapped_column(Text)
    recorded_by: Mapped[str] = mapped_column(String(64))
