"""Card stock (issue 19, part 2): batches of blank pre-numbered PVC cards, one card per badge printed,
spoiled cards, and the report per period.

**Serial numbers** (:mod:`motodesk.models.cards`).  A serial is an optional fixed prefix followed by
digits: ``000123`` or ``PTC-000123``.  Typed text is read without spaces and in capitals, the
trailing run of digits is the number and what comes before it the prefix (letters, digits and
``- / .``, ending in a non-digit).  A batch keeps the width of its first serial, so ``ptc-123``
typed by hand and ``PTC-000123`` read by the barcode scanner are the same card, stored as
``PTC-000123``.

**Who must give a serial.**  The setting ``card_serial_required`` ("exigir número do cartão", on by
default) makes every badge printed on the card printer (layout ``card``) consume one serial once
the secretariat has recorded its first batch: from then on the register is complete, and a print
without a serial, or with one outside the batches, used or spoiled, is refused.  Before any batch
is recorded there is no stock to account for and printing goes on as before.  A4 sheets are not
PVC cards: they take no serial, and the report counts them apart.  A supervisor may turn the
setting off (a card printer without pre-numbered cards); prints without a serial are then counted
as "sem número de cartão".

**Writes.**  Each service is one transaction; the tables are audited like every other (the ORM
flush on SQLite, the triggers on PostgreSQL).  Writes to the stock take one advisory lock on
PostgreSQL (SQLite's write lock serialises them already), so two workstations can never both take
the same card or record overlapping batches.

**The report** (:func:`stock_report`) covers local dates (America/Sao_Paulo): cards received,
printed, spoiled and left at the end of the period, badges printed without a card, and anomalies:
a serial used twice (two prints, or printed and also spoiled — only data written around the
services can hold one), a serial skipped (neither used nor spoiled while a later serial of its
batch is, at the end of the period; recording the missing card as spoiled clears it), and a serial
outside every batch.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import func, select, text
from sqlalchemy.orm import Session

from motodesk.models import BadgePrint, CardBatch, CardUse, Permit, Setting, SpoiledCard
from motodesk.rules.common import Role
from motodesk.rules.text import format_date, format_int
from motodesk.services.clock import LOCAL_TZ, local_today
from motodesk.services.context import AppContext, requires
from motodesk.services.errors import InvalidInputError, MotodeskError

REQUIRED_SETTING = "card_serial_required"
READERS = (Role.CLERK, Role.SUPERVISOR, Role.ADMIN)
PRINTERS = (Role.CLERK, Role.SUPERVISOR)  # as services.badges.PRINTERS: who prints may spoil a card
KEEPERS = (Role.SUPERVISOR, Role.ADMIN)  # who records deliveries and decides the setting
MAX_BATCH_CARDS = 100_000
MAX_PREFIX = 16
MAX_DIGITS = 9
MAX_NOTE = 500
MAX_REASON = 500
#: Advisory lock (PostgreSQL) taken by every write to the stock.
STOCK_LOCK = (4883, 19)
_SERIAL = re.compile(r"^(?P<prefix>(?:[A-Z0-9./-]*[A-Z./-])?)(?P<number>[0-9]+)$")
_FIELD = "card_serial"


# --- serial numbers ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Serial:
    """A typed serial, read: its prefix, its number and how many digits were typed."""

    prefix: str
    number: int
    digits: int


def parse_serial(typed: str, *, field_key: str = _FIELD) -> Serial:
    """Read a typed or scanned serial (spaces dropped, capitals), or say in pt_BR why not."""
    cleaned = "".join(str(typed or "").split()).upper()
    if not cleaned:
        raise InvalidInputError("Informe o número do cartão.", {field_key: "Obrigatório."})
    match = _SERIAL.match(cleaned)
    if match is None:
        raise InvalidInputError(
            f"Número de cartão inválido: {cleaned[:40]!r}. Use só algarismos, com um prefixo fixo se o "
            "lote tiver (ex.: 000123 ou PTC-000123).", {field_key: "Número inválido."})
    prefix, digits = match.group("prefix"), match.group("number")
    if len(prefix) > MAX_PREFIX:
        raise InvalidInputError(f"O prefixo do cartão é longo demais (até {MAX_PREFIX} caracteres).",
                                {field_key: "Prefixo longo demais."})
    if len(digits.lstrip("0")) > MAX_DIGITS:
        raise InvalidInputError(f"O número do cartão tem algarismos demais (até {MAX_DIGITS}).",
                                {field_key: "Número longo demais."})
    return Serial(prefix, int(digits), len(digits))


def format_serial(prefix: str, number: int, width: int) -> str:
    """The canonical serial: the prefix, then the number zero-padded to the batch's width."""
    return f"{prefix}{number:0{width}d}"


