"""The counter's search box: one text finds people by name, CPF, plate, permit number or RENAVAM.

What the clerk typed is classified first (:func:`classify`):

* digits only, after removing ``. - /`` and spaces → CPF prefix, and RENAVAM prefix (4+ digits);
* three letters and a digit (``ABC-1``, ``abc1d2``) → plate prefix of an active vehicle, in both
  formats (an old plate typed also finds its Mercosul conversion and back);
* ``MT``/``MB``/``MF`` and digits (``MB-12``, ``mb 0012/2026``) → permit number;
* anything else → name, accent- and case-insensitive (``fold``): names that *start* with the
  text first, then names that contain every word of it anywhere (``silva`` in the middle).

Every query is a range or an indexed match (see migrations 0002 and 0012): prefixes are byte
ranges (``name >= 'joao' AND name < 'joap'``, compared ``COLLATE "C"`` on PostgreSQL), infixes use
pg_trgm on PostgreSQL and the FTS5 trigram table ``people_fts`` on SQLite. Results come in pages
ordered by name or CPF, with keyset paging (:class:`SearchCursor`), so the 1,000th page costs what
the first does. An empty query lists everyone by name.

On PostgreSQL a keystroke is one statement, one round trip (:func:`_pg_page`): every part of the
query, the page and the columns that describe it, planned by the server from fresh statistics
(:func:`motodesk.services.maintenance.analyze`), on an autocommit connection that is not pinged
first (:meth:`motodesk.models.db.Database.run_read`). On SQLite, in process, a keystroke may take
several statements: each is a few microseconds of overhead, and SQLite's planner gets help.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from typing import Any, TypeVar

from sqlalchemy import (
    ARRAY,
    CTE,
    ColumnElement,
    Integer,
    Select,
    SQLColumnExpression,
    String,
    and_,
    any_,
    bindparam,
    cast,
    false,
    func,
    label,
    literal_column,
    not_,
    or_,
    select,
    table,
    text,
    true,
    type_coerce,
    union_all,
)
from sqlalchemy import column as sql_column
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import QueryableAttribute
from sqlalchemy.sql.base import Executable
from sqlalchemy.sql.elements import BindParameter

from motodesk.models import Application, Permit, Person, Vehicle
from motodesk.models.db import explain_error
from motodesk.rules.common import OPEN_APPLICATION_STATES, PermitState, ServiceType
from motodesk.rules.validators import format_cpf, format_plate
from motodesk.services.context import READERS, AppContext, requires
from motodesk.services.errors import DatabaseUnavailableError
from motodesk.services.text import escape_like, fold, search_text

PAGE_SIZE = 200
#: Longer input cannot match a stored name (200 characters): it is cut, never sent whole.
MAX_QUERY = 200
#: Infix search needs a word of at least three letters (one trigram).
MIN_INFIX = 3
MIN_RENAVAM_DIGITS = 4
#: Infix: up to this many matches are fetched whole and sorted (see :meth:`_Dialect.contains_words`).
FEW_MATCHES = 2000
FEW_MATCHES_SEVERAL_WORDS = 20000
#: PostgreSQL infix: the names in sort order (from the page's start) read first, index only; when
#: they hold a page of matches, that is the page, else the trigram index finds every match.
DENSITY_WINDOW = 20000
#: SQLite infix: up to this many trigram matches are sorted whole, before any window is read.
FEW_INFIX = 500
#: PostgreSQL: people linked to matching vehicles or permits taken whole and sorted, up to this many
#: (at a million people, "MF-5" — 11,000 permits — costs 36 ms so, 62 ms walked).
FEW_LINKED = 20000
#: PostgreSQL: up to this many linked people are always sorted whole (see :func:`_pg_linked`).
FEW_LINKED_ALWAYS = 1000
#: SQLite's trigram table (revision 0012).
FTS_TABLE = table("people_fts", sql_column("rowid"))
APPLICATION_LABELS = {
    PermitState.REQUESTED: "Requerimento aberto",
    PermitState.UNDER_REVIEW: "Requerimento em análise",
    PermitState.APPROVED: "Requerimento aprovado",
    PermitState.REFUSED: "Requerimento indeferido",
    PermitState.CANCELLED: "Requerimento cancelado",
}
NO_APPLICATION = "Sem requerimento"

#: A text column, nullable or not: a mapped attribute (``Person.cpf``) or a Core expression.
_Text = TypeVar("_Text", str, str | None)


class QueryKind(StrEnum):
    EVERYONE = "everyone"
    NAME = "name"
    DIGITS = "digits"  # CPF or RENAVAM
    PLATE = "plate"
    PERMIT = "permit"

    @property
    def label(self) -> str:
        return {"everyone": "todas as pessoas", "name": "nome", "digits": "CPF ou RENAVAM",
                "plate": "placa", "permit": "número da permissão"}[self.value]


class SortKey(StrEnum):
    NAME = "name"
    CPF = "cpf"


@dataclass(frozen=True)
class ParsedQuery:
    kind: QueryKind
    text: str  # name: folded; digits: digits; plate: upper case without hyphen; permit: normalised
    words: tuple[str, ...] = ()  # name: the words, for the infix part
    alternatives: tuple[str, ...] = ()  # plate: other format; permit: zero-padded form


_SEPARATORS = re.compile(r"[\s.\-/]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")
_PLATE = re.compile(r"[A-Z]{3}[0-9][A-Z0-9]?[0-9]{0,2}")
_PERMIT = re.compile(r"(MT|MB|MF)\s*-?\s*(\d{1,6})\s*(?:/\s*(\d{0,4}))?", re.IGNORECASE)
_PERMIT_CODE_ONLY = re.compile(r"(MT|MB|MF)\s*-", re.IGNORECASE)


def classify(raw: str) -> ParsedQuery:
    """What the clerk means by ``raw``; never raises, whatever was pasted."""
    text_ = search_text(_CONTROL.sub(" ", (raw or "")[:MAX_QUERY]))
    if not text_:
        return ParsedQuery(QueryKind.EVERYONE, "")
    compact = _SEPARATORS.sub("", text_)
    if compact.isascii() and compact.isdigit():
        return ParsedQuery(QueryKind.DIGITS, compact)
    upper = compact.upper()
    if upper.isascii() and _PLATE.fullmatch(upper):
        return ParsedQuery(QueryKind.PLATE, upper, alternatives=_other_plate_forms(upper))
    permit = _PERMIT.fullmatch(text_)
    if permit:
        code, seq, year = permit.group(1).upper(), permit.group(2), permit.group(3)
        typed = f"{code}-{seq}" + (f"/{year}" if year is not None else "")
        padded = f"{code}-{seq.zfill(4)}/" + (year or "")
        alternatives = (padded,) if padded != typed and not padded.startswith(typed) else ()
        return ParsedQuery(QueryKind.PERMIT, typed, alternatives=alternatives)
    if _PERMIT_CODE_ONLY.fullmatch(text_):
        return ParsedQuery(QueryKind.PERMIT, text_[:2].upper() + "-")
    folded = fold(text_)
    return ParsedQuery(QueryKind.NAME, folded, words=tuple(w for w in folded.split(" ") if w))


def _other_plate_forms(prefix: str) -> tuple[str, ...]:
    """The 5th character of a plate: a digit in the old format, A–J in Mercosul (ABC-1234 ↔ ABC1C34)."""
    if len(prefix) < 5:
        return ()
    fifth = prefix[4]
    if fifth.isdigit():
        return (prefix[:4] + "ABCDEFGHIJ"[int(fifth)] + prefix[5:],)
    if fifth in "ABCDEFGHIJ":
        return (prefix[:4] + str("ABCDEFGHIJ".index(fifth)) + prefix[5:],)
    return ()


def prefix_upper_bound(prefix: str) -> str | None:
    """The smallest string greater than every string starting with ``prefix`` (byte order)."""
    chars = list(prefix)
    while chars:
        last = ord(chars[-1])
        if last < 0x10FFFF:
            following = last + 1 if last + 1 not in range(0xD800, 0xE000) else 0xE000  # no surrogates
            chars[-1] = chr(following)
            return "".join(chars)
        chars.pop()
    return None


@dataclass(frozen=True)
class PersonHit:
    """One row of the results: the person and what a clerk looks at first."""

    person_id: int
    full_name: str
    cpf: str
    service: ServiceType | None = None
    permit_number: str | None = None
    situation: str = NO_APPLICATION
    plate: str | None = None

    @property
    def cpf_formatted(self) -> str:
        return format_cpf(self.cpf)


@dataclass(frozen=True)
class SearchCursor:
    """Where the next page starts: the part of the query, and the last row's sort key and id.

    ``started=False`` means the part has not begun yet: the next page starts at its first row.
    """

    segment: int
    key: str = ""
    person_id: int = 0
    started: bool = True


@dataclass(frozen=True)
class SearchPage:
    query: ParsedQuery
    hits: list[PersonHit]
    next: SearchCursor | None

    @property
    def exhausted(self) -> bool:
        return self.next is None


# --- the query --------------------------------------------------------------------------------
#
# Every statement is built once per *shape* (the kind of query, how many words or plate forms, the
# sort, the direction, which part a cursor resumes, the tuning constants) with named bound
# parameters, and kept in :data:`_STATEMENTS`: a keystroke looks its statements up and sends them
# with its values (:func:`_params`). SQLAlchemy then finds the compiled form in its own cache
# without walking the statement again (a reused statement memoises its cache key), so a keystroke
# costs no statement building, no compilation and no cache-key walk: the 2,800-character
# PostgreSQL statement took 7-17 ms of Python to build from scratch each time.
#
# Bound parameters: ``f<i>_lo``/``f<i>_hi`` the prefix range of form ``i`` (0: the text typed; 1: the
# other plate form or the zero-padded permit number), ``w<i>`` the LIKE pattern of word ``i``, ``m``
# SQLite's trigram MATCH, ``ak``/``aid`` the cursor's key and id, ``lim`` a row count (SQLite),
# ``ids`` a list of person ids (SQLite).

_STATEMENTS: dict[tuple[Any, ...], Any] = {}
#: Shapes are few (kinds × words × sorts × directions × parts); a full cache is simply emptied.
_MAX_STATEMENTS = 2048


def _cached(key: tuple[Any, ...], build: Callable[[], _Built]) -> _Built:
    found: Any = _STATEMENTS.get(key)
    if found is None:
        found = build()
        if isinstance(found, Executable):
            # Rows are read by name or position, never by Column object: SQLAlchemy need not adapt
            # a cached compiled form's result columns to this statement (another shape may share
            # that compiled form), which costs more than the rest of the execution.
            found = found.execution_options(_result_disable_adapt_to_context=True)
        if len(_STATEMENTS) >= _MAX_STATEMENTS:
            _STATEMENTS.clear()
        _STATEMENTS[key] = found
    return found  # type: ignore[no-any-return]


_Built = TypeVar("_Built")
_Read = TypeVar("_Read")


def _text_param(name: str) -> BindParameter[str]:
    return bindparam(name, type_=String)


def _shape(q: ParsedQuery) -> tuple[Any, ...]:
    """What decides the statements of a query, not its values."""
    forms = (q.text, *q.alternatives)
    bounded = tuple(prefix_upper_bound(f) is not None for f in forms)
    return (q.kind, len(q.words), bounded, len(q.text) > 11, len(q.text) >= MIN_RENAVAM_DIGITS,
            bool(q.text), _infix_included(q))


def _infix_included(q: ParsedQuery) -> bool:
    # Infix once a word has three letters; with several words, once the last one has (while it
    # is being typed, "Miguel Fa" matches every Miguel's row and the names starting with it come first).
    return (q.kind is QueryKind.NAME and any(len(w) >= MIN_INFIX for w in q.words)
            and (len(q.words) == 1 or len(q.words[-1]) >= MIN_INFIX))


def _params(q: ParsedQuery, after: SearchCursor | None) -> dict[str, Any]:
    """The values of a query's bound parameters (see the names above)."""
    params: dict[str, Any] = {}
    for i, form in enumerate((q.text, *q.alternatives)):
        params[f"f{i}_lo"] = form
        upper = prefix_upper_bound(form)
        if upper is not None:
            params[f"f{i}_hi"] = upper
    for i, word in enumerate(q.words):
        params[f"w{i}"] = f"%{escape_like(word)}%"
    if q.words:
        params["m"] = " ".join('"' + w.replace('"', '""') + '"' for w in q.words if len(w) >= MIN_INFIX)
    if after is not None and after.started:
        params["ak"] = after.key
        params["aid"] = after.person_id
    return params


