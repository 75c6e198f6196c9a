"""What a database's schema IS, read from its catalogs, to compare with what the migrations build.

`describe_schema(conn)` maps every schema object to its definition: on SQLite every row of
`sqlite_master` (tables, indexes, triggers, views, with their SQL); on PostgreSQL, outside the
system schemas and leaving out the members of extensions, every table, view, sequence, column
(type, nullability, default, identity, collation), constraint, index, trigger (and whether it is
enabled), function, type, rule, policy, extension, schema and event trigger. Nothing names the
tables of MotoDesk: whatever the shipped migrations create is compared, so new migrations are
covered without touching this module.

`reference_schema(kind, revision)` builds that reference from the shipped migrations: a scratch
SQLite file for SQLite; for PostgreSQL the restore migrates the (empty) target itself and reads it.
"""

from __future__ import annotations

import functools
import re
import uuid
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, event

if TYPE_CHECKING:
    from motodesk.models.db import Database

SchemaDescription = dict[str, str]

_SPACE = re.compile(r"\s+")

# kind of object -> pt_BR word used in messages
_WORDS = {
    "table": "tabela", "index": "índice", "trigger": "gatilho", "view": "visão", "column": "coluna",
    "constraint": "restrição", "function": "função", "sequence": "sequência", "type": "tipo", "rule": "regra",
    "policy": "política", "extension": "extensão", "schema": "esquema", "event_trigger": "gatilho de evento",
    "relation": "objeto",
}


def _norm(sql: str | None) -> str:
    return _SPACE.sub(" ", sql or "").strip()


_TABLE_CONSTRAINT = ("CONSTRAINT ", "PRIMARY KEY", "UNIQUE", "CHECK", "FOREIGN KEY")


def _top_level_items(body: str) -> list[str]:
    """The comma-separated items of a CREATE TABLE body, commas inside parentheses or quotes kept."""
    items, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(body):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"`[":
            quote = "]" if ch == "[" else ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(body[start:i].strip())
            start = i + 1
    items.append(body[start:].strip())
    return items


def _norm_table(sql: str) -> str:
    """A CREATE TABLE with its table constraints in a fixed order.

    SQLite keeps the text it was given, and Alembic's batch mode (which rebuilds a table to alter
    it) writes the table's constraints in the order it reflected them, which varies from one
    process to the next: two databases built by the same migrations may differ only in that order.
    Columns keep their order, which is part of the schema.
    """
    text_ = _norm(sql)
    open_, close = text_.find("("), text_.rfind(")")
    if not text_.upper().startswith("CREATE TABLE") or open_ < 0 or close < open_:
        return text_
    items = _top_level_items(text_[open_ + 1:close])
    columns = [i for i in items if not i.upper().startswith(_TABLE_CONSTRAINT)]
    constraints = sorted(i for i in items if i.upper().startswith(_TABLE_CONSTRAINT))
    return f"{text_[:open_ + 1]} {', '.join(columns + constraints)} {text_[close:]}"


def describe_sqlite(conn: Connection) -> SchemaDescription:
    rows = conn.exec_driver_sql(
        "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
    ).all()
    return {f"{kind} {name}": f"on {table}: {_norm_table(sql) if kind == 'table' else _norm(sql)}"
            for kind, name, table, sql in rows}


_PG_USER_NS = ("n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%' "
               "AND n.nspname NOT LIKE 'pg\\_temp\\_%'")


def _not_extension_member(catalog: str, oid: str) -> str:
    return (f"NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = '{catalog}'::regclass "
            f"AND d.objid = {oid} AND d.deptype = 'e')")


