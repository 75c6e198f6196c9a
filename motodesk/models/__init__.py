"""SQLAlchemy models: the data of MotoDesk on SQLite or PostgreSQL, with no business decisions."""

from motodesk.models.admin import AuditEvent, Setting, User
from motodesk.models.base import Base
from motodesk.models.enforcement import Decision, Defence, InfractionNotice
from motodesk.models.files import Attachment, Blob, Photo
from motodesk.models.people import Person, PersonDocument, PersonNameChange
from motodesk.models.permits import (
    Affiliation,
    Application,
    BadgePrint,
    Decree,
    DeputyLink,
    Organisation,
    Permit,
    PermitEvent,
    QuotaCounter,
    Stand,
    StandAssignment,
    Tender,
    TenderCandidate,
)
from motodesk.models.vehicles import Inspection, InspectionItem, Vehicle

__all__ = [
    "Affiliation", "Application", "Attachment", "AuditEvent", "BadgePrint", "Base", "Blob", "Decision",
    "Decree", "Defence", "DeputyLink", "InfractionNotice", "Inspection", "InspectionItem", "Organisation",
    "Permit", "PermitEvent", "Person", "PersonDocument", "PersonNameChange", "Photo", "QuotaCounter", "Setting",
    "Stand",
    "StandAssignment", "Tender", "TenderCandidate", "User", "Vehicle",
]