class _Dialect:
    """What differs between the databases, and the plan choices SQLite needs help with.

    SQLite: a condition on another index than the sort order's is probed through its own index, up
    to :data:`FEW_MATCHES` rows: a small answer is sorted whole (:class:`_Listed`); a large one
    means matches are dense, and walking the sort order's index finds a page soonest.

    PostgreSQL: every part is a plain condition (or :class:`_Infix`) in the keystroke's one
    statement; the planner chooses from the statistics that ``analyze`` keeps fresh.

    Conditions and statements are built once per shape (:meth:`made`) with bound parameters; the
    values of this keystroke are :attr:`params`.
    """

    def __init__(self, session: Connection, sort: SortKey, q: ParsedQuery, params: dict[str, Any]) -> None:
        self.session = session
        self.pg = session.dialect.name == "postgresql"
        self.sort = sort
        self.q = q
        self.params = params
        self.key = (self.pg, sort, _shape(q), FEW_MATCHES, FEW_MATCHES_SEVERAL_WORDS, DENSITY_WINDOW, FEW_LINKED,
                    FEW_LINKED_ALWAYS, FEW_INFIX)
        #: SQLite: where the page being read starts (cursor, descending, rows wanted), for the infix window.
        self.page_start: tuple[SearchCursor | None, bool, int] | None = None

    def made(self, name: tuple[Any, ...], build: Callable[[], _Built]) -> _Built:
        """``build()`` once for this shape and ``name``."""
        return _cached((*self.key, *name), build)

    def run(self, name: tuple[Any, ...], build: Callable[[], Any], **extra: Any) -> Any:
        """Execute the statement ``name`` of this shape with this keystroke's values."""
        return self.session.execute(self.made(name, build), {**self.params, **extra} if extra else self.params)

    def c(self, column: SQLColumnExpression[_Text]) -> SQLColumnExpression[_Text]:
        """Byte-order comparison on both databases (SQLite's default is already BINARY)."""
        return column.collate("C") if self.pg else column

    def prefix(self, column: SQLColumnExpression[str | None], form: int) -> ColumnElement[bool]:
        """``column`` starts with form ``form`` of the query (a byte range)."""
        col = self.c(column)
        lower_cond = col >= _text_param(f"f{form}_lo")
        if f"f{form}_hi" not in self.params:
            return lower_cond
        return and_(lower_cond, col < _text_param(f"f{form}_hi"))

    def cpf_prefix(self) -> Segment:
        """People whose CPF starts with the digits: a few sorted whole, many walked in sort order.

        Without this, SQLite (no statistics) sorts a tenth of the table for "0".
        """
        condition = self.made(("cpf",), lambda: self.prefix(Person.cpf, 0))
        if self.sort is SortKey.CPF or self.pg:
            return condition  # the CPF index gives the order itself / the planner knows
        found = self.run(("cpf-probe",), lambda: select(self.sort_column(), Person.id).where(condition)
                         .limit(FEW_MATCHES + 1)).all()
        if len(found) <= FEW_MATCHES:
            return _Listed(sorted((key, pid) for key, pid in found))

        def walk() -> ColumnElement[bool]:
            # `+cpf` keeps SQLite off the CPF index: it walks the names in order instead.
            unindexed = literal_column("+people.cpf", String)
            lower = unindexed >= _text_param("f0_lo")
            return and_(lower, unindexed < _text_param("f0_hi")) if "f0_hi" in self.params else lower

        return self.made(("cpf-walk",), walk)

    def likes(self, name: SQLColumnExpression[str]) -> ColumnElement[bool]:
        """``name`` holds every word of the query, and does not start with the text."""
        return and_(*(name.like(_text_param(f"w{i}"), escape="\\") for i in range(len(self.q.words))),
                    not_(self.prefix(name, 0)))

    def contains_words(self) -> Segment:
        """Names with every word somewhere, other than those starting with the text.

        SQLite: the trigram table finds the names holding the words of three letters or more (a
        shorter one is tested on the name); up to :data:`FEW_INFIX` are sorted whole at once. More:
        a window of the next :data:`DENSITY_WINDOW` names in order, when it holds the page; else up
        to :data:`FEW_MATCHES` trigram matches sorted whole. More means common text ("silva"):
        walking the name index in order (name and rowid, no table row per entry) finds a page in a
        few thousand entries.
        """
        if self.pg:
            return _Infix(self.likes)

        def probe(limit: int) -> list[tuple[str, int]]:
            return [(key, pid) for key, pid in self.run(("fts", limit), lambda: (
                select(self.sort_column(), Person.id).select_from(FTS_TABLE)
                .join(Person, Person.id == FTS_TABLE.c.rowid)
                .where(text("people_fts MATCH :m").bindparams(_text_param("m")), self.likes(Person.name_search))
                .limit(limit + 1)))]

        few = FEW_MATCHES if len(self.q.words) == 1 else FEW_MATCHES_SEVERAL_WORDS
        if FEW_INFIX < few:
            # A rare word ("Maria Apar", a surname being typed) first: its few matches sorted whole,
            # and the density window (20,000 names that hold none of them) is not read.
            found = probe(FEW_INFIX)
            if len(found) <= FEW_INFIX:
                return _Listed(sorted(found))
        if self.page_start is not None:
            # The next names in order (the name index alone, a few ms): when they hold the page,
            # it is the page ("monteiro", common everywhere), and the trigram table is not read further.
            resume, descending, wanted = self.page_start

            def window_page() -> Select[Any]:
                col = self.sort_column()
                window = (select(Person.id.label("id"), col.label("k"), Person.name_search.label("n"))
                          .where(*([_after(col, descending)] if resume is not None else []))
                          .order_by(*_order(col, Person.id, descending)).limit(DENSITY_WINDOW).subquery("win"))
                return (select(window.c.k, window.c.id).where(self.likes(window.c.n))
                        .order_by(*_order(window.c.k, window.c.id, descending))
                        .limit(bindparam("lim", type_=Integer)))

            dense = self.run(("window", resume is not None, descending), window_page, lim=wanted + 1).all()
            if len(dense) > wanted:
                return _Listed(sorted((key, pid) for key, pid in dense))
        found = probe(few)
        if len(found) <= few:
            # Python orders str by code point: the byte order of "C" and BINARY for UTF-8.
            return _Listed(sorted(found))
        return self.made(("likes",), lambda: self.likes(Person.name_search))

    def people_with(self, link: QueryableAttribute[int | None],
                    conditions: Callable[[], Sequence[ColumnElement[bool]]],
                    extra: Callable[[], ColumnElement[bool]] | None = None) -> Segment:
        """People linked through ``link`` (vehicles.holder_id, permits.person_id) to a row meeting
        any of ``conditions`` (ranges on an index of that table).

        Usually a handful: on SQLite they are found from the linked table's index and sorted whole.
        """
        made = self.made(("linked-conditions",), lambda: (tuple(conditions()),
                                                         (extra(),) if extra is not None else ()))
        conds, extras = made
        if self.pg:
            return _Linked(link, conds, extras)
        # As on PostgreSQL (see :func:`_pg_linked`): sorting n people found by id costs n look-ups,
        # walking the names about page × N / n correlated probes (each about two look-ups here), so
        # up to √(2 × page × N) matches are sorted whole ("MB-30" at a million people: 11,000
        # permits sorted in a fraction of the walk's time), within [FEW_MATCHES, FEW_LINKED].
        wanted = self.page_start[2] if self.page_start is not None else PAGE_SIZE
        people = self.session.execute(self.made(("people-estimate",), lambda: select(func.max(Person.id)))).scalar()
        cap = max(FEW_MATCHES, min(FEW_LINKED, math.isqrt(2 * (wanted + 1) * (people or 0))))
        # Counted first on the linked table's covering index alone (cheap even when dense: "MB-3"
        # read and joined 20,000 people just to learn it should walk). The sum of the forms' counts
        # can only overstate the people: at worst a walk that sorting would have beaten.
        counted = 0
        for i, condition in enumerate(conds):
            def count(c: ColumnElement[bool] = condition) -> Any:
                first = (select(literal_column("1")).select_from(link.table).where(c)
                         .limit(bindparam("cap", type_=Integer)).subquery())
                return select(func.count()).select_from(first)

            counted += self.run(("linked-count", i), count, cap=cap + 1).scalar() or 0
        found: dict[int, str] = {}
        for i, condition in enumerate(conds):
            if counted > cap:
                break

            def probe(c: ColumnElement[bool] = condition) -> Any:
                return (select(self.sort_column(), Person.id).join(link.table, link == Person.id)
                        .where(c, *extras).limit(bindparam("cap", type_=Integer)))

            stmt_found = self.run(("linked-probe", i), probe, cap=cap + 1)
            found.update((pid, key) for key, pid in stmt_found)
        if counted > cap or len(found) > cap:
            # Dense: walk the names in order and look each person up in the linked table's index
            # (an IN list would first gather every match: 440,000 permits for "MB-", a second).
            def walk() -> _Walk:
                linked: Select[Any] = (select(literal_column("1")).select_from(link.table)
                                       .where(link == Person.id, or_(*conds)))
                return _Walk(and_(linked.exists(), *extras))

            return self.made(("linked-walk",), walk)
        return _Listed(sorted((key, pid) for pid, key in found.items()))

    def sort_column(self) -> SQLColumnExpression[str]:
        return self.c(Person.name_search if self.sort is SortKey.NAME else Person.cpf)


