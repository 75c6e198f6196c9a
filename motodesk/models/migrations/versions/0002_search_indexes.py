"""Search indexes of the counter's search box (name prefix and infix, CPF, plate, permit, RENAVAM).

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02

What each database needs for `motodesk.services.search` to answer a keystroke in milliseconds:

PostgreSQL
    The search compares with ``COLLATE "C"`` so that a prefix is a plain byte range whatever
    collation the server's database was created with (pt_BR.UTF-8 ignores spaces and
    punctuation at the first level, which would break ``name >= 'joao ' AND name < 'joao!'``);
    these indexes carry the same collation. Infix ("silva" in the middle of a name) uses a
    pg_trgm GIN index.

SQLite
    Its default BINARY collation already makes the indexes of 0001 usable for prefixes. Infix is a
    LIKE '%x%' walk of the (covering) name index: measured at 100,000 people it stays under 10 ms
    even when nothing matches, so no FTS5 table (and no triggers to keep it in sync) is needed.

Both
    ``permits.person_id``: the result list shows each person's permit, looked up by person.

None of these objects is declared in the models (they are dialect-specific); the migration
environment's ``include_object`` hook keeps ``alembic check`` from reporting them. Names start
with ``ix_search_`` for that reason.
"""

from __future__ import annotations

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

PG_INDEXES = (
    # INCLUDE: a walk in name order that tests the CPF, and a CPF probe that returns the name,
    # read the index only (no table row per entry walked).
    'CREATE INDEX ix_search_people_name_c ON people (name_search COLLATE "C", id) INCLUDE (cpf)',
    "CREATE INDEX ix_search_people_name_trgm ON people USING gin (name_search gin_trgm_ops)",
    'CREATE INDEX ix_search_people_cpf_c ON people (cpf COLLATE "C") INCLUDE (name_search, id)',
    'CREATE INDEX ix_search_vehicles_plate_c ON vehicles (plate COLLATE "C") WHERE active',
    'CREATE INDEX ix_search_vehicles_renavam_c ON vehicles (renavam COLLATE "C")',
    'CREATE INDEX ix_search_permits_number_c ON permits (number COLLATE "C")',
    "CREATE INDEX ix_search_permits_person ON permits (person_id)",
)
PG_INDEX_NAMES = tuple(statement.split()[2] for statement in PG_INDEXES)


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        # pg_trgm is a trusted extension (PostgreSQL 13+): the database owner may create it.
        op.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        for statement in PG_INDEXES:
            op.execute(statement)
    else:
        op.execute("CREATE INDEX ix_search_permits_person ON permits (person_id)")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for name in reversed(PG_INDEX_NAMES):
            op.execute(f"DROP INDEX IF EXISTS {name}")
        # The pg_trgm extension stays: other objects of the server may use it.
    else:
        op.execute("DROP INDEX IF EXISTS ix_search_permits_person")
