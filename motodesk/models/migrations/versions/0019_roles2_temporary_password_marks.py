"""PostgreSQL: a temporary password is cleared only by a new password, proved by the server.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-02

``role_password_marks`` keeps, per user, the SHA-256 digest of the SCRAM verifier an administrator
set (a reset or a new user's temporary password): ``motodesk_sync_role`` writes it, and
``motodesk_own_password_changed()`` clears "must change password" only when the role's verifier
now differs from it. ``motodesk_change_own_password(verifier)`` sets the new password and clears
the flag in one step (the application's way: it works for an owner that cannot read
``pg_authid``), and a trigger on ``users`` refuses a user clearing his own flag by writing the row.
No profile reads or writes the marks, and backups leave them out (roles are the server's). SQLite: nothing
(one workstation, no server roles).
"""

from __future__ import annotations

from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    from motodesk.models.audit import install_guards

    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    op.execute("CREATE TABLE role_password_marks (login varchar(64) PRIMARY KEY, "
               "verifier_sha256 varchar(64) NOT NULL, set_at timestamp without time zone NOT NULL)")
    op.execute("REVOKE ALL ON role_password_marks FROM PUBLIC")
    install_guards(bind)


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    op.execute("DROP TRIGGER IF EXISTS users_temporary_password ON users")
    op.execute("DROP TABLE IF EXISTS role_password_marks")
