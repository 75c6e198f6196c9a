"""PostgreSQL: the author of every audit and access-log row is the login the server authenticated.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-01

No table changes. Re-installs the triggers of :func:`motodesk.models.audit.install_guards` with the
functions of :mod:`motodesk.models.roles`: ``motodesk_actor()`` takes the author from
``session_user`` when the session is a MotoDesk user's own role (``set_config('motodesk.user', …)``
and ``motodesk.redact`` can no longer make a session lie), a BEFORE INSERT trigger on ``access_log``
overwrites the author the same way, and the owner's SECURITY DEFINER functions count failed logins
(locking the role at the limit), clear the counter and the temporary password, and let
administrators manage users' roles. A database without per-user roles behaves as before until
``motodesk init-db --per-user-roles`` turns them on. SQLite: nothing to do.
"""

from __future__ import annotations

from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    from motodesk.models.audit import install_guards

    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        install_guards(bind)


def downgrade() -> None:
    # The older trigger functions are not kept apart: the current ones stay (they name the same
    # author as before on a database without per-user roles). Only the access log's trigger goes.
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS access_log_author ON access_log")
