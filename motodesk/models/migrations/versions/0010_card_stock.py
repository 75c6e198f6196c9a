"""Card stock: batches of blank pre-numbered PVC cards, the card of each badge print, spoiled cards.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01

See :mod:`motodesk.models.cards` for the serial numbers. The tables are audited like every other
(the audit triggers are installed on every table after the upgrade to the head).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "card_batches",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("prefix", sa.String(length=16), nullable=False),
        sa.Column("first_no", sa.Integer(), nullable=False),
        sa.Column("last_no", sa.Integer(), nullable=False),
        sa.Column("width", sa.Integer(), nullable=False),
        sa.Column("received_on", sa.Date(), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("recorded_by", sa.String(length=64), nullable=False),
        sa.Column("recorded_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_card_batches")),
    )
    with op.batch_alter_table("card_batches", schema=None) as batch_op:
        batch_op.create_index("ix_card_batches_prefix_first", ["prefix", "first_no"], unique=False)

    op.create_table(
        "card_uses",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("serial", sa.String(length=40), nullable=False),
        sa.Column("batch_id", sa.Integer(), nullable=True),
        sa.Column("badge_print_id", sa.Integer(), nullable=False),
        sa.Column("used_at", sa.DateTime(), nullable=False),
        sa.Column("used_by", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(["badge_print_id"], ["badge_prints.id"],
                                name=op.f("fk_card_uses_badge_print_id_badge_prints")),
        sa.ForeignKeyConstraint(["batch_id"], ["card_batches.id"], name=op.f("fk_card_uses_batch_id_card_batches")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_card_uses")),
        sa.UniqueConstraint("badge_print_id", name=op.f("uq_card_uses_badge_print_id")),
    )
    with op.batch_alter_table("card_uses", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_card_uses_batch_id"), ["batch_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_card_uses_serial"), ["serial"], unique=False)

    op.create_table(
        "spoiled_cards",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("serial", sa.String(length=40), nullable=False),
        sa.Column("batch_id", sa.Integer(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("spoiled_by", sa.String(length=64), nullable=False),
        sa.Column("spoiled_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["batch_id"], ["card_batches.id"],
                                name=op.f("fk_spoiled_cards_batch_id_card_batches")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_spoiled_cards")),
    )
    with op.batch_alter_table("spoiled_cards", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_spoiled_cards_batch_id"), ["batch_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_spoiled_cards_serial"), ["serial"], unique=False)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":  # the audit triggers of these tables go with them
        for table in ("spoiled_cards", "card_uses", "card_batches"):
            op.execute(f"DROP TRIGGER IF EXISTS motodesk_audit ON {table}")
    with op.batch_alter_table("spoiled_cards", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_spoiled_cards_serial"))
        batch_op.drop_index(batch_op.f("ix_spoiled_cards_batch_id"))
    op.drop_table("spoiled_cards")
    with op.batch_alter_table("card_uses", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_card_uses_serial"))
        batch_op.drop_index(batch_op.f("ix_card_uses_batch_id"))
    op.drop_table("card_uses")
    with op.batch_alter_table("card_batches", schema=None) as batch_op:
        batch_op.drop_index("ix_card_batches_prefix_first")
    op.drop_table("card_batches")