def _batch_serial(batch: CardBatch, number: int) -> str:
    return format_serial(batch.prefix, number, batch.width)


def _lock(s: Session) -> None:
    if s.get_bind().dialect.name == "postgresql":
        s.execute(text("SELECT pg_advisory_xact_lock(:a, :b)"), {"a": STOCK_LOCK[0], "b": STOCK_LOCK[1]})


def _batch_of(s: Session, serial: Serial) -> CardBatch | None:
    return s.scalars(select(CardBatch).where(CardBatch.prefix == serial.prefix, CardBatch.first_no <= serial.number,
                                             CardBatch.last_no >= serial.number)
                     .order_by(CardBatch.id)).first()


def _taken(s: Session, serial: str) -> str | None:
    """Why ``serial`` can no longer be used (pt_BR), or None when the card is free."""
    used = s.execute(select(CardUse.used_at, Permit.number, BadgePrint.issue_no)
                     .join(BadgePrint, BadgePrint.id == CardUse.badge_print_id)
                     .join(Permit, Permit.id == BadgePrint.permit_id)
                     .where(CardUse.serial == serial).order_by(CardUse.id)).first()
    if used is not None:
        return (f"O cartão {serial} já foi usado no crachá de {used.number} ({used.issue_no}ª via) em "
                f"{format_date(used.used_at.astimezone(LOCAL_TZ).date())}.")
    spoiled = s.execute(select(SpoiledCard.spoiled_at, SpoiledCard.reason).where(SpoiledCard.serial == serial)
                        .order_by(SpoiledCard.id)).first()
    if spoiled is not None:
        return (f"O cartão {serial} foi registrado como inutilizado em "
                f"{format_date(spoiled.spoiled_at.astimezone(LOCAL_TZ).date())} ({spoiled.reason}).")
    return None


def _free_card(s: Session, typed: str, field_key: str = _FIELD) -> tuple[str, CardBatch]:
    """The canonical serial and its batch, or InvalidInputError: outside every batch, used, spoiled."""
    serial = parse_serial(typed, field_key=field_key)
    batch = _batch_of(s, serial)
    if batch is None:
        shown = format_serial(serial.prefix, serial.number, serial.digits)
        raise InvalidInputError(f"O cartão {shown} não pertence a nenhum lote de cartões registrado. "
                                "Confira o número ou registre o lote recebido.", {field_key: "Fora dos lotes."})
    canonical = _batch_serial(batch, serial.number)
    why = _taken(s, canonical)
    if why:
        raise InvalidInputError(why + " Use outro cartão.", {field_key: "Cartão já usado."})
    return canonical, batch


# --- the setting -------------------------------------------------------------------------------


def _required_setting(s: Session) -> bool:
    raw = s.scalar(select(Setting.value).where(Setting.key == REQUIRED_SETTING))
    if raw is None:
        return True
    try:
        value = json.loads(raw)
    except ValueError:
        return True  # a damaged value keeps the register complete
    return value is not False


def _has_stock(s: Session) -> bool:
    return s.scalar(select(func.count(CardBatch.id))) != 0


@requires(*READERS)
def serial_required(ctx: AppContext) -> bool:
    """Whether a badge printed on the card printer must name its card now (setting on and stock recorded)."""
    with ctx.read() as s:
        return _required_setting(s) and _has_stock(s)


