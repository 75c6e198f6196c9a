"""The audit trail's tamper evidence: walk the hash chain, name every broken link, and hold its end
to the signed checkpoints of its head.

**The chain** (:mod:`motodesk.models.audit`) proves that no row was edited, inserted or removed in the
middle. It cannot prove that the newest rows are all there: deleting the last rows leaves a shorter
chain that still links.

**Checkpoints** anchor the end. :func:`write_checkpoint` records the head -- how many rows, the last
id and its hash, the time -- as a canonical JSON body signed with the badges' Ed25519 key (fetched
through :func:`motodesk.services.badges.current_signing_key`, like the status list) and chained to the previous
checkpoint (``prev`` = SHA-256 of its body). ``motodesk daily``, every backup and every publication of
the status list write one; the publication also writes it beside ``status.json``
(``audit-checkpoint.json``), outside the database. :func:`verify_audit_trail` then reports, besides
every broken link, rows a checkpoint sealed that are no longer there (how many, which ids), a
checkpoint edited (its signature), and one deleted or swapped (a gap or a broken link in the
checkpoints' own chain, or a published copy the database no longer has).

**The limit.** Whoever can delete audit rows in the database (the file's holder on SQLite; the owner
or a superuser on PostgreSQL) can also delete the newest checkpoints with them. That is caught only
by a copy kept elsewhere: the published ``audit-checkpoint.json`` (``audit-verify --publicado``, and
the next publication refuses to overwrite a genuine copy the database lost) or a backup made after
it. And whoever holds the badges' private key can sign a whole new set of checkpoints: the anchor is
as strong as that key is kept away from the database's readers.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from datetime import time as clock_time
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from sqlalchemy import Connection, Select, Table, and_, func, insert, or_, select, text
from sqlalchemy.orm import Session

from motodesk.models import Person, PersonDocument
from motodesk.models.admin import AuditEvent
from motodesk.models.audit import ChainBreak, _link_break
from motodesk.models.checkpoints import AuditCheckpoint
from motodesk.rules.common import Role
from motodesk.rules.text import format_int
from motodesk.rules.validators import validate_cpf
from motodesk.services.clock import LOCAL_TZ, local_time
from motodesk.services.context import AppContext, requires
from motodesk.services.errors import InvalidInputError, MotodeskError

log = logging.getLogger(__name__)

_AUDIT = typing.cast(Table, AuditEvent.__table__)
_CHECKPOINTS = typing.cast(Table, AuditCheckpoint.__table__)

CHECKPOINT_FORMAT = "motodesk-audit-checkpoint/1"
SIGNED_CHECKPOINT_FORMAT = "motodesk-audit-checkpoint-signed/1"
#: The published copy, beside ``status.json`` in the verifier's folder.
CHECKPOINT_FILE = "audit-checkpoint.json"
#: Signed bytes = prefix + body: a checkpoint's signature can never pass for a badge's or a status list's.
CHECKPOINT_PREFIX = b"MDC1."
#: Keys of the PostgreSQL advisory lock that serialises checkpoint writers (the trail's own is (4883, 17)).
CHECKPOINT_LOCK = (4883, 25)
REASONS = {"daily": "rotina diária", "backup": "cópia de segurança", "publish": "publicação da lista de situação"}
MAX_LISTED_BREAKS = 20
_RACE = "checkpoint sequence taken by another workstation"


# --- one checkpoint --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Checkpoint:
    seq: int
    at: datetime
    rows: int
    last_id: int
    last_hash: str
    prev: str
    key_id: str
    reason: str
    body: str
    signature: str

    @property
    def label(self) -> str:
        return f"nº {self.seq}, de {_shown(self.at)}"

    def envelope(self) -> bytes:
        """The published copy (``audit-checkpoint.json``)."""
        document = {"format": SIGNED_CHECKPOINT_FORMAT, "key_id": self.key_id, "body": self.body,
                    "signature": self.signature}
        return (json.dumps(document, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def _shown(at: datetime) -> str:
    return local_time(at).strftime("%d/%m/%Y %H:%M:%S")


def _canonical(fields: dict[str, object]) -> str:
    return json.dumps(fields, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def body_digest(body: str) -> str:
    """What the next checkpoint's ``prev`` names: the SHA-256 of this one's exact body."""
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def _sign(body: str, private_pem: bytes) -> str:
    key = serialization.load_pem_private_key(private_pem, password=None)
    if not isinstance(key, Ed25519PrivateKey):
        raise MotodeskError("A chave de assinatura dos crachás não é Ed25519.")
    return base64.b64encode(key.sign(CHECKPOINT_PREFIX + body.encode("utf-8"))).decode("ascii")


def _genuine(body: str, signature: str, public_pem: bytes) -> bool:
    key = serialization.load_pem_public_key(public_pem)
    if not isinstance(key, Ed25519PublicKey):
        return False
    try:
        key.verify(base64.b64decode(signature, validate=True), CHECKPOINT_PREFIX + body.encode("utf-8"))
    except (InvalidSignature, ValueError):
        return False
    return True


def open_checkpoint(body: str, signature: str, keys: dict[str, bytes]) -> Checkpoint | str:
    """The checkpoint if *body* is signed by one of *keys* (by key id); otherwise why not (pt_BR)."""
    try:
        fields = json.loads(body)
    except ValueError:
        return "o conteúdo não é um ponto de controle legível"
    if not isinstance(fields, dict) or fields.get("format") != CHECKPOINT_FORMAT:
        return "o conteúdo não é um ponto de controle legível"
    pem = keys.get(str(fields.get("key_id")))
    if pem is None:
        return "foi assinado com uma chave que não é a dos crachás"
    if not isinstance(signature, str) or not _genuine(body, signature, pem):
        return "a assinatura não confere com o conteúdo (alterado depois de assinado)"
    try:
        at = datetime.strptime(str(fields["at"]), "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
        return Checkpoint(int(fields["seq"]), at, int(fields["rows"]), int(fields["last_id"]),
                          str(fields["last_hash"]), str(fields["prev"]), str(fields["key_id"]),
                          str(fields["reason"]), body, signature)
    except (KeyError, TypeError, ValueError):
        return "o conteúdo não é um ponto de controle legível"


def _public_keys(ctx: AppContext) -> dict[str, bytes]:
    from motodesk.services.badges import key_id, public_keys

    return {key_id(pem): pem for pem in public_keys(ctx)}


# --- writing --------------------------------------------------------------------------------------

@requires(*Role)  # any user's work may seal the head; nothing is read out
def write_checkpoint(ctx: AppContext, reason: str) -> Checkpoint:
    """Seal the trail's head as it is now: a new signed checkpoint chained to the newest one."""
    signer, private_pem = _badge_key(ctx)
    for attempt in range(5):
        try:
            with ctx.write({"audit_checkpoints.id": _RACE, "pk_audit_checkpoints": _RACE}) as s:
                conn = s.connection()
                if conn.dialect.name == "postgresql":
                    conn.execute(text("SELECT pg_advisory_xact_lock(:a, :b)"),
                                 {"a": CHECKPOINT_LOCK[0], "b": CHECKPOINT_LOCK[1]})
                checkpoint = _next_checkpoint(conn, reason, signer, private_pem)
                s.execute(insert(AuditCheckpoint), [{
                    "id": checkpoint.seq, "at": checkpoint.at, "reason": reason, "last_id": checkpoint.last_id,
                    "body": checkpoint.body,
                    "signature": checkpoint.signature}])
            log.info("audit checkpoint %d written (%s): %d rows up to id %d", checkpoint.seq, reason,
                     checkpoint.rows, checkpoint.last_id)
            return checkpoint
        except MotodeskError as exc:
            if str(exc) != _RACE or attempt == 4:
                raise
    raise AssertionError("unreachable")


