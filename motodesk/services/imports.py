"""Import of the secretariat's existing register (xlsx): preview first, then all confirmed rows or none.

:func:`preview_import` reads the file with :func:`motodesk.exports.importer.read_import` (format,
validators, dates, formulas, duplicates in the sheet) and checks every row against the rules and the
database, writing nothing:

* the person, by CPF: a new person, an update (which fields change), or "já existe, sem alterações";
  the fields go through :func:`motodesk.services.people.validate_person` and
  :func:`~motodesk.services.people.validate_document` — the dossier's own checks;
* the law: 21 years of age (Art. 5º, I) and category A held for 2 years (Art. 5º, II) refuse a row;
  what simply falls due (an expired CNH, a vehicle past its useful life) is a warning and shows up
  in Prazos after the import;
* the vehicle (when a plate is given), linked to the holder: a plate on another holder's active
  vehicle, or a holder who already has another active vehicle (Art. 6º, § 2º), refuse the row;
  125–250 cc (Art. 3º, I);
* the permit (when a number is given): its code must match the service, the number must not belong
  to someone else, the holder may have no other permit in force (Art. 6º, § 2º), and a mototáxi
  permit in force needs a place in the quota (Art. 10, I).

:func:`apply_import` then writes the rows the clerk confirmed, in ONE transaction: it plans them
again against the database as it is now (another workstation may have moved on since the
preview), and if any confirmed row would now be refused, nothing at all is written. Rows are upserted
by CPF, so importing the same file again creates nothing and — when nothing changed — writes
nothing. An empty cell never erases what the register holds.

Permits come in as they stand in the secretariat's books: in force until the end of the 5-year
term (Art. 6º), expired after it; their registration certificate counts as valid until the next
anniversary of issue (the books do not say when it was last renewed). Each one gets an "import"
event naming the file and the line.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from motodesk.exports.importer import ImportRow, read_import
from motodesk.models import Permit, PersonDocument
from motodesk.models.audit import chain_tip, run_prepared
from motodesk.models.base import utcnow
from motodesk.models.staged import StagedInserts
from motodesk.rules import acts
from motodesk.rules.common import Role, Verdict
from motodesk.rules.settings import LawSettings
from motodesk.rules.validators import format_cpf
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext, requires
from motodesk.services.errors import InvalidInputError
from motodesk.services.facts import permits_facts
from motodesk.services.import_known import FileKeys as _FileKeys
from motodesk.services.import_known import Known as _Known
from motodesk.services.import_known import among_values as _among
from motodesk.services.import_known import chunks as _chunks
from motodesk.services.import_known import load_known as _load_known
from motodesk.services.import_plan import (
    ImportLine,
    Outcome,
    _gc_paused,
    _Packed,
    _plan_with,
    _release_freed_memory,
    _with_plan,
)
from motodesk.services.import_write import (
    _claim_places,
    _last_ids,
    _register_version,
    _Sink,
    _unpack_prepared,
    _write_parts,
)
from motodesk.services.judged import judged
from motodesk.services.maintenance import analyze
from motodesk.services.settings import law_settings

__all__ = [
    "ImportLine",
    "ImportPreview",
    "ImportSummary",
    "Outcome",
    "apply_import",
    "preview_import",
    "render_preview",
    "render_summary",
]

IMPORTERS = (Role.CLERK, Role.SUPERVISOR)


@dataclass
class ImportPreview:
    """What importing ``path`` would do; nothing has been written."""

    path: Path
    sheet_name: str | None
    file_errors: list[str]
    file_warnings: list[str]
    lines: list[ImportLine]  # a short summary per line; the plans of importable lines are in ``plans``
    notes: list[str] = field(default_factory=list)
    rows: _Packed = field(default_factory=_Packed, repr=False)  # as read, packed: the apply may plan them again
    plans: _Packed = field(default_factory=_Packed, repr=False)  # each importable line's plan (_Plan), packed
    # what the judgement depended on: the apply reuses it when none of it has changed
    known: _Known | None = field(default=None, repr=False)
    today: date | None = None
    settings: LawSettings | None = field(default=None, repr=False)
    keys: _FileKeys | None = field(default=None, repr=False)  # the preview's rows' CPFs, plates, numbers
    version: tuple[Any, ...] | None = field(default=None, repr=False)  # the register's stamp (SQLite)

    @property
    def file_ok(self) -> bool:
        return not self.file_errors

    def planned(self, number: int) -> ImportLine:
        """Line ``number`` with its plan (person, documents, vehicle, permit) unpacked."""
        line = next(line for line in self.lines if line.line == number)
        plan = next((plan for plan in self.plans if plan[0] == number), None)
        return _with_plan(line, plan) if plan is not None else line

    def count(self, outcome: Outcome) -> int:
        return sum(1 for line in self.lines if line.outcome is outcome)

    @property
    def importable(self) -> list[ImportLine]:
        return [line for line in self.lines if line.importable]

    @property
    def refused(self) -> list[ImportLine]:
        return [line for line in self.lines if line.outcome is Outcome.REFUSED]


@dataclass(frozen=True)
class ImportSummary:
    created: int
    updated: int
    unchanged: int
    vehicles: int
    permits: int
    lines: tuple[ImportLine, ...]
    #: Seconds spent inside the one write transaction (on SQLite: the write lock held).
    write_seconds: float = 0.0
    #: Today's facts of each permit recorded from the register, judged by the same rules as every act:
    #: (holder, permit number, the articles not met), one entry per holder with a non-conformity.
    #: Packed (issue 28: ten messages a permit, 150 MB as strings at 50,000 permits): iterate, or ``len``.
    findings: Collection[tuple[str, str, tuple[str, ...]]] = ()

    @property
    def written(self) -> int:
        return self.created + self.updated


# --- the two actions -----------------------------------------------------------------------------


@requires(*IMPORTERS)
def preview_import(ctx: AppContext, path: str | Path, *, today: date | None = None,
                   progress: Callable[[int], None] | None = None) -> ImportPreview:
    """Read and judge the file; writes nothing. A bad file gives ``file_errors`` and no lines."""
    path = Path(path)
    today = today or local_today()
    with _gc_paused():
        report = read_import(path, today=today, progress=progress)
    _release_freed_memory()  # the reader's grid, freed, goes back to the system before the judging
    if report.file_errors:
        return ImportPreview(path, report.sheet_name, list(report.file_errors), list(report.file_warnings), [])
    settings = law_settings(ctx)
    with _gc_paused():
        keys = _FileKeys.of([r for r in report.rows if r.ok])
        with ctx.read() as s:
            version = _register_version(s)
            known = _load_known(s, keys)
        rows = _Packed()
        lines, plans = _plan_with(known, report.rows, settings, today, keys, rows)
    sheet, warnings = report.sheet_name, list(report.file_warnings)
    del report  # the parsed rows are packed now
    _release_freed_memory()  # their heap back to the system: the apply that follows starts lower
    notes = []
    if any(line.permit_number is not None and line.outcome is not Outcome.REFUSED for line in lines):
        notes.append("Permissões importadas: o certificado de registro conta como válido até o próximo aniversário "
                     "da emissão (Art. 4º, § 1º); confira na renovação anual.")
    return ImportPreview(path, sheet, [], warnings, lines, notes, rows, plans, known, today, settings, keys, version)


_INTEGRITY = {
    "uq_people_cpf": "Outra estação cadastrou agora uma das pessoas da planilha (mesmo CPF); nada foi importado. "
                     "Confira a planilha de novo.",
    "cols:people.cpf": "Outra estação cadastrou agora uma das pessoas da planilha (mesmo CPF); nada foi importado. "
                       "Confira a planilha de novo.",
    "uq_vehicles_active_plate": "Uma das placas da planilha foi cadastrada agora em outra estação; nada foi importado.",
    "uq_permits": "Uma das permissões da planilha foi cadastrada agora em outra estação; nada foi importado.",
    "cols:permits": "Uma das permissões da planilha foi cadastrada agora em outra estação; nada foi importado.",
}


@dataclass
class _Judged:
    """The apply's judgement, made outside the write lock: the lines, their packed plans, what the judgement
    read (``known``, from the register as stamped by ``version``) and, for new rows only, the inserts
    prepared in a read transaction (``sink``, the largest ids it saw, the counts it would write)."""

    lines: list[ImportLine]
    plans: _Packed
    known: _Known
    version: tuple[Any, ...] | None
    sink: _Sink | None = None
    last_ids: tuple[int, ...] = ()
    prepared_counts: tuple[int, int] = (0, 0)
    staged: StagedInserts | None = None  # SQLite: the prepared inserts staged in TEMP before the lock

    @property
    def work(self) -> dict[int, ImportLine]:
        return {line.line: line for line in self.lines if line.importable}


class _ChosenRows:
    """The values the clerk saw in the preview for the chosen lines, unpacked only to judge again."""

    def __init__(self, preview: ImportPreview, chosen: set[int]) -> None:
        self.preview, self.chosen = preview, chosen
        self._rows: list[ImportRow] | None = None

    def __call__(self) -> list[ImportRow]:
        if self._rows is None:
            self._rows = [r for r in self.preview.rows if r.line in self.chosen]
        return self._rows


@requires(*IMPORTERS)
def apply_import(ctx: AppContext, preview: ImportPreview, confirmed_lines: Iterable[int] | None = None, *,
                 today: date | None = None) -> ImportSummary:
    """Write the confirmed lines (default: every importable line) in one transaction: all or none.

    The rows are judged again (validators, rules, the database as it is now) in a READ transaction,
    and every row to insert is built there too; the write transaction then only re-reads what the
    judgement depended on — the file's people, plates and permit numbers, the quota — and, when the
    register has not moved, writes the plan with a few bulk statements (the audit rows in bulk too).
    If the register did move meanwhile, the rows are judged once more inside the write transaction,
    as before: a row that would now be refused refuses the whole import. So SQLite's write lock is
    held for the writing, not for the judging (``ImportSummary.write_seconds``).
    """
    chosen = _confirmed(preview, confirmed_lines)
    today = today or local_today()
    settings = law_settings(ctx)
    # Every line the preview found importable, the same day and settings: if the register still holds
    # what the preview read, the preview's judgement is the judgement (it is a function of the rows,
    # what it read, the settings and the day; a refused line never claims a plate, a number or a
    # place, so leaving it out changes no other line).
    whole = (preview.known is not None and today == preview.today and settings == preview.settings
             and chosen == {line.line for line in preview.lines if line.outcome is not Outcome.REFUSED})
    rows = _ChosenRows(preview, chosen)
    # The rows' keys are parsed once (the preview's, when every line goes in): the transactions below only
    # look them up.
    keys = preview.keys if whole and preview.keys is not None else _FileKeys.of([r for r in rows() if r.ok])
    file_name, user = preview.path.name, ctx.user.login
    with _gc_paused():  # judged outside the write lock
        judged_ = _judge(ctx, preview, whole, rows, settings, today, keys)
        if judged_.work and not any(line.outcome is Outcome.UPDATE for line in judged_.work.values()):
            _prepare(ctx, judged_, file_name, user)
    if not judged_.work:  # the register already holds the sheet: no write transaction at all
        return ImportSummary(0, 0, len(judged_.lines), 0, 0, tuple(judged_.lines))
    started = time.perf_counter()
    sink = judged_.sink
    if sink is not None and sink.tip is not None:  # SQLite, hashed ahead: the rows staged before the lock
        judged_.staged = StagedInserts(lambda: ([_unpack_prepared(p) for p in part] for part in sink.packed), user)
    staged = judged_.staged
    with _gc_paused(), ctx.write(_INTEGRITY, before_begin=staged.stage if staged is not None else None) as s:
        lines, vehicles, permits = _write_judged(s, judged_, rows, settings, today, keys, file_name, user)
    # The write lock is taken after the staging (SQLite: BEGIN IMMEDIATE follows it on the same connection).
    written = time.perf_counter() - (staged.staged_at if staged is not None and staged.staged_at else started)
    del judged_  # the prepared rows go before the findings load their facts
    _refresh_statistics(ctx)
    return ImportSummary(
        created=sum(1 for line in lines if line.outcome is Outcome.NEW),
        updated=sum(1 for line in lines if line.outcome is Outcome.UPDATE),
        unchanged=sum(1 for line in lines if line.outcome is Outcome.UNCHANGED),
        vehicles=vehicles, permits=permits, lines=tuple(lines), write_seconds=written,
        findings=_findings(ctx, [line.permit_number for line in lines if line.permit_number is not None],
                           settings, today),
    )


def _confirmed(preview: ImportPreview, confirmed_lines: Iterable[int] | None) -> set[int]:
    """The lines to write (default: every line not refused), or InvalidInputError for a refused or unknown one."""
    if preview.file_errors:
        raise InvalidInputError("O arquivo foi recusado: nada a importar.\n" + "\n".join(preview.file_errors), code="import.file_refused")
    by_line = {line.line: line for line in preview.lines}
    wanted = sorted(set(confirmed_lines)) if confirmed_lines is not None else [
        line.line for line in preview.lines if line.outcome is not Outcome.REFUSED]
    problems = [n for n in wanted if n not in by_line or by_line[n].outcome is Outcome.REFUSED]
    if problems:
        raise InvalidInputError("Linhas recusadas ou inexistentes não podem ser confirmadas: "
                                + ", ".join(str(n) for n in problems) + ". Nada foi importado.", code="import.rows_not_confirmable")
    return set(wanted)


def _judge(ctx: AppContext, preview: ImportPreview, whole: bool, rows: _ChosenRows, settings: LawSettings,
           today: date, keys: _FileKeys) -> _Judged:
    """The chosen lines judged in a READ transaction (the preview's judgement when nothing it read moved)."""
    with ctx.read() as s:
        version = _register_version(s)  # first: the stamp of the snapshot the judgement reads
        if whole and version is not None and version == preview.version and preview.known is not None:
            known = preview.known  # on SQLite: nothing at all was written since the preview read it
        else:
            known = _load_known(s, keys)
    if whole and known == preview.known:
        lines, plans = [line for line in preview.lines if line.outcome is not Outcome.REFUSED], preview.plans
    else:
        lines, plans = _plan_with(known, rows(), settings, today, keys)
    _refuse_changed(lines)
    return _Judged(lines, plans, known, version)


def _prepare(ctx: AppContext, judged_: _Judged, file_name: str, user: str) -> None:
    """New rows only: build every insert in a read transaction (ids reserved from what it saw, value tuples,
    audit payloads and, on SQLite, the chain's hashes from the tip it saw, packed part by part), so the write
    lock holds only the inserts (the hashes again only if another write moved the chain's tip meanwhile)."""
    judged_.sink = _Sink(user=user)
    with ctx.read() as s:
        judged_.last_ids = _last_ids(s)
        if s.get_bind().dialect.name == "sqlite":  # the chain's hashes too, from the tip this read sees
            judged_.sink.tip, judged_.sink.at = chain_tip(s.connection()), utcnow()
        judged_.prepared_counts = _write_parts(s, judged_.work, judged_.plans, file_name, user, judged_.sink)


def _write_judged(s: Session, judged_: _Judged, rows: _ChosenRows, settings: LawSettings, today: date,
                  keys: _FileKeys, file_name: str, user: str) -> tuple[list[ImportLine], int, int]:
    """Inside the write transaction: check that the register has not moved since the judging (judge again
    here if it has), then write: (the lines as judged, vehicles, permits)."""
    # On SQLite (the write lock is held from here) a cheap stamp says whether anything was written since
    # the judging read the register; only then are the file's keys read again. On PostgreSQL they are.
    lines, plans, work = judged_.lines, judged_.plans, judged_.work
    stamp = _register_version(s)
    if stamp is not None and stamp == judged_.version:
        moved = False
    else:
        now = _load_known(s, keys)
        moved = now != judged_.known
    if moved:  # another workstation moved on: judge again, here, on what this transaction read
        lines, plans = _plan_with(now, rows(), settings, today, keys)
        _refuse_changed(lines)
        work = {line.line: line for line in lines if line.importable}
    # The judged step of the import: every line judged importable in this transaction's facts; it records
    # permits granted before and their holders' certificates, never a vehicle in service (Art. 31, G3, II).
    sink = judged_.sink
    with judged(s, _line_verdicts(lines), Permit, PersonDocument):
        if sink is not None and not moved and (stamp[3] if stamp is not None else _last_ids(s)) == judged_.last_ids:
            # Nothing moved since the inserts were prepared: the same judgement, the same ids; staged
            # in TEMP, one INSERT … SELECT a table, unless the chain's tip moved since they were hashed.
            if judged_.staged is None or not judged_.staged.run(s):
                for part in sink.packed:  # one part of the plans' prepared inserts at a time
                    run_prepared(s, [_unpack_prepared(p) for p in part])
            if sink.places:
                _claim_places(s, sink.places)
            vehicles, permits = judged_.prepared_counts
        else:
            vehicles, permits = _write_parts(s, work, plans, file_name, user)
    if judged_.staged is not None:
        judged_.staged.drop(s.connection())  # inside the transaction: TEMP only
    return lines, vehicles, permits


def _findings(ctx: AppContext, numbers: Sequence[str], settings: LawSettings, today: date) -> _Packed:
    """Every permit of the sheet judged on today's complete facts (:mod:`motodesk.services.facts`), 1,000
    permits at a time (issue 28: the facts of 50,000 permits at once were a fifth of the import's memory),
    the findings packed as they come (the same message, most of them, shared)."""
    out = _Packed()
    seen: dict[str, str] = {}
    # No cyclic collection while 10,000s of facts are built: CPython's full passes over the import's heap
    # (its lines, packed parts, facts) were a fifth of the findings' CPU, for cycles there are none of.
    with _gc_paused(), ctx.read() as s:
        for part in _chunks(sorted(set(numbers)), 1000):  # in order of number, as the report lists them
            ids: list[int] = []
            for among in _among(s, Permit.number, part):
                ids += list(s.scalars(select(Permit.id).where(among)))
            # plain rows: this read session holds nothing pending, and no object of it is wanted after
            for permit in sorted(permits_facts(s, ids, plain=True).values(), key=lambda p: p.number):
                verdicts = acts.imported_permit_findings(permit, today, settings)
                if verdicts:
                    out.append((permit.holder.name, permit.number,
                                tuple(seen.setdefault(v.message, v.message) for v in verdicts)))
            s.expunge_all()  # this part's rows leave the session before the next part loads
            if len(seen) > 10_000:
                seen.clear()
    return out


def _line_verdicts(lines: Sequence[ImportLine]) -> list[Verdict]:
    """The import's judgement of its lines as verdicts: one refusal per line the rules refused."""
    return [acts.import_line_refused(line.line, line.reason) for line in lines if line.outcome is Outcome.REFUSED]


def _refuse_changed(lines: Sequence[ImportLine]) -> None:
    refused = [line for line in lines if line.outcome is Outcome.REFUSED]
    if refused:
        detail = "\n".join(f"Linha {line.line}: {line.reason}" for line in refused)
        raise InvalidInputError("O cadastro mudou desde a conferência e algumas linhas confirmadas agora seriam "
                                "recusadas; nada foi importado.\n" + detail, code="import.register_changed")


def _refresh_statistics(ctx: AppContext) -> None:
    """Fresh planner statistics after a bulk write (issue 20: a fresh register must not wait for
    autovacuum). Outside the import's transaction: statistics are no part of the all-or-nothing."""
    analyze(ctx)


# --- reports ---------------------------------------------------------------------------------------


def _who(line: ImportLine) -> str:
    cpf = f" (CPF {format_cpf(line.cpf)})" if line.cpf else ""
    return f"{line.name}{cpf}" if line.name else cpf.strip(" ()")


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def render_preview(preview: ImportPreview) -> str:
    """The pt_BR report of the preview: a summary, then one line per data line, refusals with the reason."""
    out: list[str] = []
    name = preview.path.name
    if preview.file_errors:
        out.append(f"Arquivo {name} recusado; nada foi importado.")
        out += [f"- {e}" for e in preview.file_errors]
        out += [f"- Aviso: {w}" for w in preview.file_warnings]
        return "\n".join(out) + "\n"
    total = len(preview.lines)
    new, upd = preview.count(Outcome.NEW), preview.count(Outcome.UPDATE)
    same, refused = preview.count(Outcome.UNCHANGED), preview.count(Outcome.REFUSED)
    sheet = f', aba "{preview.sheet_name}"' if preview.sheet_name else ""
    out.append(f"Arquivo {name}{sheet}: {_plural(total, 'linha lida', 'linhas lidas')} — "
               f"{_plural(new, 'nova', 'novas')}, {_plural(upd, 'atualização', 'atualizações')}, "
               f"{same} sem alterações, {_plural(refused, 'recusada', 'recusadas')}.")
    out += [f"Aviso: {w}" for w in preview.file_warnings]
    out += [f"Observação: {n}" for n in preview.notes]
    for line in preview.lines:
        text = f"Linha {line.line}: {line.outcome.label}"
        if line.outcome is Outcome.REFUSED:
            text += f" — {line.reason}"
        else:
            text += f" — {_who(line)}"
            if line.outcome is not Outcome.UNCHANGED and line.changes:
                text += ": " + ", ".join(line.changes)
        if line.warnings:
            text += " — aviso: " + "; ".join(w.rstrip(".") for w in line.warnings)
        out.append(text)
    return "\n".join(out) + "\n"


def render_summary(summary: ImportSummary) -> str:
    out = [f"Importação concluída: {_plural(summary.created, 'pessoa incluída', 'pessoas incluídas')}, "
           f"{_plural(summary.updated, 'atualizada', 'atualizadas')}, {summary.unchanged} sem alterações; "
           f"{_plural(summary.vehicles, 'veículo novo', 'veículos novos')}, "
           f"{_plural(summary.permits, 'permissão nova', 'permissões novas')}."]
    if not summary.written:
        out.append("Nada foi gravado: o cadastro já estava igual à planilha.")
    for line in summary.lines:
        out.append(f"Linha {line.line}: {line.outcome.done_label} — {_who(line)}"
                   + (": " + ", ".join(line.changes) if line.outcome is Outcome.UPDATE and line.changes else ""))
    if summary.findings:
        out.append(f"Não conformidades de hoje ({_plural(len(summary.findings), 'titular', 'titulares')}); "
                   "os documentos dessas permissões não são emitidos até que sejam sanadas:")
        for holder, number, messages in summary.findings:
            out.append(f"{holder} — {number}:")
            out += [f"  • {message}" for message in messages]
    return "\n".join(out) + "\n"
