"""Database errors every layer may raise or catch, importable without SQLAlchemy or Qt.

The window's start-up shows the login dialog before the database library has loaded (it loads on
a worker thread while the clerk types), so what it catches must not pull that library in.
`motodesk.models.db` re-exports these names.
"""

from __future__ import annotations

ENV_URL = "MOTODESK_DATABASE_URL"


class DatabaseError(Exception):
    """A database problem explained in pt_BR, safe to show to a clerk."""


class DatabaseTooNewError(DatabaseError):
    pass


class DatabaseOutdatedError(DatabaseError):
    pass
