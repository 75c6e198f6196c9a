"""Import of the secretariat's register: the preview judges every row (validators, rules, database) and
writes nothing; the apply writes the confirmed rows in one transaction; re-importing creates nothing."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from reports_factory import holder  # type: ignore[import-not-found]
from sqlalchemy import func, select
from tests_helpers import existing_register, raises_code, valid_cpf, wait_seconds  # type: ignore[import-not-found]

from motodesk.exports.importer import TEMPLATE_COLUMNS, TEMPLATE_SHEET, write_template
from motodesk.models import (
    AuditEvent,
    Decree,
    Permit,
    PermitEvent,
    Person,
    PersonDocument,
    QuotaCounter,
    Vehicle,
)
from motodesk.rules.common import PermitState, ServiceType
from motodesk.rules.dossier import DocumentKind
from motodesk.services.clock import local_today
from motodesk.services.context import AppContext
from motodesk.services.errors import InvalidInputError, PermissionDeniedError
from motodesk.services.imports import Outcome, apply_import, preview_import, render_preview, render_summary
from motodesk.services.settings import update_settings

TODAY = local_today()
HEADER = {c.key: c.header for c in TEMPLATE_COLUMNS}


def shown(cpf: str) -> str:
    return f"{cpf[:3]}.{cpf[3:6]}.{cpf[6:9]}-{cpf[9:]}"


def row(cpf: str, name: str, plate: str | None = None, **over: Any) -> dict[str, Any]:
    values: dict[str, Any] = {
        "full_name": name, "cpf": shown(cpf), "birth_date": date(1985, 3, 14), "sex": "Feminino",
        "phone": "(34) 99876-5432", "email": "pessoa@exemplo.com.br", "address": "Rua Goiás, 100, Centro",
        "cnh": "02650306461", "cnh_categories": "AB", "cnh_first_a_date": date(2010, 6, 1),
        "cnh_expiry": TODAY + timedelta(days=800), "service": "Motoboy", "plate": plate,
        "manufacture_year": TODAY.year - 1, "engine_cc": 160, "nit": "120.5464.678-6",
    }
    values.update(over)
    return values


def register(path: Path, rows: list[dict[str, Any]]) -> Path:
    """The app's own template, filled in as a clerk would."""
    write_template(path)
    wb = openpyxl.load_workbook(path)
    ws = wb[TEMPLATE_SHEET]
    headers = [c.value for c in ws[1]]
    keys = {h: k for k, h in HEADER.items()}
    for values in rows:
        ws.append([values.get(keys[h]) for h in headers])
    wb.save(path)
    return path


def count(ctx: AppContext, model: Any) -> int:
    with ctx.read() as s:
        return int(s.scalar(select(func.count()).select_from(model)) or 0)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    out = tmp_path / "planilhas"
    out.mkdir()
    return out


