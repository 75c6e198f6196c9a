"""Users, roles and login: argon2id hashes, lockout after repeated failures.

**Logins (names).**  A login is normalised (NFKC, then case-folded) and must then read
``^[a-z0-9][a-z0-9._-]{1,31}$``; a full-width "ｍａｒｉａ" therefore becomes "maria", and a Cyrillic
"а" is refused. A new login is also refused when its *skeleton* equals an existing login's: the
skeleton maps the common Cyrillic and Greek look-alikes of Latin letters (:data:`CONFUSABLES`, a
hand-kept subset of Unicode's confusables.txt, UTS #39) and the ASCII pairs that read alike in a
terminal font ("0"/"o", "1"/"l", "rn"/"m", "vv"/"w") to one letter, and drops ".", "_" and "-".
Logins stored before this rule (they could hold any letter) are compared by the same skeleton.

**Login (password).**  Wrong passwords are counted with one atomic ``UPDATE … SET failed_logins =
failed_logins + 1``, never read-modify-write: concurrent failures from several workstations all
count and none of them sees a version conflict. An unknown or inactive login runs the same argon2id
verification against a dummy hash and reads exactly like a wrong password, so neither the time nor
the message tells which logins exist. A locked login reads like a wrong password too (the
administration screen shows who is locked): the message never confirms that a password was right.

**Per-user roles (PostgreSQL).**  When the database has a role per user (:mod:`motodesk.models.roles`)
the server checks the password: :func:`authenticate` connects as the user's own role with the
password typed, and the user then works on that connection (``CurrentUser.database``). A refused
connection counts as a wrong password through the owner's ``motodesk_login_failed`` (which locks
the role at the limit); the argon2id hash is not used (``users.password_hash`` holds a marker).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from datetime import UTC, datetime

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import case, func, select, update
from sqlalchemy.orm import Session

from motodesk.models import User, roles
from motodesk.models.db import Database, explain_error
from motodesk.rules.common import Role
from motodesk.services.context import AppContext, CurrentUser, requires
from motodesk.services.errors import (
    AuthenticationError,
    DatabaseUnavailableError,
    InvalidInputError,
    NotFoundError,
    PermissionDeniedError,
)
from motodesk.services.text import clean_text

# argon2-cffi's defaults are argon2id with RFC 9106's low-memory profile.
_hasher = PasswordHasher()

MAX_FAILED_LOGINS = 5
MIN_PASSWORD_LENGTH = 8
WRONG_CREDENTIALS = "Usuário ou senha incorretos."
LOCKED = "Usuário bloqueado por excesso de tentativas. Peça a um administrador para desbloqueá-lo."
LOGIN_PATTERN = re.compile(r"[a-z0-9][a-z0-9._-]{1,31}")
INVALID_LOGIN = ("Login inválido: use de 2 a 32 letras sem acento (a–z), números, ponto, hífen ou sublinhado, "
                 "começando por letra ou número.")

#: Look-alikes of Latin letters (Cyrillic and Greek, lower case after casefold) -> the Latin letter.
CONFUSABLES: dict[str, str] = {
    # Cyrillic
    "а": "a", "в": "b", "с": "c", "ԁ": "d", "е": "e", "ё": "e", "һ": "h", "і": "i", "ї": "i", "ј": "j",
    "к": "k", "ӏ": "l", "м": "m", "н": "h", "о": "o", "р": "p", "ԛ": "q", "г": "r", "ѕ": "s", "т": "t",
    "у": "y", "ү": "y", "х": "x", "ԝ": "w", "ш": "w", "п": "n", "ь": "b", "з": "3", "б": "6",
    # Greek
    "α": "a", "β": "b", "ϲ": "c", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p",
    "τ": "t", "υ": "u", "χ": "x", "ω": "w", "μ": "u", "γ": "y", "ζ": "z",
    # Latin and others that NFKC keeps apart
    "ı": "i", "ɩ": "i", "ɑ": "a", "ɡ": "g", "ʀ": "r", "ꜱ": "s", "ɴ": "n",
}
#: ASCII that reads alike in a terminal or a list, applied after the letters above.
_ASCII_LOOKALIKES = (("rn", "m"), ("vv", "w"), ("0", "o"), ("1", "l"), ("i", "l"), ("5", "s"))


def normalise_login(login: str) -> str:
    """The stored form of a typed login: NFKC, case-folded, outer spaces removed."""
    return unicodedata.normalize("NFKC", login or "").casefold().strip()


def login_skeleton(login: str) -> str:
    """What a login looks like: two logins with one skeleton can be mistaken for each other."""
    text = unicodedata.normalize("NFKD", normalise_login(login))
    text = "".join(CONFUSABLES.get(ch, ch) for ch in text if not unicodedata.combining(ch))
    text = re.sub(r"[._\-]", "", text)
    for pair, letter in _ASCII_LOOKALIKES:
        text = text.replace(pair, letter)
    return text


def check_login_name(s: Session, login: str) -> str:
    """The normalised login, or InvalidInputError (bad characters, look-alike of an existing login)."""
    normal = normalise_login(login)
    if not LOGIN_PATTERN.fullmatch(normal):
        raise InvalidInputError(INVALID_LOGIN, {"login": "Login inválido."}, code="user.login_invalid")
    skeleton = login_skeleton(normal)
    for existing in s.scalars(select(User.login)):
        if existing == normal:
            raise InvalidInputError(f"Já existe um usuário com o login {normal!r}.", {"login": "Já existe."},
                                    code="user.login_taken")
        if login_skeleton(existing) == skeleton:
            raise InvalidInputError(
                f"O login {normal!r} se confunde com o login existente {existing!r} (letras parecidas); "
                "escolha outro.", {"login": "Parecido demais com outro login."}, code="user.login_confusable")
    return normal


def hash_password(password: str) -> str:
    return _hasher.hash(password)


@functools.cache
def _dummy_hash() -> str:
    """Verified when the login is unknown, so that it costs what a wrong password costs. Made on first
    use, not at import: an argon2id hash at import delayed every start-up's "database ready"."""
    return hash_password("motodesk: senha que nenhum usuário tem")


