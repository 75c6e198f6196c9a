"""Fault suite, issue 25 items 2 and 5: the badge signing key stays with the workstations registered
to print (the database keeps public keys only; no backup, log or audit row carries it; rotation and
the upgrade of an old database keep it working), and a claim on an old print-log row (no digest) is
checked on every field it carries, never VÁLIDO with other data."""

from __future__ import annotations

import base64
import json
import os
import stat
import subprocess
import sys
import zipfile
from dataclasses import replace
from datetime import date, timedelta
from pathlib import Path

import pytest
from permit_factory import make_dossier  # type: ignore[import-not-found]
from sqlalchemy import select, text, update
from tests_helpers import check_wording, names_in, raises_code  # type: ignore[import-not-found]

from motodesk.models import AuditEvent, BadgePrint, Setting
from motodesk.models.db import Database
from motodesk.printing.token import BadgeClaim, cpf_digest, generate_keypair, sign_claim, verify_token
from motodesk.rules.common import PermitState, Role, ServiceType
from motodesk.services import auth, badge_keys, badges, badges_keypair, permits
from motodesk.services.badges import BadgeStatus
from motodesk.services.context import AppContext
from motodesk.services.errors import InvalidInputError, PermissionDeniedError
from motodesk.services.settings import ensure_defaults

ROOT = str(Path(__file__).parents[2])
ADMIN_PASSWORD = "senha-do-chefe"


def _printed(ctx: AppContext, supervisor: AppContext, clerk: AppContext, name: str = "Rita de Cássia Melo"):  # noqa: ANN202
    dossier = make_dossier(ctx, ServiceType.MOTOBOY, state=PermitState.APPROVED, name=name)
    issued = permits.issue(supervisor, dossier.application_id)
    (badge,) = badges.print_badges(clerk, [issued.id]).badges
    return dossier, issued, badge


