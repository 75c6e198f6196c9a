"""`motodesk export`, `motodesk import [--dry-run]` and `motodesk template` from a terminal: the same
report on stdout as on screen, exit codes that scripts can test."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import openpyxl
import pytest
from tests_helpers import valid_cpf  # type: ignore[import-not-found]

from motodesk.exports.importer import TEMPLATE_COLUMNS, TEMPLATE_SHEET
from motodesk.exports.kinds import PERMITS
from motodesk.exports.xlsx import title_line
from motodesk.services.demo import DEMO_PASSWORD

ADMIN = ("--user", "admin")
SUPERVISOR = ("--user", "supervisor")  # the demo's, with DEMO_PASSWORD
CLERK = ("--user", "atendente")
PASSWORD = f"{DEMO_PASSWORD}\n"


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ}
    env.pop("MOTODESK_DATABASE_URL", None)
    return subprocess.run([sys.executable, "-m", "motodesk", *args], input=stdin, capture_output=True, text=True,
                          timeout=180, env=env)


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    folder = tmp_path_factory.mktemp("cli")
    path = folder / "cli.sqlite3"
    url = f"sqlite:///{path}"
    assert run("init-db", "--database", url).returncode == 0
    out = run("create-user", "admin", "--role", "admin", "--database", url, stdin=f"{DEMO_PASSWORD}\n")
    assert out.returncode == 0, out.stderr
    out = run("seed-demo", "--people", "80", "--database", url, *ADMIN, stdin=f"{DEMO_PASSWORD}\n")
    assert out.returncode == 0, out.stderr
    return url, path


def _people(path: Path) -> int:
    con = sqlite3.connect(path)
    try:
        return con.execute("SELECT count(*) FROM people").fetchone()[0]
    finally:
        con.close()


def test_export_every_kind_and_roles(database: tuple[str, Path], tmp_path: Path) -> None:
    url, _path = database
    started = datetime.now(UTC)
    out = run("export", "permits", "--out", str(tmp_path / "permissoes.xlsx"), "--database", url, *SUPERVISOR,
              stdin=PASSWORD)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"Planilha gravada: {tmp_path / 'permissoes.xlsx'} (Cadastro de permissões, ")
    ws = openpyxl.load_workbook(tmp_path / "permissoes.xlsx").worksheets[0]
    # Row 1 is the sheet's title line naming who exported it, row 2 the declared headers (one wording each).
    titles = {title_line(PERMITS.title, "Marta Lúcia Fonseca (supervisor)", at) for at in (started, datetime.now(UTC))}
    assert ws["A1"].value in titles
    assert [c.value for c in ws[2]] == [c.header for c in PERMITS.columns] and ws.freeze_panes == "A3"

    out = run("export", "people-public", "--out", str(tmp_path / "pub.xlsx"), "--database", url, *ADMIN,
              stdin=PASSWORD)
    assert out.returncode == 0, out.stderr
    out = run("export", "nada", "--out", str(tmp_path / "x.xlsx"), "--database", url)
    assert out.returncode == 2 and "opção inválida" in out.stderr
    out = run("create-user", "ana", "--role", "clerk", "--database", url, *ADMIN,
              stdin=f"{DEMO_PASSWORD}\nsenha-forte-123\n")
    assert out.returncode == 0, out.stderr
    out = run("export", "permits", "--out", str(tmp_path / "y.xlsx"), "--database", url, "--user", "ana",
              stdin="senha-forte-123\n")
    assert out.returncode == 1 and "Seu perfil (Atendente) não permite" in out.stderr
    assert not (tmp_path / "y.xlsx").exists()
    out = run("export", "permits", "--out", str(tmp_path / "z.xlsx"), "--database", url, "--user", "ninguem",
              stdin="qualquer-senha\n")
    assert out.returncode == 1 and "Usuário ou senha incorretos" in out.stderr
    out = run("export", "permits", "--out", str(tmp_path / "z.xlsx"), "--database", url)
    assert out.returncode == 1 and "--user" in out.stderr and not (tmp_path / "z.xlsx").exists()


def test_template_import_dry_run_and_reimport(database: tuple[str, Path], tmp_path: Path) -> None:
    url, path = database
    model = tmp_path / "modelo.xlsx"
    out = run("template", "--out", str(model))
    assert out.returncode == 0 and "Modelo de importação gravado" in out.stdout
    wb = openpyxl.load_workbook(model)
    ws = wb[TEMPLATE_SHEET]
    headers = [c.value for c in ws[1]]
    keys = {c.header: c.key for c in TEMPLATE_COLUMNS}
    good, other = valid_cpf(), valid_cpf()
    rows = [
        {"full_name": "Marta Lúcia Ferreira", "cpf": good, "birth_date": "02/05/1981", "service": "Motoboy",
         "cnh_categories": "A", "cnh_first_a_date": date(2008, 1, 3), "plate": "QWE4R56",
         "manufacture_year": date.today().year, "engine_cc": 150,
         "permit_number": f"MB-0901/{date.today().year}", "issued_on": date.today() - timedelta(days=3)},
        {"full_name": "Otávio Ramos Teixeira", "cpf": other, "service": "Moto-frete",
         "birth_date": date(date.today().year - 18, 6, 1)},
        {"full_name": "Sem Documento", "cpf": "123", "service": "Motoboy"},
    ]
    for row in rows:
        ws.append([row.get(keys[h]) for h in headers])
    wb.save(model)
    before = _people(path)

    out = run("import", str(model), "--dry-run", "--database", url, *CLERK, stdin=PASSWORD)
    assert out.returncode == 4, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == ('Arquivo modelo.xlsx, aba "Cadastro": 3 linhas lidas — 1 nova, 0 atualizações, '
                        "0 sem alterações, 2 recusadas.")
    assert any(line.startswith("Linha 2: será incluída — Marta Lúcia Ferreira") for line in lines)
    assert any(line.startswith("Linha 3: recusada — ") and "Art. 5º, I" in line for line in lines)
    assert any(line.startswith("Linha 4: recusada — ") and "CPF" in line for line in lines)
    assert lines[-1] == "Simulação (--dry-run): nada foi gravado."
    assert _people(path) == before

    out = run("import", str(model), "--database", url, *CLERK, stdin=PASSWORD)
    assert out.returncode == 4, out.stderr
    assert "Importação concluída: 1 pessoa incluída, 0 atualizadas, 0 sem alterações; 1 veículo novo, " \
           "1 permissão nova." in out.stdout
    assert _people(path) == before + 1

    out = run("import", str(model), "--database", url, *CLERK, stdin=PASSWORD)  # again: nothing new
    assert out.returncode == 4
    assert "Linha 2: já existe, sem alterações — Marta Lúcia Ferreira" in out.stdout
    assert "Nada a gravar." in out.stdout
    assert _people(path) == before + 1


def test_bad_files(database: tuple[str, Path], tmp_path: Path) -> None:
    url, path = database
    csv = tmp_path / "cadastro.xlsx"
    csv.write_text("Nome;CPF\nMaria;52998224725\n", encoding="utf-8")
    out = run("import", str(csv), "--database", url, *CLERK, stdin=PASSWORD)
    assert out.returncode == 1
    assert out.stdout.startswith("Arquivo cadastro.xlsx recusado; nada foi importado.")
    assert "texto (CSV ou TXT)" in out.stdout
    out = run("template", "--out", str(tmp_path / "modelo.csv"))
    assert out.returncode == 1 and ".xlsx" in out.stderr
