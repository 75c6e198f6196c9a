"""`motodesk campaign …` in a real process: open, list, letters, schedule, attend, close."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

from openpyxl import load_workbook
from pypdf import PdfReader
from reports_factory import holder  # type: ignore[import-not-found]

from motodesk.models.db import Database
from motodesk.rules.common import Role, ServiceType
from motodesk.services import auth
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext, CurrentUser
from motodesk.services.settings import ensure_defaults

SUPERVISOR = ("--user", "chefe")
CLERK = ("--user", "balcao")


def run(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ}
    env.pop("MOTODESK_DATABASE_URL", None)
    return subprocess.run([sys.executable, "-m", "motodesk", "campaign", *args], input=stdin, capture_output=True,
                          text=True, timeout=120, env=env)


def test_the_campaign_from_a_terminal(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    db = Database.open(url)
    db.prepare()
    ctx = AppContext(db)
    ensure_defaults(ctx)
    auth.create_user(ctx, "chefe", "Marta Supervisora", Role.SUPERVISOR, "senha-da-chefe")
    auth.create_user(ctx, "balcao", "Rui Atendente", Role.CLERK, "senha-do-balcao")
    today = local_today()
    sup = ctx.as_user(CurrentUser(None, "chefe", "Marta Supervisora", Role.SUPERVISOR))
    ana = holder(sup, "Ana Paula Vieira", ServiceType.MOTOTAXI, today=today, issued_on=today - timedelta(days=340))
    db.dispose()
    start, end = today + timedelta(days=1), today + timedelta(days=40)
    db_args = ("--database", url)

    refused = run("open", "--from", f"{start:%d/%m/%Y}", "--to", f"{end:%d/%m/%Y}", *db_args, *CLERK,
                  stdin="senha-do-balcao\n")
    assert refused.returncode == 1 and "não permite" in refused.stderr

    out = run("open", "--from", f"{start:%d/%m/%Y}", "--to", f"{end:%d/%m/%Y}", *db_args, *SUPERVISOR,
              stdin="senha-da-chefe\n")
    assert out.returncode == 0, out.stderr
    assert "1 pessoa(s) convocada(s)" in out.stdout

    listed = run("list", *db_args, *CLERK, stdin="senha-do-balcao\n")
    assert listed.returncode == 0 and "Ana Paula Vieira" in listed.stdout and "Agendado" in listed.stdout

    letters = tmp_path / "cartas.pdf"
    out = run("letters", "--out", str(letters), *db_args, *CLERK, stdin="senha-do-balcao\n")
    assert out.returncode == 0, out.stderr
    assert "Ana Paula Vieira" in PdfReader(letters).pages[0].extract_text()

    sheet = tmp_path / "agenda.xlsx"
    out = run("schedule", "--out", str(sheet), *db_args, *CLERK, stdin="senha-do-balcao\n")
    assert out.returncode == 0 and "1 atendimento" in out.stdout
    ws = load_workbook(sheet).active
    assert ws is not None and ws["B3"].value == "Ana Paula Vieira"

    early = run("close", *db_args, *SUPERVISOR, stdin="senha-da-chefe\n")
    assert early.returncode == 1 and "por vir" in early.stderr

    out = run("attend", ana.holder.cpf, "--compareceu", *db_args, *CLERK, stdin="senha-do-balcao\n")
    assert out.returncode == 0, out.stderr
    assert "compareceu" in out.stdout

    closed = run("close", *db_args, *SUPERVISOR, stdin="senha-da-chefe\n")
    assert closed.returncode == 0, closed.stderr
    assert "Não compareceram: 0." in closed.stdout
