"""Rewrite migration 0001 from the models (only while 0001 has not shipped to any database).

Usage: .venv/bin/python scripts/regen_first_migration.py

Renders the CREATE operations for the whole metadata against an empty SQLite database with
Alembic's autogenerate API, keeps the hand-written audit triggers, and writes 0001_first_schema.py.
Once a release has created databases with 0001, schema changes go into new revisions instead.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from alembic.autogenerate import produce_migrations, render_python_code
from alembic.migration import MigrationContext
from sqlalchemy import create_engine

from motodesk.models import Base

TARGET = Path(__file__).resolve().parent.parent / "motodesk/models/migrations/versions/0001_first_schema.py"

HEADER = '''"""First schema: every entity of SPEC.md, and the append-only audit trail.

Revision ID: 0001
Revises: (none)
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
'''

TRIGGERS_UP = '''
    # The audit trail is append-only for everybody, the application's role included.
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "CREATE OR REPLACE FUNCTION motodesk_audit_append_only() RETURNS trigger "
            "LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION "
            "'audit_events is append-only: % refused', TG_OP; END $$"
        )
        op.execute(
            "CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events "
            "FOR EACH ROW EXECUTE FUNCTION motodesk_audit_append_only()"
        )
    else:
        for verb in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER audit_events_no_{verb.lower()} BEFORE {verb} ON audit_events "
                f"BEGIN SELECT RAISE(ABORT, 'audit_events is append-only: {verb} refused'); END"
            )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS audit_events_append_only ON audit_events")
        op.execute("DROP FUNCTION IF EXISTS motodesk_audit_append_only()")
    else:
        op.execute("DROP TRIGGER IF EXISTS audit_events_no_update")
        op.execute("DROP TRIGGER IF EXISTS audit_events_no_delete")
'''


def main() -> int:
    engine = create_engine("sqlite://")
    with engine.connect() as conn:
        mc = MigrationContext.configure(conn, opts={"render_as_batch": True, "compare_type": True})
        script = produce_migrations(mc, Base.metadata)
        up = render_python_code(script.upgrade_ops, render_as_batch=True)
        down = render_python_code(script.downgrade_ops, render_as_batch=True)
    up = re.sub(r"motodesk\.models\.base\.UTCDateTime\(\)", "sa.DateTime()", up)
    down_body = "\n".join(line for line in down.splitlines() if "###" not in line)
    text = HEADER + up + TRIGGERS_UP + down_body + "\n"
    TARGET.write_text(text, encoding="utf-8")
    ruff = Path(sys.executable).with_name("ruff")
    subprocess.run([str(ruff), "check", "--fix", "-q", str(TARGET)], check=False)
    subprocess.run([str(ruff), "format", "-q", str(TARGET)], check=False)
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