@dataclass(frozen=True)
class _Linked:
    """PostgreSQL: people linked through ``link`` to a row meeting any of ``conditions`` (see :func:`_pg_linked`)."""

    link: QueryableAttribute[int | None]
    conditions: tuple[ColumnElement[bool], ...]
    extras: tuple[ColumnElement[bool], ...]


@dataclass(frozen=True)
class _Infix:
    """PostgreSQL: names containing the words, as a condition on a name column (see :func:`_pg_infix`)."""

    likes: Callable[[SQLColumnExpression[str]], ColumnElement[bool]]


@dataclass(frozen=True)
class _Listed:
    """A part of a query already found whole: (sort key, person id), in order."""

    rows: list[tuple[str, int]]

    def page(self, after: SearchCursor | None, descending: bool, count: int) -> list[int]:
        rows = self.rows[::-1] if descending else self.rows
        if after is not None:
            mark = (after.key, after.person_id)
            rows = [r for r in rows if (r < mark if descending else r > mark)]
        return [pid for _key, pid in rows[:count]]


@dataclass(frozen=True)
class _Walk:
    """A dense condition: read in the sort order's index, filtering."""

    condition: ColumnElement[bool]


Segment = ColumnElement[bool] | _Listed | _Walk | _Infix | _Linked


def _segments(q: ParsedQuery, d: _Dialect) -> list[Callable[[], Segment]]:
    """The parts of a query in the order they are listed, each made only when a page reaches it
    (an infix probe costs more than a page of names that start with the text)."""
    if q.kind is QueryKind.EVERYONE:
        return [true]
    if q.kind is QueryKind.NAME:
        if not q.text:
            return [false]
        parts: list[Callable[[], Segment]] = [lambda: d.made(("starts",), lambda: d.prefix(Person.name_search, 0))]
        if _infix_included(q):
            parts.append(d.contains_words)
        return parts
    if q.kind is QueryKind.DIGITS:
        if len(q.text) > 11:
            return [false]
        parts = [d.cpf_prefix]
        if len(q.text) >= MIN_RENAVAM_DIGITS:
            parts.append(lambda: d.people_with(Vehicle.holder_id, lambda: [d.prefix(Vehicle.renavam, 0)],
                                               lambda: not_(d.prefix(Person.cpf, 0))))
        return parts
    forms = range(1 + len(q.alternatives))
    if q.kind is QueryKind.PLATE:
        # `active = 1` literally on SQLite, so its partial index of active plates applies; one
        # condition per plate form, so each is a range on that index.
        def plates() -> list[ColumnElement[bool]]:
            active = Vehicle.active if d.pg else text("vehicles.active = 1")
            return [and_(d.prefix(Vehicle.plate, i), active) for i in forms]

        return [lambda: d.people_with(Vehicle.holder_id, plates)]
    return [lambda: d.people_with(Permit.person_id, lambda: [d.prefix(Permit.number, i) for i in forms])]


