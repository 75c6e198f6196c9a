"""Opening the database: URL resolution, engines for SQLite and PostgreSQL, sessions, migrations."""

from __future__ import annotations

import logging
import os
import re
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import Connection, Engine, create_engine, event, inspect, make_url
from sqlalchemy.engine import URL
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError
from sqlalchemy.orm import Session, sessionmaker

import motodesk.models.audit  # noqa: F401  (registers the audit listeners)
from motodesk.clock import local_now
from motodesk.errors import ENV_URL, DatabaseError, DatabaseOutdatedError, DatabaseTooNewError  # noqa: F401 (re-exported)
from motodesk.probe import MIGRATIONS, shipped_heads, shipped_revisions  # noqa: F401 (re-exported)

if TYPE_CHECKING:
    from alembic.config import Config

log = logging.getLogger(__name__)

T = TypeVar("T")
#: PostgreSQL settings of the quick-read connections (:meth:`Database.run_read`), sent with the
#: connection's start-up packet: a keystroke's query reads a few hundred index entries, where a
#: parallel plan spends ~8 ms starting workers and JIT compiles for longer than the query runs.
#: Custom plans always (issue 28): psycopg prepares a statement run five times, and PostgreSQL then
#: moved the search's statements to a generic plan that ignores the prefix typed — a dense CPF
#: prefix ("0") went from 5 to 20 ms once prepared; planning it each time costs under a millisecond.
QUICK_READ_OPTIONS = "-c max_parallel_workers_per_gather=0 -c jit=off -c plan_cache_mode=force_custom_plan"


def default_sqlite_path() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("MotoDesk", "SESTRAN Patrocinio")) / "motodesk.sqlite3"


def resolve_url(url: str | None) -> str:
    """`--database URL`, else MOTODESK_DATABASE_URL, else this workstation's configured database
    (`motodesk.config`, chosen by the first-run wizard), else the SQLite file in the user data folder."""
    if url:
        return url
    if os.environ.get(ENV_URL):
        return os.environ[ENV_URL]
    from motodesk.config import configured_url

    configured = configured_url()
    if configured:
        return configured
    path = default_sqlite_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{path}"


def parse_url(url: str) -> URL:
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise DatabaseError(f"Endereço de banco de dados inválido: {url!r}.") from None
    if parsed.get_backend_name() not in ("sqlite", "postgresql"):
        raise DatabaseError(
            "Banco de dados não suportado: use sqlite:///ARQUIVO ou postgresql+psycopg://usuário@servidor/banco."
        )
    if parsed.get_backend_name() == "postgresql" and parsed.get_driver_name() in ("psycopg2", ""):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def _sqlite_on_connect(dbapi_conn: sqlite3.Connection, _record: Any) -> None:
    dbapi_conn.isolation_level = None  # transactions are begun explicitly below
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA busy_timeout=15000")
    try:
        cur.execute("PRAGMA journal_mode=WAL")
    except sqlite3.OperationalError:
        pass  # a read-only file keeps its journal mode; writes will fail with a clear message
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.close()


def _owner_only_file(path: Path) -> Any:
    """do_connect hook: a new SQLite file is created readable by its owner only (0600, whatever the
    umask) before SQLite opens it; SQLite gives its -wal and -shm files the same mode."""

    def create(_dialect: Any, _record: Any, _cargs: Any, _cparams: Any) -> None:
        if path.exists():
            return
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return
        except OSError:
            return  # SQLite's own error (missing folder, permissions) explains it better
        try:
            if hasattr(os, "fchmod"):
                os.fchmod(fd, 0o600)
        finally:
            os.close(fd)

    return create


def _sqlite_begin(conn: Any) -> None:
    options = conn.get_execution_options()
    if options.get("sqlite_before_begin") is not None:  # no transaction yet: it may write only TEMP
        options["sqlite_before_begin"](conn)
    conn.exec_driver_sql(f"BEGIN {options.get('sqlite_begin', 'DEFERRED')}")


_NAMED = re.compile(r'(?:table|relation|schema|database|function|sequence|constraint)\s+"?([A-Za-z0-9_.]+)"?')