@requires(*READERS)
def serial_required_setting(ctx: AppContext) -> bool:
    """The setting "exigir número do cartão" itself (on unless a supervisor turned it off)."""
    with ctx.read() as s:
        return _required_setting(s)


@requires(*KEEPERS)
def set_serial_required(ctx: AppContext, required: bool) -> bool:
    with ctx.write() as s:
        row = s.get(Setting, REQUIRED_SETTING)
        value = json.dumps(bool(required))
        if row is None:
            s.add(Setting(key=REQUIRED_SETTING, value=value))
        elif row.value != value:
            row.value = value
    return bool(required)


# --- batches -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class BatchRow:
    id: int
    first_serial: str
    last_serial: str
    cards: int
    received_on: date
    note: str | None
    recorded_by: str
    recorded_at: datetime
    used: int
    spoiled: int

    @property
    def left(self) -> int:
        return self.cards - self.used - self.spoiled


def _batch_row(batch: CardBatch, used: int, spoiled: int) -> BatchRow:
    return BatchRow(batch.id, _batch_serial(batch, batch.first_no), _batch_serial(batch, batch.last_no),
                    batch.last_no - batch.first_no + 1, batch.received_on, batch.note, batch.recorded_by,
                    batch.recorded_at, used, spoiled)


def _clean_text(value: str | None, limit: int, what: str, field_key: str) -> str | None:
    cleaned = " ".join((value or "").split()) or None
    if cleaned and len(cleaned) > limit:
        raise InvalidInputError(f"{what} é longo demais (até {limit} caracteres).", {field_key: "Longo demais."})
    return cleaned


@requires(*KEEPERS)
def record_batch(ctx: AppContext, first_serial: str, last_serial: str, *, received_on: date | None = None,
                 note: str | None = None) -> BatchRow:
    """Record blank cards received, ``first_serial`` to ``last_serial``; refuses an empty or reversed
    range, two prefixes, and any overlap with a batch already recorded."""
    first = parse_serial(first_serial, field_key="first_serial")
    last = parse_serial(last_serial, field_key="last_serial")
    note = _clean_text(note, MAX_NOTE, "A observação", "note")
    received_on = received_on or local_today()
    if first.prefix != last.prefix:
        raise InvalidInputError(
            f"O primeiro e o último cartão do lote têm prefixos diferentes ({first.prefix or 'sem prefixo'} e "
            f"{last.prefix or 'sem prefixo'}): registre um lote por série.", {"last_serial": "Prefixo diferente."})
    if last.number < first.number:
        raise InvalidInputError(
            f"Faixa invertida: o último cartão ({last_serial.strip()}) vem antes do primeiro "
            f"({first_serial.strip()}).", {"last_serial": "Menor que o primeiro."})
    cards = last.number - first.number + 1
    if cards > MAX_BATCH_CARDS:
        raise InvalidInputError(f"Um lote tem no máximo {format_int(MAX_BATCH_CARDS)} cartões; esta faixa tem "
                                f"{format_int(cards)}. Confira os números.", {"last_serial": "Faixa grande demais."})
    if received_on > local_today():
        raise InvalidInputError("A data de recebimento não pode ser futura.", {"received_on": "Data futura."})
    with ctx.write() as s:
        _lock(s)
        clash = s.scalars(select(CardBatch).where(CardBatch.prefix == first.prefix,
                                                  CardBatch.first_no <= last.number,
                                                  CardBatch.last_no >= first.number)
                          .order_by(CardBatch.first_no)).first()
        if clash is not None:
            raise InvalidInputError(
                f"A faixa se sobrepõe ao lote já registrado de {_batch_serial(clash, clash.first_no)} a "
                f"{_batch_serial(clash, clash.last_no)} (recebido em {format_date(clash.received_on)}). "
                "Nenhum cartão pode estar em dois lotes.", {"first_serial": "Sobreposição com outro lote."})
        batch = CardBatch(prefix=first.prefix, first_no=first.number, last_no=last.number, width=first.digits,
                          received_on=received_on, note=note, recorded_by=ctx.user.login,
                          recorded_at=datetime.now(UTC))
        s.add(batch)
        s.flush()
        return _batch_row(batch, 0, 0)


