"""Badges (crachás, Art. 5º § 4º): the signing key, printing with its log, and verification.

**The key.**  Badges are signed with one Ed25519 key pair per secretariat
(:mod:`motodesk.printing.token`).  The database keeps the PUBLIC keys only (settings
``badge_public_key`` and ``badge_public_keys_retired``), so every workstation verifies badges.  The
private key lives only with the workstations registered to print (:mod:`motodesk.services.badge_keys`:
the system keyring, or a 0600 file in the workstation's own folder): no database login, backup,
log or audit row carries it.  :func:`current_signing_key` is the one accessor of it (printing, the
status list, the audit checkpoints); on a workstation not registered it fails with a pt_BR message.
:func:`register_printing_station` (``motodesk register-printer-station``) makes the installation's
first pair, or imports the key exported by :func:`export_signing_key` on a registered workstation.
``motodesk rotate-badge-key`` (:func:`rotate_signing_key`) makes a new pair on this workstation and
keeps the old public keys (setting ``badge_public_keys_retired``) so the badges they signed still
verify; nothing is reprinted, and the other printing workstations register again.  The public key
is exported (``motodesk export-public-key``) for offline verifiers, which need nothing else.

**Printing.**  A print or reprint raises the badge's issue number (``Permit.badge_issue_no``, or the
deputy link's) and logs a :class:`BadgePrint` with its reason; a reprint needs a reason, and the old
copy's QR then verifies as *superseded*.  The PDF is rendered before anything is written; the write
then checks that no other workstation printed the same badge meanwhile.  A preview carries an
unsigned placeholder in its QR, so a previewed PDF can never pass for a badge.

**Verification.**  :func:`verify_badge` checks the signature (current or retired key), then that the
claim is exactly one the print log recorded (its SHA-256, the signing key; for older prints the
validity against the register) — a badge signed with a leaked key but never printed reads forged —
then the register: forged, revoked,
cancelled, suspended, expired, superseded or valid.  :func:`verify_offline` needs only the public key
and can tell forged, expired and valid apart.  Both take the badge's QR text -- the verifier page's
address with the token as its fragment -- or the bare token, and call a text with no token in it
"not a badge" (never "forged").

**The public verifier.**  :func:`publish_verifier` writes the static page a passenger's phone opens
from the QR (:mod:`motodesk.commands.verifier`) with the public keys; :func:`publish_status` writes
the signed status list (suspended, revoked, cancelled permits, deputies' states, the copy in use of
each badge reprinted) the page fetches to tell a valid badge from a withdrawn one without a server.
"""

from __future__ import annotations

import base64
import hashlib
import json
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from sqlalchemy import Table, func, insert, select
from sqlalchemy.orm import Session

from motodesk.models import BadgePrint, Blob, CardUse, DeputyLink, Permit, Person, Photo, Setting, Vehicle
from motodesk.printing.badge import BadgeData, render_badges
from motodesk.printing.token import (
    BadgeClaim,
    ForgedTokenError,
    NotABadgeError,
    cpf_digest,
    generate_keypair,
    public_key_raw,
    sign_claim,
    sign_status,
    verify_token,
)
from motodesk.rules.common import PermitState, Role, ServiceType
from motodesk.rules.document_gate import Document
from motodesk.rules.fees import FeeAct
from motodesk.rules.settings import LawSettings
from motodesk.rules.text import format_date
from motodesk.rules.validators import format_plate, mask_cpf
from motodesk.services import badge_keys, card_stock, fees
from motodesk.services.audit import publish_checkpoint
from motodesk.services.backup_keys import write_private
from motodesk.services.badge_keys import StationKeyError, key_id
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext, requires
from motodesk.services.document_checks import DocumentRequest, require_documents
from motodesk.services.errors import (
    ConflictError,
    InvalidInputError,
    MotodeskError,
    NotFoundError,
)
from motodesk.services.settings import law_settings

if TYPE_CHECKING:
    from motodesk.services.audit import PublishedCheckpoint

