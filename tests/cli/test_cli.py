"""The command line: admin work from a terminal, clear pt_BR errors, never a traceback."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from motodesk import __version__


def run(*args: str, stdin: str = "", env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, **(env or {})}
    full_env.pop("MOTODESK_DATABASE_URL", None)
    return subprocess.run([sys.executable, "-m", "motodesk", *args], input=stdin, capture_output=True,
                          text=True, timeout=120, env=full_env)


def test_version() -> None:
    out = run("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"MotoDesk {__version__}"


def test_init_db_create_user_and_seed(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    out = run("init-db", "--database", url)
    assert out.returncode == 0, out.stderr
    assert "Banco de dados pronto" in out.stdout
    out = run("create-user", "chefe", "--role", "admin", "--name", "Chefe do Setor", "--database", url,
              stdin="senha-do-chefe\n")  # the first user: no login yet, so an administrator
    assert out.returncode == 0, out.stderr
    assert "Primeiro usuário 'chefe'" in out.stdout
    out = run("create-user", "maria", "--role", "supervisor", "--name", "Maria Fonseca", "--database", url,
              "--user", "chefe", stdin="senha-do-chefe\nsenha-forte-123\n")
    assert out.returncode == 0, out.stderr
    assert "Supervisor" in out.stdout
    out = run("create-user", "maria", "--role", "clerk", "--database", url, "--user", "chefe",
              stdin="senha-do-chefe\nsenha-forte-123\n")
    assert out.returncode == 1 and "Já existe um usuário" in out.stderr
    out = run("seed-demo", "--people", "50", "--database", url, "--user", "chefe", stdin="senha-do-chefe\n")
    assert out.returncode == 0, out.stderr
    con = sqlite3.connect(tmp_path / "cli.sqlite3")
    assert con.execute("SELECT count(*) FROM people").fetchone()[0] == 50
    assert con.execute("SELECT count(*) FROM users WHERE login = 'maria' AND role = 'supervisor'").fetchone()[0] == 1
    out = run("db-upgrade", "--database", url)
    assert out.returncode == 0 and "já está na versão atual" in out.stdout


@pytest.mark.parametrize(
    "url,message",
    [
        ("mysql://x@y/z", "não suportado"),
        ("isto não é uma url", "inválido"),
        ("postgresql+psycopg://postgres@127.0.0.1:1/nada", "Não foi possível conectar ao servidor"),
        ("postgresql+psycopg://ninguem_aqui@127.0.0.1:5432/test", "banco de dados"),
        ("sqlite:////pasta/que/nao/existe/x.sqlite3", "pasta do banco de dados não existe"),
    ],
)
def test_bad_database_urls_get_a_clear_message(url: str, message: str) -> None:
    out = run("init-db", "--database", url)
    assert out.returncode == 1
    assert message in out.stderr
    assert "Traceback" not in out.stderr + out.stdout


def test_corrupt_sqlite_file_is_explained_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "corrupt.sqlite3"
    junk = b"isto nao e um banco sqlite" * 100
    path.write_bytes(junk)
    out = run("init-db", "--database", f"sqlite:///{path}")
    assert out.returncode == 1
    assert "corrompido" in out.stderr and "Traceback" not in out.stderr
    assert path.read_bytes() == junk


def test_read_only_sqlite_is_explained_and_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "ro.sqlite3"
    assert run("init-db", "--database", f"sqlite:///{path}").returncode == 0
    con = sqlite3.connect(path)
    con.execute("DELETE FROM settings")  # the next start would write the defaults back
    con.commit()
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    before = path.read_bytes()
    out = run("init-db", "--database", f"sqlite:///file:{path}?mode=ro&uri=true")
    assert out.returncode == 1
    assert "somente leitura" in out.stderr and "Traceback" not in out.stderr
    assert path.read_bytes() == before


def test_bad_role_and_short_password(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'r.sqlite3'}"
    assert run("init-db", "--database", url).returncode == 0
    out = run("create-user", "joao", "--role", "chefe", "--database", url, stdin="senha-forte-1\n")
    assert out.returncode == 2 and "erro" in out.stderr
    out = run("create-user", "joao", "--role", "admin", "--database", url, stdin="curta\n")
    assert out.returncode == 1 and "pelo menos 8 caracteres" in out.stderr
