"""Workstations that see each other's changes: PostgreSQL ``LISTEN/NOTIFY``.

Announcing (every PostgreSQL unit of work, whatever opened it): the session hooks below note the
kinds of record each flush or Core INSERT/UPDATE/DELETE touched (``person``, ``permit``, … — the
names the screens' :func:`motodesk.ui.changes.follow_changes` use) with the ids where the ORM has
them, and just before COMMIT send one ``pg_notify`` on :data:`CHANNEL` from inside the same
transaction. PostgreSQL delivers a notification only when its transaction commits, so an announced
change is a committed one, and a rolled-back one is never announced.

Listening (:class:`ChangeListener`): a thread with a connection of its own in autocommit that
``LISTEN``\\s and hands each :class:`Announcement` to a callback (the GUI's bridge,
:mod:`motodesk.ui.live`, passes it on to the GUI thread). When the server goes away it reconnects by
itself with a growing pause, and once back it announces "anything may have changed" (``*``), since
notifications sent meanwhile are lost. A notification whose origin is the listener's own
(:attr:`motodesk.services.context.AppContext.origin`: this window already announced it to its pages)
is dropped.

SQLite has no such thing and needs none (one workstation): nothing is sent, nothing listens.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import event, text
from sqlalchemy.engine import URL
from sqlalchemy.orm import ORMExecuteState, Session, UOWTransaction

log = logging.getLogger(__name__)

CHANNEL = "motodesk_changes"
ANY = "*"
#: The session.info key of this unit of work's origin (who must not apply it a second time).
ORIGIN = "change_origin"
_PENDING = "live_changes"
#: More ids of one kind than this and the announcement says "some" (None) instead of listing them.
MAX_IDS = 40

#: table -> (kind of record the screens follow, column whose value names the record, or None).
TABLE_KINDS: dict[str, tuple[str, str | None]] = {
    "people": ("person", "id"),
    "person_documents": ("person", "person_id"),
    "person_name_changes": ("person", "person_id"),
    "photos": ("person", "person_id"),
    "attachments": ("person", None),
    "vehicles": ("vehicle", "id"),
    "inspections": ("inspection", "id"),
    "inspection_items": ("inspection", "inspection_id"),
    "vehicle_accidents": ("accident", "id"),
    "applications": ("permit", None),
    "permits": ("permit", "id"),
    "permit_events": ("permit", "permit_id"),
    "quota_counters": ("permit", None),
    "decrees": ("permit", None),
    "badge_prints": ("badge", None),
    "card_batches": ("card_stock", None),
    "card_uses": ("card_stock", None),
    "spoiled_cards": ("card_stock", None),
    "fee_payments": ("payment", "id"),
    "infraction_notices": ("notice", "id"),
    "defences": ("notice", None),
    "decisions": ("notice", None),
    "criminal_judgments": ("notice", None),
    "campaigns": ("campaign", None),
    "campaign_appointments": ("campaign", None),
    "campaign_appointment_events": ("campaign", None),
    "tenders": ("tender", "id"),
    "tender_candidates": ("tender", "tender_id"),
    "deputy_links": ("deputy", None),
    "organisations": ("organisation", "id"),
    "affiliations": ("organisation", None),
    "stands": ("stand", "id"),
    "stand_assignments": ("stand", "stand_id"),
    "users": ("user", "id"),
    "settings": ("settings", None),
}
#: Rows nobody's screen shows as a record (the trail, the log, file contents, Alembic's own).
SILENT_TABLES = frozenset({"audit_events", "access_log", "blobs", "alembic_version"})


@dataclass(frozen=True)
class Announcement:
    """One committed unit of work of another workstation (or ``*`` after a reconnection)."""

    kinds: Mapping[str, frozenset[int] | None]  # kind -> ids known changed (None: unknown which)
    author: str = ""  # the MotoDesk login that made the change ("" after a reconnection)
    origin: str = ""

    @property
    def resync(self) -> bool:
        """Not a change but "anything may have changed": the listener was away from the server."""
        return not self.author and not self.origin and ANY in self.kinds

    def ids(self, kind: str) -> frozenset[int] | None:
        """The changed records of ``kind``: empty when none, None when any may have changed."""
        if ANY in self.kinds:
            return None
        return self.kinds.get(kind, frozenset())

    def touches(self, kind: str, record_id: int) -> bool:
        """True when this change names the record (or may have changed it: ids unknown)."""
        if kind not in self.kinds and ANY not in self.kinds:
            return False
        ids = self.ids(kind)
        return ids is None or record_id in ids


def encode(kinds: Mapping[str, set[int] | None], author: str, origin: str) -> str:
    body = {k: (sorted(v) if v is not None and len(v) <= MAX_IDS else None) for k, v in sorted(kinds.items())}
    return json.dumps({"o": origin, "u": author, "k": body}, separators=(",", ":"))


def decode(payload: str) -> Announcement | None:
    try:
        data = json.loads(payload)
        kinds = {str(k): (frozenset(int(i) for i in v) if v is not None else None)
                 for k, v in dict(data["k"]).items()}
        return Announcement(kinds, str(data.get("u") or ""), str(data.get("o") or ""))
    except (ValueError, TypeError, KeyError, AttributeError):
        log.warning("ignoring a change notification that is not MotoDesk's: %.200s", payload)
        return None


# --- announcing -----------------------------------------------------------------------------------

def _is_postgresql(session: Session) -> bool:
    try:
        return session.get_bind().dialect.name == "postgresql"
    except Exception:  # noqa: BLE001 - an unbound session announces nothing
        return False


def _note(session: Session, table: str, ids: Iterable[Any] | None) -> None:
    if table in SILENT_TABLES:
        return
    kind, _column = TABLE_KINDS.get(table, (ANY, None))
    pending: dict[str, set[int] | None] = session.info.setdefault(_PENDING, {})
    if ids is None:
        pending[kind] = None
        return
    known = pending.setdefault(kind, set())
    if known is None:
        return
    known.update(int(i) for i in ids if isinstance(i, int))
    if len(known) > MAX_IDS:
        pending[kind] = None


@event.listens_for(Session, "after_flush")
def _after_flush(session: Session, _flush_context: UOWTransaction) -> None:
    if not _is_postgresql(session):
        return
    for obj in (*session.new, *session.dirty, *session.deleted):
        if obj in session.dirty and not session.is_modified(obj, include_collections=False):
            continue
        table = getattr(getattr(obj, "__table__", None), "name", None)
        if table is None:
            continue
        column = TABLE_KINDS.get(table, (ANY, None))[1]
        value = getattr(obj, column, None) if column else None
        _note(session, table, [value] if value is not None else [])


@event.listens_for(Session, "do_orm_execute")
def _core_dml(state: ORMExecuteState) -> None:
    if not (state.is_insert or state.is_update or state.is_delete):
        return
    if not _is_postgresql(state.session):
        return
    table = getattr(state.statement, "table", None)
    name = getattr(table, "name", None)
    _note(state.session, name or ANY, None)  # which rows a bulk statement touches is not known


@event.listens_for(Session, "before_commit")
def _before_commit(session: Session) -> None:
    if not _is_postgresql(session):
        return
    if session.new or session.dirty or session.deleted:
        session.flush()  # the commit's own flush comes after this hook: its tables count too
    pending = session.info.pop(_PENDING, None)
    if not pending:
        return
    payload = encode(pending, str(session.info.get("user_login") or ""), str(session.info.get(ORIGIN) or ""))
    session.connection().execute(text("SELECT pg_notify(:channel, :payload)"),
                                 {"channel": CHANNEL, "payload": payload})


@event.listens_for(Session, "after_rollback")
def _after_rollback(session: Session) -> None:
    session.info.pop(_PENDING, None)


# --- listening ------------------------------------------------------------------------------------

#: Pauses between reconnection attempts (seconds); the last one repeats.
BACKOFF = (0.2, 0.5, 1.0, 2.0, 5.0)
#: How long one wait for notifications lasts before the thread looks whether it must stop.
POLL_SECONDS = 0.5


def connect_kwargs(url: URL) -> dict[str, Any]:
    """psycopg's keyword arguments for the SQLAlchemy URL (a password with any character survives)."""
    kwargs: dict[str, Any] = {k: v for k, v in dict(url.query).items() if isinstance(v, str)}
    for key, value in (("host", url.host), ("port", url.port), ("user", url.username),
                       ("password", url.password), ("dbname", url.database)):
        if value is not None:
            kwargs[key] = str(value)
    kwargs.setdefault("connect_timeout", "5")
    # A server that vanished without a word (cable, power) is noticed within a minute.
    kwargs.update(keepalives="1", keepalives_idle="20", keepalives_interval="5", keepalives_count="3")
    return kwargs


