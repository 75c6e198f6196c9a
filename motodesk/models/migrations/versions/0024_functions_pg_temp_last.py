"""PostgreSQL: every MotoDesk function searches pg_temp last.

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-03

No table changes. The owner's functions (:mod:`motodesk.models.roles`) and the audit chain's trigger
(:mod:`motodesk.models.audit_pg`) named ``search_path = pg_catalog, public``, which leaves pg_temp to be
searched *first* for tables: a session's temporary ``users`` answered ``motodesk_create_first_admin``
and ``motodesk_apply_role`` in place of ``public.users``, so a workstation's pre-login role could make
itself a role in the administrators' group; a temporary ``audit_events`` gave the chain a false tip.
:func:`motodesk.models.audit.install_guards` re-creates them all with pg_temp named last. SQLite:
nothing (no server functions).
"""

from __future__ import annotations

from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None


def upgrade() -> None:
    from motodesk.models.audit import install_guards

    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        install_guards(bind)


def downgrade() -> None:
    # The functions are not put back as they were: searching pg_temp first was the fault itself.
    pass
