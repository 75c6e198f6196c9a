"""This workstation's configuration: the database choice in a file, the password only in the keyring."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from jaraco.classes import properties
from keyring.backend import KeyringBackend
from keyring.backends import fail
from keyring.errors import PasswordDeleteError

from motodesk import config
from motodesk.config import DatabaseChoice
from motodesk.models.db import ENV_URL, resolve_url


class MemoryKeyring(KeyringBackend):
    """A keyring in a dict, for tests (this machine has no Secret Service)."""

    @properties.classproperty
    def priority(cls) -> float:  # noqa: N805
        raise RuntimeError("a test keyring is installed explicitly, never chosen by keyring itself")

    def __init__(self) -> None:
        super().__init__()
        self.passwords: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.passwords.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.passwords[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.passwords.pop((service, username), None) is None:
            raise PasswordDeleteError(username)


@pytest.fixture(autouse=True)
def own_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv(ENV_URL, raising=False)


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
def no_keyring() -> Iterator[None]:
    """A computer without a keyring (keyring's fail backend), as this build machine is."""
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.set_keyring(previous)


SERVER = DatabaseChoice.server(" servidor-sestran ", 5433, "motodesk", "balcao", remember_password=True)


def test_first_run_has_no_choice(tmp_path: Path) -> None:
    assert config.load_choice() is None
    assert config.configured_url() is None
    assert config.config_path().is_relative_to(tmp_path / "config")
    assert config.default_sqlite_path().is_relative_to(tmp_path / "data")


def test_local_choice_round_trip_and_url(tmp_path: Path) -> None:
    choice = DatabaseChoice.local()
    config.save_choice(choice)
    assert config.load_choice() == choice
    assert config.configured_url() == f"sqlite:///{config.default_sqlite_path()}"
    assert config.default_sqlite_path().parent.is_dir()


def test_password_goes_to_the_keyring_never_to_the_file(memory_keyring: MemoryKeyring) -> None:
    assert config.keyring_available()
    assert SERVER.host == "servidor-sestran"
    config.save_choice(SERVER)
    assert config.store_password(SERVER, "s3nh@ forte")
    text = config.config_path().read_text(encoding="utf-8")
    assert "s3nh@" not in text and "password" not in json.loads(text)["database"]
    assert memory_keyring.passwords == {("MotoDesk", "balcao@servidor-sestran:5433/motodesk"): "s3nh@ forte"}
    assert config.load_choice() == SERVER
    from sqlalchemy import make_url

    url = make_url(config.configured_url())
    assert (url.username, url.password, url.host, url.port, url.database) == (
        "balcao", "s3nh@ forte", "servidor-sestran", 5433, "motodesk")
    config.delete_password(SERVER)
    assert config.configured_url() == "postgresql+psycopg://balcao@servidor-sestran:5433/motodesk"


@pytest.mark.usefixtures("no_keyring")
def test_without_a_keyring_nothing_is_stored() -> None:
    assert not config.keyring_available()
    assert not config.store_password(SERVER, "segredo")
    config.save_choice(SERVER)
    assert config.load_password(SERVER) is None
    assert "segredo" not in config.config_path().read_text(encoding="utf-8")
    assert "Não há cofre de senhas" in config.NO_KEYRING_MESSAGE


def test_a_damaged_file_is_a_first_run() -> None:
    config.config_path().parent.mkdir(parents=True)
    config.config_path().write_text("{ isto não é json", encoding="utf-8")
    assert config.load_choice() is None
    config.save_choice(DatabaseChoice.local("/tmp/x.sqlite3"))
    assert config.load_choice() == DatabaseChoice.local("/tmp/x.sqlite3")
    config.forget_choice()
    assert config.load_choice() is None


def test_validation_names_each_missing_field() -> None:
    problems = DatabaseChoice.server("", 0, "", "").validate()
    assert set(problems) == {"host", "port", "database", "user"}
    assert DatabaseChoice.local().validate() == {}
    assert "Servidor da Secretaria servidor-sestran:5433" in SERVER.describe()


def test_resolution_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    default = resolve_url(None)
    assert default.endswith("motodesk.sqlite3") and str(tmp_path / "data") in default
    config.save_choice(DatabaseChoice.local(tmp_path / "escolhido" / "m.sqlite3"))
    assert resolve_url(None) == f"sqlite:///{tmp_path / 'escolhido' / 'm.sqlite3'}"
    monkeypatch.setenv(ENV_URL, "sqlite:///ambiente.sqlite3")
    assert resolve_url(None) == "sqlite:///ambiente.sqlite3"
    assert resolve_url("sqlite:///opcao.sqlite3") == "sqlite:///opcao.sqlite3"