def _badge_key(ctx: AppContext) -> tuple[str, bytes]:
    """(key id, private PEM) of the badges: the same key, through the same accessor, as the status list's.
    Private: used to sign here, never handed out."""
    from motodesk.services.badges import current_signing_key

    key = current_signing_key(ctx)
    return key.key_id, key.private_pem


def _next_checkpoint(conn: Connection, reason: str, signer: str, private_pem: bytes) -> Checkpoint:
    a, c = _AUDIT, _CHECKPOINTS
    # One statement, one snapshot: rows are appended in id order under the chain's lock, so what a
    # statement sees is always a prefix of the chain.
    rows, last_id = conn.execute(select(func.count(), func.max(a.c.id)).select_from(a)).one()
    last_hash = ""
    if last_id is not None:
        last_hash = conn.execute(select(a.c.row_hash).where(a.c.id == last_id)).scalar() or ""
    newest = conn.execute(select(c.c.id, c.c.body).order_by(c.c.id.desc()).limit(1)).first()
    seq = int(newest.id) + 1 if newest else 1
    prev = body_digest(newest.body) if newest else ""
    at = datetime.now(UTC)
    body = _canonical({"format": CHECKPOINT_FORMAT, "seq": seq, "at": at.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
                       "rows": int(rows), "last_id": int(last_id or 0), "last_hash": last_hash, "prev": prev,
                       "key_id": signer, "reason": reason})
    return Checkpoint(seq, at, int(rows), int(last_id or 0), last_hash, prev, signer, reason, body,
                      _sign(body, private_pem))


