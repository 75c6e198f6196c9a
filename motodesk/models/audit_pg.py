"""The audit trail's database side on PostgreSQL: triggers, the chain, the append-only guards.

Installed by :func:`install_guards` after every upgrade (re-exported by :mod:`motodesk.models.audit`).

From revision 0023 on (issue 28) a change is not chained where it happens. Each INSERT and DELETE
statement on an audited table stages its audit rows set-based, from its transition table, into
``audit_staging`` (an AFTER … FOR EACH STATEMENT trigger), and each updated row is staged by an
immediate row trigger; neither takes a lock. The first staging of a transaction also inserts its
``audit_seal_marks`` row (``ON CONFLICT DO NOTHING``), whose deferred constraint trigger runs
``motodesk_audit_seal()`` once at commit: it takes the chain's advisory lock (the transaction's last
lock, so two writers never wait on each other's rows while one holds it), hashes the transaction's
staged rows in one loop, appends them in one INSERT and clears them. The per-row BEFORE INSERT chain
trigger still seals every other row inserted into ``audit_events`` (its WHEN clause lets only a
trigger's insert that brings its hashes pass: the seal's; no setting can ask for it, and no profile
may insert into the trail or the staging tables). A database before 0023 keeps the deferred row
triggers that append directly (the revisions before it run this module's current code).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, inspect
from sqlalchemy import types as sqltypes

#: The owner's tables of the staged audit (revision 0023, PostgreSQL only; no profile may touch them).
STAGING_TABLES = frozenset({"audit_staging", "audit_seal_marks"})
#: Trigger names beside ``motodesk_audit`` (the INSERT one) on an audited table with staging.
_STAGED_TRIGGERS = ("motodesk_audit_delete", "motodesk_audit_update")

#: The column lists every audit trigger function receives (see :func:`_pg_column_arguments`), declared
#: once for the row-level and the staged function alike.
_TRIGGER_ARGUMENTS = """pk text[] := string_to_array(TG_ARGV[0], ',');
  bytea_cols text[] := string_to_array(TG_ARGV[1], ',');
  ts_cols text[] := string_to_array(TG_ARGV[2], ',');
  num_cols text[] := string_to_array(TG_ARGV[3], ',');
  secret_cols text[] := string_to_array(TG_ARGV[4], ',');
  secret_keys text[] := string_to_array(TG_ARGV[5], ',');"""

_PG_FUNCTIONS = r"""
CREATE OR REPLACE FUNCTION motodesk_audit_part(value text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT char_length(coalesce(value, '')) || ':' || coalesce(value, '') || ';' $$;

CREATE OR REPLACE FUNCTION motodesk_audit_hash(row_id bigint, at timestamp, user_login text, table_name text,
                                               row_key text, action text, changes text, prev_hash text)
RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT encode(sha256(convert_to(
    motodesk_audit_part(row_id::text) || motodesk_audit_part(to_char(at, 'YYYY-MM-DD HH24:MI:SS.US'))
    || motodesk_audit_part(user_login) || motodesk_audit_part(table_name) || motodesk_audit_part(row_key)
    || motodesk_audit_part(action) || motodesk_audit_part(changes) || motodesk_audit_part(prev_hash),
    'UTF8')), 'hex')
$$;

CREATE OR REPLACE FUNCTION motodesk_audit_chain() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  prev text;
  last_id bigint;
  seq text := pg_get_serial_sequence('public.audit_events', 'id');
BEGIN
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'audit_events: the chain is appended only in READ COMMITTED transactions';
  END IF;
  PERFORM pg_advisory_xact_lock(@LOCK_A@, @LOCK_B@);
  -- The id is taken under the lock, so ids follow the chain's order whatever the commit order
  -- (and past any row written with an explicit id).
  SELECT id, row_hash INTO last_id, prev FROM audit_events ORDER BY id DESC LIMIT 1;
  NEW.id := nextval(seq);
  IF NEW.id <= coalesce(last_id, 0) THEN
    NEW.id := last_id + 1;
    PERFORM setval(seq, NEW.id);
  END IF;
  NEW.prev_hash := coalesce(prev, '');
  NEW.row_hash := motodesk_audit_hash(NEW.id, NEW.at, NEW.user_login, NEW.table_name, NEW.row_key,
                                      NEW.action, NEW.changes, NEW.prev_hash);
  RETURN NEW;
END $$;

CREATE OR REPLACE FUNCTION motodesk_audit_row() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  @TRIGGER_ARGUMENTS@
  noise text[] := string_to_array(TG_ARGV[6], ',');
  old_j jsonb;
  new_j jsonb;
  row_j jsonb;
  diff jsonb := '{}'::jsonb;
  k text;
  o jsonb;
  n jsonb;
  key text;
  secret boolean;
BEGIN
  IF TG_OP <> 'INSERT' THEN old_j := to_jsonb(OLD); END IF;
  IF TG_OP <> 'DELETE' THEN new_j := to_jsonb(NEW); END IF;
  row_j := coalesce(new_j, old_j);
  SELECT string_agg(row_j ->> c, ',' ORDER BY i) INTO key FROM unnest(pk) WITH ORDINALITY AS u(c, i);
  secret := coalesce(key = ANY(secret_keys), false)
            OR (coalesce(current_setting('@REDACT_SETTING@', true), '') = 'on' AND motodesk_redact_allowed());
  IF TG_OP = 'INSERT' THEN
    -- One set-based pass instead of the loop below (an import inserts tens of thousands of rows):
    -- the same object, so the same canonical jsonb text, as the loop builds.
    SELECT coalesce(jsonb_object_agg(e.key, CASE
             WHEN secret OR e.key = ANY(secret_cols) THEN jsonb_build_array('***', '***')
             WHEN e.key = ANY(bytea_cols) THEN
               jsonb_build_array(NULL, to_jsonb('<' || (length(e.value #>> '{}') - 2) / 2 || ' bytes>'))
             WHEN e.key = ANY(ts_cols) THEN jsonb_build_array(NULL, to_jsonb((e.value #>> '{}') || '+00:00'))
             WHEN e.key = ANY(num_cols) THEN jsonb_build_array(NULL, to_jsonb(e.value #>> '{}'))
             ELSE jsonb_build_array(NULL, e.value) END), '{}'::jsonb)
      INTO diff
      FROM jsonb_each(new_j) AS e
     WHERE e.value <> 'null'::jsonb AND NOT (e.key = ANY(coalesce(noise, '{}')));
    INSERT INTO audit_events (at, user_login, table_name, row_key, action, changes)
    VALUES (now() AT TIME ZONE 'UTC',
            left(motodesk_actor(), 64),
            TG_TABLE_NAME, left(coalesce(key, ''), 128), 'insert', diff::text);
    RETURN NULL;
  END IF;
  FOR k IN SELECT jsonb_object_keys(row_j) LOOP
    CONTINUE WHEN k = ANY(noise);
    o := coalesce(old_j -> k, 'null'::jsonb);
    n := coalesce(new_j -> k, 'null'::jsonb);
    CONTINUE WHEN TG_OP = 'INSERT' AND n = 'null'::jsonb;
    CONTINUE WHEN TG_OP = 'DELETE' AND o = 'null'::jsonb;
    CONTINUE WHEN TG_OP = 'UPDATE' AND o = n;
    IF secret OR k = ANY(secret_cols) THEN
      diff := diff || jsonb_build_object(k, jsonb_build_array('***', '***'));
      CONTINUE;
    END IF;
    IF k = ANY(bytea_cols) THEN
      IF o <> 'null'::jsonb THEN o := to_jsonb('<' || (length(o #>> '{}') - 2) / 2 || ' bytes>'); END IF;
      IF n <> 'null'::jsonb THEN n := to_jsonb('<' || (length(n #>> '{}') - 2) / 2 || ' bytes>'); END IF;
    ELSIF k = ANY(ts_cols) THEN
      IF o <> 'null'::jsonb THEN o := to_jsonb((o #>> '{}') || '+00:00'); END IF;
      IF n <> 'null'::jsonb THEN n := to_jsonb((n #>> '{}') || '+00:00'); END IF;
    ELSIF k = ANY(num_cols) THEN
      IF o <> 'null'::jsonb THEN o := to_jsonb(o #>> '{}'); END IF;
      IF n <> 'null'::jsonb THEN n := to_jsonb(n #>> '{}'); END IF;
    END IF;
    diff := diff || jsonb_build_object(k, jsonb_build_array(o, n));
  END LOOP;
  IF TG_OP = 'UPDATE' AND diff = '{}'::jsonb THEN
    RETURN NULL;
  END IF;
  IF TG_ARGV[7] = 'stage' THEN  -- an immediate row trigger: staged in statement order, sealed at commit
    INSERT INTO audit_staging (txid, at, table_name, row_key, action, changes)
    VALUES (txid_current(), now() AT TIME ZONE 'UTC', TG_TABLE_NAME, left(coalesce(key, ''), 128), lower(TG_OP),
            diff::text);
    INSERT INTO audit_seal_marks (txid) VALUES (txid_current()) ON CONFLICT DO NOTHING;
    RETURN NULL;
  END IF;
  INSERT INTO audit_events (at, user_login, table_name, row_key, action, changes)
  VALUES (now() AT TIME ZONE 'UTC',
          left(motodesk_actor(), 64),
          TG_TABLE_NAME, left(coalesce(key, ''), 128), lower(TG_OP), diff::text);
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION motodesk_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP;
END $$;

-- Every value of a secret row (or of a redacted transaction) hidden, its keys kept.
CREATE OR REPLACE FUNCTION motodesk_audit_masked(diff jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(jsonb_object_agg(k, '["***", "***"]'::jsonb), '{}'::jsonb) FROM jsonb_object_keys(diff) AS k
$$;

-- Staged audit (revision 0023): the rows one INSERT or DELETE statement wrote or removed, set-based,
-- with the same canonical jsonb (so the same text) as motodesk_audit_row builds row by row.
CREATE OR REPLACE FUNCTION motodesk_audit_stage() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  @TRIGGER_ARGUMENTS@
  noise text[] := coalesce(string_to_array(TG_ARGV[6], ','), '{}');
  redact boolean := coalesce(current_setting('@REDACT_SETTING@', true), '') = 'on' AND motodesk_redact_allowed();
  staged bigint;
BEGIN
  -- The table's own statement (install_guards wrote it from its columns), while the columns are those:
  -- the changes' text spelled out, no jsonb per row. Else (a migration between two installs) the generic one.
  IF TG_ARGV[7] = (SELECT string_agg(a.attname::text, ',' ORDER BY a.attnum) FROM pg_attribute a
                    WHERE a.attrelid = TG_RELID AND a.attnum > 0 AND NOT a.attisdropped) THEN
    EXECUTE format('INSERT INTO audit_staging (txid, at, table_name, row_key, action, changes) '
                   'SELECT txid_current(), now() AT TIME ZONE ''UTC'', $1, left(coalesce(%1$s, ''''), 128), $2, '
                   'CASE WHEN $3 OR coalesce(%1$s = ANY($4), false) THEN motodesk_audit_masked((%2$s)::jsonb)::text '
                   'ELSE %2$s END FROM %3$s AS t',
                   TG_ARGV[8], CASE TG_OP WHEN 'INSERT' THEN TG_ARGV[9] ELSE TG_ARGV[10] END,
                   CASE TG_OP WHEN 'INSERT' THEN 'motodesk_new' ELSE 'motodesk_old' END)
      USING TG_TABLE_NAME::text, lower(TG_OP), redact, secret_keys;
  ELSIF TG_OP = 'INSERT' THEN
@STAGE_INSERT@
  ELSE
@STAGE_DELETE@
  END IF;
  GET DIAGNOSTICS staged = ROW_COUNT;
  IF staged > 0 THEN
    INSERT INTO audit_seal_marks (txid) VALUES (txid_current()) ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;

-- At commit (deferred constraint trigger of the transaction's mark): the chain's lock, then every
-- staged row of the transaction hashed in order (motodesk_audit_hash's text) and appended at once.
CREATE OR REPLACE FUNCTION motodesk_audit_seal() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  seq text := pg_get_serial_sequence('public.audit_events', 'id');
  actor text;
  actor_part text;
  total bigint;
  last_id bigint;
  next_id bigint;
  first_prev text;
  prev text;
  at_seen timestamp;
  at_part text;
  id_text text;
  r record;
  i integer := 0;
  hashes text[];
BEGIN
  DELETE FROM audit_seal_marks WHERE txid = NEW.txid;  -- a later staging (a later deferred write) marks anew
  SELECT count(*) INTO total FROM audit_staging WHERE txid = NEW.txid;
  IF total = 0 THEN
    RETURN NULL;
  END IF;
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'audit_events: the chain is appended only in READ COMMITTED transactions';
  END IF;
  actor := left(motodesk_actor(), 64);
  actor_part := char_length(actor) || ':' || actor || ';';
  PERFORM pg_advisory_xact_lock(@LOCK_A@, @LOCK_B@);
  SELECT id, row_hash INTO last_id, prev FROM audit_events ORDER BY id DESC LIMIT 1;
  prev := coalesce(prev, '');
  first_prev := prev;
  next_id := nextval(seq);
  IF next_id <= coalesce(last_id, 0) THEN
    next_id := last_id + 1;
  END IF;
  PERFORM setval(seq, next_id + total - 1);
  -- motodesk_audit_hash's text, spelled out: one loop, no function call per field.
  FOR r IN SELECT s.at, s.table_name, s.row_key, s.action, s.changes FROM audit_staging s
            WHERE s.txid = NEW.txid ORDER BY s.seq LOOP
    IF at_seen IS DISTINCT FROM r.at THEN
      at_seen := r.at;
      at_part := to_char(r.at, 'YYYY-MM-DD HH24:MI:SS.US');
      at_part := char_length(at_part) || ':' || at_part || ';';
    END IF;
    id_text := (next_id + i)::text;
    i := i + 1;
    prev := encode(sha256(convert_to(
      char_length(id_text) || ':' || id_text || ';' || at_part || actor_part
      || char_length(r.table_name) || ':' || r.table_name || ';' || char_length(r.row_key) || ':' || r.row_key || ';'
      || char_length(r.action) || ':' || r.action || ';' || char_length(r.changes) || ':' || r.changes || ';'
      || char_length(prev) || ':' || prev || ';', 'UTF8')), 'hex');
    hashes[i] := prev;
  END LOOP;
  INSERT INTO audit_events (id, at, user_login, table_name, row_key, action, changes, prev_hash, row_hash)
  SELECT next_id + s.n - 1, s.at, actor, s.table_name, s.row_key, s.action, s.changes,
         coalesce(lag(h.hash) OVER (ORDER BY s.n), first_prev), h.hash
    FROM (SELECT st.at, st.table_name, st.row_key, st.action, st.changes,
                 row_number() OVER (ORDER BY st.seq) AS n
            FROM audit_staging st WHERE st.txid = NEW.txid) AS s
    JOIN unnest(hashes) WITH ORDINALITY AS h(hash, n) ON h.n = s.n
   ORDER BY s.n;
  DELETE FROM audit_staging WHERE txid = NEW.txid;
  RETURN NULL;
END $$;
"""

# One statement's staged rows, from its transition table: an insert's values as [null, new], a delete's as
# [old, null] (the pairs motodesk_audit_row builds).
_STAGE_SELECT = r"""
    INSERT INTO audit_staging (txid, at, table_name, row_key, action, changes)
    SELECT txid_current(), now() AT TIME ZONE 'UTC', TG_TABLE_NAME, left(coalesce(k.key, ''), 128), '@ACTION@',
           d.diff::text
      FROM (SELECT to_jsonb(t) AS j FROM @SOURCE@ AS t) AS r
     CROSS JOIN LATERAL (SELECT string_agg(r.j ->> c, ',' ORDER BY i) AS key
                           FROM unnest(pk) WITH ORDINALITY AS u(c, i)) AS k
     CROSS JOIN LATERAL (
       SELECT coalesce(jsonb_object_agg(e.key, CASE
                WHEN redact OR coalesce(k.key = ANY(secret_keys), false) OR e.key = ANY(secret_cols)
                  THEN jsonb_build_array('***', '***')
                ELSE jsonb_build_array(@PAIR@) END), '{}'::jsonb) AS diff
         FROM jsonb_each(r.j) AS e
        CROSS JOIN LATERAL (SELECT CASE
                WHEN e.key = ANY(bytea_cols) THEN to_jsonb('<' || (length(e.value #>> '{}') - 2) / 2 || ' bytes>')
                WHEN e.key = ANY(ts_cols) THEN to_jsonb((e.value #>> '{}') || '+00:00')
                WHEN e.key = ANY(num_cols) THEN to_jsonb(e.value #>> '{}')
                ELSE e.value END AS v) AS x
        WHERE e.value <> 'null'::jsonb AND NOT (e.key = ANY(noise))) AS d;
"""


def _pg_column_arguments(conn: Connection, table: str) -> list[str]:
    from motodesk.models.audit import NOISE_COLUMNS, SECRET_COLUMNS, SECRET_ROWS

    insp = inspect(conn)
    pk = insp.get_pk_constraint(table).get("constrained_columns") or []
    columns = insp.get_columns(table)
    bytea = [c["name"] for c in columns if isinstance(c["type"], sqltypes.LargeBinary)]
    stamps = [c["name"] for c in columns if isinstance(c["type"], sqltypes.DateTime)]
    numbers = [c["name"] for c in columns
               if isinstance(c["type"], sqltypes.Numeric) and not isinstance(c["type"], sqltypes.Float)]
    return [",".join(pk), ",".join(bytea), ",".join(stamps), ",".join(numbers), ",".join(sorted(SECRET_COLUMNS)),
            ",".join(sorted(SECRET_ROWS.get(table, ()))), ",".join(sorted(NOISE_COLUMNS))]


def _staged_arguments(conn: Connection, table: str) -> list[str]:
    """The staged trigger's own statement for ``table``: its columns (the check that they did not change),
    the row key and an insert's and a delete's ``changes`` text, spelled out column by column as jsonb
    prints the generic function's object (keys by length, then bytes; ``", "`` and ``": "``), so the same
    text without a jsonb built per row (issue 28)."""
    from motodesk.models.audit import NOISE_COLUMNS, SECRET_COLUMNS

    insp = inspect(conn)
    pk = insp.get_pk_constraint(table).get("constrained_columns") or []
    columns = insp.get_columns(table)
    keys = [f"(to_jsonb(t.{_identifier(n)}) #>> '{{}}')" for n in pk]
    key = "NULL::text" if not keys else keys[0] if len(keys) == 1 else f"concat_ws(',', {', '.join(keys)})"
    inserted: list[str] = []
    deleted: list[str] = []
    for c in sorted(columns, key=lambda c: (len(c["name"].encode()), c["name"].encode())):
        name = c["name"]
        if name in NOISE_COLUMNS:
            continue
        column = f"t.{_identifier(name)}"
        if name in SECRET_COLUMNS:
            inserted.append(f"""CASE WHEN {column} IS NOT NULL THEN '"{name}": ["***", "***"]' END""")
            deleted.append(inserted[-1])
            continue
        value = _staged_value(column, c["type"])
        inserted.append(f"""CASE WHEN {column} IS NOT NULL THEN '"{name}": [null, ' || {value} || ']' END""")
        deleted.append(f"""CASE WHEN {column} IS NOT NULL THEN '"{name}": [' || {value} || ', null]' END""")
    return [",".join(c["name"] for c in columns), key, _diff_expression(inserted), _diff_expression(deleted)]


def _staged_value(column: str, kind: Any) -> str:
    """A non-null column's value as the generic function's jsonb prints it (bytea, timestamps and
    numerics as it spells them; json's own text where it is jsonb's, jsonb's elsewhere)."""
    if isinstance(kind, sqltypes.LargeBinary):
        return f"""'"<' || octet_length({column}) || ' bytes>"'"""
    if isinstance(kind, sqltypes.DateTime):
        return f"""'"' || (to_json({column}) #>> '{{}}') || '+00:00"'"""
    if isinstance(kind, sqltypes.Numeric) and not isinstance(kind, sqltypes.Float):
        return f"""'"' || ({column})::text || '"'"""
    if isinstance(kind, (sqltypes.Integer, sqltypes.String, sqltypes.Boolean, sqltypes.Date)):
        return f"to_json({column})::text"  # a float, an array, a json value: printed as jsonb prints it
    return f"to_jsonb({column})::text"


def _diff_expression(entries: list[str]) -> str:
    # concat_ws takes at most 100 arguments (and skips NULLs: the columns not set).
    parts = [f"nullif(concat_ws(', ', {', '.join(entries[i:i + 90])}), '')" for i in range(0, len(entries), 90)]
    return f"('{{' || concat_ws(', ', {', '.join(parts)}) || '}}')" if parts else "'{}'"


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _identifier(name: str) -> str:
    if not name.replace("_", "").isalnum():
        raise ValueError(f"unexpected table name {name!r}")
    return f'"{name}"'


def _stage_select(source: str, action: str, pair: str) -> str:
    return _STAGE_SELECT.replace("@SOURCE@", source).replace("@ACTION@", action).replace("@PAIR@", pair)


def _pg_functions() -> str:
    from motodesk.models.audit import CHAIN_LOCK, REDACT_SETTING, USER_SETTING

    return (_PG_FUNCTIONS.replace("@STAGE_INSERT@", _stage_select("motodesk_new", "insert", "NULL, x.v"))
            .replace("@STAGE_DELETE@", _stage_select("motodesk_old", "delete", "x.v, NULL"))
            .replace("@LOCK_A@", str(CHAIN_LOCK[0])).replace("@LOCK_B@", str(CHAIN_LOCK[1]))
            .replace("@USER_SETTING@", USER_SETTING).replace("@REDACT_SETTING@", REDACT_SETTING)
            .replace("@TRIGGER_ARGUMENTS@", _TRIGGER_ARGUMENTS))


def install_guards(conn: Connection) -> None:
    """(Re)create the audit triggers and the append-only guards for every table now in the database.

    Idempotent; run by the migration that introduced them and after every upgrade to the head, so a
    table added by a later migration is audited, and an append-only one guarded, without more code.
    """
    from motodesk.models.audit import APPEND_ONLY_TABLES

    # The tables of the schema being built (a backup's scratch schema too), not the default one's.
    schema = conn.exec_driver_sql("SELECT current_schema()").scalar() if conn.dialect.name == "postgresql" else None
    tables = set(inspect(conn).get_table_names(schema=schema))
    if "audit_events" not in tables:
        return
    if conn.dialect.name != "postgresql":
        for table in sorted(tables & set(APPEND_ONLY_TABLES)):
            t = _identifier(table)
            for verb in ("UPDATE", "DELETE"):
                conn.exec_driver_sql(
                    f"CREATE TRIGGER IF NOT EXISTS {table}_no_{verb.lower()} BEFORE {verb} ON {t} "
                    f"BEGIN SELECT RAISE(ABORT, '{table} is append-only: {verb} refused'); END")
        return
    # Straight to the driver, without parameters: the functions' own '%' are not placeholders.
    cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        cursor.execute(_pg_functions())
    finally:
        cursor.close()
    from motodesk.models import roles

    # Who wrote a row: session_user (a per-user role), never a setting the session chose itself.
    roles.install_functions(conn, tables)
    conn.exec_driver_sql("DROP TRIGGER IF EXISTS audit_events_chain ON audit_events")
    # Every row is chained here but the seal's (a trigger's insert that brings its own hashes).
    conn.exec_driver_sql("CREATE TRIGGER audit_events_chain BEFORE INSERT ON audit_events FOR EACH ROW "
                         "WHEN (pg_trigger_depth() = 0 OR NEW.row_hash IS NULL OR NEW.prev_hash IS NULL) "
                         "EXECUTE FUNCTION motodesk_audit_chain()")
    for table in sorted(tables & set(APPEND_ONLY_TABLES)):
        t = _identifier(table)
        conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {table}_append_only ON {t}")
        conn.exec_driver_sql(f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {t} "
                             "FOR EACH ROW EXECUTE FUNCTION motodesk_append_only()")
        conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {table}_no_truncate ON {t}")
        conn.exec_driver_sql(f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {t} "
                             "FOR EACH STATEMENT EXECUTE FUNCTION motodesk_append_only()")
    _install_audit_triggers(conn, tables)


def _install_audit_triggers(conn: Connection, tables: set[str]) -> None:
    from motodesk.models.audit import UNAUDITED_TABLES

    staged = STAGING_TABLES <= tables
    for table in sorted(tables - UNAUDITED_TABLES - STAGING_TABLES):
        for statement in audit_trigger_statements(conn, table, staged=staged):
            conn.exec_driver_sql(statement)
    if staged:
        # Once per transaction, at commit: the chain's lock is then the last lock the transaction takes.
        conn.exec_driver_sql("DROP TRIGGER IF EXISTS audit_seal ON audit_seal_marks")
        conn.exec_driver_sql("CREATE CONSTRAINT TRIGGER audit_seal AFTER INSERT ON audit_seal_marks "
                             "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION motodesk_audit_seal()")


def audit_trigger_statements(conn: Connection, table: str, *, staged: bool) -> list[str]:
    """The DDL that (re)creates ``table``'s audit triggers: the staged ones (revision 0023 on) or, before
    it, the deferred row trigger that appends to the chain at commit."""
    from motodesk.models.audit import AUDIT_TRIGGER

    t = _identifier(table)
    columns = _pg_column_arguments(conn, table)
    statements = [f"DROP TRIGGER IF EXISTS {name} ON {t}" for name in (AUDIT_TRIGGER, *_STAGED_TRIGGERS)]
    if not staged:
        arguments = ", ".join(_quote(a) for a in columns)
        return [*statements, f"CREATE CONSTRAINT TRIGGER {AUDIT_TRIGGER} AFTER INSERT OR UPDATE OR DELETE ON {t} "
                             f"DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION motodesk_audit_row({arguments})"]
    arguments = ", ".join(_quote(a) for a in columns + _staged_arguments(conn, table))
    row_arguments = ", ".join(_quote(a) for a in [*columns, "stage"])
    return [*statements,
            f"CREATE TRIGGER {AUDIT_TRIGGER} AFTER INSERT ON {t} REFERENCING NEW TABLE AS motodesk_new "
            f"FOR EACH STATEMENT EXECUTE FUNCTION motodesk_audit_stage({arguments})",
            f"CREATE TRIGGER {_STAGED_TRIGGERS[0]} AFTER DELETE ON {t} REFERENCING OLD TABLE AS motodesk_old "
            f"FOR EACH STATEMENT EXECUTE FUNCTION motodesk_audit_stage({arguments})",
            f"CREATE TRIGGER {_STAGED_TRIGGERS[1]} AFTER UPDATE ON {t} FOR EACH ROW "
            f"EXECUTE FUNCTION motodesk_audit_row({row_arguments})"]


def remove_guards(conn: Connection) -> None:
    """Undo :func:`install_guards` on PostgreSQL (the downgrade of the migration that added them)."""
    from motodesk.models.audit import APPEND_ONLY_TABLES, AUDIT_TRIGGER

    if conn.dialect.name != "postgresql":
        return
    tables = set(inspect(conn).get_table_names())
    for table in sorted(tables):
        t = _identifier(table)
        for name in (AUDIT_TRIGGER, *_STAGED_TRIGGERS):
            conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {name} ON {t}")
        if table in APPEND_ONLY_TABLES and table != "audit_events":
            conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {table}_append_only ON {t}")
        conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {table}_no_truncate ON {t}")
    if "audit_seal_marks" in tables:
        conn.exec_driver_sql("DROP TRIGGER IF EXISTS audit_seal ON audit_seal_marks")
    if "audit_events" in tables:
        conn.exec_driver_sql("DROP TRIGGER IF EXISTS audit_events_chain ON audit_events")
        conn.exec_driver_sql("DROP TRIGGER IF EXISTS audit_events_append_only ON audit_events")
        conn.exec_driver_sql("CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events "
                             "FOR EACH ROW EXECUTE FUNCTION motodesk_audit_append_only()")
    for function in ("motodesk_audit_row()", "motodesk_audit_stage()", "motodesk_audit_seal()",
                     "motodesk_audit_masked(jsonb)",
                     "motodesk_audit_chain()", "motodesk_append_only()",
                     "motodesk_audit_hash(bigint, timestamp, text, text, text, text, text, text)",
                     "motodesk_audit_part(text)"):
        conn.exec_driver_sql(f"DROP FUNCTION IF EXISTS {function}")


def without_triggers(conn: Connection) -> None:
    """PostgreSQL, superuser only: this transaction's writes fire no trigger (a restore copying rows
    that already carry their audit trail and chain). Plain ``SET LOCAL session_replication_role``."""
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql("SET LOCAL session_replication_role = replica")
