"""The enforcement process: later notification, deputy penalties, Art. 35 judgments.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01

* ``infraction_notices``: the defence period runs from the notification (Art. 29, §§ 2º–3º). A notice
  the offender refused to sign, or written in his absence, has no ``notified_on`` / ``defence_due``
  until the later notification (in person, post with AR, edital) is recorded, with how, a reference
  and who recorded it. Notices written before this revision keep their dates and are marked as
  notified on the spot, as they were treated.
* ``deputy_links``: a penalty decided against a deputy reaches the link (Art. 34, III–IV):
  ``suspended_until`` and ``revoked``.
* ``criminal_judgments``: the final criminal conviction that revokes a permit (Art. 35).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("infraction_notices", schema=None) as batch_op:
        batch_op.add_column(sa.Column("notification_method", sa.String(length=16), nullable=True))
        batch_op.add_column(sa.Column("notification_reference", sa.String(length=120), nullable=True))
        batch_op.add_column(sa.Column("notification_recorded_by", sa.String(length=64), nullable=True))
        batch_op.alter_column("notified_on", existing_type=sa.Date(), nullable=True)
        batch_op.alter_column("defence_due", existing_type=sa.Date(), nullable=True)
    op.execute("UPDATE infraction_notices SET notification_method = 'on_the_spot' WHERE notified_on IS NOT NULL")

    with op.batch_alter_table("deputy_links", schema=None) as batch_op:
        batch_op.add_column(sa.Column("suspended_until", sa.Date(), nullable=True))
        batch_op.add_column(sa.Column("revoked", sa.Boolean(), nullable=False, server_default=sa.false()))

    op.create_table(
        "criminal_judgments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("permit_id", sa.Integer(), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("court", sa.String(length=200), nullable=False),
        sa.Column("case_number", sa.String(length=40), nullable=False),
        sa.Column("final_on", sa.Date(), nullable=False),
        sa.Column("notes", sa.Text(), nullable=True),
        sa.Column("recorded_by", sa.String(length=64), nullable=False),
        sa.Column("recorded_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["permit_id"], ["permits.id"], name=op.f("fk_criminal_judgments_permit_id_permits")),
        sa.ForeignKeyConstraint(["person_id"], ["people.id"], name=op.f("fk_criminal_judgments_person_id_people")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_criminal_judgments")),
    )
    with op.batch_alter_table("criminal_judgments", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_criminal_judgments_permit_id"), ["permit_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_criminal_judgments_person_id"), ["person_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("criminal_judgments", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_criminal_judgments_person_id"))
        batch_op.drop_index(batch_op.f("ix_criminal_judgments_permit_id"))
    op.drop_table("criminal_judgments")
    with op.batch_alter_table("deputy_links", schema=None) as batch_op:
        batch_op.drop_column("revoked")
        batch_op.drop_column("suspended_until")
    # A notice still waiting for its notification gets the day it was written, as before this revision.
    day = "date(created_at)" if op.get_bind().dialect.name == "sqlite" else "CAST(created_at AS DATE)"
    op.execute(f"UPDATE infraction_notices SET notified_on = {day}, defence_due = {day} WHERE notified_on IS NULL")
    with op.batch_alter_table("infraction_notices", schema=None) as batch_op:
        batch_op.alter_column("defence_due", existing_type=sa.Date(), nullable=False)
        batch_op.alter_column("notified_on", existing_type=sa.Date(), nullable=False)
        batch_op.drop_column("notification_recorded_by")
        batch_op.drop_column("notification_reference")
        batch_op.drop_column("notification_method")