SIGNING_KEY_SETTING = "badge_signing_key"  # before revision 0018 only: the private key is never stored here
PUBLIC_KEY_SETTING = "badge_public_key"
RETIRED_KEYS_SETTING = "badge_public_keys_retired"
READERS = (Role.CLERK, Role.SUPERVISOR, Role.INSPECTOR, Role.ADMIN)
PRINTERS = (Role.CLERK, Role.SUPERVISOR)
FIRST_PRINT_REASON = "Primeira via"
MAX_REASON = 500
MAX_BATCH = 5000
Layout = Literal["card", "a4"]
def preview_token(claim: BadgeClaim) -> str:
    """What a preview's QR says instead of the token: an unsigned text as long as the token of *claim*
    would be, so the code looks the same size (and reads "não é um crachá" on any verifier)."""
    length = len("MD1.") + -(-len(claim.canonical_bytes()) * 8 // 5) + 1 + 103
    return ("PREVIA-SEM-VALOR-" * (length // 17 + 1))[:length]


# --- the key pair ----------------------------------------------------------------------------


def _json_rows(s: Session, keys: tuple[str, ...]) -> dict[str, object]:
    rows = dict(s.execute(select(Setting.key, Setting.value).where(Setting.key.in_(keys))).all())
    values: dict[str, object] = {}
    for key, raw in rows.items():
        try:
            values[key] = json.loads(raw)
        except ValueError:
            values[key] = None
    return values


def _current_public(s: Session) -> bytes | None:
    raw = _json_rows(s, (PUBLIC_KEY_SETTING,)).get(PUBLIC_KEY_SETTING)
    if not isinstance(raw, str) or not raw.isascii() or "PUBLIC KEY" not in raw:
        return None
    return raw.encode("ascii")


def _retired_keys(s: Session) -> list[bytes]:
    raw = _json_rows(s, (RETIRED_KEYS_SETTING,)).get(RETIRED_KEYS_SETTING)
    if not isinstance(raw, list):
        return []
    return [str(pem).encode("ascii") for pem in raw if isinstance(pem, str) and pem.isascii()]


@dataclass(frozen=True)
class SigningKey:
    """The current badge signing key, as this workstation holds it (see :func:`current_signing_key`)."""

    private_pem: bytes = field(repr=False)
    public_pem: bytes
    key_id: str


NO_KEY_YET = ("Ainda não há chave de assinatura dos crachás: um administrador deve registrar esta estação "
              "para imprimir (motodesk register-printer-station --user ADMINISTRADOR).")


def current_signing_key(ctx: AppContext) -> SigningKey:
    """THE accessor of the key that signs badges, status lists (and audit checkpoints): the private
    key of the database's current public key, from this workstation's store (:mod:`badge_keys`).

    Raises :class:`StationKeyError` (pt_BR) on a workstation not registered to print; such a
    workstation still verifies badges with the public keys in the database. The key is never
    created here: only :func:`register_printing_station` and :func:`rotate_signing_key` make one.
    """
    with ctx.read() as s:
        public = _current_public(s)
    if public is None:
        raise StationKeyError(NO_KEY_YET)
    kid = key_id(public)
    private = badge_keys.load(kid)
    if private is None:
        raise StationKeyError(
            f"Esta estação não está registrada para imprimir crachás: ela não tem a chave de assinatura "
            f"atual ({kid}). Ela continua verificando crachás. Para imprimir aqui, um administrador executa "
            "'motodesk export-badge-signing-key ARQUIVO' numa estação registrada e "
            "'motodesk register-printer-station --key-file ARQUIVO' nesta.")
    return SigningKey(private, public, kid)


def _key_pair(ctx: AppContext) -> tuple[bytes, bytes]:
    """(private PEM, public PEM) of :func:`current_signing_key` (tests that play a leaked key call it)."""
    key = current_signing_key(ctx)
    return key.private_pem, key.public_pem


def _verification_keys(ctx: AppContext) -> list[bytes]:
    """The current public key first, then the retired ones (badges signed before a rotation)."""
    with ctx.read() as s:
        public = _current_public(s)
        retired = _retired_keys(s)
    current = [public] if public else []
    return [*current, *[pem for pem in retired if pem != public]]


@requires(*READERS)
def public_key_pem(ctx: AppContext) -> bytes:
    """The current public key that verifies badges (safe to give to anyone)."""
    with ctx.read() as s:
        public = _current_public(s)
    if public is None:
        raise StationKeyError(NO_KEY_YET)
    return public


@requires(*READERS)
def public_keys(ctx: AppContext) -> list[bytes]:
    """Every public key that still verifies badges: the current one first, then the retired ones."""
    return _verification_keys(ctx)


def write_owner_only(path: Path, data: bytes) -> None:
    """Write a key file readable by its owner only (0600, whatever the umask), replacing it."""
    import os

    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        if hasattr(os, "fchmod"):  # O_CREAT's mode passes through the umask, which may only take bits away
            os.fchmod(fd, 0o600)
        os.write(fd, data)
    finally:
        os.close(fd)


@requires(Role.ADMIN, Role.SUPERVISOR)
def export_public_key(ctx: AppContext, path: Path) -> Path:
    write_owner_only(path, public_key_pem(ctx))
    return path


def _put_setting(s: Session, key: str, value: str) -> None:
    """A settings row by Core statements: the ORM's audit listener never sees key material."""
    table = typing.cast(Table, Setting.__table__)
    if s.scalar(select(func.count()).select_from(table).where(table.c.key == key)):
        s.execute(table.update().where(table.c.key == key).values(value=value, version=table.c.version + 1))
    else:
        s.execute(insert(table), [{"key": key, "value": value, "version": 1}])


def _drop_legacy_private(s: Session) -> None:
    """A private key left in ``settings`` by a version before revision 0018 never stays there."""
    table = typing.cast(Table, Setting.__table__)
    s.execute(table.delete().where(table.c.key == SIGNING_KEY_SETTING))


@dataclass(frozen=True)
class StationRegistration:
    key_id: str
    created: bool  # the first key of the installation was made here
    already: bool  # this workstation already held the current key
    where: str  # pt_BR: where this workstation keeps it


@requires(Role.ADMIN)
def register_printing_station(ctx: AppContext, key_file: Path | None = None) -> StationRegistration:
    """Put the current signing key on this workstation, so it can print badges and sign status lists.

    With no key in the database yet, the installation's first pair is made here (the public key goes
    to the database, the private key to this workstation's store only). Otherwise the private key
    comes from *key_file*, written by :func:`export_signing_key` on a registered workstation, and
    must be the private key of the database's current public key.
    """
    with ctx.read() as s:
        public = _current_public(s)
    if public is not None and badge_keys.load(key_id(public)) is not None and key_file is None:
        return StationRegistration(key_id(public), False, True, badge_keys.describe())
    if key_file is not None:
        path = Path(key_file)
        try:
            private = path.read_bytes()[:64 * 1024]
        except OSError as exc:
            raise InvalidInputError(f"Não foi possível ler a chave {path}: {exc.strerror or exc}.") from None
        derived = badge_keys.public_of(private)
        if public is None:
            raise StationKeyError("O banco de dados ainda não tem chave de assinatura dos crachás: para criar a "
                                  "primeira, registre esta estação sem --key-file.")
        if key_id(derived) != key_id(public):
            raise StationKeyError(
                f"A chave do arquivo {path} ({key_id(derived)}) não é a chave atual dos crachás ({key_id(public)}): "
                "exporte-a de novo numa estação registrada depois da última troca de chave.")
        kid = badge_keys.save(private)
        return StationRegistration(kid, False, False, badge_keys.describe())
    if public is not None:
        raise StationKeyError(
            f"Já existe uma chave de assinatura dos crachás ({key_id(public)}) e esta estação não a tem. "
            "Numa estação registrada, execute 'motodesk export-badge-signing-key ARQUIVO' e aqui "
            "'motodesk register-printer-station --key-file ARQUIVO' (apague o arquivo depois); "
            "ou troque a chave ('motodesk rotate-badge-key') e registre de novo as outras estações.")
    private, public = generate_keypair()
    kid = badge_keys.save(private)  # first on this workstation: the pair is never half-made in the database
    try:
        raced = ("Outra estação criou a chave dos crachás neste instante: registre esta estação com a chave "
                 "dela (--key-file).")
        with ctx.write({"settings_pkey": raced, "cols:settings.key": raced}) as s:
            if _current_public(s) is not None:
                raise ConflictError(raced)
            # A plain INSERT, never an update: two workstations racing here end with one pair, the
            # second one's INSERT failing on the key.
            s.execute(insert(typing.cast(Table, Setting.__table__)),
                      [{"key": PUBLIC_KEY_SETTING, "value": json.dumps(public.decode("ascii")), "version": 1}])
            _drop_legacy_private(s)
    except BaseException:
        badge_keys.delete(kid)
        raise
    return StationRegistration(kid, True, False, badge_keys.describe())


@requires(Role.ADMIN)
def export_signing_key(ctx: AppContext, path: Path) -> str:
    """Write the current PRIVATE key to a new file (0600) to register another printing workstation.

    The file is the key itself: carry it to the other workstation, run ``register-printer-station
    --key-file`` there, then delete it. Returns the key id."""
    key = current_signing_key(ctx)
    path = Path(path).expanduser()
    if path.exists():
        raise InvalidInputError(f"O arquivo {path} já existe: escolha outro nome.")
    try:
        write_private(path, key.private_pem)
    except OSError as exc:
        raise MotodeskError(f"Não foi possível gravar {path}: {exc.strerror or exc}.") from None
    return key.key_id


@dataclass(frozen=True)
class KeyRotation:
    new_key_id: str
    retired_key_ids: list[str]
    badges_by_older_keys: int  # badges in use (latest copy of a permit or deputy in force) signed before


@requires(Role.ADMIN)
def rotate_signing_key(ctx: AppContext) -> KeyRotation:
    """A new signing key; the old public keys keep verifying the badges they signed.

    The new private key goes to this workstation's store (which is then registered to print), its
    public key to the database; the old private key is forgotten here, and the other printing
    workstations must be registered again with the new one. Nothing is reprinted: the result says
    how many badges in use were signed by older keys, which keep verifying online while the
    register agrees with them (and offline with the exported keys).
    """
    private, public = generate_keypair()
    new_kid = badge_keys.save(private)  # kept before the database names it: never a key nobody holds
    try:
        with ctx.write() as s:
            old_public = _current_public(s)
            retired = _retired_keys(s)
            if old_public and old_public not in retired:
                retired.append(old_public)
            _put_setting(s, PUBLIC_KEY_SETTING, json.dumps(public.decode("ascii")))
            _put_setting(s, RETIRED_KEYS_SETTING, json.dumps([pem.decode("ascii") for pem in retired]))
            _drop_legacy_private(s)
            in_force = (PermitState.ACTIVE, PermitState.SUSPENDED)
            holders = s.scalar(select(func.count(Permit.id)).where(Permit.badge_issue_no > 0,
                                                                   Permit.state.in_(in_force))) or 0
            deputies = s.scalar(select(func.count(DeputyLink.id)).join(Permit, Permit.id == DeputyLink.permit_id)
                                .where(DeputyLink.badge_issue_no > 0, DeputyLink.end_on.is_(None),
                                       Permit.state.in_(in_force))) or 0
    except BaseException:
        badge_keys.delete(new_kid)
        raise
    for pem in retired:  # a retired key never signs again
        badge_keys.delete(key_id(pem))
    return KeyRotation(new_kid, [key_id(pem) for pem in retired], holders + deputies)


# --- assembling and printing -----------------------------------------------------------------


@dataclass(frozen=True)
class BadgeRequest:
    """One badge to print: the holder's, or the deputy's (preposto) of that permit.

    ``person_id``, when given, is the person the badge is asked for: it must be the holder (or, for a
    deputy badge, the linked deputy), or the print is refused (Art. 6º, § 1º; Art. 7º).
    """

    permit_id: int
    deputy: bool = False
    person_id: int | None = None


@dataclass(frozen=True)
class PrintedBadge:
    permit_id: int
    permit_number: str
    issue_no: int
    holder_kind: str  # titular | preposto
    holder_name: str
    qr_text: str = ""  # what its QR code holds: the verifier page's address with the signed token


@dataclass(frozen=True)
class PrintedBadges:
    pdf: bytes
    badges: list[PrintedBadge]
    layout: str


@dataclass(frozen=True)
class BadgePrintRow:
    printed_at: datetime
    printed_by: str
    issue_no: int
    holder_kind: str
    reason: str
    layout: str
    card_serial: str | None = None  # the pre-numbered card it was printed on


@dataclass
class _Planned:
    request: BadgeRequest
    permit_id: int
    link_id: int | None
    old_issue: int
    data: BadgeData
    claim_sha256: str | None = None


def claim_digest(claim: BadgeClaim) -> str:
    """SHA-256 of what a badge's QR asserts, kept in the print log (``BadgePrint.claim_sha256``)."""
    return hashlib.sha256(claim.canonical_bytes()).hexdigest()


def badge_valid_until(permit: Permit) -> date:
    """The badge is the registration (Art. 5º, § 4º): valid while the certificate is (Art. 4º, § 1º)."""
    return min(permit.certificate_valid_until, permit.term_end)


def _gate(s: Session, requests: Sequence[BadgeRequest], on: date, settings: LawSettings) -> None:
    """Every badge judged by the document gate (:mod:`motodesk.rules.document_gate`) in this transaction.

    The permit in force, the bearer the one it was granted to, the vehicle's documents, inspection
    and accidents, the holder's (and the deputy's) certificates: every failing article is listed.
    """
    require_documents(s, [DocumentRequest(r.permit_id, Document.DEPUTY_BADGE if r.deputy else Document.BADGE,
                                          r.person_id) for r in requests],
                      on, settings, "Crachá não impresso:")


def _newest_photos(s: Session, person_ids: set[int]) -> dict[int, bytes]:
    if not person_ids:
        return {}
    newest = (
        select(Photo.person_id, func.max(Photo.captured_at).label("at"))
        .where(Photo.person_id.in_(person_ids)).group_by(Photo.person_id).subquery()
    )
    rows = s.execute(
        select(Photo.person_id, Blob.data)
        .join(newest, (newest.c.person_id == Photo.person_id) & (newest.c.at == Photo.captured_at))
        .join(Blob, Blob.sha256 == Photo.blob_sha256)
        .order_by(Photo.id)
    ).all()
    return {pid: bytes(data) for pid, data in rows}


def _chunks(ids: list[int], size: int = 500) -> list[list[int]]:
    return [ids[i:i + size] for i in range(0, len(ids), size)]


def _plan(s: Session, requests: Sequence[BadgeRequest], private_pem: bytes, on: date, settings: LawSettings, *,
          reason: str | None, preview: bool) -> list[_Planned]:
    ids = sorted({r.permit_id for r in requests})
    permits: dict[int, Permit] = {}
    for chunk in _chunks(ids):
        permits.update({p.id: p for p in s.scalars(select(Permit).where(Permit.id.in_(chunk)))})
    links: dict[int, DeputyLink] = {}
    deputy_ids = [r.permit_id for r in requests if r.deputy]
    for chunk in _chunks(deputy_ids):
        links.update({link.permit_id: link for link in s.scalars(
            select(DeputyLink).where(DeputyLink.permit_id.in_(chunk), DeputyLink.end_on.is_(None)))})
    person_ids = {p.person_id for p in permits.values()} | {link.deputy_person_id for link in links.values()}
    people: dict[int, Person] = {}
    photos: dict[int, bytes] = {}
    for chunk in _chunks(sorted(person_ids)):
        people.update({p.id: p for p in s.scalars(select(Person).where(Person.id.in_(chunk)))})
        photos.update(_newest_photos(s, set(chunk)))
    vehicle_ids = sorted({p.vehicle_id for p in permits.values() if p.vehicle_id})
    plates: dict[int, str] = {}
    for chunk in _chunks(vehicle_ids):
        plates.update(dict(s.execute(select(Vehicle.id, Vehicle.plate).where(Vehicle.id.in_(chunk))).all()))

    missing_reason: list[str] = []
    planned: list[_Planned] = []
    if any(r.permit_id not in permits for r in requests):
        raise NotFoundError("Uma das permissões pedidas não existe mais.")
    _gate(s, requests, on, settings)
    for request in requests:
        permit = permits[request.permit_id]
        holder = people[permit.person_id]
        link = links.get(permit.id) if request.deputy else None
        assert link is not None or not request.deputy  # the gate refuses a deputy badge without a deputy
        bearer = people[link.deputy_person_id] if link else holder
        current = link.badge_issue_no if link else permit.badge_issue_no
        if current >= 1 and not reason and not preview:
            missing_reason.append(permit.number + (" (preposto)" if link else ""))
        issue_no = current + 1
        valid_until = badge_valid_until(permit)
        kind = "preposto" if link else "titular"
        digest: str | None = None
        plate = format_plate(plates[permit.vehicle_id]) if permit.vehicle_id in plates else "—"
        # The claim carries what the badge prints, for the public verifier page (Art. 13, VI).
        claim = BadgeClaim.for_badge(permit.number, bearer.cpf, valid_until, issue_no, kind,
                                     service_code=permit.service_type.code, plate=plate,
                                     holder_name=bearer.full_name)
        if preview:
            token = preview_token(claim)
        else:
            token = sign_claim(claim, private_pem)
            digest = claim_digest(claim)
        data = BadgeData(
            permit_number=permit.number,
            service=permit.service_type,
            holder_name=bearer.full_name,
            cpf_masked=mask_cpf(bearer.cpf),
            plate=plate,
            valid_until=valid_until,
            photo_jpeg=photos.get(bearer.id),
            token=token,
            issue_no=issue_no,
            is_deputy=link is not None,
            holder_of_deputy=holder.full_name if link else None,
            qr_base_url=settings.verifier_base_url,
        )
        planned.append(_Planned(request, permit.id, link.id if link else None, current, data, digest))
    if missing_reason:
        raise InvalidInputError(
            "Informe o motivo da reimpressão (perda, roubo, dano, renovação…): já existe crachá de "
            + ", ".join(missing_reason[:10]) + ("…" if len(missing_reason) > 10 else "") + ".",
            {"reason": "Obrigatório para reimpressão."},
        )
    return planned


def _requests(items: Sequence[int | BadgeRequest]) -> list[BadgeRequest]:
    requests = [item if isinstance(item, BadgeRequest) else BadgeRequest(int(item)) for item in items]
    if not requests:
        raise InvalidInputError("Escolha ao menos um crachá para imprimir.")
    if len(requests) > MAX_BATCH:
        raise InvalidInputError(f"No máximo {MAX_BATCH} crachás por impressão.")
    if len(set(requests)) != len(requests):
        raise InvalidInputError("O mesmo crachá aparece duas vezes na impressão.", code="badge.duplicate_in_print")
    return requests


def _render(planned: list[_Planned], layout: Layout, offset_mm: tuple[float, float]) -> bytes:
    if layout not in ("card", "a4"):
        raise InvalidInputError(f"Leiaute de impressão desconhecido: {layout!r}.")
    try:
        return render_badges([p.data for p in planned], layout=layout, offset_mm=offset_mm)
    except ValueError as exc:
        raise InvalidInputError(f"Não foi possível montar o crachá: {exc}.") from exc


@requires(*PRINTERS)
def preview_badges(ctx: AppContext, items: Sequence[int | BadgeRequest], *, layout: Layout = "card",
                   offset_mm: tuple[float, float] = (0.0, 0.0), on: date | None = None) -> bytes:
    """The badges as they will print, with an unsigned QR: nothing is logged or numbered."""
    requests = _requests(items)
    settings = law_settings(ctx)
    with ctx.read() as s:
        planned = _plan(s, requests, b"", on or local_today(), settings, reason=None, preview=True)
    return _render(planned, layout, offset_mm)


@requires(*PRINTERS)
def print_badges(ctx: AppContext, items: Sequence[int | BadgeRequest], *, reason: str | None = None,
                 layout: Layout = "card", offset_mm: tuple[float, float] = (0.0, 0.0),
                 on: date | None = None, card_serials: Sequence[str] | None = None,
                 spool: Callable[[bytes], object] | None = None) -> PrintedBadges:
    """Sign, number and log the badges, and return their PDF (one page per face, or A4 sheets).

    A first print is logged as "Primeira via"; a reprint needs ``reason`` and raises the issue
    number, so the previous copy stops verifying. Nothing is written when anything is refused.
    ``card_serials``: the pre-numbered card of each badge, in the PDF's order (see
    :mod:`motodesk.services.card_stock`, which says when they are required).
    ``spool(pdf)``: hands the PDF to the print queue inside the transaction, so the badges and their
    cards are recorded only once the queue accepted the job (it raises to refuse: nothing is written).
    """
    requests = _requests(items)
    reason = " ".join((reason or "").split()) or None
    if reason and len(reason) > MAX_REASON:
        raise InvalidInputError(f"O motivo é longo demais (até {MAX_REASON} caracteres).", {"reason": "Longo demais."})
    key = current_signing_key(ctx)  # this workstation must be registered to print
    private_pem, signer = key.private_pem, key.key_id
    on = on or local_today()
    settings = law_settings(ctx)
    with ctx.read() as s:
        planned = _plan(s, requests, private_pem, on, settings, reason=reason, preview=False)
    pdf = _render(planned, layout, offset_mm)
    now = datetime.now(UTC)
    stale = ("Outra estação imprimiu um destes crachás neste instante; nada foi registrado. "
             "Confira o histórico de impressões e tente de novo.")
    with ctx.write() as s:
        _gate(s, requests, on, settings)  # judged again in the transaction that numbers and logs the badges
        for p in planned:  # a second copy is paid for (Art. 6º, § 6º): one guia/DAM per badge reprinted
            if p.old_issue >= 1:
                fees.require_payment(s, settings, FeeAct.BADGE_COPY, p.permit_id)
        loaded: dict[int, Permit] = {}
        links: dict[int, DeputyLink] = {}
        for chunk in _chunks(sorted({p.permit_id for p in planned})):
            loaded.update({permit.id: permit for permit in s.scalars(select(Permit).where(Permit.id.in_(chunk)))})
        for chunk in _chunks(sorted({p.link_id for p in planned if p.link_id})):
            links.update({link.id: link for link in s.scalars(select(DeputyLink).where(DeputyLink.id.in_(chunk)))})
        rows = []
        for p in planned:
            holder: Permit | DeputyLink | None = links.get(p.link_id) if p.link_id else loaded.get(p.permit_id)
            if holder is None or holder.badge_issue_no != p.old_issue:
                raise ConflictError(stale)
            holder.badge_issue_no = p.data.issue_no
            rows.append({"permit_id": p.permit_id, "deputy_link_id": p.link_id, "issue_no": p.data.issue_no,
                         "claim_sha256": p.claim_sha256, "key_id": signer,
                         "printed_at": now, "printed_by": ctx.user.login,
                         "reason": FIRST_PRINT_REASON if p.old_issue == 0 else (reason or ""), "layout": layout})
        s.flush()
        s.execute(insert(BadgePrint), rows)
        card_stock.record_uses(s, ctx.user.login, now, layout, rows, card_serials)
        if spool is not None:
            spool(pdf)
    return PrintedBadges(pdf, [PrintedBadge(p.permit_id, p.data.permit_number, p.data.issue_no,
                                            "preposto" if p.link_id else "titular", p.data.holder_name,
                                            p.data.qr_text)
                               for p in planned], layout)


@requires(*READERS)
def print_log(ctx: AppContext, permit_id: int) -> list[BadgePrintRow]:
    """Every print and reprint of a permit's badges, newest first."""
    with ctx.read() as s:
        rows = s.execute(select(BadgePrint, CardUse.serial).outerjoin(CardUse, CardUse.badge_print_id == BadgePrint.id)
                         .where(BadgePrint.permit_id == permit_id)
                         .order_by(BadgePrint.printed_at.desc(), BadgePrint.id.desc())).all()
    return [BadgePrintRow(r.printed_at, r.printed_by, r.issue_no, "preposto" if r.deputy_link_id else "titular",
                          r.reason, r.layout, serial) for r, serial in rows]


# --- verification ----------------------------------------------------------------------------


class BadgeStatus(StrEnum):
    VALID = "valid"
    EXPIRED = "expired"
    SUSPENDED = "suspended"
    REVOKED = "revoked"
    CANCELLED = "cancelled"
    SUPERSEDED = "superseded"
    UNLINKED = "unlinked"  # a deputy's badge after the link ended (Art. 14)
    DEPUTY_SUSPENDED = "deputy_suspended"  # a penalty of the deputy (Art. 34, III)
    DEPUTY_REVOKED = "deputy_revoked"  # cassação of the deputy (Art. 34, IV)
    FORGED = "forged"
    NOT_A_BADGE = "not_a_badge"  # the text holds no badge token at all (a CNH's QR, an address, junk)
    UNCONFIRMED = "unconfirmed"  # an old print (no digest) the register cannot confirm field by field

    @property
    def label(self) -> str:
        return {
            "valid": "CRACHÁ VÁLIDO",
            "expired": "CRACHÁ VENCIDO",
            "suspended": "PERMISSÃO SUSPENSA",
            "revoked": "PERMISSÃO CASSADA",
            "cancelled": "PERMISSÃO CANCELADA",
            "superseded": "VIA SUBSTITUÍDA",
            "unlinked": "PREPOSTO DESVINCULADO",
            "deputy_suspended": "PREPOSTO SUSPENSO",
            "deputy_revoked": "PREPOSTO CASSADO",
            "forged": "CRACHÁ FALSIFICADO",
            "not_a_badge": "NÃO É UM CRACHÁ",
            "unconfirmed": "CONFIRME NO BALCÃO",
        }[self.value]

    @property
    def colour(self) -> str:
        """Background of the verdict on screen."""
        return {
            "valid": "#2e7d32",
            "expired": "#ef6c00",
            "suspended": "#ef6c00",
            "superseded": "#c62828",
            "unlinked": "#c62828",
            "deputy_suspended": "#ef6c00",
            "deputy_revoked": "#c62828",
            "revoked": "#c62828",
            "cancelled": "#c62828",
            "forged": "#b71c1c",
            "not_a_badge": "#455a64",
            "unconfirmed": "#ef6c00",
        }[self.value]


@dataclass(frozen=True)
class BadgeVerification:
    status: BadgeStatus
    message: str
    online: bool  # checked against the register (False: public key only)
    permit_number: str | None = None
    service: ServiceType | None = None
    holder_kind: str | None = None
    holder_name: str | None = None
    photo_jpeg: bytes | None = None
    valid_until: date | None = None
    issue_no: int | None = None
    current_issue_no: int | None = None
    holder_of_deputy: str | None = None  # a deputy's badge: the holder's name, from the register

    @property
    def valid(self) -> bool:
        return self.status is BadgeStatus.VALID

    @property
    def bearer_role(self) -> str:
        """Whose badge it is (Art. 11: only the holder and his deputy drive): "Titular" or "Preposto de …"."""
        if self.holder_kind == "titular":
            return "Titular"
        if self.holder_kind == "preposto":
            return f"Preposto de {self.holder_of_deputy}" if self.holder_of_deputy else "Preposto"
        return ""


def _forged(online: bool, detail: str = "") -> BadgeVerification:
    message = ForgedTokenError.MESSAGE + (f" {detail}" if detail else "")
    return BadgeVerification(BadgeStatus.FORGED, message, online)


def _not_a_badge(online: bool) -> BadgeVerification:
    return BadgeVerification(BadgeStatus.NOT_A_BADGE, NotABadgeError.MESSAGE + " O texto lido não traz o código "
                             "assinado de um crachá (confira se foi lido o código QR do verso do crachá).", online)


def verify_offline(text: str, public_pem: bytes | Sequence[bytes], *, today: date | None = None) -> BadgeVerification:
    """Signature and printed validity only, with the public key (or the current and retired keys of
    :func:`public_keys`): no register needed (street checks)."""
    today = today or local_today()
    keys = [public_pem] if isinstance(public_pem, bytes | str) else list(public_pem)
    claim: BadgeClaim | None = None
    for key in keys:
        try:
            claim = verify_token(text, key)
            break
        except NotABadgeError:
            return _not_a_badge(False)
        except ForgedTokenError:
            continue
    if claim is None:
        return _forged(False)
    who = "titular" if claim.holder_kind == "titular" else "preposto"
    note = (" Verificação sem o cadastro: suspensão, cassação e substituição da via não foram conferidas.")
    # What the badge prints, as its signed claim says (badges printed before the public verifier: nothing).
    service = next((t for t in ServiceType if t.code == claim.service_code), None)
    if claim.valid_until < today:
        return BadgeVerification(
            BadgeStatus.EXPIRED, f"Crachá de {claim.permit_number} ({who}) vencido em "
            f"{format_date(claim.valid_until)} (Art. 4º, § 1º).{note}", False, claim.permit_number,
            holder_kind=claim.holder_kind, valid_until=claim.valid_until, issue_no=claim.issue_no, service=service, holder_name=claim.holder_name)
    return BadgeVerification(
        BadgeStatus.VALID, f"Assinatura autêntica: crachá de {claim.permit_number} ({who}), "
        f"{claim.issue_no}ª via, válido até {format_date(claim.valid_until)}.{note}", False,
        claim.permit_number, holder_kind=claim.holder_kind, valid_until=claim.valid_until,
        issue_no=claim.issue_no, service=service, holder_name=claim.holder_name)


@requires(*READERS)
def verify_badge(ctx: AppContext, text: str, *, today: date | None = None) -> BadgeVerification:
    """Signature, then the register: forged, revoked, cancelled, suspended, expired, superseded or valid."""
    today = today or local_today()
    claim: BadgeClaim | None = None
    signer = ""
    for public in _verification_keys(ctx):
        try:
            claim = verify_token(text, public)
        except NotABadgeError:
            return _not_a_badge(True)
        except ForgedTokenError:
            continue
        signer = key_id(public)
        break
    if claim is None:
        return _forged(True)
    with ctx.read() as s:
        permit = s.scalar(select(Permit).where(Permit.number == claim.permit_number))
        if permit is None:
            return _forged(True, "A permissão do código não consta do cadastro.")
        holder = s.get(Person, permit.person_id)
        assert holder is not None
        link: DeputyLink | None = None
        bearer: Person | None = None
        if claim.holder_kind == "titular":
            bearer = holder
            if cpf_digest(holder.cpf) != claim.cpf_digest:
                return _forged(True, "O código não corresponde ao titular cadastrado.")
            current = permit.badge_issue_no
        else:
            for candidate, person in s.execute(
                select(DeputyLink, Person).join(Person, Person.id == DeputyLink.deputy_person_id)
                .where(DeputyLink.permit_id == permit.id).order_by(DeputyLink.id.desc())
            ).all():
                if cpf_digest(person.cpf) == claim.cpf_digest:
                    link, bearer = candidate, person
                    break
            if link is None or bearer is None:
                return _forged(True, "O código não corresponde a nenhum preposto cadastrado.")
            current = link.badge_issue_no
        assert bearer is not None
        if claim.issue_no > current:
            return _forged(True, "Esta via nunca foi impressa pelo sistema.")
        mismatch, unconfirmed = _printed_mismatch(s, permit, link, claim, signer)
        if mismatch:
            return _forged(True, mismatch)
        photos = _newest_photos(s, {bearer.id})
    result = _register_status(permit, link, claim, current, today)
    status, message = result
    if unconfirmed and status is BadgeStatus.VALID:  # never VÁLIDO for what the register cannot confirm
        status, message = BadgeStatus.UNCONFIRMED, unconfirmed
    shown = status is not BadgeStatus.FORGED
    return BadgeVerification(
        status, message, True, permit.number, permit.service_type, claim.holder_kind,
        bearer.full_name if shown else None, photos.get(bearer.id) if status is BadgeStatus.VALID else None,
        claim.valid_until, claim.issue_no, current,
        holder.full_name if shown and link is not None else None,
    )


def _printed_mismatch(s: Session, permit: Permit, link: DeputyLink | None, claim: BadgeClaim,
                      signer: str) -> tuple[str | None, str | None]:
    """(why the claim is not a badge the system printed, why the register cannot confirm it), pt_BR.

    The print log keeps the digest of each signed claim: a badge signed with a leaked key, but never
    printed, or printed and then altered (validity, copy, holder), differs from it. Prints made
    before the log kept digests are compared field by field with what they could have been; a
    validity earlier than the register's then reads "confirme no balcão", never valid.
    """
    printed = s.scalars(select(BadgePrint).where(
        BadgePrint.permit_id == permit.id, BadgePrint.issue_no == claim.issue_no,
        BadgePrint.deputy_link_id.is_(None) if link is None else BadgePrint.deputy_link_id == link.id,
    ).order_by(BadgePrint.id.desc())).first()
    if printed is None:
        return "Esta via não consta do registro de impressões do sistema.", None
    if printed.claim_sha256 is not None:
        if printed.claim_sha256 != claim_digest(claim):
            return ("Os dados do código (validade, via ou portador) não conferem com o crachá impresso "
                    f"pelo sistema em {format_date(printed.printed_at.date())}."), None
        if printed.key_id is not None and printed.key_id != signer:
            return "O código foi assinado com uma chave diferente da que assinou o crachá impresso.", None
        return None, None
    # A print without a digest was made before revision 0008, when a claim had five fields (the
    # printed fields came later) and the installation had one key (rotation came with 0008): every
    # field the claim carries is checked against what such a print could have been.
    if claim.printed_fields:
        return ("Esta via foi impressa antes de o código trazer nome, placa e CPF mascarado: um código com "
                "esses dados nesta via não foi impresso pelo sistema."), None
    retired = _retired_keys(s)
    first_key = retired[0] if retired else _current_public(s)
    if first_key is None or key_id(first_key) != signer:
        return "O código foi assinado com uma chave criada depois da impressão desta via.", None
    register = badge_valid_until(permit)
    if claim.valid_until > register:
        return (f"A validade do código ({format_date(claim.valid_until)}) passa da validade do registro no "
                f"cadastro ({format_date(register)})."), None
    if claim.valid_until != register:  # a badge printed before a renewal, or a forgery: the counter decides
        return None, (f"Via impressa antes do registro completo das impressões: a validade do código "
                      f"({format_date(claim.valid_until)}) difere da do cadastro ({format_date(register)}). "
                      "Confirme no balcão da SESTRAN antes de aceitar o crachá.")
    return None, None


def _register_status(permit: Permit, link: DeputyLink | None, claim: BadgeClaim, current: int,
                     today: date) -> tuple[BadgeStatus, str]:
    instrument = permit.service_type.instrument
    ended = format_date(permit.ended_on) if permit.ended_on else "data não registrada"
    if permit.state is PermitState.REVOKED:
        return BadgeStatus.REVOKED, (f"A {instrument} {permit.number} foi cassada em {ended} "
                                     "(Art. 34, IV; Art. 35). Recolha o crachá.")
    if permit.state is PermitState.CANCELLED:
        return BadgeStatus.CANCELLED, (f"A {instrument} {permit.number} foi cancelada a pedido em {ended} "
                                       "(Art. 6º, § 7º). Recolha o crachá.")
    if permit.state is PermitState.SUSPENDED:
        until = f" até {format_date(permit.suspended_until)}" if permit.suspended_until else ""
        return BadgeStatus.SUSPENDED, (f"A {instrument} {permit.number} está suspensa{until} (Art. 34, III): "
                                       "o serviço não pode ser prestado.")
    if permit.state is PermitState.EXPIRED:
        return BadgeStatus.EXPIRED, (f"O prazo da {instrument} {permit.number} terminou em "
                                     f"{format_date(permit.term_end)} (Art. 6º).")
    if permit.state is not PermitState.ACTIVE:
        return BadgeStatus.REVOKED, f"A {instrument} {permit.number} não está em vigor ({permit.state.label})."
    if link is not None and link.revoked:
        return BadgeStatus.DEPUTY_REVOKED, (f"O registro do preposto de {permit.number} foi cassado em "
                                            f"{format_date(link.end_on) if link.end_on else ended} (Art. 34, IV): "
                                            "o crachá não vale mais. Recolha o crachá.")
    if link is not None and link.end_on is None and link.suspended_until is not None \
            and today < link.suspended_until:
        return BadgeStatus.DEPUTY_SUSPENDED, (f"O preposto de {permit.number} está suspenso até "
                                              f"{format_date(link.suspended_until)} (Art. 34, III): não pode "
                                              "conduzir o veículo.")
    if link is not None and link.end_on is not None:
        return BadgeStatus.UNLINKED, (f"O preposto foi desvinculado de {permit.number} em "
                                      f"{format_date(link.end_on)} (Art. 14): o crachá não vale mais.")
    if claim.issue_no < current:
        return BadgeStatus.SUPERSEDED, (f"Este crachá é a {claim.issue_no}ª via; a via em uso é a {current}ª. "
                                        "Uma via anterior (perdida, roubada ou substituída) não vale mais.")
    if claim.valid_until < today:
        return BadgeStatus.EXPIRED, (f"Crachá vencido em {format_date(claim.valid_until)}: o registro deve ser "
                                     "renovado anualmente (Art. 4º, § 1º).")
    who = "titular" if link is None else "preposto"
    return BadgeStatus.VALID, (f"{instrument.capitalize()} {permit.number} em vigor ({who}), "
                               f"{claim.issue_no}ª via, válido até {format_date(claim.valid_until)}.")


# --- the public verifier: its static site and the signed status list --------------------------

STATUS_FILE = "status.json"
KEYS_FILE = "keys.json"
STATUS_FORMAT = "motodesk-status/1"
SIGNED_STATUS_FORMAT = "motodesk-status-signed/1"
KEYS_FORMAT = "motodesk-keys/1"
PUBLISHERS = (Role.ADMIN, Role.SUPERVISOR, Role.CLERK)


@dataclass(frozen=True)
class PublishedStatus:
    path: Path
    issued_at: datetime
    key_id: str
    permits: int  # permits listed (suspended, revoked, cancelled, ended)
    deputies: int  # deputies listed (suspended, revoked, unlinked)
    reprinted: int  # badges with an older, superseded copy
    checkpoint: PublishedCheckpoint | None = None  # the audit trail's signed head published beside it (services.audit)


def _iso_day(day: date | None) -> str | None:
    return day.isoformat() if day else None


def _status_body(s: Session, issued_at: datetime, signer: str, today: date) -> dict[str, object]:
    """What the page needs to tell a valid badge from a withdrawn one, and nothing personal.

    Permits by number (their state, as the register's ``_register_status`` judges it); deputies by
    permit number and the CPF digest their badge's QR already carries; the copy in use of every badge
    reprinted (an older copy reads "substituído"). Names, CPFs and plates are never listed: the page
    shows only what the scanned badge's own signed claim says.
    """
    permits_listed: dict[str, dict[str, str | None]] = {}
    copies: dict[str, int] = {}
    for number, state, until, ended, issue in s.execute(select(
            Permit.number, Permit.state, Permit.suspended_until, Permit.ended_on, Permit.badge_issue_no)
            .where(Permit.badge_issue_no > 0).order_by(Permit.number)).all():
        if state is PermitState.SUSPENDED:
            permits_listed[number] = {"state": "suspended", "until": _iso_day(until)}
        elif state in (PermitState.REVOKED, PermitState.CANCELLED, PermitState.EXPIRED):
            permits_listed[number] = {"state": state.value, "on": _iso_day(ended)}
        elif state is not PermitState.ACTIVE:
            permits_listed[number] = {"state": "revoked", "on": _iso_day(ended)}
        if issue > 1:
            copies[f"{number}|T"] = issue
    deputies: dict[str, dict[str, str | None]] = {}
    for number, cpf, link in s.execute(
            select(Permit.number, Person.cpf, DeputyLink)
            .join(DeputyLink, DeputyLink.permit_id == Permit.id)
            .join(Person, Person.id == DeputyLink.deputy_person_id)
            .where(DeputyLink.badge_issue_no > 0).order_by(Permit.number, DeputyLink.id)).all():
        key = f"{number}|{cpf_digest(cpf)}"
        if link.revoked:
            deputies[key] = {"state": "revoked", "on": _iso_day(link.end_on)}
        elif link.end_on is not None:
            deputies[key] = {"state": "unlinked", "on": _iso_day(link.end_on)}
        elif link.suspended_until is not None and today < link.suspended_until:
            deputies[key] = {"state": "suspended", "until": _iso_day(link.suspended_until)}
        else:
            deputies.pop(key, None)  # a newer link of the same person, in force
        if link.badge_issue_no > 1:
            copies[f"{number}|P|{cpf_digest(cpf)}"] = link.badge_issue_no
    return {
        "format": STATUS_FORMAT,
        "issued_at": issued_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "key_id": signer,
        "permits": permits_listed,
        "deputies": deputies,
        "copies": copies,
    }


def _signed_status(ctx: AppContext, now: datetime | None) -> tuple[bytes, dict[str, object]]:
    issued_at = (now or datetime.now(UTC)).astimezone(UTC).replace(microsecond=0)
    key = current_signing_key(ctx)
    private_pem, signer = key.private_pem, key.key_id
    with ctx.read() as s:
        body = _status_body(s, issued_at, signer, local_today())
    raw = json.dumps(body, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")
    envelope = {
        "format": SIGNED_STATUS_FORMAT,
        "key_id": signer,
        "body": base64.b64encode(raw).decode("ascii"),
        "signature": base64.b64encode(sign_status(raw, private_pem)).decode("ascii"),
    }
    return (json.dumps(envelope, indent=1) + "\n").encode("ascii"), body


@requires(*PUBLISHERS)
def status_list(ctx: AppContext, *, now: datetime | None = None) -> bytes:
    """The signed status list (``status.json``) the public verifier page fetches."""
    return _signed_status(ctx, now)[0]


def _write_atomic(path: Path, data: bytes) -> None:
    """Replace *path* in one step: a web server never serves half a file."""
    import os

    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def _out_dir(out_dir: Path) -> Path:
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise MotodeskError(f"Não foi possível criar a pasta {out}: {exc.strerror or exc}.") from None
    if not out.is_dir():
        raise MotodeskError(f"{out} não é uma pasta.")
    return out


@requires(*PUBLISHERS)
def publish_status(ctx: AppContext, out_dir: Path, *, now: datetime | None = None) -> PublishedStatus:
    """Write ``status.json`` (signed with the badge key) into the verifier's folder."""
    out = _out_dir(out_dir)
    data, body = _signed_status(ctx, now)
    path = out / STATUS_FILE
    try:
        _write_atomic(path, data)
    except OSError as exc:
        raise MotodeskError(f"Não foi possível gravar {path}: {exc.strerror or exc}.") from None
    copies = typing.cast(dict[str, int], body["copies"])

    checkpoint = publish_checkpoint(ctx, out)  # beside it, signed with the same key
    return PublishedStatus(path, datetime.strptime(str(body["issued_at"]), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC),
                           str(body["key_id"]), len(typing.cast(dict[str, object], body["permits"])),
                           len(typing.cast(dict[str, object], body["deputies"])), len(copies), checkpoint)


@requires(*PUBLISHERS)
def verifier_keys(ctx: AppContext) -> bytes:
    """``keys.json``: every public key that verifies badges (current first), raw for the browser."""
    keys = _verification_keys(ctx)
    document = {
        "format": KEYS_FORMAT,
        "keys": [{"id": key_id(pem), "ed25519": base64.b64encode(public_key_raw(pem)).decode("ascii"),
                  "current": i == 0} for i, pem in enumerate(keys)],
    }
    return (json.dumps(document, indent=1) + "\n").encode("ascii")


@dataclass(frozen=True)
class PublishedVerifier:
    out_dir: Path
    files: list[str]
    status: PublishedStatus
    base_url: str


@requires(*PUBLISHERS)
def publish_verifier(ctx: AppContext, out_dir: Path, *, now: datetime | None = None) -> PublishedVerifier:
    """Write the public verifier's static site: the page, its script, CSS and service worker, the
    vendored Ed25519 code with its licence, the public keys and a fresh status list."""
    from motodesk.resources import resource_path

    out = _out_dir(out_dir)
    source = resource_path("verifier")
    written: list[str] = []
    try:
        for item in sorted(source.rglob("*")):
            if item.is_file() and not item.name.startswith(".") and item.suffix != ".py" \
                    and "__pycache__" not in item.parts:
                relative = item.relative_to(source)
                (out / relative).parent.mkdir(parents=True, exist_ok=True)
                _write_atomic(out / relative, item.read_bytes())
                written.append(relative.as_posix())
        _write_atomic(out / KEYS_FILE, verifier_keys(ctx))
    except OSError as exc:
        raise MotodeskError(f"Não foi possível gravar o verificador em {out}: {exc.strerror or exc}.") from None
    written.append(KEYS_FILE)
    status = publish_status(ctx, out, now=now)
    written.append(STATUS_FILE)
    if status.checkpoint is not None:
        written.append(status.checkpoint.path.name)  # the audit trail's signed head, beside the list
    return PublishedVerifier(out, written, status, law_settings(ctx).verifier_base_url)
