"""A trail whose end is anchored (issue 25, item 3): signed checkpoints of the audit chain's head.

Deleting the newest audit rows leaves a chain that still links; the checkpoint written by `motodesk
daily`, every backup and every publication of the status list says how many rows there were and the
last one's hash, signed with the badge key and chained to the checkpoint before it. Tampering is done
as whoever owns the file or the server would: past the append-only triggers (SQLite: dropped;
PostgreSQL: session_replication_role = replica).
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from sqlalchemy import func, select
from sqlalchemy.exc import DBAPIError
from tests_helpers import names_in, valid_cpf  # type: ignore[import-not-found]

from motodesk.models import AuditCheckpoint, AuditEvent
from motodesk.models.db import Database
from motodesk.rules.common import Role
from motodesk.services import audit, auth, badges, people
from motodesk.services import backup as backups
from motodesk.services.context import AppContext

ROOT = Path(__file__).resolve().parents[2]


def _tamper(db: Database, *statements: str) -> None:
    with db.engine.begin() as conn:
        if db.is_sqlite:
            for table in ("audit_events", "audit_checkpoints"):
                for verb in ("update", "delete"):
                    conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {table}_no_{verb}")
        else:
            conn.exec_driver_sql("SET LOCAL session_replication_role = replica")
        for statement in statements:
            conn.exec_driver_sql(statement)


def _history(clerk: AppContext, n: int = 3) -> None:
    for i in range(n):
        people.save_person(clerk, people.PersonInput(full_name=f"Pessoa Ponto {i}", cpf=valid_cpf(),
                                                     birth_date=date(1981, 3, 1 + i)))


def _ids(ctx: AppContext) -> list[int]:
    with ctx.read() as s:
        return list(s.scalars(select(AuditEvent.id).order_by(AuditEvent.id)))


def test_a_clean_chain_with_checkpoints_is_intact(ctx: AppContext, clerk: AppContext) -> None:
    before = audit.verify_audit_trail(ctx)
    assert before.intact and before.checkpoint is None and before.checkpoints == 0  # none sealed yet
    _history(clerk)
    first = audit.write_checkpoint(ctx, "daily")
    _history(clerk, 2)  # rows after the last checkpoint are fine: nothing sealed them yet
    second = audit.write_checkpoint(ctx, "backup")
    ids = _ids(ctx)
    assert (first.seq, second.seq, second.rows, second.last_id) == (1, 2, len(ids), ids[-1])
    assert second.prev == audit.body_digest(first.body)
    result = audit.verify_audit_trail(ctx)
    assert result.intact and result.findings == () and result.checkpoints == 2
    assert result.checkpoint is not None and result.checkpoint.seq == 2
    names_in(result.message, result.checkpoint.label)  # the report names the checkpoint it held the trail to


def test_the_checkpoint_is_signed_with_the_badge_key(ctx: AppContext, clerk: AppContext) -> None:
    _history(clerk, 1)
    checkpoint = audit.write_checkpoint(ctx, "daily")
    from cryptography.hazmat.primitives.serialization import load_pem_public_key

    public = load_pem_public_key(badges.public_key_pem(ctx))
    public.verify(base64.b64decode(checkpoint.signature), b"MDC1." + checkpoint.body.encode())  # type: ignore[union-attr]
    fields = json.loads(checkpoint.body)
    assert fields["key_id"] == badges.key_id(badges.public_key_pem(ctx))
    assert set(fields) == {"format", "seq", "at", "rows", "last_id", "last_hash", "prev", "key_id", "reason"}


@pytest.mark.parametrize("deleted", [1, 4])
def test_deleting_the_newest_rows_after_a_checkpoint_is_detected(ctx: AppContext, clerk: AppContext,
                                                                 deleted: int) -> None:
    _history(clerk)
    audit.write_checkpoint(ctx, "daily")
    ids = _ids(ctx)
    gone, kept = ids[-deleted:], ids[-deleted - 1]
    _tamper(ctx.db, f"DELETE FROM audit_events WHERE id >= {gone[0]}")
    result = audit.verify_audit_trail(ctx)
    assert result.broken is None  # the shorter chain still links: only the checkpoint can tell
    assert not result.intact and result.missing is not None
    assert (result.missing.count, result.missing.after_id, result.missing.last_id) == (deleted, kept, gone[-1])
    assert result.missing.message in result.message.splitlines()  # the report says which rows are gone
    names_in(result.missing.message, kept, gone[-1])


def test_rows_deleted_then_the_trail_continued_is_detected(ctx: AppContext, clerk: AppContext) -> None:
    _history(clerk)
    audit.write_checkpoint(ctx, "daily")
    ids = _ids(ctx)
    _tamper(ctx.db, f"DELETE FROM audit_events WHERE id >= {ids[-3]}")
    _history(clerk, 2)  # the workstations keep working: new rows link to the shortened chain
    result = audit.verify_audit_trail(ctx)
    assert result.broken is None and not result.intact
    # The new rows take new ids (PostgreSQL's sequence; SQLite never reuses an id a checkpoint sealed).
    assert result.missing is not None and (result.missing.count, result.missing.after_id) == (3, ids[-4])
    assert _ids(ctx)[-2] > ids[-1]


@pytest.mark.parametrize("field", ["rows", "last_hash", "signature"])
def test_a_tampered_checkpoint_is_detected(ctx: AppContext, clerk: AppContext, field: str) -> None:
    _history(clerk)
    checkpoint = audit.write_checkpoint(ctx, "daily")
    if field == "signature":
        statement = "UPDATE audit_checkpoints SET signature = '" + base64.b64encode(b"x" * 64).decode() + "'"
    else:  # the body edited, so it seals fewer rows (the deletion of the newest ones would then hide)
        fields = json.loads(checkpoint.body)
        fields[field] = fields[field] - 2 if field == "rows" else "0" * 64
        body = json.dumps(fields, sort_keys=True, separators=(",", ":")).replace("'", "''")
        statement = f"UPDATE audit_checkpoints SET body = '{body}'"
    _tamper(ctx.db, statement)
    result = audit.verify_audit_trail(ctx)
    assert not result.intact
    assert any("O ponto de controle nº 1 da trilha foi adulterado: a assinatura não confere" in f
               for f in result.findings), result.message


def test_a_checkpoint_re_signed_with_another_key_is_refused(ctx: AppContext, clerk: AppContext) -> None:
    _history(clerk)
    checkpoint = audit.write_checkpoint(ctx, "daily")
    other = Ed25519PrivateKey.generate()
    fields = json.loads(checkpoint.body)
    fields["key_id"] = badges.key_id(other.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo))
    fields["rows"] -= 1
    body = json.dumps(fields, sort_keys=True, separators=(",", ":"))
    signature = base64.b64encode(other.sign(b"MDC1." + body.encode())).decode()
    _tamper(ctx.db, f"UPDATE audit_checkpoints SET body = '{body}', signature = '{signature}'")
    result = audit.verify_audit_trail(ctx)
    assert any("chave que não é a dos crachás" in f for f in result.findings), result.message


def test_a_deleted_middle_checkpoint_breaks_the_checkpoints_chain(ctx: AppContext, clerk: AppContext) -> None:
    for _ in range(3):
        _history(clerk, 1)
        audit.write_checkpoint(ctx, "daily")
    _tamper(ctx.db, "DELETE FROM audit_checkpoints WHERE id = 2")
    result = audit.verify_audit_trail(ctx)
    assert not result.intact
    assert any("apagado(s) do banco: nº 2" in f for f in result.findings), result.message


def test_deleting_rows_and_the_newest_checkpoint_is_caught_by_the_published_copy(
        ctx: AppContext, clerk: AppContext, tmp_path: Path) -> None:
    _history(clerk)
    audit.write_checkpoint(ctx, "daily")
    _history(clerk, 2)
    published = badges.publish_status(ctx, tmp_path)  # writes checkpoint nº 2 and its copy beside status.json
    assert published.checkpoint is not None and published.checkpoint.checkpoint is not None
    sealed = published.checkpoint.checkpoint
    assert sealed.seq == 2 and (tmp_path / audit.CHECKPOINT_FILE).is_file()
    assert audit.verify_audit_trail(ctx, published=tmp_path).intact
    ids = _ids(ctx)
    # The attacker removes the newest rows and the checkpoint that sealed them: the database alone
    # now looks whole (checkpoint nº 1 still matches the rows it sealed).
    _tamper(ctx.db, f"DELETE FROM audit_events WHERE id > {ids[-3]}", "DELETE FROM audit_checkpoints WHERE id = 2")
    assert audit.verify_audit_trail(ctx).intact  # the documented limit: without a copy elsewhere
    result = audit.verify_audit_trail(ctx, published=tmp_path)
    assert not result.intact and result.missing is not None and result.missing.count == 2
    assert any("publicado não está no banco" in f and "nº 2" in f for f in result.findings), result.message
    # The next publication keeps that evidence instead of overwriting it.
    before = (tmp_path / audit.CHECKPOINT_FILE).read_bytes()
    again = badges.publish_status(ctx, tmp_path)
    assert again.checkpoint is not None and again.checkpoint.checkpoint is None
    assert "não está no banco de dados" in (again.checkpoint.warning or "")
    assert (tmp_path / audit.CHECKPOINT_FILE).read_bytes() == before


def test_every_broken_link_is_listed(ctx: AppContext, clerk: AppContext) -> None:
    _history(clerk, 4)
    ids = _ids(ctx)
    _tamper(ctx.db, f"UPDATE audit_events SET user_login = 'outra' WHERE id = {ids[2]}",
            f"DELETE FROM audit_events WHERE id = {ids[6]}")
    result = audit.verify_audit_trail(ctx)
    assert [b.row_id for b in result.breaks] == [ids[2], ids[7]]
    names_in(result.message, ids[2], ids[7], *(b.reason for b in result.breaks))  # each one, with its reason


def test_checkpoints_are_append_only(ctx: AppContext, clerk: AppContext) -> None:
    _history(clerk, 1)
    audit.write_checkpoint(ctx, "daily")
    for statement in ("UPDATE audit_checkpoints SET reason = 'x'", "DELETE FROM audit_checkpoints"):
        with pytest.raises(DBAPIError, match="append-only"), ctx.db.engine.begin() as conn:
            conn.exec_driver_sql(statement)
    with ctx.read() as s:
        assert s.scalar(select(func.count()).select_from(AuditCheckpoint)) == 1


def test_a_backup_writes_a_checkpoint(ctx: AppContext, clerk: AppContext, tmp_path: Path) -> None:
    _history(clerk, 1)
    badges._key_pair(ctx)  # the key pair exists (its creation is itself audited)
    before = _ids(ctx)[-1]
    made = backups.create_backup(ctx, tmp_path / "copia.zip")
    with ctx.read() as s:
        (row,) = s.scalars(select(AuditCheckpoint)).all()
    assert row.reason == "backup" and json.loads(row.body)["last_id"] == row.last_id == before
    assert made.manifest.counts["audit_checkpoints"] == 1  # the copy carries the trail's signed head


def _run(db_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "motodesk", *args, "--database", db_url, "--user", "chefe"],
                          input="senha-do-chefe\n", capture_output=True, text=True, env=env, timeout=120, cwd=ROOT)


def test_daily_then_audit_verify_from_the_command_line(ctx: AppContext, clerk: AppContext, db_url: str,
                                                       tmp_path: Path) -> None:
    _history(clerk)
    auth.create_user(ctx, "chefe", "Chefe do Setor", Role.ADMIN, "senha-do-chefe")
    daily = _run(db_url, "daily", "--publish-status", str(tmp_path))
    assert daily.returncode == 0, daily.stderr
    assert "Ponto de controle da trilha de auditoria nº 1" in daily.stdout
    assert "nº 2" in daily.stdout and "Cópia publicada em" in daily.stdout  # the publication's own
    good = _run(db_url, "audit-verify", "--publicado", str(tmp_path / audit.CHECKPOINT_FILE))
    assert good.returncode == 0, good.stderr + good.stdout
    assert "Trilha de auditoria íntegra" in good.stdout
    sealed = audit.write_checkpoint(ctx, "daily")
    ids = _ids(ctx)
    assert sealed.last_id == ids[-1]
    _tamper(ctx.db, f"DELETE FROM audit_events WHERE id > {ids[-4]}")
    bad = _run(db_url, "audit-verify")  # its own login appends a row after the deletion
    assert bad.returncode == 1 and "Traceback" not in bad.stderr
    assert f"Faltam 3 registro(s) no fim da trilha: depois do registro nº {ids[-4]} até o nº {ids[-1]}" \
        in bad.stdout, bad.stdout


def test_sealed_rows_replaced_by_a_well_linked_forgery_are_detected(ctx: AppContext, clerk: AppContext) -> None:
    """The newest rows deleted and one forged in their place under the sealed last id, its link and
    hash recomputed: the chain verifies, the checkpoint does not."""
    from datetime import UTC, datetime

    from motodesk.models.audit import chain_hash

    _history(clerk)
    sealed = audit.write_checkpoint(ctx, "daily")
    ids = _ids(ctx)
    with ctx.read() as s:
        prev = s.scalar(select(AuditEvent.row_hash).where(AuditEvent.id == ids[-3]))
    at = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    forged = chain_hash(sealed.last_id, at, "chefe", "people", "1", "update", "{}", prev)
    _tamper(ctx.db, f"DELETE FROM audit_events WHERE id > {ids[-3]}",
            "INSERT INTO audit_events (id, at, user_login, table_name, row_key, action, changes, prev_hash, row_hash) "
            f"VALUES ({sealed.last_id}, '2026-12-01 12:00:00.000000', 'chefe', 'people', '1', 'update', '{{}}', "
            f"'{prev}', '{forged}')")
    result = audit.verify_audit_trail(ctx)
    assert result.broken is None and not result.intact
    assert any(f"O registro nº {sealed.last_id} não é o que o ponto de controle nº 1" in f
               for f in result.findings), result.message


def test_a_backup_never_creates_the_badge_key_to_sign_a_checkpoint(ctx: AppContext, clerk: AppContext,
                                                                   tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """On a workstation not registered to print, a backup is made without a checkpoint, and no key."""
    from motodesk.models import Setting

    _history(clerk, 1)
    store = tmp_path / "estacao-sem-chave"
    store.mkdir()
    monkeypatch.setenv("MOTODESK_BADGE_KEY_DIR", str(store))
    backups.create_backup(ctx, tmp_path / "copia.zip")
    with ctx.read() as s:
        assert s.scalar(select(func.count()).select_from(AuditCheckpoint)) == 0
        assert s.scalar(select(Setting.key).where(Setting.key == badges.SIGNING_KEY_SETTING)) is None
    assert list(store.iterdir()) == []
