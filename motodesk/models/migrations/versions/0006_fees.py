"""Fee payments (Art. 6º, § 6º): the guia/DAM recorded for each paid act of the counter.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01

The fee table itself lives in ``settings`` (``fee_<act>_brl`` and ``fee_<act>_basis`` rows, written
with their defaults — zero — by ``ensure_defaults``), so only the payments need a table.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "fee_payments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("act", sa.String(length=16), nullable=False),
        sa.Column("subject_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.String(length=40), nullable=False),
        sa.Column("paid_on", sa.Date(), nullable=False),
        sa.Column("amount", sa.Numeric(precision=12, scale=2), nullable=False),
        sa.Column("legal_basis", sa.String(length=200), nullable=False),
        sa.Column("recorded_at", sa.DateTime(), nullable=False),
        sa.Column("recorded_by", sa.String(length=64), nullable=False),
        sa.Column("used_at", sa.DateTime(), nullable=True),
        sa.Column("used_by", sa.String(length=64), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_fee_payments")),
        sa.UniqueConstraint("number", name=op.f("uq_fee_payments_number")),
    )
    with op.batch_alter_table("fee_payments", schema=None) as batch_op:
        batch_op.create_index("ix_fee_payments_act_subject", ["act", "subject_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("fee_payments", schema=None) as batch_op:
        batch_op.drop_index("ix_fee_payments_act_subject")
    op.drop_table("fee_payments")