def test_good_and_bad_rows_preview_then_apply(clerk: AppContext, folder: Path) -> None:
    known = holder(clerk, "Roberto Carlos Mendes", ServiceType.MOTOBOY)
    issued = TODAY - timedelta(days=400)
    cpfs = [valid_cpf() for _ in range(8)]
    path = register(folder / "cadastro.xlsx", [
        # 2: a new holder with vehicle and permit
        row(cpfs[0], "Maria Aparecida da Silva", "ABC1D23", permit_number=f"MB-0007/{issued.year}",
            issued_on=issued, decree="Decreto 1.234/2021"),
        # 3: a new person with dates typed as text in other formats
        row(cpfs[1], "José Antônio Pereira", None, service="Mototáxi", birth_date="14-03-1980",
            cnh_first_a_date="2005-01-20", cnh_expiry=(TODAY + timedelta(days=300)).strftime("%d.%m.%Y")),
        # 4: invalid CPF
        row("52998224726", "Carlos Inválido Souza"),
        # 5: under 21 (Art. 5º, I)
        row(cpfs[2], "Lucas Menor Idade", birth_date=date(TODAY.year - 19, 1, 1), cnh_first_a_date=None),
        # 6: no category A (Art. 5º, II)
        row(cpfs[3], "Paula Categoria Bê", cnh_categories="B"),
        # 7: 300 cc (Art. 3º, I)
        row(cpfs[4], "Sérgio Motor Grande", "DEF2G34", engine_cc=300),
        # 8: the plate of someone already registered
        row(cpfs[5], "Tânia Placa Repetida", known.holder.plate),
        # 9: a mototáxi permit number for a motoboy
        row(cpfs[6], "Vítor Número Errado", permit_number="MT-0001/2024", issued_on=date(2024, 2, 1)),
        # 10: the registered holder, new phone: an update
        {"full_name": "Roberto Carlos Mendes", "cpf": known.holder.cpf, "service": "Motoboy",
         "phone": "(34) 98888-1111", "birth_date": date(1988, 4, 2)},
        # 11: a formula in a cell; a date that does not exist
        row(cpfs[7], '=HYPERLINK("http://x","y")', birth_date="31/02/1990"),
    ])
    people_before = count(clerk, Person)

    preview = preview_import(clerk, path)
    assert preview.file_ok and [line.line for line in preview.lines] == list(range(2, 12))
    by = {line.line: line for line in preview.lines}
    assert by[2].outcome is Outcome.NEW and by[2].changes == [
        "nova pessoa", "veículo ABC1D23", f"permissão MB-0007/{issued.year}"]
    assert by[3].outcome is Outcome.NEW and preview.planned(3).person.birth_date == date(1980, 3, 14)
    assert by[4].outcome is Outcome.REFUSED and "CPF" in by[4].reason
    assert by[5].outcome is Outcome.REFUSED and "Art. 5º, I" in by[5].reason and "21" in by[5].reason
    assert by[6].outcome is Outcome.REFUSED and "Art. 5º, II" in by[6].reason and "categoria A" in by[6].reason
    assert by[7].outcome is Outcome.REFUSED and "Art. 3º, I" in by[7].reason and "300 cc" in by[7].reason
    assert by[8].outcome is Outcome.REFUSED and "já está no veículo ativo de Roberto Carlos Mendes" in by[8].reason
    assert by[9].outcome is Outcome.REFUSED and "é de Mototáxi, mas o serviço informado é Motoboy" in by[9].reason
    assert by[10].outcome is Outcome.UPDATE and by[10].changes == ["telefone"]
    assert by[11].outcome is Outcome.REFUSED and "Fórmulas não são aceitas" in by[11].reason
    assert "não é uma data que exista" in by[11].reason
    text = render_preview(preview)
    assert text.splitlines()[0] == ('Arquivo cadastro.xlsx, aba "Cadastro": 10 linhas lidas — 2 novas, '
                                    "1 atualização, 0 sem alterações, 7 recusadas.")
    assert f"Linha 2: será incluída — Maria Aparecida da Silva (CPF {shown(cpfs[0])}): nova pessoa" in text
    assert "Linha 10: atualizará o cadastro — Roberto Carlos Mendes" in text and ": telefone" in text
    assert "Linha 4: recusada — " in text
    # Nothing is written by the preview.
    assert count(clerk, Person) == people_before

    summary = apply_import(clerk, preview)
    assert (summary.created, summary.updated, summary.vehicles, summary.permits) == (2, 1, 1, 1)
    assert count(clerk, Person) == people_before + 2
    with clerk.read() as s:
        maria = s.scalar(select(Person).where(Person.cpf == cpfs[0]))
        assert maria.full_name == "Maria Aparecida da Silva" and maria.phone == "(34) 99876-5432"
        assert maria.name_search == "maria aparecida da silva"
        cnh = s.scalar(select(PersonDocument).where(PersonDocument.person_id == maria.id,
                                                    PersonDocument.kind == DocumentKind.CNH))
        assert (cnh.number, cnh.categories, cnh.reference_date) == ("02650306461", "AB", date(2010, 6, 1))
        vehicle = s.scalar(select(Vehicle).where(Vehicle.holder_id == maria.id))
        assert vehicle.plate == "ABC1D23" and vehicle.active and vehicle.service_type is ServiceType.MOTOBOY
        permit = s.scalar(select(Permit).where(Permit.person_id == maria.id))
        assert permit.number == f"MB-0007/{issued.year}" and permit.state is PermitState.ACTIVE
        assert permit.vehicle_id == vehicle.id and permit.issued_on == issued
        assert permit.certificate_valid_until >= TODAY
        assert s.get(Decree, permit.decree_id).number == "Decreto 1.234/2021"
        event = s.scalar(select(PermitEvent).where(PermitEvent.permit_id == permit.id))
        assert event.transition == "import" and event.by_user == "clerk" and "linha 2" in event.reason
        assert s.scalar(select(Person.phone).where(Person.cpf == known.holder.cpf)) == "(34) 98888-1111"
        assert s.scalar(select(Person).where(Person.cpf == cpfs[2])) is None
    assert "Importação concluída: 2 pessoas incluídas, 1 atualizada" in render_summary(summary)