def _station(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Act as the workstation whose badge key store is *folder*."""
    monkeypatch.setenv(badge_keys.BADGE_KEY_DIR_ENV, str(folder))


def _secret_forms(private_pem: bytes) -> list[bytes]:
    """The private key as PEM, its base64 body, the DER bytes and the raw 32-byte seed."""
    body = b"".join(line for line in private_pem.strip().splitlines() if not line.startswith(b"-----"))
    der = base64.b64decode(body)
    return [private_pem.strip(), body, der, der[-32:]]


# --- 2. the key lives with the printing workstations ----------------------------------------------


def test_a_workstation_not_registered_verifies_but_cannot_print_nor_sign(
        ctx: AppContext, supervisor: AppContext, clerk: AppContext, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    here = Path(os.environ[badge_keys.BADGE_KEY_DIR_ENV])  # the test workstation, registered by conftest
    _dossier, issued, badge = _printed(ctx, supervisor, clerk)
    with ctx.read() as s:
        assert s.get(Setting, badges.SIGNING_KEY_SETTING) is None
        assert all("PRIVATE" not in v for v in s.scalars(select(Setting.value)))
    _station(monkeypatch, tmp_path / "outra-estacao")
    assert badges.verify_badge(clerk, badge.qr_text).status is BadgeStatus.VALID  # public keys: in the DB
    for attempt in (lambda: badges.print_badges(clerk, [issued.id], reason="Perda"),
                    lambda: badges.status_list(clerk),
                    lambda: badges.publish_status(clerk, tmp_path / "site"),
                    lambda: badges.export_signing_key(ctx, tmp_path / "chave.pem")):
        with raises_code(badge_keys.StationKeyError, "badge_key.station_not_registered"):
            attempt()
    with raises_code(badge_keys.StationKeyError, "badge_key.station_lacks_key"):
        badges.register_printing_station(ctx)
    assert badges.print_log(clerk, issued.id)[0].issue_no == 1  # nothing was numbered or logged

    _station(monkeypatch, here)  # a registered workstation exports the key, 0600 ...
    exported = tmp_path / "chave-para-a-outra.pem"
    kid = badges.export_signing_key(ctx, exported)
    assert stat.S_IMODE(exported.stat().st_mode) == 0o600 and kid == badges.current_signing_key(ctx).key_id
    with raises_code(InvalidInputError, "badge_key.file_exists"):
        badges.export_signing_key(ctx, exported)
    with raises_code(PermissionDeniedError, "permission_denied"):
        badges.export_signing_key(supervisor, tmp_path / "outra.pem")
    _station(monkeypatch, tmp_path / "outra-estacao")  # ... and the other one imports it
    wrong = tmp_path / "outra-chave.pem"
    wrong.write_bytes(generate_keypair()[0])
    with raises_code(badge_keys.StationKeyError, "badge_key.not_current") as not_current:
        badges.register_printing_station(ctx, wrong)
    names_in(not_current.value, wrong, kid)
    public_only = tmp_path / "publica.pem"
    public_only.write_bytes(badges.public_key_pem(ctx))
    with raises_code(badge_keys.StationKeyError, "badge_key.not_private_key"):
        badges.register_printing_station(ctx, public_only)
    with raises_code(PermissionDeniedError, "permission_denied"):
        badges.register_printing_station(supervisor, exported)
    registered = badges.register_printing_station(ctx, exported)
    assert registered.key_id == kid and not registered.created
    stored = tmp_path / "outra-estacao" / f"chave-crachas-{kid}.pem"
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600
    assert stat.S_IMODE(stored.parent.stat().st_mode) & 0o077 == 0
    assert badges.register_printing_station(ctx).already
    reprint = badges.print_badges(clerk, [issued.id], reason="Perda").badges[0]
    assert badges.verify_badge(clerk, reprint.qr_text).status is BadgeStatus.VALID


def test_rotation_puts_the_new_key_on_this_workstation_and_old_badges_keep_verifying(
        ctx: AppContext, supervisor: AppContext, clerk: AppContext, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    here = Path(os.environ[badge_keys.BADGE_KEY_DIR_ENV])
    _dossier, issued, badge = _printed(ctx, supervisor, clerk)
    old = badges.current_signing_key(ctx)
    exported = tmp_path / "chave.pem"
    badges.export_signing_key(ctx, exported)
    _station(monkeypatch, tmp_path / "segunda")
    badges.register_printing_station(ctx, exported)  # a second printing workstation
    _station(monkeypatch, here)
    rotation = badges.rotate_signing_key(ctx)
    new = badges.current_signing_key(ctx)
    assert rotation.new_key_id == new.key_id != old.key_id and rotation.retired_key_ids == [old.key_id]
    assert (here / f"chave-crachas-{new.key_id}.pem").exists()
    assert not (here / f"chave-crachas-{old.key_id}.pem").exists()  # a retired key never signs again
    assert badges.public_keys(clerk) == [new.public_pem, old.public_pem]
    assert badges.verify_badge(clerk, badge.qr_text).status is BadgeStatus.VALID  # signed by the old key
    reprint = badges.print_badges(clerk, [issued.id], reason="Troca de chave").badges[0]
    assert verify_token(reprint.qr_text, new.public_pem).issue_no == 2
    _station(monkeypatch, tmp_path / "segunda")  # still holds the old key only: must register again
    with raises_code(badge_keys.StationKeyError, "badge_key.station_not_registered") as unregistered:
        badges.print_badges(clerk, [issued.id], reason="Dano")
    names_in(unregistered.value, new.key_id)
    assert badges.verify_badge(clerk, reprint.qr_text).status is BadgeStatus.VALID


def test_a_rotation_that_fails_in_the_database_keeps_the_old_key_working(
        ctx: AppContext, supervisor: AppContext, clerk: AppContext, monkeypatch: pytest.MonkeyPatch) -> None:
    here = Path(os.environ[badge_keys.BADGE_KEY_DIR_ENV])
    old = badges.current_signing_key(ctx)

    def broken(*_args: object) -> None:
        raise RuntimeError("conexão perdida")

    monkeypatch.setattr(badges_keypair, "_drop_legacy_private", broken)
    before = sorted(here.glob("chave-crachas-*.pem"))
    with pytest.raises(RuntimeError):
        badges.rotate_signing_key(ctx)
    monkeypatch.undo()
    assert sorted(here.glob("chave-crachas-*.pem")) == before  # the new key was taken back, the old one kept
    assert badges.current_signing_key(ctx) == old
    _printed(ctx, supervisor, clerk)


def test_no_backup_audit_row_or_log_carries_the_private_key(
        ctx: AppContext, supervisor: AppContext, clerk: AppContext, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from motodesk.services.backup import create_backup
    from motodesk.services.backup_keys import KEY_DIR_ENV

    monkeypatch.setenv(KEY_DIR_ENV, str(tmp_path / "chaves-das-copias"))
    _dossier, issued, _badge = _printed(ctx, supervisor, clerk)
    keys = [badges.current_signing_key(ctx).private_pem]
    badges.publish_verifier(clerk, tmp_path / "site")
    first = create_backup(ctx, tmp_path / "copia-1.zip")
    badges.rotate_signing_key(ctx)
    keys.append(badges.current_signing_key(ctx).private_pem)
    badges.print_badges(clerk, [issued.id], reason="Perda")
    second = create_backup(ctx, tmp_path / "copia-2.zip")
    secrets = [form for pem in keys for form in _secret_forms(pem)]
    assert len(secrets) == 8 and all(len(form) >= 32 for form in secrets)

    for archive in (first.path, second.path):
        with zipfile.ZipFile(archive) as zf:
            assert zf.namelist()
            for member in zf.namelist():
                data = zf.read(member)
                assert b"PRIVATE KEY" not in data, member
                assert not any(form in data for form in secrets), member
    with ctx.read() as s:
        trail = "\n".join(s.scalars(select(AuditEvent.changes))).encode()
        values = "\n".join(s.scalars(select(Setting.value))).encode()
    assert b"PRIVATE KEY" not in trail and b"PRIVATE KEY" not in values
    assert not any(form in trail or form in values for form in secrets)
    logs = Path(os.environ["MOTODESK_LOG_DIR"])
    for path in logs.rglob("*") if logs.exists() else []:
        if path.is_file():
            data = path.read_bytes()
            assert b"PRIVATE KEY" not in data and not any(form in data for form in secrets), path
    for path in (tmp_path / "site").rglob("*"):
        if path.is_file():
            assert not any(form in path.read_bytes() for form in secrets), path


def test_the_keyring_is_the_store_when_there_is_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import keyring
    from keyring.backend import KeyringBackend

    class MemoryKeyring(KeyringBackend):
        priority = 1  # type: ignore[assignment]

        def __init__(self) -> None:
            super().__init__()
            self.entries: dict[tuple[str, str], str] = {}

        def set_password(self, service: str, username: str, password: str) -> None:
            self.entries[(service, username)] = password

        def get_password(self, service: str, username: str) -> str | None:
            return self.entries.get((service, username))

        def delete_password(self, service: str, username: str) -> None:
            self.entries.pop((service, username), None)

    memory = MemoryKeyring()
    previous = keyring.get_keyring()
    monkeypatch.delenv(badge_keys.BADGE_KEY_DIR_ENV)
    monkeypatch.setenv("MOTODESK_KEY_DIR", str(tmp_path / "pasta-de-dados"))
    keyring.set_keyring(memory)
    try:
        private, public = generate_keypair()
        kid = badge_keys.save(private)
        assert memory.entries == {("MotoDesk", f"chave-crachas-{kid}"): private.decode()}
        assert badge_keys.load(kid) == private and "cofre de senhas" in badge_keys.describe()
        assert not (tmp_path / "pasta-de-dados").exists()  # no file beside it
        memory.entries[("MotoDesk", f"chave-crachas-{kid}")] = generate_keypair()[0].decode()
        assert badge_keys.load(kid) is None  # another key under this name reads as absent
        badge_keys.delete(kid)
        assert memory.entries == {}
    finally:
        keyring.set_keyring(previous)
    assert badge_keys.key_id(public) == kid


# --- 2. upgrading a database whose private key is in settings ------------------------------------


def _at_0015(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> Database:
    if backend == "sqlite":
        db = Database.open(f"sqlite:///{tmp_path / 'antigo.sqlite3'}")
    else:
        db = Database.open(request.getfixturevalue("pg_server"))
        db.downgrade("base")
        with db.engine.begin() as conn:
            conn.exec_driver_sql("DROP TABLE IF EXISTS alembic_version")
    db.upgrade("0015")
    return db


def _leave_postgresql_migrated(db: Database, backend: str) -> None:
    if backend == "postgresql":
        with db.engine.begin() as conn:
            conn.exec_driver_sql("SET LOCAL session_replication_role = replica")
            conn.exec_driver_sql("DELETE FROM audit_events")
        db.downgrade("base")
        with db.engine.begin() as conn:
            conn.exec_driver_sql("DROP TABLE IF EXISTS alembic_version")
        db.upgrade()


def _old_key_rows(db: Database) -> tuple[bytes, bytes]:
    private, public = generate_keypair()
    with db.engine.begin() as conn:
        for key, pem in (("badge_signing_key", private), ("badge_public_key", public)):
            conn.execute(text("INSERT INTO settings (key, value, version) VALUES (:k, :v, 1)"),
                         {"k": key, "v": json.dumps(pem.decode())})
    return private, public


def test_upgrading_a_0015_database_moves_the_key_to_this_workstation(
        backend: str, request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from motodesk.printing.token import verify_status

    _station(monkeypatch, tmp_path / "estacao-que-atualiza")
    db = _at_0015(backend, request, tmp_path)
    try:
        private, public = _old_key_rows(db)
        db.upgrade()
        with db.engine.connect() as conn:
            rows = dict(conn.execute(text("SELECT key, value FROM settings")).all())
        assert "badge_signing_key" not in rows and "PRIVATE" not in " ".join(rows.values())
        assert json.loads(rows["badge_public_key"]).encode() == public
        kid = badges.key_id(public)
        assert badge_keys.load(kid) == private
        assert stat.S_IMODE((tmp_path / "estacao-que-atualiza" / f"chave-crachas-{kid}.pem").stat().st_mode) == 0o600
        ctx = AppContext(db)
        ensure_defaults(ctx)
        key = badges.current_signing_key(ctx)
        assert (key.private_pem, key.public_pem) == (private, public)  # the same key signs here
        envelope = json.loads(badges.status_list(ctx))
        assert verify_status(base64.b64decode(envelope["body"]), base64.b64decode(envelope["signature"]), public)
        claim = BadgeClaim("MB-0001/2026", cpf_digest("52998224725"), date(2027, 1, 2), 1, "titular")
        assert verify_token(sign_claim(claim, key.private_pem), public) == claim
    finally:
        _leave_postgresql_migrated(db, backend)
        db.dispose()


def test_an_upgrade_whose_workstation_cannot_keep_the_key_stops_and_keeps_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "nao-e-pasta"
    blocked.write_text("um arquivo onde a pasta deveria estar")
    _station(monkeypatch, blocked)
    db = Database.open(f"sqlite:///{tmp_path / 'antigo.sqlite3'}")
    try:
        db.upgrade("0015")
        private, _public = _old_key_rows(db)
        with raises_code(badge_keys.StationKeyError, "badge_key.write_failed"):
            db.upgrade()
        with db.engine.connect() as conn:
            kept = conn.execute(text("SELECT value FROM settings WHERE key = 'badge_signing_key'")).scalar()
        assert kept is not None and json.loads(kept).encode() == private  # never lost silently
        _station(monkeypatch, tmp_path / "pasta-boa")
        db.upgrade()  # the next try, where the key can be kept, moves it
        assert badge_keys.load(badges.key_id(badge_keys.public_of(private))) == private
        with db.engine.connect() as conn:
            assert conn.execute(text("SELECT value FROM settings WHERE key = 'badge_signing_key'")).scalar() is None
    finally:
        db.dispose()


@pytest.mark.slow
def test_register_export_and_rotate_from_the_terminal(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    db = Database.open(url)
    db.prepare()
    ctx = AppContext(db)
    ensure_defaults(ctx)
    auth.create_user(ctx, "chefe", "Chefe do Setor", Role.ADMIN, ADMIN_PASSWORD)
    auth.create_user(ctx, "joana", "Joana", Role.CLERK, "senha-da-joana")
    db.dispose()

    def run(station: str, *args: str, stdin: str = f"{ADMIN_PASSWORD}\n", user: str = "chefe"
            ) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]),
               badge_keys.BADGE_KEY_DIR_ENV: str(tmp_path / station)}
        env.pop("MOTODESK_DATABASE_URL", None)
        return subprocess.run([sys.executable, "-m", "motodesk", *args, "--database", url, "--user", user],
                              input=stdin, capture_output=True, text=True, timeout=180, env=env)

    out = run("balcao", "publish-status", str(tmp_path / "site"), user="joana", stdin="senha-da-joana\n")
    assert out.returncode == 1 and "register-printer-station" in out.stderr and "Traceback" not in out.stderr
    out = run("balcao", "register-printer-station", user="joana", stdin="senha-da-joana\n")
    assert out.returncode == 1 and "Traceback" not in out.stderr
    out = run("balcao", "register-printer-station")
    assert out.returncode == 0, out.stderr
    assert "Primeira chave de assinatura dos crachás criada" in out.stdout
    out = run("outra", "publish-status", str(tmp_path / "site"))
    assert out.returncode == 1 and "não está registrada para imprimir" in out.stderr
    assert "Traceback" not in out.stderr
    out = run("balcao", "export-badge-signing-key", str(tmp_path / "pendrive.pem"))
    assert out.returncode == 0 and "apague-o" in out.stdout, out.stderr
    out = run("outra", "register-printer-station", "--key-file", str(tmp_path / "pendrive.pem"))
    assert out.returncode == 0 and "Estação registrada para imprimir crachás" in out.stdout, out.stderr
    out = run("outra", "publish-status", str(tmp_path / "site"))
    assert out.returncode == 0, out.stderr
    out = run("outra", "rotate-badge-key")
    assert out.returncode == 0 and "registre de novo as outras estações" in out.stdout, out.stderr
    out = run("balcao", "publish-status", str(tmp_path / "site"))
    assert out.returncode == 1 and "não tem a chave de assinatura atual" in out.stderr


# --- 5. an old print (no digest) is checked on every field -----------------------------------------


def test_an_old_print_without_a_digest_is_checked_on_every_field(
        ctx: AppContext, supervisor: AppContext, clerk: AppContext) -> None:
    dossier, issued, badge = _printed(ctx, supervisor, clerk)
    key = badges.current_signing_key(ctx)
    printed = verify_token(badge.qr_text, key.public_pem)  # what the print signed (printed fields too)
    assert printed.printed_fields
    old_format = BadgeClaim(printed.permit_number, printed.cpf_digest, printed.valid_until, 1, "titular")
    # With a digest, the old-format version of the printed claim is refused.
    assert badges.verify_badge(clerk, sign_claim(old_format, key.private_pem)).status is BadgeStatus.FORGED
    with ctx.write() as s:  # the row as a print before revision 0008 left it: no digest, no key id
        s.execute(update(BadgePrint).where(BadgePrint.permit_id == issued.id)
                  .values(claim_sha256=None, key_id=None))

    def verdict(claim: BadgeClaim, private: bytes = key.private_pem) -> badges.BadgeVerification:
        return badges.verify_badge(clerk, sign_claim(claim, private))

    genuine = verdict(old_format)
    assert genuine.status is BadgeStatus.VALID and genuine.holder_name == dossier.name
    forged = {
        "name": replace(printed, holder_name="Outro Nome Qualquer"),
        "plate": replace(printed, plate="ZZZ9Z99"),
        "service": replace(printed, service_code="MT"),
        "cpf shown": replace(printed, cpf_middle="000000"),
        "the printed claim itself": printed,  # such a print never existed before the digest
        "validity later": replace(old_format, valid_until=old_format.valid_until + timedelta(days=1)),
        "copy": replace(old_format, issue_no=2),
        "holder kind": replace(old_format, holder_kind="preposto"),
        "cpf": replace(old_format, cpf_digest=cpf_digest("52998224725")),
        "permit": replace(old_format, permit_number="MB-0999/2020"),
    }
    for field, claim in forged.items():
        result = verdict(claim)
        assert result.status is BadgeStatus.FORGED, field
        assert not result.valid and result.holder_name is None, field
    earlier = verdict(replace(old_format, valid_until=old_format.valid_until - timedelta(days=30)))
    assert earlier.status is BadgeStatus.UNCONFIRMED and not earlier.valid
    assert earlier.status.label == "CONFIRME NO BALCÃO"
    check_wording(earlier.status, earlier.message)
    assert earlier.holder_name == dossier.name and earlier.photo_jpeg is None  # the register's name only
    # Before revision 0008 there was one key: an old print signed by a key made later is refused.
    badges.rotate_signing_key(ctx)
    later_key = badges.current_signing_key(ctx)
    assert verdict(old_format, later_key.private_pem).status is BadgeStatus.FORGED
    assert verdict(old_format).status is BadgeStatus.VALID  # the genuine old badge still verifies


def test_the_self_test_registers_a_printing_station_of_its_own(capsys: pytest.CaptureFixture[str]) -> None:
    from motodesk.commands.selftest import run_self_test

    station = Path(os.environ[badge_keys.BADGE_KEY_DIR_ENV])
    before = sorted(station.glob("*")) if station.exists() else []
    assert run_self_test(gui=False) == 0
    out = capsys.readouterr().out
    assert "estação registrada para imprimir crachás" in out and "Autoteste concluído" in out
    assert os.environ[badge_keys.BADGE_KEY_DIR_ENV] == str(station)  # given back
    assert (sorted(station.glob("*")) if station.exists() else []) == before  # its key stayed in its folder
