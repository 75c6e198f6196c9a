"""Every service refuses the wrong role, found by walking motodesk.services (not a hand-kept list).

A service is a public function of a `motodesk.services` module whose first parameter is `ctx`.
Each one either declares its roles with `@requires`, or is in `OPEN_TO_EVERY_USER` below with the
reason it needs none; a new service that does neither fails here.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable, Iterator

from sqlalchemy import func, select
from tests_helpers import raises_code  # type: ignore[import-not-found]

import motodesk.services as services_package
from motodesk.models import AuditEvent
from motodesk.rules.common import Role
from motodesk.services.context import AppContext
from motodesk.services.errors import PermissionDeniedError

OPEN_TO_EVERY_USER = {
    "auth.count_users": "start-up: is there anybody yet (first-run wizard)",
    "auth.find_login": "login: whom a login names, before any password; proves nothing",
    "auth.authenticate": "login itself",
    "auth.create_first_admin": "the first administrator of a database without users; refuses once any exists",
    "backup_reminder.last_backup": "read: the date shown in the backup reminder",
    "backup_reminder.reminder_days": "read: a setting",
    "backup_reminder.backup_reminder": "read: the reminder text (shown to administrators only by the window)",
    "backup_reminder.blob_totals": "read: sizes for the backup manifest",
    "deadlines.collect": "read: deadlines, every profile sees them (inspectors included)",
    "deadlines.person_deadlines": "read: one person's deadlines in the dossier",
    "permits_force.run_calendar": "the system's daily job (terms ending, suspensions lifted), no person acts",
    "deputies.lift_ended_deputy_suspensions": "the daily job's step for deputies (run_calendar), no person acts",
    "settings.law_settings": "read: the law's parameters every rule needs",
    "settings.ensure_defaults": "start-up: writes the default settings once, before anyone logs in",
    "badges_keypair.current_signing_key": "this workstation's own key store, for its callers' signing (print, status "
                                  "list, audit checkpoint), each with its own roles; no command hands it out",
}


def services() -> Iterator[tuple[str, Callable[..., object]]]:
    for info in sorted(pkgutil.iter_modules(services_package.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{services_package.__name__}.{info.name}")
        for name, fn in sorted(vars(module).items()):
            if name.startswith("_") or not inspect.isfunction(fn) or fn.__module__ != module.__name__:
                continue
            params = list(inspect.signature(fn).parameters)
            if params and params[0] == "ctx":
                yield f"{info.name}.{name}", fn


ALL = list(services())
GUARDED = [(name, fn) for name, fn in ALL if hasattr(fn, "allowed_roles")]


def test_every_service_declares_its_roles_or_says_why_not() -> None:
    unguarded = {name for name, fn in ALL if not hasattr(fn, "allowed_roles")}
    assert unguarded == set(OPEN_TO_EVERY_USER), (
        f"new services without @requires: {sorted(unguarded - set(OPEN_TO_EVERY_USER))}; "
        f"no longer services: {sorted(set(OPEN_TO_EVERY_USER) - unguarded)}")
    assert len(GUARDED) >= 100  # the walk found the services, not an empty package


def _dummy_call(fn: Callable[..., object], ctx: AppContext) -> object:
    """Call with None for every required argument: the role check comes before any of them is read."""
    params = list(inspect.signature(fn).parameters.values())[1:]
    args = [None for p in params if p.default is p.empty
            and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    kwargs = {p.name: None for p in params if p.default is p.empty and p.kind is p.KEYWORD_ONLY}
    return fn(ctx, *args, **kwargs)


def test_each_service_refuses_every_role_it_does_not_name(ctx: AppContext) -> None:
    from conftest import user_ctx  # type: ignore[import-not-found]

    with ctx.read() as s:
        audit_before = s.scalar(select(func.count(AuditEvent.id)))
    refused = 0
    for name, fn in GUARDED:
        allowed = fn.allowed_roles  # type: ignore[attr-defined]
        assert allowed, name
        for role in Role:
            if role in allowed:
                continue
            with raises_code(PermissionDeniedError, "permission_denied") as caught:
                _dummy_call(fn, user_ctx(ctx, role))
            assert role.label in str(caught.value), name
            refused += 1
    assert refused > len(GUARDED)  # most services are closed to several profiles
    with ctx.read() as s:  # nothing was written by any refused call
        assert s.scalar(select(func.count(AuditEvent.id))) == audit_before
