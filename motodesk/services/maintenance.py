"""Database upkeep a service runs after writing many rows: fresh planner statistics.

After ``seed-demo`` or an import of thousands of people, the planners still believe the tables are
as small as they were (SQLite keeps no statistics until ``ANALYZE``; PostgreSQL's autovacuum gets
to a table some time later): PostgreSQL then walks a million names for a rare plate, and a fresh
register's slowest keystrokes take over 50 ms until it does. :func:`analyze` brings the statistics
up to date at once.
"""

from __future__ import annotations

from sqlalchemy import text

from motodesk.rules.common import Role
from motodesk.services.context import AppContext, requires

#: SQLite reads at most this many index rows per index (``PRAGMA analysis_limit``): a second at a
#: million people instead of a full scan of every index, for estimates as good for the planner.
SQLITE_ANALYSIS_LIMIT = 4000


@requires(Role.CLERK, Role.SUPERVISOR, Role.ADMIN)
def analyze(ctx: AppContext) -> None:
    """Refresh the query planner's statistics of the whole database (``ANALYZE``), on both databases.

    No data changes and nothing is audited; safe to run at any time (PostgreSQL's ANALYZE takes
    only a lock that lets reads and writes go on; SQLite's takes the write lock for about a second
    at a million people).
    """
    with ctx.write() as s:
        if s.get_bind().dialect.name == "sqlite":
            s.execute(text(f"PRAGMA analysis_limit = {SQLITE_ANALYSIS_LIMIT}"))
            s.execute(text("ANALYZE"))
        else:
            s.execute(text("ANALYZE"))
