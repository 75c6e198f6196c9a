"""PostgreSQL: the audit rows of a statement are staged set-based and sealed into the chain at commit.

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-03

Issue 28: an import's 10,000 lines wrote some 60,000 audit rows through a deferred trigger per row,
each appending to the chain under its advisory lock (about 30 s of the write transaction). Adds the
owner's two unlogged tables of :mod:`motodesk.models.audit_pg`: ``audit_staging`` (the audit rows of
the transactions in flight, staged by statement-level triggers without any lock) and
``audit_seal_marks`` (one row per transaction that staged rows; its deferred constraint trigger seals
them into ``audit_events`` at commit and clears both). Both are empty whenever no transaction is in
flight, so unlogged (a crash loses only what was never committed); no profile may read or write them
and backups leave them out. :func:`motodesk.models.audit.install_guards` then replaces the row
triggers with the staged ones. SQLite: nothing (the Python listeners write the trail).
"""

from __future__ import annotations

from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    from motodesk.models.audit import install_guards

    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    op.execute("CREATE UNLOGGED TABLE audit_staging (txid bigint NOT NULL, seq bigserial NOT NULL, "
               "at timestamp without time zone NOT NULL, table_name varchar(64) NOT NULL, "
               "row_key varchar(128) NOT NULL, action varchar(8) NOT NULL, changes text NOT NULL, "
               "PRIMARY KEY (txid, seq))")
    op.execute("CREATE UNLOGGED TABLE audit_seal_marks (txid bigint PRIMARY KEY)")
    op.execute("REVOKE ALL ON audit_staging, audit_seal_marks FROM PUBLIC")
    install_guards(bind)


def downgrade() -> None:
    from motodesk.models.audit import install_guards

    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    op.execute("DROP TABLE IF EXISTS audit_seal_marks")
    op.execute("DROP TABLE IF EXISTS audit_staging")
    install_guards(bind)  # the deferred row triggers again (and the staged ones dropped)
