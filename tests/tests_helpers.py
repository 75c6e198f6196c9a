"""Small helpers for tests (importable as `tests_helpers` from any test)."""

from __future__ import annotations

from validate_docbr import CPF

_cpf = CPF()
_seen: set[str] = set()


def valid_cpf() -> str:
    """A fresh valid CPF (digits only), never the same twice in a test run."""
    while True:
        value = _cpf.generate()
        if value not in _seen and len(set(value)) > 1:
            _seen.add(value)
            return value
