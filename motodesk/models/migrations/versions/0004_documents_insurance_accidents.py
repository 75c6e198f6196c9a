"""Mandatory insurance of the vehicle and its accidents (issue 16, items 4, 6, 10).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01

* ``vehicles``: number, insured name and insured CPF of the seguro obrigatório (DPVAT/SPVAT,
  Art. 5º, § 1º, I and § 5º); its validity was already ``insurance_valid_until``.
* ``vehicle_accidents``: accidents of a vehicle, when they happened and were reported (Art. 31,
  Grupo 2, II) and whether safety was compromised (Art. 31, Grupo 4, I).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("vehicles", schema=None) as batch_op:
        batch_op.add_column(sa.Column("insurance_number", sa.String(length=40), nullable=True))
        batch_op.add_column(sa.Column("insurance_insured_name", sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column("insurance_insured_cpf", sa.String(length=11), nullable=True))
    op.create_table(
        "vehicle_accidents",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("vehicle_id", sa.Integer(), nullable=False),
        sa.Column("happened_on", sa.Date(), nullable=False),
        sa.Column("reported_on", sa.Date(), nullable=False),
        sa.Column("safety_compromised", sa.Boolean(), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("recorded_by", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["vehicle_id"], ["vehicles.id"], name=op.f("fk_vehicle_accidents_vehicle_id_vehicles")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_vehicle_accidents")),
    )
    with op.batch_alter_table("vehicle_accidents", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_vehicle_accidents_vehicle_id"), ["vehicle_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("vehicle_accidents", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_vehicle_accidents_vehicle_id"))
    op.drop_table("vehicle_accidents")
    with op.batch_alter_table("vehicles", schema=None) as batch_op:
        batch_op.drop_column("insurance_insured_cpf")
        batch_op.drop_column("insurance_insured_name")
        batch_op.drop_column("insurance_number")
