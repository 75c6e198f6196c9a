"""PostgreSQL: one database role per MotoDesk user, authenticated by the server (SCRAM-SHA-256).

**Names.**  Roles are the cluster's, not the database's, so every name this module makes starts with
the database's prefix ``md_<database>_`` (:func:`prefix`; the database name lower-cased, anything
but ``a-z0-9_`` turned into ``_``, cut at 24 characters): two MotoDesk databases on one server never
share a role. (Two database names that differ only in such characters, or in their 25th character
on, share one: give MotoDesk databases plainly different names.) Renaming a database changes its
prefix: run ``motodesk init-db --per-user-roles`` again after a rename.

* ``md_<db>_u_<login>`` — the user's own role, LOGIN with the user's password, member of exactly one
  profile group; NOLOGIN while the user is disabled or locked.
* ``md_<db>_clerk`` / ``_inspector`` / ``_supervisor`` / ``_admin`` — the profile groups (NOLOGIN) that
  hold the table privileges (:data:`PROFILE_WRITES`).
* ``md_<db>_gate`` — the group of the workstations' pre-login role (the role of the URL a
  workstation is configured with): it reads the schema version and counts a failed login
  (``motodesk_login_failed``), nothing else.

**Who did it.**  ``session_user`` is the login the server authenticated; no SQL of the session can
change it. The audit trail and the access log take the author from it (``motodesk_actor()``): a
per-user role is its MotoDesk login whatever ``motodesk.user`` says, and ``motodesk.redact`` is
obeyed only in an administrator's session. Only the database owner (who runs the migrations, and
could rewrite the triggers anyway) and databases without per-user roles keep the old setting.

**What the server does for the application.**  The owner's ``SECURITY DEFINER`` functions do the
few writes a user may not do himself: count a failed login and lock at the limit (``ALTER ROLE …
NOLOGIN``), clear the counter on a login, set a user's new password and end "temporary password"
in one step (``motodesk_change_own_password(verifier)``; ``motodesk_own_password_changed()`` clears
the flag only when ``pg_authid`` shows a verifier other than the one the administrator set, whose
digest ``role_password_marks`` keeps; a trigger on ``users`` refuses clearing one's own flag by
writing the row), and (administrators only) create, enable, disable and re-password a user's role from
the ``users`` row (``motodesk_sync_role``), give a backup's reference schema a scratch schema that
can only be rolled back (``motodesk_reference_schema``), and write anonymisation's "why" audit rows
(``motodesk_audit_anonymisation``); from the pre-login role, create the first administrator of a
database without users (``motodesk_create_first_admin``, which is what the owner's CREATEROLE is
for). Passwords reach the server as SCRAM verifiers computed by the client (libpq's
``PQencryptPasswordConn``), never in clear text.
"""

from __future__ import annotations

import secrets
from typing import Any

from motodesk.rules.common import Role

#: Profiles that may not write a table, beyond the append-only and administration tables.
#: Decisions and criminal judgments are the supervisor's (services.enforcement DECIDERS); an
#: administrator keeps them for the demonstration data and corrections.
PROFILE_DENIED_WRITES: dict[Role, frozenset[str]] = {
    Role.CLERK: frozenset({"decisions", "criminal_judgments"}),
    Role.INSPECTOR: frozenset({"decisions", "criminal_judgments"}),
    Role.SUPERVISOR: frozenset(),
    Role.ADMIN: frozenset(),
}
#: Narrower rights of a profile on one table. Nobody deletes a permit; an inspector never adds one.
#: A clerk adds permits only through the register import (services.imports, IMPORTERS: clerk and
#: supervisor, as the README says), which the server cannot tell from a permit added by hand: the
#: grant is the import's, and the trail names the clerk's own role for either.
PROFILE_TABLE_PRIVILEGES: dict[tuple[Role, str], str] = {
    (Role.CLERK, "permits"): "SELECT, INSERT, UPDATE",
    (Role.INSPECTOR, "permits"): "SELECT, UPDATE",
}
#: Tables only some profiles write: ``users`` is the administrators'; ``settings`` the
#: administrators' and supervisors' (law settings and the card-serial switch, services.settings).
RESTRICTED_TABLES: dict[str, frozenset[Role]] = {
    "users": frozenset({Role.ADMIN}),
    "settings": frozenset({Role.ADMIN, Role.SUPERVISOR}),
}
#: Tables only the owner's functions read and write (no profile has any privilege): the digest of
#: the verifier an administrator set (a temporary password). Backups leave it out.
OWNER_TABLES: frozenset[str] = frozenset({"role_password_marks", "audit_staging", "audit_seal_marks"})
#: The marker stored as ``users.password_hash`` of a user whose password the server checks.
SERVER_PASSWORD = "!postgresql-scram"
GATE = "gate"
USER_ROLE = "u_"
MAX_FAILED_LOGINS = 5

