"""Publishing the public badge verifier: the files, the signed status list, and the commands."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import subprocess
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from enforcement_factory import suspend_through_process  # type: ignore[import-not-found]
from permit_factory import make_dossier  # type: ignore[import-not-found]
from sqlalchemy import select
from tests_helpers import existing_register, raises_code  # type: ignore[import-not-found]

from motodesk.models import DeputyLink
from motodesk.models.db import Database
from motodesk.printing.token import cpf_digest, public_key_raw, verify_status
from motodesk.resources import resource_path
from motodesk.rules.common import PermitState, Role, ServiceType
from motodesk.services import auth, badges, permits
from motodesk.services.badges import BadgeRequest
from motodesk.services.context import AppContext, CurrentUser
from motodesk.services.errors import MotodeskError, PermissionDeniedError
from motodesk.services.settings import ensure_defaults, update_settings

#: The vendored Ed25519 code, pinned: @noble/ed25519 3.2.0's index.js, unchanged (vendor/README.txt).
NOBLE_SHA256 = "a4f631d1876b5d9e43a86cd71194ca27b5e1451edf4ba4db9a418f40a475569a"
TODAY = date.today()


def _open_status(path: Path) -> tuple[dict, bytes, bytes]:
    envelope = json.loads(path.read_text())
    body = base64.b64decode(envelope["body"])
    return json.loads(body), body, base64.b64decode(envelope["signature"])


def test_the_vendored_ed25519_is_the_pinned_release() -> None:
    folder = resource_path("verifier", "vendor")
    assert hashlib.sha256((folder / "noble-ed25519-3.2.0.js").read_bytes()).hexdigest() == NOBLE_SHA256
    assert "MIT License" in (folder / "LICENSE-noble-ed25519.txt").read_text()
    page = resource_path("verifier", "verifier.js").read_text()
    assert '"./vendor/noble-ed25519-3.2.0.js"' in page
    assert not re.search(r"https?://\w", page)  # no address of another site in it: nothing fetched elsewhere
    html = resource_path("verifier", "index.html").read_text()
    assert "script-src 'self'" in html and "connect-src 'self'" in html


def test_the_status_list_says_what_the_register_says(ctx: AppContext, supervisor: AppContext,
                                                     clerk: AppContext, tmp_path: Path) -> None:
    holder = make_dossier(ctx, ServiceType.MOTOTAXI, state=PermitState.APPROVED, name="Titular Tomás Ribeiro")
    issued = permits.issue(supervisor, holder.application_id)
    other = make_dossier(ctx, ServiceType.MOTOBOY, state=PermitState.APPROVED, name="Outro Titular")
    suspended = permits.issue(supervisor, other.application_id)
    deputy = make_dossier(ctx, name="Preposto Paulo Nunes")
    with ctx.write() as s:
        existing_register(s)
        s.add(DeputyLink(permit_id=issued.id, deputy_person_id=deputy.person_id, start_on=TODAY))
    badges.print_badges(clerk, [BadgeRequest(issued.id), BadgeRequest(issued.id, deputy=True),
                                BadgeRequest(suspended.id)])
    badges.print_badges(clerk, [BadgeRequest(issued.id, deputy=True)], reason="Dano")
    until = TODAY + timedelta(days=10)
    suspend_through_process(supervisor, suspended.id, until)
    with ctx.write() as s:
        existing_register(s)
        link = s.scalar(select(DeputyLink))
        assert link is not None
        link.suspended_until = TODAY + timedelta(days=5)

    moment = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
    result = badges.publish_status(clerk, tmp_path / "site", now=moment)
    assert result.path == tmp_path / "site" / "status.json" and result.issued_at == moment
    assert (result.permits, result.deputies, result.reprinted) == (1, 1, 1)
    listed, body, signature = _open_status(result.path)
    public = badges.public_key_pem(clerk)
    assert verify_status(body, signature, public)
    assert not verify_status(body.replace(b"suspended", b"revoked"), signature, public)
    assert listed["issued_at"] == "2026-11-30T12:00:00Z" and listed["key_id"] == badges.key_id(public)
    assert listed["permits"] == {suspended.number: {"state": "suspended", "until": until.isoformat()}}
    assert listed["deputies"] == {f"{issued.number}|{cpf_digest(deputy.cpf)}": {
        "state": "suspended", "until": (TODAY + timedelta(days=5)).isoformat()}}
    assert listed["copies"] == {f"{issued.number}|P|{cpf_digest(deputy.cpf)}": 2}
    text = body.decode()
    for private in ("Tomás", "Paulo", "Outro", holder.cpf, deputy.cpf):
        assert private not in text  # no one is named; the badge's own claim carries what is shown

    # The deputy unlinked: listed as such (Art. 14).
    with ctx.write() as s:
        existing_register(s)
        link = s.scalar(select(DeputyLink))
        assert link is not None
        link.end_on, link.suspended_until = TODAY, None
    listed, _body, _sig = _open_status(badges.publish_status(clerk, tmp_path / "site").path)
    assert listed["deputies"] == {f"{issued.number}|{cpf_digest(deputy.cpf)}": {"state": "unlinked",
                                                                                "on": TODAY.isoformat()}}


def test_publish_verifier_writes_a_static_site(ctx: AppContext, supervisor: AppContext, inspector: AppContext,
                                               tmp_path: Path) -> None:
    update_settings(supervisor, {"verifier_base_url": "https://www.patrocinio.mg.gov.br/verificar/"})
    result = badges.publish_verifier(supervisor, tmp_path / "www")
    assert result.base_url == "https://www.patrocinio.mg.gov.br/verificar/"
    files = sorted(p.relative_to(tmp_path / "www").as_posix() for p in (tmp_path / "www").rglob("*") if p.is_file())
    assert files == sorted(result.files) == sorted([
        "index.html", "verifier.js", "verifier.css", "sw.js", "keys.json", "status.json", "audit-checkpoint.json",
        "vendor/noble-ed25519-3.2.0.js", "vendor/LICENSE-noble-ed25519.txt", "vendor/README.txt"])
    assert not any(name.endswith((".py", ".pem")) for name in files)  # nothing to run, no key file
    keys = json.loads((tmp_path / "www" / "keys.json").read_text())
    public = badges.public_key_pem(supervisor)
    assert keys["keys"] == [{"id": badges.key_id(public), "ed25519": base64.b64encode(public_key_raw(public)).decode(),
                             "current": True}]
    site_text = " ".join((tmp_path / "www" / name).read_text() for name in files if not name.startswith("vendor"))
    assert "PRIVATE" not in site_text

    # After a key rotation the retired key is published too: older badges keep verifying.
    admin = ctx.as_user(CurrentUser(None, "admin", "Admin", Role.ADMIN))
    badges.rotate_signing_key(admin)
    keys = json.loads(badges.verifier_keys(supervisor))["keys"]
    assert [k["current"] for k in keys] == [True, False] and keys[1]["id"] == badges.key_id(public)

    with pytest.raises(PermissionDeniedError):
        badges.publish_status(inspector, tmp_path / "www")
    (tmp_path / "a-file").write_text("x")
    with raises_code(MotodeskError, "publish.folder"):
        badges.publish_status(supervisor, tmp_path / "a-file")


def test_the_base_url_must_be_https(supervisor: AppContext) -> None:
    from motodesk.services.errors import InvalidInputError

    for bad in ("http://inseguro.example/", "https://", "https://a b/", "https://x/#frag", "ftp://x/"):
        with pytest.raises(InvalidInputError):
            update_settings(supervisor, {"verifier_base_url": bad})


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ}
    env.pop("MOTODESK_DATABASE_URL", None)
    return subprocess.run([sys.executable, "-m", "motodesk", *args], input=stdin, capture_output=True, text=True,
                          timeout=120, env=env)


def test_the_commands_publish_and_daily_refreshes_the_list(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    db = Database.open(url)
    db.prepare()
    ctx = AppContext(db)
    ensure_defaults(ctx)
    badges.register_printing_station(ctx)  # this test workstation prints and signs the status list
    supervisor = ctx.as_user(CurrentUser(None, "supervisor", "Supervisora", Role.SUPERVISOR))
    auth.create_user(ctx, "chefe", "Chefe do Setor", Role.SUPERVISOR, "senha-da-chefe")
    dossier = make_dossier(ctx, ServiceType.MOTOBOY, state=PermitState.APPROVED, name="Rita de Cássia Melo")
    issued = permits.issue(supervisor, dossier.application_id)
    badges.print_badges(supervisor, [issued.id])
    db.dispose()
    login = ("--user", "chefe", "--database", url)

    site = tmp_path / "site"
    out = run("publish-verifier", str(site), "--base-url", "http://sem-tls.example/", *login,
              stdin="senha-da-chefe\n")
    assert out.returncode == 1 and "https://" in out.stderr and not site.exists()  # refused, nothing written
    out = run("publish-verifier", str(site), "--base-url", "https://www.patrocinio.mg.gov.br/cracha/", *login,
              stdin="senha-da-chefe\n")
    assert out.returncode == 0, out.stderr
    assert "https://www.patrocinio.mg.gov.br/cracha/ (antes: https://verificar.patrocinio.mg.gov.br/cracha/)" \
        in out.stdout and "status.json" in out.stdout
    assert (site / "index.html").is_file() and (site / "keys.json").is_file()
    first, _body, _sig = _open_status(site / "status.json")

    out = run("daily", "--publish-status", str(site), *login, stdin="senha-da-chefe\n")
    assert out.returncode == 0, out.stderr
    assert "Lista de situação gravada em" in out.stdout
    second, body, signature = _open_status(site / "status.json")
    assert second["issued_at"] >= first["issued_at"]
    keys = json.loads((site / "keys.json").read_text())["keys"]
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    Ed25519PublicKey.from_public_bytes(base64.b64decode(keys[0]["ed25519"])).verify(signature, b"MDS1." + body)

    out = run("publish-status", str(site), "--user", "chefe", "--database", url, stdin="errada\n")
    assert out.returncode == 1 and "Traceback" not in out.stderr  # a wrong password publishes nothing
