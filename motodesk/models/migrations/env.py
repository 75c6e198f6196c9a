"""Alembic environment: runs on the connection of a motodesk Database (SQLite or PostgreSQL)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from motodesk.models import Base

config = context.config
target_metadata = Base.metadata


def run_migrations_online() -> None:
    database = config.attributes.get("database")
    if database is not None:
        engine = database.engine
    else:  # plain `alembic` command line: sqlalchemy.url from the config
        engine = create_engine(config.get_main_option("sqlalchemy.url"))
    with engine.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
            compare_type=True,
        )
        with context.begin_transaction():
            context.run_migrations()
        if connection.in_transaction():
            connection.commit()


run_migrations_online()
