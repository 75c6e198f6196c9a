"""Identity and medical certificate: name changes, the medical certificate's presentation date, photo overrides.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01

* ``person_name_changes``: a holder's, applicant's or deputy's name changes only by a supervisor,
  with a reason and the supporting document (Art. 6º, § 1º; Art. 7º).
* ``person_documents.presented_on``: the day the medical certificate was presented; the 30 days
  of Art. 5º, § 2º run from the tender's homologation to this day.
* ``photos.override_reason``: why a photo with quality warnings was kept anyway (Art. 5º, IX).
* The setting ``medical_valid_days`` (365 days) gives way to ``medical_valid_years`` (1 year,
  counted like every other year, Código Civil art. 132, § 3º): the old row is removed, and the
  new one is written with its default on the next start.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "person_name_changes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("old_name", sa.String(length=200), nullable=False),
        sa.Column("new_name", sa.String(length=200), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("attachment_id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("by_user", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(["attachment_id"], ["attachments.id"],
                                name=op.f("fk_person_name_changes_attachment_id_attachments")),
        sa.ForeignKeyConstraint(["person_id"], ["people.id"], name=op.f("fk_person_name_changes_person_id_people"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_person_name_changes")),
    )
    with op.batch_alter_table("person_name_changes", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_person_name_changes_person_id"), ["person_id"], unique=False)
    with op.batch_alter_table("person_documents", schema=None) as batch_op:
        batch_op.add_column(sa.Column("presented_on", sa.Date(), nullable=True))
    with op.batch_alter_table("photos", schema=None) as batch_op:
        batch_op.add_column(sa.Column("override_reason", sa.Text(), nullable=True))
    op.execute("DELETE FROM settings WHERE key = 'medical_valid_days'")


def downgrade() -> None:
    op.execute("DELETE FROM settings WHERE key = 'medical_valid_years'")
    with op.batch_alter_table("photos", schema=None) as batch_op:
        batch_op.drop_column("override_reason")
    with op.batch_alter_table("person_documents", schema=None) as batch_op:
        batch_op.drop_column("presented_on")
    with op.batch_alter_table("person_name_changes", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_person_name_changes_person_id"))
    op.drop_table("person_name_changes")