def test_reimporting_the_same_file_creates_and_writes_nothing(clerk: AppContext, folder: Path) -> None:
    issued = TODAY - timedelta(days=200)
    path = register(folder / "cadastro.xlsx", [
        row(valid_cpf(), "Ana Lúcia Ferreira", "GHI3J45", permit_number=f"MF-0003/{issued.year}", issued_on=issued,
            service="Moto-frete"),
        row(valid_cpf(), "Bruno Costa Ramos", None),
    ])
    first = apply_import(clerk, preview_import(clerk, path))
    assert first.created == 2
    counts = {m: count(clerk, m) for m in (Person, PersonDocument, Vehicle, Permit, PermitEvent, AuditEvent)}

    again = preview_import(clerk, path)
    assert [line.outcome for line in again.lines] == [Outcome.UNCHANGED, Outcome.UNCHANGED]
    assert "Linha 2: já existe, sem alterações — Ana Lúcia Ferreira" in render_preview(again)
    summary = apply_import(clerk, again)
    assert summary.written == 0 and summary.unchanged == 2
    assert "Nada foi gravado" in render_summary(summary)
    assert {m: count(clerk, m) for m in counts} == counts  # not even an audit row


def test_a_changed_register_since_the_preview_imports_nothing(clerk: AppContext, folder: Path) -> None:
    path = register(folder / "cadastro.xlsx", [
        row(valid_cpf(), "Carla Dias Moreira", "JKL4M56"),
        row(valid_cpf(), "Diego Alves Nunes", "MNO5P67"),
    ])
    preview = preview_import(clerk, path)
    assert [line.outcome for line in preview.lines] == [Outcome.NEW, Outcome.NEW]
    other = holder(clerk, "Elisa Ramos Prado")  # another workstation registers the second plate meanwhile
    with clerk.write() as s:
        existing_register(s)
        plate = "MNO5P67"
        s.get(Vehicle, other.holder.vehicle_id).plate = plate
    before = count(clerk, Person)
    with raises_code(InvalidInputError, "import.register_changed") as err:
        apply_import(clerk, preview)
    assert plate in str(err.value)  # the line the changed register now refuses names the plate
    assert count(clerk, Person) == before  # not even the first, valid, row


def test_only_the_confirmed_lines(clerk: AppContext, folder: Path) -> None:
    a, b = valid_cpf(), valid_cpf()
    path = register(folder / "cadastro.xlsx", [row(a, "Fábio Lima Souza"), row(b, "Gisele Martins Reis"),
                                               row("111", "Hélio Inválido")])
    preview = preview_import(clerk, path)
    with raises_code(InvalidInputError, "import.rows_not_confirmable"):
        apply_import(clerk, preview, [2, 4])
    summary = apply_import(clerk, preview, [3])
    assert summary.created == 1
    with clerk.read() as s:
        assert s.scalar(select(Person.id).where(Person.cpf == a)) is None
        assert s.scalar(select(Person.id).where(Person.cpf == b)) is not None


def test_mototaxi_permits_take_quota_places(clerk: AppContext, ctx: AppContext, folder: Path) -> None:
    update_settings(ctx, {"population": 4000})  # 2 places (Art. 10, I)
    issued = TODAY - timedelta(days=30)
    path = register(folder / "cadastro.xlsx", [
        row(valid_cpf(), f"Mototaxista Número {n}", service="Mototáxi", permit_number=f"MT-{n:04d}/{issued.year}",
            issued_on=issued) for n in (1, 2, 3)
    ] + [row(valid_cpf(), "Antigo Permissionário Silva", service="Mototáxi",
             permit_number="MT-0099/2015", issued_on=date(2015, 5, 4))])
    preview = preview_import(clerk, path)
    outcomes = [line.outcome for line in preview.lines]
    assert outcomes == [Outcome.NEW, Outcome.NEW, Outcome.REFUSED, Outcome.NEW]
    assert "Art. 10, I" in preview.lines[2].reason
    assert "será importada como expirada" in preview.lines[3].warnings[0]
    apply_import(clerk, preview)
    with clerk.read() as s:
        assert s.get(QuotaCounter, ServiceType.MOTOTAXI).in_force == 2
        old = s.scalar(select(Permit).where(Permit.number == "MT-0099/2015"))
        assert old.state is PermitState.EXPIRED and old.ended_on == date(2020, 5, 4)


