"""LGPD from a terminal: `motodesk access-log [--person CPF] [--since dd/mm/aaaa] [--out FILE.xlsx]` and
`motodesk anonymise --older-than-setting [--dry-run]`.

Both are an administrator's: ``--user LOGIN`` names a registered administrator; without it the
terminal acts as the secretariat's administration (whoever runs the command holds the database's
credentials already) and the audit trail records the login ``terminal``, as `motodesk export` does.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from motodesk.commands import logs_in, open_context

EXIT_OK = 0


def register(sub: Any, add_db_arg: Callable[[argparse.ArgumentParser], None]) -> None:
    p = sub.add_parser("access-log", help="lista ou exporta o registro de acessos a dados sensíveis (LGPD)",
                       description="Lista quem leu certidões criminais, atestados médicos, suas digitalizações "
                                   "e dossiês completos, quando e de qual estação (LGPD). Só administradores.")
    p.add_argument("--person", metavar="CPF", default=None, help="só os acessos aos dados desta pessoa")
    p.add_argument("--since", metavar="dd/mm/aaaa", default=None, help="só os acessos a partir deste dia")
    p.add_argument("--out", metavar="ARQUIVO.xlsx", default=None, help="grava o registro numa planilha")
    logs_in(p, add_db_arg, cmd_access_log)

    p = sub.add_parser("anonymise", help="anonimiza pessoas sem permissão, requerimento ou processo há N anos (LGPD)",
                       description="Anonimiza as pessoas sem nenhuma permissão, requerimento ou processo de "
                                   "infração nos últimos N anos (configuração 'retention_years', LGPD art. 16): "
                                   "nome, CPF, documentos, endereço e telefones substituídos, fotos e "
                                   "digitalizações apagadas. Só administradores.")
    p.add_argument("--older-than-setting", action="store_true", required=True,
                   help="usa o prazo de retenção da configuração (obrigatório: confirma o critério)")
    p.add_argument("--dry-run", action="store_true", help="só mostra quem seria anonimizado; não grava nada")
    logs_in(p, add_db_arg, cmd_anonymise)


def cmd_access_log(args: argparse.Namespace) -> int:
    from motodesk.services.access_log import export_access_log, list_access, parse_day
    from motodesk.services.clock import LOCAL_TZ

    since = parse_day(args.since) if args.since else None
    ctx = open_context(args)
    if args.out:
        count = export_access_log(ctx, Path(args.out), person_cpf=args.person, since=since)
        print(f"Registro de acessos gravado: {args.out} ({count} acesso{'s' if count != 1 else ''}).")
        return EXIT_OK
    entries = list_access(ctx, person_cpf=args.person, since=since)
    for e in entries:
        when = e.at.astimezone(LOCAL_TZ).strftime("%d/%m/%Y %H:%M:%S")
        who = f"{e.person_name} (pessoa {e.person_id})" if e.person_name else f"pessoa {e.person_id}"
        print(f"{when}  {e.user_login}  {who}  {e.kind_label}  {e.screen}  {e.workstation or '-'}")
    print(f"{len(entries)} acesso{'s' if len(entries) != 1 else ''}.")
    return EXIT_OK


def cmd_anonymise(args: argparse.Namespace) -> int:
    from motodesk.services.retention import anonymise_inactive, render_retention_report

    ctx = open_context(args)
    report = anonymise_inactive(ctx, dry_run=args.dry_run)
    print(render_retention_report(report))
    return EXIT_OK
