"""Users, roles and login: argon2id hashes, lockout after repeated failures."""

from __future__ import annotations

from datetime import UTC, datetime

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import func, select

from motodesk.models import User
from motodesk.rules.common import Role
from motodesk.services.context import AppContext, CurrentUser, requires
from motodesk.services.errors import AuthenticationError, InvalidInputError, NotFoundError

# argon2-cffi's defaults are argon2id with RFC 9106's low-memory profile.
_hasher = PasswordHasher()

MAX_FAILED_LOGINS = 5
MIN_PASSWORD_LENGTH = 8
WRONG_CREDENTIALS = "Usuário ou senha incorretos."


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def _check_password_policy(password: str) -> None:
    if len(password) < MIN_PASSWORD_LENGTH:
        raise InvalidInputError(
            f"A senha deve ter pelo menos {MIN_PASSWORD_LENGTH} caracteres.", {"password": "Senha curta demais."}
        )


def _current(user: User) -> CurrentUser:
    return CurrentUser(id=user.id, login=user.login, full_name=user.full_name, role=user.role)


def count_users(ctx: AppContext) -> int:
    with ctx.read() as s:
        return s.scalar(select(func.count(User.id))) or 0


@requires(Role.ADMIN)
def create_user(ctx: AppContext, login: str, full_name: str, role: Role | str, password: str) -> CurrentUser:
    login = (login or "").strip().lower()
    if not login or not login.replace(".", "").replace("_", "").replace("-", "").isalnum() or len(login) > 64:
        raise InvalidInputError(
            "Login inválido: use letras, números, ponto, hífen ou sublinhado (até 64).", {"login": "Login inválido."}
        )
    try:
        role = Role(role)
    except ValueError:
        valid = ", ".join(r.value for r in Role)
        raise InvalidInputError(f"Perfil desconhecido: {role!r}. Use um destes: {valid}.", {"role": "Perfil inválido."}) from None
    _check_password_policy(password)
    with ctx.write({"uq_users_login": f"Já existe um usuário com o login {login!r}.",
                    "cols:users.login": f"Já existe um usuário com o login {login!r}."}) as s:
        user = User(login=login, full_name=(full_name or login).strip(), role=role, password_hash=hash_password(password))
        s.add(user)
        s.flush()
        return _current(user)


def find_login(ctx: AppContext, login: str) -> CurrentUser | None:
    """Whom a login names (active and not locked), before any password is checked.

    Never a proof of identity — only `authenticate` is. The window uses it to build itself while
    argon2id verifies the password, and throws that work away unless `authenticate` returns the
    same user.
    """
    login = (login or "").strip().lower()
    with ctx.read() as s:
        user = s.scalar(select(User).where(User.login == login))
        if user is None or not user.active or user.locked:
            return None
        return _current(user)


def authenticate(ctx: AppContext, login: str, password: str) -> CurrentUser:
    """Check a login; `MAX_FAILED_LOGINS` wrong passwords in a row lock the user until an admin unlocks."""
    login = (login or "").strip().lower()
    failure: str | None = None
    with ctx.write() as s:
        user = s.scalar(select(User).where(User.login == login))
        if user is None or not user.active:
            failure = WRONG_CREDENTIALS
        elif user.locked:
            failure = "Usuário bloqueado por excesso de tentativas. Peça a um administrador para desbloqueá-lo."
        else:
            try:
                _hasher.verify(user.password_hash, password)
            except (VerificationError, InvalidHashError):
                user.failed_logins += 1
                if user.failed_logins >= MAX_FAILED_LOGINS:
                    user.locked = True
                    failure = (
                        f"Senha incorreta pela {user.failed_logins}ª vez: o usuário foi bloqueado. "
                        "Peça a um administrador para desbloqueá-lo."
                    )
                else:
                    left = MAX_FAILED_LOGINS - user.failed_logins
                    failure = f"{WRONG_CREDENTIALS} Restam {left} tentativa(s) antes do bloqueio."
            else:
                user.failed_logins = 0
                user.last_login_at = datetime.now(UTC)
                if _hasher.check_needs_rehash(user.password_hash):
                    user.password_hash = hash_password(password)
                return _current(user)
    raise AuthenticationError(failure)


@requires(Role.ADMIN)
def unlock_user(ctx: AppContext, login: str) -> None:
    with ctx.write() as s:
        user = s.scalar(select(User).where(User.login == login.strip().lower()))
        if user is None:
            raise NotFoundError(f"Usuário {login!r} não encontrado.")
        user.locked = False
        user.failed_logins = 0


@requires(Role.ADMIN)
def set_password(ctx: AppContext, login: str, password: str) -> None:
    _check_password_policy(password)
    with ctx.write() as s:
        user = s.scalar(select(User).where(User.login == login.strip().lower()))
        if user is None:
            raise NotFoundError(f"Usuário {login!r} não encontrado.")
        user.password_hash = hash_password(password)


@requires(Role.ADMIN)
def list_users(ctx: AppContext) -> list[User]:
    with ctx.read() as s:
        return list(s.scalars(select(User).order_by(User.login)))