def _after(sort_col: SQLColumnExpression[str], descending: bool) -> ColumnElement[bool]:
    """Keyset condition (cursor ``ak``, ``aid``) written so the index on the sort column serves it
    (a range, then the id)."""
    key, pid = _text_param("ak"), bindparam("aid", type_=Integer)
    if descending:
        return and_(sort_col <= key, or_(sort_col < key, Person.id < pid))
    return and_(sort_col >= key, or_(sort_col > key, Person.id > pid))


@requires(*READERS)
def search_people(ctx: AppContext, query: str, *, sort: SortKey | str = SortKey.NAME, descending: bool = False,
                  after: SearchCursor | None = None, limit: int = PAGE_SIZE) -> SearchPage:
    """One page of people matching ``query``, ordered by ``sort``; pass ``page.next`` for the next."""
    parsed = classify(query)
    sort = SortKey(sort)
    limit = max(1, min(limit, 1000))
    params = _params(parsed, after)

    def read(s: Connection) -> SearchPage:
        d = _Dialect(s, sort, parsed, params)
        if d.pg:
            hits, next_cursor = _pg_page(d, parsed, descending, after, limit)
        else:
            found, next_cursor = _sqlite_page(d, parsed, descending, after, limit)
            order = [pid for pid, _key in found]
            hits = _hits(s.execute(_describe_ids(False), {"ids": _id_list(order)}).all(), order) if order else []
        return SearchPage(parsed, hits, next_cursor)

    return _quick_read(ctx, read)