def _check_password_policy(password: str) -> None:
    if len(password) < MIN_PASSWORD_LENGTH:
        raise InvalidInputError(
            f"A senha deve ter pelo menos {MIN_PASSWORD_LENGTH} caracteres.", {"password": "Senha curta demais."}
        )


def _current(user: User, database: Database | None = None) -> CurrentUser:
    return CurrentUser(id=user.id, login=user.login, full_name=user.full_name, role=user.role,
                       must_change_password=bool(user.must_change_password), database=database)


def _server_checks(ctx: AppContext) -> bool:
    return not ctx.db.is_sqlite and ctx.db.per_user_roles


def _stored_hash(ctx: AppContext, password: str) -> str:
    return roles.SERVER_PASSWORD if _server_checks(ctx) else hash_password(password)


#: What the server says when it refuses a login's password (or the login, NOLOGIN while locked or
#: disabled): all read as a wrong password, so nobody learns which logins exist or are locked.
_REFUSED = ("password authentication failed", "is not permitted to log in", "authentication failed")


def _connect_as(ctx: AppContext, login: str, password: str) -> Database | None:
    """The user's own connection, or None when the server refused the password (or the login)."""
    from sqlalchemy.exc import DBAPIError


    own = ctx.db.for_role(roles.user_role(ctx.db.role_prefix, login), password)
    try:
        with own.engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")
    except DBAPIError as exc:
        own.dispose()
        text = str(exc.orig).lower()
        if any(reason in text for reason in _REFUSED):
            return None
        raise DatabaseUnavailableError(explain_error(exc, ctx.db.url)) from exc
    return own


def _count_failed_on_server(ctx: AppContext, login: str) -> None:
    with ctx.write() as s:
        s.connection().exec_driver_sql("SELECT motodesk_login_failed(%s)", (login,))


