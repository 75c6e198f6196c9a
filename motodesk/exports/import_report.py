"""What reading a register gives: one :class:`ImportRow` per data line, in an :class:`ImportReport`.

Each line carries its normalised values and its pt_BR errors and warnings; the report carries why a
file was refused, when it was, and :func:`render_report` writes it as text. Reading is
:mod:`motodesk.exports.importer`'s, persisting the services layer's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class ImportRow:
    """One data line of the spreadsheet: ``line`` is the sheet's row number."""

    line: int
    values: dict[str, Any]
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def key(self) -> str | None:
        """The upsert key: the CPF's 11 digits (None when the CPF is missing or invalid)."""
        cpf = self.values.get("cpf")
        return cpf if isinstance(cpf, str) and len(cpf) == 11 else None


@dataclass
class ImportReport:
    """The outcome of reading a file: its rows, or why the file was refused."""

    rows: list[ImportRow] = field(default_factory=list)
    file_errors: list[str] = field(default_factory=list)
    file_warnings: list[str] = field(default_factory=list)
    sheet_name: str | None = None
    header_row: int | None = None

    @property
    def ok(self) -> bool:
        """The file was read and every row is valid."""
        return not self.file_errors and all(r.ok for r in self.rows)

    @property
    def accepted(self) -> list[ImportRow]:
        return [r for r in self.rows if r.ok] if not self.file_errors else []

    @property
    def refused(self) -> list[ImportRow]:
        return [r for r in self.rows if not r.ok]


def render_report(report: ImportReport) -> str:
    """The pt_BR text report: a summary, then one line per data line."""
    out: list[str] = []
    if report.file_errors:
        out.append("Arquivo recusado; nenhuma linha foi importada.")
        out.extend(f"- {e}" for e in report.file_errors)
        out.extend(f"- Aviso: {w}" for w in report.file_warnings)
        return "\n".join(out) + "\n"
    total = len(report.rows)
    accepted = sum(1 for r in report.rows if r.ok)
    refused = total - accepted
    out.append(
        f"{total} {'linha lida' if total == 1 else 'linhas lidas'}"
        + (f' da aba "{report.sheet_name}"' if report.sheet_name else "")
        + f": {accepted} {'importada' if accepted == 1 else 'importadas'}, "
        f"{refused} {'recusada' if refused == 1 else 'recusadas'}."
    )
    out.extend(f"Aviso: {w}" for w in report.file_warnings)
    for row in report.rows:
        if row.ok:
            line = f"Linha {row.line}: importada"
        else:
            line = f"Linha {row.line}: recusada — " + "; ".join(e.rstrip(".") for e in row.errors)
        if row.warnings:
            line += " — aviso: " + "; ".join(w.rstrip(".") for w in row.warnings)
        out.append(line)
    return "\n".join(out) + "\n"
