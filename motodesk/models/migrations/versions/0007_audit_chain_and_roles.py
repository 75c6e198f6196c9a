"""The audit trail sealed into a hash chain, written by triggers on PostgreSQL, append-only tables guarded.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01

* ``audit_events.prev_hash`` / ``row_hash``: every row is chained to the one before it (rows already
  there are sealed now, in id order), so ``motodesk audit-verify`` finds an edited, deleted,
  inserted or reordered row.
* PostgreSQL: a deferred row trigger on every business table writes the trail (plain SQL by the
  workstations' login role included), a BEFORE INSERT trigger on the trail seals each row under an
  advisory lock, and TRUNCATE of an append-only table is refused (``motodesk.models.audit``).
* SQLite: the append-only guards of every table declared append-only.

The objects come from ``motodesk.models.audit.install_guards``, which the program also runs after
every upgrade, so tables of later revisions are covered the same way.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from motodesk.models.audit import install_guards, rehash_all, remove_guards

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

_SQLITE_GUARDS = ("audit_events_no_update", "audit_events_no_delete")


def upgrade() -> None:
    bind = op.get_bind()
    with op.batch_alter_table("audit_events", schema=None) as batch_op:
        batch_op.add_column(sa.Column("prev_hash", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("row_hash", sa.String(length=64), nullable=True))
    # Seal the rows written before the chain existed: the append-only guard steps aside meanwhile.
    if bind.dialect.name == "postgresql":
        op.execute("ALTER TABLE audit_events DISABLE TRIGGER audit_events_append_only")
        rehash_all(bind)
        op.execute("ALTER TABLE audit_events ENABLE TRIGGER audit_events_append_only")
    else:
        for name in _SQLITE_GUARDS:
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
        rehash_all(bind)
    install_guards(bind)


def downgrade() -> None:
    bind = op.get_bind()
    remove_guards(bind)
    if bind.dialect.name == "sqlite":
        for name in _SQLITE_GUARDS:
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
    with op.batch_alter_table("audit_events", schema=None) as batch_op:
        batch_op.drop_column("row_hash")
        batch_op.drop_column("prev_hash")
    if bind.dialect.name == "sqlite":  # the table was rebuilt without its triggers: those of 0001 again
        for verb in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER audit_events_no_{verb.lower()} BEFORE {verb} ON audit_events "
                f"BEGIN SELECT RAISE(ABORT, 'audit_events is append-only: {verb} refused'); END"
            )
