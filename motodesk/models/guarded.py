"""The columns with legal effect, declared once, and the flush hook that guards them (issue #24).

A permit's state, term, number, holder, vehicle and deputy; a vehicle's identity and characteristics
while it serves a permit in force; a deputy link's state; a tender candidacy's use; the facts of a
certificate once they were judged for a permit in force: none of these changes unless a *judged step*
(:func:`motodesk.services.judged.judged`) is open on the session and allows that column. The step is
opened only after the rules accepted the act in the same transaction; the hook below knows nothing of
the rules, only which columns the open steps allow.

The hook is registered on the guarded mappers (``before_insert``/``before_update``), so it runs in the
flush of every session of the program: the GUI's, the CLI's, a test's plain ``Session(engine)`` or one a
new service opens and forgets to judge. A refused change raises :class:`GuardedStateError` inside the
flush, so SQLAlchemy rolls the whole transaction back, as for any failed flush: nothing reaches the
database.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, event, func, select
from sqlalchemy import inspect as sa_inspect
from sqlalchemy.orm import Mapper, ORMExecuteState, Session, object_session

from motodesk.models.people import PersonDocument
from motodesk.models.permits import DeputyLink, Permit, TenderCandidate
from motodesk.models.vehicles import Vehicle
from motodesk.rules.common import PermitState
from motodesk.services.errors import MotodeskError

#: ``session.info`` key: a list of the open judged steps, each a set of ``"table.column"`` it allows
#: (``"table.*insert*"`` allows creating a row the guard covers).
JUDGED_KEY = "motodesk_judged_steps"
INSERT = "*insert*"
IN_FORCE = (PermitState.ACTIVE, PermitState.SUSPENDED)


class GuardedStateError(MotodeskError):
    """A change of legal state that did not pass a judged step: refused and rolled back."""

    title = "Alteração sem decisão das regras"


def _always(conn: Connection, obj: Any) -> bool:
    return True


def _permit_in_force_naming_vehicle(conn: Connection, obj: Any) -> bool:
    if obj.id is None:
        return False
    return bool(conn.scalar(select(func.count(Permit.id)).where(
        Permit.vehicle_id == obj.id, Permit.state.in_(IN_FORCE))))


def _person_holds_permit_in_force(conn: Connection, obj: Any) -> bool:
    person_id = obj.person_id
    if person_id is None:
        return False
    return bool(conn.scalar(select(func.count(Permit.id)).where(
        Permit.person_id == person_id, Permit.state.in_(IN_FORCE))))


def _permit_row_in_force(obj: Any) -> bool:
    state = obj.state
    return state is None or PermitState(state) in IN_FORCE  # the column's default is ACTIVE


def _link_in_force(obj: Any) -> bool:
    return obj.end_on is None


def _candidacy_used(obj: Any) -> bool:
    return obj.status not in (None, "waiting")


@dataclass(frozen=True)
class GuardedTable:
    """One table's columns with legal effect and when the guard holds for a row of it."""

    model: type[Any]
    columns: tuple[str, ...]
    #: pt_BR: what the columns are, for the refusal message
    what: str
    article: str
    #: whether an UPDATE of this row (already stored) is guarded now
    applies: Callable[[Connection, Any], bool] = _always
    #: whether creating this row is guarded (None: an INSERT is free)
    insert_guarded: Callable[[Any], bool] | None = None

    @property
    def table(self) -> str:
        return str(self.model.__tablename__)

    def keys(self) -> Iterator[str]:
        for column in self.columns:
            yield f"{self.table}.{column}"


#: THE declaration: every column with legal effect. Tests list their guard from here.
GUARDED: tuple[GuardedTable, ...] = (
    GuardedTable(Permit, ("state", "issued_on", "term_end", "extended", "certificate_valid_until",
                          "suspended_until", "ended_on", "number", "year", "seq", "service_type",
                          "person_id", "vehicle_id", "decree_id", "application_id"),
                 "a permissão (estado, prazo, número, titular, veículo)", "Art. 4º; Art. 6º; Art. 34",
                 insert_guarded=_permit_row_in_force),
    GuardedTable(DeputyLink, ("permit_id", "deputy_person_id", "start_on", "end_on", "suspended_until",
                              "revoked"),
                 "o vínculo do preposto", "Art. 14; Art. 34, III e IV",
                 insert_guarded=_link_in_force),
    GuardedTable(Vehicle, ("plate", "vin", "renavam", "engine_cc", "category", "colour", "year_manufacture",
                           "year_model", "owner_name", "owner_cpf", "holder_id", "service_type", "active"),
                 "a identificação e as características do veículo em serviço",
                 "Art. 3º; Art. 5º, § 1º; Art. 31, Grupo 3, II",
                 applies=_permit_in_force_naming_vehicle),
    GuardedTable(TenderCandidate, ("status", "person_id", "cpf", "rank", "tender_id"),
                 "o uso da candidatura da licitação", "Art. 6º; Art. 10, I",
                 applies=lambda _c, obj: _candidacy_used_before(obj),
                 insert_guarded=_candidacy_used),
    GuardedTable(PersonDocument, ("kind", "number", "issue_date", "valid_until", "presented_on",
                                  "reference_date", "categories", "flag", "result"),
                 "os fatos de um documento do titular de permissão em vigor", "Art. 5º",
                 applies=_person_holds_permit_in_force),
)

