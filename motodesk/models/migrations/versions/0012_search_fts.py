"""SQLite: a trigram full-text index of people's names for the search box (issue 20, target 3).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01

At a million people, a name that occurs nowhere ("dtn", a plate being typed, or a rare surname)
made SQLite's infix search read every entry of the name index: 140 ms per keystroke. ``people_fts``
is an FTS5 table with the ``trigram`` tokenizer over ``people.name_search`` (external content: the
text stays in ``people``, the index holds its trigrams), so "silva" anywhere in a name is an index
lookup. Triggers keep it in step with every insert, change of name and delete (anonymisation
included: it rewrites ``name_search``); the upgrade builds it from the rows already there.

CPF, plate, permit and RENAVAM are prefixes: ranges on their B-tree indexes (0001/0002) stay the
fastest way, so they are not in the FTS table. A common CPF prefix ("50": ten thousand people in a
million) is answered by walking the names in order and testing the CPF: ``ix_search_people_name_cpf``
holds both, so the walk reads no table row (it read one per name walked: 80-160 ms).

PostgreSQL keeps its pg_trgm GIN index (0002): nothing to do there.

None of this is declared in the models (SQLite-only); ``people_fts*`` is skipped by the migration
environment's ``include_object`` and by backups (derived data, rebuilt from ``people``).
"""

from __future__ import annotations

from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

FTS_TABLE = "people_fts"
SQLITE_STATEMENTS = (
    "CREATE VIRTUAL TABLE people_fts USING fts5(name_search, content='people', content_rowid='id', "
    "tokenize='trigram')",
    "CREATE TRIGGER people_fts_insert AFTER INSERT ON people BEGIN "
    "INSERT INTO people_fts(rowid, name_search) VALUES (new.id, new.name_search); END",
    "CREATE TRIGGER people_fts_delete AFTER DELETE ON people BEGIN "
    "INSERT INTO people_fts(people_fts, rowid, name_search) VALUES ('delete', old.id, old.name_search); END",
    "CREATE TRIGGER people_fts_update AFTER UPDATE OF name_search ON people "
    "WHEN old.name_search IS NOT new.name_search BEGIN "
    "INSERT INTO people_fts(people_fts, rowid, name_search) VALUES ('delete', old.id, old.name_search); "
    "INSERT INTO people_fts(rowid, name_search) VALUES (new.id, new.name_search); END",
    # The names already in the register (an external-content table is filled from its content table).
    "INSERT INTO people_fts(people_fts) VALUES ('rebuild')",
    "CREATE INDEX ix_search_people_name_cpf ON people (name_search, cpf)",
)


def upgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    for statement in SQLITE_STATEMENTS:
        op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    op.execute("DROP INDEX IF EXISTS ix_search_people_name_cpf")
    for trigger in ("people_fts_update", "people_fts_delete", "people_fts_insert"):
        op.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    op.execute("DROP TABLE IF EXISTS people_fts")
