"""The public verifier (:mod:`motodesk.services.badges`): the static page a passenger's phone opens
from the QR, with the public keys, and the signed status list it fetches.
"""

from __future__ import annotations

import base64
import json
import typing
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import select
from sqlalchemy.orm import Session

from motodesk.models import DeputyLink, Permit, Person
from motodesk.printing.token import cpf_digest, public_key_raw, sign_status
from motodesk.rules.common import PermitState, Role
from motodesk.services.audit import publish_checkpoint
from motodesk.services.badge_keys import key_id
from motodesk.services.badges_keypair import _verification_keys, current_signing_key
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext, requires
from motodesk.services.errors import MotodeskError
from motodesk.services.settings import law_settings

if TYPE_CHECKING:
    from motodesk.services.audit import PublishedCheckpoint


STATUS_FILE = "status.json"
KEYS_FILE = "keys.json"
STATUS_FORMAT = "motodesk-status/1"
SIGNED_STATUS_FORMAT = "motodesk-status-signed/1"
KEYS_FORMAT = "motodesk-keys/1"
PUBLISHERS = (Role.ADMIN, Role.SUPERVISOR, Role.CLERK)


@dataclass(frozen=True)
class PublishedStatus:
    path: Path
    issued_at: datetime
    key_id: str
    permits: int  # permits listed (suspended, revoked, cancelled, ended)
    deputies: int  # deputies listed (suspended, revoked, unlinked)
    reprinted: int  # badges with an older, superseded copy
    checkpoint: PublishedCheckpoint | None = None  # the audit trail's signed head published beside it (services.audit)


def _iso_day(day: date | None) -> str | None:
    return day.isoformat() if day else None


def _status_body(s: Session, issued_at: datetime, signer: str, today: date) -> dict[str, object]:
    """What the page needs to tell a valid badge from a withdrawn one, and nothing personal.

    Permits by number (their state, as the register's ``_register_status`` judges it); deputies by
    permit number and the CPF digest their badge's QR already carries; the copy in use of every badge
    reprinted (an older copy reads "substituído"). Names, CPFs and plates are never listed: the page
    shows only what the scanned badge's own signed claim says.
    """
    permits_listed: dict[str, dict[str, str | None]] = {}
    copies: dict[str, int] = {}
    for number, state, until, ended, issue in s.execute(select(
            Permit.number, Permit.state, Permit.suspended_until, Permit.ended_on, Permit.badge_issue_no)
            .where(Permit.badge_issue_no > 0).order_by(Permit.number)).all():
        if state is PermitState.SUSPENDED:
            permits_listed[number] = {"state": "suspended", "until": _iso_day(until)}
        elif state in (PermitState.REVOKED, PermitState.CANCELLED, PermitState.EXPIRED):
            permits_listed[number] = {"state": state.value, "on": _iso_day(ended)}
        elif state is not PermitState.ACTIVE:
            permits_listed[number] = {"state": "revoked", "on": _iso_day(ended)}
        if issue > 1:
            copies[f"{number}|T"] = issue
    deputies: dict[str, dict[str, str | None]] = {}
    for number, cpf, link in s.execute(
            select(Permit.number, Person.cpf, DeputyLink)
            .join(DeputyLink, DeputyLink.permit_id == Permit.id)
            .join(Person, Person.id == DeputyLink.deputy_person_id)
            .where(DeputyLink.badge_issue_no > 0).order_by(Permit.number, DeputyLink.id)).all():
        key = f"{number}|{cpf_digest(cpf)}"
        if link.revoked:
            deputies[key] = {"state": "revoked", "on": _iso_day(link.end_on)}
        elif link.end_on is not None:
            deputies[key] = {"state": "unlinked", "on": _iso_day(link.end_on)}
        elif link.suspended_until is not None and today < link.suspended_until:
            deputies[key] = {"state": "suspended", "until": _iso_day(link.suspended_until)}
        else:
            deputies.pop(key, None)  # a newer link of the same person, in force
        if link.badge_issue_no > 1:
            copies[f"{number}|P|{cpf_digest(cpf)}"] = link.badge_issue_no
    return {
        "format": STATUS_FORMAT,
        "issued_at": issued_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "key_id": signer,
        "permits": permits_listed,
        "deputies": deputies,
        "copies": copies,
    }


