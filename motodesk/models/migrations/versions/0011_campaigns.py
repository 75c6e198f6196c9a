"""The yearly re-registration campaign (issue 19, part 3): campaigns, appointments and their history.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01

At most one campaign is open at a time (a partial unique index on both databases). The history of
an appointment is its own table, so rescheduling never loses the earlier slot. The audit triggers
reach the new tables through ``install_guards`` after the upgrade to the head.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "campaigns",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("period_start", sa.Date(), nullable=False),
        sa.Column("period_end", sa.Date(), nullable=False),
        sa.Column("state", sa.String(length=8), nullable=False),
        sa.Column("opened_at", sa.DateTime(), nullable=False),
        sa.Column("opened_by", sa.String(length=64), nullable=False),
        sa.Column("closed_at", sa.DateTime(), nullable=True),
        sa.Column("closed_by", sa.String(length=64), nullable=True),
        sa.Column("notes", sa.Text(), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.CheckConstraint("period_end >= period_start", name=op.f("ck_campaigns_period_in_order")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_campaigns")),
    )
    op.create_index("uq_campaigns_one_open", "campaigns", ["state"], unique=True,
                    sqlite_where=sa.text("state = 'open'"), postgresql_where=sa.text("state = 'open'"))
    op.create_table(
        "campaign_appointments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(length=8), nullable=False),
        sa.Column("permit_id", sa.Integer(), nullable=False),
        sa.Column("due", sa.String(length=120), nullable=False),
        sa.Column("slot_at", sa.DateTime(), nullable=False),
        sa.Column("state", sa.String(length=12), nullable=False),
        sa.Column("marked_at", sa.DateTime(), nullable=True),
        sa.Column("marked_by", sa.String(length=64), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["campaign_id"], ["campaigns.id"],
                                name=op.f("fk_campaign_appointments_campaign_id_campaigns")),
        sa.ForeignKeyConstraint(["permit_id"], ["permits.id"],
                                name=op.f("fk_campaign_appointments_permit_id_permits")),
        sa.ForeignKeyConstraint(["person_id"], ["people.id"],
                                name=op.f("fk_campaign_appointments_person_id_people")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_campaign_appointments")),
        sa.UniqueConstraint("campaign_id", "person_id", "permit_id", name="uq_campaign_appointments_person"),
    )
    with op.batch_alter_table("campaign_appointments", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_campaign_appointments_campaign_id"), ["campaign_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_campaign_appointments_person_id"), ["person_id"], unique=False)
        batch_op.create_index("ix_campaign_appointments_slot", ["campaign_id", "slot_at"], unique=False)
    op.create_table(
        "campaign_appointment_events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("appointment_id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("by_user", sa.String(length=64), nullable=False),
        sa.Column("from_state", sa.String(length=12), nullable=True),
        sa.Column("to_state", sa.String(length=12), nullable=False),
        sa.Column("from_slot", sa.DateTime(), nullable=True),
        sa.Column("to_slot", sa.DateTime(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["appointment_id"], ["campaign_appointments.id"],
                                name=op.f("fk_campaign_appointment_events_appointment_id_campaign_appointments")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_campaign_appointment_events")),
    )
    with op.batch_alter_table("campaign_appointment_events", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_campaign_appointment_events_appointment_id"), ["appointment_id"],
                              unique=False)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table in ("campaign_appointment_events", "campaign_appointments", "campaigns"):
            op.execute(f'DROP TRIGGER IF EXISTS motodesk_audit ON "{table}"')
    op.drop_table("campaign_appointment_events")
    op.drop_table("campaign_appointments")
    op.drop_index("uq_campaigns_one_open", table_name="campaigns")
    op.drop_table("campaigns")
