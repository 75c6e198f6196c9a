"""Signed checkpoints of the audit trail's head (issue 25, item 3).

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-01

Adds ``audit_checkpoints``: one row per checkpoint (sequence number, time, reason, the last audit id it
seals, the signed JSON body and its Ed25519 signature). Append-only like ``audit_events``: its UPDATE/DELETE/TRUNCATE guards and
the login role's privileges (SELECT, INSERT) come from ``motodesk.models.audit.APPEND_ONLY_TABLES``,
installed by ``Database.refresh_guards`` after every upgrade to the head.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "audit_checkpoints",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("reason", sa.String(length=16), nullable=False),
        sa.Column("last_id", sa.Integer(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("signature", sa.String(length=128), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_checkpoints")),
    )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for trigger in ("audit_checkpoints_append_only", "audit_checkpoints_no_truncate"):
            op.execute(f"DROP TRIGGER IF EXISTS {trigger} ON audit_checkpoints")
    op.drop_table("audit_checkpoints")
