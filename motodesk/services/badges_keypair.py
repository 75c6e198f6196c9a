"""The badges' signing key pair (:mod:`motodesk.services.badges`): the public keys the database keeps
(current and retired), the private key this workstation holds, registering a printing workstation,
exporting its key and rotating the pair.
"""

from __future__ import annotations

import json
import typing
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import Table, func, insert, select
from sqlalchemy.orm import Session

from motodesk.models import DeputyLink, Permit, Setting
from motodesk.printing.token import generate_keypair
from motodesk.rules.common import PermitState, Role
from motodesk.services import badge_keys
from motodesk.services.backup_keys import write_private
from motodesk.services.badge_keys import StationKeyError, key_id
from motodesk.services.context import READERS, AppContext, requires
from motodesk.services.errors import ConflictError, InvalidInputError, MotodeskError

SIGNING_KEY_SETTING = "badge_signing_key"  # before revision 0018 only: the private key is never stored here
PUBLIC_KEY_SETTING = "badge_public_key"
RETIRED_KEYS_SETTING = "badge_public_keys_retired"


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
            "'motodesk register-printer-station --key-file ARQUIVO' nesta.", code="badge_key.station_not_registered")
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
                "exporte-a de novo numa estação registrada depois da última troca de chave.", code="badge_key.not_current")
        kid = badge_keys.save(private)
        return StationRegistration(kid, False, False, badge_keys.describe())
    if public is not None:
        raise StationKeyError(
            f"Já existe uma chave de assinatura dos crachás ({key_id(public)}) e esta estação não a tem. "
            "Numa estação registrada, execute 'motodesk export-badge-signing-key ARQUIVO' e aqui "
            "'motodesk register-printer-station --key-file ARQUIVO' (apague o arquivo depois); "
            "ou troque a chave ('motodesk rotate-badge-key') e registre de novo as outras estações.",
            code="badge_key.station_lacks_key")
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
        raise InvalidInputError(f"O arquivo {path} já existe: escolha outro nome.", code="badge_key.file_exists")
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
