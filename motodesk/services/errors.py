"""Errors a service raises: each message is pt_BR and safe to show to a clerk as it is.

Each error also carries a stable ``code`` (``"conflict"``, ``"invalid_input"`` …), listed with its
meaning in :mod:`motodesk.services.error_codes`: tests and the command line name a refusal by its
code (a rule's refusal by the ``rule_id`` of its verdicts), never by its Portuguese wording.
A class sets ``code``; one raise may name a finer one (``InvalidInputError(msg, code="…")``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from motodesk.rules.common import Verdict


def _snake(name: str) -> str:
    base = name.removesuffix("Error") or name
    return re.sub(r"(?<!^)(?=[A-Z])", "_", base).lower()


class MotodeskError(Exception):
    """Base of every expected error; `str(exc)` is the pt_BR message, `code` its stable name."""

    title = "Não foi possível concluir"
    code = "error"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "code" not in cls.__dict__:  # a subclass outside this module that names none: its class name
            cls.code = _snake(cls.__name__)

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class ConflictError(MotodeskError):
    """Another workstation saved the same record first (optimistic locking)."""

    title = "Registro alterado por outra estação"
    code = "conflict"


class PermissionDeniedError(MotodeskError):
    title = "Acesso negado"
    code = "permission_denied"


class NotFoundError(MotodeskError):
    title = "Registro não encontrado"
    code = "not_found"


class DatabaseUnavailableError(MotodeskError):
    title = "Banco de dados indisponível"
    code = "database_unavailable"


class AuthenticationError(MotodeskError):
    title = "Acesso não autorizado"
    code = "authentication"


class InvalidInputError(MotodeskError):
    """Bad input: a message per field (field key -> pt_BR reason), nothing stored."""

    title = "Dados inválidos"
    code = "invalid_input"

    def __init__(self, message: str, fields: Mapping[str, str] | None = None, *, code: str | None = None) -> None:
        super().__init__(message, code=code)
        self.fields = dict(fields or {})


class RuleViolationError(MotodeskError):
    """The law says no: the blocking verdicts, each with its article (and its ``rule_id``)."""

    title = "Impedimento legal"
    code = "rule_violation"

    def __init__(self, verdicts: Sequence[Verdict], intro: str | None = None, *, code: str | None = None) -> None:
        lines = [v.message for v in verdicts]
        message = "\n".join(([intro] if intro else []) + lines)
        super().__init__(message, code=code)
        self.verdicts = list(verdicts)

    @property
    def rule_ids(self) -> tuple[str, ...]:
        """The ``rule_id`` of each blocking verdict, in order."""
        return tuple(v.rule_id for v in self.verdicts)
