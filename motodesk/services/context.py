"""Who is working, on which database: the context every service takes as its first argument."""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Concatenate, ParamSpec, TypeVar, cast

from sqlalchemy import Connection
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import Session
from sqlalchemy.orm.exc import StaleDataError

from motodesk.models.db import Database, explain_error
from motodesk.rules.common import Role
from motodesk.services import live
from motodesk.services.errors import (
    ConflictError,
    DatabaseUnavailableError,
    MotodeskError,
    NotFoundError,
    PermissionDeniedError,
)

P = ParamSpec("P")
T = TypeVar("T")

CONFLICT_MESSAGE = (
    "Outra estação salvou este registro depois que você o abriu. "
    "Nada foi gravado: recarregue para ver a versão atual ou revise as duas versões."
)


@dataclass(frozen=True)
class CurrentUser:
    id: int | None
    login: str
    full_name: str
    role: Role
    #: The password was chosen by an administrator: the login asks for a new one before anything else.
    must_change_password: bool = field(default=False, compare=False)
    #: PostgreSQL with per-user roles: the connection the server opened for this user (his own role,
    #: his password); a context made for him works on it (:meth:`AppContext.as_user`).
    database: Database | None = field(default=None, compare=False, repr=False)


SYSTEM = CurrentUser(id=None, login="sistema", full_name="Sistema", role=Role.ADMIN)


@dataclass
class AppContext:
    """The database and the logged-in user; one per window, CLI command or test."""

    db: Database
    user: CurrentUser = SYSTEM
    #: Names this window's writes in their change announcements (:mod:`motodesk.services.live`):
    #: its own listener drops them, since its pages already showed the change. Kept by `as_user`.
    origin: str = field(default_factory=lambda: uuid.uuid4().hex[:16], compare=False)

    def as_user(self, user: CurrentUser) -> AppContext:
        """The context of ``user``: on his own connection when the server authenticated him."""
        return replace(self, db=user.database or self.db, user=user)

    @contextmanager
    def read(self) -> Iterator[Session]:
        try:
            with self.db.session() as session:
                session.info["user_login"] = self.user.login
                yield session
        except MotodeskError:
            raise
        except DBAPIError as exc:
            raise DatabaseUnavailableError(explain_error(exc, self.db.url)) from exc

    @contextmanager
    def write(self, integrity_messages: dict[str, str] | None = None, *,
              before_begin: Callable[[Connection], None] | None = None) -> Iterator[Session]:
        """One unit of work: commit on success, roll back everything on any error.

        `integrity_messages` maps a constraint name to the pt_BR message for its violation;
        `before_begin` runs on the connection before the transaction begins (:meth:`Database.session`).
        """
        try:
            with self.db.session(write=True, before_begin=before_begin) as session:
                session.info["user_login"] = self.user.login
                session.info[live.ORIGIN] = self.origin
                with session.begin():
                    yield session
        except MotodeskError:
            raise
        except StaleDataError as exc:
            raise ConflictError(CONFLICT_MESSAGE) from exc
        except IntegrityError as exc:
            raise integrity_error(exc, integrity_messages or {}) from exc
        except DBAPIError as exc:
            raise DatabaseUnavailableError(explain_error(exc, self.db.url)) from exc


def current_row(s: Session, model: type[T], row_id: int, expected_version: int | None, missing: str) -> T:
    """The row ``row_id`` of ``model`` as this transaction sees it: NotFoundError(``missing``) when
    another workstation removed it, ConflictError when ``expected_version`` (the version the clerk
    opened) is given and the row has moved on since."""
    row = s.get(model, row_id)
    if row is None:
        raise NotFoundError(missing)
    if expected_version is not None and cast(Any, row).version != expected_version:
        raise ConflictError(CONFLICT_MESSAGE)
    return row


def integrity_error(exc: IntegrityError, messages: dict[str, str]) -> MotodeskError:
    text = str(exc.orig)
    for name, message in messages.items():
        # PostgreSQL names the constraint; SQLite names the columns ("cols:table.column").
        if name.removeprefix("cols:") in text:
            return MotodeskError(message, code="constraint")
    return MotodeskError(explain_error(exc))  # pt_BR by kind (unique, not null, check, foreign key); original logged


#: Who reads the register: every profile.
READERS = (Role.CLERK, Role.SUPERVISOR, Role.INSPECTOR, Role.ADMIN)
#: Who edits a dossier at the counter (people, vehicles, deputies, organisations, applications…).
EDITORS = (Role.CLERK, Role.SUPERVISOR)


def requires(*roles: Role) -> Callable[[Callable[Concatenate[AppContext, P], T]], Callable[Concatenate[AppContext, P], T]]:
    """Refuse the call unless the context's user has one of `roles`: the GUI and the CLI alike."""

    allowed = frozenset(roles)

    def decorate(func: Callable[Concatenate[AppContext, P], T]) -> Callable[Concatenate[AppContext, P], T]:
        @functools.wraps(func)
        def wrapper(ctx: AppContext, *args: P.args, **kwargs: P.kwargs) -> T:
            if ctx.user.role not in allowed:
                names = ", ".join(sorted(r.label for r in allowed))
                raise PermissionDeniedError(
                    f"Seu perfil ({ctx.user.role.label}) não permite esta operação. Perfis autorizados: {names}."
                )
            return func(ctx, *args, **kwargs)

        wrapper.allowed_roles = allowed  # type: ignore[attr-defined]
        return wrapper

    return decorate
