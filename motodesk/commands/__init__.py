"""Subcommands of `motodesk`: each module registers its own with `register(subparsers, add_db_arg)`.

Handlers take the parsed arguments and return the exit code; they raise MotodeskError or
DatabaseError for expected failures, which `motodesk.cli.main` prints in pt_BR.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # `motodesk` with no command opens the window: parsing must not load SQLAlchemy
    from motodesk.services.context import AppContext


def open_context(args: argparse.Namespace, *, allow_upgrade_shared: bool = False) -> AppContext:
    """The database named by --database (or the default), prepared, with default settings."""
    from motodesk.models.db import Database
    from motodesk.services.context import AppContext
    from motodesk.services.settings import ensure_defaults

    db = Database.open(getattr(args, "database", None))
    db.prepare(allow_upgrade_shared=allow_upgrade_shared)
    ctx = AppContext(db)
    ensure_defaults(ctx)
    return ctx