_PG_QUERIES: dict[str, str] = {
    "schema": f"SELECT n.nspname, '' FROM pg_namespace n WHERE {_PG_USER_NS} "
              f"AND {_not_extension_member('pg_namespace', 'n.oid')}",
    "extension": "SELECT e.extname, n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace",
    "relation": f"""SELECT n.nspname || '.' || c.relname,
                        'kind=' || c.relkind::text || ' persistence=' || c.relpersistence::text || ' rls=' || c.relrowsecurity::text
                        || coalesce(' view=' || pg_get_viewdef(c.oid), '')
                    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                    WHERE c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f', 'c') AND {_PG_USER_NS}
                      AND {_not_extension_member('pg_class', 'c.oid')}""",
    "column": f"""SELECT n.nspname || '.' || c.relname || '.' || a.attname,
                      format_type(a.atttypid, a.atttypmod) || ' notnull=' || a.attnotnull::text
                      || ' default=' || coalesce(pg_get_expr(ad.adbin, ad.adrelid), '')
                      || ' identity=' || a.attidentity::text || ' generated=' || a.attgenerated::text
                      || ' collation=' || coalesce(co.collname, '')
                  FROM pg_attribute a
                  JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
                  LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
                  LEFT JOIN pg_collation co ON co.oid = a.attcollation AND a.attcollation <> 0
                       AND co.collname <> 'default'
                  WHERE a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'c')
                    AND {_PG_USER_NS} AND {_not_extension_member('pg_class', 'c.oid')}""",
    "constraint": f"""SELECT n.nspname || '.' || coalesce(c.relname, t.typname, '') || '.' || con.conname,
                          pg_get_constraintdef(con.oid) || ' deferrable=' || con.condeferrable::text
                          || ' validated=' || con.convalidated::text
                      FROM pg_constraint con JOIN pg_namespace n ON n.oid = con.connamespace
                      LEFT JOIN pg_class c ON c.oid = con.conrelid LEFT JOIN pg_type t ON t.oid = con.contypid
                      WHERE {_PG_USER_NS} AND {_not_extension_member('pg_constraint', 'con.oid')}""",
    "index": f"""SELECT n.nspname || '.' || ci.relname, pg_get_indexdef(i.indexrelid)
                 FROM pg_index i JOIN pg_class ci ON ci.oid = i.indexrelid
                 JOIN pg_namespace n ON n.oid = ci.relnamespace
                 WHERE {_PG_USER_NS} AND {_not_extension_member('pg_class', 'ci.oid')}""",
    "trigger": f"""SELECT n.nspname || '.' || c.relname || '.' || t.tgname,
                       pg_get_triggerdef(t.oid) || ' enabled=' || t.tgenabled::text
                   FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
                   JOIN pg_namespace n ON n.oid = c.relnamespace
                   WHERE NOT t.tgisinternal AND {_PG_USER_NS}""",
    "function": f"""SELECT n.nspname || '.' || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')',
                        CASE WHEN p.prokind IN ('f', 'p') THEN pg_get_functiondef(p.oid)
                             ELSE 'kind=' || p.prokind::text END || ' secdef=' || p.prosecdef::text
                    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                    WHERE {_PG_USER_NS} AND {_not_extension_member('pg_proc', 'p.oid')}""",
    "type": f"""SELECT n.nspname || '.' || t.typname, 'kind=' || t.typtype::text
                FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
                WHERE t.typtype IN ('e', 'd', 'r', 'm') AND {_PG_USER_NS}
                  AND {_not_extension_member('pg_type', 't.oid')}""",
    "rule": f"""SELECT n.nspname || '.' || c.relname || '.' || r.rulename, pg_get_ruledef(r.oid)
                FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE NOT (r.rulename = '_RETURN' AND c.relkind IN ('v', 'm')) AND {_PG_USER_NS}""",
    "policy": f"""SELECT n.nspname || '.' || c.relname || '.' || p.polname,
                      p.polcmd::text || ' ' || coalesce(pg_get_expr(p.polqual, p.polrelid), '') || ' '
                      || coalesce(pg_get_expr(p.polwithcheck, p.polrelid), '')
                  FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid JOIN pg_namespace n ON n.oid = c.relnamespace
                  WHERE {_PG_USER_NS}""",
    "event_trigger": "SELECT evtname, evtevent || ' ' || evtfoid::regproc::text || ' enabled=' || evtenabled::text "
                     "FROM pg_event_trigger",
}


def describe_postgresql(conn: Connection) -> SchemaDescription:
    found: SchemaDescription = {}
    for kind, query in _PG_QUERIES.items():
        for name, definition in conn.exec_driver_sql(query.replace("%", "%%")).all():
            found[f"{kind} {name}"] = _norm(definition)
    return found


def describe_schema(conn: Connection) -> SchemaDescription:
    return describe_sqlite(conn) if conn.dialect.name == "sqlite" else describe_postgresql(conn)


