"""The installation's backup signing key: Ed25519, kept beside the app's data, never inside a backup.

Every backup's manifest is signed with this installation's private key (created on first use, in
the user data folder, mode 0600). A restore accepts a manifest signed by this installation's own
key or by a public key the administrator chose to trust (`motodesk export-backup-key FILE` on the
machine that made the backups, `motodesk restore --trust-key FILE …` on the one that restores).
Trusted public keys live in a folder beside the private key, one PEM file per key id.
"""

from __future__ import annotations

import base64
import hashlib
import os
import stat
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from motodesk.services.errors import InvalidInputError

KEY_DIR_ENV = "MOTODESK_KEY_DIR"
PRIVATE_FILE = "chave-copias-de-seguranca.pem"
TRUSTED_DIR = "chaves-de-copias-confiaveis"
PRIVATE_MODE = 0o600


def key_dir() -> Path:
    """The folder of the key: MOTODESK_KEY_DIR, else the app's data folder (beside the SQLite file)."""
    if os.environ.get(KEY_DIR_ENV):
        return Path(os.environ[KEY_DIR_ENV])
    from platformdirs import user_data_dir

    from motodesk.config import APP_AUTHOR, APP_NAME

    return Path(user_data_dir(APP_NAME, APP_AUTHOR))


def write_private(path: Path, data: bytes) -> None:
    """Create `path` (never overwriting) readable and writable by its owner only, whatever the umask."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), PRIVATE_MODE)
    try:
        if hasattr(os, "fchmod"):
            os.fchmod(fd, PRIVATE_MODE)  # the umask may have removed bits; never added: still set it
        with os.fdopen(fd, "wb", closefd=False) as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    finally:
        os.close(fd)
    if not hasattr(os, "fchmod"):
        os.chmod(path, stat.S_IREAD | stat.S_IWRITE)


def _private_folder(folder: Path) -> Path:
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:
        raise InvalidInputError(f"Não foi possível criar a pasta das chaves das cópias de segurança {folder} "
                                f"({exc.strerror or exc}).") from exc
    return folder


def key_id(public: Ed25519PublicKey) -> str:
    """A short fingerprint an administrator can read aloud: 4 groups of 4 hexadecimal digits."""
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    digest = hashlib.sha256(raw).hexdigest()[:16].upper()
    return "-".join(digest[i:i + 4] for i in range(0, 16, 4))


def public_pem(public: Ed25519PublicKey) -> bytes:
    return public.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def installation_key(*, create: bool = True) -> Ed25519PrivateKey | None:
    """This installation's private key, created on first use (None when absent and create=False)."""
    path = key_dir() / PRIVATE_FILE
    if not path.exists():
        if not create:
            return None
        _private_folder(path.parent)
        key = Ed25519PrivateKey.generate()
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
        try:
            write_private(path, pem)
            return key
        except FileExistsError:
            pass  # another process created it a moment ago: use that one
        except OSError as exc:
            raise InvalidInputError(f"Não foi possível criar a chave das cópias de segurança em {path.parent} "
                                    f"({exc.strerror or exc}): verifique as permissões dessa pasta.") from exc
    if os.name == "posix" and stat.S_IMODE(path.stat().st_mode) & 0o077:
        os.chmod(path, PRIVATE_MODE)  # a copied-in key readable by others: tighten it
    try:
        loaded = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (ValueError, TypeError) as exc:
        raise InvalidInputError(f"A chave das cópias de segurança em {path} está danificada.") from exc
    if not isinstance(loaded, Ed25519PrivateKey):
        raise InvalidInputError(f"A chave das cópias de segurança em {path} não é Ed25519.")
    return loaded


def sign(data: bytes) -> tuple[str, str]:
    """(key id, base64 signature) of `data` with the installation's key."""
    key = installation_key()
    assert key is not None
    return key_id(key.public_key()), base64.b64encode(key.sign(data)).decode("ascii")


def _load_public(pem: bytes, source: str) -> Ed25519PublicKey:
    if b"PRIVATE KEY" in pem:
        raise InvalidInputError(f"{source} contém uma chave PRIVADA: importe apenas a chave pública "
                                "(gerada por 'motodesk export-backup-key').", code="backup_key.private")
    try:
        public = serialization.load_pem_public_key(pem)
    except (ValueError, TypeError) as exc:
        raise InvalidInputError(f"{source} não é uma chave pública de cópias de segurança do MotoDesk.") from exc
    if not isinstance(public, Ed25519PublicKey):
        raise InvalidInputError(f"{source} não é uma chave Ed25519 de cópias de segurança do MotoDesk.")
    return public


def trusted_keys() -> dict[str, Ed25519PublicKey]:
    """key id -> public key: this installation's own key and the imported ones."""
    keys: dict[str, Ed25519PublicKey] = {}
    folder = key_dir() / TRUSTED_DIR
    if folder.is_dir():
        for path in sorted(folder.glob("*.pem")):
            try:
                public = _load_public(path.read_bytes(), str(path))
            except (InvalidInputError, OSError):
                continue
            keys[key_id(public)] = public
    own = installation_key(create=False)
    if own is not None:
        keys[key_id(own.public_key())] = own.public_key()
    return keys


def verify(data: bytes, signer: str, signature: str) -> bool | None:
    """True: signed by a trusted key; False: the signature does not match; None: unknown key."""
    public = trusted_keys().get(signer)
    if public is None:
        return None
    try:
        public.verify(base64.b64decode(signature, validate=True), data)
    except (InvalidSignature, ValueError):
        return False
    return True


def export_public_key(path: Path | str) -> str:
    """Write this installation's PUBLIC key to a new file (mode 0600); returns its id."""
    path = Path(path).expanduser()
    if path.exists():
        raise InvalidInputError(f"O arquivo {path} já existe: escolha outro nome.")
    if not path.parent.is_dir():
        raise InvalidInputError(f"A pasta {path.parent} não existe.")
    key = installation_key()
    assert key is not None
    write_private(path, public_pem(key.public_key()))
    return key_id(key.public_key())


def trust_key(path: Path | str) -> str:
    """Trust the public key in `path` (exported by another installation) for restores; returns its id."""
    path = Path(path).expanduser()
    try:
        pem = path.read_bytes()
    except OSError as exc:
        raise InvalidInputError(f"Não foi possível ler a chave {path}: {exc.strerror or exc}.") from exc
    public = _load_public(pem, str(path))
    kid = key_id(public)
    target = _private_folder(key_dir() / TRUSTED_DIR) / f"{kid}.pem"
    if not target.exists():
        write_private(target, public_pem(public))
    return kid
