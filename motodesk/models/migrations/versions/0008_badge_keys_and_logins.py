"""Badge prints remember what was signed, and with which key.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01

``badge_prints.claim_sha256``: SHA-256 of the signed claim's canonical bytes (permit, CPF digest,
validity, issue number, holder kind). Online verification requires the scanned claim to be exactly
one the system printed, so a badge signed with a leaked key but unknown to the register reads
forged. ``badge_prints.key_id``: which signing key signed it (first 16 hex digits of the SHA-256 of
its public key), so that key rotation can tell how many badges in use an older key signed.
Both are NULL for prints made before this revision (verification then compares the fields).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("badge_prints") as batch:
        batch.add_column(sa.Column("claim_sha256", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("key_id", sa.String(length=16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("badge_prints") as batch:
        batch.drop_column("key_id")
        batch.drop_column("claim_sha256")