@requires(*READERS)
def list_batches(ctx: AppContext) -> list[BatchRow]:
    """Every batch, newest received first, with its cards used, spoiled and left."""
    with ctx.read() as s:
        batches = s.scalars(select(CardBatch).order_by(CardBatch.received_on.desc(), CardBatch.id.desc())).all()
        used = _distinct_serials_by_batch(s, CardUse)
        spoiled = _distinct_serials_by_batch(s, SpoiledCard)
    rows = []
    for b in batches:
        taken_by_use = used.get(b.id, set())
        rows.append(_batch_row(b, len(taken_by_use), len(spoiled.get(b.id, set()) - taken_by_use)))
    return rows


def _distinct_serials_by_batch(s: Session, table: type[CardUse] | type[SpoiledCard]) -> dict[int, set[str]]:
    found: dict[int, set[str]] = defaultdict(set)
    for batch_id, serial in s.execute(select(table.batch_id, table.serial).where(table.batch_id.is_not(None))):
        if batch_id is not None:
            found[batch_id].add(serial)
    return found


# --- serials at print time ---------------------------------------------------------------------


@requires(*READERS)
def check_serial(ctx: AppContext, typed: str) -> str:
    """The canonical serial of a free card in stock, or InvalidInputError (pt_BR) saying why not."""
    with ctx.read() as s:
        return _free_card(s, typed)[0]


@requires(*READERS)
def next_free_serials(ctx: AppContext, count: int = 1) -> list[str]:
    """The cards on top of the stack: after the highest card used or spoiled of the oldest batch not
    yet finished, then the next batches (fewer than ``count`` when the stock runs out)."""
    with ctx.read() as s:
        batches = s.scalars(select(CardBatch).order_by(CardBatch.received_on, CardBatch.id)).all()
        taken: dict[int, set[str]] = defaultdict(set)
        for source in (CardUse, SpoiledCard):
            for batch_id, serials in _distinct_serials_by_batch(s, source).items():
                taken[batch_id] |= serials
    found: list[str] = []
    for batch in batches:
        numbers = {parse_serial(x).number for x in taken.get(batch.id, set())}
        start = max(numbers) + 1 if numbers else batch.first_no
        for number in range(start, batch.last_no + 1):
            if len(found) >= count:
                return found
            found.append(_batch_serial(batch, number))
    return found


@dataclass(frozen=True)
class CardState:
    """What the print dialog needs: is a serial required, is there stock at all, and the suggestion."""

    required: bool
    stock: bool
    suggested: list[str]
    left: int


@requires(*READERS)
def print_card_state(ctx: AppContext, count: int = 1) -> CardState:
    with ctx.read() as s:
        required, stock = _required_setting(s), _has_stock(s)
    suggested = next_free_serials(ctx, count) if stock else []
    left = sum(b.left for b in list_batches(ctx)) if stock else 0
    return CardState(required and stock, stock, suggested, left)


