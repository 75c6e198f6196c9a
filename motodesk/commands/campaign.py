"""The yearly re-registration campaign from a terminal (Art. 4º, § 1º; Art. 30, Grupo 1, I–II).

``motodesk campaign open --from 04/01/2027 --to 26/02/2027`` (a supervisor) calls everyone whose
certificates fall due; ``letters --out CARTAS.pdf`` and ``schedule --out AGENDA.xlsx`` print and export;
``attend CPF --compareceu|--faltou`` marks the counter; ``list [--day DD/MM/AAAA]`` shows the schedule;
``close`` (a supervisor) ends the campaign and lists who did not come, each with the infraction their
absence supports. The same services as the Recadastramento page; ``--user`` logs in as always.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from motodesk.commands import day_arg, logs_in, open_context

EXIT_OK = 0
EXIT_ERROR = 1


def register(sub: Any, add_db_arg: Callable[[argparse.ArgumentParser], None]) -> None:
    p = sub.add_parser("campaign", help="recadastramento anual: abrir, cartas, agenda, comparecimento, encerrar",
                       description="Recadastramento anual (Art. 4º, § 1º; Art. 30, Grupo 1, I e II).")
    actions = p.add_subparsers(dest="action", metavar="AÇÃO", required=True, parser_class=type(p))

    def action(name: str, help_text: str, handler: Callable[[argparse.Namespace], int]) -> argparse.ArgumentParser:
        return logs_in(actions.add_parser(name, help=help_text, description=help_text), add_db_arg, handler)

    a = action("open", "abre o recadastramento de um período e agenda todos os convocados (supervisor)", cmd_open)
    a.add_argument("--from", dest="start", metavar="DD/MM/AAAA", type=day_arg, required=True, help="primeiro dia")
    a.add_argument("--to", dest="end", metavar="DD/MM/AAAA", type=day_arg, required=True, help="último dia")

    a = action("letters", "grava as cartas de convocação (PDF) dos atendimentos pendentes", cmd_letters)
    a.add_argument("--out", metavar="ARQUIVO.pdf", required=True)
    a.add_argument("--campaign", metavar="Nº", type=int, default=None, help="o recadastramento (padrão: o atual)")

    a = action("schedule", "grava a agenda do balcão (xlsx)", cmd_schedule)
    a.add_argument("--out", metavar="ARQUIVO.xlsx", required=True)
    a.add_argument("--campaign", metavar="Nº", type=int, default=None, help="o recadastramento (padrão: o atual)")

    a = action("list", "mostra a agenda (de um dia, com --day)", cmd_list)
    a.add_argument("--day", metavar="DD/MM/AAAA", type=day_arg, default=None)

    a = action("attend", "marca o comparecimento ou a falta de uma pessoa convocada", cmd_attend)
    a.add_argument("cpf", metavar="CPF", help="CPF da pessoa (só números ou com pontos)")
    mark = a.add_mutually_exclusive_group(required=True)
    mark.add_argument("--compareceu", dest="attended", action="store_true", help="compareceu")
    mark.add_argument("--faltou", dest="attended", action="store_false", help="faltou")
    a.add_argument("--reason", metavar="TEXTO", default="", help="observação (opcional)")

    action("close", "encerra o recadastramento e lista quem faltou, com a infração (supervisor)", cmd_close)


def _campaign_id(ctx: Any, wanted: int | None) -> int:
    from motodesk.services import campaigns
    from motodesk.services.errors import NotFoundError

    if wanted is not None:
        return wanted
    current = campaigns.current_campaign(ctx)
    if current is None:
        raise NotFoundError("Nenhum recadastramento foi aberto ainda ('motodesk campaign open').")
    return current.id


def cmd_open(args: argparse.Namespace) -> int:
    from motodesk.services import campaigns

    ctx = open_context(args)
    opened = campaigns.open_campaign(ctx, args.start, args.end)
    print(f"{opened.campaign.label}: {opened.appointments} pessoa(s) convocada(s), de "
          f"{opened.first_slot:%d/%m/%Y %H:%M} a {opened.last_slot:%d/%m/%Y %H:%M}.")
    return EXIT_OK


def cmd_letters(args: argparse.Namespace) -> int:
    from motodesk.services import campaigns

    ctx = open_context(args)
    pdf = campaigns.call_letters(ctx, _campaign_id(ctx, args.campaign))
    Path(args.out).write_bytes(pdf)
    print(f"Cartas de convocação gravadas em {args.out}.")
    return EXIT_OK


def cmd_schedule(args: argparse.Namespace) -> int:
    from motodesk.services import campaigns

    ctx = open_context(args)
    n = campaigns.export_schedule(ctx, _campaign_id(ctx, args.campaign), args.out)
    print(f"Agenda gravada em {args.out}: {n} atendimento(s).")
    return EXIT_OK


def cmd_list(args: argparse.Namespace) -> int:
    from motodesk.services import campaigns

    ctx = open_context(args)
    rows = campaigns.list_appointments(ctx, _campaign_id(ctx, None), day=args.day)
    for r in rows:
        print(f"{r.slot:%d/%m/%Y %H:%M}  {r.state.label:<11} {r.name} ({r.role.label.lower()}, {r.permit_number}) "
              f"– {r.due_text}")
    print(f"{len(rows)} atendimento(s).")
    return EXIT_OK


def cmd_attend(args: argparse.Namespace) -> int:
    from motodesk.services import campaigns
    from motodesk.services.errors import InvalidInputError

    ctx = open_context(args)
    digits = "".join(c for c in args.cpf if c.isdigit())
    if len(digits) != 11:
        raise InvalidInputError("Informe o CPF completo (11 dígitos).")
    rows = [r for r in campaigns.list_appointments(ctx, _campaign_id(ctx, None), text=digits) if r.cpf == digits]
    if not rows:
        raise InvalidInputError("Esta pessoa não foi convocada neste recadastramento.")
    row = next((r for r in rows if r.state.pending), rows[0])
    marked = campaigns.mark_attendance(ctx, row.id, args.attended, version=row.version, reason=args.reason)
    print(f"{marked.name}: {marked.state.label.lower()} ({marked.slot:%d/%m/%Y %H:%M}).")
    return EXIT_OK


def cmd_close(args: argparse.Namespace) -> int:
    from motodesk.services import campaigns

    ctx = open_context(args)
    closed = campaigns.close_campaign(ctx, _campaign_id(ctx, None))
    print(f"{closed.campaign.label}. Marcadas como falta no encerramento: {closed.marked_absent}.")
    print(f"Não compareceram: {len(closed.absent)}.")
    for row in closed.absent:
        a = row.appointment
        print(f"- {a.name} ({a.role.label.lower()}, {a.permit_number}, CPF {a.masked_cpf}): {row.infraction_text}")
    return EXIT_OK
