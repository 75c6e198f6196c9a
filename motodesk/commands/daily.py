"""`motodesk daily`: the calendar's own steps (lift ended suspensions, record ended terms) and, with
``--publish-status PASTA``, the badge verifier's signed status list refreshed after them."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from motodesk.commands import logs_in, open_context


def register(sub: Any, add_db_arg: Callable[[argparse.ArgumentParser], None]) -> None:
    p = sub.add_parser("daily", help="encerra suspensões vencidas e registra permissões com prazo encerrado")
    p.add_argument("--publish-status", metavar="PASTA", default=None,
                   help="depois, grava a lista de situação assinada dos crachás (PASTA/status.json) para a "
                        "página pública de verificação (veja motodesk publish-verifier)")
    logs_in(p, add_db_arg, cmd_daily)


def cmd_daily(args: argparse.Namespace) -> int:
    from motodesk.services.permits import run_calendar

    ctx = open_context(args)
    result = run_calendar(ctx)
    print(f"Suspensões encerradas: {len(result.reinstated)}" + (f" ({', '.join(result.reinstated)})" if result.reinstated else ""))
    print(f"Permissões com prazo encerrado: {len(result.expired)}" + (f" ({', '.join(result.expired)})" if result.expired else ""))
    from motodesk.services.audit import checkpoint_line, write_checkpoint
    from motodesk.services.errors import MotodeskError

    code = 0
    try:  # after the calendar's own writes: the day's trail sealed at its end
        print(checkpoint_line(write_checkpoint(ctx, "daily")))
    except MotodeskError as exc:
        import sys

        print(f"Ponto de controle da trilha de auditoria não gravado: {exc}", file=sys.stderr)
        code = 1
    if args.publish_status:  # after the calendar, so the list shows today's lifted suspensions
        from pathlib import Path

        from motodesk.commands.verifier import print_status
        from motodesk.services.badges import publish_status

        print_status(publish_status(ctx, Path(args.publish_status)))
    return code
