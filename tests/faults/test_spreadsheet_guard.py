"""Fault suite, issue 31: one guarded reader for every spreadsheet, one name cleaner for every path.

Bombs that sit just inside the old limits (a ``styles.xml`` of 100 MB deflated under the old ratio of
200, shared strings of 100 MB, 4 million tiny shared strings in a small file, a member under 4 MB that
deflates 1,000 times) are built here with zipfile's format written by hand, and given to both readers
(the register import and the tender candidates' import) in a child process whose peak RSS is read
with ``getrusage(RUSAGE_CHILDREN)`` by a small launcher: each is refused in pt_BR naming the cause, in under 5 s and 250 MB. A hidden or very
hidden first sheet is never read on either path; a name of combining marks only or with U+FE0F is
refused on both; encrypted, empty, .xls and CSV files get their own sentence on the tender path; an
exported spreadsheet is 0600 whatever the umask.
"""

from __future__ import annotations

import io
import json
import os
import random
import stat
import struct
import subprocess
import sys
import unicodedata
import zipfile
import zlib
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from sqlalchemy import select
from tests_helpers import raises_code, valid_cpf, wait_seconds  # type: ignore[import-not-found]

from motodesk.exports import spreadsheet
from motodesk.exports.importer import TEMPLATE_HEADERS, TEMPLATE_SHEET, read_import
from motodesk.exports.spreadsheet import (
    MAX_COMPRESSION_RATIO,
    MAX_SHARED_STRINGS,
    MAX_SHARED_STRINGS_BYTES,
    MAX_STYLES_BYTES,
    MSG_EMPTY,
    MSG_NOT_FOUND,
    MSG_PASSWORD,
    MSG_TEXT,
    MSG_TOO_BIG,
    MSG_XLS,
    check_spreadsheet,
)
from motodesk.exports.xlsx import Column, SheetSpec, write_workbook
from motodesk.models import Person, TenderCandidate
from motodesk.rules.text import mark_problem, name_problem
from motodesk.services import imports, tenders
from motodesk.services.context import AppContext
from motodesk.services.errors import InvalidInputError

ROOT = Path(__file__).resolve().parents[2]
TODAY = date(2026, 3, 2)
MIB = 1024 * 1024
MAX_SECONDS = 5.0
MAX_RSS_MB = 250
NS = b"http://schemas.openxmlformats.org/spreadsheetml/2006/main"


# --- the files ---------------------------------------------------------------------------------------


def _register_row(cpf: str, name: str = "Maria Aparecida da Silva") -> list[Any]:
    values = {"Nome completo": name, "CPF": cpf, "Data de nascimento": date(1985, 3, 14), "Serviço": "Motoboy"}
    return [values.get(h) for h in TEMPLATE_HEADERS]


def _register_book(rows: list[list[Any]]) -> openpyxl.Workbook:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = TEMPLATE_SHEET
    ws.append(list(TEMPLATE_HEADERS))
    for row in rows:
        ws.append(row)
    return wb


def _tender_book(rows: list[list[Any]]) -> openpyxl.Workbook:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Classificação", "CPF", "Nome"])
    for row in rows:
        ws.append(row)
    return wb


def _bytes(wb: openpyxl.Workbook) -> bytes:
    buffer = io.BytesIO()
    wb.save(buffer)
    return buffer.getvalue()


def _skeleton(reader: str) -> bytes:
    if reader == "register":
        return _bytes(_register_book([_register_row(valid_cpf())]))
    return _bytes(_tender_book([[1, valid_cpf(), "Ana Beatriz Rocha"]]))


def _repeated(prefix: bytes, block: bytes, repeats: int, suffix: bytes) -> tuple[bytes, int, int]:
    """Raw deflate of prefix + block * repeats + suffix, built in about one block of memory.

    After a full flush deflate forgets its history, so every further copy of the block compresses to
    the very same bytes: it is compressed once and repeated. Returns (stream, crc, inflated size).
    """
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    head = c.compress(prefix) + c.flush(zlib.Z_FULL_FLUSH)
    once = c.compress(block) + c.flush(zlib.Z_FULL_FLUSH)
    again = c.compress(block) + c.flush(zlib.Z_FULL_FLUSH)
    assert once == again
    tail = c.compress(suffix) + c.flush()
    crc = zlib.crc32(prefix)
    for _ in range(repeats):
        crc = zlib.crc32(block, crc)
    crc = zlib.crc32(suffix, crc)
    return head + once * repeats + tail, crc, len(prefix) + len(block) * repeats + len(suffix)