FUNCTIONS = r"""
-- Every function names its search_path with pg_temp LAST (revision 0024). Left out, pg_temp is
-- searched FIRST for tables: a session's own temporary "users" would answer an owner's function in
-- place of public.users (a workstation's pre-login role could have made itself an administrator's
-- role through motodesk_create_first_admin), and a temporary "audit_events" the chain's tip.
CREATE OR REPLACE FUNCTION motodesk_role_prefix() RETURNS text LANGUAGE sql STABLE AS $$
  SELECT 'md_' || left(regexp_replace(lower(current_database()), '[^a-z0-9_]', '_', 'g'), 24) || '_'
$$;

CREATE OR REPLACE FUNCTION motodesk_is_member(who text, grp text) RETURNS boolean
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT EXISTS (SELECT 1 FROM pg_auth_members am JOIN pg_roles g ON g.oid = am.roleid
                 JOIN pg_roles u ON u.oid = am.member WHERE g.rolname = $2 AND u.rolname = $1)
$$;

CREATE OR REPLACE FUNCTION motodesk_roles_enabled() RETURNS boolean
LANGUAGE sql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT to_regrole(quote_ident(motodesk_role_prefix() || 'gate')) IS NOT NULL
$$;

-- The MotoDesk login the server authenticated (a per-user role), else NULL.
CREATE OR REPLACE FUNCTION motodesk_session_login() RETURNS text
LANGUAGE sql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT CASE WHEN left(session_user::text, length(motodesk_role_prefix()) + 2) = motodesk_role_prefix() || 'u_'
              THEN substr(session_user::text, length(motodesk_role_prefix()) + 3) END
$$;

-- Whether this session may name its MotoDesk user itself (motodesk.user): the owner of the
-- database's tables or a superuser, or any session of a database without per-user roles.
CREATE OR REPLACE FUNCTION motodesk_setting_trusted() RETURNS boolean
LANGUAGE sql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT motodesk_session_login() IS NULL AND (
         NOT motodesk_roles_enabled()
         OR coalesce((SELECT rolsuper FROM pg_roles WHERE rolname = session_user), false)
         OR session_user::text = (SELECT pg_get_userbyid(c.relowner) FROM pg_class c
                                  WHERE c.oid = 'public.audit_events'::regclass))
$$;

CREATE OR REPLACE FUNCTION motodesk_actor() RETURNS text
LANGUAGE sql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT coalesce(motodesk_session_login(),
                  CASE WHEN motodesk_setting_trusted()
                       THEN nullif(current_setting('motodesk.user', true), '') END,
                  session_user::text)
$$;

CREATE OR REPLACE FUNCTION motodesk_redact_allowed() RETURNS boolean
LANGUAGE sql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT motodesk_setting_trusted()
         OR motodesk_is_member(session_user::text, motodesk_role_prefix() || 'admin')
$$;

CREATE OR REPLACE FUNCTION motodesk_access_log_author() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  IF NOT motodesk_setting_trusted() THEN  -- who and when are the server's, never the session's
    NEW.user_login := left(motodesk_actor(), 64);
    NEW.at := now() AT TIME ZONE 'UTC';
  END IF;
  RETURN NEW;
END $$;

CREATE OR REPLACE FUNCTION motodesk_login_failed(who text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  now_locked boolean;
  r text := motodesk_role_prefix() || 'u_' || who;
BEGIN
  UPDATE users SET failed_logins = failed_logins + 1,
                   locked = CASE WHEN failed_logins + 1 >= @MAX@ THEN true ELSE locked END
   WHERE login = who AND NOT locked RETURNING locked INTO now_locked;
  IF coalesce(now_locked, false) AND to_regrole(quote_ident(r)) IS NOT NULL THEN
    EXECUTE format('ALTER ROLE %I NOLOGIN', r);
  END IF;
END $$;

CREATE OR REPLACE FUNCTION motodesk_login_succeeded() RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE done boolean;
BEGIN
  UPDATE users SET failed_logins = 0, last_login_at = now() AT TIME ZONE 'UTC'
   WHERE login = motodesk_session_login() AND active AND NOT locked RETURNING true INTO done;
  RETURN coalesce(done, false);
END $$;

CREATE OR REPLACE FUNCTION motodesk_verifier_digest(verifier text) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT encode(sha256(convert_to(verifier, 'UTF8')), 'hex')
$$;

-- The session's user says he replaced his password. A temporary password ("must change") is
-- cleared only when the role's verifier now differs from the one the administrator set (its
-- digest kept in role_password_marks by motodesk_sync_role): read from pg_authid, which only a
-- superuser owner may read; an owner that cannot read it refuses (fail closed) and the user
-- goes through motodesk_change_own_password(verifier), which sets the password itself.
CREATE OR REPLACE FUNCTION motodesk_own_password_changed() RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  me text := motodesk_session_login();
  temporary boolean;
  current_verifier text;
  mark text;
  done boolean;
BEGIN
  SELECT must_change_password INTO temporary FROM users WHERE login = me AND active AND NOT locked FOR UPDATE;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  IF temporary THEN
    BEGIN
      SELECT rolpassword INTO current_verifier FROM pg_authid WHERE rolname = motodesk_role_prefix() || 'u_' || me;
    EXCEPTION WHEN insufficient_privilege THEN
      RAISE EXCEPTION 'permission denied: this server cannot tell whether the temporary password was changed; '
                      'use motodesk_change_own_password(verifier)' USING ERRCODE = '42501';
    END;
    SELECT verifier_sha256 INTO mark FROM role_password_marks WHERE login = me;
    IF mark IS NULL OR current_verifier IS NULL OR motodesk_verifier_digest(current_verifier) = mark THEN
      RAISE EXCEPTION 'permission denied: the temporary password was not changed' USING ERRCODE = '42501';
    END IF;
    DELETE FROM role_password_marks WHERE login = me;
  END IF;
  UPDATE users SET must_change_password = false, failed_logins = 0
   WHERE login = me AND active AND NOT locked RETURNING true INTO done;
  RETURN coalesce(done, false);
END $$;

-- The session's user replaces his own password with `verifier` (a SCRAM verifier computed by the
-- client): the password and the end of "temporary password" are one step, so the flag cannot
-- be cleared without a new password. The administrator's own verifier is refused.
CREATE OR REPLACE FUNCTION motodesk_change_own_password(verifier text) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  me text := motodesk_session_login();
  mark text;
  done boolean;
BEGIN
  IF me IS NULL THEN
    RAISE EXCEPTION 'permission denied: only a MotoDesk user''s own role changes its password'
      USING ERRCODE = '42501';
  END IF;
  IF verifier IS NULL OR verifier !~ '^SCRAM-SHA-256\$[0-9]+:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$' THEN
    RAISE EXCEPTION 'not a SCRAM-SHA-256 verifier' USING ERRCODE = '22023';
  END IF;
  PERFORM 1 FROM users WHERE login = me AND active AND NOT locked FOR UPDATE;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  SELECT verifier_sha256 INTO mark FROM role_password_marks WHERE login = me;
  IF mark IS NOT NULL AND motodesk_verifier_digest(verifier) = mark THEN
    RAISE EXCEPTION 'permission denied: the temporary password was not changed' USING ERRCODE = '42501';
  END IF;
  EXECUTE format('ALTER ROLE %I PASSWORD %L', motodesk_role_prefix() || 'u_' || me, verifier);
  DELETE FROM role_password_marks WHERE login = me;
  UPDATE users SET must_change_password = false, failed_logins = 0
   WHERE login = me RETURNING true INTO done;
  RETURN coalesce(done, false);
END $$;

-- A backup's reference schema (services.backup_schema) is built by running the migrations in a
-- scratch schema and rolled back. An administrator's own role may not create schemas: the owner
-- creates one for him (CREATE granted to him on it alone), with a guard that makes COMMIT fail, so
-- the scratch schema can only ever be rolled back.
CREATE OR REPLACE FUNCTION motodesk_rollback_only() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  RAISE EXCEPTION 'a reference schema is never committed: roll the transaction back' USING ERRCODE = '25000';
END $$;

CREATE OR REPLACE FUNCTION motodesk_reference_schema() RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  s text := 'motodesk_referencia_' || substr(md5(random()::text || clock_timestamp()::text), 1, 12);
BEGIN
  IF NOT (motodesk_setting_trusted() OR motodesk_is_member(session_user::text, motodesk_role_prefix() || 'admin')) THEN
    RAISE EXCEPTION 'permission denied: only an administrator backs up' USING ERRCODE = '42501';
  END IF;
  EXECUTE format('CREATE SCHEMA %I', s);
  -- The guard is a temporary table of the owner's (outside every schema a backup describes).
  EXECUTE format('CREATE TEMPORARY TABLE %I (id integer)', s || '_guarda');
  EXECUTE format('CREATE CONSTRAINT TRIGGER guarda AFTER INSERT ON pg_temp.%I '
                 'DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION public.motodesk_rollback_only()',
                 s || '_guarda');
  EXECUTE format('INSERT INTO pg_temp.%I VALUES (1)', s || '_guarda');
  EXECUTE format('GRANT USAGE, CREATE ON SCHEMA %I TO %I', s, session_user);
  RETURN s;
END $$;

-- The first administrator of a database with per-user roles, from a workstation that has only its
-- pre-login role (the set-up wizard, `create-user` through the workstation's URL): refused as soon
-- as any user exists (the users table locked while that is checked). The owner creates the role,
-- which is why the database owner needs CREATEROLE, given once by the DBA.
CREATE OR REPLACE FUNCTION motodesk_has_users() RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT EXISTS (SELECT 1 FROM users)
$$;

CREATE OR REPLACE FUNCTION motodesk_create_first_admin(who text, full_name text, verifier text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  LOCK TABLE users IN SHARE ROW EXCLUSIVE MODE;
  IF EXISTS (SELECT 1 FROM users) THEN
    RAISE EXCEPTION 'permission denied: the database already has users' USING ERRCODE = '42501';
  END IF;
  IF who IS NULL OR who !~ '^[a-z0-9][a-z0-9._-]{1,31}$' OR full_name IS NULL OR length(btrim(full_name)) = 0
     OR length(full_name) > 200 THEN
    RAISE EXCEPTION 'invalid login or name' USING ERRCODE = '22023';
  END IF;
  IF verifier IS NULL OR verifier !~ '^SCRAM-SHA-256\$[0-9]+:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$' THEN
    RAISE EXCEPTION 'not a SCRAM-SHA-256 verifier' USING ERRCODE = '22023';
  END IF;
  INSERT INTO users (login, full_name, role, password_hash, failed_logins, locked, active, must_change_password,
                     version, created_at, updated_at)
  VALUES (who, full_name, 'admin', '@SERVER_PASSWORD@', 0, false, true, false, 1,
          now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC');
  PERFORM motodesk_apply_role(who, verifier);
END $$;

-- LGPD retention (services.retention, administrators): the one audit row per anonymised person
-- saying why. Nobody inserts audit rows himself; this writes exactly that row, for people that
-- exist, naming the session's own login, at the server's time.
CREATE OR REPLACE FUNCTION motodesk_audit_anonymisation(person_ids bigint[], reason text) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE n integer;
BEGIN
  IF NOT (motodesk_setting_trusted() OR motodesk_is_member(session_user::text, motodesk_role_prefix() || 'admin')) THEN
    RAISE EXCEPTION 'permission denied: only an administrator anonymises' USING ERRCODE = '42501';
  END IF;
  INSERT INTO audit_events (at, user_login, table_name, row_key, action, changes)
  SELECT now() AT TIME ZONE 'UTC', left(motodesk_actor(), 64), 'people', p.id::text, 'update',
         format('{"anonimizacao": [null, %s]}', to_json(reason)::text)
    FROM people p WHERE p.id = ANY(person_ids) ORDER BY p.id;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END $$;

-- Nobody clears his own "temporary password" by writing the users row (an administrator could):
-- only the owner's functions above do it, or the owner himself.
CREATE OR REPLACE FUNCTION motodesk_users_guard() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  IF OLD.must_change_password AND NOT NEW.must_change_password
     AND OLD.login = motodesk_session_login() AND current_user = session_user THEN
    RAISE EXCEPTION 'permission denied: a temporary password is cleared only by changing it'
      USING ERRCODE = '42501';
  END IF;
  RETURN NEW;
END $$;

-- The user's role follows the users row: created when missing, member of its profile's group only,
-- LOGIN while active and not locked; `verifier` (a SCRAM verifier, or NULL) becomes its password.
CREATE OR REPLACE FUNCTION motodesk_sync_role(who text, verifier text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  IF NOT (motodesk_setting_trusted() OR motodesk_is_member(session_user::text, motodesk_role_prefix() || 'admin')) THEN
    RAISE EXCEPTION 'permission denied: only an administrator manages users' USING ERRCODE = '42501';
  END IF;
  PERFORM motodesk_apply_role(who, verifier);
END $$;

-- motodesk_sync_role's work, for the owner's functions only (no EXECUTE granted to anyone).
CREATE OR REPLACE FUNCTION motodesk_apply_role(who text, verifier text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  p text := motodesk_role_prefix();
  r text := motodesk_role_prefix() || 'u_' || who;
  u record;
  g text;
BEGIN
  SELECT login, role, active, locked INTO u FROM users WHERE login = who;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'no MotoDesk user %', who USING ERRCODE = 'P0002';
  END IF;
  IF to_regrole(quote_ident(r)) IS NULL THEN
    EXECUTE format('CREATE ROLE %I NOLOGIN INHERIT NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION '
                   'NOBYPASSRLS', r);
  END IF;
  FOREACH g IN ARRAY ARRAY['clerk', 'inspector', 'supervisor', 'admin', 'gate'] LOOP
    IF g <> u.role AND motodesk_is_member(r, p || g) THEN
      EXECUTE format('REVOKE %I FROM %I', p || g, r);
    END IF;
  END LOOP;
  IF NOT motodesk_is_member(r, p || u.role) THEN
    EXECUTE format('GRANT %I TO %I', p || u.role, r);
  END IF;
  IF verifier IS NOT NULL THEN
    EXECUTE format('ALTER ROLE %I PASSWORD %L', r, verifier);
    IF to_regclass('public.role_password_marks') IS NOT NULL THEN  -- the password the administrator knows
      INSERT INTO role_password_marks (login, verifier_sha256, set_at)
      VALUES (who, motodesk_verifier_digest(verifier), now() AT TIME ZONE 'UTC')
      ON CONFLICT (login) DO UPDATE SET verifier_sha256 = EXCLUDED.verifier_sha256, set_at = EXCLUDED.set_at;
    END IF;
  END IF;
  IF u.active AND NOT u.locked THEN
    EXECUTE format('ALTER ROLE %I LOGIN', r);
  ELSE
    EXECUTE format('ALTER ROLE %I NOLOGIN', r);
    IF NOT u.active THEN  -- a disabled user's open sessions end now, where the owner may end them
      BEGIN
        PERFORM pg_terminate_backend(a.pid) FROM pg_stat_activity a
         WHERE a.usename = r AND a.pid <> pg_backend_pid();
      EXCEPTION WHEN insufficient_privilege THEN
        NULL;  -- an owner without pg_signal_backend: the sessions end when they close
      END;
    END IF;
  END IF;
END $$;

REVOKE EXECUTE ON FUNCTION motodesk_login_failed(text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION motodesk_login_succeeded() FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION motodesk_own_password_changed() FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION motodesk_change_own_password(text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION motodesk_reference_schema() FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION motodesk_audit_anonymisation(bigint[], text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION motodesk_sync_role(text, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION motodesk_apply_role(text, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION motodesk_has_users() FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION motodesk_create_first_admin(text, text, text) FROM PUBLIC;
""".replace("@MAX@", str(MAX_FAILED_LOGINS)).replace("@SERVER_PASSWORD@", SERVER_PASSWORD)


