"""Where a printing workstation keeps the badges' PRIVATE signing key: never in the database.

The database holds the public keys only (settings ``badge_public_key`` and
``badge_public_keys_retired``), so every workstation verifies badges; the private key lives with the
workstations registered to print (``motodesk register-printer-station``), kept by key id (the first
16 hex digits of the SHA-256 of the public PEM).

**The policy, in this order:**

1. ``MOTODESK_BADGE_KEY_DIR`` set: a file in that folder (tests, the self-test, a portable install).
2. Otherwise, a usable system keyring (:func:`motodesk.config.keyring_available`: Windows Credential
   Manager, macOS Keychain, Secret Service): service ``MotoDesk``, user ``chave-crachas-<id>``.
3. Otherwise (a Linux box with no desktop keyring), a file in the workstation's own data folder
   (beside the backup signing key, :func:`motodesk.services.backup_keys.key_dir`), folder 0700 and
   file 0600, named ``chave-crachas-<id>.pem``.

Pure Python: no database, no Qt. The Alembic revision that moves an old key out of ``settings``
(0018) writes through :func:`save` too.
"""

from __future__ import annotations

import hashlib
import logging
import os
import stat
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from motodesk.services.backup_keys import key_dir, write_private
from motodesk.services.errors import MotodeskError

log = logging.getLogger(__name__)

BADGE_KEY_DIR_ENV = "MOTODESK_BADGE_KEY_DIR"
FILE_PREFIX = "chave-crachas-"
KEYRING_PREFIX = "chave-crachas-"
PRIVATE_MODE = 0o600


class StationKeyError(MotodeskError):
    """This workstation cannot keep or read the badge signing key (pt_BR message)."""

    title = "Chave de assinatura dos crachás"
    code = "station_key"


def key_id(public_pem: bytes) -> str:
    """A short name of a public key: the first 16 hex digits of the SHA-256 of its PEM."""
    return hashlib.sha256(public_pem.strip()).hexdigest()[:16]


def public_of(private_pem: bytes) -> bytes:
    """The public PEM of a private Ed25519 PEM; StationKeyError when it is not one."""
    try:
        key = serialization.load_pem_private_key(bytes(private_pem), password=None)
    except (ValueError, TypeError):
        raise StationKeyError("O arquivo não contém uma chave privada de crachás do MotoDesk (Ed25519, PEM).",
                              code="badge_key.not_private_key") \
            from None
    if not isinstance(key, Ed25519PrivateKey):
        raise StationKeyError("A chave não é Ed25519: não é uma chave de assinatura de crachás do MotoDesk.")
    return key.public_key().public_bytes(serialization.Encoding.PEM,
                                         serialization.PublicFormat.SubjectPublicKeyInfo)


def _folder() -> Path | None:
    """The folder of the file store, or None when the keyring is the store."""
    explicit = os.environ.get(BADGE_KEY_DIR_ENV)
    if explicit:
        return Path(explicit)
    from motodesk.config import keyring_available

    if keyring_available():
        return None

    return key_dir()


def describe() -> str:
    """Where this workstation keeps the key, for people (pt_BR)."""
    folder = _folder()
    if folder is None:
        return "no cofre de senhas do sistema (chaveiro) deste computador"
    return f"no arquivo {folder / (FILE_PREFIX + '<id>.pem')} (legível só pelo usuário deste computador)"


def _path(folder: Path, kid: str) -> Path:
    if not kid.isalnum():
        raise StationKeyError(f"Identificador de chave inválido: {kid!r}.")
    return folder / f"{FILE_PREFIX}{kid}.pem"


def load(kid: str) -> bytes | None:
    """The private PEM of the key *kid* on this workstation, or None when it has none.

    A stored key that is damaged or is not the one named *kid* reads as absent (and is logged)."""
    folder = _folder()
    if folder is None:
        import keyring
        from keyring.errors import KeyringError

        try:
            text = keyring.get_password("MotoDesk", KEYRING_PREFIX + kid)
        except (KeyringError, OSError) as exc:
            raise StationKeyError(f"Não foi possível ler o cofre de senhas deste computador: {exc}.") from None
        pem = text.encode("ascii", "replace") if text else None
    else:
        path = _path(folder, kid)
        try:
            if os.name == "posix" and stat.S_IMODE(path.stat().st_mode) & 0o077:
                os.chmod(path, PRIVATE_MODE)  # a copied-in key readable by others: tighten it
            pem = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StationKeyError(f"Não foi possível ler a chave de assinatura dos crachás em {path}: "
                                  f"{exc.strerror or exc}.") from None
    if pem is None:
        return None
    try:
        if key_id(public_of(pem)) != kid:
            log.warning("badge key store: the key stored as %s is another key", kid)
            return None
    except StationKeyError:
        log.warning("badge key store: the key stored as %s is damaged", kid)
        return None
    return pem


def save(private_pem: bytes) -> str:
    """Keep *private_pem* on this workstation (under its key id, which is returned).

    Read back before returning: a store that does not give the same key back is an error, so a
    caller that deletes the key elsewhere afterwards never loses it."""
    kid = key_id(public_of(private_pem))
    folder = _folder()
    if folder is None:
        import keyring
        from keyring.errors import KeyringError

        try:
            keyring.set_password("MotoDesk", KEYRING_PREFIX + kid, private_pem.decode("ascii"))
        except (KeyringError, OSError) as exc:
            raise StationKeyError(f"O cofre de senhas deste computador recusou a chave dos crachás: {exc}.") \
                from None
    else:
        path = _path(folder, kid)
        try:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            if load(kid) is None:
                path.unlink(missing_ok=True)  # a damaged copy
                write_private(path, private_pem)
        except OSError as exc:
            raise StationKeyError(f"Não foi possível gravar a chave de assinatura dos crachás em {folder}: "
                                  f"{exc.strerror or exc}. Verifique as permissões dessa pasta.", code="badge_key.write_failed") from None
    if load(kid) != private_pem:
        raise StationKeyError("A chave de assinatura dos crachás não pôde ser conferida depois de gravada "
                              "nesta estação.")
    return kid


def delete(kid: str) -> None:
    """Forget the key *kid* on this workstation (a retired key never signs again)."""
    folder = _folder()
    if folder is None:
        import keyring
        from keyring.errors import KeyringError, PasswordDeleteError

        try:
            keyring.delete_password("MotoDesk", KEYRING_PREFIX + kid)
        except (PasswordDeleteError, KeyringError, OSError):
            pass
        return
    try:
        _path(folder, kid).unlink(missing_ok=True)
    except OSError as exc:
        log.warning("badge key store: could not delete the retired key %s: %s", kid, exc)
