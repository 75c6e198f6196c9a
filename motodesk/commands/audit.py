"""`motodesk audit-verify`: is the audit trail as it was written, and all of it? (administrator)"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from motodesk.commands import logs_in, open_context

EXIT_OK = 0
EXIT_BROKEN = 1


def register(sub: Any, add_db_arg: Callable[[argparse.ArgumentParser], None]) -> None:
    p = sub.add_parser("audit-verify", help="confere a cadeia de selos da trilha de auditoria e os pontos de "
                                            "controle assinados do seu fim; aponta cada registro adulterado "
                                            "ou que falta (administrador)")
    p.add_argument("--publicado", metavar="ARQUIVO", default=None,
                   help="confere também a cópia publicada do ponto de controle (audit-checkpoint.json, ou a "
                        "pasta do verificador que o contém)")
    logs_in(p, add_db_arg, cmd_audit_verify)


def cmd_audit_verify(args: argparse.Namespace) -> int:
    from motodesk.services.audit import verify_audit_trail

    published = Path(args.publicado) if args.publicado else None
    result = verify_audit_trail(open_context(args), published=published)
    print(result.message)
    return EXIT_OK if result.intact else EXIT_BROKEN
