"""`motodesk card-stock` in a real process: a batch, a spoiled card, a print, and the period report."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from openpyxl import load_workbook
from permit_factory import make_dossier  # type: ignore[import-not-found]

from motodesk.models.db import Database
from motodesk.rules.common import PermitState, Role, ServiceType
from motodesk.services import auth, badges, permits
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext, CurrentUser
from motodesk.services.settings import ensure_defaults

SUPERVISOR = ("--user", "chefe", "--password-stdin")
CLERK = ("--user", "joana", "--password-stdin")
PASSWORD = "senha-muito-secreta\n"


def run(*args: str, stdin: str = PASSWORD) -> subprocess.CompletedProcess[str]:
    env = {**os.environ}
    env.pop("MOTODESK_DATABASE_URL", None)
    return subprocess.run([sys.executable, "-m", "motodesk", *args], input=stdin, capture_output=True, text=True,
                          timeout=120, env=env)


def test_batch_spoil_and_report_from_a_terminal(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    db = Database.open(url)
    db.prepare()
    ctx = AppContext(db)
    ensure_defaults(ctx)
    badges.register_printing_station(ctx)  # this test workstation prints
    auth.create_user(ctx, "chefe", "Chefe do Setor", Role.SUPERVISOR, PASSWORD.strip())
    auth.create_user(ctx, "joana", "Joana Atendente", Role.CLERK, PASSWORD.strip())
    dossier = make_dossier(ctx, ServiceType.MOTOBOY, state=PermitState.APPROVED, name="Rita de Cássia Melo")
    supervisor = ctx.as_user(CurrentUser(None, "chefe", "Chefe do Setor", Role.SUPERVISOR))
    issued = permits.issue(supervisor, dossier.application_id)

    out = run("card-stock", "add-batch", "000101", "000110", "--note", "NF 77", "--database", url, *SUPERVISOR)
    assert out.returncode == 0, out.stderr
    assert "Lote registrado: 000101 a 000110 (10 cartões)" in out.stdout
    refused = run("card-stock", "add-batch", "000105", "000120", "--database", url, *SUPERVISOR)
    assert refused.returncode == 1 and "sobrepõe ao lote já registrado de 000101 a 000110" in refused.stderr
    assert run("card-stock", "add-batch", "000130", "000120", "--database", url, *SUPERVISOR).returncode == 1
    denied = run("card-stock", "add-batch", "000200", "000210", "--database", url, *CLERK)
    assert denied.returncode == 1 and "não permite" in denied.stderr

    out = run("card-stock", "spoil", "101", "Erro de impressão", "--database", url, *CLERK)
    assert out.returncode == 0 and "Cartão 000101 registrado como inutilizado" in out.stdout, out.stderr
    badges.print_badges(supervisor, [issued.id], card_serials=["000103"])  # 000102 skipped
    db.dispose()

    today = local_today().strftime("%d/%m/%Y")
    sheet = tmp_path / "estoque"
    denied = run("card-stock", "report", "--from", today, "--to", today, "--database", url, *CLERK)
    assert denied.returncode == 1 and "não permite" in denied.stderr, denied.stderr  # supervisor and admin only
    out = run("card-stock", "report", "--from", today, "--to", today, "--out", str(sheet), "--database", url,
              *SUPERVISOR)
    assert out.returncode == 4, out.stderr  # an anomaly: 000102 skipped
    assert "Crachás impressos em cartão numerado: 1" in out.stdout
    assert "Cartões inutilizados: 1" in out.stdout and "Cartões em estoque no fim do período: 8" in out.stdout
    assert "[Pulado] Cartão 000102" in out.stdout
    book = load_workbook(sheet.with_suffix(".xlsx"))
    assert [row[0] for row in book["Usados"].iter_rows(min_row=3, values_only=True)] == ["000103"]
    listing = run("card-stock", "batches", "--database", url, *CLERK)
    assert "usados 1, inutilizados 1, em estoque 8 — NF 77" in listing.stdout
    bad = run("card-stock", "report", "--from", "31/02/2026", "--to", today, "--database", url, *SUPERVISOR)
    assert bad.returncode == 2 and "data inválida" in bad.stderr