def _signed_status(ctx: AppContext, now: datetime | None) -> tuple[bytes, dict[str, object]]:
    issued_at = (now or datetime.now(UTC)).astimezone(UTC).replace(microsecond=0)
    key = current_signing_key(ctx)
    private_pem, signer = key.private_pem, key.key_id
    with ctx.read() as s:
        body = _status_body(s, issued_at, signer, local_today())
    raw = json.dumps(body, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")
    envelope = {
        "format": SIGNED_STATUS_FORMAT,
        "key_id": signer,
        "body": base64.b64encode(raw).decode("ascii"),
        "signature": base64.b64encode(sign_status(raw, private_pem)).decode("ascii"),
    }
    return (json.dumps(envelope, indent=1) + "\n").encode("ascii"), body


@requires(*PUBLISHERS)
def status_list(ctx: AppContext, *, now: datetime | None = None) -> bytes:
    """The signed status list (``status.json``) the public verifier page fetches."""
    return _signed_status(ctx, now)[0]


def _write_atomic(path: Path, data: bytes) -> None:
    """Replace *path* in one step: a web server never serves half a file."""
    import os

    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def _out_dir(out_dir: Path) -> Path:
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise MotodeskError(f"Não foi possível criar a pasta {out}: {exc.strerror or exc}.", code="publish.folder") from None
    if not out.is_dir():
        raise MotodeskError(f"{out} não é uma pasta.", code="publish.folder")
    return out


@requires(*PUBLISHERS)
def publish_status(ctx: AppContext, out_dir: Path, *, now: datetime | None = None) -> PublishedStatus:
    """Write ``status.json`` (signed with the badge key) into the verifier's folder."""
    out = _out_dir(out_dir)
    data, body = _signed_status(ctx, now)
    path = out / STATUS_FILE
    try:
        _write_atomic(path, data)
    except OSError as exc:
        raise MotodeskError(f"Não foi possível gravar {path}: {exc.strerror or exc}.") from None
    copies = typing.cast(dict[str, int], body["copies"])

    checkpoint = publish_checkpoint(ctx, out)  # beside it, signed with the same key
    return PublishedStatus(path, datetime.strptime(str(body["issued_at"]), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC),
                           str(body["key_id"]), len(typing.cast(dict[str, object], body["permits"])),
                           len(typing.cast(dict[str, object], body["deputies"])), len(copies), checkpoint)


@requires(*PUBLISHERS)
def verifier_keys(ctx: AppContext) -> bytes:
    """``keys.json``: every public key that verifies badges (current first), raw for the browser."""
    keys = _verification_keys(ctx)
    document = {
        "format": KEYS_FORMAT,
        "keys": [{"id": key_id(pem), "ed25519": base64.b64encode(public_key_raw(pem)).decode("ascii"),
                  "current": i == 0} for i, pem in enumerate(keys)],
    }
    return (json.dumps(document, indent=1) + "\n").encode("ascii")


@dataclass(frozen=True)
class PublishedVerifier:
    out_dir: Path
    files: list[str]
    status: PublishedStatus
    base_url: str


@requires(*PUBLISHERS)
def publish_verifier(ctx: AppContext, out_dir: Path, *, now: datetime | None = None) -> PublishedVerifier:
    """Write the public verifier's static site: the page, its script, CSS and service worker, the
    vendored Ed25519 code with its licence, the public keys and a fresh status list."""
    from motodesk.resources import resource_path

    out = _out_dir(out_dir)
    source = resource_path("verifier")
    written: list[str] = []
    try:
        for item in sorted(source.rglob("*")):
            if item.is_file() and not item.name.startswith(".") and item.suffix != ".py" \
                    and "__pycache__" not in item.parts:
                relative = item.relative_to(source)
                (out / relative).parent.mkdir(parents=True, exist_ok=True)
                _write_atomic(out / relative, item.read_bytes())
                written.append(relative.as_posix())
        _write_atomic(out / KEYS_FILE, verifier_keys(ctx))
    except OSError as exc:
        raise MotodeskError(f"Não foi possível gravar o verificador em {out}: {exc.strerror or exc}.") from None
    written.append(KEYS_FILE)
    status = publish_status(ctx, out, now=now)
    written.append(STATUS_FILE)
    if status.checkpoint is not None:
        written.append(status.checkpoint.path.name)  # the audit trail's signed head, beside the list
    return PublishedVerifier(out, written, status, law_settings(ctx).verifier_base_url)