@requires(*READERS)
def people_by_ids(ctx: AppContext, ids: Sequence[int]) -> list[PersonHit]:
    """The result-list rows of these people, in the order given (those removed meanwhile left out):
    what the people list fetches again when it scrolls back to rows it no longer holds."""
    wanted = list(dict.fromkeys(ids))[:1000]
    if not wanted:
        return []

    def read(s: Connection) -> list[PersonHit]:
        sqlite = s.dialect.name == "sqlite"
        return _hits(s.execute(_describe_ids(not sqlite), {"ids": wanted if not sqlite else _id_list(wanted)}).all(),
                     wanted)

    return _quick_read(ctx, read)


def _quick_read(ctx: AppContext, read: Callable[[Connection], _Read]) -> _Read:
    """``read`` through :meth:`Database.run_read`, a database failure said as the clerk reads it."""
    try:
        return ctx.db.run_read(read)
    except DBAPIError as exc:  # a MotodeskError the read raises goes through as it is
        raise DatabaseUnavailableError(explain_error(exc, ctx.db.url)) from exc


def _describe_ids(pg: bool) -> Any:
    """:func:`_describe_parts` of the list of ids ``ids``, built once: on PostgreSQL an expanding
    parameter; on SQLite one JSON text read by ``json_each`` (rendering and binding 4 × 200
    placeholders cost more than the query)."""
    return _cached(("describe-ids", pg), lambda: union_all(*_describe_parts(
        bindparam("ids", expanding=True) if pg else _sqlite_ids())))


