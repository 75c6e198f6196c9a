"""`motodesk verify-badge` and `motodesk export-public-key` in a real process, with and without the database."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path

from enforcement_factory import suspend_through_process  # type: ignore[import-not-found]
from permit_factory import make_dossier  # type: ignore[import-not-found]

from motodesk.models.db import Database
from motodesk.rules.common import PermitState, Role, ServiceType
from motodesk.services import auth, badges, permits
from motodesk.services.context import AppContext, CurrentUser
from motodesk.services.settings import ensure_defaults

FISCAL = ("--user", "fiscal")
FISCAL_PASSWORD = "senha-do-fiscal"
LOGIN = FISCAL_PASSWORD + "\n"


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ}
    env.pop("MOTODESK_DATABASE_URL", None)
    return subprocess.run([sys.executable, "-m", "motodesk", *args], input=stdin, capture_output=True, text=True,
                          timeout=120, env=env)


def _token(url: str) -> tuple[str, str]:
    """A database with one issued motoboy permit and its printed badge: (token, permit number)."""
    db = Database.open(url)
    db.prepare()
    ctx = AppContext(db)
    ensure_defaults(ctx)
    badges.register_printing_station(ctx)  # this test workstation prints (its key in MOTODESK_BADGE_KEY_DIR)
    supervisor = ctx.as_user(CurrentUser(None, "supervisor", "Supervisora", Role.SUPERVISOR))
    if auth.count_users(ctx) == 0:
        auth.create_user(ctx, "fiscal", "Fiscal de Trânsito", Role.INSPECTOR, FISCAL_PASSWORD)
    dossier = make_dossier(ctx, ServiceType.MOTOBOY, state=PermitState.APPROVED, name="Rita de Cássia Melo")
    issued = permits.issue(supervisor, dossier.application_id)
    private_pem, _public = badges._key_pair(ctx)
    from motodesk.models import Vehicle
    from motodesk.printing.token import BadgeClaim, sign_claim
    from motodesk.rules.validators import format_plate

    with ctx.read() as s:
        vehicle = s.get(Vehicle, dossier.vehicle_id)
        assert vehicle is not None
        plate = format_plate(vehicle.plate)
    # The claim exactly as the print signs it (with the printed fields the public page shows).
    claim = BadgeClaim.for_badge(issued.number, dossier.cpf, issued.certificate_valid_until, 1, "titular",
                                 service_code="MB", plate=plate, holder_name=dossier.name)
    badges.print_badges(supervisor, [issued.id])  # issue 1 is printed and logged
    token = sign_claim(claim, private_pem)
    db.dispose()
    return token, issued.number


def test_verify_with_the_database_and_offline_with_the_public_key(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    token, number = _token(url)

    out = run("verify-badge", token, "--database", url, *FISCAL, stdin=LOGIN)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == "CRACHÁ VÁLIDO"
    assert number in out.stdout and "Rita de Cássia Melo" in out.stdout

    key = tmp_path / "crachas.pem"
    out = run("export-public-key", str(key), "--database", url, *FISCAL, stdin=LOGIN)
    assert out.returncode == 0 and key.read_bytes().startswith(b"-----BEGIN PUBLIC KEY-----")
    printed = run("export-public-key", "--database", url, *FISCAL, stdin=LOGIN)
    assert printed.stdout.encode() == key.read_bytes()

    # Offline: no database at all (a URL that cannot be opened is never touched).
    offline = run("verify-badge", token, "--public-key", str(key), "--database", "sqlite:////nao/existe/x.db")
    assert offline.returncode == 0, offline.stderr
    assert "CRACHÁ VÁLIDO" in offline.stdout and "sem o cadastro" in offline.stdout
    piped = run("verify-badge", "-", "--public-key", str(key), stdin=token + "\n")
    assert piped.returncode == 0 and "CRACHÁ VÁLIDO" in piped.stdout

    tampered = token[:8] + ("B" if token[8] == "A" else "A") + token[9:]
    for args, login in ((("--database", url, *FISCAL), LOGIN), (("--public-key", str(key)), "")):
        for text, stdin, verdict in ((tampered, "", "CRACHÁ FALSIFICADO"), ("X" * 10_240, "", "NÃO É UM CRACHÁ"),
                                     ("-", "\u00ff\u0000junk\x1b[2J" * 500, "NÃO É UM CRACHÁ"),
                                     ("-", "MD1.\u00ff\u0000junk" * 50, "CRACHÁ FALSIFICADO")):
            out = run("verify-badge", text, *args, stdin=login + stdin)
            assert out.returncode == 4, out.stderr
            assert verdict in out.stdout and "Traceback" not in out.stderr


def test_a_bad_key_file_is_an_error_not_a_forged_badge(tmp_path: Path) -> None:
    bad = tmp_path / "nao-e-chave.pem"
    bad.write_text("isto não é uma chave")
    out = run("verify-badge", "MD1.AAAA.BBBB", "--public-key", str(bad))
    assert out.returncode == 1 and "não é uma chave pública" in out.stderr and "Traceback" not in out.stderr
    out = run("verify-badge", "MD1.AAAA.BBBB", "--public-key", str(tmp_path / "faltando.pem"))
    assert out.returncode == 1 and "Não foi possível ler a chave pública" in out.stderr


def test_a_badge_of_a_suspended_permit_is_not_valid(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    token, number = _token(url)
    db = Database.open(url)
    ctx = AppContext(db, CurrentUser(None, "supervisor", "Supervisora", Role.SUPERVISOR))
    row = permits.list_permits(ctx, search=number)[0]
    suspend_through_process(ctx, row.id, date.today() + timedelta(days=300))
    db.dispose()
    out = run("verify-badge", token, "--database", url, *FISCAL, stdin=LOGIN)
    assert out.returncode == 4 and out.stdout.startswith("PERMISSÃO SUSPENSA")
