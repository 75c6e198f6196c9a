"""`motodesk audit-verify`: is the audit trail as it was written? (administrator)"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from motodesk.commands import add_login_args, open_context

EXIT_OK = 0
EXIT_BROKEN = 1


def register(sub: Any, add_db_arg: Callable[[argparse.ArgumentParser], None]) -> None:
    p = sub.add_parser("audit-verify", help="confere a cadeia de selos da trilha de auditoria e aponta o "
                                            "primeiro registro adulterado (administrador)")
    add_login_args(p)
    add_db_arg(p)
    p.set_defaults(handler=cmd_audit_verify)


def cmd_audit_verify(args: argparse.Namespace) -> int:
    from motodesk.services.audit import verify_audit_trail

    result = verify_audit_trail(open_context(args))
    print(result.message)
    return EXIT_OK if result.intact else EXIT_BROKEN
