"""Database and user administration: init-db, db-upgrade, create-user, seed-demo."""

from __future__ import annotations

import argparse
import getpass
import sys
from collections.abc import Callable
from typing import Any

from motodesk.commands import authenticated, login, logs_in, open_context, open_database, stdin_line
from motodesk.rules.text import format_int

EXIT_OK = 0


def register(sub: Any, add_db_arg: Callable[[argparse.ArgumentParser], None]) -> None:
    p = sub.add_parser("init-db", help="cria ou atualiza o banco de dados (no PostgreSQL, conectado como o "
                                       "dono do banco; com --login-role, cria o perfil de login das estações)")
    p.add_argument("--login-role", metavar="PERFIL", default=None,
                   help="PostgreSQL: perfil de login das estações (lê e grava os dados, nunca altera a trilha "
                        "de auditoria); a senha é pedida no terminal ou lida da entrada padrão")
    p.add_argument("--per-user-roles", action="store_true",
                   help="PostgreSQL: um perfil do servidor por usuário do MotoDesk (o servidor confere as "
                        "senhas; a trilha nomeia quem se conectou); --login-role passa a ser só o perfil de "
                        "entrada das estações. Cada usuário existente recebe uma senha provisória")
    add_db_arg(p)
    p.set_defaults(handler=cmd_init_db)
    p = sub.add_parser("db-upgrade", help="atualiza o banco de dados para esta versão (após cópia de segurança no SQLite)")
    add_db_arg(p)
    p.set_defaults(handler=cmd_db_upgrade)
    p = sub.add_parser(
        "create-user", help="cria um usuário (exige login de administrador, salvo o primeiro de um banco novo)",
        description="Cria um usuário. Em um banco sem usuários, cria o primeiro administrador sem login; "
                    "depois, só um administrador (--user) cria usuários. Pela entrada padrão: a primeira linha é "
                    "a senha de quem executa (--user), a seguinte a senha do novo usuário.")
    p.add_argument("login")
    p.add_argument("--role", required=True, choices=["clerk", "inspector", "supervisor", "admin"],
                   help="perfil: clerk (atendente), inspector (vistoriador/fiscal), supervisor, admin")
    p.add_argument("--name", default=None, help="nome completo")
    p.add_argument("--temporary", action="store_true",
                   help="senha provisória: o novo usuário escolhe outra no primeiro acesso")
    logs_in(p, add_db_arg, cmd_create_user)
    p = sub.add_parser(
        "change-password", help="troca a senha do próprio usuário (também a provisória, definida por um administrador)",
        description="Troca a senha de --user. Pela entrada padrão: a primeira linha é a senha atual, a seguinte "
                    "a nova senha.")
    logs_in(p, add_db_arg, cmd_change_password)
    p = sub.add_parser("seed-demo", help="preenche o banco com dados de demonstração (administrador)")
    p.add_argument("--people", type=int, default=300, help="quantas pessoas (padrão 300)")
    logs_in(p, add_db_arg, cmd_seed_demo)


def _new_password(args: argparse.Namespace, prompt: str = "Senha do novo usuário: ") -> str:
    """The new user's password: typed twice on a terminal, else the next line of standard input."""
    if getattr(args, "password_stdin", False) or not sys.stdin.isatty():
        return stdin_line()
    first = getpass.getpass(prompt)
    second = getpass.getpass("Repita a senha: ")
    if first != second:
        from motodesk.services.errors import InvalidInputError

        raise InvalidInputError("As senhas digitadas não conferem.")
    return first


def cmd_init_db(args: argparse.Namespace) -> int:
    ctx = open_context(args, allow_upgrade_shared=True, authenticate=False, must_exist=False)
    print(f"Banco de dados pronto (revisão {ctx.db.current_revision()}).")
    role = getattr(args, "login_role", None)
    if getattr(args, "per_user_roles", False):
        return _per_user_roles(ctx, role, args)
    if role:
        if ctx.db.is_sqlite:
            from motodesk.models.db import DatabaseError

            raise DatabaseError("--login-role só se aplica ao PostgreSQL: no SQLite o acesso é o do arquivo.")
        password = _new_password(args)
        owner = ctx.db.setup_login_role(role, password or None)
        print(f"Perfil de login das estações {role!r} pronto: lê e grava os dados, sem alterar a trilha de "
              f"auditoria; o dono {owner!r} executa as atualizações (motodesk db-upgrade).")
    elif not ctx.db.is_sqlite:
        print("Para as estações, crie o perfil de login: motodesk init-db --login-role motodesk_estacao "
              "--database … (conectado como o dono do banco).")
    return EXIT_OK