def install_functions(conn: Any, tables: set[str]) -> None:
    """(Re)create the functions above, the access log's author trigger and, when per-user roles are
    on, the profiles' privileges (:func:`motodesk.models.audit.install_guards` calls it)."""
    cursor = conn.connection.dbapi_connection.cursor()
    try:
        cursor.execute(FUNCTIONS)
    finally:
        cursor.close()
    if "access_log" in tables:
        conn.exec_driver_sql("DROP TRIGGER IF EXISTS access_log_author ON access_log")
        conn.exec_driver_sql("CREATE TRIGGER access_log_author BEFORE INSERT ON access_log "
                             "FOR EACH ROW EXECUTE FUNCTION motodesk_access_log_author()")
    if "users" in tables:
        conn.exec_driver_sql("DROP TRIGGER IF EXISTS users_temporary_password ON users")
        conn.exec_driver_sql("CREATE TRIGGER users_temporary_password BEFORE UPDATE ON users "
                             "FOR EACH ROW EXECUTE FUNCTION motodesk_users_guard()")
    # Not in a backup's scratch schema (services.backup_schema): the grants are the live schema's.
    if enabled(conn) and conn.exec_driver_sql("SELECT current_schema()").scalar() == "public":
        grant_profiles(conn)


def prefix(conn: Any) -> str:
    return str(conn.exec_driver_sql("SELECT motodesk_role_prefix()").scalar_one())