def _sqlite_ids() -> Select[Any]:
    """SQLite: the ids of the bound JSON array ``ids`` (see :func:`_id_list`)."""
    return select(literal_column("value", Integer)).select_from(func.json_each(bindparam("ids", type_=String)))


def _id_list(ids: Sequence[int]) -> str:
    return "[" + ",".join(map(str, ids)) + "]"


def _order(sort_col: SQLColumnExpression[str], pid: SQLColumnExpression[int], descending: bool
           ) -> tuple[ColumnElement[Any], ColumnElement[Any]]:
    return (sort_col.desc(), pid.desc()) if descending else (sort_col.asc(), pid.asc())


def _sqlite_page(d: _Dialect, parsed: ParsedQuery, descending: bool, after: SearchCursor | None, limit: int
                 ) -> tuple[list[tuple[int, str]], SearchCursor | None]:
    """(id, sort key) of the page's people, and where the next page starts: one part at a time."""
    segments = _segments(parsed, d)
    found: list[tuple[int, str]] = []  # (id, sort key)
    segment = after.segment if after else 0
    next_cursor: SearchCursor | None = None
    while segment < len(segments):
        wanted = limit - len(found)
        resume = after if after is not None and after.segment == segment and after.started else None
        d.page_start = (resume, descending, wanted)
        part = segments[segment]()
        listed = isinstance(part, _Listed)

        def page_statement(part: Segment = part, resumed: bool = resume is not None) -> Select[Any]:
            sort_col = d.sort_column()
            # Only what the sort index holds, so a walk reads the index and not the table.
            stmt: Any = select(Person.id, label("k", sort_col))
            if isinstance(part, _Listed):
                stmt = stmt.where(Person.id.in_(_sqlite_ids()))
            else:
                assert not isinstance(part, _Infix | _Linked)
                stmt = stmt.where(part.condition if isinstance(part, _Walk) else part)
                if resumed:
                    stmt = stmt.where(_after(sort_col, descending))
            return stmt.order_by(*_order(sort_col, Person.id, descending)).limit(bindparam("lim", type_=Integer))

        extra: dict[str, Any] = {"lim": wanted + 1}
        if isinstance(part, _Listed):
            extra["ids"] = _id_list(part.page(resume, descending, wanted + 1))
        rows = d.run(("page", segment, listed, resume is not None and not listed, descending), page_statement,
                     **extra).all()
        found.extend((r.id, r.k) for r in rows[:wanted])
        if len(rows) > wanted:
            last = found[-1]
            next_cursor = SearchCursor(segment, last[1], last[0])
            break
        segment += 1
        if len(found) == limit:
            if segment < len(segments):
                next_cursor = SearchCursor(segment, started=False)
            break
    return found, next_cursor


def _pg_page(d: _Dialect, parsed: ParsedQuery, descending: bool, after: SearchCursor | None, limit: int
             ) -> tuple[list[PersonHit], SearchCursor | None]:
    """The page and what describes it, in one statement (one round trip).

    Each part of the query from the cursor's on is a branch ``ORDER BY key, id LIMIT limit + 1``;
    a branch runs only when the ones before it found less than that (a one-time filter on their
    count: PostgreSQL does not start the branch's scan otherwise). The page is the first
    ``limit + 1`` rows of the branches in order (one more than shown: whether there is a next page);
    its people's permits, applications, active vehicle and name come in the same statement.
    """
    first = after.segment if after else 0
    resumed = after.segment if after is not None and after.started else None

    def statement() -> Any:
        segments = _segments(parsed, d)
        branches: list[CTE] = []
        for segment in range(first, len(segments)):
            gate = None
            if branches:
                earlier = union_all(*(select(b.c.id) for b in branches)).subquery()
                gate = select(func.count()).select_from(earlier).scalar_subquery() <= limit
            part = segments[segment]()
            assert not isinstance(part, _Listed)
            branches.append(_pg_branch(d, part, segment, resumed == segment, descending, limit + 1, gate)
                            .cte(f"part{segment}"))
        parts = union_all(*(select(b.c.id, b.c.k, b.c.seg) for b in branches)).subquery("parts")
        page = (select(parts.c.id, parts.c.k, parts.c.seg)
                .order_by(parts.c.seg, *_order(parts.c.k.collate("C"), parts.c.id, descending))
                .limit(limit + 1).cte("page"))
        return union_all(*_describe_parts(select(page.c.id), page))

    rows = d.run(("pg-page", first, resumed, descending, limit), statement).all()
    # The 'n' rows carry the page's own columns: part in ``id``, sort key in ``state``.
    keyed = [(r[6], r[4], r[1]) for r in rows if r[0] == "n"]
    if descending:
        keyed.sort(key=lambda t: (t[0], _Reversed(t[1]), -t[2]))
    else:
        keyed.sort()  # (part, key, id): str orders by code point, the byte order of "C"
    next_cursor = None
    if len(keyed) > limit:
        seg, key, pid = keyed[limit - 1]
        next_cursor = SearchCursor(seg, key, pid)
        keyed = keyed[:limit]
    return _hits(rows, [pid for _seg, _key, pid in keyed]), next_cursor


class _Reversed:
    """A sort key in reverse (descending text inside ascending segments)."""

    __slots__ = ("value",)

    def __init__(self, value: str) -> None:
        self.value = value

    def __lt__(self, other: _Reversed) -> bool:
        return self.value > other.value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Reversed) and self.value == other.value

    __hash__ = None  # type: ignore[assignment]