@requires(*Role)  # any user's work may seal the head; nothing is read out
def checkpoint_quietly(ctx: AppContext, reason: str) -> Checkpoint | None:
    """:func:`write_checkpoint` where it must not stop the work it accompanies (a backup): a failure
    is logged and the work goes on. It never creates the badge key: with none yet (nothing was ever
    printed or published) there is nothing to sign with, and a backup must not add a secret to what
    it copies."""
    from motodesk.models.admin import Setting
    from motodesk.services.badges import PUBLIC_KEY_SETTING

    try:
        with ctx.read() as s:  # the public key's row only: whether a pair exists
            if s.scalar(select(Setting.key).where(Setting.key == PUBLIC_KEY_SETTING)) is None:
                log.info("audit checkpoint (%s) not written: no badge key yet", reason)
                return None
        return write_checkpoint(ctx, reason)
    except MotodeskError as exc:  # a damaged database too: the work it accompanies says what is wrong
        log.warning("audit checkpoint (%s) not written: %s", reason, exc)
        return None


def checkpoint_line(checkpoint: Checkpoint) -> str:
    """The pt_BR line a command prints after writing one."""
    return (f"Ponto de controle da trilha de auditoria {checkpoint.label} gravado: "
            f"{format_int(checkpoint.rows)} registro(s), o último o nº {checkpoint.last_id}.")


# --- the published copy ---------------------------------------------------------------------------

@dataclass(frozen=True)
class PublishedCheckpoint:
    path: Path
    checkpoint: Checkpoint | None  # None: the published copy was kept (see warning)
    warning: str | None = None

    @property
    def line(self) -> str:
        if self.checkpoint is None:
            return f"ATENÇÃO: {self.warning}"
        text = checkpoint_line(self.checkpoint) + f" Cópia publicada em {self.path}."
        return f"{text} {self.warning}" if self.warning else text


def read_published(path: Path, keys: dict[str, bytes]) -> Checkpoint | str:
    """The checkpoint in a published ``audit-checkpoint.json`` (or a folder holding one), or why not."""
    path = Path(path)
    if path.is_dir():
        path = path / CHECKPOINT_FILE
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return f"não foi possível ler {path}: {exc.strerror or exc}"
    if len(raw) > 64_000:
        return f"{path} é grande demais para ser um ponto de controle"
    try:
        document = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return f"{path} não é um ponto de controle legível"
    if not isinstance(document, dict) or document.get("format") != SIGNED_CHECKPOINT_FORMAT \
            or not isinstance(document.get("body"), str) or not isinstance(document.get("signature"), str):
        return f"{path} não é um ponto de controle legível"
    return open_checkpoint(document["body"], document["signature"], keys)


@requires(*Role)  # any user's work may seal the head; nothing is read out
def publish_checkpoint(ctx: AppContext, out_dir: Path) -> PublishedCheckpoint:
    """Write a fresh checkpoint and its signed copy beside the status list -- unless the copy already
    there is a genuine checkpoint the database no longer holds: that is evidence (checkpoints deleted
    from the database) and is kept, with a warning."""
    from motodesk.services.badges import _write_atomic

    path = Path(out_dir) / CHECKPOINT_FILE
    note = None
    if path.exists():
        existing = read_published(path, _public_keys(ctx))
        if isinstance(existing, Checkpoint):
            with ctx.read() as s:
                stored = s.scalar(select(AuditCheckpoint.body).where(AuditCheckpoint.id == existing.seq))
            if stored != existing.body:
                return PublishedCheckpoint(path, None, (
                    f"o ponto de controle da trilha de auditoria {existing.label} publicado em {path} "
                    "não está no banco de dados (foi apagado ou trocado). A cópia publicada foi mantida como "
                    "prova; rode motodesk audit-verify --publicado " f"{path} e avise o administrador."))
        else:
            note = f"(A cópia anterior foi substituída: {existing}.)"
    checkpoint = write_checkpoint(ctx, "publish")
    try:
        _write_atomic(path, checkpoint.envelope())
    except OSError as exc:
        raise MotodeskError(f"Não foi possível gravar {path}: {exc.strerror or exc}.") from None
    return PublishedCheckpoint(path, checkpoint, note)


