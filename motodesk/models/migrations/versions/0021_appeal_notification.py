"""The first decision's notification: the appeal period runs from it (issue 24).

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-02

An absent offender learns of the decision later, in person, by post with AR or by edital, as he
learnt of the notice (Art. 29, § 2º); the appeal period (Art. 29, § 3º; Art. 34, parágrafo único)
counts from that day. Adds to ``infraction_notices`` (the process, which the secretariat's profile
writes; the ``decisions`` table is the supervisor's) ``decision_notified_on``,
``decision_notification_method``, ``decision_notification_reference``,
``decision_notification_recorded_by`` and ``appeal_due``, all NULL for existing rows: a process
decided before this revision closes only once its decision's notification is recorded (the old
``decisions.appeal_due``, counted from the decision, no longer counts). New columns of a table take
the table's grants, so the per-user roles need nothing more.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None

COLUMNS = (
    ("decision_notified_on", sa.Date()),
    ("decision_notification_method", sa.String(16)),
    ("decision_notification_reference", sa.String(120)),
    ("decision_notification_recorded_by", sa.String(64)),
    ("appeal_due", sa.Date()),
)


def upgrade() -> None:
    with op.batch_alter_table("infraction_notices") as batch:
        for name, type_ in COLUMNS:
            batch.add_column(sa.Column(name, type_, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("infraction_notices") as batch:
        for name, _type in reversed(COLUMNS):
            batch.drop_column(name)