def _write_zip(path: Path, members: list[tuple[str, bytes, int, int]]) -> None:
    """members: (name, raw deflate data, crc, declared inflated size), written as a zip by hand."""
    with path.open("wb") as out:
        central = bytearray()
        for name, data, crc, size in members:
            offset = out.tell()
            encoded = name.encode()
            out.write(struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, 8, 0, 0x21, crc, len(data), size,
                                  len(encoded), 0) + encoded)
            out.write(data)
            central += struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, 8, 0, 0x21, crc, len(data),
                                   size, len(encoded), 0, 0, 0, 0, 0, offset) + encoded
        start = out.tell()
        out.write(central)
        out.write(struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(members), len(members), len(central),
                              start, 0))


def _with_member(skeleton: bytes, path: Path, member: str, stream: tuple[bytes, int, int], *,
                 declared: int | None = None) -> Path:
    """``skeleton`` with ``member`` replaced (or added) by the raw deflate ``stream``."""
    members = []
    with zipfile.ZipFile(io.BytesIO(skeleton)) as zf:
        for info in zf.infolist():
            if info.filename == member:
                continue
            data = zf.read(info)
            c = zlib.compressobj(6, zlib.DEFLATED, -15)
            members.append((info.filename, c.compress(data) + c.flush(), zlib.crc32(data), len(data)))
    data, crc, size = stream
    members.append((member, data, crc, size if declared is None else declared))
    _write_zip(path, members)
    return path