#: SQLSTATE (PostgreSQL) -> pt_BR; class prefixes (2 characters) are tried after the full code.
_SQLSTATE: dict[str, str] = {
    "42501": "O usuário do banco de dados não tem permissão para esta operação{named}. Peça ao administrador "
             "do servidor que conceda a permissão ao perfil desta estação.",
    "22008": "Uma data ou hora gravada no banco de dados está fora do intervalo que o MotoDesk aceita (por exemplo "
             "'infinity' ou um ano acima de 9999){named}: corrija o valor no servidor.",
    "22007": "Uma data ou hora com formato inválido foi recusada pelo banco de dados.",
    "22003": "Um número está fora do intervalo que o banco de dados aceita{named}.",
    "22001": "Um texto é maior do que o campo do banco de dados aceita{named}.",
    "22P02": "Um valor com formato inválido foi recusado pelo banco de dados{named}.",
    "22": "Um valor inválido foi recusado pelo banco de dados{named}.",
    "23505": "O banco de dados recusou a gravação: já existe um registro com este valor, que deve ser único{named}.",
    "23502": "O banco de dados recusou a gravação: falta um valor obrigatório{named}.",
    "23514": "O banco de dados recusou a gravação: um valor não passa na regra de conferência{named}.",
    "23503": "O banco de dados recusou a gravação: o registro aponta para outro que não existe, ou ainda é "
             "usado por outros{named}.",
    "23": "O banco de dados recusou a gravação por violar uma regra de integridade{named}.",
    "40001": "Outra estação alterou os mesmos dados ao mesmo tempo e nada foi gravado: tente novamente.",
    "40P01": "Duas estações disputaram os mesmos dados (impasse) e nada foi gravado: tente novamente.",
    "40": "A operação foi desfeita pelo banco de dados e nada foi gravado: tente novamente.",
    "55P03": "Os dados estão bloqueados por outra estação; nada foi gravado: tente novamente em instantes.",
    "57014": "O banco de dados demorou demais e a operação foi cancelada (tempo limite ou bloqueio por outra "
             "estação); nada foi gravado: tente novamente em instantes.",
    "53100": "O disco do servidor de banco de dados{where} está cheio: nada foi gravado. Libere espaço no servidor.",
    "53200": "O servidor de banco de dados{where} ficou sem memória: tente novamente mais tarde.",
    "53300": "O servidor de banco de dados{where} atingiu o limite de conexões: tente novamente em instantes.",
    "53": "O servidor de banco de dados{where} está sem recursos (disco, memória ou conexões).",
    "25006": "O servidor de banco de dados{where} está em modo somente leitura (uma réplica ou em recuperação): "
             "nada foi gravado.",
    "57P01": "Não foi possível conectar ao servidor de banco de dados{where}. Verifique a rede e se o servidor está "
             "ligado.",
    "57P03": "O servidor de banco de dados{where} ainda está iniciando: tente novamente em instantes.",
    "08": "Não foi possível conectar ao servidor de banco de dados{where}. Verifique a rede e se o servidor está "
          "ligado.",
    "28": "Usuário ou senha do banco de dados recusados pelo servidor{where}.",
    "3D000": "O banco de dados informado não existe no servidor{where}.",
    "42P01": "Falta uma tabela no banco de dados{named}: ele não é o desta versão do MotoDesk ou foi alterado.",
    "42703": "Falta uma coluna no banco de dados: ele não é o desta versão do MotoDesk ou foi alterado.",
    "XX": "O servidor de banco de dados{where} relatou um erro interno (possível dano nos arquivos do servidor).",
}

#: SQLite extended result names -> pt_BR.
_SQLITE_NAMES: dict[str, str] = {
    "SQLITE_FULL": "O disco do banco de dados está cheio: nada foi gravado. Libere espaço e tente de novo.",
    "SQLITE_READONLY": "O arquivo do banco de dados é somente leitura: verifique as permissões do arquivo.",
    "SQLITE_BUSY": "O banco de dados está ocupado por outra estação; tente novamente em instantes.",
    "SQLITE_LOCKED": "O banco de dados está ocupado por outra estação; tente novamente em instantes.",
    "SQLITE_CORRUPT": "O arquivo do banco de dados está corrompido ou não é um banco do MotoDesk.",
    "SQLITE_NOTADB": "O arquivo do banco de dados está corrompido ou não é um banco do MotoDesk.",
    "SQLITE_CANTOPEN": "Não foi possível abrir o arquivo do banco de dados: verifique a pasta e as permissões.",
    "SQLITE_PERM": "Sem permissão para usar o arquivo do banco de dados: verifique as permissões.",
    "SQLITE_IOERR": "O disco recusou a leitura ou a gravação do banco de dados (disco cheio, removido ou com "
                    "defeito).",
    "SQLITE_TOOBIG": "Um valor é grande demais para o banco de dados.",
    "SQLITE_CONSTRAINT_UNIQUE": "O banco de dados recusou a gravação: já existe um registro com este valor, que "
                                "deve ser único.",
    "SQLITE_CONSTRAINT_PRIMARYKEY": "O banco de dados recusou a gravação: já existe um registro com esta chave.",
    "SQLITE_CONSTRAINT_NOTNULL": "O banco de dados recusou a gravação: falta um valor obrigatório.",
    "SQLITE_CONSTRAINT_CHECK": "O banco de dados recusou a gravação: um valor não passa na regra de conferência.",
    "SQLITE_CONSTRAINT_FOREIGNKEY": "O banco de dados recusou a gravação: o registro aponta para outro que não "
                                    "existe, ou ainda é usado por outros.",
    "SQLITE_CONSTRAINT": "O banco de dados recusou a gravação por violar uma regra de integridade.",
    "SQLITE_MISMATCH": "Um valor de tipo errado foi recusado pelo banco de dados.",
    "SQLITE_RANGE": "Um valor está fora do intervalo que o banco de dados aceita.",
}