def test_bad_files_and_roles(clerk: AppContext, inspector: AppContext, ctx: AppContext, folder: Path) -> None:
    text = folder / "cadastro.xlsx"
    text.write_text("Nome completo;CPF\nMaria;52998224725\n", encoding="utf-8")
    preview = preview_import(clerk, text)
    assert not preview.file_ok and preview.lines == []
    assert render_preview(preview).startswith("Arquivo cadastro.xlsx recusado; nada foi importado.")
    with raises_code(InvalidInputError, "import.file_refused"):
        apply_import(clerk, preview)

    renamed = folder / "renomeado.xlsx"
    wb = openpyxl.Workbook()
    wb.active.append(["Nome", "Documento", "Serviço"])
    wb.active.append(["Maria da Silva", "529.982.247-25", "Motoboy"])
    wb.save(renamed)
    preview = preview_import(clerk, renamed)
    assert any("Falta a coluna obrigatória \"CPF\"" in e for e in preview.file_errors)
    assert any("renomeie o cabeçalho para \"Nome completo\"" in e for e in preview.file_errors)

    locked = folder / "senha.xlsx"
    body = b"".join(n.encode("utf-16-le").ljust(64, b"\x00") for n in ("Root Entry", "EncryptionInfo",
                                                                       "EncryptedPackage"))
    locked.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504 + body + b"\x00" * 1024)
    assert "protegida por senha" in preview_import(clerk, locked).file_errors[0]

    good = register(folder / "ok.xlsx", [row(valid_cpf(), "Irene Campos Luz")])
    for who in (inspector, ctx):
        with pytest.raises(PermissionDeniedError):
            preview_import(who, good)


def test_a_million_empty_formatted_rows_cost_nothing(clerk: AppContext, folder: Path) -> None:
    """A register whose formatting runs to the bottom of the sheet (1,000,000 empty styled rows)."""
    import re
    import time
    import zipfile

    path = register(folder / "cadastro.xlsx", [row(valid_cpf(), "Joana Prado Lima"), row(valid_cpf(), "Kléber Dias")])
    patched = folder / "formatada.xlsx"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(patched, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename == "xl/worksheets/sheet1.xml":
                xml = re.sub(r'<dimension ref="[^"]+"\s*/>', '<dimension ref="A1:U1000003"/>', data.decode())
                empty = "".join(f'<row r="{n}"><c r="A{n}" s="0"/></row>' for n in range(4, 1_000_004))
                data = xml.replace("</sheetData>", empty + "</sheetData>").encode()
            dst.writestr(item, data)
    start = time.perf_counter()
    preview = preview_import(clerk, patched)
    assert time.perf_counter() - start < wait_seconds(20)
    assert [line.outcome for line in preview.lines] == [Outcome.NEW, Outcome.NEW]
    assert any("A leitura parou na linha" in w for w in preview.file_warnings)
    assert apply_import(clerk, preview).created == 2


def test_the_mandatory_insurance_columns_are_read_and_judged(clerk: AppContext, folder: Path) -> None:
    """Issue 16, item 10: the seguro obrigatório's validity and insured CPF, like the CRLV (Art. 5º, § 1º, I; § 5º)."""
    cpfs = [valid_cpf() for _ in range(3)]
    path = register(folder / "seguro.xlsx", [
        row(cpfs[0], "Ana Seguro em Dia", "SEG1A23", insurance_valid_until=TODAY + timedelta(days=200),
            insurance_insured_cpf=shown(cpfs[0])),
        row(cpfs[1], "Beto Seguro Vencido", "SEG1B23", insurance_valid_until=TODAY - timedelta(days=1),
            insurance_insured_cpf=shown(cpfs[1])),
        row(cpfs[2], "Caio Seguro Alheio", "SEG1C23", insurance_valid_until=TODAY + timedelta(days=200),
            insurance_insured_cpf=shown(cpfs[0])),
    ])
    preview = preview_import(clerk, path)
    by = {line.line: line for line in preview.lines}
    assert not any("seguro obrigatório" in w for w in by[2].warnings)
    assert any("Art. 5º, § 1º, I; Art. 5º, § 5º" in w and "venceu" in w for w in by[3].warnings)
    assert any("não está em nome do titular" in w for w in by[4].warnings)
    apply_import(clerk, preview)
    with clerk.read() as s:
        stored = s.scalar(select(Vehicle).where(Vehicle.plate == "SEG1A23"))
        assert stored is not None and stored.insurance_insured_cpf == cpfs[0]
        assert stored.insurance_valid_until == TODAY + timedelta(days=200)
