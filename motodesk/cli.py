"""`motodesk`: with no command, the window; with a command, the same services from a terminal."""

from __future__ import annotations

import argparse
import getpass
import logging
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from motodesk import __version__

log = logging.getLogger("motodesk")

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_UNEXPECTED = 3


class PortugueseArgumentParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"motodesk: erro: {message}\n")


def _db_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--database", metavar="URL", default=argparse.SUPPRESS,
                   help="sqlite:///ARQUIVO ou postgresql+psycopg://usuário@servidor/banco "
                        "(padrão: MOTODESK_DATABASE_URL ou o arquivo local)")


def build_parser() -> argparse.ArgumentParser:
    parser = PortugueseArgumentParser(
        prog="motodesk",
        description="MotoDesk – permissões de mototáxi, motoboy e moto-frete (Lei nº 4.883/2017, Patrocínio-MG).",
    )
    parser.add_argument("--version", action="version", version=f"MotoDesk {__version__}")
    _db_arg(parser)
    parser.add_argument("--demo", action="store_true", help="abre um banco de demonstração (criado se faltar)")
    sub = parser.add_subparsers(dest="command", metavar="COMANDO", parser_class=PortugueseArgumentParser)

    p = sub.add_parser("init-db", help="cria ou atualiza o banco de dados")
    _db_arg(p)
    p = sub.add_parser("db-upgrade", help="atualiza o banco de dados para esta versão (após cópia de segurança no SQLite)")
    _db_arg(p)
    p = sub.add_parser("create-user", help="cria um usuário (senha pedida no terminal ou lida da entrada padrão)")
    p.add_argument("login")
    p.add_argument("--role", required=True, choices=["clerk", "inspector", "supervisor", "admin"],
                   help="perfil: clerk (atendente), inspector (vistoriador/fiscal), supervisor, admin")
    p.add_argument("--name", default=None, help="nome completo")
    _db_arg(p)
    p = sub.add_parser("seed-demo", help="preenche o banco com dados de demonstração")
    p.add_argument("--people", type=int, default=300, help="quantas pessoas (padrão 300)")
    _db_arg(p)
    return parser


def _password_from_user() -> str:
    if sys.stdin.isatty():
        first = getpass.getpass("Senha: ")
        second = getpass.getpass("Repita a senha: ")
        if first != second:
            from motodesk.services.errors import InvalidInputError

            raise InvalidInputError("As senhas digitadas não conferem.")
        return first
    return sys.stdin.readline().rstrip("\r\n")


def _open(args: argparse.Namespace, *, prepare: bool = True, allow_upgrade_shared: bool = False):  # noqa: ANN202
    from motodesk.models.db import Database
    from motodesk.services.context import AppContext
    from motodesk.services.settings import ensure_defaults

    db = Database.open(getattr(args, "database", None))
    if prepare:
        db.prepare(allow_upgrade_shared=allow_upgrade_shared)
        ensure_defaults(AppContext(db))
    return AppContext(db)


def cmd_init_db(args: argparse.Namespace) -> int:
    ctx = _open(args, allow_upgrade_shared=True)
    print(f"Banco de dados pronto (revisão {ctx.db.current_revision()}).")
    return EXIT_OK


def cmd_db_upgrade(args: argparse.Namespace) -> int:
    from motodesk.models.db import Database

    db = Database.open(getattr(args, "database", None))
    before = db.current_revision()
    result = db.prepare(allow_upgrade_shared=True)
    messages = {"current": "O banco de dados já está na versão atual",
                "created": "Banco de dados criado", "upgraded": "Banco de dados atualizado"}
    print(f"{messages[result]}: revisão {before or '(nenhuma)'} → {db.current_revision()}.")
    return EXIT_OK


def cmd_create_user(args: argparse.Namespace) -> int:
    from motodesk.services.auth import create_user

    ctx = _open(args)
    password = _password_from_user()
    user = create_user(ctx, args.login, args.name or args.login, args.role, password)
    print(f"Usuário {user.login!r} criado com perfil {user.role.label}.")
    return EXIT_OK


def cmd_seed_demo(args: argparse.Namespace) -> int:
    from motodesk.services.demo import seed_demo

    if args.people < 0:
        raise SystemExit("motodesk: erro: --people deve ser zero ou mais")
    ctx = _open(args)

    def progress(done: int, total: int) -> None:
        print(f"\r{done:,}/{total:,} pessoas".replace(",", "."), end="", file=sys.stderr, flush=True)

    counts = seed_demo(ctx, args.people, progress=progress)
    print(file=sys.stderr)
    print("Dados de demonstração gravados: " + ", ".join(f"{k}={v}" for k, v in counts.items()))
    return EXIT_OK


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "init-db": cmd_init_db,
    "db-upgrade": cmd_db_upgrade,
    "create-user": cmd_create_user,
    "seed-demo": cmd_seed_demo,
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from motodesk.logs import setup_logging

    setup_logging()
    if args.command is None:
        from motodesk.ui.app import run_gui

        return run_gui(database=getattr(args, "database", None), demo=args.demo)
    from motodesk.models.db import DatabaseError
    from motodesk.services.errors import MotodeskError

    try:
        return COMMANDS[args.command](args)
    except (MotodeskError, DatabaseError) as exc:
        print(f"motodesk: erro: {exc}", file=sys.stderr)
        fields = getattr(exc, "fields", None)
        for key, reason in (fields or {}).items():
            print(f"  {key}: {reason}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("\nmotodesk: interrompido.", file=sys.stderr)
        return EXIT_ERROR
    except Exception:
        log.exception("unexpected error in command %s", args.command)
        from motodesk.logs import log_path

        print(f"motodesk: erro inesperado; detalhes no registro {log_path()}", file=sys.stderr)
        return EXIT_UNEXPECTED
