"""Fault suite, issue 17 items 10–13: nobody acts from a terminal without logging in, a mistyped
database is refused instead of created, logins hold under concurrent failures and look-alike
names, and the badge signing key is neither handed out nor enough to forge a badge the register
does not know."""

from __future__ import annotations

import os
import stat
import statistics
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
from permit_factory import make_dossier  # type: ignore[import-not-found]
from sqlalchemy import create_engine, func, select, text
from tests_helpers import names_in, race, raises_code  # type: ignore[import-not-found]

from motodesk.models import AuditEvent, User
from motodesk.printing.token import cpf_digest, sign_claim, verify_token
from motodesk.rules.common import PermitState, Role, ServiceType
from motodesk.services import auth, badges, permits
from motodesk.services.badges import BadgeStatus
from motodesk.services.context import AppContext
from motodesk.services.errors import (
    AuthenticationError,
    ConflictError,
    InvalidInputError,
    PermissionDeniedError,
)

ADMIN_PASSWORD = "senha-do-chefe"
ROOT = str(Path(__file__).parents[2])


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")])}
    env.pop("MOTODESK_DATABASE_URL", None)
    return subprocess.run([sys.executable, "-m", "motodesk", *args], input=stdin, capture_output=True, text=True,
                          timeout=180, env=env)


def _audit_rows(ctx: AppContext) -> int:
    with ctx.read() as s:
        return s.scalar(select(func.count(AuditEvent.id))) or 0


def _failed(ctx: AppContext, login: str) -> tuple[int, bool]:
    with ctx.read() as s:
        row = s.execute(select(User.failed_logins, User.locked).where(User.login == login)).one()
    return row.failed_logins, row.locked


# --- 10. nobody acts without logging in ----------------------------------------------------------


@pytest.mark.slow
def test_every_command_that_reads_or_writes_refuses_to_run_without_a_login(ctx: AppContext, db_url: str,
                                                                          tmp_path: Path) -> None:
    auth.create_user(ctx, "chefe", "Chefe do Setor", Role.ADMIN, ADMIN_PASSWORD)
    before = _audit_rows(ctx)
    tmp_path = tmp_path / "saida"
    tmp_path.mkdir()
    commands = [
        ("daily",),
        ("export", "permits", "--out", str(tmp_path / "p.xlsx")),
        ("export-public-key", str(tmp_path / "k.pem")),
        ("verify-badge", "MD1.AAAA.BBBB"),
        ("seed-demo", "--people", "1"),
        ("backup", str(tmp_path / "b.zip")),
        ("create-user", "novo", "--role", "supervisor"),
        ("rotate-badge-key",),
    ]
    for command in commands:
        out = run(*command, "--database", db_url, stdin="")
        assert out.returncode == 1, (command, out.stderr)
        assert "--user" in out.stderr and "Traceback" not in out.stderr, command
    assert not list(tmp_path.iterdir())  # nothing was written anywhere
    # --user without the right password goes nowhere either, and counts towards the lockout.
    for command in commands[:2]:
        out = run(*command, "--database", db_url, "--user", "chefe", stdin="errada\n")
        assert out.returncode == 1 and "Usuário ou senha incorretos" in out.stderr, command
    assert _failed(ctx, "chefe") == (2, False)
    out = run("daily", "--database", db_url, "--user", "chefe", stdin="")  # no password at all
    assert out.returncode == 1 and "Senha não informada" in out.stderr
    with ctx.read() as s:  # only the failed logins' counter changed: no business row, no new user
        assert s.scalar(select(func.count(User.id))) == 1
    assert _audit_rows(ctx) - before <= 2  # the two counted failures, if the counter is audited at all


@pytest.mark.slow
def test_the_terminal_acts_as_the_logged_in_user_and_the_lockout_applies(ctx: AppContext, db_url: str) -> None:
    auth.create_user(ctx, "chefe", "Chefe do Setor", Role.ADMIN, ADMIN_PASSWORD)
    out = run("create-user", "rosa", "--role", "clerk", "--name", "Rosa Lima", "--database", db_url,
              "--user", "chefe", "--password-stdin", stdin=f"{ADMIN_PASSWORD}\nsenha-da-rosa\n")
    assert out.returncode == 0, out.stderr
    with ctx.read() as s:
        who = s.scalars(select(AuditEvent.user_login).where(AuditEvent.table_name == "users")
                        .order_by(AuditEvent.id.desc())).first()
    assert who == "chefe"  # the audit names the user who logged in, not "terminal" or "sistema"
    out = run("export", "permits", "--out", "/dev/null", "--database", db_url, "--user", "rosa",
              stdin="senha-da-rosa\n")
    assert out.returncode == 1 and "Seu perfil (Atendente) não permite" in out.stderr  # no supervisor by default
    for _ in range(auth.MAX_FAILED_LOGINS):
        run("daily", "--database", db_url, "--user", "rosa", stdin="errada\n")
    assert _failed(ctx, "rosa") == (auth.MAX_FAILED_LOGINS, True)
    out = run("daily", "--database", db_url, "--user", "rosa", stdin="senha-da-rosa\n")
    assert out.returncode == 1 and "Usuário ou senha incorretos" in out.stderr and "bloqueado" not in out.stderr


