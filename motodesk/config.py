"""This workstation's configuration: which database it uses (never the password in a file).

The choice made by the first-run wizard is a small JSON file in the user's configuration folder
(platformdirs ``user_config_dir``). A PostgreSQL password lives in the system keyring (service
``MotoDesk``, user name ``user@host:port/database``) or, where this computer has no keyring, is
asked for at every start. Pure Python: no Qt, no database.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal

log = logging.getLogger(__name__)

APP_NAME = "MotoDesk"
APP_AUTHOR = "SESTRAN Patrocinio"
KEYRING_SERVICE = "MotoDesk"
CONFIG_FILE = "motodesk.json"
DEFAULT_PG_PORT = 5432

NO_KEYRING_MESSAGE = (
    "Não há cofre de senhas neste computador (o chaveiro do sistema não está disponível): "
    "a senha do banco de dados não será gravada e será pedida a cada início do MotoDesk."
)


class ConfigError(Exception):
    """A configuration problem explained in pt_BR."""


@dataclass(frozen=True)
class DatabaseChoice:
    """Where this workstation's data is: a local SQLite file or the secretariat's PostgreSQL server."""

    kind: Literal["sqlite", "postgresql"]
    path: str = ""  # SQLite file
    host: str = ""
    port: int = DEFAULT_PG_PORT
    database: str = ""
    user: str = ""
    remember_password: bool = False  # the password is in the keyring (else asked at each start)

    @classmethod
    def local(cls, path: Path | str | None = None) -> DatabaseChoice:
        return cls(kind="sqlite", path=str(path or default_sqlite_path()))

    @classmethod
    def server(cls, host: str, port: int, database: str, user: str, *, remember_password: bool = False
               ) -> DatabaseChoice:
        return cls(kind="postgresql", host=host.strip(), port=int(port), database=database.strip(),
                   user=user.strip(), remember_password=remember_password)

    @property
    def keyring_username(self) -> str:
        return f"{self.user}@{self.host}:{self.port}/{self.database}"

    def url(self, password: str | None = None) -> str:
        """The SQLAlchemy URL; the password only when given (never stored with the URL)."""
        if self.kind == "sqlite":
            return f"sqlite:///{self.path}"
        from sqlalchemy.engine import URL

        return URL.create("postgresql+psycopg", username=self.user or None, password=password or None,
                          host=self.host or None, port=self.port, database=self.database
                          ).render_as_string(hide_password=False)

    def describe(self) -> str:
        """pt_BR, for people: 'arquivo local …' or 'servidor host:porta, banco …'."""
        if self.kind == "sqlite":
            return f"Somente este computador (arquivo {self.path})"
        return f"Servidor da Secretaria {self.host}:{self.port}, banco {self.database}, usuário {self.user}"

    def validate(self) -> dict[str, str]:
        """Field → pt_BR reason, empty when the choice can be tried."""
        problems: dict[str, str] = {}
        if self.kind == "sqlite":
            if not self.path:
                problems["path"] = "Informe o arquivo do banco de dados."
            return problems
        if not self.host:
            problems["host"] = "Informe o endereço do servidor."
        if not 1 <= self.port <= 65535:
            problems["port"] = "A porta deve estar entre 1 e 65535."
        if not self.database:
            problems["database"] = "Informe o nome do banco de dados."
        if not self.user:
            problems["user"] = "Informe o usuário do banco de dados."
        return problems


def config_dir() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir(APP_NAME, APP_AUTHOR))


def config_path() -> Path:
    return config_dir() / CONFIG_FILE


def default_sqlite_path() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP_NAME, APP_AUTHOR)) / "motodesk.sqlite3"


def _read() -> dict[str, Any]:
    path = config_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        log.warning("unreadable configuration %s: %s", path, exc)
        return {}
    return data if isinstance(data, dict) else {}


def _write(data: dict[str, Any]) -> None:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".motodesk-", suffix=".json", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, ensure_ascii=False, indent=2)
            fh.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_choice() -> DatabaseChoice | None:
    """The database this workstation was configured with, or None (first run)."""
    raw = _read().get("database")
    if not isinstance(raw, dict) or raw.get("kind") not in ("sqlite", "postgresql"):
        return None
    fields = {k: raw[k] for k in DatabaseChoice.__dataclass_fields__ if k in raw}
    fields.pop("password", None)
    try:
        choice = DatabaseChoice(**fields)
        return replace(choice, port=int(choice.port))
    except (TypeError, ValueError):
        log.warning("invalid database configuration in %s", config_path())
        return None


def save_choice(choice: DatabaseChoice) -> Path:
    """Store the choice (without any password) and return the file written."""
    data = _read()
    data["database"] = asdict(choice)
    _write(data)
    return config_path()


def forget_choice() -> None:
    data = _read()
    if data.pop("database", None) is not None:
        _write(data)


def load_last_login() -> str | None:
    """The user who last entered on this workstation (the login dialog pre-fills it), or None."""
    value = _read().get("last_login")
    return value if isinstance(value, str) and value.strip() else None


def save_last_login(login: str) -> None:
    """Remember who entered (no password, nothing else); a configuration that cannot be written only
    loses the convenience."""
    data = _read()
    if data.get("last_login") == login:
        return
    data["last_login"] = login
    try:
        _write(data)
    except OSError as exc:
        log.warning("last login not remembered: %s", exc)


# --- the keyring -------------------------------------------------------------------------------

def keyring_available() -> bool:
    """True when this computer has a usable system keyring (not keyring's fail/null backend)."""
    try:
        import keyring
        from keyring.backends import chainer, fail, null

        backend = keyring.get_keyring()
    except Exception:  # noqa: BLE001 - a broken keyring is the same as none
        return False
    if isinstance(backend, (fail.Keyring, null.Keyring)):
        return False
    if isinstance(backend, chainer.ChainerBackend) and not backend.backends:
        return False
    return True


def store_password(choice: DatabaseChoice, password: str) -> bool:
    """Keep the password in the keyring; False when there is no keyring or it refused."""
    if not keyring_available():
        return False
    import keyring
    from keyring.errors import KeyringError

    try:
        keyring.set_password(KEYRING_SERVICE, choice.keyring_username, password)
    except (KeyringError, OSError) as exc:
        log.warning("keyring refused the password: %s", exc)
        return False
    return True


def load_password(choice: DatabaseChoice) -> str | None:
    if choice.kind != "postgresql" or not choice.remember_password or not keyring_available():
        return None
    import keyring
    from keyring.errors import KeyringError

    try:
        return keyring.get_password(KEYRING_SERVICE, choice.keyring_username)
    except (KeyringError, OSError) as exc:
        log.warning("keyring unreadable: %s", exc)
        return None


def delete_password(choice: DatabaseChoice) -> None:
    if not keyring_available():
        return
    import keyring
    from keyring.errors import KeyringError, PasswordDeleteError

    try:
        keyring.delete_password(KEYRING_SERVICE, choice.keyring_username)
    except (PasswordDeleteError, KeyringError, OSError):
        pass


def configured_url() -> str | None:
    """The configured database's URL with the keyring's password, or None when none is configured.

    Without a stored password the URL has none: the PostgreSQL client library then uses PGPASSWORD
    or the user's pgpass file, which is how an administrator runs commands from a terminal.
    """
    choice = load_choice()
    if choice is None:
        return None
    if choice.kind == "sqlite":
        Path(choice.path).parent.mkdir(parents=True, exist_ok=True)
    return choice.url(load_password(choice))