#: Errors the driver raises itself, reading a value it cannot represent (psycopg has no SQLSTATE then).
_CLIENT_TEXTS = (
    (("date too large", "date too small", "timestamp too large", "timestamp too small", "year is out of range",
      "year 0 is out of range", "can't parse", "out of range for"), "22008"),
    (("invalid utf-8", "codec can't decode", "invalid byte sequence", "could not decode"), "22"),
)


def loggable(text: str) -> str:
    """Text safe for the UTF-8 log: bytes that are no UTF-8 (surrogates) written as escapes."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _original(exc: BaseException) -> BaseException:
    return getattr(exc, "orig", None) or exc


def explain_error(exc: BaseException, url: URL | None = None) -> str:
    """A pt_BR sentence for a driver error: what a clerk or an administrator can act on.

    Never the server's own (English) words: those go to the log, with the SQLSTATE or SQLite code.
    """
    original = _original(exc)
    raw = str(original or exc).strip()
    text = raw.lower()
    where = ""
    if url is not None and url.get_backend_name() == "postgresql":
        where = f" ({url.host or 'localhost'}:{url.port or 5432}/{url.database})"
    sqlstate = getattr(original, "sqlstate", None) or getattr(getattr(original, "diag", None), "sqlstate", None)
    sqlite_name = str(getattr(original, "sqlite_errorname", "") or "")
    log.warning("database error (%s): %s", sqlstate or sqlite_name or type(original).__name__,
                loggable(raw.splitlines()[0][:500] if raw else ""))
    named_match = _NAMED.search(raw)
    named = f" ({named_match.group(1)})" if named_match else ""
    if not sqlstate and not sqlite_name:
        for needles, code in _CLIENT_TEXTS:
            if any(n in text for n in needles):
                sqlstate = code
                break
    if sqlstate:
        message = _SQLSTATE.get(sqlstate) or _SQLSTATE.get(sqlstate[:2])
        if message:
            return message.format(where=where, named=named)
    if sqlite_name:
        message = _SQLITE_NAMES.get(sqlite_name) or _SQLITE_NAMES.get("_".join(sqlite_name.split("_")[:2]))
        if message:
            return message
    if "readonly" in text or "read-only" in text or "attempt to write" in text:
        return "O arquivo do banco de dados é somente leitura: verifique as permissões do arquivo."
    if "not a database" in text or "malformed" in text or "file is encrypted" in text:
        return "O arquivo do banco de dados está corrompido ou não é um banco do MotoDesk."
    if "unable to open database" in text:
        return "Não foi possível abrir o arquivo do banco de dados: verifique a pasta e as permissões."
    if "database is locked" in text:
        return "O banco de dados está ocupado por outra estação; tente novamente em instantes."
    if "disk is full" in text or "no space left" in text:
        return "O disco do banco de dados está cheio: nada foi gravado. Libere espaço e tente de novo."
    if "password authentication failed" in text or "authentication failed" in text:
        return f"Usuário ou senha do banco de dados recusados pelo servidor{where}."
    if "does not exist" in text and "database" in text:
        return f"O banco de dados informado não existe no servidor{where}."
    if "permission denied" in text:
        return _SQLSTATE["42501"].format(where=where, named=named)
    if "connection refused" in text or "could not connect" in text or "timeout" in text or (
        "connection" in text and ("failed" in text or "closed" in text or "lost" in text)
    ) or "server closed" in text or "terminating connection" in text or "no route" in text or (
        "name or service not known" in text or "could not translate host" in text
    ):
        return f"Não foi possível conectar ao servidor de banco de dados{where}. Verifique a rede e se o servidor está ligado."
    code = sqlstate or sqlite_name or type(original).__name__
    from motodesk.logs import log_path

    return f"O banco de dados recusou a operação (código {code}); os detalhes estão no registro {log_path()}."


def copy_sqlite(source: Path, target: Path) -> None:
    """Copy the SQLite database ``source`` into the file ``target`` through the online backup API
    (a consistent copy even while another connection writes); both connections are closed after."""
    with closing(sqlite3.connect(source)) as src, closing(sqlite3.connect(target)) as dst:
        src.backup(dst)


def shipped_head() -> str:
    heads = shipped_heads()
    if len(heads) != 1:
        raise DatabaseError(f"Migrações inconsistentes no programa instalado: cabeças {sorted(heads)}.")
    return heads.pop()


@dataclass
class Database:
    """One engine and its session factory; services open units of work on it."""

    url: URL
    engine: Engine
    _reader: Engine | None = field(default=None, repr=False, compare=False)
    #: PostgreSQL, a per-user role's connection: the password every new connection sends (kept
    #: here, not in the URL, so that the change of one's own password reaches the pools at once).
    _secret: dict[str, str] | None = field(default=None, repr=False, compare=False)
    _roles: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def open(cls, url: str | None = None, *, echo: bool = False) -> Database:
        parsed = parse_url(resolve_url(url))
        try:
            if parsed.get_backend_name() == "sqlite":
                path = parsed.database
                if path and path != ":memory:" and not parsed.query.get("uri"):
                    p = Path(path)
                    if not p.parent.exists():
                        raise DatabaseError(f"A pasta do banco de dados não existe: {p.parent}")
                engine = create_engine(parsed, echo=echo, connect_args={"timeout": 15})
                if path and path != ":memory:" and not parsed.query.get("uri"):
                    event.listen(engine, "do_connect", _owner_only_file(Path(path)))
                event.listen(engine, "connect", _sqlite_on_connect)
                event.listen(engine, "begin", _sqlite_begin)
            else:
                engine = create_engine(
                    parsed, echo=echo, pool_pre_ping=True, connect_args={"connect_timeout": 5}
                )
        except NoSuchModuleError:
            raise DatabaseError(f"Tipo de banco de dados desconhecido: {parsed.drivername}.") from None
        return cls(parsed, engine)

    @property
    def is_sqlite(self) -> bool:
        return self.url.get_backend_name() == "sqlite"

    @property
    def sqlite_path(self) -> Path | None:
        if self.is_sqlite and self.url.database and self.url.database != ":memory:":
            return Path(self.url.database)
        return None

    def check_connection(self) -> None:
        """Connect once and read something: raises DatabaseError with a pt_BR message."""
        try:
            with self.engine.connect() as conn:
                if self.is_sqlite:
                    conn.exec_driver_sql("SELECT count(*) FROM sqlite_master").scalar()
                else:
                    conn.exec_driver_sql("SELECT 1").scalar()
        except DBAPIError as exc:
            raise DatabaseError(explain_error(exc, self.url)) from exc

    @contextmanager
    def session(self, *, write: bool = False, before_begin: Callable[[Connection], None] | None = None
                ) -> Iterator[Session]:
        """A session in one transaction; `write=True` takes SQLite's write lock up front, after `before_begin`
        (on the connection, no transaction yet: :mod:`motodesk.models.staged`)."""
        options = {"sqlite_begin": "IMMEDIATE", "sqlite_before_begin": before_begin}
        bind = self.engine.execution_options(**options) if (write and self.is_sqlite) else self.engine
        with sessionmaker(bind=bind, expire_on_commit=False)() as session:
            yield session

    def run_read(self, fn: Callable[[Connection], T]) -> T:
        """``fn(connection)`` for one short read whose round trips count (the search box, keystroke by keystroke):
        a Core connection (no ORM transaction hooks); on PostgreSQL in autocommit on a pool of its own that
        does not ping on checkout, so the read is its own statements alone (no BEGIN, ping or ROLLBACK). A
        connection the server dropped fails on its first statement; the pool is emptied and the read runs again."""
        if self.is_sqlite:
            with self.engine.connect() as conn:
                return fn(conn)
        if self._reader is None:
            self._reader = create_engine(
                self.url, pool_size=2, max_overflow=4, pool_recycle=1800, isolation_level="AUTOCOMMIT",
                connect_args={"connect_timeout": 5, "options": QUICK_READ_OPTIONS})
            self._send_secret(self._reader)
        for attempt in (1, 2):
            try:
                with self._reader.connect() as conn:
                    return fn(conn)
            except DBAPIError as exc:
                if attempt == 2 or not exc.connection_invalidated:
                    raise
        raise AssertionError("unreachable")

    # -- per-user roles (PostgreSQL, motodesk.models.roles) ----------------------------------------

    def _send_secret(self, engine: Engine) -> None:
        if self._secret is None:
            return
        secret = self._secret

        def inject(_dialect: Any, _record: Any, _cargs: Any, cparams: dict[str, Any]) -> None:
            cparams["password"] = secret["password"]

        event.listen(engine, "do_connect", inject)

    def for_role(self, role: str, password: str) -> Database:
        """The same server and database, logged in as ``role`` with ``password`` (nothing connects yet)."""
        url = self.url.set(username=role, password=None)
        engine = create_engine(url, pool_pre_ping=True, connect_args={"connect_timeout": 5})
        other = Database(url, engine, _secret={"password": password})
        other._send_secret(engine)
        return other

    def change_secret(self, password: str) -> None:
        """The password new connections of this per-user role send from now on."""
        if self._secret is not None:
            self._secret["password"] = password

    def _role_facts(self) -> dict[str, Any]:
        """Whether this database has per-user roles, its role prefix and whether this connection is a
        workstation's pre-login (gate) role; read once per Database."""
        if not self._roles:
            facts: dict[str, Any] = {"enabled": False, "prefix": None, "gate": False}
            if not self.is_sqlite:
                from motodesk.models import roles

                try:
                    with self.engine.connect() as conn:
                        if roles.enabled(conn):
                            p = roles.prefix(conn)
                            facts = {"enabled": True, "prefix": p, "gate": bool(conn.exec_driver_sql(
                                "SELECT motodesk_is_member(session_user::text, %s)",
                                (roles.group(p, roles.GATE),)).scalar_one())}
                except DBAPIError as exc:
                    raise DatabaseError(explain_error(exc, self.url)) from exc
            self._roles.update(facts)
        return self._roles

    @property
    def per_user_roles(self) -> bool:
        """PostgreSQL with a role per MotoDesk user: the server checks the passwords."""
        return bool(self._role_facts()["enabled"])

    @property
    def role_prefix(self) -> str:
        return str(self._role_facts()["prefix"])

    @property
    def is_gate(self) -> bool:
        """This connection is a workstation's pre-login role: it reads nothing but the schema version."""
        return bool(self._role_facts()["gate"])

    def forget_role_facts(self) -> None:
        self._roles.clear()

    def dispose(self) -> None:
        self.engine.dispose()
        if self._reader is not None:
            self._reader.dispose()

    # -- migrations -------------------------------------------------------------------------

    def alembic_config(self) -> Config:
        from alembic.config import Config

        cfg = Config()
        cfg.set_main_option("script_location", str(MIGRATIONS))
        cfg.attributes["database"] = self
        return cfg

    def head_revision(self) -> str:
        return shipped_head()

    def current_revision(self) -> str | None:
        """The revision stamped in the database (read with plain SQL: Alembic loads only to migrate)."""
        try:
            with self.engine.connect() as conn:
                if not inspect(conn).has_table("alembic_version"):
                    return None
                return conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
        except DBAPIError as exc:
            raise DatabaseError(explain_error(exc, self.url)) from exc

    def is_empty(self) -> bool:
        with self.engine.connect() as conn:
            return not inspect(conn).get_table_names()

    def upgrade(self, revision: str = "head") -> None:
        from alembic import command

        try:
            command.upgrade(self.alembic_config(), revision)
            if self.current_revision() == shipped_head():
                self.refresh_guards()
        except DBAPIError as exc:
            raise DatabaseError(explain_error(exc, self.url)) from exc

    def upgrade_on(self, conn: Connection, revision: str, *, version_table_schema: str | None = None,
                   grants: bool = True) -> None:
        """Migrate on `conn`, inside the caller's transaction (it commits or rolls back everything):
        the restore builds, loads and verifies its target in one transaction, the backup builds its
        reference schema in a scratch schema that it rolls back. At the head, the guards too."""
        from alembic import command

        from motodesk.models.audit import install_guards

        if not conn.in_transaction():
            conn.begin()  # the caller's transaction: Alembic must not commit one of its own
        cfg = self.alembic_config()
        cfg.attributes["connection"] = conn
        if version_table_schema:
            cfg.attributes["version_table_schema"] = version_table_schema
        command.upgrade(cfg, revision)
        if revision in ("head", shipped_head()):
            install_guards(conn)
            if grants and conn.dialect.name != "sqlite":
                for role in _login_roles(conn):
                    _grant_login_role(conn, role)

    def refresh_guards(self) -> None:
        """After an upgrade to the head: audit triggers and append-only guards on every table (tables
        of later revisions included), and the login roles' privileges on them (PostgreSQL)."""
        from motodesk.models.audit import install_guards

        with self.engine.begin() as conn:
            install_guards(conn)
            if not self.is_sqlite:
                for role in _login_roles(conn):
                    _grant_login_role(conn, role)

    def downgrade(self, revision: str) -> None:
        from alembic import command

        command.downgrade(self.alembic_config(), revision)

    def check_version(self) -> str:
        """'current', 'outdated' or 'empty'; raises DatabaseTooNewError for a newer database."""
        current = self.current_revision()
        if current is None:
            return "empty" if self.is_empty() else "outdated"
        if current == shipped_head():
            return "current"
        if current not in shipped_revisions():
            raise DatabaseTooNewError(
                "Este banco de dados foi atualizado por uma versão mais nova do MotoDesk "
                f"(revisão {current}). Instale a versão mais recente do programa nesta estação."
            ) from None
        return "outdated"

    def backup_sqlite(self, target: Path | None = None) -> Path | None:
        """A consistent copy of the SQLite file through the online backup API."""
        src_path = self.sqlite_path
        if src_path is None or not src_path.exists():
            return None
        if target is None:
            stamp = local_now().strftime("%Y%m%d-%H%M%S")
            target = src_path.with_name(f"{src_path.stem}.antes-atualizacao-{stamp}{src_path.suffix}")
        copy_sqlite(src_path, target)
        return target

    def grant_app_role(self, role: str) -> None:
        """PostgreSQL: let an existing login role use the business data; the append-only tables
        (``motodesk.models.audit.APPEND_ONLY_TABLES``) it may only read (or read and append to)."""
        if self.is_sqlite:
            raise DatabaseError("Perfis de acesso só existem no PostgreSQL.")
        _check_role_name(role)
        with self.engine.begin() as conn:
            _grant_login_role(conn, role)

    def setup_login_role(self, role: str, password: str | None) -> str:
        """PostgreSQL (``motodesk init-db --login-role``): the workstations' login role, beside the
        owner that this connection is and that runs the migrations.

        The login role reads and writes business data and nothing more: it owns nothing, holds no
        GRANT OPTION, is no member of the owner (NOINHERIT, so not even a membership granted later
        passes privileges on), cannot create objects, and has no UPDATE, DELETE or TRUNCATE on the
        append-only tables (the audit trail, written by the owner's triggers, not even INSERT).
        Run again for a role that exists (a second database, a new password) it sets it up again.
        Returns the owner's name."""
        if self.is_sqlite:
            raise DatabaseError("Perfis de acesso só existem no PostgreSQL.")
        _check_role_name(role)
        try:
            with self.engine.begin() as conn:
                owner = _login_role(conn, role, password, inherit=False)
                _grant_login_role(conn, role)
        except DBAPIError as exc:
            raise DatabaseError(_role_error(exc, self.url)) from exc
        return owner

    def setup_per_user_roles(self, gate: str, password: str | None) -> list[tuple[str, str]]:
        """PostgreSQL (``motodesk init-db --per-user-roles --login-role GATE``): one role per MotoDesk
        user, authenticated by the server, and profile groups with their privileges
        (:mod:`motodesk.models.roles`). ``gate`` becomes (or stays) the workstations' pre-login role:
        an old shared login role of that name loses every privilege on the data. Each user who had no
        role yet gets one with a temporary password (to be replaced at the next login); returns those
        (login, temporary password). Run again, it creates only what is missing."""
        from motodesk.models import roles

        if self.is_sqlite:
            raise DatabaseError("Perfis por usuário só existem no PostgreSQL: no SQLite o acesso é o do arquivo.")
        _check_role_name(gate)
        created: list[tuple[str, str]] = []
        try:
            with self.engine.begin() as conn:
                p = roles.prefix(conn)
                if gate.startswith(p):
                    raise DatabaseError(f"O perfil de entrada das estações não pode começar por {p!r}: "
                                        "esses nomes são dos usuários e grupos do MotoDesk.")
                _login_role(conn, gate, password, inherit=True)
                roles.grant_profiles(conn)
                conn.exec_driver_sql(f"REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {gate}")
                conn.exec_driver_sql(f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM {gate}")
                conn.exec_driver_sql(f"GRANT {roles.quoted(roles.group(p, roles.GATE))} TO {gate}")
                database = str(conn.exec_driver_sql("SELECT current_database()").scalar_one())
                conn.exec_driver_sql(f'REVOKE CONNECT, TEMPORARY ON DATABASE "{database}" FROM PUBLIC')
                conn.exec_driver_sql(f'GRANT CONNECT ON DATABASE "{database}" TO {gate}')
                users = conn.exec_driver_sql("SELECT login FROM users ORDER BY login").all()
                for (login,) in users:
                    name = roles.user_role(p, str(login))
                    if conn.exec_driver_sql("SELECT 1 FROM pg_roles WHERE rolname = %s", (name,)).scalar():
                        conn.exec_driver_sql("SELECT motodesk_sync_role(%s, NULL)", (login,))
                        continue
                    temporary = roles.temporary_password()
                    conn.exec_driver_sql(
                        "UPDATE users SET password_hash = %s, must_change_password = true WHERE login = %s",
                        (roles.SERVER_PASSWORD, login))
                    conn.exec_driver_sql("SELECT motodesk_sync_role(%s, %s)",
                                         (login, roles.scram_verifier(conn, name, temporary)))
                    created.append((str(login), temporary))
        except DBAPIError as exc:
            raise DatabaseError(_role_error(exc, self.url)) from exc
        self.forget_role_facts()
        return created

    def prepare(self, *, allow_upgrade_shared: bool = False) -> str:
        """Bring the database to this version on start.

        An empty database is created; an older SQLite file is copied aside and upgraded; an older
        shared PostgreSQL database is upgraded only when asked (`motodesk db-upgrade`), because other
        workstations may still run the older version. Returns what was done.
        """
        self.check_connection()
        state = self.check_version()
        if state == "current":
            return "current"
        if state == "empty":
            self.upgrade()
            return "created"
        if self.is_sqlite:
            backup = self.backup_sqlite()
            log.info("SQLite backup before upgrade: %s", backup)
            self.upgrade()
            return "upgraded"
        if not allow_upgrade_shared:
            raise DatabaseOutdatedError(
                "O banco de dados do servidor é de uma versão anterior do MotoDesk. "
                "Peça a um administrador que execute 'motodesk db-upgrade' antes de usar esta estação."
            )
        self.upgrade()
        return "upgraded"


def _check_role_name(role: str) -> None:
    if not role or not role.replace("_", "").isalnum() or not role.isascii() or role[0].isdigit() or role != role.lower():
        raise DatabaseError(f"Nome de perfil inválido: {role!r} (use letras minúsculas, números e _).")


def _role_error(exc: BaseException, url: URL) -> str:
    """A refused role statement in pt_BR (the owner lacks CREATEROLE, a role it may not change)."""
    text = str(getattr(exc, "orig", None) or exc).lower()
    if "permission denied to create role" in text or "must have createrole" in text or (
            "permission denied" in text and "role" in text):
        return ("O dono do banco não tem permissão para criar ou alterar perfis (CREATEROLE): um "
                "superusuário do servidor deve conceder 'ALTER ROLE <dono> CREATEROLE', ou execute este "
                "comando conectado como superusuário. Nada foi alterado.")
    if "must be superuser" in text:
        return ("Só um superusuário do servidor pode alterar este perfil (ele é superusuário ou tem "
                "atributos de replicação): escolha outro nome de perfil. Nada foi alterado.")
    return explain_error(exc, url)


def _login_role(conn: Any, role: str, password: str | None, *, inherit: bool) -> str:
    """Create ``role`` as a plain login role, or take an existing one as it is (idempotent): its
    attributes are only changed when they must be (a non-superuser owner may not touch them).
    Returns the owner's (this connection's) name."""
    owner = str(conn.exec_driver_sql("SELECT current_user").scalar_one())
    if role == owner:
        raise DatabaseError(
            f"O perfil de login das estações ({role}) não pode ser o dono do banco, que executa as "
            "atualizações: indique outro nome.")
    found = conn.exec_driver_sql(
        "SELECT rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls, rolcanlogin, rolinherit "
        "FROM pg_roles WHERE rolname = %s", (role,)).first()
    powers = "NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS"
    wanted = ["LOGIN", "INHERIT" if inherit else "NOINHERIT"]
    if found is None:
        clause = f"CREATE ROLE {role} {' '.join(wanted)} {powers}"
    else:
        if any(found[:5]):
            raise DatabaseError(
                f"O perfil {role} já existe com poderes de administração do servidor (superusuário, "
                "criar bancos ou perfis, replicação): não pode ser o perfil das estações. Escolha outro "
                "nome ou retire-lhe esses poderes. Nada foi alterado.")
        changes = [w for w, have in (("LOGIN", found[5]), (wanted[1], found[6] == inherit)) if not have]
        clause = f"ALTER ROLE {role} {' '.join(changes)}" if (changes or password) else ""
    if clause:
        if password:
            # A utility statement takes no parameters: a quoted literal, sent without placeholders.
            literal = "'" + password.replace("'", "''") + "'"
            clause += f" PASSWORD {literal}"
        cursor = conn.connection.dbapi_connection.cursor()
        try:
            cursor.execute(clause)
        except conn.dialect.loaded_dbapi.Error as exc:  # the driver's own error: no SQLAlchemy wrapper here
            raise DatabaseError(_role_error(exc, conn.engine.url)) from exc
        finally:
            cursor.close()
    owned = conn.exec_driver_sql(
        "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = 'public' AND c.relowner = (SELECT oid FROM pg_roles WHERE rolname = %s)",
        (role,)).scalar_one()
    if owned:
        raise DatabaseError(
            f"O perfil {role} é dono de {owned} objeto(s) deste banco: um perfil de login das "
            "estações não pode ser dono de nada. Transfira-os ao dono do banco antes.")
    for (granted,) in conn.exec_driver_sql(
            "SELECT r.rolname FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.roleid "
            "WHERE m.member = (SELECT oid FROM pg_roles WHERE rolname = %s)", (role,)).all():
        conn.exec_driver_sql(f'REVOKE "{granted}" FROM {role}')
    database = str(conn.exec_driver_sql("SELECT current_database()").scalar_one())
    conn.exec_driver_sql(f'GRANT CONNECT ON DATABASE "{database}" TO {role}')
    return owner


def _login_roles(conn: Any) -> list[str]:
    """The shared login roles set up for the workstations: those that may read the audit trail and own
    nothing, but for the per-user and profile roles (``md_<database>_…``), whose groups hold theirs."""
    rows = conn.exec_driver_sql(
        "SELECT r.rolname FROM pg_roles r WHERE r.rolcanlogin AND NOT r.rolsuper "
        "AND r.rolname <> current_user AND has_table_privilege(r.oid, 'public.audit_events', 'SELECT') "
        "AND left(r.rolname, length(motodesk_role_prefix())) <> motodesk_role_prefix() "
        "AND NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.relowner = r.oid)").all()
    return sorted(str(row[0]) for row in rows)


def _grant_login_role(conn: Any, role: str) -> None:
    """Privileges of a workstations' login role, table by table, from scratch (no GRANT OPTION)."""
    from motodesk.models.audit import APPEND_ONLY_TABLES
    from motodesk.models.roles import OWNER_TABLES  # the owner's functions' own (the staged audit among them)

    conn.exec_driver_sql(f"REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {role}")
    conn.exec_driver_sql(f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM {role}")
    conn.exec_driver_sql(f"REVOKE CREATE ON SCHEMA public FROM {role}")
    conn.exec_driver_sql(f"GRANT USAGE ON SCHEMA public TO {role}")
    for table in [str(r[0]) for r in conn.exec_driver_sql(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'").all() if str(r[0]) not in OWNER_TABLES]:
        if table == "alembic_version":
            privileges = "SELECT"
        elif table in APPEND_ONLY_TABLES:
            privileges = "SELECT, INSERT" if APPEND_ONLY_TABLES[table] else "SELECT"
        else:
            privileges = "SELECT, INSERT, UPDATE, DELETE"
        conn.exec_driver_sql(f'GRANT {privileges} ON "{table}" TO {role}')
    conn.exec_driver_sql(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {role}")
