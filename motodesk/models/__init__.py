"""SQLAlchemy models: the data of MotoDesk on SQLite or PostgreSQL, with no business decisions."""

from motodesk.models.access import AccessRecord
from motodesk.models.admin import AuditEvent, Setting, User
from motodesk.models.audit import APPEND_ONLY_TABLES  # noqa: E402  (after the tables it guards)
from motodesk.models.base import Base
from motodesk.models.campaigns import AppointmentEvent, Campaign, CampaignAppointment
from motodesk.models.cards import CardBatch, CardUse, SpoiledCard
from motodesk.models.checkpoints import AuditCheckpoint
from motodesk.models.enforcement import CriminalJudgment, Decision, Defence, InfractionNotice
from motodesk.models.fees import FeePayment
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
from motodesk.models.vehicles import Inspection, InspectionItem, Vehicle, VehicleAccident

__all__ = [
    "APPEND_ONLY_TABLES", "AccessRecord", "Affiliation", "Application", "AppointmentEvent", "Attachment",
    "AuditCheckpoint", "AuditEvent", "BadgePrint", "Base", "Blob", "Campaign", "CampaignAppointment", "CardBatch", "CardUse",
    "CriminalJudgment", "Decision", "Decree", "Defence", "DeputyLink", "FeePayment", "InfractionNotice",
    "Inspection", "InspectionItem", "Organisation", "Permit", "PermitEvent", "Person", "PersonDocument",
    "PersonNameChange", "Photo", "QuotaCounter", "Setting", "SpoiledCard", "Stand",
    "StandAssignment", "Tender", "TenderCandidate", "User", "Vehicle", "VehicleAccident",
]

import motodesk.models.guarded  # noqa: E402, F401  (registers the guard of legal state on every session)