def _pg_branch(d: _Dialect, part: Segment, segment: int, resumed: bool, descending: bool, count: int,
               gate: ColumnElement[bool] | None) -> Select[Any]:
    sort_col = d.sort_column()
    gates = [gate] if gate is not None else []
    after = [_after(sort_col, descending)] if resumed else []
    seg: ColumnElement[Any] = literal_column(str(segment)).label("seg")
    if isinstance(part, _Infix):
        return _pg_infix(d, part, seg, after, gates, descending, count)
    if isinstance(part, _Linked):
        return _pg_linked(d, part, seg, after, gates, descending, count)
    condition = part.condition if isinstance(part, _Walk) else part
    assert not isinstance(condition, _Listed | _Infix | _Linked)
    return (select(Person.id.label("id"), sort_col.label("k"), seg).where(condition, *after, *gates)
            .order_by(*_order(sort_col, Person.id, descending)).limit(count))


def _pg_infix(d: _Dialect, part: _Infix, seg: ColumnElement[Any], after: list[ColumnElement[bool]],
              gates: list[ColumnElement[bool]], descending: bool, count: int) -> Select[Any]:
    """Names containing the words: the next :data:`DENSITY_WINDOW` names in sort order (index only,
    about 4 ms at a million people when it holds nothing) when they hold ``count`` matches ("silva":
    6-7 ms), else every match through pg_trgm's GIN index (a materialised part planned alone: no
    LIMIT to tempt the planner into walking the name index) sorted. Asking the trigram index first
    cost its whole bitmap (10-15 ms for "cavalcant") before the window answered. One answer runs."""
    sort_col = d.sort_column()
    matches = (select(Person.id.label("id"), sort_col.label("k")).where(part.likes(Person.name_search), *after, *gates)
               .cte("matches").prefix_with("MATERIALIZED", dialect="postgresql"))
    window = (select(Person.id.label("id"), sort_col.label("k"), Person.name_search.label("n"))
              .where(*after, *gates).order_by(*_order(sort_col, Person.id, descending))
              .limit(DENSITY_WINDOW).subquery("win"))
    dense = (select(window.c.id, window.c.k).where(part.likes(window.c.n))
             .order_by(*_order(window.c.k, window.c.id, descending)).limit(count).cte("dense"))
    found = select(func.count()).select_from(dense).scalar_subquery()
    answers = union_all(
        select(dense.c.id, dense.c.k).where(found >= count),
        select(matches.c.id, matches.c.k).where(found < count)
        .order_by(*_order(matches.c.k, matches.c.id, descending)).limit(count),
    ).subquery("infix")
    return select(answers.c.id, answers.c.k, seg)


def _pg_linked(d: _Dialect, part: _Linked, seg: ColumnElement[Any], after: list[ColumnElement[bool]],
               gates: list[ColumnElement[bool]], descending: bool, count: int) -> Select[Any]:
    """People linked to matching plates, RENAVAMs or permit numbers: a few sorted whole, many walked.

    Sorting ``n`` people found by id costs ``n`` index probes; walking the names in order, testing
    each person against the linked table's index, costs about ``count × N / n`` probes (``N``
    people, from the planner's statistics). So the linked table's covering index gives up to
    ``cap + 1`` person ids, ``cap`` = √(count × N) kept within [:data:`FEW_LINKED_ALWAYS`,
    :data:`FEW_LINKED`] (a statistic that says "empty" must not walk a million names for a RENAVAM
    nobody else has); if that is all of them they are sorted whole, else the names are walked:
    "MB-1" at 100,000 people (11,000 permits) walks about 1,800 names instead of sorting 11,000,
    and "MB-" reads 4,500 ids to know it is dense, not 20,000. Both answers are exact; only the
    cost differs. Asked as ``id IN (…) ORDER BY name LIMIT``, PostgreSQL walks the names even for a
    RENAVAM nobody has (a million index probes, seconds).
    """
    sort_col = d.sort_column()
    # The most people worth sorting whole: √(count × N), within [FEW_LINKED_ALWAYS, FEW_LINKED]
    # (FEW_LINKED when the statistics are missing). Reading one more than that says "walk".
    cap = literal_column(
        f"(SELECT CASE WHEN reltuples < 0 THEN {FEW_LINKED:d} ELSE least({FEW_LINKED:d}, greatest("
        f"{FEW_LINKED_ALWAYS:d}, floor(sqrt({count:d}::float8 * reltuples))::int)) END "
        "FROM pg_class WHERE oid = 'people'::regclass)", Integer)
    # The first cap + 1 ids read once into one array: its length decides, and ``id = ANY(array)`` probes
    # them in one index scan over the sorted array (a third of ``id IN (SELECT …)``'s nested loop; 2.5 ms
    # less than counting, then reading again: 11,000 permits of "MF-4" at a million people).
    first = (union_all(*(select(part.link.label("pid")).where(c) for c in part.conditions))
             .limit(cap + 1).scalar_subquery())
    linked = select(func.array(first).label("ids")).cte("linked_ids").prefix_with("MATERIALIZED", dialect="postgresql")
    whole = select(func.cardinality(linked.c.ids) <= cap).scalar_subquery()
    few = (select(Person.id.label("id"), sort_col.label("k"))
           .where(Person.id == any_(cast(select(linked.c.ids).scalar_subquery(), ARRAY(Integer))), whole,
                  *part.extras, *after, *gates)
           .order_by(*_order(sort_col, Person.id, descending)).limit(count)
           .cte("few").prefix_with("MATERIALIZED", dialect="postgresql"))
    tested: Select[Any] = (select(literal_column("1")).select_from(part.link.table)
              .where(part.link == Person.id, or_(*part.conditions)))
    many: Any = (select(Person.id.label("id"), sort_col.label("k"))
            .where(tested.exists(), not_(whole), *part.extras, *after, *gates)
            .order_by(*_order(sort_col, Person.id, descending)).limit(count))
    answers = union_all(
        select(few.c.id, few.c.k).order_by(*_order(few.c.k, few.c.id, descending)).limit(count),
        many,
    ).subquery("linked_people")
    return select(answers.c.id, answers.c.k, seg)


