"""`motodesk`: with no command, the window; with a command, the same services from a terminal."""

from __future__ import annotations

import argparse
import importlib
import logging
import pkgutil
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import NoReturn

from motodesk import __version__

log = logging.getLogger("motodesk")

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_UNEXPECTED = 3


_ARGPARSE_WORDS = (
    ("the following arguments are required", "faltam argumentos obrigatórios"),
    ("unrecognized arguments", "argumentos não reconhecidos"),
    ("invalid choice", "opção inválida"),
    ("choose from", "escolha entre"),
    ("expected one argument", "falta o valor"),
    ("invalid int value", "número inteiro inválido"),
    ("argument ", "argumento "),
)


class PortugueseArgumentParser(argparse.ArgumentParser):
    """argparse with its own words in pt_BR (Python ships no translation for them)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("add_help", False)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._positionals.title = "argumentos"
        self._optionals.title = "opções"
        self.add_argument("-h", "--help", action="help", help="mostra esta ajuda e sai")

    def format_usage(self) -> str:
        return super().format_usage().replace("usage:", "uso:", 1)

    def format_help(self) -> str:
        return super().format_help().replace("usage:", "uso:", 1)

    def error(self, message: str) -> NoReturn:
        for english, portuguese in _ARGPARSE_WORDS:
            message = message.replace(english, portuguese)
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"motodesk: erro: {message}\n")


def _db_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--database", metavar="URL", default=argparse.SUPPRESS,
                   help="sqlite:///ARQUIVO ou postgresql+psycopg://usuário@servidor/banco "
                        "(padrão: MOTODESK_DATABASE_URL ou o arquivo local)")


def build_parser(*, with_commands: bool = True) -> argparse.ArgumentParser:
    """The whole parser; without commands, only the window's options (no command module imported)."""
    parser = PortugueseArgumentParser(
        prog="motodesk",
        description="MotoDesk – permissões de mototáxi, motoboy e moto-frete (Lei nº 4.883/2017, Patrocínio-MG).",
    )
    parser.add_argument("--version", action="version", version=f"MotoDesk {__version__}",
                        help="mostra a versão e sai")
    _db_arg(parser)
    parser.add_argument("--demo", action="store_true", help="abre um banco de demonstração (criado se faltar)")
    parser.add_argument("--self-test", action="store_true", help="verifica esta instalação e sai")
    if not with_commands:
        parser.set_defaults(command=None)
        return parser
    sub = parser.add_subparsers(dest="command", metavar="COMANDO", parser_class=PortugueseArgumentParser)

    for module in command_modules():
        module.register(sub, _db_arg)
    return parser


def command_modules() -> list[ModuleType]:
    """Every module of motodesk.commands; each has `register(subparsers, add_db_arg)`."""
    import motodesk.commands as package

    return [importlib.import_module(f"{package.__name__}.{info.name}")
            for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name)]


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    """Opening the window must not wait for every command's imports (the export kinds load the
    models): arguments that name no command are read by the window's own small parser."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not any(a in ("-h", "--help") for a in argv):
        args, rest = build_parser(with_commands=False).parse_known_args(argv)
        if not rest:
            return args
    return build_parser().parse_args(argv)


def _database_message(exc: BaseException, args: argparse.Namespace) -> str | None:
    """pt_BR for a database driver's error (SQLAlchemy, sqlite3, psycopg), None for anything else."""
    import sqlite3

    kinds: list[type[BaseException]] = [sqlite3.Error]
    sa_exc = sys.modules.get("sqlalchemy.exc")
    if sa_exc is not None:
        kinds.append(sa_exc.DBAPIError)
    psycopg = sys.modules.get("psycopg")
    if psycopg is not None:
        kinds.append(psycopg.Error)
    if not isinstance(exc, tuple(kinds)):
        return None
    from motodesk.models.db import explain_error, parse_url, resolve_url

    try:
        url = parse_url(resolve_url(getattr(args, "database", None)))
    except Exception:  # noqa: BLE001 - the message only loses the server's name
        url = None
    return explain_error(exc, url)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse(argv)
    from motodesk.logs import setup_logging

    setup_logging()
    if args.self_test:
        from motodesk.commands.selftest import run_self_test

        return run_self_test()
    if args.command is None:
        from motodesk.ui.app import run_gui

        return run_gui(database=getattr(args, "database", None), demo=args.demo)
    from motodesk.models.db import DatabaseError
    from motodesk.services.errors import MotodeskError

    try:
        return int(args.handler(args))
    except (MotodeskError, DatabaseError) as exc:
        print(f"motodesk: erro: {exc}", file=sys.stderr)
        fields = getattr(exc, "fields", None)
        for key, reason in (fields or {}).items():
            print(f"  {key}: {reason}", file=sys.stderr)
        from motodesk.services.error_codes import code_of

        rules = ", ".join(dict.fromkeys(v.rule_id for v in getattr(exc, "verdicts", ())))
        print(f"  código: {code_of(exc)}" + (f" (regras: {rules})" if rules else ""), file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("\nmotodesk: interrompido.", file=sys.stderr)
        return EXIT_ERROR
    except Exception as exc:
        explained = _database_message(exc, args)
        if explained is not None:  # a driver error no service wrapped: pt_BR, the original in the log
            log.warning("database error in command %s", args.command, exc_info=True)
            print(f"motodesk: erro: {explained}", file=sys.stderr)
            return EXIT_ERROR
        log.exception("unexpected error in command %s", args.command)
        from motodesk.logs import log_path

        print(f"motodesk: erro inesperado; detalhes no registro {log_path()}", file=sys.stderr)
        return EXIT_UNEXPECTED
