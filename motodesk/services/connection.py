"""Opening a workstation's database: the GUI's one door to :mod:`motodesk.models`.

The UI imports no model (``tests/test_layers.py``): the start-up worker, the first-run wizard and
the database settings open, prepare and probe a database through these functions, each run off the
GUI thread (they connect, and a server can take seconds to answer).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from motodesk.models.db import Database
from motodesk.services.auth import count_users
from motodesk.services.context import AppContext
from motodesk.services.settings import ensure_defaults

if TYPE_CHECKING:
    from motodesk.config import DatabaseChoice


def open_context(url: str | None, *, demo_people: int = 0) -> AppContext:
    """Open and prepare the database at ``url`` (created when empty), with the default settings;
    with ``demo_people`` an empty register is seeded with that many demo people."""
    db = Database.open(url)
    try:
        db.prepare()
        ctx = AppContext(db)
        ensure_defaults(ctx)
    except BaseException:
        db.dispose()  # a refused database (outdated, too new, unreachable) leaves no connection open
        raise
    if demo_people and count_users(ctx) == 0:
        from motodesk.services.demo import seed_demo

        seed_demo(ctx, demo_people)
    return ctx


def describe_connection(choice: DatabaseChoice, password: str | None) -> str:
    """Connect and say in pt_BR what was found; raises DatabaseError with the reason when it fails."""
    db = Database.open(choice.url(password))
    try:
        db.check_connection()
        state = db.check_version()
        if db.is_sqlite:
            server = "SQLite"
        else:
            with db.engine.connect() as conn:
                server = "PostgreSQL " + str(conn.exec_driver_sql("SHOW server_version").scalar()).split()[0]
    finally:
        db.dispose()
    if state == "empty":
        return f"Conexão bem-sucedida ({server}). O banco está vazio: o MotoDesk vai prepará-lo ao avançar."
    if state == "current":
        return f"Conexão bem-sucedida ({server}). Banco do MotoDesk na versão atual."
    return (f"Conexão bem-sucedida ({server}), mas o banco é de uma versão anterior do MotoDesk: peça a um "
            "administrador que execute 'motodesk db-upgrade'.")


def configure_models() -> None:
    """Configure the ORM's mappers now (the start-up worker's warm-up), not in the first query."""
    from sqlalchemy.orm import configure_mappers

    configure_mappers()