# --- verifying ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class MissingRows:
    """Rows a checkpoint sealed that are no longer in the trail: those after ``after_id`` (the last row
    still there, 0 for none) up to ``last_id`` (the last one the checkpoint sealed)."""

    count: int
    after_id: int
    last_id: int
    checkpoint: Checkpoint

    @property
    def message(self) -> str:
        since = f"depois do registro nº {self.after_id}" if self.after_id else "desde o primeiro registro"
        return (f"Faltam {format_int(self.count)} registro(s) no fim da trilha: {since} até o nº {self.last_id}, "
                f"selados pelo ponto de controle {self.checkpoint.label}, não estão mais no banco "
                "(apagados depois de gravados).")


@dataclass(frozen=True)
class AuditVerification:
    rows: int
    broken: ChainBreak | None  # the first broken link
    breaks: tuple[ChainBreak, ...] = ()  # every broken link found (up to MAX_LISTED_BREAKS)
    more_breaks: int = 0  # broken links beyond those listed
    findings: tuple[str, ...] = ()  # what the checkpoints say is wrong (pt_BR)
    missing: MissingRows | None = None
    checkpoint: Checkpoint | None = None  # the newest genuine checkpoint the trail was held to
    checkpoints: int = 0

    @property
    def intact(self) -> bool:
        return self.broken is None and not self.findings

    @property
    def message(self) -> str:
        """The pt_BR text for the administrator."""
        if self.intact:
            head = (f"Trilha de auditoria íntegra: {format_int(self.rows)} registro(s), "
                    "cada um encadeado ao anterior.")
            if self.checkpoint is None:
                return head + (" Ainda não há ponto de controle assinado do fim da trilha (gravado por motodesk "
                               "daily e a cada cópia de segurança).")
            return head + (f" O último ponto de controle ({self.checkpoint.label}, "
                           f"{format_int(self.checkpoint.rows)} registro(s)) confere.")
        lines = ["Trilha de auditoria ADULTERADA:"]
        if self.broken is not None:
            b = self.broken
            lines.append(f"o primeiro elo quebrado é o registro nº {b.row_id} ({_when(b)}): {b.reason}. "
                         "Os registros anteriores a ele conferem.")
            others = self.breaks[1:]
            if others:
                listed = "; ".join(f"nº {o.row_id} ({o.reason})" for o in others)
                more = f" e mais {format_int(self.more_breaks)}" if self.more_breaks else ""
                lines.append(f"Outros elos quebrados: {listed}{more}.")
        lines.extend(self.findings)
        return "\n".join(lines)


def _when(b: ChainBreak) -> str:
    return _shown(b.at) if b.at is not None else "data desconhecida"


@dataclass
class _Walk:
    rows: int
    breaks: list[ChainBreak]
    more: int
    hash_at: dict[int, str]  # the row hash at each anchor's last id, where that row exists
    below: dict[int, tuple[int, int]]  # anchor last id -> (rows with id <= it, largest id <= it)


def _walk(conn: Connection, anchor_ids: Sequence[int]) -> _Walk:
    """One pass over the trail in id order: every broken link, and where each anchor's last id falls."""
    t = _AUDIT
    query = select(t.c.id, t.c.at, t.c.user_login, t.c.table_name, t.c.row_key, t.c.action, t.c.changes,
                   t.c.prev_hash, t.c.row_hash).order_by(t.c.id)
    pending = sorted(set(anchor_ids))
    wanted = set(pending)
    walk = _Walk(0, [], 0, {}, {})
    prev, last_seen, i = "", 0, 0
    with conn.execution_options(yield_per=5000).execute(query) as result:
        for row in result:
            while i < len(pending) and pending[i] < row.id:
                walk.below[pending[i]] = (walk.rows, last_seen)
                i += 1
            walk.rows += 1
            if row.id in wanted:
                walk.hash_at[row.id] = row.row_hash
            broken = _link_break(row, prev)
            if broken is not None:
                if len(walk.breaks) < MAX_LISTED_BREAKS:
                    walk.breaks.append(broken)
                else:
                    walk.more += 1
            prev = row.row_hash or ""
            last_seen = row.id
    for anchor in pending[i:]:
        walk.below[anchor] = (walk.rows, last_seen)
    return walk


