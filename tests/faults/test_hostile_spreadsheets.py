"""Fault suite: hostile spreadsheets given to the import (issue 17, item 14).

A zip bomb (a 1 MB file whose sheet inflates to 1 GB) is refused before openpyxl sees it, quickly
and without memory, whether its headers tell the truth or lie about the size; a cell longer than the
limit is refused with its row and column; rows hidden in a hidden sheet never reach the register.
"""

from __future__ import annotations

import struct
import time
import tracemalloc
import zipfile
import zlib
from datetime import date
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from sqlalchemy import func, select
from tests_helpers import valid_cpf, wait_seconds  # type: ignore[import-not-found]

from motodesk.exports.importer import (
    MAX_CELL_CHARS,
    MAX_MEMBER_UNCOMPRESSED,
    TEMPLATE_HEADERS,
    TEMPLATE_SHEET,
    read_import,
)
from motodesk.models import Person
from motodesk.services import imports
from motodesk.services.context import AppContext

TODAY = date(2026, 3, 2)
GIB = 1024 * 1024 * 1024
MIB = 1024 * 1024


def _row(cpf: str, name: str = "Maria Aparecida da Silva", **over: Any) -> list[Any]:
    values = {"Nome completo": name, "CPF": cpf, "Data de nascimento": date(1985, 3, 14),
              "Serviço": "Motoboy", **over}
    return [values.get(h) for h in TEMPLATE_HEADERS]


def _register(path: Path, rows: list[list[Any]]) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = TEMPLATE_SHEET
    ws.append(list(TEMPLATE_HEADERS))
    for row in rows:
        ws.append(row)
    wb.save(path)
    return path


# --- a zip written by hand, so that its sizes can be 1 GB or a lie -----------------------------------


def _bomb_stream(prefix: bytes, suffix: bytes, filler_size: int) -> tuple[bytes, int, int]:
    """Raw deflate of prefix + b" " * filler_size + suffix, built in about 1 MB of memory.

    After a full flush deflate forgets its history, so every further megabyte of spaces compresses
    to the very same bytes: the block is computed once and repeated. Returns (stream, crc, size).
    """
    chunk = b" " * MIB
    assert filler_size % MIB == 0
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = c.compress(prefix) + c.compress(chunk) + c.flush(zlib.Z_FULL_FLUSH)
    block = c.compress(chunk) + c.flush(zlib.Z_FULL_FLUSH)
    again = c.compress(chunk) + c.flush(zlib.Z_FULL_FLUSH)
    assert block == again
    repeats = filler_size // MIB - 3
    tail = c.compress(chunk) + c.compress(suffix) + c.flush()
    stream = head + block * (repeats + 1) + tail
    crc = zlib.crc32(prefix)
    for _ in range(filler_size // MIB):
        crc = zlib.crc32(chunk, crc)
    crc = zlib.crc32(suffix, crc)
    return stream, crc, len(prefix) + filler_size + len(suffix)


def _write_zip(path: Path, members: list[tuple[str, bytes, int, int, int]]) -> None:
    """members: (name, raw deflate data, crc, declared uncompressed size, method)."""
    out = bytearray()
    central = bytearray()
    for name, data, crc, size, method in members:
        offset = len(out)
        encoded = name.encode()
        out += struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, method, 0, 0x21, crc, len(data), size,
                           len(encoded), 0) + encoded + data
        central += struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, method, 0, 0x21, crc, len(data),
                               size, len(encoded), 0, 0, 0, 0, 0, offset) + encoded
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(members), len(members), len(central), len(out), 0)
    path.write_bytes(bytes(out + central + end))


def _bomb(tmp_path: Path, *, lie: bool) -> Path:
    """A real register whose sheet XML is padded with 1 GB of spaces (valid XML whitespace)."""
    plain = _register(tmp_path / "plain.xlsx", [_row(valid_cpf())])
    members = []
    with zipfile.ZipFile(plain) as zf:
        for info in zf.infolist():
            data = zf.read(info)
            if info.filename == "xl/worksheets/sheet1.xml":
                cut = data.index(b"<sheetData>")
                stream, crc, size = _bomb_stream(data[:cut], data[cut:], GIB)
                members.append((info.filename, stream, crc, 4096 if lie else size, zipfile.ZIP_DEFLATED))
            else:
                c = zlib.compressobj(9, zlib.DEFLATED, -15)
                members.append((info.filename, c.compress(data) + c.flush(), zlib.crc32(data), len(data),
                                zipfile.ZIP_DEFLATED))
    path = tmp_path / ("mentirosa.xlsx" if lie else "bomba.xlsx")
    _write_zip(path, members)
    return path


def _measured(path: Path) -> tuple[Any, float, int]:
    tracemalloc.start()
    start = time.perf_counter()
    try:
        report = read_import(path, today=TODAY)
        elapsed = time.perf_counter() - start
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return report, elapsed, peak


@pytest.mark.parametrize("lie", [False, True], ids=["honest-headers", "lying-headers"])
def test_a_1_mb_file_that_inflates_to_1_gb_is_refused_fast_and_small(tmp_path: Path, lie: bool) -> None:
    path = _bomb(tmp_path, lie=lie)
    assert path.stat().st_size < 2 * MIB  # the file itself is small: the size check alone lets it in
    report, elapsed, peak = _measured(path)
    assert report.rows == [] and len(report.file_errors) == 1
    message = report.file_errors[0]
    assert path.name in message and "xl/worksheets/sheet1.xml" in message
    if lie:
        assert "mais bytes do que o arquivo declara" in message
    else:
        assert "antes de ser aberto" in message and f"{MAX_MEMBER_UNCOMPRESSED // MIB} MB" in message
    assert elapsed < wait_seconds(1.0), f"refused in {elapsed:.2f} s"
    assert peak < 200 * MIB, f"peak Python memory {peak / MIB:.0f} MB"