def _authenticate_on_server(ctx: AppContext, login: str, password: str) -> CurrentUser:
    if not LOGIN_PATTERN.fullmatch(login) or not password:
        raise AuthenticationError(WRONG_CREDENTIALS)
    own = _connect_as(ctx, login, password)
    if own is None:
        _count_failed_on_server(ctx, login)
        raise AuthenticationError(WRONG_CREDENTIALS)
    mine = AppContext(own, CurrentUser(id=None, login=login, full_name=login, role=Role.CLERK))
    try:
        with mine.write() as s:
            done = s.connection().exec_driver_sql("SELECT motodesk_login_succeeded()").scalar()
            user = s.scalar(select(User).where(User.login == login))
    except BaseException:
        own.dispose()
        raise
    if not done or user is None:  # locked or disabled meanwhile
        own.dispose()
        raise AuthenticationError(WRONG_CREDENTIALS)
    return _current(user, own)


def count_users(ctx: AppContext) -> int:
    """How many users; through a workstation's pre-login role (which reads no users) 1 or 0."""
    if _through_gate(ctx):
        with ctx.read() as s:
            return 1 if s.connection().exec_driver_sql("SELECT motodesk_has_users()").scalar() else 0
    with ctx.read() as s:
        return s.scalar(select(func.count(User.id))) or 0


def _through_gate(ctx: AppContext) -> bool:
    return _server_checks(ctx) and ctx.db.is_gate


ALREADY_HAS_USERS = "O banco já tem usuários: só um administrador (--user) cria outros."


def _first_admin_through_gate(ctx: AppContext, login: str, full_name: str, password: str) -> CurrentUser:
    """Per-user roles, from a workstation's pre-login role (the set-up wizard on a new installation):
    the owner's ``motodesk_create_first_admin`` writes the users row and creates the role, refused
    once any user exists. Returns the new administrator logged in as his own role."""
    from sqlalchemy.exc import DBAPIError

    _check_password_policy(password)
    login = normalise_login(login)
    if not LOGIN_PATTERN.fullmatch(login):
        raise InvalidInputError("Login inválido: use de 2 a 32 letras minúsculas, números, ponto, hífen ou "
                                "sublinhado, começando por letra ou número.", {"login": "Login inválido."},
                                code="user.login_invalid")
    name = clean_text(full_name or login, field="full_name", label="Nome", max_length=200, name=True)
    if count_users(ctx):
        raise PermissionDeniedError(ALREADY_HAS_USERS, code="user.already_has_users")
    try:
        with ctx.write() as s:
            conn = s.connection()
            verifier = roles.scram_verifier(conn, roles.user_role(ctx.db.role_prefix, login), password)
            conn.exec_driver_sql("SELECT motodesk_create_first_admin(%s, %s, %s)", (login, name, verifier))
    except DBAPIError as exc:
        if getattr(exc.orig, "sqlstate", None) == "42501":
            raise PermissionDeniedError(ALREADY_HAS_USERS, code="user.already_has_users") from None
        raise
    return _authenticate_on_server(ctx, login, password)


@requires(Role.ADMIN)
def create_user(ctx: AppContext, login: str, full_name: str, role: Role | str, password: str, *,
                temporary: bool = False) -> CurrentUser:
    """A new user; ``temporary``: the password is the administrator's, its owner replaces it at the
    first login (:func:`change_own_password`)."""
    try:
        role = Role(role)
    except ValueError:
        valid = ", ".join(r.value for r in Role)
        raise InvalidInputError(f"Perfil desconhecido: {role!r}. Use um destes: {valid}.", {"role": "Perfil inválido."}) from None
    _check_password_policy(password)
    if _through_gate(ctx) and role is Role.ADMIN:  # the first administrator, from the set-up wizard
        return _first_admin_through_gate(ctx, login, full_name, password)
    with ctx.write({"uq_users_login": "Já existe um usuário com este login.",
                    "cols:users.login": "Já existe um usuário com este login."}) as s:
        login = check_login_name(s, login)
        name = clean_text(full_name or login, field="full_name", label="Nome", max_length=200, name=True)
        user = User(login=login, full_name=name, role=role, password_hash=_stored_hash(ctx, password),
                    must_change_password=temporary)
        s.add(user)
        s.flush()
        roles.sync_user(s, login, password)
        return _current(user)


