"""`motodesk daily`: the calendar's own steps (lift ended suspensions, record ended terms)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from motodesk.commands import add_login_args, open_context


def register(sub: Any, add_db_arg: Callable[[argparse.ArgumentParser], None]) -> None:
    p = sub.add_parser("daily", help="encerra suspensões vencidas e registra permissões com prazo encerrado")
    add_login_args(p)
    add_db_arg(p)
    p.set_defaults(handler=cmd_daily)


def cmd_daily(args: argparse.Namespace) -> int:
    from motodesk.services.permits import run_calendar

    result = run_calendar(open_context(args))
    print(f"Suspensões encerradas: {len(result.reinstated)}" + (f" ({', '.join(result.reinstated)})" if result.reinstated else ""))
    print(f"Permissões com prazo encerrado: {len(result.expired)}" + (f" ({', '.join(result.expired)})" if result.expired else ""))
    return 0