def test_only_the_first_user_of_an_empty_database_needs_no_login(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'novo.sqlite3'}"
    assert run("init-db", "--database", url).returncode == 0
    out = run("create-user", "ana", "--role", "clerk", "--database", url, stdin="senha-forte-1\n")
    assert out.returncode == 1 and "primeiro deve ser um administrador" in out.stderr
    out = run("create-user", "chefe", "--role", "admin", "--database", url, stdin=f"{ADMIN_PASSWORD}\n")
    assert out.returncode == 0, out.stderr
    out = run("create-user", "intruso", "--role", "admin", "--database", url, stdin="senha-forte-1\n")
    assert out.returncode == 1 and "--user" in out.stderr  # the second one needs an administrator


# --- 11. a database that does not exist is refused, not created ---------------------------------


def test_a_mistyped_sqlite_path_is_refused_and_not_created(tmp_path: Path) -> None:
    missing = tmp_path / "digitado-errado.sqlite3"
    url = f"sqlite:///{missing}"
    for command in (("export", "permits", "--out", str(tmp_path / "x.xlsx"), "--user", "chefe"),
                    ("verify-badge", "MD1.AAAA.BBBB", "--user", "chefe"),
                    ("daily", "--user", "chefe"), ("db-upgrade",), ("backup", str(tmp_path / "b.zip"), "--user", "a"),
                    ("create-user", "chefe", "--role", "admin")):
        out = run(*command, "--database", url, stdin="qualquer\n")
        assert out.returncode == 1, (command, out.stdout, out.stderr)
        assert "não existe" in out.stderr and "motodesk init-db" in out.stderr, command
        assert not missing.exists(), command
    assert not (tmp_path / "x.xlsx").exists()
    missing.touch()  # an empty file is no MotoDesk database either
    out = run("daily", "--database", url, "--user", "chefe", stdin="x\n")
    assert out.returncode == 1 and "não tem as tabelas do MotoDesk" in out.stderr
    assert missing.stat().st_size == 0
    assert run("init-db", "--database", f"sqlite:///{tmp_path / 'criado.sqlite3'}").returncode == 0  # init-db creates


def test_a_postgresql_database_without_the_schema_is_refused(empty_pg: str) -> None:
    url = empty_pg
    for command in (("daily", "--user", "chefe"), ("export", "people", "--out", "/dev/null", "--user", "chefe"),
                    ("db-upgrade",)):
        out = run(*command, "--database", url, stdin="x\n")
        assert out.returncode == 1 and "não tem as tabelas do MotoDesk" in out.stderr, (command, out.stderr)
    empty = create_engine(url)
    with empty.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM information_schema.tables "
                                 "WHERE table_schema = 'public'")).scalar() == 0
    empty.dispose()


def test_the_first_run_path_still_creates_a_new_database(tmp_path: Path) -> None:
    from motodesk.models.db import Database

    db = Database.open(f"sqlite:///{tmp_path / 'primeiro.sqlite3'}")  # what the wizard does when asked
    try:
        assert db.prepare() == "created"
    finally:
        db.dispose()


# --- 12. logins ------------------------------------------------------------------------------------


def test_ten_simultaneous_wrong_passwords_all_count_and_none_conflicts(ctx: AppContext, db_url: str) -> None:
    auth.create_user(ctx, "caixa", "Caixa Um", Role.CLERK, "senha-certa-1")
    won, lost = race(db_url, [lambda c: auth.authenticate(c, "caixa", "errada")] * 10)
    assert won == [] and len(lost) == 10
    assert all(isinstance(exc, AuthenticationError) for exc in lost), lost
    assert not any(isinstance(exc, ConflictError) or getattr(exc, "code", None) == "conflict" for exc in lost)
    assert _failed(ctx, "caixa") == (10, True)  # every failure counted; locked from the fifth on


def test_simultaneous_right_passwords_never_conflict(ctx: AppContext, db_url: str) -> None:
    auth.create_user(ctx, "caixa", "Caixa Um", Role.CLERK, "senha-certa-1")
    won, lost = race(db_url, [lambda c: auth.authenticate(c, "caixa", "senha-certa-1")] * 6)
    assert lost == [] and {u.login for u in won} == {"caixa"}


