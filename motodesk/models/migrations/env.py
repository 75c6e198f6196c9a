"""Alembic environment: runs on the connection of a motodesk Database (SQLite or PostgreSQL)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from motodesk.models import Base

config = context.config
target_metadata = Base.metadata

# Dialect-specific search indexes of revision 0002 (trigram and "C"-collated) are not declared in
# the models; keep autogenerate and `alembic check` from reporting them.
UNDECLARED_PREFIXES = ("ix_search_", "people_fts")
# PostgreSQL only, the owner's functions' own tables (revision 0019, motodesk.models.roles; revision 0023,
# motodesk.models.audit_pg's staged audit): no model.
UNDECLARED_TABLES = frozenset({"role_password_marks", "audit_staging", "audit_seal_marks"})


def include_object(obj, name, type_, reflected, compare_to):  # noqa: ANN001, ANN201
    if reflected and compare_to is None and name and name.startswith(UNDECLARED_PREFIXES):
        return False
    if reflected and compare_to is None and type_ == "table" and name in UNDECLARED_TABLES:
        return False
    return True


def _run(connection, **options) -> None:  # noqa: ANN001, ANN003
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
        include_object=include_object,
        **options,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    given = config.attributes.get("connection")
    if given is not None:  # a caller's connection, inside its own transaction: it commits or rolls back
        schema = config.attributes.get("version_table_schema")
        _run(given, **({"version_table_schema": schema} if schema else {}))
        return
    database = config.attributes.get("database")
    if database is not None:
        engine = database.engine
    else:  # plain `alembic` command line: sqlalchemy.url from the config
        url = config.get_main_option("sqlalchemy.url")
        if not url:
            raise RuntimeError("alembic: set sqlalchemy.url in the config (or run through motodesk)")
        engine = create_engine(url)
    with engine.connect() as connection:
        _run(connection)
        if connection.in_transaction():
            connection.commit()


run_migrations_online()
