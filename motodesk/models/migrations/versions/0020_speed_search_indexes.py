"""Covering indexes for the search box's probes (issue 28, server side).

Revision ID: 0020
Revises: 0018
Create Date: 2026-12-02

A plate, RENAVAM or permit-number prefix is a range on the linked table's index that yields person
ids; before this revision each entry of that range read its table row for the id (``permits`` has
17 columns), and each person found read the ``people`` row for the sort key. At a million people
"MB-1" gathers 11,000 permits: 11,000 table rows, then 11,000 people rows, before the sort.

PostgreSQL
    ``permits (number COLLATE "C", person_id)``, ``vehicles (plate COLLATE "C", holder_id) WHERE
    active`` and ``vehicles (renavam COLLATE "C", holder_id)`` replace 0002's single-column
    ``"C"`` indexes (same leading column, so every query those served is served the same way), and
    ``people (id) INCLUDE (name_search, cpf)`` gives the sort key of a person found by id from the
    index alone, and 0002's ``permits (person_id)`` becomes ``(person_id) INCLUDE (number)`` (same
    name) for the walk in name order that tests each person's permit numbers: the probe, the lookup and the sort read no table row (index-only scans; the
    visibility map is kept by autovacuum and the search's ``analyze``).

SQLite
    ``people (cpf, name_search)``: a CPF probe returns the name (the sort key) from the index;
    ``permits (number, person_id)``, ``vehicles (plate, holder_id) WHERE active = 1`` and
    ``vehicles (renavam, holder_id)``: the linked probes read only their index (rowid look-ups of
    ``people`` remain, by primary key); ``people (name_search, id, cpf)`` (replacing 0012's
    ``(name_search, cpf)``) and ``permits (person_id, number)`` let the walk in name order read no
    table row (a CPF prefix "7" at a million people: 60 ms → under 1 ms).

Names start with ``ix_search_`` (the migration environment's ``include_object`` skips them: they
are not declared in the models).
"""

from __future__ import annotations

from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None

PG_INDEXES = (
    'CREATE INDEX ix_search_permits_number_person_c ON permits (number COLLATE "C", person_id)',
    'CREATE INDEX ix_search_vehicles_plate_holder_c ON vehicles (plate COLLATE "C", holder_id) WHERE active',
    'CREATE INDEX ix_search_vehicles_renavam_holder_c ON vehicles (renavam COLLATE "C", holder_id)',
    "CREATE INDEX ix_search_people_id_keys ON people (id) INCLUDE (name_search, cpf)",
    # the walk in name order tests each person's permits: the number rides along (index only)
    "CREATE INDEX ix_search_permits_person ON permits (person_id) INCLUDE (number)",
)
PG_INDEX_NAMES = tuple(statement.split()[2] for statement in PG_INDEXES)
#: 0002's indexes these replace (a prefix of their columns), and how to build them again.
PG_REPLACED = {
    "ix_search_permits_person": "CREATE INDEX ix_search_permits_person ON permits (person_id)",
    "ix_search_permits_number_c": 'CREATE INDEX ix_search_permits_number_c ON permits (number COLLATE "C")',
    "ix_search_vehicles_plate_c": 'CREATE INDEX ix_search_vehicles_plate_c ON vehicles (plate COLLATE "C") WHERE active',
    "ix_search_vehicles_renavam_c": 'CREATE INDEX ix_search_vehicles_renavam_c ON vehicles (renavam COLLATE "C")',
}

SQLITE_INDEXES = (
    "CREATE INDEX ix_search_people_cpf_name ON people (cpf, name_search)",
    "CREATE INDEX ix_search_permits_number_person ON permits (number, person_id)",
    "CREATE INDEX ix_search_vehicles_plate_holder ON vehicles (plate, holder_id) WHERE active = 1",
    "CREATE INDEX ix_search_vehicles_renavam_holder ON vehicles (renavam, holder_id)",
    # The walk in name order (a dense CPF prefix, dense permit numbers) reads only indexes: the
    # names in (name, id) order with the CPF, and each person's permit numbers. 0012's
    # (name_search, cpf) held the CPF but not the id order, so SQLite walked the table instead.
    "CREATE INDEX ix_search_people_name_id_cpf ON people (name_search, id, cpf)",
    "CREATE INDEX ix_search_permits_person_number ON permits (person_id, number)",
)
#: 0012's index this replaces, and how to build it again.
SQLITE_REPLACED = {"ix_search_people_name_cpf": "CREATE INDEX ix_search_people_name_cpf ON people (name_search, cpf)"}
SQLITE_INDEX_NAMES = tuple(statement.split()[2] for statement in SQLITE_INDEXES)


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for name in PG_REPLACED:
            op.execute(f"DROP INDEX IF EXISTS {name}")
        for statement in PG_INDEXES:
            op.execute(statement)
    else:
        for name in SQLITE_REPLACED:
            op.execute(f"DROP INDEX IF EXISTS {name}")
        for statement in SQLITE_INDEXES:
            op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for name in reversed(PG_INDEX_NAMES):
            op.execute(f"DROP INDEX IF EXISTS {name}")
        for statement in PG_REPLACED.values():
            op.execute(statement)
    else:
        for name in reversed(SQLITE_INDEX_NAMES):
            op.execute(f"DROP INDEX IF EXISTS {name}")
        for statement in SQLITE_REPLACED.values():
            op.execute(statement)