def test_an_unknown_login_reads_and_takes_the_same_as_a_wrong_password(ctx: AppContext) -> None:
    auth.create_user(ctx, "caixa", "Caixa Um", Role.CLERK, "senha-certa-1")

    def attempt(login: str) -> tuple[float, str]:
        start = time.perf_counter()
        with pytest.raises(AuthenticationError) as caught:
            auth.authenticate(ctx, login, "errada")
        return time.perf_counter() - start, str(caught.value)

    known = [attempt("caixa") for _ in range(3)]
    unknown = [attempt("ninguem") for _ in range(3)]
    assert {m for _t, m in known} == {m for _t, m in unknown} == {auth.WRONG_CREDENTIALS}
    ratio = statistics.median(t for t, _m in unknown) / statistics.median(t for t, _m in known)
    assert 0.5 < ratio < 2, ratio  # the dummy argon2id verification: no cheap "no such user"


def test_login_names_outside_the_safe_set_or_confusable_are_refused(ctx: AppContext, backend: str) -> None:
    auth.create_user(ctx, "maria", "Maria Souza", Role.CLERK, "senha-certa-1")
    with raises_code(InvalidInputError, "user.login_invalid", fields=("login",)):
        auth.create_user(ctx, "m\u0430ria", "Cirílico", Role.CLERK, "senha-certa-1")  # Cyrillic а
    with raises_code(InvalidInputError, "user.login_taken", fields=("login",)):
        auth.create_user(ctx, "\uff4d\uff41\uff52\uff49\uff41", "Largura total", Role.CLERK, "senha-certa-1")
    for lookalike in ("rnaria", "mar1a", "m.aria"):
        with raises_code(InvalidInputError, "user.login_confusable", fields=("login",)) as confusable:
            auth.create_user(ctx, lookalike, "Parecido", Role.CLERK, "senha-certa-1")
        names_in(confusable.value, lookalike, repr("maria"))  # the new login and the one it looks like
    for bad in ("a", "-maria", "maria silva", "maria\u202e", "x" * 33, "joão"):
        with raises_code(InvalidInputError, "user.login_invalid", fields=("login",)):
            auth.create_user(ctx, bad, "Ruim", Role.CLERK, "senha-certa-1")
    # A login stored before the rule, with a Cyrillic letter, is compared by its skeleton too.
    with ctx.write() as s:
        s.add(User(login="p\u0435dro", full_name="Pedro Antigo", role=Role.CLERK, password_hash="x"))
    with raises_code(InvalidInputError, "user.login_confusable", fields=("login",)):
        auth.create_user(ctx, "pedro", "Pedro Novo", Role.CLERK, "senha-certa-1")
    assert auth.create_user(ctx, "Pedro.Alves", "Pedro Alves", Role.CLERK, "senha-certa-1").login == "pedro.alves"


# --- 13. the badge key -------------------------------------------------------------------------------


def _printed(ctx: AppContext, supervisor: AppContext, clerk: AppContext, name: str = "Rita de Cássia Melo"):  # noqa: ANN202
    dossier = make_dossier(ctx, ServiceType.MOTOBOY, state=PermitState.APPROVED, name=name)
    issued = permits.issue(supervisor, dossier.application_id)
    (badge,) = badges.print_badges(clerk, [issued.id]).badges
    claim = verify_token(badge.qr_text, badges.public_key_pem(clerk))  # what the print signed, printed fields too
    assert (claim.permit_number, claim.cpf_digest, claim.issue_no) == (issued.number, cpf_digest(dossier.cpf), 1)
    return dossier, issued, claim


def test_no_service_hands_out_the_private_key_and_no_export_carries_it(ctx: AppContext, supervisor: AppContext,
                                                                      clerk: AppContext, tmp_path: Path) -> None:
    import importlib
    import inspect
    import pkgutil
    import zipfile

    import motodesk.services as package
    from motodesk.services.reports import EXPORTERS, export

    _printed(ctx, supervisor, clerk)
    for pem in (badges.public_key_pem(clerk), *badges.public_keys(clerk)):
        assert b"PUBLIC KEY" in pem and b"PRIVATE" not in pem
    for info in pkgutil.iter_modules(package.__path__):  # no public function reaches the private key
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for name, fn in vars(module).items():
            if inspect.isfunction(fn) and not name.startswith("_") and fn.__module__ == module.__name__:
                source = inspect.getsource(fn)
                if name != "rotate_signing_key":  # which writes the new pair and returns key ids only
                    assert "SIGNING_KEY_SETTING" not in source and "_stored_keys" not in source, name
                assert "_key_pair(" not in source or name in ("print_badges", "public_key_pem",
                                                              "rotate_signing_key"), name
    admin = ctx
    for kind in EXPORTERS:
        out = tmp_path / f"{kind.key}.xlsx"
        export(admin, kind.key, out)
        with zipfile.ZipFile(out) as book:
            for member in book.namelist():
                assert b"PRIVATE KEY" not in book.read(member), (kind.key, member)