def create_first_admin(ctx: AppContext, login: str, full_name: str, password: str) -> CurrentUser:
    """The first administrator of a database without users (the command line's `create-user`).

    Needs no login, so it refuses as soon as any user exists: the check and the insert are one
    transaction.
    """
    _check_password_policy(password)
    if _through_gate(ctx):
        return _first_admin_through_gate(ctx, login, full_name, password)
    with ctx.write({"uq_users_login": "Já existe um usuário com este login.",
                    "cols:users.login": "Já existe um usuário com este login."}) as s:
        if s.scalar(select(func.count(User.id))):
            raise PermissionDeniedError(ALREADY_HAS_USERS, code="user.already_has_users")
        login = check_login_name(s, login)
        name = clean_text(full_name or login, field="full_name", label="Nome", max_length=200, name=True)
        user = User(login=login, full_name=name, role=Role.ADMIN, password_hash=_stored_hash(ctx, password))
        s.add(user)
        s.flush()
        roles.sync_user(s, login, password)
        return _current(user)


def find_login(ctx: AppContext, login: str) -> CurrentUser | None:
    """Whom a login names (active and not locked), before any password is checked.

    Never a proof of identity — only `authenticate` is. The window uses it to build itself while
    argon2id verifies the password, and throws that work away unless `authenticate` returns the
    same user.
    """
    login = normalise_login(login)
    if _server_checks(ctx):  # the pre-login role reads no users: nothing is built ahead
        return None
    with ctx.read() as s:
        user = s.scalar(select(User).where(User.login == login))
        if user is None or not user.active or user.locked:
            return None
        return _current(user)


def _verifies(password_hash: str, password: str) -> bool:
    try:
        return bool(_hasher.verify(password_hash, password))
    except (VerificationError, InvalidHashError):
        return False


def _count_failed_login(ctx: AppContext, user_id: int) -> bool:
    """One more wrong password for ``user_id``, in one atomic UPDATE (simultaneous tries never
    conflict); `MAX_FAILED_LOGINS` in a row lock the user. True when the user is now locked."""
    with ctx.write() as s:
        failed = User.failed_logins + 1
        row = s.execute(
            update(User).where(User.id == user_id)
            .values(failed_logins=failed, locked=case((failed >= MAX_FAILED_LOGINS, True), else_=User.locked))
            .returning(User.locked)
            .execution_options(synchronize_session=False)
        ).first()
    return row is not None and bool(row.locked)


def authenticate(ctx: AppContext, login: str, password: str) -> CurrentUser:
    """Check a login; `MAX_FAILED_LOGINS` wrong passwords in a row lock the user until an admin unlocks.

    The argon2id verification runs outside any transaction (no lock is held while it works); the
    outcome is then written with one atomic UPDATE, so simultaneous logins never conflict.
    """
    login = normalise_login(login)
    if _server_checks(ctx):
        return _authenticate_on_server(ctx, login, password)
    with ctx.read() as s:
        user = s.scalar(select(User).where(User.login == login))
    if user is None or not user.active or user.locked:
        _verifies(_dummy_hash(), password)  # as long as a wrong password takes, and reads like one
        raise AuthenticationError(WRONG_CREDENTIALS)
    if not _verifies(user.password_hash, password):
        _count_failed_login(ctx, user.id)
        raise AuthenticationError(WRONG_CREDENTIALS)
    values: dict[str, object] = {"failed_logins": 0, "last_login_at": datetime.now(UTC)}
    if _hasher.check_needs_rehash(user.password_hash):
        values["password_hash"] = hash_password(password)
    with ctx.write() as s:
        done = s.execute(
            update(User).where(User.id == user.id, User.locked.is_(False), User.active.is_(True))
            .values(**values).returning(User.id).execution_options(synchronize_session=False)
        ).first()
    if done is None:  # locked or deactivated while the password was being checked
        raise AuthenticationError(WRONG_CREDENTIALS)
    return _current(user)


TEMPORARY_PASSWORD = ("A senha de {login} é provisória (definida por um administrador): escolha uma senha "
                      "nova ao entrar no MotoDesk, ou com: motodesk change-password --user {login}")
SAME_PASSWORD = "A senha nova deve ser diferente da senha atual."


