"""Vocabulary shared by every rule: services, roles, verdicts, permit states."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class ServiceType(StrEnum):
    """The three paid motorcycle services of Art. 2."""

    MOTOTAXI = "mototaxi"
    MOTOBOY = "motoboy"
    MOTOFRETE = "motofrete"

    @property
    def label(self) -> str:
        return {"mototaxi": "Mototáxi", "motoboy": "Motoboy", "motofrete": "Moto-frete"}[self.value]

    @property
    def code(self) -> str:
        """Two-letter prefix of permit numbers (MT-0007/2026)."""
        return {"mototaxi": "MT", "motoboy": "MB", "motofrete": "MF"}[self.value]

    @property
    def instrument(self) -> str:
        """Art. 6: permissão for mototáxi, autorização for the others."""
        return "permissão" if self is ServiceType.MOTOTAXI else "autorização"


class Role(StrEnum):
    CLERK = "clerk"
    INSPECTOR = "inspector"
    SUPERVISOR = "supervisor"
    ADMIN = "admin"

    @property
    def label(self) -> str:
        return {
            "clerk": "Atendente",
            "inspector": "Vistoriador/Fiscal",
            "supervisor": "Supervisor",
            "admin": "Administrador",
        }[self.value]


class Status(StrEnum):
    """Outcome of one rule on one reference date."""

    MET = "met"
    NOT_MET = "not_met"
    PENDING = "pending"

    @property
    def label(self) -> str:
        return {"met": "Atendido", "not_met": "Não atendido", "pending": "Pendente"}[self.value]


@dataclass(frozen=True)
class Verdict:
    """One rule's answer: which article, met or not, and why in pt_BR."""

    rule_id: str
    article: str
    status: Status
    message: str
    missing: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return self.status is Status.MET


def not_met(rule_id: str, article: str, sentence: str, missing: tuple[str, ...] = ()) -> Verdict:
    """The law's refusal: ``rule_id`` not met, the sentence introduced by its article.

    The one helper every rule module uses to write a refusal (``"Art. 14: o titular …"``).
    """
    return Verdict(rule_id, article, Status.NOT_MET, f"{article}: {sentence}", missing)


class PermitState(StrEnum):
    """States of an application and the permit it becomes (SPEC §4)."""

    REQUESTED = "requested"
    UNDER_REVIEW = "under_review"
    APPROVED = "approved"
    REFUSED = "refused"
    ACTIVE = "active"
    SUSPENDED = "suspended"
    EXPIRED = "expired"
    CANCELLED = "cancelled"
    REVOKED = "revoked"

    @property
    def label(self) -> str:
        return {
            "requested": "Requerida",
            "under_review": "Em análise",
            "approved": "Aprovada",
            "refused": "Indeferida",
            "active": "Em vigor",
            "suspended": "Suspensa",
            "expired": "Expirada",
            "cancelled": "Cancelada a pedido",
            "revoked": "Cassada",
        }[self.value]

    @property
    def in_force(self) -> bool:
        """Counts against the quota and blocks a second permit (Art. 6 §2, Art. 10 I)."""
        return self in IN_FORCE_STATES


#: The states of a permit in force: they count against the quota and block a second one.
IN_FORCE_STATES = (PermitState.ACTIVE, PermitState.SUSPENDED)
#: The states of a requerimento not yet decided (one per person at a time).
OPEN_APPLICATION_STATES = (PermitState.REQUESTED, PermitState.UNDER_REVIEW, PermitState.APPROVED)