@requires(Role.ADMIN)
def verify_audit_trail(ctx: AppContext, *, published: Path | None = None) -> AuditVerification:
    """Recompute every link of the chain and hold it to every checkpoint (SQLite and PostgreSQL alike).

    *published*: a published ``audit-checkpoint.json`` (or its folder) to hold the database to as well.
    """
    with ctx.read() as s:
        stored = list(s.execute(select(AuditCheckpoint.id, AuditCheckpoint.body, AuditCheckpoint.signature)
                                .order_by(AuditCheckpoint.id)).all())
    findings: list[str] = []
    anchors: dict[int, Checkpoint] = {}
    keys = _public_keys(ctx) if stored or published is not None else {}
    expected, prev_body = 1, ""
    for seq, body, signature in stored:
        if seq > expected:
            gone = f"nº {expected}" if seq == expected + 1 else f"nº {expected} a {seq - 1}"
            findings.append(f"Ponto(s) de controle da trilha apagado(s) do banco: {gone} (a sequência salta "
                            f"para o nº {seq}).")
        opened = open_checkpoint(body, signature, keys)
        if isinstance(opened, str):
            findings.append(f"O ponto de controle nº {seq} da trilha foi adulterado: {opened}.")
        elif opened.seq != seq:
            findings.append(f"O ponto de controle nº {seq} da trilha foi adulterado: o número gravado não é o "
                            f"assinado (nº {opened.seq}).")
        else:
            if seq == expected and opened.prev != (body_digest(prev_body) if prev_body else ""):
                findings.append(f"O ponto de controle {opened.label} não se encadeia ao anterior: um ponto de "
                                "controle foi apagado, inserido ou trocado.")
            anchors[seq] = opened
        expected, prev_body = seq + 1, body
    if published is not None:
        copy = read_published(published, keys)
        if isinstance(copy, str):
            findings.append(f"A cópia publicada do ponto de controle não confere: {copy}.")
        elif copy.seq in anchors and anchors[copy.seq].body == copy.body:
            pass  # the database holds the very checkpoint published
        else:
            newest = stored[-1][0] if stored else 0
            if copy.seq > newest:
                gone = f"nº {copy.seq}" if copy.seq == newest + 1 else f"nº {newest + 1} a {copy.seq}"
                findings.append(f"O ponto de controle {copy.label} publicado não está no banco: foram apagados "
                                f"do banco o(s) ponto(s) de controle {gone}.")
            else:
                findings.append(f"O ponto de controle {copy.label} publicado difere do gravado no banco com o "
                                "mesmo número: o do banco foi trocado.")
            anchors.setdefault(-copy.seq, copy)  # held to the trail as well
    with ctx.read() as s:
        walk = _walk(s.connection(), [cp.last_id for cp in anchors.values() if cp.rows])
    missing: MissingRows | None = None
    rewritten: list[str] = []
    miscounted: list[str] = []
    for cp in sorted(anchors.values(), key=lambda c: (c.last_id, c.seq)):
        if not cp.rows:
            continue
        count_below, largest_below = walk.below.get(cp.last_id, (walk.rows, 0))
        present = walk.hash_at.get(cp.last_id)
        if present is None:
            gap = MissingRows(max(cp.rows - count_below, 1), largest_below, cp.last_id, cp)
            if missing is None or gap.last_id >= missing.last_id:
                missing = gap
        elif present != cp.last_hash:
            rewritten.append(f"O registro nº {cp.last_id} não é o que o ponto de controle {cp.label} selou: "
                             "registros selados foram apagados e a trilha regravada a partir deles.")
        elif count_below != cp.rows:
            diff = cp.rows - count_below
            what = f"faltam {format_int(diff)}" if diff > 0 else f"sobram {format_int(-diff)}"
            miscounted.append(f"Até o registro nº {cp.last_id} {what} registro(s) em relação ao ponto de controle "
                              f"{cp.label} ({format_int(cp.rows)} selados, {format_int(count_below)} no banco).")
    for found in (rewritten, miscounted):  # the earliest says where it began; the later ones are counted
        if found:
            more = len(found) - 1
            findings.append(found[0] + (f" O mesmo vale para mais {more} ponto(s) de controle posterior(es)."
                                        if more else ""))
    if missing is not None:
        findings.insert(0, missing.message)
    newest_anchor = max(anchors.values(), key=lambda c: (c.seq, c.at), default=None)
    return AuditVerification(walk.rows, walk.breaks[0] if walk.breaks else None, tuple(walk.breaks), walk.more,
                             tuple(findings), missing, newest_anchor, len(stored))