def record_uses(s: Session, user_login: str, printed_at: datetime, layout: str,
                prints: Sequence[Mapping[str, Any]], card_serials: Sequence[str] | None) -> None:
    """Inside :func:`motodesk.services.badges.print_badges`' transaction: one card per badge just logged.

    ``prints`` are the BadgePrint rows as inserted (permit_id, deputy_link_id, issue_no), in the
    order of the PDF; ``card_serials`` the serial of each, in the same order.  Refuses (and so rolls
    back the whole print) a count that does not match, a serial outside the batches, used, spoiled
    or given twice, and, when serials are required, a card print without them.
    """
    serials = [str(x) for x in card_serials] if card_serials is not None else None
    if serials is not None and not any(x.strip() for x in serials):
        serials = None
    if layout != "card":
        if serials:
            raise InvalidInputError("A folha A4 não usa cartões numerados: imprima sem número de cartão ou "
                                    "escolha a impressora de cartões.", {_FIELD: "Não se aplica à folha A4."})
        return
    if serials is None:
        if _required_setting(s) and _has_stock(s):
            raise InvalidInputError(
                "Informe o número do cartão de cada crachá: o estoque de cartões está em uso "
                "(configuração \"exigir número do cartão\").", {_FIELD: "Obrigatório."})
        return
    if len(serials) != len(prints):
        raise InvalidInputError(f"Informe um número de cartão por crachá: {len(prints)} crachá(s), "
                                f"{len(serials)} número(s).", {_FIELD: "Um por crachá."})
    _lock(s)
    canonical: list[tuple[str, CardBatch]] = []
    for typed in serials:
        serial, batch = _free_card(s, typed)
        if any(serial == seen for seen, _b in canonical):
            raise InvalidInputError(f"O cartão {serial} aparece duas vezes nesta impressão.", {_FIELD: "Repetido."})
        canonical.append((serial, batch))
    ids = _print_ids(s, prints)
    for (serial, batch), print_id in zip(canonical, ids, strict=True):
        s.add(CardUse(serial=serial, batch_id=batch.id, badge_print_id=print_id, used_at=printed_at,
                      used_by=user_login))
    s.flush()


def _print_ids(s: Session, prints: Sequence[Mapping[str, Any]]) -> list[int]:
    """The ids of the BadgePrint rows just inserted (the newest row of each badge and copy)."""
    ids = []
    for row in prints:
        link = row.get("deputy_link_id")
        print_id = s.scalar(select(func.max(BadgePrint.id)).where(
            BadgePrint.permit_id == row["permit_id"], BadgePrint.issue_no == row["issue_no"],
            BadgePrint.deputy_link_id.is_(None) if link is None else BadgePrint.deputy_link_id == link))
        if print_id is None:
            raise MotodeskError("O registro da impressão do crachá não foi encontrado; nada foi gravado.")
        ids.append(int(print_id))
    return ids


# --- spoiled cards -----------------------------------------------------------------------------


@dataclass(frozen=True)
class SpoiledRow:
    serial: str
    reason: str
    spoiled_by: str
    spoiled_at: datetime


@requires(*PRINTERS)
def spoil_card(ctx: AppContext, serial: str, reason: str) -> SpoiledRow:
    """Take a blank card out of the stock as inutilizado (misprint, jam, damage, lost), with its reason."""
    cleaned = _clean_text(reason, MAX_REASON, "O motivo", "reason")
    if not cleaned or len(cleaned) < 3:
        raise InvalidInputError("Informe o motivo do cartão inutilizado (ex.: erro de impressão, cartão "
                                "danificado, extraviado).", {"reason": "Obrigatório."})
    with ctx.write() as s:
        _lock(s)
        canonical, batch = _free_card(s, serial)
        row = SpoiledCard(serial=canonical, batch_id=batch.id, reason=cleaned, spoiled_by=ctx.user.login,
                          spoiled_at=datetime.now(UTC))
        s.add(row)
        s.flush()
        return SpoiledRow(row.serial, row.reason, row.spoiled_by, row.spoiled_at)


@requires(*READERS)
def list_spoiled(ctx: AppContext, limit: int = 500) -> list[SpoiledRow]:
    """The cards spoiled, newest first."""
    with ctx.read() as s:
        rows = s.scalars(select(SpoiledCard).order_by(SpoiledCard.spoiled_at.desc(), SpoiledCard.id.desc())
                         .limit(limit)).all()
    return [SpoiledRow(r.serial, r.reason, r.spoiled_by, r.spoiled_at) for r in rows]


