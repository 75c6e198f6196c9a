"""PostgreSQL's audit trigger builds an INSERT's diff in one set-based query (issue 20, bulk import).

Revision ID: 0014
Revises: 0012
Create Date: 2026-12-01

No table changes. The trigger function ``motodesk_audit_row`` (re)installed by
:func:`motodesk.models.audit.install_guards` now writes an insert's ``{column: [null, value]}`` with a
single ``jsonb_object_agg`` instead of a loop that concatenated one jsonb object per column: the same
object, so the same audit text and chain hash. This revision re-installs it on upgrade (``refresh_guards``
does so after every upgrade to the head as well). SQLite has no triggers for it: nothing to do there.
"""

from __future__ import annotations

from alembic import op

revision = "0014"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    from motodesk.models.audit import install_guards

    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        install_guards(bind)


def downgrade() -> None:
    # The older function wrote the very same rows; the current one stays (nothing to undo).
    pass
