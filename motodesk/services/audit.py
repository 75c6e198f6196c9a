"""The audit trail's tamper evidence: walk the hash chain and name the first broken link."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from motodesk.models.audit import ChainBreak, verify_chain
from motodesk.rules.common import Role
from motodesk.rules.text import format_int
from motodesk.services.clock import local_time
from motodesk.services.context import AppContext, requires


@dataclass(frozen=True)
class AuditVerification:
    rows: int
    broken: ChainBreak | None

    @property
    def intact(self) -> bool:
        return self.broken is None

    @property
    def message(self) -> str:
        """The pt_BR sentence for the administrator."""
        if self.broken is None:
            return (f"Trilha de auditoria íntegra: {format_int(self.rows)} registro(s), "
                    "cada um encadeado ao anterior.")
        b = self.broken
        when = _shown(b.at) if b.at is not None else "data desconhecida"
        return (f"Trilha de auditoria ADULTERADA: o primeiro elo quebrado é o registro nº {b.row_id} "
                f"({when}): {b.reason}. Os registros anteriores a ele conferem.")


def _shown(at: datetime) -> str:
    return local_time(at).strftime("%d/%m/%Y %H:%M:%S")


@requires(Role.ADMIN)
def verify_audit_trail(ctx: AppContext) -> AuditVerification:
    """Recompute every link of the chain (SQLite and PostgreSQL alike)."""
    with ctx.read() as s:
        report = verify_chain(s.connection())
    return AuditVerification(report.rows, report.broken)
