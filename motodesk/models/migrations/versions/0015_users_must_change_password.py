"""Users: a password chosen by an administrator is temporary (issue 18, Administração).

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-01

Adds ``users.must_change_password`` (false for every existing user): set when an administrator
resets a password or creates a user with a temporary one, cleared when its owner chooses a new
password at the login.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("must_change_password", sa.Boolean(), nullable=False,
                                   server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.drop_column("must_change_password")