# --- reading the trail (Administração) --------------------------------------------------------------

#: What each audited table holds, as the administrator reads it.
TABLE_LABELS = {
    "affiliations": "Filiação a entidade", "applications": "Requerimento", "attachments": "Anexo",
    "badge_prints": "Impressão de crachá", "campaign_appointment_events": "Atendimento do recadastramento",
    "campaign_appointments": "Agendamento do recadastramento", "campaigns": "Recadastramento",
    "card_batches": "Lote de cartões", "card_uses": "Uso de cartão", "criminal_judgments": "Condenação criminal",
    "decisions": "Decisão", "decrees": "Decreto", "defences": "Defesa", "deputy_links": "Preposto",
    "fee_payments": "Pagamento de taxa", "infraction_notices": "Auto de infração",
    "inspection_items": "Item de vistoria", "inspections": "Vistoria", "organisations": "Entidade",
    "people": "Pessoa", "permit_events": "Evento da permissão", "permits": "Permissão",
    "person_documents": "Documento da pessoa", "person_name_changes": "Mudança de nome", "photos": "Foto",
    "quota_counters": "Contador de vagas", "settings": "Configuração", "spoiled_cards": "Cartão inutilizado",
    "stand_assignments": "Ponto atribuído", "stands": "Ponto de estacionamento",
    "tender_candidates": "Candidato do chamamento", "tenders": "Chamamento", "users": "Usuário",
    "vehicle_accidents": "Sinistro do veículo", "vehicles": "Veículo",
}
ACTION_LABELS = {"insert": "inclusão", "update": "alteração", "delete": "exclusão"}
#: The most rows one read of the trail returns (the newest); the export has no limit.
AUDIT_PAGE = 500


def table_label(name: str) -> str:
    return TABLE_LABELS.get(name, name)


@dataclass(frozen=True)
class AuditEntry:
    id: int
    at: datetime
    user_login: str
    table_name: str
    row_key: str
    action: str
    changes: str  # the stored JSON diff {field: [old, new]}

    @property
    def table_label(self) -> str:
        return table_label(self.table_name)

    @property
    def action_label(self) -> str:
        return ACTION_LABELS.get(self.action, self.action)

    @property
    def summary(self) -> str:
        """``campo: antes → depois; …`` (the values the trail keeps; secrets only say they changed)."""
        try:
            diff = json.loads(self.changes or "{}")
        except ValueError:
            return self.changes
        if not isinstance(diff, dict):
            return str(diff)
        parts = []
        for field, value in diff.items():
            if isinstance(value, list) and len(value) == 2:
                old, new = ("" if v is None else str(v) for v in value)
                if self.action == "insert" or not old:
                    parts.append(f"{field}: {new}")
                elif self.action == "delete":
                    parts.append(f"{field}: {old}")
                else:
                    parts.append(f"{field}: {old} → {new}")
            else:
                parts.append(f"{field}: {value}")
        return "; ".join(parts)


@dataclass(frozen=True)
class AuditFilter:
    """Who (login), when (local days, both ends included), what (table, action) and which record (its key;
    a CPF names the person's own rows and their documents')."""

    user_login: str | None = None
    since: date | None = None
    until: date | None = None
    table_name: str | None = None
    action: str | None = None
    record: str | None = None