@functools.cache
def _sqlite_reference(revision: str) -> tuple[tuple[str, str], ...]:
    from motodesk.models.db import Database

    # In memory: no scratch file, so a full disk or a file-size limit cannot fail the reference.
    db = Database.open("sqlite:///:memory:")
    try:
        db.upgrade(revision)
        with db.engine.connect() as conn:
            return tuple(sorted(describe_sqlite(conn).items()))
    finally:
        db.dispose()


def sqlite_reference(revision: str) -> SchemaDescription:
    """The schema the shipped migrations build on SQLite at `revision` (a scratch file, cached)."""
    return dict(_sqlite_reference(revision))


_GLOBAL_KINDS = ("schema", "extension", "event_trigger")
_CREATE_EXTENSION = re.compile(r"CREATE\s+EXTENSION\s+(?:IF\s+NOT\s+EXISTS\s+)?\"?([A-Za-z0-9_]+)", re.IGNORECASE)
#: Every PostgreSQL database has it (template1 brings it): a new restore target has it too.
_BUILTIN_EXTENSIONS = ("plpgsql",)


def _scratch_schema(conn: Connection) -> str:
    """A new scratch schema in this transaction: created directly when the role may create schemas
    (the database owner), else by the owner's ``motodesk_reference_schema()`` (per-user roles: an
    administrator's own role has no CREATE on the database; the schema it gets cannot be
    committed)."""
    may_create = conn.exec_driver_sql("SELECT has_database_privilege(current_database(), 'CREATE')").scalar()
    helper = conn.exec_driver_sql("SELECT to_regprocedure('motodesk_reference_schema()') IS NOT NULL").scalar()
    if not may_create and helper:
        return str(conn.exec_driver_sql("SELECT motodesk_reference_schema()").scalar_one())
    scratch = f"motodesk_referencia_{uuid.uuid4().hex[:12]}"
    conn.exec_driver_sql(f'CREATE SCHEMA "{scratch}"')
    return scratch


def postgresql_reference(db: Database, revision: str) -> SchemaDescription:
    """The schema the shipped migrations build on PostgreSQL at `revision`, as a new restore target
    would have it, built on this server without touching the live schema.

    The migrations run in a scratch schema of the same database (`search_path` = scratch, then
    the live schema, where the extensions' operators live) inside ONE transaction that is rolled
    back: nothing stays, even if the process is killed (the server rolls it back). The scratch
    objects are then named as the live schema's. Needs the right to create a schema in the
    database (the database owner has it), or an administrator's role on a database with per-user
    roles (the owner's function makes the scratch schema, :func:`_scratch_schema`).
    """
    created: set[str] = set()

    def watch(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        created.update(m.lower() for m in _CREATE_EXTENSION.findall(statement))

    with db.engine.connect() as conn:
        try:
            live = str(conn.exec_driver_sql("SELECT current_schema()").scalar_one())
            before = describe_postgresql(conn)
            scratch = _scratch_schema(conn)
            conn.exec_driver_sql(f'SET LOCAL search_path TO "{scratch}", "{live}"')
            event.listen(conn, "before_cursor_execute", watch)
            try:
                db.upgrade_on(conn, revision, version_table_schema=scratch, grants=False)
            finally:
                event.remove(conn, "before_cursor_execute", watch)
            after = describe_postgresql(conn)
        finally:
            conn.rollback()
    prefix = f"{scratch}."
    reference: SchemaDescription = {f"schema {live}": ""}
    for key, definition in after.items():
        kind, _, name = key.partition(" ")
        if kind == "extension":
            if name in created or name in _BUILTIN_EXTENSIONS:
                reference[key] = definition
        elif kind == "event_trigger":
            if key not in before:
                reference[key] = definition
        elif kind != "schema" and name.startswith(prefix):
            renamed = definition.replace(f'"{scratch}".', f"{live}.").replace(prefix, f"{live}.")
            reference[f"{kind} {live}.{name[len(prefix):]}"] = renamed
    return reference


def differences(expected: SchemaDescription, found: SchemaDescription) -> list[str]:
    """pt_BR differences: objects missing, extra or defined otherwise in `found` (empty: the same)."""
    problems = []
    for key in sorted(set(expected) | set(found)):
        kind, _, name = key.partition(" ")
        word = f"{_WORDS.get(kind, kind)} {name}"
        if key not in found:
            problems.append(f"falta {word}")
        elif key not in expected:
            problems.append(f"{word} a mais (não criado pelas migrações do MotoDesk)")
        elif expected[key] != found[key]:
            problems.append(f"{word} diferente")
    return problems
