"""The administrators' user management: create, disable/enable, reset password, unlock, change role.

Reuses :mod:`motodesk.services.auth` for everything about logins and passwords (normalised and
look-alike-checked logins, the password policy, argon2id hashes, the lockout counters). Every call
is one transaction and refuses anyone but an administrator; the audit trail records each change
(the password hash only as "changed", see ``motodesk.models.audit.SECRET_COLUMNS``). With per-user
roles (PostgreSQL) each change also reaches the user's own role (``motodesk.models.roles.sync_user``,
in the same transaction): disabled or locked is NOLOGIN, the profile is its group's membership, a
reset password is the role's password.

The secretariat must never be left without an administrator: nobody may disable or demote the last
active administrator, and an administrator never disables or demotes himself (another one does).
The administrators' rows are locked (``SELECT … FOR UPDATE`` on PostgreSQL) while that is checked,
so two administrators demoting each other at once cannot both succeed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from motodesk.models import User, roles
from motodesk.rules.common import Role
from motodesk.services import auth
from motodesk.services.context import AppContext, CurrentUser, requires
from motodesk.services.errors import InvalidInputError, NotFoundError, PermissionDeniedError

LAST_ADMIN = ("{login!r} é o último administrador ativo: crie ou ative outro administrador antes de "
              "{what}.")
SELF_DISABLE = "Você não pode desativar o seu próprio usuário: peça a outro administrador."
SELF_TEMPORARY = ("A sua senha é provisória: troque-a você mesmo (Trocar senha, com a senha atual); um "
                  "administrador não a torna definitiva para si próprio.")
SELF_DEMOTE = "Você não pode tirar o perfil de administrador do seu próprio usuário: peça a outro administrador."


@dataclass(frozen=True)
class UserRow:
    """One user as the administration screen lists it (never the password hash)."""

    id: int
    login: str
    full_name: str
    role: Role
    active: bool
    locked: bool
    failed_logins: int
    last_login_at: datetime | None
    version: int
    must_change_password: bool = False

    @property
    def status(self) -> str:
        if not self.active:
            return "Desativado"
        if self.locked:
            return f"Bloqueado ({self.failed_logins} tentativas)"
        if self.must_change_password:
            return "Ativo · senha provisória"
        return "Ativo"


def _row(user: User) -> UserRow:
    return UserRow(user.id, user.login, user.full_name, Role(user.role), bool(user.active), bool(user.locked),
                   int(user.failed_logins or 0), user.last_login_at, int(user.version),
                   bool(user.must_change_password))


def _user(s: Session, login: str) -> User:
    user = s.scalar(select(User).where(User.login == auth.normalise_login(login)))
    if user is None:
        raise NotFoundError(f"Usuário {login!r} não encontrado.")
    return user


def _is_self(ctx: AppContext, user: User) -> bool:
    me = ctx.user
    return (me.id is not None and me.id == user.id) or me.login == user.login


def _check_not_last_admin(s: Session, user: User, what: str) -> None:
    """Refuse when ``user`` is the only active administrator (the admins' rows locked meanwhile)."""
    admins = list(s.scalars(select(User.id).where(User.role == Role.ADMIN, User.active.is_(True))
                            .order_by(User.id).with_for_update()))
    if user.id in admins and len(admins) <= 1:
        raise PermissionDeniedError(LAST_ADMIN.format(login=user.login, what=what))


@requires(Role.ADMIN)
def list_users(ctx: AppContext) -> list[UserRow]:
    with ctx.read() as s:
        return [_row(u) for u in s.scalars(select(User).order_by(User.login))]


@requires(Role.ADMIN)
def create_user(ctx: AppContext, login: str, full_name: str, role: Role | str, password: str, *,
                temporary: bool = False) -> UserRow:
    """A new user with an initial password (the policy of :mod:`auth`); the name is required here.
    ``temporary``: the user must replace it at the first login."""
    if not (full_name or "").strip():
        raise InvalidInputError("Informe o nome completo do usuário.", {"full_name": "Informe o nome."})
    created: CurrentUser = auth.create_user(ctx, login, full_name, role, password, temporary=temporary)
    with ctx.read() as s:
        return _row(_user(s, created.login))


@requires(Role.ADMIN)
def set_active(ctx: AppContext, login: str, active: bool) -> UserRow:
    """Disable (nobody can log in with it; its history stays) or enable a user again."""
    with ctx.write() as s:
        user = _user(s, login)
        if not active and user.active:
            if _is_self(ctx, user):
                raise PermissionDeniedError(SELF_DISABLE)
            if user.role == Role.ADMIN:
                _check_not_last_admin(s, user, "desativá-lo")
        user.active = bool(active)
        s.flush()
        roles.sync_user(s, user.login)  # per-user roles: NOLOGIN while disabled
        return _row(user)


def _known_role(role: Role | str) -> Role:
    try:
        return Role(role)
    except ValueError:
        raise InvalidInputError(f"Perfil desconhecido: {role!r}.", {"role": "Perfil inválido."}) from None


def _check_role_change(ctx: AppContext, s: Session, user: User, new_role: Role) -> None:
    """An administrator leaves the profile only if it is not oneself nor the last active one."""
    if user.role == Role.ADMIN and new_role is not Role.ADMIN:
        if _is_self(ctx, user):
            raise PermissionDeniedError(SELF_DEMOTE)
        if user.active:
            _check_not_last_admin(s, user, "mudar o seu perfil")


@requires(Role.ADMIN)
def change_role(ctx: AppContext, login: str, role: Role | str) -> UserRow:
    new_role = _known_role(role)
    with ctx.write() as s:
        user = _user(s, login)
        _check_role_change(ctx, s, user, new_role)
        user.role = new_role
        s.flush()
        roles.sync_user(s, user.login)  # per-user roles: the profile's group
        return _row(user)


@requires(Role.ADMIN)
def reset_password(ctx: AppContext, login: str, password: str, *, temporary: bool = True) -> UserRow:
    """A new password chosen by the administrator; the wrong-password count starts again (a locked
    user stays locked until unlocked, so that a reset is never a silent unlock). The password is
    temporary unless ``temporary=False``: the administrator knows it, so its owner replaces it at the
    next login."""
    auth._check_password_policy(password)
    with ctx.write() as s:
        user = _user(s, login)
        if _is_self(ctx, user) and user.must_change_password and not temporary:
            raise PermissionDeniedError(SELF_TEMPORARY, code="user.self_temporary")  # the server refuses it too (motodesk_users_guard)
        user.password_hash = auth._stored_hash(ctx, password)
        user.must_change_password = temporary
        if not user.locked:
            user.failed_logins = 0
        s.flush()
        roles.sync_user(s, user.login, password)  # per-user roles: ALTER ROLE … PASSWORD
        return _row(user)


@requires(Role.ADMIN)
def unlock(ctx: AppContext, login: str) -> UserRow:
    with ctx.write() as s:
        user = _user(s, login)
        if not user.locked and not user.failed_logins:
            raise InvalidInputError(f"O usuário {user.login!r} não está bloqueado.", code="user.not_locked")
        user.locked = False
        user.failed_logins = 0
        s.flush()
        roles.sync_user(s, user.login)  # per-user roles: LOGIN again
        return _row(user)


@requires(Role.ADMIN)
def rename(ctx: AppContext, login: str, full_name: str) -> UserRow:
    from motodesk.services.text import clean_text

    if not (full_name or "").strip():
        raise InvalidInputError("Informe o nome completo do usuário.", {"full_name": "Informe o nome."})
    with ctx.write() as s:
        user = _user(s, login)
        user.full_name = clean_text(full_name, field="full_name", label="Nome", max_length=200, name=True)
        s.flush()
        return _row(user)


@requires(Role.ADMIN)
def update_user(ctx: AppContext, login: str, full_name: str, role: Role | str) -> UserRow:
    """Name and role together, in one transaction (the same guards as :func:`change_role`)."""
    from motodesk.services.text import clean_text

    new_role = _known_role(role)
    if not (full_name or "").strip():
        raise InvalidInputError("Informe o nome completo do usuário.", {"full_name": "Informe o nome."})
    with ctx.write() as s:
        user = _user(s, login)
        _check_role_change(ctx, s, user, new_role)
        user.full_name = clean_text(full_name, field="full_name", label="Nome", max_length=200, name=True)
        user.role = new_role
        s.flush()
        roles.sync_user(s, user.login)  # per-user roles: the profile's group
        return _row(user)