def _audit_query(s: Session, f: AuditFilter) -> Select[typing.Any]:
    a = _AUDIT
    stmt = select(a.c.id, a.c.at, a.c.user_login, a.c.table_name, a.c.row_key, a.c.action, a.c.changes)
    if f.user_login:
        stmt = stmt.where(func.lower(a.c.user_login) == f.user_login.strip().lower())
    if f.since is not None:
        stmt = stmt.where(a.c.at >= datetime.combine(f.since, clock_time(), tzinfo=LOCAL_TZ))
    if f.until is not None:
        stmt = stmt.where(a.c.at < datetime.combine(f.until + timedelta(days=1), clock_time(), tzinfo=LOCAL_TZ))
    if f.table_name:
        stmt = stmt.where(a.c.table_name == f.table_name)
    if f.action:
        stmt = stmt.where(a.c.action == f.action)
    record = (f.record or "").strip()
    if record:
        clauses = [a.c.row_key == record]
        digits = "".join(ch for ch in record if ch.isdigit())
        cpf = validate_cpf(digits) if len(digits) == 11 else None
        if cpf is not None and cpf.ok:
            person_id = s.scalar(select(Person.id).where(Person.cpf == cpf.value))
            if person_id is not None:
                doc_ids = [str(i) for i in s.scalars(select(PersonDocument.id)
                                                      .where(PersonDocument.person_id == person_id))]
                clauses.append(and_(a.c.table_name == "people", a.c.row_key == str(person_id)))
                if doc_ids:
                    clauses.append(and_(a.c.table_name == "person_documents", a.c.row_key.in_(doc_ids)))
        stmt = stmt.where(or_(*clauses))
    return stmt.order_by(a.c.id.desc())


@requires(Role.ADMIN)
def list_audit(ctx: AppContext, where: AuditFilter | None = None, *, limit: int | None = AUDIT_PAGE,
               before_id: int | None = None) -> list[AuditEntry]:
    """The audit trail, newest first, filtered; ``limit`` rows at most, older than ``before_id`` (the
    next page) when given."""
    f = where or AuditFilter()
    if f.since is not None and f.until is not None and f.until < f.since:
        raise InvalidInputError("A data final é anterior à inicial.", {"until": "Anterior à data inicial."})
    with ctx.read() as s:
        stmt = _audit_query(s, f)
        if before_id is not None:
            stmt = stmt.where(_AUDIT.c.id < before_id)
        if limit is not None:
            stmt = stmt.limit(limit)
        return [AuditEntry(r.id, r.at, r.user_login, r.table_name, r.row_key, r.action, r.changes or "")
                for r in s.execute(stmt)]


@requires(Role.ADMIN)
def audit_users(ctx: AppContext) -> list[str]:
    """Every login that wrote to the trail (for the filter's list)."""
    with ctx.read() as s:
        return sorted(set(s.scalars(select(_AUDIT.c.user_login).distinct())), key=str.lower)


def _audit_sheet() -> typing.Any:
    from motodesk.exports.kinds import LOGGED_AT, USER_LOGIN
    from motodesk.exports.xlsx import Column, SheetSpec

    return SheetSpec(
        title="Trilha de auditoria",
        sheet_name="Auditoria",
        columns=(
            Column("id", "Nº", "int", 9),
            LOGGED_AT,
            USER_LOGIN,
            Column("what", "O quê", "text", 26),
            Column("action", "Operação", "text", 12),
            Column("row_key", "Registro", "text", 14),
            Column("changes", "Alterações", "text", 80),
        ),
    )


@requires(Role.ADMIN)
def export_audit(ctx: AppContext, path: str | Path, where: AuditFilter | None = None) -> int:
    """Write the (filtered) trail to an xlsx file (owner-only, :func:`motodesk.exports.xlsx.save_private`
    through ``write_workbook``); returns the number of rows."""
    from motodesk.exports.xlsx import ExportTargetLocked, write_workbook

    target = Path(path)
    if target.suffix.lower() != ".xlsx":
        raise InvalidInputError(f"O arquivo deve terminar em .xlsx: “{target.name}”.", code="export.not_xlsx")
    if not target.parent.is_dir():
        raise InvalidInputError(f"A pasta não existe: {target.parent}.", code="export.folder_missing")
    entries = list_audit(ctx, where, limit=None)
    rows = [{"id": e.id, "at": e.at.astimezone(LOCAL_TZ).replace(tzinfo=None), "user_login": e.user_login,
             "what": e.table_label, "action": e.action_label, "row_key": e.row_key, "changes": e.summary}
            for e in entries]
    exported_at = datetime.now(LOCAL_TZ).replace(tzinfo=None, microsecond=0)
    try:
        return write_workbook(target, [(_audit_sheet(), rows)],
                              exported_by=f"{ctx.user.full_name} ({ctx.user.login})", exported_at=exported_at)
    except ExportTargetLocked as exc:
        raise MotodeskError(str(exc)) from exc
    except OSError as exc:
        raise MotodeskError(f"Não foi possível gravar “{target.name}”: {exc.strerror or exc}.") from exc