_BY_MODEL = {g.model: g for g in GUARDED}


def guarded_columns() -> list[str]:
    """Every guarded ``table.column``, in declaration order."""
    return [key for g in GUARDED for key in g.keys()]


def _candidacy_used_before(obj: Any) -> bool:
    """A candidacy's columns are guarded from the moment it is called (it may then be used)."""
    history = sa_inspect(obj).attrs.status.history
    before = history.deleted[0] if history.deleted else obj.status
    return before not in (None, "waiting")


def allowed_keys(session: Session) -> set[str]:
    keys: set[str] = set()
    for step in session.info.get(JUDGED_KEY, ()):
        keys |= step
    return keys


def _changed(obj: Any, columns: tuple[str, ...]) -> list[str]:
    state = sa_inspect(obj)
    found = []
    for column in columns:
        history = state.attrs[column].history
        if history.has_changes() and list(history.added) != list(history.deleted):
            found.append(column)
    return found


def refusals(session: Session | None, conn: Connection, obj: Any, *, inserting: bool) -> list[str]:
    """``table.column`` of each change of ``obj`` (being flushed) that no open judged step allows."""
    guard = _BY_MODEL.get(type(obj))
    if guard is None:
        return []
    allowed = allowed_keys(session) if session is not None else set()
    if inserting:
        if guard.insert_guarded is None or not guard.insert_guarded(obj):
            return []
        key = f"{guard.table}.{INSERT}"
        return [] if key in allowed else [key]
    changed = [c for c in _changed(obj, guard.columns) if f"{guard.table}.{c}" not in allowed]
    if changed and guard.applies(conn, obj):
        return [f"{guard.table}.{c}" for c in changed]
    return []


def refusal_message(keys: list[str]) -> str:
    whats = []
    for key in keys:
        guard = next(g for g in GUARDED if key.startswith(g.table + "."))
        phrase = f"{guard.what} ({guard.article})"
        if phrase not in whats:
            whats.append(phrase)
    return ("Nada foi gravado: " + "; ".join(whats) + " só muda por um ato julgado pelas regras da Lei nº "
            "4.883/2017 nesta mesma operação. Campos: " + ", ".join(sorted(set(keys))) + ".")


def _check(inserting: bool) -> Callable[[Mapper[Any], Connection, Any], None]:
    def check(_mapper: Mapper[Any], conn: Connection, obj: Any) -> None:
        # Inside the flush: raising here makes SQLAlchemy roll the whole transaction back, as any failed flush.
        bad = refusals(object_session(obj), conn, obj, inserting=inserting)
        if bad:
            raise GuardedStateError(refusal_message(bad))

    return check


for _guard in GUARDED:
    event.listen(_guard.model, "before_insert", _check(True))
    event.listen(_guard.model, "before_update", _check(False))


def check_core_write(session: Session | None, table_name: str, columns: Iterable[str], *, inserting: bool) -> None:
    """A Core INSERT or UPDATE of a guarded table (``session.execute(insert(Permit))``, a bulk insert): the
    rows are not at hand, so the open judged steps must allow creating such rows (INSERT of a table whose
    new rows the guard covers) or every guarded column the statement sets (UPDATE)."""
    guard = _BY_TABLE.get(table_name)
    if guard is None:
        return
    allowed = allowed_keys(session) if session is not None else set()
    if inserting:
        bad = [f"{guard.table}.{INSERT}"] if (guard.insert_guarded is not None
                                              and f"{guard.table}.{INSERT}" not in allowed) else []
    else:
        bad = [f"{guard.table}.{c}" for c in columns if c in guard.columns and f"{guard.table}.{c}" not in allowed]
    if bad:
        raise GuardedStateError(refusal_message(bad))


_BY_TABLE = {g.table: g for g in GUARDED}


@event.listens_for(Session, "do_orm_execute", insert=True)  # before the audit's, which runs the statement
def _guard_core(state: ORMExecuteState) -> None:
    if not (state.is_insert or state.is_update):
        return
    statement: Any = state.statement
    table = getattr(statement, "table", None)
    name = getattr(table, "name", None)
    if not isinstance(name, str) or name not in _BY_TABLE:
        return
    columns: set[str] = set()
    values = getattr(statement, "_values", None) or {}
    for key in values:
        columns.add(getattr(key, "key", None) or getattr(key, "name", None) or str(key))
    params = state.parameters
    if isinstance(params, dict):
        columns |= set(params)
    elif isinstance(params, list | tuple):
        for row in params:
            if isinstance(row, dict):
                columns |= set(row)
    check_core_write(state.session, name, columns, inserting=state.is_insert)
