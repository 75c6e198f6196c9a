"""Errors a service raises: each message is pt_BR and safe to show to a clerk as it is."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from motodesk.rules.common import Verdict


class MotodeskError(Exception):
    """Base of every expected error; `str(exc)` is the pt_BR message."""

    title = "Não foi possível concluir"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ConflictError(MotodeskError):
    """Another workstation saved the same record first (optimistic locking)."""

    title = "Registro alterado por outra estação"


class PermissionDeniedError(MotodeskError):
    title = "Acesso negado"


class NotFoundError(MotodeskError):
    title = "Registro não encontrado"


class DatabaseUnavailableError(MotodeskError):
    title = "Banco de dados indisponível"


class AuthenticationError(MotodeskError):
    title = "Acesso não autorizado"


class InvalidInputError(MotodeskError):
    """Bad input: a message per field (field key -> pt_BR reason), nothing stored."""

    title = "Dados inválidos"

    def __init__(self, message: str, fields: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.fields = dict(fields or {})


class RuleViolationError(MotodeskError):
    """The law says no: the blocking verdicts, each with its article."""

    title = "Impedimento legal"

    def __init__(self, verdicts: Sequence[Verdict], intro: str | None = None) -> None:
        lines = [v.message for v in verdicts]
        message = "\n".join(([intro] if intro else []) + lines)
        super().__init__(message)
        self.verdicts = list(verdicts)
