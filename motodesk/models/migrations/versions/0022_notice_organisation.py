"""The organisation an Art. 25 notice names (issue 24).

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-02

Art. 25, parágrafo único: the employer, or whoever contracts a continued moto-frete service, answers
for the infractions of Art. 25, I–II. Adds to ``infraction_notices`` a nullable ``organisation_id``
(a foreign key to ``organisations``, indexed: an organisation's record and repeat offences are found
by it) and the CHECK ``organisation_offender``: a notice that names an organisation is of the
organisation kind and names no person and no permit.

Existing notices keep ``organisation_id`` NULL. A notice written for an organisation before this
revision kept only its name and CNPJ as printed ("Name (CNPJ 11.222.333/0001-81)"): it is linked to
the organisation of that CNPJ when the register still has it. New columns take the table's grants,
so the per-user roles need nothing more; the audit triggers are rebuilt after every upgrade.
"""

from __future__ import annotations

import re

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None

CHECK = "organisation_id IS NULL OR (offender_kind = 'organisation' AND person_id IS NULL AND permit_id IS NULL)"
_PRINTED_CNPJ = re.compile(r"\(CNPJ ([0-9A-Za-z./\-]+)\)\s*$")


def _link_earlier_organisation_notices() -> None:
    bind = op.get_bind()
    rows = bind.execute(sa.text("SELECT id, offender_name FROM infraction_notices "
                                "WHERE offender_kind = 'organisation' AND person_id IS NULL "
                                "AND permit_id IS NULL")).all()
    for notice_id, printed in rows:
        match = _PRINTED_CNPJ.search(printed or "")
        if match is None:
            continue
        cnpj = re.sub(r"[./\-]", "", match.group(1)).upper()
        organisation_id = bind.execute(sa.text("SELECT id FROM organisations WHERE cnpj = :cnpj"),
                                       {"cnpj": cnpj}).scalar()
        if organisation_id is not None:
            bind.execute(sa.text("UPDATE infraction_notices SET organisation_id = :o WHERE id = :n"),
                         {"o": organisation_id, "n": notice_id})


def _add_on_sqlite() -> None:
    """SQLite adds the column in place: rebuilding the table (copy, drop, rename) would drop a parent of the
    defences and decisions, which the foreign keys refuse even when deferred."""
    op.execute("ALTER TABLE infraction_notices ADD COLUMN organisation_id INTEGER "
               "CONSTRAINT fk_infraction_notices_organisation_id_organisations REFERENCES organisations (id) "
               f"CONSTRAINT ck_infraction_notices_organisation_offender CHECK ({CHECK})")
    op.create_index("ix_infraction_notices_organisation_id", "infraction_notices", ["organisation_id"])


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        _add_on_sqlite()
    else:
        op.add_column("infraction_notices", sa.Column("organisation_id", sa.Integer(), nullable=True))
        op.create_foreign_key(op.f("fk_infraction_notices_organisation_id_organisations"), "infraction_notices",
                              "organisations", ["organisation_id"], ["id"])
        op.create_index(op.f("ix_infraction_notices_organisation_id"), "infraction_notices", ["organisation_id"])
        op.create_check_constraint("organisation_offender", "infraction_notices", CHECK)
    # Last: PostgreSQL alters no table with the audit trigger's events of an update still pending.
    _link_earlier_organisation_notices()


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        # The table is rebuilt without the column (SQLite drops no column a foreign key is declared on): possible
        # only while no defence or decision points at a notice; a database with processes goes back to 0021 by
        # the backup taken before every upgrade.
        op.drop_index("ix_infraction_notices_organisation_id", table_name="infraction_notices")
        with op.batch_alter_table("infraction_notices", recreate="always") as batch:
            batch.drop_constraint(batch.f("ck_infraction_notices_organisation_offender"), type_="check")
            batch.drop_column("organisation_id")
        return
    op.drop_constraint(op.f("ck_infraction_notices_organisation_offender"), "infraction_notices", type_="check")
    op.drop_index(op.f("ix_infraction_notices_organisation_id"), table_name="infraction_notices")
    op.drop_constraint(op.f("fk_infraction_notices_organisation_id_organisations"), "infraction_notices",
                       type_="foreignkey")
    op.drop_column("infraction_notices", "organisation_id")
