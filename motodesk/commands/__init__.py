"""Subcommands of `motodesk`: each module registers its own with `register(subparsers, add_db_arg)`.

Handlers take the parsed arguments and return the exit code; they raise MotodeskError or
DatabaseError for expected failures, which `motodesk.cli.main` prints in pt_BR.

**Who acts.**  Every command that reads personal data or changes anything logs in as a MotoDesk
user: ``--user LOGIN`` and the password, asked for on the terminal (getpass) or read as the first
line of standard input (``--password-stdin``, or whenever standard input is not a terminal). The
login is the window's own (:func:`motodesk.services.auth.authenticate`): wrong passwords count
towards the lockout, and the audit trail names that user. There is no default user and no
"terminal acting as the management". The exceptions, each with its reason:

- ``init-db``: builds or upgrades the schema and writes the default settings; no personal data.
- ``db-upgrade``: runs the shipped migrations only, which change the schema, never the register's
  data; it needs the database's own credentials (the PostgreSQL owner, the SQLite file's owner),
  who could change the schema without MotoDesk anyway.
- ``create-user`` on a database without any user: the first administrator (``--role admin``).
- ``restore``: its target must be empty (no users to log in as, nothing to lose); whoever holds
  the backup file holds its data already.
- ``template``, ``self-test`` and ``verify-badge --public-key`` (offline): no database is read.

**Which database.**  Every command but ``init-db`` (and ``restore``, whose target is new) refuses a
database that does not exist — a missing SQLite file, an empty file, a PostgreSQL database without
MotoDesk's tables — instead of creating an empty one: a mistyped path must not yield an empty
export with exit code 0.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from collections.abc import Callable
from datetime import date
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # `motodesk` with no command opens the window: parsing must not load SQLAlchemy
    from motodesk.models.db import Database
    from motodesk.services.context import AppContext, CurrentUser


def add_login_args(p: argparse.ArgumentParser) -> None:
    """`--user LOGIN` and `--password-stdin` of a command that logs in."""
    p.add_argument("--user", metavar="LOGIN", default=None,
                   help="usuário do MotoDesk que executa o comando (obrigatório; a senha é pedida no terminal)")
    p.add_argument("--password-stdin", action="store_true",
                   help="lê a senha da primeira linha da entrada padrão (também quando ela não é um terminal)")


def logs_in(p: argparse.ArgumentParser, add_db_arg: Callable[[argparse.ArgumentParser], None],
            handler: Callable[[argparse.Namespace], int]) -> argparse.ArgumentParser:
    """A command's parser finished the way every command that logs in ends: ``--user``,
    ``--password-stdin`` and ``--database`` after its own arguments, and the handler that runs it."""
    add_login_args(p)
    add_db_arg(p)
    p.set_defaults(handler=handler)
    return p


def day_arg(text: str) -> date:
    """``type=`` of an argument that takes a day: dd/mm/aaaa (or aaaa-mm-dd); argparse refuses any other
    text in pt_BR (exit code 2)."""
    from motodesk.rules.text import parse_day

    try:
        return parse_day(text, iso=True)
    except ValueError:
        raise argparse.ArgumentTypeError(f"data inválida: {text!r} (use dd/mm/aaaa)") from None


def stdin_line() -> str:
    """One line of standard input, read from the byte stream (so what follows stays readable there)."""
    return sys.stdin.buffer.readline().decode("utf-8", errors="replace").rstrip("\r\n")


def read_password(args: argparse.Namespace, prompt: str) -> str:
    """The password from the terminal, or the first line of standard input."""
    from motodesk.services.errors import AuthenticationError

    if getattr(args, "password_stdin", False) or not sys.stdin.isatty():
        line = sys.stdin.buffer.readline()
        if not line:
            raise AuthenticationError("Senha não informada: a entrada padrão terminou antes da senha.")
        return line.decode("utf-8", errors="replace").rstrip("\r\n")
    return getpass.getpass(prompt)


def require_existing(db: Database) -> None:
    """Refuse a database that does not exist, in pt_BR, before anything can create it."""
    from motodesk.models.db import DatabaseError

    create = "Confira o endereço (--database) ou crie o banco com 'motodesk init-db'."
    path = db.sqlite_path
    if path is not None and not db.url.query.get("uri") and not path.is_file():
        raise DatabaseError(f"O banco de dados {path} não existe. {create}")
    empty_file = f"O banco de dados {path} não tem as tabelas do MotoDesk (banco vazio). {create}"
    if path is not None and path.is_file() and path.stat().st_size == 0:
        raise DatabaseError(empty_file)  # before SQLite writes a header into it
    try:
        empty = db.is_empty()
    except Exception as exc:  # noqa: BLE001 - the driver's error, explained in pt_BR
        from sqlalchemy.exc import DBAPIError

        from motodesk.models.db import explain_error

        if isinstance(exc, DBAPIError):
            raise DatabaseError(explain_error(exc, db.url)) from exc
        raise
    if empty:
        where = str(path) if path is not None else f"{db.url.host or 'localhost'}/{db.url.database}"
        raise DatabaseError(f"O banco de dados {where} não tem as tabelas do MotoDesk (banco vazio). {create}")


def open_database(args: argparse.Namespace, *, must_exist: bool = True) -> Database:
    """The database named by --database (or the default), refused if it does not exist."""
    from motodesk.models.db import Database

    db = Database.open(getattr(args, "database", None))
    if must_exist:
        try:
            require_existing(db)
        except Exception:
            db.dispose()
            raise
    return db


def authenticated(ctx: AppContext, args: argparse.Namespace,
                  prompt: str = "Senha de {name}: ") -> tuple[CurrentUser, str]:
    """The user named by --user and the password that checked (lockout applies); a temporary
    password is accepted here — :func:`login` refuses it."""
    from motodesk.services.auth import authenticate
    from motodesk.services.errors import AuthenticationError

    name = getattr(args, "user", None)
    if not name:
        raise AuthenticationError("Informe o usuário do MotoDesk com --user LOGIN: este comando exige login.")
    password = read_password(args, prompt.format(name=name))
    return authenticate(ctx, name, password), password


def login(ctx: AppContext, args: argparse.Namespace) -> AppContext:
    """The context of the user named by --user, once the password checks (lockout applies)."""
    from motodesk.services.errors import AuthenticationError

    user, _password = authenticated(ctx, args)
    if user.must_change_password:  # the administrator knows it: nothing runs on it but the change
        from motodesk.services.auth import TEMPORARY_PASSWORD

        raise AuthenticationError(TEMPORARY_PASSWORD.format(login=user.login))
    return ctx.as_user(user)


def open_context(args: argparse.Namespace, *, allow_upgrade_shared: bool = False, authenticate: bool = True,
                 must_exist: bool = True) -> AppContext:
    """The database named by --database, prepared, with default settings, logged in as --user."""
    from motodesk.services.context import AppContext
    from motodesk.services.settings import ensure_defaults

    db = open_database(args, must_exist=must_exist)
    db.prepare(allow_upgrade_shared=allow_upgrade_shared)
    ctx = AppContext(db)
    ensure_defaults(ctx)
    return login(ctx, args) if authenticate else ctx