def _styles_bomb() -> tuple[bytes, int, int]:
    """~100 MB of cell formats, each line different enough to deflate ~20-80 times (old limit: 200)."""
    line = b'<xf numFmtId="%d" fontId="0" fillId="0" borderId="%d" xfId="0" applyNumberFormat="1"/>'
    block = b"".join(line % (i % 164, i % 7) for i in range(MIB // 80))
    prefix = b'<styleSheet xmlns="' + NS + b'"><cellXfs count="1">'
    return _repeated(prefix, block, (100 * MIB) // len(block), b"</cellXfs></styleSheet>")


def _strings_bomb() -> tuple[bytes, int, int]:
    """~100 MB of shared strings that are real names with numbers, deflating ~10-50 times."""
    block = b"".join(b"<si><t>Pessoa Importada N\xc3\xbamero %d</t></si>" % i for i in range(MIB // 40))
    prefix = b'<sst xmlns="' + NS + b'" count="1" uniqueCount="1">'
    return _repeated(prefix, block, (100 * MIB) // len(block), b"</sst>")


def _many_strings_bomb() -> tuple[bytes, int, int, int]:
    """4 million empty shared strings, varied whitespace between them (so the ratio stays low), in
    well under the shared strings' size cap: only the count can refuse it. The count attributes lie."""
    rng = random.Random(31)
    items = [b"<si/>" + bytes(rng.choice(b" \t\r\n") for _ in range(rng.randint(0, 4))) for _ in range(40_000)]
    block = b"".join(items)
    repeats = 100
    prefix = b'<sst xmlns="' + NS + b'" count="10" uniqueCount="10">'
    stream = _repeated(prefix, block, repeats, b"</sst>")
    return (*stream, len(items) * repeats)


def _spaces_bomb() -> tuple[bytes, int, int]:
    """A sheet under 4 MB (the old code checked ratios only from there) padded with 3 MB of spaces."""
    prefix = b'<worksheet xmlns="' + NS + b'"><sheetData>'
    return _repeated(prefix, b" " * MIB, 3, b"</sheetData></worksheet>")


def _bomb(kind: str, reader: str, folder: Path) -> Path:
    skeleton = _skeleton(reader)
    path = folder / f"{kind}-{reader}.xlsx"
    if kind == "styles":
        stream = _styles_bomb()
        assert stream[2] > 95 * MIB and stream[2] < 200 * len(stream[0]), "a styles bomb under the old ratio"
        return _with_member(skeleton, path, "xl/styles.xml", stream)
    if kind == "styles-lying":
        return _with_member(skeleton, path, "xl/styles.xml", _styles_bomb(), declared=2048)
    if kind == "shared-strings":
        stream = _strings_bomb()
        assert stream[2] > 95 * MIB and stream[2] < 200 * len(stream[0]), "a strings bomb under the old ratio"
        return _with_member(skeleton, path, "xl/sharedStrings.xml", stream)
    if kind == "many-strings":
        data, crc, size, count = _many_strings_bomb()
        assert count == 4_000_000 and size < MAX_SHARED_STRINGS_BYTES and size < MAX_COMPRESSION_RATIO * len(data)
        return _with_member(skeleton, path, "xl/sharedStrings.xml", (data, crc, size))
    if kind == "small-member-ratio":
        stream = _spaces_bomb()
        assert stream[2] < 4 * MIB and stream[2] > 500 * len(stream[0])
        return _with_member(skeleton, path, "xl/worksheets/sheet1.xml", stream)
    raise AssertionError(kind)


# --- the child process ----------------------------------------------------------------------------

CHILD = r"""
import json, sys, time
from pathlib import Path
from motodesk.exports.importer import read_import
from motodesk.services.errors import InvalidInputError
from motodesk.services.tenders import read_candidates_xlsx

reader, path = sys.argv[1], sys.argv[2]
start = time.perf_counter()
if reader == "register":
    errors = read_import(path).file_errors
else:
    try:
        read_candidates_xlsx(Path(path).read_bytes())
        errors = []
    except InvalidInputError as exc:
        errors = [exc.message]
print(json.dumps({"errors": errors, "seconds": time.perf_counter() - start}))
"""


# A small launcher between the test and the reader: a child's ru_maxrss starts from the RSS of the
# process it was forked from (Linux keeps the high-water mark across exec), so the reader is forked
# from this ~10 MB launcher, never from pytest, and the launcher reports RUSAGE_CHILDREN.
LAUNCHER = ("import resource, subprocess, sys; code = subprocess.call(sys.argv[1:]); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(code)")


def _in_child(reader: str, path: Path) -> tuple[list[str], float, float]:
    """(pt_BR errors, seconds the read took, peak RSS in MB) of the read in a fresh process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-S", "-c", LAUNCHER, sys.executable, "-c", CHILD, reader, str(path)],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    result_line, maxrss_kib = proc.stdout.strip().splitlines()[-2:]
    result = json.loads(result_line)
    return result["errors"], result["seconds"], int(maxrss_kib) / 1024  # Linux: KiB


EXPECTED = {
    "styles": ("xl/styles.xml", f"{MAX_STYLES_BYTES // MIB} MB para os estilos"),
    "styles-lying": ("xl/styles.xml", "mais bytes do que o arquivo declara"),
    "shared-strings": ("xl/sharedStrings.xml", f"{MAX_SHARED_STRINGS_BYTES // MIB} MB para a tabela de textos"),
    "many-strings": ("textos diferentes", f"mais de {MAX_SHARED_STRINGS:,}".replace(",", ".")),
    "small-member-ratio": ("xl/worksheets/sheet1.xml", f"o limite é {MAX_COMPRESSION_RATIO} vezes"),
}


@pytest.mark.parametrize("reader", ["register", "tender"])
@pytest.mark.parametrize("kind", list(EXPECTED))
def test_bombs_under_the_old_limits_are_refused_fast_and_small_on_both_readers(
    tmp_path: Path, kind: str, reader: str
) -> None:
    path = _bomb(kind, reader, tmp_path)
    assert path.stat().st_size < 20 * MIB  # under both readers' size limits: only the guard stands between
    errors, seconds, rss_mb = _in_child(reader, path)
    assert len(errors) == 1, errors
    for part in EXPECTED[kind]:
        assert part in errors[0], errors[0]
    assert "recusado" in errors[0]
    assert seconds < wait_seconds(MAX_SECONDS), f"judged in {seconds:.2f} s"
    assert rss_mb < MAX_RSS_MB, f"peak RSS {rss_mb:.0f} MB"


def test_the_guard_accepts_the_skeletons_and_a_disguised_strings_part_is_counted(tmp_path: Path) -> None:
    """The hand-written zips are sound (the same files without a bomb pass), and shared strings are
    counted in whatever part holds them, not only in the one called sharedStrings.xml."""
    for reader in ("register", "tender"):
        plain = _with_member(_skeleton(reader), tmp_path / f"plain-{reader}.xlsx", "xl/theme/extra.xml",
                             _repeated(b"<a>", b"<b/>", 10, b"</a>"))
        assert check_spreadsheet(plain) is None
    data, crc, size, _count = _many_strings_bomb()
    hidden = _with_member(_skeleton("register"), tmp_path / "disfarce.xlsx", "xl/worksheets/sheet9.xml",
                          (data, crc, size))
    assert "textos diferentes" in (check_spreadsheet(hidden) or "")


def test_shared_strings_are_counted_across_chunk_edges() -> None:
    """Every ``<si`` start is counted once, whatever the chunk sizes (prefixed tags too)."""
    rng = random.Random(7)
    text = b"".join(rng.choice([b"<si>", b"<si/>", b"<x:si>", b"<si\n>", b"<sis>", b"si>", b"<t>a</t>", b" "])
                    for _ in range(20_000))
    expected = sum(text.count(p) for p in (b"<si>", b"<si/>", b"<x:si>", b"<si\n>"))
    for size in (1, 3, 7, 64, 65, 1000):
        counter = spreadsheet._Counter()
        for i in range(0, len(text), size):
            counter.feed(text[i:i + size])
        counter.close()
        assert counter.strings == expected, size
        assert not counter.dtd


def test_a_dtd_in_any_part_is_refused(tmp_path: Path) -> None:
    laughs = b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa">]><x>&a;</x>'
    path = _with_member(_skeleton("tender"), tmp_path / "dtd.xlsx", "docProps/core.xml",
                        _repeated(laughs, b" ", 1, b""))
    assert "<!DOCTYPE>" in (check_spreadsheet(path) or "")


# --- only visible sheets, on both paths ----------------------------------------------------------------


@pytest.mark.parametrize("state", ["hidden", "veryHidden"])
def test_a_hidden_first_sheet_is_never_imported_in_the_register(
    tmp_path: Path, clerk: AppContext, state: str
) -> None:
    secret, shown = valid_cpf(), valid_cpf()
    wb = _register_book([_register_row(secret, "Pessoa Escondida Silva")])
    wb.active.sheet_state = state
    visible = wb.create_sheet("Planilha2")
    visible.append(list(TEMPLATE_HEADERS))
    visible.append(_register_row(shown))
    wb.active = 1
    path = tmp_path / "primeira-oculta.xlsx"
    wb.save(path)
    assert openpyxl.load_workbook(path).worksheets[0].sheet_state == state
    preview = imports.preview_import(clerk, path, today=TODAY)
    assert preview.file_errors == []
    imports.apply_import(clerk, preview, today=TODAY)
    with clerk.read() as s:
        assert set(s.scalars(select(Person.cpf))) == {shown}


@pytest.mark.parametrize("state", ["hidden", "veryHidden"])
def test_a_hidden_first_sheet_is_never_imported_as_candidates(supervisor: AppContext, state: str) -> None:
    secret, shown = valid_cpf(), valid_cpf()
    wb = _tender_book([[1, secret, "Pessoa Escondida Silva"]])
    wb.active.sheet_state = state
    visible = wb.create_sheet("Resultado")
    visible.append(["Classificação", "CPF", "Nome"])
    visible.append([1, shown, "Ana Beatriz Rocha"])
    wb.active = 1
    tender_id = tenders.create_tender(supervisor, f"Concorrência {state}")
    assert tenders.import_candidates(supervisor, tender_id, _bytes(wb)) == 1
    with supervisor.read() as s:
        assert list(s.scalars(select(TenderCandidate.cpf))) == [shown]


def test_a_workbook_with_no_visible_sheet_imports_nothing_as_candidates(supervisor: AppContext) -> None:
    data = _bytes(_tender_book([[1, valid_cpf(), "Ana Beatriz Rocha"]]))
    patched = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(patched, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            body = src.read(item)
            if item.filename == "xl/workbook.xml":
                body = body.replace(b'state="visible" r:id', b'state="veryHidden" r:id')
            dst.writestr(item, body)
    tender_id = tenders.create_tender(supervisor, "Concorrência sem abas")
    with raises_code(InvalidInputError, "tender.no_visible_sheet"):
        tenders.import_candidates(supervisor, tender_id, patched.getvalue())


# --- bad files on the tender path get the register import's sentences ---------------------------------


def _ole(*streams: str) -> bytes:
    body = b"".join(name.encode("utf-16-le").ljust(64, b"\x00") for name in ("Root Entry", *streams))
    return b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504 + body + b"\x00" * 1024


@pytest.mark.parametrize(("data", "message"), [
    (_ole("EncryptionInfo", "EncryptedPackage", "\x06DataSpaces"), MSG_PASSWORD),
    (b"", MSG_EMPTY),
    (_ole("Workbook", "\x05SummaryInformation"), MSG_XLS),
    (b"Classificacao;CPF;Nome\n1;52998224725;Ana Beatriz Rocha\n", MSG_TEXT),
], ids=["encrypted", "empty", "xls", "csv"])
def test_bad_files_on_the_tender_path_are_named(supervisor: AppContext, data: bytes, message: str) -> None:
    tender_id = tenders.create_tender(supervisor, "Concorrência 09/2026")
    with raises_code(InvalidInputError, "tender.file_refused") as caught:
        tenders.import_candidates(supervisor, tender_id, data)
    assert caught.value.message == message
    assert tenders.list_candidates(supervisor, tender_id) == []


def test_a_file_over_the_tender_limit_is_refused_by_its_path_unread(tmp_path: Path, supervisor: AppContext) -> None:
    """The screen hands the path on: a 1 GB (sparse) file is refused by its size, never read."""
    path = tmp_path / "enorme.xlsx"
    with path.open("wb") as fh:
        fh.write(b"PK\x03\x04")
        fh.truncate(1024 * MIB)
    tender_id = tenders.create_tender(supervisor, "Concorrência 10/2026")
    with raises_code(InvalidInputError, "tender.file_refused") as caught:
        tenders.import_candidates(supervisor, tender_id, path)
    assert caught.value.message == MSG_TOO_BIG.format(size=1024, limit=tenders.MAX_IMPORT_BYTES // MIB)
    with raises_code(InvalidInputError, "tender.file_refused") as caught:
        tenders.import_candidates(supervisor, tender_id, tmp_path / "sumiu.xlsx")
    assert caught.value.message == MSG_NOT_FOUND.format(name="sumiu.xlsx")


# --- one name cleaner ---------------------------------------------------------------------------------

COMBINING_ONLY = "\u0301\u0301 \u0300\u0303"
EMOJI_VS = "Zé \U0001f3cd\ufe0f da Silva"
DECOMPOSED = unicodedata.normalize("NFD", "João da Conceição")


def test_the_name_cleaner_refuses_marks_no_script_needs() -> None:
    for name in (COMBINING_ONLY, EMOJI_VS, "Maria\ufe00 Silva", "Ana \u0301Souza", "Ze\u0301\u0336 Silva",
                 "Zalgo Ma\u0336\u0335ria", "1\u0301 Silva", "Chen \u6f22\U000e0100 Li"):
        assert mark_problem(unicodedata.normalize("NFC", name)), repr(name)
        assert "apague-o" in (name_problem(unicodedata.normalize("NFC", name)) or "")
    for name in ("João da Conceição", unicodedata.normalize("NFC", DECOMPOSED), "Zé \U0001f3cd da Silva",
                 "Ñandú Çedilha", "Muḥammad al-ʿArabī", "\u092e\u0941\u0928\u094d\u0928\u093e Devi",
                 "\u05e9\u05b8\u05c1\u05dc\u05d5\u05b9\u05dd Cohen", "李 Wei Chen", "D'Ávila-Souza"):
        assert name_problem(unicodedata.normalize("NFC", name)) is None, repr(name)
    assert "U+FE0F" in (mark_problem(EMOJI_VS) or "") and "U+0301" in (mark_problem(COMBINING_ONLY) or "")


@pytest.mark.parametrize(("name", "refused"), [(COMBINING_ONLY, "U+0301"), (EMOJI_VS, "U+FE0F"),
                                               (DECOMPOSED, None)], ids=["combining-only", "fe0f", "decomposed"])
def test_names_pass_the_same_cleaner_in_the_register_import(
    tmp_path: Path, clerk: AppContext, name: str, refused: str | None
) -> None:
    cpf = valid_cpf()
    path = tmp_path / "nomes.xlsx"
    _register_book([_register_row(cpf, name)]).save(path)
    report = read_import(path, today=TODAY)
    preview = imports.preview_import(clerk, path, today=TODAY)
    imports.apply_import(clerk, preview, today=TODAY)
    with clerk.read() as s:
        stored = list(s.scalars(select(Person.full_name)))
    if refused:
        assert not report.rows[0].ok and any(refused in e for e in report.rows[0].errors), report.rows[0].errors
        assert stored == []
    else:
        assert report.rows[0].ok
        assert stored == ["João da Conceição"] and stored[0] == unicodedata.normalize("NFC", stored[0])


@pytest.mark.parametrize(("name", "refused"), [(COMBINING_ONLY, "U+0301"), (EMOJI_VS, "U+FE0F"),
                                               (DECOMPOSED, None)], ids=["combining-only", "fe0f", "decomposed"])
def test_names_pass_the_same_cleaner_in_the_tender_import_and_typed(
    supervisor: AppContext, name: str, refused: str | None
) -> None:
    tender_id = tenders.create_tender(supervisor, f"Concorrência {refused or 'ok'}")
    data = _bytes(_tender_book([[1, valid_cpf(), name]]))
    if refused:
        with pytest.raises(InvalidInputError) as caught:
            tenders.import_candidates(supervisor, tender_id, data)
        assert any(refused in p for p in caught.value.fields.values()), caught.value.fields
        with pytest.raises(InvalidInputError) as typed:
            tenders.add_candidate(supervisor, tender_id, 2, valid_cpf(), name)
        assert refused in typed.value.fields["name"]
        assert tenders.list_candidates(supervisor, tender_id) == []
    else:
        assert tenders.import_candidates(supervisor, tender_id, data) == 1
        assert [c.name for c in tenders.list_candidates(supervisor, tender_id)] == ["João da Conceição"]


# --- exported spreadsheets are the owner's only -------------------------------------------------------


def test_an_exported_spreadsheet_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    target = tmp_path / "cadastro.xlsx"
    target.write_bytes(b"old")
    os.chmod(target, 0o644)  # an older export, readable by anyone: replaced by an owner-only file
    spec = SheetSpec("Cadastro", "Cadastro", [Column("name", "Nome"), Column("cpf", "CPF")])
    old = os.umask(0)
    try:
        written = write_workbook(target, [(spec, [{"name": "Maria da Silva", "cpf": "529.982.247-25"}])],
                                 exported_by="Ana", exported_at=datetime(2026, 3, 2, 12, tzinfo=UTC))
    finally:
        os.umask(old)
    assert written == 1
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert openpyxl.load_workbook(target).active["A3"].value == "Maria da Silva"
    assert [p.name for p in tmp_path.iterdir()] == ["cadastro.xlsx"]  # no temporary file left


# --- one reader -----------------------------------------------------------------------------------


def test_no_module_opens_a_workbook_but_the_guarded_reader() -> None:
    """load_workbook / ExcelReader appear in motodesk only inside exports/spreadsheet.py."""
    package = ROOT / "motodesk"
    readers = sorted(str(p.relative_to(package)) for p in package.rglob("*.py")
                     if any(word in p.read_text(encoding="utf-8") for word in ("load_workbook", "ExcelReader")))
    assert readers == ["exports/spreadsheet.py"]


def test_the_lean_shared_strings_reader_reads_what_openpyxl_reads() -> None:
    from openpyxl.reader.strings import read_string_table

    xml = (b'<sst xmlns="' + NS + b'" count="99" uniqueCount="99">'
           b"<si><t>Maria da Silva</t></si>"
           b'<si><t xml:space="preserve">  espa\xc3\xa7os  </t></si>'
           b"<si><r><rPr><b/></rPr><t>Jo\xc3\xa3o </t></r><r><t>Negrito</t></r></si>"
           b"<si><t>\xe6\x9d\xb1\xe4\xba\xac</t><rPh sb=\"0\" eb=\"2\"><t>\xe3\x83\x88\xe3\x82\xa6</t></rPh></si>"
           b"<si><t>a_x005F_x000D_b</t></si><si><t/></si><si/></sst>")
    lean = spreadsheet._read_shared_strings(io.BytesIO(xml))
    assert lean == list(read_string_table(io.BytesIO(xml)))
    assert lean[:3] == ["Maria da Silva", "  espaços  ", "João Negrito"] and len(lean) == 7