@requires(*PRINTERS)
def replace_card(ctx: AppContext, permit_id: int, issue_no: int, *, deputy: bool, new_serial: str,
                 reason: str) -> tuple[SpoiledRow, str]:
    """A badge that came out of the printer spoiled: its card is recorded as inutilizado and the same
    signed badge (same copy, nothing re-signed or paid again) is printed on ``new_serial``.

    Only the copy in use (the newest print of that badge) may move to another card; the print log
    then names the card it is really on. Returns the spoiled card and the new canonical serial.
    """
    cleaned = _clean_text(reason, MAX_REASON, "O motivo", "reason")
    if not cleaned or len(cleaned) < 3:
        raise InvalidInputError("Informe o motivo do cartão inutilizado (ex.: erro de impressão).",
                                {"reason": "Obrigatório."})
    with ctx.write() as s:
        _lock(s)
        newest = s.scalars(select(BadgePrint).where(
            BadgePrint.permit_id == permit_id,
            BadgePrint.deputy_link_id.is_not(None) if deputy else BadgePrint.deputy_link_id.is_(None))
            .order_by(BadgePrint.issue_no.desc(), BadgePrint.id.desc())).first()
        if newest is None or newest.issue_no != issue_no:
            raise InvalidInputError("Só a via em uso do crachá pode passar para outro cartão; esta via já foi "
                                    "substituída.", {"print": "Via substituída."})
        use = s.scalars(select(CardUse).where(CardUse.badge_print_id == newest.id)).first()
        if use is None:
            raise InvalidInputError("Esta impressão não registrou número de cartão: registre o cartão "
                                    "inutilizado pelo número.", {"print": "Sem cartão."})
        canonical, batch = _free_card(s, new_serial, "new_serial")
        spoiled = SpoiledCard(serial=use.serial, batch_id=use.batch_id, reason=cleaned, spoiled_by=ctx.user.login,
                              spoiled_at=datetime.now(UTC))
        s.add(spoiled)
        use.serial, use.batch_id = canonical, batch.id
        s.flush()
        return SpoiledRow(spoiled.serial, spoiled.reason, spoiled.spoiled_by, spoiled.spoiled_at), canonical


# --- the report --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Anomaly:
    kind: str  # duplicate | skipped | outside
    serial: str
    message: str  # pt_BR

    @property
    def label(self) -> str:
        return {"duplicate": "Usado duas vezes", "skipped": "Pulado", "outside": "Fora dos lotes"}[self.kind]


@dataclass(frozen=True)
class UseRow:
    serial: str
    used_at: datetime
    used_by: str
    permit_number: str
    issue_no: int
    holder_kind: str  # titular | preposto


@dataclass(frozen=True)
class StockReport:
    start: date
    end: date
    received: int
    printed: int
    spoiled: int
    left: int
    printed_without_card: int  # on the card printer, with no serial (setting off, or before any batch)
    printed_on_a4: int
    anomalies: list[Anomaly] = field(default_factory=list)
    uses: list[UseRow] = field(default_factory=list)
    spoils: list[SpoiledRow] = field(default_factory=list)

    def count(self, kind: str) -> int:
        return sum(1 for a in self.anomalies if a.kind == kind)


def _bounds(start: date, end: date) -> tuple[datetime, datetime]:
    """The local days ``start``..``end`` as a UTC interval [from, to)."""
    since = datetime.combine(start, time(0), LOCAL_TZ).astimezone(UTC)
    until = datetime.combine(end + timedelta(days=1), time(0), LOCAL_TZ).astimezone(UTC)
    return since, until


def _local_day(at: datetime) -> str:
    return format_date(at.astimezone(LOCAL_TZ).date())


