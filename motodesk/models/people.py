"""People (applicants, holders, deputies) and the documents of their dossier (Art. 5)."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Boolean, Date, ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from motodesk.models.base import Base, Timestamps, UTCDateTime, Versioned, utcnow
from motodesk.models.types import DeclaredKind
from motodesk.rules.dossier import DocumentKind


class Person(Versioned, Timestamps, Base):
    """A natural person (Art. 6º §1): never a company."""

    __tablename__ = "people"
    __table_args__ = (Index("ix_people_name_search", "name_search"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    full_name: Mapped[str] = mapped_column(String(200))
    # Lower case, accents removed: what the search box compares against.
    name_search: Mapped[str] = mapped_column(String(200))
    cpf: Mapped[str] = mapped_column(String(11), unique=True)
    birth_date: Mapped[date | None] = mapped_column(Date)
    sex: Mapped[str | None] = mapped_column(String(1))
    mother_name: Mapped[str | None] = mapped_column(String(200))
    phone: Mapped[str | None] = mapped_column(String(32))
    email: Mapped[str | None] = mapped_column(String(200))
    address: Mapped[str | None] = mapped_column(String(300))
    district: Mapped[str | None] = mapped_column(String(100))
    city: Mapped[str | None] = mapped_column(String(100))
    uf: Mapped[str | None] = mapped_column(String(2))
    zip_code: Mapped[str | None] = mapped_column(String(8))
    # Art. 8: declared not to hold a taxi, school or collective transport permit.
    declares_no_other_permit: Mapped[bool | None] = mapped_column(Boolean)
    notes: Mapped[str | None] = mapped_column(Text)

    documents: Mapped[list[PersonDocument]] = relationship(
        back_populates="person", cascade="all, delete-orphan", order_by="PersonDocument.id"
    )


class PersonDocument(Versioned, Base):
    """One row of the dossier checklist: number, issuer, dates, result, and its scans."""

    __tablename__ = "person_documents"
    __table_args__ = (UniqueConstraint("person_id", "kind", name="uq_person_documents_person_kind"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    person_id: Mapped[int] = mapped_column(ForeignKey("people.id", ondelete="CASCADE"), index=True)
    kind: Mapped[DocumentKind] = mapped_column(DeclaredKind())
    number: Mapped[str | None] = mapped_column(String(64))
    issuer: Mapped[str | None] = mapped_column(String(100))
    issuer_uf: Mapped[str | None] = mapped_column(String(2))
    issue_date: Mapped[date | None] = mapped_column(Date)
    # Medical certificate: the day it was presented to the secretariat (Art. 5º, § 2º counts 30 days
    # from the tender's homologation to this day, not to the day the doctor signed it).
    presented_on: Mapped[date | None] = mapped_column(Date)
    valid_until: Mapped[date | None] = mapped_column(Date)
    # CNH: date of first category-A licence; course: completion date.
    reference_date: Mapped[date | None] = mapped_column(Date)
    categories: Mapped[str | None] = mapped_column(String(8))
    # CNH "EAR" remark (exerce atividade remunerada, CTB art. 147 §5); electoral quitação.
    flag: Mapped[bool | None] = mapped_column(Boolean)
    result: Mapped[str | None] = mapped_column(String(32))  # criminal: negative/positive
    school: Mapped[str | None] = mapped_column(String(200))
    notes: Mapped[str | None] = mapped_column(Text)

    person: Mapped[Person] = relationship(back_populates="documents")


class PersonNameChange(Base):
    """A change of a person's name (marriage, court correction): who, when, why, on which document.

    A permit is personal (Art. 6º, § 1º, Art. 7º): the name of a holder, applicant or deputy
    changes only this way, by a supervisor, with the supporting document attached.
    """

    __tablename__ = "person_name_changes"

    id: Mapped[int] = mapped_column(primary_key=True)
    person_id: Mapped[int] = mapped_column(ForeignKey("people.id", ondelete="CASCADE"), index=True)
    old_name: Mapped[str] = mapped_column(String(200))
    new_name: Mapped[str] = mapped_column(String(200))
    reason: Mapped[str] = mapped_column(Text)
    attachment_id: Mapped[int] = mapped_column(ForeignKey("attachments.id"))
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    by_user: Mapped[str] = mapped_column(String(64))
