"""The LGPD access log (issue 17, item 16): reads of criminal, medical and whole-dossier data.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01

Append-only like the audit trail: triggers refuse UPDATE and DELETE on both databases, for every
role. (PostgreSQL role privileges for ``access_log`` follow ``motodesk.models.audit.APPEND_ONLY_TABLES``.)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "access_log",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("user_login", sa.String(length=64), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=True),
        sa.Column("data_kind", sa.String(length=24), nullable=False),
        sa.Column("record_key", sa.String(length=64), nullable=True),
        sa.Column("screen", sa.String(length=64), nullable=False),
        sa.Column("workstation", sa.String(length=128), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_access_log")),
    )
    with op.batch_alter_table("access_log", schema=None) as batch_op:
        batch_op.create_index("ix_access_log_person_at", ["person_id", "at"], unique=False)

    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "CREATE OR REPLACE FUNCTION motodesk_access_log_append_only() RETURNS trigger "
            "LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION "
            "'access_log is append-only: % refused', TG_OP; END $$"
        )
        op.execute(
            "CREATE TRIGGER access_log_append_only BEFORE UPDATE OR DELETE ON access_log "
            "FOR EACH ROW EXECUTE FUNCTION motodesk_access_log_append_only()"
        )
    else:
        for verb in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER access_log_no_{verb.lower()} BEFORE {verb} ON access_log "
                f"BEGIN SELECT RAISE(ABORT, 'access_log is append-only: {verb} refused'); END"
            )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS access_log_append_only ON access_log")
        op.execute("DROP FUNCTION IF EXISTS motodesk_access_log_append_only()")
    else:
        op.execute("DROP TRIGGER IF EXISTS access_log_no_update")
        op.execute("DROP TRIGGER IF EXISTS access_log_no_delete")
    with op.batch_alter_table("access_log", schema=None) as batch_op:
        batch_op.drop_index("ix_access_log_person_at")
    op.drop_table("access_log")