class ChangeListener:
    """A thread that LISTENs on its own connection and calls ``on_change`` for each announcement.

    ``on_change`` and ``on_state`` run on the listener's thread: they must only hand the news on
    (the GUI's bridge emits a Qt signal). ``on_state(True)`` when listening, ``False`` when the
    connection was lost (it is being re-established).
    """

    def __init__(self, url: URL, origin: str, on_change: Callable[[Announcement], None],
                 on_state: Callable[[bool], None] | None = None) -> None:
        self.url = url
        self.origin = origin
        self.on_change = on_change
        self.on_state = on_state
        self.connected = threading.Event()
        self.connections = 0  # how many times it (re)connected: the tests watch it
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._conn: Any = None

    def start(self) -> ChangeListener:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="motodesk-live-changes", daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _run(self) -> None:
        import psycopg

        attempt = 0
        while not self._stop.is_set():
            try:
                with psycopg.connect(autocommit=True, **connect_kwargs(self.url)) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self.connections += 1
                    attempt = 0
                    self.connected.set()
                    self._state(True)
                    if self.connections > 1:  # what was announced while away is lost: reload all
                        self._deliver(Announcement({ANY: None}))
                    while not self._stop.is_set():
                        for notify in conn.notifies(timeout=POLL_SECONDS):
                            if notify.channel == CHANNEL:
                                self._received(notify.payload)
                            if self._stop.is_set():
                                break
            except psycopg.Error as exc:
                if self._stop.is_set():
                    break
                if self.connected.is_set():
                    log.warning("live changes: connection lost (%s); reconnecting", str(exc).strip()[:200])
                    self.connected.clear()
                    self._state(False)
                pause = BACKOFF[min(attempt, len(BACKOFF) - 1)]
                attempt += 1
                self._stop.wait(pause)
        self.connected.clear()

    def _received(self, payload: str) -> None:
        announcement = decode(payload)
        if announcement is None or (self.origin and announcement.origin == self.origin):
            return  # not ours to apply, or this window's own change (its pages already have it)
        self._deliver(announcement)

    def _deliver(self, announcement: Announcement) -> None:
        try:
            self.on_change(announcement)
        except Exception:  # noqa: BLE001 - a receiver's bug must not stop the listening
            log.exception("live changes: the receiver failed")

    def _state(self, connected: bool) -> None:
        if self.on_state is not None:
            try:
                self.on_state(connected)
            except Exception:  # noqa: BLE001
                log.exception("live changes: the state receiver failed")


def listen(url: URL, origin: str, on_change: Callable[[Announcement], None],
           on_state: Callable[[bool], None] | None = None) -> ChangeListener | None:
    """A started listener for a PostgreSQL database; None for SQLite (nothing to listen to)."""
    if url.get_backend_name() != "postgresql":
        return None
    return ChangeListener(url, origin, on_change, on_state).start()