def enabled(conn: Any) -> bool:
    """Whether this database's users log in as their own roles (the gate group exists)."""
    found = conn.exec_driver_sql(
        "SELECT to_regprocedure('motodesk_roles_enabled()') IS NOT NULL").scalar_one()
    return bool(found) and bool(conn.exec_driver_sql("SELECT motodesk_roles_enabled()").scalar_one())


def user_role(role_prefix: str, login: str) -> str:
    return f"{role_prefix}{USER_ROLE}{login}"


def group(role_prefix: str, name: str) -> str:
    return f"{role_prefix}{name}"


def quoted(name: str) -> str:
    if '"' in name or "\x00" in name:
        raise ValueError(f"unexpected role name {name!r}")
    return f'"{name}"'


def _role_exists(conn: Any, name: str) -> bool:
    return bool(conn.exec_driver_sql("SELECT 1 FROM pg_roles WHERE rolname = %s", (name,)).scalar())


def grant_profiles(conn: Any) -> None:
    """The groups' privileges, table by table, from scratch (run by the owner after every upgrade)."""
    from motodesk.models.audit import APPEND_ONLY_TABLES

    p = prefix(conn)
    database = str(conn.exec_driver_sql("SELECT current_database()").scalar_one())
    tables = sorted(str(r[0]) for r in conn.exec_driver_sql(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public'").all())
    for name in (GATE, *(r.value for r in Role)):
        role = quoted(group(p, name))
        if not _role_exists(conn, group(p, name)):
            conn.exec_driver_sql(f"CREATE ROLE {role} NOLOGIN")
        conn.exec_driver_sql(f"REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {role}")
        conn.exec_driver_sql(f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM {role}")
        conn.exec_driver_sql(f"REVOKE CREATE ON SCHEMA public FROM {role}")
        conn.exec_driver_sql(f"GRANT USAGE ON SCHEMA public TO {role}")
        conn.exec_driver_sql(f'GRANT CONNECT ON DATABASE "{database}" TO {role}')
        conn.exec_driver_sql(f"GRANT EXECUTE ON FUNCTION motodesk_login_failed(text) TO {role}")
        conn.exec_driver_sql(f"GRANT EXECUTE ON FUNCTION motodesk_has_users() TO {role}")
        if name == GATE:
            conn.exec_driver_sql(f"GRANT EXECUTE ON FUNCTION motodesk_create_first_admin(text, text, text) TO {role}")
            if "alembic_version" in tables:
                conn.exec_driver_sql(f"GRANT SELECT ON alembic_version TO {role}")
            continue
        profile = Role(name)
        conn.exec_driver_sql(f"GRANT EXECUTE ON FUNCTION motodesk_login_succeeded() TO {role}")
        conn.exec_driver_sql(f"GRANT EXECUTE ON FUNCTION motodesk_own_password_changed() TO {role}")
        conn.exec_driver_sql(f"GRANT EXECUTE ON FUNCTION motodesk_change_own_password(text) TO {role}")
        if profile is Role.ADMIN:
            conn.exec_driver_sql(f"GRANT EXECUTE ON FUNCTION motodesk_sync_role(text, text) TO {role}")
            conn.exec_driver_sql(f"GRANT EXECUTE ON FUNCTION motodesk_reference_schema() TO {role}")
            conn.exec_driver_sql(f"GRANT EXECUTE ON FUNCTION motodesk_audit_anonymisation(bigint[], text) TO {role}")
        for table in tables:
            privileges = table_privileges(profile, table, APPEND_ONLY_TABLES)
            if privileges:
                conn.exec_driver_sql(f'GRANT {privileges} ON "{table}" TO {role}')
        conn.exec_driver_sql(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {role}")


def table_privileges(profile: Role, table: str, append_only: dict[str, bool]) -> str:
    """What a profile may do on a table: always read; append to the access log; write the business
    tables but those withheld from it (:data:`PROFILE_DENIED_WRITES`, :data:`RESTRICTED_TABLES`)."""
    if table == "alembic_version":
        return "SELECT"
    if table in OWNER_TABLES:
        return ""
    if table in append_only:
        return "SELECT, INSERT" if append_only[table] else "SELECT"
    if table in RESTRICTED_TABLES and profile not in RESTRICTED_TABLES[table]:
        return "SELECT"
    if table in PROFILE_DENIED_WRITES[profile]:
        return "SELECT"
    if (profile, table) in PROFILE_TABLE_PRIVILEGES:
        return PROFILE_TABLE_PRIVILEGES[profile, table]
    return "SELECT, INSERT, UPDATE, DELETE"


def scram_verifier(conn: Any, role: str, password: str) -> str:
    """The SCRAM-SHA-256 verifier of ``password`` for ``role``, computed here (libpq), so the clear
    password never travels in a statement the server could log."""
    pgconn = conn.connection.dbapi_connection.pgconn
    return bytes(pgconn.encrypt_password(password.encode("utf-8"), role.encode("utf-8"),
                                         b"scram-sha-256")).decode("ascii")


def sync_user(session: Any, login: str, password: str | None = None) -> bool:
    """Session step: make the user's role follow its ``users`` row (and take ``password``), when
    this database has per-user roles; False (nothing done) otherwise, SQLite included."""
    conn = session.connection()
    if conn.dialect.name != "postgresql" or not enabled(conn):
        return False
    verifier = scram_verifier(conn, user_role(prefix(conn), login), password) if password else None
    conn.exec_driver_sql("SELECT motodesk_sync_role(%s, %s)", (login, verifier))
    return True


def temporary_password() -> str:
    """A temporary password given to a user whose role was just created (12 letters and digits)."""
    alphabet = "abcdefghjkmnpqrstuvwxyzABCDEFGHJKMNPQRSTUVWXYZ23456789"
    return "".join(secrets.choice(alphabet) for _ in range(12))