def _per_user_roles(ctx: Any, role: str | None, args: argparse.Namespace) -> int:
    from motodesk.models.db import DatabaseError

    if ctx.db.is_sqlite:
        raise DatabaseError("--per-user-roles só se aplica ao PostgreSQL: no SQLite quem tem o arquivo tem "
                            "todos os dados, e o login do MotoDesk continua sendo o do programa.")
    if not role:
        raise DatabaseError("Informe também --login-role PERFIL: o perfil de entrada das estações (o usuário "
                            "do servidor configurado nelas; um perfil de login compartilhado antigo serve).")
    password = _new_password(args, "Senha do perfil de entrada das estações: ")
    created = ctx.db.setup_per_user_roles(role, password or None)
    from motodesk.services.badge_keys import StationKeyError
    from motodesk.services.badges import public_key_pem, register_printing_station

    try:
        public_key_pem(ctx)
    except StationKeyError:  # the badges' key pair must exist before a clerk (who may not write settings) prints
        registered = register_printing_station(ctx)
        print(f"Chave de assinatura dos crachás criada; esta estação foi registrada para imprimir "
              f"({registered.where}). As outras estações de impressão: motodesk register-printer-station.")
    print(f"Perfis por usuário ativos: o servidor confere a senha de cada usuário; {role!r} é só o perfil "
          "de entrada das estações (não lê nem grava dados).")
    if created:
        print("Senhas provisórias (entregue cada uma ao seu usuário; ele escolhe outra ao entrar):")
        for login, temporary in created:
            print(f"  {login}: {temporary}")
    return EXIT_OK


def cmd_db_upgrade(args: argparse.Namespace) -> int:
    # No login (see motodesk.commands): the migrations change the schema, not the register's data.
    db = open_database(args)
    before = db.current_revision()
    result = db.prepare(allow_upgrade_shared=True)
    messages = {"current": "O banco de dados já está na versão atual",
                "created": "Banco de dados criado", "upgraded": "Banco de dados atualizado"}
    print(f"{messages[result]}: revisão {before or '(nenhuma)'} → {db.current_revision()}.")
    return EXIT_OK


def cmd_create_user(args: argparse.Namespace) -> int:
    from motodesk.rules.common import Role
    from motodesk.services.auth import count_users, create_first_admin, create_user
    from motodesk.services.errors import InvalidInputError

    ctx = open_context(args, authenticate=False)
    # A workstation's pre-login role (per-user roles) reads no users: there, an administrator logs in.
    # The first administrator is the exception: the owner's function creates him (and his role).
    through_gate = not ctx.db.is_sqlite and ctx.db.is_gate
    if count_users(ctx) == 0 and (not through_gate or not args.user):
        if args.role != Role.ADMIN.value:
            raise InvalidInputError("O banco ainda não tem usuários: o primeiro deve ser um administrador "
                                    "(--role admin), que depois cria os demais.", {"role": "Use admin."})
        user = create_first_admin(ctx, args.login, args.name or args.login, _new_password(args))
        print(f"Primeiro usuário {user.login!r} criado com perfil {user.role.label}.")
        return EXIT_OK
    acting = login(ctx, args)
    user = create_user(acting, args.login, args.name or args.login, args.role, _new_password(args),
                       temporary=args.temporary)
    temporary = " (senha provisória: será trocada no primeiro acesso)" if user.must_change_password else ""
    print(f"Usuário {user.login!r} criado com perfil {user.role.label}{temporary}.")
    return EXIT_OK


def cmd_change_password(args: argparse.Namespace) -> int:
    from motodesk.services.auth import change_own_password

    ctx = open_context(args, authenticate=False)
    user, current = authenticated(ctx, args, "Senha atual de {name}: ")  # a temporary one too, here only
    changed = change_own_password(ctx.as_user(user), current, _new_password(args, "Nova senha: "))
    print(f"Senha de {changed.login!r} trocada.")
    return EXIT_OK


def cmd_seed_demo(args: argparse.Namespace) -> int:
    from motodesk.services.demo import seed_demo

    if args.people < 0:
        raise SystemExit("motodesk: erro: --people deve ser zero ou mais")
    ctx = open_context(args)

    def progress(done: int, total: int) -> None:
        print(f"\r{format_int(done)}/{format_int(total)} pessoas", end="", file=sys.stderr, flush=True)

    counts = seed_demo(ctx, args.people, progress=progress)
    print(file=sys.stderr)
    print("Dados de demonstração gravados: " + ", ".join(f"{k}={v}" for k, v in counts.items()))
    return EXIT_OK