def test_a_high_compression_ratio_is_refused_before_parsing(tmp_path: Path) -> None:
    """64 MB of spaces in 64 KB: under the size limits, but no real sheet deflates 1,000 times."""
    plain = _register(tmp_path / "plain.xlsx", [_row(valid_cpf())])
    members = []
    with zipfile.ZipFile(plain) as zf:
        for info in zf.infolist():
            data = zf.read(info)
            if info.filename == "xl/worksheets/sheet1.xml":
                cut = data.index(b"<sheetData>")
                members.append((info.filename, *_bomb_stream(data[:cut], data[cut:], 64 * MIB),
                                zipfile.ZIP_DEFLATED))
            else:
                c = zlib.compressobj(9, zlib.DEFLATED, -15)
                members.append((info.filename, c.compress(data) + c.flush(), zlib.crc32(data), len(data),
                                zipfile.ZIP_DEFLATED))
    path = tmp_path / "comprimida.xlsx"
    _write_zip(path, members)
    report = read_import(path, today=TODAY)
    assert report.rows == []
    assert "vezes" in report.file_errors[0] and "comprimida.xlsx" in report.file_errors[0]


def test_the_hand_written_zip_is_a_readable_register_when_honest(tmp_path: Path) -> None:
    """The zip writer above is sound: the same file without padding imports its one line."""
    plain = _register(tmp_path / "plain.xlsx", [_row(valid_cpf())])
    members = []
    with zipfile.ZipFile(plain) as zf:
        for info in zf.infolist():
            data = zf.read(info)
            c = zlib.compressobj(9, zlib.DEFLATED, -15)
            members.append((info.filename, c.compress(data) + c.flush(), zlib.crc32(data), len(data),
                            zipfile.ZIP_DEFLATED))
    path = tmp_path / "manual.xlsx"
    _write_zip(path, members)
    report = read_import(path, today=TODAY)
    assert report.file_errors == [] and [r.ok for r in report.rows] == [True]


def test_a_cell_longer_than_the_limit_is_refused_with_its_row_and_column(tmp_path: Path) -> None:
    long_address = "Rua " + "A" * (MAX_CELL_CHARS + 10)
    path = _register(tmp_path / "longa.xlsx", [_row(valid_cpf()), _row(valid_cpf(), Endereço=long_address)])
    report = read_import(path, today=TODAY)
    first, second = report.rows
    assert first.ok and not second.ok
    column = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[list(TEMPLATE_HEADERS).index("Endereço")]
    assert any(f"célula {column}3" in e and "Texto longo demais" in e for e in second.errors), second.errors
    assert second.values["address"] is None


def test_rows_in_hidden_sheets_never_reach_the_register(tmp_path: Path, clerk: AppContext) -> None:
    shown, hidden_cpf, very_hidden_cpf = valid_cpf(), valid_cpf(), valid_cpf()
    wb = openpyxl.Workbook()
    for title, cpf, state in (("Oculta", hidden_cpf, "hidden"), ("Secreta", very_hidden_cpf, "veryHidden")):
        ws = wb.create_sheet(title)
        ws.append(list(TEMPLATE_HEADERS))
        ws.append(_row(cpf, "Pessoa Escondida Silva"))
        ws.sheet_state = state
    visible = wb.active
    visible.title = "Planilha1"
    visible.append(list(TEMPLATE_HEADERS))
    visible.append(_row(shown))
    path = tmp_path / "oculta.xlsx"
    wb.save(path)
    report = read_import(path, today=TODAY)
    assert [r.values["cpf"] for r in report.rows] == [shown]
    assert any('"Oculta"' in w and '"Secreta"' in w and "ignoradas" in w for w in report.file_warnings)

    # and through the service on both databases: only the visible line is written
    preview = imports.preview_import(clerk, path, today=TODAY)
    imports.apply_import(clerk, preview, today=TODAY)
    with clerk.read() as s:
        cpfs = set(s.scalars(select(Person.cpf)))
        assert s.scalar(select(func.count()).select_from(Person)) == 1
    assert cpfs == {shown}


def test_a_hidden_template_sheet_does_not_hide_data_behind_the_visible_one(tmp_path: Path) -> None:
    """A hidden sheet named like the template is not preferred to the visible sheet."""
    shown = valid_cpf()
    wb = openpyxl.Workbook()
    decoy = wb.create_sheet(TEMPLATE_SHEET)
    decoy.append(list(TEMPLATE_HEADERS))
    decoy.append(_row(valid_cpf(), "Pessoa Escondida Silva"))
    decoy.sheet_state = "hidden"
    visible = wb.active
    visible.title = "Dados"
    visible.append(list(TEMPLATE_HEADERS))
    visible.append(_row(shown))
    path = tmp_path / "isca.xlsx"
    wb.save(path)
    report = read_import(path, today=TODAY)
    assert [r.values["cpf"] for r in report.rows] == [shown]