def _describe_parts(ids: Any, page: CTE | None = None) -> list[Any]:
    """Service, permit, situation and plate of each person of ``ids`` (a list or a subquery),
    and their name and CPF: one ``UNION ALL`` (the page's own columns ride along on PostgreSQL:
    sort key in ``state``, part in ``id``).

    Plain column tuples, not ORM objects: loading 200 full rows of three tables costs more than
    the search itself.
    """
    # Plain strings in the shared columns (the first SELECT types them): no enum conversion.
    parts: list[Any] = [
        select(literal_column("'p'").label("kind"), Permit.person_id.label("pid"), Permit.number.label("v"),
               type_coerce(Permit.service_type, String).label("service"),
               type_coerce(Permit.state, String).label("state"),
               Permit.issued_on.label("day"), Permit.id.label("id")).where(Permit.person_id.in_(ids)),
        select(literal_column("'a'"), Application.person_id, literal_column("NULL"), Application.service_type,
               Application.state, Application.opened_on, Application.id).where(Application.person_id.in_(ids)),
        select(literal_column("'v'"), Vehicle.holder_id, Vehicle.plate, Vehicle.service_type, literal_column("NULL"),
               literal_column("NULL"), Vehicle.id).where(Vehicle.holder_id.in_(ids), Vehicle.active.is_(True)),
    ]
    if page is None:
        parts.append(select(literal_column("'n'"), Person.id, Person.full_name, Person.cpf, literal_column("NULL"),
                            literal_column("NULL"), Person.id).where(Person.id.in_(ids)))
    else:
        parts.append(select(literal_column("'n'"), Person.id, Person.full_name, Person.cpf, page.c.k,
                            literal_column("NULL"), page.c.seg).join(page, page.c.id == Person.id))
    return parts


# Plain look-ups for turning rows into hits: no enum built per row, no plate parsed twice.
_SERVICES: dict[str, ServiceType] = {s.value: s for s in ServiceType}
_IN_FORCE: dict[str, bool] = {s.value: s.in_force for s in PermitState}
_PERMIT_LABELS: dict[str, str] = {s.value: s.label for s in PermitState}
_APPLICATION_LABELS: dict[str, str] = {s.value: APPLICATION_LABELS.get(s, s.label) for s in PermitState}
_OPEN_APPLICATION: dict[str, bool] = {s.value: s in OPEN_APPLICATION_STATES for s in PermitState}
#: A stored plate as shown (``ABC-1234``); plates repeat from keystroke to keystroke.
_plate_shown = functools.lru_cache(maxsize=1 << 16)(format_plate)


def _hits(rows: Sequence[Sequence[Any]], order: list[int]) -> list[PersonHit]:
    """The page's rows (:func:`_describe_parts`) as hits, in ``order`` (person ids)."""
    if not order:
        return []
    names: dict[int, tuple[str, str]] = {}
    # permit: (in force, issued on, id, number, service, state); application: (opened on, id, service, state)
    permits: dict[int, tuple[bool, date, int, str | None, str | None, str]] = {}
    applications: dict[int, tuple[date | None, int, str | None, str]] = {}
    vehicles: dict[int, tuple[str | None, str | None]] = {}
    min_day = date.min
    for row in rows:
        kind, pid, value, row_service, state, day, row_id = row
        if kind == "n":
            names[pid] = (value, row_service)  # full name, CPF
        elif kind == "p":
            # The main permit: the one in force, else the most recently issued (then the highest id).
            candidate = (_IN_FORCE[state], day or min_day, row_id, value, row_service, state)
            current = permits.get(pid)
            if current is None or candidate[:3] > current[:3]:
                permits[pid] = candidate
        elif kind == "a":
            current_app = applications.get(pid)
            if current_app is None or (day, row_id) > (current_app[0], current_app[1]):
                applications[pid] = (day, row_id, row_service, state)  # the newest
        else:
            vehicles[pid] = (value, row_service)
    hits = []
    for pid in order:
        named = names.get(pid)
        if named is None:
            continue  # removed meanwhile
        permit = permits.get(pid)
        app = applications.get(pid)
        service: str | None = None
        situation = NO_APPLICATION
        number = None
        open_app = app is not None and _OPEN_APPLICATION[app[3]]
        if permit is not None and (permit[0] or not open_app):
            service, number, situation = permit[4], permit[3], _PERMIT_LABELS[permit[5]]
        elif app is not None:
            service, situation = app[2], _APPLICATION_LABELS[app[3]]
            number = permit[3] if permit is not None else None
        else:
            vehicle = vehicles.get(pid)
            if vehicle is not None:
                service = vehicle[1]
        vehicle = vehicles.get(pid)
        plate = _plate_shown(vehicle[0]) if vehicle is not None and vehicle[0] else None
        hits.append(PersonHit(pid, named[0], named[1], _SERVICES[service] if service else None, number, situation,
                              plate))
    return hits