@requires(*KEEPERS)  # the README: the period's report is for supervisor and admin
def stock_report(ctx: AppContext, start: date, end: date) -> StockReport:
    """Cards received, printed, spoiled and left in the local days ``start``..``end``, and anomalies."""
    if end < start:
        raise InvalidInputError("O período termina antes de começar.", {"end": "Antes do início."})
    since, until = _bounds(start, end)
    with ctx.read() as s:
        batches = s.scalars(select(CardBatch).order_by(CardBatch.prefix, CardBatch.first_no)).all()
        uses = s.execute(
            select(CardUse.serial, CardUse.batch_id, CardUse.used_at, CardUse.used_by, Permit.number,
                   BadgePrint.issue_no, BadgePrint.deputy_link_id)
            .join(BadgePrint, BadgePrint.id == CardUse.badge_print_id)
            .join(Permit, Permit.id == BadgePrint.permit_id)
            .where(CardUse.used_at < until).order_by(CardUse.used_at, CardUse.id)).all()
        spoils = s.scalars(select(SpoiledCard).where(SpoiledCard.spoiled_at < until)
                           .order_by(SpoiledCard.spoiled_at, SpoiledCard.id)).all()
        without = s.execute(
            select(BadgePrint.layout, func.count(BadgePrint.id))
            .outerjoin(CardUse, CardUse.badge_print_id == BadgePrint.id)
            .where(CardUse.id.is_(None), BadgePrint.printed_at >= since, BadgePrint.printed_at < until)
            .group_by(BadgePrint.layout)).all()
    in_period = [u for u in uses if u.used_at >= since]
    spoiled_in_period = [x for x in spoils if x.spoiled_at >= since]
    received = sum(b.last_no - b.first_no + 1 for b in batches if start <= b.received_on <= end)
    stocked = sum(b.last_no - b.first_no + 1 for b in batches if b.received_on <= end)
    taken_in_stock = {(u.batch_id, u.serial) for u in uses if u.batch_id is not None} | {
        (x.batch_id, x.serial) for x in spoils if x.batch_id is not None}
    counted_batches = {b.id for b in batches if b.received_on <= end}
    left = stocked - sum(1 for batch_id, _serial in taken_in_stock if batch_id in counted_batches)
    by_layout = dict(without)
    anomalies = _anomalies(batches, uses, spoils, since)
    use_rows = [UseRow(u.serial, u.used_at, u.used_by, u.number, u.issue_no,
                       "preposto" if u.deputy_link_id else "titular") for u in in_period]
    spoil_rows = [SpoiledRow(x.serial, x.reason, x.spoiled_by, x.spoiled_at) for x in spoiled_in_period]
    return StockReport(start, end, received, len(in_period), len(spoiled_in_period), left,
                       int(by_layout.get("card", 0)), int(by_layout.get("a4", 0)), anomalies, use_rows, spoil_rows)


def _anomalies(batches: Sequence[CardBatch], uses: Sequence[Any], spoils: Sequence[SpoiledCard],
               since: datetime) -> list[Anomaly]:
    """Doubles and serials outside every batch with a record in the period; serials skipped at its end."""
    records: dict[str, list[tuple[str, datetime, str]]] = defaultdict(list)  # serial -> (what, when, detail)
    for u in uses:
        records[u.serial].append(("use", u.used_at, f"crachá de {u.number} ({u.issue_no}ª via)"))
    for x in spoils:
        records[x.serial].append(("spoil", x.spoiled_at, f"inutilizado ({x.reason})"))
    by_prefix: dict[str, list[CardBatch]] = defaultdict(list)
    for b in batches:
        by_prefix[b.prefix].append(b)

    def batch_of(serial: str) -> tuple[CardBatch, int] | None:
        try:
            parsed = parse_serial(serial)
        except InvalidInputError:
            return None
        for b in by_prefix.get(parsed.prefix, []):
            if b.first_no <= parsed.number <= b.last_no:
                return b, parsed.number
        return None

    found: list[Anomaly] = []
    taken_numbers: dict[int, set[int]] = defaultdict(set)
    for serial in sorted(records):
        entries = records[serial]
        recent = any(at >= since for _what, at, _detail in entries)
        place = batch_of(serial)
        if place is not None:
            taken_numbers[place[0].id].add(place[1])
        if len(entries) > 1 and recent:
            said = "; ".join(f"{detail} em {_local_day(at)}" for _what, at, detail in entries)
            found.append(Anomaly("duplicate", serial, f"Cartão {serial} registrado {len(entries)} vezes: {said}."))
        if place is None and recent:
            said = "; ".join(f"{detail} em {_local_day(at)}" for _what, at, detail in entries)
            found.append(Anomaly("outside", serial, f"Cartão {serial} não pertence a nenhum lote registrado: {said}."))
    for b in batches:
        numbers = taken_numbers.get(b.id)
        if not numbers:
            continue
        highest = max(numbers)
        for number in range(b.first_no, highest):
            if number not in numbers:
                serial = _batch_serial(b, number)
                found.append(Anomaly("skipped", serial, (
                    f"Cartão {serial} não foi usado nem inutilizado, mas o {_batch_serial(b, highest)} do mesmo "
                    "lote já foi. Localize o cartão ou registre-o como inutilizado (extraviado).")))
    order = {"duplicate": 0, "outside": 1, "skipped": 2}
    return sorted(found, key=lambda a: (order[a.kind], a.serial))