@requires(*Role)
def change_own_password(ctx: AppContext, current_password: str, new_password: str) -> CurrentUser:
    """The logged-in user replaces his own password (a temporary one, or any time he wants).

    The current password is checked again (argon2id, outside any transaction): an unattended open
    window is not enough to take over the account. A wrong current password counts towards the
    lockout like a wrong login. Returns the user with ``must_change_password`` cleared.
    """
    if ctx.user.id is None:
        raise PermissionDeniedError("Só um usuário que entrou com login e senha troca a própria senha.")
    if not current_password:
        raise InvalidInputError("Informe a senha atual.", {"current": "Informe a senha atual."})
    try:
        _check_password_policy(new_password)
    except InvalidInputError as exc:
        raise InvalidInputError(str(exc), {"new": str(exc)}) from None
    if new_password == current_password:
        raise InvalidInputError(SAME_PASSWORD, {"new": SAME_PASSWORD})
    if _server_checks(ctx):
        return _change_own_password_on_server(ctx, current_password, new_password)
    with ctx.read() as s:
        user = s.get(User, ctx.user.id)
    if user is None or not user.active or user.locked:
        raise AuthenticationError(WRONG_CREDENTIALS)
    if not _verifies(user.password_hash, current_password):
        _count_failed_login(ctx, user.id)
        raise InvalidInputError("A senha atual não confere.", {"current": "Senha atual incorreta."})
    new_hash = hash_password(new_password)
    with ctx.write() as s:
        stored = s.get(User, user.id)
        if stored is None or not stored.active or stored.locked:
            raise AuthenticationError(WRONG_CREDENTIALS)
        stored.password_hash = new_hash
        stored.must_change_password = False
        stored.failed_logins = 0
        s.flush()
        return _current(stored)


def _change_own_password_on_server(ctx: AppContext, current_password: str, new_password: str) -> CurrentUser:
    """Per-user roles: the server checks the current password (a new connection with it), then the
    user's own connection sets the new one (``motodesk_change_own_password``, a SCRAM verifier)."""
    login = ctx.user.login
    check = _connect_as(ctx, login, current_password)
    if check is None:
        _count_failed_on_server(ctx, login)
        raise InvalidInputError("A senha atual não confere.", {"current": "Senha atual incorreta."})
    check.dispose()
    own = ctx.user.database or ctx.db
    with AppContext(own, ctx.user).write() as s:
        conn = s.connection()
        role = str(conn.exec_driver_sql("SELECT current_user").scalar_one())
        if role != roles.user_role(ctx.db.role_prefix, login):
            raise PermissionDeniedError("Só o próprio usuário, conectado com a sua senha, troca a própria senha.")
        verifier = roles.scram_verifier(conn, role, new_password)
        # The new password and the end of "temporary password" are one server step.
        if not conn.exec_driver_sql("SELECT motodesk_change_own_password(%s)", (verifier,)).scalar():
            raise AuthenticationError(WRONG_CREDENTIALS)
        user = s.scalar(select(User).where(User.login == login))
    own.change_secret(new_password)
    if user is None:
        raise AuthenticationError(WRONG_CREDENTIALS)
    return _current(user, ctx.user.database)


@requires(Role.ADMIN)
def unlock_user(ctx: AppContext, login: str) -> None:
    with ctx.write() as s:
        user = s.scalar(select(User).where(User.login == normalise_login(login)))
        if user is None:
            raise NotFoundError(f"Usuário {login!r} não encontrado.")
        user.locked = False
        user.failed_logins = 0
        s.flush()
        roles.sync_user(s, user.login)


@requires(Role.ADMIN)
def set_password(ctx: AppContext, login: str, password: str) -> None:
    _check_password_policy(password)
    with ctx.write() as s:
        user = s.scalar(select(User).where(User.login == normalise_login(login)))
        if user is None:
            raise NotFoundError(f"Usuário {login!r} não encontrado.")
        user.password_hash = _stored_hash(ctx, password)
        s.flush()
        roles.sync_user(s, user.login, password)


@requires(Role.ADMIN)
def list_users(ctx: AppContext) -> list[User]:
    with ctx.read() as s:
        return list(s.scalars(select(User).order_by(User.login)))