def test_database_and_key_files_are_readable_by_their_owner_only(ctx: AppContext, tmp_path: Path) -> None:
    from motodesk.models.db import Database

    old = os.umask(0)
    try:
        db = Database.open(f"sqlite:///{tmp_path / 'novo.sqlite3'}")
        db.prepare()
        db.dispose()
        badges.export_public_key(ctx, tmp_path / "crachas.pem")
    finally:
        os.umask(old)
    for name in ("novo.sqlite3", "crachas.pem"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o600, name


def test_a_badge_signed_with_a_leaked_key_but_unknown_to_the_register_reads_forged(
        ctx: AppContext, supervisor: AppContext, clerk: AppContext) -> None:
    _dossier, _permit, claim = _printed(ctx, supervisor, clerk)
    leaked, _public = badges._key_pair(ctx)  # the attacker holds the private key
    genuine = sign_claim(claim, leaked)
    assert badges.verify_badge(clerk, genuine).status is BadgeStatus.VALID  # what was printed
    longer = replace(claim, valid_until=claim.valid_until.replace(year=claim.valid_until.year + 5))
    as_deputy = replace(claim, holder_kind="preposto")
    for forged, reason in ((longer, "não conferem com o crachá impresso"),
                           (as_deputy, "preposto")):
        result = badges.verify_badge(clerk, sign_claim(forged, leaked))
        assert result.status is BadgeStatus.FORGED, forged
        assert reason in result.message and result.holder_name is None
    # A reprint: the first copy is superseded, and a re-signed first copy with other dates is forged.
    badges.print_badges(clerk, [_permit.id], reason="Perda")
    assert badges.verify_badge(clerk, genuine).status is BadgeStatus.SUPERSEDED
    assert badges.verify_badge(clerk, sign_claim(longer, leaked)).status is BadgeStatus.FORGED


def test_key_rotation_keeps_old_badges_verifying_and_reprints_nothing(
        ctx: AppContext, supervisor: AppContext, clerk: AppContext) -> None:
    _dossier, permit, claim = _printed(ctx, supervisor, clerk)
    old_private, old_public = badges._key_pair(ctx)
    old_token = sign_claim(claim, old_private)
    with ctx.read() as s:
        prints_before = s.scalar(select(func.count()).select_from(badges.BadgePrint))
    rotation = badges.rotate_signing_key(ctx)
    assert rotation.badges_by_older_keys == 1 and rotation.retired_key_ids == [badges.key_id(old_public)]
    new_private, new_public = badges._key_pair(ctx)
    assert new_public != old_public and rotation.new_key_id == badges.key_id(new_public)
    assert badges.public_key_pem(clerk) == new_public and old_public in badges.public_keys(clerk)
    with ctx.read() as s:  # nothing reprinted, and the new private key is not in the audit trail
        assert s.scalar(select(func.count()).select_from(badges.BadgePrint)) == prints_before
        trail = " ".join(str(v) for v in s.scalars(select(AuditEvent.changes)))
    assert "PRIVATE KEY" not in trail
    assert badges.verify_badge(clerk, old_token).status is BadgeStatus.VALID  # old key, register agrees
    assert badges.verify_offline(old_token, badges.public_keys(clerk)).status is BadgeStatus.VALID
    assert badges.verify_offline(old_token, new_public).status is BadgeStatus.FORGED
    # The old key cannot sign a copy the register does not know, even though it still verifies.
    assert badges.verify_badge(clerk, sign_claim(replace(claim, issue_no=2), old_private)).status \
        is BadgeStatus.FORGED
    badges.print_badges(clerk, [permit.id], reason="Troca de chave")
    assert badges.verify_badge(clerk, sign_claim(replace(claim, issue_no=2), new_private)).status \
        is BadgeStatus.VALID
    assert badges.verify_badge(clerk, old_token).status is BadgeStatus.SUPERSEDED
    with raises_code(PermissionDeniedError, "permission_denied"):
        badges.rotate_signing_key(supervisor)


@pytest.mark.slow
def test_rotate_badge_key_from_the_terminal(ctx: AppContext, db_url: str, supervisor: AppContext,
                                            clerk: AppContext) -> None:
    auth.create_user(ctx, "chefe", "Chefe do Setor", Role.ADMIN, ADMIN_PASSWORD)
    _printed(ctx, supervisor, clerk)
    out = run("rotate-badge-key", "--database", db_url, "--user", "chefe", stdin=f"{ADMIN_PASSWORD}\n")
    assert out.returncode == 0, out.stderr
    assert "1 crachá(s) em uso foram assinados por chave anterior" in out.stdout
    assert "Nenhum crachá foi reimpresso" in out.stdout
