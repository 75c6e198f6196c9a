"""The counter's search box: one text finds people by name, CPF, plate, permit number or RENAVAM.

What the clerk typed is classified first (:func:`classify`):

* digits only, after removing ``. - /`` and spaces → CPF prefix, and RENAVAM prefix (4+ digits);
* three letters and a digit (``ABC-1``, ``abc1d2``) → plate prefix of an active vehicle, in both
  formats (an old plate typed also finds its Mercosul conversion and back);
* ``MT``/``MB``/``MF`` and digits (``MB-12``, ``mb 0012/2026``) → permit number;
* anything else → name, accent- and case-insensitive (``fold``): names that *start* with the
  text first, then names that contain every word of it anywhere (``silva`` in the middle).

Every query is a range or an indexed match (see migration 0002): prefixes are byte ranges
(``name >= 'joao' AND name < 'joap'``, compared ``COLLATE "C"`` on PostgreSQL), infixes use
pg_trgm on PostgreSQL and a walk of the covering name index on SQLite. Results come in pages ordered by
name or CPF, with keyset paging (:class:`SearchCursor`), so the 1,000th page costs what the first
does. An empty query lists everyone by name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from typing import TypeVar

from sqlalchemy import (
    ColumnElement,
    SQLColumnExpression,
    String,
    and_,
    false,
    func,
    label,
    literal_column,
    not_,
    or_,
    select,
    text,
    true,
    type_coerce,
    union_all,
)
from sqlalchemy.engine import Row
from sqlalchemy.orm import QueryableAttribute, Session

from motodesk.models import Application, Permit, Person, Vehicle
from motodesk.rules.common import PermitState, Role, ServiceType
from motodesk.rules.validators import format_cpf, format_plate
from motodesk.services.context import AppContext, requires
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
#: PostgreSQL infix: the first names in sort order that a density check reads (index only, ~2 ms at
#: a million people), and how many of them must match (1 %) for the walk to go first.
DENSITY_WINDOW = 5000
DENSE_MATCHES = 50
READERS = (Role.CLERK, Role.SUPERVISOR, Role.INSPECTOR, Role.ADMIN)
OPEN_APPLICATION_STATES = (PermitState.REQUESTED, PermitState.UNDER_REVIEW, PermitState.APPROVED)
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


@dataclass(frozen=True)
class _Related:
    """A permit (value: number) or application (value: None) of a listed person."""

    value: str | None
    service: ServiceType | None
    state: PermitState
    day: date | None
    id: int


@dataclass(frozen=True)
class _ActiveVehicle:
    """The active vehicle of a listed person."""

    plate: str | None
    service: ServiceType | None


# --- the query --------------------------------------------------------------------------------


class _Dialect:
    """What differs between the databases, and the plan choices SQLite needs help with.

    A condition on another index than the sort order's is probed through its own index, up to
    :data:`FEW_MATCHES` rows: a small answer is sorted whole (:class:`_Listed`); a large one means
    matches are dense, and walking the sort order's index finds a page soonest. Neither planner
    chooses well alone: SQLite has no statistics, and PostgreSQL's estimates for prefixes, LIKE
    and correlated conditions are off by orders of magnitude at a million rows.
    """

    def __init__(self, session: Session, sort: SortKey) -> None:
        self.session = session
        self.pg = session.get_bind().dialect.name == "postgresql"
        self.sort = sort

    def c(self, column: SQLColumnExpression[_Text]) -> SQLColumnExpression[_Text]:
        """Byte-order comparison on both databases (SQLite's default is already BINARY)."""
        return column.collate("C") if self.pg else column

    def prefix(self, column: SQLColumnExpression[str | None], value: str) -> ColumnElement[bool]:
        col = self.c(column)
        upper = prefix_upper_bound(value)
        lower_cond = col >= value
        return and_(lower_cond, col < upper) if upper is not None else lower_cond

    def cpf_prefix(self, value: str) -> Segment:
        """People whose CPF starts with ``value``: a few sorted whole, many walked in sort order.

        Without this, "538" (a thousand people in a million) sorted by name lets PostgreSQL walk the
        name index and read each person's row to test the CPF, and SQLite (no statistics) sort a
        tenth of the table for "0".
        """
        condition = self.prefix(Person.cpf, value)
        if self.sort is SortKey.CPF:
            return condition  # the CPF index gives the order itself
        found = self.session.execute(select(self.sort_column(), Person.id).where(condition)
                                     .limit(FEW_MATCHES + 1)).all()
        if len(found) <= FEW_MATCHES:
            return _Listed(sorted((key, pid) for key, pid in found))
        if self.pg:
            return _Walk(condition)
        # `+cpf` keeps SQLite off the CPF index: it walks the names in order instead.
        unindexed = literal_column("+people.cpf", String)
        upper = prefix_upper_bound(value)
        return and_(unindexed >= value, unindexed < upper) if upper else unindexed >= value

    def contains_words(self, words: Sequence[str], starts: ColumnElement[bool]) -> Segment:
        """Names with every word somewhere, other than those starting with the text (``starts``).

        PostgreSQL, a million names: two ways to a first page, each fast where the other is slow.
        When few names match, take them all through the trigram index and sort them; when many do,
        walk the names in order and keep the matching ones. A density check on the first
        :data:`DENSITY_WINDOW` names (index only) sends common text straight to the walk; otherwise
        a probe through the trigram index tells which case this is: it stops after
        :data:`FEW_MATCHES` + 1 rows, and a small answer is the whole answer (returned as a
        :class:`_Listed`, sorted here, not looked for again).
        """
        likes = and_(*(Person.name_search.like(f"%{escape_like(w)}%", escape="\\") for w in words),
                     not_(starts))
        if not self.pg:
            # SQLite walks its name index (name and rowid: no table row per entry); every name of
            # 100,000 in under 10 ms even when nothing matches.
            return likes
        # Several words ("gael ra"): the matches gather where the first word is a first name, and a
        # walk in name order would read everything before them; so take more of them whole.
        few = FEW_MATCHES if len(words) == 1 else FEW_MATCHES_SEVERAL_WORDS
        if len(words) == 1 and self._dense(words[0]):
            return _Walk(likes)  # a common piece ("silva"): the walk finds a page in a few thousand names
        probe = select(self.sort_column(), Person.id).where(likes).limit(few + 1)
        # Through pg_trgm's GIN index, whatever the planner's estimate: a walk of the name index
        # that finds nothing (every "joao" starts with it) would read the whole table.
        self.session.execute(text("SET LOCAL enable_seqscan = off"))
        self.session.execute(text("SET LOCAL enable_indexscan = off"))
        try:
            found = self.session.execute(probe).all()
        finally:
            self.session.execute(text("SET LOCAL enable_seqscan = on"))
            self.session.execute(text("SET LOCAL enable_indexscan = on"))
        if len(found) <= few:
            # Python orders str by code point: the byte order of "C" and BINARY for UTF-8.
            return _Listed(sorted((key, pid) for key, pid in found))
        return _Walk(likes)  # common text: walking the names in order finds a page soonest

    def _dense(self, word: str) -> bool:
        """Whether at least 1 % of the first names in sort order contain ``word``: then walking the
        names finds a page sooner than the trigram probe (which builds its whole bitmap first)."""
        window = select(Person.name_search.label("n")).order_by(self.sort_column()).limit(DENSITY_WINDOW).subquery()
        count = self.session.scalar(select(func.count()).select_from(window).where(
            window.c.n.like(f"%{escape_like(word)}%", escape="\\")))
        return (count or 0) >= DENSE_MATCHES

    def people_with(self, link: QueryableAttribute[int | None], conditions: Sequence[ColumnElement[bool]],
                    extra: ColumnElement[bool] | None = None) -> Segment:
        """People linked through ``link`` (vehicles.holder_id, permits.person_id) to a row meeting
        any of ``conditions`` (ranges on an index of that table).

        Usually a handful: they are found from the linked table's index and sorted whole. Asked as
        ``people.id IN (subquery) ORDER BY name``, PostgreSQL may instead walk a million names and
        probe the subquery for each (seconds).
        """
        extras = [extra] if extra is not None else []
        found: dict[int, str] = {}
        for condition in conditions:
            stmt = (select(self.sort_column(), Person.id).join(link.table, link == Person.id)
                    .where(condition, *extras).limit(FEW_MATCHES + 1))
            found.update((pid, key) for key, pid in self.session.execute(stmt))
            if len(found) > FEW_MATCHES:
                ids = union_all(*(select(link).where(c) for c in conditions))
                return _Walk(and_(Person.id.in_(ids), *extras))
        return _Listed(sorted((key, pid) for pid, key in found.items()))

    def sort_column(self) -> SQLColumnExpression[str]:
        return self.c(Person.name_search if self.sort is SortKey.NAME else Person.cpf)


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
    """A dense condition: read in the sort order's index, filtering (PostgreSQL is told so)."""

    condition: ColumnElement[bool]


Segment = ColumnElement[bool] | _Listed | _Walk


def _segments(q: ParsedQuery, d: _Dialect) -> list[Callable[[], Segment]]:
    """The parts of a query in the order they are listed, each made only when a page reaches it
    (an infix probe costs more than a page of names that start with the text)."""
    if q.kind is QueryKind.EVERYONE:
        return [true]
    if q.kind is QueryKind.NAME:
        if not q.text:
            return [false]
        starts = d.prefix(Person.name_search, q.text)
        parts: list[Callable[[], Segment]] = [lambda: starts]
        # Infix once a word has three letters; with several words, once the last one has (while it
        # is being typed, "Miguel Fa" matches every Miguel's row and the names starting with it come first).
        if any(len(w) >= MIN_INFIX for w in q.words) and (len(q.words) == 1 or len(q.words[-1]) >= MIN_INFIX):
            parts.append(lambda: d.contains_words(q.words, starts))
        return parts
    if q.kind is QueryKind.DIGITS:
        if len(q.text) > 11:
            return [false]
        parts = [lambda: d.cpf_prefix(q.text)]
        if len(q.text) >= MIN_RENAVAM_DIGITS:
            parts.append(lambda: d.people_with(Vehicle.holder_id, [d.prefix(Vehicle.renavam, q.text)],
                                               not_(d.prefix(Person.cpf, q.text))))
        return parts
    if q.kind is QueryKind.PLATE:
        # `active = 1` literally on SQLite, so its partial index of active plates applies; one
        # condition per plate form, so each is a range on that index.
        active = Vehicle.active if d.pg else text("vehicles.active = 1")
        forms = [and_(d.prefix(Vehicle.plate, p), active) for p in (q.text, *q.alternatives)]
        return [lambda: d.people_with(Vehicle.holder_id, forms)]
    numbers = [d.prefix(Permit.number, n) for n in (q.text, *q.alternatives)]
    return [lambda: d.people_with(Permit.person_id, numbers)]


def _sort_column(sort: SortKey, d: _Dialect) -> SQLColumnExpression[str]:
    return d.c(Person.name_search if sort is SortKey.NAME else Person.cpf)


def _after(sort_col: SQLColumnExpression[str], cursor: SearchCursor, descending: bool) -> ColumnElement[bool]:
    """Keyset condition written so the index on the sort column serves it (a range, then the id)."""
    if descending:
        return and_(sort_col <= cursor.key, or_(sort_col < cursor.key, Person.id < cursor.person_id))
    return and_(sort_col >= cursor.key, or_(sort_col > cursor.key, Person.id > cursor.person_id))


@requires(*READERS)
def search_people(ctx: AppContext, query: str, *, sort: SortKey | str = SortKey.NAME, descending: bool = False,
                  after: SearchCursor | None = None, limit: int = PAGE_SIZE) -> SearchPage:
    """One page of people matching ``query``, ordered by ``sort``; pass ``page.next`` for the next."""
    parsed = classify(query)
    sort = SortKey(sort)
    limit = max(1, min(limit, 1000))
    with ctx.read() as s:
        d = _Dialect(s, sort)
        if d.pg:
            # A keystroke's queries each read a few hundred index entries; a parallel plan (chosen
            # for the page's 200-id lookups at a million people) spends ~8 ms starting its workers.
            s.execute(text("SET LOCAL max_parallel_workers_per_gather = 0"))
        segments = _segments(parsed, d)
        sort_col = _sort_column(sort, d)
        order = (sort_col.desc(), Person.id.desc()) if descending else (sort_col, Person.id)
        found: list[tuple[int, str]] = []  # (id, sort key)
        segment = after.segment if after else 0
        next_cursor: SearchCursor | None = None
        while segment < len(segments):
            wanted = limit - len(found)
            part = segments[segment]()
            resume = after if after is not None and after.segment == segment and after.started else None
            # Only what the sort index holds, so a walk reads the index and not the table.
            stmt = select(Person.id, label("k", sort_col))
            if isinstance(part, _Listed):
                stmt = stmt.where(Person.id.in_(part.page(resume, descending, wanted + 1)))
            else:
                stmt = stmt.where(part.condition if isinstance(part, _Walk) else part)
                if resume is not None:
                    stmt = stmt.where(_after(sort_col, resume, descending))
            stmt = stmt.order_by(*order).limit(wanted + 1)
            if isinstance(part, _Walk) and d.pg:
                # Matches are dense (the probe said so): the index walk finds a page in a few thousand
                # entries, where a bitmap over every match then a sort would read them all.
                s.execute(text("SET LOCAL enable_bitmapscan = off"))
                s.execute(text("SET LOCAL enable_seqscan = off"))
                try:
                    rows = s.execute(stmt).all()
                finally:
                    s.execute(text("SET LOCAL enable_bitmapscan = on"))
                    s.execute(text("SET LOCAL enable_seqscan = on"))
            else:
                rows = s.execute(stmt).all()
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
        hits = _describe(s, found)
    return SearchPage(parsed, hits, next_cursor)


def _describe(s: Session, found: list[tuple[int, str]]) -> list[PersonHit]:
    """Service, permit, situation and plate of each person of the page (three indexed lookups).

    Plain column tuples, not ORM objects: loading 200 full rows of three tables costs more than
    the search itself.
    """
    ids = [row[0] for row in found]
    if not ids:
        return []
    # One round trip: permits, applications and active vehicles of the page's people. The parts'
    # columns differ in type (read by name below), so the rows are not typed column by column.
    rows: Sequence[Row] = s.execute(union_all(
        # Plain strings in the shared columns (the first SELECT types them): no enum conversion.
        select(literal_column("'p'").label("kind"), Permit.person_id.label("pid"), Permit.number.label("v"),
               type_coerce(Permit.service_type, String).label("service"),
               type_coerce(Permit.state, String).label("state"),
               Permit.issued_on.label("day"), Permit.id.label("id")).where(Permit.person_id.in_(ids)),
        select(literal_column("'a'"), Application.person_id, literal_column("NULL"), Application.service_type,
               Application.state, Application.opened_on, Application.id).where(Application.person_id.in_(ids)),
        select(literal_column("'v'"), Vehicle.holder_id, Vehicle.plate, Vehicle.service_type, literal_column("NULL"),
               literal_column("NULL"), Vehicle.id).where(Vehicle.holder_id.in_(ids), Vehicle.active.is_(True)),
        select(literal_column("'n'"), Person.id, Person.full_name, Person.cpf, literal_column("NULL"),
               literal_column("NULL"), Person.id).where(Person.id.in_(ids)),
    )).all()
    names: dict[int, tuple[str, str]] = {}
    permits: dict[int, list[_Related]] = {}
    applications: dict[int, _Related] = {}
    vehicles: dict[int, _ActiveVehicle] = {}
    for row in rows:
        if row.kind == "n":
            names[row.pid] = (row.v, row.service)  # full name, CPF
            continue
        row_service = ServiceType(row.service) if row.service else None
        if row.kind == "v":
            vehicles[row.pid] = _ActiveVehicle(row.v, row_service)
            continue
        related = _Related(row.v, row_service, PermitState(row.state), row.day, row.id)  # state: NOT NULL
        if row.kind == "p":
            permits.setdefault(row.pid, []).append(related)
        else:
            current = applications.get(row.pid)
            if current is None or (related.day, related.id) > (current.day, current.id):
                applications[row.pid] = related  # the newest
    hits = []
    for pid, _key in found:
        if pid not in names:
            continue  # removed meanwhile
        name, cpf = names[pid]
        permit = _main_permit(permits.get(pid, ()))
        app = applications.get(pid)
        vehicle = vehicles.get(pid)
        service: ServiceType | None = None
        situation = NO_APPLICATION
        number = None
        open_app = app is not None and app.state in OPEN_APPLICATION_STATES
        if permit is not None and (permit.state.in_force or not open_app):
            service, number, situation = permit.service, permit.value, permit.state.label
        elif app is not None:
            service, situation = app.service, APPLICATION_LABELS.get(app.state, app.state.label)
            number = permit.value if permit is not None else None
        elif vehicle is not None:
            service = vehicle.service
        hits.append(PersonHit(pid, name, cpf, service, number, situation,
                              format_plate(vehicle.plate) if vehicle is not None and vehicle.plate else None))
    return hits


def _main_permit(permits: Sequence[_Related]) -> _Related | None:
    """The permit in force, else the most recently issued."""
    if not permits:
        return None
    return max(permits, key=lambda p: (p.state.in_force, p.day or date.min, p.id))