# --- the spreadsheet ---------------------------------------------------------------------------

def _sheets() -> tuple[Any, Any, Any, Any]:
    """The four sheets of the spreadsheet (openpyxl loads only when a report is exported)."""
    from motodesk.exports.xlsx import Column, SheetSpec

    return (
        SheetSpec("Estoque de cartões — resumo", "Resumo",
                  [Column("item", "Item", width=44), Column("value", "Quantidade", "int")]),
        SheetSpec("Cartões usados", "Usados", [
            Column("serial", "Cartão"), Column("used_at", "Impresso em", "datetime"), Column("used_by", "Por"),
            Column("permit_number", "Permissão/autorização"), Column("issue_no", "Via", "int"),
            Column("holder_kind", "Crachá")]),
        SheetSpec("Cartões inutilizados", "Inutilizados", [
            Column("serial", "Cartão"), Column("spoiled_at", "Registrado em", "datetime"), Column("spoiled_by", "Por"),
            Column("reason", "Motivo", width=50)]),
        SheetSpec("Anomalias do estoque", "Anomalias", [
            Column("kind", "Tipo"), Column("serial", "Cartão"), Column("message", "Descrição", width=90)]),
    )


def summary_lines(report: StockReport) -> list[tuple[str, int]]:
    """The report's figures as (pt_BR label, number), the order the screen and the sheet show them."""
    return [
        ("Cartões recebidos no período", report.received),
        ("Crachás impressos em cartão numerado", report.printed),
        ("Cartões inutilizados", report.spoiled),
        ("Cartões em estoque no fim do período", report.left),
        ("Crachás impressos sem número de cartão", report.printed_without_card),
        ("Crachás impressos em folha A4", report.printed_on_a4),
        ("Cartões usados duas vezes", report.count("duplicate")),
        ("Cartões pulados", report.count("skipped")),
        ("Cartões fora dos lotes", report.count("outside")),
    ]


def _local(at: datetime) -> datetime:
    return at.astimezone(LOCAL_TZ).replace(tzinfo=None)


@requires(*READERS)
def export_report(ctx: AppContext, start: date, end: date, path: Path | str, *,
                  progress: Callable[[int], None] | None = None) -> StockReport:
    """The period report as an xlsx workbook: summary, cards used, cards spoiled, anomalies."""
    from motodesk.exports.xlsx import write_workbook

    summary_sheet, uses_sheet, spoils_sheet, anomalies_sheet = _sheets()
    report = stock_report(ctx, start, end)
    period = f"{format_date(start)} a {format_date(end)}"
    summary: Iterable[Mapping[str, Any]] = [{"item": f"Período: {period}", "value": None}] + [
        {"item": label, "value": value} for label, value in summary_lines(report)]
    sheets = [
        (summary_sheet, summary),
        (uses_sheet, [{"serial": u.serial, "used_at": _local(u.used_at), "used_by": u.used_by,
                 "permit_number": u.permit_number, "issue_no": u.issue_no, "holder_kind": u.holder_kind}
                for u in report.uses]),
        (spoils_sheet, [{"serial": x.serial, "spoiled_at": _local(x.spoiled_at), "spoiled_by": x.spoiled_by,
                   "reason": x.reason} for x in report.spoils]),
        (anomalies_sheet, [{"kind": a.label, "serial": a.serial, "message": a.message} for a in report.anomalies]),
    ]
    try:
        write_workbook(path, sheets, exported_by=ctx.user.full_name, exported_at=datetime.now(UTC), progress=progress)
    except OSError as exc:
        raise MotodeskError(f"Não foi possível gravar a planilha: {exc.strerror or exc}.") from exc
    return report

